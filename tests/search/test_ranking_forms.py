"""Property tests of the boost forms, the boost threshold and negative evidence (graph_trust.search.fusion).

Every property is checked over random candidate lists, trust values, statuses, weights and RRF
constants, Graphiti's 1 and upstream's proposed 60 among them.
"""

from __future__ import annotations

import numpy as np
import pytest
from graphiti_core.search.search_utils import rrf
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_trust.search import fusion, ranking
from graph_trust.search.calibrate import calibration_table

N = 24
uuid_lists = st.lists(st.lists(st.sampled_from([f"u{i}" for i in range(N)]), unique=True, max_size=16),
                      min_size=1, max_size=3)
rank_consts = st.one_of(st.sampled_from([1.0, 60.0]), st.floats(0.5, 100.0))
trust_values = st.one_of(st.none(), st.sampled_from([0.0, 0.25, 0.6, 1.0]), st.floats(0.0, 1.0))
forms = st.sampled_from(ranking.BOOST_FORMS)
negatives = st.one_of(st.none(), st.sampled_from(["rejected", "expired", "invalidated"]))
METHODS = ["bm25", "cosine", "bfs"]


def _pool(lists, k):
    return fusion.fuse(lists, METHODS[: len(lists)], rank_const=k)


def _drawn(lists, k, data, with_negative: bool = False):
    """A fused pool of ``lists`` and drawn trust values (and negative reasons) for its items."""
    pool = _pool(lists, k)
    n = len(pool.uuids)
    trust = data.draw(st.lists(trust_values, min_size=n, max_size=n))
    neg = data.draw(st.lists(negatives, min_size=n, max_size=n)) if with_negative else None
    return pool, n, trust, neg


def _position(ranked) -> dict[int, int]:
    return {int(i): p for p, i in enumerate(ranked.order)}


@settings(deadline=None)  # timings vary on a loaded machine; nothing here is timed
@given(uuid_lists, rank_consts, st.data())
def test_weight_zero_without_negative_evidence_is_vanilla_for_every_form(lists, k, data):
    pool, _, trust, _ = _drawn(lists, k, data)
    vanilla, scores = rrf(lists, rank_const=k)
    for form in ranking.BOOST_FORMS:
        ranked = ranking.rank_pool(pool, trust, ranking.RuleParams(weight=0.0, form=form, min_boost_trust=0.5))
        assert [pool.uuids[i] for i in ranked.order] == vanilla
        assert [float(ranked.final[i]) for i in ranked.order] == scores


@settings(deadline=None)  # timings vary on a loaded machine; nothing here is timed
@given(uuid_lists, rank_consts, st.floats(0.0, 1.0), st.data())
def test_additive_is_seed_002_exactly(lists, k, w, data):
    pool, _, trust, _ = _drawn(lists, k, data)
    ranked = ranking.rank_pool(pool, trust, ranking.RuleParams(weight=w, form="additive"))
    want = pool.fused + np.array([0.0 if t is None else t for t in trust]) * w
    assert np.array_equal(ranked.final, want)


@settings(deadline=None)  # timings vary on a loaded machine; nothing here is timed
@given(uuid_lists, rank_consts, st.floats(0.0, 1.0), st.data())
def test_supported_never_passes_an_item_whose_fused_score_is_more_than_1_plus_w_times_larger(lists, k, w, data):
    """The class of 'near ties flipped on trust': a supported boost moves an item above another
    only when the other's fused score is at most (1 + w) times its own, at any rank_const (an
    exact tie keeps pool order, as Graphiti's stable sort does)."""
    pool, _, trust, _ = _drawn(lists, k, data)
    ranked = ranking.rank_pool(pool, trust, ranking.RuleParams(weight=w, form="supported"))
    t = np.nan_to_num(ranked.trust, nan=0.0)
    assert np.all(ranked.boosts <= pool.fused * w * t + 1e-15)
    pos = _position(ranked)
    for i in range(len(pool.uuids)):
        for j in range(len(pool.uuids)):
            if pos[i] < pos[j] and pool.fused[j] > pool.fused[i] * (1.0 + w):
                raise AssertionError(f"{pool.uuids[i]} passed {pool.uuids[j]} with too little relevance")


