"""The confidence tools of ``graph-trust mcp`` through the MCP SDK's own client, on a real
SQLite review DB and the embedded graph: each tool's happy path answers as the CLI command of
the same name does, and each kind of bad input (unknown id, bad enum, out of range, no
configured agent) is a tool error naming what is wrong, with nothing written."""

from __future__ import annotations

import json
import sqlite3
import sys

import pytest
from test_mcp_server import _data, _field, _is_error
from test_policy_graph import QUERY, _save

from graph_trust.api import confidence_ops as ops
from graph_trust.api import confidence_store, init_review_db
from graph_trust.errors import GraphTrustError
from graph_trust.sync.review_db import insert_rows

pytest.importorskip("mcp")
from cli_helpers import clean_env
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

TOOLS = {"confidence", "verify_fact", "record_usage", "vote", "contradictions", "stale", "credibility",
         "search_facts", "get_context"}


def _error_text(result) -> str:
    assert _is_error(result), result
    return " ".join(getattr(c, "text", "") for c in result.content)


@pytest.fixture
async def review(graph, unique, tmp_path):
    """The policy graph's facts, and a review DB whose candidates cite four of them (the others
    are unknown to it): two contradict each other (same subject and predicate)."""
    group = f"g_{unique}"
    uuids = await _save(graph.for_group(group).driver, group)
    path = tmp_path / "review.sqlite3"
    init_review_db(path)
    rows = [("f-instr", "instr", "backup", "verified", "promoted"),
            ("f-time", "time", "backup time", "02:00", "promoted"),
            ("f-dup", "dup_hi", "backup time", "03:00", "candidate"),
            ("f-pii", "pii", "contact", "ops", "candidate")]
    insert_rows(path, [{"id": cid, "subject": "billing-db", "predicate": pred, "object": obj, "status": status,
                        "evidence_refs_json": json.dumps([{"evidence_id": uuids[key]}]),
                        "updated_at": "2026-01-01T00:00:00Z"} for cid, key, pred, obj, status in rows])
    con = sqlite3.connect(path)
    with con:
        con.executemany("INSERT INTO fact_sources (fact_id, agent_id, category, created_at) VALUES (?, ?, ?, ?)",
                        [(cid, "db-agent", "infrastructure", "2026-01-01T00:00:00Z") for cid, *_ in rows])
    con.close()
    return group, uuids, path


def _params(settings, review_db, *extra: str) -> StdioServerParameters:
    env = clean_env()
    env["GRAPH_TRUST_STATE_DIR"] = str(settings.state_dir)
    env["GRAPH_TRUST_REVIEW_DB"] = str(review_db)
    return StdioServerParameters(command=sys.executable, env=env,
                                 args=["-m", "graph_trust", "mcp", "--graph", settings.graph.uri, *extra])


def _counts(path) -> dict[str, int]:
    con = sqlite3.connect(path)
    try:
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in ("fact_verifications", "fact_votes", "fact_usage_outcomes", "fact_contradictions")}
    finally:
        con.close()


