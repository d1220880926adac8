"""``graph-trust prune``: delete the journal of old runs so the state store stops growing.

Every run journals each property it changes (a first ``--full`` run on 100k edges adds ~145k
rows, about 80 MB with their indexes). Per graph, prune keeps the journal of the newest ``keep``
runs that wrote to it (sync and rollback runs; dry runs write nothing and do not count) and
deletes the journal and quarantine rows of every older run, one run per transaction, recording
it in ``sync_pruned``: such a run stays in ``graph-trust runs`` but can no longer be rolled
back. Rolling back a kept run still works: its conflict check only reads runs after it, which
are all kept.

Never pruned: a run still marked ``running`` and a run with ``pending`` journal rows (a dead
run's; the next sync or rollback settles them first). Each graph's sync lock is held while its
runs are pruned, so no sync or rollback of that graph runs meanwhile. Relink's journal
(``relink_*`` tables) is not touched. ``vacuum`` then rewrites the file to return the space.
"""

from __future__ import annotations

import sqlite3
import time

from graph_trust.config import Settings
from graph_trust.errors import InputError, StateStoreError
from graph_trust.sync.report import REPORT_LIMIT, PruneReport
from graph_trust.sync.runs.lock import sync_lock
from graph_trust.sync.store.state import StateStore, now_iso


def prune(settings: Settings, *, keep: int = 30, dry_run: bool = False, vacuum: bool = False) -> PruneReport:
    """Delete the journal of every run older than each graph's newest ``keep`` writing runs."""
    if keep < 1:
        raise InputError(f"keep must be at least 1 (got {keep}): the newest run's journal is always kept")
    t0 = time.monotonic()
    report = PruneReport(keep=keep, dry_run=dry_run)
    store = StateStore.for_settings(settings)
    try:
        report.state_store_bytes_before = _size(store)
        graphs = store.rows("writing_graphs")
        for graph_key, display in graphs:
            if dry_run:
                _prune_graph(store, graph_key, report)
            else:
                with sync_lock(settings.state_dir, graph_key, display):
                    _prune_graph(store, graph_key, report)
        if vacuum and not dry_run:
            try:  # in WAL mode VACUUM writes the new file into the log: copy it back and truncate both
                store.do("vacuum")
                store.do("checkpoint_truncate")
            except sqlite3.Error as exc:
                raise StateStoreError(
                    f"state store {store.path}: VACUUM failed ({exc}); the old runs are pruned all the same, "
                    "run `graph-trust prune --vacuum` again to shrink the file") from None
            report.vacuumed = True
        report.state_store_bytes_after = _size(store)
    finally:
        store.close()
    report.duration_s = round(time.monotonic() - t0, 3)
    return report


def _prune_graph(store: StateStore, graph_key: str, report: PruneReport) -> None:
    boundary = store.one("prune_boundary", graph_key=graph_key, offset=report.keep - 1)
    if boundary is None:  # fewer writing runs than ``keep``
        return
    pending = set(store.runs_with_pending_rows(graph_key))
    for run_id, status in store.rows("runs_before", graph_key=graph_key, seq=boundary):
        if status == "running":
            report.skipped.append({"run_id": run_id, "reason": "still marked running (the next sync settles it)"})
        elif run_id in pending:
            report.skipped.append({"run_id": run_id, "reason": "has pending journal rows (the next sync settles them)"})
        else:
            _prune_run(store, run_id, report)


def _prune_run(store: StateStore, run_id: str, report: PruneReport) -> None:
    if report.dry_run:
        journal = store.one("journal_rows", run_id=run_id)
        quarantine = store.one("quarantine_rows", run_id=run_id)
    else:
        store.recount([run_id])  # its counters stay listed: counted from the journal once more, first
        with store.tx():
            journal = store.changed("delete_journal", run_id=run_id)
            quarantine = store.changed("delete_quarantine", run_id=run_id)
            store.do("mark_pruned", run_id=run_id, at=now_iso())
    report.runs_pruned += 1
    if len(report.pruned) < REPORT_LIMIT:
        report.pruned.append(run_id)
    report.journal_rows_deleted += journal
    report.quarantine_rows_deleted += quarantine


def _size(store: StateStore) -> int:
    """Bytes of the state store: the file and its write-ahead log."""
    return sum(p.stat().st_size for p in (store.path, store.path.with_name(store.path.name + "-wal")) if p.exists())
