"""Graphiti-level search over Bolt, through graphiti-core's real Neo4jDriver: ArcadeDB in CI (its
SQL fulltext indexes answer Graphiti's db.index.fulltext.query* by name), real Neo4j with
GRAPH_TRUST_TEST_NEO4J_URI (indexes from `graph-trust init`). Same facts and queries as the
FalkorDB tests in test_trust_search.py."""

from __future__ import annotations

import pytest
from builders import assert_weight_zero_is_search_, build_graph, expected_boosted, reference_recipe
from test_trust_search import FACTS, QUERIES

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.clients.offline import make_graphiti
from graph_trust.graph import schema
from graph_trust.graph.connection import open_graph
from graph_trust.search import trust_search as gt

pytestmark = pytest.mark.bolt
EMB = HashingEmbedder()


@pytest.fixture
async def bgraph(bolt, bolt_settings, unique):
    """(Graphiti, group, {fact: uuid}) on the Bolt database, indexes made by `graph-trust init`."""
    await schema.init_graph(bolt_settings)
    group = f"s{unique}"
    async with open_graph(bolt_settings) as g:
        await g.settle()
        uuids = await build_graph(g.driver, EMB, FACTS, group, indices=False, vector_procedure=not bolt.arcadedb)
        yield make_graphiti(g.driver, embedder=EMB), group, uuids


async def test_fulltext_finds_facts_over_bolt(bgraph):
    """Guards the premise of the tests below: BM25 candidates really come from the server."""
    from graphiti_core.search.search_filters import SearchFilters
    from graphiti_core.search.search_utils import edge_fulltext_search

    graphiti, group, uuids = bgraph
    hits = await edge_fulltext_search(graphiti.driver, "billing-db backup", SearchFilters(), [group], limit=10)
    assert uuids["The billing-db backup job runs at 03:00 UTC every night"] in {e.uuid for e in hits}
    assert {e.group_id for e in hits} == {group}


async def test_weight_zero_equals_graphiti_search_(bgraph):
    graphiti, group, _ = bgraph
    found = 0
    for query in QUERIES:
        found += await assert_weight_zero_is_search_(graphiti, query, group, limits=(3, 10))
    assert found  # the comparisons were not all between empty lists


async def test_boosted_fact_rises_and_trust_comes_from_attributes(bgraph):
    graphiti, group, uuids = bgraph
    query, limit, w = "billing-db backup", 5, 0.75
    pool = await gt.trust_search(graphiti, query, config=reference_recipe(gt.EDGE_HYBRID_SEARCH_RRF_TRUST, 100),
                                 group_ids=[group], trust_weight=0.0)
    expected, expected_order = expected_boosted(pool.edge_explanations, FACTS, w, limit)
    boosted = await gt.trust_search(graphiti, query, config=reference_recipe(gt.EDGE_HYBRID_SEARCH_RRF_TRUST, limit),
                                    group_ids=[group], trust_weight=w)
    assert [e.uuid for e in boosted.edges] == expected_order
    promoted = uuids["The billing-db backup job runs at 03:00 UTC every night"]
    ex = {e.uuid: e for e in boosted.edge_explanations}
    unboosted = {e.uuid: e.rank for e in pool.edge_explanations}
    assert ex[promoted].trust_score == 1.0 and ex[promoted].boost == pytest.approx(w)
    assert ex[promoted].rank < unboosted[promoted]  # it rose
    by_uuid = {e.uuid: e for e in boosted.edges}
    assert by_uuid[promoted].attributes["trust_score"] == 1.0  # read back by Graphiti, no extra query
    plain = uuids["The nightly backup of billing-db runs at 02:00 UTC"]
    assert plain in by_uuid and "trust_score" not in by_uuid[plain].attributes and ex[plain].boost == 0.0


async def test_cli_search_over_bolt(bolt, bgraph, tmp_path):
    from cli_helpers import run_cli

    _, group, uuids = bgraph
    env = {"NEO4J_USER": bolt.user, "NEO4J_PASSWORD": bolt.password, "NEO4J_DATABASE": bolt.database}
    r = run_cli("search", "billing-db backup", "--graph", bolt.uri, "--group", group, "--json", env=env, cwd=tmp_path)
    assert r.code == 0, r.err
    assert bolt.password not in r.out + r.err
    out = r.json()
    assert uuids["The billing-db backup job runs at 03:00 UTC every night"] in str(out)
