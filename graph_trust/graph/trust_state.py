"""The graph's trust-state marker: a token that changes whenever trust state is written.

Every statement that writes trust state (``trust_score`` and what sync writes beside it on edges
and entities, and the validity the guard restores: :data:`TRUST_STATE_WRITES`) is followed,
through :meth:`GraphConnection.write`, by ``trust_state_bump``, which gives the graph's one
``GraphTrustState`` node a fresh token. A reader (the retrieval policy's cache) puts the tokens of
the graphs it searches in its cache key, so an answer computed before a sync, a rollback or a
relink is never served after it. Sync, rollback and relink need no code of their own for this.

Where each group is a graph of its own (FalkorDB) each group has its own token; on a shared
database (Neo4j) one token covers every group.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, Protocol


class GraphConnection(Protocol):
    """What this module reads of a :class:`graph_trust.graph.connection.GraphConnection` (which
    imports this module: it is seen through this protocol, so the layer has no cycle)."""

    backend: Any
    database: str

    async def query(self, name: str, **params: Any) -> list[dict[str, Any]]: ...

    def for_group(self, group: str) -> GraphConnection: ...

MARKER = "trust"
# The cypher/ statements that write trust state (the aggregate rules are entity_trust_aggregate_*).
TRUST_STATE_WRITES = frozenset({"edge_trust_set", "edge_trust_clear", "edge_labels_set", "edge_validity_set",
                                "entity_trust_set", "entity_trust_clear"})


def writes_trust_state(statement: str) -> bool:
    """Whether the ``cypher/`` statement ``statement`` writes trust state."""
    return statement in TRUST_STATE_WRITES or statement.startswith("entity_trust_aggregate_")


def bump_params() -> dict[str, str]:
    """The parameters of one ``trust_state_bump``: a fresh token and the time."""
    return {"marker": MARKER, "token": uuid.uuid4().hex, "at": datetime.now(UTC).isoformat()}


async def read_token(conn: GraphConnection) -> str | None:
    """The token of ``conn``'s graph (None before its first write of trust state)."""
    rows = await conn.query("trust_state_read", marker=MARKER)
    return str(rows[0]["token"]) if rows else None


async def tokens(conn: GraphConnection, groups: list[str] | None) -> tuple[tuple[str, str | None], ...]:
    """``(graph, token)`` of every graph a search of ``groups`` reads: each group's graph where a
    group is a graph of its own, else the one database."""
    if conn.backend.graph_per_group and groups:
        return tuple([(g, await read_token(conn.for_group(g))) for g in sorted(set(groups))])
    return ((conn.database, await read_token(conn)),)


__all__ = ["MARKER", "TRUST_STATE_WRITES", "bump_params", "read_token", "tokens", "writes_trust_state"]
