"""Step 7 of a run (:mod:`~graph_trust.sync.runner`): the recall of the vector indexes of graphs
large enough for search to use them re-measured where the run wrote more than
``vector_index.recheck_share`` of their edges (a written edge is re-added to the index), or the
measurement is missing or stale (:mod:`graph_trust.graph.index_recall`), and the exact vector
store rebuilt where Graphiti added or deleted items since it was built
(:mod:`graph_trust.graph.vector_store`). A failure is reported
(``vector_index_hint``), not fatal: the trust is written, and the next run measures again."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from graph_trust.config import Settings
from graph_trust.graph import index_recall, vector_store
from graph_trust.graph.recall_store import RecallStore
from graph_trust.graph.routing import Graphs
from graph_trust.review import log as retrieval_log
from graph_trust.sync.report import SyncReport
from graph_trust.sync.review_db import ReviewDB

log = logging.getLogger(__name__)


async def recheck_indexes(report: SyncReport, settings: Settings, review: ReviewDB, graphs: Graphs,
                          names: list[str], written: dict[str, int],
                          progress: Callable[[str, int, int | None], None]) -> None:
    """What it re-measured lands in ``report.vector_index`` (``written``: edges written per graph)."""
    try:
        queries = retrieval_log.query_source(settings, review.location)
        with RecallStore.open(settings) as recall:
            for graph in names:
                if not graphs.exists(graph):
                    continue
                done = await index_recall.refresh(graphs(graph), settings, recall,
                                                  written={"edge": written.get(graph, 0)},
                                                  min_items=settings.search.cosine_index_min_size,
                                                  progress=progress, queries=queries)
                for kind, why in done["measured"].items():
                    report.vector_index.setdefault(graph, {})[kind] = {
                        "why": why, "choice": done["kinds"][kind]["choice"]}
                await vector_store.ensure(graphs(graph), settings)
    except (asyncio.CancelledError, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 - the trust is written; the measurement is retried next run
        log.warning("vector index recall check failed: %s", exc, exc_info=True)
        report.vector_index_hint = (f"the vector index recall check failed ({exc}); search keeps its "
                                    "previous choice: run graph-trust index check")


__all__ = ["recheck_indexes"]
