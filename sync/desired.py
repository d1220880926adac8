"""Desired trust per edge, kept in the state store and updated incrementally.

``refresh_candidates`` brings the state store's copy of the review DB (``sync_candidates``,
one per review source and graph) up to date in one transaction over one read snapshot of
the review DB (ATTACHed read-only): rows SQLite can take as they are go through one
``INSERT ... SELECT`` (``FAST_PATH``), the others through ``evidence.edge_uuid_of`` in
Python, a batch at a time, which gives each unusable row its quarantine reason (``copy_rows``).

Change detection is by content, never by ``updated_at``: the copy keeps, per row, what sync read
of each column in ``REVIEW_FIELDS`` (``RAW``: the row's fingerprint), and a normal run compares the review
DB with it set-wise in SQLite (``SAME_ROW``: one pass over the review table, one primary-key
lookup per row); the rows that differ or are new are read again, whatever their ``updated_at``
(older, equal, newer, NULL, unchanged). When the
row counts then disagree it also finds the rows that left the review DB. ``full`` (or changed
tiers) re-reads everything. An id on several rows (possible only when the review table does
not declare it unique) is quarantined until it is unique again. ``exact_candidates`` reads
every row afresh for ``verify``.

Every edge whose candidates changed (its old and new edge uuid) is recorded in
``sync_touched``, and ``sync_desired`` (one row per edge with a scored winner) is recomputed
for those edges only with ``DESIRED_SQL`` (a window function: highest tier wins, see
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


def _text_sql(col: str) -> str:
    return f"CASE WHEN {col} IS NULL THEN NULL ELSE CAST({col} AS TEXT) END"


# What the copy keeps of each review row as it was read (untyped columns: values stay as they came,
# of any type): a review row ``x`` is unchanged when each column sync reads equals the copy's
# ``s``, compared as SQLite compares values (``IS``, with no type conversion: 1 and '1' differ) and
# of the same type (``IS`` holds 0 and 0.0 equal, but they read as '0' and '0.0').
# Plain column comparisons, no per-row string building (a quote()-joined fingerprint made the
# comparison of 100k unchanged rows about twice as slow).
RAW = {name: f"raw_{name}" for name in REVIEW_FIELDS[1:]}
SAME_ROW = " AND ".join(f"+s.{raw} IS +x.{name} AND typeof(s.{raw}) = typeof(x.{name})" for name, raw in RAW.items())


def load_tiers(con: sqlite3.Connection, policy: Policy) -> None:
    """(Re)create ``temp.tiers`` (status, score, rank) from the policy, and add the label window
    functions on its sensitivity scale (:func:`graph_trust.sync.labels.register`)."""
    register_labels(con, policy.scale)
    con.execute("CREATE TEMP TABLE IF NOT EXISTS tiers (status TEXT PRIMARY KEY, score REAL)")
    con.execute("DELETE FROM temp.tiers")
    con.executemany("INSERT INTO temp.tiers VALUES (?, ?)", list(policy.tiers.items()))


# Winner per edge: scored statuses first, then highest score, then status name, then id. Its
# sensitivity and scope are the strictest of all the edge's usable rows, whatever their status
# (graph_trust.sync.labels), so no decision loosens them.
# {source_rows} is the candidates considered: all of a source, or those on touched edges.
_DESIRED = """
SELECT :source, graph, edge_uuid, {score}, status, memory_type, sensitivity, scope FROM (
    SELECT c.graph, c.edge_uuid, c.id, c.status, t.score, c.memory_type,
           strictest_sensitivity(c.sensitivity) OVER edge AS sensitivity, joined_scope(c.scope) OVER edge AS scope{conf},
           row_number() OVER (PARTITION BY c.graph, c.edge_uuid
                              ORDER BY t.score IS NULL, t.score DESC, c.status, c.id) AS rn
    FROM {{source_rows}} JOIN temp.tiers t ON t.status = c.status{join}
    WHERE c.source = :source AND c.reason IS NULL AND c.edge_uuid IS NOT NULL{{where}}
    WINDOW edge AS (PARTITION BY c.graph, c.edge_uuid)
) WHERE rn = 1 AND score IS NOT NULL
"""
DESIRED_SQL = _DESIRED.format(score="score", conf="", join="")
# ``sync.trust_mode: confidence``: the winner's tier times ``1 - w + w * confidence`` (``:cw`` is w,
# ``sync.confidence_weight``; the confidence is the winner's own, from ``sync_confidence``). Only a
# positive tier is blended: 0 (rejected, expired) stays 0, and confidence can take away at most the
# fraction w of what the review status grants, never add to it. A candidate without a confidence
# row (none yet) keeps its tier.
BLEND = "CASE WHEN score > 0 THEN score * (1 - :cw + :cw * coalesce(confidence, 1.0)) ELSE score END"
BLENDED_SQL = _DESIRED.format(score=BLEND + " AS score", conf=", f.confidence",
                              join=" LEFT JOIN sync_confidence f ON f.source = c.source AND f.id = c.id")


def desired_sql(blend: float) -> str:
    """``DESIRED_SQL`` (tiers mode, ``blend`` 0) or ``BLENDED_SQL`` (it takes ``:cw``)."""
    return BLENDED_SQL if blend else DESIRED_SQL


ALL_ROWS = "sync_candidates c"
# (INDEXED BY: on the WITHOUT ROWID table, SQLite's planner would otherwise look the edge up by the
# primary key's first column alone, a scan of the source's every row per touched edge)
EDGE_ROWS = "sync_candidates c INDEXED BY sync_candidates_edge"
QUARANTINED_ROWS = "sync_candidates INDEXED BY sync_candidates_quarantined"
TOUCHED_ROWS = ("sync_touched x CROSS JOIN sync_candidates c INDEXED BY sync_candidates_edge ON c.source = x.source "
                "AND c.graph = x.graph AND c.edge_uuid = x.uuid")  # CROSS JOIN: a loop over the (few) touched edges


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


# Rows SQLite can take as they are (well-formed evidence, known status) are copied by one
# INSERT ... SELECT over the ATTACHed review DB; every other row goes through
# evidence.edge_uuid_of / parse_row in Python, which decides and gives the quarantine reason.
# The fast path accepts a subset of what Python accepts and extracts the same uuid ('$[0].evidence_id'
# is text only when the document is a list whose element 0 is an object).
_EID = "json_extract(evidence_refs_json, '$[0].evidence_id')"
FAST_PATH = f"""(CASE WHEN typeof(evidence_refs_json) = 'text' AND json_valid(evidence_refs_json)
                    AND instr(evidence_refs_json, '\\u0000') = 0 THEN
    CASE WHEN json_type(evidence_refs_json, '$[0].evidence_id') = 'text'
    THEN length(trim({_EID}, ' ' || char(9, 10, 13, 11, 12))) > 0
         AND typeof(status) = 'text' AND status IN (SELECT status FROM temp.tiers)
         AND 'blob' NOT IN (typeof(id), typeof(group_id), typeof(memory_type), typeof(sensitivity), typeof(scope))
    ELSE 0 END
ELSE 0 END)"""


# A changed row is updated in place (an index entry is rewritten only when its columns change),
# not deleted and inserted again as INSERT OR REPLACE would: a 1% change touches fewer pages.
_UPSERT = (" ON CONFLICT (source, id) DO UPDATE SET graph = excluded.graph, edge_uuid = excluded.edge_uuid, "
           "status = excluded.status, memory_type = excluded.memory_type, sensitivity = excluded.sensitivity, "
           "scope = excluded.scope, reason = excluded.reason, "
           + ", ".join(f"{r} = excluded.{r}" for r in RAW.values()))


def copy_rows(c: sqlite3.Connection, src: ReviewSource, inner: str, *, table: str = "sync_candidates",
              batch_size: int = 2000, progress: Callable[[int], None] | None = None) -> int:
    """Upsert the review rows ``inner`` selects (``REVIEW_FIELDS`` over the ATTACHed review DB)
    into ``table`` (the columns of ``sync_candidates``, under ``:source``): rows SQLite can take as they are in one
    ``INSERT ... SELECT`` (``FAST_PATH``), the others through :func:`parse_row` a batch at a time,
    which gives each unusable row its quarantine reason. Returns the rows copied."""
    review, params = src.review, src.params()
    gid = "CAST(group_id AS TEXT)"
    insert = (f"INSERT INTO {table} (source, id, graph, edge_uuid, status, memory_type, sensitivity, scope, reason, "
              f"{', '.join(RAW.values())}) ")
    everything, with_id = c.execute(f"SELECT count(*), count(id) FROM ({inner})", params).fetchone()
    if with_id < everything:
        raise ReviewDBError(f"review DB {review.path} table {review.table!r}: {everything - with_id} row(s) have "
                            f"no id (column {review.columns['id']!r} is NULL); every candidate needs one")
    cur = c.execute(
        insert + f"SELECT :source, CAST(id AS TEXT), CASE WHEN :shared_graph OR group_id IS NULL OR {gid} = '' THEN :db "
        f"ELSE {gid} END, {_EID}, status, {_text_sql('memory_type')}, {_text_sql('sensitivity')}, "
        f"{_text_sql('scope')}, NULL, {', '.join(RAW)} FROM ({inner}) WHERE {FAST_PATH}" + _UPSERT, params)
    read = max(cur.rowcount, 0)
    if progress:
        progress(read)
    # the other rows, through Python (no second scan when every row took the fast path)
    slow = c.execute(f"SELECT * FROM ({inner}) WHERE NOT {FAST_PATH}" + (" LIMIT 0" if everything == read else ""),
                     params)
    names = [d[0] for d in slow.description]
    while batch := slow.fetchmany(batch_size):
        rows = [dict(zip(names, r)) for r in batch]
        c.executemany(insert + f"VALUES ({', '.join('?' for _ in range(9 + len(RAW)))})" + _UPSERT,
                      [(src.key, *parse_row(r, src.policy, src.graph_of), *(r[name] for name in RAW)) for r in rows])
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
    col = f'"{review.columns["id"]}"'
    repeated = c.execute(f'SELECT CAST({col} AS TEXT), count(*) FROM review."{review.table}" WHERE {col} IS NOT NULL '
                         "GROUP BY 1 HAVING count(*) > 1").fetchall()
    if not repeated:
        return
    if table == "sync_candidates":  # the edges they gave trust to are compared again
        c.executemany("INSERT OR IGNORE INTO sync_touched SELECT source, graph, edge_uuid FROM sync_candidates "
                      "WHERE source = ? AND id = ? AND edge_uuid IS NOT NULL", [(source, i) for i, _ in repeated])
    # (every column but the reason cleared: which row was copied last must not show)
    c.executemany(f"UPDATE {table} SET graph = NULL, edge_uuid = NULL, status = NULL, memory_type = NULL, "
                  f"sensitivity = NULL, scope = NULL, {', '.join(f'{r} = NULL' for r in RAW.values())}, reason = ? "
                  "WHERE source = ? AND id = ?",
                  [(f"{DUPLICATE_ID}{n} review rows have this id (ids must be unique; none of them is used)",
                    source, i) for i, n in repeated])


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
    row = con.execute("SELECT refreshed_at, tiers_hash, full_diff_pending FROM sync_sources WHERE source = ?",
                      (source,)).fetchone()
    incremental = row is not None and not full and row[1] == _tiers_hash(policy, src.blend)
    started = now_iso()
    inner = review.select_sql(REVIEW_FIELDS, schema="review")
    params = src.params()
    changed_ids = "SELECT CAST(id AS TEXT) FROM temp.changed"
    gone_ids = "SELECT id FROM temp.gone"
    touch = ("INSERT OR IGNORE INTO sync_touched SELECT :source, graph, edge_uuid FROM sync_candidates "
             "WHERE source = :source AND edge_uuid IS NOT NULL AND id IN ({ids})")
    gone = 0  # candidates that left the review DB
    with attached(con, review), store.tx() as c:
        if not incremental:
            c.execute("DELETE FROM sync_candidates WHERE source = ?", (source,))
        else:  # the rows whose content differs from the copy's (or that it lacks), whatever their updated_at
            c.execute("DROP TABLE IF EXISTS temp.changed")
            scan = review.select_sql(REVIEW_FIELDS, schema="review", ordered=False)  # (lookups in any order)
            c.execute(f"CREATE TEMP TABLE changed AS SELECT * FROM ({scan}) x WHERE NOT EXISTS (SELECT 1 FROM "
                      f"sync_candidates s WHERE s.source = :source AND s.id = CAST(x.id AS TEXT) AND {SAME_ROW})",
                      params)
            c.execute("DROP TABLE IF EXISTS temp.gone")
            c.execute("CREATE TEMP TABLE gone (id TEXT)")
            id_col = f'CAST("{review.columns["id"]}" AS TEXT)'
            ids = "*" if review.unique_ids else f"DISTINCT {id_col}"  # (a view may repeat ids)
            n_review = c.execute(f'SELECT count({ids}) FROM review."{review.table}"').fetchone()[0]
            n_copy = c.execute("SELECT count(*) FROM sync_candidates WHERE source = :source", params).fetchone()[0]
            n_new = c.execute("SELECT count(DISTINCT CAST(x.id AS TEXT)) FROM temp.changed x WHERE NOT EXISTS "
                              "(SELECT 1 FROM sync_candidates WHERE source = :source AND id = CAST(x.id AS TEXT))",
                              params).fetchone()[0]  # one primary-key lookup per changed row
            if n_copy + n_new != n_review:  # the difference is the number of rows that left the review DB
                c.execute(f"INSERT INTO temp.gone SELECT id FROM sync_candidates WHERE source = :source AND id NOT IN "
                          f'(SELECT {id_col} FROM review."{review.table}")', params)
            gone = c.execute("SELECT count(*) FROM temp.gone").fetchone()[0]
            if not review.unique_ids:  # ids quarantined as repeated: read again (they may be unique now)
                c.execute(f"INSERT INTO temp.changed SELECT * FROM ({inner}) x "
                          "WHERE CAST(x.id AS TEXT) IN (SELECT id FROM sync_candidates WHERE source = :source "
                          "AND reason LIKE :repeated) AND NOT EXISTS (SELECT 1 FROM temp.changed t "
                          "WHERE CAST(t.id AS TEXT) = CAST(x.id AS TEXT))", {**params, "repeated": DUPLICATE_ID + "%"})
            inner = "SELECT * FROM temp.changed"
            c.execute(touch.format(ids=changed_ids), params)
            c.execute(touch.format(ids=gone_ids), params)
            c.execute(f"DELETE FROM sync_candidates WHERE source = :source AND id IN ({gone_ids})", params)
        changed = copy_rows(c, src, inner, batch_size=batch_size, progress=progress) + gone
        quarantine_duplicate_ids(c, review, "sync_candidates", source)
        pending = 1 if not incremental else row[2]
        if not incremental:
            c.execute("DELETE FROM sync_desired WHERE source = ?", (source,))
            c.execute("DELETE FROM sync_touched WHERE source = ?", (source,))
        else:  # the edges changed rows point at now, then (below) their desired state
            c.execute(touch.format(ids=changed_ids), params)
        if pending and not defer_desired:  # every edge's
            c.execute("DELETE FROM sync_desired WHERE source = :source", params)
            c.execute("INSERT INTO sync_desired " + desired_sql(src.blend).format(source_rows=ALL_ROWS, where=""), params)
        elif incremental:  # the touched edges' (with defer_desired, the caller does every edge)
            c.execute("DELETE FROM sync_desired WHERE (source, graph, uuid) IN "
                      "(SELECT source, graph, uuid FROM sync_touched WHERE source = :source)", params)
            c.execute("INSERT INTO sync_desired " + desired_sql(src.blend).format(source_rows=TOUCHED_ROWS, where=""),
                      params)
        c.execute("INSERT OR REPLACE INTO sync_sources VALUES (?, ?, ?, ?, ?)",
                  (source, started, _tiers_hash(policy, src.blend), pending, graph_key))
    return changed, bool(pending)


@contextmanager
def attached(con: sqlite3.Connection, review: ReviewDB):
    """The review DB ATTACHed read-only as ``review`` for the block; SQLite errors inside it are
    review DB errors (one message naming the file)."""
    try:
        con.execute("ATTACH DATABASE ? AS review", (review.uri(),))
    except sqlite3.Error as exc:
        raise review_error(review.path, exc) from None
    try:
        yield
    except sqlite3.Error as exc:
        raise review_error(review.path, exc) from None
    finally:
        con.execute("DETACH DATABASE review")


def exact_candidates(store: StateStore, src: ReviewSource) -> None:
    """Every review row, parsed as sync parses it, in ``temp.review_rows`` (the columns of
    ``sync_candidates``), and the desired state they give each edge in ``temp.desired`` (graph,
    edge_uuid, score, status, memory_type, sensitivity, scope): read afresh, whatever the rows'
    ``updated_at`` says, for ``verify`` to compare the graph and the state store's copy with."""
    review, con = src.review, store.con
    load_tiers(con, src.policy)
    con.execute("DROP TABLE IF EXISTS temp.review_rows")
    con.execute("CREATE TEMP TABLE review_rows AS SELECT * FROM sync_candidates LIMIT 0")
    con.execute("CREATE UNIQUE INDEX temp.review_rows_key ON review_rows (source, id)")  # (for the upsert)
    params = src.params()
    with attached(con, review):
        copy_rows(con, src, review.select_sql(REVIEW_FIELDS, schema="review"), table="temp.review_rows")
        quarantine_duplicate_ids(con, review, "temp.review_rows", src.key)
    con.execute("DROP TABLE IF EXISTS temp.desired")
    con.execute("CREATE TEMP TABLE desired AS SELECT graph, edge_uuid, score, status, memory_type, sensitivity, scope "
                "FROM (" + desired_sql(src.blend).format(source_rows="temp.review_rows c", where="") + ")", params)
    con.execute("CREATE INDEX temp.desired_key ON desired (graph, edge_uuid)")


