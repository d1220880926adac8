"""Helpers for the sync tests: a Graphiti-built graph and a matching review DB."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from builders import Fact, build_graph

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.sync.review_db import init_review_db, insert_rows

FACTS = [
    Fact("billing-db", "BACKUP_AT", "03:00 UTC", "The billing-db backup job runs at 03:00 UTC every night"),
    Fact("billing-db", "RUNS_ON", "db-host-1", "billing-db runs on db-host-1"),
    Fact("billing-db", "OWNED_BY", "team-data", "billing-db is owned by team-data"),
    Fact("auth-service", "LISTENS_ON", "8443", "auth-service listens on port 8443 with TLS"),
    Fact("auth-service", "DEPENDS_ON", "billing-db", "auth-service reads billing-db for entitlements"),
    Fact("payments-api", "OWNED_BY", "team-pay", "payments-api is owned by team-pay"),
    Fact("payments-api", "DEPENDS_ON", "auth-service", "payments-api calls auth-service to check tokens"),
    Fact("team-data", "ON_CALL", "alice", "alice is on call for team-data this week"),
]


async def build(graph, group: str, facts=FACTS) -> dict[str, str]:
    """Save ``facts`` with graphiti-core into ``group``; {fact: edge uuid}."""
    return await build_graph(graph.for_group(group).driver, HashingEmbedder(), facts, group)


def evidence(uuid: str) -> str:
    return json.dumps([{"evidence_id": uuid, "kind": "edge"}, {"evidence_id": "episode-1"}])


def review_db(path: Path, rows: list[dict]) -> Path:
    init_review_db(path)
    insert_rows(path, rows)
    return path


def row(cid: str, uuid: str | None, status: str, group: str | None, *, ev: str | None = None,
        updated_at: str = "2026-01-01T00:00:00Z", **extra) -> dict:
    return {"id": cid, "status": status, "group_id": group, "updated_at": updated_at,
            "evidence_refs_json": ev if ev is not None else evidence(uuid), "subject": "s", "predicate": "p",
            "object": "o", "fact": f"fact {cid}", **extra}


def set_rows(path: Path, sql: str, params=()) -> None:
    con = sqlite3.connect(path)
    with con:
        con.execute(sql, params)
    con.close()


async def edge_props(graph, group: str) -> dict[str, dict]:
    """{edge uuid: trust properties} of every RELATES_TO edge in ``group``'s graph."""
    graph_conn = graph.for_group(group)
    rows = await graph_conn.run_text(
        "MATCH ()-[r:RELATES_TO]->() RETURN r.uuid AS uuid, r.trust_score AS trust_score, "
        "r.trust_status AS trust_status, r.memory_type AS memory_type, r.sensitivity AS sensitivity, "
        "r.scope AS scope, r.trust_run_id AS trust_run_id", {}, write=False)
    return {r["uuid"]: r for r in rows}


async def entity_trust(graph, group: str) -> dict[str, float | None]:
    graph_conn = graph.for_group(group)
    rows = await graph_conn.run_text("MATCH (n:Entity) RETURN n.name AS name, n.trust_score AS t", {}, write=False)
    return {r["name"]: r["t"] for r in rows}


BULK_ENTITIES = """
UNWIND $rows AS row
CREATE (:Entity {uuid: row.uuid, name: row.name, group_id: row.group_id, summary: row.name, labels: ['Entity']})
"""
BULK_EDGES = """
UNWIND $rows AS row
MATCH (a:Entity {uuid: row.source}) MATCH (b:Entity {uuid: row.target})
CREATE (a)-[:RELATES_TO {uuid: row.uuid, group_id: row.group_id, name: 'RELATES', fact: row.fact, episodes: []}]->(b)
"""
TIERS = {"promoted": 1.0, "corroborated": 0.6, "candidate": 0.25, "rejected": None, "expired": None}


async def bulk_graph(graph, group: str, n_edges: int) -> list[str]:
    """``n_edges`` Graphiti-shaped RELATES_TO edges bulk-created with UNWIND (fast; no embeddings)."""
    from graph_trust.graph.schema import ensure_uuid_indexes

    graph_conn = graph.for_group(group)
    await graph_conn.run_text("CREATE (:Entity {uuid: 'seed'})", {}, write=True)
    await ensure_uuid_indexes(graph)
    ents = [f"{group}-n{i:05d}" for i in range(max(2, n_edges // 3))]
    await graph_conn.run_text(BULK_ENTITIES, {"rows": [{"uuid": e, "name": e, "group_id": group} for e in ents]}, write=True)
    edges = [f"{(i * 7919) % 65536:04x}-{group}-e{i:05d}" for i in range(n_edges)]
    rows = [{"uuid": u, "source": ents[i % len(ents)], "target": ents[(i * 31 + 1) % len(ents)], "group_id": group,
             "fact": f"fact {i}"} for i, u in enumerate(edges)]
    for i in range(0, len(rows), 2000):
        await graph_conn.run_text(BULK_EDGES, {"rows": rows[i:i + 2000]}, write=True)
    made = await graph_conn.run_text("MATCH ()-[r:RELATES_TO]->() RETURN count(r) AS n", {}, write=False)
    assert made == [{"n": n_edges}], f"bulk_graph made {made} of {n_edges} edges"  # (see test_init: index builds)
    return edges


def bulk_rows(edges: list[str], group: str) -> list[dict]:
    statuses = ["promoted", "corroborated", "candidate", "rejected"]
    return [row(f"c{i:05d}", u, statuses[i % 4], group) for i, u in enumerate(edges)]


def expected_state(rows: list[dict]) -> dict[str, float]:
    return {json.loads(r["evidence_refs_json"])[0]["evidence_id"]: TIERS[r["status"]]
            for r in rows if TIERS[r["status"]] is not None}
