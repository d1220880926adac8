"""Build small graphs through graphiti-core's own API (EntityNode/EntityEdge .save(), no LLM).

``vector_procedure=False`` is for ArcadeDB's Bolt endpoint, which lacks Neo4j's
``db.create.set*VectorProperty``: the same objects are written with graphiti-core's own Neo4j
save queries built with ``has_aoss=True`` (no vector call; embeddings stored as float lists).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from uuid import NAMESPACE_URL, uuid5

from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EntityNode


@dataclass(frozen=True)
class Fact:
    subject: str
    predicate: str
    object: str
    fact: str
    trust: float | None = None
    invalid_at: datetime | None = None
    properties: dict | None = None  # other edge properties (memory_type, sensitivity, ...)
    at: datetime | None = None  # created_at and valid_at (default 2026-01-01)
    episodes: tuple[str, ...] = ()


def stable_uuid(*parts: str) -> str:
    return str(uuid5(NAMESPACE_URL, "/".join(parts)))


async def _save(obj, driver, vector_procedure: bool) -> None:
    """``obj.save(driver)``, or graphiti-core's Neo4j save query without the vector procedure."""
    if vector_procedure:
        await obj.save(driver)
        return
    from graphiti_core.driver.driver import GraphProvider
    from graphiti_core.models.edges.edge_db_queries import get_entity_edge_save_query
    from graphiti_core.models.nodes.node_db_queries import get_entity_node_save_query

    if isinstance(obj, EntityNode):
        data = {"uuid": obj.uuid, "name": obj.name, "name_embedding": obj.name_embedding,
                "group_id": obj.group_id, "summary": obj.summary, "created_at": obj.created_at}
        labels = ":".join(dict.fromkeys([*obj.labels, "Entity"]))
        query, key = get_entity_node_save_query(GraphProvider.NEO4J, labels, has_aoss=True), "entity_data"
    else:
        data = {"source_uuid": obj.source_node_uuid, "target_uuid": obj.target_node_uuid, "uuid": obj.uuid,
                "name": obj.name, "group_id": obj.group_id, "fact": obj.fact, "fact_embedding": obj.fact_embedding,
                "episodes": obj.episodes, "created_at": obj.created_at, "expired_at": obj.expired_at,
                "valid_at": obj.valid_at, "invalid_at": obj.invalid_at, "reference_time": obj.reference_time}
        query, key = get_entity_edge_save_query(GraphProvider.NEO4J, has_aoss=True), "edge_data"
    data.update({k: v for k, v in (obj.attributes or {}).items() if k not in data})
    await driver.execute_query(query, **{key: data})


async def build_graph(driver, embedder, facts: list[Fact], group_id: str, *, indices: bool = True,
                      vector_procedure: bool = True):
    """Save ``facts`` into ``driver``'s graph; return {fact text: edge uuid}.

    ``vector_procedure=False``: ArcadeDB's Bolt endpoint (see the module docstring); create the
    indexes with ``graph_trust.graph.schema.init_graph`` then (``indices`` runs Graphiti's DDL as is)."""
    if indices:
        await driver.build_indices_and_constraints()
    now = datetime(2026, 1, 1, tzinfo=UTC)
    nodes: dict[str, EntityNode] = {}
    for f in facts:
        for name in (f.subject, f.object):
            if name not in nodes:
                node = EntityNode(uuid=stable_uuid(group_id, "n", name), name=name, group_id=group_id,
                                  labels=["Entity"], summary=f"{name} entity", created_at=now)
                await node.generate_name_embedding(embedder)
                await _save(node, driver, vector_procedure)
                nodes[name] = node
    out = {}
    for f in facts:
        edge = EntityEdge(
            uuid=stable_uuid(group_id, "e", f.fact),
            source_node_uuid=nodes[f.subject].uuid,
            target_node_uuid=nodes[f.object].uuid,
            name=f.predicate,
            fact=f.fact,
            group_id=group_id,
            episodes=list(f.episodes),
            created_at=f.at or now,
            valid_at=f.at or now,
            invalid_at=f.invalid_at,
            attributes={**(f.properties or {}), **({} if f.trust is None else {"trust_score": f.trust})},
        )
        await edge.generate_embedding(embedder)
        await _save(edge, driver, vector_procedure)
        out[f.fact] = edge.uuid
    return out


