"""Agents flag, people decide (the MCP tool flag_fact), and the retrieval log: what search, context
and the MCP tools return is counted per day, group, fact, interface and rank in the review DB,
batched, pruned by age, off with one setting; ``graph-trust review log`` summarises it."""

from __future__ import annotations

import json
import sys
import time
from datetime import UTC, datetime, timedelta

import pytest
from cli_helpers import clean_env, run_cli
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from sync_fixtures import FACTS, build, row

from graph_trust import api
from graph_trust.access.trust_context import TrustContext
from graph_trust.errors import ConfigError, InputError, NotFoundError
from graph_trust.review.db import ReviewConn
from graph_trust.review.flags import open_flags
from graph_trust.review.log import RetrievalLog, returns_of, searches, summary, uses, writer_for
from graph_trust.sync.review_db import insert_rows


def _data(result) -> dict:
    err = getattr(result, "is_error", None) if hasattr(result, "is_error") else getattr(result, "isError", None)
    assert not err, result.content
    return json.loads(result.content[0].text)


@pytest.fixture
async def world(graph, settings, review_url, unique):
    group = f"g_{unique}"
    uuids = await build(graph, group)
    u = [uuids[f.fact] for f in FACTS]
    api.init_review_db(review_url)
    insert_rows(review_url, [row("c1", u[0], "candidate", group)])
    settings.review.url = review_url
    return graph, settings, review_url, group, u


def log_rows(url: str) -> list[tuple]:
    with ReviewConn.open(url) as conn:
        return conn.query("SELECT day, group_id, edge_uuid, interface, rank, hits FROM retrieval_log ORDER BY 3, 4, 5")


async def test_mcp_flag_fact_and_logged_tools(world):
    graph, settings, url, group, u = world
    env = clean_env()
    env["GRAPH_TRUST_STATE_DIR"] = str(settings.state_dir)
    params = StdioServerParameters(command=sys.executable, env=env, args=[
        "-m", "graph_trust", "mcp", "--graph", settings.graph.uri, "--agent", "bot-1", "--review-db", url])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name for t in (await session.list_tools()).tools}
        assert "flag_fact" in tools and not tools & {"promote", "reject", "corroborate", "expire", "review_decide"}
        found = _data(await session.call_tool("search_facts", {"query": "billing-db backup", "group": group}))
        top = [f["id"] for f in found["facts"]]
        _data(await session.call_tool("get_context", {"query": "billing-db backup", "group": group}))
        flagged = _data(await session.call_tool("flag_fact", {"id": u[3], "reason": "port changed to 9443"}))
        assert flagged["agent"] == "bot-1" and flagged["edge_uuid"] == u[3]
        again = _data(await session.call_tool("flag_fact", {"id": "c1", "reason": "stale"}))
        assert again["candidate_id"] == "c1" and again["edge_uuid"] == u[0]
        bad = await session.call_tool("flag_fact", {"id": "no-such-fact", "reason": "x"})
        assert getattr(bad, "is_error", getattr(bad, "isError", False)) and "no-such-fact" in bad.content[0].text
    # the server exited: its log writer flushed at exit
    rows = log_rows(url)
    mcp = [(r[2], r[4]) for r in rows if r[3] == "mcp"]
    assert [(uuid, rank) for uuid, rank in mcp if uuid in top[:3]]  # search_facts' top facts, with their ranks
    assert {r[1] for r in rows} == {group} and all(r[5] >= 1 for r in rows)
    with ReviewConn.open(url) as conn:
        flags = open_flags(conn)
    assert [(f["target"], f["agent"]) for f in flags] == [(u[3], "bot-1"), ("c1", "bot-1")]
    # a reviewer's decision resolves the fact's flags
    await api.review_decide(settings, "reject", [u[3]], actor="alice", reason="confirmed the move", graph=graph)
    with ReviewConn.open(url) as conn:
        assert [f["target"] for f in open_flags(conn)] == ["c1"]


async def test_flag_needs_the_servers_agent(world):
    graph, settings, url, group, u = world
    with pytest.raises(ConfigError, match="mcp.agent"):
        await api.flag_fact(settings, u[1], "why", graph=graph)
    with pytest.raises(InputError, match="reason"):
        await api.flag_fact(settings, u[1], " ", agent="bot", graph=graph)
    with pytest.raises(NotFoundError):
        await api.flag_fact(settings, "nope", "x", agent="bot", graph=graph)


