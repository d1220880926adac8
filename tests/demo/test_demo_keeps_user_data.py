"""The demo never destroys user data: its review DB has every table from the first run (the
getting-started steps need no `review init`), and a second `graph-trust demo` keeps each review
decision, retrieval-log row, flag and confidence row a user added, and its sync applies the
user's decisions instead of undoing them; `--reset` starts afresh."""

from __future__ import annotations

import asyncio
import sqlite3

from cli_helpers import run_cli

from graph_trust import api
from graph_trust.config import load_settings

EDGE = "a8899e18-1d6e-54d7-ad77-a4389bef44fc"  # the 03:00 backup fact: cand-0001 (promoted) and cand-0015 cite it
QUERY = "when does the billing database backup run"  # a demo query: the fact is in its boosted list


def _counts(db) -> dict[str, object]:
    con = sqlite3.connect(db)
    try:
        return {"decisions": con.execute("SELECT count(*) FROM review_decisions").fetchone()[0],
                "flags": con.execute("SELECT count(*) FROM review_flags WHERE resolved_at IS NULL").fetchone()[0],
                "log": con.execute("SELECT count(*) FROM retrieval_log").fetchone()[0],
                "votes": con.execute("SELECT count(*) FROM fact_votes").fetchone()[0],
                "status": dict(con.execute("SELECT id, status FROM candidates WHERE id IN "
                                           "('cand-0001', 'cand-0015', 'cand-0002')").fetchall())}
    finally:
        con.close()


def _trust_in_report(rep) -> float | None:
    q = next(q for q in rep["queries"] if q["query"] == QUERY)
    return next(b["trust_score"] for b in q["boosted"] if b["uuid"] == EDGE)


def test_a_second_demo_keeps_decisions_log_flags_and_confidence_rows(tmp_path):
    d = tmp_path
    first = run_cli("demo", "--json", cwd=d)
    assert first.code == 0, first.err
    assert _trust_in_report(first.json()) == 1.0
    db = d / ".graph-trust" / "demo-review.sqlite3"
    env = {"GRAPH_TRUST_REVIEW_DB": str(db)}
    # the getting-started steps, with no `review init`
    r = run_cli("review", "reject", "cand-0001", "--actor", "bob", "--reason", "the backup moved", cwd=d, env=env)
    assert r.code == 0, r.err
    assert run_cli("vote", "cand-0002", "agree", "--confidence", "0.9", "--by", "ops-bot", cwd=d, env=env).code == 0
    assert run_cli("search", QUERY, "--limit", "3", cwd=d, env=env).code == 0  # logged (review.log)
    settings = load_settings(overrides={"review.url": str(db)}, config_path=None, environ={})
    asyncio.run(api.flag_fact(settings, "cand-0002", "the port looks old", agent="ops-bot"))
    before = _counts(db)
    assert before["decisions"] == 2 and before["flags"] == 1 and before["log"] >= 1 and before["votes"] == 1
    assert before["status"]["cand-0001"] == before["status"]["cand-0015"] == "rejected"

    again = run_cli("demo", "--json", cwd=d)
    assert again.code == 0, again.err
    assert _counts(db) == before  # every row the user added, as it was
    assert _trust_in_report(again.json()) == 0.0  # the demo's sync applied the rejection, did not undo it
    text = run_cli("demo", cwd=d)
    assert text.code == 0 and "review DB .graph-trust/demo-review.sqlite3 kept" in text.out and "--reset" in text.out
    assert _counts(db)["decisions"] == 2
    assert run_cli("verify", "--review-db", str(db), cwd=d).code == 0  # the graph says what the review DB says

    reset = run_cli("demo", "--reset", "--json", cwd=d)
    assert reset.code == 0, reset.err
    after = _counts(db)
    assert (after["decisions"], after["flags"], after["log"], after["votes"]) == (0, 0, 0, 0)
    assert after["status"]["cand-0001"] == "promoted" and _trust_in_report(reset.json()) == 1.0
