"""One pool ranked: the ranking rules run in their declared order over the fused arrays
(:mod:`graph_trust.search.rules`), and an explanation per item of the score it got.

``rank_pool`` is what :func:`graph_trust.search.trust_search.trust_search` calls for each
scope (edges, nodes), with the rules' parameters made once from the settings
(:meth:`~graph_trust.search.rules.base.RuleParams.of`) and the pool's facts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from graph_trust.search import rules
from graph_trust.search.fusion import FusedPool, ranks_of, sanitize_trust
from graph_trust.search.pool_facts import PoolFacts
from graph_trust.search.rules.base import (
    BOOST_FORMS,
    SUPERSEDED,
    BoostForm,
    NegativePolicy,
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
    facts: PoolFacts | None = None  # what the rules read about the pool


def rank_pool(pool: FusedPool, trust_values: Sequence[Any], params: RuleParams,
              facts: PoolFacts | None = None) -> Ranked:
    """Boost the whole pool, then order it by the ranking rules (:data:`graph_trust.search.rules.ORDER`),
    with ``params`` (:meth:`RuleParams.of` the settings) over ``facts`` (the pool's items and
    settings, :class:`~graph_trust.search.pool_facts.PoolFacts`: each rule computes what it reads
    from them; :meth:`PoolFacts.given` hands the rules arrays). Items with ``fused <
    params.min_score`` are dropped, and with ``drop`` negative evidence the items carrying it.
    The scores follow the order.
    """
    if params.form not in BOOST_FORMS:
        raise ValueError(f"unknown boost form {params.form!r} (choose from {', '.join(BOOST_FORMS)})")
    facts = facts or PoolFacts.given()
    trust = sanitize_trust(trust_values, pool.uuids)
    state = rules.run(rules.start(pool, trust, facts), params)
    idx = state.order
    keep = pool.fused[idx] >= params.min_score
    if state.neg is not None and params.negative_policy.drop:
        keep &= ~state.neg[idx]
    return Ranked(pool, trust, state.boosts, state.final, idx[keep], ranks_of(pool.fused), state.negative,
                  state.relation, state.scored, state.moved, facts)


def explain(ranked: Ranked, texts: Sequence[str], positions: Sequence[int] | None = None) -> list[Explanation]:
    """Explanations for the items at ``ranked.order`` (or the given pool ``positions``)."""
    pool = ranked.pool
    rows = {m: pool.ranks[i] for i, m in enumerate(pool.methods)}
    picks = ranked.order if positions is None else positions
    missing = None if ranked.facts is None else ranked.facts.missing
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
                missing_identifier=None if missing is None else missing[i],
            )
        )
    return out


def _rank1(row: np.ndarray | None, i: int) -> int | None:
    if row is None or row[i] < 0:
        return None
    return int(row[i]) + 1


__all__ = ["BOOST_FORMS", "SUPERSEDED", "BoostForm", "Explanation", "NegativePolicy", "PoolFacts", "Ranked",
           "RelationMode", "RuleParams", "explain", "rank_pool"]