def expected_boosted(pool_explanations, facts: list[Fact], weight: float, limit: int):
    """Final scores computed by hand (fused + trust x weight; no boost for invalidated facts)
    from an unboosted pool, and the top-``limit`` order they imply (checked to have no ties)."""
    trust = {f.fact: (f.trust if f.invalid_at is None else None) or 0.0 for f in facts}
    expected = {e.uuid: e.fused + trust[e.text] * weight for e in pool_explanations}
    top = sorted(expected.values(), reverse=True)
    assert len(set(top[: limit + 1])) == limit + 1, "ties: the expected order would be ambiguous"
    return expected, sorted(expected, key=lambda u: -expected[u])[:limit]


def copy_recipe(recipe, limit: int):
    """A private copy of a search recipe with ``limit`` set (shared recipes stay untouched)."""
    c = recipe.model_copy(deep=True)
    c.limit = limit
    return c


def reference_recipe(recipe, limit: int):
    """A private copy of a trust recipe with the additive formula alone (``profile: reference``)."""
    return copy_recipe(recipe, limit).model_copy(update={"profile": "reference"})


def assert_same_up_to_tie_order(ours: list[str], ours_scores: list[float], theirs: list[str],
                                theirs_scores: list[float]) -> None:
    """The same scores; the same items at each score (the last score, which the cut may split
    among tied items, only as many); ours in the documented tie order (equal scores by uuid)."""
    assert ours_scores == theirs_scores
    assert ours == [u for _, u in sorted(zip(ours_scores, ours, strict=True), key=lambda t: (-t[0], t[1]))]
    last = ours_scores[-1] if ours_scores else None
    for s in set(ours_scores) - {last}:
        assert {u for u, x in zip(ours, ours_scores, strict=True) if x == s} == {
            u for u, x in zip(theirs, theirs_scores, strict=True) if x == s}


async def assert_weight_zero_is_search_(graphiti, query: str, group: str, limits=(3, 5, 10)) -> int:
    """trust_search at weight 0 returns Graphiti's ``search_`` (edge and node RRF recipes):
    with ``profile: graphiti`` exactly (same items, order and scores); with the reference settings
    the same items and scores, equal scores in the documented order (by uuid). Returns how many
    items were compared."""
    from graphiti_core.search import search_config_recipes as recipes

    from graph_trust.search import trust_search as gt

    compared = 0
    for vanilla_recipe, trust_recipe in [(recipes.EDGE_HYBRID_SEARCH_RRF, gt.EDGE_HYBRID_SEARCH_RRF_TRUST),
                                         (recipes.NODE_HYBRID_SEARCH_RRF, gt.NODE_HYBRID_SEARCH_RRF_TRUST)]:
        for limit in limits:
            vanilla = await graphiti.search_(query, config=copy_recipe(vanilla_recipe, limit), group_ids=[group])
            exact = await gt.trust_search(graphiti, query, group_ids=[group], trust_weight=0.0,
                                          config=copy_recipe(trust_recipe, limit).model_copy(
                                              update={"profile": "graphiti"}))
            assert [e.uuid for e in exact.edges] == [e.uuid for e in vanilla.edges]
            assert exact.edge_reranker_scores == vanilla.edge_reranker_scores
            assert [n.uuid for n in exact.nodes] == [n.uuid for n in vanilla.nodes]
            assert exact.node_reranker_scores == vanilla.node_reranker_scores
            ours = await gt.trust_search(graphiti, query, config=reference_recipe(trust_recipe, limit),
                                         group_ids=[group], trust_weight=0.0)
            assert_same_up_to_tie_order([e.uuid for e in ours.edges], ours.edge_reranker_scores,
                                        [e.uuid for e in vanilla.edges], vanilla.edge_reranker_scores)
            assert_same_up_to_tie_order([n.uuid for n in ours.nodes], ours.node_reranker_scores,
                                        [n.uuid for n in vanilla.nodes], vanilla.node_reranker_scores)
            assert len(ours.edge_explanations) == len(ours.edges)
            compared += len(vanilla.edges) + len(vanilla.nodes)
    return compared


def sample_as_group(group: str) -> dict:
    """The bundled sample's demo group under another group id (on FalkorDB: its own graph), so a
    test can load it with any embedder without meeting another test's copy on the shared server."""
    from graph_trust.demo.sample import demo_group, sample_graph

    data = sample_graph()
    main = demo_group()
    data["entities"] = [dict(e, group_id=group) for e in data["entities"] if e["group_id"] == main]
    data["edges"] = [dict(e, group_id=group) for e in data["edges"] if e["group_id"] == main]
    data["groups"], data["demo_group"] = [group], group
    return data
