"""The review DB (SQLite), read-only: open, schema check, column mapping, streaming reads.

Default schema (``init_review_db`` creates it; docs/sync.md documents it)::

    candidates(id TEXT PRIMARY KEY, subject, predicate, object, fact, status,
               evidence_refs_json, group_id, updated_at, memory_type, sensitivity,
               scope, confidence)

A pipeline DB with other names works through ``settings.review``: ``table`` and
``columns`` (logical name -> actual column). Sync needs ``id``, ``status``,
``evidence_refs_json`` and ``updated_at``; the rest are used when present.
"""

from __future__ import annotations

import functools
import hashlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from graph_trust.config import ReviewSettings
from graph_trust.errors import ReviewDBError
from graph_trust.graph.queries import check_identifier
from graph_trust.sync.state import now_iso

REQUIRED = ("id", "status", "evidence_refs_json", "updated_at")
OPTIONAL = ("group_id", "memory_type", "sensitivity", "scope", "confidence",
            "subject", "predicate", "object", "fact")
LOCK_TIMEOUT_S = 5.0

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


def init_review_db(path: str | Path) -> Path:
    """Create a review DB with the documented schema at ``path`` (idempotent)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    try:
        con = sqlite3.connect(p)
        with con:
            con.executescript(SCHEMA)
        con.close()
    except sqlite3.Error as exc:
        raise ReviewDBError(f"cannot create review DB {p}: {exc}") from None
    return p


def insert_rows(path: str | Path, rows: list[dict[str, Any]]) -> int:
    """Insert or replace candidate rows (dicts with the default column names) into ``path``."""
    con = sqlite3.connect(path)
    try:
        with con:
            con.executemany(
                f"INSERT OR REPLACE INTO candidates ({', '.join(COLUMNS)}) "
                f"VALUES ({', '.join(':' + c for c in COLUMNS)})",
                [{c: r.get(c) for c in COLUMNS} | ({"updated_at": r["updated_at"]} if r.get("updated_at") else
                                                   {"updated_at": now_iso()}) for r in rows],
            )
    finally:
        con.close()
    return len(rows)


def insert_records(path: str | Path, tables: dict[str, list[dict[str, Any]]]) -> dict[str, int]:
    """Insert rows into existing tables of the review DB at ``path`` (``{table: [row, ...]}``, rows
    as dicts of column values), all in one transaction: the confidence records of a bulk load (the
    evaluation's draws; ``review init`` creates the tables). A table or column the DB lacks is a
    ReviewDBError naming it, and nothing is written. Returns the rows inserted per table."""
    p = Path(path)
    try:
        con = sqlite3.connect(p)
        try:
            with con:
                for table, rows in tables.items():
                    have = ({r[1] for r in con.execute(f'PRAGMA table_info("{table}")')}
                            if table.isidentifier() else set())
                    if not have:
                        raise ReviewDBError(f"review DB {p} has no table {table!r} (run graph-trust review init)")
                    cols = list(dict.fromkeys(c for r in rows for c in r))
                    missing = [c for c in cols if c not in have]
                    if missing:
                        raise ReviewDBError(f"review DB {p}: table {table!r} has no column {missing[0]!r}")
                    if rows:
                        names = ", ".join(f'"{c}"' for c in cols)
                        marks = ", ".join("?" * len(cols))
                        con.executemany(f'INSERT INTO "{table}" ({names}) VALUES ({marks})',
                                        [tuple(r.get(c) for c in cols) for r in rows])
        finally:
            con.close()
    except sqlite3.Error as exc:
        raise review_error(p, exc) from None
    return {t: len(rows) for t, rows in tables.items()}


def review_error(path: Path, exc: sqlite3.Error) -> ReviewDBError:
    """One clear line for an SQLite error on the review DB."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return ReviewDBError(f"review DB {path} is locked by a writer ({text}); retry when the pipeline's "
                             "write finishes")
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return ReviewDBError(f"review DB {path} is corrupt or not an SQLite database ({text})")
    if "unable to open" in text:
        return ReviewDBError(f"review DB {path} cannot be opened ({text})")
    return ReviewDBError(f"review DB {path}: {text}")


