"""Where the vector indexes' measured recall is kept: a table of the state store.

The state store is the local SQLite file sync keeps under the state directory
(``state_dir/state.sqlite3``); this table lives in the same file, and this module is the only
one that reads or writes it, so that search (which reads the measurements to choose its cosine
stage) and sync (which re-measures after large changes) share it without importing each other.
One row per graph address, graph (FalkorDB: a group's graph; Neo4j: the database) and kind of
item (``edge`` / ``node``).

Search opens the file read-only and never creates it: no file (or no table yet) means nothing
was measured, and ``search.cosine: auto`` then keeps the scan.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote

from graph_trust.config import Settings, state_path
from graph_trust.errors import StateStoreError

FILE = "state.sqlite3"  # the sync state store's file (graph_trust.sync.store.state)
# every connection to the state file (this one and the sync state store's) waits this long for
# its lock, and leaves this many log pages (64 MiB at 4 KiB) before a commit checkpoints them
BUSY_TIMEOUT_MS = 30_000
WAL_AUTOCHECKPOINT_PAGES = 16384

SCHEMA = """
CREATE TABLE IF NOT EXISTS vector_index_recall (
    graph TEXT NOT NULL, database TEXT NOT NULL, kind TEXT NOT NULL, measurement_json TEXT NOT NULL,
    PRIMARY KEY (graph, database, kind)
) WITHOUT ROWID;
"""


def store_path(settings: Settings) -> Path:
    """The state store file (created on demand by writers only)."""
    return settings.state_dir / FILE


class RecallStore:
    """Read and write measurements (plain JSON-able dicts) by ``(graph, database, kind)``."""

    def __init__(self, con: sqlite3.Connection | None, path: Path):
        self.con = con  # None: a read-only store whose file does not exist (yet)
        self.path = path

    @classmethod
    def open(cls, settings: Settings) -> RecallStore:
        """The store for writing (creates the state directory, file and table)."""
        path = state_path(settings, FILE)
        try:
            con = sqlite3.connect(f"file:{quote(str(path))}", uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
                                  isolation_level=None, check_same_thread=False)
            con.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            con.execute("PRAGMA journal_mode = WAL")
            # as the sync state store's connection to this file: fsync at checkpoints only, and no
            # checkpoint before the log holds 64 MiB (with SQLite's defaults, this connection's first
            # commit after a sync run copied the run's whole log into the file, with fsyncs)
            con.execute("PRAGMA synchronous = NORMAL")
            con.execute(f"PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT_PAGES}")
            con.executescript(SCHEMA)
        except sqlite3.Error as exc:
            raise StateStoreError(f"state store {path} is unusable: {exc}") from None
        return cls(con, path)

    @classmethod
    def open_read_only(cls, path: str | Path) -> RecallStore:
        """The store for reading; an absent file is an empty store (nothing is created)."""
        path = Path(path)
        if not path.exists():
            return cls(None, path)
        try:
            con = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
                                  check_same_thread=False)
        except sqlite3.Error as exc:
            raise StateStoreError(f"state store {path} is unusable: {exc}") from None
        return cls(con, path)

    def close(self) -> None:
        if self.con is not None:
            self.con.close()

    def __enter__(self) -> RecallStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get(self, graph: str, database: str, kind: str) -> dict[str, Any] | None:
        """The measurement of one index, or None."""
        if self.con is None:
            return None
        try:
            row = self.con.execute("SELECT measurement_json FROM vector_index_recall WHERE graph = ? AND "
                                   "database = ? AND kind = ?", (graph, database, kind)).fetchone()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return None  # a state store no check has written to yet
            raise StateStoreError(f"state store {self.path}: {exc}") from None
        return None if row is None else json.loads(row[0])

    def put(self, graph: str, database: str, kind: str, measurement: dict[str, Any]) -> None:
        self._write("INSERT OR REPLACE INTO vector_index_recall VALUES (?, ?, ?, ?)",
                    (graph, database, kind, json.dumps(measurement, sort_keys=True)))

    def forget(self, graph: str, database: str, kind: str) -> None:
        self._write("DELETE FROM vector_index_recall WHERE graph = ? AND database = ? AND kind = ?",
                    (graph, database, kind))

    def _write(self, sql: str, params: tuple) -> None:
        if self.con is None:
            raise StateStoreError(f"state store {self.path} is open read-only")
        try:
            self.con.execute(sql, params)
        except sqlite3.Error as exc:
            raise StateStoreError(f"state store {self.path}: {exc}") from None
