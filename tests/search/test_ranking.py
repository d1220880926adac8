"""rank_pool and explain (graph_trust.search.ranking) on pools worked out by hand: the form check,
min_score's boundary, drop, the explanation of every field (relation bonus off and on, moved
items), at rank_const 60 and on pools larger than 16 items."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from graph_trust.search.fusion import fuse
from graph_trust.search.ranking import Explanation, PoolFacts, RuleParams, explain, rank_pool
from graph_trust.search.rules.base import NegativePolicy


def test_an_unknown_form_is_one_clear_error():
    with pytest.raises(ValueError, match=r"^unknown boost form 'boosted' \(choose from additive, supported\)$"):
        rank_pool(fuse([["a"]], ["bm25"]), [None], RuleParams(weight=0.1, form="boosted"))


def test_min_score_keeps_items_at_exactly_the_threshold():
    pool = fuse([["a", "b", "c"]], ["bm25"], rank_const=60)  # 1/60, 1/61, 1/62
    r = rank_pool(pool, [None] * 3, RuleParams(weight=0.0, min_score=1 / 61))
    assert r.order.tolist() == [0, 1]
    assert rank_pool(pool, [None] * 3, RuleParams(weight=0.0)).order.tolist() == [0, 1, 2]


def test_negative_all_none_is_no_negative_evidence():
    pool = fuse([["a", "b"]], ["bm25"])
    r = rank_pool(pool, [1.0, None], RuleParams(weight=0.5), PoolFacts.given(negative=[None, None]))
    assert r.boosts.tolist() == [0.5, 0.0] and r.negative == [None, None] and r.order.tolist() == [0, 1]


def test_drop_removes_negative_items_and_the_default_sinks_them():
    pool = fuse([["a", "b", "c"]], ["bm25"])
    sunk = rank_pool(pool, [None] * 3, RuleParams(weight=0.0), PoolFacts.given(negative=["rejected", None, None]))
    assert sunk.order.tolist() == [1, 2, 0] and sunk.final.tolist() == [0.0, 0.5, 1 / 3]
    dropped = rank_pool(pool, [None] * 3, RuleParams(weight=0.0, negative_policy=NegativePolicy(drop=True)),
                        PoolFacts.given(negative=["rejected", None, None]))
    assert dropped.order.tolist() == [1, 2]


def test_explain_every_field_at_rank_const_60():
    pool = fuse([["a", "b", "c"], ["b", "a"], ["c"]], ["bm25", "cosine", "bfs"], rank_const=60)
    r = rank_pool(pool, [None, 1.0, 0.5], RuleParams(weight=0.1, form="supported"))
    ex = explain(r, ["A", "B", "C"])
    by = {e.uuid: e for e in ex}
    b = by["b"]
    assert b == Explanation(uuid="b", text="B", bm25_rank=2, cosine_rank=1, fused=1 / 61 + 1 / 60, trust_score=1.0,
                            boost=pytest.approx(0.1 * 2 / 61), final=pytest.approx(1 / 61 + 1 / 60 + 0.2 / 61),
                            rank=1, rank_without_boost=2, negative=None, cosine_stage=None, relation_bonus=0.0,
                            moved_by=None, score_before_move=None)
    assert by["a"].trust_score is None and by["a"].boost == 0.0 and by["a"].rank == 2  # a ties b unboosted: a first
    assert by["a"].rank_without_boost == 1
    assert by["c"].cosine_rank is None and by["c"].bm25_rank == 3 and by["c"].boost == 0.0  # one relevance method
    assert [e.rank for e in ex] == [1, 2, 3] and by["c"].rank_without_boost == 3
    assert isinstance(b.fused, float) and isinstance(b.rank_without_boost, int) and isinstance(b.bm25_rank, int)
    some = explain(r, ["A", "B", "C"], positions=[2, 0])
    assert [(e.uuid, e.rank) for e in some] == [("c", 1), ("a", 2)]
    assert b.to_dict()["relation_bonus"] == 0.0 and set(b.to_dict()) == set(Explanation.__slots__)


def test_explain_without_method_rows_and_with_the_relation_bonus():
    pool = fuse([["a", "b", "c"]], ["bfs"], rank_const=60)
    r = rank_pool(pool, [None] * 3, RuleParams(weight=0.0, relation_weight=0.5),
                  PoolFacts.given(groups=["g", "g", None]))
    ex = {e.uuid: e for e in explain(r, ["A", "B", "C"])}
    assert ex["a"].bm25_rank is None and ex["a"].cosine_rank is None
    assert ex["a"].relation_bonus == pytest.approx(0.5 / 61) and ex["b"].relation_bonus == pytest.approx(0.5 / 60)
    assert ex["c"].relation_bonus == 0.0 and isinstance(ex["c"].relation_bonus, float)
    assert ex["a"].final == pytest.approx(1 / 60 + 0.5 / 61)
    off = {e.uuid: e for e in explain(rank_pool(pool, [None] * 3, RuleParams(weight=0.0),
                                                PoolFacts.given(groups=["g", "g", None])),
                                      ["A", "B", "C"])}
    assert [off[u].relation_bonus for u in "abc"] == [0.0, 0.0, 0.0]


def test_explain_names_the_rule_that_moved_an_item_and_its_score_before():
    n = 20
    uuids = [f"u{i}" for i in range(n)]
    pool = fuse([uuids, uuids], ["bm25", "cosine"], rank_const=60)
    trust = [None] * n
    trust[1] = 0.9  # a verified competitor below u0 takes its slot
    groups = [None] * n
    groups[0] = groups[1] = "g"
    r = rank_pool(pool, trust, RuleParams(weight=0.0), PoolFacts.given(groups=groups))
    ex = explain(r, uuids)
    assert [e.uuid for e in ex[:3]] == ["u1", "u0", "u2"]
    assert ex[0].moved_by == "competitors" and ex[0].score_before_move == pool.fused[1]
    assert ex[0].final == pool.fused[0] and ex[1].final == pool.fused[1]
    assert ex[2].moved_by is None and ex[2].score_before_move is None
    finals = [e.final for e in ex]
    assert finals == sorted(finals, reverse=True)


def test_ranked_carries_the_pool_trust_and_ranks_without_boost():
    n = 18
    pool = fuse([[f"u{i}" for i in range(n)]] * 2, ["bm25", "cosine"])
    r = rank_pool(pool, [None] * (n - 1) + [1.0], RuleParams(weight=10.0))
    assert r.pool is pool and np.isnan(r.trust[0]) and r.trust[-1] == 1.0
    assert r.rank_without_boost.tolist() == list(range(1, n + 1)) and r.order.tolist() == [n - 1] + list(range(n - 1))
    assert r.relation is None and r.moved is None


def test_an_invalid_trust_warning_names_the_item_by_uuid(caplog):
    pool = fuse([["a", "b"]], ["bm25"])
    with caplog.at_level(logging.WARNING, logger="graph_trust.search.fusion"):
        r = rank_pool(pool, ["high", 0.5], RuleParams(weight=0.1))
    assert [rec.getMessage() for rec in caplog.records] == [
        "invalid trust_score on 1 item(s): a='high' (not a number, ignored)"]
    assert np.isnan(r.trust[0]) and r.boosts.tolist() == [0.0, pytest.approx(0.05)]


def test_explain_says_why_an_item_was_demoted():
    pool = fuse([["a", "b", "c"]], ["bm25"], rank_const=60)
    r = rank_pool(pool, [None] * 3, RuleParams(weight=0.0),
                  PoolFacts.given(negative=["rejected", None, "invalidated"]))
    assert [(e.uuid, e.negative) for e in explain(r, ["A", "B", "C"])] == [
        ("b", None), ("a", "rejected"), ("c", "invalidated")]


def test_drop_and_min_score_both_apply():
    pool = fuse([["a", "b", "c", "d"]], ["bm25"])  # 1, 1/2, 1/3, 1/4
    r = rank_pool(pool, [None] * 4, RuleParams(weight=0.0, min_score=1 / 3, negative_policy=NegativePolicy(drop=True)),
                  PoolFacts.given(negative=[None, "rejected", None, None]))
    assert r.order.tolist() == [0, 2]


def test_rank_pool_orders_competitors_by_the_timestamps_it_is_given():
    n = 20
    uuids = [f"u{i}" for i in range(n)]
    pool = fuse([uuids, uuids], ["bm25", "cosine"], rank_const=60)
    groups = [None] * n
    groups[0] = groups[5] = "g"
    stamps = np.zeros(n)
    stamps[5] = 100.0  # u5 is newer than u0: with equal (no) trust it takes u0's slot
    r = rank_pool(pool, [None] * n, RuleParams(weight=0.1), PoolFacts.given(groups=groups, stamps=stamps))
    assert r.order.tolist()[:6] == [5, 1, 2, 3, 4, 0] and r.moved[5] == "competitors"
    assert rank_pool(pool, [None] * n, RuleParams(weight=0.1),
                     PoolFacts.given(groups=groups)).order.tolist() == list(range(n))
