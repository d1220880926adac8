"""Relink's writes: the review DB's evidence JSON, journaled in the state store, and rollback;
:data:`RUN_KIND` lists relink's runs and rolls one back for ``graph-trust runs`` / ``rollback``.

Relink writes only the evidence column of orphaned candidates it matched (plus their
``updated_at``, set to now, so the next incremental ``graph-trust sync`` picks the rows up; a
rollback sets it to now again), on an SQLite or a PostgreSQL review DB. A run:

1. opens one write transaction (:meth:`graph_trust.review.db.ReviewConn.write`: SQLite's
   ``BEGIN IMMEDIATE``, PostgreSQL's ``SERIALIZABLE``, not retried here; a lock held too long by
   another writer or a read-only DB is one :class:`~graph_trust.errors.ReviewDBError`, nothing
   written);
2. re-reads each row under the lock and skips (as a *conflict*) any whose evidence id changed
   since it was matched;
3. journals ``(candidate id, old JSON, new JSON)`` in the state store and commits that first;
4. updates the rows and commits the review DB in one transaction; marks the run ``ok``.

A crash between 3 and 4 leaves a ``pending`` run whose journal is harmless: rollback restores
only rows that still hold the run's new JSON. The journal's tables belong to the state store
(:mod:`graph_trust.sync.store.relink_journal`); this module speaks SQL to the review DB only.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from graph_trust.config import Settings, review_location
from graph_trust.errors import InputError, NotFoundError, ReviewDBError, RollbackConflictError
from graph_trust.review.db import Location, ReviewConn, parse_location
from graph_trust.sync.evidence import edge_uuid_of
from graph_trust.sync.relink.evidence_json import relinked_evidence_json
from graph_trust.sync.relink.matching import RelinkCandidate
from graph_trust.sync.review_db import ReviewDB
from graph_trust.sync.runs.kinds import RunKind
from graph_trust.sync.store.relink_journal import JournalStore, list_runs
from graph_trust.sync.store.state import now_iso

FIELDS = ("id", "subject", "predicate", "object", "fact", "evidence_refs_json", "group_id")

def _write_error(err: ReviewDBError) -> ReviewDBError:
    text = str(err)
    if "readonly" in text or "read-only" in text or "read only" in text:
        return ReviewDBError(f"{text.split(':')[0]} is read-only; relink must write its evidence column "
                             "(nothing was written)")
    return ReviewDBError(f"{err}; nothing was written")


class _Probe(Exception):
    """Rolls back :func:`check_writable`'s test write."""


def open_review_db(settings: Settings, path: str | Path | None) -> ReviewDB:
    """Open the review DB as sync does (mapping, checks); relink also needs its text columns."""
    db = ReviewDB.open(path, settings.review)
    if not db.columns.get("subject") and not db.columns.get("fact"):
        db.close()
        raise ReviewDBError(f"review DB {db.path} table {db.table!r} has neither a subject nor a fact column: "
                            "relink matches on them (map them in review.columns)")
    return db


def iter_candidates(db: ReviewDB, group: str | None = None, batch_size: int = 5000
                    ) -> Iterator[tuple[list[tuple[RelinkCandidate, str]], list[dict]]]:
    """Batches of (candidates with their evidence uuid, quarantined ``{id, reason}``), streamed
    from the review DB; ``group`` keeps only that group's candidates."""
    if group is not None and not db.columns.get("group_id"):
        raise InputError(f"--group given but review table {db.table!r} has no group_id column")
    for batch in db.iter_batches(fields=FIELDS, batch_size=batch_size):
        out, quarantined = [], []
        for r in batch:
            gid = r["group_id"] or None
            if group is not None and gid != group:
                continue
            evidence, reason = edge_uuid_of(r["evidence_refs_json"])
            if reason:
                quarantined.append({"id": str(r["id"]), "reason": reason})
                continue
            out.append((RelinkCandidate(str(r["id"]), r["subject"], r["predicate"], r["object"], r["fact"], gid),
                        evidence))
        yield out, quarantined


def _connect_rw(where: str | Location) -> ReviewConn:
    try:
        return ReviewConn.open(where)
    except ReviewDBError as exc:
        raise _write_error(exc) from None


def _touch(columns: dict[str, str | None]) -> str:
    """SET fragment bumping ``updated_at`` so an incremental sync picks the row up."""
    return f', "{columns["updated_at"]}" = ?' if columns.get("updated_at") else ""


def _stamp(columns: dict[str, str | None]) -> tuple[str, ...]:
    return (now_iso(),) if columns.get("updated_at") else ()


def check_writable(db: ReviewDB) -> None:
    """Fail now (before matching) if the review DB cannot be written: locked or read-only.

    Takes the write lock and rewrites one row's evidence with itself, then rolls back."""
    ev, idc = db.columns["evidence_refs_json"], db.columns["id"]

    def probe(c: ReviewConn) -> None:
        c.execute(f'UPDATE "{db.table}" SET "{ev}" = "{ev}" WHERE "{idc}" = (SELECT min("{idc}") FROM "{db.table}")')
        raise _Probe

    with _connect_rw(db.location) as conn:
        try:
            conn.write(probe, retries=0)
        except _Probe:
            pass
        except ReviewDBError as exc:
            raise _write_error(exc) from None


