"""Two faults of issue 15: a review row naming a group that has no graph must leave no trace in
the graph (FalkorDB: no graph of that name appears), and a run killed outright must be listed as
interrupted, not running, once its process is gone."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import textwrap

import yaml
from cli_helpers import run_cli
from sync_fixtures import FACTS, build, edge_props, review_db, row, set_rows

from graph_trust.sync import list_runs, run_sync, verify
from graph_trust.sync.runs.lock import holder_gone, lock_path
from graph_trust.sync.runs.recovery import DEAD_RUN_ERROR


def _bad_group_names(unique: str, rng: random.Random) -> list[str]:
    """Typos and hostile text as group ids: Cypher and Redis syntax, paths, control characters,
    other scripts, padding; plus random strings over a wide alphabet."""
    fixed = [f"g_{unique}x", f"G_{unique}", f" g_{unique}", f"x' OR 1=1 //{unique}", f"a`) DETACH DELETE n //{unique}",
             f"../../{unique}", f"名前-{unique}", f"tab\t{unique}", f"line\nbreak{unique}", f"{unique}\u0000nul",
             f"FLUSHALL {unique}", f"{unique}*"]
    alphabet = "abcXYZ019 _-'\"`{}[]()$;:/\\\u00e9\u4e2d\U0001f600\t"
    rand = [unique + "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 20))) for _ in range(8)]
    return sorted(set(fixed + rand))


async def _graph_list(graph) -> set[str]:
    names = await graph.driver.client.execute_command("GRAPH.LIST")
    return {n.decode() if isinstance(n, bytes) else n for n in names}


async def test_unknown_groups_leave_no_trace_in_the_graph(graph, settings, tmp_path, unique):
    """Rows whose group_id names no graph (typo or hostile text) are unmatched; no run of any
    kind, nor verify, creates a graph of that name, and the rows of the real group still sync."""
    group = f"g_{unique}"
    uuids = await build(graph, group)
    u = [uuids[f.fact] for f in FACTS]
    bad = _bad_group_names(unique, random.Random(unique))
    rows = [row("ok1", u[0], "promoted", group), row("ok2", u[1], "corroborated", group)]
    rows += [row(f"bad{i}", u[i % len(u)], "promoted", name) for i, name in enumerate(bad)]
    db = review_db(tmp_path / "r.sqlite3", rows)
    before = await _graph_list(graph)
    assert not before & set(bad)

    for kwargs in ({"dry_run": True}, {}, {"full": True}, {"full": True, "dry_run": True}, {}):
        rep = await run_sync(settings, review_db=db, graph=graph, **kwargs)
        assert rep.unknown_groups == bad, kwargs
        assert sorted(x["id"] for x in rep.unmatched) == sorted(f"bad{i}" for i in range(len(bad)))
        assert "name no existing graph" in rep.unmatched_hint
    v = await verify(settings, review_db=db, graph=graph)
    assert v.in_sync and v.unknown_groups == bad and v.unmatched_count == len(bad)
    assert "name no existing graph" in v.to_dict()["hint"]
    assert await _graph_list(graph) == before  # not one graph more
    props = await edge_props(graph, group)
    assert (props[u[0]]["trust_score"], props[u[1]]["trust_score"]) == (1.0, 0.6)


async def test_a_group_whose_graph_appears_later_is_synced_then(graph, settings, tmp_path, unique):
    """An unknown group is not remembered as bad: once its graph exists, the next normal run
    writes its rows (they were retried as unmatched)."""
    late = f"late_{unique}"
    db = review_db(tmp_path / "r.sqlite3", [row("c1", "e-later", "promoted", late)])
    rep = await run_sync(settings, review_db=db, graph=graph)
    assert rep.unknown_groups == [late] and late not in await _graph_list(graph)
    uuids = await build(graph, late)
    first = uuids[FACTS[0].fact]
    set_rows(db, "UPDATE candidates SET evidence_refs_json = ? WHERE id = 'c1'",
             (json.dumps([{"evidence_id": first}]),))
    rep = await run_sync(settings, review_db=db, graph=graph)
    assert rep.unknown_groups == [] and rep.edges_set == 1
    assert (await edge_props(graph, late))[first]["trust_score"] == 1.0
    assert (await verify(settings, review_db=db, graph=graph)).in_sync


_HANG_IN_EDGE_PHASE = textwrap.dedent("""
    import asyncio, sys, time
    from graph_trust.config import load_settings
    from graph_trust.sync import run_sync

    uri, database, state_dir, db = sys.argv[1:5]
    settings = load_settings(overrides={"graph.uri": uri, "graph.database": database, "state_dir": state_dir},
                             environ={})

    def progress(phase, n, total):
        if phase == "edges":  # a batch is written and journaled: hang here until killed
            print("in edge phase", flush=True)
            time.sleep(600)

    asyncio.run(run_sync(settings, review_db=db, batch_size=1, progress=progress))
