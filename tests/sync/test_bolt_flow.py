"""`graph-trust init` and the nightly flow through the real CLI over Bolt (ArcadeDB in CI; real
Neo4j with GRAPH_TRUST_TEST_NEO4J_URI). What test_sync_bolt.py (library: sync, incremental,
verify, full, rollback of the incremental run) and test_relink_bolt.py (relink + its rollback)
cover is not repeated: here are init, the CLI with the password in the environment only, entity
aggregation values, drift that verify must report and the next sync heals, a multi-batch dry run, and rolling back
the first multi-batch run (conflict, then --force) back to a graph with no trust at all."""

from __future__ import annotations

import collections
import json

import pytest
from cli_helpers import run_cli
from sync_fixtures import TIERS, bulk_graph, bulk_rows, edge_props, expected_state, review_db

from graph_trust.graph import schema
from graph_trust.graph.connection import open_graph

pytestmark = pytest.mark.bolt


def _env(bolt):
    return {"NEO4J_USER": bolt.user, "NEO4J_PASSWORD": bolt.password, "NEO4J_DATABASE": bolt.database}


def _graphiti_index_names() -> tuple[set[str], set[str]]:
    import re

    from graphiti_core.driver.driver import GraphProvider
    from graphiti_core.graph_queries import get_fulltext_indices, get_range_indices

    def names(stmts):
        return {re.search(r"INDEX\s+(\w+)", s).group(1) for s in stmts}

    return names(get_range_indices(GraphProvider.NEO4J)), names(get_fulltext_indices(GraphProvider.NEO4J))


async def _indexes(settings) -> dict[str, tuple]:
    async with open_graph(settings) as g:
        await g.settle()
        rows = await g.run_text("SHOW INDEXES YIELD name, type, entityType, labelsOrTypes, properties RETURN *",
                                {}, write=False)
    return {r["name"]: (r["type"], r["entityType"], tuple(r["labelsOrTypes"] or ()),
                      tuple(r["properties"] or ())) for r in rows}


async def test_init_over_bolt_is_idempotent_and_creates_every_index(bolt, bolt_settings, tmp_path):
    first = await schema.init_graph(bolt_settings)
    after_first = await _indexes(bolt_settings)
    second = await schema.init_graph(bolt_settings)
    # an empty graph: no embeddings, so no recall to measure for search.cosine auto
    plain = {"graph": first["graph"], "dialect": "neo4j", "graphs": [bolt.database], "recall": {}}
    assert {k: v for k, v in first.items() if k not in ("vector_indexes", "vector_stores")} == plain
    assert {k: v for k, v in second.items() if k not in ("vector_indexes", "vector_stores")} == plain
    # the exact vector store of the database, one per kind, empty
    for report in (first, second):
        assert set(report["vector_stores"]) == {bolt.database}
        assert set(report["vector_stores"][bolt.database]) == {"edge", "node"}
        assert all(not v.get("items") for v in report["vector_stores"][bolt.database].values())
    statuses = {s["status"] for group in second["vector_indexes"].values() for s in group.values()}
    # the shipped defaults create no HNSW index beside the exact vector store
    assert statuses == {"not needed"}
    assert await _indexes(bolt_settings) == after_first  # nothing added or changed the second time
    assert bolt.password not in str(first)
    assert after_first["relation_uuid"] == ("RANGE", "RELATIONSHIP", ("RELATES_TO",), ("uuid",))
    assert after_first["entity_uuid"] == ("RANGE", "NODE", ("Entity",), ("uuid",))
    range_names, fulltext_names = _graphiti_index_names()
    assert range_names <= set(after_first), range_names - set(after_first)
    assert {n for n in fulltext_names if after_first[n][0] == "FULLTEXT"} == fulltext_names
    assert after_first["edge_name_and_fact"][1:] == ("RELATIONSHIP", ("RELATES_TO",), ("name", "fact", "group_id"))
    # The command, with the password only in the environment.
    for _ in range(2):
        r = run_cli("init", "--graph", bolt.uri, "--json", env=_env(bolt), cwd=tmp_path)
        assert r.code == 0, r.err
        assert r.json()["dialect"] == "neo4j" and bolt.password not in r.out + r.err
    assert await _indexes(bolt_settings) == after_first


