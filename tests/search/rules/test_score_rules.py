"""The rules that set scores: trust boost, negative evidence, duplicates, relation bonus and the
sort, each alone on small pools whose every value is worked out by hand (rank_const 60, the
supported form's support, the boundaries of min_boost_trust and of the penalty)."""

from __future__ import annotations

import numpy as np
import pytest

from graph_trust.search.fusion import fuse
from graph_trust.search.rules import duplicates, negative_evidence, relation_bonus, sort, trust_boost
from graph_trust.search.rules.base import NegativePolicy, RankState, RuleParams

NAN = np.nan


def _pool60():
    # a: bm25 0, cosine 1; b: bm25 1, cosine 0; c: bm25 2 only; d: first in both
    return fuse([["d", "a", "b", "c"], ["d", "b", "a"]], ["bm25", "cosine"], rank_const=60)


def test_boost_amounts_boundaries():
    t = np.array([0.5, 0.49, NAN, 1.0, 0.0])
    assert trust_boost.boost_amounts(t, 0.2).tolist() == pytest.approx([0.1, 0.098, 0.0, 0.2, 0.0])
    assert trust_boost.boost_amounts(t, 0.2, min_trust=0.5).tolist() == pytest.approx([0.1, 0.0, 0.0, 0.2, 0.0])
    elig = np.array([True, True, True, False, True])
    assert trust_boost.boost_amounts(t, 0.2, elig, min_trust=0.5).tolist() == pytest.approx([0.1, 0, 0, 0, 0])
    scale = np.array([2.0, 3.0, 4.0, 0.5, 1.0])
    assert trust_boost.boost_amounts(t, 0.2, scale=scale).tolist() == pytest.approx([0.2, 0.294, 0.0, 0.1, 0.0])
    assert trust_boost.boost(np.array([1.0, 2.0]), np.array([0.5, NAN]), 0.4).tolist() == [1.2, 2.0]
    # called with raw values (not sanitized), trust below 0 counts as none: a boost never lowers a score
    assert trust_boost.boost_amounts(np.array([-0.25, 0.0, 0.3]), 0.2).tolist() == [0.0, 0.0, pytest.approx(0.06)]


@pytest.mark.parametrize("min_trust", [0.0, 0.5, 0.8])
def test_supported_boost_is_trust_times_weight_times_support(min_trust):
    pool = _pool60()  # uuids d, a, b, c
    trust = np.array([0.8, 0.5, 0.8, 1.0])
    state = trust_boost.apply(RankState(pool, trust), RuleParams(weight=0.1, form="supported",
                                                                   min_boost_trust=min_trust))
    d = 0.8 * 0.1 * (2 / 60)  # first in both methods: the largest support, 2 / rank_const
    a = (0.5 if min_trust <= 0.5 else 0.0) * 0.1 * (2 / 62)  # worst rank 2
    b = 0.8 * 0.1 * (2 / 62)
    assert state.boosts.tolist() == pytest.approx([d, a, b, 0.0], rel=1e-12)  # c: one method only
    add = trust_boost.apply(RankState(pool, trust), RuleParams(weight=0.1, min_boost_trust=min_trust))
    assert add.boosts.tolist() == pytest.approx([0.08, 0.05 if min_trust <= 0.5 else 0.0, 0.08, 0.1])


def test_boost_skips_ineligible_and_negative_items():
    pool = _pool60()
    s = RankState(pool, np.full(4, 1.0), eligible=np.array([True, False, True, True]),
                  neg=np.array([False, False, True, False]))
    assert trust_boost.apply(s, RuleParams(weight=0.5)).boosts.tolist() == [0.5, 0.0, 0.0, 0.5]


@pytest.mark.parametrize(("penalty", "final", "sunk"), [
    (0.0, [1.5, 2.5, 3.0], [False, False, False]),  # no penalty: the rule changes nothing
    (0.5, [1.5, 1.0, 3.0], [False, False, False]),
    (0.99, [1.5, 0.02, 3.0], [False, False, False]),
    (1.0, [1.5, 0.0, 3.0], [False, True, False]),
])
def test_final_scores_keep_one_minus_penalty(penalty, final, sunk):
    fused, boosts, neg = np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.5, 0.0]), np.array([False, True, False])
    f, s = negative_evidence.final_scores(fused, boosts, neg, NegativePolicy(penalty=penalty))
    assert f.tolist() == pytest.approx(final) and s.tolist() == sunk
    f, s = negative_evidence.final_scores(fused, boosts, None, NegativePolicy(penalty=penalty))
    assert f.tolist() == [1.5, 2.5, 3.0] and s.tolist() == [False] * 3
    f, s = negative_evidence.final_scores(fused, boosts, np.zeros(3, bool), NegativePolicy(penalty=penalty))
    assert f.tolist() == [1.5, 2.5, 3.0] and not s.any()


