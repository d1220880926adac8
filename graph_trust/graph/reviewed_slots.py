"""The graph's reviewed slot rows: what review decided about each fact, as the relation-cardinality
learning reads it (:func:`graph_trust.search.slots.learn_relations`).

Sync writes each reviewed edge's status (``trust_status``) beside its trust, and every such write
gives the graph a fresh trust-state token (:mod:`graph_trust.graph.trust_state`): the rows are
read once per token, so a search after a sync reads them again and every other search does not.
A graph with no token yet (never synced) is read every time (it has nothing to cache by)."""

from __future__ import annotations

from typing import Any

from graph_trust.graph import backends, queries
from graph_trust.graph.trust_state import MARKER

Row = tuple[Any, Any, Any, Any]
Rows = tuple[list[Row], dict[str, str]]
# trust-state token -> its graph's rows (a token is a fresh uuid per write: it names one graph state)
_CACHE: dict[str, Rows] = {}
_CACHE_SIZE = 64


async def reviewed_slot_rows(driver: Any, statuses: tuple[str, ...]) -> Rows:
    """(subject uuid, relation name, target uuid, status) of every edge of ``driver``'s graph whose
    ``trust_status`` is one of ``statuses``, and the names of those entities by uuid."""
    dialect = backends.for_driver(driver).dialect
    records, _, _ = await driver.execute_query(queries.load("trust_state_read", dialect), marker=MARKER,
                                               routing_="r")
    token = str(records[0]["token"]) if records else None
    key = f"{token}|{','.join(statuses)}" if token is not None else None
    if key is not None and key in _CACHE:
        return _CACHE[key]
    records, _, _ = await driver.execute_query(queries.load("relation_values_reviewed", dialect),
                                               statuses=list(statuses), routing_="r")
    records = records or []
    rows = [(r["subject"], r["relation"], r["object"], r["status"]) for r in records]
    names = {str(r[u]): str(r[n]) for r in records for u, n in (("subject", "subject_name"), ("object", "object_name"))
             if r[u] is not None and r[n]}
    if key is not None:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = (rows, names)
    return rows, names


__all__ = ["reviewed_slot_rows"]
