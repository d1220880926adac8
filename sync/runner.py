"""Python entry points of the nightly sync: ``run_sync``, ``sync_graph``.

One run, holding the graph's sync lock (:mod:`~graph_trust.sync.lock`):

1. settle what a dead run left (:mod:`~graph_trust.sync.recovery`);
2. refresh the state store's copy of the review DB (changed rows only, or all with ``full``;
   :mod:`~graph_trust.sync.desired`);
3. refresh the shadow of what the graph holds: per-bucket checksums, re-reading buckets that
   differ (a full scan with ``full`` or the first time a graph is seen;
   :mod:`~graph_trust.sync.graphstate`, drift in :mod:`~graph_trust.sync.drift`);
4. compute, in SQLite, the edges whose desired trust differs from what they hold
   (:mod:`~graph_trust.sync.work`), and write them in journaled batches, pipelined
   (:mod:`~graph_trust.sync.writer`; when every edge is compared, the desired trust is
   computed one uuid range at a time, the next while the previous is written);
5. the guard (:mod:`~graph_trust.sync.guard`): report trusted edges Graphiti invalidated, record
   them for review, restore them with ``guard.restore_trusted``;
6. re-aggregate entity trust for entities touching changed edges (every entity with ``full``,
   or when a ``full`` run stopped before this step; :mod:`~graph_trust.sync.entity_trust`);
7. re-measure the recall of the vector indexes of graphs large enough for search to use them
   where the run wrote more than ``vector_index.recheck_share`` of their edges (a written edge is
   re-added to the index), or the measurement is missing or stale
   (:mod:`graph_trust.graph.index_recall`; a failure there is reported, not fatal).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from graph_trust.config import Settings
from graph_trust.errors import ClearLimitError, GraphTrustError, RunFailedError
from graph_trust.graph import index_recall
from graph_trust.graph.connection import use_graph
from graph_trust.graph.recall_store import RecallStore
from graph_trust.graph.routing import Graphs
from graph_trust.graph.schema import ensure_uuid_indexes
from graph_trust.sync import graphstate
from graph_trust.sync.confidence.trust import blend_of, score_all, store_confidence
from graph_trust.sync.desired import (EDGE_ROWS, QUARANTINED_ROWS, ReviewSource, full_diff_done, load_tiers,
                                      quarantined, refresh_candidates, source_for)
from graph_trust.sync.drift import absorb_drift, endpoints_of_untrusted
from graph_trust.sync.entity_trust import EntityAggregation
from graph_trust.sync import guard, trust_tokens
from graph_trust.sync.gc_freeze import startup_objects_frozen
from graph_trust.access.sensitivity import scale_of
from graph_trust.sync.labels import unknown_sensitivity
from graph_trust.sync.lock import sync_lock
from graph_trust.sync.overlap import PIPELINE_DEPTH, in_thread, started
from graph_trust.sync.policy import policy_of
from graph_trust.sync.recovery import recover_dead_runs
from graph_trust.sync.report import (GUARD_HINT, RELINK_HINT, REPORT_LIMIT, RUN_COUNTERS, SyncReport,
                                     unknown_groups_hint)
from graph_trust.sync.review_db import ReviewDB
from graph_trust.review import log as retrieval_log
from graph_trust.sync.run_identity import config_hash, graph_key
from graph_trust.sync.state import EDGE_PROPS, StateStore, distinct_graphs, now_iso
from graph_trust.sync.work import WorkTable
from graph_trust.sync.writer import (FOREIGN_PROPS_TABLE, Change, JournaledWriter, edge_values, landed, props_equal,
                                     recover, write_edge_rows, write_edges)

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int | None], None]


# Candidates per range of a run that compares every edge (see WorkTable.stream): the first
# writes start after one range is computed, and SQLite works on the next while they run.
RANGE_CANDIDATES = 2000


def _noop(phase: str, n: int, total: int | None) -> None:
    pass


async def run_sync(settings: Settings, *, review_db: str | Path | None = None, dry_run: bool = False,
                   full: bool = False, batch_size: int | None = None, progress: Progress | None = None,
                   graph: Any = None) -> SyncReport:
    """Sync the review DB's decisions onto the graph in ``settings`` (or the open ``graph``)."""
    review = ReviewDB.open(review_db, settings.review)
    store = StateStore.for_settings(settings)
    try:
        async with use_graph(settings, graph) as g:
            return await sync_graph(g, settings, store, review, dry_run=dry_run, full=full,
                                    batch_size=batch_size, progress=progress)
    finally:
        review.close()
        store.close()


