"""The queue explores as well as exploits: every undecided fact is ranked, logged or not, by
priors where the log has nothing (generated graphs and logs: unseen subjects, no log at all, a
log covering everything, ties), in one order per state; ``review skip``; and trust_search feeding
the retrieval log."""

from __future__ import annotations

import random
import time
from datetime import UTC

from builders import Fact
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from sync_fixtures import build

from graph_trust import api
from graph_trust.config import ReviewQueueSettings
from graph_trust.review.db import ReviewConn
from graph_trust.review.log import RetrievalLog, Use
from graph_trust.review.queue import rank
from graph_trust.review.rules import DECISIVE, QueueInputs, SlotEdge

TIERS = {"promoted": 1.0, "corroborated": 0.6, "candidate": 0.25, "rejected": 0.0, "expired": 0.0}


@st.composite
def worlds(draw):
    """A graph of subjects and slots (values, validity, times often tied), review statuses, and a log
    that covers none, some or all of the facts (``mode``)."""
    mode = draw(st.sampled_from(["none", "some", "all"]))
    inp = QueueInputs(tiers=TIERS, now=2000 * 86400.0)
    n = 0
    for s in range(draw(st.integers(1, 6))):
        for p in range(draw(st.integers(1, 3))):
            for _ in range(draw(st.integers(1, 3))):
                k = f"e{n:03d}"
                n += 1
                day = draw(st.none() | st.sampled_from([0, 100, 100, 500, 1500]))
                inp.slots.append(SlotEdge(k, "g", f"s{s}", f"P{p}", f"v{draw(st.integers(0, 2))}", None, None,
                                          draw(st.integers(0, 4)) > 0, None if day is None else day * 86400.0))
                status = draw(st.sampled_from([None, None, "candidate", "corroborated", "promoted", "rejected"]))
                if status:
                    inp.reviews[k] = [(f"c-{k}", status)]
                if mode == "all" or (mode == "some" and draw(st.booleans())):
                    w = draw(st.sampled_from([1.0, 1.0, 2.5]))
                    inp.uses[k] = Use(k, "g", 1, w, 1, "2026-11-01", w)
                if draw(st.integers(0, 5)) == 0:
                    inp.confidences[k] = draw(st.sampled_from([0.1, 0.4, 0.9]))
    return inp


def shuffled(inp: QueueInputs, seed: int) -> QueueInputs:
    """The same state, read in another order (as another graph read or DB scan may return it)."""
    rng = random.Random(seed)
    slots = inp.slots[:]
    rng.shuffle(slots)
    uses = list(inp.uses.items())
    rng.shuffle(uses)
    reviews = list(inp.reviews.items())
    rng.shuffle(reviews)
    return QueueInputs(uses=dict(uses), reviews=dict(reviews), tiers=inp.tiers, slots=slots,
                       confidences=dict(inp.confidences), now=inp.now)


@given(worlds(), st.integers(0, 1000))
@hsettings(max_examples=200, deadline=None)
def test_every_undecided_fact_is_ranked_in_one_order_per_state(inp, seed):
    cfg = ReviewQueueSettings()
    items = rank(inp, cfg)
    undecided = {e.uuid for e in inp.slots if inp.status(e.uuid) not in DECISIVE}
    # the queue never runs out while a fact is undecided; a decided one is listed only where its slot
    # holds several verified values (which comes first is still open)
    assert {i.key for i in items} >= undecided
    assert all({r["rule"] for r in i.reasons} == {"contested_slot"} for i in items if i.key not in undecided)
    # the order: priority, then the key (ties, e.g. facts nobody searched with the same priors)
    assert [(-i.priority, i.key) for i in items] == sorted((-i.priority, i.key) for i in items)
    # deterministic: the same state read in another order ranks the same
    assert [(i.key, i.priority) for i in rank(shuffled(inp, seed), cfg)] == [(i.key, i.priority) for i in items]
    # the limit keeps the head of the same order
    assert [i.key for i in rank(inp, cfg, limit=3)] == [i.key for i in items[:3]]


@given(worlds())
@hsettings(max_examples=150, deadline=None)
def test_facts_no_search_returned_are_ranked_by_priors(inp):
    """Unseen subjects: with the log's evidence removed for a subject, its undecided valid facts still
    get a positive priority (centrality prior), and with no log at all every such fact does."""
    cfg = ReviewQueueSettings()
    for e in inp.slots:
        if e.subject_uuid == "s0":
            inp.uses.pop(e.uuid, None)
    pr = {i.key: i.priority for i in rank(inp, cfg)}
    unseen = [e for e in inp.slots if e.subject_uuid == "s0" and e.valid and inp.status(e.uuid) not in DECISIVE
              and inp.status(e.uuid) != "promoted"]
    if inp.uses and not any(u.firsts for u in inp.uses.values()):
        return  # a log of deeper ranks only gives the prior no unit
    for e in unseen:
        assert pr[e.uuid] > 0, e


