"""Confidence records in the review DB, beside ``candidates``: schema, in-place migration, the
operator commands' writes (one transaction each) and the set-wise read of every factor's inputs.

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

Candidates are read through the review settings' table and column mapping, as sync reads them.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np

from graph_trust.config import ConfidenceSettings, ReviewSettings, Settings
from graph_trust.confidence import composite as comp
from graph_trust.confidence import contradiction as contra
from graph_trust.confidence import credibility as cred
from graph_trust.confidence import freshness, learning, verification
from graph_trust.confidence.consensus import VOTES
from graph_trust.confidence.model import FactorInputs, factor_matrix
from graph_trust.confidence.resolution import Claim, load_hook, resolve
from graph_trust.confidence.success import OUTCOMES
from graph_trust.errors import InputError, NotFoundError, ReviewDBError, RollbackConflictError
from graph_trust.sync.change_marker import install_marker
from graph_trust.sync.review_db import LOCK_TIMEOUT_S, ReviewDB, review_error
from graph_trust.sync.run_kinds import RunKind

_in = ", ".join
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
    verification_type TEXT NOT NULL CHECK (verification_type IN ({_in(repr(v) for v in verification.VERDICTS)})),
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
    outcome TEXT NOT NULL CHECK (outcome IN ({_in(repr(o) for o in OUTCOMES)})),
    details TEXT,
    tracked_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS fact_usage_outcomes_fact ON fact_usage_outcomes (fact_id, tracked_at, outcome);
CREATE TABLE IF NOT EXISTS fact_votes (
    id INTEGER PRIMARY KEY,
    fact_id TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    vote TEXT NOT NULL CHECK (vote IN ({_in(repr(v) for v in VOTES)})),
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
    {_in(f'{f}_score REAL' for f in comp.FACTORS)},
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
_PAIR_QUERIES = 64  # at most this many (agent, category) pairs are read one by one (track_records)
_key = contra.norm  # SQLite's lower(trim(v)): the candidates_spo index and the SQL clusters agree


def _table_columns(con: sqlite3.Connection, table: str) -> dict[str, str]:
    return {r[1]: r[2] for r in con.execute(f'PRAGMA table_info("{table}")')}


def migrate(con: sqlite3.Connection) -> list[str]:
    """Create missing tables and indexes and add missing columns (nullable or defaulted) to older
    versions of the tables, in one transaction. Returns what was added."""
    added: list[str] = []
    before = {t: _table_columns(con, t) for t in TABLES}
    scratch = sqlite3.connect(":memory:")
    scratch.executescript(SCHEMA)
    con.execute("BEGIN IMMEDIATE")
    try:
        for table in TABLES:
            if not before[table]:
                added.append(table)
                continue
            want = [r for r in scratch.execute(f'PRAGMA table_info("{table}")')]
            for _, name, decl, notnull, default, _pk in want:
                if name not in before[table]:
                    default_sql = f" DEFAULT {default}" if default is not None else ""
                    con.execute(f'ALTER TABLE "{table}" ADD COLUMN "{name}" {decl}{default_sql}')
                    added.append(f"{table}.{name}")
        for stmt in SCHEMA.split(";"):
            if stmt.strip():
                con.execute(stmt)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    finally:
        scratch.close()
    return added


def init_confidence_tables(path: str | Path) -> list[str]:
    """Add the confidence tables to the review DB at ``path`` (idempotent, in place)."""
    p = Path(path)
    try:
        con = sqlite3.connect(p, isolation_level=None, timeout=LOCK_TIMEOUT_S)
        try:
            added = migrate(con)
            cols = _table_columns(con, "candidates")
            if {"subject", "predicate", "object"} <= set(cols):  # consensus looks facts up by these
                con.execute("CREATE INDEX IF NOT EXISTS candidates_spo ON candidates "
                            "(lower(trim(subject)), lower(trim(predicate)), lower(trim(object)))")
            con.execute("BEGIN IMMEDIATE")
            try:  # what lets sync keep the confidence inputs between runs (change_marker)
                install_marker(con, "candidates" if cols else None)
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
            return added
        finally:
            con.close()
    except sqlite3.Error as exc:
        raise review_error(p, exc) from None


def _now_iso(now: datetime) -> str:
    return now.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _julian(now: datetime) -> float:
    return now.timestamp() / 86400.0 + 2440587.5


def _chunks(ids: Sequence[str]) -> Iterable[Sequence[str]]:
    for i in range(0, len(ids), _ID_CHUNK):
        yield ids[i:i + _ID_CHUNK]


@dataclass
class Gathered:
    """The factor inputs of ``ids`` with what the operator views show beside them."""

    ids: list[str]
    inputs: FactorInputs
    authors: list[str | None]
    categories: list[str]
    statuses: list[str]
    votes: int  # agree and disagree votes read

    def info(self, i: int) -> dict[str, Any]:
        """What stands behind fact ``i``'s factors, for people."""
        x = self.inputs
        return {"author": self.authors[i], "category": self.categories[i],
                "verification_level": verification.LEVEL_NAMES[int(x.level[i])], "verifiers": int(x.verifiers[i]),
                "agents_agreeing": int(x.agents[i]), "contradictions_lost": int(x.losses[i]),
                "uses": int(x.uses[i]), "age_days": round(float(x.age_days[i]), 3), "status": self.statuses[i]}


def _codes(values: Iterable[Any], size: int) -> tuple[np.ndarray, int]:
    """Integer codes of ``values`` (equal values, equal codes) and how many distinct there are."""
    seen: dict[Any, int] = {}
    return np.fromiter((seen.setdefault(v, len(seen)) for v in values), dtype=np.int64, count=size), len(seen)


