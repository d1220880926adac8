"""The policy stages dedup, interleave, clip and redact, pinned exactly (the ratio's slots, the
tie breaks, the ASCII shortcut of clipping, redaction's fixed point and its pass limit)."""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from graph_trust.context import redact as redact_mod
from graph_trust.context.clip import ELLIPSIS, clip, sentences
from graph_trust.context.dedup import dedup, normalize, normalized_hash
from graph_trust.context.interleave import DEFAULT_RATIO, STRATEGIES, interleave
from graph_trust.context.redact import MAX_PASSES, Redactor, check_replacement

T0 = datetime(2026, 1, 1, tzinfo=UTC)


# ---- dedup ----------------------------------------------------------------------------------

def test_normalize_exactly():
    assert normalize("  «Hello,   WORLD»!! ") == "hello, world"
    assert normalize("ＦＵＬＬ width") == "full width" and normalize("...") == "" and normalize("") == ""
    assert normalize("_x_") == "_x_" and normalize("(a)") == "a" and normalize("a\tb\nc") == "a b c"


def test_normalize_lowercases_before_nfkc():
    # "ß" has no one-letter capital: lowercasing first keeps it, so "Straße" and "STRASSE" differ
    assert normalize("Straße") == "straße" and normalize("STRASSE") == "strasse"
    assert normalized_hash("Straße") == hashlib.sha256("straße".encode()).hexdigest()[:16]


def test_normalized_hash_is_the_first_16_hex_of_sha256():
    assert normalized_hash(" Hello!") == hashlib.sha256(b"hello").hexdigest()[:16]


def test_dedup_keeps_the_first_of_each_and_counts_the_rest():
    items = ["A b", "c", "a  B.", "C", "d"]
    assert dedup(items, str) == (["A b", "c", "d"], 2)
    assert dedup([], str) == ([], 0)


# ---- interleave -----------------------------------------------------------------------------

@dataclass(frozen=True)
class M:
    id: str
    score: float
    at: datetime | None


def _run(items, strategy, top_k=10, ratio=None):
    out = interleave(items, strategy=strategy, top_k=top_k, score=lambda m: m.score, timestamp=lambda m: m.at,
                     ident=lambda m: m.id, ratio=ratio)
    return [m.id for m in out]


ITEMS = [M("s1", 0.9, T0), M("s2", 0.8, T0 + timedelta(hours=1)), M("s3", 0.7, T0 + timedelta(hours=2)),
         M("r1", 0.1, T0 + timedelta(hours=9)), M("r2", 0.2, T0 + timedelta(hours=8)), M("n", 0.5, None)]


def test_interleave_slots_follow_the_ratio():
    assert STRATEGIES == ("alternate", "score_first", "recency_first")
    assert DEFAULT_RATIO == {"alternate": 0.5, "score_first": 1.0, "recency_first": 1.0}
    assert _run(ITEMS, "alternate") == ["s1", "r1", "s2", "r2", "s3", "n"]
    assert _run(ITEMS, "score_first") == ["s1", "s2", "s3", "n", "r2", "r1"]
    assert _run(ITEMS, "recency_first") == ["r1", "r2", "s3", "s2", "s1", "n"]  # no timestamp last
    assert _run(ITEMS, "score_first", ratio=0.0) == ["r1", "r2", "s3", "s2", "s1", "n"]
    assert _run(ITEMS, "alternate", ratio=0.75) == ["s1", "s2", "s3", "r1", "n", "r2"]
    assert _run(ITEMS, "recency_first", ratio=0.5) == ["r1", "s1", "r2", "s2", "s3", "n"]
    assert _run(ITEMS, "alternate", top_k=3) == ["s1", "r1", "s2"] and _run(ITEMS, "alternate", top_k=0) == []


