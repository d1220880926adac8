"""Decisions that are yours, on SQLite and PostgreSQL, with reviewers working at once (threads,
each with its own connection, as separate CLI invocations or page requests would):

- ``review undo`` without a batch id undoes the caller's own newest batch, never another
  reviewer's, however the reviewers' batches interleave;
- a decision carries the state its reviewer saw (a status, or the version the queue and the page
  show); two reviewers deciding the same fact from the same view: one decision is recorded, the
  other is refused with one line naming who changed the fact and when, and nothing of it is written.
"""

from __future__ import annotations

import random
import re
import threading

import pytest
from cli_helpers import run_cli
from starlette.testclient import TestClient
from sync_fixtures import row

from graph_trust import api
from graph_trust.config import load_settings
from graph_trust.errors import ChangedSinceError, InputError
from graph_trust.review import decisions
from graph_trust.review.candidates import open_candidates, resolve_table
from graph_trust.review.db import ReviewConn
from graph_trust.sync.review_db import insert_rows

REVIEWERS = ["alice", "bob", "carol", "dan"]
TIERS = {"promoted": 1.0, "corroborated": 0.6, "candidate": 0.25, "rejected": None, "expired": None}


def _settings(url: str):
    return load_settings(overrides={"review.url": url}, environ={})


def _at_once(calls: list) -> list:
    """Run ``calls`` in threads released together; their results (or exceptions) in order."""
    gate = threading.Barrier(len(calls))
    out: list = [None] * len(calls)

    def go(i: int) -> None:
        gate.wait()
        try:
            out[i] = calls[i]()
        except Exception as exc:  # noqa: BLE001 - returned to the test
            out[i] = exc

    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def _decide(url: str, action: str, ids: list[str], actor: str, expect: str | None = None):
    conn, cand = open_candidates(url, _settings(url).review)
    try:
        return decisions.decide(conn, cand, action, ids, actor=actor, reason="checked", tiers=TIERS, expect=expect)
    finally:
        conn.close()


def _version(url: str, target: str) -> str:
    """The version a reviewer looking at ``target`` now sees."""
    with ReviewConn.open(url) as conn:
        return decisions.version_of(decisions.rows_of(conn, resolve_table(conn, _settings(url).review), target))


def _undo(url: str, actor: str, batch_id: str | None = None):
    conn, cand = open_candidates(url, _settings(url).review)
    try:
        return decisions.undo(conn, cand, actor=actor, reason="mine", batch_id=batch_id)
    finally:
        conn.close()


@pytest.mark.parametrize("seed", range(3))
def test_concurrent_undos_each_undo_the_callers_own_newest_batch(review_url, seed):
    rnd = random.Random(seed)
    api.init_review_db(review_url)
    insert_rows(review_url, [row(f"c{i}", f"e{i}", "candidate", "g") for i in range(16)])
    mine: dict[str, list[str]] = {r: [] for r in REVIEWERS}
    for i in range(16):  # the reviewers' batches interleave at random
        who = rnd.choice(REVIEWERS)
        batch = _decide(review_url, rnd.choice(["corroborate", "reject", "expire"]), [f"c{i}"], who)
        mine[who].append(batch.batch_id)
    undoers = [r for r in REVIEWERS if mine[r]]
    rnd.shuffle(undoers)
    undoers = undoers[:max(2, len(undoers) - 1)]
    results = _at_once([lambda r=r: _undo(review_url, r) for r in undoers])
    for who, res in zip(undoers, results, strict=True):
        assert not isinstance(res, Exception), res
        assert res.actor == who and res.undoes == mine[who][-1]  # its own newest, nobody else's
    with ReviewConn.open(review_url) as conn:
        undone = {b for (b,) in conn.query("SELECT DISTINCT batch_id FROM review_decisions WHERE undone_by IS NOT NULL")}
    assert undone == {mine[w][-1] for w in undoers}
    # a reviewer with nothing of their own to undo is told so, and another's batch is undone by its id only
    with pytest.raises(InputError, match="no review decision of erin left to undo"):
        _undo(review_url, "erin")
    other = next(w for w in REVIEWERS if w not in undoers and mine[w]) if any(
        w not in undoers and mine[w] for w in REVIEWERS) else None
    if other is not None:
        assert _undo(review_url, "erin", mine[other][-1]).undoes == mine[other][-1]


