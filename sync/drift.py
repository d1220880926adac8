"""Drift: edges whose trust properties changed in the graph behind sync's back (manual edits,
edges Graphiti re-saved). When a re-read bucket differs from the shadow, :func:`absorb_drift`
records what healing it needs (edges to compare again, entities to re-aggregate) before the
shadow takes the graph's values."""

from __future__ import annotations

import sqlite3
from typing import Any

from graph_trust.sync.aggregate import same_score
from graph_trust.sync.desired import touch_edges
from graph_trust.sync.graphstate import bucket_range
from graph_trust.sync.store.named import run
from graph_trust.sync.store.state import EDGE_PROPS, ENDPOINTS
from graph_trust.sync.writer import edge_values, mark_entities_dirty, props_equal


async def endpoints_of_untrusted(con: sqlite3.Connection, graph_conn: Any, graph_key: str, graph: str, bucket: str,
                                  edges: list[dict]) -> dict[str, tuple[str, str]]:
    """Endpoints of the shadow's edges in ``bucket`` that no longer carry trust (``edges`` are
    those that do) and have none on record: read from the graph, for those it still has."""
    lo, hi = bucket_range(bucket)
    trusted = {e["uuid"] for e in edges}
    lost = [u for (u,) in run(
        con, "shadow_edges_without_ends", {"graph_key": graph_key, "graph": graph, "lo": lo, "hi": hi}) if u not in trusted]
    if not lost:
        return {}
    return {r["uuid"]: (r["source_uuid"], r["target_uuid"]) for r in await graph_conn.query("edge_trust_read", uuids=lost)}


def absorb_drift(c: sqlite3.Connection, graph_key: str, source: str, graph: str, bucket: str, edges: list[dict],
                  ends_read: dict[str, tuple[str, str]]) -> int:
    """Before a re-read bucket replaces the shadow's: record what its drift needs and return how
    many edges differ (drift found and healed). The bucket's edges are marked touched, so this
    run compares them, or the next one after a dry run or a crash (the shadow no longer shows
    the drift). The entities at the ends of edges whose trust_score (or endpoints) changed, or
    that left the graph, are marked for re-aggregation (endpoints as recorded, else
    ``ends_read``); an edge that left the graph with no endpoints on record (its trust first set
    by a ``--full`` run) has every entity re-aggregated instead."""
    lo, hi = bucket_range(bucket)
    cols = (*EDGE_PROPS, *ENDPOINTS)
    where = {"graph_key": graph_key, "graph": graph, "lo": lo, "hi": hi}
    shadow = {row[0]: dict(zip(cols, row[1:], strict=True)) for row in run(c, "shadow_in_range", where)}
    for u, pair in ends_read.items():
        if u in shadow and None in (shadow[u]["source_uuid"], shadow[u]["target_uuid"]):
            shadow[u].update(zip(ENDPOINTS, pair))
    now = {e["uuid"]: e for e in edges}
    n, ends, unknown = 0, set(), False
    for u in shadow.keys() | now.keys():
        was, cur = shadow.get(u), now.get(u)
        if was is not None and cur is not None:
            values = edge_values(cur)
            n += not props_equal(values, was, EDGE_PROPS)
            moved = any(was[p] is not None and cur.get(p) != was[p] for p in ENDPOINTS)
            if not moved and same_score(values["trust_score"], was["trust_score"]):
                continue  # at most owned text drifted: no entity's aggregate depends on it
        else:
            n += 1
            unknown |= cur is None and None in (was["source_uuid"], was["target_uuid"])
        ends.update(row.get(p) for row in (was, cur) if row is not None for p in ENDPOINTS)
    desired = {u for (u,) in run(c, "desired_in_range", {"source": source, "graph": graph, "lo": lo, "hi": hi})}
    touch_edges(c, graph_key, graph, sorted(shadow.keys() | now.keys() | desired))
    mark_entities_dirty(c, graph_key, graph, sorted(u for u in ends if u is not None))
    if unknown:
        run(c, "mark_aggregate_all", {"graph_key": graph_key})
    return n