async def test_search_and_context_are_logged_with_ranks(world):
    graph, settings, url, group, u = world
    settings.review.log_flush_s = 3600  # (no timed flush: the test flushes)
    results = await api.search(settings, "billing-db", groups=[group])
    ctx = await api.context(settings, "billing-db", trust_context=TrustContext.unrestricted(), groups=[group])
    writer = writer_for(settings.review)
    assert writer.flush() > 0
    rows = log_rows(url)
    got = {(r[2], r[3]): r[4] for r in rows}
    for rank, e in enumerate(results.edges, start=1):
        assert got[(e.uuid, "search")] == rank
    assert {i.record.uuid for i in ctx.items if i.record.kind == "edge"} == {r[2] for r in rows if r[3] == "context"}
    # the same search again adds to the counts, no new rows
    await api.search(settings, "billing-db", groups=[group])
    writer.flush()
    again = log_rows(url)
    assert len(again) == len(rows) and sum(r[5] for r in again) == sum(r[5] for r in rows) + len(results.edges)
    with ReviewConn.open(url) as conn:
        assert conn.query("SELECT count(*) FROM retrieval_queries")[0][0] == 0  # no query text by default


def test_log_off_queries_on_pruning_and_summary(review_url, settings):
    api.init_review_db(review_url)
    settings.review.url = review_url
    settings.review.log = False
    assert writer_for(settings.review) is None
    w = RetrievalLog(review_url, batch=1000, retention_days=30, log_queries=True, background=False)
    now = time.time()
    old = now - 40 * 86400
    w.record("search", [("e1", "g"), ("e2", "g")], query="q one", groups=["g"], at=old)
    w.record("mcp", [("e2", "g"), ("e1", None)], query="q two", at=now)
    w.record("context", [("e1", "g")], at=now)
    w.flush()  # the first flush prunes: the 40-day-old returns are gone
    rows = log_rows(review_url)
    assert {(r[2], r[3], r[4]) for r in rows} == {("e2", "mcp", 1), ("e1", "mcp", 2), ("e1", "context", 1)}
    with ReviewConn.open(review_url) as conn:
        assert [q[0] for q in conn.query("SELECT query FROM retrieval_queries ORDER BY id")] == ["q two"]
        s = summary(conn, days=7)
        got = uses(conn, days=365, half_life_days=30, top_ranks=1)
        seen = returns_of(conn, "e1", days=7)
    assert s["returns"] == 3 and s["by_interface"] == {"context": 1, "mcp": 2} and s["facts"] == 2
    assert [(r["interface"], r["rank"], r["hits"]) for r in seen["returns"]] == [("context", 1, 1), ("mcp", 2, 1)]
    assert [(q["query"], q["rank"]) for q in seen["queries"]] == [("q two", 2)]
    assert set(got) == {"e1", "e2"} and got["e1"].returns == 1  # (top_ranks 1: e1's rank-2 return is not counted)
    with pytest.raises(ValueError, match="interface"):
        w.record("shell", [("e1", "g")])
    cli = run_cli("review", "log", "--review-db", review_url, "--days", "7", "--json",
                  env={"GRAPH_TRUST_STATE_DIR": str(settings.state_dir)})
    assert cli.code == 0, cli.err
    assert cli.json()["returns"] == 3


def test_a_review_db_without_the_log_table_costs_one_warning(tmp_path, caplog):
    from graph_trust.sync.review_db import init_review_db
    db = tmp_path / "old.sqlite3"
    init_review_db(db)  # candidates only: no review tables
    w = RetrievalLog(db, background=False)
    w.record("search", [("e1", "g")])
    assert w.flush() == 0 and "review init" in caplog.text
    w.record("search", [("e1", "g")])
    assert w.flush() == 0 and caplog.text.count("retrieval log not written") == 1


def test_uses_weigh_rank_and_age(review_url):
    api.init_review_db(review_url)
    w = RetrievalLog(review_url, background=False)
    now = datetime.now(UTC)
    for days, rank in ((0, 1), (30, 1), (0, 4)):
        t = (now - timedelta(days=days)).timestamp()
        w.record("search", [(f"x{i}", "g") for i in range(rank - 1)] + [("e", "g")], at=t)
    w.flush()
    with ReviewConn.open(review_url) as conn:
        got = uses(conn, days=365, half_life_days=30, top_ranks=10, today=now)
    e = got["e"]
    assert e.returns == 3 and e.best_rank == 1
    assert e.weighted == pytest.approx(1 + 0.5 + 0.25)  # today at rank 1, a half-life ago at 1, today at 4
    # the searches it answered first, weighed by age; the log's searches: e's two and x0's one (today)
    assert e.firsts == pytest.approx(1 + 0.5) and got["x0"].firsts == pytest.approx(1) and got["x1"].firsts == 0
    assert searches(got) == pytest.approx(2.5)