def test_interleave_ties_break_by_id_whatever_the_arrival_order():
    tied = [M("b", 0.5, T0), M("a", 0.5, T0), M("c", 0.5, None), M("d", 0.5, None)]
    assert _run(tied, "score_first") == ["a", "b", "c", "d"]
    assert _run(tied, "recency_first") == ["a", "b", "c", "d"]
    assert _run(list(reversed(tied)), "recency_first") == ["a", "b", "c", "d"]


def test_a_slot_takes_the_best_unused_item_of_its_order():
    # by score a, b, c, d; by recency b, a, d, c: slot 2 (score's) finds a and b used, takes c
    items = [M("a", 0.9, T0 + timedelta(hours=2)), M("b", 0.8, T0 + timedelta(hours=3)),
             M("c", 0.7, T0), M("d", 0.6, T0 + timedelta(hours=1))]
    assert _run(items, "alternate") == ["a", "b", "c", "d"]
    assert _run(items, "alternate", top_k=3) == ["a", "b", "c"]


@st.composite
def _memories(draw):
    n = draw(st.integers(0, 9))
    scores = draw(st.lists(st.sampled_from([0.1, 0.5, 0.9]), min_size=n, max_size=n))
    hours = draw(st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=n, max_size=n))
    return [M(f"m{i}", s, None if h is None else T0 + timedelta(hours=h)) for i, (s, h) in enumerate(zip(scores, hours))]


@given(_memories(), st.sampled_from(STRATEGIES), st.integers(0, 10),
       st.one_of(st.none(), st.sampled_from([0.0, 0.25, 0.5, 2 / 3, 1.0])))
def test_interleave_fills_each_slot_from_the_order_the_ratio_gives_it(items, strategy, top_k, ratio):
    out = _run(items, strategy, top_k, ratio)
    by_score = [m.id for m in sorted(items, key=lambda m: (-m.score, m.id))]
    by_recency = [m.id for m in sorted(items, key=lambda m: (m.at is None, -(m.at or T0).timestamp(), m.id))]
    lead, other = (by_recency, by_score) if strategy == "recency_first" else (by_score, by_recency)
    r = DEFAULT_RATIO[strategy] if ratio is None else ratio
    assert len(out) == min(top_k, len(items)) and len(set(out)) == len(out)
    for i, got in enumerate(out):
        source = lead if math.ceil((i + 1) * r) > math.ceil(i * r) else other
        assert got == next(x for x in source if x not in out[:i])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_interleave_reads_each_order_once_not_again_from_the_top_for_every_slot(strategy):
    # each order keeps its place: the item ids read stay linear in the pool (sorting reads each
    # id once per order; the slots read each order's items at most once more, plus one per slot)
    n = 400
    items = [M(f"m{i:03}", (i * 7919 % n) / n, T0 + timedelta(minutes=i * 4099 % n)) for i in range(n)]
    reads = 0

    def ident(m: M) -> str:
        nonlocal reads
        reads += 1
        return m.id

    out = interleave(items, strategy=strategy, top_k=n, score=lambda m: m.score, timestamp=lambda m: m.at,
                     ident=ident)
    assert sorted(m.id for m in out) == sorted(m.id for m in items)
    assert reads <= 6 * n


def test_an_unknown_strategy_is_one_clear_error():
    with pytest.raises(ValueError, match=r"^interleave strategy must be one of alternate, score_first, "
                                         r"recency_first, got 'random'$"):
        _run(ITEMS, "random")


# ---- clip -----------------------------------------------------------------------------------

def test_clip_counts_possible_ends_before_splitting():
    assert clip("  One. Two. Three.  ", 2) == ("One. Two. " + ELLIPSIS, True)
    assert clip("One. Two.", 2) == ("One. Two.", False)
    assert clip("One. Two", 1) == ("One. " + ELLIPSIS, True)
    assert clip("Version 1.2.3 is out", 1) == ("Version 1.2.3 is out", False)  # three dots, one sentence
    assert clip("Ends here!\")", 1) == ("Ends here!\")", False)
    assert clip("東京です。大阪です。", 1) == ("東京です。 " + ELLIPSIS, True)
    assert sentences("Alpha one. Beta two.") == ("Alpha one. ", "Beta two.") and sentences("   ") == ()


