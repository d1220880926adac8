"""The library entry point: everything the ``graph-trust`` command does, as functions that take
:class:`~graph_trust.config.Settings` (``load_settings()`` builds them from the config file,
the environment and overrides, validated once).

The CLI and the MCP server call only this module (and config/errors). Every function here
delegates to the module that does the work; none holds logic of its own, so a behaviour is
changed where it lives, not here. Layers point one way: the graph layer
(:mod:`graph_trust.graph`, connections) <- search, context and sync <- this module <- the CLI.


Example (every command has its function; async ones are awaited)::

    settings = load_settings()
    results = asyncio.run(api.search(settings, "billing backup", limit=5))
    report = asyncio.run(api.sync(settings, dry_run=True))
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from graph_trust import __version__
from graph_trust.access import SENSITIVITY_LEVELS, TrustContext
from graph_trust.audit import list_events as audit_events
from graph_trust.calibrate import DEFAULT_RANK_CONSTS, DEFAULT_TIERS, CalibrationRow, calibration_tables
from graph_trust.config import Settings
from graph_trust.confidence.composite import FACTORS, RISK_THRESHOLDS
from graph_trust.confidence.consensus import VOTES
from graph_trust.confidence.success import OUTCOMES
from graph_trust.confidence.verification import VERDICTS
from graph_trust.graph.connection import GraphConnection
from graph_trust.context.metrics import write_textfile as write_metrics
from graph_trust.context.service import get_context
from graph_trust.demo import DemoReport, run_demo
from graph_trust.eval import evaluate as _evaluate
from graph_trust.eval.metrics import ir_measures_module
from graph_trust.eval.plot import write_plot
from graph_trust.errors import RunFailedError
from graph_trust.eval.report import EvalReport
from graph_trust.mcp_server import serve_stdio
from graph_trust.override import OverridePolicy
from graph_trust.agent_context import RANK_MODES, ContextOptions, SearchOptions, build_context, get_record
from graph_trust.agent_context import context_for_settings as context
from graph_trust.ranked_search import VisibleSearch, composite_rank, composite_rank_records, search, search_config
from graph_trust.ranked_search import search_confident as _search_confident
from graph_trust.ranked_search import search_visible as _search_visible
from graph_trust.records import MEMORY_TYPES, known_memory_types
from graph_trust.graph.schema import init_graph as init
from graph_trust.sync import init_review_db as _init_review_db
from graph_trust.sync import insert_records, insert_rows, list_runs, prune, rollback, run_sync, verify
from graph_trust.sync import confidence_ops
from graph_trust.sync.confidence_schema import TABLES as CONFIDENCE_TABLES
from graph_trust.sync.confidence_schema import init_confidence_tables
from graph_trust.sync.confidence_store import ConfidenceStore
from graph_trust.sync.confidence_trust import confidence_behind as _confidence_behind
from graph_trust.sync.confidence_trust import trust_of as confidence_trust_of
from graph_trust.sync.labels import unknown_sensitivity_hint
from graph_trust.sync.relink import relink
from graph_trust.sync.review_db import COLUMNS as REVIEW_COLUMNS

VERSION = __version__
sync = run_sync  # graph-trust sync
runs = list_runs  # graph-trust runs


def init_review_db(path: str | Path) -> dict[str, Any]:
    """Create (or complete in place) a review DB at ``path``: the documented ``candidates``
    table and the confidence tables (``graph-trust review init``). Returns what it made."""
    p = _init_review_db(path)
    added = init_confidence_tables(p)
    return {"path": str(p), "table": "candidates", "columns": list(REVIEW_COLUMNS),
            "confidence_tables": list(CONFIDENCE_TABLES), "added": added}


@contextmanager
def confidence_store(settings: Settings, review_db: str | Path | None = None) -> Iterator[ConfidenceStore]:
    """The confidence model's records in the review DB (``review_db``, default ``review.path``),
    closed on exit: what ``graph-trust confidence``, ``verify-fact``, ``vote`` ... read and write
    (through :mod:`graph_trust.sync.confidence_ops`, exported here as ``confidence_ops``)."""
    with confidence_ops.store(settings, review_db) as store:
        yield store


def confidence_behind(settings: Settings, edge_uuids: list[str], review_db: str | Path | None = None
                      ) -> dict[str, dict[str, Any]]:
    """Per edge uuid: the fact its trust comes from, that fact's confidence and factor breakdown,
    and the trust_score ``sync.trust_mode`` gives it (for ``search --explain``; read from the
    review DB, ``review_db`` or ``review.path``). See ``sync.confidence_trust.confidence_behind``."""
    return _confidence_behind(settings, edge_uuids, review_db)


async def search_confident(settings: Settings, query: str, *, review_db: str | Path | None = None,
                           **options: Any) -> Any:
    """Search without the facts below ``search.min_confidence`` in the review DB (``review_db``,
    default ``review.path``): :func:`graph_trust.ranked_search.search_confident` (``options``:
    scope, limit, groups) handed the review DB's confidences. Returns (results, confidences)."""
    if settings.search.min_confidence is None or options.get("scope", "edges") != "edges":
        return await _search_confident(settings, query, confidences=lambda uuids: {}, **options)  # (nothing read)
    # the review DB is opened once, before the search (a missing one fails first), and scored once after it
    with confidence_ops.store(settings, review_db, readonly=True) as store:
        return await _search_confident(
            settings, query, confidences=lambda uuids: confidence_ops.edge_confidences(store, uuids), **options)


