"""The demo as an agent sees it: after `graph-trust demo`, with the default configuration,
`context` (block and policy), and the MCP tools `get_context` and `search_facts` (through the
MCP SDK's own client) give each demo query's promoted answer first; the bundled sample's
sensitivity labels and memory types are ones the default configuration knows."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from cli_helpers import clean_env, run_cli

from graph_trust.access.sensitivity import scale_of
from graph_trust.config import load_settings
from graph_trust.demo.sample import demo_queries, sample_review_rows
from graph_trust.search.records import known_memory_types

# The promoted side of each demo query's contradiction (build_sample.py's plan), in demo_queries() order.
PROMOTED = {
    "when does the billing database backup run": "The billing database backup runs at 03:00 UTC.",
    "which port does the auth service listen on": "The auth service listens on port 8443 (TLS).",
    "who owns the payments api": "payments-api is owned by the Checkout Team.",
}


def test_the_sample_uses_labels_and_types_the_defaults_know():
    settings = load_settings(environ={})
    scale, types = scale_of(settings), set(known_memory_types(settings))
    rows = sample_review_rows()
    assert all(scale.known(r["sensitivity"]) for r in rows)
    assert all(r["memory_type"] in types for r in rows)
    # with the default clearance every reviewed fact is shown in full
    medium = scale.level(settings.context.max_sensitivity)
    assert all(scale.level(r["sensitivity"]) <= medium for r in rows)
    assert set(PROMOTED) == set(demo_queries())


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("demo_agents")
    r = run_cli("demo", "--json", cwd=d)
    assert r.code == 0, r.err
    return d


def test_context_gives_the_promoted_answer_first(demo_dir):
    for query, answer in PROMOTED.items():
        r = run_cli("context", query, "--actor", "alice", "--json", cwd=demo_dir)
        assert r.code == 0, r.err
        data = r.json()
        assert data["records"][0]["text"] == answer, (query, [x["text"] for x in data["records"][:3]])
        assert data["counts"]["denied"] == 0 and data["counts"]["unknown_label"] == 0
        policy = run_cli("context", query, "--actor", "alice", "--policy", "--json", cwd=demo_dir)
        assert policy.code == 0, policy.err
        memories = policy.json()["memories"]
        assert memories[0]["content"] == answer and memories[0]["review_status"] == "promoted"
    query, answer = next(iter(PROMOTED.items()))  # the text forms of one query
    text = run_cli("context", query, "--actor", "alice", cwd=demo_dir)
    assert text.code == 0 and text.out.splitlines()[1].startswith(f"- [fact|trust:100%] {answer}")
    block = run_cli("context", query, "--actor", "alice", "--policy", cwd=demo_dir)
    assert block.code == 0 and block.out.splitlines()[3].startswith(f"- {answer} (confidence: ")


async def test_mcp_tools_give_the_promoted_answer_first(demo_dir):
    pytest.importorskip("mcp")
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = clean_env()
    params = StdioServerParameters(command=sys.executable, args=["-m", "graph_trust", "mcp", "--actor", "bot"],
                                   env=env, cwd=str(demo_dir))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for query, answer in PROMOTED.items():
            got = await session.call_tool("get_context", {"query": query, "format": "payload"})
            assert not got.is_error, got.content
            payload = json.loads(got.content[0].text)
            assert payload["memories"][0]["content"] == answer
            found = await session.call_tool("search_facts", {"query": query, "limit": 5})
            assert not found.is_error, found.content
            facts = json.loads(found.content[0].text)
            assert facts["facts"][0]["fact"] == answer and facts["facts"][0]["explanation"]["rank"] == 1
            assert facts["denied"] == 0 and facts["unknown_label"] == 0