async def test_confidence_tools_round_trip(settings, review):
    group, uuids, path = review
    async with stdio_client(_params(settings, path, "--agent", "ops-bot")) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert TOOLS <= set(tools)
        # the acting agent is the server's: no tool takes it as an argument
        for name in ("verify_fact", "record_usage", "vote"):
            props = _field(tools[name], "input_schema", "inputSchema")["properties"]
            assert not {"by", "agent", "agent_id"} & set(props), props

        async def call(name, **args):
            return await session.call_tool(name, args)

        before = _data(await call("confidence", fact_id="f-time", risk="critical"))
        assert before["id"] == "f-time" and 0 <= before["score"] <= 1 and before["decision"]["risk"] == "critical"
        verified = _data(await call("verify_fact", fact_id="f-time", verification_type="confirmed", notes="checked"))
        assert verified["by"] == "ops-bot" and verified["confidence"] > before["score"]
        voted = _data(await call("vote", fact_id="f-time", vote="agree", confidence=0.9, reasoning="seen it"))
        assert voted["by"] == "ops-bot" and voted["consensus"] > 0.5
        used = _data(await call("record_usage", fact_id="f-time", outcome="success", action="restored a backup"))
        assert used["by"] == "ops-bot" and used["confidence_before"] >= verified["confidence"] - 1e-9
        listed = _data(await call("contradictions"))
        assert [(c["a"], c["b"]) for c in listed["detected_unrecorded"]] == [("f-dup", "f-time")]
        resolved = _data(await call("contradictions", resolve=True))
        assert len(resolved["recorded"]) == 1 and resolved["detected_unrecorded"] == []
        stale = _data(await call("stale", days=1, category="infrastructure"))
        assert stale["days"] == 1 and {f["id"] for f in stale["facts"]} <= {"f-instr", "f-time", "f-dup", "f-pii"}
        cred = _data(await call("credibility", agent_id="db-agent"))
        assert cred["categories"][0]["category"] == "infrastructure"
        # search with min_confidence: only facts the review DB scores at least that, each with its score
        plain = _data(await call("search_facts", query=QUERY, group=group, limit=20))
        assert "confidence" not in plain["facts"][0]
        kept = _data(await call("search_facts", query=QUERY, group=group, limit=20, min_confidence=0.0))
        known = {uuids[k] for k in ("instr", "time", "dup_hi", "pii")}
        assert {f["id"] for f in kept["facts"]} == known & {f["id"] for f in plain["facts"]}
        assert all(0 <= f["confidence"] <= 1 for f in kept["facts"])

        # bad input: one tool error naming it, nothing written
        written = _counts(path)
        bad = {
            ("confidence", "nope"): await call("confidence", fact_id="nope"),
            ("verify_fact", "nope"): await call("verify_fact", fact_id="nope", verification_type="confirmed"),
            ("verify_fact", "maybe"): await call("verify_fact", fact_id="f-time", verification_type="maybe"),
            ("record_usage", "great"): await call("record_usage", fact_id="f-time", outcome="great", action="x"),
            ("record_usage", "action"): await call("record_usage", fact_id="f-time", outcome="success", action=" "),
            ("vote", "1.5"): await call("vote", fact_id="f-time", vote="agree", confidence=1.5),
            ("vote", "perhaps"): await call("vote", fact_id="f-time", vote="perhaps", confidence=0.5),
            ("confidence", "extreme"): await call("confidence", fact_id="f-time", risk="extreme"),
            ("stale", "-3"): await call("stale", days=-3),
            ("credibility", "ghost"): await call("credibility", agent_id="ghost"),
            ("search_facts", "min_confidence"): await call("search_facts", query=QUERY, min_confidence=1.5),
        }
        for (tool, needle), result in bad.items():
            assert needle in _error_text(result), (tool, result.content)
        assert _counts(path) == written
        after = _data(await call("confidence", fact_id="f-time"))

    # what the tools answered is what the CLI's functions answer for the same DB
    with confidence_store(settings, path) as store:
        direct = ops.fact_confidence(store, "f-time")
        assert direct["factors"] == pytest.approx(after["factors"], abs=1e-4)
        assert direct["score"] == pytest.approx(after["score"], abs=1e-4)
        # (days_active is measured at each call and rounded to 0.001 day: a call 86 s later may differ by 0.001)
        direct_cred = ops.credibility(store, "db-agent")
        strip = lambda d: [{k: v for k, v in c.items() if k != "days_active"} for c in d["categories"]]  # noqa: E731
        assert strip(direct_cred) == strip(cred) and {k: v for k, v in direct_cred.items() if k != "categories"} == \
            {k: v for k, v in cred.items() if k != "categories"}
        assert [c["days_active"] for c in direct_cred["categories"]] == pytest.approx(
            [c["days_active"] for c in cred["categories"]], abs=0.01)
        assert ops.contradictions(store)["recorded"] == resolved["recorded"]
    # f-time is promoted: the review counts as a ground-truth verification (docs/confidence.md), so a
    # confirmation keeps its verification factor at the top
    assert before["factors"]["verification"] == after["factors"]["verification"] == 1.0


