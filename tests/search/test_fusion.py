"""Unit and property tests of the fusion and boost math."""

from __future__ import annotations

import logging
import math

import numpy as np
from graphiti_core.search.search_utils import rrf
from hypothesis import given
from hypothesis import strategies as st

from graph_trust.search import fusion
from graph_trust.search import ranking
from graph_trust.search.rules import trust_boost

uuid_lists = st.lists(
    st.lists(st.sampled_from([f"u{i}" for i in range(30)]), unique=True, max_size=20), min_size=1, max_size=3
)


@given(uuid_lists)
def test_weight_zero_is_graphitis_rrf(lists):
    pool = fusion.fuse(lists, ["bm25", "cosine", "bfs"][: len(lists)])
    ranked = ranking.rank_pool(pool, [None] * len(pool.uuids), weight=0.0)
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
    ranked = ranking.rank_pool(pool, [None, 1.0, None], weight=0.5)
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
    ranked = ranking.rank_pool(pool, [None, None, 1.0], weight=1.0, min_score=0.5)
    assert [pool.uuids[i] for i in ranked.order] == ["a", "b"]


def test_nan_among_plain_floats_still_warns(caplog):
    with caplog.at_level(logging.WARNING, logger="graph_trust.search.fusion"):
        t = fusion.sanitize_trust([0.5, float("nan"), None, 1.0])
    assert np.isnan(t[1]) and np.isnan(t[2]) and t[0] == 0.5 and t[3] == 1.0
    assert len(caplog.records) == 1 and "not finite" in caplog.records[0].getMessage()
