"""No leaks: a caller at each clearance never receives a byte of a fact above it, through any
interface: the library (context, get_context, search with a trust context, the MCP tool payload,
get_record), the policy's cache, Prometheus metrics, the CLI (stdout and stderr with --debug
logs) and the MCP server (through the MCP SDK's own client, with the server's own log).

Graphs are generated with a secret planted in every field of every fact: its text, the names of
its two entities (used by no other fact), its source episode (id and content) and an attribute.
A withheld fact may show nothing, its id included; a redacted one only the metadata the docs list
(its id among them), never a secret.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from datetime import UTC, datetime

import pytest
from builders import Fact, build_graph, stable_uuid
from cli_helpers import clean_env, run_cli
from graphiti_core.nodes import EpisodeType, EpisodicNode
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from graph_trust import api
from graph_trust.access.sensitivity import DEFAULT_LEVELS
from graph_trust.access.trust_context import Access, TrustContext
from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.context import metrics
from graph_trust.context.service import ContextService
from graph_trust.errors import GraphTrustError
from graph_trust.mcp.server import search_facts_payload
from graph_trust.search.records import MemoryRecord

QUERY = "orbit relay schedule"
SCOPES = [None, "team"]


def _token(rng: random.Random, kind: str) -> str:
    return f"{kind}{''.join(rng.choice('bcdfghjkmnpqrstvwxz') for _ in range(12))}"


async def plant(graph, group: str, cells: list[tuple[str, str | None]], seed: int) -> list[dict]:
    """One fact per (label, scope) with a secret in every field; returns each fact's secrets."""
    rng = random.Random(seed)
    planted, facts = [], []
    driver = graph.for_group(group).driver
    for i, (label, scope) in enumerate(cells):
        s = {k: _token(rng, k) for k in ("text", "subj", "obj", "episode", "attr")}
        episode_uuid = stable_uuid(group, "episode", str(seed), str(i))
        await EpisodicNode(uuid=episode_uuid, name=f"episode {i}", group_id=group, source=EpisodeType.text,
                           source_description="chat", content=f"the operator said {s['episode']}",
                           valid_at=datetime(2026, 1, 1, tzinfo=UTC)).save(driver)
        props = {"sensitivity": label, "note": s["attr"], **({"scope": scope} if scope else {})}
        facts.append(Fact(s["subj"], "RELAYS", s["obj"], f"orbit relay schedule {i} is {s['text']}",
                          properties=props, episodes=(episode_uuid,)))
        planted.append({"label": label, "scope": scope, "secrets": [*s.values(), episode_uuid]})
    uuids = await build_graph(driver, HashingEmbedder(), facts, group)
    for f, p in zip(facts, planted, strict=True):
        p["uuid"] = uuids[f.fact]
    return planted


def access_of(ctx: TrustContext, p: dict, group: str) -> Access:
    return ctx.access(MemoryRecord(uuid=p["uuid"], kind="edge", text="", group_id=group, scope=p["scope"],
                                   sensitivity=p["label"]))


def assert_no_leak(text: str, planted: list[dict], ctx: TrustContext, group: str, where: str) -> int:
    """No secret of a fact ``ctx`` may not see in full is in ``text``, nor a withheld fact's id.
    Returns how many facts were checked as hidden or redacted."""
    checked = 0
    for p in planted:
        a = access_of(ctx, p, group)
        if a is Access.FULL:
            continue
        checked += 1
        for secret in p["secrets"] + ([p["uuid"]] if a is Access.DENIED else []):
            assert secret not in text, f"{where}: {a.value} fact's {secret!r} leaked at clearance {ctx.describe()}"
    return checked


def contexts(levels=DEFAULT_LEVELS):
    return [TrustContext(level, True, "tester", scopes) for level in levels for scopes in [(), ("team",)]]


async def library_outputs(settings, graph, group: str, ctx: TrustContext, planted: list[dict]) -> str:
    """Everything the library hands ``ctx``: results, payloads, reprs, errors, the cache, metrics."""
    out = []
    svc = ContextService()
    result = await api.context(settings, QUERY, trust_context=ctx, groups=[group])
    out += [repr(result), json.dumps(result.to_dict(), default=str), result.text()]
    for rank in ("composite", "boost"):
        p = await svc.get_context(settings, QUERY, trust_context=ctx, groups=[group], connection=graph, rank=rank,
                                  policy={"min_score": 0.0, "top_k": 20})
        out += [repr(p), json.dumps(p.to_dict()), p.format_for_system_prompt()]
        hit = await svc.get_context(settings, QUERY, trust_context=ctx, groups=[group], connection=graph, rank=rank,
                                    policy={"min_score": 0.0, "top_k": 20})
        assert hit.metadata.cache_hit
    out.append(repr(list(svc.cache._entries.items())))  # the cache itself
    found = await api.search_visible(settings, QUERY, trust_context=ctx, limit=20, groups=[group])
    out.append(repr(found))
    out.append(json.dumps(await search_facts_payload(settings, ctx, api.search_visible, QUERY, 20, group)))
    ranked = api.composite_rank_records(settings, found.records, found.competitor_keys, limit=20)
    out.append(repr(ranked))
    for p in planted:
        try:
            out.append(repr(await api.get_record(graph.for_group(group), p["uuid"], settings=settings,
                                                 trust_context=ctx)))
        except GraphTrustError as exc:
            out.append(str(exc))
    if metrics.registry() is not None:
        from prometheus_client import generate_latest

        out.append(generate_latest(metrics.registry()).decode())
    return "\n".join(out)


