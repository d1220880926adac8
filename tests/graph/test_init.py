"""`graph-trust init` creates Graphiti's indices and the relationship uuid index, idempotently."""

from __future__ import annotations

from cli_helpers import run_cli

from graph_trust.graph import schema
from graph_trust.graph.connection import open_graph


async def _indexes(conn, group):
    g = conn.for_group(group)
    rows = await g.run_text("CALL db.indexes() YIELD label, properties, types, entitytype "
                            "RETURN label, properties, types, entitytype", {}, write=False)
    return {(r["entitytype"], r["label"], p, t) for r in rows for p in r["properties"] for t in r["types"][p]}


async def test_init_is_idempotent_and_creates_indexes(settings, unique):
    group = f"g_{unique}"
    first = await schema.init_graph(settings, [group])
    second = await schema.init_graph(settings, [group])
    stores = first.pop("vector_stores"), second.pop("vector_stores")
    assert first == second and group in first["graphs"]
    assert {s["status"] for s in stores[0][group].values()} == {"built"}  # the exact vector store, once
    assert {s["status"] for s in stores[1][group].values()} == {"current"}
    async with open_graph(settings) as conn:
        idx = await _indexes(conn, group)
    assert ("RELATIONSHIP", "RELATES_TO", "uuid", "RANGE") in idx
    assert ("NODE", "Entity", "uuid", "RANGE") in idx
    assert any(e == "RELATIONSHIP" and label == "RELATES_TO" and t == "FULLTEXT" for e, label, _, t in idx)
    assert any(e == "NODE" and label == "Entity" and t == "FULLTEXT" for e, label, _, t in idx)


def test_init_cli(tmp_path):
    r = run_cli("init", "--group", "ops", "--json", "--graph", f"embedded:{tmp_path}/g")
    assert r.code == 0, r.err
    assert r.json()["graphs"] == ["ops", "default_db"] and r.json()["dialect"] == "falkordb"


async def test_a_statement_waits_for_graphitis_index_build(graph, unique):
    """graphiti-core builds its indexes in a background task whenever a driver is made or cloned
    for a group. FalkorDB can silently drop matches of a write that runs while an index is being
    created (a 2,000-row bulk write made 635 edges, no error), which made a test graph come out
    short now and then. The connection's first statement on a graph waits for that build."""
    graph_conn = graph.for_group(f"g_{unique}")
    build = graph_conn.driver._init_task
    assert build is not None and not build.done()  # the clone has just started graphiti's build
    await graph_conn.run_text("RETURN 1 AS x", {}, write=False)
    assert build.done()
    await graph_conn.run_text("RETURN 1 AS x", {}, write=False)  # later statements do not wait again
