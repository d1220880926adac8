"""Entity trust from its connected edges' trust: ``max`` (the default), ``mean`` or
``noisy_or`` (``1 - prod(1 - s)``: independent evidence accumulates, never above 1).

An entity with no connected edge carrying trust above 0 gets no trust (its ``trust_score`` is
removed): a rejected or expired edge (scored 0 by the default tiers) is negative evidence about
that fact, not about the entities it names, so it neither lifts nor lowers them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

METHODS = ("max", "mean", "noisy_or")


def aggregate(scores: Sequence[float | None], method: str = "max") -> float | None:
    """Aggregate edge scores (None and scores <= 0 ignored); None when there is none."""
    vals = [float(s) for s in scores if s is not None and float(s) > 0.0]
    if not vals:
        return None
    if method == "max":
        return max(vals)
    if method == "mean":
        return math.fsum(vals) / len(vals)
    if method == "noisy_or":
        keep = 1.0
        for v in vals:
            keep *= 1.0 - min(max(v, 0.0), 1.0)
        return 1.0 - keep
    raise ValueError(f"unknown aggregation {method!r} (choose from {', '.join(METHODS)})")


def same_score(a: float | None, b: float | None, tol: float = 1e-9) -> bool:
    """Scores equal up to float noise (None equals only None)."""
    if a is None or b is None:
        return a is None and b is None
    return abs(float(a) - float(b)) <= tol
