"""One connection to the review DB, SQLite or PostgreSQL, behind one small interface.

The review DB may be shared by people, agents and jobs on several machines, so it is an SQLite
file (the default) or a PostgreSQL database (``review.url: postgresql://...``, psycopg 3, the
``postgres`` extra). Everything that reads or writes it goes through :class:`ReviewConn`:

- SQL is written once, with ``?`` placeholders (as :mod:`sqlite3` takes them); on PostgreSQL
  they become psycopg's ``%s`` (:func:`pg_sql`). The few expressions the dialects spell
  differently are methods here (:meth:`ReviewConn.julian`, :meth:`ReviewConn.same`,
  :meth:`ReviewConn.first_evidence_id`, ...), and so is the catalog (tables, columns, unique keys).
- :meth:`ReviewConn.write` runs a function in one write transaction: SQLite's ``BEGIN
  IMMEDIATE`` (writers queue on the file lock), PostgreSQL's ``SERIALIZABLE``, retried from the
  start on a serialization failure or deadlock. Several writers at once lose no update, provided
  each transaction reads what it decides on inside the function.
- :meth:`ReviewConn.snapshot` is one consistent read (SQLite's deferred transaction, PostgreSQL's
  ``REPEATABLE READ READ ONLY``).

Errors of either driver become one :class:`~graph_trust.errors.ReviewDBError` line naming the
DB; a PostgreSQL address is parsed by libpq and shown without its secrets
(:mod:`graph_trust.review.conninfo`). PostgreSQL 15 or newer is required: bad dates and bad JSON
are a miss, as SQLite's functions make them (16's ``pg_input_is_valid`` and ``IS JSON``; on 15 two
functions of the session's own ``pg_temp`` schema do the same).

Every wait on PostgreSQL is bounded (:class:`Limits`, the ``review.*_timeout_s`` settings): the
connection attempt, each statement (the server's ``statement_timeout``, and the client gives up
on a server that does not answer at all, e.g. a frozen backend, ``ANSWER_MARGIN_S`` later), each
lock wait (``lock_timeout``; SQLite's busy timeout), and TCP keepalives notice a peer that is gone.
"""

from __future__ import annotations

import functools
import random
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar
from urllib.parse import quote

from graph_trust.config import ReviewSettings
from graph_trust.errors import ConfigError, ReviewDBError
from graph_trust.review import conninfo

Dialect = Literal["sqlite", "postgresql"]
LOCK_TIMEOUT_S = 5.0  # the default of review.lock_timeout_s
PG_MIN_VERSION = 150000  # PostgreSQL 15 (Debian 12's)
PG_NATIVE_CHECKS = 160000  # pg_input_is_valid and IS JSON
ANSWER_MARGIN_S = 5.0  # the client waits this much longer than statement_timeout for any answer
WRITE_RETRIES = 30  # PostgreSQL: serialization failures retried per write transaction
T = TypeVar("T")


@dataclass(frozen=True)
class Limits:
    """How long a review DB connection waits (the ``review.*_timeout_s`` settings; docs/review.md,
    "Bounded waits"). SQLite uses ``lock_timeout_s`` only."""

    connect_timeout_s: float = 10.0
    statement_timeout_s: float = 60.0
    lock_timeout_s: float = LOCK_TIMEOUT_S
    keepalive_idle_s: int = 30

    @classmethod
    def of(cls, review: ReviewSettings) -> Limits:
        """The waits the ``review`` settings section sets."""
        return cls(review.connect_timeout_s, review.statement_timeout_s, review.lock_timeout_s, review.keepalive_idle_s)

    @property
    def answer_within_s(self) -> float:
        """How long the client waits for any answer of the server before it closes the connection."""
        return self.statement_timeout_s + ANSWER_MARGIN_S


