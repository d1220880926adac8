"""The library entry point: everything the ``graph-trust`` command does, as functions that take
:class:`~graph_trust.config.Settings` (``load_settings()`` builds them from the config file,
the environment and overrides, validated once).

The CLI calls only this module (and config/errors); the MCP server is started here
(:func:`serve_mcp`) and handed this module's functions. Each function is named for its command,
takes that command's parameters by name, and delegates to the module that does the work: what
it adds is wiring (which review DB and graph, the retrieval log, the sync a review command asks
for), so a behaviour is changed where it lives, not here. Layers point one way: config and errors
<- the graph layer (:mod:`graph_trust.graph`, connections) <- search, context and sync <- this
module <- the CLI.


Example (every command has its function; async ones are awaited)::

    settings = load_settings()
    results = asyncio.run(api.search(settings, "billing backup", limit=5))
    report = asyncio.run(api.sync(settings, dry_run=True))
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from graph_trust import __version__
from graph_trust.access.audit import AuditStore
from graph_trust.access.audit import list_events as audit_events
from graph_trust.access.override import OverridePolicy
from graph_trust.access.trust_context import SENSITIVITY_LEVELS, TrustContext
from graph_trust.access.visible_search import VisibleSearch
from graph_trust.access.visible_search import search_visible as _search_visible
from graph_trust.clients.factory import BUILTIN_EMBEDDERS, embedder_named
from graph_trust.confidence.composite import FACTORS, RISK_THRESHOLDS
from graph_trust.confidence.consensus import VOTES
from graph_trust.confidence.success import OUTCOMES
from graph_trust.confidence.verification import VERDICTS
from graph_trust.config import PolicySettings, Settings
from graph_trust.context.agent import (
    RANK_MODES,
    ContextOptions,
    ContextResult,
    RankMode,
    SearchOptions,
    build_context,
    get_record,
)
from graph_trust.context.agent import context_for_settings as _context
from graph_trust.context.metrics import write_textfile as write_metrics
from graph_trust.context.payload import Payload
from graph_trust.context.service import get_context as _get_context
from graph_trust.demo.run import DemoReport, run_demo
from graph_trust.errors import RunFailedError
from graph_trust.eval import evaluate as _evaluate
from graph_trust.eval.budget import BudgetReport, ReviewCommands, evaluate_budget
from graph_trust.eval.draws import DEFAULT_COVERAGE, DEFAULT_NOISE
from graph_trust.eval.metrics import ir_measures_module
from graph_trust.eval.plot import write_budget_plot, write_plot
from graph_trust.eval.report import EvalReport
from graph_trust.graph import index_ops
from graph_trust.graph.connection import GraphConnection, open_graph, use_graph
from graph_trust.graph.schema import Progress, init_graph
from graph_trust.mcp.server import McpReview, serve_stdio
from graph_trust.review import decisions as review_decisions
from graph_trust.review import flags as review_flags
from graph_trust.review import log as retrieval_log
from graph_trust.review import queue as review_queue_mod
from graph_trust.review import skips as review_skips
from graph_trust.review.candidates import location_of, open_candidates
from graph_trust.review.copy import CopyReport as ReviewCopyReport
from graph_trust.review.copy import check_distinct, copy_tables
from graph_trust.review.db import Location, ReviewConn, parse_location
from graph_trust.review.fact import fact_view
from graph_trust.review.graph_read import uncited_edge_facts
from graph_trust.review.schema import TABLES as REVIEW_TABLES
from graph_trust.review.schema import init_review_tables
from graph_trust.review.web import app as review_web
from graph_trust.search.calibrate import DEFAULT_RANK_CONSTS, DEFAULT_TIERS, CalibrationRow, calibration_tables
from graph_trust.search.ranked import composite_rank, composite_rank_records, search_config
from graph_trust.search.ranked import search as _search
from graph_trust.search.ranked import search_confident as _search_confident
from graph_trust.search.records import MEMORY_TYPES, known_memory_types
from graph_trust.search.trust_search import TrustSearchResults
from graph_trust.sync import init_review_db as _init_review_db
from graph_trust.sync import insert_records, insert_rows, prune, rollback, verify
from graph_trust.sync import list_runs as _list_runs
from graph_trust.sync import run_sync as _run_sync
from graph_trust.sync.confidence import ops as confidence_ops
from graph_trust.sync.confidence.schema import TABLES as CONFIDENCE_TABLES
from graph_trust.sync.confidence.schema import init_confidence_tables
from graph_trust.sync.confidence.store import ConfidenceStore
from graph_trust.sync.confidence.trust import confidence_behind as _confidence_behind
from graph_trust.sync.confidence.trust import trust_of as confidence_trust_of
from graph_trust.sync.labels import unknown_sensitivity_hint
from graph_trust.sync.relink import relink
from graph_trust.sync.report import SyncReport
from graph_trust.sync.review_db import COLUMNS as REVIEW_COLUMNS
from graph_trust.sync.review_db import demo_review_db

VERSION = __version__


# init, index check and index rebuild measure each vector index's recall with the retrieval log's
# real queries beside the sampled ones, where review.log_queries keeps them


async def init(settings: Settings, groups: list[str] | None = None, progress: Any = None) -> dict[str, Any]:
    """graph-trust init: :func:`graph_trust.graph.schema.init_graph`."""
    return await init_graph(settings, groups, progress, queries=retrieval_log.query_source(settings))


async def index_check(settings: Settings, groups: list[str] | None = None, *, stale_only: bool = False,
                      progress: Any = None) -> dict[str, Any]:
    """graph-trust index check: :func:`graph_trust.graph.index_ops.check`."""
    return await index_ops.check(settings, groups, stale_only=stale_only, progress=progress,
                                 queries=retrieval_log.query_source(settings))


async def index_status(settings: Settings, groups: list[str] | None = None) -> dict[str, Any]:
    """graph-trust index status: :func:`graph_trust.graph.index_ops.status`."""
    return await index_ops.status(settings, groups)


async def sync(settings: Settings, *, review_db: str | Path | None = None, dry_run: bool = False, full: bool = False,
               batch_size: int | None = None, progress: Progress | None = None,
               graph: GraphConnection | None = None) -> SyncReport:
    """graph-trust sync: the review DB's decisions (``review_db``, default the configured one) onto
    the configured graph (or the open ``graph``): :func:`graph_trust.sync.runner.run_sync`."""
    return await _run_sync(settings, review_db=review_db, dry_run=dry_run, full=full, batch_size=batch_size,
                           progress=progress, graph=graph)


def runs(settings: Settings, limit: int = 50) -> list[dict[str, Any]]:
    """graph-trust runs: recent runs of every kind, newest first (:func:`graph_trust.sync.list_runs`)."""
    return _list_runs(settings, limit)


async def index_rebuild(settings: Settings, groups: list[str] | None = None, kinds: list[str] | None = None, *,
                        progress: Any = None) -> dict[str, Any]:
    """graph-trust index rebuild: :func:`graph_trust.graph.index_ops.rebuild`."""
    return await index_ops.rebuild(settings, groups, kinds, progress=progress,
                                   queries=retrieval_log.query_source(settings))


def record_returned(settings: Settings, interface: str, returned: list[tuple[str, str | None]], *,
                    query: str | None = None, groups: list[str] | None = None) -> None:
    """Count facts a search, context or MCP call returned ((uuid, group id) in rank order) in the
    retrieval log of the configured review DB (``review.log``; batched, no I/O here): the writer
    :func:`graph_trust.review.log.writer_for` gives. Nothing when the log is off or no review DB is set."""
    writer = retrieval_log.writer_for(settings.review)
    if writer is not None:
        writer.record(interface, returned, query=query, groups=groups)


def flush_log(settings: Settings) -> int:
    """Write what :func:`record_returned` (and api.search, context, MCP) counted for the configured
    review DB now, rather than at the writer's next interval or at exit; returns the log rows
    written (0 when nothing was pending, the log is off or no review DB is set)."""
    writer = retrieval_log.writer_for(settings.review)
    return writer.flush() if writer is not None else 0


def _edges_of(results: Any) -> list[tuple[str, str | None]]:
    return [(e.uuid, e.group_id) for e in getattr(results, "edges", [])]


async def search(settings: Settings, query: str, *, scope: str = "edges", limit: int | None = None,
                 trust_weight: float | None = None, groups: list[str] | None = None) -> TrustSearchResults:
    """Trust-boosted search on the configured graph (:func:`graph_trust.search.ranked.search`):
    ``scope`` ``edges`` (facts) or ``nodes`` (entities), ``limit`` results (default
    ``search.limit``), ``trust_weight`` over ``search.trust_weight``, ``groups`` (default
    ``search.group_ids``, else every group). The facts returned are counted in the retrieval log
    (interface ``search``)."""
    results = await _search(settings, query, scope=scope, limit=limit, trust_weight=trust_weight, groups=groups)
    record_returned(settings, "search", _edges_of(results), query=query, groups=groups)
    return results


async def context(settings: Settings, query: str, *, trust_context: TrustContext | None,
                  groups: list[str] | None = None, rank: RankMode = "composite",
                  memory_types: list[str] | None = None, trust_override: float | None = None,
                  override_policy: OverridePolicy | None = None, audit_store: AuditStore | None = None,
                  min_salience: float | None = None, by_salience: bool = False, max_results: int | None = None,
                  now: datetime | None = None) -> ContextResult:
    """The agent context block as ``trust_context`` sees it
    (:func:`graph_trust.context.agent.context_for_settings`; the other arguments are
    :class:`~graph_trust.context.agent.ContextOptions`' fields: ``rank`` ``composite`` or
    ``boost``, ``memory_types`` to keep, an audited ``trust_override`` with its
    ``override_policy``, ``min_salience``, ``by_salience``, ``max_results``, ``now``). The facts
    in it are counted in the retrieval log (interface ``context``)."""
    out = await _context(settings, query, trust_context=trust_context, groups=groups, rank=rank,
                         memory_types=memory_types, trust_override=trust_override, override_policy=override_policy,
                         audit_store=audit_store, min_salience=min_salience, by_salience=by_salience,
                         max_results=max_results, now=now)
    record_returned(settings, "context", [(i.record.uuid, i.record.group_id) for i in out.items
                                          if i.record.kind == "edge"], query=query, groups=groups)
    return out


async def get_context(settings: Settings, query: Any, *, trust_context: TrustContext | None,
                      interface: str = "context", policy: PolicySettings | Mapping[str, Any] | None = None,
                      groups: Sequence[str] | None = None, rank: str = "composite", caller: str | None = None,
                      connection: GraphConnection | None = None, now: datetime | None = None) -> Payload:
    """The retrieval policy's payload (:meth:`graph_trust.context.service.ContextService.get_context`:
    ``policy`` a PolicySettings or overrides of ``settings.policy`` by field name, ``groups``,
    ``rank``, ``caller`` for the rate limit, an open ``connection`` to reuse, ``now``); its
    memories are counted in the retrieval log (``interface``: ``context``, or ``mcp``)."""
    payload = await _get_context(settings, query, trust_context=trust_context, policy=policy, groups=groups,
                                 rank=rank, caller=caller, connection=connection, now=now)
    record_returned(settings, interface, [(m.id, m.group) for m in payload.memories],
                    query=query if isinstance(query, str) else None, groups=list(groups) if groups else None)
    return payload


def init_review_db(path: str | Path | Location | None = None, settings: Settings | None = None) -> dict[str, Any]:
    """Create (or complete in place) a review DB at ``path`` (an SQLite path or a PostgreSQL
    address; default the configured one, ``review.url``): the documented ``candidates`` table, the
    confidence tables and the review tables (decisions, retrieval log, flags) (``graph-trust review
    init``). Returns what it made."""
    where = location_of(path, settings.review) if settings is not None else (
        path if isinstance(path, Location) else parse_location(path or ""))
    _init_review_db(where)
    added = init_confidence_tables(where) + init_review_tables(where)
    return {"path": where.display, "table": "candidates", "columns": list(REVIEW_COLUMNS),
            "confidence_tables": list(CONFIDENCE_TABLES), "review_tables": list(REVIEW_TABLES), "added": added}


def review_copy(settings: Settings, source: str | Path, destination: str | Path) -> ReviewCopyReport:
    """``graph-trust review copy SRC DST``: every table of the review DB ``source`` into
    ``destination`` (made a review DB first), SQLite and PostgreSQL either way; rows the
    destination holds are kept; idempotent (:mod:`graph_trust.review.copy`)."""
    src, dst = location_of(source, settings.review), location_of(destination, settings.review)
    check_distinct(src, dst)
    with ReviewConn.open(src, readonly=True):
        pass  # (a missing or unreachable source fails before the destination is made)
    init_review_db(dst)
    with ReviewConn.open(src, readonly=True) as s, ReviewConn.open(dst) as d:
        return copy_tables(s, d, ["candidates", *REVIEW_TABLES, *CONFIDENCE_TABLES])


@contextmanager
def confidence_store(settings: Settings, review_db: str | Path | None = None) -> Iterator[ConfidenceStore]:
    """The confidence model's records in the review DB (``review_db``, default ``review.path``),
    closed on exit: what ``graph-trust confidence``, ``verify-fact``, ``vote`` ... read and write
    (through :mod:`graph_trust.sync.confidence.ops`, exported here as ``confidence_ops``)."""
    with confidence_ops.store(settings, review_db) as store:
        yield store


def confidence_behind(settings: Settings, edge_uuids: list[str], review_db: str | Path | None = None
                      ) -> dict[str, dict[str, Any]]:
    """Per edge uuid: the fact its trust comes from, that fact's confidence and factor breakdown,
    and the trust_score ``sync.trust_mode`` gives it (for ``search --explain``; read from the
    review DB, ``review_db`` or ``review.path``). See ``sync.confidence_trust.confidence_behind``."""
    return _confidence_behind(settings, edge_uuids, review_db)


async def search_confident(settings: Settings, query: str, *, scope: str = "edges", limit: int | None = None,
                           groups: list[str] | None = None, review_db: str | Path | None = None,
                           interface: str = "search") -> tuple[TrustSearchResults, dict[str, float] | None]:
    """:func:`search` (``scope``, ``limit``, ``groups``) without the facts below
    ``search.min_confidence`` in the review DB (``review_db``, default the configured one):
    :func:`graph_trust.search.ranked.search_confident` handed
    :func:`graph_trust.sync.confidence.ops.search_confidences`. The facts returned are counted in
    the retrieval log as ``interface`` (``search``, or ``mcp``). Returns (results, confidences)."""
    with confidence_ops.search_confidences(settings, review_db, scope=scope) as confidences:
        out = await _search_confident(settings, query, confidences=confidences, scope=scope, limit=limit,
                                      groups=groups)
    record_returned(settings, interface, _edges_of(out[0]), query=query, groups=groups)
    return out


async def search_visible(settings: Settings, query: str, *, trust_context: TrustContext | None,
                         scope: str = "edges", limit: int | None = None, groups: list[str] | None = None,
                         review_db: str | Path | None = None, interface: str = "search") -> VisibleSearch:
    """:func:`search_confident` as ``trust_context`` sees it (``graph-trust search --actor``, the MCP
    ``search_facts`` tool): :func:`graph_trust.access.visible_search.search_visible` handed
    :func:`graph_trust.sync.confidence.ops.search_confidences`. The facts shown are counted in the
    retrieval log as ``interface`` (``search``, or ``mcp``)."""
    with confidence_ops.search_confidences(settings, review_db, scope=scope) as confidences:
        out = await _search_visible(settings, query, trust_context=trust_context, confidences=confidences,
                                    scope=scope, limit=limit, groups=groups)
    record_returned(settings, interface, [(r.uuid, r.group_id) for r in out.records if r.kind == "edge"],
                    query=query, groups=groups)
    return out


def serve_mcp(settings: Settings, trust_context: TrustContext) -> None:
    """``graph-trust mcp``: the MCP server on stdio with ``trust_context`` (the server's clearance,
    :meth:`TrustContext.for_mcp` of ``settings.mcp``), its confidence tools handed the review DB's
    operations (:mod:`graph_trust.sync.confidence.ops`), the access-controlled search and the review side."""
    serve_stdio(settings, trust_context, confidence_ops, functools.partial(search_visible, interface="mcp"),
                review=McpReview(functools.partial(get_context, interface="mcp"),
                                 functools.partial(flag_fact, settings), functools.partial(_mcp_skip, settings)))


@contextmanager
def review_candidates(settings: Settings, review_db: str | Path | None = None, *, readonly: bool = False
                      ) -> Iterator[tuple[Any, Any]]:
    """(connection, candidates table) of the review DB (``review_db``, default ``review.url``),
    closed on exit: what the review commands, the page and the queue read and write through
    (:class:`graph_trust.review.db.ReviewConn`, :class:`graph_trust.review.candidates.CandidateTable`)."""
    conn, cand = open_candidates(review_db, settings.review, readonly=readonly)
    try:
        yield conn, cand
    finally:
        conn.close()


async def review_decide(settings: Settings, action: str, ids: list[str], *, actor: str, reason: str,
                        review_db: str | Path | None = None, group: str | None = None, apply_sync: bool = False,
                        graph: GraphConnection | None = None, expect: str | None = None) -> dict[str, Any]:
    """``graph-trust review promote|corroborate|reject|expire``: decide the facts ``ids`` (candidate
    ids or edge uuids; an edge no candidate cites is read from the graph, in ``group`` or any) in one
    transaction with its audit trail (:func:`graph_trust.review.decisions.decide`; ``expect``: the
    status or version the reviewer saw, else refused); with ``apply_sync`` a sync applies them now.
    Returns ``{"batch": ..., "sync": report or None}``."""
    with review_candidates(settings, review_db) as (conn, cand):
        named = review_decisions.named(actor)  # (a bad actor fails before the graph is opened)
        edges = await uncited_edge_facts(settings, conn, cand, ids, group=group, graph=graph)
        batch = review_decisions.decide(conn, cand, action, ids, actor=named, reason=reason,
                                        tiers=settings.sync.tiers, edges=edges, expect=expect)
    return {"batch": batch.to_dict(), "sync": await _sync_if(apply_sync, settings, review_db, graph)}


async def _sync_if(wanted: bool, settings: Settings, review_db: str | Path | None,
                   graph: GraphConnection | None) -> SyncReport | None:
    """The ``--sync`` of a review command: a sync of the review DB now when ``wanted``."""
    return await _run_sync(settings, review_db=review_db, graph=graph) if wanted else None


async def review_undo(settings: Settings, *, actor: str, reason: str, batch_id: str | None = None,
                      force: bool = False, review_db: str | Path | None = None, apply_sync: bool = False,
                      graph: GraphConnection | None = None) -> dict[str, Any]:
    """``graph-trust review undo``: revert ``actor``'s own latest decision batch (or ``batch_id``); see
    :func:`graph_trust.review.decisions.undo`. Returns ``{"batch": ..., "sync": report or None}``."""
    with review_candidates(settings, review_db) as (conn, cand):
        batch = review_skips.undo_batch(conn, cand, actor=actor, reason=reason, batch_id=batch_id, force=force)
    # (a skip changed no status: nothing to sync)
    sync_report = await _sync_if(apply_sync and not review_skips.is_skip_batch(batch_id), settings, review_db, graph)
    return {"batch": batch.to_dict(), "sync": sync_report}


async def _mcp_skip(settings: Settings, target: str, reason: str) -> dict[str, Any]:
    """The MCP tool ``skip_fact``: :func:`review_skip` of one fact as the server's agent (``mcp.agent``)."""
    return await review_skip(settings, [target], actor=review_flags.acting_agent(settings.mcp.agent, "skip_fact",
                                                                                  "looked"), reason=reason)


