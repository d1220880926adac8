"""A bad argument is the same error on every interface: the library raises (InputError,
ConfigError), the CLI exits 2 with one line starting `error:`, the MCP server answers isError with
one line naming the argument (no pydantic URL). The policy's fallbacks are for the query's text
(INVALID_QUERY, skip) and the graph's failures. Also: the MCP server's version and the bounds its
tool schemas declare."""

from __future__ import annotations

import json
import re
import sys
from contextlib import asynccontextmanager

import pytest
from cli_helpers import clean_env, run_cli
from test_policy_graph import QUERY, facts  # noqa: F401 - facts: the shared fixture

from graph_trust import __version__, api
from graph_trust.access.trust_context import TrustContext
from graph_trust.context.service import ContextService
from graph_trust.errors import ConfigError, InputError
from graph_trust.mcp.server import search_facts_payload

MEDIUM = TrustContext("medium", True, "alice")
LONG_POLICY = "x" * 2001  # over policy.max_query_chars (2,000)
HUGE = "billing backup " * 7000  # 105,000 characters: over search.max_query_chars (8,192) too


async def test_the_library_raises_for_bad_arguments(settings, graph, facts):
    group, _ = facts
    svc = ContextService()
    for q in (None, 42, b"billing"):
        with pytest.raises(InputError, match="query must be text"):
            await svc.get_context(settings, q, trust_context=MEDIUM, groups=[group], connection=graph)
    for q, why in (("", "empty"), ("  ", "empty"), (LONG_POLICY, r"2,001 characters.*policy\.max_query_chars"),
                   (HUGE, "policy.max_query_chars"), ("\x01", "no searchable text"), ("\x1b _", "no searchable")):
        p = await svc.get_context(settings, q, trust_context=MEDIUM, groups=[group], connection=graph)
        assert (p.metadata.error_code, p.metadata.fallback, p.memories) == ("INVALID_QUERY", "skip", []), q
        assert re.search(why, p.metadata.reason), p.metadata.reason
    with pytest.raises(InputError, match="rank"):
        await svc.get_context(settings, QUERY, trust_context=MEDIUM, groups=[group], connection=graph, rank="best")
    with pytest.raises(InputError, match="groups"):
        await svc.get_context(settings, QUERY, trust_context=MEDIUM, groups=group, connection=graph)
    with pytest.raises(ConfigError, match=r"policy\.top_k"):
        await svc.get_context(settings, QUERY, trust_context=MEDIUM, groups=[group], connection=graph,
                              policy={"top_k": 0})
    for call in (api.context(settings, HUGE, trust_context=MEDIUM, groups=[group]),
                 api.search_visible(settings, HUGE, trust_context=MEDIUM, groups=[group])):
        with pytest.raises(InputError, match=r"search\.max_query_chars"):
            await call
    with pytest.raises(InputError, match="memory type 'bogus'.*known: instruction, system, fact"):
        await api.context(settings, QUERY, trust_context=MEDIUM, groups=[group], memory_types=["bogus"])
    for limit in (0, 51, True, "5"):
        with pytest.raises(ValueError, match="argument limit must be between 1 and 50"):
            await search_facts_payload(settings, MEDIUM, api.search_visible, QUERY, limit, group)
    with pytest.raises(ConfigError, match="argument min_confidence"):
        await search_facts_payload(settings, MEDIUM, api.search_visible, QUERY, 5, group, 1.5)
    # the graph's state, not bad input: a group that does not exist is the documented fallback
    p = await svc.get_context(settings, QUERY, trust_context=MEDIUM, groups=["nope"], connection=graph)
    assert (p.metadata.error_code, p.metadata.fallback, p.memories) == ("GROUP_NOT_FOUND", "empty", [])


def _one_error_line(r) -> str:
    assert r.code == 2 and r.out == "", (r.code, r.out, r.err)
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.err
    return lines[0]


def test_the_cli_exits_2_with_one_line(settings, facts):
    group, _ = facts
    base = ["--graph", settings.graph.uri, "--group", group]
    env = {"GRAPH_TRUST_STATE_DIR": str(settings.state_dir)}
    for args in (["context", HUGE], ["search", HUGE]):
        assert "search.max_query_chars" in _one_error_line(run_cli(*args, *base, env=env))
    for args in (["context", "\x01"], ["search", "\x1b"]):
        assert "no searchable text" in _one_error_line(run_cli(*args, *base, env=env))
    # the agent path (--policy): the reference's INVALID_QUERY fallback, one warning line, exit 0
    for q, why in ((HUGE, "policy.max_query_chars"), (" ", "query is empty"), ("\x7f", "no searchable text")):
        r = run_cli("context", q, "--policy", *base, env=env)
        assert r.code == 0 and r.err.startswith("warning: INVALID_QUERY (") and why in r.err, (r.code, r.err)
        assert r.err.strip().endswith("fallback: skip") and len(r.err.strip().splitlines()) == 1
    r = run_cli("context", LONG_POLICY, "--policy", "--json", *base, env=env)
    md = json.loads(r.out)["metadata"]
    assert r.code == 0 and (md["error_code"], md["fallback"]) == ("INVALID_QUERY", "skip") and "2,001" in md["reason"]
    line = _one_error_line(run_cli("context", QUERY, "--max-sensitivity", "secret", *base, env=env))
    assert "'secret'" in line and "public < low < medium < high < hyper" in line


