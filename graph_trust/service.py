"""Library equivalents of the CLI's graph commands: open a Graphiti on the configured graph,
resolve groups, and run a trust-boosted search.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from graph_trust.config import Settings
from graph_trust.connection import GraphConnection, open_graph
from graph_trust.embedder import make_embedder  # moved there; kept importable from here
from graph_trust.errors import InputError
from graphiti_core.search.search_config import SearchConfig

from graph_trust.graphiti import (
    EDGE_HYBRID_SEARCH_RRF_TRUST,
    NODE_HYBRID_SEARCH_RRF_TRUST,
    TrustSearchConfig,
    TrustSearchResults,
    check_query,
    trust_search,
)


@asynccontextmanager
async def open_graphiti(settings: Settings) -> AsyncIterator[tuple[GraphConnection, Any]]:
    """(connection, Graphiti) on the configured graph, built offline (no LLM calls)."""
    from graph_trust.offline import make_graphiti

    async with open_graph(settings) as conn:
        yield conn, make_graphiti(conn.driver, embedder=make_embedder(settings))


async def existing_groups(conn: GraphConnection) -> list[str]:
    """Groups that hold Graphiti entities (FalkorDB: graphs; Neo4j: group_id values)."""
    if conn.dialect == "falkordb":
        names = await conn.graph_names()
        out = []
        for name in names:
            if await conn.for_group(name).query("graph_has_entities"):
                out.append(name)
        return out
    return [r["group_id"] for r in await conn.query("entity_groups")]


async def resolve_groups(conn: GraphConnection, groups: list[str] | None) -> list[str] | None:
    """Check requested groups exist; none requested means every group (FalkorDB: every graph)."""
    known = await existing_groups(conn)
    if groups:
        unknown = [g for g in groups if g not in known]
        if unknown:
            shown = ", ".join(sorted(known)[:10]) or "none"
            raise InputError(f"unknown group {unknown[0]!r} (groups in this graph: {shown})")
        return list(groups)
    if conn.dialect == "falkordb":
        return known or None
    return None


# search settings that are TrustSearchConfig fields of the same name and meaning
_RANKING_KEYS = ("rank_const", "pool_multiplier", "boost_expired", "boost_form", "min_boost_trust",
                 "negative_statuses", "demote_invalidated", "negative_penalty", "drop_negative")


def search_config(settings: Settings, *, scope: str = "edges", limit: int | None = None,
                  base: SearchConfig | None = None) -> TrustSearchConfig:
    """The hybrid RRF trust recipe for ``scope`` (or ``base``) with ``settings.search`` applied."""
    s = settings.search
    recipe = base if base is not None else (
        EDGE_HYBRID_SEARCH_RRF_TRUST if scope == "edges" else NODE_HYBRID_SEARCH_RRF_TRUST)
    data = recipe.model_dump()
    if data.get("trust_weight") is None:
        data["trust_weight"] = s.trust_weight
    data.update(limit=limit or s.limit, **{k: getattr(s, k) for k in _RANKING_KEYS},
                cosine={"mode": s.cosine, "min_size": s.cosine_index_min_size, "oversample": s.cosine_oversample})
    return TrustSearchConfig(**data)


async def search(
    settings: Settings,
    query: str,
    *,
    scope: str = "edges",
    limit: int | None = None,
    trust_weight: float | None = None,
    groups: list[str] | None = None,
) -> TrustSearchResults:
    """Trust-boosted search on the configured graph (what ``graph-trust search`` runs)."""
    s = settings.search
    check_query(query, s.max_query_chars)
    config = search_config(settings, scope=scope, limit=limit)
    async with open_graphiti(settings) as (conn, graphiti):
        group_ids = await resolve_groups(conn, groups or s.group_ids or None)
        return await trust_search(graphiti, query, config=config, group_ids=group_ids,
                                  trust_weight=trust_weight, max_query_chars=s.max_query_chars)


def composite_rank(settings: Settings, results: TrustSearchResults, *, scope: str = "edges",
                   limit: int | None = None, memory_types: list[str] | None = None,
                   now: Any = None) -> list[Any]:
    """The optional second stage: composite rank (trust, recency, relevance, type) of a search.
    ``now`` (a datetime; default the current time) is the instant recency is measured from."""
    from graph_trust.composite import rank_composite
    from graph_trust.pipeline import max_fused_for
    from graph_trust.records import records_from_results

    records = records_from_results(results)
    return rank_composite(records, settings.composite, memory_types=memory_types, now=now,
                          max_fused=max_fused_for(search_config(settings, scope=scope)),
                          max_results=limit or settings.composite.max_results)


async def init_graph(settings: Settings, groups: list[str] | None = None) -> dict[str, Any]:
    """Create what graph-trust needs, idempotently: Graphiti's indices and constraints and the
    RELATES_TO.uuid / Entity.uuid range indexes sync relies on, and the vector indexes of
    ``vector_index`` settings, in every requested group (FalkorDB: in each group's graph;
    default: every group that exists, plus the default graph). ``vector_indexes`` reports, per
    graph, what exists, was created, or why not.
    """
    from graph_trust.graph import vector_index
    from graph_trust.sync.runner import ensure_indexes

    async with open_graph(settings) as conn:
        if conn.dialect == "falkordb":
            targets = list(dict.fromkeys([*(groups or await existing_groups(conn)), conn.database]))
        else:
            targets = [conn.database]
        for name in targets:
            await _graphiti_indices(conn.for_group(name))
        await conn.settle()
        await ensure_indexes(conn)
        vectors = {name: await vector_index.ensure(conn.for_group(name), settings.vector_index) for name in targets}
        return {"graph": conn.address.display, "dialect": conn.dialect, "graphs": targets,
                "vector_indexes": vectors}


async def _graphiti_indices(g: GraphConnection) -> None:
    """Graphiti's own indices and constraints. On Neo4j only the statements whose index name is
    missing run, so servers that create some indexes differently (e.g. fulltext) are left alone."""
    if g.dialect == "falkordb":
        await g.driver.build_indices_and_constraints()
        return
    import re

    from graphiti_core.graph_queries import get_fulltext_indices, get_range_indices

    existing = {r["name"] for r in await g.query("index_names")}
    for stmt in get_range_indices(g.driver.provider) + get_fulltext_indices(g.driver.provider):
        m = re.search(r"INDEX\s+(\w+)", stmt)
        if m and m.group(1) in existing:
            continue
        await g.run_text(stmt, {}, write=True)
