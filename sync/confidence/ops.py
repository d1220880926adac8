"""The confidence model's operator operations on one review DB, as the CLI commands
(``confidence``, ``verify-fact``, ``record-usage``, ``vote``, ``contradictions``, ``stale``,
``credibility``) and the MCP tools of the same names return them: one definition of what each
reads, writes and answers, so the two front ends cannot drift apart.

Each takes an open :class:`~graph_trust.sync.confidence.store.ConfidenceStore`
(:func:`store`); the store validates ids, enums and ranges and raises the typed error naming
what is wrong. :func:`edge_confidences` is what ``search --min-confidence`` filters by;
:func:`confidence_mode_trust` what ``eval --rank confidence`` ranks by.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from graph_trust.confidence.composite import RISK_THRESHOLDS
from graph_trust.config import Settings
from graph_trust.errors import InputError, NotFoundError, ReviewDBError
from graph_trust.sync.confidence.schema import TABLES
from graph_trust.sync.confidence.store import ConfidenceStore
from graph_trust.sync.confidence.trust import confidence_behind
from graph_trust.sync.policy import Policy


@contextmanager
def store(settings: Settings, review_db: str | Path | None = None, readonly: bool = False,
          ) -> Iterator[ConfidenceStore]:
    """The confidence records of the review DB (``review_db``, default ``review.path``), closed on exit."""
    with ConfidenceStore.open(review_db, settings.review, settings.confidence, readonly=readonly) as s:
        s.tiers = dict(settings.sync.tiers)
        yield s


def candidate_of(store: ConfidenceStore, fact_id: Any) -> str:
    """The candidate id ``fact_id`` names: a fact is named by a candidate id or by its edge uuid
    (what search, context and the MCP tools return); an edge uuid names, of the candidates citing
    it (as sync maps them), the one its trust comes from, chosen as sync chooses it (highest tier
    of ``store.tiers``, then status, then id). A NotFoundError names both forms."""
    if not isinstance(fact_id, str) or not fact_id.strip():
        raise InputError("name a fact: an edge uuid (from search or context) or a review candidate id")
    fact_id = fact_id.strip()
    ids = sorted(store.candidates_for_edges([fact_id]).get(fact_id, []))
    if not ids:
        try:
            store.fact(fact_id)
        except NotFoundError:
            raise NotFoundError(f"no fact {fact_id!r} in review DB {store.path} (table {store.db.table}): neither the "
                                "edge uuid of a fact a candidate cites (search and context show edge uuids) nor a "
                                "candidate id") from None
        return fact_id
    statuses = [(store.fact(i)[6], i) for i in ids]
    return (Policy(store.tiers).winner([c for c in statuses if c[0] in store.tiers]) or statuses[0])[1]


def fact_confidence(store: ConfidenceStore, fact_id: str, risk: str | None = None) -> dict[str, Any]:
    """Score, level, factor breakdown and inputs of ``fact_id`` (:func:`candidate_of`); with
    ``risk``, whether to act."""
    if risk is not None and risk not in store.cfg.risk_thresholds:
        raise InputError(f"unknown risk {risk!r} (one of {', '.join(store.cfg.risk_thresholds or RISK_THRESHOLDS)})")
    return store.confidence(candidate_of(store, fact_id), risk)


def verify_fact(store: ConfidenceStore, fact_id: str, verdict: str, by: str,
                notes: str | None = None) -> dict[str, Any]:
    """Record ``by``'s verification of ``fact_id`` (:func:`candidate_of`); answers with the fact's
    confidence after it."""
    cid = candidate_of(store, fact_id)
    return {**store.verify(cid, verdict, by, notes), "confidence": store.confidence(cid)["score"]}


def record_usage(store: ConfidenceStore, fact_id: str, outcome: str, by: str, action: str) -> dict[str, Any]:
    """Record that ``by`` acted on ``fact_id`` (:func:`candidate_of`) and how it went (with the
    confidence at use)."""
    return store.record_usage(candidate_of(store, fact_id), outcome, by, action)


def vote(store: ConfidenceStore, fact_id: str, vote: str, confidence: float, by: str,
         reasoning: str | None = None) -> dict[str, Any]:
    """Record (or replace) ``by``'s vote on ``fact_id`` (:func:`candidate_of`); answers with the
    fact's consensus factor after it."""
    cid = candidate_of(store, fact_id)
    return {**store.vote(cid, vote, confidence, by, reasoning),
            "consensus": store.confidence(cid)["factors"]["consensus"]}


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


@contextmanager
def search_confidences(settings: Settings, review_db: str | Path | None = None, *, scope: str = "edges",
                       ) -> Iterator[Callable[[list[str]], dict[str, float]]]:
    """What a search with ``search.min_confidence`` is handed: edge uuids -> :func:`edge_confidences`
    of the review DB (``review_db``, default the configured one), opened once, read-only, before the
    search (a missing one fails first), closed on exit. Without a threshold, or for a search of
    entities (``scope``), nothing is filtered, and nothing is opened or read."""
    if settings.search.min_confidence is None or scope != "edges":
        yield lambda uuids: {}
        return
    with store(settings, review_db, readonly=True) as s:
        yield lambda uuids: edge_confidences(s, uuids)


def read_confidences(settings: Settings, review_db: str | Path | None, edge_uuids: list[str]) -> dict[str, float]:
    """:func:`edge_confidences` of the review DB (``review_db``, default the configured one), opened
    read-only for this one read."""
    with store(settings, review_db, readonly=True) as s:
        return edge_confidences(s, edge_uuids)


def when_recorded(conn: Any, read: Callable[[list[str]], Any]) -> Callable[[list[str]], Any] | None:
    """``read`` when the review DB ``conn`` is open on holds the confidence tables, else None (the
    review queue's confidence rule and the fact view then read no confidence)."""
    return read if TABLES[0] in conn.tables() else None



def confidence_mode_trust(settings: Settings, review_db: str | Path | None = None,
                          now: datetime | None = None) -> Callable[[list[str]], dict[str, float | None]]:
    """Edge uuids -> the trust_score a sync in ``sync.trust_mode: confidence`` writes onto each
    (:func:`~graph_trust.sync.confidence.trust.confidence_behind`, whatever mode ``settings``
    say), read from the review DB once per edge (the first call that asks for it), ages measured
    from ``now`` (default now). What ``graph-trust eval --rank confidence`` ranks by. The review
    DB is checked here: a missing one, or one without the confidence tables, is one ReviewDBError."""
    conf = settings.model_copy(update={"sync": settings.sync.model_copy(update={"trust_mode": "confidence"})})
    try:
        with store(conf, review_db, readonly=True):
            pass
    except ReviewDBError as exc:
        raise ReviewDBError(f"the confidence ranking reads the review DB's confidence records: {exc}") from None

    known: dict[str, float | None] = {}
    unscored: set[str] = set()  # edges no usable candidate points at: they keep their stored trust

    def trust(uuids: list[str]) -> dict[str, float | None]:
        new = [u for u in dict.fromkeys(uuids) if u not in known and u not in unscored]
        if new:  # each edge is read once per evaluation (a fact's score does not depend on the others asked)
            behind = confidence_behind(conf, new, review_db, now)
            known.update((u, b["trust_score"]) for u, b in behind.items())
            unscored.update(u for u in new if u not in behind)
        return {u: known[u] for u in uuids if u in known}
    return trust