async def sync_demo(settings: Settings, review_db: str | Path, graph: Any = None) -> SyncReport:
    """The demo's sync over its bundled review DB (a full run)."""
    return await run_sync(settings, review_db=review_db, full=True, graph=graph)


async def sync_graph(g: Any, settings: Settings, store: StateStore, review: ReviewDB, *, dry_run: bool = False,
                     full: bool = False, batch_size: int | None = None,
                     progress: Progress | None = None) -> SyncReport:
    key = graph_key(g)
    with sync_lock(settings.state_dir, key, g.address.display) as lock, startup_objects_frozen():
        recovered = await recover_dead_runs(store, g, key)
        run_id, _ = store.start_run(kind="sync", graph_key=key, graph=g.address.display, dry_run=dry_run, full=full,
                                    config_hash=config_hash(settings), pid=os.getpid())
        report = SyncReport(run_id=run_id, graph=g.address.display, dry_run=dry_run, full=full,
                            recovered_journal_rows=recovered, lock_takeover_pid=lock.took_over_pid)
        job = _SyncJob(g, settings, store, review, report, key, batch_size or settings.sync.batch_size,
                       progress or _noop)
        t0 = time.monotonic()
        checkpoint = store.checkpoint_in_background()  # the previous runs' log, while this one reads
        try:
            await job.run()
        except (asyncio.CancelledError, KeyboardInterrupt) as exc:
            await job.settle_after_failure()
            report.status = "interrupted"
            store.finish_run(run_id, "interrupted", job.counts(), error="interrupted")
            raise RunFailedError(
                f"sync run {run_id} was interrupted after {job.writer.batches} batch(es); every applied batch is "
                f"journaled: run `graph-trust sync` again to converge, or `graph-trust rollback {run_id}`") from exc
        except Exception as exc:
            await job.settle_after_failure()
            report.status = "failed"
            msg = str(exc) or type(exc).__name__
            store.finish_run(run_id, "failed", job.counts(), error=msg)
            if job.writer.batches == 0 and isinstance(exc, GraphTrustError):
                raise  # nothing was written: the typed error (review DB, connection, ...) says it all
            raise RunFailedError(
                f"sync run {run_id} failed after {job.writer.batches} batch(es): {msg}; every applied batch is "
                f"journaled: run `graph-trust sync` again to converge, or `graph-trust rollback {run_id}`") from exc
        finally:
            checkpoint.join()  # normally long done
        report.duration_s = round(time.monotonic() - t0, 3)
        job.recorded(store.finish_run(run_id, "ok", job.counts()))
        return report


