"""``graph-trust review skip FACT --reason``: "looked, not decided".

A reviewer who looked at a fact and could not decide it records a skip: one batch (``skip-...``)
in ``review_skips`` with who, when, why and the fact's status then, like a decision's audit trail,
but no status changes and nothing reaches sync. The queue stops offering a skipped fact for
``review.queue.skip_days`` unless new evidence arrives after the skip: the retrieval log returns it
on a later day, an agent flags it, or its review row's status changes. ``graph-trust review undo
skip-...`` takes a skip back (the fact is offered again at once); the undo is a row of its own.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from graph_trust.errors import InputError, NotFoundError, ReviewDBError
from graph_trust.review.candidates import CandidateTable
from graph_trust.review.db import ReviewConn
from graph_trust.review.decisions import Batch, Decided, cited_by, history, named, now_iso, statuses_by_id
from graph_trust.review.decisions import _batch_id as decision_batch_id
from graph_trust.review.decisions import undo as undo_decisions
from graph_trust.review.schema import missing_tables

PREFIX = "skip-"


def is_skip_batch(batch_id: str | None) -> bool:
    return isinstance(batch_id, str) and batch_id.startswith(PREFIX)


def _need_table(conn: ReviewConn) -> None:
    if missing_tables(conn, ("review_skips",)):
        raise ReviewDBError(f"review DB {conn.location} lacks the review_skips table: run "
                            f"`graph-trust review init {conn.location}` to add it in place")


def _batch_id(at: str) -> str:
    return PREFIX + decision_batch_id(at).removeprefix("review-")


def skip(conn: ReviewConn, cand: CandidateTable, ids: list[str], *, actor: str, reason: str,
         graph_edges: set[str] | None = None, now: datetime | None = None) -> Batch:
    """Record that ``actor`` looked at the facts ``ids`` (candidate ids or edge uuids) and did not
    decide them, in one transaction; an id that is neither a candidate nor an edge cited by one nor
    in ``graph_edges`` (the edges the caller found in the graph) is a NotFoundError and nothing is
    written."""
    actor = named(actor)
    if not isinstance(reason, str) or not reason.strip():
        raise InputError("--reason must say why (the audit trail keeps it)")
    reason = reason.strip()
    targets = list(dict.fromkeys(i.strip() for i in ids if i and i.strip()))
    if not targets:
        raise InputError("name at least one fact: a candidate id or an edge uuid")
    _need_table(conn)
    at = now_iso(now)
    batch_id = _batch_id(at)

    def run(c: ReviewConn) -> Batch:
        by_id = statuses_by_id(c, cand, targets)
        cited = cited_by(c, cand, [t for t in targets if t not in by_id])
        plan: list[Decided] = []
        for t in targets:
            if t in by_id:
                status, uuid = by_id[t]
                plan.append(Decided(t, uuid, status, status))
            elif t in cited:
                cid, status = cited[t][0]
                plan.append(Decided(cid, t, status, status))
            elif graph_edges is not None and t in graph_edges:
                plan.append(Decided(t, t, None, None))
            else:
                raise NotFoundError(f"{t!r} is neither a candidate id nor the uuid of an edge in the graph; "
                                    "nothing was skipped")
        c.executemany("INSERT INTO review_skips (batch_id, action, candidate_id, edge_uuid, status, actor, reason, "
                      "skipped_at) VALUES (?, 'skip', ?, ?, ?, ?, ?, ?)",
                      [(batch_id, d.candidate_id, d.edge_uuid, d.previous_status, actor, reason, at) for d in plan])
        return Batch(batch_id, "skip", actor, reason, at, plan)

    return conn.write(run)


def undo(conn: ReviewConn, *, actor: str, reason: str, batch_id: str, now: datetime | None = None) -> Batch:
    """Take the skip batch ``batch_id`` back: its facts are offered again; the undo is recorded."""
    actor = named(actor)
    if not isinstance(reason, str) or not reason.strip():
        raise InputError("--reason must say why (the audit trail keeps it)")
    _need_table(conn)
    at = now_iso(now)
    new_id = _batch_id(at)

    def run(c: ReviewConn) -> Batch:
        rows = c.query("SELECT candidate_id, edge_uuid, status, action, undone_by FROM review_skips WHERE batch_id = ? "
                       "ORDER BY id", (batch_id,))
        if not rows:
            raise NotFoundError(f"no skip batch {batch_id!r} (see `graph-trust review history`)")
        if rows[0][3] == "undo":
            raise InputError(f"{batch_id} is an undo; skip again instead of undoing it")
        if rows[0][4] is not None:
            raise InputError(f"{batch_id} was already undone by {rows[0][4]}")
        plan = [Decided(cid, uuid, status, status) for cid, uuid, status, _, _ in rows]
        c.executemany("INSERT INTO review_skips (batch_id, action, candidate_id, edge_uuid, status, actor, reason, "
                      "skipped_at) VALUES (?, 'undo', ?, ?, ?, ?, ?, ?)",
                      [(new_id, d.candidate_id, d.edge_uuid, d.previous_status, actor, reason.strip(), at)
                       for d in plan])
        c.execute("UPDATE review_skips SET undone_by = ? WHERE batch_id = ?", (new_id, batch_id))
        return Batch(new_id, "undo", actor, reason.strip(), at, plan, undoes=batch_id)

    return conn.write(run)


def history_rows(conn: ReviewConn, target: str | None, limit: int) -> list[dict[str, Any]]:
    """Skips and their undos as audit-trail rows (``review history``'s keys), newest first."""
    if missing_tables(conn, ("review_skips",)):
        return []
    where, params = ("WHERE candidate_id = ? OR edge_uuid = ?", (target, target)) if target else ("", ())
    rows = conn.query("SELECT id, batch_id, candidate_id, edge_uuid, action, status, actor, reason, skipped_at, "
                      f"undone_by FROM review_skips {where} ORDER BY id DESC LIMIT ?", (*params, int(limit)))
    return [{"id": r[0], "batch_id": r[1], "candidate_id": r[2], "edge_uuid": r[3],
             "action": "skip" if r[4] == "skip" else "undo", "previous_status": r[5], "new_status": r[5],
             "created_row": False, "actor": r[6], "reason": r[7], "decided_at": r[8], "undone_by": r[9]}
            for r in rows]


def audit_trail(conn: ReviewConn, target: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
    """``graph-trust review history``: decisions (:func:`graph_trust.review.decisions.history`) and
    skips with their undos, newest first, all or those on one candidate id or edge uuid."""
    rows = history(conn, target=target, limit=limit) + history_rows(conn, target, limit)
    return sorted(rows, key=lambda r: (r["decided_at"], r["batch_id"]), reverse=True)[:limit]


def open_skips(conn: ReviewConn, inputs: Any, *, days: float, now: datetime | None = None) -> dict[str, dict[str, Any]]:
    """Queue key -> the newest skip still holding it back: made within ``days`` of ``now``, not
    undone, and with no new evidence since (module docstring). ``inputs`` are the queue's gathered
    inputs (the log's returns, open flags, review rows)."""
    if missing_tables(conn, ("review_skips",)):
        return {}
    ref = (now or datetime.now(UTC)).astimezone(UTC)
    since = now_iso(ref - timedelta(days=days))
    rows = conn.query("SELECT candidate_id, edge_uuid, status, actor, reason, skipped_at, batch_id FROM review_skips "
                      "WHERE action = 'skip' AND undone_by IS NULL AND skipped_at >= ? ORDER BY skipped_at, id",
                      (since,))
    if not rows:
        return {}
    flagged_at: dict[str, str] = {}
    if not missing_tables(conn, ("review_flags",)):
        for target, cid, uuid, at in conn.query("SELECT target, candidate_id, edge_uuid, flagged_at FROM review_flags "
                                                "WHERE flagged_at >= ?", (since,)):
            for k in (target, cid, uuid):
                if k:
                    flagged_at[k] = max(flagged_at.get(k, ""), at)
    unplaced = {r["candidate_id"]: r for r in inputs.unplaced}
    row_status = {cid: st for rows_ in inputs.reviews.values() for cid, st in rows_}
    out: dict[str, dict[str, Any]] = {}
    for cid, uuid, status, actor, reason, at, batch in rows:
        key = f"candidate:{cid}" if cid in unplaced or not uuid else uuid
        use = inputs.uses.get(uuid) if uuid else None
        if use is not None and use.last_day > at[:10]:
            out.pop(key, None)
            continue  # returned on a later day
        if any(flagged_at.get(k, "") > at for k in (cid, uuid) if k):
            out.pop(key, None)
            continue  # flagged since
        row = cid if cid in row_status else None
        if row is None and uuid in inputs.reviews:
            out.pop(key, None)
            continue  # a review row for it was created since
        if row is not None and row_status[row] != status:
            out.pop(key, None)
            continue  # its review row changed
        out[key] = {"batch_id": batch, "actor": actor, "reason": reason, "skipped_at": at}
    return out


def undo_batch(conn: ReviewConn, cand: CandidateTable, *, actor: str, reason: str, batch_id: str | None = None,
               force: bool = False) -> Batch:
    """``graph-trust review undo``: take back the skip batch ``batch_id`` names (:func:`undo`), else
    a decision batch (:func:`graph_trust.review.decisions.undo`: the actor's own latest, or ``batch_id``)."""
    if is_skip_batch(batch_id):
        return undo(conn, actor=actor, reason=reason, batch_id=batch_id)
    return undo_decisions(conn, cand, actor=actor, reason=reason, batch_id=batch_id, force=force)


__all__ = ["PREFIX", "audit_trail", "history_rows", "is_skip_batch", "open_skips", "skip", "undo", "undo_batch"]