def test_a_contested_slot_of_an_unsearched_subject_outranks_a_plain_fact():
    slots = [SlotEdge("a1", "g", "seen", "OWNER", "t1", None, None, True, 0.0),
             SlotEdge("b1", "g", "unseen", "PORT", "80", None, None, True, 100 * 86400.0),
             SlotEdge("b2", "g", "unseen", "PORT", "81", None, None, True, 101 * 86400.0),
             SlotEdge("c1", "g", "unseen", "OWNER", "t2", None, None, True, 101 * 86400.0)]
    inp = QueueInputs(uses={"a1": Use("a1", "g", 3, 3.0, 1, "2026-11-01", 3.0)}, tiers=TIERS, slots=slots,
                      now=102 * 86400.0)
    items = rank(inp, ReviewQueueSettings())
    assert items[0].key == "b2"  # the value shown first of a contested slot nobody searched
    assert {r["rule"] for r in items[0].reasons} >= {"contested_slot", "centrality"}
    assert {i.key for i in items} == {"a1", "b1", "b2", "c1"}


FACTS = [Fact("svc", "LISTENS_ON", "80", "svc listens on port 80"),
         Fact("svc", "OWNED_BY", "team-a", "svc is owned by team-a")]


async def test_skip_holds_a_fact_back_until_new_evidence_or_undo(graph, settings, tmp_path, unique):
    group = f"g_{unique}"
    uuids = await build(graph, group, FACTS)
    port, owner = uuids[FACTS[0].fact], uuids[FACTS[1].fact]
    review = tmp_path / "review.sqlite3"
    api.init_review_db(review)
    settings.review.url = str(review)

    async def keys() -> list[str]:
        return [i.key for i in await api.review_queue(settings, graph=graph, group=group)]

    assert set(await keys()) == {port, owner}  # no log at all: every undecided fact, by priors
    out = await api.review_skip(settings, [port], actor="alice", reason="need the vendor contract", graph=graph)
    batch = out["batch"]
    assert batch["batch_id"].startswith("skip-") and batch["action"] == "skip" and out["sync"] is None
    assert await keys() == [owner]
    hist = api.review_history(settings, port)
    assert hist[0]["action"] == "skip" and hist[0]["actor"] == "alice" and hist[0]["reason"] == "need the vendor contract"
    with ReviewConn.open(review) as conn:  # a skip changes no status: no review row was made
        assert conn.query("SELECT count(*) FROM candidates")[0][0] == 0
    # undo: offered again at once, and the undo is in the audit trail
    undone = await api.review_undo(settings, actor="alice", reason="looked again", batch_id=batch["batch_id"])
    assert undone["batch"]["undoes"] == batch["batch_id"] and set(await keys()) == {port, owner}
    assert api.review_history(settings, port)[0]["action"] == "undo"
    # skipped again: a flag after the skip is new evidence
    await api.review_skip(settings, [port], actor="alice", reason="still unsure", graph=graph)
    assert port not in await keys()
    settings.mcp.agent = "bot"
    await api.flag_fact(settings, port, "port moved to 8080", graph=graph)
    assert port in await keys()
    # a return on a later day is new evidence; one on the skip's own day is not
    await api.review_skip(settings, [owner], actor="alice", reason="unsure", graph=graph)
    log = RetrievalLog(review, background=False)
    log.record("search", [(owner, group)], at=time.time())
    log.flush()
    assert owner not in await keys()
    log.record("search", [(owner, group)], at=time.time() + 86400)
    log.flush()
    settings.review.queue.window_days = 365
    from datetime import datetime, timedelta

    from graph_trust.review import queue as queue_mod
    from graph_trust.review.candidates import open_candidates
    conn, cand = open_candidates(review, settings.review, readonly=True)
    try:
        inp = await queue_mod.gather(conn, cand, graph, settings.review.queue, settings.sync.tiers, group=group,
                                     today=datetime.now(UTC) + timedelta(days=1))
    finally:
        conn.close()
    assert owner not in inp.skipped
    # and after review.queue.skip_days the skip lapses
    settings.review.queue.skip_days = 1e-9
    assert set(await keys()) == {port, owner}


async def test_skip_of_an_unknown_fact_writes_nothing(graph, settings, tmp_path):
    review = tmp_path / "review.sqlite3"
    api.init_review_db(review)
    settings.review.url = str(review)
    import pytest

    from graph_trust.errors import NotFoundError
    with pytest.raises(NotFoundError, match="nothing was skipped"):
        await api.review_skip(settings, ["no-such-fact"], actor="alice", reason="x", graph=graph)
    with ReviewConn.open(review) as conn:
        assert conn.query("SELECT count(*) FROM review_skips")[0][0] == 0


