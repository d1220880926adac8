"""Moved to :mod:`graph_trust.graph.embedded`; kept so existing imports work."""

from graph_trust.graph.embedded import BINARY_ENV, MODULE_ENV, EmbeddedServer

__all__ = ["BINARY_ENV", "MODULE_ENV", "EmbeddedServer"]
