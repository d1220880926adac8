"""Unit and property tests of the fusion and boost math."""

from __future__ import annotations

import logging
import math

import numpy as np
import pytest
from graphiti_core.search.search_utils import rrf
from hypothesis import given
from hypothesis import strategies as st

from graph_trust.search import fusion, ranking
from graph_trust.search.rules import trust_boost

uuid_lists = st.lists(
    st.lists(st.sampled_from([f"u{i}" for i in range(30)]), unique=True, max_size=20), min_size=1, max_size=3
)


@given(uuid_lists)
def test_weight_zero_is_graphitis_rrf(lists):
    pool = fusion.fuse(lists, ["bm25", "cosine", "bfs"][: len(lists)])
    ranked = ranking.rank_pool(pool, [None] * len(pool.uuids), ranking.RuleParams(weight=0.0))
    uuids, scores = rrf(lists)
    assert [pool.uuids[i] for i in ranked.order] == uuids
    assert [float(ranked.final[i]) for i in ranked.order] == scores  # bitwise equal


@given(uuid_lists, st.floats(0.0, 1.0), st.integers(1, 5))
def test_rank_const_matches_graphiti(lists, weight, k):
    pool = fusion.fuse(lists, ["bm25", "cosine", "bfs"][: len(lists)], rank_const=k)
    _, scores = rrf(lists, rank_const=k)
    assert sorted(pool.fused.tolist(), reverse=True) == scores


@given(
    st.lists(st.floats(0, 3, allow_nan=False), min_size=1, max_size=50),
    st.data(),
    st.floats(0.0, 1.0),
)
def test_final_non_decreasing_in_trust(fused, data, weight):
    n = len(fused)
    t1 = np.array(data.draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)))
    bump = np.array(data.draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)))
    t2 = np.minimum(1.0, t1 + bump)
    f = np.array(fused)
    assert np.all(trust_boost.boost(f, t2, weight) >= trust_boost.boost(f, t1, weight))


@given(st.lists(st.floats(0, 3, allow_nan=False), min_size=1, max_size=50), st.floats(0.0, 1.0))
def test_missing_trust_equals_zero(fused, weight):
    f = np.array(fused)
    missing = fusion.sanitize_trust([None] * len(fused))
    zeros = fusion.sanitize_trust([0.0] * len(fused))
    assert np.array_equal(trust_boost.boost(f, missing, weight), trust_boost.boost(f, zeros, weight))
    assert np.array_equal(trust_boost.boost(f, missing, weight), f)


def test_invalid_trust_ignored_or_clamped_with_one_warning(caplog):
    with caplog.at_level(logging.WARNING, logger="graph_trust.search.fusion"):
        t = fusion.sanitize_trust([float("nan"), "0.9", 1.7, -2, True, 0.6, None, math.inf], list("abcdefgh"))
    assert np.isnan(t[0]) and np.isnan(t[1]) and np.isnan(t[4]) and np.isnan(t[6]) and np.isnan(t[7])
    assert t[2] == 1.0 and t[3] == 0.0 and t[5] == 0.6
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "6 item(s)" in warnings[0].getMessage()


def test_ineligible_items_get_no_boost():
    f = np.array([1.0, 1.0])
    out = trust_boost.boost(f, np.array([1.0, 1.0]), 0.5, eligible=np.array([True, False]))
    assert out.tolist() == [1.5, 1.0]


def test_explanations_carry_ranks_and_rank_without_boost():
    lists = [["a", "b", "c"], ["c", "b"]]
    pool = fusion.fuse(lists, ["bm25", "cosine"])
    # fused: a = 1, b = 1/2 + 1/2 = 1 (tie: a first, as Graphiti), c = 1/3 + 1
    ranked = ranking.rank_pool(pool, [None, 1.0, None], ranking.RuleParams(weight=0.5))
    ex = ranking.explain(ranked, ["A", "B", "C"])
    by = {e.uuid: e for e in ex}
    assert [e.uuid for e in ex] == ["b", "c", "a"]
    assert by["c"].bm25_rank == 3 and by["c"].cosine_rank == 1 and by["a"].cosine_rank is None
    assert by["b"].fused == 1.0 and by["b"].boost == 0.5 and by["b"].final == 1.5
    assert by["b"].trust_score == 1.0 and by["a"].trust_score is None
    assert by["c"].rank_without_boost == 1 and by["a"].rank_without_boost == 2
    assert by["b"].rank_without_boost == 3
    assert [e.rank for e in ex] == [1, 2, 3]