""")


async def test_a_run_killed_outright_is_listed_as_interrupted(graph, settings, tmp_path, unique, embedded_path):
    """A real sync process, SIGKILLed in its edge phase: while it lives `runs` says running;
    once it is gone, `runs` (Python, text and --json) says interrupted, before any other run
    takes its lock. The next sync takes the lock over, records the run as interrupted, and
    converges."""
    group = f"g_{unique}"
    uuids = await build(graph, group)
    u = [uuids[f.fact] for f in FACTS]
    db = review_db(tmp_path / "r.sqlite3", [row(f"c{i}", x, "promoted", group) for i, x in enumerate(u)])
    script = tmp_path / "hang.py"
    script.write_text(_HANG_IN_EDGE_PHASE)
    proc = subprocess.Popen([sys.executable, str(script), settings.graph.uri, settings.graph.database,
                             str(settings.state_dir), str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "in edge phase"
        (running,) = list_runs(settings)
        assert (running["status"], running["pid"]) == ("running", proc.pid)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    (dead,) = list_runs(settings)
    assert dead["run_id"] == running["run_id"] and dead["status"] == "interrupted"
    assert f"pid {proc.pid}" in dead["error"]

    cfg = tmp_path / "graph-trust.yaml"
    cfg.write_text(yaml.safe_dump({"graph": {"uri": settings.graph.uri, "database": settings.graph.database},
                                   "state_dir": str(settings.state_dir), "review": {"path": str(db)}}))
    listed = run_cli("runs", "--config", str(cfg), "--json")
    assert listed.code == 0 and [(r["run_id"], r["status"]) for r in listed.json()] == [(dead["run_id"], "interrupted")]
    text = run_cli("runs", "--config", str(cfg))
    assert text.code == 0 and "interrupted" in text.out and "running" not in text.out

    rep = await run_sync(settings, review_db=db, graph=graph)
    assert rep.lock_takeover_pid == proc.pid
    runs = {r["run_id"]: r for r in list_runs(settings)}
    assert (runs[dead["run_id"]]["status"], runs[dead["run_id"]]["error"]) == ("interrupted", DEAD_RUN_ERROR)
    assert (await verify(settings, review_db=db, graph=graph)).in_sync


def test_holder_gone_reads_the_lock_file(tmp_path):
    """The lock file decides: released -> gone; held by this (live) process -> not gone; held by
    a pid whose start time differs (the pid was reused) or by no live process -> gone; another
    host or no file -> cannot tell (not gone)."""
    from graph_trust.graph.embedded import _proc_start_time

    graph_id = "k" * 16
    path = lock_path(tmp_path, graph_id)
    assert not holder_gone(tmp_path, graph_id)
    path.parent.mkdir(parents=True)
    me, host = os.getpid(), socket.gethostname()

    def holder(**data) -> bool:
        path.write_text(json.dumps(data))
        return holder_gone(tmp_path, graph_id)

    assert holder(active=False)
    assert not holder(active=True, pid=me, start=_proc_start_time(me), host=host)
    assert holder(active=True, pid=me, start="1", host=host)
    assert not holder(active=True, pid=me, start="1", host=host + "-elsewhere")
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert holder(active=True, pid=child.pid, host=host)
    assert not holder(active=True, pid=me, host=host)
    assert holder_gone(tmp_path, graph_id, pid=child.pid)  # the run's own pid, when recorded, decides
    path.write_text("not json")
    assert not holder_gone(tmp_path, graph_id)



async def test_the_edge_write_sets_every_combination_of_optional_properties(graph):
    """edge_trust_set against every combination of the optional properties present before and
    set or removed (null) by the write: the edge holds exactly what the write says (FalkorDB
    got one combination wrong when one SET clause removed some properties and set others)."""
    import itertools

    from graph_trust.sync.writer import write_edge_rows

    optional = ("memory_type", "sensitivity", "scope")
    for before, after in itertools.product(itertools.product([False, True], repeat=3), repeat=2):
        await graph.run_text("MATCH (n) DETACH DELETE n", {}, write=True)
        old = {"uuid": "e", "trust_score": 0.25, "trust_status": "candidate", "trust_run_id": "r0",
               "trust_updated_at": "t0", **{p: f"old {p}" for p, has in zip(optional, before) if has}}
        await graph.run_text("CREATE (:Entity {uuid: 'a'})-[r:RELATES_TO]->(:Entity {uuid: 'b'}) SET r = $p",
                             {"p": old}, write=True)
        new = {"uuid": "e", "trust_score": 1.0, "trust_status": "promoted", "trust_run_id": "r1",
               "trust_updated_at": "t1", **{p: (f"new {p}" if has else None) for p, has in zip(optional, after)}}
        assert await write_edge_rows(graph, [new], []) == {"e"}
        (got,) = await graph.run_text("MATCH ()-[r:RELATES_TO]->() RETURN properties(r) AS p", {}, write=False)
        assert dict(got["p"]) == {k: v for k, v in new.items() if v is not None}, (before, after)


async def test_the_unscored_write_sets_every_combination_of_properties(graph):
    """edge_labels_set (a labels-only edge; a rollback of what an edge held without a score) from
    an edge holding nothing or trust, with every combination of the optional properties, to every
    combination of the properties it sets (with or without the run that wrote it, as sync writes a
    labels-only edge): the edge holds exactly what the write says, and no trust_score."""
    import itertools

    from graph_trust.sync.writer import write_edge_rows

    optional = ("memory_type", "sensitivity", "scope")
    unscored = ("trust_status", "memory_type", "sensitivity", "scope")
    for scored, before, (marked, *after) in itertools.product(
            [False, True], itertools.product([False, True], repeat=3), itertools.product([False, True], repeat=5)):
        if not any(after):
            continue  # nothing to set: that is a clear (edge_trust_clear)
        await graph.run_text("MATCH (n) DETACH DELETE n", {}, write=True)
        trust = {"trust_score": 0.25, "trust_status": "candidate", "trust_run_id": "r0", "trust_updated_at": "t0"}
        old = {"uuid": "e", **(trust if scored else {}), **{p: f"old {p}" for p, has in zip(optional, before) if has}}
        await graph.run_text("CREATE (:Entity {uuid: 'a'})-[r:RELATES_TO]->(:Entity {uuid: 'b'}) SET r = $p",
                             {"p": old}, write=True)
        new = {"uuid": "e", "trust_score": None, "trust_run_id": "r1" if marked else None,
               "trust_updated_at": "t1" if marked else None,
               **{p: (f"new {p}" if has else None) for p, has in zip(unscored, after)}}
        assert await write_edge_rows(graph, [new], []) == {"e"}
        (got,) = await graph.run_text("MATCH ()-[r:RELATES_TO]->() RETURN properties(r) AS p", {}, write=False)
        assert dict(got["p"]) == {k: v for k, v in new.items() if v is not None}, (scored, before, marked, after)
