"""The token budget (graph_trust.context.budget) pinned exactly with the character counter: the
word-boundary cut, re-redaction of a truncated memory, the second search when redaction lengthens
a cut, the step back when a counter is not monotonic, and memories kept strictly in order."""

from __future__ import annotations

import pytest

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
