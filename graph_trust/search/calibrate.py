"""Calibration: which unboosted rank a trusted item at rank r overtakes, per RRF constant.

For an item ranked ``r`` by every one of ``methods`` candidate lists, its fused score is
``methods / (r - 1 + rank_const)``. Boosted it gains ``trust * trust_weight`` (the ``additive``
form) or ``trust * trust_weight * fused`` (the ``supported`` form: an item ranked alike by every
method is fully supported). It overtakes an unboosted item ranked ``q < r`` in every method when
its final score is strictly greater (a tie keeps the better-ranked item first, as the stable
fusion sort does). Trust below ``min_boost_trust`` boosts nothing.

Graphiti's RRF constant is 1 today; upstream proposes 60 (PR 1847), which shrinks fused scores
about 60-fold: an additive weight then overtakes far more, a supported one about as much in
proportion to the fused scores. :func:`calibration_tables` shows both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from graph_trust.search import ranking
from graph_trust.search.rules import trust_boost

DEFAULT_TIERS = (1.0, 0.6, 0.25)
DEFAULT_RANK_CONSTS = (1.0, 60.0)


@dataclass(frozen=True, slots=True)
class CalibrationRow:
    rank: int
    fused: float
    overtakes: dict[float, int | None]  # trust -> best unboosted rank overtaken (None: none)


def fused_at(ranks: np.ndarray, methods: int, rank_const: float) -> np.ndarray:
    """Fused score of an item at 1-based ``ranks`` in every method (Graphiti's RRF)."""
    score = np.zeros(len(ranks), dtype=np.float64)
    for _ in range(methods):  # accumulate in method order, exactly as fusion.fuse does
        score = score + 1.0 / ((ranks - 1) + rank_const)
    return score


def calibration_table(
    trust_weight: float,
    rank_const: float = 1.0,
    methods: int = 2,
    max_rank: int = 20,
    tiers: tuple[float, ...] = DEFAULT_TIERS,
    form: ranking.BoostForm = "additive",
    min_boost_trust: float = 0.0,
) -> list[CalibrationRow]:
    """One row per rank 1..max_rank with, per trust tier, the best unboosted rank overtaken
    (``trust_weight``: the configured one is ``search.trust_weight``)."""
    ranks = np.arange(1, max_rank + 1)
    unboosted = fused_at(ranks, methods, rank_const)
    rows = []
    for i, r in enumerate(ranks):
        over: dict[float, int | None] = {}
        for t in tiers:
            scale = unboosted[i : i + 1] if form == "supported" else None  # support = fused here
            gain = trust_boost.boost_amounts(np.array([t]), trust_weight, None, scale, min_boost_trust)
            final = unboosted[i] + gain[0]
            beaten = np.nonzero(unboosted[:i] < final)[0]
            over[t] = int(ranks[beaten[0]]) if len(beaten) else None
        rows.append(CalibrationRow(int(r), float(unboosted[i]), over))
    return rows


def calibration_tables(
    trust_weight: float,
    rank_consts: Sequence[float] = DEFAULT_RANK_CONSTS,
    methods: int = 2,
    max_rank: int = 20,
    tiers: tuple[float, ...] = DEFAULT_TIERS,
    form: ranking.BoostForm = "additive",
    min_boost_trust: float = 0.0,
) -> dict[float, list[CalibrationRow]]:
    """:func:`calibration_table` per RRF constant (Graphiti's 1 and upstream's proposed 60)."""
    return {float(k): calibration_table(trust_weight, k, methods, max_rank, tiers, form, min_boost_trust)
            for k in dict.fromkeys(rank_consts)}
