"""FalkorDB (embedded, started by graph-trust, or an external server): each Graphiti group is a
graph of its own, vector scores are distances, index DDL answers "already indexed"."""

from __future__ import annotations

import asyncio
import itertools
import math
import re
import time
import weakref
from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import numpy as np
import redis.exceptions as rx
from falkordb.asyncio import FalkorDB
from falkordb.asyncio.query_result import parse_scalar
from graphiti_core.driver.driver import GraphProvider
from graphiti_core.driver.falkordb_driver import FalkorDriver
from redis.asyncio import ConnectionPool, Redis

from graph_trust.errors import GraphConnectionError
from graph_trust.graph.backends.base import (
    READ_BATCH,
    Address,
    Backend,
    Connection,
    OpenedDriver,
    VectorRead,
    auth_failed,
    unreachable,
)
from graph_trust.graph.embedded import EmbeddedServer

if TYPE_CHECKING:
    from graph_trust.config import GraphSettings

DEFAULT_GRAPH = "default_db"  # graphiti-core FalkorDriver's default database
_EMPTY_KEY = "Invalid graph operation on empty key"  # reading a graph that does not exist
_FILLING = re.compile(r"(\d+)/(\d+)")  # "[Indexing] 6668/20000: UNDER CONSTRUCTION"
READ_CHUNK = 1 << 20  # bytes per socket read of vector_reads' replies (several MB each)
VECTORF32 = 12  # a vecf32 value in a --compact reply (falkordb-py's ResultSetScalarTypes.VALUE_VECTORF32)


REBUILD_SUFFIX = "__graph_trust_rebuild"  # the spare copy rebuild_indexes makes
# INFO persistence fields that are non-zero while the server has a child process (a snapshot, an
# append-only-file rewrite, a module's fork: until the server has reaped it) or is about to start one
CHILD_FIELDS = ("rdb_bgsave_in_progress", "aof_rewrite_in_progress", "aof_rewrite_scheduled",
                "module_fork_in_progress")
AUTO_FORKS = {"save": "", "auto-aof-rewrite-percentage": "0"}  # the server's own reasons to fork: off
CHILD_WAIT_S = 600.0
# client -> the last index build started on that server connection (see one_build_at_a_time)
_LAST_BUILD: weakref.WeakKeyDictionary[Any, asyncio.Task] = weakref.WeakKeyDictionary()


