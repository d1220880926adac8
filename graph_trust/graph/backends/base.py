"""The one interface every graph backend implements.

Search, sync and schema set-up never ask which server they talk to; they ask the backend what
it does: whether each Graphiti group lives in its own graph, how to list graphs, open a driver,
run a statement, translate an error, read a vector score or create Graphiti's indices. A new
backend is one module in this package defining a :class:`Backend` subclass and an instance
named ``BACKEND`` (see ``docs/backends.md``).
"""

from __future__ import annotations

import math
import socket
import ssl
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import numpy as np
from pydantic import SecretStr

from graph_trust.errors import GraphAuthError, GraphConnectionError

if TYPE_CHECKING:  # annotations only
    from graph_trust.config import GraphSettings


class Address(Protocol):
    """What a backend reads of a parsed address (:class:`graph_trust.graph.address.GraphAddress`,
    which imports the backends: they see it through this protocol, so the layer has no cycle)."""

    kind: str
    uri: str
    path: Path | None
    host: str | None
    port: int | None
    user: str | None
    password: SecretStr | None


class Connection(Protocol):
    """What a backend uses of an open graph (:class:`graph_trust.graph.connection.GraphConnection`)."""

    driver: Any
    database: str

    def for_group(self, group_id: str | None) -> Connection: ...

    async def graph_names(self) -> list[str]: ...

    async def query(self, name: str, **params: Any) -> list[dict[str, Any]]: ...

    async def run_text(self, text: str, params: dict[str, Any], *, write: bool) -> list[dict[str, Any]]: ...

    async def attempts(self, call: Any, *args: Any, **kwargs: Any) -> Any: ...


@dataclass
class OpenedDriver:
    """What :meth:`Backend.open_driver` made: the graphiti-core driver, the default graph
    (database) it points at, and what to stop after closing it (an embedded server), if any."""

    driver: Any
    database: str
    server: Any = None


READ_BATCH = 4000  # embeddings per read of Backend.vector_read_ranges
# read(text, params): the rows of a read statement, its ``v`` column as float32 arrays (Backend.vector_reads)
VectorRead = Callable[[str, dict[str, Any]], Awaitable[list[dict[str, Any]]]]


def float32_column(rows: list[dict[str, Any]], column: str = "v") -> list[dict[str, Any]]:
    """``rows`` with ``column`` (stored embeddings, lists of numbers) as float32 arrays, None kept."""
    for r in rows:
        if r.get(column) is not None:
            r[column] = np.asarray(r[column], dtype=np.float32)
    return rows


