"""Desired trust per edge, kept in the state store and updated incrementally.

``refresh_candidates`` brings the state store's copy of the review DB (``sync_candidates``,
one per review source and graph) up to date in one transaction over one read snapshot of
the review DB (ATTACHed read-only): rows SQLite can take as they are go through one
``INSERT ... SELECT`` (``part_fast_path``), the others through ``evidence.edge_uuid_of`` in
Python, a batch at a time, which gives each unusable row its quarantine reason (``copy_rows``).

Change detection is by content, never by ``updated_at``: the copy keeps, per row, what sync read
of each column in ``REVIEW_FIELDS`` (``RAW``: the row's fingerprint), and a normal run compares the review
DB with it set-wise in SQLite (``create_changed``: one pass over the review table, one primary-key
lookup per row); the rows that differ or are new are read again, whatever their ``updated_at``
(older, equal, newer, NULL, unchanged). When the
row counts then disagree it also finds the rows that left the review DB. ``full`` (or changed
tiers) re-reads everything. An id on several rows (possible only when the review table does
not declare it unique) is quarantined until it is unique again. ``exact_candidates`` reads
every row afresh for ``verify``.

Every edge whose candidates changed (its old and new edge uuid) is recorded in
``sync_touched``, and ``sync_desired`` (one row per edge with a scored winner, or labels only) is recomputed
for those edges only with ``part_desired`` (a window function: highest tier wins, see
``policy``); after a full re-read, for every edge (by the sync itself range by range, so its
first writes start before the last range is computed). ``sync_touched`` rows stay until a run
has written their edges, so a failed run loses nothing. Memory stays flat: nothing holds more
than one batch.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

from graph_trust.errors import ReviewDBError
from graph_trust.review.db import review_error
from graph_trust.sync.evidence import edge_uuid_of
from graph_trust.sync.labels import register as register_labels
from graph_trust.sync.policy import Policy
from graph_trust.sync.review_db import REVIEW_FIELDS, ReviewDB
from graph_trust.sync.store.named import part, run, run_many
from graph_trust.sync.store.run_tables import RunTables
from graph_trust.sync.store.state import StateStore, now_iso


@dataclass(frozen=True)
class ReviewSource:
    """Where a run's candidates come from and how a review row becomes one: the review DB, the
    promotion policy, the group-to-graph mapping (``graph_of``), the state store's key for this
    review DB on this graph (:func:`source_for`), and whether its groups share one graph, and its default graph."""

    review: ReviewDB
    policy: Policy
    graph_of: Callable[[str | None], str]
    key: str
    shared_graph: bool = False  # every group in one graph (the backend's graph_per_group is false)
    default_graph: str = ""
    blend: float = 0.0  # confidence mode's weight w (see BLEND); 0: tiers mode

    def params(self) -> dict[str, object]:
        """The SQL parameters the candidate and desired-state statements take."""
        return {"source": self.key, "db": self.default_graph, "shared_graph": int(self.shared_graph),
                "cw": self.blend}


def load_tiers(con: sqlite3.Connection, policy: Policy) -> None:
    """(Re)create ``temp.tiers`` (status, score) from the policy, and add the label window
    functions on its sensitivity scale (:func:`graph_trust.sync.labels.register`)."""
    register_labels(con, policy.scale)
    RunTables(con).load_tiers(policy.tiers)


# The desired state per edge is ``part_desired`` of statements.sql: the winner by tier, and labels
# from every usable row (graph_trust.sync.labels), so no decision loosens them. In
# ``sync.trust_mode: confidence`` the winner's tier is blended with its confidence (BLEND).
# the parts of part_desired per trust mode (tiers: blend 0; confidence: blended)
_MODES = {False: {"score": "score_tiers", "confidence": "none", "join": "none"},
          True: {"score": "score_blended", "confidence": "confidence_blended", "join": "join_blended"}}


def desired_parts(blend: float, rows: str, where: str = "none") -> dict[str, str]:
    """The parts of ``part_desired`` for trust mode ``blend`` (0: tiers) over the candidates the
    fragment ``rows`` selects (all_rows, touched_rows, conf_edge_rows, review_rows), under ``where``."""
    names = {"desired": "desired", **_MODES[bool(blend)], "rows": rows, "where": where}
    return {key: part(name) for key, name in names.items()}


def desired_of(con: sqlite3.Connection, params: dict, *, blend: float = 0.0, rows: str = "all_rows") -> list[tuple]:
    """The desired state per edge: ``(source, graph, edge_uuid, score, status, memory_type,
    sensitivity, scope)`` (for tests and checks; sync writes it into ``sync_desired``)."""
    return run(con, "desired_rows", params, **desired_parts(blend, rows)).fetchall()


def insert_desired(con: sqlite3.Connection, params: dict, *, blend: float, rows: str, where: str = "none") -> None:
    """``sync_desired`` gets the desired state of the candidates ``rows`` selects (see :func:`desired_parts`)."""
    run(con, "insert_desired", params, **desired_parts(blend, rows, where))


def bounds(lo: str | None, hi: str | None) -> dict[str, str | bytes]:
    """``:lo``/``:hi`` of a uuid range [lo, hi) (None: unbounded). uuids are TEXT and SQLite orders
    every text after '' and before any BLOB: '' and an empty BLOB bound nothing."""
    return {"lo": "" if lo is None else lo, "hi": b"" if hi is None else hi}


# What the copy keeps of each review row as it was read (raw_* columns, untyped: values stay as they
# came): a normal run compares the review DB with them (statement create_changed).
RAW = {name: f"raw_{name}" for name in REVIEW_FIELDS[1:]}


def _text(value) -> str | None:
    """Optional text columns: None stays None, everything else becomes its text (bytes decoded as
    UTF-8 like SQLite's CAST; bytes that are not UTF-8 get replacement characters, and
    :func:`parse_row` quarantines their row)."""
    if value is None:
        return None
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _not_utf8(value) -> bool:
    if not isinstance(value, bytes):
        return False
    try:
        value.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


# Text columns a BLOB may arrive in: the fast path leaves such rows to parse_row.
_TEXT_FIELDS = ("group_id", "memory_type", "sensitivity", "scope")


def parse_row(row: dict, policy: Policy, graph_of: Callable[[str | None], str]) -> tuple:
    """One review row -> a ``sync_candidates`` tuple (without source): reason set when unusable.
    A text column holding bytes that are not UTF-8 makes the row unusable (a miss, never a scope
    or graph guessed from mangled bytes); an id like that is an error (rows are keyed by it)."""
    if _not_utf8(row["id"]):
        raise ReviewDBError(f"review row id {row['id']!r} is a BLOB that is not UTF-8 text; ids must be text")
    cid = _text(row["id"])
    uuid, reason = edge_uuid_of(row["evidence_refs_json"])
    status = row["status"]
    if reason is None and not policy.knows(status):
        reason = f"unknown status {status!r} (known: {', '.join(sorted(policy.tiers))})"
    if reason is None and (bad := [f for f in _TEXT_FIELDS if _not_utf8(row.get(f))]):
        reason = f"{', '.join(bad)}: bytes that are not UTF-8 text"
    group = row.get("group_id")
    graph = graph_of(_text(group))
    return (cid, graph, uuid, status if isinstance(status, str) else _text(status),
            _text(row.get("memory_type")), _text(row.get("sensitivity")), _text(row.get("scope")), reason)


def copy_rows(c: sqlite3.Connection, src: ReviewSource, inner: str, *, table: str = "sync_candidates",
              batch_size: int = 2000, progress: Callable[[int], None] | None = None) -> int:
    """Upsert the review rows ``inner`` selects (``REVIEW_FIELDS`` over the ATTACHed review DB)
    into ``table`` (the columns of ``sync_candidates``, under ``:source``): rows SQLite can take as they are in one
    ``INSERT ... SELECT`` (``part_fast_path``), the others through :func:`parse_row` a batch at a time,
    which gives each unusable row its quarantine reason. Returns the rows copied."""
    review, params = src.review, src.params()
    fill = {"table": table, "inner": inner, "fast": part("fast_path"), "upsert": part("upsert")}
    everything, with_id = run(c, "count_review_rows", params, inner=inner).fetchone()
    if with_id < everything:
        raise ReviewDBError(f"review DB {review.path} table {review.table!r}: {everything - with_id} row(s) have "
                            f"no id (column {review.columns['id']!r} is NULL); every candidate needs one")
    cur = run(c, "copy_fast", params, **fill)
    read = max(cur.rowcount, 0)
    if progress:
        progress(read)
    # the other rows, through Python (no second scan when every row took the fast path)
    slow = run(c, "slow_rows", {**params, "limit": 0 if everything == read else -1}, **fill)
    names = [d[0] for d in slow.description]
    while batch := slow.fetchmany(batch_size):
        rows = [dict(zip(names, r)) for r in batch]
        run_many(c, "copy_slow", [(src.key, *parse_row(r, src.policy, src.graph_of), *(r[name] for name in RAW))
                                  for r in rows], **fill)
        read += len(batch)
        if progress:
            progress(len(batch))
    return read


DUPLICATE_ID = "duplicate id: "


def quarantine_duplicate_ids(c: sqlite3.Connection, review: ReviewDB, table: str, source: str) -> None:
    """An id on more than one review row cannot say which decision is meant: the id is
    quarantined (none of its rows is used) until it is unique again. Nothing to do when the
    review table declares its id column unique (the documented schema does)."""
    if review.unique_ids:
        return
    repeated = run(c, "repeated_review_ids", id=f'"{review.columns["id"]}"', review_table=f'"{review.table}"').fetchall()
    if not repeated:
        return
    if table == "sync_candidates":  # the edges they gave trust to are compared again
        run_many(c, "touch_candidate_edge", [(source, i) for i, _ in repeated])
    # (every column but the reason cleared: which row was copied last must not show)
    run_many(c, "quarantine_repeated_id",
             [(f"{DUPLICATE_ID}{n} review rows have this id (ids must be unique; none of them is used)", source, i)
              for i, n in repeated], table=table)


def source_for(review: ReviewDB, graph_key: str) -> str:
    """The state store's key for one review source synced onto one graph."""
    return hashlib.sha256(f"{review.source_key()}|{graph_key}".encode()).hexdigest()[:16]


