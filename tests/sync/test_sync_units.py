"""Unit and property tests of sync's pure parts: evidence parsing (Python vs the SQL fast path),
tier policy (Python vs the SQL window), aggregation."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from graph_trust.access.sensitivity import SensitivityScale
from graph_trust.config import Settings
from graph_trust.sync.aggregate import aggregate
from graph_trust.sync.desired import (
    desired_of,
    desired_parts,
    desired_ranges,
    load_tiers,
    parse_row,
    recompute_desired,
)
from graph_trust.sync.evidence import edge_uuid_of
from graph_trust.sync.labels import joined_scope, register, strictest_sensitivity
from graph_trust.sync.policy import policy_of
from graph_trust.sync.runs.counts import journal_counts
from graph_trust.sync.store.named import part, sql
from graph_trust.sync.store.state import SCHEMA
from graph_trust.sync.writer import journal_json

POLICY = policy_of(Settings())
json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8))
json_val = st.recursive(json_leaf, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
                        max_leaves=6)
evidence_texts = st.one_of(
    st.text(max_size=30),
    json_val.map(json.dumps),
    st.lists(st.fixed_dictionaries({"evidence_id": st.one_of(st.text(max_size=10), st.integers(), st.none())},
                                   optional={"k": json_leaf}), max_size=3).map(json.dumps),
)
statuses = st.sampled_from(["promoted", "corroborated", "candidate", "rejected", "expired", "bogus", ""])


@hsettings(max_examples=300, deadline=None)
@given(text=evidence_texts, status=statuses)
def test_sql_fast_path_agrees_with_python(text, status):
    con = sqlite3.connect(":memory:")
    load_tiers(con, POLICY)
    fast = part("fast_path")
    ok, uuid = con.execute(f"SELECT {fast}, CASE WHEN {fast} THEN "
                           "json_extract(evidence_refs_json, '$[0].evidence_id') END "
                           "FROM (SELECT ? AS evidence_refs_json, ? AS status, 1 AS id, NULL AS group_id, NULL AS memory_type, "
                           "NULL AS sensitivity, NULL AS scope)", (text, status)).fetchone()
    py_uuid, reason = edge_uuid_of(text)
    if ok:  # whatever SQLite takes, Python takes, with the same uuid
        assert reason is None and py_uuid == uuid and POLICY.knows(status)
    row = parse_row({"id": 1, "evidence_refs_json": text, "status": status}, POLICY, lambda g: "g")
    assert (row[7] is None) == (reason is None and POLICY.knows(status))


def test_evidence_reasons():
    assert edge_uuid_of('[{"evidence_id": "e1"}, {"evidence_id": "e2"}]') == ("e1", None)
    assert "malformed JSON" in edge_uuid_of("[{")[1]
    assert "empty list" in edge_uuid_of("[]")[1]
    assert "no evidence_id" in edge_uuid_of('[{"id": "x"}]')[1]
    assert "not a string" in edge_uuid_of('[{"evidence_id": null}]')[1]
    assert "is empty" in edge_uuid_of('[{"evidence_id": " \\t"}]')[1]
    assert "missing" in edge_uuid_of(None)[1]


@hsettings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["e1", "e2", "e3"]),
                          st.sampled_from(["promoted", "corroborated", "candidate", "rejected", "expired"])),
                max_size=12))
def test_sql_winner_is_the_policy_winner(cands):
    con = sqlite3.connect(":memory:")
    con.executescript(SCHEMA)
    load_tiers(con, POLICY)
    con.executemany("INSERT INTO sync_candidates (source, id, graph, edge_uuid, status) VALUES ('s', ?, 'g', ?, ?)",
                    [(f"c{i:02d}", e, s) for i, (e, s) in enumerate(cands)])
    got = {r[2]: (r[3], r[4]) for r in desired_of(con, {"source": "s"})}
    want = {}
    for e in {e for e, _ in cands}:
        status, _ = POLICY.winner([(s, f"c{i:02d}") for i, (x, s) in enumerate(cands) if x == e])
        if POLICY.score(status) is not None:
            want[e] = (POLICY.score(status), status)
    assert got == want


@hsettings(max_examples=200, deadline=None)
@given(cands=st.lists(st.tuples(st.sampled_from(["g", "h"]), st.sampled_from(["", "a", "a1", "b", "e", "e\u00e9", "z"]),
                                st.sampled_from(["promoted", "candidate", "rejected"])), max_size=15),
       size=st.integers(min_value=1, max_value=4))
def test_desired_range_by_range_equals_all_at_once(cands, size):
    """The ranges of a graph are consecutive, cover every edge uuid (one edge's candidates in one
    range, however many), and recomputing them one by one gives the one-statement result."""
    con = sqlite3.connect(":memory:")
    con.executescript(SCHEMA)
    load_tiers(con, POLICY)
    con.executemany("INSERT INTO sync_candidates (source, id, graph, edge_uuid, status) VALUES ('s', ?, ?, ?, ?)",
                    [(f"c{i:02d}", g, e, st_) for i, (g, e, st_) in enumerate(cands)])
    con.execute("INSERT INTO sync_desired VALUES ('s', 'g', 'stale', 1.0, 'promoted', NULL, NULL, NULL)")
    want = sorted(desired_of(con, {"source": "s"}))
    for graph in ("g", "h"):
        ranges = list(desired_ranges(con, "s", graph, size))
        assert ranges[0][0] is None and ranges[-1][1] is None
        assert all(a[1] == b[0] and a[1] is not None for a, b in zip(ranges, ranges[1:]))
        for lo, hi in ranges:
            recompute_desired(con, "s", graph, lo, hi)
    assert sorted(con.execute("SELECT * FROM sync_desired")) == want


@given(st.lists(st.floats(min_value=0, max_value=1), min_size=1, max_size=20))
def test_aggregation_bounds(scores):
    mx, mean, nor = (aggregate(scores, m) for m in ("max", "mean", "noisy_or"))
    positive = [s for s in scores if s > 0]  # a 0 (rejected, expired) is no evidence either way
    if not positive:
        assert mx is None and mean is None and nor is None
        return
    assert (mx, mean, nor) == tuple(aggregate(positive, m) for m in ("max", "mean", "noisy_or"))
    assert min(positive) - 1e-12 <= mean <= mx + 1e-12
    assert mx - 1e-12 <= nor <= 1.0 + 1e-12
    assert aggregate([], "max") is None and aggregate([None], "mean") is None


def test_aggregation_values():
    assert aggregate([0.25, 1.0, 0.6], "max") == 1.0
    assert abs(aggregate([0.5, 0.5], "noisy_or") - 0.75) < 1e-12
    assert abs(aggregate([0.25, 0.75], "mean") - 0.5) < 1e-12


@hsettings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["trust_score", "trust_status", "scope"]),
                                st.one_of(json_leaf, st.sampled_from([0.0, -0.0, 1, 1.0, True, False, 0]),
                                          st.lists(json_leaf, max_size=2)), max_size=3), max_size=6))
def test_journal_json_memo_is_exactly_json_dumps(dicts):
    # values that compare equal (1, 1.0, True; 0.0, -0.0) must never share a memoized text
    for d in dicts + dicts:
        assert journal_json(d) == json.dumps(d, sort_keys=True)


def test_state_store_checkpoints_in_the_background(tmp_path):
    """Commits leave their pages in the write-ahead log (the auto-checkpoint threshold is high);
    the background checkpoint, on its own connection, copies them into the database file."""
    from graph_trust.sync.store.state import StateStore

    store = StateStore(tmp_path / "state.sqlite3")
    try:
        size = store.path.stat().st_size
        with store.tx() as c:  # well past SQLite's default threshold of 1,000 pages (4 MiB)
            c.executemany("INSERT INTO sync_dirty VALUES ('gk', 'g', ?)",
                          [(f"entity-{i:06d}-{'x' * 40}",) for i in range(80_000)])
        assert Path(f"{store.path}-wal").stat().st_size > 5 * 2**20
        assert store.path.stat().st_size == size  # still only in the log
        store.checkpoint_in_background().join()
        assert store.path.stat().st_size > size + 500_000
        assert store.con.execute("SELECT count(*) FROM sync_dirty").fetchone()[0] == 80_000
    finally:
        store.close()


def test_startup_objects_frozen_nests(monkeypatch):
    """Nested blocks freeze once and unfreeze only when the outermost one ends. (The calls are
    counted, not the frozen objects: another thread of the test process, such as a retrieval-log
    flusher swapping out its counters, may free frozen objects meanwhile and lower the count.)"""
    import gc

    from graph_trust.sync.gc_freeze import startup_objects_frozen

    calls: list[str] = []
    freeze, unfreeze = gc.freeze, gc.unfreeze
    monkeypatch.setattr(gc, "freeze", lambda: (calls.append("freeze"), freeze())[1])
    monkeypatch.setattr(gc, "unfreeze", lambda: (calls.append("unfreeze"), unfreeze())[1])
    assert gc.get_freeze_count() == 0
    with startup_objects_frozen():
        assert calls == ["freeze"] and gc.get_freeze_count() > 0
        with startup_objects_frozen():
            assert calls == ["freeze"]
        assert calls == ["freeze"] and gc.get_freeze_count() > 0  # still frozen: the outer block has not ended
    assert calls == ["freeze", "unfreeze"] and gc.get_freeze_count() == 0


def test_unique_ids_reads_the_review_tables_declaration(tmp_path):
    """Repeated ids are looked for only where the review table does not declare its id unique:
    never for the documented schema (its id is the primary key)."""
    from graph_trust.config import ReviewSettings
    from graph_trust.sync.review_db import ReviewDB, init_review_db

    init_review_db(tmp_path / "doc.sqlite3")
    assert ReviewDB.open(tmp_path / "doc.sqlite3", ReviewSettings()).unique_ids is True
    con = sqlite3.connect(tmp_path / "p.sqlite3")
    with con:
        con.execute("CREATE TABLE raw (fid TEXT, st TEXT, refs TEXT, ts TEXT)")
        con.execute("CREATE VIEW v AS SELECT * FROM raw")
        con.execute("CREATE TABLE keyed (fid TEXT, st TEXT, refs TEXT, ts TEXT)")
        con.execute("CREATE UNIQUE INDEX keyed_fid ON keyed (fid)")
        con.execute("CREATE TABLE pair (fid TEXT, st TEXT, refs TEXT, ts TEXT, PRIMARY KEY (fid, st))")
    con.close()
    cols = {"id": "fid", "status": "st", "evidence_refs_json": "refs", "updated_at": "ts"}
    found = {t: ReviewDB.open(tmp_path / "p.sqlite3", ReviewSettings(table=t, columns=cols)).unique_ids
             for t in ("raw", "v", "keyed", "pair")}
    assert found == {"raw": False, "v": False, "keyed": True, "pair": False}


def test_a_state_store_from_before_the_endpoint_columns_is_upgraded_on_open(tmp_path):
    """A state store made before the shadow recorded endpoints gains the columns when opened
    (its rows keep their values, endpoints unknown); opening it again changes nothing."""
    from graph_trust.sync.store.state import StateStore

    path = tmp_path / "state.sqlite3"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE sync_shadow (graph_key TEXT NOT NULL, graph TEXT NOT NULL, uuid TEXT NOT NULL, "
                "trust_score REAL, trust_status TEXT, trust_run_id TEXT, trust_updated_at TEXT, memory_type TEXT, "
                "sensitivity TEXT, scope TEXT, PRIMARY KEY (graph_key, graph, uuid)) WITHOUT ROWID")
    con.execute("INSERT INTO sync_shadow (graph_key, graph, uuid, trust_score) VALUES ('k', 'g', 'e1', 0.6)")
    con.commit()
    con.close()
    for _ in range(2):
        store = StateStore(path)
        try:
            rows = store.con.execute("SELECT uuid, trust_score, source_uuid, target_uuid FROM sync_shadow").fetchall()
        finally:
            store.close()
        assert rows == [("e1", 0.6, None, None)]


_values = st.one_of(st.none(), st.integers(-2, 2), st.text(max_size=3), st.binary(max_size=2),
                    st.floats(allow_nan=False, width=16), st.sampled_from(["promoted", "candidate", "rejected", " "]))
_review_rows = st.fixed_dictionaries({
    "status": st.one_of(st.sampled_from(["promoted", "corroborated", "candidate", "rejected"]), _values),
    "evidence_refs_json": st.one_of(st.sampled_from(['[{"evidence_id": "e1"}]', '[{"evidence_id": "e2"}]',
                                                     '[{"evidence_id": "e1", "k": 1}]', '[{"evidence_id": 1}]']),
                                    _values),
    "group_id": _values, "memory_type": _values, "sensitivity": _values, "scope": _values})


def _copy_after(rows: list[dict], root: Path, *, full_each: bool) -> tuple[list[int], list[tuple]]:
    """Refresh a fresh state store's copy after each review row version in turn (one row, id
    'x', in an untyped table: values keep their types); the rows read each time and the final copy."""
    from graph_trust.config import ReviewSettings
    from graph_trust.sync.desired import ReviewSource, refresh_candidates
    from graph_trust.sync.review_db import ReviewDB
    from graph_trust.sync.store.state import StateStore

    db = root / "r.sqlite3"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE candidates (id PRIMARY KEY, status, evidence_refs_json, group_id, updated_at, "
                "memory_type, sensitivity, scope)")
    store = StateStore(root / "state.sqlite3")
    read = []
    try:
        for r in rows:
            with con:
                con.execute("INSERT OR REPLACE INTO candidates VALUES ('x', :status, :evidence_refs_json, :group_id, "
                            "'2001-01-01', :memory_type, :sensitivity, :scope)", r)
            with ReviewDB.open(db, ReviewSettings()) as review:
                src = ReviewSource(review, POLICY, lambda g: g or "db", "s", default_graph="db")
                read.append(refresh_candidates(store, src, graph_key="k", full=full_each)[0])
        copy = store.con.execute("SELECT * FROM sync_candidates ORDER BY id").fetchall()
    finally:
        store.close()
        con.close()
    return read, copy


_INT_ZERO = {"status": "promoted", "evidence_refs_json": '[{"evidence_id": "e1"}]', "group_id": 1,
             "memory_type": 0, "sensitivity": 0, "scope": 0}


@hsettings(max_examples=40, deadline=None)
@given(a=_review_rows, b=_review_rows)
@example(a=_INT_ZERO, b={**_INT_ZERO, "memory_type": 0.0})  # SQLite's IS holds 0 and 0.0 equal
@example(a={**_INT_ZERO, "scope": 1.0}, b={**_INT_ZERO, "scope": 1})
def test_a_normal_refresh_sees_every_change_whatever_updated_at_says(a, b):
    """A review row changes from ``a`` to ``b`` with its updated_at left as it was: the normal
    refresh's copy equals a full re-read's, whatever the values and their types; an unchanged
    row (the same values, the same types) is not read again."""
    import tempfile

    with tempfile.TemporaryDirectory() as d1, tempfile.TemporaryDirectory() as d2:
        read, incremental = _copy_after([a, b], Path(d1), full_each=False)
        _, full = _copy_after([b], Path(d2), full_each=True)
    assert incremental == full
    same = all(type(a[k]) is type(b[k]) and a[k] == b[k] for k in a)  # (SQLite's IS: 0.0 is -0.0)
    if same:
        assert read[1] == 0


def test_joins_on_the_copy_use_its_indexes(tmp_path):
    """(sync_candidates is WITHOUT ROWID: SQLite would otherwise look an edge up by the primary key's
    first column alone, a scan of every row of the source per edge.)"""
    from graph_trust.sync.store.state import StateStore

    store = StateStore(tmp_path / "state.sqlite3")
    load_tiers(store.con, POLICY)
    plan = " | ".join(r[3] for r in store.con.execute(
        "EXPLAIN QUERY PLAN " + sql("desired_rows", **desired_parts(0.0, "touched_rows")), {"source": "s"}))
    assert "INDEX sync_candidates_edge (source=? AND graph=? AND edge_uuid=?)" in plan, plan
    plan = " | ".join(r[3] for r in store.con.execute(
        "EXPLAIN QUERY PLAN " + sql("count_quarantined"), {"source": "s"}))
    assert "sync_candidates_quarantined" in plan, plan
    store.close()


def test_a_copy_from_before_content_comparison_is_dropped_and_read_again(tmp_path):
    """A state store whose copy of the review DB predates content comparison (a rowid table
    without the raw columns) loses the copy and the sources' refresh records on open: the next
    run re-reads every row, as --full, instead of trusting a copy that may hold missed changes."""
    from graph_trust.sync.store.state import StateStore

    path = tmp_path / "state.sqlite3"
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE sync_candidates (source TEXT NOT NULL, id TEXT NOT NULL, graph TEXT, edge_uuid TEXT,
            status TEXT, memory_type TEXT, sensitivity TEXT, scope TEXT, reason TEXT, PRIMARY KEY (source, id));
        CREATE TABLE sync_sources (source TEXT PRIMARY KEY, refreshed_at TEXT NOT NULL, tiers_hash TEXT,
            full_diff_pending INTEGER NOT NULL DEFAULT 0, graph_key TEXT);
        INSERT INTO sync_candidates VALUES ('s', 'x', 'db', 'e1', 'promoted', NULL, NULL, NULL, NULL);
        INSERT INTO sync_sources VALUES ('s', '2026-01-01T00:00:00Z', 'h', 0, 'k');
    """)
    con.close()
    store = StateStore(path)
    sql = store.con.execute("SELECT sql FROM sqlite_master WHERE name = 'sync_candidates'").fetchone()[0]
    assert "WITHOUT ROWID" in sql and "raw_evidence_refs_json" in sql
    assert store.con.execute("SELECT count(*) FROM sync_candidates").fetchone()[0] == 0
    assert store.con.execute("SELECT count(*) FROM sync_sources").fetchone()[0] == 0
    store.close()
    StateStore(path).close()  # opening again changes nothing


