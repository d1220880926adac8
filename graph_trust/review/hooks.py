"""The parts of the sync job that search-side code is handed rather than importing it.

The demo and the evaluation sit beside search and never import the sync job (layers point one
way); :mod:`graph_trust.api` hands them these callables, built on the real job:

- :data:`ReviewSync`: write review rows (and, optionally, confidence records) as a fresh review
  DB and run a full sync of it onto an open graph;
- :data:`ConfidenceTrust`: what a sync in ``sync.trust_mode: confidence`` would write onto each
  edge, read from a review DB, as a :data:`graph_trust.search.trust_search.TrustOverride`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from graph_trust.config import Settings
from graph_trust.graph.connection import GraphConnection
from graph_trust.search.trust_search import TrustOverride


class ReviewSync(Protocol):
    """Write ``rows`` (``candidates``) and ``records`` (``{confidence table: rows}``) as a fresh
    review DB at ``path`` and run a full sync of it onto the open ``graph``; the sync report."""

    def __call__(self, settings: Settings, rows: list[dict[str, Any]], path: Path, graph: GraphConnection, *,
                 records: dict[str, list[dict[str, Any]]] | None = None) -> Awaitable[Any]: ...


# (settings, review DB path or None for review.path, now or None) -> the confidence-mode trust of
# edges, by uuid. Raises the review DB's error (missing, no confidence tables) when called.
ConfidenceTrust = Callable[[Settings, "str | Path | None", "datetime | None"], TrustOverride]

__all__ = ["ConfidenceTrust", "ReviewSync"]
