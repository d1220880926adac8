"""The sync flow over the Neo4j wire protocol (ArcadeDB in CI; real Neo4j with
GRAPH_TRUST_TEST_NEO4J_URI): the neo4j dialect of sync's Cypher, several batches, one database."""

from __future__ import annotations

import pytest

from graph_trust.connection import open_graph
from graph_trust.sync import rollback, run_sync, verify
from sync_fixtures import bulk_graph, bulk_rows, edge_props, expected_state, review_db, set_rows

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
        assert (second.edges_cleared, second.edges_set, second.candidates_read) == (2, 0, 2)
        assert (await verify(bolt_settings, review_db=db, graph=g)).in_sync
        full = await run_sync(bolt_settings, review_db=db, graph=g, full=True, batch_size=50)
        assert (full.edges_set, full.edges_cleared, full.entities_updated) == (0, 0, 0)
        rb = await rollback(bolt_settings, second.run_id, graph=g)
        assert rb.edges_restored == 2
        assert _trust(await edge_props(g, group)) == expected_state(bulk_rows(edges, group))