def desired_ranges(con: sqlite3.Connection, source: str, graph: str, size: int):
    """Consecutive edge-uuid ranges ``(lo, hi)`` (``lo <= uuid < hi``; None: unbounded) of ``graph``
    with about ``size`` candidates each, in order; together they cover every uuid (one edge's
    candidates always fall in one range)."""
    lo = None
    base = "SELECT {} FROM sync_candidates WHERE source = ? AND graph = ? AND edge_uuid "
    while True:
        row = con.execute(base.format("edge_uuid") + ("IS NOT NULL" if lo is None else ">= ?") +
                          " ORDER BY edge_uuid LIMIT 1 OFFSET ?", (source, graph, *(() if lo is None else (lo,)),
                                                                   size)).fetchone()
        hi = None if row is None else row[0]
        if hi is not None and hi == lo:  # one edge has more than ``size`` candidates
            hi = con.execute(base.format("min(edge_uuid)") + "> ?", (source, graph, lo)).fetchone()[0]
        yield lo, hi
        if hi is None:
            return
        lo = hi


def range_sql(column: str, lo: str | None, hi: str | None) -> str:
    """`` AND lo <= column < hi`` as SQL over the parameters ``:lo`` and ``:hi`` (None bounds left out)."""
    return (f" AND {column} >= :lo" if lo is not None else "") + (f" AND {column} < :hi" if hi is not None else "")


