"""The confidence model's operator operations on one review DB, as the CLI commands
(``confidence``, ``verify-fact``, ``record-usage``, ``vote``, ``contradictions``, ``stale``,
``credibility``) and the MCP tools of the same names return them: one definition of what each
reads, writes and answers, so the two front ends cannot drift apart.

Each takes an open :class:`~graph_trust.sync.confidence_store.ConfidenceStore`
(:func:`store`); the store validates ids, enums and ranges and raises the typed error naming
what is wrong. :func:`edge_confidences` is what ``search --min-confidence`` filters by.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from graph_trust.config import Settings
from graph_trust.confidence.composite import RISK_THRESHOLDS
from graph_trust.errors import InputError
from graph_trust.sync.confidence_store import ConfidenceStore


@contextmanager
def store(settings: Settings, review_db: str | Path | None = None, readonly: bool = False,
          ) -> Iterator[ConfidenceStore]:
    """The confidence records of the review DB (``review_db``, default ``review.path``), closed on exit."""
    with ConfidenceStore.open(review_db, settings.review, settings.confidence, readonly=readonly) as s:
        yield s


def fact_confidence(store: ConfidenceStore, fact_id: str, risk: str | None = None) -> dict[str, Any]:
    """Score, level, factor breakdown and inputs of ``fact_id``; with ``risk``, whether to act."""
    if risk is not None and risk not in store.cfg.risk_thresholds:
        raise InputError(f"unknown risk {risk!r} (one of {', '.join(store.cfg.risk_thresholds or RISK_THRESHOLDS)})")
    return store.confidence(fact_id, risk)


def verify_fact(store: ConfidenceStore, fact_id: str, verdict: str, by: str,
                notes: str | None = None) -> dict[str, Any]:
    """Record ``by``'s verification of ``fact_id``; answers with the fact's confidence after it."""
    return {**store.verify(fact_id, verdict, by, notes), "confidence": store.confidence(fact_id)["score"]}


def record_usage(store: ConfidenceStore, fact_id: str, outcome: str, by: str, action: str) -> dict[str, Any]:
    """Record that ``by`` acted on ``fact_id`` and how it went (with the confidence at use)."""
    return store.record_usage(fact_id, outcome, by, action)


def vote(store: ConfidenceStore, fact_id: str, vote: str, confidence: float, by: str,
         reasoning: str | None = None) -> dict[str, Any]:
    """Record (or replace) ``by``'s vote; answers with the fact's consensus factor after it."""
    return {**store.vote(fact_id, vote, confidence, by, reasoning),
            "consensus": store.confidence(fact_id)["factors"]["consensus"]}


def contradictions(store: ConfidenceStore, resolve: bool = False) -> dict[str, Any]:
    """Recorded and newly detected contradictions; ``resolve`` records and resolves them."""
    return store.contradictions(resolve)


def stale(store: ConfidenceStore, days: float | None = None, category: str | None = None) -> dict[str, Any]:
    """Active facts older than ``days`` (default ``confidence.stale_days``), oldest first."""
    n = store.cfg.stale_days if days is None else days
    return {"days": n, "category": category, "facts": store.stale(n, category)}


def credibility(store: ConfidenceStore, agent: str, category: str | None = None) -> dict[str, Any]:
    """``agent``'s track record and credibility per category (or in one)."""
    return {"agent": agent, "categories": store.credibility(agent, category)}


def edge_confidences(store: ConfidenceStore, edge_uuids: Iterable[str]) -> dict[str, float]:
    """Edge uuid -> its fact's confidence, for the edges the review DB (``store``, opened once per
    search, read-only) knows, mapped as sync maps them; an edge several candidates cite takes the
    highest of their scores. One set-wise ``scores`` call for the whole set; none for no edges."""
    edge_uuids = list(edge_uuids)
    by_edge = store.candidates_for_edges(edge_uuids) if edge_uuids else {}
    if not by_edge:
        return {}
    ids, _, scores = store.scores(sorted({i for ids in by_edge.values() for i in ids}))
    score = dict(zip(ids, (float(x) for x in scores), strict=True))
    return {u: max(score[i] for i in ids) for u, ids in by_edge.items()}

