"""Graph set-up: :func:`init_graph` (what ``graph-trust init`` runs).

The other names once defined here moved; they are re-exported so existing imports work:
the embedder factory to :mod:`graph_trust.embedder`, opening Graphiti and group discovery to
:mod:`graph_trust.session`, the settings-driven search to :mod:`graph_trust.ranked_search`.
"""

from __future__ import annotations

from typing import Any

from graph_trust.config import Settings
from graph_trust.embedder import make_embedder
from graph_trust.graph import schema
from graph_trust.graph.connection import open_graph
from graph_trust.ranked_search import composite_rank, search, search_config
from graph_trust.session import existing_groups, open_graphiti, resolve_groups


async def init_graph(settings: Settings, groups: list[str] | None = None) -> dict[str, Any]:
    """Create what graph-trust needs, idempotently (see :func:`graph_trust.graph.schema.init`):
    Graphiti's indices and constraints, the RELATES_TO.uuid / Entity.uuid range indexes sync
    relies on, and the vector indexes of ``vector_index`` settings, in every requested group."""
    async with open_graph(settings) as conn:
        return await schema.init(conn, settings.vector_index, groups)


__all__ = ["composite_rank", "existing_groups", "init_graph", "make_embedder", "open_graphiti", "resolve_groups",
           "search", "search_config"]