@settings(deadline=None)  # timings vary on a loaded machine; nothing here is timed
@given(uuid_lists, rank_consts, st.floats(0.0, 1.0), st.data())
def test_supported_gives_nothing_to_an_item_a_relevance_method_missed(lists, k, w, data):
    pool, _, trust, _ = _drawn(lists, k, data)
    ranked = ranking.rank_pool(pool, trust, ranking.RuleParams(weight=w, form="supported"))
    relevance_rows = [r for r, m in enumerate(pool.methods) if m != "bfs"]
    missed = (pool.ranks[relevance_rows] < 0).any(axis=0)
    assert np.all(ranked.boosts[missed] == 0.0)


@settings(deadline=None)  # timings vary on a loaded machine; nothing here is timed
@given(uuid_lists, rank_consts, st.floats(0.0, 1.0), forms, st.floats(0.0, 1.0), st.data())
def test_trust_below_the_threshold_boosts_nothing(lists, k, w, form, threshold, data):
    pool, _, trust, _ = _drawn(lists, k, data)
    ranked = ranking.rank_pool(pool, trust, ranking.RuleParams(weight=w, form=form, min_boost_trust=threshold))
    low = np.nan_to_num(ranked.trust, nan=0.0) < threshold
    assert np.all(ranked.boosts[low] == 0.0)
    assert np.all(ranked.boosts[~low] >= 0.0)


@settings(deadline=None)  # timings vary on a loaded machine; nothing here is timed
@given(uuid_lists, rank_consts, st.floats(0.0, 1.0), forms, st.data())
def test_a_sunk_item_never_outranks_one_without_negative_evidence(lists, k, w, form, data):
    """Penalty 1: whatever its trust, relevance, the weight, the form or the RRF constant."""
    pool, n, trust, neg = _drawn(lists, k, data, with_negative=True)
    ranked = ranking.rank_pool(pool, trust, ranking.RuleParams(weight=w, form=form),
                               ranking.PoolFacts.given(negative=neg))
    flags = [neg[i] is not None for i in ranked.order]
    assert flags == sorted(flags)  # every clean item first
    assert all(ranked.boosts[i] == 0.0 for i in range(n) if neg[i] is not None)
    # among themselves, sunk items keep their fused order
    sunk = [i for i in ranked.order if neg[i] is not None]
    assert [pool.fused[i] for i in sunk] == sorted((pool.fused[i] for i in sunk), reverse=True)


@settings(deadline=None)  # timings vary on a loaded machine; nothing here is timed
@given(uuid_lists, rank_consts, st.floats(0.0, 1.0), forms, st.floats(0.0, 0.99), st.data())
def test_a_partial_penalty_keeps_that_share_of_the_fused_score(lists, k, w, form, p, data):
    pool, n, trust, neg = _drawn(lists, k, data, with_negative=True)
    params = ranking.RuleParams(weight=w, form=form, negative_policy=ranking.NegativePolicy(penalty=p))
    ranked = ranking.rank_pool(pool, trust, params, ranking.PoolFacts.given(negative=neg))
    for i in range(n):
        if neg[i] is not None:
            assert ranked.final[i] == pool.fused[i] * (1.0 - p)
    finals = [ranked.final[i] for i in ranked.order]
    assert finals == sorted(finals, reverse=True)


@settings(deadline=None)  # timings vary on a loaded machine; nothing here is timed
@given(uuid_lists, rank_consts, st.floats(0.0, 1.0), forms, st.data())
def test_drop_removes_exactly_the_items_with_negative_evidence(lists, k, w, form, data):
    pool, n, trust, neg = _drawn(lists, k, data, with_negative=True)
    params = ranking.RuleParams(weight=w, form=form, negative_policy=ranking.NegativePolicy(drop=True))
    ranked = ranking.rank_pool(pool, trust, params, ranking.PoolFacts.given(negative=neg))
    assert sorted(ranked.order.tolist()) == [i for i in range(n) if neg[i] is None]
    kept = ranking.rank_pool(pool, trust, ranking.RuleParams(weight=w, form=form))
    assert ranked.order.tolist() == [i for i in kept.order.tolist() if neg[i] is None]


@settings(deadline=None)  # timings vary on a loaded machine; nothing here is timed
@given(st.floats(0.0, 1.0), st.sampled_from([1, 60, 3]), st.integers(1, 3), st.integers(2, 25),
       st.sampled_from(ranking.BOOST_FORMS), st.sampled_from([0.0, 0.5]))