def _expected_entity_max(g_edges: dict[str, tuple[str, str]], trust: dict[str, float]) -> dict[str, float]:
    per = collections.defaultdict(float)
    for u, s in trust.items():
        a, b = g_edges[u]
        per[a], per[b] = max(per[a], s), max(per[b], s)
    return dict(per)


async def test_cli_flow_over_bolt_drift_and_rollback_of_a_multibatch_run(bolt, bolt_settings, tmp_path, unique):
    group = f"f{unique}"
    async with open_graph(bolt_settings) as g:
        await g.settle()
        edges = await bulk_graph(g, group, 180)
        rows = await g.run_text("MATCH (a)-[r:RELATES_TO]->(b) WHERE r.group_id = $g "
                                "RETURN r.uuid AS u, a.uuid AS a, b.uuid AS b", {"g": group}, write=False)
        ends = {r["u"]: (r["a"], r["b"]) for r in rows}
    rows = bulk_rows(edges, group)
    db = review_db(tmp_path / "review.sqlite3", rows)
    want = expected_state(rows)
    env = {**_env(bolt), "GRAPH_TRUST_STATE_DIR": str(tmp_path / "state")}
    (tmp_path / "graph-trust.yaml").write_text(json.dumps({"sync": {"tiers": TIERS}}))  # (JSON is YAML)

    def cli(*args):
        return run_cli(*args, "--graph", bolt.uri, "--json", env=env, cwd=tmp_path)

    async def trust_now():
        async with open_graph(bolt_settings) as g:
            props = await edge_props(g, group)
            ents = await g.run_text("MATCH (n:Entity) WHERE n.group_id = $g AND n.trust_score IS NOT NULL "
                                    "RETURN n.uuid AS u, n.trust_score AS t", {"g": group}, write=False)
        return ({u: p["trust_score"] for u, p in props.items() if p["trust_score"] is not None},
                {r["u"]: r["t"] for r in ents})

    dry = cli("sync", "--review-db", str(db), "--dry-run", "--batch-size", "40")
    assert dry.code == 0, dry.err
    assert dry.json()["edges_set"] == len(want) and dry.json()["dry_run"]
    assert await trust_now() == ({}, {})  # a dry run writes nothing

    first = cli("sync", "--review-db", str(db), "--batch-size", "40")
    assert first.code == 0, first.err
    rep = first.json()
    assert rep["edges_set"] == len(want) and rep["batches"] >= len(want) // 40 and rep["status"] == "ok"
    edge_trust, entity_trust = await trust_now()
    assert edge_trust == want and set(want.values()) == {v for v in TIERS.values() if v is not None}
    assert entity_trust == pytest.approx(_expected_entity_max(ends, want))  # sync.aggregation = max
    assert cli("verify", "--review-db", str(db)).code == 0

    # Someone edits a fact's trust by hand: verify reports exactly that edge, exit 1.
    victim = sorted(want)[0]
    async with open_graph(bolt_settings) as g:
        await g.run_text("MATCH ()-[r:RELATES_TO]->() WHERE r.uuid = $u SET r.trust_score = 0.01",
                         {"u": victim}, write=True)
    drift = cli("verify", "--review-db", str(db))
    assert drift.code == 1 and not drift.json()["in_sync"] and victim in drift.out

    # The next sync puts the edited edge back (it changed since the last run).
    heal = cli("sync", "--review-db", str(db), "--batch-size", "40")
    assert heal.code == 0, heal.err
    assert heal.json()["drift_healed"] == 1 and (await trust_now())[0] == want
    assert cli("verify", "--review-db", str(db)).code == 0

    # Rolling back the first run now would undo what the later run wrote: refused, then forced.
    refused = cli("rollback", rep["run_id"])
    assert refused.code == 2 and refused.err.startswith("error:") and (await trust_now())[0] == want
    forced = cli("rollback", rep["run_id"], "--force")
    assert forced.code == 0, forced.err
    assert forced.json()["edges_restored"] == len(want)
    assert await trust_now() == ({}, {})  # back to a graph without any trust property
    assert bolt.password not in "".join(r.out + r.err for r in (dry, first, drift, heal, refused, forced))
