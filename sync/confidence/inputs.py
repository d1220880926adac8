"""The set-wise read of every confidence factor's input from the review DB's records: grouped
queries, then per-fact numpy columns (a mixin of :class:`~graph_trust.sync.confidence.store.ConfidenceStore`).

Split in two so sync can keep the slow part between runs (``confidence_cache``): :meth:`static`
reads what does not depend on the current time, :meth:`timed` derives ages, the usage window and
credibilities from it as of ``now``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from graph_trust.confidence import composite as comp
from graph_trust.confidence import contradiction as contra
from graph_trust.confidence import credibility as cred
from graph_trust.confidence import freshness, verification
from graph_trust.confidence.model import FactorInputs, factor_matrix
from graph_trust.config import ConfidenceSettings
from graph_trust.errors import NotFoundError
from graph_trust.review.db import ReviewConn
from graph_trust.sync.confidence.schema import INACTIVE, consensus_key, id_chunks, iso_utc, julian_day, sql_list
from graph_trust.sync.review_db import ReviewDB


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
              fids: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Consensus clusters: active facts with the same subject, predicate and object; an
    unattributed fact counts as its own agent; independent: no two cite the same evidence.
    ``cluster_rows`` hold every active member of the clusters ``fids`` may belong to (more rows do
    no harm: a lone or inactive row forms no cluster). Per fact of ``fids``: distinct agents,
    distinct roles, independence, counted on integer codes (``np.unique`` of (cluster, label)
    pairs); a fact in no cluster of two or more active members: 1 agent, 0 roles, independent."""
    m, n = len(cluster_rows), len(fids)
    seen: dict[tuple, int] = {}
    code = np.fromiter((seen.setdefault(k, len(seen)) for k in cluster_keys), dtype=np.int64, count=m)
    active = np.fromiter((bool(k[0] and k[1]) and r[6] not in INACTIVE for r, k in zip(cluster_rows, cluster_keys,
                                                                                        strict=True)), bool, m)
    groups = len(seen)
    members = np.bincount(code[active], minlength=groups)
    if not (members > 1).any():
        return np.ones(n), np.zeros(n), np.ones(n, dtype=bool)

    def distinct(labels: Iterable[Any], counted: np.ndarray) -> np.ndarray:
        lab, size = _codes(labels, m)
        pairs = np.unique(code[counted] * max(size, 1) + lab[counted])
        return np.bincount(pairs // max(size, 1), minlength=groups)

    agents = distinct((sr[0] or f"fact:{r[0]}" for r, sr in zip(cluster_rows, cluster_src, strict=True)), active)
    has_role = np.fromiter((bool(sr[1]) for sr in cluster_src), bool, m)
    roles = distinct((sr[1] for sr in cluster_src), active & has_role)
    evidence = distinct((r[4] or "" for r in cluster_rows), active)
    member_of = {str(r[0]): int(c) for r, c, a in zip(cluster_rows, code, active, strict=True) if a}
    row_code = np.fromiter((member_of.get(f, -1) for f in fids), dtype=np.int64, count=n)
    in_group = row_code >= 0
    row_code = np.maximum(row_code, 0)
    in_group &= members[row_code] > 1
    return (np.where(in_group, agents[row_code], 1).astype(float), np.where(in_group, roles[row_code], 0).astype(float),
            np.where(in_group, evidence[row_code] == members[row_code], True))


def _verified_by_others(rows: list[tuple]) -> list[tuple]:
    """The track records' verification counts per (author, category), from the per-fact rows of
    :meth:`FactorInputsRead.static` (what ``_track_rows`` would otherwise join again)."""
    out: dict[tuple[str, str], list[int]] = {}
    for *_, agent, cat, good, bad in rows:
        if agent is not None and good is not None:
            acc = out.setdefault((agent, cat), [0, 0])
            acc[0] += good
            acc[1] += bad
    return [(agent, cat, good, bad) for (agent, cat), (good, bad) in out.items()]


TrackRows = tuple[list[tuple], list[tuple], list[tuple]]  # counted, verified, profiles (track_records)


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
    track: TrackRows


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


class FactorInputsRead:
    """Factor inputs and scores of many facts at once, over the store's connection."""

    path: Path
    db: ReviewDB
    conn: ReviewConn
    cfg: ConfidenceSettings
    now: datetime
    weights: dict[str, float]
    _col: Callable[[str], str]
    _cand_sql: Callable[..., str]
    _query: Callable[..., list[tuple]]
    _track_rows: Callable[..., TrackRows]
    _track_from: Callable[[TrackRows], dict[tuple[str, str], cred.TrackRecord]]
    _record: Callable[..., cred.TrackRecord]

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
        jd = self.conn.julian
        src_sql = ("SELECT fact_id, agent_id, role, source_type, coalesce(lower(category), 'global'), "
                   f"{jd('created_at')} FROM fact_sources")
        none = (None, None, None, "global", None)
        if ids is None:  # the clusters apart, their keys normalized by SQLite
            rows = self._query(self._all_sql())  # each candidate with its source row (r[7:])
            cluster_rows = self._query(self._cluster_sql())
        else:
            rows = []
            for chunk in id_chunks(list(dict.fromkeys(ids))):
                rows += self._query(self._cand_sql(f"WHERE {c('id')} IN ({','.join('?' * len(chunk))})"), chunk)
            found = {r[0] for r in rows}
            unknown = [i for i in ids if i not in found]
            if unknown:
                raise NotFoundError(f"no fact with id {unknown[0]!r} in review DB {self.path} (table {self.db.table})")
            cluster_rows = list(rows)
            keys = {(consensus_key(r[1]), consensus_key(r[2]), consensus_key(r[3])) for r in rows}
            for key in (k for k in keys if k[0] and k[1]):
                same_object = self.conn.same(f"lower(trim({c('object')}))", "?")
                cluster_rows += self._query(self._cand_sql(
                    f"WHERE lower(trim({c('subject')})) = ? AND lower(trim({c('predicate')})) = ? "
                    f"AND {same_object}"), key)
            cluster_rows = list({str(r[0]): r for r in cluster_rows}.values())
            sources = self._by_fact(src_sql, [str(r[0]) for r in cluster_rows])
        fids = [str(r[0]) for r in rows]
        col = _Columns(fids)
        if ids is None:  # the cluster members are candidates: their sources are in ``src`` already
            src = [r[7:] for r in rows]
            cluster_src = [src[col.first[str(r[0])]] for r in cluster_rows]
        else:
            src = [sources.get(f, none) for f in fids]
            cluster_src = [sources.get(str(r[0]), none) for r in cluster_rows]
        cluster_keys = ([r[1:4] for r in cluster_rows] if ids is None else
                        [(consensus_key(r[1]), consensus_key(r[2]), consensus_key(r[3])) for r in cluster_rows])
        only = None if ids is None else fids
        system, truth = list(self.cfg.system_verifiers), list(self.cfg.ground_truth_verifiers)
        pos = sql_list(repr(v) for v in verification.POSITIVE)
        def among(col: str, names: list[str]) -> str:
            return f"{col} IN ({','.join('?' * len(names))})" if names else "1 = 0"

        verified = self._rows_for(
            # Per (fact, verifier) the latest verdict: verified_at is ISO 8601 UTC as verify-fact
            # writes it (text order is time order), so max(verified_at || '+' or '-') is the latest
            # record's time and whether it confirmed (a refutation wins a tie: '-' sorts after '+').
            # julianday() runs once per fact, not once per record. The last four columns are the
            # fact's part of its author's track record (every verification by someone else).
            f"WITH latest AS (SELECT fact_id, verifier_id, max(verified_at || CASE WHEN verification_type "
            f"IN ({pos}) THEN '+' ELSE '-' END) AS last, "
            f"sum(CASE WHEN verification_type IN ({pos}) THEN 1 ELSE 0 END) AS good, "
            f"sum(CASE WHEN verification_type = 'incorrect' THEN 1 ELSE 0 END) AS bad "
            f"FROM fact_verifications {{where}} GROUP BY fact_id, verifier_id), "
            f"l AS (SELECT fact_id, verifier_id, good, bad, substr(last, 1, length(last) - 1) AS at, "
            f"CASE WHEN substr(last, length(last)) = '+' THEN 1 ELSE 0 END AS ok FROM latest) "
            f"SELECT l.fact_id, sum(l.ok), sum(CASE WHEN l.ok = 1 AND {self.conn.differs('l.verifier_id', 's.agent_id')} "
            f"THEN 1 ELSE 0 END), "
            f"max(CASE WHEN l.ok = 1 AND {among('l.verifier_id', system)} THEN 1 ELSE 0 END), "
            f"max(CASE WHEN l.ok = 1 AND {among('l.verifier_id', truth)} THEN 1 ELSE 0 END), "
            f"{jd('max(CASE WHEN l.ok = 1 THEN l.at END)')}, {jd('max(l.at)')}, "
            f"s.agent_id, coalesce(lower(s.category), 'global'), "
            f"sum(CASE WHEN l.verifier_id != s.agent_id THEN l.good END), "
            f"sum(CASE WHEN l.verifier_id != s.agent_id THEN l.bad END) "
            f"FROM l LEFT JOIN fact_sources s ON s.fact_id = l.fact_id "
            f"GROUP BY l.fact_id, s.agent_id, coalesce(lower(s.category), 'global')",
            "fact_id", only, extra_params=(*system, *truth))
        usage = self._rows_for(  # every use: which fall in the window is decided per run (``timed``)
            "SELECT fact_id, tracked_at, CASE WHEN outcome = 'success' THEN 1 ELSE 0 END, "
            "CASE WHEN outcome = 'partial' THEN 1 ELSE 0 END FROM fact_usage_outcomes {where}", "fact_id", only)
        losses: dict[str, int] = defaultdict(int)
        unresolved: dict[str, float] = defaultdict(float)
        for a, b, severity, resolved, loser in self._contradiction_rows(only):
            if resolved is not None and loser is not None:
                losses[loser] += 1
            elif resolved is None:
                unresolved[a] += contra.SEVERITY_SCORES[severity]
                unresolved[b] += contra.SEVERITY_SCORES[severity]
        votes = self._rows_for(  # in id order: a fact's votes add up alike read alone or with every fact
            "SELECT fact_id, agent_id, vote, confidence FROM fact_votes {where} ORDER BY id", "fact_id", only,
            extra="vote IN ('agree', 'disagree')")

        authors = [x[0] for x in src]
        cats = [x[3] for x in src]
        track = (self._track_rows(None, None, verified=_verified_by_others(verified)) if ids is None else
                 self._track_rows({a for a in authors if a} | {v[1] for v in votes}, categories=cats))
        n = len(rows)
        kept_votes = [(i, voter, vote == "agree", conf) for i, (f, voter, vote, conf) in
                      ((col.first.get(str(v[0])), v) for v in votes) if i is not None]  # (a vote on a fact gone: dropped)
        kept_uses = [(i, *u[1:]) for i, u in ((col.first.get(str(u[0])), u) for u in usage) if i is not None]

        # consensus clusters: active facts with the same subject, predicate and object; an
        # unattributed fact counts as its own agent; independent: no two cite the same evidence
        agents_n, specs_n, independent = _clusters(cluster_rows, cluster_keys, cluster_src, fids)

        ver = col.scatter([r[:7] for r in verified], (0, 0, 0, 0, np.nan, np.nan))  # (a NULL time is nan)
        confirmed_at, newest_at = ver[:, 4], ver[:, 5]
        created = np.array([x[4] for x in src], dtype=float).reshape(n)  # None -> nan: the row's own time
        created = np.where(np.isnan(created), np.array([r[5] for r in rows], dtype=float).reshape(n), created)
        counts = np.nan_to_num(ver[:, :4])
        # the review decision is a verification too (graph_trust.confidence.verification.with_reviews)
        level, verifiers = verification.with_reviews(
            [r[6] for r in rows], np.array([r[5] for r in rows], dtype=float).reshape(n), counts[:, 0], counts[:, 1],
            counts[:, 2] > 0, counts[:, 3] > 0, confirmed_at, newest_at)
        hl = {k: freshness.half_life_for(k, self.cfg.half_lives, self.cfg.default_half_life) for k in set(cats)}
        roles = {r: cred.role_weight(r) for r in {x[1] for x in src}}
        stypes = {t: cred.source_type_weight(t) for t in {x[2] for x in src}}
        per_fact = np.array([(roles[x[1]], stypes[x[2]], hl[x[3]]) for x in src], dtype=float).reshape(n, 3)
        arrays = {
            "ref": np.fmax(created, confirmed_at), "half_life": per_fact[:, 2], "role": per_fact[:, 0],
            "source_type": per_fact[:, 1],
            "level": level, "verifiers": verifiers, "agents": agents_n, "specializations": specs_n,
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
        since = iso_utc(self.now - timedelta(days=self.cfg.success_window_days))  # ISO UTC: text order is time order
        uses = [u for u in st.uses if _at_or_after(u[1], since)]
        at = np.fromiter((u[0] for u in uses), dtype=np.int64, count=len(uses))

        def used(k: int | None) -> np.ndarray:
            w = None if k is None else np.fromiter((u[k] for u in uses), dtype=float, count=len(uses))
            return col.spread(np.bincount(at, weights=w, minlength=n).astype(float))

        x = st.arrays
        ref = x["ref"]
        inputs = FactorInputs(
            age_days=np.where(np.isnan(ref), 0.0, np.maximum(0.0, julian_day(self.now) - np.nan_to_num(ref))),
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
        for chunk in id_chunks(list(dict.fromkeys(ids))):
            cond = f"{col} IN ({','.join('?' * len(chunk))})" + (f" AND {extra}" if extra else "")
            out += self._query(sql.format(where=f"WHERE {cond}"), (*chunk, *extra_params))
        return out

    def _contradiction_rows(self, ids: Sequence[str] | None) -> list[tuple]:
        """Contradictions touching ``ids`` (all when None), in id order either way: a fact's
        severities are summed in the same order whether it is read alone or with every fact."""
        sql = "SELECT fact_a_id, fact_b_id, severity, resolved_at, resolution_loser FROM fact_contradictions"
        if ids is None:
            return self._query(sql + " ORDER BY id")
        out = {}
        for col in ("fact_a_id", "fact_b_id"):
            for r in self._rows_for(f"SELECT id, {sql[7:]} {{where}}", col, ids):
                out[r[0]] = r[1:]
        return [out[k] for k in sorted(out)]


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