def test_clip_splits_sentences_by_the_language_given():
    text = "Er kam am 3. Oktober an. Dann ging er. Danach nichts."  # in German "3." is an ordinal
    assert clip(text, 2, "de") == ("Er kam am 3. Oktober an. Dann ging er. " + ELLIPSIS, True)
    assert clip(text, 2, "en") == ("Er kam am 3. Oktober an. " + ELLIPSIS, True)


_WORDS = st.sampled_from(["a", "X", "Go", "aX"])
_ENDS = st.sampled_from([" ", ". ", "! ", "? ", "; ", ": ", "\n", ".", " X", ".\" "])


@given(st.lists(st.tuples(_WORDS, _ENDS), max_size=7).map(lambda ps: "".join(w + e for w, e in ps)),
       st.integers(1, 4))
@example("Go. Stop. X", 2)  # a last sentence without a full stop still counts
def test_clip_without_splitting_gives_what_splitting_gives(text, n):
    # text of words: every sentence the segmenter finds has one (punctuation alone is no sentence)
    parts = sentences(text.strip())
    expected = (text.strip(), False) if len(parts) <= n else ("".join(parts[:n]).rstrip() + " " + ELLIPSIS, True)
    assert clip(text, n) == expected


# ---- redact ---------------------------------------------------------------------------------

def test_redaction_runs_to_a_fixed_point_and_gives_up_whole():
    r = Redactor(custom=[r"ab"], replacement="a")  # "aab" -> "aa"; never grows a match
    assert r("xaabbz") == ("xaaz", True)  # pass 1 gives "xaabz", which still matches
    assert Redactor()("no pii here") == ("no pii here", False)
    # a custom pattern that re-creates its own match forever: after MAX_PASSES the text goes whole
    loop = Redactor(custom=[r"x"], replacement="[x]")
    assert loop("a x b") == ("[x]", True) and MAX_PASSES == 8
    assert Redactor(enabled=False)("123-45-6789") == ("123-45-6789", False)
    assert Redactor(enabled=False).patterns == [] and not Redactor(enabled=False).matches("123-45-6789")


def test_the_replacement_is_literal_and_each_default_runs_only_where_it_can_match():
    r = Redactor(replacement=r"\1 <gone>")
    assert r("ssn 123-45-6789 mail a@b.io") == (r"ssn \1 <gone> mail \1 <gone>", True)
    assert r.matches("card 4111 1111 1111 1111") and not r.matches("4111 1111")
    assert Redactor()._active("no digits, no at") == []
    assert Redactor()._active("one 1") == [redact_mod._NUMBERS] and Redactor()._active("a@b") == [redact_mod._EMAIL]
    custom = Redactor(custom=[r"zz"])
    assert [p.pattern for p in custom._active("zz")] == ["zz"]
    assert custom("a zz b") == ("a [REDACTED] b", True)


def test_check_replacement_names_the_pattern_that_matches_it():
    assert check_replacement("[REDACTED]", []) is None
    msg = check_replacement("x@y.io", [])
    assert msg.startswith("email (") and msg.endswith("matches redaction_replacement 'x@y.io': redaction would never finish")
    assert check_replacement("XX", ["a", "X+"]).startswith("redaction_patterns[1] ('X+')")


def test_redactor_from_settings():
    @dataclass
    class P:
        redaction_patterns: tuple = ("foo",)
        redaction_replacement: str = "<r>"
        enable_redaction: bool = True

    r = Redactor.from_settings(P())
    assert r("a foo") == ("a <r>", True) and r.replacement == "<r>" and r.enabled
    assert Redactor.from_settings(P(enable_redaction=False))("a foo") == ("a foo", False)
