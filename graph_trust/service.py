"""Library equivalents of the CLI's graph commands: open a Graphiti on the configured graph,
resolve groups, and run a trust-boosted search.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from graph_trust.config import Settings
from graph_trust.connection import GraphConnection, open_graph
from graph_trust.errors import ConfigError, InputError
from graph_trust.graphiti import (
    EDGE_HYBRID_SEARCH_RRF_TRUST,
    NODE_HYBRID_SEARCH_RRF_TRUST,
    TrustSearchConfig,
    TrustSearchResults,
    trust_search,
)


def make_embedder(settings: Settings) -> Any:
    """The embedder named by ``search.embedder``: 'hashing' or 'module:callable'."""
    spec = settings.search.embedder
    if spec == "hashing":
        from graph_trust.embedder import HashingEmbedder

        return HashingEmbedder()
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise ConfigError(f"config key search.embedder: expected 'hashing' or 'module:callable', got {spec!r}")
    try:
        factory = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"config key search.embedder: cannot load {spec!r} ({exc})") from None
    return factory()


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
    if not isinstance(query, str) or not query.strip():
        raise InputError("the search query is empty")
    if len(query) > s.max_query_chars:
        raise InputError(f"the search query is {len(query):,} characters; the limit is {s.max_query_chars:,}")
    recipe = EDGE_HYBRID_SEARCH_RRF_TRUST if scope == "edges" else NODE_HYBRID_SEARCH_RRF_TRUST
    config = TrustSearchConfig(
        **{**recipe.model_dump(), "limit": limit or s.limit, "trust_weight": s.trust_weight,
           "rank_const": s.rank_const, "pool_multiplier": s.pool_multiplier, "boost_expired": s.boost_expired}
    )
    async with open_graphiti(settings) as (conn, graphiti):
        group_ids = await resolve_groups(conn, groups or s.group_ids or None)
        return await trust_search(graphiti, query, config=config, group_ids=group_ids,
                                  trust_weight=trust_weight, max_query_chars=s.max_query_chars)
