"""The confidence records' tables in the review DB, beside ``candidates``, their in-place
migration, and the formats their values take (times as ISO 8601 UTC text, which sorts as time).

Tables (``graph-trust review init`` creates them; an older DB gains missing tables, columns and
indexes in place):

- ``fact_sources``: who asserted each fact, in which role, from what kind of source, in which
  category, when. Written by the promotion pipeline (like ``candidates``); optional.
- ``fact_verifications``, ``fact_usage_outcomes``, ``fact_votes``: what ``verify-fact``,
  ``record-usage`` and ``vote`` record.
- ``fact_contradictions``: detected pairs and their resolution (``contradictions --resolve``).
- ``agent_credibility``: per agent and category, the profile an operator sets (expertise,
  corrections issued) and the track record cached at each verification of the agent's facts.
- ``confidence_predictions``: each use's confidence and factor scores with its outcome (the
  learning data); ``confidence_weight_changes``: the journal of learned weights.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from graph_trust.confidence import composite as comp
from graph_trust.confidence import contradiction as contra
from graph_trust.confidence import verification
from graph_trust.confidence.consensus import VOTES
from graph_trust.confidence.success import OUTCOMES
from graph_trust.review.db import Location, ReviewConn, ddl, run_script
from graph_trust.sync.runs.change_marker import install_marker

sql_list = ", ".join
SCHEMA = f"""
CREATE TABLE IF NOT EXISTS fact_sources (
    fact_id TEXT PRIMARY KEY,
    agent_id TEXT,
    role TEXT,
    source_type TEXT,
    category TEXT,
    created_at TEXT
);
-- one agent's track record in one category: its facts, their times (covering, no table reads)
CREATE INDEX IF NOT EXISTS fact_sources_agent_category ON fact_sources (agent_id, coalesce(lower(category), 'global'), created_at, fact_id);
CREATE TABLE IF NOT EXISTS fact_verifications (
    id INTEGER PRIMARY KEY,
    fact_id TEXT NOT NULL,
    verifier_id TEXT NOT NULL,
    verification_type TEXT NOT NULL CHECK (verification_type IN ({sql_list(repr(v) for v in verification.VERDICTS)})),
    notes TEXT,
    verified_at TEXT NOT NULL
);
-- covering: the per-fact reads never touch the table
CREATE INDEX IF NOT EXISTS fact_verifications_fact ON fact_verifications (fact_id, verifier_id, verified_at, verification_type);
CREATE TABLE IF NOT EXISTS fact_usage_outcomes (
    id INTEGER PRIMARY KEY,
    fact_id TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    action TEXT NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ({sql_list(repr(o) for o in OUTCOMES)})),
    details TEXT,
    tracked_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS fact_usage_outcomes_fact ON fact_usage_outcomes (fact_id, tracked_at, outcome);
