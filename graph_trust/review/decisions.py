"""Review decisions: ``graph-trust review promote|corroborate|reject|expire ID...`` and ``undo``.

A command decides one or more facts, named by candidate id or by edge uuid, in one transaction
on the review DB:

- a decision is about a fact (an edge): an edge uuid, or the id of any candidate citing it,
  decides every candidate whose evidence cites that edge (element 0's ``evidence_id``, as sync
  reads it), so no other row on the fact keeps it trusted; a candidate citing no edge is decided
  alone; an edge no candidate cites gets a new candidate row (id = the edge uuid) from the graph's
  fact, subject, predicate and object (:class:`EdgeFact`, read by the caller); anything else is
  a NotFoundError and nothing is written; the batch lists every row it changed;
- each candidate's status and ``updated_at`` change, and ``review_decisions`` records who, when,
  why and the status before (the audit trail); open agent flags on the fact are resolved;
- the self-review rules follow the trust-override policy (:mod:`graph_trust.access.override`): the actor
  must name somebody (no placeholder such as ``unknown``), a reason is required, and a decision
  granting trust at or above the policy's approval threshold (``promote`` under the default
  tiers) cannot be made by the fact's proposer (its ``fact_sources.agent_id``, or whoever created
  its row by a review decision).

A decision may carry the state its reviewer saw (``expect``): a status (``unreviewed`` for a fact
with no review row; the fact's status as the queue shows it, its rows' highest tier) or the fact's
version (:func:`version_of`: the queue's and the review page's ``version``). A fact whose state is
not that any more, when the transaction reads it, is a :class:`ChangedSinceError` naming who
changed it and when, and nothing is decided: two reviewers deciding the same fact from the same
view, one wins and the other is told.

``undo`` reverts one batch (the caller's own latest not yet undone, or the one named): each candidate gets its
status back (a row the batch created is deleted), unless it changed since (a conflict: nothing is
written, unless ``force``); the undo is a batch of its own in the audit trail. The next sync
applies decisions like any review DB change.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from graph_trust.access.override import APPROVAL_THRESHOLD, names_nobody
from graph_trust.errors import ChangedSinceError, InputError, NotFoundError, ReviewDBError, RollbackConflictError
from graph_trust.review.candidates import CandidateTable
from graph_trust.review.db import ReviewConn, init_hint
from graph_trust.review.schema import ACTIONS, STATUS_OF, missing_tables


@dataclass(frozen=True)
class EdgeFact:
    """What the graph says of an edge: the candidate row a decision on an unreviewed edge creates."""

    uuid: str
    group_id: str | None
    subject: str | None
    predicate: str | None
    object: str | None
    fact: str | None


@dataclass(frozen=True)
class Decided:
    """One candidate row a batch changed."""

    candidate_id: str
    edge_uuid: str | None
    previous_status: str | None  # None: the batch created the row
    new_status: str | None  # None: the batch (an undo) deleted the row
    created_row: bool = False


@dataclass(frozen=True)
class Batch:
    """One command's decisions (its audit trail rows share ``batch_id``)."""

    batch_id: str
    action: str
    actor: str
    reason: str
    decided_at: str
    decisions: list[Decided] = field(default_factory=list)
    undoes: str | None = None  # the batch an undo reverted

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def now_iso(now: datetime | None = None) -> str:
    return (now or datetime.now(UTC)).astimezone(UTC).isoformat(
        timespec="milliseconds").replace("+00:00", "Z")


def named(actor: str | None, what: str = "--actor") -> str:
    """The actor's name; an InputError when it names nobody (the override policy's placeholders)."""
    if names_nobody(actor):
        shown = f" ({actor.strip()!r} names nobody)" if isinstance(actor, str) and actor.strip() else ""
        raise InputError(f"{what} must name who decides{shown}")
    return actor.strip()  # type: ignore[union-attr]


def _reason(reason: str | None) -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise InputError("--reason must say why (the audit trail keeps it)")
    return reason.strip()


def _batch_id(at: str) -> str:
    return f"review-{at.replace('-', '').replace(':', '').replace('.', '')}-{secrets.token_hex(3)}"


def need_review_tables(conn: ReviewConn) -> None:
    missing = missing_tables(conn, ("review_decisions", "review_flags"))
    if missing:
        raise ReviewDBError(f"review DB {conn.location} lacks the review tables ({', '.join(missing)}): "
                            f"{init_hint(conn.location)}")


