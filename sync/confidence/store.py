"""Confidence records in the review DB: one store over one connection, with the operator
commands' writes (one transaction each), track records and the operator views. The set-wise read
of the factors' inputs is :mod:`~graph_trust.sync.confidence.inputs`, learned weights
:mod:`~graph_trust.sync.confidence.weights`, the tables :mod:`~graph_trust.sync.confidence.schema`.

Candidates are read through the review settings' table and column mapping, as sync reads them.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from graph_trust.confidence import composite as comp
from graph_trust.confidence import contradiction as contra
from graph_trust.confidence import credibility as cred
from graph_trust.confidence import verification
from graph_trust.confidence.consensus import VOTES
from graph_trust.confidence.resolution import Claim, load_hook, resolve
from graph_trust.confidence.success import OUTCOMES
from graph_trust.config import ConfidenceSettings, ReviewSettings, Settings, SyncSettings
from graph_trust.errors import InputError, NotFoundError, ReviewDBError, RollbackConflictError
from graph_trust.review.db import ReviewConn, init_hint
from graph_trust.sync.confidence.inputs import FactorInputsRead, TrackRows
from graph_trust.sync.confidence.schema import INACTIVE, TABLES, iso_utc, julian_day, sql_list
from graph_trust.sync.confidence.weights import LearnedWeights
from graph_trust.sync.review_db import ReviewDB
from graph_trust.sync.runs.kinds import RunKind

DEFAULT_TIERS = SyncSettings.model_fields["tiers"].get_default(call_default_factory=True)
_PAIR_QUERIES = 64  # at most this many (agent, category) pairs are read one by one (track_records)


class ConfidenceStore(FactorInputsRead, LearnedWeights):
    """Read and write the confidence records of one review DB."""

    def __init__(self, db: ReviewDB, conn: ReviewConn, cfg: ConfidenceSettings, now: datetime | None = None):
        self.db, self.conn, self.cfg = db, conn, cfg
        self.path = db.location.display  # (what messages name)
        self.now = now or datetime.now(UTC)
        self._weights: dict[str, float] | None = None
        # sync.tiers: which of the candidates citing an edge the edge's uuid names (ops.candidate_of);
        # the shipped tiers until the opener sets the configured ones
        self.tiers: dict[str, float | None] = dict(DEFAULT_TIERS)

    @classmethod
    def open(cls, path: str | Path | None, review: ReviewSettings, cfg: ConfidenceSettings,
             now: datetime | None = None, readonly: bool = False) -> ConfidenceStore:
        """Open the review DB (mapping checked as sync checks it) for reading and writing records;
        ``readonly`` (sync's scoring) opens it as sync does, so any write fails."""
        db = ReviewDB.open(path, review)
        try:
            conn = ReviewConn.open(db.location, readonly=readonly)
        except ReviewDBError:
            db.close()
            raise
        try:
            have = conn.tables()
            if not conn.pg:  # the set-wise read walks several indexes of a large file: give SQLite room (64 MB)
                conn.execute("PRAGMA cache_size = -65536")
        except conn.errors as exc:
            conn.close()
            db.close()
            raise conn.error(exc) from None
        except ReviewDBError:
            conn.close()
            db.close()
            raise
        missing = [t for t in TABLES if t not in have]
        if missing:
            conn.close()
            db.close()
            raise ReviewDBError(f"review DB {db.path} lacks the confidence tables ({', '.join(missing)}): "
                                f"{init_hint(db.location)}")
        return cls(db, conn, cfg, now)

    def close(self) -> None:
        self.conn.close()
        self.db.close()

    def __enter__(self) -> ConfidenceStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


    # --- candidates ---------------------------------------------------------------------------

    def _col(self, logical: str) -> str:
        actual = self.db.columns.get(logical)
        return f'"{actual}"' if actual else "NULL"

    def _cand_sql(self, where: str = "", text: bool = False) -> str:
        """Candidates as (id, subject, predicate, object, evidence, julian updated_at, status[, fact])."""
        c = self._col
        return (f"SELECT {c('id')}, {c('subject')}, {c('predicate')}, {c('object')}, {c('evidence_refs_json')}, "
                f"{self.conn.julian(c('updated_at'))}, {c('status')}{', ' + c('fact') if text else ''} "
                f"FROM \"{self.db.table}\" {where}")

    def _all_sql(self) -> str:
        """Every candidate as ``_cand_sql`` gives it but with subject, predicate, object and
        evidence NULL (the clusters are read apart, ``_cluster_sql``), then its ``fact_sources``
        row: agent, role, source type, category (``global`` when none), julian created_at."""
        c, jd = self._col, self.conn.julian
        return (f"SELECT c.{c('id')}, NULL, NULL, NULL, NULL, {jd('c.' + c('updated_at'))}, c.{c('status')}, "
                f"s.agent_id, s.role, s.source_type, coalesce(lower(s.category), 'global'), {jd('s.created_at')} "
                f"FROM \"{self.db.table}\" c LEFT JOIN fact_sources s ON s.fact_id = CAST(c.{c('id')} AS TEXT)")

    def _cluster_sql(self) -> str:
        """Every active candidate (as ``_cand_sql``, keys normalized by ``lower(trim(...))``) sharing
        its subject, predicate and object with another: the consensus clusters, found on the
        ``candidates_spo`` index."""
        c = self._col
        k = {n: f"lower(trim({c(n)}))" for n in ("subject", "predicate", "object")}
        active = f"{c('status')} NOT IN ({sql_list(repr(v) for v in INACTIVE)})"
        obj_same = self.conn.same(f"lower(trim(c.{c('object')}))", "m.o")
        return (f"WITH multi AS (SELECT {k['subject']} AS s, {k['predicate']} AS p, {k['object']} AS o "
                f"FROM \"{self.db.table}\" WHERE {active} AND {k['subject']} <> '' AND {k['predicate']} <> '' "
                f"GROUP BY 1, 2, 3 HAVING count(*) > 1) "
                f"SELECT c.{c('id')}, m.s, m.p, m.o, c.{c('evidence_refs_json')}, {self.conn.julian('c.' + c('updated_at'))}, "
                f"c.{c('status')} FROM multi m JOIN \"{self.db.table}\" c ON lower(trim(c.{c('subject')})) = m.s "
                f"AND lower(trim(c.{c('predicate')})) = m.p AND {obj_same} WHERE c.{active}")

    def _query(self, sql: str, params: Any = ()) -> list[tuple]:
        return self.conn.query(sql, params)

    def fact(self, fact_id: str) -> tuple:
        """The candidate row of ``fact_id`` (as ``_cand_sql`` selects it); NotFoundError if none."""
        rows = self._query(self._cand_sql(f"WHERE {self._col('id')} = ?"), (fact_id,))
        if not rows:
            raise NotFoundError(f"no fact with id {fact_id!r} in review DB {self.path} (table {self.db.table})")
        return rows[0]


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

    def _track_rows(self, agents: Iterable[str] | None, categories: Iterable[str] | None,
                    verified: list[tuple] | None = None) -> TrackRows:
        """The record rows behind :meth:`track_records` (nothing here depends on the current time);
        ``verified``: the verification counts of every agent, when the caller has them."""
        agents = None if agents is None else sorted(set(agents))
        if agents == []:
            return [], [], []
        pos = sql_list(repr(v) for v in verification.POSITIVE)
        cat_sql = "coalesce(lower(s.category), 'global')"  # (the expression fact_sources_agent_category indexes)
        count_sql = f"count(*), min({self.conn.julian('s.created_at')}) FROM fact_sources s"
        verified_sql = (f"sum(CASE WHEN v.verification_type IN ({pos}) THEN 1 ELSE 0 END), "
                        "sum(CASE WHEN v.verification_type = 'incorrect' THEN 1 ELSE 0 END) "
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
            if verified is None or agents is not None:
                verified = self._query(f"SELECT s.agent_id, {cat_sql}, {verified_sql} {where_s} GROUP BY 1, 2",
                                       agents or ())
        where_p = "" if agents is None else f"WHERE agent_id IN ({','.join('?' * len(agents))})"
        profiles = self._query(f"SELECT agent_id, lower(category), expertise, corrections_issued FROM agent_credibility "
                               f"{where_p}", agents or ())
        return [tuple(r) for r in counted], [tuple(r) for r in verified], profiles

    def _track_from(self, rows: TrackRows) -> dict[tuple[str, str], cred.TrackRecord]:
        """Track records from their rows as of ``now`` (days active)."""
        counted, verified, profiles = rows
        out: dict[tuple[str, str], dict[str, Any]] = defaultdict(dict)
        for agent, cat, n, first in counted:
            out[(agent, cat)].update(contributions=n, days_active=max(0.0, julian_day(self.now) - first) if first else 0.0)
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


    def candidates_for_edges(self, edge_uuids: Iterable[str]) -> dict[str, list[str]]:
        """Edge uuid -> the ids of the candidates citing it, as sync maps them (element 0's
        ``evidence_id`` of ``evidence_refs_json``): one scan of the candidates for the whole set."""
        eid = self.conn.first_evidence_id(self._col("evidence_refs_json"))
        uuids = json.dumps(sorted(set(edge_uuids)))
        out: dict[str, list[str]] = defaultdict(list)
        for cid, uuid in self._query(f'SELECT {self._col("id")}, {eid} FROM "{self.db.table}" '
                                     f"WHERE {self.conn.in_json_list(eid)}", (uuids,)):
            out[uuid].append(str(cid))
        return dict(out)


    # --- writes (one transaction each) --------------------------------------------------------

    def _write(self, statements: list[tuple[str, tuple]]) -> int:
        """Run ``statements`` in one transaction; returns the rows they changed."""
        return self.conn.write(lambda c: sum(max(c.execute(sql, params).rowcount, 0) for sql, params in statements))

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
        at = iso_utc(self.now)

        def run(c: ReviewConn) -> None:  # the author's record is read after the insert, in its transaction
            c.execute("INSERT INTO fact_verifications (fact_id, verifier_id, verification_type, notes, verified_at) "
                      "VALUES (?, ?, ?, ?, ?)", (fact_id, by, verdict, notes, at))
            src = self._query("SELECT agent_id, coalesce(lower(category), 'global') FROM fact_sources "
                              "WHERE fact_id = ?", (fact_id,))
            if not (src and src[0][0] and src[0][0] != by):
                return
            author, cat = src[0]
            r = self._record(self.track_records([author]), author, cat)
            c.execute(
                "INSERT INTO agent_credibility (agent_id, category, contribution_count, verification_count, "
                "verified_correct, verified_incorrect, days_active, credibility_score, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (agent_id, category) DO UPDATE SET "
                "contribution_count = excluded.contribution_count, verification_count = excluded.verification_count, "
                "verified_correct = excluded.verified_correct, verified_incorrect = excluded.verified_incorrect, "
                "days_active = excluded.days_active, credibility_score = excluded.credibility_score, "
                "updated_at = excluded.updated_at",
                (author, cat, r.contributions, r.total_verified, r.verified_correct,
                 r.total_verified - r.verified_correct, r.days_active, cred.agent_credibility(r), at))

        self.conn.write(run)
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
        at = iso_utc(self.now)
        f = before["factors"]
        self._write([
            ("INSERT INTO fact_usage_outcomes (fact_id, agent_id, action, outcome, details, tracked_at) "
             "VALUES (?, ?, ?, ?, ?, ?)", (fact_id, by, action, outcome, json.dumps(details) if details else None, at)),
            (f"INSERT INTO confidence_predictions (fact_id, predicted_confidence, "
             f"{sql_list(x + '_score' for x in comp.FACTORS)}, weights_json, actual_outcome, predicted_at) "
             f"VALUES (?, ?, {sql_list('?' * len(comp.FACTORS))}, ?, ?, ?)",
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
        at = iso_utc(self.now)
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
        at = iso_utc(self.now)
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
                now_j = julian_day(self.now)

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
        at = iso_utc(self.now)

        def run(c: ReviewConn) -> int:
            added, seen = 0, set()
            for row in rows:
                if row[1] in seen:
                    continue
                seen.add(row[1])
                if not c.execute("SELECT 1 FROM fact_contradictions WHERE fact_b_id = ?", (row[1],)).fetchall():
                    c.execute("INSERT INTO fact_contradictions (fact_a_id, fact_b_id, contradiction_type, severity, "
                              "detail, detected_at) VALUES (?, ?, ?, ?, ?, ?)", (*row, at))
                    added += 1
            return added

        return self.conn.write(run)

    def _created_age(self, fact_id: str, now_j: float) -> float:
        """Days since the fact was asserted (its source time, else its candidate row's time)."""
        row = self._query(f"SELECT {self.conn.julian('s.created_at')}, {self.conn.julian('c.' + self._col('updated_at'))} "
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

