"""The rules' shared state and helpers (graph_trust.search.rules.base), pinned exactly."""

from __future__ import annotations

import numpy as np

from graph_trust.search.fusion import fuse
from graph_trust.search.rules.base import NegativePolicy, RankState, RuleParams, group_ids, has_competitor, superseded


def _state(n: int, **kw) -> RankState:
    pool = fuse([[f"u{i}" for i in range(n)]], ["bm25"])
    return RankState(pool, np.full(n, np.nan), **kw)


def test_defaults_of_the_policy_and_the_params():
    p = NegativePolicy()
    assert (p.penalty, p.drop, p.lone_places, p.competed, p.superseded) == (1.0, False, None, "penalty",
                                                                            frozenset({"invalidated"}))
    r = RuleParams()
    assert (r.weight, r.form, r.min_boost_trust, r.reorder, r.relation_weight, r.relation_cap, r.relation_mode) == (
        0.0, "additive", 0.0, True, 0.0, None, "sum")
    assert r.negative_policy == NegativePolicy()


def test_group_ids_are_dense_in_first_appearance_order():
    assert group_ids(["x", None, "y", "x", None, "z", "y"]).tolist() == [0, -1, 1, 0, -1, 2, 1]
    assert group_ids([]).tolist() == [] and group_ids([]).dtype == np.int64


def test_has_competitor_needs_another_member_without_negative_evidence():
    neg = np.array([False, False, True, True, False, True, False, True])
    groups = ["g", "g", "g", "h", "h", None, "k", "m"]
    # g: two clean members compete with each other, the negative one competes with both;
    # h: the clean one has no clean competitor, the negative one has one; k alone; m negative alone
    assert has_competitor(neg, groups).tolist() == [True, True, True, True, False, False, False, False]
    assert has_competitor(neg, None).tolist() == [False] * 8
    assert has_competitor(np.zeros(0, dtype=bool), []).tolist() == []
    assert has_competitor(np.array([True, False]), [None, None]).tolist() == [False, False]


def test_superseded_reads_the_reason_against_the_policy():
    s = _state(3, negative=["invalidated", "rejected", None])
    assert superseded(s, NegativePolicy()).tolist() == [True, False, False]
    assert superseded(s, NegativePolicy(superseded=frozenset({"rejected"}))).tolist() == [False, True, False]
    assert superseded(_state(2), NegativePolicy()).tolist() == []


def test_moved_by_marks_only_the_given_items():
    s = _state(4)
    assert s.moved_by("placement", np.array([2]), np.zeros(4)) == (None, None, "placement", None)
    s2 = _state(4, moved=("competitors", None, None, None))
    assert s2.moved_by("placement", np.array([1, 3]), np.zeros(4)) == ("competitors", "placement", None, "placement")


def test_boostable_is_eligible_and_without_negative_evidence():
    elig = np.array([True, False, True, True])
    neg = np.array([False, False, True, False])
    assert _state(4).boostable is None
    assert _state(4, eligible=elig).boostable.tolist() == elig.tolist()
    assert _state(4, neg=neg).boostable.tolist() == [True, True, False, True]
    assert _state(4, eligible=elig, neg=neg).boostable.tolist() == [True, False, False, True]
