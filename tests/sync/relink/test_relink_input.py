"""relink's bad input and CLI: missing fields, malformed evidence, read-only and locked
review DBs, an empty graph; ``graph-trust relink`` JSON and exit codes."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import tempfile
from pathlib import Path

import pytest
import yaml
from builders import Fact, build_graph  # noqa: E402
from migration_fixture import evidence_column, write_review_db  # noqa: E402

from graph_trust.cli.main import main  # noqa: E402
from graph_trust.clients.hashing import HashingEmbedder  # noqa: E402
from graph_trust.errors import ReviewDBError  # noqa: E402
from graph_trust.graph.connection import open_graph  # noqa: E402
from graph_trust.sync.relink import relink  # noqa: E402
from graph_trust.sync.relink import store as relink_store  # noqa: E402
from graph_trust.sync.store.relink_journal import JournalStore  # noqa: E402
from graph_trust.sync.store.state import StateStore  # noqa: E402

EMB = HashingEmbedder()
OLD = "00000000-0000-4000-8000-0000000000aa"


def _ev(uuid=OLD, **extra):
    return json.dumps([{"evidence_id": uuid, **extra}])


def _rows(group):
    return [
        ("ok", "Alice", "WORKS_AT", "Acme", "Alice works at Acme", "promoted", _ev(), group),
        ("no-subject", None, "WORKS_AT", "Acme", "Alice works at Acme", "promoted", _ev(), group),
        ("no-fact", "Alice", "LIKES", "Jazz", None, "candidate", _ev(), group),
        ("bad-json", "Alice", "WORKS_AT", "Acme", "x", "promoted", '[{"evidence_id": "a"', group),
        ("empty-list", "Alice", "WORKS_AT", "Acme", "x", "promoted", "[]", group),
        ("id-not-str", "Alice", "WORKS_AT", "Acme", "x", "promoted", '[{"evidence_id": 7}]', group),
        ("quotes", "O'Brien \"Bob\"", "KNOWS", "Alice\n}) DETACH DELETE n //", "O'Brien knows Alice", "candidate", _ev(), group),
    ]


@pytest.fixture
def world(settings, tmp_path, unique):
    """A graph group with a couple of edges and a review DB with bad rows."""
    group = f"in{unique}"

    async def build():
        async with open_graph(settings) as g:
            return await build_graph(g.for_group(group).driver, EMB, [
                Fact("Alice", "WORKS_AT", "Acme", "Alice works at Acme"),
                Fact("O'Brien \"Bob\"", "KNOWS", "Alice\n}) DETACH DELETE n //", "O'Brien knows Alice well"),
            ], group)

    uuids = asyncio.run(build())
    db = tmp_path / "review.sqlite3"
    write_review_db(db, _rows(group))
    cfg = tmp_path / "graph-trust.yaml"
    cfg.write_text(yaml.safe_dump({
        "graph": {"uri": settings.graph.uri, "database": settings.graph.database},
        "state_dir": str(settings.state_dir),
    }))
    return {"group": group, "db": db, "cfg": cfg, "uuids": uuids}


def _cli(capsys, *args):
    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def test_bad_rows_are_quarantined_or_unmatched_with_reasons(settings, world):
    report = asyncio.run(relink(settings, review_db=str(world["db"]), embedder=EMB))
    d = report.to_dict()
    quarantined = {q["id"]: q["reason"] for q in d["quarantined"]}
    assert set(quarantined) == {"bad-json", "empty-list", "id-not-str"}
    assert "malformed JSON" in quarantined["bad-json"] and "empty list" in quarantined["empty-list"]
    unmatched = {u["id"]: u["reason"] for u in d["unmatched"]}
    assert "no subject" in unmatched["no-subject"]
    assert "no fact" in unmatched["no-fact"]
    exact = {e["id"]: e["new_evidence_id"] for e in d["relinked_exact"]}
    assert exact == {"ok": world["uuids"]["Alice works at Acme"], "quotes": world["uuids"]["O'Brien knows Alice well"]}
    # the quarantine is recorded for the run, as sync records its own
    rows = StateStore.for_settings(settings).con.execute(
        "SELECT candidate_id FROM sync_quarantine WHERE run_id = ?", (report.run_id,)).fetchall()
    assert {r[0] for r in rows} == set(quarantined)
    after = evidence_column(world["db"])
    assert after["bad-json"] == '[{"evidence_id": "a"' and after["no-subject"] == _ev()


def test_cli_json_report_and_exit_code(capsys, world):
    code, out, err = _cli(capsys, "relink", "--config", str(world["cfg"]), "--review-db", str(world["db"]),
                          "--dry-run", "--json")
    assert code == 0, err
    d = json.loads(out)
    for key in ("orphaned", "relinked_exact", "relinked_similar", "ambiguous", "unmatched", "quarantined", "run_id"):
        assert key in d
    assert d["dry_run"] is True and len(d["relinked_exact"]) == 2
    # no candidate needed fact similarity: no group was checked, no embedder was called
    assert d["relinked_endpoints"] == [] and d["relinked_similar"] == [] and d["similarity"] == {}
    before = evidence_column(world["db"])
    code, out, err = _cli(capsys, "relink", "--config", str(world["cfg"]), "--review-db", str(world["db"]))
    assert code == 0 and "relinked: 2 exact" in out and "graph-trust rollback relink-" in out
    run_id = out.split("graph-trust rollback ")[1].split()[0]
    assert evidence_column(world["db"]) != before
    # listed by `graph-trust runs`, undone by `graph-trust rollback`
    code, out, err = _cli(capsys, "runs", "--config", str(world["cfg"]), "--json")
    assert code == 0 and run_id in {r["run_id"] for r in json.loads(out)}
    code, out, err = _cli(capsys, "rollback", run_id, "--config", str(world["cfg"]), "--json")
    assert code == 0, err
    assert json.loads(out)["restored"] == 2
    assert evidence_column(world["db"]) == before


def test_cli_empty_graph_warns_and_exits_0(capsys, world, tmp_path):
    cfg = yaml.safe_load(world["cfg"].read_text())
    db = tmp_path / "other.sqlite3"
    write_review_db(db, [("c1", "Zed", "KNOWS", "Yan", "Zed knows Yan", "promoted", _ev(), "nogroup_here")])
    code, out, err = _cli(capsys, "relink", "--config", str(world["cfg"]), "--review-db", str(db), "--json")
    assert code == 0
    assert "warning:" in err and "no RELATES_TO edges" in err
    d = json.loads(out)
    assert d["orphaned"] == 1 and [u["id"] for u in d["unmatched"]] == ["c1"] and d["written"] == 0
    assert cfg  # config unchanged


def test_locked_review_db_is_one_error_and_nothing_written(capsys, world):
    before = evidence_column(world["db"])
    holder = sqlite3.connect(world["db"], isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        code, out, err = _cli(capsys, "relink", "--config", str(world["cfg"]), "--review-db", str(world["db"]))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert code == 2
    assert err.startswith("error: review DB") and "locked" in err and len(err.strip().splitlines()) == 1
    assert evidence_column(world["db"]) == before


def test_lock_taken_between_matching_and_writing_leaves_db_and_journal_consistent(settings, world):
    db = relink_store.open_review_db(settings, world["db"])
    before = evidence_column(world["db"])
    holder = sqlite3.connect(world["db"], isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(ReviewDBError, match="locked"):
            relink_store.apply_relinks(db, "run-x", [("ok", OLD, "new-uuid")], {}, settings)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        db.close()
    assert evidence_column(world["db"]) == before
    store = JournalStore(settings)
    run = store.run("run-x")
    assert run is None or run["status"] == "failed"


def test_read_only_review_db_is_one_error_and_nothing_written(world):
    """A review DB the process may not write (file mode 0444, as an unprivileged user)."""
    d = Path(tempfile.mkdtemp(prefix="ro-review-"))
    try:
        db = d / "review.sqlite3"
        write_review_db(db, _rows(world["group"]))
        before = db.read_bytes()
        os.chmod(db, 0o444)
        os.chmod(d, 0o755)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # child: drop privileges if root (root ignores file modes), then try
            os.close(r)
            msg = "no error"
            try:
                if os.geteuid() == 0:
                    os.setgid(65534)
                    os.setuid(65534)
                from graph_trust.config import load_settings

                s = load_settings(overrides={"review.path": str(db), "state_dir": str(d / "state")}, environ={})
                asyncio.run(relink(s, embedder=EMB))
            except ReviewDBError as exc:
                msg = "ReviewDBError: " + str(exc)
            except BaseException as exc:  # noqa: BLE001
                msg = f"{type(exc).__name__}: {exc}"
            os.write(w, msg.encode())
            os._exit(0)
        os.close(w)
        with os.fdopen(r) as f:
            msg = f.read()
        os.waitpid(pid, 0)
        assert msg.startswith("ReviewDBError: ") and "read-only" in msg and "nothing was written" in msg, msg
        assert db.read_bytes() == before
    finally:
        os.chmod(d, 0o755)
        for p in sorted(d.rglob("*"), reverse=True):
            p.unlink() if p.is_file() else p.rmdir()
        d.rmdir()


def test_review_db_without_text_columns_names_them(settings, tmp_path):
    db = tmp_path / "narrow.sqlite3"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE candidates (id TEXT, status TEXT, evidence_refs_json TEXT, updated_at TEXT)")
    con.commit()
    con.close()
    with pytest.raises(ReviewDBError, match="neither a subject nor a fact column"):
        asyncio.run(relink(settings, review_db=str(db)))


def test_row_changed_between_matching_and_writing_is_a_conflict_not_overwritten(settings, world):
    db = relink_store.open_review_db(settings, world["db"])
    try:
        con = sqlite3.connect(world["db"])
        with con:
            con.execute("UPDATE candidates SET evidence_refs_json = ? WHERE id = 'ok'", (_ev("pipeline-fixed-it"),))
        con.close()
        written, conflicts = relink_store.apply_relinks(
            db, "relink-test-1", [("ok", OLD, "new-a"), ("quotes", OLD, "new-b")], {}, settings)
    finally:
        db.close()
    assert written == 1 and [c["id"] for c in conflicts] == ["ok"]
    after = evidence_column(world["db"])
    assert json.loads(after["ok"])[0]["evidence_id"] == "pipeline-fixed-it"
    assert json.loads(after["quotes"])[0]["evidence_id"] == "new-b"


def test_sync_relink_relinks_then_applies_trust(capsys, world):
    code, out, err = _cli(capsys, "sync", "--relink", "--config", str(world["cfg"]), "--review-db", str(world["db"]),
                          "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["relink"]["written"] == 2
    assert d["edges_set"] == 2  # the two relinked candidates' new edges got their trust
    assert not ({u["id"] if isinstance(u, dict) else u for u in d["unmatched"]} & {"ok", "quotes"})