def test_an_unknown_memory_type_is_an_error_listing_the_known_ones(settings, facts):
    group, _ = facts
    r = run_cli("context", QUERY, "--type", "bogus", "--graph", settings.graph.uri, "--group", group,
                env={"GRAPH_TRUST_STATE_DIR": str(settings.state_dir)})
    line = _one_error_line(r)
    assert "memory type 'bogus'" in line and "known: instruction, system, fact, goal, preference, observation" in line
    help_text = " ".join(run_cli("context", "--help").out.split())
    assert "instruction, system, fact, goal, preference, observation" in help_text  # the sample's "fact" among them


@asynccontextmanager
async def mcp_session(settings):
    pytest.importorskip("mcp")
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = clean_env()
    env["GRAPH_TRUST_STATE_DIR"] = str(settings.state_dir)
    params = StdioServerParameters(command=sys.executable, env=env,
                                   args=["-m", "graph_trust", "mcp", "--graph", settings.graph.uri])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        yield session, await session.initialize()


async def test_the_mcp_server_names_its_version(settings):
    async with mcp_session(settings) as (_, init):
        info = getattr(init, "server_info", None) or getattr(init, "serverInfo", None)
        assert info.name == "graph-trust" and info.version == __version__


async def test_the_mcp_tool_schemas_carry_the_bounds_the_tools_enforce(settings):
    async with mcp_session(settings) as (session, _):
        tools = {t.name: (getattr(t, "input_schema", None) or t.inputSchema) for t in (await session.list_tools()).tools}
        limit = tools["search_facts"]["properties"]["limit"]
        assert (limit["minimum"], limit["maximum"]) == (1, 50)
        unit = next(x for x in tools["search_facts"]["properties"]["min_confidence"]["anyOf"] if "minimum" in x)
        assert (unit["minimum"], unit["maximum"]) == (0, 1)
        vote = tools["vote"]["properties"]["confidence"]
        assert (vote["minimum"], vote["maximum"]) == (0, 1)
        days = next(x for x in tools["stale"]["properties"]["days"]["anyOf"] if "exclusiveMinimum" in x)
        assert days["exclusiveMinimum"] == 0


async def test_the_mcp_server_names_the_bad_argument(settings, facts):
    group, _ = facts
    async with mcp_session(settings) as (session, _):

        async def error(tool: str, args: dict) -> str:
            res = await session.call_tool(tool, args)
            is_error = getattr(res, "is_error", None)
            assert (is_error if is_error is not None else res.isError), res.content
            text = res.content[0].text
            assert "pydantic" not in text and "http" not in text and len(text.splitlines()) == 1, text
            return text

        assert "argument limit must be between 1 and 50 (got 500)" in await error(
            "search_facts", {"query": QUERY, "limit": 500})
        assert "argument limit" in await error("search_facts", {"query": QUERY, "limit": "many"})
        assert "argument min_confidence must be between 0 and 1 (got 2)" in await error(
            "search_facts", {"query": QUERY, "min_confidence": 2})
        assert "argument confidence must be between 0 and 1" in await error(
            "vote", {"fact_id": "f", "vote": "agree", "confidence": 1.5})
        assert "argument query is required" in await error("get_context", {})
        assert "there is no argument max_sensitivity" in await error(
            "get_context", {"query": QUERY, "max_sensitivity": "hyper"})
        text = await error("search_facts", {"query": "x" * 9000, "group": group})
        assert "query" in text and "9,000 characters" in text and "search.max_query_chars" in text
        assert "no searchable text" in await error("search_facts", {"query": "\x01", "group": group})
        assert "argument query" in await error("get_context", {"query": 42})
        for q, why in (("x" * 5000, "policy.max_query_chars"), (" ", "query is empty"), ("\x1b", "no searchable")):
            res = await session.call_tool("get_context", {"query": q, "group": group, "format": "payload"})
            md = json.loads(res.content[0].text)["metadata"]
            assert (md["error_code"], md["fallback"]) == ("INVALID_QUERY", "skip") and why in md["reason"], md
        ok = await session.call_tool("get_context", {"query": QUERY, "group": group, "format": "payload"})
        assert json.loads(ok.content[0].text)["memories"]