class Backend(ABC):
    """A graph server family (FalkorDB, Bolt/Neo4j, ...) as graph-trust needs it."""

    #: the name reported (``init``'s ``dialect``) and the Cypher dialect: ``cypher/NAME.<name>.cypher``
    name: ClassVar[str]
    #: graphiti-core's ``GraphProvider`` of this backend's drivers
    provider: ClassVar[Any]
    #: the :class:`~graph_trust.graph.address.GraphAddress` kinds this backend serves
    kinds: ClassVar[tuple[str, ...]]
    #: the URL schemes of its addresses, and the kind they parse to
    schemes: ClassVar[tuple[str, ...]] = ()
    url_kind: ClassVar[str] = ""
    default_port: ClassVar[int] = 0
    #: an address ``PREFIX:PATH`` naming a local data directory (kind ``PREFIX``), if any
    path_prefix: ClassVar[str | None] = None
    #: how the error for an unknown scheme shows this backend's addresses
    examples: ClassVar[tuple[str, ...]] = ()
    #: order in listings (lowest first)
    rank: ClassVar[int] = 100
    #: each Graphiti group in its own graph (True), or every group in one database (False)
    graph_per_group: ClassVar[bool]
    #: the default graph (database) when ``graph.database`` is not set
    default_database: ClassVar[str]

    @property
    def dialect(self) -> str:
        return self.name

    # -- addresses and drivers -------------------------------------------------------------

    @abstractmethod
    def display(self, address: Address) -> str:
        """The address as shown to users and hashed into sync's graph key: no credentials."""

    @abstractmethod
    def open_driver(self, address: Address, graph: GraphSettings) -> OpenedDriver:
        """A graphiti-core driver on ``address`` (starting what has to run first); errors are
        translated (:meth:`translate`) before they leave."""

    async def driver_ready(self, driver: Any) -> None:  # noqa: B027 - optional hook
        """Called once the connection answered its ping."""

    def clone(self, driver: Any, database: str) -> Any:
        """A driver on another graph of the same server (only when :attr:`graph_per_group`)."""
        return driver.clone(database=database)

    @abstractmethod
    async def ping(self, conn: Connection) -> None:
        """Fail (with the driver's error) unless the server answers and accepts us."""

    # -- statements --------------------------------------------------------------------------

    @abstractmethod
    async def run(self, driver: Any, database: str, text: str, params: dict[str, Any], *,
                  write: bool) -> list[dict[str, Any]]:
        """Run Cypher ``text`` once on graph ``database``; rows as dicts."""

    @abstractmethod
    async def graph_names(self, driver: Any, database: str) -> list[str]:
        """The graphs on the server (one database: just ``database``)."""

    async def groups(self, conn: Connection, among: Collection[str] | None = None) -> list[str]:
        """Groups that hold Graphiti entities (FalkorDB: graphs; Neo4j: ``group_id`` values), of
        ``among`` only when given (a search of named groups checks those, not every graph)."""
        return [g for r in await conn.query("entity_groups") if among is None or (g := r["group_id"]) in among]

    def bulk_params(self, rows: Sequence[dict[str, Any]], key: str = "uuid") -> dict[str, Any]:
        """Parameters of a write of many rows matched by ``key``, in the shape this backend's
        variant of the statement takes (``$rows``: a list of maps)."""
        return {"rows": list(rows)}

    # -- errors ------------------------------------------------------------------------------

    def transient_errors(self) -> tuple[type[BaseException], ...]:
        """Errors worth retrying (with backoff)."""
        return ()

    def translate(self, exc: BaseException, where: str, database: str | None = None) -> GraphConnectionError | None:
        """One clear line (no credentials) for a connection problem, else None."""
        if isinstance(exc, OSError):
            return unreachable(exc, where)
        return None

    def index_exists(self, exc: BaseException) -> bool:
        """``exc`` says the index being created exists already (success for idempotent DDL)."""
        return "already indexed" in str(exc)

    # -- schema and vectors ------------------------------------------------------------------

    @abstractmethod
    async def graphiti_indices(self, conn: Connection) -> None:
        """Create Graphiti's own indices and constraints in ``conn``'s graph, idempotently."""

    async def await_new_indexes(self, conn: Connection) -> None:  # noqa: B027 - optional hook
        """Wait until indexes just created answer queries (servers that populate them later)."""

    async def rebuild_indexes(self, conn: Connection) -> bool:
        """Rebuild ``conn``'s graph's search indexes from its data, so that their statistics are
        those of a fresh load (a server that keeps them exact needs nothing). Returns whether it
        rebuilt. Used on graphs graph-trust built itself (the demo's, the eval's temporary ones)."""
        return False

    @abstractmethod
    def vector_index_options(self, row: dict[str, Any], label: str, prop: str) -> dict[str, Any] | None:
        """From a row of ``cypher/vector_indexes``: the options of a vector index on
        ``label.prop``, or None when the row is not one."""

    async def vector_read_ranges(self, conn: Connection, kind: str, items: int,
                                 batch: int = READ_BATCH) -> list[tuple[Any, Any]]:
        """The ``(lo, hi)`` bounds of ``cypher/<kind>_vectors_in_range`` that read every stored
        embedding of ``kind`` about ``batch`` at a time (besides what
        ``<kind>_vectors_outside_ranges`` reads): here uuid ranges, one per hex prefix, ``hi``
        being ``lo`` with its last character's successor (``"0f"`` -> ``"0g"``)."""
        width = max(1, min(4, math.ceil(math.log(max(2, items / max(1, batch)), 16))))
        prefixes = [format(i, f"0{width}x") for i in range(16 ** width)]
        return [(p, p[:-1] + chr(ord(p[-1]) + 1)) for p in prefixes]

    @asynccontextmanager
    async def vector_reads(self, conn: Connection) -> AsyncIterator[VectorRead]:
        """``read(text, params)``: the rows of a read statement whose ``v`` column holds stored
        embeddings, that column as float32 arrays (None where null), for the reads of every
        embedding (the exact vector store's build, the exact scan). Here the rows of
        :meth:`Connection.run_text`, converted."""
        async def read(text: str, params: dict[str, Any]) -> list[dict[str, Any]]:
            return float32_column(await conn.run_text(text, params, write=False))
        yield read

    def similarity(self, score: float) -> float:
        """A vector index score on Graphiti's cosine scale, ``(1 + cos) / 2``."""
        return score


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc``, what caused it and what it happened during, and the members of exception groups
    (a Neo4j routing failure holds one error per server tried), outermost first."""
    seen: list[BaseException] = []
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop(0)
        if e is None or any(e is s for s in seen):
            continue
        seen.append(e)
        todo += [e.__cause__, e.__context__, *getattr(e, "exceptions", ())]
    return seen


# Why a graph cannot be reached, in the order they are looked for in the chain (a failed TLS
# handshake also shows a reset connection): (test, what happened, what to check).
_WHY: tuple[tuple[Any, str, str], ...] = (
    (lambda e: isinstance(e, socket.gaierror) or "DNS resolve" in str(e),
     "the host name does not resolve (DNS lookup failed)", "check the host name in the address"),
    (lambda e: isinstance(e, ssl.SSLError) or "SecurityError" in type(e).__name__ or "encrypted connection" in str(e),
     "the TLS handshake failed", "a +s or +ssc scheme (bolt+s://, neo4j+s://) needs a server with TLS on that "
     "port; use bolt:// or neo4j:// for one without, bolt+ssc:// for a self-signed certificate"),
    (lambda e: isinstance(e, ConnectionRefusedError) or "Connection refused" in str(e),
     "connection refused (nothing listens on that port)", "check the host and port, and that the server is running"),
    (lambda e: isinstance(e, TimeoutError | socket.timeout) or "timed out" in str(e).lower(),
     "no answer (timed out)", "check the host, the port and any firewall in between"),
    (lambda e: isinstance(e, ConnectionResetError | BrokenPipeError)
     or any(t in str(e) for t in ("defunct connection", "closed by server", "closed with incomplete handshake")),
     "the server closed the connection", "check that the port is the graph server's (Bolt for bolt:// and "
     "neo4j://, FalkorDB for falkordb://)"),
)


def unreachable(exc: BaseException, where: str) -> GraphConnectionError:
    """``cannot reach graph WHERE: <why>: <what to check>`` for a driver's connection error: a
    refused connection, a name that does not resolve, a failed TLS handshake, a timeout, a closed
    connection (the cause is searched for in the error's chain); else the error's type."""
    causes = _causes(exc)
    for test, why, check in _WHY:
        if any(test(e) for e in causes):
            return GraphConnectionError(f"cannot reach graph {where}: {why}: {check}")
    return GraphConnectionError(f"cannot reach graph {where}: {type(exc).__name__}: check the address and that the "
                                "server is running")


def auth_failed(where: str) -> GraphAuthError:
    """The server refused the user and password (never shown)."""
    return GraphAuthError(f"authentication failed for graph {where}: check the user and password (graph.user and "
                          "graph.password, NEO4J_USER and NEO4J_PASSWORD, or user:password@ in the address)")
