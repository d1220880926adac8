"""Every counter of a run agrees with its journal and with the graph, however the run ended.

Seeded random histories on a graph of a few hundred edges: review DB edits and changes made to
the graph outside sync (test_sync_convergence.History, plus invalidations the guard restores),
then runs of every kind: normal and ``--full`` runs, dry runs each followed by the same real run,
rollbacks, prunes, ``graph-trust sync`` on the command line (text and ``--json``), and a child process
running ``graph-trust sync`` stopped at a random point by SIGINT, SIGTERM or SIGKILL: after a
random number of journaled batches or a random time, in any phase, at a batch boundary or in the
middle of a batch (the graph server is paused first, so batches are journaled and sent but not
answered when the signal comes). Batch sizes, aggregation rules and the guard's restores are
drawn per history.

After every run: the graph equals its state before the run with the run's ``applied`` journal
rows replayed in order, each row's previous values being what the graph held (``pending`` rows
of a killed run: either, until the next run settles them by what the graph held); every counter
``graph-trust runs`` lists for the run (Python and ``--json``) and the run's own report (``--json``
and text) equals its count of the journal; a dry run wrote nothing and reported what the same
real run right after it did; a rollback restored what the run it undid changed; a pruned run keeps
its counts; ``verify`` finds as many edges with trust as the graph holds. More histories:
``GRAPH_TRUST_COUNTS_SEEDS=20 GRAPH_TRUST_COUNTS_STEPS=16 pytest tests/sync/test_sync_counts.py``.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from cli_helpers import clean_env, run_cli
from conftest import CLEARING_TIERS
from proc import sigint_as_ctrl_c
from sync_fixtures import bulk_graph, bulk_rows
from test_sync_convergence import History, review_db

from graph_trust.config import load_settings
from graph_trust.graph.connection import open_graph
from graph_trust.graph.embedded import EmbeddedServer
from graph_trust.sync import list_runs, prune, rollback, run_sync, verify
from graph_trust.sync.graphstate import bucket_range
from graph_trust.sync.report import RUN_COUNTERS

SEEDS = int(os.environ.get("GRAPH_TRUST_COUNTS_SEEDS", "3"))
STEPS = int(os.environ.get("GRAPH_TRUST_COUNTS_STEPS", "8"))
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGKILL)
EDITS = ["R_status", "R_status", "R_delete", "R_insert", "R_move", "R_meta", "G_delete_edge", "G_set_score",
         "G_strip_trust", "G_resave", "G_delete_entity", "G_edge_appears", "G_invalidate"]
RUNS = ["sync", "full", "dry_pair", "cli", "rollback", "prune", "kill", "kill"]
BATCH_SIZES = [1, 1, 2, 3, 5, 8, 20, 50, 1000]
EDGE = ("trust_score", "trust_status", "trust_run_id", "trust_updated_at", "memory_type", "sensitivity", "scope")
PROPS = {"edge": EDGE, "entity": ("trust_score", "trust_run_id"), "validity": ("invalid_at", "expired_at")}
CLI = [sys.executable, "-m", "graph_trust"]


@pytest.fixture(scope="module")
def own_server(tmp_path_factory):
    """An embedded FalkorDB of these tests' own: they pause it (SIGSTOP) to catch batches in flight."""
    path = tmp_path_factory.mktemp("counts") / "graph"
    server = EmbeddedServer(path).start()
    try:
        yield server, path
    finally:
        if server.pid:
            os.kill(server.pid, signal.SIGCONT)
        server.stop()


def same(a: dict | None, b: dict | None, props: tuple[str, ...]) -> bool:
    """Equal on ``props`` as stored (a score within 1e-9; None and absent alike)."""
    a, b = a or {}, b or {}
    for p in props:
        x, y = a.get(p), b.get(p)
        if p == "trust_score" and x is not None and y is not None:
            if abs(float(x) - float(y)) > 1e-9:
                return False
        elif (None if x is None else str(x)) != (None if y is None else str(y)):
            return False
    return True