class FalkorDBBackend(Backend):
    name = "falkordb"
    provider = GraphProvider.FALKORDB
    kinds = ("embedded", "falkordb")
    schemes = ("falkordb",)
    url_kind = "falkordb"
    default_port = 6379
    path_prefix = "embedded"
    examples = ("embedded:PATH", "falkordb://host:port")
    rank = 0
    graph_per_group = True
    default_database = DEFAULT_GRAPH

    def display(self, address: Address) -> str:
        if address.kind == "embedded":
            return f"embedded:{address.path}"
        return f"falkordb://{address.host}:{address.port}"

    def open_driver(self, address: Address, graph: GraphSettings) -> OpenedDriver:
        server = socket_path = None
        if address.kind == "embedded":
            server = EmbeddedServer(address.path, binary=graph.falkordb_binary,
                                    load_timeout_s=graph.load_timeout_s).start()
            socket_path = server.socket_path
        database = graph.database or DEFAULT_GRAPH
        try:  # the FalkorDB client connects on construction (cluster detection)
            if socket_path:
                client = FalkorDB(unix_socket_path=socket_path)
            else:
                pw = address.password.get_secret_value() if address.password else None
                client = FalkorDB(host=address.host, port=address.port, username=address.user, password=pw)
            driver = one_build_at_a_time(FalkorDriver(falkor_db=client, database=database))
        except Exception as exc:  # noqa: BLE001 - translated, or re-raised
            if server is not None:
                server.stop()
            translated = self.translate(exc, self.display(address))
            if translated is None:
                raise
            raise translated from None
        return OpenedDriver(driver, database, server)

    def clone(self, driver: Any, database: str) -> Any:
        cloned = driver.clone(database=database)
        return cloned if cloned is driver else one_build_at_a_time(cloned, after=driver)

    async def ping(self, conn: Connection) -> None:
        await conn.driver.client.connection.ping()

    async def run(self, driver: Any, database: str, text: str, params: dict[str, Any], *,
                  write: bool) -> list[dict[str, Any]]:
        graph = driver.client.select_graph(database)
        try:
            result = await (graph.query(text, params) if write else graph.ro_query(text, params))
        except Exception as exc:  # noqa: BLE001 - re-raised unless it is a read of a deleted graph
            if not write and _EMPTY_KEY in str(exc):
                return []  # a group's graph deleted (or never written): nothing to read, as in an empty graph
            raise
        header = [h[1] for h in result.header]
        return [dict(zip(header, row, strict=False)) for row in result.result_set]

    async def graph_names(self, driver: Any, database: str) -> list[str]:
        return sorted(await driver.client.list_graphs())

    async def rebuild_indexes(self, conn: Connection) -> bool:
        """FalkorDB re-indexes an edge on every ``SET`` and keeps the old entry in its fulltext
        index until a background collection, so BM25 scores after a write differ from those after
        a restart (the index rebuilt from the snapshot). ``GRAPH.COPY`` builds a graph's indexes
        afresh: copy out, replace, copy back, each copy once the server has no other child
        process (:func:`graph_copy`). A copy left by an interrupted rebuild is restored first (the
        graph missing) or dropped."""
        redis, name = conn.driver.client.connection, conn.database
        spare = f"{name}{REBUILD_SUFFIX}"
        async with automatic_forks_paused(redis, pause=conn.address.kind == "embedded"):
            names = set(await conn.graph_names())
            if spare in names:
                if name not in names:
                    await graph_copy(redis, spare, name)
                await redis.execute_command("GRAPH.DELETE", spare)
            await graph_copy(redis, name, spare)
            await redis.execute_command("GRAPH.DELETE", name)
            await graph_copy(redis, spare, name)
            await redis.execute_command("GRAPH.DELETE", spare)
        return True

    async def groups(self, conn: Connection, among: Collection[str] | None = None) -> list[str]:
        return [name for name in await conn.graph_names() if (among is None or name in among)
                and await conn.for_group(name).query("graph_has_entities")]

    def transient_errors(self) -> tuple[type[BaseException], ...]:
        return (rx.ConnectionError, rx.TimeoutError)

    def translate(self, exc: BaseException, where: str, database: str | None = None) -> GraphConnectionError | None:
        text = str(exc)
        if isinstance(exc, rx.AuthenticationError) or "NOAUTH" in text or "WRONGPASS" in text:
            return auth_failed(where)
        if isinstance(exc, rx.ConnectionError) or (isinstance(exc, rx.TimeoutError) and "connecting" in text):
            return unreachable(exc, where)
        return super().translate(exc, where, database)

    async def graphiti_indices(self, conn: Connection) -> None:
        await conn.driver.build_indices_and_constraints()

    async def await_new_indexes(self, conn: Connection, poll_s: float = 0.25) -> None:
        """Until every index of the graph is filled: FalkorDB fills a new one (range, fulltext or
        vector) in the background and meanwhile answers queries from the part it has filled."""
        while any(r.get("status", "OPERATIONAL") != "OPERATIONAL" for r in await conn.query("vector_indexes")):
            await asyncio.sleep(poll_s)

    def vector_index_options(self, row: dict[str, Any], label: str, prop: str) -> dict[str, Any] | None:
        types = (row.get("types") or {}).get(prop) or []
        if row.get("label") == label and "VECTOR" in types:
            # (a new index is filled in the background and answers from what it holds meanwhile;
            # its status says how far: "[Indexing] 6668/20000: UNDER CONSTRUCTION")
            status = row.get("status", "OPERATIONAL")
            done = _FILLING.search(status or "")
            filled = 1.0 if status == "OPERATIONAL" else (int(done[1]) / max(1, int(done[2])) if done else None)
            return dict((row.get("options") or {}).get(prop) or {}, ready=status == "OPERATIONAL", filled=filled)
        return None

    async def vector_read_ranges(self, conn: Connection, kind: str, items: int,
                                 batch: int = READ_BATCH) -> list[tuple[Any, Any]]:
        """Internal node id ranges (FalkorDB seeks them: ``NodeByIdSeek``), edges read by their
        source node. Not uuid ranges: FalkorDB's range index answers some string bounds wrongly
        (``["0f", "10")`` also returned every uuid starting with ``1``, ``["a", "b")`` none)."""
        rows = await conn.query("node_id_bound")
        top = int(rows[0]["n"]) + 1 if rows and rows[0]["n"] is not None else 0
        step = max(1, math.ceil(top * batch / max(1, items)))
        return [(lo, min(top, lo + step)) for lo in range(0, top, step)]

    @asynccontextmanager
    async def vector_reads(self, conn: Connection) -> AsyncIterator[VectorRead]:
        """Reads over connections of their own that speak RESP3, where FalkorDB sends a vecf32's
        elements as doubles, which the reply parser (hiredis) makes floats in C, instead of the
        decimal strings falkordb-py converts one by one in Python (over half a store build's
        time). Same values: the float32 numbers the graph holds, exactly (both replies print
        each with enough digits to round-trip). The other columns are parsed by falkordb-py.
        Replies of several MB are read a MB at a time (redis-py's default: 32 KB)."""
        pool = conn.driver.client.connection.connection_pool
        kwargs = pool.connection_kwargs
        resp3 = Redis.from_pool(ConnectionPool(connection_class=pool.connection_class, **{
            **kwargs, "protocol": 3, "socket_read_size": max(kwargs.get("socket_read_size", 0), READ_CHUNK)}))
        graph = conn.driver.client.select_graph(conn.database)

        async def read(text: str, params: dict[str, Any]) -> list[dict[str, Any]]:
            query = graph._build_params_header(params) + text  # as falkordb-py sends parameters
            try:
                reply = await conn.attempts(resp3.execute_command, "GRAPH.RO_QUERY", conn.database, query, "--compact")
            except rx.ResponseError as exc:
                if _EMPTY_KEY in str(exc):
                    return []  # as run: a graph never written reads as an empty one
                raise
            return await _compact_rows(reply, graph)

        try:
            yield read
        finally:
            await resp3.aclose()

    def similarity(self, score: float) -> float:
        """FalkorDB's vector index returns a cosine distance (1 - cos)."""
        return (2.0 - score) / 2.0


