"""Vector indexes on ``RELATES_TO.fact_embedding`` and ``Entity.name_embedding``.

graphiti-core builds none, so its cosine stage scans every edge. This module creates HNSW
indexes (FalkorDB: one per group graph; Neo4j 5: one relationship and one node index per
database) with the dimension read from the stored embeddings, and tells the search stage
whether one exists. Backends without the DDL (ArcadeDB's Bolt endpoint) are reported as
unsupported (the list statement or the DDL is rejected as a syntax error), never as an error:
search then keeps Graphiti's scan.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from graph_trust.errors import ConfigError, GraphTrustError, InputError
from graph_trust.graph import backends, queries

PAGE = 5000


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


async def stored_dimensions(conn: Any, target: Target) -> dict[int, int]:
    """{dimension: how many items} of ``target``'s stored embeddings (read page by page)."""
    dims: dict[int, int] = {}
    skip = 0
    while True:
        rows = await conn.query(f"{target.kind}_embeddings_page", skip=skip, limit=PAGE)
        for r in rows:
            v = r["v"]
            if v is not None:
                dims[len(v)] = dims.get(len(v), 0) + 1
        if len(rows) < PAGE:
            return dims
        skip += PAGE


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
    ``{kind: {"status": "created" | "exists" | "no embeddings" | "unsupported" | "disabled",
    "dimension": int | None}}``.
    """
    report: dict[str, Any] = {}
    if not settings.enabled:
        return {t.kind: {"status": "disabled", "dimension": None} for t in TARGETS}
    present = await existing(conn.driver)
    if present is None:
        return {t.kind: {"status": "unsupported", "dimension": None} for t in TARGETS}
    for t in TARGETS:
        if t.kind in present:
            report[t.kind] = {"status": "exists", "dimension": present[t.kind].get("dimension")}
            continue
        dim = one_dimension(await stored_dimensions(conn, t), t, conn.database, settings.dimension)
        if dim is None:
            report[t.kind] = {"status": "no embeddings", "dimension": None}
            continue
        try:
            await conn.write(f"vector_index_create_{t.kind}s", dimension=dim, m=settings.m,
                             ef_construction=settings.ef_construction, ef_runtime=settings.ef_runtime)
        except GraphTrustError:
            raise
        except Exception as exc:  # noqa: BLE001 - "already indexed" (a concurrent init) is success
            if type(exc).__name__ == "CypherSyntaxError":  # a Bolt server without vector index DDL
                report[t.kind] = {"status": "unsupported", "dimension": None}
                continue
            if not conn.backend.index_exists(exc):
                raise
        report[t.kind] = {"status": "created", "dimension": dim}
    if any(v["status"] == "created" for v in report.values()):
        await until_ready(conn)
    return report


async def until_ready(conn: Any, poll_s: float = 0.25) -> None:
    """Wait until every vector index of ``conn``'s graph is filled (both backends fill new
    indexes in the background; a half-filled one misses edges)."""
    await conn.backend.await_new_indexes(conn)
    while not all(v.get("ready", True) for v in (await existing(conn.driver) or {}).values()):
        await asyncio.sleep(poll_s)