def test_min_score_filters_on_fused_score():
    pool = fusion.fuse([["a", "b", "c"]], ["bm25"])
    ranked = ranking.rank_pool(pool, [None, None, 1.0], ranking.RuleParams(weight=1.0, min_score=0.5))
    assert [pool.uuids[i] for i in ranked.order] == ["a", "b"]


def test_nan_among_plain_floats_still_warns(caplog):
    with caplog.at_level(logging.WARNING, logger="graph_trust.search.fusion"):
        t = fusion.sanitize_trust([0.5, float("nan"), None, 1.0])
    assert np.isnan(t[1]) and np.isnan(t[2]) and t[0] == 0.5 and t[3] == 1.0
    assert len(caplog.records) == 1 and "not finite" in caplog.records[0].getMessage()


# --- exact values at the boundaries (docs/development.md, "Mutation testing") ---


def test_fuse_at_rank_const_60_pins_every_rank_and_score():
    # "b" twice in the bm25 list: its first place counts for the explanation, both for the score
    pool = fusion.fuse([["a", "b", "c", "b"], [], ["c", "d"]], ["bm25", "cosine", "bfs"], rank_const=60)
    assert pool.uuids == ["a", "b", "c", "d"] and pool.methods == ("bm25", "cosine", "bfs")
    assert pool.rank_const == 60.0 and isinstance(pool.rank_const, float)
    assert pool.ranks.tolist() == [[0, 1, 2, -1], [-1, -1, -1, -1], [-1, -1, 0, 1]]
    assert pool.fused.tolist() == [1 / 60, 1 / 61 + 1 / 63, 1 / 62 + 1 / 60, 1 / 61]


def test_an_empty_list_before_others_is_skipped_not_the_end():
    pool = fusion.fuse([[], ["x", "y"]], ["bm25", "cosine"])
    assert pool.uuids == ["x", "y"] and pool.fused.tolist() == [1.0, 0.5]
    assert pool.ranks.tolist() == [[-1, -1], [0, 1]]


def test_empty_pool():
    pool = fusion.fuse([], [])
    assert pool.uuids == [] and pool.ranks.shape == (0, 0) and pool.fused.tolist() == []
    assert fusion.support(pool).tolist() == [] and fusion.order(pool.fused).tolist() == []


def test_support_is_n_over_worst_rank_plus_rank_const():
    pool = fusion.fuse([["a", "b", "c"], ["b", "a", "e"], ["c", "a"]], ["bm25", "cosine", "bfs"], rank_const=60)
    # a: bm25 0, cosine 1 -> 2 / 61; b: 1, 0 -> 2 / 61; c: cosine missed it -> 0 (its BFS rank
    # says nothing); e: bm25 missed it -> 0
    assert fusion.support(pool).tolist() == [2 / 61, 2 / 61, 0.0, 0.0]
    top = fusion.fuse([["t", "u"], ["t", "u"]], ["bm25", "cosine"], rank_const=60)
    assert fusion.support(top).tolist() == [2 / 60, 2 / 61]  # first in both: the largest support
    one = fusion.fuse([["t", "u"]], ["cosine"], rank_const=1)
    assert fusion.support(one).tolist() == [1.0, 0.5]


def test_support_counts_a_uuid_listed_twice_at_its_first_rank():
    # the fused score adds both places (Graphiti's accumulation); support is the rank it reads
    pool = fusion.fuse([["a", "b", "a"]], ["bm25"], rank_const=60)
    assert pool.fused.tolist() == [1 / 60 + 1 / 62, 1 / 61]
    assert fusion.support(pool).tolist() == [1 / 60, 1 / 61]


