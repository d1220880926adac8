"""One pool ranked: the ranking rules run in their declared order over the fused arrays
(:mod:`graph_trust.search.rules`), and an explanation per item of the score it got.

``rank_pool`` is what :func:`graph_trust.search.trust_search.trust_search` calls for each
scope (edges, nodes); the rules' settings are its keyword arguments.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from graph_trust.search import rules
from graph_trust.search.fusion import FusedPool, ranks_of, sanitize_trust
from graph_trust.search.rules.base import (
    BOOST_FORMS,
    SUPERSEDED,
    BoostForm,
    NegativePolicy,
    RankState,
    RelationMode,
    RuleParams,
)


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why an item scored what it did. Ranks are 1-based; absent ranks are None."""

    uuid: str
    text: str
    bm25_rank: int | None
    cosine_rank: int | None
    fused: float
    trust_score: float | None
    boost: float
    final: float
    rank: int
    rank_without_boost: int
    negative: str | None = None  # why the item was demoted: its review status, or "invalidated"
    cosine_stage: str | None = None  # "index" or "scan": which cosine stage found it (None: not found by cosine)
    relation_bonus: float = 0.0  # share of the fused scores of facts stating the same relation of the same subject
    # the rule that moved the item from the place its score gave it (None: none did), and that
    # score; ``final`` is then the score of the place it took (scores follow the order)
    moved_by: str | None = None
    score_before_move: float | None = None
    # the query's identifier the fact does not state, so trust did not lift it (search.topic_guard)
    missing_identifier: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Ranked:
    """A boosted pool: item indices best-first plus the arrays explanations read from.
    ``final`` never increases along ``order``: a rule that moves an item gives it the score of the
    place it takes (``scored`` keeps the one before, ``moved`` names the rule)."""

    pool: FusedPool
    trust: np.ndarray
    boosts: np.ndarray
    final: np.ndarray
    order: np.ndarray
    rank_without_boost: np.ndarray
    negative: Sequence[str | None] | None = None
    relation: np.ndarray | None = None  # relation bonus per item (None: off)
    scored: np.ndarray | None = None  # each item's score before a rule moved it
    moved: Sequence[str | None] | None = None  # the rule that moved each item (None: none)


def rank_pool(
    pool: FusedPool,
    trust_values: Sequence[Any],
    weight: float,
    eligible: np.ndarray | None = None,
    min_score: float = 0.0,
    *,
    form: BoostForm = "additive",
    min_boost_trust: float = 0.0,
    negative: Sequence[str | None] | None = None,
    negative_policy: NegativePolicy | None = None,
    competitors: Sequence[Any] | None = None,
    stamps: np.ndarray | None = None,
    reorder: bool = True,
    relation_weight: float = 0.0,
    relation_cap: float | None = None,
    relation_mode: RelationMode = "sum",
    relation_window: int | None = None,
    twins: Sequence[Any] | None = None,
) -> Ranked:
    """Boost the whole pool, then order it by the ranking rules (:data:`graph_trust.search.rules.ORDER`).
    Items with ``fused < min_score`` are dropped. The scores follow the order.

    ``negative`` holds, per item, why it is demoted (None: not): such items get no boost and
    are treated by ``negative_policy`` (default: sunk below every other item). ``competitors``
    (per item, its competitor key or None) turns on the competitor rule, by trust and
    then by ``stamps`` when given (``reorder``); items with negative evidence take no part.
    ``relation_weight`` adds to each item without negative evidence that share of the fused
    scores of the other members of its group (:func:`relation_bonus`). ``twins`` (per item, its
    statement key: the competitor key and the target, or None) marks duplicates: a rejected or
    expired item that a competitor without negative evidence states word for word (same
    target) yields to its competitors instead of taking the penalty, since the evidence holds
    its statement (reviewers reject duplicates; a noisy review rejects a correct paraphrase),
    and keeps its share of the relation bonus (it gets no trust boost).
    """
    if form not in BOOST_FORMS:
        raise ValueError(f"unknown boost form {form!r} (choose from {', '.join(BOOST_FORMS)})")
    trust = sanitize_trust(trust_values, pool.uuids)
    neg = None if negative is None else np.fromiter((n is not None for n in negative), dtype=bool,
                                                    count=len(negative))
    if neg is not None and not neg.any():
        neg = None
    policy = negative_policy or NegativePolicy()
    params = RuleParams(weight=weight, form=form, min_boost_trust=min_boost_trust, negative_policy=policy,
                        reorder=reorder, relation_weight=relation_weight, relation_cap=relation_cap,
                        relation_mode=relation_mode, relation_window=relation_window)
    state = rules.run(RankState(pool, trust, eligible, negative, neg, competitors, twins, stamps), params)
    idx = state.order
    keep = pool.fused[idx] >= min_score
    if neg is not None and policy.drop:
        keep &= ~neg[idx]
    return Ranked(pool, trust, state.boosts, state.final, idx[keep], ranks_of(pool.fused), negative, state.relation,
                  state.scored, state.moved)


def explain(ranked: Ranked, texts: Sequence[str], positions: Sequence[int] | None = None) -> list[Explanation]:
    """Explanations for the items at ``ranked.order`` (or the given pool ``positions``)."""
    pool = ranked.pool
    rows = {m: pool.ranks[i] for i, m in enumerate(pool.methods)}
    picks = ranked.order if positions is None else positions
    out = []
    for rank, i in enumerate(picks, start=1):
        t = ranked.trust[i]
        moved = None if ranked.moved is None else ranked.moved[i]
        out.append(
            Explanation(
                uuid=pool.uuids[i],
                text=texts[i],
                bm25_rank=_rank1(rows.get("bm25"), i),
                cosine_rank=_rank1(rows.get("cosine"), i),
                fused=float(pool.fused[i]),
                trust_score=None if math.isnan(t) else float(t),
                boost=float(ranked.boosts[i]),
                final=float(ranked.final[i]),
                rank=rank,
                rank_without_boost=int(ranked.rank_without_boost[i]),
                negative=None if ranked.negative is None else ranked.negative[i],
                relation_bonus=0.0 if ranked.relation is None else float(ranked.relation[i]),
                moved_by=moved,
                score_before_move=None if moved is None else float(ranked.scored[i]),
            )
        )
    return out


def _rank1(row: np.ndarray | None, i: int) -> int | None:
    if row is None or row[i] < 0:
        return None
    return int(row[i]) + 1


__all__ = ["BOOST_FORMS", "SUPERSEDED", "BoostForm", "Explanation", "NegativePolicy", "Ranked", "RelationMode",
           "explain", "rank_pool"]