def test_calibrate_matches_the_real_ordering_for_both_forms(weight, k, methods, r, form, threshold):
    """Real candidate lists with one trusted item at rank r: it lands where calibrate says."""
    table = {row.rank: row for row in calibration_table(weight, k, methods, r, (1.0, 0.25), form, threshold)}
    lists = [[f"u{q}" for q in range(1, r + 1)] for _ in range(methods)]
    pool = fusion.fuse(lists, ["bm25", "cosine", "m"][:methods], rank_const=k)
    for t in (1.0, 0.25):
        ranked = ranking.rank_pool(pool, [None] * (r - 1) + [t],
                                   ranking.RuleParams(weight=weight, form=form, min_boost_trust=threshold))
        final_rank = int(np.nonzero(ranked.order == r - 1)[0][0]) + 1
        best = table[r].overtakes[t]
        assert final_rank == (best if best is not None else r)


competitor_keys = st.one_of(st.none(), st.sampled_from([("s1", "PORT"), ("s1", "OWNER"), ("s2", "PORT")]))
stamps_st = st.one_of(st.just(float("nan")), st.floats(0.0, 2e9))


def _competing(lists, k, data):
    pool, n, trust, neg = _drawn(lists, k, data, with_negative=True)
    keys = data.draw(st.lists(competitor_keys, min_size=n, max_size=n))
    stamps = np.array(data.draw(st.lists(stamps_st, min_size=n, max_size=n)))
    return pool, n, trust, neg, keys, stamps


@settings(deadline=None)  # timings vary on a loaded machine; nothing here is timed
@given(uuid_lists, rank_consts, st.floats(0.0, 1.0), forms, st.sampled_from([0.0, 0.5]), st.booleans(), st.data())
def test_competitors_share_their_slots_ordered_by_verified_trust_then_time(lists, k, w, form, threshold, timed, data):
    pool, n, trust, neg, keys, stamps = _competing(lists, k, data)
    plain = ranking.rank_pool(pool, trust, ranking.RuleParams(weight=w, form=form, min_boost_trust=threshold),
                              ranking.PoolFacts.given(negative=neg))
    ranked = ranking.rank_pool(pool, trust, ranking.RuleParams(weight=w, form=form, min_boost_trust=threshold),
                               ranking.PoolFacts.given(negative=neg, groups=keys, stamps=stamps if timed else None))
    before, after = [int(i) for i in plain.order], [int(i) for i in ranked.order]
    assert sorted(before) == sorted(after)
    moving = [keys[i] is not None and (neg is None or neg[i] is None) for i in range(n)]
    # an item that competes with nothing (or has negative evidence) keeps its slot
    assert all(after[p] == i for p, i in enumerate(before) if not moving[i])
    verified = np.where(np.nan_to_num(ranked.trust, nan=0.0) >= threshold, np.nan_to_num(ranked.trust, nan=0.0), 0.0)
    for key in {keys[i] for i in range(n) if moving[i]}:
        slots = [p for p, i in enumerate(before) if moving[i] and keys[i] == key]
        assert slots == [p for p, i in enumerate(after) if moving[i] and keys[i] == key]  # the group's slots
        members = [after[p] for p in slots]
        for a, b in zip(members, members[1:]):
            sa = stamps[a] if timed and not np.isnan(stamps[a]) else -np.inf
            sb = stamps[b] if timed and not np.isnan(stamps[b]) else -np.inf
            assert (verified[a], sa) >= (verified[b], sb)  # best evidence first
            if (verified[a], sa) == (verified[b], sb):
                assert before.index(a) < before.index(b)  # ties keep the relevance order


@settings(deadline=None)  # timings vary on a loaded machine; nothing here is timed
@given(uuid_lists, rank_consts, st.floats(0.0, 1.0), forms, st.data())
def test_competitors_with_nothing_to_compete_change_nothing(lists, k, w, form, data):
    pool, n, trust, neg = _drawn(lists, k, data, with_negative=True)
    plain = ranking.rank_pool(pool, trust, ranking.RuleParams(weight=w, form=form),
                              ranking.PoolFacts.given(negative=neg))
    alone = ranking.rank_pool(pool, trust, ranking.RuleParams(weight=w, form=form),
                              ranking.PoolFacts.given(negative=neg, groups=[(u, "R") for u in pool.uuids],
                                                      stamps=np.arange(n, dtype=float)))
    assert np.array_equal(plain.order, alone.order)
    assert np.array_equal(plain.final, alone.final)


