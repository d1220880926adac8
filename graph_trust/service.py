"""Graph set-up: :func:`init_graph` (what ``graph-trust init`` runs).

The other names once defined here moved; they are re-exported so existing imports work:
the embedder factory to :mod:`graph_trust.embedder`, opening Graphiti and group discovery to
:mod:`graph_trust.session`, the settings-driven search to :mod:`graph_trust.ranked_search`.
"""

from __future__ import annotations

from typing import Any

from graph_trust.config import Settings
from graph_trust.connection import GraphConnection, open_graph
from graph_trust.embedder import make_embedder
from graph_trust.ranked_search import composite_rank, search, search_config
from graph_trust.session import existing_groups, open_graphiti, resolve_groups


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


__all__ = ["composite_rank", "existing_groups", "init_graph", "make_embedder", "open_graphiti", "resolve_groups",
           "search", "search_config"]
