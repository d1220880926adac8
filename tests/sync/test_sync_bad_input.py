"""Sync's bad input: each case becomes a quarantine row or one clear error; nothing else is lost."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess

import pytest
from sync_fixtures import FACTS, build, edge_props, review_db, row

from graph_trust.errors import LockHeldError, ReviewDBError
from graph_trust.sync import run_sync, verify
from graph_trust.sync.runs.identity import graph_key
from graph_trust.sync.runs.lock import sync_lock
from graph_trust.sync.store.state import StateStore

NASTY = "it's \"quoted\"\nnew line ü 日本 🚀 }) MATCH (n) DETACH DELETE n //"


@pytest.fixture
async def built(graph, unique):
    group = f"g_{unique}"
    uuids = await build(graph, group)
    return group, [uuids[f.fact] for f in FACTS]


async def test_malformed_evidence_and_unknown_status_are_quarantined(graph, settings, tmp_path, built):
    group, u = built
    rows = [
        row("ok", u[0], "promoted", group),
        row("bad-json", None, "promoted", group, ev='[{"evidence_id": '),
        row("empty", None, "promoted", group, ev="[]"),
        row("no-id", None, "promoted", group, ev='[{"kind": "edge"}]'),
        row("int-id", None, "promoted", group, ev='[{"evidence_id": 42}]'),
        row("not-list", None, "promoted", group, ev='{"evidence_id": "x"}'),
        row("weird-status", u[1], "promoted", group),
    ]
    db = review_db(tmp_path / "r.sqlite3", rows)
    # an unknown status cannot be inserted through the documented schema's CHECK: a pipeline DB
    # without the CHECK holds one
    con = sqlite3.connect(db)
    with con:
        con.execute("CREATE TABLE c2 AS SELECT * FROM candidates")
        con.execute("UPDATE c2 SET status = 'approved-ish' WHERE id = 'weird-status'")
    con.close()
    settings.review.table = "c2"
    rep = await run_sync(settings, review_db=db, graph=graph)
    reasons = {q["id"]: q["reason"] for q in rep.quarantined}
    assert rep.quarantined_count == 6
    assert "malformed JSON" in reasons["bad-json"]
    assert "empty list" in reasons["empty"]
    assert "no evidence_id" in reasons["no-id"]
    assert "not a string" in reasons["int-id"]
    assert "not a JSON list" in reasons["not-list"]
    assert "unknown status 'approved-ish'" in reasons["weird-status"]
    props = await edge_props(graph, group)
    assert props[u[0]]["trust_score"] == 1.0 and props[u[1]]["trust_score"] is None  # the good row still applied
    store = StateStore.for_settings(settings)
    stored = dict(store.con.execute("SELECT candidate_id, reason FROM sync_quarantine WHERE run_id = ?",
                                    (rep.run_id,)).fetchall())
    store.close()
    assert stored == reasons


async def test_nasty_text_is_written_verbatim(graph, settings, tmp_path, built):
    group, u = built
    rows = [row("q'1\n", u[0], "promoted", group, memory_type=NASTY, sensitivity="hígh", scope="a'b\"c"),
            row("q2", NASTY, "promoted", group)]
    db = review_db(tmp_path / "r.sqlite3", rows)
    rep = await run_sync(settings, review_db=db, graph=graph)
    p = (await edge_props(graph, group))[u[0]]
    assert (p["memory_type"], p["sensitivity"], p["scope"]) == (NASTY, "hígh", "a'b\"c")
    assert rep.unmatched == [{"id": "q2", "edge_uuid": NASTY, "graph": group}]
    assert len(await edge_props(graph, group)) == len(FACTS)  # nothing was deleted
    v = await verify(settings, review_db=db, graph=graph)
    assert v.in_sync, v.drift


async def test_review_db_missing_corrupt_locked_or_lacking_columns(graph, settings, tmp_path):
    with pytest.raises(ReviewDBError, match="does not exist"):
        await run_sync(settings, review_db=tmp_path / "nope.sqlite3", graph=graph)
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(ReviewDBError, match="corrupt or not an SQLite database"):
        await run_sync(settings, review_db=junk, graph=graph)
    thin = tmp_path / "thin.sqlite3"
    con = sqlite3.connect(thin)
    con.execute("CREATE TABLE candidates (id TEXT PRIMARY KEY, status TEXT)")
    con.close()
    with pytest.raises(ReviewDBError, match="lacks required column.*evidence_refs_json, updated_at"):
        await run_sync(settings, review_db=thin, graph=graph)
    settings.review.columns = {"evidence_refs_json": "evidence"}
    with pytest.raises(ReviewDBError, match=r"evidence \(mapped from evidence_refs_json\)"):
        await run_sync(settings, review_db=thin, graph=graph)
    settings.review.columns = {}
    locked = review_db(tmp_path / "locked.sqlite3", [])
    writer = sqlite3.connect(locked, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    settings.review.lock_timeout_s = 0.2
    try:
        with pytest.raises(ReviewDBError, match="locked by a writer"):
            await run_sync(settings, review_db=locked, graph=graph)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    store = StateStore.for_settings(settings)
    assert store.runs() == []  # no run was started for any of these: nothing to repair
    store.close()


async def test_pipeline_db_through_column_mapping(graph, settings, tmp_path, built):
    group, u = built
    db = tmp_path / "pipeline.sqlite3"
    con = sqlite3.connect(db)
    with con:
        con.execute("CREATE TABLE facts (fact_id TEXT PRIMARY KEY, review_state TEXT, refs TEXT, tenant TEXT, "
                    "modified TEXT)")
        con.execute("INSERT INTO facts VALUES ('f1', 'corroborated', ?, ?, '2026-01-01T00:00:00Z')",
                    (json.dumps([{"evidence_id": u[5]}]), group))
    con.close()
    settings.review.table = "facts"
    settings.review.columns = {"id": "fact_id", "status": "review_state", "evidence_refs_json": "refs",
                               "group_id": "tenant", "updated_at": "modified"}
    rep = await run_sync(settings, review_db=db, graph=graph)
    assert rep.edges_set == 1
    assert (await edge_props(graph, group))[u[5]]["trust_score"] == 0.6



def _view_db(path, rows):
    """A pipeline DB whose candidates are a view over a table without a key (ids may repeat)."""
    con = sqlite3.connect(path)
    with con:
        con.execute("CREATE TABLE facts_raw (fact_id TEXT, review_state TEXT, refs TEXT, tenant TEXT, modified TEXT)")
        con.execute("CREATE VIEW facts AS SELECT * FROM facts_raw")
        con.executemany("INSERT INTO facts_raw VALUES (?, ?, ?, ?, '2026-01-01T00:00:00Z')", rows)
    con.close()
    return path


def _map_view(settings):
    settings.review.table = "facts"
    settings.review.columns = {"id": "fact_id", "status": "review_state", "evidence_refs_json": "refs",
                               "group_id": "tenant", "updated_at": "modified"}


async def test_a_row_without_an_id_is_one_clear_error(graph, settings, tmp_path, built):
    group, u = built
    ev = json.dumps([{"evidence_id": u[0]}])
    db = _view_db(tmp_path / "p.sqlite3", [("f1", "promoted", ev, group), (None, "promoted", ev, group)])
    _map_view(settings)
    with pytest.raises(ReviewDBError, match=r"table 'facts': 1 row\(s\) have no id \(column 'fact_id' is NULL\)"):
        await run_sync(settings, review_db=db, graph=graph)
    assert (await edge_props(graph, group))[u[0]]["trust_score"] is None  # nothing written


async def test_a_repeated_id_quarantines_the_id_until_it_is_unique(graph, settings, tmp_path, built):
    """Two rows with one id: which decision is meant cannot be told, so neither is used (before,
    whichever row SQLite copied last won). Once one row goes (its updated_at untouched), the next
    normal run uses the other."""
    group, u = built
    ev0, ev1 = (json.dumps([{"evidence_id": x}]) for x in (u[0], u[1]))
    db = _view_db(tmp_path / "p.sqlite3", [("f1", "promoted", ev0, group), ("f2", "corroborated", ev1, group)])
    _map_view(settings)
    await run_sync(settings, review_db=db, graph=graph)
    con = sqlite3.connect(db)
    with con:
        con.execute("INSERT INTO facts_raw VALUES ('f1', 'rejected', '[]', ?, '2030-01-01T00:00:00Z')", (group,))
    rep = await run_sync(settings, review_db=db, graph=graph)
    assert [q["id"] for q in rep.quarantined] == ["f1"] and "2 review rows have this id" in rep.quarantined[0]["reason"]
    assert rep.edges_cleared == 1
    props = await edge_props(graph, group)
    assert (props[u[0]]["trust_score"], props[u[1]]["trust_score"]) == (None, 0.6)
    v = await verify(settings, review_db=db, graph=graph)
    assert v.in_sync and v.quarantined_count == 1 and v.missed_candidates == 0
    with con:
        con.execute("DELETE FROM facts_raw WHERE review_state = 'rejected'")
    con.close()
    rep = await run_sync(settings, review_db=db, graph=graph)
    assert rep.quarantined == [] and rep.edges_set == 1
    assert (await edge_props(graph, group))[u[0]]["trust_score"] == 1.0
    assert (await verify(settings, review_db=db, graph=graph)).in_sync

async def test_lock_held_and_dead_holder_taken_over(graph, settings, tmp_path, built):
    group, u = built
    db = review_db(tmp_path / "r.sqlite3", [row("c1", u[0], "promoted", group)])
    gk = graph_key(graph)
    with sync_lock(settings.state_dir, gk, "test graph"):
        with pytest.raises(LockHeldError, match="another sync is running"):
            await run_sync(settings, review_db=db, graph=graph)
    assert (await edge_props(graph, group))[u[0]]["trust_score"] is None
    dead = subprocess.Popen(["true"])
    dead.wait()
    lock_file = settings.state_dir / "locks" / f"sync-{gk}.lock"
    lock_file.write_text(json.dumps({"pid": dead.pid, "host": os.uname().nodename, "since": "x", "active": True}))
    rep = await run_sync(settings, review_db=db, graph=graph)
    assert rep.lock_takeover_pid == dead.pid and rep.edges_set == 1
