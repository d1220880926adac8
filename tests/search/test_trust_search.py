"""trust_search on a real embedded FalkorDB, through graphiti-core's own API."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from builders import Fact, assert_weight_zero_is_search_, build_graph, expected_boosted, reference_recipe
from graphiti_core.search import search_config_recipes as recipes
from graphiti_core.search.search_filters import SearchFilters

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.clients.offline import make_graphiti
from graph_trust.config import RankingSettings
from graph_trust.search import trust_search as gt

FACTS = [
    Fact("billing-db", "BACKUP_AT", "02:00 UTC", "The nightly backup of billing-db runs at 02:00 UTC", trust=None),
    Fact("billing-db", "BACKUP_AT", "03:00 UTC", "The billing-db backup job runs at 03:00 UTC every night", trust=1.0),
    Fact("billing-db", "RUNS_ON", "db-host-1", "billing-db runs on db-host-1", trust=0.6),
    Fact("billing-db", "OWNED_BY", "team-data", "billing-db is owned by team-data"),
    Fact("auth-service", "LISTENS_ON", "8080", "auth-service listens on port 8080"),
    Fact("auth-service", "LISTENS_ON", "8443", "auth-service listens on port 8443 with TLS", trust=1.0),
    Fact("auth-service", "DEPENDS_ON", "billing-db", "auth-service reads billing-db for entitlements", trust=0.25),
    Fact("payments-api", "OWNED_BY", "team-pay", "payments-api is owned by team-pay", trust=1.0),
    Fact("payments-api", "OWNED_BY", "team-core", "payments-api is owned by team-core",
         invalid_at=datetime(2025, 6, 1, tzinfo=UTC), trust=1.0),
    Fact("payments-api", "DEPENDS_ON", "auth-service", "payments-api calls auth-service to check tokens"),
    Fact("cron-host", "RUNS", "backup job", "cron-host runs the backup job for billing-db nightly"),
    Fact("log-shipper", "RUNS_ON", "db-host-1", "log-shipper runs on db-host-1 and ships backup logs"),
    Fact("deploy-window", "SCHEDULED_AT", "Tuesday", "The deploy window for payments-api is Tuesday 10:00"),
    Fact("team-data", "ON_CALL", "alice", "alice is on call for team-data this week", trust=0.6),
    Fact("team-pay", "ON_CALL", "bob", "bob is on call for team-pay this week"),
]
QUERIES = ["billing-db backup", "auth-service port", "payments-api owner", "on call this week", "db-host-1"]


@pytest.fixture
async def ograph(graph, unique):
    """Graphiti on the test's FalkorDB graph, with FACTS saved in group g_<unique>."""
    embedder = HashingEmbedder()
    group = f"g_{unique}"
    uuids = await build_graph(graph.for_group(group).driver, embedder, FACTS, group)
    # Graphiti bound to the group's graph: its search_ then needs no per-call driver clone.
    return make_graphiti(graph.for_group(group).driver, embedder=embedder), group, uuids


@pytest.mark.parametrize("query", QUERIES)
async def test_weight_zero_equals_graphiti_search_(ograph, query):
    graphiti, group, _ = ograph
    assert await assert_weight_zero_is_search_(graphiti, query, group)


async def test_boosted_fact_rises_exactly_as_computed(ograph):
    graphiti, group, uuids = ograph
    query, limit, w = "billing-db backup", 5, 0.5
    # The whole unboosted pool; every method list is shorter than 2 * limit, so the pool a
    # limit-5 search fuses is this same pool.
    pool = await gt.trust_search(graphiti, query, config=reference_recipe(gt.EDGE_HYBRID_SEARCH_RRF_TRUST, 100),
                                 group_ids=[group], trust_weight=0.0)
    assert all((e.bm25_rank or 0) <= 2 * limit and (e.cosine_rank or 0) <= 2 * limit for e in pool.edge_explanations)
    expected, expected_order = expected_boosted(pool.edge_explanations, FACTS, w, limit)

    boosted = await gt.trust_search(graphiti, query, config=reference_recipe(gt.EDGE_HYBRID_SEARCH_RRF_TRUST, limit),
                                    group_ids=[group], trust_weight=w)
    assert [e.uuid for e in boosted.edges] == expected_order
    assert boosted.edge_reranker_scores == [expected[u] for u in expected_order]
    assert boosted.edge_reranker_scores == [e.final for e in boosted.edge_explanations]

    promoted = uuids["The billing-db backup job runs at 03:00 UTC every night"]
    ex = {e.uuid: e for e in boosted.edge_explanations}
    unboosted = {e.uuid: e.rank for e in pool.edge_explanations}
    assert ex[promoted].boost == pytest.approx(w) and ex[promoted].trust_score == 1.0
    assert ex[promoted].rank_without_boost == unboosted[promoted] > 1
    assert ex[promoted].rank < ex[promoted].rank_without_boost  # it rose, to where expected_order says
    for e in boosted.edge_explanations:
        assert e.rank_without_boost == unboosted[e.uuid]