async def review_skip(settings: Settings, ids: list[str], *, actor: str, reason: str,
                      review_db: str | Path | None = None, group: str | None = None,
                      graph: GraphConnection | None = None) -> dict[str, Any]:
    """``graph-trust review skip``: record that ``actor`` looked at the facts ``ids`` (candidate ids
    or edge uuids) and did not decide them; the queue stops offering them for
    ``review.queue.skip_days`` unless new evidence arrives (:mod:`graph_trust.review.skips`).
    Audited; ``review_undo(batch_id=...)`` takes it back. Returns ``{"batch": ..., "sync": None}``."""
    with review_candidates(settings, review_db) as (conn, cand):
        named = review_decisions.named(actor)
        found = set(await uncited_edge_facts(settings, conn, cand, ids, group=group, graph=graph))
        batch = review_skips.skip(conn, cand, ids, actor=named, reason=reason, graph_edges=found)
    return {"batch": batch.to_dict(), "sync": None}


async def flag_fact(settings: Settings, target: str, reason: str, *, agent: str | None = None,
                    review_db: str | Path | None = None, graph: GraphConnection | None = None) -> dict[str, Any]:
    """Flag a fact for review (the MCP tool ``flag_fact``; ``agent`` default ``mcp.agent``): see
    :func:`graph_trust.review.flags.flag`. An edge uuid no candidate cites is checked in the graph."""
    agent = review_flags.acting_agent(settings.mcp.agent if agent is None else agent, "flag_fact", "flagged")
    with review_candidates(settings, review_db) as (conn, cand):
        edges = await uncited_edge_facts(settings, conn, cand, [target], graph=graph)
        return review_flags.flag(conn, cand, target, reason, agent=agent, edge=edges.get(target))