cells = st.lists(st.tuples(st.sampled_from([*DEFAULT_LEVELS, "secret-label"]), st.sampled_from(SCOPES)),
                 min_size=2, max_size=8)


@hsettings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cells=cells, seed=st.integers(0, 2**31))
async def test_the_library_never_hands_a_byte_above_the_clearance(settings, graph, unique, cells, seed):
    group = f"leak_{unique}_{seed}"
    planted = await plant(graph, group, cells, seed)
    checked = 0
    for ctx in contexts():
        text = await library_outputs(settings, graph, group, ctx, planted)
        checked += assert_no_leak(text, planted, ctx, group, "library")
        # what the caller may see in full does come through (the check is not vacuous)
        for p in planted:
            if access_of(ctx, p, group) is Access.FULL:
                assert p["secrets"][0] in text
    assert checked or all(p["label"] == "public" and p["scope"] is None for p in planted)


@pytest.fixture
async def planted_graph(graph, unique):
    group = f"sweep_{unique}"
    rng = random.Random(7)
    cells = [(label, scope) for label in [*DEFAULT_LEVELS, "secret-label"] for scope in SCOPES]
    rng.shuffle(cells)
    return group, await plant(graph, group, cells, 7)


async def test_the_cli_never_prints_a_byte_above_the_clearance(settings, planted_graph, tmp_path):
    group, planted = planted_graph
    base = ["--graph", settings.graph.uri, "--group", group, "--debug"]
    env = {"GRAPH_TRUST_STATE_DIR": str(settings.state_dir)}
    # each clearance through each command family; a scope and the composite search at one clearance
    plan = [(level, [], kind) for level in DEFAULT_LEVELS for kind in ("context", "policy", "search")]
    plan += [("medium", ["team"], "policy"), ("low", [], "composite")]
    for level, scopes, kind in plan:
        ctx = TrustContext(level, True, None, tuple(scopes))
        flags = ["--max-sensitivity", level, *[a for s in scopes for a in ("--scope", s)]]
        prom = tmp_path / f"{level}{len(scopes)}.prom"
        args = {"context": ["context", QUERY, *flags, "--json"],
                "policy": ["context", QUERY, *flags, "--policy", "--min-score", "0", "--json", "--metrics-file",
                           str(prom)],
                "search": ["search", QUERY, *flags, "--explain", "--limit", "20"],
                "composite": ["search", QUERY, *flags, "--json", "--rank", "composite"]}[kind]
        r = run_cli(*args, *base, env=env)
        assert r.code == 0, r.err
        assert_no_leak(r.out + r.err, planted, ctx, group, f"cli {kind}")
        if kind == "policy":
            assert_no_leak(prom.read_text(), planted, ctx, group, "metrics file")
        full = [p for p in planted if access_of(ctx, p, group) is Access.FULL]
        assert not full or any(p["secrets"][0] in r.out for p in full)  # what it may see does come through


async def test_the_mcp_server_never_hands_a_byte_above_its_clearance(settings, planted_graph, tmp_path):
    pytest.importorskip("mcp")
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    group, planted = planted_graph
    env = clean_env()
    env["GRAPH_TRUST_STATE_DIR"] = str(settings.state_dir)
    for level in DEFAULT_LEVELS:
        ctx = TrustContext(level, True, "bot")
        params = StdioServerParameters(command=sys.executable, env=env, args=[
            "-m", "graph_trust", "mcp", "--actor", "bot", "--max-sensitivity", level, "--graph", settings.graph.uri,
            "--debug"])
        log = tempfile.TemporaryFile("w+")
        async with stdio_client(params, errlog=log) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            texts = []
            for name, args in [("search_facts", {"query": QUERY, "group": group, "limit": 50}),
                               ("get_context", {"query": QUERY, "group": group}),
                               ("get_context", {"query": QUERY, "group": group, "format": "payload"}),
                               ("search_facts", {"query": QUERY, "group": "no-such-group"})]:
                res = await session.call_tool(name, args)
                texts += [c.text for c in res.content if hasattr(c, "text")]
        log.seek(0)
        server_log = log.read()
        assert "clearance max_sensitivity " + level in server_log
        assert_no_leak("\n".join(texts) + server_log, planted, ctx, group, "mcp")


async def test_a_redacted_memory_carries_no_source_episodes(settings, graph, unique):
    """The reported case: a memory shown as [REDACTED] still carried provenance.episodes, the ids
    of the hidden fact's source episodes (and its original length)."""
    from test_policy_graph import QUERY as Q
    from test_policy_graph import _save

    group = f"ep_{unique}"
    uuids = await _save(graph.for_group(group).driver, group)
    p = await ContextService().get_context(settings, Q, trust_context=TrustContext("medium", True, "alice"),
                                           groups=[group], connection=graph, policy={"min_score": 0.0})
    key = next(m for m in p.memories if m.id == uuids["key"])  # high: one level above medium
    assert key.content == "[REDACTED]" and key.provenance.episodes == () and key.provenance.original_length == 0
    assert stable_uuid(group, "ep", "key") not in json.dumps(p.to_dict())
    shown = next(m for m in p.memories if m.id == uuids["instr"])  # a visible fact keeps its episodes
    assert shown.provenance.episodes == (stable_uuid(group, "ep", "instr"),)