@dataclass(frozen=True)
class Location:
    """Where the review DB is: ``target`` opens it (a file path, or the PostgreSQL connection
    string with any password: never shown, not even by repr), ``display`` names it in messages
    and reports (:func:`graph_trust.review.conninfo.shown`), ``limits`` bound its waits."""

    dialect: Dialect
    target: str = field(repr=False)
    display: str
    limits: Limits = field(default_factory=Limits, compare=False)

    def __str__(self) -> str:
        return self.display

    @property
    def path(self) -> Path | None:
        """The SQLite file (None on PostgreSQL)."""
        return Path(self.target) if self.dialect == "sqlite" else None


def parse_location(raw: str | Path, limits: Limits | None = None) -> Location:
    """A review DB address: ``postgresql://...`` (or ``postgres://``), a libpq key=value string
    (``host=... dbname=...``), ``sqlite:///PATH``, or a path."""
    text = str(raw).strip()
    limits = limits or Limits()
    if not text:
        raise ConfigError("review DB address is empty: give a path or a postgresql:// URL")
    if text.startswith(conninfo.URL_PREFIXES) or conninfo.looks_like_conninfo(text):
        return Location("postgresql", text, conninfo.parse(text).display, limits)
    if "://" in text and not text.startswith("sqlite://"):
        raise ConfigError(f"review DB address {text.split('://')[0]}://... is neither a path, sqlite:///PATH "
                          "nor postgresql://...")
    if text.startswith("sqlite://"):
        text = text[len("sqlite://"):]
        if text.startswith("/") and text[1:2] == "/":  # sqlite:////abs -> /abs
            text = text[1:]
    p = Path(text).expanduser()
    return Location("sqlite", str(p), str(p), limits)


def init_hint(where: object) -> str:
    """The one hint for a review DB that lacks tables graph-trust made (``where``: its location)."""
    return f"run graph-trust review init --review-db {display_location(where)}"


def display_location(raw: object) -> str:
    """The one rendering of any review DB location for people (messages, reports, the page, the
    state store): a path, or a PostgreSQL address without secrets; never raises on a bad one."""
    if isinstance(raw, Location):
        return raw.display
    if not isinstance(raw, str | Path):
        return str(raw)
    try:
        return parse_location(raw).display
    except ConfigError:
        return conninfo.scrub(str(raw)) if "://" not in str(raw) and "=" not in str(raw) else "(a bad address)"


@functools.lru_cache(maxsize=1024)
def pg_sql(sql: str, has_params: bool) -> str:
    """``sql`` with ``?`` placeholders as psycopg takes them (``%s``, and ``%`` doubled), outside
    string literals, quoted identifiers and comments; unchanged when no parameters are passed
    (psycopg then sends the text as it is)."""
    if not has_params:
        return sql
    out: list[str] = []
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in "'\"":
            j = i + 1
            while j < n:
                if sql[j] == ch:
                    if j + 1 < n and sql[j + 1] == ch:  # '' inside a literal
                        j += 2
                        continue
                    break
                j += 1
            out.append(sql[i:j + 1].replace("%", "%%"))
            i = j + 1
        elif ch == "-" and sql.startswith("--", i):
            j = sql.find("\n", i)
            j = n if j < 0 else j
            out.append(sql[i:j].replace("%", "%%"))
            i = j
        elif ch == "?":
            out.append("%s")
            i += 1
        elif ch == "%":
            out.append("%%")
            i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def review_error(where: object, exc: Exception) -> ReviewDBError:
    """One clear line for a driver error on the review DB ``where`` (PostgreSQL's SQLSTATE kept
    as ``.sqlstate``, so a write transaction can tell a conflict to retry)."""
    text = conninfo.scrub(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)
    state = getattr(exc, "sqlstate", None)
    limits = where.limits if isinstance(where, Location) else None
    if isinstance(exc, AnswerTimeout):
        err = ReviewDBError(f"review DB {where} did not answer within {exc.seconds:g} s (the server or the network "
                            "is stuck; the connection was closed: review.statement_timeout_s + 5 s)")
    elif state == "55P03":
        err = ReviewDBError(f"review DB {where}: gave up waiting for a lock another session holds"
                            + (f" after {limits.lock_timeout_s:g} s" if limits else "")
                            + " (review.lock_timeout_s); nothing was written, retry when it is released")
    elif state == "57014":
        err = ReviewDBError(f"review DB {where}: a statement ran longer than review.statement_timeout_s"
                            + (f" ({limits.statement_timeout_s:g} s)" if limits else "") + " and was cancelled")
    elif "locked" in text or "busy" in text:
        err = ReviewDBError(f"review DB {where} is locked by a writer ({text}); retry when the pipeline's "
                            "write finishes")
    elif "not a database" in text or "malformed" in text or "corrupt" in text:
        err = ReviewDBError(f"review DB {where} is corrupt or not an SQLite database ({text})")
    elif "unable to open" in text:
        err = ReviewDBError(f"review DB {where} cannot be opened ({text})")
    else:
        err = ReviewDBError(f"review DB {where}: {text}")
    err.sqlstate = getattr(exc, "sqlstate", None)  # type: ignore[attr-defined]
    return err


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise ConfigError("a PostgreSQL review DB needs psycopg: pip install 'graph-trust[postgres]'") from None
    return psycopg