@pytest.mark.parametrize("expect_by", ["status", "version"])
def test_two_reviewers_deciding_the_same_fact_from_the_same_view(review_url, expect_by):
    api.init_review_db(review_url)
    insert_rows(review_url, [row(f"c{i}", f"e{i}", "candidate", "g") for i in range(6)])
    for i in range(6):
        seen = _version(review_url, f"c{i}")
        expect = "candidate" if expect_by == "status" else seen
        results = _at_once([lambda: _decide(review_url, "reject", [f"c{i}"], "alice", expect),
                            lambda: _decide(review_url, "corroborate", [f"c{i}"], "bob", expect)])
        won = [r for r in results if not isinstance(r, Exception)]
        lost = [r for r in results if isinstance(r, Exception)]
        assert len(won) == 1 and len(lost) == 1 and isinstance(lost[0], ChangedSinceError), results
        winner = won[0]
        msg = str(lost[0])
        assert "\n" not in msg and f"c{i} changed since you saw it ({expect})" in msg
        assert f"changed by {winner.actor} ({winner.action}) at {winner.decided_at}" in msg
        assert f"it is {winner.decisions[0].new_status} now" in msg
        with ReviewConn.open(review_url) as conn:  # the loser wrote nothing
            trail = conn.query("SELECT actor FROM review_decisions WHERE candidate_id = ?", (f"c{i}",))
            assert trail == [(winner.actor,)]
    # without an expected state the decision goes through (the CLI's default), and a fresh view's does too
    assert _decide(review_url, "promote", ["c0"], "carol").decisions[0].previous_status in ("rejected", "corroborated")
    now = _version(review_url, "c0")
    assert _decide(review_url, "expire", ["c0"], "dan", now).decisions[0].previous_status == "promoted"
    # "unreviewed" is the state of a fact without a row: one with a row is not
    insert_rows(review_url, [row("c9", "e9", "candidate", "g")])
    with pytest.raises(ChangedSinceError, match=r"c9 changed since you saw it \(unreviewed\): it is candidate now"):
        _decide(review_url, "reject", ["c9"], "dan", "unreviewed")


def test_the_cli_refuses_a_decision_on_a_changed_fact(tmp_path):
    url = str(tmp_path / "review.sqlite3")
    api.init_review_db(url)
    insert_rows(url, [row("c1", "e1", "candidate", "g")])
    _decide(url, "reject", ["c1"], "alice")
    r = run_cli("review", "promote", "c1", "--actor", "bob", "--reason", "ok", "--expect", "candidate",
                "--review-db", url)
    assert r.code == 2 and r.out == ""
    line = r.err.strip()
    assert "\n" not in line and re.fullmatch(
        r"error: c1 changed since you saw it \(candidate\): it is rejected now, changed by alice \(reject\) at "
        r"\d{4}-\d\d-\d\dT[\d:.]+Z; nothing was decided \(see graph-trust review history c1, then decide again\)",
        line), line
    ok = run_cli("review", "promote", "c1", "--actor", "bob", "--reason", "ok", "--expect", "rejected",
                 "--review-db", url, "--json")
    assert ok.code == 0 and ok.json()["batch"]["decisions"][0]["previous_status"] == "rejected"


async def test_the_page_and_the_queue_carry_the_version_the_reviewer_saw(page_world):
    w = page_world
    items = await api.review_queue(w.settings, graph=w.graph)
    item = next(i for i in items if i.candidate_ids)
    target = item.edge_uuid
    with TestClient(api.review_page_app(w.settings), base_url="http://127.0.0.1") as c:
        page = c.get(f"/fact/{target}").text
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        version = re.search(r'name="expect" value="([^"]+)"', page).group(1)
        assert version == item.version  # the queue and the page see the same state
        # another reviewer decides it meanwhile (through the library, as the CLI would)
        await api.review_decide(w.settings, "reject", [target], actor="carol", reason="wrong", graph=w.graph)
        r = c.post(f"/fact/{target}/decide", data={"csrf_token": token, "expect": version, "action": "corroborate",
                                                   "reason": "seen"}, follow_redirects=False)
        assert r.status_code == 409 and "changed since you saw it" in r.text and "changed by carol (reject)" in r.text
        fresh = re.search(r'name="expect" value="([^"]+)"', c.get(f"/fact/{target}").text).group(1)
        assert fresh != version
        r = c.post(f"/fact/{target}/decide", data={"csrf_token": token, "expect": fresh, "action": "corroborate",
                                                   "reason": "seen"}, follow_redirects=False)
        assert r.status_code == 303
        # the page's undo offers, and undoes, the reviewer's (bob's) own batch, not carol's
        page = c.get(f"/fact/{target}").text
        assert "Undo your latest decision" in page
        r = c.post("/undo", data={"csrf_token": token, "reason": "mine"}, follow_redirects=False)
        assert r.status_code == 303
    trail = api.review_history(w.settings, target)
    undone = {row["actor"] for row in trail if row["undone_by"]}
    assert undone == {"bob"}
