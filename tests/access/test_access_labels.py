"""Sensitivity labels: configurable levels and custom labels (access.levels, access.labels),
unknown labels fail closed and are never silent (counted in context/MCP answers, reported by
sync with a count and an example), the MCP server's clearance comes from configuration, and an
unreviewed fact's trust is labelled as such."""

from __future__ import annotations

import pytest
import yaml
from builders import Fact, build_graph
from cli_helpers import run_cli
from hypothesis import given
from hypothesis import strategies as st
from memory_records import NOW, rec
from sync_fixtures import review_db, row

from graph_trust import api
from graph_trust.access.sensitivity import SensitivityScale, scale_of
from graph_trust.access.trust_context import Access, TrustContext, filter_by_trust
from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.config import load_settings
from graph_trust.context.agent import context_from_records
from graph_trust.context.format import format_context
from graph_trust.errors import ConfigError, InputError

names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)


@given(levels=st.lists(names, min_size=1, max_size=6, unique=True), data=st.data())
def test_any_scale_ranks_labels_by_their_level(levels, data):
    labels = {lab: data.draw(st.sampled_from(levels)) for lab in data.draw(
        st.lists(names.filter(lambda x: x not in levels), max_size=4, unique=True))}
    scale = SensitivityScale.of(levels, labels)
    known = [*levels, *labels]
    clearance = data.draw(st.sampled_from(known))
    ctx = TrustContext(clearance.upper(), True, "a", (), False, scale)
    allowed = levels.index(labels.get(clearance, clearance))
    assert ctx.max_sensitivity == levels[allowed]
    for value in known:
        level = levels.index(labels.get(value, value))
        expected = (Access.FULL if level <= allowed else Access.REDACTED if level == allowed + 1 else Access.DENIED)
        assert ctx.access(rec("r", sensitivity=f" {value.upper()} ")) is expected
    unknown = data.draw(names.filter(lambda x: x not in known))
    out = filter_by_trust([rec("u", sensitivity=unknown), rec("k", sensitivity=levels[0])], ctx,
                          default_sensitivity=levels[0])
    assert [r.uuid for r in out.records] == ["k"] and (out.denied, out.unknown_label) == (1, 1)
    assert filter_by_trust([rec("u", sensitivity=unknown)], TrustContext.unrestricted(scale=scale),
                           default_sensitivity=levels[0]).records


def test_settings_validate_levels_labels_and_clearances():
    s = load_settings(overrides={"access.labels": {"Internal": "low", "confidential": "MEDIUM"}}, environ={})
    assert s.access.labels == {"internal": "low", "confidential": "medium"}
    assert scale_of(s).level_name("INTERNAL") == "low"
    ctx = TrustContext.from_settings(s, max_sensitivity="internal")
    assert ctx.max_sensitivity == "low" and ctx.access(rec("r", sensitivity="confidential")) is Access.REDACTED
    for overrides, key in [({"access.labels": {"internal": "secret"}}, "access"),
                           ({"access.labels": {"low": "high"}}, "access"),
                           ({"access.levels": []}, "access.levels"),
                           ({"access.levels": ["a", "A"]}, "access"),
                           ({"context.max_sensitivity": "internal"}, "context.max_sensitivity"),
                           ({"context.default_sensitivity": "topsecret"}, "context.default_sensitivity"),
                           ({"mcp.max_sensitivity": "x"}, "mcp.max_sensitivity"),
                           ({"mcp.unrestricted": True, "mcp.max_sensitivity": "low"}, "mcp.unrestricted")]:
        with pytest.raises(ConfigError, match=f"config key {key}"):
            load_settings(overrides=overrides, environ={})
    with pytest.raises(InputError, match="'secret' is not a sensitivity level or label"):
        TrustContext.from_settings(load_settings(environ={}), max_sensitivity="secret")
    # a custom scale: the default clearance must be one of its levels
    custom = load_settings(overrides={"access.levels": ["open", "restricted"], "context.max_sensitivity": "open",
                                      "context.default_sensitivity": "open"}, environ={})
    assert TrustContext.from_settings(custom).access(rec("r", sensitivity="restricted")) is Access.REDACTED


def test_the_mcp_clearance_comes_from_configuration():
    s = load_settings(overrides={"mcp.max_sensitivity": "high", "mcp.scopes": ["ops"]}, environ={})
    ctx = TrustContext.for_mcp(s, actor_id="bot")
    assert (ctx.max_sensitivity, ctx.scopes, ctx.is_unrestricted) == ("high", ("ops",), False)
    assert TrustContext.for_mcp(load_settings(environ={})).max_sensitivity == "medium"  # context's default
    open_ = TrustContext.for_mcp(load_settings(overrides={"mcp.unrestricted": True}, environ={}))
    assert open_.is_unrestricted and open_.access(rec("r", sensitivity="no-such-label")) is Access.FULL
    assert "unrestricted" in open_.describe() and "high" in ctx.describe() and "ops" in ctx.describe()


