"""The bundled sample: loads through graphiti-core into a real embedded FalkorDB, idempotently,
with no trust; offline Graphiti searches it; the review rows follow issue 3's schema."""

from __future__ import annotations

import json

import pytest
from falkordb.asyncio import FalkorDB
from graphiti_core.driver.falkordb_driver import FalkorDriver
from graphiti_core.prompts.models import Message
from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.clients.offline import LLMUnavailableError, make_graphiti
from graph_trust.demo.sample import (
    demo_group,
    demo_queries,
    load_sample,
    sample_graph,
    sample_groups,
    sample_review_rows,
)
from graph_trust.errors import InputError
from graph_trust.graph.embedded import EmbeddedServer

TIERS = {"promoted": 1.0, "corroborated": 0.6, "candidate": 0.25, "rejected": 0.0, "expired": 0.0}
REVIEW_COLUMNS = {
    "id", "subject", "predicate", "object", "fact", "status", "evidence_refs_json", "group_id",
    "updated_at", "memory_type", "sensitivity", "scope", "confidence",
}


@pytest.fixture
def falkor(tmp_path):
    with EmbeddedServer(tmp_path / "graph") as server:
        yield server.socket_path


@pytest.fixture
async def driver(falkor):
    drv = FalkorDriver(falkor_db=FalkorDB(unix_socket_path=falkor), database=demo_group())
    await drv._init_task  # the index build FalkorDriver starts when made inside a loop
    yield drv
    await drv.close()


async def _query(driver, group: str, cypher: str, **params) -> list[list]:
    """Run Cypher on the graph ``group`` with the raw client (no extra graphiti drivers)."""
    result = await driver.client.select_graph(group).query(cypher, params)
    return result.result_set


async def _count(driver, group: str, cypher: str) -> int:
    return (await _query(driver, group, cypher))[0][0]


async def _counts(driver) -> dict[str, tuple[int, int]]:
    return {
        g: (
            await _count(driver, g, "MATCH (n:Entity) RETURN count(n)"),
            await _count(driver, g, "MATCH ()-[e:RELATES_TO]->() RETURN count(e)"),
        )
        for g in sample_groups()
    }


def _expected_counts() -> dict[str, tuple[int, int]]:
    data = sample_graph()
    return {
        g: (
            sum(e["group_id"] == g for e in data["entities"]),
            sum(e["group_id"] == g for e in data["edges"]),
        )
        for g in data["groups"]
    }


async def test_load_is_idempotent_and_non_destructive(driver):
    first = await load_sample(driver, HashingEmbedder())
    data = sample_graph()
    assert first.entities_created == len(data["entities"]) and first.edges_created == len(data["edges"])
    assert await _counts(driver) == _expected_counts()

    # sync writes trust later; a reload must neither duplicate nor overwrite anything
    some_edge = data["edges"][0]
    group = some_edge["group_id"]
    set_trust = "MATCH ()-[e:RELATES_TO {uuid: $uuid}]->() SET e.trust_score = 0.6"
    await _query(driver, group, set_trust, uuid=some_edge["uuid"])
    second = await load_sample(driver, HashingEmbedder())
    assert (second.entities_created, second.edges_created) == (0, 0)
    assert (second.entities_existing, second.edges_existing) == (len(data["entities"]), len(data["edges"]))
    assert await _counts(driver) == _expected_counts()
    get_trust = "MATCH ()-[e:RELATES_TO {uuid: $uuid}]->() RETURN e.trust_score"
    assert await _query(driver, group, get_trust, uuid=some_edge["uuid"]) == [[0.6]]


async def test_load_puts_no_trust_in_the_graph(driver):
    await load_sample(driver)
    for g in sample_groups():
        edges = "MATCH ()-[e:RELATES_TO]->() WHERE e.trust_score IS NOT NULL RETURN count(e)"
        nodes = "MATCH (n:Entity) WHERE n.trust_score IS NOT NULL RETURN count(n)"
        assert await _count(driver, g, edges) == 0
        assert await _count(driver, g, nodes) == 0
    data = sample_graph()
    assert not any("trust" in key for item in data["entities"] + data["edges"] for key in item)


