"""The sync state store: SQLite at ``state_path(settings, "state.sqlite3")`` (WAL, busy timeout).

Tables (created if missing; other features keep their own tables in the same file):

``sync_runs``        one row per run: id, kind (sync | rollback), graph, times, status
                     (running | ok | failed | interrupted | rolled_back), counts, config hash
``sync_journal``     every property change a run made, with the previous value, written
                     *before* the graph write (state ``pending``) and marked ``applied`` or
                     ``void`` after it
``sync_quarantine``  candidates a run could not use, with the reason
``sync_candidates``  the state store's parsed copy of the review DB (per review source and graph),
                     each row with the values it was parsed from, as read (``raw_*``: what a
                     normal run compares the review DB with)
``sync_sources``     per review source and graph: when the copy was last refreshed
``sync_desired``     desired trust per edge (the winning candidate's; labels only, trust_score NULL,
                     when every row citing it has a status whose tier is null), kept up to date incrementally
``sync_touched``     edges whose candidates changed and that no run has written yet
``sync_unmatched``   scored edges the graph did not have at the last attempt (retried every run)
``sync_shadow``      per graph: what the graph holds on each edge carrying trust properties, and
                     the edge's endpoints where a read gave them (a normal run re-aggregates the
                     entities at the ends of an edge whose trust changed or that left the graph)
``sync_graphs``      per graph: when the shadow was last rebuilt from a full scan
``sync_dirty``       entities whose trust must be re-aggregated (survives a crash)
``sync_pruned``      runs whose journal and quarantine rows ``graph-trust prune`` deleted (they
                     can no longer be rolled back)
``sync_tokens``      per review source and graph: the trust-state token its last run left (a
                     different one: someone else wrote the graph since)
``sync_guard_edges`` per graph: the invalidated edges (``invalid_at`` or ``expired_at`` set) as of the
                     guard's last read, with what its change check counts of each
``sync_guard_marks`` per graph: the latest ``expired_at`` that read saw (the next reads from there)
``sync_aggregate_all`` graphs whose every entity must be re-aggregated: a ``--full`` run marks
                     it before its edge phase and clears it after its entity phase, so the
                     next run finishes what a failed one left
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import uuid
from collections.abc import Callable
from contextlib import contextmanager
from datetime import UTC, datetime
from importlib.resources import files
from pathlib import Path
from typing import Any
from urllib.parse import quote

from graph_trust.config import Settings, state_path
from graph_trust.errors import StateStoreError
from graph_trust.graph.recall_store import BUSY_TIMEOUT_MS, WAL_AUTOCHECKPOINT_PAGES
from graph_trust.sync.runs.counts import is_final, journal_counts
from graph_trust.sync.store.named import run, sql

log = logging.getLogger(__name__)

# BUSY_TIMEOUT_MS, WAL_AUTOCHECKPOINT_PAGES: one set for every connection to the state file (the
# recall store opens it too). A commit that leaves more than WAL_AUTOCHECKPOINT_PAGES in the
# write-ahead log copies them into the file itself (with two fsyncs); a sync run also checkpoints
# in the background while it waits for the graph (StateStore.checkpoint_in_background), so its
# commits rarely have to.

SCHEMA = files(__package__).joinpath("schema.sql").read_text(encoding="utf-8")  # every table, created if missing

EDGE_PROPS = ("trust_score", "trust_status", "trust_run_id", "trust_updated_at",
              "memory_type", "sensitivity", "scope")
ENDPOINTS = ("source_uuid", "target_uuid")
# Columns added to a table after its first release: (table, column, type), added on open.
ADDED_COLUMNS = (("sync_shadow", "source_uuid", "TEXT"), ("sync_shadow", "target_uuid", "TEXT"))
COMPARED_PROPS = ("trust_score", "trust_status", "memory_type", "sensitivity", "scope")
ENTITY_PROPS = ("trust_score", "trust_run_id")


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_run_id(kind: str = "sync") -> str:
    """``<kind>-<UTC time>-<random>`` (``sync-``, ``rollback-``, ``relink-``)."""
    return f"{kind}-" + datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + uuid.uuid4().hex[:6]


def connect_state(path: Path) -> sqlite3.Connection:
    """Open (and create) the state store at ``path``: WAL, busy timeout, autocommit mode."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(f"file:{quote(str(path))}", uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
                              isolation_level=None, check_same_thread=False)
        run(con, "set_busy_timeout", ms=str(BUSY_TIMEOUT_MS))
        run(con, "use_wal")
        run(con, "sync_normal")
        run(con, "set_autocheckpoint", pages=str(WAL_AUTOCHECKPOINT_PAGES))
        run(con, "set_cache")
        _drop_old_candidate_copy(con)
        _drop_old_desired_state(con)
        con.executescript(SCHEMA)
        _add_columns(con)
    except sqlite3.Error as exc:
        raise StateStoreError(f"state store {path} is unusable: {exc}") from None
    return con