def _clusters(cluster_rows: list[tuple], cluster_keys: list[tuple], cluster_src: list[tuple],
              keys: list[tuple] | None, statuses: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Consensus clusters: active facts with the same subject, predicate and object; an
    unattributed fact counts as its own agent; independent: no two cite the same evidence.
    Per fact (``keys``, or the cluster rows themselves when None): distinct agents, distinct
    roles, independence. Counted on integer codes (``np.unique`` of (cluster, label) pairs)."""
    m = len(cluster_rows)
    seen: dict[tuple, int] = {}
    code = np.fromiter((seen.setdefault(k, len(seen)) for k in cluster_keys), dtype=np.int64, count=m)
    active = np.fromiter((bool(k[0] and k[1]) and r[6] not in INACTIVE for r, k in zip(cluster_rows, cluster_keys,
                                                                                        strict=True)), bool, m)
    groups = len(seen)
    members = np.bincount(code[active], minlength=groups)

    def distinct(labels: Iterable[Any], counted: np.ndarray) -> np.ndarray:
        lab, size = _codes(labels, m)
        pairs = np.unique(code[counted] * max(size, 1) + lab[counted])
        return np.bincount(pairs // max(size, 1), minlength=groups)

    agents = distinct((sr[0] or f"fact:{r[0]}" for r, sr in zip(cluster_rows, cluster_src, strict=True)), active)
    has_role = np.fromiter((bool(sr[1]) for sr in cluster_src), bool, m)
    roles = distinct((sr[1] for sr in cluster_src), active & has_role)
    evidence = distinct((r[4] or "" for r in cluster_rows), active)
    if keys is None:
        row_code, row_active = code, active
    else:
        row_code = np.fromiter((seen.get(k, -1) for k in keys), dtype=np.int64, count=len(keys))
        row_active = np.fromiter((bool(k[0] and k[1]) and st not in INACTIVE for k, st in zip(keys, statuses,
                                                                                             strict=True)),
                                 bool, len(keys)) & (row_code >= 0)
        row_code = np.maximum(row_code, 0)
    n = len(row_code)
    in_group = row_active & (members[row_code] > 1) if groups else np.zeros(n, dtype=bool)
    if not in_group.any():
        return np.ones(n), np.zeros(n), np.ones(n, dtype=bool)
    return (np.where(in_group, agents[row_code], 1).astype(float), np.where(in_group, roles[row_code], 0).astype(float),
            np.where(in_group, evidence[row_code] == members[row_code], True))


_TrackRows = tuple[list[tuple], list[tuple], list[tuple]]  # counted, verified, profiles (track_records)


@dataclass
class Static:
    """What :meth:`ConfidenceStore.gather` reads that does not depend on the current time."""

    ids: list[str]
    statuses: list[str]
    authors: list[str | None]
    cats: list[str]
    arrays: dict[str, np.ndarray]  # STATIC_ARRAYS, one entry per fact
    votes: list[tuple[int, str, bool, float]]  # (position, voter, agree, confidence), in read order
    votes_read: int
    uses: list[tuple[int, Any, int, int]]  # every use: (position, tracked_at, success, partial)
    track: _TrackRows


STATIC_ARRAYS = ("ref", "half_life", "role", "source_type", "level", "verifiers", "agents", "specializations",
                 "independent", "losses", "unresolved")


def _at_or_after(at: Any, since: str) -> bool:
    """SQLite's ``tracked_at >= since`` for a text ``since``: text by code point (UTF-8 byte
    order), a blob above any text, NULL and numbers below."""
    return at >= since if isinstance(at, str) else isinstance(at, bytes)


class _Columns:
    """Per-fact columns from per-fact result rows, by position (no dict lookup per fact): the
    rows of a grouped query, keyed by fact id in their first column, land on every position of
    that id among ``ids``; ids with no row keep the default."""

    def __init__(self, ids: list[str]):
        self.n = len(ids)
        self.first: dict[str, int] = {}
        for i, f in enumerate(ids):
            self.first.setdefault(f, i)
        self.code = (np.arange(self.n) if len(self.first) == self.n else
                     np.fromiter((self.first[f] for f in ids), dtype=np.int64, count=self.n))

    def scatter(self, rows: Sequence[tuple], default: tuple) -> np.ndarray:
        """(n, len(default)) floats: each row's values (None as nan) at its fact's positions."""
        out = np.empty((self.n, len(default)))
        out[:] = default
        at = [(self.first.get(str(r[0])), r[1:]) for r in rows]
        at = [(i, v) for i, v in at if i is not None]
        if at:
            out[[i for i, _ in at]] = np.array([v for _, v in at], dtype=float).reshape(len(at), len(default))
        return self.spread(out)

    def spread(self, values: np.ndarray) -> np.ndarray:
        """``values`` filled at each id's first position, copied to its other positions."""
        return values if len(self.first) == self.n else values[self.code]


