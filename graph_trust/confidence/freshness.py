"""Freshness: how much a fact's age lowers trust in it.

Three decay models: linear (``1 - age/max_age``), exponential (``e^(-lambda*age)``) and the
default, category half-life (``0.5^(age/half_life)``). The age counts from the newest of the
fact's own time and its last positive verification: a verification resets the clock.
Ages are fractional days; a time in the future counts as age 0.
"""

from __future__ import annotations

from datetime import datetime

import numpy as np

from graph_trust.config import HALF_LIVES  # days after which a category's freshness halves

DEFAULT_HALF_LIFE = 60.0
MODELS = ("half_life", "exponential", "linear")
SECONDS_PER_DAY = 86400.0


def linear(age_days, max_age_days: float = 365.0):
    """``1 - age/max_age``, clipped to [0, 1] (scalar or array)."""
    age = np.maximum(np.asarray(age_days, dtype=float), 0.0)
    return _out(np.clip(1.0 - age / max_age_days, 0.0, 1.0), age_days)


def exponential(age_days, rate: float = 0.01):
    """``e^(-rate*age)`` (scalar or array)."""
    age = np.maximum(np.asarray(age_days, dtype=float), 0.0)
    return _out(np.clip(np.exp(-rate * age), 0.0, 1.0), age_days)


def half_life(age_days, half_life_days):
    """``0.5^(age/half_life)`` (scalars or arrays, broadcast)."""
    age = np.maximum(np.asarray(age_days, dtype=float), 0.0)
    return _out(np.clip(np.power(0.5, age / np.asarray(half_life_days, dtype=float)), 0.0, 1.0), age_days)


def half_life_for(category: str | None, table: dict[str, float] | None = None,
                  default: float = DEFAULT_HALF_LIFE) -> float:
    """The half-life of ``category`` (case-insensitive); ``default`` for unknown or none."""
    table = HALF_LIVES if table is None else table
    return float(table.get((category or "").strip().lower(), default))


def age_days(at: datetime, now: datetime) -> float:
    """Fractional days from ``at`` to ``now`` (0 when ``at`` is in the future)."""
    return max(0.0, (now - at).total_seconds() / SECONDS_PER_DAY)


def freshness(created_at: datetime, now: datetime, category: str | None = None,
              last_verified_at: datetime | None = None, *, model: str = "half_life",
              half_lives: dict[str, float] | None = None, default_half_life: float = DEFAULT_HALF_LIFE,
              rate: float = 0.01, max_age_days: float = 365.0) -> float:
    """Freshness of one fact; the clock runs from the newer of creation and last verification."""
    ref = created_at if last_verified_at is None else max(created_at, last_verified_at)
    age = age_days(ref, now)
    if model == "linear":
        return float(linear(age, max_age_days))
    if model == "exponential":
        return float(exponential(age, rate))
    if model == "half_life":
        return float(half_life(age, half_life_for(category, half_lives, default_half_life)))
    raise _unknown(model)


def freshness_many(age_days_arr: np.ndarray, half_lives_arr: np.ndarray, *, model: str = "half_life",
                   rate: float = 0.01, max_age_days: float = 365.0) -> np.ndarray:
    """Vectorized :func:`freshness` over ages already measured from each fact's reference time."""
    if model == "linear":
        return linear(age_days_arr, max_age_days)
    if model == "exponential":
        return exponential(age_days_arr, rate)
    if model == "half_life":
        return half_life(age_days_arr, half_lives_arr)
    raise _unknown(model)


def _unknown(model: str) -> ValueError:
    return ValueError(f"unknown decay model {model!r} (known: {', '.join(MODELS)})")


def _out(arr: np.ndarray, like):
    return float(arr) if np.ndim(like) == 0 else arr
