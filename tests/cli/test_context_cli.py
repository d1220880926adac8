"""End to end on the embedded FalkorDB: the context pipeline (library and CLI) and audit."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from builders import stable_uuid
from cli_helpers import run_cli
from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EntityNode

from graph_trust.access.trust_context import TrustContext
from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.clients.offline import make_graphiti
from graph_trust.context.agent import build_context, context_for_settings, get_record
from graph_trust.errors import AccessDeniedError, MissingTrustContextError, NotFoundError

NOW = datetime.now(UTC)

# (key, subject, predicate, object, fact, properties)
FACTS = [
    ("instr", "billing-db", "RULE", "verify", "Backups of billing-db must be verified before any deploy",
     {"trust_score": 0.9, "memory_type": "instruction", "sensitivity": "low"}),
    ("two", "billing-db", "BACKUP_AT", "02:00 UTC", "The nightly backup of billing-db runs at 02:00 UTC",
     {"trust_score": 0.6, "success_count": 9, "failure_count": 1}),
    ("three", "billing-db", "BACKUP_AT", "03:00 UTC", "The billing-db backup job runs at 03:00 UTC",
     {"trust_score": 0.9}),
    ("key", "billing-db", "KEY_IN", "vault", "The billing-db backup encryption key is in vault kv/billing",
     {"trust_score": 0.8, "sensitivity": "high"}),
    ("root", "billing-db", "ROOT_PW", "rotation", "The billing-db backup root password rotates monthly",
     {"trust_score": 0.8, "sensitivity": "hyper"}),
    ("drill", "billing-db", "DRILL_OWNER", "team-sec", "The billing-db backup restore drill is owned by team-sec",
     {"trust_score": 0.7, "scope": "team-sec"}),
    ("weak", "billing-db", "MAYBE_ON", "cron-host", "The billing-db backup maybe runs on cron-host",
     {"trust_score": 0.05}),
]


async def _save(driver, group: str) -> dict[str, str]:
    embedder = HashingEmbedder()
    await driver.build_indices_and_constraints()
    nodes: dict[str, EntityNode] = {}
    out = {}
    for key, subj, pred, obj, fact, props in FACTS:
        for name in (subj, obj):
            if name not in nodes:
                node = EntityNode(uuid=stable_uuid(group, "n", name), name=name, group_id=group, labels=["Entity"],
                                  summary=f"{name} entity", created_at=NOW)
                await node.generate_name_embedding(embedder)
                await node.save(driver)
                nodes[name] = node
        edge = EntityEdge(uuid=stable_uuid(group, "e", key), source_node_uuid=nodes[subj].uuid,
                          target_node_uuid=nodes[obj].uuid, name=pred, fact=fact, group_id=group, episodes=[],
                          created_at=NOW - timedelta(hours=1), valid_at=NOW - timedelta(hours=1), attributes=props)
        await edge.generate_embedding(embedder)
        await edge.save(driver)
        out[key] = edge.uuid
    return out


@pytest.fixture
async def facts(graph, unique):
    group = f"g_{unique}"
    uuids = await _save(graph.for_group(group).driver, group)
    return group, uuids


async def test_pipeline_on_the_graph(settings, graph, facts):
    group, uuids = facts
    ctx = TrustContext("medium", True, "alice")
    # the min_trust filter at work (its default is 0: nothing dropped)
    settings = settings.model_copy(update={"composite": settings.composite.model_copy(update={"min_trust": 0.1})})
    out = await context_for_settings(settings, "billing-db backup", trust_context=ctx, groups=[group])
    by_uuid = {i.uuid: i for i in out.items}

    assert uuids["root"] not in by_uuid and out.denied >= 1  # hyper: two levels above medium
    key = by_uuid[uuids["key"]]  # high: exactly one above, redacted
    assert key.record.redacted and key.record.text == "" and key.trust == 0.8
    assert uuids["weak"] not in by_uuid and out.below_min_trust >= 1
    assert uuids["drill"] in by_uuid  # no scopes in the context: every scope

    [sel] = out.selections
    assert {sel.best.uuid, *(a.uuid for a in sel.alternatives)} == {uuids["two"], uuids["three"]}
    assert 0.0 <= sel.confidence <= 1.0
    assert len({uuids["two"], uuids["three"]} & set(by_uuid)) == 1  # the alternative is reported, not listed

    assert out.layers[0].memory_type == "instruction" and out.items[0].uuid == uuids["instr"]
    text = out.text()
    assert text.splitlines()[0] == "## Trusted Memory Context"
    assert "- [instruction|trust:90%] Backups of billing-db must be verified before any deploy" in text
    assert "competing facts: confidence" in text and "  - alternative [fact|" in text
    assert "vault" not in text and "[redacted]" in text

    scoped = await context_for_settings(
        settings, "billing-db backup", trust_context=TrustContext("medium", scopes=("team-sec",)), groups=[group]
    )
    assert [i.uuid for i in scoped.items] == [uuids["drill"]]


async def test_boost_mode_get_record_and_missing_context(settings, graph, facts):
    group, uuids = facts
    driver = graph.for_group(group).driver
    graphiti = make_graphiti(driver, embedder=HashingEmbedder())
    with pytest.raises(MissingTrustContextError):
        await build_context(graphiti, "billing-db backup", settings=settings, trust_context=None)
    out = await build_context(graphiti, "billing-db backup", settings=settings, trust_context=TrustContext.unrestricted(),
                              rank="boost", group_ids=[group])
    finals = [i.record.explanation.final for i in out.items if i.record.explanation is not None]
    assert uuids["root"] in {i.uuid for i in out.items} and out.denied == 0
    by_layer = {}
    for layer in out.layers:
        by_layer[layer.memory_type] = [i.record.explanation.final for i in layer.items]
    assert all(v == sorted(v, reverse=True) for v in by_layer.values()) and finals

    ctx = TrustContext("medium")
    assert (await get_record(graphiti, uuids["two"], settings=settings, trust_context=ctx)).text.startswith("The nightly")
    assert (await get_record(graphiti, uuids["key"], settings=settings, trust_context=ctx)).redacted
    with pytest.raises(AccessDeniedError):
        await get_record(graphiti, uuids["root"], settings=settings, trust_context=ctx)
    with pytest.raises(NotFoundError):
        await get_record(graphiti, "no-such-uuid", settings=settings, trust_context=ctx)


def test_cli_context_and_audit(settings, graph, facts, tmp_path):
    group, uuids = facts
    common = ["--graph", settings.graph.uri, "--group", group]
    env = {"GRAPH_TRUST_STATE_DIR": str(tmp_path / "cli-state")}

    r = run_cli("context", "billing-db backup", "--actor", "alice", "--max-sensitivity", "medium", *common, env=env)
    assert r.code == 0, r.err
    assert r.out.startswith("## Trusted Memory Context\n- [instruction|trust:90%] Backups of billing-db")

    r = run_cli("context", "billing-db backup", "--unrestricted", "--type", "fact", "--json", "--actor", "ops",
                "--trust-override", "0.95", *common, env=env)
    assert r.code == 0, r.err
    assert "trust override rejected" in r.err
    data = r.json()
    assert data["override"]["decision"] == "rejected" and data["trust_context"]["unrestricted"] is True
    assert {rec["memory_type"] for rec in data["records"]} == {"fact"}
    assert all(rec["trust_source"] == "property" for rec in data["records"])
    assert {"recency", "relevance", "type_boost", "composite", "fusion"} <= set(data["records"][0])

    r = run_cli("audit", "--json", env=env)
    assert r.code == 0, r.err
    [event] = r.json()["events"]
    assert (event["decision"], event["actor"], event["source"], event["requested"]) == ("rejected", "ops", "cli", 0.95)
    assert any("approved_by" in v for v in event["violations"])

    r = run_cli("context", "x", "--unrestricted", "--scope", "a", *common, env=env)
    assert r.code == 2 and "--unrestricted" in r.err