def review_log(settings: Settings, *, days: int = 30, group: str | None = None, top: int = 10,
               review_db: str | Path | None = None) -> dict[str, Any]:
    """``graph-trust review log``: the retrieval log over the last ``days`` days (returns per
    interface and day, distinct facts, the most returned): :func:`graph_trust.review.log.summary`."""
    with review_candidates(settings, review_db, readonly=True) as (conn, _):
        return retrieval_log.summary(conn, days=days, group=group, top=top)


async def review_queue(settings: Settings, *, group: str | None = None, limit: int | None = None,
                       review_db: str | Path | None = None, graph: GraphConnection | None = None,
                       weights: dict[str, float] | None = None) -> list[Any]:
    """``graph-trust review queue``: facts ranked by the expected change in what agents see if a
    reviewer decided them, each with its reasons (:mod:`graph_trust.review.queue`: ``gather`` then
    ``rank``; ``weights`` override ``review.queue.weights`` entries). The confidence rule reads the
    confidence model when the review DB has its tables. Returns :class:`QueueItem` s."""
    with review_candidates(settings, review_db, readonly=True) as (conn, cand):
        conf = confidence_ops.when_recorded(conn, functools.partial(confidence_ops.read_confidences, settings,
                                                                    review_db))
        async with use_graph(settings, graph) as g:
            return await review_queue_mod.queue(conn, cand, g, settings.review.queue, settings.sync.tiers,
                                                group=group, limit=limit, weights=weights, confidences=conf)


