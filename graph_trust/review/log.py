"""The retrieval log: which facts search, context and the MCP tools returned, and at which rank.

:class:`RetrievalLog` is the writer the api hands those calls (search never writes the graph and
never waits on the review DB): :meth:`RetrievalLog.record` adds the returned uuids to an
in-memory count keyed by (day, group, edge uuid, interface, rank), under a lock, with no I/O; a
daemon thread writes the counts to the review DB's ``retrieval_log`` in one transaction (an upsert
adding to ``hits``) every ``review.log_flush_s`` seconds, or as soon as ``review.log_batch``
returns are pending, and once more at exit. Query text is kept only with ``review.log_queries``
(``retrieval_queries``). Rows older than ``review.log_retention_days`` are deleted at most once an
hour. A review DB that cannot take the log (no review tables, unreachable) costs one warning and
the pending counts; search goes on.

:func:`summary` is what ``graph-trust review log`` shows; :func:`uses` is what the queue reads;
:func:`query_source` hands the kept query texts, embedded, to the vector index's recall check
(real queries beside its sampled ones).
"""

from __future__ import annotations

import atexit
import json
import logging
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from graph_trust.clients.factory import make_embedder
from graph_trust.clients.probe import embed_texts
from graph_trust.config import ReviewSettings, Settings, review_location
from graph_trust.errors import GraphTrustError
from graph_trust.review.db import Limits, Location, ReviewConn, init_hint, parse_location
from graph_trust.review.schema import INTERFACES, missing_tables

log = logging.getLogger(__name__)
PRUNE_EVERY_S = 3600.0
MAX_PENDING = 200_000  # distinct pending keys kept while the review DB cannot take them
UPSERT = ("INSERT INTO retrieval_log (day, group_id, edge_uuid, interface, rank, hits) VALUES (?, ?, ?, ?, ?, ?) "
          "ON CONFLICT (day, group_id, edge_uuid, interface, rank) DO UPDATE SET hits = retrieval_log.hits + excluded.hits")


def _day(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d")


class RetrievalLog:
    """Batched writer of the retrieval log of one review DB (see the module docstring)."""

    def __init__(self, location: Location | str | Path, *, batch: int = 500, flush_s: float = 5.0,
                 retention_days: int = 400, log_queries: bool = False, background: bool = True):
        self.location = location if isinstance(location, Location) else parse_location(location)
        self.batch, self.flush_s, self.retention_days, self.log_queries = batch, flush_s, retention_days, log_queries
        self._lock = threading.Lock()
        self._flush_lock = threading.Lock()
        self._counts: Counter[tuple[str, str, str, str, int]] = Counter()
        self._queries: list[tuple[str, str, str | None, str, str]] = []
        self._pending = 0
        self._conn: ReviewConn | None = None
        self._last_prune = 0.0
        self._warned = False
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if background:
            self._thread = threading.Thread(target=self._loop, name="graph-trust-retrieval-log", daemon=True)
            self._thread.start()
            atexit.register(self.close)

    @classmethod
    def from_settings(cls, review: ReviewSettings, **kw: Any) -> RetrievalLog | None:
        """The writer ``review`` configures, or None (``review.log`` false, or no review DB)."""
        where = review_location(review)
        if not review.log or where is None:
            return None
        return cls(parse_location(where, Limits.of(review)), batch=review.log_batch, flush_s=review.log_flush_s,
                   retention_days=review.log_retention_days, log_queries=review.log_queries, **kw)

    # --- recording (the caller's thread: no I/O) ------------------------------------------------

    def record(self, interface: str, returned: Iterable[tuple[str, str | None]], *, query: str | None = None,
               groups: list[str] | None = None, at: float | None = None) -> None:
        """Count one call's returned facts: ``returned`` is (uuid, group id) in rank order (rank 1 first)."""
        if interface not in INTERFACES:
            raise ValueError(f"unknown interface {interface!r} (one of {', '.join(INTERFACES)})")
        t = time.time() if at is None else at
        day = _day(t)
        items = [(day, g or "", u, interface, r) for r, (u, g) in enumerate(returned, start=1) if u]
        with self._lock:
            if len(self._counts) < MAX_PENDING:
                self._counts.update(items)
                if self.log_queries and query is not None:
                    stamp = datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds")
                    self._queries.append((stamp.replace("+00:00", "Z"), interface,
                                          json.dumps(groups) if groups else None, query,
                                          json.dumps([i[2] for i in items])))
            self._pending += len(items)
            due = self._pending >= self.batch
        if due:
            self._wake.set()

    # --- writing (the flusher thread, or flush() called directly) -----------------------------

    def flush(self) -> int:
        """Write the pending counts in one transaction; returns the log rows written (0 when the
        review DB could not take them: they are dropped with one warning per writer)."""
        with self._flush_lock:
            with self._lock:
                counts, queries = self._counts, self._queries
                self._counts, self._queries, self._pending = Counter(), [], 0
            if not counts and not queries:
                return 0
            rows = [(*k, n) for k, n in sorted(counts.items())]
            try:
                conn = self._connection()

                def write(c: ReviewConn) -> None:
                    c.executemany(UPSERT, rows)
                    if queries:
                        c.executemany("INSERT INTO retrieval_queries (at, interface, group_ids, query, uuids_json) "
                                      "VALUES (?, ?, ?, ?, ?)", queries)
                    if time.time() - self._last_prune >= PRUNE_EVERY_S:
                        self._prune(c)

                conn.write(write)
            except GraphTrustError as exc:
                self._drop(exc)
                return 0
            return len(rows)

    def _connection(self) -> ReviewConn:
        if self._conn is None:
            conn = ReviewConn.open(self.location)
            missing = missing_tables(conn, ("retrieval_log", "retrieval_queries"))
            if missing:
                conn.close()
                raise GraphTrustError(f"review DB {self.location} lacks {', '.join(missing)} "
                                      f"({init_hint(self.location)})")
            self._conn = conn
        return self._conn

    def _prune(self, c: ReviewConn) -> None:
        cutoff = datetime.now(UTC) - timedelta(days=self.retention_days)
        c.execute("DELETE FROM retrieval_log WHERE day < ?", (cutoff.strftime("%Y-%m-%d"),))
        c.execute("DELETE FROM retrieval_queries WHERE at < ?", (cutoff.isoformat().replace("+00:00", "Z"),))
        self._last_prune = time.time()

    def _drop(self, exc: Exception) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if not self._warned:
            self._warned = True
            log.warning("retrieval log not written (search is not affected): %s", exc)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.flush_s)
            self._wake.clear()
            self.flush()

    def close(self) -> None:
        """Write what is pending and stop the flusher (idempotent)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=30)
        self.flush()
        if self._conn is not None:
            self._conn.close()
            self._conn = None


_WRITERS: dict[tuple, RetrievalLog] = {}
_WRITERS_LOCK = threading.Lock()


def _writer_key(review: ReviewSettings) -> tuple:
    return (review_location(review), review.log_batch, review.log_flush_s, review.log_retention_days,
            review.log_queries)


def writer_for(review: ReviewSettings) -> RetrievalLog | None:
    """The process's writer for the configured review DB (one per DB and log settings), or None."""
    if not review.log or review_location(review) is None:
        return None
    key = _writer_key(review)
    with _WRITERS_LOCK:
        if key not in _WRITERS:
            _WRITERS[key] = RetrievalLog.from_settings(review)  # type: ignore[assignment]
        return _WRITERS[key]


