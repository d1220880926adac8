"""``prune``: old runs lose their journal (and only those), kept runs still roll back exactly."""

from __future__ import annotations

import sqlite3

import pytest
from sync_fixtures import FACTS, build, edge_props, review_db, row, set_rows

from graph_trust.errors import InputError
from graph_trust.sync import list_runs, prune, rollback, run_sync
from graph_trust.sync.store.state import StateStore


@pytest.fixture
async def three_runs(graph, settings, tmp_path, unique):
    """A dry run, then three runs that each change one edge (c8 is quarantined every time)."""
    group = f"g_{unique}"
    uuids = await build(graph, group)
    u = [uuids[f.fact] for f in FACTS]
    db = review_db(tmp_path / "review.sqlite3", [
        row("c1", u[0], "promoted", group), row("c2", u[1], "candidate", group),
        row("c8", None, "promoted", group, ev="{not json")])
    dry = await run_sync(settings, review_db=db, graph=graph, dry_run=True)
    runs = [await run_sync(settings, review_db=db, graph=graph)]
    set_rows(db, "UPDATE candidates SET status = 'corroborated', updated_at = '2030-01-01T00:00:00Z' WHERE id = 'c1'")
    runs.append(await run_sync(settings, review_db=db, graph=graph))
    set_rows(db, "UPDATE candidates SET status = 'promoted', updated_at = '2030-01-02T00:00:00Z' WHERE id = 'c2'")
    runs.append(await run_sync(settings, review_db=db, graph=graph))
    return graph, settings, db, group, u, dry.run_id, [r.run_id for r in runs]


def _rows(settings, table: str, run_id: str) -> int:
    con = sqlite3.connect(StateStore.for_settings(settings).path)
    try:
        return con.execute(f"SELECT count(*) FROM {table} WHERE run_id = ?", (run_id,)).fetchone()[0]
    finally:
        con.close()


async def test_prune_keeps_the_newest_runs_and_they_still_roll_back(three_runs):
    graph, settings, db, group, u, dry, (r1, r2, r3) = three_runs
    before = {r: (_rows(settings, "sync_journal", r), _rows(settings, "sync_quarantine", r)) for r in (dry, r1, r2, r3)}
    assert all(j > 0 for j, _ in (before[r1], before[r2], before[r3])) and before[dry][1] == 1

    from graph_trust.sync.review_db import ReviewDB
    from graph_trust.sync.store.relink_journal import JournalStore

    review = ReviewDB.open(db, settings.review)
    with JournalStore(settings) as relinks:  # an old relink run: its journal is relink's own
        relinks.begin("relink-old", review, {}, [("c1", '[{"evidence_id": "a"}]', '[{"evidence_id": "b"}]')])
        relinks.finish("relink-old", "ok")
    review.close()

    preview = prune(settings, keep=2, dry_run=True)
    assert preview.pruned == [dry, r1] and preview.journal_rows_deleted == before[r1][0]
    assert preview.quarantine_rows_deleted == before[dry][1] + before[r1][1]
    assert {r: (_rows(settings, "sync_journal", r), _rows(settings, "sync_quarantine", r)) for r in before} == before

    done = prune(settings, keep=2)
    assert (done.pruned, done.journal_rows_deleted, done.quarantine_rows_deleted, done.skipped) == (
        preview.pruned, preview.journal_rows_deleted, preview.quarantine_rows_deleted, [])
    assert [_rows(settings, "sync_journal", r) for r in (r1, r2, r3)] == [0, before[r2][0], before[r3][0]]
    assert [_rows(settings, "sync_quarantine", r) for r in (dry, r1, r2)] == [0, 0, before[r2][1]]
    listed = {r["run_id"]: r for r in list_runs(settings)}
    assert listed[r1]["journal_pruned_at"] and listed[dry]["journal_pruned_at"] and not listed[r2]["journal_pruned_at"]
    assert prune(settings, keep=2).runs_pruned == 0  # nothing new to prune
    assert _rows(settings, "relink_journal", "relink-old") == 1  # relink's journal is left alone

    with pytest.raises(InputError, match=f"run {r1} can no longer be rolled back: `graph-trust prune` deleted"):
        await rollback(settings, r1, graph=graph)
    rb = await rollback(settings, r3, graph=graph)  # a kept run: exactly what it replaced comes back
    assert rb.edges_restored == 1 and (await edge_props(graph, group))[u[1]]["trust_score"] == 0.25
    # the rollback is now the newest writing run: keeping 2 leaves r3 and it, prunes r2
    assert prune(settings, keep=2).pruned == [r2]


async def test_prune_leaves_a_run_a_crash_left_unsettled(three_runs):
    graph, settings, db, group, u, dry, (r1, r2, r3) = three_runs
    # what a crash leaves: r1 still marked running, a pending journal row of r2
    store = StateStore.for_settings(settings)
    with store.tx() as c:
        c.execute("UPDATE sync_runs SET status = 'running' WHERE run_id = ?", (r1,))
        c.execute("UPDATE sync_journal SET state = 'pending' WHERE seq = (SELECT max(seq) FROM sync_journal "
                  "WHERE run_id = ?)", (r2,))
    store.close()
    rep = prune(settings, keep=1)
    assert rep.pruned == [dry]
    assert {s["run_id"]: s["reason"].split(" (")[0] for s in rep.skipped} == {
        r1: "still marked running", r2: "has pending journal rows"}
    assert _rows(settings, "sync_journal", r1) > 0 and _rows(settings, "sync_journal", r2) > 0
    # the next sync settles both; then they are pruned like any other
    await run_sync(settings, review_db=db, graph=graph)
    assert prune(settings, keep=1).pruned == [r1, r2, r3]


def test_prune_refuses_keep_below_one(settings):
    with pytest.raises(InputError, match="keep must be at least 1"):
        prune(settings, keep=0)


async def test_prune_stops_while_a_sync_holds_the_graphs_lock(three_runs):
    """Pruning a graph takes its sync lock: while a sync holds it, prune stops with the lock
    error and deletes nothing."""
    from graph_trust.errors import LockHeldError
    from graph_trust.sync.runs.identity import graph_key
    from graph_trust.sync.runs.lock import sync_lock

    graph, settings, db, group, u, dry, (r1, r2, r3) = three_runs
    rows = _rows(settings, "sync_journal", r1)
    with sync_lock(settings.state_dir, graph_key(graph), graph.address.display):
        with pytest.raises(LockHeldError, match="another sync is running"):
            prune(settings, keep=1)
    assert _rows(settings, "sync_journal", r1) == rows
    assert prune(settings, keep=1).pruned == [dry, r1, r2]
