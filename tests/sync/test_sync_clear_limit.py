"""sync.max_clear: an emptied or wrong review DB must not wipe the graph's trust in one night."""

from __future__ import annotations

import sqlite3

import pytest
import yaml
from cli_helpers import run_cli
from sync_fixtures import bulk_graph, bulk_rows, edge_props, expected_state, review_db, set_rows

from graph_trust.config import load_settings
from graph_trust.errors import ClearLimitError, InputError
from graph_trust.sync import rollback, run_sync, verify


def _trust(props: dict) -> dict[str, float]:
    return {u: p["trust_score"] for u, p in props.items() if p["trust_score"] is not None}


@pytest.fixture
async def synced(graph, settings, tmp_path, unique):
    group = f"g_{unique}"
    edges = await bulk_graph(graph, group, 400)
    rows = bulk_rows(edges, group)  # 300 scored (promoted / corroborated / candidate), 100 rejected
    db = review_db(tmp_path / "r.sqlite3", rows)
    await run_sync(settings, review_db=db, graph=graph)
    assert _trust(await edge_props(graph, group)) == expected_state(rows)
    return graph, settings, db, group, rows


def _journal_rows(settings, run_id: str) -> int:
    con = sqlite3.connect(settings.state_dir / "state.sqlite3")
    try:
        return con.execute("SELECT count(*) FROM sync_journal WHERE run_id = ?", (run_id,)).fetchone()[0]
    finally:
        con.close()


@pytest.mark.parametrize("full", [False, True])
async def test_an_emptied_review_db_stops_before_writing(synced, full):
    graph, settings, db, group, rows = synced
    set_rows(db, "DELETE FROM candidates")
    with pytest.raises(ClearLimitError, match=r"clear trust from 300 of the graph's 300 trusted edges \(100%\).*"
                                              r"--max-clear 1"):
        await run_sync(settings, review_db=db, graph=graph, full=full)
    assert _trust(await edge_props(graph, group)) == expected_state(rows)  # nothing written
    from graph_trust.sync import list_runs
    last = list_runs(settings, limit=1)[0]
    assert last["status"] == "failed" and "sync.max_clear" in last["error"]
    assert _journal_rows(settings, last["run_id"]) == 0
    with pytest.raises(InputError, match=r"changed nothing on the graph \(failed: this run would clear.*nothing to roll"):
        await rollback(settings, last["run_id"], graph=graph)
    # a dry run shows what the run would do and is not stopped
    dry = await run_sync(settings, review_db=db, graph=graph, dry_run=True, full=full)
    assert dry.edges_cleared == 300
    assert dry.clear_limit.startswith("this run would clear trust from 300 of the graph's 300 trusted edges")
    assert "a real run would stop" in dry.clear_limit
    # the operator says it is right: everything is cleared, and verify agrees
    allow = load_settings(overrides={"graph.uri": settings.graph.uri, "graph.database": settings.graph.database,
                                     "state_dir": str(settings.state_dir), "sync": {"tiers": settings.sync.tiers}, "sync.max_clear": 1}, environ={})
    rep = await run_sync(allow, review_db=db, graph=graph, full=full)
    assert rep.clear_limit is None
    assert rep.edges_cleared == 300 and _trust(await edge_props(graph, group)) == {}
    assert (await verify(allow, review_db=db, graph=graph)).in_sync


async def test_the_limit_is_a_fraction_of_the_trusted_edges_above_a_floor(synced):
    graph, settings, db, group, rows = synced
    scored = [r["id"] for r in rows if r["status"] != "rejected"]

    def reject(ids: list[str], stamp: str) -> None:
        set_rows(db, f"UPDATE candidates SET status = 'rejected', updated_at = '{stamp}' "
                     f"WHERE id IN ({', '.join('?' for _ in ids)})", ids)

    def limited(fraction: float):
        return settings.model_copy(update={"sync": settings.sync.model_copy(update={"max_clear": fraction})})

    reject(scored[:120], "2030-01-01T00:00:00Z")  # 120 of the 300 trusted edges: 40%
    with pytest.raises(ClearLimitError, match=r"120 of the graph's 300 trusted edges \(40%\).*allows \(30%\)"):
        await run_sync(limited(0.3), review_db=db, graph=graph)
    rep = await run_sync(settings, review_db=db, graph=graph)  # the default, 0.5
    assert rep.edges_cleared == 120
    # 80 of the remaining 180 (44%) with no fraction allowed at all: at most 100 edges always go
    reject(scored[120:200], "2030-01-02T00:00:00Z")
    rep = await run_sync(limited(0.0), review_db=db, graph=graph)
    assert rep.edges_cleared == 80
    assert len(_trust(await edge_props(graph, group))) == 100


async def test_cli_exits_2_naming_the_limit_and_max_clear_1_allows_it(synced, tmp_path, embedded_path):
    graph, settings, db, group, rows = synced
    set_rows(db, "DELETE FROM candidates")
    cfg = tmp_path / "graph-trust.yaml"
    cfg.write_text(yaml.safe_dump({"graph": {"uri": f"embedded:{embedded_path}", "database": settings.graph.database},
                                   "state_dir": str(settings.state_dir), "sync": {"tiers": settings.sync.tiers}}))
    stopped = run_cli("sync", "--review-db", str(db), "--config", str(cfg))
    assert stopped.code == 2 and stopped.out == ""
    assert stopped.err.count("\n") == 1 and "300 of the graph's 300 trusted edges" in stopped.err, stopped.err
    assert "--max-clear 1" in stopped.err
    assert _trust(await edge_props(graph, group)) == expected_state(rows)
    dry = run_cli("sync", "--review-db", str(db), "--config", str(cfg), "--dry-run")
    assert dry.code == 0 and "note: this run would clear trust from 300" in dry.out
    listed = run_cli("runs", "--config", str(cfg)).out.splitlines()
    assert "sync (dry run)" in listed[2] and "edges_cleared=300" in listed[2]
    assert " failed " in listed[3] and "error: this run would clear trust from 300" in listed[3]
    bad = run_cli("sync", "--review-db", str(db), "--config", str(cfg), "--max-clear", "2")
    assert bad.code == 2 and "--max-clear" in bad.err
    ok = run_cli("sync", "--review-db", str(db), "--config", str(cfg), "--max-clear", "1", "--json")
    assert ok.code == 0 and ok.json()["edges_cleared"] == 300
