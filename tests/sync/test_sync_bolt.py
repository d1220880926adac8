"""The sync flow over the Neo4j wire protocol (ArcadeDB in CI; real Neo4j with
GRAPH_TRUST_TEST_NEO4J_URI): the neo4j dialect of sync's Cypher, several batches, one database."""

from __future__ import annotations

import pytest
from sync_fixtures import bulk_graph, bulk_rows, edge_props, expected_state, review_db, set_rows

from graph_trust.graph.connection import open_graph
from graph_trust.sync import rollback, run_sync, verify

pytestmark = pytest.mark.bolt


def _trust(props):
    return {u: p["trust_score"] for u, p in props.items() if p["trust_score"] is not None}


async def test_sync_incremental_verify_rollback_over_bolt(bolt_settings, tmp_path, unique):
    group = f"b{unique}"
    async with open_graph(bolt_settings) as g:
        assert g.dialect == "neo4j"
        edges = await bulk_graph(g, group, 240)
        rows = bulk_rows(edges, group)
        db = review_db(tmp_path / "r.sqlite3", rows)
        first = await run_sync(bolt_settings, review_db=db, graph=g, batch_size=50)
        assert first.edges_set == len(expected_state(rows)) and first.batches > 4
        assert _trust(await edge_props(g, group)) == expected_state(rows)
        assert (await verify(bolt_settings, review_db=db, graph=g)).in_sync
        set_rows(db, "UPDATE candidates SET status = 'rejected', updated_at = '2030-01-01T00:00:00Z' "
                     "WHERE id IN ('c00000', 'c00001')")
        second = await run_sync(bolt_settings, review_db=db, graph=g, batch_size=50)
        assert (second.edges_cleared, second.edges_set, second.candidates_changed) == (2, 0, 2)
        assert (await verify(bolt_settings, review_db=db, graph=g)).in_sync
        full = await run_sync(bolt_settings, review_db=db, graph=g, full=True, batch_size=50)
        assert (full.edges_set, full.edges_cleared, full.entities_updated) == (0, 0, 0)
        rb = await rollback(bolt_settings, second.run_id, graph=g)
        assert rb.edges_restored == 2
        assert _trust(await edge_props(g, group)) == expected_state(bulk_rows(edges, group))


async def test_edges_leaving_the_graph_reaggregate_their_entities_over_bolt(bolt_settings, tmp_path, unique):
    """Every promoted edge deleted (as Graphiti's remove_episode would): the next normal run
    re-aggregates the entities they connected from the endpoints the shadow recorded."""
    group = f"b{unique}"
    async with open_graph(bolt_settings) as g:
        edges = await bulk_graph(g, group, 120)
        rows = bulk_rows(edges, group)
        db = review_db(tmp_path / "r.sqlite3", rows)
        await run_sync(bolt_settings, review_db=db, graph=g, batch_size=50)
        promoted = sorted(u for u, t in expected_state(rows).items() if t == 1.0)
        await g.for_group(group).run_text("MATCH ()-[r:RELATES_TO]->() WHERE r.uuid IN $u DELETE r",
                                          {"u": promoted}, write=True)
        drifted = await verify(bolt_settings, review_db=db, graph=g)
        assert drifted.drift["entity_wrong_trust"] + drifted.drift["entity_stale_trust"] > 0
        healed = await run_sync(bolt_settings, review_db=db, graph=g, batch_size=50)
        assert healed.drift_healed == len(promoted) and healed.unmatched_count == len(promoted)
        assert healed.entities_updated == sum(drifted.drift.values())
        assert (await verify(bolt_settings, review_db=db, graph=g)).in_sync