def _driver_errors() -> tuple[type[Exception], ...]:
    try:
        import psycopg
    except ImportError:
        return (sqlite3.Error,)
    return (sqlite3.Error, psycopg.Error, AnswerTimeout)


class ReviewConn:
    """One connection to the review DB (see the module docstring). ``raw`` is the driver's
    connection (:class:`sqlite3.Connection` or :class:`psycopg.Connection`, autocommit: every
    transaction is explicit)."""

    def __init__(self, location: Location, raw: Any, readonly: bool):
        self.location, self.raw, self.readonly = location, raw, readonly
        self.dialect: Dialect = location.dialect
        self.pg = self.dialect == "postgresql"
        self.errors = _driver_errors()
        self.native_checks = not self.pg or raw.info.server_version >= PG_NATIVE_CHECKS

    # --- opening ------------------------------------------------------------------------------

    @classmethod
    def open(cls, location: Location | str | Path, *, readonly: bool = False, create: bool = False) -> ReviewConn:
        """Open the review DB; ``readonly`` makes every write fail; ``create`` makes a missing
        SQLite file (otherwise a missing one is an error naming it)."""
        loc = location if isinstance(location, Location) else parse_location(location)
        if loc.dialect == "postgresql":
            return cls._open_pg(loc, readonly)
        p = Path(loc.target)
        if create:
            p.parent.mkdir(parents=True, exist_ok=True)
        elif not p.is_file():
            raise ReviewDBError(f"review DB {p} does not exist")
        mode = "ro" if readonly else ("rwc" if create else "rw")
        try:
            raw = sqlite3.connect(f"file:{quote(str(p.resolve()))}?mode={mode}", uri=True, timeout=loc.limits.lock_timeout_s,
                                  isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise review_error(loc, exc) from None
        return cls(loc, raw, readonly)

    @classmethod
    def _open_pg(cls, loc: Location, readonly: bool) -> ReviewConn:
        psycopg = _psycopg()
        lim = loc.limits
        try:
            raw = _bounded_connection(psycopg).connect(
                loc.target, autocommit=True, connect_timeout=max(1, round(lim.connect_timeout_s)), keepalives=1,
                keepalives_idle=lim.keepalive_idle_s, keepalives_interval=max(1, lim.keepalive_idle_s // 3),
                keepalives_count=3, tcp_user_timeout=int(lim.answer_within_s * 1000))
        except psycopg.Error as exc:
            raise review_error(loc, exc) from None
        raw.answer_within_s = lim.answer_within_s
        raw.adapters.register_loader("numeric", _numeric_loader(psycopg))
        try:
            version = raw.info.server_version
            if version < PG_MIN_VERSION:
                found = raw.info.parameter_status("server_version") or str(version)
                raw.close()
                raise ReviewDBError(f"review DB {loc}: PostgreSQL {found.split()[0]} found; "
                                    f"{_version_name(PG_MIN_VERSION)} or newer is needed")
            # times without a zone are UTC, as SQLite reads them; every wait is bounded; a read-only
            # open refuses every write
            raw.execute(f"SET TIME ZONE 'UTC'; SET statement_timeout = {int(lim.statement_timeout_s * 1000)}; "
                        f"SET lock_timeout = {int(lim.lock_timeout_s * 1000)}")
            if version < PG_NATIVE_CHECKS:
                raw.execute(PG15_CHECKS)
            if readonly:
                raw.execute("SET default_transaction_read_only = on")
        except psycopg.Error as exc:
            raw.close()
            raise review_error(loc, exc) from None
        return cls(loc, raw, readonly)

    def close(self) -> None:
        try:
            self.raw.close()
        except self.errors:
            pass

    def __enter__(self) -> ReviewConn:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- statements ---------------------------------------------------------------------------

    def error(self, exc: Exception) -> ReviewDBError:
        return review_error(self.location, exc)

    def execute(self, sql: str, params: Any = ()) -> Any:
        """Run one statement; returns the driver's cursor (``fetchall``, ``fetchone``, ``rowcount``,
        ``description``). Driver errors propagate (callers map them with :meth:`error`)."""
        if not self.pg:
            return self.raw.execute(sql, params)
        cur = self.raw.cursor()
        cur.execute(pg_sql(sql, bool(params)), params or None)
        return cur

    def executemany(self, sql: str, rows: list[Any] | Iterator[Any]) -> int:
        """Run ``sql`` once per row; returns the rows changed."""
        if not self.pg:
            return max(self.raw.executemany(sql, rows).rowcount, 0)
        rows = list(rows)
        if not rows:
            return 0
        with self.raw.cursor() as cur:
            cur.executemany(pg_sql(sql, True), rows, returning=False)
            return max(cur.rowcount, 0)

    def query(self, sql: str, params: Any = ()) -> list[tuple]:
        """All rows of ``sql`` as tuples; a driver error is a ReviewDBError."""
        try:
            return [tuple(r) for r in self.execute(sql, params).fetchall()]
        except self.errors as exc:
            raise self.error(exc) from None

    def insert_id(self, sql: str, params: Any = ()) -> int:
        """Run an ``INSERT`` into a table with an ``id`` key and return the new row's id."""
        if self.pg:
            return int(self.execute(sql + " RETURNING id", params).fetchone()[0])
        return int(self.execute(sql, params).lastrowid)

    # --- transactions -------------------------------------------------------------------------

    def write(self, fn: Callable[[ReviewConn], T], *, retries: int = WRITE_RETRIES) -> T:
        """``fn(self)`` in one write transaction, committed when it returns, rolled back when it
        raises. On PostgreSQL the transaction is SERIALIZABLE and rerun from the start when the
        server reports a conflict with another writer (so ``fn`` must read what it decides on)."""
        for attempt in range(retries + 1):
            try:
                self.raw.execute("BEGIN ISOLATION LEVEL SERIALIZABLE" if self.pg else "BEGIN IMMEDIATE")
                try:
                    out = fn(self)
                    self.raw.execute("COMMIT")
                    return out
                except BaseException:
                    self._rollback()
                    raise
            except (*self.errors, ReviewDBError) as exc:
                if self.pg and attempt < retries and _retryable(exc):
                    time.sleep(random.uniform(0, 0.005 * (attempt + 1)))
                    continue
                if isinstance(exc, ReviewDBError):
                    raise
                raise self.error(exc) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _rollback(self) -> None:
        try:
            self.raw.execute("ROLLBACK")
        except self.errors:
            pass

    @contextmanager
    def snapshot(self) -> Iterator[ReviewConn]:
        """One consistent read for the block (nothing written)."""
        try:
            self.raw.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" if self.pg else "BEGIN")
        except self.errors as exc:
            raise self.error(exc) from None
        try:
            yield self
        finally:
            self._rollback()

    # --- the catalog --------------------------------------------------------------------------

    def tables(self) -> set[str]:
        """Tables and views of the DB (PostgreSQL: those on the search path)."""
        if self.pg:
            sql = ("SELECT table_name FROM information_schema.tables "
                   "WHERE table_schema = ANY (current_schemas(false))")
        else:
            sql = "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"
        return {r[0] for r in self.query(sql)}

    def columns(self, table: str) -> dict[str, str]:
        """Column name -> declared type of ``table`` (empty when there is no such table)."""
        if self.pg:
            rows = self.query("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? "
                              "AND table_schema = ANY (current_schemas(false)) ORDER BY ordinal_position", (table,))
        else:
            rows = [(r[1], r[2]) for r in self.query(f'PRAGMA table_info("{table}")')]
        return dict(rows)

    def unique_keys(self, table: str) -> list[list[str]]:
        """The column lists ``table`` declares unique (its primary key and unique, non-partial indexes)."""
        if self.pg:
            rows = self.query(
                "SELECT i.indexrelid, a.attname FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY (i.indkey) "
                "WHERE c.relname = ? AND n.nspname = ANY (current_schemas(false)) AND i.indisunique "
                "AND i.indpred IS NULL AND i.indexprs IS NULL ORDER BY 1, 2", (table,))
            keys: dict[int, list[str]] = {}
            for oid, col in rows:
                keys.setdefault(oid, []).append(col)
            return list(keys.values())
        out = []
        pk = [r[1] for r in sorted(self.query(f'PRAGMA table_info("{table}")'), key=lambda r: r[5]) if r[5]]
        if pk:
            out.append(pk)
        for _, name, unique, _, partial in self.query(f'PRAGMA index_list("{table}")'):
            if unique and not partial:
                out.append([r[2] for r in self.query(f'PRAGMA index_info("{name}")')])
        return out

    # --- expressions the dialects spell differently --------------------------------------------

    def julian(self, expr: str) -> str:
        """``expr`` (ISO 8601 text) as a Julian day number; NULL when it is not a time."""
        if not self.pg:
            return f"julianday({expr})"
        valid = (f"pg_input_is_valid(CAST({expr} AS TEXT), 'timestamptz')" if self.native_checks
                 else f"pg_temp.gt_is_timestamptz(CAST({expr} AS TEXT))")
        return (f"(CASE WHEN {valid} THEN CAST(extract(epoch FROM "
                f"CAST(CAST({expr} AS TEXT) AS timestamptz)) AS double precision) / 86400.0 + 2440587.5 END)")

    def same(self, a: str, b: str) -> str:
        """``a`` equals ``b``, NULL equal to NULL."""
        return f"{a} IS NOT DISTINCT FROM {b}" if self.pg else f"{a} IS {b}"

    def differs(self, a: str, b: str) -> str:
        """``a`` differs from ``b``, NULL equal to NULL."""
        return f"{a} IS DISTINCT FROM {b}" if self.pg else f"{a} IS NOT {b}"

    def first_evidence_id(self, col: str) -> str:
        """Element 0's ``evidence_id`` of the JSON list in ``col`` (sync's edge uuid of a review row),
        NULL when ``col`` is no such JSON."""
        if self.pg:
            array = (f"CAST({col} AS TEXT) IS JSON ARRAY" if self.native_checks
                     else f"pg_temp.gt_is_json_array(CAST({col} AS TEXT))")
            return (f"(CASE WHEN {array} THEN "
                    f"CAST(CAST({col} AS TEXT) AS jsonb) -> 0 ->> 'evidence_id' END)")
        return (f"(CASE WHEN typeof({col}) = 'text' AND json_valid({col}) "
                f"THEN json_extract({col}, '$[0].evidence_id') END)")

    def in_json_list(self, expr: str) -> str:
        """``expr IN`` the strings of a JSON list passed as one parameter (any number of values)."""
        if self.pg:
            return f"{expr} IN (SELECT json_array_elements_text(CAST(? AS json)))"
        return f"{expr} IN (SELECT value FROM json_each(?))"

    def json_pairs(self) -> str:
        """A FROM item of the (``key``, ``value``) pairs of a JSON object passed as one parameter,
        each value as a float."""
        if self.pg:
            return "(SELECT key, CAST(value AS double precision) AS value FROM json_each_text(CAST(? AS json)))"
        return "(SELECT key, CAST(value AS REAL) AS value FROM json_each(?))"

    @property
    def now_text(self) -> str:
        """The current UTC time as ISO 8601 text with milliseconds and ``Z``."""
        if self.pg:
            return "to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
        return "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"


# PostgreSQL 15 lacks pg_input_is_valid and IS JSON: the same checks as functions of the session's
# own temporary schema (nothing is created in the user's database)
PG15_CHECKS = """
CREATE FUNCTION pg_temp.gt_is_timestamptz(t text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN PERFORM CAST(t AS timestamptz); RETURN t IS NOT NULL; EXCEPTION WHEN others THEN RETURN false; END $$;
CREATE FUNCTION pg_temp.gt_is_json_array(t text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN RETURN json_typeof(CAST(t AS json)) = 'array'; EXCEPTION WHEN others THEN RETURN false; END $$
"""


def _version_name(num: int) -> str:
    """A ``server_version_num`` as people name the release (150000 -> 15)."""
    return str(num // 10000) if num >= 100000 else f"{num // 10000}.{num // 100 % 100}"


class AnswerTimeout(Exception):
    """The server sent no answer within :attr:`Limits.answer_within_s` (the connection is closed)."""

    def __init__(self, seconds: float):
        super().__init__(f"no answer within {seconds:g} s")
        self.seconds = seconds


@functools.cache
def _bounded_connection(psycopg: Any) -> type:
    """psycopg's connection whose every wait for the server ends after ``answer_within_s``: a
    frozen backend or a silent network (which TCP keepalives do not notice while the peer's kernel
    still answers) fails the statement and closes the connection instead of waiting forever."""
    from psycopg import errors

    class BoundedConnection(psycopg.Connection):
        answer_within_s: float | None = None

        def wait(self, gen: Any, interval: float = 0.1, timeout: float | None = None) -> Any:
            try:
                return super().wait(gen, interval=interval,
                                    timeout=timeout if timeout is not None else self.answer_within_s)
            except errors._WaitTimeout:  # (psycopg's own type for it)
                self.pgconn.finish()  # the connection is in an unknown state: nothing more goes over it
                raise AnswerTimeout(self.answer_within_s or 0.0) from None

    return BoundedConnection


@functools.cache
def _numeric_loader(psycopg: Any) -> type:
    """NUMERIC values (``sum()`` of integers, a pipeline's numeric columns) as SQLite gives them:
    an int when integral, else a float (psycopg's default, Decimal, mixes with no float)."""

    class NumericLoader(psycopg.adapt.Loader):
        def load(self, data: Any) -> int | float:
            text = bytes(data).decode()
            return int(text) if text.lstrip("-").isdigit() else float(text)

    return NumericLoader


def _retryable(exc: Exception) -> bool:
    return getattr(exc, "sqlstate", None) in ("40001", "40P01")


def ddl(schema: str, dialect: Dialect) -> str:
    """The project's DDL (written for SQLite) as ``dialect`` takes it: on PostgreSQL an
    ``INTEGER PRIMARY KEY`` is an identity column, text compares byte-wise as in SQLite
    (``COLLATE "C"``), ``REAL`` is double precision and a time default is ``now_text``'s."""
    if dialect == "sqlite":
        return schema
    import re

    out = schema.replace("INTEGER PRIMARY KEY", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")
    out = out.replace("(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                      "(to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'))")
    out = re.sub(r"\bTEXT\b(?!\s*COLLATE)", 'TEXT COLLATE "C"', out)
    out = re.sub(r"\bREAL\b", "DOUBLE PRECISION", out)
    return out


def run_script(conn: ReviewConn, script: str) -> None:
    """The statements of ``script`` (``;``-separated, no ``;`` inside one) on ``conn`` in its dialect."""
    for stmt in ddl(script, conn.dialect).split(";"):
        if stmt.strip() and not all(line.strip().startswith("--") or not line.strip() for line in stmt.splitlines()):
            conn.execute(stmt)


__all__ = ["LOCK_TIMEOUT_S", "AnswerTimeout", "Dialect", "Limits", "Location", "ReviewConn", "ddl", "display_location", "init_hint",
           "parse_location", "pg_sql", "review_error", "run_script"]
