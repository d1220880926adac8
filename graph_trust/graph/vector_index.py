"""Vector indexes on ``RELATES_TO.fact_embedding`` and ``Entity.name_embedding``.

graphiti-core builds none, so its cosine stage scans every edge. This module creates HNSW
indexes (FalkorDB: one per group graph; Neo4j 5: one relationship and one node index per
database) with the dimension read from the stored embeddings, and tells the search stage
whether one exists. Backends without the DDL (ArcadeDB's Bolt endpoint) are reported as
unsupported (the list statement or the DDL is rejected as a syntax error), never as an error:
search then keeps Graphiti's scan.

HNSW parameters: ``M`` and ``efConstruction`` come from the settings, or, where those are null,
from the graph's size (:data:`SIZE_PARAMS`); ``efRuntime`` from the settings.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from graph_trust.errors import ConfigError, GraphConnectionError, GraphTrustError, InputError
from graph_trust.graph import backends, queries
from graph_trust.graph.backends.base import READ_BATCH, float32_column

# (graphs below this many items, M, efConstruction); the last row has no bound. Below 50,000 items
# a smaller graph per node builds about twice as fast and the recall check's wider queries cost
# little; from 50,000, M 32 / efConstruction 400 gave recall@10 0.995-1.000 at 100k edges on
# stored and perturbed facts, but 0.973 on midpoints of two facts (clustered vectors), where
# M 64 / efConstruction 800 gives 0.994 for twice the build (docs/benchmarks.md, "Vector index").
SIZE_PARAMS: tuple[tuple[int | None, int, int], ...] = ((50_000, 16, 200), (None, 32, 400))
HEX = "0123456789abcdef"  # (uuid prefixes of the neo4j dialect's range reads)


@dataclass(frozen=True)
class Target:
    """One indexable embedding: which items carry it and the statements that serve it."""

    kind: str  # "edge" | "node"
    label: str  # FalkorDB label / relationship type
    prop: str
    neo4j_name: str

    @property
    def where(self) -> str:
        return f"{self.label}.{self.prop}"


EDGES = Target("edge", "RELATES_TO", "fact_embedding", "relates_to_fact_embedding")
NODES = Target("node", "Entity", "name_embedding", "entity_name_embedding")
TARGETS = (EDGES, NODES)


def dialect_of(driver: Any) -> str:
    return backends.for_driver(driver).dialect


async def run(driver: Any, name: str, **params: Any) -> list[dict[str, Any]]:
    """Run ``cypher/name`` on a graphiti-core driver (the one search already holds)."""
    records, _, _ = await driver.execute_query(queries.load(name, dialect_of(driver)), routing_="r", **params)
    return [dict(r) for r in records or []]


async def existing(driver: Any) -> dict[str, dict[str, Any]] | None:
    """The vector indexes of the driver's graph, by target kind, with their options and
    ``ready`` (False while FalkorDB still fills a new index: it answers from what it holds so
    far); None when the backend cannot list vector indexes (it has none to use)."""
    try:
        rows = await run(driver, "vector_indexes")
    except Exception:  # noqa: BLE001 - a backend without vector indexes rejects the statement
        return None
    return parse_existing(rows, dialect_of(driver))


def parse_existing(rows: list[dict[str, Any]], dialect: str) -> dict[str, dict[str, Any]]:
    backend = backends.by_name(dialect)
    found: dict[str, dict[str, Any]] = {}
    for t in TARGETS:
        for r in rows:
            options = backend.vector_index_options(r, t.label, t.prop)
            if options is not None:
                found[t.kind] = options
    return found


def graph_name(driver: Any) -> str:
    """The graph a graphiti-core driver addresses (FalkorDB: the group's graph; Neo4j: the database)."""
    return str(getattr(driver, "_database", None) or backends.for_driver(driver).default_database or "")


def params_for(items: int, settings: Any) -> tuple[int, int]:
    """(M, efConstruction) for a graph of ``items`` items: the settings', else :data:`SIZE_PARAMS`'."""
    for bound, m, ef_construction in SIZE_PARAMS:
        if bound is None or items < bound:
            return settings.m or m, settings.ef_construction or ef_construction
    raise AssertionError("SIZE_PARAMS ends with an unbounded row")


async def count(conn_or_driver: Any, kind: str) -> int:
    """How many items of ``kind`` the graph holds."""
    name = "relates_to_count" if kind == "edge" else "entity_count"
    rows = await (conn_or_driver.query(name) if hasattr(conn_or_driver, "query") else run(conn_or_driver, name))
    return int(rows[0]["n"]) if rows else 0


async def iter_vectors(conn: Any, target: Target, items: int | None = None,
                       progress: Callable[[int, int], None] | None = None,
                       ) -> AsyncIterator[tuple[list[str], list[Any]]]:
    """Every stored embedding of ``target`` as ``(uuids, vectors)`` batches (:func:`iter_rows`)."""
    async for rows in iter_rows(conn, target, items, progress):
        yield [r["uuid"] for r in rows], [r["v"] for r in rows]


async def iter_rows(conn: Any, target: Target, items: int | None = None,
                    progress: Callable[[int, int], None] | None = None, batch: int = READ_BATCH,
                    ) -> AsyncIterator[list[dict[str, Any]]]:
    """Every item of ``target`` holding an embedding as batches of rows (``uuid``, ``v``: a
    float32 array, ``group_id``, ``created_at`` and the text fields) of about ``batch`` (the
    backend's :meth:`~graph_trust.graph.backends.base.Backend.vector_read_ranges`, each a seek
    or a range scan of an index: memory stays about two batches, and no query pages with SKIP),
    then what the ranges miss; ``progress(i, n)`` after range ``i`` of ``n``. Each range's read
    is sent before the previous range's rows are handed on, so the server prepares its reply
    while they are processed. Raises when the reads together did not see every stored embedding
    exactly once."""
    if items is None:
        items = await count(conn, target.kind)
    ranges = await conn.backend.vector_read_ranges(conn, target.kind, items, batch)
    text = queries.load(f"{target.kind}_vectors_in_range", conn.dialect)
    seen: set[str] = set()
    async with conn.backend.vector_reads(conn) as read:
        pending = asyncio.ensure_future(read(text, {"lo": ranges[0][0], "hi": ranges[0][1]})) if ranges else None
        try:
            for i in range(1, len(ranges) + 1):
                rows = await pending
                pending = None
                if i < len(ranges):
                    pending = asyncio.ensure_future(read(text, {"lo": ranges[i][0], "hi": ranges[i][1]}))
                    await asyncio.sleep(0)  # let it send its request before the rows are processed
                seen.update(r["uuid"] for r in rows)
                yield rows
                if progress is not None:
                    progress(i, len(ranges))
        finally:
            if pending is not None:  # the caller stopped early, or a read failed
                pending.cancel()
                await asyncio.gather(pending, return_exceptions=True)
        width = len(ranges[0][0]) if ranges and isinstance(ranges[0][0], str) else 1
        rest = await read(queries.load(f"{target.kind}_vectors_outside_ranges", conn.dialect),
                          {"width": width, "hex": list(HEX)})
    outside = float32_column([r for r in (rest[0]["rows"] if rest else []) if r is not None])
    seen.update(r["uuid"] for r in outside)
    total = int(rest[0]["total"]) if rest else 0
    if len(seen) != total:
        raise GraphConnectionError(
            f"cannot use graph {conn.database!r}: reading every {target.where} gave {len(seen):,} distinct "
            f"items of the {total:,} that hold one (the graph changed meanwhile?); run it again")
    if outside:
        yield outside


async def stored_dimensions(conn: Any, target: Target) -> dict[int, int]:
    """{dimension: how many items} of ``target``'s stored embeddings."""
    dims: dict[int, int] = {}
    async for _, vectors in iter_vectors(conn, target):
        for n, c in zip(*np.unique([len(v) for v in vectors], return_counts=True), strict=True):
            dims[int(n)] = dims.get(int(n), 0) + int(c)
    return dims


def one_dimension(dims: dict[int, int], target: Target, graph: str, configured: int | None) -> int | None:
    """The single dimension of ``target`` in ``graph``; None when nothing is stored and none is
    configured. Several dimensions, or one that differs from the configured, is an error."""
    if len(dims) > 1:
        shown = ", ".join(f"{d} ({n:,} items)" for d, n in sorted(dims.items(), key=lambda kv: -kv[1]))
        raise InputError(f"graph {graph!r}: {target.where} holds embeddings of mixed dimensions: {shown}; "
                         "re-embed them with one embedder before creating a vector index")
    if configured is not None and dims and configured not in dims:
        raise ConfigError(f"config key vector_index.dimension: {configured} does not match the "
                          f"{next(iter(dims))}-dimensional embeddings stored in {target.where} of graph {graph!r}")
    return next(iter(dims), configured)


async def ensure(conn: Any, settings: Any) -> dict[str, Any]:
    """Create the missing vector indexes of one graph (``conn``); report what exists and why not.

    ``settings`` is a :class:`graph_trust.config.VectorIndexSettings`. Returns
    ``{kind: {"status": "created" | "exists" | "no embeddings" | "unsupported" | "disabled" |
    "not needed", "dimension": int | None}}`` (``not needed``: the exact vector store serves search,
    :attr:`~graph_trust.config.VectorIndexSettings.creates_indexes`).
    """
    report: dict[str, Any] = {}
    if not settings.creates_indexes:
        return {t.kind: {"status": not_created(settings), "dimension": None} for t in TARGETS}
    present = await existing(conn.driver)
    if present is None:
        return {t.kind: {"status": "unsupported", "dimension": None} for t in TARGETS}
    for t in TARGETS:
        if t.kind in present:
            report[t.kind] = {"status": "exists", "dimension": present[t.kind].get("dimension")}
            continue
        report[t.kind] = await create(conn, t, settings)
    if any(v["status"] == "created" for v in report.values()):
        await until_ready(conn)
    return report


def not_created(settings: Any) -> str:
    """The status of an index the settings do not create: ``disabled`` (``enabled: false``) or
    ``not needed`` (``enabled: null`` beside the exact vector store)."""
    return "disabled" if settings.enabled is False else "not needed"


async def create(conn: Any, target: Target, settings: Any) -> dict[str, Any]:
    """Create ``target``'s index in ``conn``'s graph (the dimension read from the stored
    embeddings, M and efConstruction by the graph's size); the report entry of :func:`ensure`."""
    dims = await stored_dimensions(conn, target)
    dim = one_dimension(dims, target, conn.database, settings.dimension)
    if dim is None:
        return {"status": "no embeddings", "dimension": None}
    m, ef_construction = params_for(sum(dims.values()), settings)
    try:
        await conn.write(f"vector_index_create_{target.kind}s", dimension=dim, m=m,
                         ef_construction=ef_construction, ef_runtime=settings.ef_runtime)
    except GraphTrustError:
        raise
    except Exception as exc:  # noqa: BLE001 - "already indexed" (a concurrent init) is success
        if type(exc).__name__ == "CypherSyntaxError":  # a Bolt server without vector index DDL
            return {"status": "unsupported", "dimension": None}
        if not conn.backend.index_exists(exc):
            raise
    return {"status": "created", "dimension": dim, "M": m, "efConstruction": ef_construction}


async def drop(conn: Any, target: Target, poll_s: float = 0.25) -> bool:
    """Drop ``target``'s index in ``conn``'s graph and wait until the server no longer lists it
    (FalkorDB drops in the background); False when there was none."""
    if target.kind not in (await existing(conn.driver) or {}):
        return False
    try:
        await conn.write(f"vector_index_drop_{target.kind}s")
    except GraphTrustError:
        raise
    except Exception:  # noqa: BLE001 - dropped meanwhile (a concurrent rebuild): the wait below settles it
        pass
    while target.kind in (await existing(conn.driver) or {}):
        await asyncio.sleep(poll_s)
    return True


async def until_ready(conn: Any, poll_s: float = 0.25,
                      progress: Callable[[float], None] | None = None) -> None:
    """Wait until every vector index of ``conn``'s graph is filled (both backends fill new
    indexes in the background; a half-filled one misses edges); ``progress(share filled)``
    while waiting where the server says how far it is."""
    await conn.backend.await_new_indexes(conn)
    while True:
        present = (await existing(conn.driver) or {}).values()
        if all(v.get("ready", True) for v in present):
            return
        if progress is not None:
            shares = [v.get("filled") for v in present if not v.get("ready", True)]
            if all(x is not None for x in shares):
                progress(min(shares))
        await asyncio.sleep(poll_s)
