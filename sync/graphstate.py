"""What the graph holds: range scans, per-bucket checksums and the state store's shadow copy.

Edges and entities are read bucket by bucket (a bucket = uuids sharing their first
``PREFIX`` characters, read as the index range ``[p, next(p))``), so no read holds more than
one bucket. ``sync_shadow`` mirrors every edge sync owns: carrying ``trust_score`` or
``trust_run_id`` (a labels-only edge, whose rows all have an unscored status, keeps the run id of
its labels and no score; labels set by hand on an edge with neither are not sync's). A normal run finds
drift (manual edits, edges Graphiti re-saved) without reading every edge: the graph computes
whole-graph totals (count and score sum per distinct combination of the owned text
properties) and the state store the same from the shadow; only when they differ are the
per-bucket figures compared, and only the buckets that differ are re-read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from typing import Any

from graph_trust.sync.store.named import run, run_many
from graph_trust.sync.store.state import EDGE_PROPS, ENDPOINTS

PREFIX = 2          # edge buckets (checksums, drill-down): 256 for hex uuids
ENTITY_PREFIX = 1   # entity ranges of a full re-aggregation: 16 for hex uuids (fewer, larger queries)
SCORE_TOL = 1e-6
# Sync owns an edge (it is in the shadow, the graph's checksums and scans) when it holds one of these.
OWNED_BY = ("trust_score", "trust_run_id")


def bucket_range(prefix: str) -> tuple[str, str]:
    """The uuid range ``[lo, hi)`` of every string starting with ``prefix``."""
    return prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)


# Checksums: {key: (count, score sum)} of the trusted edges, one key per distinct combination of
# the owned text properties (as the shadow records them: text or None), per bucket or in total.
# Any change of a score, of an owned text value or of which edges carry trust moves a figure.
_TEXT_PROPS = ("trust_status", "memory_type", "sensitivity", "scope")
Sums = dict[tuple, tuple[int, float]]


def _sums(rows, key_of) -> Sums:
    out: Sums = {}
    for r in rows:
        key = key_of(r)
        n, s = out.get(key, (0, 0.0))  # graph values with one text (e.g. 3 and "3") share a key
        out[key] = (n + int(r["n"]), s + float(r["score_sum"] or 0.0))
    return out


async def edge_checksums(graph_conn: Any) -> Sums:
    """Per bucket: keys ``(bucket, trust_status, memory_type, sensitivity, scope)``."""
    rows = await graph_conn.query("edge_trust_checksums", prefix=PREFIX)
    return _sums(rows, lambda r: (r["bucket"], *(_prop(r, p) for p in _TEXT_PROPS)))


async def edge_totals(graph_conn: Any) -> Sums:
    """Whole graph: keys ``(trust_status, memory_type, sensitivity, scope)``."""
    return _sums(await graph_conn.query("edge_trust_totals"), lambda r: tuple(_prop(r, p) for p in _TEXT_PROPS))


def shadow_checksums(con: sqlite3.Connection, graph_key: str, graph: str) -> Sums:
    rows = run(con, "shadow_checksums", {"prefix": PREFIX, "graph_key": graph_key, "graph": graph})
    return {tuple(r[:5]): (r[5], r[6]) for r in rows}


def shadow_totals(con: sqlite3.Connection, graph_key: str, graph: str) -> Sums:
    rows = run(con, "shadow_totals", {"graph_key": graph_key, "graph": graph})
    return {tuple(r[:4]): (r[4], r[5]) for r in rows}


def _differs(a: tuple[int, float] | None, b: tuple[int, float] | None) -> bool:
    return a is None or b is None or a[0] != b[0] or abs(a[1] - b[1]) > SCORE_TOL * max(1, a[0])


def totals_match(graph_totals: Sums, own: Sums) -> bool:
    return not any(_differs(graph_totals.get(k), own.get(k)) for k in graph_totals.keys() | own.keys())


def buckets_of(sums: Sums) -> set[str]:
    return {k[0] for k in sums}


def differing_buckets(graph_sums: Sums, shadow_sums: Sums) -> list[str]:
    return sorted({k[0] for k in graph_sums.keys() | shadow_sums.keys()
                   if _differs(graph_sums.get(k), shadow_sums.get(k))})


async def edges_in_bucket(graph_conn: Any, bucket: str) -> list[dict]:
    lo, hi = bucket_range(bucket)
    return await graph_conn.query("edges_with_trust", lo=lo, hi=hi)


async def iter_trusted_edges(graph_conn: Any, buckets: list[str] | None = None) -> AsyncIterator[tuple[str, list[dict]]]:
    """``(bucket, edges)`` for the given buckets, or every bucket that holds a trusted edge."""
    if buckets is None:
        buckets = sorted(buckets_of(await edge_checksums(graph_conn)))
    for b in buckets:
        yield b, await edges_in_bucket(graph_conn, b)


async def entity_bucket_counts(graph_conn: Any) -> dict[str, int]:
    """How many entities fall in each uuid range (first ``ENTITY_PREFIX`` characters), in order."""
    rows = await graph_conn.query("entity_buckets", prefix=ENTITY_PREFIX)
    return dict(sorted((r["bucket"], r["n"]) for r in rows if r["bucket"] is not None))


async def entity_buckets(graph_conn: Any) -> list[str]:
    """The uuid ranges (first ``ENTITY_PREFIX`` characters) the graph's entities fall in."""
    return list(await entity_bucket_counts(graph_conn))


def replace_shadow_bucket(con: sqlite3.Connection, graph_key: str, graph: str, bucket: str, edges: list[dict]) -> None:
    """Make the shadow's rows of one bucket equal to ``edges`` (inside the caller's transaction)."""
    lo, hi = bucket_range(bucket)
    run(con, "drop_shadow_range", {"graph_key": graph_key, "graph": graph, "lo": lo, "hi": hi})
    upsert_shadow(con, graph_key, graph, edges)


_SHADOW_COLS = (*EDGE_PROPS, *ENDPOINTS)


def owned(e: dict) -> bool:
    """Whether sync owns this edge, so the shadow mirrors it (as ``edges_with_trust`` selects them):
    it carries a trust_score, or the trust_run_id of the run that wrote its labels (a labels-only
    edge). Labels without either were set by someone else and are left alone."""
    return any(e.get(p) is not None for p in OWNED_BY)


def upsert_shadow(con: sqlite3.Connection, graph_key: str, graph: str, edges: list[dict]) -> None:
    """Record edges' current trust properties (and endpoints, where ``edges`` has them, as the
    graph's reads do); edges sync does not own leave the shadow."""
    keep = [e for e in edges if owned(e)]
    drop = [e for e in edges if not owned(e)]
    run_many(con, "upsert_shadow", [(graph_key, graph, e["uuid"], *(_prop(e, p) for p in _SHADOW_COLS)) for e in keep])
    run_many(con, "drop_shadow_edge", [(graph_key, graph, e["uuid"]) for e in drop])


def _prop(e: dict, p: str) -> Any:
    v = e.get(p)
    if v is None:
        return None
    if p == "trust_score":
        return float(v)
    return v if isinstance(v, str) else str(v)