def recompute_desired(c: sqlite3.Connection, source: str, graph: str, lo: str | None, hi: str | None,
                      blend: float = 0.0) -> None:
    """Recompute ``sync_desired`` for the edges of ``graph`` in one range (see :func:`desired_ranges`)."""
    params = {"source": source, "graph": graph, "lo": lo, "hi": hi, "cw": blend}
    c.execute("DELETE FROM sync_desired WHERE source = :source AND graph = :graph" + range_sql("uuid", lo, hi), params)
    c.execute("INSERT INTO sync_desired " + desired_sql(blend).format(
        source_rows=ALL_ROWS, where=" AND c.graph = :graph" + range_sql("c.edge_uuid", lo, hi)), params)


def touch_edges(c: sqlite3.Connection, graph_key: str, graph: str, uuids: list[str]) -> None:
    """Have the next runs on ``graph_key`` compare these edges (e.g. after a rollback changed them)."""
    c.executemany("INSERT OR IGNORE INTO sync_touched SELECT source, ?, ? FROM sync_sources WHERE graph_key = ?",
                  [(graph, u, graph_key) for u in uuids])


def full_diff_done(c: sqlite3.Connection, source: str) -> None:
    """A run compared every edge after a full re-read: later runs may go incremental."""
    c.execute("UPDATE sync_sources SET full_diff_pending = 0 WHERE source = ?", (source,))


def quarantined(store: StateStore, source: str, limit: int | None = None) -> tuple[int, list[dict]]:
    """(count, [{id, reason}...]) of the candidates currently quarantined for ``source``."""
    n = store.con.execute(f"SELECT count(*) FROM {QUARANTINED_ROWS} WHERE source = ? AND reason IS NOT NULL",
                          (source,)).fetchone()[0]
    sql = f"SELECT id, reason FROM {QUARANTINED_ROWS} WHERE source = ? AND reason IS NOT NULL ORDER BY id"
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return n, [{"id": i, "reason": r} for i, r in store.con.execute(sql, (source,))]


__all__ = ["BLEND", "BLENDED_SQL", "DESIRED_SQL", "EDGE_ROWS", "FAST_PATH", "QUARANTINED_ROWS", "RAW", "SAME_ROW", "attached", "copy_rows",
           "desired_ranges", "desired_sql", "exact_candidates", "full_diff_done", "load_tiers", "parse_row", "quarantined", "range_sql",
           "recompute_desired", "refresh_candidates", "source_for", "touch_edges"]