def cited_by(conn: ReviewConn, cand: CandidateTable, uuids: list[str]) -> dict[str, list[tuple[str, str]]]:
    """Edge uuid -> [(candidate id, status)] of the candidates citing it (sync's edge uuid)."""
    if not uuids:
        return {}
    eid = conn.first_evidence_id(cand.col("evidence_refs_json"))
    out: dict[str, list[tuple[str, str]]] = {}
    for cid, status, uuid in conn.query(f'SELECT {cand.col("id")}, {cand.col("status")}, {eid} FROM "{cand.table}" '
                                        f"WHERE {conn.in_json_list(eid)} ORDER BY 1", (json.dumps(sorted(set(uuids))),)):
        out.setdefault(uuid, []).append((str(cid), status))
    return out


def statuses_by_id(conn: ReviewConn, cand: CandidateTable, ids: list[str]) -> dict[str, tuple[str, str | None]]:
    """Candidate id -> (status, edge uuid) of the ``ids`` that are candidates."""
    if not ids:
        return {}
    eid = conn.first_evidence_id(cand.col("evidence_refs_json"))
    idc = cand.col("id")
    rows = conn.query(f'SELECT {idc}, {cand.col("status")}, {eid} FROM "{cand.table}" '
                      f"WHERE {conn.in_json_list(f'CAST({idc} AS TEXT)')}", (json.dumps(sorted(set(ids))),))
    return {str(r[0]): (r[1], r[2]) for r in rows}


def unknown_targets(conn: ReviewConn, cand: CandidateTable, ids: list[str]) -> list[str]:
    """The ``ids`` that are neither a candidate id nor an edge uuid a candidate cites: decisions on
    them need the graph's :class:`EdgeFact` (the caller reads it)."""
    known = set(statuses_by_id(conn, cand, ids))
    rest = [i for i in ids if i not in known]
    cited = cited_by(conn, cand, rest)
    return [i for i in dict.fromkeys(rest) if i not in cited]


def _proposers(conn: ReviewConn, ids: list[str]) -> dict[str, set[str]]:
    """Candidate id -> who proposed it: its ``fact_sources`` author and whoever created its row."""
    out: dict[str, set[str]] = {}
    if not ids:
        return out
    param = (json.dumps(sorted(set(ids))),)
    if "fact_sources" in conn.tables():
        for fid, agent in conn.query("SELECT fact_id, agent_id FROM fact_sources WHERE "
                                     f"{conn.in_json_list('fact_id')}", param):
            if agent:
                out.setdefault(str(fid), set()).add(agent.casefold())
    for cid, actor in conn.query("SELECT candidate_id, actor FROM review_decisions WHERE created_row = 1 AND "
                                 f"{conn.in_json_list('candidate_id')}", param):
        out.setdefault(str(cid), set()).add(actor.casefold())
    return out


UNREVIEWED = "unreviewed"  # the state of a fact with no review row (``expect``)


def version_of(rows: list[tuple[str, str | None]]) -> str:
    """The version of a fact: a short digest of its review rows' (candidate id, status); a fact
    with no row has one too. Equal versions: the same rows in the same states."""
    text = json.dumps(sorted([str(c), s] for c, s in rows))
    return "v" + hashlib.sha256(text.encode()).hexdigest()[:12]


def status_shown(rows: list[tuple[str, str | None]], tiers: dict[str, float | None]) -> str:
    """A fact's status as the queue shows it: its rows' highest tier (``unreviewed``: no row)."""
    if not rows:
        return UNREVIEWED
    return max(rows, key=lambda r: (tiers.get(r[1]) is not None, tiers.get(r[1]) or 0.0, r[1]))[1]


def rows_of(conn: ReviewConn, cand: CandidateTable, target: str) -> list[tuple[str, str]]:
    """(candidate id, status) of the rows a decision on ``target`` decides (module docstring)."""
    by_id = statuses_by_id(conn, cand, [target])
    edge = by_id[target][1] if target in by_id else target
    cited = cited_by(conn, cand, [edge]).get(edge, []) if edge else []
    if cited:
        return cited
    return [(target, by_id[target][0])] if target in by_id else []


def _check_expected(c: ReviewConn, target: str, rows: list[tuple[str, str]], expect: str,
                    tiers: dict[str, float | None]) -> None:
    """A ChangedSinceError when ``target``'s state (``rows``) is not the ``expect`` ed one."""
    if expect == version_of(rows) or expect == status_shown(rows, tiers):
        return
    now = status_shown(rows, tiers)
    who = c.query("SELECT actor, action, decided_at FROM review_decisions WHERE "
                  f"{c.in_json_list('candidate_id')} ORDER BY id DESC LIMIT 1",
                  (json.dumps(sorted({r[0] for r in rows} | {target})),))
    if who:
        by = f"{who[0][0]} ({who[0][1]}) at {who[0][2]}"
    else:
        by = "outside review decisions (the pipeline or by hand)" if rows else "a row was deleted"
    raise ChangedSinceError(f"{target} changed since you saw it ({expect}): it is {now} now, changed by {by}; "
                            f"nothing was decided (see graph-trust review history {target}, then decide again)")