def _neg_state(negative, groups, twins=None):
    pool = fuse([[f"u{i}" for i in range(len(negative))]], ["bm25"])
    neg = np.array([n is not None for n in negative])
    return RankState(pool, np.full(len(negative), NAN), negative=negative, neg=neg if neg.any() else None,
                     groups=groups, twins=twins)


def test_negative_rule_penalizes_all_without_lone_places():
    s = _neg_state([None, "rejected", "invalidated"], ["g", "g", None])
    out = negative_evidence.apply(s, RuleParams())
    assert out.penalized.tolist() == [False, True, True] and out.placed is None
    assert negative_evidence.apply(_neg_state([None, None], ["g", "g"]), RuleParams()).penalized is None


def test_negative_rule_with_lone_places_penalizes_only_competed_and_superseded():
    negative = [None, "rejected", "rejected", "invalidated", "expired"]
    groups = ["g", "g", "h", "k", "g"]
    twins = ["g1", "g2", "h1", "k1", "g1"]  # the expired item states what item 0 states
    s = _neg_state(negative, groups, twins)
    params = RuleParams(negative_policy=NegativePolicy(lone_places=2))
    s = duplicates.apply(s, params)
    assert s.duplicate.tolist() == [False, False, False, False, True]
    out = negative_evidence.apply(s, params)
    # 1: competed (item 0 is clean in g) -> penalty; 2: lone -> placed; 3: superseded -> penalty;
    # 4: a duplicate of item 0 -> placed right below it
    assert out.penalized.tolist() == [False, True, False, True, False]
    assert out.placed.tolist() == [False, False, True, False, True]
    no_dup = negative_evidence.apply(_neg_state(negative, groups, twins), params)
    assert no_dup.penalized.tolist() == [False, True, False, True, True]
    yielding = negative_evidence.apply(s, RuleParams(negative_policy=NegativePolicy(lone_places=2, competed="yield")))
    assert yielding.penalized is None and yielding.placed.tolist() == [False, True, True, True, True]
    # the rule decides afresh: a state penalized under the penalty policy has nothing penalized under yield
    again = negative_evidence.apply(out, RuleParams(negative_policy=NegativePolicy(lone_places=2, competed="yield")))
    assert again.penalized is None and again.placed.tolist() == [False, True, True, True, True]
    plain = negative_evidence.apply(out, RuleParams())  # and without lone_places, nothing is placed
    assert plain.penalized.tolist() == [False, True, True, True, True] and plain.placed is None


def test_duplicates_only_with_lone_places_and_penalty():
    negative, groups, twins = [None, "rejected", "invalidated"], ["g", "g", "g"], ["t", "t", "t"]
    s = _neg_state(negative, groups, twins)
    assert duplicates.apply(s, RuleParams()).duplicate is None
    pol = NegativePolicy(lone_places=1, competed="yield")
    assert duplicates.apply(s, RuleParams(negative_policy=pol)).duplicate is None
    out = duplicates.apply(s, RuleParams(negative_policy=NegativePolicy(lone_places=0)))
    assert out.duplicate.tolist() == [False, True, False]  # a superseded twin is no duplicate
    assert duplicates.apply(_neg_state([None, None], groups[:2], twins[:2]),
                            RuleParams(negative_policy=NegativePolicy(lone_places=0))).duplicate is None


def test_relation_bonus_sum_best_cap_and_eligibility():
    fused = np.array([0.5, 0.3, 0.2, 0.4, 0.4, 0.9])
    groups = ["g", "g", "g", "h", "h", None]
    s = relation_bonus.relation_bonus(fused, groups, 0.5)
    assert s.tolist() == pytest.approx([0.25, 0.35, 0.4, 0.2, 0.2, 0.0])
    b = relation_bonus.relation_bonus(fused, groups, 0.5, mode="best")
    # the best other member: the group's best, or its second best for the best member; a shared best counts
    assert b.tolist() == pytest.approx([0.15, 0.25, 0.25, 0.2, 0.2, 0.0])
    c = relation_bonus.relation_bonus(fused, groups, 0.5, cap=1.0)
    assert c.tolist() == pytest.approx([0.25, 0.3, 0.2, 0.2, 0.2, 0.0])
    e = relation_bonus.relation_bonus(fused, groups, 0.5, eligible=np.array([True, False, True, True, True, True]))
    assert e.tolist() == pytest.approx([0.25, 0.0, 0.4, 0.2, 0.2, 0.0])
    assert relation_bonus.relation_bonus(fused, [None] * 6, 0.5).tolist() == [0.0] * 6
    lone = relation_bonus.relation_bonus(np.array([0.5, 0.1]), ["g", "h"], 1.0, mode="best")
    assert lone.tolist() == [0.0, 0.0]  # nobody else in the group: no bonus, not -inf