async def test_write_tools_without_an_agent_are_errors(settings, review):
    _, _, path = review
    async with stdio_client(_params(settings, path)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        written = _counts(path)
        for name, args in [("verify_fact", {"fact_id": "f-time", "verification_type": "confirmed"}),
                           ("record_usage", {"fact_id": "f-time", "outcome": "success", "action": "x"}),
                           ("vote", {"fact_id": "f-time", "vote": "agree", "confidence": 0.5}),
                           ("contradictions", {"resolve": True})]:
            assert "mcp.agent" in _error_text(await session.call_tool(name, args)), name
        assert _counts(path) == written
        # reads need no agent
        assert _data(await session.call_tool("confidence", {"fact_id": "f-time"}))["id"] == "f-time"
        assert _data(await session.call_tool("contradictions", {}))["recorded"] == []


def test_agent_setting_is_validated():
    from graph_trust.config import load_settings
    from graph_trust.errors import ConfigError

    assert load_settings(overrides={"mcp.agent": "  ops-bot "}, environ={}).mcp.agent == "ops-bot"
    assert load_settings(environ={"GRAPH_TRUST_MCP_AGENT": "env-bot"}).mcp.agent == "env-bot"
    assert load_settings(environ={}).mcp.agent is None
    with pytest.raises(ConfigError, match="GRAPH_TRUST_MCP_AGENT"):
        load_settings(environ={"GRAPH_TRUST_MCP_AGENT": "a\tb"})
    for bad in (" ", "a\nb", "x" * 201):
        with pytest.raises(ConfigError, match="mcp.agent"):
            load_settings(overrides={"mcp.agent": bad}, environ={})


async def test_random_writes_through_mcp_match_the_cli_functions(settings, review, tmp_path):
    """A random sequence of writes (valid and invalid) through the MCP tools leaves the review DB
    scoring every fact as the same sequence through the CLI's functions does on a copy."""
    import random
    import shutil
    import time

    from graph_trust.api import OUTCOMES, VERDICTS, VOTES

    _, _, path = review
    copy = tmp_path / "copy.sqlite3"
    shutil.copy(path, copy)
    rng = random.Random(18)
    ids = ["f-instr", "f-time", "f-dup", "f-pii", "ghost"]
    steps = []
    for _ in range(25):
        fact, kind = rng.choice(ids), rng.choice(["verify_fact", "record_usage", "vote"])
        if kind == "verify_fact":
            steps.append((kind, {"fact_id": fact, "verification_type": rng.choice(VERDICTS)}))
        elif kind == "record_usage":
            steps.append((kind, {"fact_id": fact, "outcome": rng.choice(OUTCOMES), "action": "act"}))
        else:
            steps.append((kind, {"fact_id": fact, "vote": rng.choice(VOTES),
                                 "confidence": rng.choice([0.0, 1.0, rng.random(), 1.25])}))
    steps.append(("contradictions", {"resolve": True}))

    async with stdio_client(_params(settings, path, "--agent", "ops-bot")) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        via_mcp = [_is_error(await session.call_tool(name, args)) for name, args in steps]

    via_cli = []
    for name, args in steps:
        # one store per step, as each CLI command opens its own (a store's clock is fixed when it
        # opens, and records of one instant order by their kind, not their insertion)
        time.sleep(0.002)
        with confidence_store(settings, copy) as store:
            a = dict(args)
            try:
                if name == "verify_fact":
                    ops.verify_fact(store, a["fact_id"], a["verification_type"], "ops-bot")
                elif name == "record_usage":
                    ops.record_usage(store, a["fact_id"], a["outcome"], "ops-bot", a["action"])
                elif name == "vote":
                    ops.vote(store, a["fact_id"], a["vote"], a["confidence"], "ops-bot")
                else:
                    ops.contradictions(store, True)
                via_cli.append(False)
            except GraphTrustError:
                via_cli.append(True)
    assert via_mcp == via_cli and any(via_mcp) and not all(via_mcp)
    assert _counts(path) == _counts(copy)
    with confidence_store(settings, path) as a, confidence_store(settings, copy) as b:
        ids_a, _, scores_a = a.scores()
        ids_b, _, scores_b = b.scores()
    assert ids_a == ids_b
    assert list(scores_a) == pytest.approx(list(scores_b), abs=1e-4)