def test_context_counts_facts_withheld_for_an_unknown_label(settings):
    recs = [rec("a", sensitivity="internal"), rec("b", sensitivity="internal"), rec("c", sensitivity="low")]
    out = context_from_records(recs, "q", settings=settings, trust_context=TrustContext("hyper"), now=NOW)
    assert [it.uuid for it in out.items] == ["c"] and (out.denied, out.unknown_label) == (2, 2)
    assert out.to_dict()["counts"]["unknown_label"] == 2
    mapped = settings.model_copy(update={"access": settings.access.model_copy(update={"labels": {"internal": "low"}})})
    out = context_from_records(recs, "q", settings=mapped, trust_context=TrustContext.from_settings(mapped), now=NOW)
    assert sorted(it.uuid for it in out.items) == ["a", "b", "c"] and out.unknown_label == 0


def test_an_unreviewed_fact_is_labelled_so_in_the_context_block(settings):
    """The composite ranks a fact without trust_score at composite.default_trust (0.25); the
    block showed that as `trust:25%`, as if review had set it."""
    recs = [rec("u", text="unreviewed fact"), rec("r", text="reviewed fact", trust_score=0.25)]
    out = context_from_records(recs, "q", settings=settings, trust_context=TrustContext("medium"), now=NOW)
    lines = out.text().splitlines()
    assert "- [fact|unreviewed] unreviewed fact" in lines and "- [fact|trust:25%] reviewed fact" in lines
    assert {r["uuid"]: r["trust_source"] for r in out.to_dict()["records"]} == {"u": "default", "r": "property"}
    assert format_context([rec("x", text="boost order")]) .splitlines()[1] == "- [fact|unreviewed] boost order"


async def test_unknown_labels_reach_sync_context_and_mcp(graph, settings, tmp_path, unique, embedded_path):
    group = f"lab_{unique}"
    facts = [Fact(f"billing-db-{i}", "RUNS_AT", f"t{i}", f"the billing backup {i} runs at 0{i}:00", properties={})
             for i in range(4)]
    uuids = list((await build_graph(graph.for_group(group).driver, HashingEmbedder(), facts, group)).values())
    rows = [row("c1", uuids[0], "promoted", group, sensitivity="internal"),
            row("c2", uuids[1], "promoted", group, sensitivity="INTERNAL "),
            row("c3", uuids[2], "candidate", group, sensitivity="confidential"),
            row("c4", uuids[3], "promoted", group, sensitivity="low")]
    db = review_db(tmp_path / "r.sqlite3", rows)
    cfg = tmp_path / "graph-trust.yaml"
    cfg.write_text(yaml.safe_dump({"graph": {"uri": f"embedded:{embedded_path}", "database": settings.graph.database},
                                   "state_dir": str(settings.state_dir), "sync": {"tiers": settings.sync.tiers}}))
    done = run_cli("sync", "--review-db", str(db), "--config", str(cfg), "--json")
    assert done.code == 0, done.err
    assert done.json()["unknown_sensitivity"] == [{"label": "internal", "count": 2, "example": "c1"},
                                                   {"label": "confidential", "count": 1, "example": "c3"}]
    text = run_cli("sync", "--review-db", str(db), "--config", str(cfg))
    assert "'internal' x2 (e.g. c1), 'confidential' x1 (e.g. c3)" in text.out and "access.labels" in text.out
    ctx = run_cli("context", "billing backup", "--group", group, "--config", str(cfg), "--json")
    assert ctx.code == 0 and ctx.json()["counts"]["unknown_label"] == 3
    assert "3 fact(s) withheld for a sensitivity label" in ctx.err
    pol = run_cli("context", "billing backup", "--group", group, "--config", str(cfg), "--policy", "--json")
    assert pol.json()["metadata"]["unknown_label"] == 3 and "withheld for a sensitivity label" in pol.err
    low = TrustContext("hyper", True, "bot")
    found = await api.search_visible(settings, "billing backup", trust_context=low, groups=[group])
    assert [r.uuid for r in found.records] == [uuids[3]] and found.unknown_label == 3
    # mapped in access.labels, they are shown; sync reports nothing more
    mapped = cfg.read_text() + yaml.safe_dump({"access": {"labels": {"internal": "low", "confidential": "medium"}}})
    cfg.write_text(mapped)
    again = run_cli("sync", "--review-db", str(db), "--config", str(cfg), "--json")
    assert again.json()["unknown_sensitivity"] == []
    ctx = run_cli("context", "billing backup", "--group", group, "--config", str(cfg), "--json")
    assert ctx.json()["counts"]["unknown_label"] == 0 and len(ctx.json()["records"]) == 4