def review_history(settings: Settings, target: str | None = None, *, limit: int = 50,
                   review_db: str | Path | None = None) -> list[dict[str, Any]]:
    """``graph-trust review history``: the audit trail of review decisions and skips, newest first
    (all, or those on one candidate id or edge uuid)."""
    with review_candidates(settings, review_db, readonly=True) as (conn, _):
        return review_skips.audit_trail(conn, target, limit)


async def review_fact(settings: Settings, target: str, *, days: int = 30, review_db: str | Path | None = None,
                      graph: GraphConnection | None = None, actor: str | None = None) -> dict[str, Any]:
    """One fact as the review page shows it (a candidate id or an edge uuid): the edge, its review
    rows, competitors, episodes, confidence factors, retrieval log, flags and audit trail
    (:func:`graph_trust.review.fact.fact_view`); a NotFoundError when it names nothing."""
    with review_candidates(settings, review_db, readonly=True) as (conn, cand):
        conf = confidence_ops.when_recorded(conn, functools.partial(_confidence_behind, settings, review_db=review_db))
        async with use_graph(settings, graph) as g:
            return await fact_view(conn, cand, g, target, days=days, confidence=conf, actor=actor)


def review_page_app(settings: Settings, *, review_db: str | Path | None = None, graph: GraphConnection | None = None,
                    extra_hosts: list[str] | None = None) -> Any:
    """The review page (``graph-trust review serve``) as an ASGI app calling this module's review
    functions on ``settings`` (:func:`graph_trust.review.web.app.create_app`); it opens the graph
    at start-up (or uses ``graph``, already open in the serving loop)."""
    return review_web.create_app(review_web.PageOps(
        open_graph=functools.partial(use_graph, settings, graph),
        queue=functools.partial(review_queue, settings, review_db=review_db),
        fact=functools.partial(review_fact, settings, review_db=review_db),
        decide=functools.partial(review_decide, settings, review_db=review_db),
        undo=functools.partial(review_undo, settings, review_db=review_db),
        history=functools.partial(review_history, settings, review_db=review_db),
        skip=functools.partial(review_skip, settings, review_db=review_db),
    ), settings.review.page, extra_hosts=extra_hosts)


