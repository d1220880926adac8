"""Kept so existing imports work; its names moved: the embedder factory to
:mod:`graph_trust.embedder`, opening Graphiti and group discovery to :mod:`graph_trust.session`,
the settings-driven search to :mod:`graph_trust.ranked_search`, graph set-up to
:mod:`graph_trust.graph.schema`. New code imports :mod:`graph_trust.api`.
"""

from graph_trust.embedder import make_embedder
from graph_trust.graph.schema import init_graph
from graph_trust.ranked_search import composite_rank, search, search_config
from graph_trust.session import existing_groups, open_graphiti, resolve_groups

__all__ = ["composite_rank", "existing_groups", "init_graph", "make_embedder", "open_graphiti", "resolve_groups",
           "search", "search_config"]
