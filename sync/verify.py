"""``graph-trust verify``: compare the graph with the review DB's desired state, exactly.

Reads every edge carrying trust (bucket by bucket) and every entity, never writes the graph.
Drift kinds: ``edge_missing_trust`` (a candidate gives the edge trust, the edge has none),
``edge_wrong_trust`` (score, status or memory_type/sensitivity/scope differ),
``edge_stale_trust`` (the edge has trust no candidate gives it), ``entity_wrong_trust``
(entity trust differs from the aggregate of its edges, or is missing), ``entity_stale_trust``
(the entity has trust but no edge carrying any). Unmatched candidates are counted, not drift.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from graph_trust.config import Settings
from graph_trust.sync import graphstate
from graph_trust.sync.aggregate import aggregate, same_score
from graph_trust.sync.desired import load_tiers, quarantined, refresh_candidates, source_for
from graph_trust.sync.heap import startup_objects_frozen
from graph_trust.sync.policy import policy_of
from graph_trust.sync.report import VerifyReport
from graph_trust.sync.review_db import ReviewDB
from graph_trust.sync.runner import graph_key
from graph_trust.sync.state import COMPARED_PROPS, EDGE_PROPS, StateStore
from graph_trust.sync.writer import edge_values, props_equal

KINDS = ("edge_missing_trust", "edge_wrong_trust", "edge_stale_trust", "entity_wrong_trust", "entity_stale_trust")


async def verify(settings: Settings, *, review_db: str | Path | None = None, graph: Any = None,
                 examples: int = 5) -> VerifyReport:
    """Drift between the graph and the review DB (``in_sync`` False when any is found)."""
    from graph_trust.connection import use_graph

    review = ReviewDB.open(review_db, settings.review)
    store = StateStore.for_settings(settings)
    try:
        async with use_graph(settings, graph) as g:
            with startup_objects_frozen():
                return await verify_graph(g, settings, store, review, examples)
    finally:
        review.close()
        store.close()


async def verify_graph(g: Any, settings: Settings, store: StateStore, review: ReviewDB, examples: int = 5) -> VerifyReport:
    t0 = time.monotonic()
    policy = policy_of(settings)
    gk = graph_key(g)
    source = source_for(review, gk)
    graphs = graphstate.Graphs(g)
    refresh_candidates(store, review, policy, graphs.name_for, source=source, graph_key=gk, full=False,
                       neo4j=g.dialect == "neo4j", default_graph=g.database)
    con = store.con
    load_tiers(con, policy)
    con.execute("DROP TABLE IF EXISTS temp.desired")
    con.execute("CREATE TEMP TABLE desired AS SELECT graph, uuid AS edge_uuid, trust_score AS score, "
                "trust_status AS status, memory_type, sensitivity, scope FROM sync_desired WHERE source = ?", (source,))
    con.execute("CREATE INDEX temp.desired_key ON desired (graph, edge_uuid)")
    con.execute("DROP TABLE IF EXISTS temp.actual")
    con.execute(f"CREATE TEMP TABLE actual (graph TEXT, uuid TEXT, {', '.join(EDGE_PROPS)}, PRIMARY KEY (graph, uuid))")
    names = sorted({r[0] for r in con.execute(
        "SELECT DISTINCT graph FROM temp.desired UNION SELECT DISTINCT graph FROM sync_shadow WHERE graph_key = ?",
        (gk,))} | {g.database})
    drift = dict.fromkeys(KINDS, 0)
    ex: dict[str, list[dict]] = {k: [] for k in KINDS}

    def note(kind: str, item: dict) -> None:
        drift[kind] += 1
        if len(ex[kind]) < examples:
            ex[kind].append(item)

    edges_checked = 0
    for graph in names:
        async for _, edges in graphstate.iter_trusted_edges(graphs(graph)):
            con.executemany(f"INSERT OR REPLACE INTO temp.actual VALUES (?, ?, {', '.join('?' for _ in EDGE_PROPS)})",
                            [(graph, e["uuid"], *edge_values(e).values()) for e in edges])
            edges_checked += len(edges)
    cols = ", ".join(f"a.{p}" for p in EDGE_PROPS)
    for row in con.execute(f"SELECT a.graph, a.uuid, {cols}, d.score, d.status, d.memory_type, d.sensitivity, d.scope "
                           "FROM temp.actual a LEFT JOIN temp.desired d ON d.graph = a.graph AND d.edge_uuid = a.uuid "
                           "ORDER BY a.graph, a.uuid"):
        graph, uuid = row[0], row[1]
        have = dict(zip(EDGE_PROPS, row[2:9]))
        want = dict(zip(COMPARED_PROPS, row[9:]))
        if want["trust_score"] is None:
            note("edge_stale_trust", {"graph": graph, "uuid": uuid, "have": have["trust_score"]})
        elif not props_equal(have, want, COMPARED_PROPS):
            note("edge_wrong_trust", {"graph": graph, "uuid": uuid,
                                      "have": {p: have[p] for p in COMPARED_PROPS}, "want": want})
    unmatched = 0
    missing = con.execute("SELECT d.graph, d.edge_uuid, d.score FROM temp.desired d WHERE NOT EXISTS "
                          "(SELECT 1 FROM temp.actual a WHERE a.graph = d.graph AND a.uuid = d.edge_uuid) "
                          "ORDER BY d.graph, d.edge_uuid").fetchall()
    for i in range(0, len(missing), 1000):
        chunk = missing[i:i + 1000]
        by_graph: dict[str, list] = {}
        for graph, uuid, score in chunk:
            by_graph.setdefault(graph, []).append((uuid, score))
        for graph, items in by_graph.items():
            found = {r["uuid"] for r in await graphs(graph).query("edge_uuids_exist", uuids=[u for u, _ in items])}
            for uuid, score in items:
                if uuid in found:
                    note("edge_missing_trust", {"graph": graph, "uuid": uuid, "want": score})
                else:
                    unmatched += 1
    entities_checked = 0
    method = settings.sync.aggregation
    for graph in names:
        async for rows in graphstate.iter_entity_inputs(graphs(graph)):
            for row in rows:
                entities_checked += 1
                want = aggregate(row.get("scores") or [], method)
                have = row.get("trust_score")
                if want is None and have is not None:
                    note("entity_stale_trust", {"graph": graph, "uuid": row["uuid"], "have": have})
                elif not same_score(want, None if have is None else float(have)):
                    note("entity_wrong_trust", {"graph": graph, "uuid": row["uuid"], "have": have, "want": want})
    qn, _ = quarantined(store, source, 0)
    return VerifyReport(graph=g.address.display, in_sync=not any(drift.values()), drift=drift, examples=ex,
                        edges_checked=edges_checked, entities_checked=entities_checked, unmatched_count=unmatched,
                        quarantined_count=qn, duration_s=round(time.monotonic() - t0, 3))
