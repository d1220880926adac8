"""One identity for a fact: every MCP tool that takes a fact accepts the ids ``search_facts``
returns (edge uuids) as well as review candidate ids, through the MCP SDK's own client; an
unknown id is an error naming both forms. The CLI commands that take a fact do the same."""

from __future__ import annotations

import json
import sqlite3

import pytest
from cli_helpers import run_cli
from paths import REPO
from test_mcp_confidence_tools import _error_text, _params, review  # noqa: F401 - review: the shared fixture
from test_mcp_server import _data
from test_policy_graph import QUERY

pytest.importorskip("mcp")
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

FACT_TOOLS = {  # tool -> its arguments besides the fact's id
    "confidence": {"risk": "high"},
    "verify_fact": {"verification_type": "confirmed"},
    "record_usage": {"outcome": "success", "action": "ran the backup"},
    "vote": {"vote": "agree", "confidence": 0.8},
}


def _second_row(path, uuid: str) -> None:
    """A second candidate citing the instruction's edge (a duplicate extraction, never verified)."""
    con = sqlite3.connect(path)
    with con:
        con.execute("INSERT INTO candidates (id, status, evidence_refs_json, updated_at, subject, predicate, object) "
                    "VALUES ('f-instr-2', 'candidate', ?, '2026-01-01T00:00:00Z', 'billing-db', 'backup', 'x')",
                    (json.dumps([{"evidence_id": uuid}]),))
    con.close()


async def test_every_fact_tool_takes_the_ids_search_facts_returns(settings, review):  # noqa: F811
    group, uuids, path = review
    _second_row(path, uuids["instr"])
    known = {uuids["instr"]: "f-instr", uuids["time"]: "f-time", uuids["dup_hi"]: "f-dup"}
    async with stdio_client(_params(settings, path, "--agent", "ops-bot", "--unrestricted")) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name for t in (await session.list_tools()).tools}
        assert set(FACT_TOOLS) | {"flag_fact"} <= tools
        # what the server serves is what `graph-trust mcp --help` and the tool table in docs/policy.md name
        helped = " ".join(run_cli("mcp", "--help").out.split())
        table = (REPO / "docs" / "policy.md").read_text().split("| tool | arguments | returns |")[1].split("\n\n")[0]
        assert {t for t in tools if t not in helped} == set() and {t for t in tools if f"`{t}`" not in table} == set()
        found = _data(await session.call_tool("search_facts", {"query": QUERY, "group": group, "limit": 20}))
        ids = [f["id"] for f in found["facts"] if f["id"] in known]
        assert sorted(ids) == sorted(known)  # search_facts shows edge uuids
        for edge in ids:
            for tool, args in FACT_TOOLS.items():
                by_edge = _data(await session.call_tool(tool, {"fact_id": edge, **args}))
                by_cand = _data(await session.call_tool(tool, {"fact_id": known[edge], **args}))
                if tool == "confidence":  # the same fact either way: the candidate its trust comes from
                    assert by_edge["id"] == by_cand["id"] == known[edge]
                    assert by_edge["score"] == by_cand["score"]
            flagged = _data(await session.call_tool("flag_fact", {"id": edge, "reason": "looks stale"}))
            assert flagged["edge_uuid"] == edge
        # the promoted row, whose decision the edge's trust comes from, not its unverified duplicate
        assert _data(await session.call_tool("confidence", {"fact_id": uuids["instr"]}))["id"] == "f-instr"
        for tool, args in FACT_TOOLS.items():
            text = _error_text(await session.call_tool(tool, {"fact_id": "no-such-fact", **args}))
            assert "no-such-fact" in text and "edge uuid" in text and "candidate id" in text, text
        text = _error_text(await session.call_tool("flag_fact", {"id": "no-such-fact", "reason": "x"}))
        assert "candidate id" in text and "uuid of an edge" in text
    con = sqlite3.connect(path)
    try:
        verified = dict(con.execute("SELECT fact_id, count(*) FROM fact_verifications GROUP BY 1").fetchall())
    finally:
        con.close()
    assert verified == {"f-instr": 2, "f-time": 2, "f-dup": 2}  # each call recorded once, on the fact's row


def test_cli_fact_commands_take_edge_uuids_and_name_both_forms(settings, review):  # noqa: F811
    _, uuids, path = review
    env = {"GRAPH_TRUST_STATE_DIR": str(settings.state_dir), "GRAPH_TRUST_REVIEW_DB": str(path)}
    u = uuids["time"]
    r = run_cli("confidence", u, "--json", env=env)
    assert r.code == 0 and json.loads(r.out)["id"] == "f-time", r.err
    assert "(candidate f-time)" in run_cli("confidence", u, env=env).out
    for args in (["verify-fact", u, "--type", "confirmed", "--by", "ops"],
                 ["vote", u, "agree", "--confidence", "0.7", "--by", "ops"],
                 ["record-usage", u, "--outcome", "success", "--by", "ops", "--action", "restore"]):
        assert run_cli(*args, env=env).code == 0
        bad = run_cli(*[("nope" if a == u else a) for a in args], env=env)
        assert bad.code == 2 and "edge uuid" in bad.err and "candidate id" in bad.err, bad.err
