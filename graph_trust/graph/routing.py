"""The one group-to-graph router and clone cache.

On a backend that keeps each Graphiti group in its own graph (FalkorDB) a group is reached
through a driver clone; elsewhere every group is in the driver's one database. graphiti-core's
FalkorDriver starts an index build (and a connection) for every clone, so each group is cloned
once per root driver, here, whoever asks: the search plugin (:func:`routes`), a
:class:`~graph_trust.graph.connection.GraphConnection` (``for_group``), sync (:class:`Graphs`)
and the sample loader (:func:`driver_for_group`) share the same clones.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Collection, Iterable
from typing import Any

from graph_trust.graph import backends

log = logging.getLogger(__name__)

# root driver -> {group: clone}; clone -> (weak) root, so a clone routes through its root's cache
_CLONES: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()
_ROOTS: weakref.WeakKeyDictionary[Any, weakref.ref] = weakref.WeakKeyDictionary()


def _root_of(driver: Any) -> Any:
    ref = _ROOTS.get(driver)
    root = ref() if ref is not None else None
    return driver if root is None else root


def graph_name(backend: backends.Backend, default: str, group_id: str | None) -> str:
    """The graph holding ``group_id``: its own graph where each group has one (None: the
    default graph), else the one database ``default``."""
    if not backend.graph_per_group or not group_id:
        return default
    return group_id


def driver_for_group(driver: Any, group_id: str | None) -> Any:
    """The driver on the graph holding ``group_id`` (``driver`` itself when that is its graph)."""
    backend = backends.find_driver(driver)
    if backend is None or not backend.graph_per_group:
        return driver
    name = graph_name(backend, driver._database, group_id)
    if name == driver._database:
        return driver
    root = _root_of(driver)
    if name == root._database:
        return root
    clones = _CLONES.setdefault(root, {})
    if name not in clones:
        clone = backend.clone(root, name)
        clones[name] = clone
        _ROOTS[clone] = weakref.ref(root)
    return clones[name]


def routes(driver: Any, group_ids: list[str] | None) -> list[tuple[Any, list[str] | None]]:
    """(driver, group_ids) per graph to search: one pair per group where each group is a graph
    of its own, else ``driver`` with every group."""
    backend = backends.find_driver(driver)
    if not group_ids or backend is None or not backend.graph_per_group:
        return [(driver, group_ids)]
    return [(driver_for_group(driver, g), [g]) for g in dict.fromkeys(group_ids)]


async def index_build_done(driver: Any) -> None:
    """Wait for the index build graphiti-core's driver starts in the background when it is made
    or cloned for a group. FalkorDB can silently drop matches of a statement that runs while an
    index is being created: a 2,000-row ``UNWIND ... MATCH ... CREATE`` sent during that build
    made 635 edges, without an error (2 times in 80 here; never once the build was awaited)."""
    task = getattr(driver, "_init_task", None)
    if task is None or task.done():
        return
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        if task.cancelled():  # the build was stopped, not this caller
            return
        raise
    except Exception:  # noqa: BLE001 - "already indexed" and the like are not the caller's errors
        log.debug("graphiti index build task failed", exc_info=True)


async def settle(driver: Any) -> None:
    """Wait for the index builds of ``driver``'s root and of every clone made of it."""
    root = _root_of(driver)
    for d in [root, *_CLONES.get(root, {}).values()]:
        await index_build_done(d)


async def existing_groups(conn: Any, among: Collection[str] | None = None) -> list[str]:
    """Groups that hold Graphiti entities (FalkorDB: graphs; Neo4j: group_id values), of
    ``among`` only when given: on FalkorDB each graph checked is a query, and a server may hold
    thousands."""
    return await conn.backend.groups(conn, among)


class AbsentGraph:
    """A graph (group) that does not exist on the server: it holds nothing, so every read
    returns no rows, and nothing is sent to the server (a query, or graphiti-core's per-group
    driver clone, would create the graph: a typo or hostile text in a review row's group_id
    would leave a graph behind). Writes are refused: callers treat its edges as unmatched."""

    def __init__(self, g: Any, name: str):
        self.address, self.backend, self.database = g.address, g.backend, name

    @property
    def dialect(self) -> str:
        return self.backend.dialect

    async def query(self, name: str, **params: Any) -> list[dict[str, Any]]:
        return []

    async def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        raise RuntimeError(f"refusing to write {name} to graph {self.database!r}, which does not exist")


class Graphs:
    """The connection of each graph name of one open graph, made once. Made with :meth:`open`,
    it knows which graphs exist (where each group is a graph of its own): a name that does not
    (besides the default graph) gets an :class:`AbsentGraph`, which never reaches the server."""

    def __init__(self, g: Any, existing: set[str] | None = None):
        self.g = g
        self._by_name: dict[str, Any] = {g.database: g}
        self._existing = existing  # graphs on the server when opened (None: take every name as existing)

    @classmethod
    async def open(cls, g: Any) -> Graphs:
        """Graphs of ``g``, knowing (where each group is a graph) which exist now."""
        return cls(g, set(await g.graph_names()) if g.backend.graph_per_group else None)

    def exists(self, name: str) -> bool:
        return self._existing is None or name == self.g.database or name in self._existing

    def absent(self, names: Iterable[str]) -> list[str]:
        """Those of ``names`` that name no existing graph, sorted."""
        return sorted(n for n in names if not self.exists(n))

    def name_for(self, group_id: str | None) -> str:
        """The graph holding ``group_id`` (see :func:`graph_name`)."""
        return graph_name(self.g.backend, self.g.database, group_id)

    def __call__(self, name: str) -> Any:
        if name not in self._by_name:
            self._by_name[name] = self.g.for_group(name) if self.exists(name) else AbsentGraph(self.g, name)
        return self._by_name[name]


def listed(groups: Collection[str], shown: int = 10) -> str:
    """Group names for an error message: the first ``shown`` in sorted order, then how many more
    (so a long list is cut visibly, never silently)."""
    names = sorted(groups)
    more = f" (and {len(names) - shown} more)" if len(names) > shown else ""
    return (", ".join(names[:shown]) or "none") + more
