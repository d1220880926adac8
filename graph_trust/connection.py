"""Open the graph named by the settings and run graph-trust's own Cypher on it.

``open_graph(settings)`` yields a :class:`GraphConnection` holding a graphiti-core driver
(``FalkorDriver`` or ``Neo4jDriver``) for everything Graphiti does, and ``query``/``write`` for
the statements in ``cypher/``. Writes run in managed transactions (Neo4j) or single atomic
queries (FalkorDB) and are retried with backoff on transient errors. Connection,
authentication and database-not-found errors become one :class:`GraphConnectionError` line
without credentials.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import tenacity

from graph_trust import queries
from graph_trust.address import GraphAddress, parse_address
from graph_trust.config import Settings
from graph_trust.errors import GraphAuthError, GraphConnectionError, GraphTrustError

log = logging.getLogger(__name__)

FALKOR_DEFAULT_GRAPH = "default_db"  # graphiti-core FalkorDriver's default database
_EMPTY_KEY = "Invalid graph operation on empty key"  # FalkorDB, reading a graph that does not exist


def _transient_types() -> tuple[type[BaseException], ...]:
    import neo4j.exceptions as n4
    import redis.exceptions as rx

    return (rx.ConnectionError, rx.TimeoutError, n4.TransientError, n4.ServiceUnavailable, n4.SessionExpired)


def _translate(exc: BaseException, address: GraphAddress, database: str | None = None) -> GraphConnectionError | None:
    """Map a driver error to one clear line, or None if it is not a connection problem."""
    import neo4j.exceptions as n4
    import redis.exceptions as rx

    where = address.display
    text = str(exc)
    if isinstance(exc, n4.AuthError) or "WRONGPASS" in text or "invalid username-password" in text:
        return GraphAuthError(f"authentication failed for graph {where}: check the user and password")
    if isinstance(exc, rx.AuthenticationError) or "NOAUTH" in text:
        return GraphAuthError(f"authentication failed for graph {where}: check the user and password")
    if isinstance(exc, n4.ClientError) and "DatabaseNotFound" in (exc.code or ""):
        return GraphConnectionError(f"graph {where}: database {database or '?'!r} does not exist")
    if isinstance(exc, n4.ServiceUnavailable | rx.ConnectionError | OSError):
        return GraphConnectionError(f"cannot reach graph {where}: {type(exc).__name__}")
    return None


class GraphConnection:
    """One graph (or FalkorDB graph per group) plus the graphiti-core driver on it."""

    def __init__(self, address: GraphAddress, driver: Any, database: str, retries: int = 5,
                 _clones: dict[str, GraphConnection] | None = None):
        self.address = address
        self.driver = driver
        self.database = database
        self.retries = retries
        # Per-group connections, shared with for_group() children: graphiti-core's FalkorDriver
        # starts an index build (and a connection) for every clone, so clone once per group.
        self._clones: dict[str, GraphConnection] = {} if _clones is None else _clones

    @property
    def dialect(self) -> str:
        return self.address.dialect

    def for_group(self, group_id: str | None) -> GraphConnection:
        """FalkorDB keeps each Graphiti group in its own graph; Neo4j keeps all in one."""
        if self.dialect == "neo4j" or not group_id or group_id == self.database:
            return self
        if group_id not in self._clones:
            clone = self.driver.clone(database=group_id)
            self._clones[group_id] = GraphConnection(self.address, clone, group_id, self.retries, self._clones)
        return self._clones[group_id]

    async def settle(self) -> None:
        """Wait for the index builds graphiti-core's FalkorDriver starts on construction/clone."""
        from graph_trust.graphiti import settle_clones

        conns = [self, *self._clones.values()]
        for c in conns:
            await settle_clones(c.driver)
        for c in conns:
            await c._indexes_built()

    async def graph_names(self) -> list[str]:
        """FalkorDB: the graphs that exist on the server; Neo4j: the one database."""
        if self.dialect == "neo4j":
            return [self.database]
        return sorted(await self._guard(self.driver.client.list_graphs))

    async def query(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run the read statement ``cypher/name`` and return rows as dicts."""
        return await self.run_text(queries.load(name, self.dialect), params, write=False)

    async def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run the write statement ``cypher/name`` in a managed transaction, with retries."""
        return await self.run_text(queries.load(name, self.dialect), params, write=True)

    async def run_text(self, text: str, params: dict[str, Any], *, write: bool) -> list[dict[str, Any]]:
        """Run Cypher text (callers load it from ``cypher/``) with bounded retries."""
        await self._indexes_built()
        retrying = tenacity.AsyncRetrying(
            retry=tenacity.retry_if_exception_type(_transient_types()),
            stop=tenacity.stop_after_attempt(self.retries + 1),
            wait=tenacity.wait_exponential(multiplier=0.2, max=5.0),
            reraise=True,
        )
        async def attempt_all() -> list[dict[str, Any]]:
            async for attempt in retrying:
                with attempt:
                    return await self._run_once(text, params, write)
            raise AssertionError("unreachable")

        return await self._guard(attempt_all)

    async def _indexes_built(self) -> None:
        """Wait for the index build graphiti-core's driver starts in the background when it is
        made or cloned for a group. FalkorDB can silently drop matches of a statement that runs
        while an index is being created: a 2,000-row ``UNWIND ... MATCH ... CREATE`` sent during
        that build made 635 edges, without an error (2 times in 80 here; never once the build was
        awaited)."""
        task = getattr(self.driver, "_init_task", None)
        if task is None or task.done():
            return
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.cancelled():  # the build was stopped, not this statement
                return
            raise
        except Exception:  # noqa: BLE001 - "already indexed" and the like are not this statement's errors
            log.debug("graphiti index build task failed", exc_info=True)

    async def _run_once(self, text: str, params: dict[str, Any], write: bool) -> list[dict[str, Any]]:
        if self.dialect == "neo4j":
            import neo4j

            routing = neo4j.RoutingControl.WRITE if write else neo4j.RoutingControl.READ
            records, _, _ = await self.driver.client.execute_query(
                text, params, database_=self.database, routing_=routing
            )
            return [dict(r) for r in records]
        graph = self.driver.client.select_graph(self.database)
        try:
            result = await (graph.query(text, params) if write else graph.ro_query(text, params))
        except Exception as exc:  # noqa: BLE001 - re-raised unless it is a read of a deleted graph
            if not write and _EMPTY_KEY in str(exc):
                return []  # a group's graph deleted (or never written): nothing to read, as in an empty graph
            raise
        header = [h[1] for h in result.header]
        return [dict(zip(header, row, strict=False)) for row in result.result_set]

    async def _guard(self, fn: Any, *args: Any) -> Any:
        try:
            return await fn(*args)
        except Exception as exc:  # noqa: BLE001 - translated or re-raised
            translated = _translate(exc, self.address, self.database)
            if translated is not None:
                raise translated from None
            raise

    async def ping(self) -> None:
        """Fail fast with one clear line if the graph cannot be reached or refuses us."""
        try:
            if self.dialect == "neo4j":
                await self.driver.client.verify_connectivity()
                await self.run_text("RETURN 1 AS ok", {}, write=False)
            else:
                await self.driver.client.connection.ping()
        except GraphTrustError:
            raise
        except Exception as exc:  # noqa: BLE001
            translated = _translate(exc, self.address, self.database)
            if translated is not None:
                raise translated from None
            raise GraphConnectionError(f"cannot use graph {self.address.display}: {exc}") from None


def address_of(settings: Settings) -> GraphAddress:
    """The parsed address of ``settings.graph`` (URI plus config/env credentials)."""
    g = settings.graph
    return parse_address(g.uri, g.user, g.password)


def _falkor_driver(address: GraphAddress, database: str, socket_path: str | None) -> Any:
    from falkordb.asyncio import FalkorDB
    from graphiti_core.driver.falkordb_driver import FalkorDriver

    if socket_path:
        client = FalkorDB(unix_socket_path=socket_path)
    else:
        pw = address.password.get_secret_value() if address.password else None
        client = FalkorDB(host=address.host, port=address.port, username=address.user, password=pw)
    return FalkorDriver(falkor_db=client, database=database)


@asynccontextmanager
async def open_graph(settings: Settings, *, check: bool = True) -> AsyncIterator[GraphConnection]:
    """Connect to the graph in ``settings`` (starting the embedded server if needed)."""
    address = address_of(settings)
    server = None
    database = settings.graph.database
    if address.kind == "neo4j":
        from graphiti_core.driver.neo4j_driver import Neo4jDriver

        pw = address.password.get_secret_value() if address.password else None
        database = database or "neo4j"
        driver = Neo4jDriver(address.uri, address.user, pw, database=database)
        # graphiti-core starts building its ~30 indexes as the driver is constructed. Hold that
        # until the ping succeeds: against a dead or refusing server it would retry for ~30 s,
        # multiply failed logins (servers lock the user out) and leave unawaited coroutines.
        if driver._init_task is not None:
            driver._init_task.cancel()
            driver._init_task = None
    else:
        socket_path = None
        if address.kind == "embedded":
            from graph_trust.embedded import EmbeddedServer

            server = EmbeddedServer(address.path, binary=settings.graph.falkordb_binary,
                                    load_timeout_s=settings.graph.load_timeout_s).start()
            socket_path = server.socket_path
        database = database or FALKOR_DEFAULT_GRAPH
        try:  # the FalkorDB client connects on construction (cluster detection)
            driver = _falkor_driver(address, database, socket_path)
        except Exception as exc:  # noqa: BLE001
            if server is not None:
                server.stop()
            translated = _translate(exc, address)
            if translated is None:
                raise
            raise translated from None
    conn = GraphConnection(address, driver, database, retries=settings.sync.retries)
    try:
        if check:
            await conn.ping()
        if address.kind == "neo4j":
            import asyncio

            driver._init_task = asyncio.get_running_loop().create_task(driver.build_indices_and_constraints())
        yield conn
    finally:
        try:
            await conn.settle()
            await driver.close()
        except Exception:  # noqa: BLE001 - closing a dead connection is not an error
            log.debug("closing the graph driver failed", exc_info=True)
        if server is not None:
            server.stop()


@asynccontextmanager
async def use_graph(settings: Settings, graph: GraphConnection | None = None) -> AsyncIterator[GraphConnection]:
    """``graph`` if the caller already has one open, else a connection opened (and closed) here."""
    if graph is not None:
        yield graph
        return
    async with open_graph(settings) as g:
        yield g
