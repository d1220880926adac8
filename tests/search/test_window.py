"""Denied facts never take a slot: on generated graphs where facts a caller may not see outrank
the ones it may, every access-controlled path (the policy's get_context, `context`, search with a
trust context, the MCP search_facts tool) searches deeper until it has what was asked for or the
graph has no more candidates, for every clearance level and scope."""

from __future__ import annotations

import itertools

import pytest
from builders import Fact, build_graph
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from graph_trust import api
from graph_trust.access.sensitivity import DEFAULT_LEVELS
from graph_trust.access.trust_context import Access, TrustContext, filter_by_trust
from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.config import MAX_SEARCH_DEPTH
from graph_trust.context.agent import context_from_records
from graph_trust.context.service import ContextService
from graph_trust.mcp.server import search_facts_payload
from graph_trust.search.records import records_from_results
from graph_trust.search.window import window_sizes

QUERY = "zephyr ledger rotation"
LABELS = [*DEFAULT_LEVELS, "bogus"]  # a label the scale does not know: denied to every clearance
SCOPES = [None, "team", "other"]
CONTEXTS = [TrustContext(level, True, "tester", scopes) for level, scopes in
            itertools.product(DEFAULT_LEVELS, [(), ("team",)])]


@given(first=st.integers(1, 2000), multiple=st.integers(1, 2000))
def test_window_sizes_double_up_to_the_multiple_and_the_hard_cap(first, multiple):
    sizes = window_sizes(first, multiple)
    assert sizes[0] == min(first, MAX_SEARCH_DEPTH)
    assert sizes[-1] == max(sizes[0], min(first * multiple, MAX_SEARCH_DEPTH))
    assert all(b == min(2 * a, sizes[-1]) for a, b in zip(sizes, sizes[1:]))
    assert sizes == sorted(set(sizes)) and sizes[-1] <= MAX_SEARCH_DEPTH


def _facts(strong: list[tuple[str, str | None]], weak: list[tuple[str, str | None]]) -> list[Fact]:
    """``strong`` facts match every query word (they rank first), ``weak`` ones one word, and a
    public filler matches none; each (label, scope). Subjects are distinct: no two facts compete."""
    out = [Fact("f", "IS", "g", "an unrelated filler line", properties={"sensitivity": "public"})]
    for i, (label, scope) in enumerate(strong):
        props = {"sensitivity": label, **({"scope": scope} if scope else {})}
        out.append(Fact(f"s{i}", "RUNS", f"o{i}", f"zephyr ledger rotation step {i} runs nightly", properties=props))
    for i, (label, scope) in enumerate(weak):
        props = {"sensitivity": label, **({"scope": scope} if scope else {})}
        out.append(Fact(f"w{i}", "NOTES", f"p{i}", f"zephyr memo number {i}", properties=props))
    return out


def _access(ctx: TrustContext, fact: Fact, group: str) -> Access:
    """What ``ctx`` may see of ``fact`` (saved in ``group``), from what the test planted."""
    from graph_trust.search.records import MemoryRecord

    return ctx.access(MemoryRecord(uuid="x", kind="edge", text="", group_id=group, scope=fact.properties.get("scope"),
                                   sensitivity=fact.properties["sensitivity"]))


async def _visible_at(settings, group: str, depth: int, ctx: TrustContext, by_uuid: dict[str, Fact]):
    """The unrestricted ranking at ``depth`` (what each path filters): the records ``ctx`` may
    see, how many it may not (and of those, for the unknown label), and how many candidates the
    search returned."""
    results = await api.search(settings, QUERY, limit=depth, groups=[group])
    ranked = records_from_results(results)
    visible = filter_by_trust(ranked, ctx).records  # as ctx sees them: redacted ones in place
    assert [r.uuid for r in visible] == [r.uuid for r in ranked if _access(ctx, by_uuid[r.uuid], group)
                                         is not Access.DENIED]
    # out of the caller's scopes: not there for it (not counted); in scope and hidden: denied
    hidden = [by_uuid[r.uuid] for r in ranked if _access(ctx, by_uuid[r.uuid], group) is Access.DENIED
              and (not ctx.scopes or (by_uuid[r.uuid].properties.get("scope") or group) in ctx.scopes)]
    unknown = sum(1 for f in hidden if f.properties["sensitivity"] == "bogus")
    return visible, len(hidden), unknown, len(results.edges)


cells = st.tuples(st.sampled_from(LABELS), st.sampled_from(SCOPES))


@hsettings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(strong=st.lists(cells, min_size=0, max_size=14), weak=st.lists(cells, min_size=0, max_size=6),
       want=st.integers(1, 4), multiple=st.sampled_from([1, 2, 16]))
