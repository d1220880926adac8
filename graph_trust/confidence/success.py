"""Usage success rate: did acting on the fact work.

``(successes + 0.5 * partials) / uses`` over the last 90 days; ``failure`` and ``error`` count
as failed uses. Under 10 uses the rate regresses toward 0.5: ``rate * n/10 + 0.5 * (1 - n/10)``;
no uses gives 0.5.
"""

from __future__ import annotations

import numpy as np

OUTCOMES = ("success", "failure", "partial", "error")
MIN_SAMPLES = 10


def success_many(successes: np.ndarray, partials: np.ndarray, total: np.ndarray,
                 min_samples: int = MIN_SAMPLES) -> np.ndarray:
    """Vectorized :func:`success_rate` over outcome counts."""
    total = np.asarray(total, dtype=float)
    rate = (np.asarray(successes, dtype=float) + 0.5 * np.asarray(partials, dtype=float)) / np.maximum(total, 1)
    weight = np.minimum(1.0, total / min_samples)
    return np.clip(rate * weight + 0.5 * (1 - weight), 0.0, 1.0)


def success_rate(successes: int, partials: int, total: int, min_samples: int = MIN_SAMPLES) -> float:
    """The success factor for one fact from its outcome counts in the window."""
    if total < successes + partials or min(successes, partials, total) < 0:
        raise ValueError("outcome counts must be non-negative and successes + partials <= total")
    return float(success_many(np.array([successes]), np.array([partials]), np.array([total]), min_samples)[0])