def _tiers_hash(policy: Policy, blend: float = 0.0) -> str:
    """What the desired scores and labels are computed with: the tiers, confidence mode's weight,
    the sensitivity scale and the labels rule; a change re-reads everything."""
    what = policy.tiers if not blend else {"tiers": policy.tiers, "confidence_weight": blend}
    # the labels rule and scale too: a change (or the first run with the strictest-labels rule) re-reads everything
    what = {"tiers": what, "labels": "strictest", "levels": policy.scale.levels, "named": policy.scale.labels}
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:16]


def refresh_candidates(store: StateStore, src: ReviewSource, *, graph_key: str, full: bool, batch_size: int = 2000,
                       progress: Callable[[int], None] | None = None, defer_desired: bool = False) -> tuple[int, bool]:
    """Bring ``sync_candidates``, ``sync_touched`` and ``sync_desired`` up to date.

    Returns ``(candidates changed, whether the next diff must cover every edge)``: the rows read
    again because their content differs from the copy's (or the copy lacks them; every row when
    the copy is rebuilt) plus the candidates that left the review DB; and true after a full
    re-read until a run completes its edge phase (:func:`full_diff_done`). While that holds,
    ``sync_desired`` is recomputed for every edge here, or, with ``defer_desired``, left to the
    caller, which recomputes it range by range (:func:`desired_ranges`, :func:`recompute_desired`)
    as it writes.
    """
    review, policy, source = src.review, src.policy, src.key
    con = store.con
    load_tiers(con, policy)
    row = store.rows("source_refresh", source=source)
    row = row[0] if row else None
    incremental = row is not None and not full and row[1] == _tiers_hash(policy, src.blend)
    started = now_iso()
    inner = review.select_sql(REVIEW_FIELDS, schema="review")
    params = src.params()
    names = {"review_table": f'"{review.table}"', "id": f'CAST("{review.columns["id"]}" AS TEXT)'}
    gone = 0  # candidates that left the review DB
    with attached(con, review), store.tx() as c:
        if not incremental:
            run(c, "forget_candidates", params)
        else:  # the rows whose content differs from the copy's (or that it lacks), whatever their updated_at
            scan = review.select_sql(REVIEW_FIELDS, schema="review", ordered=False)  # (lookups in any order)
            tables = RunTables(c)
            tables.new_changed(params, scan)
            tables.new_gone()
            ids = "*" if review.unique_ids else f"DISTINCT {names['id']}"  # (a view may repeat ids)
            n_review = run(c, "count_review_ids", ids=ids, review_table=names["review_table"]).fetchone()[0]
            n_copy = run(c, "count_candidates", params).fetchone()[0]
            n_new = run(c, "count_new_changed", params).fetchone()[0]  # one primary-key lookup per changed row
            if n_copy + n_new != n_review:  # the difference is the number of rows that left the review DB
                run(c, "note_gone", params, **names)
            gone = run(c, "count_gone").fetchone()[0]
            if not review.unique_ids:  # ids quarantined as repeated: read again (they may be unique now)
                run(c, "reread_repeated", {**params, "repeated": DUPLICATE_ID + "%"}, inner=inner)
            inner = part("changed_rows")
            run(c, "touch_changed", params)
            run(c, "touch_gone", params)
            run(c, "forget_gone", params)
        changed = copy_rows(c, src, inner, batch_size=batch_size, progress=progress) + gone
        quarantine_duplicate_ids(c, review, "sync_candidates", source)
        pending = 1 if not incremental else row[2]
        if not incremental:
            run(c, "forget_desired", params)
            run(c, "forget_touched", params)
        else:  # the edges changed rows point at now, then (below) their desired state
            run(c, "touch_changed", params)
        if pending and not defer_desired:  # every edge's
            run(c, "forget_desired", params)
            insert_desired(c, params, blend=src.blend, rows="all_rows")
        elif incremental:  # the touched edges' (with defer_desired, the caller does every edge)
            run(c, "forget_desired_of_touched", params)
            insert_desired(c, params, blend=src.blend, rows="touched_rows")
        run(c, "record_refresh", {"source": source, "at": started, "tiers_hash": _tiers_hash(policy, src.blend),
                                  "pending": pending, "graph_key": graph_key})
    return changed, bool(pending)