@settings(deadline=None)  # timings vary on a loaded machine; nothing here is timed
@given(uuid_lists, rank_consts, st.floats(0.0, 1.0), forms, st.floats(0.0, 1.0), st.data())
def test_relation_bonus_is_the_share_of_the_other_members_fused_scores(lists, k, w, form, rw, data):
    pool, n, trust, neg, keys, stamps = _competing(lists, k, data)
    ranked = ranking.rank_pool(pool, trust, ranking.RuleParams(weight=w, form=form, relation_weight=rw),
                               ranking.PoolFacts.given(negative=neg, groups=keys, stamps=stamps))
    plain = ranking.rank_pool(pool, trust, ranking.RuleParams(weight=w, form=form),
                              ranking.PoolFacts.given(negative=neg))
    for i in range(n):
        others = sum(pool.fused[j] for j in range(n) if j != i and keys[j] is not None and keys[j] == keys[i])
        expected = 0.0 if keys[i] is None or (neg is not None and neg[i] is not None) else rw * others
        got = 0.0 if ranked.relation is None else ranked.relation[i]
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)
        if neg is None or neg[i] is None:
            assert ranked.scored[i] == pytest.approx(plain.scored[i] + got, rel=1e-9, abs=1e-12)


# --- negative evidence where it is informative (NegativePolicy.lone_places) and the bounded relation bonus ---

negatives_all = st.one_of(st.none(), st.sampled_from(["rejected", "expired", "invalidated"]))


def _lone_policy(data, competed: str = "penalty") -> ranking.NegativePolicy:
    return ranking.NegativePolicy(lone_places=data.draw(st.integers(0, 30)), competed=competed)


def _clean_competitors(i, keys, neg):
    return [j for j in range(len(keys)) if j != i and keys[i] is not None and keys[j] == keys[i] and neg[j] is None]


def _twins(keys, data):
    """Statement keys: each competitor key with one of two targets (twins share both)."""
    targets = data.draw(st.lists(st.sampled_from(["t1", "t2"]), min_size=len(keys), max_size=len(keys)))
    return [None if k is None else (*k, t) for k, t in zip(keys, targets)]


@settings(deadline=None)  # timings vary on a loaded machine; nothing here is timed
@given(uuid_lists, rank_consts, st.floats(0.0, 1.0), forms, st.floats(0.0, 1.0), st.sampled_from(["none", "trust"]),
       st.data())
def test_a_negative_fact_never_ranks_above_a_competitor_without_negative_evidence(lists, k, w, form, rw, order, data):
    """Whatever the trust, relevance, weight, form, constant, relation bonus or lone rule."""
    pool, n, trust, neg, keys, stamps = _competing(lists, k, data)
    competed = data.draw(st.sampled_from(["penalty", "yield"]))
    params = ranking.RuleParams(weight=w, form=form, reorder=order != "none", relation_weight=rw,
                                relation_cap=data.draw(st.one_of(st.none(), st.floats(0.0, 2.0))),
                                negative_policy=_lone_policy(data, competed))
    ranked = ranking.rank_pool(pool, trust, params, ranking.PoolFacts.given(
        negative=neg, groups=keys, stamps=stamps, twins=data.draw(st.one_of(st.none(), st.just(_twins(keys, data))))))
    pos = _position(ranked)
    for i in range(n):
        if neg[i] is not None:
            assert ranked.boosts[i] == 0.0
            for j in _clean_competitors(i, keys, neg):
                assert pos[j] < pos[i], f"negative {pool.uuids[i]} above its competitor {pool.uuids[j]}"


