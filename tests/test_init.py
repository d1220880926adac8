"""`graph-trust init` creates Graphiti's indices and the relationship uuid index, idempotently."""

from __future__ import annotations

from graph_trust import service
from graph_trust.connection import open_graph

from cli_helpers import run_cli


async def _indexes(conn, group):
    g = conn.for_group(group)
    rows = await g.run_text("CALL db.indexes() YIELD label, properties, types, entitytype "
                            "RETURN label, properties, types, entitytype", {}, write=False)
    return {(r["entitytype"], r["label"], p, t) for r in rows for p in r["properties"] for t in r["types"][p]}


async def test_init_is_idempotent_and_creates_indexes(settings, unique):
    group = f"g_{unique}"
    first = await service.init_graph(settings, [group])
    second = await service.init_graph(settings, [group])
    assert first == second and group in first["graphs"]
    async with open_graph(settings) as conn:
        idx = await _indexes(conn, group)
    assert ("RELATIONSHIP", "RELATES_TO", "uuid", "RANGE") in idx
    assert ("NODE", "Entity", "uuid", "RANGE") in idx
    assert any(e == "RELATIONSHIP" and l == "RELATES_TO" and t == "FULLTEXT" for e, l, _, t in idx)
    assert any(e == "NODE" and l == "Entity" and t == "FULLTEXT" for e, l, _, t in idx)


def test_init_cli(tmp_path):
    r = run_cli("init", "--group", "ops", "--json", "--graph", f"embedded:{tmp_path}/g")
    assert r.code == 0, r.err
    assert r.json()["graphs"] == ["ops", "default_db"] and r.json()["dialect"] == "falkordb"