async def serve_review_page(settings: Settings, *, review_db: str | Path | None = None) -> None:
    """``graph-trust review serve``: the review page on ``review.page.host``:``port`` until stopped.
    The review DB (with its review tables) and the graph are checked first, so an unreachable one
    is one error before the server starts."""
    with review_candidates(settings, review_db, readonly=True) as (conn, _):
        review_decisions.need_review_tables(conn)
    page = settings.review.page
    async with open_graph(settings) as g:
        app = review_page_app(settings, review_db=review_db, graph=g, extra_hosts=[page.host])
        await review_web.serve(app, page.host, page.port)


def calibrate(settings: Settings, *, rank_consts: tuple[float, ...] = DEFAULT_RANK_CONSTS, methods: int = 2,
              max_rank: int = 20, tiers: tuple[float, ...] = DEFAULT_TIERS) -> dict[float, list[CalibrationRow]]:
    """What the configured weight and boost form can overtake, per RRF constant (``graph-trust calibrate``)."""
    s = settings.search
    return calibration_tables(s.trust_weight, rank_consts, methods, max_rank, tiers, s.boost_form, s.min_boost_trust)


async def sync_review_rows(settings: Settings, rows: list[dict[str, Any]], path: Path,
                           graph: GraphConnection, *, records: dict[str, list[dict[str, Any]]] | None = None) -> Any:
    """Write ``rows`` (and ``records``, ``{confidence table: rows}``) as a fresh review DB at
    ``path`` (replaced atomically) and run a full sync of it onto the open ``graph``: the sync the
    demo and the bundled evaluation are handed (:data:`graph_trust.review.hooks.ReviewSync`)."""
    tmp = Path(path).with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    _init_review_db(tmp)
    insert_rows(tmp, rows)
    if records:
        init_confidence_tables(tmp)
        insert_records(tmp, records)
    os.replace(tmp, path)
    return await _sync_review_db(settings, path, graph)


