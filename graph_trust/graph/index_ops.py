"""``graph-trust index status | check | rebuild``: the exact vector stores and vector indexes of
every graph, the indexes' measured recall and the cosine stage search chooses for each.

Each graph an index covers is one row: on FalkorDB every group's graph, on Neo4j the database.
``check`` measures (:mod:`graph_trust.graph.index_recall`) and stores the result in the state
store; ``rebuild`` drops and recreates an index with the parameters for the graph's current
size, waits for it to fill and measures it. Searches meanwhile keep working: a graph without a
filled index is scanned.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graph_trust.config import Settings
from graph_trust.errors import InputError
from graph_trust.graph import index_recall, vector_store
from graph_trust.graph import vector_index as vi
from graph_trust.graph.connection import GraphConnection, open_graph
from graph_trust.graph.recall_store import RecallStore, store_path
from graph_trust.graph.routing import existing_groups, listed

Progress = Callable[[str, int, int | None], None]
KINDS = ("edge", "node")


def _quiet(phase: str, n: int, total: int | None) -> None:
    pass


async def graphs_of(conn: GraphConnection, groups: list[str] | None) -> list[str]:
    """The graphs holding the named groups' indexes (default: every group's), checked to exist."""
    if not conn.backend.graph_per_group:
        return [conn.database]
    known = await existing_groups(conn, among=set(groups) if groups else None)
    unknown = [g for g in groups or [] if g not in known]
    if unknown:
        raise InputError(f"unknown group {unknown[0]!r} (groups in this graph: {listed(await existing_groups(conn))})")
    return list(groups or known)


def _kinds(kinds: list[str] | None) -> list[str]:
    bad = [k for k in kinds or [] if k not in KINDS]
    if bad:
        raise InputError(f"unknown index kind {bad[0]!r} (choose from {', '.join(KINDS)})")
    return list(kinds or KINDS)


async def status(settings: Settings, groups: list[str] | None = None) -> dict[str, Any]:
    """Per graph and kind: the exact vector store, the index, items, stored measurement and the
    stage search chooses."""
    async with open_graph(settings) as conn:
        names = await graphs_of(conn, groups)
        with RecallStore.open_read_only(store_path(settings)) as store:
            return {"graph": conn.address.display, "cosine": settings.search.cosine,
                    "graphs": {name: with_store(await index_recall.graph_status(conn.for_group(name), settings, store),
                                                settings, conn.address.display, name)
                               for name in names}}


def with_store(kinds: dict[str, Any], settings: Settings, graph: str, database: str) -> dict[str, Any]:
    """A graph's status entries with its exact vector stores, and the store as the stage where
    ``search.cosine`` (auto or store) takes it."""
    for kind, entry in kinds.items():
        entry["store"] = vector_store.status(settings, graph, database, kind)
        entry["choice"] = vector_store.choice(settings, entry["store"], kind) or entry["choice"]
    return kinds


async def check(settings: Settings, groups: list[str] | None = None, *, stale_only: bool = False,
                progress: Progress | None = None, queries: index_recall.QuerySource | None = None) -> dict[str, Any]:
    """Measure every filled index of the named graphs (``stale_only``: only those never measured
    or stale), store the results, and return :func:`status` with what was measured and why."""
    async with open_graph(settings) as conn:
        names = await graphs_of(conn, groups)
        with RecallStore.open(settings) as store:
            out = {name: await index_recall.refresh(conn.for_group(name), settings, store, force=not stale_only,
                                                    progress=_labelled(progress, name), queries=queries)
                   for name in names}
        return {"graph": conn.address.display, "cosine": settings.search.cosine,
                "graphs": {n: r["kinds"] for n, r in out.items()},
                "measured": {n: r["measured"] for n, r in out.items() if r["measured"]}}


async def rebuild(settings: Settings, groups: list[str] | None = None, kinds: list[str] | None = None, *,
                  progress: Progress | None = None, queries: index_recall.QuerySource | None = None) -> dict[str, Any]:
    """Rebuild the named graphs' exact vector stores (``vector_index.store``), drop and recreate
    their indexes of ``kinds`` with the parameters for their current size (``vector_index.*``,
    :data:`vector_index.SIZE_PARAMS`), wait until filled (progress: the share filled), then
    measure them. Searches keep the previous store, or scan the graph, meanwhile."""
    progress = progress or _quiet
    chosen = _kinds(kinds)
    async with open_graph(settings) as conn:
        names = await graphs_of(conn, groups)
        with RecallStore.open(settings) as store:
            return {"graph": conn.address.display, "cosine": settings.search.cosine,
                    "graphs": {name: await _rebuild_one(conn.for_group(name), settings, store, chosen, progress,
                                                        queries)
                               for name in names}}


async def _rebuild_one(g: GraphConnection, settings: Settings, store: RecallStore, kinds: list[str],
                       progress: Progress, queries: index_recall.QuerySource | None) -> dict[str, Any]:
    stores = await vector_store.ensure(g, settings, force=True)
    report: dict[str, Any] = {}
    indexes = settings.vector_index.creates_indexes  # else an index made earlier stays as it is
    for kind in kinds:
        target = vi.EDGES if kind == "edge" else vi.NODES
        if not indexes:
            report[kind] = {"dropped": False, "status": vi.not_created(settings.vector_index), "dimension": None}
            continue
        store.forget(g.address.display, g.database, kind)
        dropped = await vi.drop(g, target)
        report[kind] = {"dropped": dropped, **await vi.create(g, target, settings.vector_index)}
    if indexes:
        filled = _Filled(progress, f"filling the index ({g.database})")
        await vi.until_ready(g, progress=filled)
        filled(1.0)
    measured = await index_recall.refresh(g, settings, store, progress=_labelled(progress, g.database),
                                          queries=queries)
    after = with_store(measured["kinds"], settings, g.address.display, g.database)
    for kind in kinds:
        report[kind]["status_after"] = after[kind]
        report[kind]["store"] = {k: stores[kind].get(k) for k in ("status", "items", "seconds")}
    return report


def _labelled(progress: Progress | None, name: str) -> Progress:
    inner = progress or _quiet
    return lambda phase, n, total: inner(f"{phase} ({name})", n, total)


class _Filled:
    """Turns "share filled" readings into the progress callback's increments (per mille)."""

    def __init__(self, progress: Progress, phase: str):
        self.progress, self.phase, self.done = progress, phase, 0

    def __call__(self, share: float) -> None:
        now = max(self.done, min(1000, int(share * 1000)))
        self.progress(self.phase, now - self.done, 1000)
        self.done = now