@pytest.mark.parametrize("value, scope, reason", [
    (b"ops", "ops", None),  # bytes that are UTF-8 text read as that text, as SQLite's CAST reads them
    (b"\x80", "\ufffd", "scope: bytes that are not UTF-8 text"),  # never a scope guessed from mangled bytes
])
def test_a_blob_in_a_text_column_is_its_text_or_quarantines_the_row(tmp_path, value, scope, reason):
    read, copy = _copy_after([{"status": "promoted", "evidence_refs_json": '[{"evidence_id": "e1"}]', "group_id": None,
                               "memory_type": None, "sensitivity": None, "scope": value}], tmp_path, full_each=True)
    assert read == [1]
    (row,) = copy
    assert (row[7], row[8]) == (scope, reason)


sqlite_values = st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False), st.binary(max_size=4),
                          st.lists(st.sampled_from(["a", "Low", "HIGH", "internal", " ", "\t", "\u00a0", "\u2003",
                                                    "\x1c"]), max_size=3).map("".join))


@given(st.lists(sqlite_values, min_size=1, max_size=4))
def test_label_windows_give_what_their_folds_give(values):
    """The window functions' one-row shortcut is the fold of that row (any SQLite value, blanks of
    every kind), and several rows go through the fold itself."""
    scale = SensitivityScale.of(["public", "low", "high"], {"internal": "low"})
    con = sqlite3.connect(":memory:")
    register(con, scale)
    con.execute("CREATE TABLE t (k INTEGER, v)")
    con.executemany("INSERT INTO t VALUES (1, ?)", [(v,) for v in values])
    got = con.execute("SELECT strictest_sensitivity(v) OVER w, joined_scope(v) OVER w FROM t "
                      "WINDOW w AS (PARTITION BY k)").fetchall()
    stored = [r[0] for r in con.execute("SELECT v FROM t")]  # as SQLite hands them back
    assert set(got) == {(strictest_sensitivity(stored, scale), joined_scope(stored))}