def test_support_without_relevance_ranks_is_the_fused_score():
    bfs = fusion.fuse([["a", "b"], ["b", "c"]], ["bfs", "bfs"], rank_const=60)
    s = fusion.support(bfs)
    assert s.tolist() == bfs.fused.tolist() and s is not bfs.fused
    scored = fusion.FusedPool(["a", "b"], (), np.empty((0, 2), np.int64), np.array([0.7, 0.2]))
    assert fusion.support(scored).tolist() == [0.7, 0.2]
    # methods named but no rank rows (a reranker's pool that kept the method names): the same
    named = fusion.FusedPool(["a", "b"], ("bm25", "cosine"), np.empty((0, 2), np.int64), np.array([0.7, 0.2]))
    assert fusion.support(named).tolist() == [0.7, 0.2]


def test_support_of_missed_items_warns_nothing():
    import warnings

    pool = fusion.fuse([["a"], ["b"]], ["bm25", "cosine"], rank_const=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no division by zero behind the items a method missed
        assert fusion.support(pool).tolist() == [0.0, 0.0]


def test_sanitize_trust_fast_path_and_labels(caplog):
    assert fusion.sanitize_trust([]).tolist() == []
    out = fusion.sanitize_trust([0.0, None, 1.0])
    assert out[0] == 0.0 and np.isnan(out[1]) and out[2] == 1.0
    assert fusion.sanitize_trust([1, 0]).tolist() == [1.0, 0.0]  # ints take the slow path, same values
    with caplog.at_level(logging.WARNING, logger="graph_trust.search.fusion"):
        fusion.sanitize_trust([2.0, "x" * 60, -0.5, 0.5, math.nan, True, object()], list("abcdefg"))
    [rec] = caplog.records
    msg = rec.getMessage()
    assert msg.startswith("invalid trust_score on 6 item(s): a=2.0 (out of [0, 1], clamped); b='" + "x" * 39 + " (not a")
    assert "c=-0.5 (out of [0, 1], clamped)" in msg and "e=nan (not finite, ignored)" in msg
    assert "f=True (not a number, ignored)" in msg and msg.endswith("; and 1 more")
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="graph_trust.search.fusion"):
        fusion.sanitize_trust([1.5])
    assert caplog.records[0].getMessage() == "invalid trust_score on 1 item(s): #0=1.5 (out of [0, 1], clamped)"


def test_order_is_stable_beyond_sixteen_items():
    # NumPy's default sort is not stable above 16 items: ties must keep pool order
    scores = np.array([0.5, 1.0] * 20 + [0.25] * 10)
    idx = fusion.order(scores)
    assert idx.tolist() == list(range(1, 40, 2)) + list(range(0, 40, 2)) + list(range(40, 50))
    ranks = fusion.ranks_of(scores)
    assert ranks.tolist()[:4] == [21, 1, 22, 2] and ranks.tolist()[-1] == 50 and ranks.dtype == np.int64


def test_lists_and_methods_must_pair_up():
    # a list without its method name used to crash support and explain with an IndexError
    with pytest.raises(ValueError, match=r"^fuse: 1 candidate list\(s\) but 2 method name\(s\)$"):
        fusion.fuse([["a"]], ["bm25", "cosine"])
    with pytest.raises(ValueError, match=r"^fuse: 2 candidate list\(s\) but 1 method name\(s\)$"):
        fusion.fuse([["a"], ["b"]], ["bm25"])


def test_the_warning_names_five_items_and_counts_the_rest(caplog):
    def message(n):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="graph_trust.search.fusion"):
            fusion.sanitize_trust([2.0] * n + [0.5], [f"u{i}" for i in range(n + 1)])
        [rec] = caplog.records
        return rec.getMessage()

    five = "; ".join(f"u{i}=2.0 (out of [0, 1], clamped)" for i in range(5))
    assert message(5) == f"invalid trust_score on 5 item(s): {five}"
    assert message(6) == f"invalid trust_score on 6 item(s): {five}; and 1 more"
    assert message(17) == f"invalid trust_score on 17 item(s): {five}; and 12 more"