async def test_every_path_fills_its_window_with_visible_facts(settings, graph, unique, strong, weak, want, multiple):
    group = f"w_{unique}_{len(strong)}_{len(weak)}_{want}_{multiple}"
    facts = _facts(strong, weak)
    uuids = await build_graph(graph.for_group(group).driver, HashingEmbedder(), facts, group)
    by_uuid = {uuids[f.fact]: f for f in facts}
    s = settings.model_copy(update={"access": settings.access.model_copy(update={"max_fetch_multiple": multiple})})
    svc = ContextService()
    for ctx in CONTEXTS:
        # search with a trust context (what `search --actor` and the MCP tool run)
        found = await api.search_visible(s, QUERY, trust_context=ctx, limit=want, groups=[group])
        visible, denied, unknown, returned = await _visible_at(s, group, found.search_depth, ctx, by_uuid)
        assert [r.uuid for r in found.records] == [r.uuid for r in visible[:want]]
        assert (found.denied, found.unknown_label) == (denied, unknown)
        if len(found.records) < want:  # fewer than asked: the graph had no more, or the window hit its bound
            assert returned < found.search_depth or found.search_depth == window_sizes(want, multiple)[-1]
        for r in found.records:  # shown in full, or redacted exactly one level above the clearance
            assert _access(ctx, by_uuid[r.uuid], group) is (Access.REDACTED if r.redacted else Access.FULL)
            assert not r.redacted or (r.text, r.explanation.text) == ("", "")
        mcp = await search_facts_payload(s, ctx, api.search_visible, QUERY, want, group)
        assert [f["id"] for f in mcp["facts"]] == [r.uuid for r in found.records] and mcp["denied"] == denied

        # the policy (get_context): 2 x top_k facts surviving the trust stages, top_k shown
        p = await svc.get_context(s, QUERY, trust_context=ctx, groups=[group], connection=graph,
                                  policy={"top_k": want, "min_score": 0.0, "max_tokens": 3000, "cache_ttl_s": 0})
        visible, denied, unknown, returned = await _visible_at(s, group, p.metadata.search_depth, ctx, by_uuid)
        # the policy's window: the trust stages' best 2 x top_k; redacted ones all read [REDACTED] (one after dedup)
        window = context_from_records(visible, QUERY, settings=s, trust_context=TrustContext.unrestricted(),
                                      max_results=2 * want, max_fused={"edge": 2.0}).items
        shown = {"[REDACTED]" if it.record.redacted else it.record.text for it in window}
        assert len(p.memories) == min(want, len(shown))
        assert (p.metadata.denied, p.metadata.unknown_label) == (denied, unknown)
        assert {m.id for m in p.memories} <= {r.uuid for r in visible}
        if len(visible) < 2 * want:
            assert returned < p.metadata.search_depth or p.metadata.search_depth == window_sizes(
                2 * want, multiple)[-1]

        # `graph-trust context`: max_results records
        out = await api.context(s, QUERY, trust_context=ctx, groups=[group], max_results=want)
        visible, denied, unknown, returned = await _visible_at(s, group, out.search_depth, ctx, by_uuid)
        assert len(out.items) == min(want, len(visible)) and (out.denied, out.unknown_label) == (denied, unknown)
        assert {it.uuid for it in out.items} <= {r.uuid for r in visible}
        if len(visible) < want:
            first = max(2 * want, settings.search.limit)
            assert returned < out.search_depth or out.search_depth == window_sizes(first, multiple)[-1]


async def test_six_denied_facts_above_three_public_ones_take_no_slot(settings, graph, unique):
    """The reported case: top_k 2, six high-sensitivity facts outranking three public ones,
    clearance low. The first window (2 x top_k = 4) holds only denied facts."""
    group = f"six_{unique}"
    facts = _facts([("high", None)] * 6, [("public", None)] * 3)
    await build_graph(graph.for_group(group).driver, HashingEmbedder(), facts, group)
    low = TrustContext("low", True, "alice")
    p = await ContextService().get_context(settings, QUERY, trust_context=low, groups=[group], connection=graph,
                                           policy={"top_k": 2, "min_score": 0.0})
    assert len(p.memories) == 2 and all(m.content.startswith("zephyr memo") for m in p.memories)
    assert p.metadata.denied == 6 and p.metadata.total_results == 9 and p.metadata.search_depth > 4
    found = await api.search_visible(settings, QUERY, trust_context=low, limit=2, groups=[group])
    assert [r.text for r in found.records] and all(r.text.startswith("zephyr memo") for r in found.records)
    assert len(found.records) == 2
    ctx_out = await api.context(settings, QUERY, trust_context=low, groups=[group], max_results=2)
    assert len(ctx_out.items) == 2 and ctx_out.denied == 6


@pytest.mark.parametrize("mode", ["boost", "composite"])
async def test_cli_search_with_a_clearance_fills_its_limit(settings, graph, unique, mode):
    from cli_helpers import run_cli

    group = f"cli_{unique}"
    await build_graph(graph.for_group(group).driver, HashingEmbedder(),
                      _facts([("hyper", None)] * 5, [("public", None)] * 3), group)
    r = run_cli("search", QUERY, "--group", group, "--limit", "2", "--max-sensitivity", "low", "--rank", mode,
                "--json", "--graph", settings.graph.uri, env={"GRAPH_TRUST_STATE_DIR": str(settings.state_dir)})
    assert r.code == 0, r.err
    data = r.json()
    assert [x["text"][:11] for x in data["results"]] == ["zephyr memo"] * 2 and data["denied"] == 5