_JOURNAL_ROW = st.tuples(
    st.sampled_from(["run-a", "run-b"]), st.integers(0, 5), st.sampled_from(["edge", "entity", "validity"]),
    st.sampled_from(["applied", "pending", "void", "missing"]),
    st.one_of(st.none(), st.fixed_dictionaries({}, optional={
        "trust_score": st.one_of(st.none(), st.floats(-1, 2), st.integers(0, 1)),
        "trust_run_id": st.one_of(st.none(), st.text(max_size=3))}).map(journal_json)))


@hsettings(max_examples=150, deadline=None)
@given(st.lists(_JOURNAL_ROW, max_size=40))
def test_journal_counts_of_a_sync_run_are_those_of_its_rows(rows):
    """``journal_counts_sync`` (one JSON parse per applied edge row) counts what a plain reading of
    the run's rows gives, for any mix of kinds, states and new values (none, no trust_score, null)."""
    con = sqlite3.connect(":memory:")
    con.executescript(SCHEMA)
    con.executemany("INSERT INTO sync_journal (run_id, batch, graph_key, graph, kind, uuid, old_json, new_json, state) "
                    "VALUES (?, ?, 'k', 'g', ?, 'u', NULL, ?, ?)",
                    [(run_id, batch, kind, new, state) for run_id, batch, kind, state, new in rows])
    mine = [r for r in rows if r[0] == "run-a"]
    applied = [(kind, new) for _, _, kind, state, new in mine if state == "applied"]
    edge_scores = [None if new is None else json.loads(new).get("trust_score") for kind, new in applied if kind == "edge"]
    assert journal_counts(con, "run-a", "sync") == {
        "batches": len({r[1] for r in mine}),
        "edges_set": sum(score is not None for score in edge_scores),
        "edges_cleared": sum(score is None for score in edge_scores),
        "entities_updated": sum(kind == "entity" for kind, _ in applied),
        "trusted_restored": sum(kind == "validity" for kind, _ in applied),
        "journal_pending": sum(r[3] == "pending" for r in mine)}
