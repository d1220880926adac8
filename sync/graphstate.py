"""What the graph holds: range scans, per-bucket checksums and the state store's shadow copy.

Edges and entities are read bucket by bucket (a bucket = uuids sharing their first
``PREFIX`` characters, read as the index range ``[p, next(p))``), so no read holds more than
one bucket. ``sync_shadow`` mirrors every edge carrying ``trust_score``. A normal run
compares per-bucket checksums (count, score sum, text length of the owned text properties)
computed by the graph with the same figures computed from the shadow, and re-reads only the
buckets that differ: manual edits and edges Graphiti re-saved are found at the cost of one
aggregate query per graph instead of reading every edge.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from typing import Any

from graph_trust.sync.state import EDGE_PROPS

PREFIX = 2          # edge buckets (checksums, drill-down): 256 for hex uuids
ENTITY_PREFIX = 1   # entity ranges of a full re-aggregation: 16 for hex uuids (fewer, larger queries)
SCORE_TOL = 1e-6


def bucket_range(prefix: str) -> tuple[str, str]:
    """The uuid range ``[lo, hi)`` of every string starting with ``prefix``."""
    return prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)


async def edge_checksums(gg: Any) -> dict[str, tuple[int, float, int]]:
    rows = await gg.query("edge_trust_checksums", prefix=PREFIX)
    return {r["bucket"]: (int(r["n"]), float(r["score_sum"] or 0.0), int(r["text_len"] or 0)) for r in rows}


def shadow_checksums(con: sqlite3.Connection, graph_key: str, graph: str) -> dict[str, tuple[int, float, int]]:
    rows = con.execute(
        f"SELECT substr(uuid, 1, {PREFIX}), count(*), total(trust_score), "
        "sum(length(coalesce(trust_status, '')) + length(coalesce(memory_type, '')) "
        "    + length(coalesce(sensitivity, '')) + length(coalesce(scope, ''))) "
        "FROM sync_shadow WHERE graph_key = ? AND graph = ? GROUP BY 1", (graph_key, graph))
    return {b: (n, s, t) for b, n, s, t in rows}


def differing_buckets(graph_sums: dict, shadow_sums: dict) -> list[str]:
    out = []
    for b in sorted(set(graph_sums) | set(shadow_sums)):
        g, s = graph_sums.get(b), shadow_sums.get(b)
        if g is None or s is None or g[0] != s[0] or g[2] != s[2] or abs(g[1] - s[1]) > SCORE_TOL * max(1, g[0]):
            out.append(b)
    return out


async def edges_in_bucket(gg: Any, bucket: str) -> list[dict]:
    lo, hi = bucket_range(bucket)
    return await gg.query("edges_with_trust", lo=lo, hi=hi)


async def iter_trusted_edges(gg: Any, buckets: list[str] | None = None) -> AsyncIterator[tuple[str, list[dict]]]:
    """``(bucket, edges)`` for the given buckets, or every bucket that holds a trusted edge."""
    if buckets is None:
        buckets = sorted(await edge_checksums(gg))
    for b in buckets:
        yield b, await edges_in_bucket(gg, b)


async def iter_entities(gg: Any) -> AsyncIterator[list[str]]:
    """Every Entity uuid of the graph, one bucket at a time."""
    rows = await gg.query("entity_buckets", prefix=PREFIX)
    for b in sorted(r["bucket"] for r in rows if r["bucket"] is not None):
        lo, hi = bucket_range(b)
        yield [r["uuid"] for r in await gg.query("entities_in_range", lo=lo, hi=hi)]


def replace_shadow_bucket(con: sqlite3.Connection, graph_key: str, graph: str, bucket: str, edges: list[dict]) -> None:
    """Make the shadow's rows of one bucket equal to ``edges`` (inside the caller's transaction)."""
    lo, hi = bucket_range(bucket)
    con.execute("DELETE FROM sync_shadow WHERE graph_key = ? AND graph = ? AND uuid >= ? AND uuid < ?",
                (graph_key, graph, lo, hi))
    upsert_shadow(con, graph_key, graph, edges)


SHADOW_UPSERT = (f"INSERT OR REPLACE INTO sync_shadow (graph_key, graph, uuid, {', '.join(EDGE_PROPS)}) "
                 f"VALUES (?, ?, ?, {', '.join('?' for _ in EDGE_PROPS)})")
SHADOW_DELETE = "DELETE FROM sync_shadow WHERE graph_key = ? AND graph = ? AND uuid = ?"


def upsert_shadow(con: sqlite3.Connection, graph_key: str, graph: str, edges: list[dict]) -> None:
    """Record edges' current trust properties; edges without trust_score leave the shadow."""
    keep = [e for e in edges if e.get("trust_score") is not None]
    drop = [e for e in edges if e.get("trust_score") is None]
    con.executemany(SHADOW_UPSERT, [(graph_key, graph, e["uuid"], *(_prop(e, p) for p in EDGE_PROPS)) for e in keep])
    con.executemany(SHADOW_DELETE, [(graph_key, graph, e["uuid"]) for e in drop])


def _prop(e: dict, p: str) -> Any:
    v = e.get(p)
    if v is None:
        return None
    if p == "trust_score":
        return float(v)
    return v if isinstance(v, str) else str(v)


class Graphs:
    """One connection per graph name, made once (FalkorDB clones a driver per group, which is
    not free: each clone also schedules Graphiti's index build)."""

    def __init__(self, g: Any):
        self.g = g
        self._by_name: dict[str, Any] = {g.database: g}

    def name_for(self, group_id: str | None) -> str:
        """The graph holding ``group_id`` (FalkorDB: its own graph, None -> default; Neo4j: the database)."""
        if self.g.dialect == "neo4j" or not group_id:
            return self.g.database
        return group_id

    def __call__(self, name: str) -> Any:
        if name not in self._by_name:
            self._by_name[name] = self.g.for_group(name)
        return self._by_name[name]