class ConfidenceStore:
    """Read and write the confidence records of one review DB."""

    def __init__(self, path: Path, db: ReviewDB, con: sqlite3.Connection, cfg: ConfidenceSettings,
                 now: datetime | None = None):
        self.path, self.db, self.con, self.cfg = path, db, con, cfg
        self.now = now or datetime.now(timezone.utc)
        self._weights: dict[str, float] | None = None

    @classmethod
    def open(cls, path: str | Path | None, review: ReviewSettings, cfg: ConfidenceSettings,
             now: datetime | None = None, readonly: bool = False) -> ConfidenceStore:
        """Open the review DB (mapping checked as sync checks it) for reading and writing records;
        ``readonly`` (sync's scoring) opens it as sync does, so any write fails."""
        db = ReviewDB.open(path, review)
        try:
            con = sqlite3.connect(f"file:{quote(str(db.path.resolve()))}?mode={'ro' if readonly else 'rw'}", uri=True,
                                  timeout=LOCK_TIMEOUT_S, isolation_level=None)
            have = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.Error as exc:
            db.close()
            raise review_error(db.path, exc) from None
        try:  # the set-wise read walks several indexes of a large file: give SQLite room (64 MB)
            con.execute("PRAGMA cache_size = -65536")
        except sqlite3.Error:
            pass
        missing = [t for t in TABLES if t not in have]
        if missing:
            con.close()
            db.close()
            raise ReviewDBError(f"review DB {db.path} lacks the confidence tables ({', '.join(missing)}): "
                                f"run `graph-trust review init {db.path}` to add them in place")
        return cls(db.path, db, con, cfg, now)

    def close(self) -> None:
        self.con.close()
        self.db.close()

    def __enter__(self) -> ConfidenceStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- candidates ---------------------------------------------------------------------------

    def _col(self, logical: str) -> str:
        actual = self.db.columns.get(logical)
        return f'"{actual}"' if actual else "NULL"

    def _cand_sql(self, where: str = "", text: bool = False, normalized: bool = False) -> str:
        """Candidates as (id, subject, predicate, object, evidence, julian updated_at, status[, fact]);
        ``normalized``: subject, predicate and object as their consensus keys, SQLite's
        ``lower(trim(...))`` (what ``_key`` gives in Python)."""
        c = self._col
        k = (lambda name: f"lower(trim({c(name)}))") if normalized else c
        return (f"SELECT {c('id')}, {k('subject')}, {k('predicate')}, {k('object')}, {c('evidence_refs_json')}, "
                f"julianday({c('updated_at')}), {c('status')}{', ' + c('fact') if text else ''} "
                f"FROM \"{self.db.table}\" {where}")

    def _query(self, sql: str, params: Any = ()) -> list[tuple]:
        try:
            return self.con.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise review_error(self.path, exc) from None

    def fact(self, fact_id: str) -> tuple:
        """The candidate row of ``fact_id`` (as ``_cand_sql`` selects it); NotFoundError if none."""
        rows = self._query(self._cand_sql(f"WHERE {self._col('id')} = ?"), (fact_id,))
        if not rows:
            raise NotFoundError(f"no fact with id {fact_id!r} in review DB {self.path} (table {self.db.table})")
        return rows[0]

    # --- weights ------------------------------------------------------------------------------

    @property
    def weights(self) -> dict[str, float]:
        """``confidence.weights``, unless a learned change is applied and not reverted."""
        if self._weights is None:
            row = self._query("SELECT new_weights_json FROM confidence_weight_changes WHERE reverted_at IS NULL "
                              "ORDER BY id DESC LIMIT 1")
            self._weights = comp.check_weights(json.loads(row[0][0])) if row else dict(self.cfg.weights)
        return self._weights

    # --- agents -------------------------------------------------------------------------------

    def track_records(self, agents: Iterable[str] | None = None,
                      categories: Iterable[str] | None = None) -> dict[tuple[str, str], cred.TrackRecord]:
        """Track records per (agent, category) from the records (all agents when None: one scan of
        ``fact_sources_agent_category``, already in group order, and one join). With
        ``categories`` (and a few agents), each agent's facts in each of those categories are
        read through ``fact_sources_agent_category`` alone (one fact's confidence: a prolific
        author's other categories are never read); the profiles in ``agent_credibility``, where
        expertise falls back to ``global``, are read whole."""
        return self._track_from(self._track_rows(agents, categories))

    def _track_rows(self, agents: Iterable[str] | None, categories: Iterable[str] | None) -> _TrackRows:
        """The record rows behind :meth:`track_records` (nothing here depends on the current time)."""
        agents = None if agents is None else sorted(set(agents))
        if agents == []:
            return [], [], []
        pos = _in(repr(v) for v in verification.POSITIVE)
        cat_sql = "coalesce(lower(s.category), 'global')"  # (the expression fact_sources_agent_category indexes)
        count_sql = "count(*), min(julianday(s.created_at)) FROM fact_sources s"
        verified_sql = (f"sum(v.verification_type IN ({pos})), sum(v.verification_type = 'incorrect') "
                        "FROM fact_sources s JOIN fact_verifications v ON v.fact_id = s.fact_id "
                        "AND v.verifier_id != s.agent_id")
        pairs = ([(a, c) for a in agents for c in sorted(set(categories))]
                 if agents is not None and categories is not None else None)
        if pairs is not None and len(pairs) <= _PAIR_QUERIES:
            one = f"WHERE s.agent_id = ? AND {cat_sql} = ?"
            counted = [(a, c, *self._query(f"SELECT {count_sql} {one}", (a, c))[0]) for a, c in pairs]
            counted = [r for r in counted if r[2]]
            verified = [(a, c, *self._query(f"SELECT {verified_sql} {one}", (a, c))[0]) for a, c in pairs]
            verified = [r for r in verified if r[2] is not None]
        else:
            where_s = "" if agents is None else f"WHERE s.agent_id IN ({','.join('?' * len(agents))})"
            counted = self._query(f"SELECT s.agent_id, {cat_sql}, {count_sql} {where_s} GROUP BY 1, 2",
                                  agents or ())
            verified = self._query(f"SELECT s.agent_id, {cat_sql}, {verified_sql} {where_s} GROUP BY 1, 2", agents or ())
        where_p = "" if agents is None else f"WHERE agent_id IN ({','.join('?' * len(agents))})"
        profiles = self._query(f"SELECT agent_id, lower(category), expertise, corrections_issued FROM agent_credibility "
                               f"{where_p}", agents or ())
        return [tuple(r) for r in counted], [tuple(r) for r in verified], profiles

    def _track_from(self, rows: _TrackRows) -> dict[tuple[str, str], cred.TrackRecord]:
        """Track records from their rows as of ``now`` (days active)."""
        counted, verified, profiles = rows
        out: dict[tuple[str, str], dict[str, Any]] = defaultdict(dict)
        for agent, cat, n, first in counted:
            out[(agent, cat)].update(contributions=n, days_active=max(0.0, _julian(self.now) - first) if first else 0.0)
        for agent, cat, good, bad in verified:
            out[(agent, cat)].update(verified_correct=good, total_verified=good + bad)
        for agent, cat, expertise, corrections in profiles:
            out[(agent, cat)].update(expertise=expertise, corrections_issued=corrections or 0)
        return {k: cred.TrackRecord(**v) for k, v in out.items()}

    @staticmethod
    def _record(records: dict[tuple[str, str], cred.TrackRecord], agent: str | None, category: str) -> cred.TrackRecord:
        """The agent's record in ``category``; its expertise falls back to its ``global`` profile."""
        if agent is None:
            return cred.TrackRecord()
        r = records.get((agent, category)) or cred.TrackRecord()
        if r.expertise is None and (agent, "global") in records:
            r = cred.TrackRecord(**{**r.__dict__, "expertise": records[(agent, "global")].expertise})
        return r

    # --- the set-wise read --------------------------------------------------------------------

    def gather(self, ids: Sequence[str] | None = None) -> Gathered:
        """Factor inputs of ``ids`` (every candidate when None): grouped queries, then columns.

        Per fact the review DB is asked only through ``fact_id`` lookups and GROUP BYs, so one
        fact costs a few index probes and every fact a few table scans; the consensus clusters
        are grouped in Python on the keys SQLite normalizes (``lower(trim(...))``)."""
        return self.timed(self.static(ids))

    def static(self, ids: Sequence[str] | None = None) -> Static:
        """The part of :meth:`gather` that does not depend on the current time (what the
        confidence cache keeps between sync runs)."""
        c = self._col
        src_sql = ("SELECT fact_id, agent_id, role, source_type, coalesce(lower(category), 'global'), "
                   "julianday(created_at) FROM fact_sources")
        none = (None, None, None, "global", None)
        if ids is None:  # (id, s, p, o, evidence, julian updated_at, status), keys normalized by SQLite
            rows = self._query(self._cand_sql(normalized=True))
            sources = self._by_fact(src_sql, None)
            cluster_rows = rows
        else:
            rows = []
            for chunk in _chunks(list(dict.fromkeys(ids))):
                rows += self._query(self._cand_sql(f"WHERE {c('id')} IN ({','.join('?' * len(chunk))})"), chunk)
            found = {r[0] for r in rows}
            unknown = [i for i in ids if i not in found]
            if unknown:
                raise NotFoundError(f"no fact with id {unknown[0]!r} in review DB {self.path} (table {self.db.table})")
            cluster_rows = list(rows)
            for key in {(_key(r[1]), _key(r[2]), _key(r[3])) for r in rows if _key(r[1]) and _key(r[2])}:
                cluster_rows += self._query(self._cand_sql(
                    f"WHERE lower(trim({c('subject')})) = ? AND lower(trim({c('predicate')})) = ? "
                    f"AND lower(trim({c('object')})) IS ?"), key)
            cluster_rows = list({str(r[0]): r for r in cluster_rows}.values())
            sources = self._by_fact(src_sql, [str(r[0]) for r in cluster_rows])
        fids = [str(r[0]) for r in rows]
        src = [sources.get(f, none) for f in fids]
        if ids is None:
            keys = [r[1:4] for r in rows]
            cluster_src, cluster_keys = src, keys
        else:
            keys = [(_key(r[1]), _key(r[2]), _key(r[3])) for r in rows]
            cluster_src = [sources.get(str(r[0]), none) for r in cluster_rows]
            cluster_keys = [(_key(r[1]), _key(r[2]), _key(r[3])) for r in cluster_rows]
        only = None if ids is None else fids
        system, truth = list(self.cfg.system_verifiers), list(self.cfg.ground_truth_verifiers)
        pos = _in(repr(v) for v in verification.POSITIVE)
        verified = self._rows_for(
            # verified_at is ISO 8601 UTC as verify-fact writes it: text order is time order, and
            # julianday() runs once per fact, not once per record
            f"WITH latest AS (SELECT fact_id, verifier_id, verification_type IN ({pos}) AS ok, "
            f"max(verified_at) AS at FROM fact_verifications {{where}} GROUP BY fact_id, verifier_id) "
            f"SELECT l.fact_id, sum(l.ok), sum(l.ok AND l.verifier_id IS NOT s.agent_id), "
            f"max(l.ok AND l.verifier_id IN ({','.join('?' * len(system))})), "
            f"max(l.ok AND l.verifier_id IN ({','.join('?' * len(truth))})), "
            f"julianday(max(CASE WHEN l.ok THEN l.at END)), julianday(max(l.at)) "
            f"FROM latest l LEFT JOIN fact_sources s ON s.fact_id = l.fact_id GROUP BY l.fact_id",
            "fact_id", only, extra_params=(*system, *truth))
        usage = self._rows_for(  # every use: which fall in the window is decided per run (``timed``)
            "SELECT fact_id, tracked_at, coalesce(outcome = 'success', 0), coalesce(outcome = 'partial', 0) "
            "FROM fact_usage_outcomes {where}", "fact_id", only)
        losses: dict[str, int] = defaultdict(int)
        unresolved: dict[str, float] = defaultdict(float)
        for a, b, severity, resolved, loser in self._contradiction_rows(only):
            if resolved is not None and loser is not None:
                losses[loser] += 1
            elif resolved is None:
                unresolved[a] += contra.SEVERITY_SCORES[severity]
                unresolved[b] += contra.SEVERITY_SCORES[severity]
        votes = self._rows_for("SELECT fact_id, agent_id, vote, confidence FROM fact_votes {where}", "fact_id", only,
                               extra="vote IN ('agree', 'disagree')")

        authors = [x[0] for x in src]
        cats = [x[3] for x in src]
        track = (self._track_rows(None, None) if ids is None else
                 self._track_rows({a for a in authors if a} | {v[1] for v in votes}, categories=cats))
        n = len(rows)
        col = _Columns(fids)
        kept_votes = [(i, voter, vote == "agree", conf) for i, (f, voter, vote, conf) in
                      ((col.first.get(str(v[0])), v) for v in votes) if i is not None]  # (a vote on a fact gone: dropped)
        kept_uses = [(i, *u[1:]) for i, u in ((col.first.get(str(u[0])), u) for u in usage) if i is not None]

        # consensus clusters: active facts with the same subject, predicate and object; an
        # unattributed fact counts as its own agent; independent: no two cite the same evidence
        agents_n, specs_n, independent = _clusters(cluster_rows, cluster_keys, cluster_src, keys if ids is not None
                                                   else None, [r[6] for r in rows])

        ver = col.scatter(verified, (0, 0, 0, 0, np.nan, np.nan))  # (a NULL time is nan)
        confirmed_at, newest_at = ver[:, 4], ver[:, 5]
        created = np.array([x[4] for x in src], dtype=float).reshape(n)  # None -> nan: the row's own time
        created = np.where(np.isnan(created), np.array([r[5] for r in rows], dtype=float).reshape(n), created)
        refuted = ~np.isnan(newest_at) & (np.isnan(confirmed_at) | (confirmed_at < newest_at))
        counts = np.nan_to_num(ver[:, :4])
        confirming = counts[:, 0]
        hl = {k: freshness.half_life_for(k, self.cfg.half_lives, self.cfg.default_half_life) for k in set(cats)}
        roles = {r: cred.role_weight(r) for r in {x[1] for x in src}}
        stypes = {t: cred.source_type_weight(t) for t in {x[2] for x in src}}
        per_fact = np.array([(roles[x[1]], stypes[x[2]], hl[x[3]]) for x in src], dtype=float).reshape(n, 3)
        arrays = {
            "ref": np.fmax(created, confirmed_at), "half_life": per_fact[:, 2], "role": per_fact[:, 0],
            "source_type": per_fact[:, 1],
            "level": verification.levels_many(confirming, counts[:, 1], counts[:, 2] > 0, counts[:, 3] > 0, refuted),
            "verifiers": np.where(refuted, 0.0, confirming), "agents": agents_n, "specializations": specs_n,
            "independent": independent, "losses": col.scatter(list(losses.items()), (0,))[:, 0],
            "unresolved": col.scatter(list(unresolved.items()), (0.0,))[:, 0]}
        return Static(fids, [r[6] for r in rows], authors, cats, arrays, kept_votes, len(votes), kept_uses, track)

    def timed(self, st: Static) -> Gathered:
        """The factor inputs from :meth:`static`'s part as of ``now``: ages, the usage window and
        credibilities (an agent's days active)."""
        records = self._track_from(st.track)
        cred_cache: dict[tuple[str | None, str], float] = {}

        def agent_cred(agent: str | None, cat: str) -> float:
            v = cred_cache.get((agent, cat))
            if v is None:
                v = cred_cache[(agent, cat)] = cred.agent_credibility(self._record(records, agent, cat))
            return v

        n, cats = len(st.ids), st.cats
        col = _Columns(st.ids)
        agree, disagree = np.zeros(n), np.zeros(n)
        for i, voter, is_agree, conf in st.votes:
            (agree if is_agree else disagree)[i] += conf * agent_cred(voter, cats[i])
        agree, disagree = col.spread(agree), col.spread(disagree)  # (an id read twice: each copy alike)
        agent_of = {k: agent_cred(*k) for k in set(zip(st.authors, cats))}
        since = _now_iso(self.now - timedelta(days=self.cfg.success_window_days))  # ISO UTC: text order is time order
        uses = [u for u in st.uses if _at_or_after(u[1], since)]
        at = np.fromiter((u[0] for u in uses), dtype=np.int64, count=len(uses))

        def used(k: int | None) -> np.ndarray:
            w = None if k is None else np.fromiter((u[k] for u in uses), dtype=float, count=len(uses))
            return col.spread(np.bincount(at, weights=w, minlength=n).astype(float))

        x = st.arrays
        ref = x["ref"]
        inputs = FactorInputs(
            age_days=np.where(np.isnan(ref), 0.0, np.maximum(0.0, _julian(self.now) - np.nan_to_num(ref))),
            half_life=x["half_life"], agent=np.array([agent_of[k] for k in zip(st.authors, cats)], dtype=float).reshape(n),
            role=x["role"], source_type=x["source_type"], level=x["level"], verifiers=x["verifiers"],
            agents=x["agents"], specializations=x["specializations"], independent=x["independent"],
            agree=agree, disagree=disagree, losses=x["losses"], unresolved=x["unresolved"],
            successes=used(2), partials=used(3), uses=used(None))
        return Gathered(list(st.ids), inputs, list(st.authors), list(cats), list(st.statuses), st.votes_read)

    def _by_fact(self, sql: str, ids: Sequence[str] | None) -> dict[str, tuple]:
        return {str(r[0]): r[1:] for r in self._rows_for(sql + " {where}", "fact_id", ids)}

    def _rows_for(self, sql: str, col: str, ids: Sequence[str] | None, extra: str | None = None,
                  extra_params: tuple = ()) -> list[tuple]:
        """``sql`` with ``{where}`` filled: ``col`` in ``ids`` (chunked) and ``extra``."""
        if ids is None:
            return self._query(sql.format(where=f"WHERE {extra}" if extra else ""), extra_params)
        out: list[tuple] = []
        for chunk in _chunks(list(dict.fromkeys(ids))):
            cond = f"{col} IN ({','.join('?' * len(chunk))})" + (f" AND {extra}" if extra else "")
            out += self._query(sql.format(where=f"WHERE {cond}"), (*chunk, *extra_params))
        return out

    def _contradiction_rows(self, ids: Sequence[str] | None) -> list[tuple]:
        sql = "SELECT fact_a_id, fact_b_id, severity, resolved_at, resolution_loser FROM fact_contradictions"
        if ids is None:
            return self._query(sql)
        out = {}
        for col in ("fact_a_id", "fact_b_id"):
            for r in self._rows_for(f"SELECT id, {sql[7:]} {{where}}", col, ids):
                out[r[0]] = r[1:]
        return list(out.values())

    # --- scores -------------------------------------------------------------------------------

    def matrix(self, g: Gathered) -> np.ndarray:
        return factor_matrix(g.inputs, decay=self.cfg.decay, decay_rate=self.cfg.decay_rate,
                             max_age_days=self.cfg.max_age_days, min_samples=self.cfg.min_samples)

    def scores(self, ids: Sequence[str] | None = None) -> tuple[list[str], np.ndarray, np.ndarray]:
        """(ids, factor matrix, confidence scores) of ``ids`` or every candidate: the set-wise API."""
        return self.scored(self.gather(ids))

    def scored(self, g: Gathered) -> tuple[list[str], np.ndarray, np.ndarray]:
        """(ids, factor matrix, confidence scores) of gathered inputs."""
        m = self.matrix(g)
        return g.ids, m, comp.composite_many(m, self.weights)

    def confidence(self, fact_id: str, risk: str | None = None) -> dict[str, Any]:
        """One fact's score, level, factor breakdown, inputs and (with ``risk``) decision guidance."""
        g = self.gather([fact_id])
        m = self.matrix(g)
        c = comp.composite(dict(zip(comp.FACTORS, m[0], strict=True)), self.weights)
        out = {"id": fact_id, **c.to_dict(), "inputs": {**g.info(0), "votes": g.votes}}
        if risk is not None:
            out["decision"] = comp.decide(c.score, risk, self.cfg.risk_thresholds, self.cfg.verify_margin).to_dict()
        return out

    def candidates_for_edges(self, edge_uuids: Iterable[str]) -> dict[str, list[str]]:
        """Edge uuid -> the ids of the candidates citing it, as sync maps them (element 0's
        ``evidence_id`` of ``evidence_refs_json``): one scan of the candidates for the whole set."""
        ev = self._col("evidence_refs_json")
        eid = (f"CASE WHEN typeof({ev}) = 'text' AND json_valid({ev}) "
               f"THEN json_extract({ev}, '$[0].evidence_id') END")
        uuids = json.dumps(sorted(set(edge_uuids)))
        out: dict[str, list[str]] = defaultdict(list)
        for cid, uuid in self._query(f'SELECT {self._col("id")}, {eid} FROM "{self.db.table}" '
                                     f"WHERE {eid} IN (SELECT value FROM json_each(?))", (uuids,)):
            out[uuid].append(str(cid))
        return dict(out)

    # --- writes (one transaction each) --------------------------------------------------------

    def _write(self, statements: list[tuple[str, tuple]]) -> int:
        """Run ``statements`` in one transaction; returns the rows they changed."""
        changed = 0
        try:
            self.con.execute("BEGIN IMMEDIATE")
            try:
                for sql, params in statements:
                    changed += max(self.con.execute(sql, params).rowcount, 0)
                self.con.execute("COMMIT")
            except BaseException:
                self.con.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise review_error(self.path, exc) from None
        return changed

    @staticmethod
    def _agent(by: str) -> str:
        by = (by or "").strip()
        if not by:
            raise InputError("--by AGENT must name the acting agent")
        return by

    def verify(self, fact_id: str, verdict: str, by: str, notes: str | None = None) -> dict[str, Any]:
        """Record a verification; refresh the author's cached track record in the same transaction."""
        if verdict not in verification.VERDICTS:
            raise InputError(f"unknown verification type {verdict!r} (one of {', '.join(verification.VERDICTS)})")
        by = self._agent(by)
        self.fact(fact_id)
        at = _now_iso(self.now)
        stmts = [("INSERT INTO fact_verifications (fact_id, verifier_id, verification_type, notes, verified_at) "
                  "VALUES (?, ?, ?, ?, ?)", (fact_id, by, verdict, notes, at))]
        src = self._query("SELECT agent_id, coalesce(lower(category), 'global') FROM fact_sources WHERE fact_id = ?",
                          (fact_id,))
        if src and src[0][0] and src[0][0] != by:
            author, cat = src[0]
            r = self._record(self.track_records([author]), author, cat)
            good = int(verdict in verification.POSITIVE)
            bad = int(verdict == "incorrect")
            r = cred.TrackRecord(r.verified_correct + good, r.total_verified + good + bad, r.contributions,
                                 r.corrections_issued, r.days_active, r.expertise)
            stmts.append((
                "INSERT INTO agent_credibility (agent_id, category, contribution_count, verification_count, "
                "verified_correct, verified_incorrect, days_active, credibility_score, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (agent_id, category) DO UPDATE SET "
                "contribution_count = excluded.contribution_count, verification_count = excluded.verification_count, "
                "verified_correct = excluded.verified_correct, verified_incorrect = excluded.verified_incorrect, "
                "days_active = excluded.days_active, credibility_score = excluded.credibility_score, "
                "updated_at = excluded.updated_at",
                (author, cat, r.contributions, r.total_verified, r.verified_correct,
                 r.total_verified - r.verified_correct, r.days_active, cred.agent_credibility(r), at)))
        self._write(stmts)
        return {"id": fact_id, "verification_type": verdict, "by": by, "verified_at": at}

    def record_usage(self, fact_id: str, outcome: str, by: str, action: str,
                     details: dict | None = None) -> dict[str, Any]:
        """Record a use and its outcome, with the confidence the fact had when used (learning data)."""
        if outcome not in OUTCOMES:
            raise InputError(f"unknown outcome {outcome!r} (one of {', '.join(OUTCOMES)})")
        by = self._agent(by)
        if not (action or "").strip():
            raise InputError("--action must say what was done with the fact")
        before = self.confidence(fact_id)
        at = _now_iso(self.now)
        f = before["factors"]
        self._write([
            ("INSERT INTO fact_usage_outcomes (fact_id, agent_id, action, outcome, details, tracked_at) "
             "VALUES (?, ?, ?, ?, ?, ?)", (fact_id, by, action, outcome, json.dumps(details) if details else None, at)),
            (f"INSERT INTO confidence_predictions (fact_id, predicted_confidence, "
             f"{_in(x + '_score' for x in comp.FACTORS)}, weights_json, actual_outcome, predicted_at) "
             f"VALUES (?, ?, {_in('?' * len(comp.FACTORS))}, ?, ?, ?)",
             (fact_id, before["score"], *[f[x] for x in comp.FACTORS], json.dumps(before["weights"]), outcome, at)),
        ])
        return {"id": fact_id, "outcome": outcome, "by": by, "action": action, "tracked_at": at,
                "confidence_before": before["score"]}

    def vote(self, fact_id: str, vote: str, confidence: float, by: str,
             reasoning: str | None = None) -> dict[str, Any]:
        """Record (or replace) ``by``'s vote on a fact."""
        if vote not in VOTES:
            raise InputError(f"unknown vote {vote!r} (one of {', '.join(VOTES)})")
        if not 0.0 <= confidence <= 1.0:
            raise InputError(f"--confidence must be in [0, 1], got {confidence}")
        by = self._agent(by)
        self.fact(fact_id)
        at = _now_iso(self.now)
        self._write([("INSERT INTO fact_votes (fact_id, agent_id, vote, confidence, reasoning, voted_at) "
                      "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (fact_id, agent_id) DO UPDATE SET vote = excluded.vote, "
                      "confidence = excluded.confidence, reasoning = excluded.reasoning, voted_at = excluded.voted_at",
                      (fact_id, by, vote, confidence, reasoning, at))])
        return {"id": fact_id, "vote": vote, "confidence": confidence, "by": by, "voted_at": at}

    # --- contradictions -----------------------------------------------------------------------

    def detect(self) -> list[contra.Contradiction]:
        """Contradictions among active candidates (``a`` < ``b`` by id)."""
        rows = self._query(self._cand_sql(f"WHERE {self._col('status')} NOT IN ('rejected', 'expired') "
                                          f"ORDER BY {self._col('id')}", text=True))
        facts = [contra.Fact(str(r[0]), r[1], r[2], r[3], r[7]) for r in rows]
        return contra.detect(facts, self.cfg.max_conflict_objects)

    def contradictions(self, resolve_them: bool = False) -> dict[str, Any]:
        """Recorded contradictions plus newly detected ones; with ``resolve_them``, record the new
        ones and resolve every open one (one transaction)."""
        found = self.detect()
        recorded = {(r[0], r[1]) for r in self._query("SELECT fact_a_id, fact_b_id FROM fact_contradictions")}
        new = [x for x in found if (x.a, x.b) not in recorded]
        at = _now_iso(self.now)
        resolutions = []
        if resolve_them:
            stmts = [("INSERT INTO fact_contradictions (fact_a_id, fact_b_id, contradiction_type, severity, detail, "
                      "detected_at) VALUES (?, ?, ?, ?, ?, ?)", (x.a, x.b, x.type, x.severity, x.detail, at))
                     for x in new]
            open_pairs = [(r[0], r[1], r[2]) for r in self._query(
                "SELECT id, fact_a_id, fact_b_id FROM fact_contradictions WHERE resolved_at IS NULL")]
            pairs = open_pairs + [(None, x.a, x.b) for x in new]
            live = {str(r[0]) for r in self._query(f'SELECT {self._col("id")} FROM "{self.db.table}"')} if pairs else set()
            pairs = [p for p in pairs if p[1] in live and p[2] in live]
            if pairs:
                g = self.gather(sorted({p[1] for p in pairs} | {p[2] for p in pairs}))
                m = self.matrix(g)
                pos = {f: i for i, f in enumerate(g.ids)}
                src = comp.FACTORS.index("source")
                now_j = _julian(self.now)

                def claim(f: str) -> Claim:
                    i = pos[f]
                    created = self.now - timedelta(days=float(self._created_age(f, now_j)))
                    return Claim(f, created, float(m[i, src]), int(g.inputs.agents[i]))

                hook = load_hook(self.cfg.system_verification_hook)
                for cid, fa, fb in pairs:
                    res = resolve(claim(fa), claim(fb), temporal_days=self.cfg.temporal_days,
                                  credibility_gap=self.cfg.credibility_gap,
                                  consensus_margin=self.cfg.consensus_margin, system_verify=hook)
                    where = "id = ?" if cid is not None else "fact_a_id = ? AND fact_b_id = ?"
                    stmts.append((f"UPDATE fact_contradictions SET resolved_at = ?, resolution_strategy = ?, "
                                  f"resolution_winner = ?, resolution_loser = ?, resolution_reason = ? WHERE {where}",
                                  (at if res.resolved else None, res.strategy, res.winner, res.loser, res.reason,
                                   *((cid,) if cid is not None else (fa, fb)))))
                    resolutions.append({"a": fa, "b": fb, "strategy": res.strategy, "winner": res.winner,
                                        "loser": res.loser, "reason": res.reason})
            self._write(stmts)
        listed = [dict(zip(("id", "a", "b", "type", "severity", "detail", "detected_at", "resolved_at", "strategy",
                            "winner", "loser", "reason"), r)) for r in self._query(
            "SELECT id, fact_a_id, fact_b_id, contradiction_type, severity, detail, detected_at, resolved_at, "
            "resolution_strategy, resolution_winner, resolution_loser, resolution_reason FROM fact_contradictions "
            "ORDER BY id")]
        pending = [] if resolve_them else [{"a": x.a, "b": x.b, "type": x.type, "severity": x.severity,
                                            "detail": x.detail} for x in new]
        return {"recorded": listed, "detected_unrecorded": pending, "resolutions": resolutions}

    def flag_for_review(self, rows: Sequence[tuple[str, str, str, str, str | None]]) -> int:
        """Record contradictions ``(fact_a_id, fact_b_id, type, severity, detail)`` left open for
        review (no resolution), in one statement; a ``fact_b_id`` already recorded is skipped (the
        guard names one invalidation of one edge by it). Returns how many were added."""
        col = lambda i: f"json_extract(n.value, '$[{i}]')"  # noqa: E731
        return self._write([(
            "INSERT INTO fact_contradictions (fact_a_id, fact_b_id, contradiction_type, severity, detail, detected_at) "
            f"SELECT {', '.join(col(i) for i in range(5))}, ? FROM json_each(?) n WHERE NOT EXISTS "
            f"(SELECT 1 FROM fact_contradictions f WHERE f.fact_b_id = {col(1)})",
            (_now_iso(self.now), json.dumps([list(r) for r in rows])))])

    def _created_age(self, fact_id: str, now_j: float) -> float:
        """Days since the fact was asserted (its source time, else its candidate row's time)."""
        row = self._query(f"SELECT julianday(s.created_at), julianday(c.{self._col('updated_at')}) "
                          f'FROM "{self.db.table}" c LEFT JOIN fact_sources s ON s.fact_id = c.{self._col("id")} '
                          f"WHERE c.{self._col('id')} = ?", (fact_id,))
        created = next((t for t in row[0] if t is not None), None) if row else None
        return max(0.0, now_j - created) if created is not None else 0.0

    # --- operator views -----------------------------------------------------------------------

    def stale(self, days: float, category: str | None = None) -> list[dict[str, Any]]:
        """Active facts not created or confirmed within ``days`` (oldest first), optionally of one category."""
        if days <= 0:
            raise InputError(f"--days must be > 0, got {days}")
        g = self.gather()
        m = self.matrix(g)
        fresh = comp.FACTORS.index("freshness")
        out = []
        want = None if category is None else category.strip().lower()
        for i in np.flatnonzero(g.inputs.age_days >= days):
            if g.statuses[i] in INACTIVE or (want is not None and g.categories[i] != want):
                continue
            meta = g.info(i)
            out.append({"id": g.ids[i], "age_days": meta["age_days"], "category": meta["category"],
                        "freshness": round(float(m[i, fresh]), 6), "verification_level": meta["verification_level"],
                        "status": meta["status"]})
        return sorted(out, key=lambda r: (-r["age_days"], r["id"]))

    def credibility(self, agent: str, category: str | None = None) -> list[dict[str, Any]]:
        """The agent's track record and credibility per category (or in one)."""
        agent = self._agent(agent)
        records = self.track_records([agent])
        cats = sorted({c for a, c in records if a == agent})
        if category is not None:
            cats = [category.strip().lower()]
        if not cats:
            raise NotFoundError(f"agent {agent!r} has no facts of its own (fact_sources) and no profile "
                                f"(agent_credibility) in review DB {self.path}")
        out = []
        for cat in cats:
            r = self._record(records, agent, cat)
            out.append({"agent": agent, "category": cat, "credibility": round(cred.agent_credibility(r), 6),
                        "track_record": round(cred.track_record_score(r), 6),
                        "expertise": r.expertise or "unknown", "contributions": r.contributions,
                        "verified_correct": r.verified_correct, "verified_total": r.total_verified,
                        "corrections_issued": r.corrections_issued, "days_active": round(r.days_active, 3)})
        return out

    # --- learning -----------------------------------------------------------------------------

    def outcomes(self) -> tuple[np.ndarray, np.ndarray]:
        """Recorded uses as (factor rows in FACTORS order, outcome values)."""
        rows = self._query(f"SELECT {_in(f + '_score' for f in comp.FACTORS)}, actual_outcome "
                           "FROM confidence_predictions WHERE actual_outcome IS NOT NULL ORDER BY id")
        if not rows:
            return np.empty((0, len(comp.FACTORS))), np.empty(0)
        X = np.array([[0.5 if v is None else v for v in r[:-1]] for r in rows], dtype=float)
        return X, np.array([learning.OUTCOME_VALUES[r[-1]] for r in rows])

    def learn(self, apply: bool = False) -> dict[str, Any]:
        """Fit weights to the recorded outcomes; with ``apply``, journal them as the weights in use."""
        X, y = self.outcomes()
        try:
            report = learning.learn(X, y, self.weights)
        except ValueError as exc:
            raise InputError(str(exc)) from None
        report["applied"] = None
        if apply:
            at = _now_iso(self.now)
            cur = self.con.cursor()
            try:
                cur.execute("BEGIN IMMEDIATE")
                cur.execute("INSERT INTO confidence_weight_changes (applied_at, old_weights_json, new_weights_json, "
                            "report_json) VALUES (?, ?, ?, ?)",
                            (at, json.dumps(report["weights_before"]), json.dumps(report["weights_after"]),
                             json.dumps({k: report[k] for k in ("outcomes", "calibration_before", "calibration_after")})))
                report["applied"] = {"change_id": cur.lastrowid, "applied_at": at}
                cur.execute("COMMIT")
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            self._weights = None
        return report

    def weight_changes(self) -> list[dict[str, Any]]:
        """The journal of learned weights, newest first."""
        return [{"change_id": r[0], "applied_at": r[1], "weights_before": json.loads(r[2]),
                 "weights_after": json.loads(r[3]), "reverted_at": r[4]}
                for r in self._query("SELECT id, applied_at, old_weights_json, new_weights_json, reverted_at "
                                     "FROM confidence_weight_changes ORDER BY id DESC")]

    def revert(self, change_id: int | None = None) -> dict[str, Any]:
        """Revert a learned change (the latest in use when None): the weights before it return."""
        live = [c for c in self.weight_changes() if c["reverted_at"] is None]
        if change_id is None:
            if not live:
                raise InputError("no learned weight change is in use: nothing to revert")
            change_id = live[0]["change_id"]
        elif change_id not in {c["change_id"] for c in live}:
            raise NotFoundError(f"no learned weight change {change_id} in use (see `graph-trust confidence weights`)")
        later = [c["change_id"] for c in live if c["change_id"] > change_id]
        at = _now_iso(self.now)
        # reverting a change also reverts the ones applied after it: their "before" was built on it
        self._write([("UPDATE confidence_weight_changes SET reverted_at = ? WHERE id >= ? AND reverted_at IS NULL",
                      (at, change_id))])
        self._weights = None
        return {"reverted": [change_id, *later], "reverted_at": at, "weights": self.weights}


