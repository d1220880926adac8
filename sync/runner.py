"""Python entry points of the nightly sync: ``run_sync``, ``sync_graph``.

One run, holding the graph's sync lock (:mod:`~graph_trust.sync.runs.lock`):

1. settle what a dead run left (:mod:`~graph_trust.sync.runs.recovery`);
2. refresh the state store's copy of the review DB (changed rows only, or all with ``full``;
   :mod:`~graph_trust.sync.candidate_phase`, :mod:`~graph_trust.sync.desired`);
3. refresh the shadow of what the graph holds: per-bucket checksums, re-reading buckets that
   differ (a full scan with ``full``, the first time a graph is seen, or when someone else wrote
   its trust state since this review DB's last run: :mod:`~graph_trust.sync.trust_tokens`;
   :mod:`~graph_trust.sync.shadow_refresh`, drift in :mod:`~graph_trust.sync.drift`);
4. compute, in SQLite, the edges whose desired trust differs from what they hold
   (:mod:`~graph_trust.sync.work`); write them in journaled batches, pipelined, one uuid range
   at a time when every edge is compared (:mod:`~graph_trust.sync.edge_phase`);
5. the guard (:mod:`~graph_trust.sync.guard`): report trusted edges Graphiti invalidated, record
   them for review, restore them with ``guard.restore_trusted``;
6. re-aggregate entity trust for entities touching changed edges (every entity with ``full``,
   or when a ``full`` run stopped before this step; :mod:`~graph_trust.sync.entity_trust`);
7. re-measure the recall of the vector indexes where a run wrote a large share of a graph's edges
   (:mod:`~graph_trust.sync.vector_recheck`; a failure there is reported, not fatal).

Every state-store statement is one of :mod:`graph_trust.sync.store`'s, by name; the run's
temporary tables belong to its :class:`~graph_trust.sync.store.run_tables.RunTables`."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graph_trust.config import Settings
from graph_trust.errors import ClearLimitError, GraphTrustError, RunFailedError
from graph_trust.graph.connection import use_graph
from graph_trust.graph.routing import Graphs
from graph_trust.graph.schema import ensure_uuid_indexes
from graph_trust.sync import candidate_phase, graphstate, guard, trust_tokens
from graph_trust.sync.confidence.trust import blend_of
from graph_trust.sync.desired import ReviewSource, full_diff_done, source_for
from graph_trust.sync.edge_phase import EdgePhase, settle_after_failure
from graph_trust.sync.entity_trust import EntityAggregation
from graph_trust.sync.gc_freeze import startup_objects_frozen
from graph_trust.sync.overlap import in_thread
from graph_trust.sync.policy import policy_of
from graph_trust.sync.report import REPORT_LIMIT, SyncReport
from graph_trust.sync.review_db import ReviewDB
from graph_trust.sync.runs.identity import config_hash, graph_key
from graph_trust.sync.runs.lock import sync_lock
from graph_trust.sync.runs.recovery import recover_dead_runs
from graph_trust.sync.shadow_refresh import ShadowRefresh
from graph_trust.sync.store.run_tables import RunTables
from graph_trust.sync.store.state import StateStore, now_iso
from graph_trust.sync.vector_recheck import recheck_indexes
from graph_trust.sync.work import WorkTable
from graph_trust.sync.writer import JournaledWriter

Progress = Callable[[str, int, int | None], None]


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
                       progress or (lambda phase, n, total: None))
        t0 = time.monotonic()
        checkpoint = store.checkpoint_in_background()  # the previous runs' log, while this one reads
        try:
            await job.run()
        except (asyncio.CancelledError, KeyboardInterrupt, Exception) as exc:
            await settle_after_failure(job.edges, job.entities, job.writer, store, job.graphs, key)
            stopped = not isinstance(exc, Exception)  # Ctrl-C, a cancelled task
            report.status, report.interrupted = ("interrupted" if stopped else "failed"), stopped
            msg = "interrupted" if stopped else str(exc) or type(exc).__name__
            counts = store.finish_run(run_id, report.status, report.counters(), error=msg)
            if not stopped and job.writer.batches == 0 and isinstance(exc, GraphTrustError):
                raise  # nothing was written: the typed error (review DB, connection, ...) says it all
            error = RunFailedError(
                f"sync run {run_id} {'was interrupted' if stopped else 'failed'} after {job.writer.batches} batch(es)"
                f"{'' if stopped else ': ' + msg}; every applied batch is journaled: run `graph-trust sync` again to "
                f"converge, or `graph-trust rollback {run_id}`")
            if stopped:  # the counts so far (sync --json prints them)
                report.take_counters(counts)
                report.duration_s, error.report = round(time.monotonic() - t0, 3), report
            raise error from exc
        finally:
            checkpoint.join()  # normally long done
            await job.guard_read.cancel()  # (a run that stopped before its guard)
            job.tables.drop()
        report.duration_s = round(time.monotonic() - t0, 3)
        report.take_counters(store.finish_run(run_id, "ok", report.counters()))
        return report


class _SyncJob:
    """One sync run's steps 2-7 (module docstring)."""

    def __init__(self, g: Any, settings: Settings, store: StateStore, review: ReviewDB, report: SyncReport,
                 graph_key: str, batch_size: int, progress: Progress) -> None:
        self.g, self.settings, self.store, self.review = g, settings, store, review
        self.report, self.graph_key, self.batch_size, self.progress = report, graph_key, batch_size, progress
        self.source = source_for(review, graph_key)
        self.policy = policy_of(settings)
        self.tables = RunTables(store.con)
        self.writer = JournaledWriter(store, report.run_id, graph_key)
        self.blend = blend_of(settings)  # confidence mode's weight; 0: tiers mode
        self.work = WorkTable(store, self.source, graph_key, batch_size, self.blend)
        self.edges = EdgePhase(store, self.tables, self.work, self.writer, report, graph_key, batch_size, progress,
                               now_iso())
        self.entities = EntityAggregation(store, self.writer, report, graph_key, batch_size, settings.sync.aggregation,
                                          progress)
        self.graphs = Graphs(g)  # (run() opens it knowing which graphs exist)
        self.guard_read = guard.EarlyRead(enabled=report.full and settings.guard.enabled)  # see run()
        self._everything = False

    def _lap(self, phase: str) -> None:
        """Time the phase that just ended; record the counters so far (for a run killed outright)."""
        now = time.monotonic()
        self.report.phase_s[phase] = round(now - self._t, 3)
        self._t = now
        self.store.update_counts(self.report.run_id, self.report.counters())

    async def run(self) -> None:
        r, full, key = self.report, self.report.full, self.graph_key
        self._t = time.monotonic()
        self.graphs = await Graphs.open(self.g)
        scope = self._graphs()
        elsewhere = await trust_tokens.written_elsewhere(self.store, self.source, self.graphs, scope)
        exact = full or bool(elsewhere) or self.store.one("graph_seen", graph_key=key) is None
        shadow = ShadowRefresh(self.store, self.tables, self.graphs, r, key, self.source)
        shadow.start(scope, exact=exact)  # the graph's figures, while the candidates are refreshed
        self.guard_read.start(self.graphs, scope)  # --full: the guard's read, while the graph has nothing to do
        try:
            graphs = await in_thread(self._prepare)
            if not exact:  # graphs the refresh brought into scope, written by someone else
                elsewhere = await trust_tokens.written_elsewhere(self.store, self.source, self.graphs,
                                                                 [name for name in graphs if name not in scope])
        except BaseException:
            await shadow.cancel()
            raise
        if elsewhere and not exact:  # compare as exactly as above (the figures computed so far are totals)
            exact = True
            await shadow.cancel()
        if elsewhere and not r.dry_run:  # every entity too (its aggregate may be someone else's)
            with self.store.tx():
                self.store.do("mark_aggregate_all", graph_key=key)
        self._lap("candidates")
        if not r.dry_run and (exact or self._new_graphs(graphs)):
            await ensure_uuid_indexes(self.g, graphs)
        self.tables.new_keys()
        await shadow.refresh(graphs, shadow.own_figures(graphs, exact=exact), exact=exact)
        if exact:
            with self.store.tx():
                self.store.do("mark_graph_seen", graph_key=key, at=now_iso())
        self._lap("graph_state")
        everything = self._everything or exact
        self.work.build(everything=everything)
        over = self.work.over_clear_limit(self.settings.sync.max_clear, everything=everything)
        if over and r.dry_run:  # a dry run is not stopped: it says what a real run would do
            r.clear_limit = f"{over}: a real run would stop before writing (--max-clear 1 lets it through)"
        elif over:
            raise ClearLimitError(f"{over}; nothing was written. Check the review DB (emptied, truncated, the "
                                  "wrong file?); if it is right, run again with --max-clear 1")
        self._lap("diff")
        aggregate_all = full or self.store.one("aggregate_all_pending", graph_key=key) is not None
        if full and not r.dry_run:  # it marks no entity dirty: if it stops early, the next run aggregates them all
            with self.store.tx():
                self.store.do("mark_aggregate_all", graph_key=key)
        await self.edges.write(self.graphs, self._graphs(), full=full, everything=everything)
        r.edges_unchanged += self.work.unchanged()
        r.note_unmatched(*self.store.unmatched(self.source, REPORT_LIMIT),
                         self.graphs.absent(self.store.graphs_of_candidates(self.source))[:REPORT_LIMIT])
        if not r.dry_run:  # every touched edge was written; the unmatched ones are retried next run
            with self.store.tx() as c:
                self.store.do("forget_written_touched", source=self.source)
                self.store.do("forget_unmatched", source=self.source)
                self.store.do("add_unmatched", source=self.source)
                full_diff_done(c, self.source)
        self._lap("edges")
        if self.settings.guard.enabled:
            await guard.guard_step(r, self.settings, self.store, self.graphs, graphs, self.writer, self.review,
                                   self.source, key, self.batch_size, self.guard_read)
            self._lap("guard")
        if not r.dry_run:
            if aggregate_all:  # --full, or a --full run failed before it finished this phase
                buckets = {graph: await graphstate.entity_buckets(self.graphs(graph)) for graph in graphs}
                for graph in graphs:
                    await self.entities.aggregate_all(self.graphs, graph, buckets[graph],
                                                      sum(map(len, buckets.values())))
                with self.store.tx():
                    self.store.do("clear_aggregate_all", graph_key=key)
            await self.entities.aggregate_dirty(self.graphs)
        self._lap("entities")
        r.batches = self.writer.batches
        if not r.dry_run:
            await recheck_indexes(r, self.settings, self.review, self.graphs, graphs, self.edges.written,
                                  self.progress)
            self._lap("vector_index")
            # after the run's last write: the tokens it leaves (the next run compares them)
            await trust_tokens.record(self.store, self.source, self.graphs, graphs)

    def _prepare(self) -> list[str]:
        """Step 2 (in a worker thread): the candidates refreshed; returns the graphs in scope."""
        src = ReviewSource(self.review, self.policy, self.graphs.name_for, self.source,
                           shared_graph=not self.g.backend.graph_per_group, default_graph=self.g.database,
                           blend=self.blend)
        self._everything = candidate_phase.refresh(self.report, self.settings, self.store, src, self.graph_key,
                                                   self.progress)
        return self._graphs()

    def _new_graphs(self, graphs: list[str]) -> bool:
        """True when a graph in scope has no shadow rows yet (a group sync has not written before)."""
        return bool(set(graphs) - set(self.store.graphs_of_shadow(self.graph_key)) - {self.g.database})

    def _graphs(self) -> list[str]:
        """Graphs in scope: those with candidates, touched, shadow or dirty rows, and the default one."""
        return sorted({self.g.database, *self.store.graphs_in_scope(self.source, self.graph_key)})


__all__ = ["run_sync", "sync_demo", "sync_graph"]