async def test_trust_score_comes_back_in_attributes(ograph):
    graphiti, group, uuids = ograph
    res = await gt.trust_search(graphiti, "auth-service port", group_ids=[group])
    by_uuid = {e.uuid: e for e in res.edges}
    tls = uuids["auth-service listens on port 8443 with TLS"]
    plain = uuids["auth-service listens on port 8080"]
    assert by_uuid[tls].attributes["trust_score"] == 1.0
    assert "trust_score" not in by_uuid[plain].attributes
    ex = {e.uuid: e for e in res.edge_explanations}
    assert ex[tls].trust_score == 1.0 and ex[plain].trust_score is None and ex[plain].boost == 0.0


async def test_expired_edges_get_no_boost(ograph):
    graphiti, group, uuids = ograph
    old = uuids["payments-api is owned by team-core"]
    res = await gt.trust_search(graphiti, "payments-api owner", group_ids=[group])
    ex = {e.uuid: e for e in res.edge_explanations}
    assert ex[old].trust_score == 1.0 and ex[old].boost == 0.0 and ex[old].negative == "invalidated"
    assert ex[old].rank == len(res.edges)  # demoted below every edge without negative evidence
    cfg = gt.EDGE_HYBRID_SEARCH_RRF_TRUST.model_copy(update={"profile": "reference", "boost_expired": True})
    res2 = await gt.trust_search(graphiti, "payments-api owner", config=cfg, group_ids=[group])
    assert {e.uuid: e for e in res2.edge_explanations}[old].boost == pytest.approx(RankingSettings().trust_weight)


async def test_shared_recipes_are_never_mutated(ograph):
    graphiti, group, _ = ograph
    before = [r.model_dump() for r in (gt.EDGE_HYBRID_SEARCH_RRF_TRUST, gt.NODE_HYBRID_SEARCH_RRF_TRUST,
                                       gt.COMBINED_HYBRID_SEARCH_RRF_TRUST, recipes.EDGE_HYBRID_SEARCH_RRF)]
    await gt.trust_search(graphiti, "billing", config=gt.EDGE_HYBRID_SEARCH_RRF_TRUST, group_ids=[group],
                          trust_weight=0.5)
    await gt.trust_search(graphiti, "billing", config=recipes.EDGE_HYBRID_SEARCH_RRF, group_ids=[group])
    await gt.trust_search(graphiti, "billing", config=gt.COMBINED_HYBRID_SEARCH_RRF_TRUST, group_ids=[group])
    after = [r.model_dump() for r in (gt.EDGE_HYBRID_SEARCH_RRF_TRUST, gt.NODE_HYBRID_SEARCH_RRF_TRUST,
                                      gt.COMBINED_HYBRID_SEARCH_RRF_TRUST, recipes.EDGE_HYBRID_SEARCH_RRF)]
    assert before == after


async def test_search_filter_is_honoured(ograph):
    graphiti, group, _ = ograph
    res = await gt.trust_search(graphiti, "billing-db", group_ids=[group],
                                search_filter=SearchFilters(edge_types=["OWNED_BY"]))
    assert res.edges and {e.name for e in res.edges} == {"OWNED_BY"}


async def test_several_groups_merged_and_resorted(graph, unique):
    embedder = HashingEmbedder()
    g1, g2 = f"a_{unique}", f"b_{unique}"
    await build_graph(graph.for_group(g1).driver, embedder, FACTS[:7], g1)
    await build_graph(graph.for_group(g2).driver, embedder, FACTS[7:], g2)
    graphiti = make_graphiti(graph.driver, embedder=embedder)
    res = await gt.trust_search(graphiti, "billing-db backup on call", group_ids=[g1, g2], trust_weight=0.15)
    assert {e.group_id for e in res.edges} == {g1, g2}
    assert res.edge_reranker_scores == sorted(res.edge_reranker_scores, reverse=True)
    assert [e.rank for e in res.edge_explanations] == list(range(1, len(res.edges) + 1))
    # Each group's own results appear in the merge in their own relative order.
    for g in (g1, g2):
        single = await gt.trust_search(graphiti, "billing-db backup on call", group_ids=[g], trust_weight=0.15)
        merged_order = [e.uuid for e in res.edges if e.group_id == g]
        assert merged_order == [e.uuid for e in single.edges][: len(merged_order)]


async def test_bad_inputs_raise_typed_errors(ograph):
    from graph_trust.errors import ConfigError, InputError

    graphiti, group, _ = ograph
    with pytest.raises(InputError, match="empty"):
        await gt.trust_search(graphiti, "   ", group_ids=[group])
    with pytest.raises(InputError, match="limit"):
        await gt.trust_search(graphiti, "x" * 10_000_000, group_ids=[group])
    with pytest.raises(ConfigError, match="trust_weight"):
        await gt.trust_search(graphiti, "billing", group_ids=[group], trust_weight=1.5)