class _SyncJob:
    """One sync run's steps 2-6 (module docstring) and the edge phase's pipeline."""

    def __init__(self, g: Any, settings: Settings, store: StateStore, review: ReviewDB, report: SyncReport,
                 graph_key: str, batch_size: int, progress: Progress) -> None:
        self.g, self.settings, self.store, self.review = g, settings, store, review
        self.report, self.graph_key, self.batch_size, self.progress = report, graph_key, batch_size, progress
        self.con = store.con
        self.source = source_for(review, graph_key)
        self.policy = policy_of(settings)
        self.writer = JournaledWriter(store, report.run_id, graph_key)
        self.blend = blend_of(settings)  # confidence mode's weight; 0: tiers mode
        self.work = WorkTable(store, self.source, graph_key, batch_size, self.blend)
        self.entities = EntityAggregation(store, self.writer, report, graph_key, batch_size, settings.sync.aggregation,
                                          progress)
        self.graphs = Graphs(g)  # (run() opens it knowing which graphs exist)
        self._inflight: deque[tuple] = deque()  # (write task, settle(matched), rows) of the batches in flight
        self._total: int | None = None  # rows of temp.work (when built up front)
        self._reported = 0  # work rows reported to ``progress``
        self._checksums: dict[str, asyncio.Future] = {}  # graph -> its edge checksums, being computed
        self._everything = False
        self._elsewhere: list[str] = []  # graphs someone else wrote since this source's last run
        self.now = now_iso()
        self.written: dict[str, int] = {}  # graph -> edges this run wrote (set or cleared)

    def counts(self) -> dict[str, Any]:
        """The report's counters, as ``graph-trust runs`` lists them (those of what the run changed
        are counted from its journal when they are recorded: :mod:`~graph_trust.sync.run_counts`)."""
        r = self.report
        return {k: getattr(r, k) for k in RUN_COUNTERS}

    def recorded(self, counts: dict[str, Any]) -> None:
        """The report says what the run's record says (its journal's counts, for a real run)."""
        for k in RUN_COUNTERS:
            setattr(self.report, k, counts[k])

    def _checkpoint(self) -> None:
        """Record the counters so far: a run killed outright is listed with them."""
        self.store.update_counts(self.report.run_id, self.counts())

    async def settle_after_failure(self) -> None:
        """Best effort: let the write in flight finish, then settle this run's pending batches now
        (the next run does it otherwise)."""
        await asyncio.gather(*(item[0] for item in self._inflight), return_exceptions=True)
        self._inflight.clear()
        try:  # the settles of batches whose writes completed (else recover reads them back)
            self.writer.flush()
        except Exception as exc:  # noqa: BLE001 - e.g. the state store is the problem
            log.info("could not commit the deferred settles (%r); recovery reads the graph instead", exc)
        # the markers of ranges in flight stay pending: recover settles them below
        await self.entities.abandon()
        try:
            await asyncio.wait_for(recover(self.store, self.graphs, self.graph_key), timeout=10)
        except BaseException as exc:  # noqa: BLE001 - the graph may be gone; the journal stays pending
            log.info("could not settle the pending batch now (%r); the next run will", exc)

    def _lap(self, phase: str) -> None:
        now = time.monotonic()
        self.report.phase_s[phase] = round(now - self._t, 3)
        self._t = now

    async def run(self) -> None:
        r = self.report
        full = r.full
        self._t = time.monotonic()
        self.graphs = await Graphs.open(self.g)
        scope = self._graphs()
        self._elsewhere = trust_tokens.written_elsewhere(self.con, self.source,
                                                         await trust_tokens.read_tokens(self.graphs, scope))
        exact = full or bool(self._elsewhere) or self.con.execute(
            "SELECT 1 FROM sync_graphs WHERE graph_key = ?", (self.graph_key,)).fetchone() is None
        # The graph computes its checksums (exact: per bucket; otherwise whole-graph totals; one
        # aggregate query per graph known so far) while this process refreshes the candidates and
        # computes the same figures from the shadow in SQLite.
        probe = graphstate.edge_checksums if exact else graphstate.edge_totals
        self._checksums = {name: asyncio.ensure_future(probe(self.graphs(name))) for name in scope}
        try:
            graphs, shadow_sums = await in_thread(lambda: self._prepare(exact))
            if not exact:  # graphs the refresh brought into scope, written by someone else
                late = [name for name in graphs if name not in scope]
                self._elsewhere = trust_tokens.written_elsewhere(self.con, self.source,
                                                                 await trust_tokens.read_tokens(self.graphs, late))
        except BaseException:
            await self._cancel_checksums()
            raise
        if self._elsewhere and not exact:  # compare as exactly as above, with the shadow's checksums
            exact = True
            await self._cancel_checksums()
            shadow_sums = {name: graphstate.shadow_checksums(self.con, self.graph_key, name) for name in graphs}
        if self._elsewhere and not r.dry_run:  # every entity too (its aggregate may be someone else's)
            with self.store.tx() as c:
                c.execute("INSERT OR IGNORE INTO sync_aggregate_all VALUES (?)", (self.graph_key,))
        self._lap("candidates")
        self._checkpoint()
        if not r.dry_run and (exact or self._new_graphs(graphs)):
            await ensure_uuid_indexes(self.g, graphs)
        self.con.execute("CREATE TEMP TABLE IF NOT EXISTS keys (graph TEXT, uuid TEXT, PRIMARY KEY (graph, uuid))")
        self.con.execute("DELETE FROM temp.keys")
        try:
            for graph in graphs:
                await self._refresh_shadow(graph, shadow_sums[graph], exact=exact)
        finally:  # checksums of a graph that left the scope meanwhile (or after a failure)
            await self._cancel_checksums()
        if exact:
            with self.store.tx() as c:
                c.execute("INSERT OR REPLACE INTO sync_graphs VALUES (?, ?)", (self.graph_key, now_iso()))
        self._lap("graph_state")
        self._checkpoint()
        everything = self._everything or exact
        self.work.build(everything=everything)
        over = self.work.over_clear_limit(self.settings.sync.max_clear, everything=everything)
        if over and r.dry_run:  # a dry run is not stopped: it says what a real run would do
            r.clear_limit = f"{over}: a real run would stop before writing (--max-clear 1 lets it through)"
        elif over:
            raise ClearLimitError(f"{over}; nothing was written. Check the review DB (emptied, truncated, the "
                                  "wrong file?); if it is right, run again with --max-clear 1")
        self._lap("diff")
        aggregate_all = full or self.con.execute("SELECT 1 FROM sync_aggregate_all WHERE graph_key = ?",
                                                 (self.graph_key,)).fetchone() is not None
        if full and not r.dry_run:  # it marks no entity dirty: if it stops early, the next run aggregates them all
            with self.store.tx() as c:
                c.execute("INSERT OR IGNORE INTO sync_aggregate_all VALUES (?)", (self.graph_key,))
        await self._write_edges(full=full, everything=everything)
        self.report.edges_unchanged += self.work.unchanged()
        self._report_unmatched()
        if not r.dry_run:  # every touched edge was written; the unmatched ones are retried next run
            with self.store.tx() as c:  # (edges a verify touched meanwhile stay for the next run)
                c.execute("DELETE FROM sync_touched WHERE source = ? AND (graph, uuid) IN "
                          "(SELECT graph, uuid FROM temp.keys)", (self.source,))
                c.execute("DELETE FROM sync_unmatched WHERE source = ?", (self.source,))
                c.execute("INSERT INTO sync_unmatched SELECT ?, graph, uuid FROM temp.unmatched", (self.source,))
                full_diff_done(c, self.source)
        self._lap("edges")
        self._checkpoint()
        if self.settings.guard.enabled:
            await self._guard(graphs)
            self._lap("guard")
            self._checkpoint()
        if not r.dry_run:
            if aggregate_all:  # --full, or a --full run failed before it finished this phase
                buckets = {graph: await graphstate.entity_buckets(self.graphs(graph)) for graph in graphs}
                n_ranges = sum(map(len, buckets.values()))
                for graph in graphs:
                    await self.entities.aggregate_all(self.graphs, graph, buckets[graph], n_ranges)
                with self.store.tx() as c:
                    c.execute("DELETE FROM sync_aggregate_all WHERE graph_key = ?", (self.graph_key,))
            await self.entities.aggregate_dirty(self.graphs)
        self._lap("entities")
        r.batches = self.writer.batches
        if not r.dry_run:
            await self._recheck_indexes(graphs)
            self._lap("vector_index")
            # after the run's last write: the tokens it leaves (the next run compares them)
            trust_tokens.record(self.store, self.source, await trust_tokens.read_tokens(self.graphs, graphs))

    async def _cancel_checksums(self) -> None:
        for task in self._checksums.values():
            task.cancel()
        await asyncio.gather(*self._checksums.values(), return_exceptions=True)
        self._checksums = {}

    async def _recheck_indexes(self, graphs: list[str]) -> None:
        """Step 7 (module docstring): what it re-measured lands in ``report.vector_index``."""
        try:
            queries = retrieval_log.query_source(self.settings, self.review.location)
            with RecallStore.open(self.settings) as recall:
                for graph in graphs:
                    if not self.graphs.exists(graph):
                        continue
                    done = await index_recall.refresh(self.graphs(graph), self.settings, recall,
                                                      written={"edge": self.written.get(graph, 0)},
                                                      min_items=self.settings.search.cosine_index_min_size,
                                                      progress=self.progress, queries=queries)
                    for kind, why in done["measured"].items():
                        self.report.vector_index.setdefault(graph, {})[kind] = {
                            "why": why, "choice": done["kinds"][kind]["choice"]}
        except (asyncio.CancelledError, KeyboardInterrupt):
            raise
        except Exception as exc:  # noqa: BLE001 - the trust is written; the measurement is retried next run
            log.warning("vector index recall check failed: %s", exc, exc_info=True)
            self.report.vector_index_hint = (f"the vector index recall check failed ({exc}); search keeps its "
                                             "previous choice: run graph-trust index check")

    async def _guard(self, graphs: list[str]) -> None:
        """The guard (:mod:`~graph_trust.sync.guard`): report the trusted edges Graphiti invalidated,
        record them for review and, with ``guard.restore_trusted``, restore them (not in a dry run)."""
        r = self.report
        await guard.track_invalidated(self.store, self.graphs, graphs, self.graph_key, full=r.full)
        items = await guard.find(self.con, self.graphs, graphs, EDGE_ROWS, self.source, self.settings, read=False)
        if items and not r.dry_run:
            r.contradictions_recorded, why = guard.record(self.settings, self.review.location, items)
            if self.settings.guard.restore_trusted:
                r.trusted_restored = await guard.restore(self.writer, self.graphs, items, self.batch_size)
                guard.forget_restored(self.store, self.graph_key, items)
        else:
            why = None
        r.trusted_invalidated_count = len(items)
        r.trusted_invalidated = [guard.report_item(i) for i in items[:REPORT_LIMIT]]
        restored = r.trusted_restored == len(items)
        r.guard_hint = "; ".join(filter(None, (None if not items or restored else GUARD_HINT.format(n=len(items)),
                                              why))) or None

    def _prepare(self, exact: bool) -> tuple[list[str], dict[str, dict]]:
        """SQLite part of a run's start (runs in a worker thread): refresh the candidates, record
        the quarantine, and compute the shadow's checksums (``exact``) or totals of every graph in scope."""
        r = self.report
        src = ReviewSource(self.review, self.policy, self.graphs.name_for, self.source,
                           shared_graph=not self.g.backend.graph_per_group, default_graph=self.g.database,
                           blend=self.blend)
        # confidence mode: every candidate's confidence, set-wise, scored in a thread of its own (it
        # reads only the review DB) while the candidates are refreshed; then the moved ones are stored
        with ThreadPoolExecutor(1) as pool:  # (on an error the pool waits for the scoring to end)
            scoring = pool.submit(self._score) if self.blend else None
            r.candidates_changed, self._everything = refresh_candidates(
                self.store, src, graph_key=self.graph_key, full=r.full,
                progress=lambda n: self.progress("candidates", n, None), defer_desired=True)
            # every review row was read and compared with the copy, which now holds one per candidate
            r.candidates_read = self.con.execute("SELECT count(*) FROM sync_candidates WHERE source = ?",
                                                 (self.source,)).fetchone()[0]
            if scoring is not None:
                t = time.monotonic()
                ids, scores = scoring.result()
                r.confidence_changed = store_confidence(self.store, self.source, ids, scores,
                                                        touch=not self._everything, params=src.params())
                r.phase_s["confidence"] = round(time.monotonic() - t, 3)  # what it adds after the refresh
        r.quarantined_count, r.quarantined = quarantined(self.store, self.source, REPORT_LIMIT)
        r.unknown_sensitivity = unknown_sensitivity(self.store, self.source, scale_of(self.settings))
        with self.store.tx() as c:
            c.execute(f"INSERT INTO sync_quarantine SELECT ?, id, reason FROM {QUARANTINED_ROWS} "
                      "WHERE source = ? AND reason IS NOT NULL", (r.run_id, self.source))
        load_tiers(self.con, self.policy)
        graphs = self._graphs()
        own = graphstate.shadow_checksums if exact else graphstate.shadow_totals
        return graphs, {name: own(self.con, self.graph_key, name) for name in graphs}

    def _score(self) -> tuple[list[str], Any]:
        """Every candidate's confidence (:func:`score_all`), timed in ``phase_s["confidence_scoring"]``."""
        t = time.monotonic()
        out = score_all(self.review, self.settings)
        self.report.phase_s["confidence_scoring"] = round(time.monotonic() - t, 3)
        return out

    def _new_graphs(self, graphs: list[str]) -> bool:
        """True when a graph in scope has no shadow rows yet (a group sync has not written before)."""
        known = set(distinct_graphs(self.con, "sync_shadow", "graph_key", self.graph_key))
        return bool(set(graphs) - known - {self.g.database})

    def _graphs(self) -> list[str]:
        """Graphs in scope: those with candidates, touched, shadow or dirty rows, and the default one."""
        names = {self.g.database}
        for table, key, value in (("sync_candidates", "source", self.source), ("sync_touched", "source", self.source),
                                  ("sync_shadow", "graph_key", self.graph_key), ("sync_dirty", "graph_key", self.graph_key)):
            names.update(distinct_graphs(self.con, table, key, value))
        return sorted(names)

    async def _refresh_shadow(self, graph: str, shadow_sums: dict, *, exact: bool) -> None:
        graph_conn = self.graphs(graph)
        task = self._checksums.pop(graph, None)
        if exact:
            graph_sums = await (task if task is not None else graphstate.edge_checksums(graph_conn))
            buckets = sorted(graphstate.buckets_of(graph_sums) | graphstate.buckets_of(shadow_sums))
            with self.store.tx() as c:
                c.execute("DELETE FROM sync_shadow WHERE graph_key = ? AND graph = ?", (self.graph_key, graph))
                if self.report.full:  # the rebuild absorbs any drift: every entity is re-aggregated, by this run
                    # or (a dry run, a crash before the entity phase) the next one
                    c.execute("INSERT OR IGNORE INTO sync_aggregate_all VALUES (?)", (self.graph_key,))
            self.con.execute(FOREIGN_PROPS_TABLE)
            foreign = await graph_conn.query("edges_with_foreign_props")
            self.con.executemany(
                f"INSERT OR REPLACE INTO temp.foreign_props VALUES (?, ?, {', '.join('?' for _ in EDGE_PROPS)})",
                [(graph, e["uuid"], *(e.get(p) for p in EDGE_PROPS)) for e in foreign])
        elif graphstate.totals_match(await (task if task is not None else graphstate.edge_totals(graph_conn)), shadow_sums):
            buckets = []
        else:  # drift somewhere: find the buckets (all of them if the per-bucket figures cannot tell)
            graph_sums = await graphstate.edge_checksums(graph_conn)
            own = graphstate.shadow_checksums(self.con, self.graph_key, graph)
            buckets = (graphstate.differing_buckets(graph_sums, own)
                       or sorted(graphstate.buckets_of(graph_sums) | graphstate.buckets_of(own)))
        for b in buckets:
            edges = await graphstate.edges_in_bucket(graph_conn, b)
            ends = {} if exact else await endpoints_of_untrusted(self.con, graph_conn, self.graph_key, graph, b, edges)
            with self.store.tx() as c:
                if not exact:
                    self.report.drift_healed += absorb_drift(c, self.graph_key, self.source, graph, b, edges, ends)
                graphstate.replace_shadow_bucket(c, self.graph_key, graph, b, edges)

    async def _write_edges(self, *, full: bool, everything: bool) -> None:
        """Write ``temp.work`` in batches, pipelined: batch k+1 is read, compared and journaled
        while batch k's write runs (each batch is journaled before its own write starts)."""
        batches: list[tuple[str, list[tuple]]] = []
        pending: list[tuple] = []
        if everything:
            self._total = self.work.stream_bound()  # (the bar completes at the end)
        for rows in (self.work.stream(self._graphs(), RANGE_CANDIDATES) if everything else self.work.rows()):
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
        await self._drain()
        if self._total is not None and self._reported < self._total:  # streamed: the total was an upper bound
            self.progress("edges", self._total - self._reported, self._total)

    async def _drain(self) -> None:
        """Wait for the batches in flight and settle them (committed now)."""
        await self._in_flight(0)
        self.writer.flush()

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
            self._total = self.con.execute("SELECT count(*) FROM temp.work").fetchone()[0]
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
            self.con.executemany("INSERT OR IGNORE INTO temp.unmatched VALUES (?, ?)", [(graph, u) for u in missing])

    async def _full_edge_batch(self, graph: str, rows: list[tuple]) -> None:
        """``--full``: SQLite journals the batch straight from ``temp.work`` and settles it from
        there (no per-edge Python but the write's parameters); rows are ``(rowid, graph, uuid, ...)``."""
        graph_conn = self.graphs(graph)
        lo, hi = rows[0][0], rows[-1][0]
        run_id, now = self.report.run_id, self.now
        batch_no = self.writer.begin_work_edges(graph, lo, hi, now)  # journaled before the write starts
        sets = [{"uuid": u, "trust_score": score, "trust_status": status, "trust_run_id": run_id,
                 "trust_updated_at": now, "memory_type": mt, "sensitivity": sens, "scope": scope}
                for _, _, u, score, status, mt, sens, scope in rows if score is not None]
        clears = [row[2] for row in rows if row[3] is None]
        task = await started(write_edge_rows(graph_conn, sets, clears))

        def settle(matched: set[str]) -> None:
            missing = [row[2] for row in rows if row[2] not in matched]
            self.writer.finish_work_edges(graph, batch_no, lo, hi, missing, now)
            gone = set(missing)
            n_cleared = sum(1 for u in clears if u not in gone)
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
            if row[2] is not None:
                new = {"trust_score": row[2], "trust_status": row[3], "trust_run_id": r.run_id,
                       "trust_updated_at": self.now, "memory_type": row[4], "sensitivity": row[5], "scope": row[6]}
            else:
                new = dict.fromkeys(EDGE_PROPS)
            if current is not None:
                cur = current.get(row[1])
                if cur is None:
                    missing.append(row[1])
                    continue
                before = edge_values(cur)
                if props_equal(before, new, ("trust_score", "trust_status", "memory_type", "sensitivity", "scope")) \
                        and (new["trust_score"] is not None or before == new):
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

    def _report_unmatched(self) -> None:
        r = self.report
        base = (f"FROM temp.unmatched u CROSS JOIN {EDGE_ROWS} ON c.source = ? AND c.graph = u.graph "
                "AND c.edge_uuid = u.uuid JOIN temp.tiers t ON t.status = c.status WHERE c.reason IS NULL "
                "AND t.score IS NOT NULL")
        r.unmatched_count = self.con.execute(f"SELECT count(*) {base}", (self.source,)).fetchone()[0]
        r.unmatched = [{"id": i, "edge_uuid": u, "graph": gname} for i, u, gname in self.con.execute(
            f"SELECT c.id, c.edge_uuid, c.graph {base} ORDER BY c.id LIMIT {REPORT_LIMIT}", (self.source,))]
        # groups the review rows name that have no graph: their rows are unmatched, nothing was created
        r.unknown_groups = self.graphs.absent(distinct_graphs(self.con, "sync_candidates", "source",
                                                               self.source))[:REPORT_LIMIT]
        r.unmatched_hint = "; ".join(filter(None, (unknown_groups_hint(r.unknown_groups), RELINK_HINT))) \
            if r.unmatched_count else None



__all__ = ["run_sync", "sync_demo", "sync_graph"]
