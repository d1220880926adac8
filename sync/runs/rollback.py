"""Roll back a sync run: restore exactly the values it replaced (``graph-trust rollback RUN_ID``).

The run's ``applied`` journal rows give each element's previous values; they are written
back in journaled batches under a new run of kind ``rollback`` (so a rollback can itself be
audited and rolled back), and the target run becomes ``rolled_back``. If a later run changed
the same elements (and was not itself rolled back), the rollback refuses with
:class:`RollbackConflictError` naming those runs, unless ``force``. ``graph-trust rollback``
reaches :func:`rollback_sync` through the run kinds (:mod:`graph_trust.sync.runs.listing`); other
kinds' runs (relink, learned weights) are rolled back by their own jobs.
"""

from __future__ import annotations

import json
import time
from typing import Any

from graph_trust.config import Settings
from graph_trust.errors import InputError, NotFoundError, RollbackConflictError, RunFailedError
from graph_trust.graph.connection import use_graph
from graph_trust.graph.routing import Graphs
from graph_trust.sync.desired import touch_edges
from graph_trust.sync.report import RollbackReport
from graph_trust.sync.runs.identity import config_hash, graph_key
from graph_trust.sync.runs.lock import sync_lock
from graph_trust.sync.runs.recovery import recover_dead_runs
from graph_trust.sync.store.state import StateStore
from graph_trust.sync.writer import (
    VALIDITY_KIND,
    Change,
    JournaledWriter,
    edge_values,
    entity_values,
    mark_entities_dirty,
    read_validity,
)


async def rollback_sync(settings: Settings, run_id: str, *, force: bool = False, graph: Any = None) -> RollbackReport:
    """Roll back sync run ``run_id``; returns a :class:`RollbackReport`."""
    store = StateStore.for_settings(settings)
    try:
        run = store.run(run_id)
        if run is None:
            raise NotFoundError(f"no sync run {run_id!r} in the state store {store.path} (see `graph-trust runs`)")
        if run["kind"] != "sync":
            raise InputError(f"run {run_id} is a {run['kind']}, not a sync; roll back a sync run")
        if run["status"] == "rolled_back":
            raise InputError(f"run {run_id} is already rolled back")
        if run["dry_run"]:
            raise InputError(f"run {run_id} was a dry run and changed nothing")
        if run["journal_pruned_at"]:
            raise InputError(f"run {run_id} can no longer be rolled back: `graph-trust prune` deleted its journal "
                             f"on {run['journal_pruned_at']}")
        if store.one("journal_touched", run_id=run_id) is None:
            why = f" ({run['status']}: {run['error']})" if run["status"] != "ok" and run["error"] else ""
            raise InputError(f"run {run_id} changed nothing on the graph{why}: nothing to roll back")
        async with use_graph(settings, graph) as g:
            return await _rollback(g, settings, store, run, force)
    finally:
        store.close()


async def _rollback(g: Any, settings: Settings, store: StateStore, run: dict, force: bool) -> RollbackReport:
    key = graph_key(g)
    if run["graph_key"] != key:
        raise InputError(f"run {run['run_id']} was on graph {run['graph']}, not {g.address.display}; "
                         "pass --graph to name it")
    t0 = time.monotonic()
    with sync_lock(settings.state_dir, key, g.address.display):
        await recover_dead_runs(store, g, key)
        conflicts = [{"run_id": r, "kind": k, "elements": n}
                     for r, k, n in store.rows("rollback_conflicts", run=run["run_id"], seq=run["seq"])]
        if conflicts and not force:
            listed = ", ".join(f"{c['run_id']} ({c['elements']} element(s))" for c in conflicts)
            raise RollbackConflictError(
                f"cannot roll back {run['run_id']}: later run(s) changed the same properties: {listed}; "
                "roll those back first, or pass --force to restore this run's previous values anyway")
        new_id, _ = store.start_run(kind="rollback", graph_key=key, graph=g.address.display, dry_run=False,
                                    full=False, config_hash=config_hash(settings), target_run=run["run_id"])
        report = RollbackReport(run_id=new_id, rolled_back=run["run_id"], forced=bool(conflicts), conflicts=conflicts)
        writer = JournaledWriter(store, new_id, key)
        graphs = Graphs(g)
        try:
            rows = store.rows("applied_changes", run_id=run["run_id"])
            batch_size = settings.sync.batch_size
            i = 0
            while i < len(rows):
                graph, kind = rows[i][0], rows[i][1]
                chunk = []
                while i < len(rows) and rows[i][0] == graph and rows[i][1] == kind and len(chunk) < batch_size:
                    chunk.append(rows[i])
                    i += 1
                graph_conn = graphs(graph)
                uuids = [r[2] for r in chunk]
                if kind == "edge":
                    current = {e["uuid"]: e for e in await graph_conn.query("edge_trust_read", uuids=uuids)}
                    changes = [Change(u, edge_values(current[u]), json.loads(old),
                                      (current[u]["source_uuid"], current[u]["target_uuid"]))
                               for _, _, u, old in chunk if u in current]
                    # the entities at their ends are re-aggregated by the next sync, like the restored ones
                    res = await writer.edges(graph_conn, graph, changes, mark_dirty=True)
                    with store.tx() as c:  # the next sync compares these edges again
                        touch_edges(c, key, graph, [ch.uuid for ch in res.applied])
                elif kind == VALIDITY_KIND:  # the guard's restores: invalid_at / expired_at as they were
                    before = {r[2]: json.loads(r[3]) for r in chunk}
                    changes = [Change(c.uuid, c.old, before[c.uuid], c.endpoints)
                               for c in await read_validity(graph_conn, uuids)]
                    await writer.validity(graph_conn, graph, changes)
                else:
                    current = {e["uuid"]: entity_values(e) for e in await graph_conn.query("entity_trust_inputs", uuids=uuids)}
                    changes = [Change(u, current[u], json.loads(old)) for _, _, u, old in chunk if u in current]
                    await writer.entities(graph_conn, graph, changes, [])
                    with store.tx() as c:  # the next sync re-aggregates them (their edges may disagree now)
                        mark_entities_dirty(c, key, graph, [ch.uuid for ch in changes])
        except BaseException as exc:
            store.finish_run(new_id, "failed", error=str(exc) or type(exc).__name__)
            raise RunFailedError(f"rollback {new_id} of {run['run_id']} failed part-way: {exc}; the restored "
                                 f"batches are journaled; run the rollback again with --force to finish") from exc
        report.duration_s = round(time.monotonic() - t0, 3)
        counts = store.finish_run(new_id, "ok")  # counted from its journal
        report.edges_restored, report.entities_restored, report.invalidations_restored = (
            counts["edges_restored"], counts["entities_restored"], counts["invalidations_restored"])
        with store.tx():
            store.do("mark_rolled_back", run_id=run["run_id"])
        return report
