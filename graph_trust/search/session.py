"""A Graphiti on the configured graph, and the groups it holds.

:func:`open_graphiti` opens the graph the settings name and builds a ``Graphiti`` over it with
offline clients and the configured embedder (:func:`graph_trust.clients.factory.make_embedder`), so a
search embeds its query as the graph's facts were embedded. :func:`resolve_groups` checks the
groups a command asks for against the ones that exist (FalkorDB keeps each group in its own
graph, Neo4j keeps them as ``group_id`` values in one database).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from graph_trust.clients.factory import make_embedder
from graph_trust.clients.offline import make_graphiti
from graph_trust.config import Settings
from graph_trust.errors import InputError
from graph_trust.graph.connection import GraphConnection, open_graph
from graph_trust.graph.routing import existing_groups, listed


@asynccontextmanager
async def open_graphiti(settings: Settings) -> AsyncIterator[tuple[GraphConnection, Any]]:
    """(connection, Graphiti) on the configured graph, built offline (no LLM calls)."""
    async with open_graph(settings) as conn:
        yield conn, make_graphiti(conn.driver, embedder=make_embedder(settings))


async def resolve_groups(conn: GraphConnection, groups: list[str] | None,
                         scopes: Sequence[str] = ()) -> list[str] | None:
    """Check requested groups exist; none requested means every group (FalkorDB: every graph).

    ``scopes`` (a trust context's) limits what the answer reveals about other groups: an unknown
    group's error lists only existing groups named in ``scopes``, and a requested group outside
    ``scopes`` that does not exist is dropped silently (an empty list when nothing is left), so a
    scoped caller cannot tell an absent group from one whose facts it may not see."""
    if groups:
        allowed = set(scopes)
        known = set(await existing_groups(conn, among=set(groups)))
        if allowed:
            groups = [g for g in groups if g in known or g in allowed]
        unknown = [g for g in groups if g not in known]
        if unknown:
            shown = await existing_groups(conn, among=allowed or None)  # the error lists those in scope
            raise InputError(f"unknown group {unknown[0]!r} (groups in this graph{' in your scope' if allowed else ''}: "
                             f"{listed(shown)})")
        return list(groups)
    known = await existing_groups(conn)
    if conn.backend.graph_per_group:
        return known or None
    return None


__all__ = ["existing_groups", "open_graphiti", "resolve_groups"]