@settings(deadline=None)  # timings vary on a loaded machine; nothing here is timed
@given(uuid_lists, rank_consts, st.floats(0.0, 1.0), forms, st.data())
def test_a_lone_negative_fact_moves_down_at_most_lone_places(lists, k, w, form, data):
    """A rejected/expired fact with no competitor is demoted by a bounded number of places (0:
    kept), never sunk; a superseded one (invalidated) and one with a competitor are sunk, unless
    a clean competitor states it word for word (a twin): that one goes right below its clean
    competitors, above everything it was above but them."""
    pool, n, trust, neg, keys, stamps = _competing(lists, k, data)
    twins = _twins(keys, data)
    policy = _lone_policy(data)
    # competitor reordering off: it moves slots by its own rule (checked above)
    ranked = ranking.rank_pool(pool, trust, ranking.RuleParams(weight=w, form=form, negative_policy=policy,
                                                               reorder=False),
                               ranking.PoolFacts.given(negative=neg, groups=keys, twins=twins))
    plain = ranking.rank_pool(pool, trust, ranking.RuleParams(weight=w, form=form, reorder=False),
                              ranking.PoolFacts.given(negative=[None] * n, groups=keys))
    after = _position(ranked)
    duplicate = {i for i in range(n) if neg[i] is not None and neg[i] not in ranking.SUPERSEDED
                 and any(twins[j] == twins[i] for j in _clean_competitors(i, keys, neg))}
    sunk = {i for i in range(n) if i not in duplicate and neg[i] is not None
            and (neg[i] in ranking.SUPERSEDED or _clean_competitors(i, keys, neg))}
    lone = {i for i in range(n) if neg[i] is not None and i not in sunk and i not in duplicate}
    flags = [i in sunk for i in ranked.order]
    assert flags == sorted(flags)  # the sunk ones after every other item
    # among the rest, a lone negative item is passed by at most lone_places items that it was above
    # without the rule (its boost withheld: the unboosted order among items without negative evidence)
    rest = [int(i) for i in ranked.order if int(i) not in sunk]
    unboosted = [int(i) for i in fusion.order(np.where(np.array([x is not None for x in neg]), pool.fused,
                                                        plain.final)) if int(i) not in sunk]
    for i in lone:
        overtaken = {j for j in unboosted[unboosted.index(i) + 1:]} & set(rest[: rest.index(i)])
        assert len(overtaken) <= policy.lone_places
    for i in duplicate:  # right below its lowest clean competitor, or where it was if lower
        lowest = max(after[j] for j in _clean_competitors(i, keys, neg))
        assert lowest < after[i]
        overtaken = {j for j in unboosted[unboosted.index(i) + 1:]} & set(rest[: rest.index(i)])
        assert all(after[j] <= lowest for j in overtaken)  # only what ranks above that competitor
        between = [j for j in rest if lowest < after[j] < after[i] and neg[j] is None]
        assert all(unboosted.index(j) < unboosted.index(i) for j in between)  # it was below these anyway
    assert all(after[i] < n for i in range(n))


@settings(deadline=None)  # timings vary on a loaded machine; nothing here is timed
@given(uuid_lists, rank_consts, st.data())
def test_weight_zero_with_rules_off_is_plain_rrf_and_order_is_permutation_invariant(lists, k, data):
    pool, n, trust, neg, keys, stamps = _competing(lists, k, data)
    vanilla, _ = rrf(lists, rank_const=k)
    params = ranking.RuleParams(weight=0.0, reorder=False,
                                negative_policy=ranking.NegativePolicy(penalty=0.0, lone_places=0))
    off = ranking.rank_pool(pool, trust, params, ranking.PoolFacts.given(negative=neg, groups=keys, stamps=stamps))
    assert [pool.uuids[i] for i in off.order] == vanilla
    # the same pool listed in another first-appearance order ranks the same where scores differ
    policy = _lone_policy(data)
    params = ranking.RuleParams(weight=0.1, form="supported", relation_weight=0.1, relation_cap=0.25,
                                negative_policy=policy)
    ranked = ranking.rank_pool(pool, trust, params, ranking.PoolFacts.given(negative=neg, groups=keys, stamps=stamps))
    perm = np.array(data.draw(st.permutations(range(n))), dtype=np.int64)
    shuffled = fusion.FusedPool([pool.uuids[i] for i in perm], pool.methods, pool.ranks[:, perm], pool.fused[perm],
                                pool.rank_const)
    again = ranking.rank_pool(shuffled, [trust[i] for i in perm], params,
                              ranking.PoolFacts.given(negative=[neg[i] for i in perm], groups=[keys[i] for i in perm],
                                                      stamps=stamps[perm]))
    if len(set(np.round(ranked.final, 12))) == n and len(set(stamps.tolist())) == n:  # no ties to break
        assert [pool.uuids[i] for i in ranked.order] == [shuffled.uuids[i] for i in again.order]


@settings(deadline=None)  # timings vary on a loaded machine; nothing here is timed
@given(uuid_lists, rank_consts, st.floats(0.0, 1.0), st.floats(0.0, 2.0), st.data())
def test_the_bounded_relation_bonus_never_passes_a_fact_with_clearly_more_relevance(lists, k, rw, cap, data):
    """With relation_cap c (and no trust boost), a fact never passes one whose fused score exceeds
    its own by more than 1 + c, however many competitors gather behind it."""
    pool, n, trust, _, keys, _ = _competing(lists, k, data)
    ranked = ranking.rank_pool(pool, trust,
                               ranking.RuleParams(weight=0.0, reorder=False, relation_weight=rw, relation_cap=cap),
                               ranking.PoolFacts.given(groups=keys))
    assert np.all(ranked.relation <= cap * pool.fused + 1e-15) if ranked.relation is not None else True
    pos = _position(ranked)
    for i in range(n):
        for j in range(n):
            if pos[i] < pos[j] and pool.fused[j] > pool.fused[i] * (1.0 + cap) * (1 + 1e-12):
                raise AssertionError(f"{pool.uuids[i]} passed {pool.uuids[j]} on the relation bonus alone")