async def _sync_demo_review(settings: Settings, rows: list[dict[str, Any]], path: Path, graph: GraphConnection, *,
                            reset: bool = False, records: dict[str, list[dict[str, Any]]] | None = None) -> Any:
    """The demo's review DB, then a full sync of it onto ``graph``. Made the first time (or with
    ``reset``) with every table (candidates, confidence, review: what the getting-started steps
    use); later demos keep everything in it (decisions, the retrieval log, flags, confidence
    records) and add only the sample rows it lacks, so the sync applies the user's decisions
    (:func:`graph_trust.sync.review_db.demo_review_db`)."""
    demo_review_db(Path(path), rows, init=init_review_db, records=records, reset=reset)
    return await _sync_review_db(settings, path, graph)


async def demo(settings: Settings, *, limit: int = 5, embedder: str = "hashing", reset: bool = False) -> DemoReport:
    """Load the sample graph embedded by ``embedder``, sync its review DB (kept between demos: see
    :func:`_sync_demo_review`; ``reset`` starts it afresh), compare vanilla and boosted ranks
    (``graph-trust demo``)."""
    return await run_demo(settings, limit=limit, sync_rows=functools.partial(_sync_demo_review, reset=reset),
                          embedder=embedder)


async def evaluate_bundled(settings: Settings, *, ranks: list[str], weights: list[float] | None = None,
                           sets: dict[str, Any] | None = None, draws: int = 5, noise: float = DEFAULT_NOISE,
                           coverage: float = DEFAULT_COVERAGE, seed: int = 0, quick: bool = False,
                           rank_consts: list[float] | None = None, progress: Progress | None = None,
                           embedder: str = "hashing") -> EvalReport:
    """The shipped evaluation set over ``draws`` review draws (``graph-trust eval --bundled``):
    :func:`graph_trust.eval.evaluate.evaluate_bundled`, handed this module's sync and the trust a
    confidence-mode sync writes."""
    return await _evaluate.evaluate_bundled(
        settings, sync_rows=sync_review_rows, confidence_trust=confidence_ops.confidence_mode_trust, ranks=ranks,
        weights=weights, sets=sets, draws=draws, noise=noise, coverage=coverage, seed=seed, quick=quick,
        rank_consts=rank_consts, progress=progress, embedder=embedder)