async def test_partial_load_and_unknown_group(driver):
    report = await load_sample(driver, groups=["ops-eu"])
    assert [g.group_id for g in report.groups] == ["ops-eu"]
    counts = await _counts(driver)
    assert counts["ops-eu"] == _expected_counts()["ops-eu"]
    assert counts["ops"] == (0, 0)
    with pytest.raises(InputError, match="'nope'"):
        await load_sample(driver, groups=["nope"])


async def test_offline_graphiti_searches_the_sample_without_api_key(driver, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    await load_sample(driver)
    graphiti = make_graphiti(driver)
    config = EDGE_HYBRID_SEARCH_RRF.model_copy(deep=True)
    config.limit = 5
    results = await graphiti.search_(demo_queries()[0], config=config, group_ids=[demo_group()])
    facts = [e.fact for e in results.edges]
    assert len(facts) == 5
    assert "The billing database backup runs at 03:00 UTC." in facts
    assert all(e.group_id == demo_group() for e in results.edges)
    with pytest.raises(LLMUnavailableError, match="needs a real one"):
        await graphiti.llm_client.generate_response([Message(role="user", content="hi")])


def _trust_by_edge() -> dict[str, float]:
    trust: dict[str, float] = {}
    for row in sample_review_rows():
        uuid = json.loads(row["evidence_refs_json"])[0]["evidence_id"]
        trust[uuid] = max(trust.get(uuid, 0.0), TIERS[row["status"]])
    return trust


async def test_demo_queries_put_an_unverified_fact_above_the_promoted_one(driver):
    """The data's demo property: in Graphiti's vanilla order (limit 5) each query's promoted
    fact ranks 2..4 below a fact that is not promoted, and its fused score is within the
    default boost (0.15 x trust 1.0) of that fact's boosted score, so trust flips them."""
    await load_sample(driver)
    graphiti = make_graphiti(driver)
    trust = _trust_by_edge()
    for query in demo_queries():
        config = EDGE_HYBRID_SEARCH_RRF.model_copy(deep=True)
        config.limit = 5
        res = await graphiti.search_(query, config=config, group_ids=[demo_group()])
        uuids = [e.uuid for e in res.edges]
        promoted = [i for i, u in enumerate(uuids) if trust.get(u) == 1.0 and res.edges[i].invalid_at is None]
        assert promoted, query
        rank = promoted[0]
        assert 1 <= rank <= 3, (query, rank)
        above = rank - 1
        boost_above = 0.0 if res.edges[above].invalid_at is not None else 0.15 * trust.get(uuids[above], 0.0)
        assert trust.get(uuids[above], 0.0) < 1.0
        assert res.edge_reranker_scores[rank] + 0.15 > res.edge_reranker_scores[above] + boost_above, query


def test_review_rows_follow_the_candidates_schema():
    rows = sample_review_rows()
    data = sample_graph()
    edge_ids = {e["uuid"] for e in data["edges"]}
    assert all(set(r) == REVIEW_COLUMNS for r in rows)
    assert len({r["id"] for r in rows}) == len(rows)
    assert {r["status"] for r in rows} == set(TIERS)
    evidence = [json.loads(r["evidence_refs_json"])[0]["evidence_id"] for r in rows]
    covered = {e for e in evidence if e in edge_ids}
    assert 0.3 * len(edge_ids) <= len(covered) <= 0.5 * len(edge_ids)
    orphans = [e for e in evidence if e not in edge_ids]
    assert 3 <= len(orphans) <= 10
    assert len(evidence) > len(set(evidence))  # several rows for one edge: highest tier wins
    for r in rows:
        assert r["group_id"] in data["groups"]
        assert r["updated_at"].endswith("+00:00") and "T" in r["updated_at"]
        assert 0.0 <= r["confidence"] <= 1.0


def test_demo_queries_and_stats():
    assert len(demo_queries()) == 3 and all(q.strip() for q in demo_queries())
    data = sample_graph()
    assert 250 <= len(data["entities"]) <= 400 and 500 <= len(data["edges"]) <= 700
    assert sample_groups() == ["ops", "ops-eu"]
    # superseded facts carry invalid_at
    assert any("invalid_at" in e for e in data["edges"])