class ReviewDB:
    """A read-only connection to the review DB with the logical -> actual column mapping."""

    def __init__(self, path: Path, table: str, columns: dict[str, str | None], con: sqlite3.Connection):
        self.path = path
        self.table = table
        self.columns = columns  # logical -> actual column (None: absent)
        self.con = con

    @classmethod
    def open(cls, path: str | Path | None, review: ReviewSettings) -> ReviewDB:
        """Open ``path`` read-only and check the table and required columns exist."""
        raw = path or review.path
        if raw is None:
            raise ReviewDBError("no review DB given: pass --review-db PATH, set GRAPH_TRUST_REVIEW_DB or review.path")
        p = Path(raw).expanduser()
        if not p.is_file():
            raise ReviewDBError(f"review DB {p} does not exist")
        try:
            table = check_identifier(review.table, "review.table")
            mapping = {k: check_identifier(v, f"review.columns.{k}") for k, v in review.columns.items()}
        except ValueError as exc:
            raise ReviewDBError(str(exc)) from None
        unknown = sorted(set(mapping) - set(REQUIRED) - set(OPTIONAL))
        if unknown:
            raise ReviewDBError(f"review.columns has unknown logical name(s): {', '.join(unknown)} "
                                f"(known: {', '.join(REQUIRED + OPTIONAL)})")
        try:
            con = sqlite3.connect(f"file:{quote(str(p.resolve()))}?mode=ro", uri=True,
                                  timeout=LOCK_TIMEOUT_S, isolation_level=None, check_same_thread=False)
            cols = [r[1] for r in con.execute(f'PRAGMA table_info("{table}")')]
        except sqlite3.Error as exc:
            raise review_error(p, exc) from None
        if not cols:
            con.close()
            raise ReviewDBError(f"review DB {p} has no table {table!r} (set review.table)")
        resolved: dict[str, str | None] = {}
        missing = []
        for logical in REQUIRED + OPTIONAL:
            actual = mapping.get(logical, logical)
            if actual in cols:
                resolved[logical] = actual
            elif logical in REQUIRED:
                missing.append(actual if actual == logical else f"{actual} (mapped from {logical})")
            else:
                resolved[logical] = None
        if missing:
            con.close()
            raise ReviewDBError(f"review DB {p} table {table!r} lacks required column(s): {', '.join(missing)}")
        return cls(p, table, resolved, con)

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> ReviewDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def select_sql(self, fields: tuple[str, ...], since: bool = False, schema: str = "main",
                   ordered: bool = True) -> str:
        """``SELECT`` of ``fields`` (logical names; absent optional columns read as NULL), in id
        order unless not ``ordered`` (then in the table's own order: one read per row, not an
        index walk plus a table read); with ``since``, only rows whose ``updated_at`` is at or
        after ``:since`` (rows whose ``updated_at`` is NULL or not a date are always included:
        they cannot be ordered)."""
        parts = []
        for name in fields:
            actual = self.columns.get(name)
            parts.append(f'"{actual}" AS {name}' if actual else f"NULL AS {name}")
        sql = f'SELECT {", ".join(parts)} FROM {schema}."{self.table}"'
        if since:
            col = f'"{self.columns["updated_at"]}"'
            sql += f" WHERE {col} IS NULL OR julianday({col}) IS NULL OR julianday({col}) >= julianday(:since)"
        return sql + (f' ORDER BY "{self.columns["id"]}"' if ordered else "")

    def iter_batches(self, since: str | None = None, batch_size: int = 1000,
                     fields: tuple[str, ...] = ("id", "status", "evidence_refs_json", "group_id",
                                                "memory_type", "sensitivity", "scope")) -> Iterator[list[dict]]:
        """Stream candidate rows in id order, ``batch_size`` at a time, in one read snapshot."""
        try:
            cur = self.con.execute(self.select_sql(fields, since is not None), {"since": since})
            names = [d[0] for d in cur.description]
            while True:
                rows = cur.fetchmany(batch_size)
                if not rows:
                    return
                yield [dict(zip(names, r)) for r in rows]
        except sqlite3.Error as exc:
            raise review_error(self.path, exc) from None

    @functools.cached_property
    def unique_ids(self) -> bool:
        """Whether the id column is declared unique: the table's sole primary key or a one-column
        unique index (a view, or a table without either, may repeat ids). Read once per open."""
        col, table = self.columns["id"], self.table
        try:
            if [r[1] for r in self.con.execute(f'PRAGMA table_info("{table}")') if r[5]] == [col]:
                return True
            for _, name, unique, _, partial in self.con.execute(f'PRAGMA index_list("{table}")'):
                if unique and not partial and [r[2] for r in self.con.execute(f'PRAGMA index_info("{name}")')] == [col]:
                    return True
        except sqlite3.Error as exc:
            raise review_error(self.path, exc) from None
        return False

    def uri(self) -> str:
        """Read-only URI of the file (to ATTACH it to the state store's connection)."""
        return f"file:{quote(str(self.path.resolve()))}?mode=ro"

    def source_key(self) -> str:
        """Identity of this review source (path, table, mapping) for the state store's copy."""
        cols = ",".join(f"{k}={v}" for k, v in sorted(self.columns.items()) if v)
        return hashlib.sha256(f"{self.path.resolve()}|{self.table}|{cols}".encode()).hexdigest()[:16]