@contextmanager
def attached(con: sqlite3.Connection, review: ReviewDB):
    """The review DB ATTACHed read-only as ``review`` for the block; SQLite errors inside it are
    review DB errors (one message naming the file)."""
    try:
        run(con, "attach_review", {"uri": review.uri()})
    except sqlite3.Error as exc:
        raise review_error(review.path, exc) from None
    try:
        yield
    except sqlite3.Error as exc:
        raise review_error(review.path, exc) from None
    finally:
        run(con, "detach_review")


def exact_candidates(store: StateStore, src: ReviewSource) -> None:
    """Every review row, parsed as sync parses it, in ``temp.review_rows`` (the columns of
    ``sync_candidates``), and the desired state they give each edge in ``temp.desired`` (graph,
    edge_uuid, score, status, memory_type, sensitivity, scope): read afresh, whatever the rows'
    ``updated_at`` says, for ``verify`` to compare the graph and the state store's copy with."""
    review, con = src.review, store.con
    load_tiers(con, src.policy)
    tables = RunTables(con)
    tables.new_review_rows()
    params = src.params()
    with attached(con, review):
        copy_rows(con, src, review.select_sql(REVIEW_FIELDS, schema="review"), table="temp.review_rows")
        quarantine_duplicate_ids(con, review, "temp.review_rows", src.key)
    tables.new_exact_desired(params, desired_parts(src.blend, "review_rows"))


