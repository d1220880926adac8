"""The MCP server round trip: the SDK's own client against ``graph-trust mcp`` as a subprocess."""

from __future__ import annotations

import json
import sys

import pytest
from test_policy_graph import QUERY, _save

pytest.importorskip("mcp")
from cli_helpers import clean_env
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402


def _field(obj, snake: str, camel: str):
    """mcp 2 names fields in snake_case, mcp 1 in camelCase."""
    return getattr(obj, snake, None) if hasattr(obj, snake) else getattr(obj, camel, None)


def _is_error(result) -> bool:
    return bool(_field(result, "is_error", "isError"))


def _data(result) -> dict:
    assert not _is_error(result), result.content
    structured = _field(result, "structured_content", "structuredContent")
    return structured if structured else json.loads(result.content[0].text)


@pytest.fixture
async def facts(graph, unique):
    group = f"g_{unique}"
    return group, await _save(graph.for_group(group).driver, group)


async def _session_calls(settings, group, *extra):
    env = clean_env()
    env["GRAPH_TRUST_STATE_DIR"] = str(settings.state_dir)
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "graph_trust", "mcp", "--graph", settings.graph.uri, *extra], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name: t for t in (await session.list_tools()).tools}
        prompt = _data(await session.call_tool("get_context", {"query": QUERY, "group": group}))
        payload = _data(await session.call_tool("get_context", {"query": QUERY, "group": group, "format": "payload"}))
        search = _data(await session.call_tool("search_facts", {"query": QUERY, "group": group, "limit": 10}))
        # An agent passing a clearance gets an error: the tools take no such argument.
        raised = await session.call_tool("get_context", {"query": QUERY, "group": group,
                                                         "max_sensitivity": "hyper"})
        return tools, prompt, payload, search, raised


async def test_mcp_round_trip_with_the_servers_clearance(settings, facts):
    group, uuids = facts
    tools, prompt, payload, search, raised = await _session_calls(settings, group, "--actor", "bot",
                                                                  "--max-sensitivity", "medium")
    assert {"search_facts", "get_context"} <= set(tools)
    schema = _field(tools["get_context"], "input_schema", "inputSchema")
    assert "query" in schema["properties"] and "max_sensitivity" not in schema["properties"]
    assert prompt["prompt"].startswith("## Relevant Context") and "_Retrieved " in prompt["prompt"]
    ids = {m["id"] for m in payload["memories"]}
    assert uuids["root"] not in ids  # hyper: denied for a medium clearance
    key = next(m for m in payload["memories"] if m["id"] == uuids["key"])
    assert key["content"] == "[REDACTED]"
    assert payload["metadata"]["total_tokens"] <= payload["metadata"]["config"]["max_tokens"]
    found = {f["id"]: f for f in search["facts"]}
    assert uuids["root"] not in found and search["denied"] >= 1
    assert found[uuids["key"]]["fact"] == "[REDACTED]"
    assert "example.com" not in json.dumps(search) and found[uuids["pii"]]["was_redacted"]
    assert found[uuids["instr"]]["explanation"]["final"] > 0
    shown = [f["explanation"] for f in search["facts"] if f["explanation"] is not None]
    finals = [e["final"] for e in shown]
    assert finals == sorted(finals, reverse=True)  # scores follow the order, as in search --json
    assert all({"moved_by", "score_before_move", "negative", "relation_bonus"} <= set(e) for e in shown)
    assert all((e["moved_by"] is None) == (e["score_before_move"] is None) for e in shown)
    text = json.dumps([prompt, payload, search])
    assert "root password" not in text and "vault kv/billing" not in text
    # Unknown arguments are rejected or ignored: either way nothing above the clearance leaks.
    assert _is_error(raised) or "root password" not in json.dumps(_data(raised))


async def test_mcp_high_clearance_sees_more(settings, facts):
    group, uuids = facts
    _, _, payload, search, _ = await _session_calls(settings, group, "--max-sensitivity", "high")
    key = next(m for m in payload["memories"] if m["id"] == uuids["key"])
    assert "vault kv/billing" in key["content"]
    root = next(f for f in search["facts"] if f["id"] == uuids["root"])  # hyper: one above high
    assert root["fact"] == "[REDACTED]" and root["was_redacted"]