async def snapshot(graph, group: str) -> dict[tuple[str, str], dict]:
    """What the group's graph holds of every property sync and rollback write."""
    gg = graph.for_group(group)
    edges = await gg.run_text("MATCH ()-[r:RELATES_TO]->() RETURN r.uuid AS uuid, "
                              + ", ".join(f"r.{p} AS {p}" for p in EDGE + PROPS["validity"]), {}, write=False)
    ents = await gg.run_text("MATCH (n:Entity) RETURN n.uuid AS uuid, n.trust_score AS trust_score, "
                             "n.trust_run_id AS trust_run_id", {}, write=False)
    out = {}
    for e in edges:
        out[("edge", e["uuid"])] = {p: e[p] for p in EDGE}
        out[("validity", e["uuid"])] = {p: e[p] for p in PROPS["validity"]}
    for n in ents:
        out[("entity", n["uuid"])] = {p: n[p] for p in PROPS["entity"]}
    return out


async def quiet_snapshot(graph, group: str) -> dict:
    """A snapshot once the graph stops changing (a killed client's last write may still land)."""
    last = await snapshot(graph, group)
    while True:
        await asyncio.sleep(0.3)
        now = await snapshot(graph, group)
        if now == last:
            return now
        last = now


class Journal:
    """The state store's journal and runs, read as they are on disk (the test's own reading)."""

    def __init__(self, state_db: Path):
        self.path = state_db

    def rows(self, run_id: str) -> list[tuple]:
        """(seq, batch, kind, uuid, old, new, state) of one run, in journal order."""
        con = sqlite3.connect(self.path)
        try:
            return [(s, b, k, u, json.loads(o or "null"), json.loads(n or "null"), st) for s, b, k, u, o, n, st in
                    con.execute("SELECT seq, batch, kind, uuid, old_json, new_json, state FROM sync_journal "
                                "WHERE run_id = ? ORDER BY seq", (run_id,))]
        finally:
            con.close()

    def figures(self, run_id: str, kind: str) -> dict[str, int]:
        """The counters a run of ``kind`` must list, counted here from its journal rows."""
        rows = self.rows(run_id)
        applied = [(k, new) for _, _, k, _, _, new, st in rows if st == "applied"]
        pending = sum(st == "pending" for *_, st in rows)
        if kind == "rollback":
            return {"edges_restored": sum(k == "edge" for k, _ in applied),
                    "entities_restored": sum(k == "entity" for k, _ in applied),
                    "invalidations_restored": sum(k == "validity" for k, _ in applied), "journal_pending": pending}
        return {"batches": len({b for _, b, *_ in rows}),
                "edges_set": sum(k == "edge" and new.get("trust_score") is not None for k, new in applied),
                "edges_cleared": sum(k == "edge" and new.get("trust_score") is None for k, new in applied),
                "entities_updated": sum(k == "entity" for k, _ in applied),
                "trusted_restored": sum(k == "validity" for k, _ in applied), "journal_pending": pending}

    def progress(self, run_id: str) -> tuple[int, int]:
        """(batches journaled, rows pending) of a running run, as another process sees them."""
        try:
            con = sqlite3.connect(self.path, timeout=5)
            try:
                return con.execute("SELECT count(DISTINCT batch), coalesce(sum(state = 'pending'), 0) FROM sync_journal "
                                   "WHERE run_id = ?", (run_id,)).fetchone()
            finally:
                con.close()
        except sqlite3.Error:
            return 0, 0

    def running(self, known: set[str]) -> str | None:
        """A run started since ``known`` were listed, still running."""
        try:
            con = sqlite3.connect(self.path, timeout=5)
            try:
                rows = con.execute("SELECT run_id FROM sync_runs WHERE status = 'running'").fetchall()
            finally:
                con.close()
        except sqlite3.Error:
            return None
        return next((r for (r,) in rows if r not in known), None)


def replay(before: dict, rows: list[tuple], after: dict, where: str) -> None:
    """``after`` is ``before`` with the applied rows' new values, each row's old values being what
    the element held then; a pending row's element holds its old or its new values; a void row's
    element is gone or does not hold the new values."""
    expected = dict(before)
    loose = set()  # entities in the range of a pending entity_range marker: any value until it is settled
    for seq, _, kind, uuid, old, new, state in rows:
        if kind == "entity_range":
            assert state in ("void", "pending"), (where, seq, state)
            if state == "pending":
                lo, hi = bucket_range(uuid)
                loose |= {k for k in after if k[0] == "entity" and lo <= k[1] < hi}
            continue
        key, props = (kind, uuid), PROPS[kind]
        if state == "applied":
            assert key in expected, (where, "an applied row of an element the graph did not have", seq, key)
            assert same(old, expected[key], props), (where, "previous values", seq, key, old, expected[key])
            expected[key] = {p: new.get(p) for p in props}
        elif state == "pending":
            got = after.get(key)
            assert got is None or same(got, new, props) or same(got, expected.get(key), props), (where, seq, key, got)
            if got is not None:
                expected[key] = got
        else:
            assert state == "void", (where, seq, state)
            assert key not in after or not same(after[key], new, props), (where, "a void row's values landed", seq)
    wrong = {k: (expected.get(k), v) for k, v in after.items()
             if k not in loose and not same(v, expected.get(k), PROPS[k[0]])}
    assert not wrong, (where, "the graph holds what the journal does not say", list(wrong.items())[:5])


