"""get_context end to end on the embedded FalkorDB: trust stages then the policy, the cache,
the rate limit, each fallback, metrics and the CLI."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from builders import Fact, build_graph, stable_uuid
from cli_helpers import run_cli

from graph_trust.access.trust_context import TrustContext
from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.config import load_settings
from graph_trust.context.dedup import normalized_hash
from graph_trust.context.service import ContextService, policy_search_config
from graph_trust.errors import ConfigError, InputError, MissingTrustContextError

NOW = datetime.now(UTC)

# (key, subject, object, fact, properties, hours ago)
FACTS = [
    ("instr", "billing-db", "verify", "Backups of billing-db must be verified before any deploy.",
     {"trust_score": 0.9, "memory_type": "instruction"}, 30),
    ("time", "billing-db", "02:00", "The nightly backup of billing-db runs at 02:00 UTC. It takes 40 minutes. "
     "It writes to bucket s3://billing-backups. Alerts go to the on-call channel.", {"trust_score": 0.8}, 20),
    ("dup_lo", "billing-db", "cron", "The billing-db backup is owned by the platform team.",
     {"trust_score": 0.3}, 2),
    ("dup_hi", "billing-db", "team", "THE BILLING-DB BACKUP IS OWNED BY THE PLATFORM TEAM!",
     {"trust_score": 0.95, "trust_status": "promoted"}, 10),
    ("pii", "billing-db", "contact", "The billing-db backup contact is ops.lead@example.com, SSN 123-45-6789.",
     {"trust_score": 0.7}, 5),
    ("key", "billing-db", "vault", "The billing-db backup encryption key is in vault kv/billing.",
     {"trust_score": 0.8, "sensitivity": "high"}, 8),
    ("root", "billing-db", "rotation", "The billing-db backup root password rotates monthly.",
     {"trust_score": 0.8, "sensitivity": "hyper"}, 1),
]
QUERY = "billing-db backup"


async def _save(driver, group: str) -> dict[str, str]:
    """FACTS into ``driver``'s graph; {key: edge uuid}."""
    facts = [Fact(subj, key.upper(), obj, fact, properties=props, at=NOW - timedelta(hours=hours),
                  episodes=(stable_uuid(group, "ep", key),)) for key, subj, obj, fact, props, hours in FACTS]
    uuids = await build_graph(driver, HashingEmbedder(), facts, group)
    return {key: uuids[fact] for key, _, _, fact, _, _ in FACTS}


@pytest.fixture
async def facts(graph, unique):
    group = f"g_{unique}"
    return group, await _save(graph.for_group(group).driver, group)


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


MEDIUM = TrustContext("medium", True, "alice")
HIGH = TrustContext("high", True, "alice")


async def test_policy_on_the_graph(settings, graph, facts):
    group, uuids = facts
    svc = ContextService()
    p = await svc.get_context(settings, QUERY, trust_context=MEDIUM, groups=[group], connection=graph,
                              policy={"min_score": 0.0, "max_tokens": 200})
    by_id = {m.id: m for m in p.memories}
    assert uuids["root"] not in by_id and p.metadata.denied >= 1  # hyper: denied before the policy
    key = by_id[uuids["key"]]  # high: one above medium, shown redacted
    assert key.content == "[REDACTED]" and key.provenance.was_redacted
    assert uuids["dup_hi"] in by_id and uuids["dup_lo"] not in by_id  # the trusted duplicate kept
    assert by_id[uuids["dup_hi"]].review_status == "promoted" and p.metadata.duplicates_removed >= 1
    pii = by_id[uuids["pii"]]
    assert pii.provenance.was_redacted and "example.com" not in pii.content and "6789" not in pii.content
    long = by_id[uuids["time"]]
    assert long.content.endswith("\u2026") and long.provenance.original_length > len(long.content)
    assert long.provenance.episodes == (stable_uuid(group, "ep", "time"),)
    assert long.provenance.search_type == "hybrid" and long.group == group
    assert all(0.0 <= m.score <= 1.0 for m in p.memories)
    assert p.metadata.total_tokens == sum(m.tokens for m in p.memories) <= 200
    assert len({normalized_hash(m.content) for m in p.memories}) == len(p.memories)
    dumped = json.dumps(p.to_dict())
    assert "ops.lead@example.com" not in dumped and "vault kv/billing" not in dumped and "root password" not in dumped
    assert p.metadata.total_results >= len(p.memories) and p.metadata.config["max_tokens"] == 200
    assert "deduplication" in p.metadata.applied_filters and p.metadata.query_time_ms > 0
    text = p.format_for_system_prompt(settings.context.layer_order)
    assert text.index("### Instructions") < text.index("### Known Facts")
    assert text.rstrip().endswith("ms_")


