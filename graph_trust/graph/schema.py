"""Schema set-up: everything ``graph-trust init`` creates, idempotently.

Graphiti's own indices and constraints, the range indexes sync relies on (``RELATES_TO.uuid``,
``Entity.uuid``, and ``RELATES_TO.expired_at`` / ``invalid_at`` for the guard's change check), and the vector indexes of the ``vector_index`` settings
(:mod:`graph_trust.graph.vector_index`) with their recall measured
(:mod:`graph_trust.graph.index_recall`), in every graph a backend keeps groups in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graph_trust.config import Settings
from graph_trust.errors import GraphTrustError
from graph_trust.graph import index_recall, vector_index, vector_store
from graph_trust.graph.connection import GraphConnection, open_graph
from graph_trust.graph.recall_store import RecallStore
from graph_trust.graph.routing import Graphs, existing_groups

SYNC_INDEXES = ("rel_uuid_index", "entity_uuid_index", "rel_expired_at_index", "rel_invalid_at_index")
Progress = Callable[[str, int, int | None], None]


async def init(conn: GraphConnection, settings: Settings, groups: list[str] | None = None,
               progress: Progress | None = None, queries: index_recall.QuerySource | None = None) -> dict[str, Any]:
    """Create what graph-trust needs in every requested group (where each group is a graph of
    its own: in each group's graph; default: every group that exists, plus the default graph),
    and measure the recall of every vector index not measured yet (or stale). The report's
    ``vector_indexes`` says, per graph, what exists, was created, or why not; ``recall``, per
    graph and kind, what was measured and the cosine stage search chooses."""
    if conn.backend.graph_per_group:
        targets = list(dict.fromkeys([*(groups or await existing_groups(conn)), conn.database]))
    else:
        targets = [conn.database]
    for name in targets:
        await conn.backend.graphiti_indices(conn.for_group(name))
    await conn.settle()
    await ensure_uuid_indexes(conn)
    vectors = {name: await vector_index.ensure(conn.for_group(name), settings.vector_index) for name in targets}
    recall = {}
    if any(v["status"] in ("created", "exists") for kinds in vectors.values() for v in kinds.values()):
        with RecallStore.open(settings) as store:
            for name in targets:
                done = await index_recall.refresh(conn.for_group(name), settings, store, progress=progress,
                                                  queries=queries)
                recall[name] = {kind: {"measured": kind in done["measured"], "choice": entry["choice"],
                                       "measurement": entry["measurement"]}
                                for kind, entry in done["kinds"].items() if isinstance(entry["index"], dict)}
    stores = {name: {k: {"status": v["status"], "items": v.get("items")}
                     for k, v in (await vector_store.ensure(conn.for_group(name), settings)).items()}
              for name in targets}
    for name in targets:  # the stage search takes: the store wherever it is built (and holds items)
        for kind in vector_store.KINDS:
            status = vector_store.status(settings, conn.address.display, name, kind)
            choice = vector_store.choice(settings, status, kind) if status and status["items"] else None
            if choice is not None:
                recall.setdefault(name, {}).setdefault(kind, {"measured": False, "measurement": None})["choice"] = choice
    return {"graph": conn.address.display, "dialect": conn.dialect, "graphs": targets, "vector_indexes": vectors,
            "recall": recall, "vector_stores": stores}


async def init_graph(settings: Settings, groups: list[str] | None = None, progress: Progress | None = None,
                     queries: index_recall.QuerySource | None = None) -> dict[str, Any]:
    """:func:`init` on the graph ``settings`` name (what ``graph-trust init`` runs)."""
    async with open_graph(settings) as conn:
        return await init(conn, settings, groups, progress, queries)


async def ensure_uuid_indexes(conn: GraphConnection, only: list[str] | None = None) -> None:
    """Create the range indexes sync relies on (:data:`SYNC_INDEXES`) where missing (idempotent).

    Where each group is a graph of its own: in every existing graph (group), or those of
    ``only`` that exist (so a group name nothing uses never creates an empty graph), plus the
    default graph. Otherwise: the one database.
    """
    if conn.backend.graph_per_group:
        existing = set(await conn.graph_names())
        names = (existing if only is None else existing & set(only)) | {conn.database}
    else:
        names = {conn.database}
    graphs = Graphs(conn)
    for name in sorted(names):
        graph = graphs(name)
        for stmt in SYNC_INDEXES:
            try:
                await graph.write(stmt)
            except GraphTrustError:
                raise
            except Exception as exc:  # noqa: BLE001 - FalkorDB reports an existing index as an error
                if not conn.backend.index_exists(exc):
                    raise
