"""Bolt servers (Neo4j 5; ArcadeDB's Bolt endpoint in CI) through the official driver: every
Graphiti group in one database, managed transactions, indexes populated in the background."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import neo4j
import neo4j.exceptions as n4
from graphiti_core.driver.driver import GraphProvider
from graphiti_core.driver.neo4j_driver import Neo4jDriver
from graphiti_core.graph_queries import get_fulltext_indices, get_range_indices

from graph_trust.errors import GraphConnectionError
from graph_trust.graph.backends.base import Address, Backend, Connection, OpenedDriver, auth_failed, unreachable

if TYPE_CHECKING:
    from graph_trust.config import GraphSettings

_INDEX_NAME = re.compile(r"INDEX\s+(\w+)")


class BoltBackend(Backend):
    name = "neo4j"
    provider = GraphProvider.NEO4J
    kinds = ("neo4j",)
    schemes = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
    url_kind = "neo4j"
    default_port = 7687
    examples = ("bolt://host:port", "neo4j://host:port")
    rank = 10
    graph_per_group = False
    default_database = "neo4j"

    def display(self, address: Address) -> str:
        return address.uri

    def open_driver(self, address: Address, graph: GraphSettings) -> OpenedDriver:
        pw = address.password.get_secret_value() if address.password else None
        database = graph.database or self.default_database
        driver = Neo4jDriver(address.uri, address.user, pw, database=database)
        # graphiti-core starts building its ~30 indexes as the driver is constructed. Hold that
        # until the ping succeeds (driver_ready): against a dead or refusing server it would
        # retry for ~30 s, multiply failed logins (servers lock the user out) and leave
        # unawaited coroutines.
        if driver._init_task is not None:
            driver._init_task.cancel()
            driver._init_task = None
        return OpenedDriver(driver, database)

    async def driver_ready(self, driver: Any) -> None:
        driver._init_task = asyncio.get_running_loop().create_task(self._build_graphiti_indices(driver))

    async def _build_graphiti_indices(self, driver: Any) -> None:
        """graphiti-core's index statements (``build_indices_and_constraints``'), each run to its
        end before this returns. graphiti-core's own build gathers them and fails at the first
        error while the others still run (ArcadeDB rejects the fulltext DDL at once): waiting for
        it returned while the range indexes were still being created, and an entity written then
        was missing from the ``created_at`` index (``node_created_since`` did not return it,
        a label scan did). The first error, "already exists" aside, is raised after all ran."""
        statements = get_range_indices(self.provider) + get_fulltext_indices(self.provider)
        results = await asyncio.gather(*(driver.execute_query(s) for s in statements), return_exceptions=True)
        for r in results:
            if isinstance(r, BaseException) and "EquivalentSchemaRuleAlreadyExists" not in str(r):
                raise r

    def clone(self, driver: Any, database: str) -> Any:
        raise AssertionError("a Bolt server keeps every group in one database")

    async def ping(self, conn: Connection) -> None:
        await conn.driver.client.verify_connectivity()
        await conn.run_text("RETURN 1 AS ok", {}, write=False)

    async def run(self, driver: Any, database: str, text: str, params: dict[str, Any], *,
                  write: bool) -> list[dict[str, Any]]:
        routing = neo4j.RoutingControl.WRITE if write else neo4j.RoutingControl.READ
        records, _, _ = await driver.client.execute_query(text, params, database_=database, routing_=routing)
        return [dict(r) for r in records]

    async def graph_names(self, driver: Any, database: str) -> list[str]:
        return [database]

    def bulk_params(self, rows: Sequence[dict[str, Any]], key: str = "uuid") -> dict[str, Any]:
        """``$uuids`` and ``$by_uuid`` (key -> the row's other values): one index lookup for the
        whole list (ArcadeDB uses its uuid index only for a list parameter, not for ``UNWIND``)."""
        by_key = {row[key]: {k: v for k, v in row.items() if k != key} for row in rows}
        return {f"{key}s": list(by_key), f"by_{key}": by_key}

    def transient_errors(self) -> tuple[type[BaseException], ...]:
        return (n4.TransientError, n4.ServiceUnavailable, n4.SessionExpired)

    def translate(self, exc: BaseException, where: str, database: str | None = None) -> GraphConnectionError | None:
        text = str(exc)
        if isinstance(exc, n4.AuthError) or "invalid username-password" in text:
            return auth_failed(where)
        if isinstance(exc, n4.ClientError) and "DatabaseNotFound" in (exc.code or ""):
            return GraphConnectionError(f"graph {where}: database {database or '?'!r} does not exist")
        if isinstance(exc, n4.ServiceUnavailable):
            return unreachable(exc, where)
        return super().translate(exc, where, database)

    async def graphiti_indices(self, conn: Connection) -> None:
        """Only the statements whose index name is missing run, so servers that create some
        indexes differently (e.g. ArcadeDB's fulltext) are left alone."""
        existing = {r["name"] for r in await conn.query("index_names")}
        for stmt in get_range_indices(self.provider) + get_fulltext_indices(self.provider):
            m = _INDEX_NAME.search(stmt)
            if m and m.group(1) in existing:
                continue
            await conn.run_text(stmt, {}, write=True)

    async def await_new_indexes(self, conn: Connection) -> None:
        await conn.query("await_indexes", timeout_s=600)

    def vector_index_options(self, row: dict[str, Any], label: str, prop: str) -> dict[str, Any] | None:
        if label in (row.get("labelsOrTypes") or []) and prop in (row.get("properties") or []):
            cfg = (row.get("options") or {}).get("indexConfig") or {}
            state = row.get("state")
            pct = row.get("populationPercent")
            return {"name": row.get("name"), "dimension": cfg.get("vector.dimensions"), "M": cfg.get("vector.hnsw.m"),
                    "efConstruction": cfg.get("vector.hnsw.ef_construction"),
                    "ready": state in (None, "ONLINE"), "filled": None if pct is None else float(pct) / 100}
        return None


BACKEND = BoltBackend()