def decide(conn: ReviewConn, cand: CandidateTable, action: str, ids: list[str], *, actor: str, reason: str,
           tiers: dict[str, float | None], edges: dict[str, EdgeFact] | None = None,
           now: datetime | None = None, expect: str | None = None) -> Batch:
    """Decide the facts ``ids`` (candidate ids or edge uuids) in one transaction (module docstring);
    ``expect``: the state (a status or a version) each of them had when the reviewer saw it."""
    if action not in ACTIONS:
        raise InputError(f"unknown review action {action!r} (one of {', '.join(ACTIONS)})")
    actor, reason = named(actor), _reason(reason)
    targets = list(dict.fromkeys(i.strip() for i in ids if i and i.strip()))
    if not targets:
        raise InputError("name at least one fact: a candidate id or an edge uuid")
    status = STATUS_OF[action]
    if status not in tiers:
        raise InputError(f"status {status!r} is no tier of sync.tiers ({', '.join(tiers)}): sync would quarantine it")
    need_review_tables(conn)
    at = now_iso(now)
    batch_id = _batch_id(at)
    edges = edges or {}

    def run(c: ReviewConn) -> Batch:
        by_id = statuses_by_id(c, cand, targets)
        # the fact a target names: its edge (a candidate id names its row's edge), and every row citing it
        edge_of = {t: by_id[t][1] if t in by_id else t for t in targets}
        cited = cited_by(c, cand, [u for u in edge_of.values() if u])
        plan: list[Decided] = []
        seen: set[str] = set()
        for t in targets:
            u = edge_of[t]
            rows = [(cid, st, u) for cid, st in cited.get(u, [])] if u in cited else \
                [(t, *by_id[t])] if t in by_id else []
            if expect is not None:
                _check_expected(c, t, [(r[0], r[1]) for r in rows], expect.strip(), tiers)
            if not rows:
                if t not in edges:
                    raise NotFoundError(f"{t!r} is neither a candidate id nor the uuid of an edge in the graph; "
                                        "nothing was decided")
                if t in seen:
                    continue
                seen.add(t)
                plan.append(Decided(t, t, None, status, created_row=True))
                continue
            for cid, before, uuid in rows:
                if cid not in seen:
                    seen.add(cid)
                    plan.append(Decided(cid, uuid, before, status))
        trust = tiers.get(status) or 0.0
        if trust >= APPROVAL_THRESHOLD:  # the override policy: nobody approves their own proposal
            proposers = _proposers(c, [d.candidate_id for d in plan if not d.created_row])
            own = [d.candidate_id for d in plan if actor.casefold() in proposers.get(d.candidate_id, set())]
            if own:
                raise InputError(f"{actor} proposed {', '.join(own[:5])}: {action} (trust {trust:g} >= "
                                 f"{APPROVAL_THRESHOLD:.2f}) needs another reviewer; nothing was decided")
        _apply(c, cand, plan, edges, at)
        _record(c, batch_id, action, actor, reason, at, plan)
        _resolve_flags(c, plan, actor, at)
        return Batch(batch_id, action, actor, reason, at, plan)

    return conn.write(run)


def _apply(c: ReviewConn, cand: CandidateTable, plan: list[Decided], edges: dict[str, EdgeFact], at: str) -> None:
    """Write each planned status (create, update or, for an undo, delete the row)."""
    idc, stc, upc = cand.col("id"), cand.col("status"), cand.col("updated_at")
    for d in plan:
        if d.created_row and d.previous_status is None:
            e = edges[d.candidate_id]
            values = {"id": d.candidate_id, "status": d.new_status, "updated_at": at,
                      "evidence_refs_json": json.dumps([{"evidence_id": e.uuid, "kind": "edge"}]),
                      "group_id": e.group_id, "subject": e.subject, "predicate": e.predicate, "object": e.object,
                      "fact": e.fact}
            cols = [(cand.columns[k], v) for k, v in values.items() if cand.columns.get(k)]
            c.execute(f'INSERT INTO "{cand.table}" ({", ".join(chr(34) + n + chr(34) for n, _ in cols)}) '
                      f"VALUES ({', '.join('?' * len(cols))})", tuple(v for _, v in cols))
        elif d.new_status is None:
            c.execute(f'DELETE FROM "{cand.table}" WHERE {idc} = ?', (d.candidate_id,))
        else:
            c.execute(f'UPDATE "{cand.table}" SET {stc} = ?, {upc} = ? WHERE {idc} = ?',
                      (d.new_status, at, d.candidate_id))