def settled_as_found(found: dict, rows: list[tuple], where: str) -> None:
    """After recovery, a killed run's rows say what the graph held (``found``) once it was dead."""
    for seq, _, kind, uuid, _old, new, state in rows:
        assert state != "pending", (where, seq)
        if kind in PROPS and state == "applied":
            assert same(found.get((kind, uuid)), new, PROPS[kind]), (where, "applied, not in the graph", seq)


class Counts:
    """One history: its graph, review DB, runs, and the checks after each run."""

    def __init__(self, graph, settings, history: History, config: Path, rng: random.Random, seed: int,
                 server_pid: int):
        self.graph, self.settings, self.history, self.config, self.rng = graph, settings, history, config, rng
        self.seed, self.group, self.db, self.server_pid = seed, history.group, history.db, server_pid
        self.journal = Journal(settings.state_dir / "state.sqlite3")
        self.real_runs: list[str] = []
        self.killed: list[tuple[str, dict]] = []  # runs killed outright, and what the graph held once they were dead
        self.kills = 0
        self.log: list[str] = []

    def where(self) -> str:
        return f"seed {self.seed}: {self.log}"

    def runs(self) -> dict[str, dict]:
        return {r["run_id"]: r for r in list_runs(self.settings, limit=1000)}

    def candidates(self) -> int:
        con = sqlite3.connect(self.db)
        try:
            return con.execute("SELECT count(DISTINCT id) FROM candidates").fetchone()[0]
        finally:
            con.close()

    def mass_edit(self) -> int:
        """Many review decisions change at once (a review session): returns how many."""
        ids = [r[0] for r in self.history.sql("SELECT id FROM candidates")]
        picked = self.rng.sample(ids, int(len(ids) * self.rng.uniform(0.2, 0.8)))
        statuses = ["promoted", "corroborated", "candidate", "rejected", "expired"]
        for i in picked:
            self.history.sql("UPDATE candidates SET status = ? WHERE id = ?", (self.rng.choice(statuses), i))
        return len(picked)

    async def edit(self) -> None:
        for _ in range(self.rng.randrange(0, 4)):
            op = self.rng.choice(EDITS)
            self.log.append(op)
            if op == "G_invalidate":  # Graphiti invalidated a fact (the guard restores trusted ones)
                edges = await self.history.read("MATCH ()-[r:RELATES_TO]->() RETURN r.uuid AS u")
                if edges:
                    await self.history.write("MATCH ()-[r:RELATES_TO {uuid: $u}]->() SET r.invalid_at = $t, "
                                             "r.expired_at = $t", u=self.rng.choice(edges),
                                             t="2026-01-02T03:04:05.000006+00:00")
            else:
                await self.history.step(op)

    # -- the checks ----------------------------------------------------------------------------

    def check_counts(self, run: dict, report: dict | None = None, *, now: bool = True) -> None:
        """The run's listed counters are its journal's; its report (if it finished) says the same;
        ``now``: the review DB is as the run read it."""
        where = f"{self.where()} run {run['run_id']} ({run['status']})"
        rows = self.journal.rows(run["run_id"])
        if run["dry_run"]:
            assert rows == [], where
        else:
            figures = self.journal.figures(run["run_id"], run["kind"])
            assert {k: run["counts"].get(k, 0) for k in figures} == figures, (where, run["counts"])
        if run["kind"] == "sync" and now:  # (0: stopped before it read the review DB)
            assert run["counts"].get("candidates_read", 0) in (0, self.candidates()), (where, run["counts"])
        if report is not None:
            if run["kind"] == "sync":
                assert {k: report[k] for k in RUN_COUNTERS} == {k: run["counts"][k] for k in RUN_COUNTERS}, where
                assert not now or report["candidates_read"] == self.candidates(), where
            else:
                for k in ("edges_restored", "entities_restored", "invalidations_restored"):
                    assert report[k] == run["counts"][k], (where, k)

    async def check_run(self, run_id: str, before: dict, report: dict | None = None) -> dict:
        """Graph and journal agree, counters and journal agree; returns the graph after the run."""
        after = await quiet_snapshot(self.graph, self.group)
        run = self.runs()[run_id]
        replay(before, self.journal.rows(run_id), after, f"{self.where()} run {run_id}")
        self.check_counts(run, report)
        if not run["dry_run"]:
            self.real_runs.append(run_id)
        return after

    async def check_settled(self) -> None:
        """Runs killed outright: settled by the run after them, counted again, as the graph held it."""
        runs = self.runs()
        for run_id, found in self.killed:
            run = runs[run_id]
            assert run["status"] in ("interrupted", "rolled_back"), (self.where(), run)
            assert run["counts"]["journal_pending"] == 0, (self.where(), run)
            settled_as_found(found, self.journal.rows(run_id), f"{self.where()} run {run_id}")
            self.check_counts(run, now=False)
        self.killed.clear()

    async def check_verify(self, report: dict) -> None:
        """verify (after a complete real run) finds as many edges with trust as the graph holds."""
        v = await verify(self.settings, review_db=self.db, graph=self.graph)
        now = await snapshot(self.graph, self.group)
        with_trust = sum(1 for (kind, _), p in now.items() if kind == "edge" and p["trust_score"] is not None)
        assert v.edges_checked == with_trust, (self.where(), v.edges_checked, with_trust)
        assert v.quarantined_count == report["quarantined_count"], self.where()
        assert v.unmatched_count == report["unmatched_count"], (self.where(), v.unmatched_count, report)
        if not self.history.only_full_sees:
            assert v.in_sync, (self.where(), v.drift, v.examples)

    # -- the runs ------------------------------------------------------------------------------

    async def sync(self, *, full: bool = False, dry_run: bool = False, batch_size: int | None = None) -> dict:
        before = await snapshot(self.graph, self.group)
        pending = sum(f["journal_pending"] for r, _ in self.killed for f in [self.journal.figures(r, "sync")])
        rep = await run_sync(self.settings, review_db=self.db, graph=self.graph, full=full, dry_run=dry_run,
                             batch_size=batch_size or self.rng.choice(BATCH_SIZES))
        report = rep.to_dict()
        after = await self.check_run(rep.run_id, before, report)
        if dry_run:
            assert after == before, self.where()
        else:
            assert report["recovered_journal_rows"] == pending, self.where()
            await self.check_settled()
            if full:
                self.history.only_full_sees = False
            await self.check_verify(report)
        return report

    async def dry_pair(self) -> None:
        """A dry run says what the same real run right after it does."""
        full, size = self.rng.random() < 0.4, self.rng.choice(BATCH_SIZES)
        dry = await self.sync(full=full, dry_run=True, batch_size=size)
        real = await self.sync(full=full, batch_size=size)
        same_keys = ("candidates_read", "edges_set", "edges_cleared", "edges_unchanged", "unmatched_count",
                     "quarantined_count", "trusted_invalidated_count")
        assert {k: dry[k] for k in same_keys} == {k: real[k] for k in same_keys}, (self.where(), dry, real)
        assert (dry["batches"], dry["entities_updated"]) == (0, 0), self.where()

    async def cli_sync(self) -> None:
        """``graph-trust sync`` on the command line: the text line and --json say what runs lists."""
        before = await snapshot(self.graph, self.group)
        as_json = self.rng.random() < 0.5
        args = ["sync", "--config", str(self.config), "--batch-size", str(self.rng.choice(BATCH_SIZES))]
        args += ["--full"] if self.rng.random() < 0.3 else []
        res = run_cli(*args, *(["--json"] if as_json else []))
        assert res.code == 0, (self.where(), res.err)
        if as_json:
            report = res.json()
            run_id = report["run_id"]
        else:
            m = re.match(r"run (\S+): (\d+) candidates read \((\d+) changed since the last read\); edges: (\d+) set, "
                         r"(\d+) cleared, (\d+) unchanged; (\d+) entities updated;", res.out)
            assert m, res.out
            run_id = m[1]
            report = None
            counts = self.runs()[run_id]["counts"]
            shown = dict(zip(("candidates_read", "candidates_changed", "edges_set", "edges_cleared", "edges_unchanged",
                              "entities_updated"), map(int, m.groups()[1:])))
            assert shown == {k: counts[k] for k in shown}, (self.where(), res.out, counts)
        await self.check_run(run_id, before, report)
        await self.check_settled()
        if "--full" in args:
            self.history.only_full_sees = False
        await self.check_verify(report or self.runs()[run_id]["counts"])

    async def rollback(self) -> None:
        runs = self.runs()
        targets = [r for r in self.real_runs if runs[r]["kind"] == "sync" and runs[r]["status"] != "rolled_back"
                   and self.journal.figures(r, "sync")["edges_set"] + self.journal.figures(r, "sync")["edges_cleared"]]
        if not targets:
            return
        target = self.rng.choice(targets)
        before = await snapshot(self.graph, self.group)
        rep = (await rollback(self.settings, target, graph=self.graph, force=True)).to_dict()
        await self.check_run(rep["run_id"], before, rep)
        undone = [(k, u) for _, _, k, u, _, _, st in self.journal.rows(target) if st == "applied"]
        for kind, key in (("edge", "edges_restored"), ("entity", "entities_restored"),
                          ("validity", "invalidations_restored")):
            # what the run changed, of the elements still there: rollback restores exactly those
            assert rep[key] == sum(k == kind and (k, u) in before for k, u in undone), (self.where(), key, rep)

    def prune(self) -> None:
        """Pruning a run's journal keeps its counts as they were."""
        before = self.runs()
        report = prune(self.settings, keep=self.rng.randrange(1, 4))
        after = self.runs()
        for run_id in report.pruned:
            assert after[run_id]["journal_pruned_at"] and self.journal.rows(run_id) == [], self.where()
            assert after[run_id]["counts"] == before[run_id]["counts"], (self.where(), run_id)
        self.real_runs = [r for r in self.real_runs if r not in report.pruned]
        self.log.append(f"-> pruned {len(report.pruned)}")

    async def kill(self) -> None:
        """``graph-trust sync`` in a child process, stopped at a random point by a signal."""
        rng = self.rng
        sig = SIGNALS[(self.seed + self.kills) % 3]
        self.kills += 1
        pause = rng.random() < 0.5  # pause the server first: batches in flight when the signal comes
        size = rng.choice(BATCH_SIZES[:-1])
        changed = self.mass_edit() if rng.random() < 0.8 else 0  # work enough for many batches
        # after a random share of the batches the run will journal (or none: any phase before its first)
        after_batches = rng.randrange(0, changed // size + 3)
        delay = rng.uniform(0, 0.05) if after_batches else rng.uniform(0, 1.0)
        args = ["sync", "--config", str(self.config), "--batch-size", str(size), "--json"]
        args += ["--full"] if rng.random() < 0.3 else []
        self.log.append(f"kill({sig.name}, pause={pause}, {changed} changed, after {after_batches} batches + "
                        f"{delay:.2f} s, {args[3:]})")
        before = await snapshot(self.graph, self.group)
        known = set(self.runs())
        env = clean_env()
        proc = subprocess.Popen([*CLI, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=sigint_as_ctrl_c)
        server = self.server_pid
        paused = False
        try:
            run_id, deadline = None, time.monotonic() + 120
            while proc.poll() is None and time.monotonic() < deadline:
                run_id = run_id or self.journal.running(known)
                if run_id and self.journal.progress(run_id)[0] >= after_batches:
                    break
                time.sleep(0.005)
            time.sleep(delay)
            if pause and proc.poll() is None:
                os.kill(server, signal.SIGSTOP)
                paused = True
                time.sleep(0.15)  # the child is waiting for the graph now, or soon
            if proc.poll() is None:
                at = self.journal.progress(run_id) if run_id else (0, 0)
                proc.send_signal(sig)
                self.log.append(f"signalled at {at[0]} batches, {at[1]} rows pending")
            if paused:
                time.sleep(rng.uniform(0.05, 0.3))
                os.kill(server, signal.SIGCONT)
                paused = False
            out, err = proc.communicate(timeout=180)
        finally:
            if paused:
                os.kill(server, signal.SIGCONT)
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        mine = [r for r in self.runs().values() if r["run_id"] not in known]
        assert len(mine) == 1, (self.where(), proc.returncode, err, mine)
        run = mine[0]
        self.log.append(f"-> exit {proc.returncode}, {run['status']}")
        if run["status"] == "ok" and proc.returncode in (0, -sig):  # it finished before the signal (or as
            # it came, while the interpreter shut down, with the signal's default action restored)
            await self.check_run(run["run_id"], before, json.loads(out))
            await self.check_settled()
            await self.check_verify(json.loads(out))
            return
        if sig == signal.SIGKILL:
            assert proc.returncode == -signal.SIGKILL, (self.where(), err)
            assert run["status"] == "interrupted", (self.where(), run)  # listed so once its process is gone
        else:
            assert proc.returncode in (3, 130, 143), (self.where(), proc.returncode, err)
            *logged, last = err.splitlines()  # (a lock taken over from a killed run is logged first)
            assert last.startswith("error: sync") or last in ("interrupted", "terminated"), err
            assert all(line.startswith("WARNING graph_trust.sync.runs.lock: took over") for line in logged), err
            assert run["status"] in ("interrupted", "ok"), (self.where(), run)
            assert run["counts"]["journal_pending"] == 0, (self.where(), run)  # it settled its own batches
        found = await self.check_run(run["run_id"], before)
        if sig == signal.SIGKILL:
            self.killed.append((run["run_id"], found))
        listed = {r["run_id"]: r for r in run_cli("runs", "--config", str(self.config), "--json", "--limit", "1000").json()}
        assert listed[run["run_id"]]["counts"] == run["counts"], self.where()


@pytest.mark.parametrize("seed", range(SEEDS))
async def test_every_counter_agrees_with_the_journal_and_the_graph(own_server, tmp_path, unique, seed):
    server, path = own_server
    rng = random.Random(f"counts-{seed}")
    settings = load_settings(overrides={
        "graph.uri": f"embedded:{path}", "graph.database": f"t_{unique}", "state_dir": str(tmp_path / "state"),
        "sync.tiers": dict(CLEARING_TIERS), "sync.max_clear": 1,
        "sync.aggregation": rng.choice(["max", "mean", "noisy_or"]),
        "guard.restore_trusted": rng.random() < 0.5}, environ={})
    group = f"k{unique}"
    async with open_graph(settings) as graph:
        edges = await bulk_graph(graph, group, rng.randrange(60, 400))
        db = review_db(tmp_path / "r.sqlite3", bulk_rows(edges, group))
        config = tmp_path / "graph-trust.yaml"
        config.write_text(yaml.safe_dump({
            "graph": {"uri": settings.graph.uri, "database": settings.graph.database},
            "state_dir": str(settings.state_dir), "review": {"path": str(db)},
            "sync": {"tiers": settings.sync.tiers, "max_clear": 1, "aggregation": settings.sync.aggregation},
            "guard": {"restore_trusted": settings.guard.restore_trusted}}))
        counts = Counts(graph, settings, History(graph, settings, db, group, rng), config, rng, seed, server.pid)
        plan = ["kill"] + [rng.choice(RUNS) for _ in range(STEPS - 2)] + ["kill"]
        for op in plan:
            await counts.edit()
            counts.log.append(op)
            if op in ("sync", "full"):
                await counts.sync(full=op == "full")
            elif op == "dry_pair":
                await counts.dry_pair()
            elif op == "cli":
                await counts.cli_sync()
            elif op == "rollback":
                await counts.rollback()
            elif op == "prune":
                counts.prune()
            else:
                await counts.kill()
        await counts.sync()  # the last run resumes what a killed one left
        assert not counts.killed


@pytest.mark.parametrize("full", [False, True], ids=["normal", "full"])
async def test_a_run_after_a_dry_run_reports_what_it_read_and_wrote(graph, settings, tmp_path, unique, full):
    """The reported case: a dry run printed '600 candidates read', the real run after it '0
    candidates read; edges: 450 set'. Both read and compared every candidate; the dry run had
    already brought the copy up to date, so the real run parsed none again, and wrote what the dry
    run said it would."""
    group = f"d{unique}"
    edges = await bulk_graph(graph, group, 120)
    db = review_db(tmp_path / "r.sqlite3", bulk_rows(edges, group))
    dry = await run_sync(settings, review_db=db, graph=graph, dry_run=True, full=full)
    real = await run_sync(settings, review_db=db, graph=graph, full=full)
    again = await run_sync(settings, review_db=db, graph=graph, full=full)
    assert (dry.candidates_read, real.candidates_read, again.candidates_read) == (120, 120, 120)
    # --full parses every row again; a normal run only those that differ from the copy (none)
    assert (dry.candidates_changed, real.candidates_changed, again.candidates_changed) == (120, *[120 if full else 0] * 2)
    assert dry.edges_set == real.edges_set == 90 and again.edges_set == 0 and again.edges_unchanged == 90
