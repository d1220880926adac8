"""The review side's tables in the review DB, beside ``candidates`` and the confidence tables
(``graph-trust review init`` creates them on SQLite and PostgreSQL; an older DB gains them in place).

- ``review_decisions``: the audit trail of ``graph-trust review promote|corroborate|reject|expire``
  and ``undo``: one row per candidate and decision, who, when, why, the status before and after.
  A command's decisions share a ``batch_id``; ``undo`` reverts a batch and points its rows at the
  undoing batch (``undone_by``).
- ``retrieval_log``: which facts search, context and the MCP tools returned, at which rank, per
  day, group and interface, with a count (``hits``): a year of heavy use stays a few rows per
  fact and day. No query text.
- ``retrieval_queries``: only with ``review.log_queries: true``: each query's text and the uuids it returned.
- ``review_flags``: facts agents flagged for review (MCP ``flag_fact``), open until a reviewer decides them.
- ``review_skips``: ``graph-trust review skip``: a reviewer looked at a fact and did not decide it
  (who, when, why, the status then); the queue stops offering it for ``review.queue.skip_days``
  unless new evidence arrives. ``undo`` of a skip batch is a row of its own (``action`` undo).
"""

from __future__ import annotations

from pathlib import Path

from graph_trust.review.db import Location, ReviewConn, run_script

ACTIONS = ("promote", "corroborate", "reject", "expire")
STATUS_OF = {"promote": "promoted", "corroborate": "corroborated", "reject": "rejected", "expire": "expired"}
INTERFACES = ("search", "context", "mcp")

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS review_decisions (
    id INTEGER PRIMARY KEY,
    batch_id TEXT NOT NULL,
    candidate_id TEXT NOT NULL,
    edge_uuid TEXT,
    action TEXT NOT NULL CHECK (action IN ({", ".join(repr(a) for a in (*ACTIONS, "undo"))})),
    previous_status TEXT,
    new_status TEXT,
    created_row INTEGER NOT NULL DEFAULT 0,
    actor TEXT NOT NULL,
    reason TEXT NOT NULL,
    decided_at TEXT NOT NULL,
    undone_by TEXT
);
CREATE INDEX IF NOT EXISTS review_decisions_candidate ON review_decisions (candidate_id, id);
CREATE INDEX IF NOT EXISTS review_decisions_batch ON review_decisions (batch_id, id);
CREATE TABLE IF NOT EXISTS retrieval_log (
    day TEXT NOT NULL,
    group_id TEXT NOT NULL,
    edge_uuid TEXT NOT NULL,
    interface TEXT NOT NULL,
    rank INTEGER NOT NULL,
    hits INTEGER NOT NULL,
    PRIMARY KEY (day, group_id, edge_uuid, interface, rank)
);
CREATE INDEX IF NOT EXISTS retrieval_log_edge ON retrieval_log (edge_uuid, day);
CREATE TABLE IF NOT EXISTS retrieval_queries (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    interface TEXT NOT NULL,
    group_ids TEXT,
    query TEXT NOT NULL,
    uuids_json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS retrieval_queries_at ON retrieval_queries (at);
CREATE TABLE IF NOT EXISTS review_flags (
    id INTEGER PRIMARY KEY,
    target TEXT NOT NULL,
    edge_uuid TEXT,
    candidate_id TEXT,
    group_id TEXT,
    agent TEXT NOT NULL,
    reason TEXT NOT NULL,
    flagged_at TEXT NOT NULL,
    resolved_at TEXT,
    resolved_by TEXT
);
CREATE INDEX IF NOT EXISTS review_flags_open ON review_flags (resolved_at, target);
CREATE TABLE IF NOT EXISTS review_skips (
    id INTEGER PRIMARY KEY,
    batch_id TEXT NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('skip', 'undo')),
    candidate_id TEXT,
    edge_uuid TEXT,
    status TEXT,
    actor TEXT NOT NULL,
    reason TEXT NOT NULL,
    skipped_at TEXT NOT NULL,
    undone_by TEXT
);
CREATE INDEX IF NOT EXISTS review_skips_batch ON review_skips (batch_id, id);
CREATE INDEX IF NOT EXISTS review_skips_at ON review_skips (skipped_at)
"""
TABLES = ("review_decisions", "retrieval_log", "retrieval_queries", "review_flags", "review_skips")


def init_review_tables(where: str | Path | Location) -> list[str]:
    """Create the review tables in the review DB at ``where`` where missing; returns the tables added."""
    with ReviewConn.open(where) as conn:
        have = conn.tables()
        conn.write(lambda c: run_script(c, SCHEMA))
        return [t for t in TABLES if t not in have]


def missing_tables(conn: ReviewConn, tables: tuple[str, ...] = TABLES) -> list[str]:
    """The review tables ``conn``'s DB lacks (``graph-trust review init`` adds them)."""
    have = conn.tables()
    return [t for t in tables if t not in have]


__all__ = ["ACTIONS", "INTERFACES", "SCHEMA", "STATUS_OF", "TABLES", "init_review_tables", "missing_tables"]
