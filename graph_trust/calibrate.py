"""Calibration: which unboosted rank a trusted item at rank r overtakes.

For an item ranked ``r`` by every one of ``methods`` candidate lists, its fused score is
``methods / (r - 1 + rank_const)``; boosted it gains ``trust * trust_weight``. It overtakes an
unboosted item ranked ``q < r`` in every method when its final score is strictly greater
(a tie keeps the better-ranked item first, as the stable fusion sort does).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graph_trust import fusion

DEFAULT_TIERS = (1.0, 0.6, 0.25)


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
    trust_weight: float = 0.15,
    rank_const: float = 1.0,
    methods: int = 2,
    max_rank: int = 20,
    tiers: tuple[float, ...] = DEFAULT_TIERS,
) -> list[CalibrationRow]:
    """One row per rank 1..max_rank with, per trust tier, the best unboosted rank overtaken."""
    ranks = np.arange(1, max_rank + 1)
    unboosted = fused_at(ranks, methods, rank_const)
    rows = []
    for i, r in enumerate(ranks):
        over: dict[float, int | None] = {}
        for t in tiers:
            final = fusion.boost(unboosted[i : i + 1], np.array([t]), trust_weight)[0]
            beaten = np.nonzero((unboosted[:i] < final))[0]
            over[t] = int(ranks[beaten[0]]) if len(beaten) else None
        rows.append(CalibrationRow(int(r), float(unboosted[i]), over))
    return rows