def desired_ranges(con: sqlite3.Connection, source: str, graph: str, size: int):
    """Consecutive edge-uuid ranges ``(lo, hi)`` (``lo <= uuid < hi``; None: unbounded) of ``graph``
    with about ``size`` candidates each, in order; together they cover every uuid (one edge's
    candidates always fall in one range)."""
    lo = None
    where = {"source": source, "graph": graph}
    while True:
        row = run(con, "range_end", {**where, "lo": bounds(lo, None)["lo"], "size": size}).fetchone()
        hi = None if row is None else row[0]
        if hi is not None and hi == lo:  # one edge has more than ``size`` candidates
            hi = run(con, "next_edge", {**where, "lo": lo}).fetchone()[0]
        yield lo, hi
        if hi is None:
            return
        lo = hi


def recompute_desired(c: sqlite3.Connection, source: str, graph: str, lo: str | None, hi: str | None,
                      blend: float = 0.0) -> None:
    """Recompute ``sync_desired`` for the edges of ``graph`` in one range (see :func:`desired_ranges`)."""
    params = {"source": source, "graph": graph, **bounds(lo, hi), "cw": blend}
    run(c, "forget_desired_range", params)
    insert_desired(c, params, blend=blend, rows="all_rows", where="graph_range")


def touch_edges(c: sqlite3.Connection, graph_key: str, graph: str, uuids: list[str]) -> None:
    """Have the next runs on ``graph_key`` compare these edges (e.g. after a rollback changed them)."""
    run_many(c, "touch_edge", [(graph, u, graph_key) for u in uuids])


def full_diff_done(c: sqlite3.Connection, source: str) -> None:
    """A run compared every edge after a full re-read: later runs may go incremental."""
    run(c, "full_diff_done", {"source": source})


def quarantined(store: StateStore, source: str, limit: int | None = None) -> tuple[int, list[dict]]:
    """(count, [{id, reason}...]) of the candidates currently quarantined for ``source``."""
    n = store.one("count_quarantined", source=source)
    rows = store.rows("quarantined_rows", source=source, limit=-1 if limit is None else int(limit))
    return n, [{"id": i, "reason": r} for i, r in rows]


__all__ = ["RAW", "attached", "bounds", "copy_rows", "desired_of", "desired_parts", "desired_ranges", "exact_candidates",
           "full_diff_done", "insert_desired", "load_tiers", "parse_row", "quarantined", "recompute_desired",
           "refresh_candidates", "source_for", "touch_edges"]
