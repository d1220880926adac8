"""The review side's reads of the graph (never a write): the facts of edges a decision creates
candidate rows for, the edges of the entities agents were shown facts about, whose slots
(subject and relation) the queue's contested-slot rule compares, and what the review page shows
of one fact (the edge in full, its episodes)."""

from __future__ import annotations

from typing import Any

from graph_trust.config import Settings
from graph_trust.graph.connection import use_graph
from graph_trust.review.candidates import CandidateTable
from graph_trust.review.db import ReviewConn
from graph_trust.review.decisions import EdgeFact, unknown_targets

CHUNK = 5000  # uuids per query


async def _graph_names(g: Any, group: str | None) -> list[str]:
    """The graphs to look in: the group's, or every graph (one per group on FalkorDB)."""
    if group is not None:
        return [g.for_group(group).database]
    if g.backend.graph_per_group:
        return sorted(set(await g.graph_names()) | {g.database})
    return [g.database]


async def _each(g: Any, name: str, statement: str, uuids: list[str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    conn = g.for_group(name) if g.backend.graph_per_group else g
    for k in range(0, len(uuids), CHUNK):
        out += await conn.query(statement, uuids=uuids[k:k + CHUNK])
    return out


async def edge_facts(g: Any, uuids: list[str], group: str | None = None) -> dict[str, EdgeFact]:
    """Uuid -> :class:`EdgeFact` of the RELATES_TO edges among ``uuids`` (in ``group``'s graph, or in any)."""
    left = sorted(set(uuids))
    found: dict[str, EdgeFact] = {}
    for name in await _graph_names(g, group):
        if not left:
            break
        for r in await _each(g, name, "edges_for_review", left):
            found.setdefault(r["uuid"], EdgeFact(r["uuid"], r["group_id"], r["subject"], r["predicate"],
                                                 r["object"], r["fact"]))
        left = [u for u in left if u not in found]
    return found


async def subject_edges(g: Any, uuids: list[str], group: str | None = None) -> list[dict[str, Any]]:
    """Every edge leaving the subject entities of ``uuids`` (them included): the slots of the
    entities agents were shown facts about. Rows of uuid, group_id, subject_uuid, predicate,
    object_uuid, object, valid (neither invalid_at nor expired_at set)."""
    rows: dict[str, dict[str, Any]] = {}
    for name in await _graph_names(g, group):
        for r in await _each(g, name, "subject_edges", sorted(set(uuids))):
            rows.setdefault(r["uuid"], r)
    return list(rows.values())


async def all_edges(g: Any, group: str | None = None, page: int = 20000) -> list[dict[str, Any]]:
    """Every RELATES_TO edge (of ``group``'s graph, or of every graph), in pages of ``page``: the
    rows :func:`subject_edges` gives, for the whole graph (the queue ranks facts no search
    returned too)."""
    rows: dict[str, dict[str, Any]] = {}
    for name in await _graph_names(g, group):
        conn = g.for_group(name) if g.backend.graph_per_group else g
        after = ""
        while True:
            batch = await conn.query("queue_edges_page", after=after, limit=page)
            for r in batch:
                if group is None or g.backend.graph_per_group or r.get("group_id") == group:
                    rows.setdefault(r["uuid"], r)
            if len(batch) < page:
                break
            after = batch[-1]["uuid"]
    return list(rows.values())


async def existing_edges(g: Any, uuids: list[str], group: str | None = None) -> set[str]:
    """Those of ``uuids`` that name a RELATES_TO edge (in ``group``'s graph, or in any)."""
    left, found = sorted(set(uuids)), set()
    for name in await _graph_names(g, group):
        if not left:
            break
        found |= {r["uuid"] for r in await _each(g, name, "edge_uuids_exist", left)}
        left = [u for u in left if u not in found]
    return found


async def edge_detail(g: Any, uuid: str, group: str | None = None) -> dict[str, Any] | None:
    """The RELATES_TO edge ``uuid`` in full (endpoints, relation, fact, episode uuids, times, trust),
    from ``group``'s graph or any; None when no graph holds it."""
    for name in await _graph_names(g, group):
        rows = await _each(g, name, "edge_review_detail", [uuid])
        if rows:
            return rows[0]
    return None


async def episodes(g: Any, uuids: list[str], group: str | None = None) -> list[dict[str, Any]]:
    """The Episodic nodes among ``uuids`` (in ``group``'s graph, or any), in the order given."""
    left, found = list(dict.fromkeys(u for u in uuids if isinstance(u, str))), {}
    for name in await _graph_names(g, group):
        if not left:
            break
        for r in await _each(g, name, "episodes_for_review", left):
            found.setdefault(r["uuid"], r)
        left = [u for u in left if u not in found]
    return [found[u] for u in dict.fromkeys(uuids) if u in found]

async def uncited_edge_facts(settings: Settings, conn: ReviewConn, cand: CandidateTable, ids: list[str], *,
                             group: str | None = None, graph: Any = None) -> dict[str, EdgeFact]:
    """Uuid -> :class:`EdgeFact` of the ``ids`` that are neither a candidate id nor an edge uuid a
    candidate cites (a reviewer or an agent named an edge from search), read from ``graph`` (else
    the configured one; in ``group``'s graph, or in any). The graph is opened only when some id
    needs it, so a decision on known candidates works without one."""
    missing = unknown_targets(conn, cand, ids)
    if not missing:
        return {}
    async with use_graph(settings, graph) as g:
        return await edge_facts(g, missing, group)



__all__ = ["all_edges", "edge_detail", "edge_facts", "episodes", "existing_edges", "subject_edges",
           "uncited_edge_facts"]

