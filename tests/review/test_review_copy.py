"""``graph-trust review copy SRC DST``: the demo's review DB with a retrieval log (and kept
queries), agent flags, decisions with an undo and confidence records goes SQLite -> PostgreSQL ->
SQLite with every table's rows equal; a second copy copies nothing new and says so; the copy on
PostgreSQL takes new decisions (its ids continue after the copied ones); rows the destination
holds are never overwritten. And the getting-started commands for a team's PostgreSQL in
docs/review.md run as written."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import clean_env, run_cli
from conftest import new_pg_database

from graph_trust import api
from graph_trust.config import load_settings
from graph_trust.demo.sample import sample_review_rows
from graph_trust.review import decisions, flags
from graph_trust.review.candidates import open_candidates
from graph_trust.review.copy import copy_tables
from graph_trust.review.db import ReviewConn
from graph_trust.review.log import RetrievalLog
from graph_trust.sync.review_db import insert_records, insert_rows

ROOT = Path(__file__).resolve().parents[2]
TIERS = {"promoted": 1.0, "corroborated": 0.6, "candidate": 0.25, "rejected": None, "expired": None}


def _filled(url: str) -> None:
    """The demo's review rows, a retrieval log with queries, flags, decisions and an undo, and
    confidence records."""
    api.init_review_db(url)
    rows = sample_review_rows()
    insert_rows(url, rows)
    settings = load_settings(overrides={"review.url": url}, environ={})
    ids = [r["id"] for r in rows]
    log = RetrievalLog(url, background=False, log_queries=True)
    for i in range(5):
        log.record("search", [(f"edge-{i}", "ops"), (f"edge-{i + 1}", "ops")], query=f"query {i}", groups=["ops"])
        log.record("mcp", [(f"edge-{i}", None)])
    log.close()
    conn, cand = open_candidates(url, settings.review)
    try:
        flags.flag(conn, cand, ids[0], "looks stale", agent="agent-7")
        flags.flag(conn, cand, ids[1], "contradicts the runbook", agent="agent-7")
        decisions.decide(conn, cand, "reject", ids[2:4], actor="alice", reason="wrong", tiers=TIERS)
        decisions.decide(conn, cand, "corroborate", [ids[1]], actor="bob", reason="seen", tiers=TIERS)
        decisions.undo(conn, cand, actor="alice", reason="too fast")
    finally:
        conn.close()
    insert_records(url, {"fact_sources": [{"fact_id": ids[0], "agent_id": "agent-7", "category": "ops",
                                           "created_at": "2026-01-01T00:00:00Z"}],
                         "fact_votes": [{"fact_id": ids[0], "agent_id": "v1", "vote": "agree", "confidence": 0.8,
                                         "voted_at": "2026-01-02T00:00:00Z"}]})


def _tables(url: str) -> dict[str, list[tuple]]:
    """Every table's rows (as text, sorted), the change marker left out (each DB keeps its own)."""
    with ReviewConn.open(url, readonly=True) as conn:
        out = {}
        for t in sorted(conn.tables() - {"graph_trust_changes"}):
            cols = list(conn.columns(t))
            out[t] = sorted(tuple("" if v is None else str(float(v)) if isinstance(v, float) else str(v) for v in r)
                            for r in conn.query(f'SELECT {", ".join(chr(34) + c + chr(34) for c in cols)} FROM "{t}"'))
        return out


def test_copy_round_trips_every_table_and_a_second_run_copies_nothing(pg_server, tmp_path, unique):
    src, back = str(tmp_path / "demo.sqlite3"), str(tmp_path / "back.sqlite3")
    pg = new_pg_database(pg_server, f"c_{unique}")
    _filled(src)
    before = _tables(src)
    assert all(before[t] for t in ("candidates", "review_decisions", "retrieval_log", "retrieval_queries",
                                   "review_flags", "fact_sources", "fact_votes"))
    r = run_cli("review", "copy", src, pg, "--json")
    assert r.code == 0, r.err
    out = r.json()
    counts = {t["table"]: t for t in out["tables"]}
    assert out["copied"] == sum(len(v) for v in before.values())
    for t, rows in before.items():
        assert counts[t]["source_rows"] == counts[t]["copied"] == len(rows), t
    assert _tables(pg) == before
    again = run_cli("review", "copy", src, pg)
    assert again.code == 0 and again.out.startswith("copied 0 row(s) from ") and "nothing new" in again.out
    settings = load_settings(environ={})
    rep = api.review_copy(settings, pg, back)
    assert rep.copied == out["copied"] and _tables(back) == before
    assert api.review_copy(settings, pg, back).copied == 0
    # the copy takes new decisions: its ids continue after the copied ones
    conn, cand = open_candidates(pg, settings.review)
    try:
        batch = decisions.decide(conn, cand, "promote", [before["candidates"][0][0]], actor="carol", reason="ok",
                                 tiers=TIERS)
        ids = [r[0] for r in conn.query("SELECT id FROM review_decisions ORDER BY id")]
    finally:
        conn.close()
    # a decision applies to the fact: one audit row for every candidate row citing its edge
    assert batch.decisions and len(ids) == len(set(ids)) == len(before["review_decisions"]) + len(batch.decisions)


def test_copy_keeps_the_destinations_rows_and_counts_the_differing_ones(tmp_path):
    src, dst = str(tmp_path / "a.sqlite3"), str(tmp_path / "b.sqlite3")
    api.init_review_db(src)
    api.init_review_db(dst)
    insert_rows(src, [{"id": "c1", "status": "promoted"}, {"id": "c2", "status": "candidate"}])
    insert_rows(dst, [{"id": "c1", "status": "rejected"}])
    settings = load_settings(environ={})
    rep = api.review_copy(settings, src, dst)
    cand = next(t for t in rep.tables if t.table == "candidates")
    assert (cand.source_rows, cand.copied, cand.already, cand.differing) == (2, 1, 1, 1)
    with ReviewConn.open(dst) as conn:
        assert dict(conn.query("SELECT id, status FROM candidates")) == {"c1": "rejected", "c2": "candidate"}
    with pytest.raises(Exception, match="same review DB"):
        api.review_copy(settings, src, src)
    missing = run_cli("review", "copy", str(tmp_path / "nowhere.sqlite3"), dst)
    assert missing.code == 2 and "does not exist" in missing.err
    with ReviewConn.open(src) as conn:  # a column the destination lacks: nothing of that table is copied
        conn.write(lambda c: c.execute("ALTER TABLE review_flags ADD COLUMN extra TEXT"))
    with pytest.raises(Exception, match=r"column\(s\) extra that .* lacks"):
        copy_tables(ReviewConn.open(src), ReviewConn.open(dst), ["review_flags"])


def _doc_block() -> str:
    text = (ROOT / "docs" / "review.md").read_text()
    m = re.search(r"<!-- runs as written: tests/review/test_review_copy.py -->\s*```bash\n(.*?)```", text, re.S)
    assert m, "docs/review.md lost its team PostgreSQL block"
    return m.group(1)


def test_the_team_postgresql_getting_started_runs_as_written(tmp_path):
    script = _doc_block()
    env = {**clean_env(), "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=900)
    try:
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        assert "review DB ready: postgresql://postgres@/postgres?host=" in proc.stdout
        assert re.search(r"copied \d+ row\(s\) from \.graph-trust/demo-review\.sqlite3 to postgresql://", proc.stdout)
    finally:
        pid_file = tmp_path / "team-pg" / "postmaster.pid"
        if pid_file.exists():  # (the block stops it; if it failed first, stop it here)
            os.kill(int(pid_file.read_text().split()[0]), signal.SIGTERM)