# --- learned weight changes as a run kind (``graph-trust runs`` / ``graph-trust rollback``) ---

WEIGHTS_RUN_PREFIX = "weights-"


def list_weight_runs(settings: Settings, limit: int) -> list[dict[str, Any]]:
    """The newest ``limit`` learned weight changes of the configured review DB as runs
    (``weights-<change id>``), newest first; none when no review DB with confidence tables is set."""
    try:
        store = ConfidenceStore.open(None, settings.review, settings.confidence, readonly=True)
    except ReviewDBError:  # no review DB configured, or no confidence tables: no weight changes to list
        return []
    with store:
        changes = store.weight_changes()[:limit]
    return [{"run_id": f"{WEIGHTS_RUN_PREFIX}{c['change_id']}", "kind": "confidence-weights",
             "started_at": c["applied_at"], "ended_at": c["applied_at"],
             "status": "rolled_back" if c["reverted_at"] else "ok", "counts": {}, "journal_pruned_at": None}
            for c in changes]


async def rollback_weight_run(settings: Settings, run_id: str, force: bool, graph: Any = None) -> dict[str, Any]:
    """Revert the learned weight change ``weights-N`` (as ``graph-trust confidence revert N``). The
    changes applied after it are reverted with it (their weights were learned on top of it), so
    while any is in use this refuses unless ``force``, as a sync rollback does."""
    try:
        change_id = int(run_id[len(WEIGHTS_RUN_PREFIX):])
    except ValueError:
        raise InputError(f"{run_id!r} names no weight change: expected weights-N (see `graph-trust runs`)") from None
    with ConfidenceStore.open(None, settings.review, settings.confidence) as store:
        later = [c["change_id"] for c in store.weight_changes() if c["reverted_at"] is None and c["change_id"] > change_id]
        if later and not force:
            raise RollbackConflictError(
                f"cannot roll back {run_id}: later weight change(s) {', '.join(f'weights-{i}' for i in sorted(later))} "
                "were learned on top of it and would be reverted too; pass --force to revert them all")
        return store.revert(change_id)


RUN_KIND = RunKind("confidence-weights", WEIGHTS_RUN_PREFIX, list_weight_runs, rollback_weight_run)
