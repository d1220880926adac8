"""Open the graph named by the settings and run graph-trust's own Cypher on it.

``open_graph(settings)`` yields a :class:`GraphConnection` holding a graphiti-core driver
(``FalkorDriver`` or ``Neo4jDriver``, made by the address's backend) for everything Graphiti
does, and ``query``/``write`` for the statements in ``cypher/``. Writes run in managed
transactions (Neo4j) or single atomic queries (FalkorDB) and are retried with backoff on
transient errors. Connection, authentication and database-not-found errors become one
:class:`GraphConnectionError` line without credentials.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import tenacity

from graph_trust.config import Settings
from graph_trust.errors import GraphConnectionError, GraphTrustError
from graph_trust.graph import queries, routing, trust_state
from graph_trust.graph.address import GraphAddress, parse_address
from graph_trust.graph.backends import Backend

log = logging.getLogger(__name__)


def translate_error(exc: BaseException, address: GraphAddress, database: str | None = None) -> GraphConnectionError | None:
    """Map a driver error to one clear line, or None if it is not a connection problem."""
    return address.backend.translate(exc, address.display, database)


class GraphConnection:
    """One graph (or, where each group is a graph of its own, one group's graph) plus the
    graphiti-core driver on it."""

    def __init__(self, address: GraphAddress, driver: Any, database: str, retries: int = 5):
        self.address = address
        self.backend: Backend = address.backend
        self.driver = driver
        self.database = database
        self.retries = retries

    @property
    def dialect(self) -> str:
        return self.backend.dialect

    def for_group(self, group_id: str | None) -> GraphConnection:
        """The connection on the graph holding ``group_id`` (through :mod:`routing`'s clones)."""
        driver = routing.driver_for_group(self.driver, group_id)
        if driver is self.driver:
            return self
        return GraphConnection(self.address, driver, group_id or driver._database, self.retries)

    async def settle(self) -> None:
        """Wait for the index builds graphiti-core's drivers start on construction/clone."""
        await routing.settle(self.driver)

    async def graph_names(self) -> list[str]:
        """The graphs that exist on the server (one database: just this one)."""
        return await self._guard(self.backend.graph_names, self.driver, self.database)

    async def query(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run the read statement ``cypher/name`` and return rows as dicts."""
        return await self.run_text(queries.load(name, self.dialect), params, write=False)

    async def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run the write statement ``cypher/name`` in a managed transaction, with retries; after a
        statement that writes trust state, give the graph a fresh trust-state token
        (:mod:`~graph_trust.graph.trust_state`)."""
        rows = await self.run_text(queries.load(name, self.dialect), params, write=True)
        if trust_state.writes_trust_state(name):
            await self.run_text(queries.load("trust_state_bump", self.dialect), trust_state.bump_params(), write=True)
        return rows

    async def run_text(self, text: str, params: dict[str, Any], *, write: bool) -> list[dict[str, Any]]:
        """Run Cypher text (callers load it from ``cypher/``) with bounded retries."""
        return await self.attempts(self.backend.run, self.driver, self.database, text, params, write=write)

    async def attempts(self, call: Any, *args: Any, **kwargs: Any) -> Any:
        """``await call(*args, **kwargs)`` (one request to the server) as every statement runs:
        after the driver's index builds, retried on the backend's transient errors, a connection
        error translated to one line."""
        await routing.index_build_done(self.driver)
        retrying = tenacity.AsyncRetrying(
            retry=tenacity.retry_if_exception_type(self.backend.transient_errors()),
            stop=tenacity.stop_after_attempt(self.retries + 1),
            wait=tenacity.wait_exponential(multiplier=0.2, max=5.0),
            reraise=True,
        )

        async def attempt_all() -> Any:
            async for attempt in retrying:
                with attempt:
                    return await call(*args, **kwargs)
            raise AssertionError("unreachable")

        return await self._guard(attempt_all)

    async def _guard(self, fn: Any, *args: Any) -> Any:
        try:
            return await fn(*args)
        except Exception as exc:  # noqa: BLE001 - translated or re-raised
            translated = translate_error(exc, self.address, self.database)
            if translated is not None:
                raise translated from None
            raise

    async def ping(self) -> None:
        """Fail fast with one clear line if the graph cannot be reached or refuses us."""
        try:
            await self.backend.ping(self)
        except GraphTrustError:
            raise
        except Exception as exc:  # noqa: BLE001
            translated = translate_error(exc, self.address, self.database)
            if translated is not None:
                raise translated from None
            raise GraphConnectionError(f"cannot use graph {self.address.display}: {exc}") from None


def address_of(settings: Settings) -> GraphAddress:
    """The parsed address of ``settings.graph`` (URI plus config/env credentials)."""
    g = settings.graph
    return parse_address(g.uri, g.user, g.password)


@asynccontextmanager
async def open_graph(settings: Settings, *, check: bool = True) -> AsyncIterator[GraphConnection]:
    """Connect to the graph in ``settings`` (starting the embedded server if needed)."""
    address = address_of(settings)
    opened = address.backend.open_driver(address, settings.graph)
    driver = opened.driver
    conn = GraphConnection(address, driver, opened.database, retries=settings.sync.retries)
    try:
        if check:
            await conn.ping()
        await conn.backend.driver_ready(driver)
        yield conn
    finally:
        try:
            await conn.settle()
            await driver.close()
        except Exception:  # noqa: BLE001 - closing a dead connection is not an error
            log.debug("closing the graph driver failed", exc_info=True)
        if opened.server is not None:
            opened.server.stop()


@asynccontextmanager
async def use_graph(settings: Settings, graph: GraphConnection | None = None) -> AsyncIterator[GraphConnection]:
    """``graph`` if the caller already has one open, else a connection opened (and closed) here."""
    if graph is not None:
        yield graph
        return
    async with open_graph(settings) as conn:
        yield conn