async def search_visible(settings: Settings, query: str, *, trust_context: TrustContext | None,
                         review_db: str | Path | None = None, **options: Any) -> VisibleSearch:
    """:func:`search_confident` as ``trust_context`` sees it (``graph-trust search --actor``, the MCP
    ``search_facts`` tool): :func:`graph_trust.ranked_search.search_visible` (``options``: scope,
    limit, groups), handed the review DB's confidences when ``search.min_confidence`` is set."""
    if settings.search.min_confidence is None or options.get("scope", "edges") != "edges":
        return await _search_visible(settings, query, trust_context=trust_context,
                                     confidences=lambda uuids: {}, **options)  # (nothing read)
    with confidence_ops.store(settings, review_db, readonly=True) as store:
        return await _search_visible(settings, query, trust_context=trust_context,
                                     confidences=lambda uuids: confidence_ops.edge_confidences(store, uuids), **options)


def serve_mcp(settings: Settings, trust_context: TrustContext) -> None:
    """``graph-trust mcp``: the MCP server on stdio with ``trust_context`` (the server's clearance,
    :meth:`TrustContext.for_mcp` of ``settings.mcp``), its confidence tools handed the review DB's
    operations (:mod:`graph_trust.sync.confidence_ops`) and the access-controlled search."""
    serve_stdio(settings, trust_context, confidence_ops, search_visible)


def calibrate(settings: Settings, *, rank_consts: tuple[float, ...] = DEFAULT_RANK_CONSTS, methods: int = 2,
              max_rank: int = 20, tiers: tuple[float, ...] = DEFAULT_TIERS) -> dict[float, list[CalibrationRow]]:
    """What the configured weight and boost form can overtake, per RRF constant (``graph-trust calibrate``)."""
    s = settings.search
    return calibration_tables(s.trust_weight, rank_consts, methods, max_rank, tiers, s.boost_form, s.min_boost_trust)


async def sync_review_rows(settings: Settings, rows: list[dict[str, Any]], path: Path,
                           graph: GraphConnection, *, records: dict[str, list[dict[str, Any]]] | None = None) -> Any:
    """Write ``rows`` (and ``records``, ``{confidence table: rows}``) as a fresh review DB at
    ``path`` (replaced atomically) and run a full sync of it onto the open ``graph``: the sync the
    demo and the bundled evaluation are handed (:data:`graph_trust.review_hooks.ReviewSync`)."""
    tmp = Path(path).with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    _init_review_db(tmp)
    insert_rows(tmp, rows)
    if records:
        init_confidence_tables(tmp)
        insert_records(tmp, records)
    os.replace(tmp, path)
    try:
        return await run_sync(settings, review_db=path, full=True, graph=graph)
    except RunFailedError as exc:
        if isinstance(exc.__cause__, (asyncio.CancelledError, KeyboardInterrupt)):
            # the demo or the eval was stopped: not a sync run the user must rerun or roll back
            raise exc.__cause__ from None
        raise


async def demo(settings: Settings, *, limit: int = 5) -> DemoReport:
    """Load the sample graph, sync its review DB, compare vanilla and boosted ranks (``graph-trust demo``)."""
    return await run_demo(settings, limit=limit, sync_rows=sync_review_rows)


async def evaluate_bundled(settings: Settings, **options: Any) -> EvalReport:
    """The shipped evaluation set over review draws (``graph-trust eval --bundled``); ``options``
    are :func:`graph_trust.eval.evaluate.evaluate_bundled`'s (ranks, weights, draws, ...)."""
    return await _evaluate.evaluate_bundled(settings, sync_rows=sync_review_rows,
                                            confidence_trust=confidence_ops.confidence_mode_trust, **options)


async def evaluate_judged(settings: Settings, queries: str | Path, qrels: str | Path, **options: Any) -> EvalReport:
    """The user's judged queries on the configured graph (``graph-trust eval --queries --qrels``);
    ``options`` are :func:`graph_trust.eval.evaluate.evaluate_judged`'s (ranks, weights,
    review_db for the confidence ranking, ...)."""
    return await _evaluate.evaluate_judged(settings, queries, qrels,
                                           confidence_trust=confidence_ops.confidence_mode_trust, **options)


def check_eval_extra() -> None:
    """ConfigError naming the install command when the ``eval`` extra (ir-measures) is missing."""
    ir_measures_module()


__all__ = [
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
    "context",
    "demo",
    "evaluate_bundled",
    "evaluate_judged",
    "get_context",
    "get_record",
    "init",
    "init_review_db",
    "known_memory_types",
    "list_runs",
    "prune",
    "relink",
    "rollback",
    "run_sync",
    "runs",
    "search",
    "search_config",
    "search_confident",
    "search_visible",
    "serve_mcp",
    "sync",
    "sync_review_rows",
    "unknown_sensitivity_hint",
    "verify",
    "write_metrics",
    "write_plot",
]