def test_relation_rule_reaches_duplicates_but_not_other_negative_items():
    pool = fuse([["a", "b", "c", "d"]], ["bm25"])  # fused 1, 1/2, 1/3, 1/4
    groups = ["g", "g", "g", None]
    neg = np.array([False, True, True, False])
    s = RankState(pool, np.full(4, NAN), neg=neg, groups=groups, duplicate=np.array([False, True, False, False]))
    out = relation_bonus.apply(s, RuleParams(relation_weight=0.3))
    assert out.relation.tolist() == pytest.approx([0.3 * (1 / 2 + 1 / 3), 0.3 * (1 + 1 / 3), 0.0, 0.0])
    ineligible = relation_bonus.apply(
        RankState(pool, np.full(4, NAN), eligible=np.array([True, False, True, True]), neg=neg, groups=groups,
                  duplicate=np.array([False, True, False, False])), RuleParams(relation_weight=0.3))
    assert ineligible.relation.tolist() == pytest.approx([0.3 * (1 / 2 + 1 / 3), 0.0, 0.0, 0.0])
    assert relation_bonus.apply(s, RuleParams(relation_weight=0.0)).relation is None
    assert relation_bonus.apply(RankState(pool, np.full(4, NAN)), RuleParams(relation_weight=0.3)).relation is None
    mode = relation_bonus.apply(s, RuleParams(relation_weight=0.3, relation_mode="best", relation_cap=0.2))
    assert mode.relation.tolist() == pytest.approx([0.3 * 0.5, 0.2 * 0.5, 0.0, 0.0])  # b: capped at 0.2 x own


def test_relation_window_lifts_only_what_relevance_ranks_within_it():
    # fused 1, 1/2, 1/3, 1/4, 1/5: a (rank 1) and e (rank 5) state one relation, b c d others
    pool = fuse([["a", "b", "c", "d", "e"]], ["bm25"])
    groups = ["g", None, None, None, "g"]
    state = RankState(pool, np.full(5, NAN), groups=groups)
    whole = relation_bonus.apply(state, RuleParams(relation_weight=0.5, relation_mode="best"))
    assert whole.relation.tolist() == pytest.approx([0.5 * 0.2, 0, 0, 0, 0.5 * 1.0])  # e would pass b c d
    for window, e_gets in [(4, 0.0), (5, 0.5), (1, 0.0)]:
        out = relation_bonus.apply(state, RuleParams(relation_weight=0.5, relation_mode="best",
                                                     relation_window=window))
        assert out.relation.tolist() == pytest.approx([0.1, 0, 0, 0, e_gets]), window
    # ranks by fused score, ties in pool order: at a tie across the window's edge the earlier item is in
    tied = fuse([["a", "x"], ["y", "b"]], ["bm25", "cosine"])  # a and y 1.0, x and b 0.5
    st2 = RankState(tied, np.full(4, NAN), groups=["g", "g", "h", "h"])
    out = relation_bonus.apply(st2, RuleParams(relation_weight=0.5, relation_mode="best", relation_window=3))
    assert tied.uuids == ["a", "x", "y", "b"]  # groups g: a x; h: y b. Ranks a 1, y 2, x 3, b 4
    assert out.relation.tolist() == pytest.approx([0.25, 0.5, 0.25, 0.0])  # b ties x but comes later


def test_sort_orders_by_final_sinks_penalized_and_keeps_ties_stable():
    n = 40  # more than 16 items: NumPy's default sort would not keep ties in pool order
    pool = fuse([[f"u{i}" for i in range(n)]] * 2, ["bm25", "cosine"])
    boosts = np.zeros(n)
    relation = np.zeros(n)
    relation[5] = 10.0
    penalized = np.zeros(n, dtype=bool)
    penalized[[0, 3]] = True
    out = sort.apply(RankState(pool, np.full(n, NAN), boosts=boosts, relation=relation, penalized=penalized),
                     RuleParams())
    assert out.order.tolist() == [5, 1, 2] + list(range(4, 5)) + list(range(6, n)) + [0, 3]
    assert out.final[5] == pytest.approx(pool.fused[5] + 10.0) and out.final[0] == 0.0 and out.final[3] == 0.0
    assert out.sunk.tolist() == [i in (0, 3) for i in range(n)] and out.scored is out.final
    tied = sort.apply(RankState(pool.__class__(pool.uuids, pool.methods, pool.ranks, np.ones(n)), np.full(n, NAN)),
                      RuleParams())
    assert tied.order.tolist() == list(range(n)) and tied.final.tolist() == [1.0] * n


def test_order_sunk_puts_sunk_items_last_in_score_order():
    final = np.array([0.0, 0.9, 0.0, 0.5])
    sunk = np.array([True, False, True, False])
    assert sort.order_sunk(np.array([0.3, 0.9, 0.7, 0.5]), sunk).tolist() == [1, 3, 2, 0]
    assert sort.order_sunk(final, np.zeros(4, bool)).tolist() == [1, 3, 0, 2]
