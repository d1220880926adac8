"""The token budget (graph_trust.context.budget) pinned exactly with the character counter: the
word-boundary cut, re-redaction of a truncated memory, the second search when redaction lengthens
a cut, the step back when a counter is not monotonic, and memories kept strictly in order."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from graph_trust.context.budget import enforce_budget, fit_prefix
from graph_trust.context.clip import ELLIPSIS as E
from graph_trust.context.redact import Redactor

SECRET = Redactor(custom=[r"secret\b"])  # a cut "secretive" -> "secret…" matches; the whole word does not


def redact(text: str) -> str:
    return SECRET(text)[0]


def test_the_cut_ends_on_a_word_boundary():
    assert fit_prefix("alpha beta gamma", 11, len) == ("alpha beta" + E, 11)  # prefix "alpha beta " -> at the space
    assert fit_prefix("alpha beta gamma", 10, len) == ("alpha" + E, 6)  # "alpha bet" ends mid-word: back to "alpha"
    assert fit_prefix("alpha beta gamma", 13, len) == ("alpha beta" + E, 11)
    assert fit_prefix("alphabetagamma", 6, len) == ("alpha" + E, 6)  # no space: cut mid-word
    assert fit_prefix("  abcdefgh ijk", 7, len) == ("  abcd" + E, 7)  # leading blanks are no word boundary


def test_a_prefix_is_never_the_whole_text_and_blank_prefixes_are_left_out():
    assert fit_prefix("abc", 100, len) == ("ab" + E, 3)
    assert fit_prefix("   abc", 2, len) is None  # only blanks fit
    assert fit_prefix("abc", 0, len) is None and fit_prefix("abc", -3, len) is None
    free_ellipsis = lambda s: len(s.replace(E, ""))  # noqa: E731
    assert fit_prefix("abcdef", 1, free_ellipsis) == ("a" + E, 1)
    assert fit_prefix("ab", 1, free_ellipsis) == ("a" + E, 1)


def test_a_truncated_memory_is_redacted_again():
    assert SECRET("secretive plan") == ("secretive plan", False)
    assert fit_prefix("secretive plan", 7, len) == ("secret" + E, 7)  # unredacted, the cut would match
    assert fit_prefix("secretive plan", 7, len, redact) == ("secre" + E, 6)
    fitted, cut = enforce_budget(["abc", "secretive plan"], 10, len, redact)
    assert (fitted, cut) == ([("abc", 3), ("secre" + E, 6)], True)
    assert not any(SECRET.matches(t) for t, _ in fitted)


def test_the_second_search_when_redaction_lengthens_the_cut_still_ends_on_a_word():
    # the raw search stops at "ab secret " (10 chars with the ellipsis), whose redaction is longer;
    # searching again with the redaction finds "ab secre", whose last word boundary is after "ab"
    assert fit_prefix("ab secret cd", 10, len, redact) == ("ab" + E, 3)


def test_the_step_back_when_a_counter_is_not_monotonic():
    def count(s: str) -> int:  # a cut ending in "x" costs 100
        return 100 if s.endswith("x" + E) else len(s)

    assert fit_prefix("aax bbbbbb", 9, count) == ("aa" + E, 3)
    assert fit_prefix("ax bbbbbbb", 9, count) == ("a" + E, 2)
    assert fit_prefix("x bbbbbbbbb", 9, count) is None


def test_memories_are_kept_in_order_until_the_budget():
    assert enforce_budget(["abc", "de", "fghij"], 5, len) == ([("abc", 3), ("de", 2)], False)  # exactly full
    assert enforce_budget(["abcd", "efghij", "k"], 5, len) == ([("abcd", 4)], False)  # nothing after a miss
    assert enforce_budget(["ab", "cd", "efgh ijkl"], 10, len) == ([("ab", 2), ("cd", 2), ("efgh" + E, 5)], True)
    assert enforce_budget([], 10, len) == ([], False)
    assert enforce_budget(["a", "b", "c"], 2, len) == ([("a", 1), ("b", 1)], False)


@pytest.mark.parametrize("budget", range(1, 30))
def test_every_cut_fits_and_is_redacted(budget):
    fitted, _ = enforce_budget(["one two", "top secretive note about secrets"], budget, len, redact)
    assert sum(n for _, n in fitted) <= budget and all(n == len(t) for t, n in fitted)
    assert not any(SECRET.matches(t) for t, _ in fitted)


def test_a_one_character_text_has_no_shorter_prefix():
    assert fit_prefix("a", 10, len) is None and fit_prefix("ab", 10, len) == ("a" + E, 2)


def test_a_full_budget_ends_the_memories_even_for_text_the_counter_calls_free():
    def letters(s: str) -> int:  # a counter that counts only letters: "12…" is free
        return sum(ch.isalpha() for ch in s)

    assert fit_prefix("12 abc", 0, letters) is None
    assert enforce_budget(["abc", "12 abc"], 3, letters) == ([("abc", 3)], False)
    assert enforce_budget(["abc", "12 abc"], 4, letters) == ([("abc", 3), ("12" + E, 0)], True)


def test_a_redaction_that_shortens_the_cut_does_not_lengthen_it():
    # the cut is searched on the raw text: "ab 123-45-6" fits 12 characters (a partial SSN is not
    # redacted) and ends mid-word, so the cut goes back to "ab"; that the whole SSN would shrink
    # to "#" and leave room for "cd ef" does not move the cut
    ssn = Redactor(replacement="#")
    assert fit_prefix("ab 123-45-6789 cd ef gh", 12, len, lambda t: ssn(t)[0]) == ("ab" + E, 3)


# finishing stand-ins whose effect grows with the prefix, so the longest prefix is well defined:
# one that lengthens a cut (as a replacement longer than what it replaces) and one that shortens it
def _lengthen(text: str) -> str:
    return text.replace("x", "xx")


def _shorten(text: str) -> str:
    return text.replace("xx", "x")


def _chars4(text: str) -> int:
    return math.ceil(len(text) / 4)


def _words(text: str) -> int:
    return len(text.split())


COUNTERS = {"len": len, "chars4": _chars4, "words": _words}
FINISHES = {"none": lambda t: t, "lengthen": _lengthen, "shorten": _shorten}


def _expected(text: str, budget: int, count, finish):
    """The documented cut, by brute force over every prefix length."""
    def raw(k: int) -> int:
        return count(text[:k].rstrip() + E)

    def cut(k: int) -> str:
        return finish(text[:k].rstrip() + E)

    k = max((k for k in range(len(text)) if raw(k) <= budget), default=0)  # the longest raw prefix that fits
    if k and count(cut(k)) > budget:  # finishing made it too long: the longest finished one that fits
        k = max((k for k in range(len(text)) if count(cut(k)) <= budget), default=0)
    space = text.rfind(" ", 0, k + 1)
    if 0 < space < k and text[:space].strip():
        k = space  # back to the last word boundary inside the prefix
    if not text[:k].strip():
        return None
    return cut(k), count(cut(k))


@given(st.text(alphabet="ax b", max_size=14), st.integers(-1, 16), st.sampled_from(sorted(COUNTERS)),
       st.sampled_from(sorted(FINISHES)))
@example("x", 10, "words", "lengthen")
@example(" xxxa", 4, "len", "shorten")  # a leading blank counts in the raw search
@example("xxbx", 3, "len", "shorten")
@example("xx x ", 1, "chars4", "shorten")  # the raw cut fits exactly: no second search
@example("xxa", 3, "len", "lengthen")  # the second search finds a cut of exactly the budget
def test_the_cut_is_the_longest_prefix_that_fits_for_counts_that_grow_with_the_prefix(text, budget, counter, fin):
    count, finish = COUNTERS[counter], FINISHES[fin]
    got = fit_prefix(text, budget, count, finish)
    assert got == _expected(text, budget, count, finish)
    if got is not None:
        assert got[1] <= budget and got[1] == count(got[0]) and got[0].endswith(E)


def _merging(text: str) -> int:
    """A counter like a BPE tokenizer where "abc" is one token and any other character one:
    "abc…" costs 2 but "ab…" costs 3, so the count does not grow with the prefix."""
    n, i = 0, 0
    while i < len(text):
        i += 3 if text.startswith("abc", i) else 1
        n += 1
    return n


@pytest.mark.parametrize(("text", "budget", "want"), [
    # the search bisects on the raw count taking the upper middle of [lo, hi] each time, so a
    # counter that merges characters gets the cut that bisection lands on: these pin it (a
    # longer cut may also fit, as the module docstring says)
    ("abcabcabc", 2, ("a" + E, 2)),
    ("abcabcabc", 3, ("abcabc" + E, 3)),
    ("abcabcabcabcabc", 2, ("abc" + E, 2)),
    ("abcabcabcabcabc", 3, ("abca" + E, 3)),
    ("abcabcabcabcabc", 4, ("abcabcabc" + E, 4)),
    ("abcabcabcabcabc", 5, ("abcabcabca" + E, 5)),
])
def test_the_cut_a_merging_counter_gets_is_the_one_bisection_lands_on(text, budget, want):
    assert fit_prefix(text, budget, _merging) == want


@given(st.text(alphabet="abc ", min_size=1, max_size=20), st.integers(1, 12))
def test_with_a_merging_counter_the_cut_still_fits_and_is_a_local_longest(text, budget):
    got = fit_prefix(text, budget, _merging)
    if got is None:
        return
    out, n = got
    assert n == _merging(out) <= budget and out.endswith(E)
    k = len(out) - 1
    assert text.startswith(out[:-1]) and out[:-1].strip()
    if " " not in text:  # no word boundary to go back to: the raw cut one longer does not fit
        assert k == len(text) - 1 or _merging(text[:k + 1].rstrip() + E) > budget
