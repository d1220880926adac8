"""Step 4's writes (:mod:`~graph_trust.sync.runner`): the run's diff (``temp.work``) written in
journaled batches, pipelined: batch k+1 is read, compared and journaled while batch k's write
runs (each batch is journaled before its own write starts; up to ``PIPELINE_DEPTH`` in flight)."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from typing import Any

from graph_trust.graph.routing import Graphs
from graph_trust.sync import graphstate
from graph_trust.sync.overlap import PIPELINE_DEPTH, started
from graph_trust.sync.report import SyncReport
from graph_trust.sync.store.run_tables import RunTables
from graph_trust.sync.store.state import EDGE_PROPS, StateStore
from graph_trust.sync.work import WorkTable
from graph_trust.sync.writer import (
    Change,
    JournaledWriter,
    edge_values,
    landed,
    props_equal,
    recover,
    write_edge_rows,
    write_edges,
)

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int | None], None]
# Candidates per range of a run that compares every edge (see WorkTable.stream): the first
# writes start after one range is computed, and SQLite works on the next while they run.
RANGE_CANDIDATES = 2000
_COMPARED = ("trust_score", "trust_status", "memory_type", "sensitivity", "scope")


class EdgePhase:
    """The edge writes of one run (``report`` counts them; ``written`` per graph)."""

    def __init__(self, store: StateStore, tables: RunTables, work: WorkTable, writer: JournaledWriter,
                 report: SyncReport, graph_key: str, batch_size: int, progress: Progress, now: str) -> None:
        self.store, self.tables, self.work, self.writer = store, tables, work, writer
        self.report, self.graph_key, self.batch_size, self.progress, self.now = (report, graph_key, batch_size,
                                                                                 progress, now)
        self.graphs: Graphs | None = None
        self._inflight: deque[tuple] = deque()  # (write task, settle(matched), rows) of the batches in flight
        self._total: int | None = None  # rows of temp.work (when built up front)
        self._reported = 0  # work rows reported to ``progress``
        self.written: dict[str, int] = {}  # graph -> edges this run wrote (set or cleared)

    async def abandon(self) -> None:
        """After a failure: let the writes in flight finish (their settles are left to recovery)."""
        await asyncio.gather(*(item[0] for item in self._inflight), return_exceptions=True)
        self._inflight.clear()

    async def write(self, graphs: Graphs, names: list[str], *, full: bool, everything: bool) -> None:
        """Write ``temp.work`` in batches (``everything``: range by range as it is computed)."""
        self.graphs = graphs
        batches: list[tuple[str, list[tuple]]] = []
        pending: list[tuple] = []
        if everything:
            self._total = self.work.stream_bound()  # (the bar completes at the end)
        for rows in (self.work.stream(names, RANGE_CANDIDATES) if everything else self.work.rows()):
            batches.clear()
            for row in rows:
                if pending and (row[1] != pending[0][1] or len(pending) >= self.batch_size):
                    batches.append((pending[0][1], pending))
                    pending = []
                pending.append(row)
            for graph, batch in batches:
                await self._edge_batch(graph, batch, full=full)
        if pending:
            await self._edge_batch(pending[0][1], pending, full=full)
        await self._in_flight(0)
        self.writer.flush()
        if self._total is not None and self._reported < self._total:  # streamed: the total was an upper bound
            self.progress("edges", self._total - self._reported, self._total)

    async def _in_flight(self, limit: int) -> None:
        """Settle the oldest batches in flight until at most ``limit`` remain."""
        while len(self._inflight) > limit:
            task, settle, n_rows = self._inflight[0]
            settle(await landed(task))  # Ctrl-C meanwhile: the write finishes first
            self._inflight.popleft()
            self._progress_rows(n_rows)

    def _progress_rows(self, n: int) -> None:
        """Progress of the edge phase in work rows."""
        if self._total is None:
            self._total = self.tables.work_rows()
        self._reported += n
        self.progress("edges", n, self._total)

    def _count(self, graph: str, applied: list[Change], missing: list[str]) -> None:
        cleared = sum(1 for ch in applied if ch.new["trust_score"] is None)
        self._tally(graph, len(applied) - cleared, cleared, missing)

    def _tally(self, graph: str, n_set: int, n_cleared: int, missing: list[str]) -> None:
        self.report.edges_set += n_set
        self.report.edges_cleared += n_cleared
        self.written[graph] = self.written.get(graph, 0) + n_set + n_cleared
        if missing:
            self.tables.note_unmatched(graph, missing)

    async def _full_edge_batch(self, graph: str, rows: list[tuple]) -> None:
        """``--full``: SQLite journals the batch straight from ``temp.work`` and settles it from
        there (no per-edge Python but the write's parameters); rows are ``(rowid, graph, uuid, ...)``."""
        graph_conn = self.graphs(graph)
        lo, hi = rows[0][0], rows[-1][0]
        run_id, now = self.report.run_id, self.now
        batch_no = self.writer.begin_work_edges(graph, lo, hi, now)  # journaled before the write starts
        sets = [new_values(row[3:], run_id, now) | {"uuid": row[2]} for row in rows if not _clears(row[3:])]
        clears = [row[2] for row in rows if _clears(row[3:])]
        task = await started(write_edge_rows(graph_conn, sets, clears))

        def settle(matched: set[str]) -> None:
            missing = [row[2] for row in rows if row[2] not in matched]
            self.writer.finish_work_edges(graph, batch_no, lo, hi, missing, now)
            gone = set(missing)
            n_cleared = sum(1 for row in rows if row[3] is None and row[2] not in gone)
            self._tally(graph, len(rows) - len(missing) - n_cleared, n_cleared, missing)

        self._inflight.append((task, settle, len(rows)))
        await self._in_flight(PIPELINE_DEPTH)  # settle older batches while this one is written

    async def _edge_batch(self, graph: str, rows: list[tuple], *, full: bool) -> None:
        r = self.report
        if not self.graphs.exists(graph):  # no such graph (group): nothing to write, nothing sent
            self._tally(graph, 0, 0, [row[2] for row in rows])
            self._progress_rows(len(rows))
            return
        if full and not r.dry_run:
            return await self._full_edge_batch(graph, rows)
        rows = [row[1:] for row in rows]  # (graph, uuid, trust_score, ...)
        graph_conn = self.graphs(graph)
        uuids = [row[1] for row in rows]
        if full:  # a dry run: nothing is journaled
            current = None
        else:  # read back: existence, endpoints and exact previous values
            current = {e["uuid"]: e for e in await graph_conn.query("edge_trust_read", uuids=uuids)}
            with self.store.tx() as c:  # the shadow follows what was read
                graphstate.upsert_shadow(c, self.graph_key, graph, list(current.values()))
        changes, missing = [], []
        for row in rows:
            new = new_values(row[2:], r.run_id, self.now)
            if current is not None:
                cur = current.get(row[1])
                if cur is None:
                    missing.append(row[1])
                    continue
                before = edge_values(cur)
                # nothing to write: the same values on an edge sync owns (hand labels equal to a
                # labels-only row's are still written, with the run id, so its rows decide them from
                # now on), or a clear of an edge sync does not own (what someone else set stays)
                if (props_equal(before, new, _COMPARED) and graphstate.owned(before) if graphstate.owned(new)
                        else not graphstate.owned(before)):
                    r.edges_unchanged += new["trust_score"] is not None
                    continue
                changes.append(Change(row[1], before, new, (cur.get("source_uuid"), cur.get("target_uuid"))))
            else:
                changes.append(Change(row[1], {}, new))
        if r.dry_run:
            if current is None:
                found = {x["uuid"] for x in await graph_conn.query("edge_uuids_exist", uuids=uuids)}
                missing += [c.uuid for c in changes if c.uuid not in found]
                changes = [c for c in changes if c.uuid in found]
            self._count(graph, changes, missing)
            self._progress_rows(len(rows))
            return
        self._count(graph, [], missing)
        if not changes:
            self._progress_rows(len(rows))
            return
        batch_no = self.writer.begin_edges(graph, changes)  # journaled before the write starts
        task = await started(write_edges(graph_conn, changes))

        def settle(matched: set[str]) -> None:
            res = self.writer.finish_edges(graph, batch_no, changes, matched, mark_dirty=True, defer=True)
            self._count(graph, res.applied, [c.uuid for c in res.missing])

        self._inflight.append((task, settle, len(rows)))
        await self._in_flight(PIPELINE_DEPTH)  # settle older batches while this one is written


def _clears(work: tuple) -> bool:
    """Whether a work row (trust_score, trust_status, memory_type, sensitivity, scope) leaves its edge
    with no owned property (else it sets trust, or labels only)."""
    return work[0] is None and work[3] is None and work[4] is None


def new_values(work: tuple, run_id: str, now: str) -> dict:
    """Every owned property an edge gets from a work row (trust_score, trust_status, memory_type,
    sensitivity, scope): its trust with this run's id and time; a labels-only row (no trust_score)
    its sensitivity and scope with this run's id and time (the mark that sync owns them) and no
    trust; a clearing row nothing."""
    score, status, memory_type, sensitivity, scope = work[:5]
    if score is None and sensitivity is None and scope is None:
        return dict.fromkeys(EDGE_PROPS)
    if score is None:
        return {**dict.fromkeys(EDGE_PROPS), "trust_run_id": run_id, "trust_updated_at": now,
                "sensitivity": sensitivity, "scope": scope}
    return {"trust_score": score, "trust_status": status, "trust_run_id": run_id, "trust_updated_at": now,
            "memory_type": memory_type, "sensitivity": sensitivity, "scope": scope}


async def settle_after_failure(edges: EdgePhase, entities: Any, writer: JournaledWriter, store: StateStore,
                               graphs: Graphs, graph_key: str) -> None:
    """Best effort, after a run failed: let the writes in flight finish, then settle the run's
    pending batches now (the next run does it otherwise)."""
    await edges.abandon()
    try:  # the settles of batches whose writes completed (else recover reads them back)
        writer.flush()
    except Exception as exc:  # noqa: BLE001 - e.g. the state store is the problem
        log.info("could not commit the deferred settles (%r); recovery reads the graph instead", exc)
    await entities.abandon()  # the markers of ranges in flight stay pending: recover settles them
    try:
        await asyncio.wait_for(recover(store, graphs, graph_key), timeout=10)
    except BaseException as exc:  # noqa: BLE001 - the graph may be gone; the journal stays pending
        log.info("could not settle the pending batch now (%r); the next run will", exc)


__all__ = ["EdgePhase", "RANGE_CANDIDATES", "settle_after_failure"]