def _drop_old_candidate_copy(con: sqlite3.Connection) -> None:
    """A copy of the review DB made by a version without content comparison (a rowid table without
    ``raw_*`` columns; it may also hold changes that version missed) is dropped with the sources'
    refresh records: the next run re-reads every review row and compares every edge, as ``--full``."""
    def old() -> bool:
        row = run(con, "candidates_table_sql").fetchone()
        return row is not None and "WITHOUT ROWID" not in row[0].upper()

    _drop_if(con, old, "drop_candidates_table")


def _drop_old_desired_state(con: sqlite3.Connection) -> None:
    """A ``sync_desired`` made by a version without labels-only edges (``trust_score NOT NULL``)
    cannot hold them: it is dropped with the sources' refresh records, so the next run re-reads
    every review row and recomputes the desired state of every edge, as ``--full``."""
    def old() -> bool:
        row = run(con, "desired_table_sql").fetchone()
        return row is not None and "TRUST_SCORE REAL NOT NULL" in " ".join(row[0].upper().split())

    _drop_if(con, old, "drop_desired_table")


def _drop_if(con: sqlite3.Connection, old: Callable[[], bool], drop: str) -> None:
    """Run the statement ``drop`` and forget the sources' refresh records when ``old()`` says the
    table is from an earlier version; checked again inside the transaction, as another process may
    be upgrading the same file."""
    if not old():
        return
    run(con, "begin_immediate")
    try:
        if old():
            run(con, drop)
            run(con, "forget_sources")
    except BaseException:
        run(con, "rollback")
        raise
    run(con, "commit")


def _add_columns(con: sqlite3.Connection) -> None:
    """Bring a state store made by an earlier version up to date (``ADDED_COLUMNS``)."""
    def missing() -> list[tuple[str, str, str]]:
        have = {(t, r[1]) for t in {a[0] for a in ADDED_COLUMNS} for r in run(con, "table_columns", table=t)}
        return [a for a in ADDED_COLUMNS if a[:2] not in have]

    if missing():
        run(con, "begin_immediate")  # another process may be upgrading the same file
        try:
            for table, column, kind in missing():
                run(con, "add_column", table=table, column=column, kind=kind)
        except BaseException:
            run(con, "rollback")
            raise
        run(con, "commit")


