"""Scores follow the returned order, for every ranking ordered by score and at any settings.

A Graphiti user sorts ``edge_reranker_scores`` (and ``final`` in ``--json``); a rule that moved
an item without changing its score would be undone by that sort. Over random candidate pools
(up to 90 items, beyond NumPy's small-array sort), trust values, review statuses, competitor
groups, duplicates, timestamps and every rule setting: the score beside each returned item never
increases down the list, re-sorting the returned items by it (stably) gives the same order, and
each explanation says which rule moved its item and what it scored before.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memory_records import rec

from graph_trust.config import CompositeSettings
from graph_trust.search import fusion, ranking
from graph_trust.search.composite import rank_composite
from graph_trust.search.rules import ORDER

METHODS = ["bm25", "cosine", "bfs"]
STATUSES = st.one_of(st.none(), st.none(), st.sampled_from(["rejected", "expired", "invalidated"]))
TRUST = st.one_of(st.none(), st.sampled_from([0.0, 0.25, 0.6, 1.0]), st.floats(0.0, 1.0))


@st.composite
def pools(draw):
    n = draw(st.integers(1, 90))
    names = [f"u{i}" for i in range(n)]
    lists = draw(st.lists(st.lists(st.sampled_from(names), unique=True, max_size=60), min_size=1, max_size=3))
    pool = fusion.fuse(lists, METHODS[: len(lists)], rank_const=draw(st.sampled_from([1.0, 60.0, 7.5])))
    m = len(pool.uuids)
    subjects = draw(st.integers(1, 6))
    groups = draw(st.lists(st.one_of(st.none(), st.tuples(st.integers(0, subjects), st.just("R"))),
                           min_size=m, max_size=m))
    targets = draw(st.lists(st.integers(0, 2), min_size=m, max_size=m))
    twins = [None if g is None else (*g, t) for g, t in zip(groups, targets, strict=True)]
    stamps = np.array(draw(st.lists(st.one_of(st.just(np.nan), st.floats(0, 1e9)), min_size=m, max_size=m)))
    return pool, {
        "trust_values": draw(st.lists(TRUST, min_size=m, max_size=m)),
        "negative": draw(st.one_of(st.none(), st.lists(STATUSES, min_size=m, max_size=m))),
        "competitors": draw(st.one_of(st.none(), st.just(groups))),
        "twins": draw(st.one_of(st.none(), st.just(twins))),
        "stamps": draw(st.one_of(st.none(), st.just(stamps))),
    }


rule_settings = st.fixed_dictionaries({
    "weight": st.sampled_from([0.0, 0.05, 0.15, 1.0]),
    "form": st.sampled_from(ranking.BOOST_FORMS),
    "min_boost_trust": st.sampled_from([0.0, 0.5]),
    "negative_policy": st.builds(ranking.NegativePolicy, penalty=st.sampled_from([0.0, 0.5, 1.0]),
                                 drop=st.booleans(), lone_places=st.one_of(st.none(), st.integers(0, 5)),
                                 competed=st.sampled_from(["penalty", "yield"])),
    "reorder": st.booleans(),
    "relation_weight": st.sampled_from([0.0, 0.1, 0.5]),
    "relation_cap": st.one_of(st.none(), st.sampled_from([0.0, 0.5])),
    "relation_mode": st.sampled_from(["best", "sum"]),
    "min_score": st.sampled_from([0.0, 0.02]),
})


def assert_scores_follow(scores: list[float]) -> None:
    assert all(a >= b for a, b in zip(scores, scores[1:])), scores
    resorted = sorted(range(len(scores)), key=lambda k: -scores[k])  # Python's sort is stable
    assert resorted == list(range(len(scores)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])  # nothing timed
@given(pools(), rule_settings)
def test_trust_search_scores_never_increase_down_the_list(drawn, cfg):
    pool, data = drawn
    trust_values = data.pop("trust_values")
    data["groups"] = data.pop("competitors")
    ranked = ranking.rank_pool(pool, trust_values, ranking.RuleParams(**cfg), ranking.PoolFacts.given(**data))
    scores = [float(ranked.final[i]) for i in ranked.order]
    assert_scores_follow(scores)
    explained = ranking.explain(ranked, list(pool.uuids))
    assert [e.final for e in explained] == scores
    for e, i in zip(explained, ranked.order, strict=True):
        if e.moved_by is None:
            assert e.score_before_move is None and e.final == float(ranked.scored[i])
        else:
            assert e.moved_by in ORDER and e.score_before_move == float(ranked.scored[i])
            if e.moved_by == "placement":  # moved down: never scores more than it did
                assert e.final <= e.score_before_move


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 60), st.data())
def test_composite_scores_never_increase_down_the_list(n, data):
    records = [rec(f"r{i}", age_h=data.draw(st.one_of(st.none(), st.floats(0, 5000))),
                   trust_score=data.draw(TRUST), relevance_raw=data.draw(st.floats(0.0, 2.0)),
                   subject=f"s{data.draw(st.integers(0, 4))}", name="R",
                   memory_type=data.draw(st.sampled_from(["fact", "decision", "goal"])))
               for i in range(n)]
    ranked = rank_composite(records, CompositeSettings(), max_results=0,
                            competitors=data.draw(st.sampled_from(["none", "trust", "trust_recency"])),
                            verified_trust=data.draw(st.sampled_from([0.0, 0.5])))
    assert_scores_follow([r.score for r in ranked])
    for r in ranked:
        assert (r.moved_by is None) == (r.score_before_move is None)