def apply_relinks(db: ReviewDB, run_id: str, changes: list[tuple[str, str, str]], counts: dict[str, int],
                  settings: Settings) -> tuple[int, list[dict]]:
    """Write ``(candidate id, old evidence uuid, new evidence uuid)`` changes (module docstring).

    Returns (rows written, conflicts)."""
    idc, evc = db.columns["id"], db.columns["evidence_refs_json"]
    with JournalStore(settings) as store:
        return _apply(db, run_id, changes, counts, store, idc, evc)


def _apply(db: ReviewDB, run_id: str, changes: list[tuple[str, str, str]], counts: dict[str, Any],
           store: JournalStore, idc: str, evc: str) -> tuple[int, list[dict]]:
    def write(c: ReviewConn) -> tuple[list[tuple[str, str, str]], list[dict]]:
        journal, conflicts = [], []
        for cid, old_id, new_id in changes:
            row = c.execute(f'SELECT "{evc}" FROM "{db.table}" WHERE "{idc}" = ?', (cid,)).fetchone()
            current = row[0] if row else None
            if edge_uuid_of(current)[0] != old_id:
                conflicts.append({"id": cid, "reason": "evidence changed since it was matched; left as is"})
                continue
            journal.append((cid, current, relinked_evidence_json(current, new_id)))
        store.begin(run_id, db, counts, journal)
        c.executemany(f'UPDATE "{db.table}" SET "{evc}" = ?{_touch(db.columns)} WHERE "{idc}" = ?',
                      [(new, *_stamp(db.columns), cid) for cid, _, new in journal])
        return journal, conflicts

    with _connect_rw(db.location) as conn:
        try:  # (no retry: the journal is committed inside; a conflict fails the run, nothing written)
            journal, conflicts = conn.write(write, retries=0)
        except ReviewDBError as exc:
            store.finish(run_id, "failed")
            raise _write_error(exc) from None
    store.finish(run_id, "ok")
    return len(journal), conflicts


def rollback(settings: Settings, run_id: str, *, force: bool = False) -> dict[str, Any]:
    """Restore the evidence JSON that relink run ``run_id`` replaced, byte for byte.

    A row that no longer holds the run's JSON (changed by hand or by a later relink) is a
    conflict: the rollback refuses, naming the rows, unless ``force`` (then it restores them too).
    """
    with JournalStore(settings) as store:
        return _rollback(store, run_id, force, settings)


def _journaled_location(settings: Settings, journaled: str) -> str | Location:
    """What opens the review DB a run wrote: its file, or (PostgreSQL, journaled without a password)
    the configured ``review.url`` when it names the same database."""
    if "://" not in journaled:
        return journaled
    configured = review_location(settings.review)
    loc = parse_location(configured) if configured else None
    if loc is None or loc.display != journaled:
        raise InputError(f"the relink run wrote review DB {journaled}; set review.url to it to roll the run back")
    return loc


def _rollback(store: JournalStore, run_id: str, force: bool, settings: Settings) -> dict[str, Any]:
    run = store.run(run_id)
    if run is None:
        raise NotFoundError(f"no relink run {run_id!r} in the state store {store.path}")
    if run["status"] == "rolled_back":
        return {"run_id": run_id, "restored": 0, "already": True, "conflicts": []}
    journal = store.journal(run_id)
    where = _journaled_location(settings, run["review_db"])
    table, idc, evc = run["table_name"], run["id_column"], run["evidence_column"]

    def restore(c: ReviewConn) -> tuple[int, list[str]]:
        plan, conflicts = [], []
        for cid, old_json, new_json in journal:
            row = c.execute(f'SELECT "{evc}" FROM "{table}" WHERE "{idc}" = ?', (cid,)).fetchone()
            current = row[0] if row else None
            if current == old_json:
                continue
            if current != new_json:
                conflicts.append(cid)
                if not force:
                    continue
            plan.append((old_json, cid))
        if conflicts and not force:
            later = store.later_runs_touching(run, set(conflicts))
            by = f" (changed by later relink run(s) {', '.join(later)})" if later else ""
            shown = ", ".join(conflicts[:5]) + (" ..." if len(conflicts) > 5 else "")
            raise RollbackConflictError(
                f"relink run {run_id}: {len(conflicts)} candidate(s) changed since the run{by}: {shown}; "
                "nothing restored (use --force to restore anyway)")
        cols = {"updated_at": run["updated_column"]}
        c.executemany(f'UPDATE "{table}" SET "{evc}" = ?{_touch(cols)} WHERE "{idc}" = ?',
                      [(old, *_stamp(cols), cid) for old, cid in plan])
        return len(plan), conflicts

    with _connect_rw(where) as conn:
        try:
            restored, conflicts = conn.write(restore, retries=0)
        except ReviewDBError as exc:
            raise _write_error(exc) from None
    store.finish(run_id, "rolled_back")
    return {"run_id": run_id, "restored": restored, "already": False, "conflicts": conflicts}


async def _rollback_run(settings: Settings, run_id: str, force: bool, graph: Any) -> dict[str, Any]:
    return rollback(settings, run_id, force=force)  # the review DB only: no graph


RUN_KIND = RunKind("relink", "relink-", list_runs, _rollback_run)