async def evaluate_judged(settings: Settings, queries: str | Path, qrels: str | Path, *, ranks: list[str],
                          weights: list[float] | None = None, sets: dict[str, Any] | None = None,
                          rank_consts: list[float] | None = None, progress: Progress | None = None,
                          review_db: str | Path | None = None) -> EvalReport:
    """The user's judged queries on the configured graph (``graph-trust eval --queries --qrels``):
    :func:`graph_trust.eval.evaluate.evaluate_judged`; the ``confidence`` ranking reads the review
    DB (``review_db``, default the configured one)."""
    return await _evaluate.evaluate_judged(
        settings, queries, qrels, confidence_trust=confidence_ops.confidence_mode_trust, ranks=ranks,
        weights=weights, sets=sets, rank_consts=rank_consts, progress=progress, review_db=review_db)


async def _sync_review_db(settings: Settings, path: Path, graph: GraphConnection) -> Any:
    """A full sync of the review DB at ``path`` onto the open ``graph`` (the demo's, the eval's)."""
    try:
        return await _run_sync(settings, review_db=path, full=True, graph=graph)
    except RunFailedError as exc:
        if isinstance(exc.__cause__, (asyncio.CancelledError, KeyboardInterrupt)):
            # the demo or the eval was stopped: not a sync run the user must rerun or roll back
            raise exc.__cause__ from None
        raise


