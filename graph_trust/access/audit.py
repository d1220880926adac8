"""Audit events: a dataclass, sent to Python logging and stored in the state store.

The state store is the SQLite file ``state_path(settings, "state.sqlite3")``; audit events
live in its ``audit_events`` table (other features keep other tables in the same file). The
file runs in WAL mode with a busy timeout so readers and the nightly job do not block each
other. Logger: ``graph_trust.access.audit`` (INFO; WARNING for a rejected decision).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graph_trust.config import Settings, state_path
from graph_trust.errors import StateStoreError

logger = logging.getLogger("graph_trust.access.audit")

STATE_FILE = "state.sqlite3"
BUSY_TIMEOUT_S = 5.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS audit_events (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    at          TEXT NOT NULL,
    event       TEXT NOT NULL,
    decision    TEXT NOT NULL,
    actor       TEXT,
    source      TEXT,
    approved_by TEXT,
    reason      TEXT,
    request_id  TEXT,
    requested   REAL,
    applied     REAL,
    violations  TEXT NOT NULL DEFAULT '[]',
    details     TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS audit_events_at ON audit_events (at);
"""

_COLUMNS = (
    "at",
    "event",
    "decision",
    "actor",
    "source",
    "approved_by",
    "reason",
    "request_id",
    "requested",
    "applied",
    "violations",
    "details",
)


@dataclass(frozen=True, slots=True)
class AuditEvent:
    """One audited attempt. ``id`` is set once stored."""

    event: str
    decision: str
    actor: str | None = None
    source: str | None = None
    approved_by: str | None = None
    reason: str | None = None
    request_id: str | None = None
    requested: float | None = None
    applied: float | None = None
    violations: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)
    at: datetime = field(default_factory=lambda: datetime.now(UTC))
    id: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (ISO timestamp, violations as a list)."""
        d = asdict(self)
        d["at"] = self.at.isoformat()
        d["violations"] = list(self.violations)
        return d


class AuditStore:
    """The ``audit_events`` table of a state-store SQLite file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    @classmethod
    def for_settings(cls, settings: Settings) -> AuditStore:
        return cls(state_path(settings, STATE_FILE))

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S)
        except sqlite3.Error as exc:
            raise StateStoreError(f"state store {self.path}: cannot open: {exc}") from None
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.executescript(_SCHEMA)
            with conn:
                yield conn
        except sqlite3.Error as exc:
            raise StateStoreError(f"state store {self.path}: {exc}") from None
        finally:
            conn.close()

    def append(self, event: AuditEvent) -> AuditEvent:
        """Store ``event``; returns it with its ``id``."""
        row = event.to_dict()
        row["violations"] = json.dumps(row["violations"])
        row["details"] = json.dumps(row["details"], default=str, sort_keys=True)
        with self._connect() as conn:
            cur = conn.execute(
                f"INSERT INTO audit_events ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})",
                [row[c] for c in _COLUMNS],
            )
            return replace(event, id=cur.lastrowid)

    def events(self, *, event: str | None = None, limit: int | None = None) -> list[AuditEvent]:
        """Stored events, oldest first (the newest ``limit`` when given)."""
        sql = f"SELECT id, {', '.join(_COLUMNS)} FROM audit_events"
        params: list[Any] = []
        if event:
            sql += " WHERE event = ?"
            params.append(event)
        sql += " ORDER BY id DESC"
        if limit:
            sql += " LIMIT ?"
            params.append(int(limit))
        with self._connect() as conn:
            rows = conn.execute(sql, params).fetchall()
        return [_from_row(r) for r in reversed(rows)]


def _from_row(row: tuple[Any, ...]) -> AuditEvent:
    d = dict(zip(("id", *_COLUMNS), row, strict=True))
    d["at"] = datetime.fromisoformat(d["at"])
    d["violations"] = tuple(json.loads(d["violations"]))
    d["details"] = json.loads(d["details"])
    return AuditEvent(**d)


def emit(event: AuditEvent, store: AuditStore | None = None) -> AuditEvent:
    """Log ``event`` and, when a store is given, persist it (returns the stored event)."""
    level = logging.WARNING if event.decision == "rejected" else logging.INFO
    logger.log(
        level,
        "%s %s actor=%s source=%s approved_by=%s request_id=%s requested=%s applied=%s violations=%s",
        event.event,
        event.decision,
        event.actor,
        event.source,
        event.approved_by,
        event.request_id,
        event.requested,
        event.applied,
        "; ".join(event.violations) or "-",
        extra={"audit_event": event.to_dict()},
    )
    return store.append(event) if store is not None else event


def list_events(settings: Settings, *, event: str | None = None, limit: int | None = None) -> list[AuditEvent]:
    """The Python equivalent of ``graph-trust audit``."""
    return AuditStore.for_settings(settings).events(event=event, limit=limit)
