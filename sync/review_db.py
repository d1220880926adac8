"""The review DB's candidates, read-only for sync: open, schema check, column mapping, streaming reads.

The review DB is an SQLite file or a PostgreSQL database (``review.url``; the connection is
:class:`graph_trust.review.db.ReviewConn`). Default schema (``init_review_db`` creates it on
either; docs/sync.md documents it)::

    candidates(id TEXT PRIMARY KEY, subject, predicate, object, fact, status,
               evidence_refs_json, group_id, updated_at, memory_type, sensitivity,
               scope, confidence)

A pipeline DB with other names works through ``settings.review``: ``table`` and
``columns`` (logical name -> actual column). Sync needs ``id``, ``status``,
``evidence_refs_json`` and ``updated_at``; the rest are used when present.

Sync compares the review rows with its state store's copy in SQLite, the review DB ATTACHed
(:meth:`ReviewDB.uri`). A PostgreSQL review DB is read for that once per open, in one
``REPEATABLE READ`` snapshot streamed in batches into a local SQLite file (the columns sync reads;
JSON, times and numbers as text and numbers), which is what gets ATTACHed.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import functools
import hashlib
import json
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from graph_trust.config import ReviewSettings
from graph_trust.errors import ReviewDBError
from graph_trust.review.candidates import open_candidates
from graph_trust.review.db import Location, ReviewConn, init_hint, run_script
from graph_trust.sync.store.state import now_iso

SCHEMA = """
CREATE TABLE IF NOT EXISTS candidates (
    id TEXT PRIMARY KEY,
    subject TEXT,
    predicate TEXT,
    object TEXT,
    fact TEXT,
    status TEXT NOT NULL CHECK (status IN ('candidate', 'corroborated', 'promoted', 'rejected', 'expired')),
    evidence_refs_json TEXT NOT NULL DEFAULT '[]',
    group_id TEXT,
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    memory_type TEXT,
    sensitivity TEXT,
    scope TEXT,
    confidence REAL
);
CREATE INDEX IF NOT EXISTS candidates_updated_at ON candidates (updated_at);
"""

COLUMNS = ("id", "subject", "predicate", "object", "fact", "status", "evidence_refs_json",
           "group_id", "updated_at", "memory_type", "sensitivity", "scope", "confidence")
# The review columns sync reads (logical names; see ReviewDB.select_sql): what a PostgreSQL review
# DB's snapshot holds, with updated_at.
REVIEW_FIELDS = ("id", "status", "evidence_refs_json", "group_id", "memory_type", "sensitivity", "scope")
# PostgreSQL types whose values psycopg gives as SQLite holds them (text, integers, floats; numeric
# through graph_trust.review.db's loader); the others go through plain()
_SIMPLE_OIDS = frozenset({25, 1043, 1042, 19, 20, 21, 23, 700, 701, 1700})
SNAPSHOT_BATCH = 5000  # rows per fetch of a PostgreSQL review DB's snapshot


def init_review_db(where: str | Path | Location) -> Path | str:
    """Create a review DB with the documented schema at ``where`` (a path or a PostgreSQL URL;
    idempotent). Returns its path (SQLite) or its URL (PostgreSQL)."""
    with ReviewConn.open(where, create=True) as conn:
        try:
            conn.write(lambda c: run_script(c, SCHEMA))
        except ReviewDBError as exc:
            raise ReviewDBError(f"cannot create {exc}") from None
        return conn.location.target if conn.pg else Path(conn.location.target)


def insert_rows(where: str | Path | Location, rows: list[dict[str, Any]]) -> int:
    """Insert or replace candidate rows (dicts with the default column names) at ``where``."""
    sql = (f"INSERT INTO candidates ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))}) "
           f"ON CONFLICT (id) DO UPDATE SET " + ", ".join(f"{c} = excluded.{c}" for c in COLUMNS[1:]))
    defaults = {"evidence_refs_json": "[]"}  # (the column's default where a row gives none)
    values = [tuple(r.get(c) if r.get(c) is not None else defaults.get(c) for c in COLUMNS[:8])
              + (r.get("updated_at") or now_iso(),) + tuple(r.get(c) for c in COLUMNS[9:]) for r in rows]
    with ReviewConn.open(where) as conn:
        conn.write(lambda c: c.executemany(sql, values))
    return len(rows)


def demo_review_db(path: Path, rows: list[dict[str, Any]], *, init: Callable[[Path], Any],
                   records: dict[str, list[dict[str, Any]]] | None = None, reset: bool = False) -> None:
    """The demo's review DB at ``path``: made the first time (or with ``reset``) by ``init`` (every
    table), with ``rows`` and ``records``, and moved into place atomically; later it keeps
    everything in it (decisions, the retrieval log, flags, confidence records), is completed in
    place by ``init`` and gets only the sample ``rows`` whose id it lacks."""
    if reset or not path.exists():
        tmp = path.with_suffix(".tmp")
        tmp.unlink(missing_ok=True)
        init(tmp)
        insert_rows(tmp, rows)
        if records:
            insert_records(tmp, records)
        os.replace(tmp, path)
        return
    init(path)  # (completes an older demo's DB in place)
    with ReviewConn.open(path, readonly=True) as conn:  # (the sample's own schema)
        have = {str(r[0]) for r in conn.query("SELECT id FROM candidates")}
    insert_rows(path, [r for r in rows if str(r["id"]) not in have])


def insert_records(where: str | Path | Location, tables: dict[str, list[dict[str, Any]]]) -> dict[str, int]:
    """Insert rows into existing tables of the review DB at ``where`` (``{table: [row, ...]}``, rows
    as dicts of column values), all in one transaction: the confidence records of a bulk load (the
    evaluation's draws; ``review init`` creates the tables). A table or column the DB lacks is a
    ReviewDBError naming it, and nothing is written. Returns the rows inserted per table."""
    with ReviewConn.open(where) as conn:
        def load(c: ReviewConn) -> None:
            for table, rows in tables.items():
                have = set(c.columns(table)) if table.isidentifier() else set()
                if not have:
                    raise ReviewDBError(f"review DB {c.location} has no table {table!r} ({init_hint(c.location)})")
                cols = list(dict.fromkeys(col for r in rows for col in r))
                missing = [col for col in cols if col not in have]
                if missing:
                    raise ReviewDBError(f"review DB {c.location}: table {table!r} has no column {missing[0]!r}")
                if rows:
                    names = ", ".join(f'"{col}"' for col in cols)
                    c.executemany(f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" * len(cols))})',
                                  [tuple(r.get(col) for col in cols) for r in rows])
        conn.write(load)
    return {t: len(rows) for t, rows in tables.items()}


def _plain_rows(rows: list[tuple], need: list[int]) -> list[tuple]:
    """``rows`` with :func:`plain` applied to the columns ``need`` (the others pass without a copy)."""
    if not need:
        return rows
    return [tuple(plain(v) if i in need else v for i, v in enumerate(r)) for r in rows]


def plain(value: Any) -> Any:
    """A value of a PostgreSQL row as SQLite would hold it: JSON documents as their text, times as
    ISO 8601 text, decimals as floats; text, numbers, bytes and NULL as they are."""
    if value is None or isinstance(value, (str, int, float, bytes)):
        return value
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    if isinstance(value, _dt.datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, (_dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, memoryview):
        return bytes(value)
    return str(value)


class ReviewDB:
    """A read-only connection to the review DB with the logical -> actual column mapping."""

    def __init__(self, location: Location, table: str, columns: dict[str, str | None], conn: ReviewConn):
        self.location = location
        self.table = table
        self.columns = columns  # logical -> actual column (None: absent)
        self.conn = conn
        self._snapshot_dir: str | None = None

    @property
    def path(self) -> str:
        """The review DB as messages name it (a file path, or a PostgreSQL URL without password)."""
        return self.location.display

    @classmethod
    def open(cls, where: str | Path | Location | None, review: ReviewSettings) -> ReviewDB:
        """Open ``where`` (default: the settings' ``review.url`` / ``review.path``) read-only and
        check the table and required columns exist."""
        conn, cand = open_candidates(where, review, readonly=True)
        return cls(conn.location, cand.table, cand.columns, conn)

    def close(self) -> None:
        self.conn.close()
        if self._snapshot_dir is not None:
            shutil.rmtree(self._snapshot_dir, ignore_errors=True)
            self._snapshot_dir = None

    def __enter__(self) -> ReviewDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def select_sql(self, fields: tuple[str, ...], since: bool = False, schema: str | None = "main",
                   ordered: bool = True) -> str:
        """``SELECT`` of ``fields`` (logical names; absent optional columns read as NULL), in id
        order unless not ``ordered`` (then in the table's own order: one read per row, not an
        index walk plus a table read); with ``since`` (SQLite), only rows whose ``updated_at`` is
        at or after ``:since`` (rows whose ``updated_at`` is NULL or not a date are always
        included: they cannot be ordered). ``schema`` None: the table unqualified."""
        parts = []
        for name in fields:
            actual = self.columns.get(name)
            parts.append(f'"{actual}" AS {name}' if actual else f"NULL AS {name}")
        where = f'{schema}."{self.table}"' if schema else f'"{self.table}"'
        sql = f'SELECT {", ".join(parts)} FROM {where}'
        if since:
            col = f'"{self.columns["updated_at"]}"'
            sql += f" WHERE {col} IS NULL OR julianday({col}) IS NULL OR julianday({col}) >= julianday(:since)"
        return sql + (f' ORDER BY "{self.columns["id"]}"' if ordered else "")

    def iter_batches(self, batch_size: int = 1000,
                     fields: tuple[str, ...] = ("id", "status", "evidence_refs_json", "group_id",
                                                "memory_type", "sensitivity", "scope")) -> Iterator[list[dict]]:
        """Stream candidate rows in id order, ``batch_size`` at a time, in one read snapshot."""
        for names, rows in self._stream(self.select_sql(fields, schema=None), batch_size):
            yield [dict(zip(names, r)) for r in rows]

    def _stream(self, sql: str, batch_size: int) -> Iterator[tuple[list[str], list[tuple]]]:
        """(column names, rows) batches of ``sql``, all in one read snapshot, values as SQLite
        holds them (:func:`plain`)."""
        c = self.conn
        with c.snapshot():
            try:
                if c.pg:
                    with c.raw.cursor(name="graph_trust_review_read") as cur:
                        cur.itersize = batch_size
                        cur.execute(sql)
                        names = [d[0] for d in cur.description]
                        need = [i for i, d in enumerate(cur.description) if d.type_code not in _SIMPLE_OIDS]
                        while rows := cur.fetchmany(batch_size):
                            yield names, _plain_rows(rows, need)
                else:
                    cur = c.raw.execute(sql)
                    names = [d[0] for d in cur.description]
                    while rows := cur.fetchmany(batch_size):
                        yield names, rows
            except c.errors as exc:
                raise c.error(exc) from None

    @functools.cached_property
    def unique_ids(self) -> bool:
        """Whether the id column is declared unique: the table's sole primary key or a one-column
        unique index (a view, or a table without either, may repeat ids). Read once per open."""
        return [self.columns["id"]] in self.conn.unique_keys(self.table)

    def uri(self) -> str:
        """Read-only URI of an SQLite file holding the review table (to ATTACH it to the state
        store's connection): the review DB itself, or the snapshot of a PostgreSQL one."""
        if not self.conn.pg:
            return f"file:{quote(str(Path(self.location.target).resolve()))}?mode=ro"
        if self._snapshot_dir is None:
            self._snapshot_dir = tempfile.mkdtemp(prefix="graph-trust-review-")
            try:
                self._write_snapshot(Path(self._snapshot_dir) / "review.sqlite3")
            except BaseException:
                shutil.rmtree(self._snapshot_dir, ignore_errors=True)
                self._snapshot_dir = None
                raise
        return f"file:{quote(str(Path(self._snapshot_dir) / 'review.sqlite3'))}?mode=ro"

    def _write_snapshot(self, path: Path) -> None:
        """The columns sync reads (``REVIEW_FIELDS`` and ``updated_at``) of the review table, read in
        one snapshot, into an SQLite file of the same table and column names."""
        cols = [c for c in dict.fromkeys(self.columns.get(f) for f in (*REVIEW_FIELDS, "updated_at")) if c]
        decl = ", ".join(f'"{c}"' for c in cols)  # (no key: sync looks rows up in its own copy, not here)
        out = sqlite3.connect(path, isolation_level=None)
        try:
            out.execute("PRAGMA journal_mode = OFF")
            out.execute("PRAGMA synchronous = OFF")
            out.execute(f'CREATE TABLE "{self.table}" ({decl})')
            insert = f'INSERT INTO "{self.table}" VALUES ({", ".join("?" * len(cols))})'
            out.execute("BEGIN")
            names = ", ".join(f'"{c}"' for c in cols)
            for _, rows in self._stream(f'SELECT {names} FROM "{self.table}"', SNAPSHOT_BATCH):
                out.executemany(insert, rows)
            out.execute("COMMIT")
        finally:
            out.close()

    @property
    def identity(self) -> str:
        """The review DB's name for keys: the resolved file path, or the URL without password."""
        return self.location.display if self.conn.pg else str(Path(self.location.target).resolve())

    def source_key(self) -> str:
        """Identity of this review source (location, table, mapping) for the state store's copy."""
        cols = ",".join(f"{k}={v}" for k, v in sorted(self.columns.items()) if v)
        return hashlib.sha256(f"{self.identity}|{self.table}|{cols}".encode()).hexdigest()[:16]
