"""``graph-trust verify``: compare the graph with the review DB's desired state, exactly.

Reads every review row (afresh, whatever ``updated_at`` says), every edge sync owns (carrying
``trust_score`` or ``trust_run_id``: labels set by hand on an edge with neither are not sync's) with
its endpoints (bucket by bucket), and the entities that hold trust; the entities' expected trust
is aggregated from those endpoints. Never writes the graph, nor sends anything to a group's graph
that does not exist (``unknown_groups``). Also names the review rows the state store's copy has
otherwise after verify brought it up to date (``missed_candidates``: the review DB changed meanwhile).
Drift kinds: ``edge_missing_trust`` (a candidate gives the edge trust or labels, sync does not own
it), ``edge_wrong_trust`` (score, status or memory_type/sensitivity/scope differ; a labels-only
edge holding a trust property), ``edge_stale_trust`` (sync owns the edge, no candidate gives it
trust or labels), ``entity_wrong_trust``
(entity trust differs from the aggregate of its edges, or is missing), ``entity_stale_trust``
(the entity has trust but no edge carrying any). Unmatched candidates are counted, not drift;
so are the guard's ``trusted_invalidated`` edges (:mod:`~graph_trust.sync.guard`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from graph_trust.config import Settings
from graph_trust.graph.connection import use_graph
from graph_trust.graph.routing import Graphs
from graph_trust.sync import graphstate, guard
from graph_trust.sync.aggregate import aggregate, same_score
from graph_trust.sync.confidence.trust import blend_of
from graph_trust.sync.desired import ReviewSource, exact_candidates, refresh_candidates, source_for
from graph_trust.sync.gc_freeze import startup_objects_frozen
from graph_trust.sync.policy import policy_of
from graph_trust.sync.report import REPORT_LIMIT, VerifyReport
from graph_trust.sync.review_db import ReviewDB
from graph_trust.sync.runs.identity import graph_key
from graph_trust.sync.store.named import run, run_many
from graph_trust.sync.store.run_tables import RunTables
from graph_trust.sync.store.state import COMPARED_PROPS, EDGE_PROPS, StateStore
from graph_trust.sync.writer import edge_values, props_equal

# The columns of a parsed review row (besides its id) that decide what sync writes.
KINDS = ("edge_missing_trust", "edge_wrong_trust", "edge_stale_trust", "entity_wrong_trust", "entity_stale_trust")


async def verify(settings: Settings, *, review_db: str | Path | None = None, graph: Any = None,
                 examples: int = 5) -> VerifyReport:
    """Drift between the graph and the review DB (``in_sync`` False when any is found)."""
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
    graph_id = graph_key(g)
    source = source_for(review, graph_id)
    graphs = await Graphs.open(g)  # (a group with no graph is read as empty, never created)
    src = ReviewSource(review, policy, graphs.name_for, source, shared_graph=not g.backend.graph_per_group,
                       default_graph=g.database, blend=blend_of(settings))  # (confidence: as the last sync scored it)
    # what the next normal sync will work from (its incremental copy) ...
    refresh_candidates(store, src, graph_key=graph_id, full=False)
    con = store.con
    # ... and the review DB as it is
    missed, quarantined = _read_review_db(store, src)
    names = ({r[0] for r in run(con, "exact_desired_graphs")} | {g.database} |
             {r[0] for r in run(con, "shadow_graphs", {"graph_key": graph_id})})
    unknown = graphs.absent(r[0] for r in run(con, "review_rows_graphs"))
    found = _Findings(examples)
    edges_checked, unmatched = await _check_edges(con, graphs, names, found)
    entities_checked = await _check_entities(con, graphs, names, settings.sync.aggregation, found)
    invalidated = (await guard.find(store, graphs, sorted(names), "review", src.key, settings)
                   if settings.guard.enabled else [])
    return VerifyReport(graph=g.address.display, in_sync=not any(found.drift.values()), drift=found.drift,
                        examples=found.examples, edges_checked=edges_checked, entities_checked=entities_checked,
                        unmatched_count=unmatched, unknown_groups=unknown[:REPORT_LIMIT],
                        quarantined_count=quarantined, missed_candidates=len(missed),
                        missed_candidate_ids=missed[:examples], trusted_invalidated_count=len(invalidated),
                        trusted_invalidated=[guard.report_item(i) for i in invalidated[:REPORT_LIMIT]],
                        duration_s=round(time.monotonic() - t0, 3))


class _Findings:
    """Drift counts by kind, with up to ``examples`` examples each."""

    def __init__(self, examples: int) -> None:
        self.limit = examples
        self.drift = dict.fromkeys(KINDS, 0)
        self.examples: dict[str, list[dict]] = {k: [] for k in KINDS}

    def note(self, kind: str, item: dict) -> None:
        self.drift[kind] += 1
        if len(self.examples[kind]) < self.limit:
            self.examples[kind].append(item)


def _read_review_db(store: StateStore, src: ReviewSource) -> tuple[list[str], int]:
    """``temp.review_rows`` and ``temp.desired`` from the review DB as it is; returns the ids of the
    rows the state store's copy has otherwise (none, unless the review DB changed since the copy's
    refresh) and how many rows are quarantined."""
    exact_candidates(store, src)
    missed = [r[0] for r in store.rows("copy_differs", s=src.key)]
    return missed, store.one("review_rows_quarantined")


class _Aggregate:
    """:func:`aggregate` as an SQLite aggregate function (``create_aggregate``)."""

    method = "max"

    @classmethod
    def of(cls, method: str) -> type:
        return type("_Aggregate_" + method, (cls,), {"method": method})

    def __init__(self) -> None:
        self.scores: list[float] = []

    def step(self, score: float | None) -> None:
        self.scores.append(score)

    def finalize(self) -> float | None:
        return aggregate(self.scores, self.method)


async def _check_entities(con, graphs: Graphs, names: set[str], method: str, found: _Findings) -> int:
    """Every entity of ``names`` against the aggregate of the trusted edges touching it (from the
    endpoints ``_check_edges`` read into ``temp.actual``; an edge counts once, a self-loop too);
    returns how many entities the graphs hold. Only entities that hold trust are read (uuid range by
    range); those that should hold some and do not are looked up by uuid."""
    checked = 0
    for graph in sorted(names):
        graph_conn = graphs(graph)
        con.create_aggregate("trust_aggregate", 1, _Aggregate.of(method))
        RunTables(con).new_want_and_have(graph)
        buckets = await graphstate.entity_bucket_counts(graph_conn)
        checked += sum(buckets.values())
        for b in buckets:
            lo, hi = graphstate.bucket_range(b)
            run_many(con, "note_have", [(r["uuid"], r["trust_score"]) for r in
                             await graph_conn.query("entities_with_trust_in_range", lo=lo, hi=hi)])
        for uuid, have, want in run(con, "have_and_want").fetchall():
            if want is None:
                found.note("entity_stale_trust", {"graph": graph, "uuid": uuid, "have": have})
            elif not same_score(want, float(have)):
                found.note("entity_wrong_trust", {"graph": graph, "uuid": uuid, "have": have, "want": want})
        lacking = run(con, "want_lacking").fetchall()
        for i in range(0, len(lacking), 1000):  # (an endpoint that is not an Entity node is no drift)
            chunk = dict(lacking[i:i + 1000])
            for r in await graph_conn.query("entity_trust_inputs", uuids=list(chunk)):
                found.note("entity_wrong_trust", {"graph": graph, "uuid": r["uuid"], "have": None,
                                                  "want": chunk[r["uuid"]]})
    return checked


async def _check_edges(con, graphs: Graphs, names: set[str], found: _Findings) -> tuple[int, int]:
    """Every edge of ``names`` sync owns against ``temp.desired`` (a labels-only edge: no trust
    property, the labels of all its rows), and every desired edge sync does not own; returns (edges
    checked, scored candidates whose edge the graph does not have: what sync reports as unmatched)."""
    RunTables(con).new_actual()
    checked = 0
    for graph in sorted(names):
        async for _, edges in graphstate.iter_trusted_edges(graphs(graph)):
            run_many(con, "note_actual", [(graph, e["uuid"], *edge_values(e).values(), e.get("source_uuid"), e.get("target_uuid"))
                             for e in edges])
            checked += len(edges)
    # SQLite keeps the rows that may differ (values compared as stored: a superset of what
    # props_equal, which compares text, finds); Python decides on those few
    for row in run(con, "actual_differs"):
        graph, uuid = row[0], row[1]
        have = dict(zip(EDGE_PROPS, row[2:9]))
        want = dict(zip(COMPARED_PROPS, row[9:14]))
        if not row[14]:  # no row gives it trust or labels
            found.note("edge_stale_trust", {"graph": graph, "uuid": uuid, "have": have["trust_score"]})
        elif not props_equal(have, want, COMPARED_PROPS):
            found.note("edge_wrong_trust", {"graph": graph, "uuid": uuid,
                                            "have": {p: have[p] for p in COMPARED_PROPS}, "want": want})
    unmatched: list[tuple[str, str]] = []
    missing = run(con, "desired_missing").fetchall()
    for i in range(0, len(missing), 1000):
        by_graph: dict[str, list] = {}
        for graph, uuid, score in missing[i:i + 1000]:
            by_graph.setdefault(graph, []).append((uuid, score))
        for graph, items in by_graph.items():
            have = {r["uuid"] for r in await graphs(graph).query("edge_uuids_exist", uuids=[u for u, _ in items])}
            for uuid, score in items:
                if uuid in have:
                    found.note("edge_missing_trust", {"graph": graph, "uuid": uuid, "want": score})
                else:
                    unmatched.append((graph, uuid))
    if not unmatched:
        return checked, 0
    RunTables(con).new_unmatched_edges(unmatched)
    candidates = run(con, "unmatched_scored_rows").fetchone()[0]
    return checked, candidates
