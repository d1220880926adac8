"""Crashes mid-run: SIGINT to the CLI (whose --json still prints the report so far), and the graph going
away. State stays consistent; a rerun converges."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from proc import alive, sigint_as_ctrl_c
from sync_fixtures import TIERS, bulk_graph, bulk_rows, edge_props, expected_state, review_db

from graph_trust.config import load_settings
from graph_trust.errors import RunFailedError
from graph_trust.graph.connection import open_graph
from graph_trust.sync import run_sync, verify


def _journal(state_db: Path, sql: str, params=()) -> list[tuple]:
    con = sqlite3.connect(state_db)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def _trust(props: dict) -> dict[str, float]:
    return {u: p["trust_score"] for u, p in props.items() if p["trust_score"] is not None}


CLI = [sys.executable, "-c", "from graph_trust.cli.main import main; main()"]


def _cli(config: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args, "--config", str(config)], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
async def test_sigint_mid_run_then_rerun_converges(sig, graph, settings, tmp_path, unique, embedded_path):
    """Ctrl-C, or SIGTERM (a scheduler's timeout), stops the run the same way."""
    group = f"g_{unique}"
    edges = await bulk_graph(graph, group, 3000)
    rows = bulk_rows(edges, group)
    db = review_db(tmp_path / "r.sqlite3", rows)
    config = tmp_path / "graph-trust.yaml"
    config.write_text(yaml.safe_dump({"graph": {"uri": f"embedded:{embedded_path}", "database": settings.graph.database},
                                      "state_dir": str(settings.state_dir), "sync": {"tiers": settings.sync.tiers}, "review": {"path": str(db)}}))
    state_db = settings.state_dir / "state.sqlite3"
    proc = subprocess.Popen([*CLI, "sync", "--config", str(config), "--batch-size", "5", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=sigint_as_ctrl_c)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # wait until a few batches are applied
        if state_db.exists():
            try:
                n = _journal(state_db, "SELECT count(DISTINCT batch) FROM sync_journal WHERE state = 'applied'")[0][0]
            except sqlite3.OperationalError:
                n = 0
            if n >= 5:
                break
        time.sleep(0.05)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 3, (out, err)
    assert "interrupted" in err and err.count("\n") == 1  # one clear line
    run_id, status = _journal(state_db, "SELECT run_id, status FROM sync_runs WHERE kind = 'sync'")[0]
    assert status == "interrupted"
    assert _journal(state_db, "SELECT count(*) FROM sync_journal WHERE state = 'pending'")[0][0] == 0
    applied = {u for (u,) in _journal(state_db, "SELECT uuid FROM sync_journal WHERE run_id = ? AND kind = 'edge' "
                                                "AND state = 'applied'", (run_id,))}
    on_graph = _trust(await edge_props(graph, group))
    assert 0 < len(on_graph) < len(expected_state(rows))  # really interrupted part-way
    assert set(on_graph) == applied  # every change on the graph is journaled, nothing else
    # --json still prints the report, with the counts so far (the cron recipe's report is never empty)
    report = json.loads(out)
    assert (report["run_id"], report["status"], report["interrupted"]) == (run_id, "interrupted", True)
    assert report["edges_set"] == len(applied) and report["batches"] > 0 and report["candidates_read"] == len(rows)
    rerun = _cli(config, "sync", "--json")
    assert rerun.returncode == 0, rerun.stderr
    assert _trust(await edge_props(graph, group)) == expected_state(rows)
    v = _cli(config, "verify", "--json")
    assert v.returncode == 0, v.stdout


async def test_graph_going_away_mid_run(tmp_path, unique):
    path = tmp_path / "own-graph"
    settings = load_settings(overrides={"graph.uri": f"embedded:{path}", "graph.database": f"t_{unique}",
                                        "state_dir": str(tmp_path / "state"), "sync.retries": 1,
                                        "sync.tiers": dict(TIERS)}, environ={})
    group = f"g_{unique}"
    async with open_graph(settings) as g:
        edges = await bulk_graph(g, group, 200)
    rows = bulk_rows(edges, group)
    db = review_db(tmp_path / "r.sqlite3", rows)
    batches = []

    def kill_after_three(phase: str, n: int, total: int | None) -> None:
        if phase == "edges":
            batches.append(n)
            if len(batches) == 3:
                pid = int((path / "falkordb.pid").read_text())
                os.kill(pid, signal.SIGTERM)  # the server stops (saving its data)
                while alive(pid):
                    time.sleep(0.02)

    with pytest.raises(RunFailedError, match=r"failed after \d+ batch\(es\).*again to converge"):
        await run_sync(settings, review_db=db, batch_size=10, full=True, progress=kill_after_three)
    state_db = tmp_path / "state" / "state.sqlite3"
    run_id, status, error = _journal(state_db, "SELECT run_id, status, error FROM sync_runs")[0]
    assert status == "failed" and "graph" in error
    applied = {u for (u,) in _journal(state_db, "SELECT uuid FROM sync_journal WHERE state = 'applied'")}
    pending = {u for (u,) in _journal(state_db, "SELECT uuid FROM sync_journal WHERE state = 'pending'")}
    # batches written, then at least one journaled whose write failed (how many got through before
    # the server was gone varies with timing: 3 batches settled in most runs, fewer now and then)
    journal = _journal(state_db, "SELECT batch, state, count(*) FROM sync_journal GROUP BY 1, 2 ORDER BY 1")
    assert applied and pending, journal
    async with open_graph(settings) as g:  # the server comes back with what was written
        on_graph = set(_trust(await edge_props(g, group)))
        assert applied <= on_graph and on_graph - applied <= pending  # nothing written unjournaled
        rep = await run_sync(settings, review_db=db, graph=g)
        assert rep.recovered_journal_rows == len(pending)
        assert _trust(await edge_props(g, group)) == expected_state(rows)
        assert (await verify(settings, review_db=db, graph=g)).in_sync
    settled = dict(_journal(state_db, "SELECT uuid, state FROM sync_journal WHERE run_id = ?", (run_id,)))
    assert {u for u, st in settled.items() if st == "applied"} == on_graph  # the journal now says exactly what happened
    assert set(settled.values()) <= {"applied", "void"}



async def test_a_write_cancelled_as_it_is_sent_lands_before_the_cancellation_goes_on(graph, unique):
    """The runner sends each batch with ``_started`` (schedule, yield once, hand the task on).
    Ctrl-C during that yield used to orphan the write: the runner never got the task, its
    failure handling read the batch back before it landed and journaled it ``void`` (seen 1 run
    in 25-50 of the SIGINT test: 5 edges on the graph, journal void). Now ``_started`` waits."""
    import asyncio

    from graph_trust.sync.overlap import started as _started

    group = f"g_{unique}"
    edges = await bulk_graph(graph, group, 20000)
    rows = [{"uuid": u, "trust_score": 0.5, "trust_status": "corroborated", "trust_run_id": "r",
             "trust_updated_at": "2026-01-01T00:00:00Z", "memory_type": None, "sensitivity": None, "scope": None}
            for u in edges]
    sending = asyncio.ensure_future(_started(graph.for_group(group).write("edge_trust_set", rows=rows)))
    await asyncio.sleep(0)  # _started has scheduled the write and yields once
    sending.cancel()
    with pytest.raises(asyncio.CancelledError):
        await sending
    scores = {u: p["trust_score"] for u, p in (await edge_props(graph, group)).items()}
    assert scores == dict.fromkeys(edges, 0.5)

async def test_a_cancelled_write_lands_before_the_cancellation_goes_on(graph, unique):
    """Ctrl-C while a batch's write statement is on its way or on the server: the server applies
    it anyway, so the sync (``writer.landed``, which the runner and the writer await every batch
    write through) lets it finish before the cancellation goes on. What the failure handling reads
    back next (to settle the journal) is then what the graph ends up holding; before, a batch
    could land after it had been read back and marked ``void``."""
    import asyncio

    from graph_trust.sync.writer import landed

    group = f"g_{unique}"
    edges = await bulk_graph(graph, group, 20000)
    rows = [{"uuid": u, "trust_score": 0.5, "trust_status": "corroborated", "trust_run_id": "r",
             "trust_updated_at": "2026-01-01T00:00:00Z", "memory_type": None, "sensitivity": None, "scope": None}
            for u in edges]
    started = time.monotonic()
    task = asyncio.ensure_future(landed(graph.for_group(group).write("edge_trust_set", rows=rows)))
    await asyncio.sleep(0.05)  # the statement is being sent or run (it takes several times longer)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started > 0.1  # it did wait for the reply
    scores = {u: p["trust_score"] for u, p in (await edge_props(graph, group)).items()}
    assert scores == dict.fromkeys(edges, 0.5)