def close_writer(review: ReviewSettings) -> None:
    """Write what the process's writer for ``review`` holds and stop it (a temporary review DB that
    is about to go, e.g. the evaluation's); nothing when there is none."""
    with _WRITERS_LOCK:
        writer = _WRITERS.pop(_writer_key(review), None)
    if writer is not None:
        writer.close()


# --- reading ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Use:
    """How agents saw one fact over the window: returns weighed by age (``weighted``: one
    half-life ago counts half) and by rank (``top``: only ranks within ``top_ranks``; rank 1 counts
    1, rank r counts 1 / r), raw returns and the best rank."""

    edge_uuid: str
    group_id: str
    returns: int
    weighted: float
    best_rank: int
    last_day: str
    firsts: float = 0.0  # its returns at rank 1, weighed by age: searches it answered first


def searches(used: dict[str, Use]) -> float:
    """The searches the log holds (each returns one fact at rank 1), weighed by age."""
    return sum(u.firsts for u in used.values())


def uses(conn: ReviewConn, *, days: int, half_life_days: float, top_ranks: int, group: str | None = None,
         today: datetime | None = None) -> dict[str, Use]:
    """Edge uuid -> :class:`Use` from the log's last ``days`` days, summed in the DB: one grouped
    read joined with each day's weight (passed as one JSON parameter), one row per fact."""
    ref = (today or datetime.now(UTC)).astimezone(UTC).date()
    weights = {(ref - timedelta(days=age)).isoformat(): 0.5 ** (age / half_life_days) for age in range(days + 1)}
    where, params = "WHERE l.rank <= ?", [json.dumps(weights), top_ranks]
    if group is not None:
        where += " AND l.group_id = ?"
        params.append(group)
    rows = conn.query(f"SELECT l.edge_uuid, min(l.group_id), sum(l.hits), sum(l.hits * w.value / l.rank), min(l.rank), "
                      "max(l.day), sum(CASE WHEN l.rank = 1 THEN l.hits * w.value ELSE 0 END) "
                      f"FROM retrieval_log l JOIN {conn.json_pairs()} w ON w.key = l.day {where} "
                      "GROUP BY l.edge_uuid", tuple(params))
    return {u: Use(u, g, int(n), float(wt), int(best), last, float(first))
            for u, g, n, wt, best, last, first in rows}


