"""The rules that move items: competitors (slots handed out by evidence) and placement (negative
evidence that is not penalized), alone and through rank_pool, with every place worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from graph_trust.search.fusion import fuse
from graph_trust.search.ranking import PoolFacts, rank_pool
from graph_trust.search.rules import competitors, placement
from graph_trust.search.rules.base import NegativePolicy, RankState, RuleParams

NAN = np.nan


def test_two_competing_facts_are_reordered_by_trust():
    out = competitors.order_competitors(np.array([0, 1]), ["g", "g"], np.array([0.2, 0.9]), None)
    assert out.tolist() == [1, 0]
    assert competitors.order_competitors(np.array([1]), ["g", "g"], np.array([0.2, 0.9]), None).tolist() == [1]
    assert competitors.order_competitors(np.array([0, 1]), ["g", "h"], np.array([0.2, 0.9]), None).tolist() == [0, 1]


def test_competitors_keep_their_slots_by_verified_trust_then_time():
    order = np.array([4, 0, 3, 1, 2, 5])
    groups = ["g", "g", None, "g", "h", "h"]
    trust = np.array([0.5, 0.49, 1.0, NAN, 0.7, 0.7])
    stamps = np.array([10.0, 30.0, 0.0, NAN, 5.0, 6.0])
    # g holds slots 1, 2, 3 (items 0, 3, 1): trust >= 0.5 first (item 0), then the newer (item 1: 30 s;
    # item 3 has no time: oldest); h holds slots 0 and 5 (items 4, 5): equal trust, item 5 is newer
    out = competitors.order_competitors(order, groups, trust, stamps, min_trust=0.5)
    assert out.tolist() == [5, 0, 1, 3, 2, 4]
    # below min_trust 0.5 a trust counts as 0: items 1 (0.49) and 3 (none) tie on trust, time decides
    by_trust = competitors.order_competitors(order, groups, trust, None, min_trust=0.5)
    assert by_trust.tolist() == [4, 0, 3, 1, 2, 5]  # no stamps: ties keep their current order
    low = competitors.order_competitors(order, groups, trust, stamps, min_trust=0.0)
    assert low.tolist() == [5, 0, 1, 3, 2, 4]  # 0.49 now counts and still ranks below 0.5
    high = competitors.order_competitors(order, groups, trust, stamps, min_trust=0.6)
    assert high.tolist() == [5, 1, 0, 3, 2, 4]  # 0.5 no longer counts: time alone, newest first
    excluded = competitors.order_competitors(order, groups, trust, stamps, 0.6, exclude=np.array(
        [False, True, False, False, False, False]))
    assert excluded.tolist() == [5, 0, 3, 1, 2, 4]  # item 1 stays put; 0 and 3: 0 is newer


def test_competitors_rule_hands_each_slot_its_score():
    pool = fuse([["a", "b", "c"]], ["bm25"])  # 1, 1/2, 1/3
    state = RankState(pool, np.array([0.1, 0.9, NAN]), groups=["g", "g", None], order=np.array([0, 1, 2]),
                      final=np.array([1.0, 0.5, 1 / 3]))
    out = competitors.apply(state, RuleParams())
    assert out.order.tolist() == [1, 0, 2] and out.final.tolist() == [0.5, 1.0, 1 / 3]
    assert out.moved == ("competitors", "competitors", None)
    assert competitors.apply(state, RuleParams(reorder=False)) is state
    assert competitors.apply(RankState(pool, state.trust, order=state.order, final=state.final), RuleParams()).order \
        is state.order
    same = RankState(pool, np.array([0.9, 0.1, NAN]), groups=["g", "g", None], order=np.array([0, 1, 2]),
                     final=np.array([1.0, 0.5, 1 / 3]))
    assert competitors.apply(same, RuleParams()) is same
    unsorted = RankState(pool, state.trust, groups=state.groups)
    assert competitors.apply(unsorted, RuleParams()) is unsorted


@pytest.mark.parametrize("lone_places", [0, 1, 2, 5, 30])
def test_a_lone_negative_item_moves_down_exactly_lone_places(lone_places):
    n = 20
    order = np.arange(n)
    placed = np.zeros(n, dtype=bool)
    placed[3] = True
    out = placement.place_negative(order, placed, placed.copy(), None, lone_places)
    expected = [i for i in range(n) if i != 3]
    expected.insert(min(3 + lone_places, n - 1), 3)
    assert out.tolist() == expected


def test_a_competed_negative_item_goes_right_below_its_lowest_clean_competitor():
    order = np.array([0, 1, 2, 3, 4, 5])
    groups = ["g", "h", "g", None, "g", "h"]
    negative = np.array([True, False, False, False, True, True])
    placed = negative.copy()
    # 0 (g): clean competitor 2 at position 2 -> right below it; 4 (g) is already below: stays;
    # 5 (h): clean competitor 1 above it -> stays
    out = placement.place_negative(order, placed, negative, groups, lone_places=1)
    assert out.tolist() == [1, 2, 0, 3, 4, 5]
    lone = placement.place_negative(order, placed, negative, None, lone_places=1)
    assert lone.tolist() == [1, 0, 2, 3, 4, 5]  # 4 and 5 both move one place: neither passes the other


def test_placement_rule_scores_follow_the_order_and_names_who_moved():
    pool = fuse([["a", "b", "c", "d", "e"]], ["bm25"])
    final = np.array([1.0, 0.5, 0.4, 0.3, 0.0])
    placed = np.array([True, False, False, False, False])
    sunk = np.array([False, False, False, False, True])
    neg = np.array([True, False, False, False, True])
    state = RankState(pool, np.full(5, NAN), neg=neg, placed=placed, order=np.array([0, 1, 2, 3, 4]), final=final,
                      sunk=sunk)
    out = placement.apply(state, RuleParams(negative_policy=NegativePolicy(lone_places=2)))
    assert out.order.tolist() == [1, 2, 0, 3, 4]  # the sunk item stays last
    assert out.final.tolist() == [0.4, 0.5, 0.4, 0.3, 0.0]  # a moved item takes the score above it
    assert out.moved == ("placement", None, None, None, None)
    assert placement.apply(RankState(pool, state.trust, neg=neg, placed=np.zeros(5, bool), order=state.order,
                                     final=final, sunk=sunk), RuleParams()).order is state.order
    zero = placement.apply(state, RuleParams(negative_policy=NegativePolicy(lone_places=0)))
    assert zero.order.tolist() == [0, 1, 2, 3, 4] and zero.moved is None and zero.final.tolist() == final.tolist()


def test_rank_pool_moves_a_lone_negative_item_lone_places_in_a_large_pool():
    n = 24
    pool = fuse([[f"u{i}" for i in range(n)], [f"u{i}" for i in range(n)]], ["bm25", "cosine"], rank_const=60)
    negative = [None] * n
    negative[2] = "rejected"
    policy = NegativePolicy(lone_places=3)
    r = rank_pool(pool, [None] * n, RuleParams(weight=0.1, negative_policy=policy),
                  PoolFacts.given(negative=negative, groups=[None] * n))
    expected = [0, 1, 3, 4, 5, 2] + list(range(6, n))
    assert r.order.tolist() == expected
    assert r.final[2] == r.final[5] and r.scored[2] == pool.fused[2] and r.moved[2] == "placement"
    assert [r.moved[i] for i in range(n) if i != 2] == [None] * (n - 1)


def test_a_missing_timestamp_is_older_than_any_date_even_before_1970():
    before_1970 = -1e9  # 1938: a negative number of seconds
    out = competitors.order_competitors(np.array([0, 1]), ["g", "g"], np.array([NAN, NAN]), np.array([NAN, before_1970]))
    assert out.tolist() == [1, 0]


def test_the_competitors_rule_orders_equal_trust_by_its_timestamps():
    pool = fuse([["a", "b", "c"]], ["bm25"])
    state = RankState(pool, np.array([0.5, 0.5, NAN]), groups=["g", "g", None], stamps=np.array([10.0, 20.0, 0.0]),
                      order=np.array([0, 1, 2]), final=np.array([1.0, 0.5, 1 / 3]))
    out = competitors.apply(state, RuleParams())
    assert out.order.tolist() == [1, 0, 2] and out.final.tolist() == [0.5, 1.0, 1 / 3]


def test_competed_and_lone_items_are_placed_whatever_the_other_groups_hold():
    order = np.arange(8)
    groups = ["g", "g", None, None, "h", "h", None, None]
    negative = np.array([False, True, False, False, True, True, False, False])
    # 1 (g): its clean competitor 0 is the top item: it stays right below it; 4 and 5 (h): no clean
    # competitor (g's clean member does not count for h): each moves down 2 places
    out = placement.place_negative(order, negative.copy(), negative, groups, lone_places=2)
    assert out.tolist() == [0, 1, 2, 3, 6, 4, 7, 5]


def test_only_the_trust_of_eligible_members_orders_a_group():
    pool = fuse([["a", "b", "c"]], ["bm25"])  # 1, 1/2, 1/3
    trust = np.array([0.2, 0.9, 0.6])

    def run(eligible):
        return competitors.apply(RankState(pool, trust, eligible=np.array(eligible), groups=["g", "g", "g"],
                                           order=np.array([0, 1, 2]), final=np.array([1.0, 0.5, 1 / 3])), RuleParams())

    assert run([True, True, True]).order.tolist() == [1, 2, 0]  # by trust: b, c, a
    out = run([True, False, True])  # b past invalid_at or off topic: its trust counts as none
    assert out.order.tolist() == [2, 0, 1] and out.final.tolist() == [0.5, 1 / 3, 1.0]
    assert out.moved == ("competitors", "competitors", "competitors")