CREATE TABLE IF NOT EXISTS fact_votes (
    id INTEGER PRIMARY KEY,
    fact_id TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    vote TEXT NOT NULL CHECK (vote IN ({sql_list(repr(v) for v in VOTES)})),
    confidence REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
    reasoning TEXT,
    voted_at TEXT NOT NULL,
    UNIQUE (fact_id, agent_id)
);
CREATE TABLE IF NOT EXISTS fact_contradictions (
    id INTEGER PRIMARY KEY,
    fact_a_id TEXT NOT NULL,
    fact_b_id TEXT NOT NULL,
    contradiction_type TEXT NOT NULL,
    severity TEXT NOT NULL CHECK (severity IN ('low', 'medium', 'high')),
    detail TEXT,
    detected_at TEXT NOT NULL,
    resolved_at TEXT,
    resolution_strategy TEXT,
    resolution_winner TEXT,
    resolution_loser TEXT,
    resolution_reason TEXT,
    UNIQUE (fact_a_id, fact_b_id)
);
CREATE INDEX IF NOT EXISTS fact_contradictions_b ON fact_contradictions (fact_b_id);
CREATE TABLE IF NOT EXISTS agent_credibility (
    agent_id TEXT NOT NULL,
    category TEXT NOT NULL,
    expertise TEXT,
    contribution_count INTEGER DEFAULT 0,
    verification_count INTEGER DEFAULT 0,
    verified_correct INTEGER DEFAULT 0,
    verified_incorrect INTEGER DEFAULT 0,
    corrections_issued INTEGER DEFAULT 0,
    days_active REAL DEFAULT 0,
    credibility_score REAL,
    updated_at TEXT,
    PRIMARY KEY (agent_id, category)
);
CREATE TABLE IF NOT EXISTS confidence_predictions (
    id INTEGER PRIMARY KEY,
    fact_id TEXT NOT NULL,
    predicted_confidence REAL NOT NULL,
    {sql_list(f'{f}_score REAL' for f in comp.FACTORS)},
    weights_json TEXT,
    actual_outcome TEXT,
    predicted_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS confidence_predictions_fact ON confidence_predictions (fact_id);
CREATE TABLE IF NOT EXISTS confidence_weight_changes (
    id INTEGER PRIMARY KEY,
    applied_at TEXT NOT NULL,
    old_weights_json TEXT NOT NULL,
    new_weights_json TEXT NOT NULL,
    report_json TEXT,
    reverted_at TEXT
);
"""
TABLES = ("fact_sources", "fact_verifications", "fact_usage_outcomes", "fact_votes", "fact_contradictions",
          "agent_credibility", "confidence_predictions", "confidence_weight_changes")
INACTIVE = ("rejected", "expired")  # statuses whose facts take no part in consensus or contradictions
_ID_CHUNK = 500
consensus_key = contra.norm  # SQLite's lower(trim(v)): the candidates_spo index and the SQL clusters agree

def migrate(conn: ReviewConn) -> list[str]:
    """Create missing tables and indexes and add missing columns (nullable or defaulted) to older
    versions of the tables, in one transaction (either dialect). Returns what was added."""
    scratch = sqlite3.connect(":memory:")  # what each table should have, read from the DDL itself
    scratch.executescript(SCHEMA)
    want = {t: list(scratch.execute(f'PRAGMA table_info("{t}")')) for t in TABLES}
    scratch.close()

    def run(c: ReviewConn) -> list[str]:
        added: list[str] = []
        for table in TABLES:
            have = c.columns(table)
            if not have:
                added.append(table)
                continue
            for _, name, decl, _notnull, default, _pk in want[table]:
                if name not in have:
                    default_sql = f" DEFAULT {default}" if default is not None else ""
                    c.execute(ddl(f'ALTER TABLE "{table}" ADD COLUMN "{name}" {decl}{default_sql}', c.dialect))
                    added.append(f"{table}.{name}")
        run_script(c, SCHEMA)
        return added

    return conn.write(run)


def init_confidence_tables(where: str | Path | Location) -> list[str]:
    """Add the confidence tables to the review DB at ``where`` (idempotent, in place)."""
    with ReviewConn.open(where) as conn:
        added = migrate(conn)
        cols = conn.columns("candidates")

        def index_and_marker(c: ReviewConn) -> None:
            if {"subject", "predicate", "object"} <= set(cols):  # consensus looks facts up by these
                c.execute("CREATE INDEX IF NOT EXISTS candidates_spo ON candidates "
                          "(lower(trim(subject)), lower(trim(predicate)), lower(trim(object)))")
            install_marker(c, "candidates" if cols else None)  # lets sync keep the confidence inputs (change_marker)

        conn.write(index_and_marker)
        return added


def iso_utc(now: datetime) -> str:
    """``now`` as the records store times: ISO 8601 UTC with milliseconds and ``Z``."""
    return now.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def julian_day(now: datetime) -> float:
    """``now`` as SQLite's ``julianday()`` gives it (days, the unit every age is in)."""
    return now.timestamp() / 86400.0 + 2440587.5


def id_chunks(ids: Sequence[str]) -> Iterable[Sequence[str]]:
    """``ids`` in slices that fit SQLite's bound-parameter limit."""
    for i in range(0, len(ids), _ID_CHUNK):
        yield ids[i:i + _ID_CHUNK]