def returns_of(conn: ReviewConn, edge_uuid: str, *, days: int = 30) -> dict[str, Any]:
    """Where agents saw one fact over the last ``days`` days: its returns per day, interface and
    rank, and (only with ``review.log_queries``) the queries that returned it, newest first."""
    since = (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%d")
    rows = conn.query("SELECT day, interface, rank, sum(hits) FROM retrieval_log WHERE edge_uuid = ? AND day >= ? "
                      "GROUP BY day, interface, rank ORDER BY day DESC, interface, rank", (edge_uuid, since))
    queries = conn.query("SELECT at, interface, query, uuids_json FROM retrieval_queries WHERE at >= ? "
                         "AND uuids_json LIKE ? ORDER BY at DESC LIMIT 500", (since, f'%"{edge_uuid}"%'))
    return {"edge_uuid": edge_uuid, "days": days,
            "returns": [{"day": d, "interface": i, "rank": int(r), "hits": int(h)} for d, i, r, h in rows],
            "queries": [{"at": at, "interface": i, "query": q, "rank": json.loads(u).index(edge_uuid) + 1}
                        for at, i, q, u in queries if edge_uuid in json.loads(u)]}


def summary(conn: ReviewConn, *, days: int = 30, group: str | None = None, top: int = 10) -> dict[str, Any]:
    """What ``graph-trust review log`` shows: returns per interface and per day, distinct facts,
    the most returned facts, the oldest and newest day kept."""
    missing = missing_tables(conn, ("retrieval_log",))
    if missing:
        raise GraphTrustError(f"review DB {conn.location} lacks the retrieval log ({init_hint(conn.location)})")
    since = (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%d")
    where, params = "WHERE day >= ?", [since]
    if group is not None:
        where += " AND group_id = ?"
        params.append(group)
    p = tuple(params)
    by_interface = dict(conn.query(f"SELECT interface, sum(hits) FROM retrieval_log {where} GROUP BY 1 ORDER BY 1", p))
    by_day = conn.query(f"SELECT day, sum(hits) FROM retrieval_log {where} GROUP BY 1 ORDER BY 1", p)
    facts = conn.query(f"SELECT count(DISTINCT edge_uuid) FROM retrieval_log {where}", p)[0][0]
    most = conn.query(f"SELECT edge_uuid, group_id, sum(hits), min(rank) FROM retrieval_log {where} "
                      "GROUP BY 1, 2 ORDER BY 3 DESC, 1 LIMIT ?", (*p, top))
    span = conn.query("SELECT min(day), max(day), count(*) FROM retrieval_log")[0]
    return {"days": days, "group": group, "returns": int(sum(by_interface.values())),
            "by_interface": {k: int(v) for k, v in by_interface.items()}, "facts": int(facts),
            "by_day": [{"day": d, "returns": int(n)} for d, n in by_day],
            "most_returned": [{"edge_uuid": u, "group_id": g or None, "returns": int(n), "best_rank": int(r)}
                              for u, g, n, r in most],
            "kept": {"oldest_day": span[0], "newest_day": span[1], "rows": int(span[2])}}


__all__ = ["RetrievalLog", "Use", "close_writer", "returns_of", "searches", "summary", "uses", "writer_for"]


def recent_queries(conn: ReviewConn, group: str | None, limit: int) -> list[str]:
    """The newest ``limit`` distinct query texts kept (``review.log_queries``) of calls that
    searched ``group`` (a call naming no group searched every group; ``group`` None: any call)."""
    if missing_tables(conn, ("retrieval_queries",)):
        return []
    out: dict[str, None] = {}
    rows = conn.query("SELECT query, group_ids FROM retrieval_queries ORDER BY at DESC, id DESC LIMIT ?",
                      (20 * limit,))
    for query, groups in rows:
        if group is None or groups is None or group in json.loads(groups):
            out.setdefault(query, None)
            if len(out) >= limit:
                break
    return list(out)


def query_source(settings: Settings, where: Location | str | None = None,
                 ) -> Callable[[str | None], Awaitable[list[list[float]]]] | None:
    """Real query embeddings for the recall check (:func:`graph_trust.graph.index_recall.refresh`):
    per group, the newest ``vector_index.check_queries`` kept query texts of the review DB
    (``where``, default the configured one), embedded by ``search.embedder``. None without
    ``review.log_queries`` or a review DB; a log that cannot be read gives no queries (one
    warning): the check then samples the graph alone."""
    where = where if where is not None else review_location(settings.review)
    if not settings.review.log_queries or where is None:
        return None

    async def embedded(group: str | None) -> list[list[float]]:
        try:
            with ReviewConn.open(parse_location(where, Limits.of(settings.review)) if isinstance(where, str) else where,
                                 readonly=True) as conn:
                texts = recent_queries(conn, group, settings.vector_index.check_queries)
        except GraphTrustError as exc:
            log.warning("recall check without the retrieval log's queries: %s", exc)
            return []
        return [list(map(float, v)) for v in await embed_texts(make_embedder(settings), texts)] if texts else []

    return embedded