async def evaluate_review_budget(settings: Settings, *, budgets: list[str], strategies: list[str], starts: list[str],
                                 draws: int = 3, noise: float = DEFAULT_NOISE, coverage: float = DEFAULT_COVERAGE,
                                 seed: int = 0, quick: bool = False, progress: Progress | None = None,
                                 embedder: str = "hashing", unseen_share: float | None = None) -> BudgetReport:
    """Does the review queue beat random review (``graph-trust eval --bundled --review-budget``)?
    :func:`graph_trust.eval.budget.evaluate_budget`; the simulated reviewer goes through this
    module's own commands (search, review_queue, review_decide) and the real sync."""
    cmds = ReviewCommands(init_db=init_review_db, sync_db=_sync_review_db, search=search, queue=review_queue,
                          decide=review_decide)
    return await evaluate_budget(settings, cmds, sync_rows=sync_review_rows, budgets=budgets, strategies=strategies,
                                 starts=starts, draws=draws, noise=noise, coverage=coverage, seed=seed, quick=quick,
                                 progress=progress, embedder=embedder, unseen_share=unseen_share)


def check_eval_extra() -> None:
    """ConfigError naming the install command when the ``eval`` extra (ir-measures) is missing."""
    ir_measures_module()


__all__ = [
    "BUILTIN_EMBEDDERS",
    "CONFIDENCE_TABLES",
    "DEFAULT_RANK_CONSTS",
    "DEFAULT_TIERS",
    "FACTORS",
    "MEMORY_TYPES",
    "OUTCOMES",
    "RANK_MODES",
    "REVIEW_COLUMNS",
    "RISK_THRESHOLDS",
    "SENSITIVITY_LEVELS",
    "VERDICTS",
    "VERSION",
    "VOTES",
    "ContextOptions",
    "OverridePolicy",
    "SearchOptions",
    "TrustContext",
    "audit_events",
    "build_context",
    "calibrate",
    "check_eval_extra",
    "composite_rank",
    "composite_rank_records",
    "confidence_behind",
    "confidence_ops",
    "confidence_store",
    "confidence_trust_of",
    "context",
    "demo",
    "embedder_named",
    "evaluate_bundled",
    "evaluate_judged",
    "evaluate_review_budget",
    "flush_log",
    "flag_fact",
    "get_context",
    "get_record",
    "index_check",
    "index_rebuild",
    "index_status",
    "init",
    "init_review_db",
    "known_memory_types",
    "prune",
    "record_returned",
    "relink",
    "review_candidates",
    "review_copy",
    "review_decide",
    "review_fact",
    "review_history",
    "review_log",
    "review_page_app",
    "review_queue",
    "review_undo",
    "rollback",
    "runs",
    "search",
    "search_config",
    "search_confident",
    "search_visible",
    "serve_mcp",
    "serve_review_page",
    "sync",
    "sync_review_rows",
    "unknown_sensitivity_hint",
    "verify",
    "write_metrics",
    "write_budget_plot",
    "review_skip",
    "write_plot",
]