def _record(c: ReviewConn, batch_id: str, action: str, actor: str, reason: str, at: str,
            plan: list[Decided]) -> None:
    c.executemany("INSERT INTO review_decisions (batch_id, candidate_id, edge_uuid, action, previous_status, "
                  "new_status, created_row, actor, reason, decided_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                  [(batch_id, d.candidate_id, d.edge_uuid, action, d.previous_status, d.new_status,
                    int(d.created_row), actor, reason, at) for d in plan])


def _resolve_flags(c: ReviewConn, plan: list[Decided], actor: str, at: str) -> None:
    names = sorted({d.candidate_id for d in plan} | {d.edge_uuid for d in plan if d.edge_uuid})
    c.execute("UPDATE review_flags SET resolved_at = ?, resolved_by = ? WHERE resolved_at IS NULL AND "
              f"({c.in_json_list('target')} OR {c.in_json_list('candidate_id')} OR {c.in_json_list('edge_uuid')})",
              (at, actor, *[json.dumps(names)] * 3))


def undo(conn: ReviewConn, cand: CandidateTable, *, actor: str, reason: str, batch_id: str | None = None,
         force: bool = False, now: datetime | None = None) -> Batch:
    """Revert one batch: the actor's own latest decision batch not yet undone, or ``batch_id``
    (anyone's: module docstring)."""
    actor, reason = named(actor), _reason(reason)
    need_review_tables(conn)
    at = now_iso(now)
    new_id = _batch_id(at)

    def run(c: ReviewConn) -> Batch:
        if batch_id is None:
            latest = c.query("SELECT batch_id FROM review_decisions WHERE action <> 'undo' AND undone_by IS NULL "
                             "AND lower(actor) = lower(?) ORDER BY id DESC LIMIT 1", (actor,))
            if not latest:
                raise InputError(f"no review decision of {actor} left to undo (another reviewer's batch is undone "
                                 "by its id: see graph-trust review history)")
            target = latest[0][0]
        else:
            target = batch_id
        rows = c.query("SELECT candidate_id, edge_uuid, action, previous_status, new_status, created_row, undone_by "
                       "FROM review_decisions WHERE batch_id = ? ORDER BY id", (target,))
        if not rows:
            raise NotFoundError(f"no review decision batch {target!r} (see `graph-trust review history`)")
        if rows[0][2] == "undo":
            raise InputError(f"{target} is an undo; decide again instead of undoing it")
        if rows[0][6] is not None:
            raise InputError(f"{target} was already undone by {rows[0][6]}")
        current = statuses_by_id(c, cand, [r[0] for r in rows])
        plan, conflicts = [], []
        for cid, uuid, _action, before, after, created, _ in rows:
            now_status = current.get(cid, (None,))[0]
            if now_status != after:
                conflicts.append(cid)
                if not force:
                    continue
            if now_status is None and before is None:
                continue  # created by the batch and gone already: nothing to delete
            plan.append(Decided(cid, uuid, now_status, None if created else before,
                                created_row=bool(created) and now_status is None))
        if conflicts and not force:
            raise RollbackConflictError(
                f"cannot undo {target}: {len(conflicts)} fact(s) changed since ({', '.join(conflicts[:5])}); "
                "nothing was undone (--force undoes them anyway)")
        _apply(c, cand, plan, {}, at)
        _record(c, new_id, "undo", actor, reason, at, plan)
        c.execute("UPDATE review_decisions SET undone_by = ? WHERE batch_id = ?", (new_id, target))
        return Batch(new_id, "undo", actor, reason, at, plan, undoes=target)

    return conn.write(run)


def history(conn: ReviewConn, *, target: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
    """The audit trail, newest first: every decision row, or those on one candidate id or edge uuid."""
    need_review_tables(conn)
    where, params = ("WHERE candidate_id = ? OR edge_uuid = ?", (target, target)) if target else ("", ())
    keys = ("id", "batch_id", "candidate_id", "edge_uuid", "action", "previous_status", "new_status", "created_row",
            "actor", "reason", "decided_at", "undone_by")
    rows = conn.query(f"SELECT {', '.join(keys)} FROM review_decisions {where} ORDER BY id DESC LIMIT ?",
                      (*params, int(limit)))
    return [dict(zip(keys, r)) | {"created_row": bool(r[7])} for r in rows]


__all__ = ["UNREVIEWED", "Batch", "Decided", "EdgeFact", "cited_by", "decide", "history", "named", "need_review_tables",
           "rows_of", "status_shown", "statuses_by_id", "undo", "unknown_targets", "version_of"]