async def _compact_rows(reply: list[Any], graph: Any) -> list[dict[str, Any]]:
    """The rows of a ``--compact`` reply as falkordb-py parses them, a vecf32 as a float32 array
    (a column of vectors of one length converted at once: a row of one matrix each)."""
    if isinstance(reply[-1], rx.ResponseError):  # an error while the query ran
        raise reply[-1]
    if len(reply) < 3:  # statistics only
        return []
    names, rows = [h[1] for h in reply[0]], reply[1]
    columns: list[list[Any]] = []
    for cells in zip(*rows, strict=True):
        vectors = [c[1] for c in cells if c[0] == VECTORF32]
        if vectors and len(vectors) == len(cells) and len({len(v) for v in vectors}) == 1:
            matrix = np.fromiter(itertools.chain.from_iterable(vectors), dtype=np.float32,
                                 count=len(vectors) * len(vectors[0])).reshape(len(vectors), len(vectors[0]))
            columns.append(list(matrix))
        else:
            columns.append([np.asarray(c[1], dtype=np.float32) if c[0] == VECTORF32 else await parse_scalar(c, graph)
                            for c in cells])
    return [dict(zip(names, values, strict=True)) for values in zip(*columns, strict=True)]


def one_build_at_a_time(driver: Any, after: Any = None) -> Any:
    """``driver`` (just made, or cloned from ``after``) with graphiti-core's background index
    build queued behind the last one started on the same client, instead of running beside it.
    Each build's first statement creates its graph. FalkorDB 4.16 once deadlocked on a graph
    creation sent while another graph's build had just begun (the globals lock's reader count
    had underflowed; the exact path inside FalkorDB is not known): one build at a time never
    creates two graphs at once. The build graphiti-core scheduled is cancelled before it runs."""
    own = getattr(driver, "_init_task", None)
    if own is None:  # made outside an event loop: graphiti-core started no build
        return driver
    own.cancel()
    loop = own.get_loop()
    before = [t for t in (_LAST_BUILD.get(driver.client), getattr(after, "_init_task", None))
              if t is not None and not t.done() and t.get_loop() is loop]

    async def build() -> None:
        if before:
            await asyncio.wait(before)  # their failure or cancellation is theirs, not this build's
        await driver.build_indices_and_constraints()

    driver._init_task = _LAST_BUILD[driver.client] = loop.create_task(build())
    return driver


async def child_processes(redis: Any) -> list[str]:
    """The :data:`CHILD_FIELDS` that say the server has (or is about to start) a child process."""
    info = await redis.info("persistence")
    return [f for f in CHILD_FIELDS if int(info.get(f, 0))]


async def graph_copy(redis: Any, src: str, dst: str, poll_s: float = 0.05) -> None:
    """``GRAPH.COPY src dst`` once the server has no child process. FalkorDB forks for the copy,
    and a fork refused because another child is alive (``Can't fork for module: File exists``)
    deadlocks FalkorDB 4.16's server: every thread waits, and the other child is never reaped.
    An embedded server writes its append-only file again in the background right after a load
    or a large write: a copy sent then hung the server in one try of three here."""
    deadline = time.monotonic() + CHILD_WAIT_S
    while busy := await child_processes(redis):
        if time.monotonic() > deadline:
            raise GraphConnectionError(f"cannot copy graph {src!r}: the server has had a child process "
                                       f"({', '.join(busy)}) for {CHILD_WAIT_S:g} s; try again when it has finished")
        await asyncio.sleep(poll_s)
    await redis.execute_command("GRAPH.COPY", src, dst)


@asynccontextmanager
async def automatic_forks_paused(redis: Any, *, pause: bool) -> AsyncIterator[None]:
    """With ``pause`` (graph-trust's own embedded server), its automatic snapshots and
    append-only-file rewrites are off meanwhile, so none starts between :func:`graph_copy`'s wait
    and the copy's fork; the settings are restored after. Another server's configuration is left
    alone: there the wait is all (the server decides to fork at most every 100 ms or so)."""
    if not pause:
        yield
        return
    saved = {key: (await redis.config_get(key))[key] for key in AUTO_FORKS}
    for key, value in AUTO_FORKS.items():
        await redis.config_set(key, value)
    try:
        yield
    finally:
        for key, value in saved.items():
            await redis.config_set(key, value)


BACKEND = FalkorDBBackend()