async def test_min_score_and_top_k_on_the_graph(settings, graph, facts):
    group, _ = facts
    # weights under which the more trusted of two duplicates also scores higher, so min_score never
    # drops the duplicate dedup kept while keeping the one it dropped (the defaults weigh trust 0)
    settings = settings.model_copy(update={"composite": settings.composite.model_copy(update={
        "w_trust": 0.2, "w_recency": 0.1, "w_relevance": 0.6, "w_type": 0.1})})
    svc = ContextService()
    all_ = await svc.get_context(settings, QUERY, trust_context=HIGH, groups=[group], connection=graph,
                                 policy={"min_score": 0.0, "top_k": 20}, now=NOW)
    scores = sorted(m.score for m in all_.memories)
    cut = scores[len(scores) // 2]
    some = await svc.get_context(settings, QUERY, trust_context=HIGH, groups=[group], connection=graph,
                                 policy={"min_score": cut, "top_k": 20}, now=NOW)
    assert {m.id for m in some.memories} == {m.id for m in all_.memories if m.score >= cut}
    assert some.metadata.below_min_score >= len(all_.memories) - len(some.memories) > 0
    two = await svc.get_context(settings, QUERY, trust_context=HIGH, groups=[group], connection=graph,
                                policy={"min_score": 0.0, "top_k": 2})
    assert len(two.memories) == 2


@pytest.mark.parametrize("search_type,methods", [("hybrid", ["bm25", "cosine_similarity"]),
                                                 ("semantic", ["cosine_similarity"]), ("keyword", ["bm25"])])
async def test_search_type_maps_onto_methods(settings, graph, facts, search_type, methods):
    group, _ = facts
    pol = settings.policy.model_copy(update={"search_type": search_type, "top_k": 6})
    cfg = policy_search_config(settings, pol)
    assert [m.value for m in cfg.edge_config.search_methods] == methods and cfg.limit == 12
    p = await ContextService().get_context(settings, QUERY, trust_context=HIGH, groups=[group], connection=graph,
                                           policy=pol.model_copy(update={"min_score": 0.0}))
    assert p.memories and {m.provenance.search_type for m in p.memories} == {search_type}


async def test_rank_boost_scores_are_normalized(settings, graph, facts):
    group, _ = facts
    p = await ContextService().get_context(settings, QUERY, trust_context=HIGH, groups=[group], connection=graph,
                                           rank="boost", policy={"min_score": 0.0})
    assert p.memories and all(0.0 < m.score <= 1.0 for m in p.memories)


async def test_cache_hits_within_ttl_and_never_across_trust_contexts(settings, graph, facts):
    group, uuids = facts
    clock = Clock()
    svc = ContextService(clock)
    kw = dict(groups=[group], connection=graph, policy={"min_score": 0.0})
    first = await svc.get_context(settings, QUERY, trust_context=MEDIUM, **kw)
    again = await svc.get_context(settings, QUERY, trust_context=MEDIUM, **kw)
    assert not first.metadata.cache_hit and again.metadata.cache_hit
    assert [m.content for m in again.memories] == [m.content for m in first.memories]
    assert again.metadata.cache_hit_rate == pytest.approx(0.5)
    # Same query, another clearance: searched afresh, and the high-sensitivity fact is in clear.
    high = await svc.get_context(settings, QUERY, trust_context=HIGH, **kw)
    assert not high.metadata.cache_hit
    assert "vault kv/billing" in next(m.content for m in high.memories if m.id == uuids["key"])
    other_actor = await svc.get_context(settings, QUERY, trust_context=TrustContext("medium", True, "bob"), **kw)
    scoped = await svc.get_context(settings, QUERY, trust_context=TrustContext("medium", True, "alice", ("x",)), **kw)
    assert not other_actor.metadata.cache_hit and not scoped.metadata.cache_hit and scoped.memories == []
    other_policy = await svc.get_context(settings, QUERY, trust_context=MEDIUM, groups=[group], connection=graph,
                                         policy={"min_score": 0.0, "top_k": 3})
    assert not other_policy.metadata.cache_hit
    clock.t += 61  # past the 60 s TTL
    late = await svc.get_context(settings, QUERY, trust_context=MEDIUM, **kw)
    assert not late.metadata.cache_hit


async def test_rate_limit_serves_the_cache_else_empty(settings, graph, facts):
    group, _ = facts
    clock = Clock()
    svc = ContextService(clock)
    kw = dict(groups=[group], connection=graph,
              policy={"min_score": 0.0, "rate_limit_per_minute": 1, "cache_ttl_s": 10})
    ok = await svc.get_context(settings, QUERY, trust_context=MEDIUM, **kw)
    assert ok.memories and ok.metadata.error_code is None
    other = await svc.get_context(settings, "deploy verification", trust_context=MEDIUM, **kw)
    assert other.memories == [] and other.metadata.error_code == "RATE_LIMITED"
    assert other.metadata.fallback == "cache" and "alice" in other.metadata.reason
    clock.t += 30  # the 10 s TTL is past, and the bucket holds half a request
    stale = await svc.get_context(settings, QUERY, trust_context=MEDIUM, **kw)
    assert stale.metadata.cache_hit and stale.metadata.fallback == "cache"
    assert [m.id for m in stale.memories] == [m.id for m in ok.memories]
    # Another caller has its own bucket.
    bob = await svc.get_context(settings, QUERY, trust_context=TrustContext("medium", True, "bob"), **kw)
    assert bob.metadata.error_code is None and not bob.metadata.cache_hit
    clock.t += 60  # refilled
    fresh = await svc.get_context(settings, "deploy verification", trust_context=MEDIUM, **kw)
    assert fresh.metadata.error_code is None


async def test_fallbacks(settings, graph, facts, tmp_path):
    group, _ = facts
    svc = ContextService()
    with pytest.raises(InputError, match="query must be text"):  # a bad argument is an error, not a fallback
        await svc.get_context(settings, None, trust_context=MEDIUM, groups=[group], connection=graph)
    for q in ("", "   ", "x" * 2001, "\x01\x1b"):  # the reference's INVALID_QUERY: the turn goes on without memory
        p = await svc.get_context(settings, q, trust_context=MEDIUM, groups=[group], connection=graph)
        assert p.memories == [] and (p.metadata.error_code, p.metadata.fallback) == ("INVALID_QUERY", "skip")
        assert "query" in p.metadata.reason and p.format_for_system_prompt() == ""
    p = await svc.get_context(settings, QUERY, trust_context=MEDIUM, groups=["no_such_group"], connection=graph)
    assert p.memories == [] and (p.metadata.error_code, p.metadata.fallback) == ("GROUP_NOT_FOUND", "empty")
    assert "no_such_group" in p.metadata.reason
    down = load_settings(overrides={"graph.uri": "falkordb://127.0.0.1:1", "graph.timeout_s": 1,
                                    "state_dir": str(tmp_path / "s")}, environ={})
    p = await svc.get_context(down, QUERY, trust_context=MEDIUM)
    assert p.memories == [] and (p.metadata.error_code, p.metadata.fallback) == ("GRAPH_UNAVAILABLE", "skip")
    assert p.format_for_system_prompt() == ""
    with pytest.raises(MissingTrustContextError):
        await svc.get_context(settings, QUERY, trust_context=None)
    with pytest.raises(ConfigError, match=r"policy.top_k.*\[1, 20\]"):
        await svc.get_context(settings, QUERY, trust_context=MEDIUM, policy={"top_k": 50})


async def test_metrics_registry_counts_requests(settings, graph, facts, tmp_path):
    pytest.importorskip("prometheus_client")
    from graph_trust.context import metrics

    group, _ = facts
    reg = metrics.registry()
    before = reg.get_sample_value("graph_trust_retrieval_requests_total", {"outcome": "ok"}) or 0.0
    svc = ContextService()
    await svc.get_context(settings, QUERY, trust_context=MEDIUM, groups=[group], connection=graph)
    await svc.get_context(settings, QUERY, trust_context=MEDIUM, groups=[group], connection=graph)
    assert reg.get_sample_value("graph_trust_retrieval_requests_total", {"outcome": "ok"}) == before + 1
    assert reg.get_sample_value("graph_trust_retrieval_requests_total", {"outcome": "cache"}) >= 1
    assert reg.get_sample_value("graph_trust_retrieval_cache_hit_ratio") == pytest.approx(0.5)
    out = tmp_path / "m.prom"
    metrics.write_textfile(out)
    text = out.read_text()
    assert "graph_trust_retrieval_latency_seconds_bucket" in text
    from prometheus_client.parser import text_string_to_metric_families

    names = {f.name for f in text_string_to_metric_families(text)}
    assert {"graph_trust_retrieval_requests", "graph_trust_retrieval_tokens", "graph_trust_retrieval_dedup_ratio",
            "graph_trust_retrieval_results", "graph_trust_retrieval_cache_hit_ratio"} <= names


def test_cli_policy_json_text_and_metrics_file(settings, facts, tmp_path):
    group, uuids = facts
    base = ["--graph", settings.graph.uri]
    env = {"GRAPH_TRUST_STATE_DIR": str(settings.state_dir)}
    env_db = env
    prom = tmp_path / "ctx.prom"
    r = run_cli("context", QUERY, "--policy", "--group", group, "--min-score", "0", "--max-tokens", "150",
                "--json", "--metrics-file", str(prom), *base, env=env_db)
    assert r.code == 0, r.err
    data = r.json()
    assert set(data) == {"memories", "metadata"} and data["metadata"]["total_tokens"] <= 150
    assert uuids["root"] not in {m["id"] for m in data["memories"]}
    assert "graph_trust_retrieval_requests_total" in prom.read_text()
    r = run_cli("context", QUERY, "--policy", "--group", group, "--min-score", "0", *base, env=env_db)
    assert r.code == 0 and r.out.startswith("## Relevant Context") and "_Retrieved " in r.out
    r = run_cli("context", QUERY, "--policy", "--top-k", "21", *base, env=env_db)
    assert r.code == 2 and "policy.top_k" in r.err and "[1, 20]" in r.err
    r = run_cli("context", QUERY, "--top-k", "3", *base, env=env_db)
    assert r.code == 2 and "need --policy" in r.err
    r = run_cli("context", QUERY, "--policy", "--group", "nope", *base, env=env_db)
    assert r.code == 0 and r.out == "" and "GROUP_NOT_FOUND" in r.err


async def test_graph_lost_mid_session_is_skipped(tmp_path):
    """The server dies under an open connection: GRAPH_UNAVAILABLE, not an exception."""
    import os
    import signal

    from graph_trust.graph.connection import open_graph
    from graph_trust.graph.embedded import EmbeddedServer

    server = EmbeddedServer(tmp_path / "g").start()  # this test's own server, killed below
    s = load_settings(overrides={"graph.uri": f"embedded:{tmp_path}/g", "state_dir": str(tmp_path / "s")}, environ={})
    try:
        async with open_graph(s) as conn:
            await _save(conn.for_group("lost").driver, "lost")
            svc = ContextService()
            ok = await svc.get_context(s, QUERY, trust_context=MEDIUM, groups=["lost"], connection=conn)
            assert ok.memories
            os.kill(server.pid, signal.SIGKILL)
            p = await svc.get_context(s, "deploy verification", trust_context=MEDIUM, groups=["lost"],
                                      connection=conn)
            assert p.memories == [] and (p.metadata.error_code, p.metadata.fallback) == ("GRAPH_UNAVAILABLE", "skip")
            assert "cannot reach graph" in p.metadata.reason
    finally:
        server.stop()