async def test_skip_and_its_undo_through_the_page(page_world):
    import re

    from starlette.testclient import TestClient
    from sync_fixtures import FACTS as PAGE_FACTS

    w = page_world
    target = w.u(PAGE_FACTS[1])
    with TestClient(api.review_page_app(w.settings), base_url="http://127.0.0.1") as c:
        token = re.search(r'name="csrf_token" value="([^"]+)"', c.get(f"/fact/{target}").text).group(1)
        assert 'id="do-skip"' in c.get(f"/fact/{target}").text
        r = c.post(f"/fact/{target}/decide", data={"csrf_token": token, "action": "skip", "reason": "unsure"},
                   follow_redirects=False)
        assert r.status_code == 303 and "batch=skip-" in r.headers["location"]
        page = c.get(r.headers["location"]).text
        assert "Recorded: <strong>skip</strong>" in page and "looked, not decided" in page
        assert target not in {i.key for i in await api.review_queue(w.settings, group=None)}
        batch = re.search(r"batch=(skip-[^&]+)", r.headers["location"]).group(1)
        r = c.post("/undo", data={"csrf_token": token, "batch_id": batch, "back": target, "reason": "again"},
                   follow_redirects=False)
        assert r.status_code == 303
    assert target in {i.key for i in await api.review_queue(w.settings)}
    # an empty reason writes nothing
    with TestClient(api.review_page_app(w.settings), base_url="http://127.0.0.1") as c:
        token = re.search(r'name="csrf_token" value="([^"]+)"', c.get(f"/fact/{target}").text).group(1)
        r = c.post(f"/fact/{target}/decide", data={"csrf_token": token, "action": "skip", "reason": " "})
        assert r.status_code == 400 and "--reason must say why" in r.text


async def test_skip_fact_over_mcp_records_the_servers_agent(graph, settings, tmp_path, unique):
    import json
    import sys

    from cli_helpers import clean_env
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    group = f"g_{unique}"
    uuids = await build(graph, group, FACTS)
    port = uuids[FACTS[0].fact]
    review = tmp_path / "review.sqlite3"
    api.init_review_db(review)
    settings.review.url = str(review)
    env = clean_env()
    env["GRAPH_TRUST_STATE_DIR"] = str(settings.state_dir)
    params = StdioServerParameters(command=sys.executable, env=env, args=[
        "-m", "graph_trust", "mcp", "--graph", settings.graph.uri, "--agent", "bot-1", "--review-db", str(review)])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        assert "skip_fact" in {t.name for t in (await session.list_tools()).tools}
        res = await session.call_tool("skip_fact", {"id": port, "reason": "cannot tell from here"})
        out = json.loads(res.content[0].text)
        assert out["batch"]["actor"] == "bot-1" and out["batch"]["action"] == "skip"
        bad = await session.call_tool("skip_fact", {"id": "no-such-fact", "reason": "x"})
        assert getattr(bad, "is_error", getattr(bad, "isError", False)) and "no-such-fact" in bad.content[0].text
    assert port not in {i.key for i in await api.review_queue(settings, graph=graph, group=group)}
    assert api.review_history(settings, port)[0]["actor"] == "bot-1"


async def test_review_skip_and_queue_explain_on_the_command_line(graph, settings, tmp_path, unique):
    from cli_helpers import run_cli

    group = f"g_{unique}"
    uuids = await build(graph, group, FACTS)
    port = uuids[FACTS[0].fact]
    review = tmp_path / "review.sqlite3"
    api.init_review_db(review)
    env = {"GRAPH_TRUST_STATE_DIR": str(settings.state_dir), "GRAPH_TRUST_REVIEW_DB": str(review)}
    base = ("--graph", settings.graph.uri)
    r = run_cli("review", "queue", "--group", group, "--explain", *base, env=env)
    assert r.code == 0, r.err
    assert "= sum of weight x value" in r.out and "centrality" in r.out and port in r.out
    r = run_cli("review", "skip", port, "--actor", "alice", "--reason", "unsure", "--json", *base, env=env)
    assert r.code == 0, r.err
    batch = r.json()["batch"]["batch_id"]
    r = run_cli("review", "queue", "--group", group, "--json", *base, env=env)
    assert port not in {i["key"] for i in r.json()}
    r = run_cli("review", "skip", port, "--actor", "unknown", "--reason", "x", *base, env=env)
    assert r.code == 2 and "--actor must name who decides" in r.err
    r = run_cli("review", "undo", batch, "--actor", "alice", "--reason", "again", *base, env=env)
    assert r.code == 0 and f"undid {batch}" in r.out, r.err
    r = run_cli("review", "queue", "--group", group, "--json", *base, env=env)
    assert port in {i["key"] for i in r.json()}