class StateStore:
    """Runs, journal, quarantine and the sync caches, in one SQLite file."""

    def __init__(self, path: Path):
        self.path = path
        self.con = connect_state(path)

    @classmethod
    def for_settings(cls, settings: Settings) -> StateStore:
        return cls(state_path(settings, "state.sqlite3"))

    def close(self) -> None:
        self.con.close()

    def checkpoint_in_background(self) -> threading.Thread:
        """Copy the write-ahead log into the database file from a worker thread with its own
        connection (a passive checkpoint: it never blocks this connection's transactions).
        Join the returned thread before the process may exit."""
        def checkpoint() -> None:
            try:
                con = sqlite3.connect(f"file:{quote(str(self.path))}", uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
                try:
                    run(con, "checkpoint_passive")
                finally:
                    con.close()
            except sqlite3.Error as exc:  # the next commit's own checkpoint does it instead
                log.debug("background checkpoint of %s: %s", self.path, exc)

        thread = threading.Thread(target=checkpoint, name="state-checkpoint", daemon=True)
        thread.start()
        return thread

    @contextmanager
    def tx(self):
        """One IMMEDIATE transaction (committed on success, rolled back on error)."""
        try:
            run(self.con, "begin_immediate")
        except sqlite3.Error as exc:
            raise StateStoreError(f"state store {self.path}: {exc}") from None
        try:
            yield self.con
        except BaseException:
            run(self.con, "rollback")
            raise
        else:
            try:
                run(self.con, "commit")
            except sqlite3.Error as exc:
                raise StateStoreError(f"state store {self.path}: {exc}") from None

    # -- statements by name (graph_trust.sync.store.named) --

    def do(self, name: str, **params: Any) -> None:
        """Run the statement ``name`` (in the caller's transaction, if any)."""
        self.con.execute(sql(name), params)

    def do_many(self, name: str, params: list[dict[str, Any]] | list[tuple]) -> None:
        """Run the statement ``name`` once per parameter set (in the caller's transaction, if any)."""
        self.con.executemany(sql(name), params)

    def one(self, name: str, **params: Any) -> Any:
        """The first column of the statement's first row, or None when it has none."""
        row = self.con.execute(sql(name), params).fetchone()
        return None if row is None else row[0]

    def cursor(self, name: str, **params: Any) -> sqlite3.Cursor:
        """The statement's cursor (for rows read a batch at a time)."""
        return self.con.execute(sql(name), params)

    def changed(self, name: str, **params: Any) -> int:
        """Run the statement ``name``; the rows it changed."""
        return self.con.execute(sql(name), params).rowcount

    def rows(self, name: str, **params: Any) -> list[tuple]:
        return self.con.execute(sql(name), params).fetchall()

    def graphs_in_scope(self, source: str, graph_key: str) -> set[str]:
        """The graphs with candidates or touched rows of ``source``, or shadow or dirty rows of ``graph_key``."""
        names: set[str] = set()
        for table, key, value in (("sync_candidates", "source", source), ("sync_touched", "source", source),
                                  ("sync_shadow", "graph_key", graph_key), ("sync_dirty", "graph_key", graph_key)):
            names.update(distinct_graphs(self.con, table, key, value))
        return names

    def unmatched(self, source: str, limit: int) -> tuple[int, list[dict[str, Any]]]:
        """This run's scored candidates whose edge it did not find (temp.unmatched): how many, and
        the first ``limit`` by id."""
        return self.one("unmatched_count", source=source), [
            {"id": i, "edge_uuid": u, "graph": g} for i, u, g in self.rows("unmatched_candidates", source=source,
                                                                            limit=limit)]

    def graphs_of_shadow(self, graph_key: str) -> list[str]:
        return distinct_graphs(self.con, "sync_shadow", "graph_key", graph_key)

    def graphs_of_candidates(self, source: str) -> list[str]:
        return distinct_graphs(self.con, "sync_candidates", "source", source)

    # -- runs --

    def start_run(self, *, kind: str, graph_key: str, graph: str, dry_run: bool, full: bool,
                  config_hash: str, target_run: str | None = None, pid: int | None = None) -> tuple[str, str]:
        """Insert a running run; returns ``(run_id, started_at)``."""
        run_id, started = new_run_id(kind), now_iso()
        with self.tx():
            self.do("add_run", run_id=run_id, seq=self.one("next_run_seq"), kind=kind, graph_key=graph_key, graph=graph,
                    started_at=started, dry_run=int(dry_run), full=int(full), config_hash=config_hash, pid=pid,
                    target_run=target_run)
        return run_id, started

    def finish_run(self, run_id: str, status: str, counts: dict[str, Any] | None = None,
                   error: str | None = None) -> dict[str, Any]:
        """Record the run's end; its counters of what it changed are counted from its journal in
        the same transaction (:mod:`~graph_trust.sync.runs.counts`; ``counts`` gives the others).
        Returns the counts recorded."""
        with self.tx() as c:
            counts = {**(counts or {}), **self._journal_counts(c, run_id)}
            run(c, "finish_run", {"status": status, "ended_at": now_iso(), "counts_json": json.dumps(counts, sort_keys=True),
                                  "error": error, "run_id": run_id})
        return counts

    def update_counts(self, run_id: str, counts: dict[str, Any]) -> None:
        """Record a running run's counters so far (what a run killed outright is listed with; those
        counted from the journal are counted when it is listed or settled)."""
        with self.tx():
            self.do("update_running_counts", counts_json=json.dumps(counts, sort_keys=True), run_id=run_id)

    def recount(self, run_ids: list[str]) -> None:
        """Count again, from the journal, the counters of runs whose pending rows were settled."""
        for run_id in run_ids:
            with self.tx() as c:
                row = run(c, "run_counts", {"run_id": run_id}).fetchone()
                if row is not None:
                    counts = {**json.loads(row[0] or "{}"), **self._journal_counts(c, run_id)}
                    run(c, "set_run_counts", {"counts_json": json.dumps(counts, sort_keys=True), "run_id": run_id})

    @staticmethod
    def _journal_counts(c: sqlite3.Connection, run_id: str) -> dict[str, int]:
        """The run's journal-derived counters (none for a dry run, which journals nothing)."""
        row = run(c, "run_kind", {"run_id": run_id}).fetchone()
        return {} if row is None or row[1] else journal_counts(c, run_id, row[0])

    def _live(self, run: dict[str, Any]) -> dict[str, Any]:
        """``run`` with its journal-derived counters counted now while they can still change (it is
        running, or rows it journaled are pending) and its journal is there to count."""
        if (run["status"] == "running" or not is_final(run["kind"], run["counts"])) and not run["dry_run"] \
                and not run["journal_pruned_at"]:
            run["counts"] = {**run["counts"], **journal_counts(self.con, run["run_id"], run["kind"])}
        return run

    def run(self, run_id: str) -> dict[str, Any] | None:
        """One run (with when ``graph-trust prune`` deleted its journal: None, never), or None."""
        cur = self.cursor("run_row", run_id=run_id)
        row = cur.fetchone()
        return None if row is None else self._live(_run_dict(cur.description, row))

    def runs(self, graph_key: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        cur = (self.cursor("run_rows", limit=limit) if graph_key is None
               else self.cursor("run_rows_of_graph", graph_key=graph_key, limit=limit))
        return [self._live(_run_dict(cur.description, r)) for r in cur.fetchall()]

    def last_ok_start(self, graph_key: str) -> str | None:
        return self.one("last_ok_start", graph_key=graph_key)

    def runs_with_pending_rows(self, graph_key: str) -> list[str]:
        """Runs of this graph with journal rows not yet settled."""
        return [r[0] for r in self.rows("runs_with_pending_rows", graph_key=graph_key)]

    def unfinished_runs(self, graph_key: str) -> list[str]:
        """Runs still marked running for this graph (their process died; the caller holds the lock)."""
        return [r[0] for r in self.rows("unfinished_runs", graph_key=graph_key)]

    # -- quarantine --

    def add_quarantine(self, run_id: str, rows: list[tuple[str, str]]) -> None:
        if rows:
            with self.tx():
                self.do_many("add_quarantine", [(run_id, i, r) for i, r in rows])


def _run_dict(description, row) -> dict[str, Any]:
    d = dict(zip([x[0] for x in description], row))
    d["counts"] = json.loads(d.pop("counts_json") or "{}")
    d["dry_run"] = bool(d["dry_run"])
    d["full"] = bool(d["full"])
    return d


def distinct_graphs(con: sqlite3.Connection, table: str, key: str, value: str) -> list[str]:
    """``SELECT DISTINCT graph FROM table WHERE key = value`` as index seeks (one per graph) on the
    table's ``(key, graph, uuid)`` primary key instead of a scan of every row."""
    return [row[0] for row in run(con, "distinct_graphs", {"v": value}, table=table, key=key)]