@settings(deadline=None)  # timings vary on a loaded machine; nothing here is timed
@given(uuid_lists, rank_consts, st.floats(0.0, 1.0), forms, st.floats(0.0, 1.0), st.data())
def test_the_best_mode_relation_bonus_is_the_share_of_the_best_other_member(lists, k, w, form, rw, data):
    """relation_mode best: a relation stated many times gains no more than one stated twice
    with the same best statement."""
    pool, n, trust, neg, keys, stamps = _competing(lists, k, data)
    ranked = ranking.rank_pool(pool, trust,
                               ranking.RuleParams(weight=w, form=form, relation_weight=rw, relation_mode="best"),
                               ranking.PoolFacts.given(negative=neg, groups=keys, stamps=stamps))
    for i in range(n):
        others = [pool.fused[j] for j in range(n) if j != i and keys[i] is not None and keys[j] == keys[i]]
        expected = 0.0 if not others or (neg is not None and neg[i] is not None) else rw * max(others)
        got = 0.0 if ranked.relation is None else ranked.relation[i]
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_a_rejected_twin_of_a_verified_statement_yields_to_it_instead_of_sinking():
    """A correct paraphrase a noisy review rejected while its twin (same subject, relation and
    target) was promoted: right below the twin, not below every other fact."""
    pool = fusion.fuse([["twin", "rejected", "a", "b", "c"]] * 2, ["bm25", "cosine"], rank_const=1)
    at = {u: i for i, u in enumerate(pool.uuids)}
    trust = [None] * 5
    trust[at["twin"]] = 1.0
    neg = [None] * 5
    neg[at["rejected"]] = "rejected"
    keys = [("db", "HAS_RTO") if u in ("twin", "rejected") else (u, "OTHER") for u in pool.uuids]
    policy = ranking.NegativePolicy(lone_places=0)
    same = [(*k, "15 minutes") for k in keys]
    other = [(*k, "30 minutes" if u == "rejected" else "15 minutes") for k, u in zip(keys, pool.uuids)]
    order = lambda twins: [pool.uuids[i] for i in ranking.rank_pool(  # noqa: E731
        pool, trust, ranking.RuleParams(weight=0.05, negative_policy=policy),
        ranking.PoolFacts.given(negative=neg, groups=keys, twins=twins)).order]
    assert order(same) == ["twin", "rejected", "a", "b", "c"]
    assert order(other) == ["twin", "a", "b", "c", "rejected"]  # another value: it sinks
    # the relation's share (relevance) stays with the duplicate; the trust boost does not
    ranked = ranking.rank_pool(pool, trust, ranking.RuleParams(weight=0.05, negative_policy=policy, relation_weight=0.5,
                                                               relation_mode="best"),
                               ranking.PoolFacts.given(negative=neg, groups=keys, twins=same))
    i = at["rejected"]
    assert ranked.boosts[i] == 0.0
    assert ranked.relation[i] == pytest.approx(0.5 * pool.fused[at["twin"]])
    assert ranked.final[i] == pytest.approx(pool.fused[i] + ranked.relation[i])


def test_statement_keys_add_the_target_to_the_competitor_key():
    from types import SimpleNamespace as E

    from graph_trust.search.pool_facts import competitor_keys, statement_keys
    edges = [E(source_node_uuid="db", name="has_rto", target_node_uuid="15m"),
             E(source_node_uuid="db", name="HAS_RTO ", target_node_uuid="15m"),
             E(source_node_uuid="db", name="HAS_RTO", target_node_uuid="30m"),
             E(source_node_uuid="db", name="HAS_RTO", target_node_uuid=None),
             E(source_node_uuid=None, name="HAS_RTO", target_node_uuid="15m")]
    twins = statement_keys(edges, competitor_keys(edges))
    assert twins[0] == twins[1] == ("db", "HAS_RTO", "15m")
    assert twins[2] == ("db", "HAS_RTO", "30m")
    assert twins[3] is None and twins[4] is None
