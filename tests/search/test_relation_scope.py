"""search.relation_scope over random pools: with "limit" (the default) the relation bonus lifts
only facts relevance alone ranks within the search's limit, so it reorders what the search
returns and brings nothing in; with "pool" any fact of the pool may gain it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_topic import _ranked, pools

from graph_trust.search.trust_search import EDGE_HYBRID_SEARCH_RRF_TRUST


@given(pools(), st.integers(1, 12), st.sampled_from(["best", "sum"]))
@settings(max_examples=150, deadline=None)
def test_the_bonus_lifts_only_facts_within_the_limit(drawn, limit, mode):
    items, bm25, cosine = drawn
    config = EDGE_HYBRID_SEARCH_RRF_TRUST.model_copy(update={"limit": limit, "relation_mode": mode,
                                                             "relation_weight": 0.3})
    assert config.relation_scope == "limit"
    _, _, expl = _ranked(items, bm25, cosine, config)
    assert all(e.relation_bonus == 0.0 for e in expl if e.rank_without_boost > limit)
    whole = config.model_copy(update={"relation_scope": "pool", "limit": 100})
    _, _, every = _ranked(items, bm25, cosine, whole)
    window = config.model_copy(update={"limit": 100})  # a limit past the pool: "limit" is "pool"
    _, _, same = _ranked(items, bm25, cosine, window)
    assert [(e.uuid, e.relation_bonus) for e in same] == [(e.uuid, e.relation_bonus) for e in every]
