"""The composite confidence score, its level and decision guidance by risk.

``confidence = sum(weight[f] * factor[f])`` over the seven factors, with
``confidence.weights`` (default freshness 0.20, source 0.20, verification 0.15, consensus 0.15,
contradiction 0.10, success 0.10, context 0.10). Levels: very_high >= 0.85, high >= 0.70,
medium >= 0.55, low >= 0.40, very_low below. Decision: act when the score meets the risk's
threshold (low 0.40, medium 0.60, high 0.75, critical 0.90); within 0.1 below it, verify
first; further below, find better information.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from graph_trust.config import DEFAULT_WEIGHTS, RISK_THRESHOLDS

FACTORS = ("freshness", "source", "verification", "consensus", "contradiction", "success", "context")
# (level, lower bound, what it means), best first.
LEVELS: tuple[tuple[str, float, str], ...] = (
    ("very_high", 0.85, "highly reliable information: use with confidence"),
    ("high", 0.70, "reliable information: likely accurate"),
    ("medium", 0.55, "moderately reliable: verify if critical"),
    ("low", 0.40, "low confidence: verify before use"),
    ("very_low", 0.0, "very low confidence: likely outdated or incorrect"),
)
VERIFY_MARGIN = 0.1
_EPS = 1e-9  # a score printed as 0.85 counts as 0.85 despite float sums like 0.8499999999


@dataclass(frozen=True)
class Confidence:
    score: float
    level: str
    description: str
    factors: dict[str, float]
    weights: dict[str, float]

    def to_dict(self) -> dict:
        return {"score": round(self.score, 6), "level": self.level, "description": self.description,
                "factors": {k: round(v, 6) for k, v in self.factors.items()}, "weights": dict(self.weights)}


@dataclass(frozen=True)
class Decision:
    risk: str
    threshold: float
    should_act: bool
    recommendation: str
    suggested_action: str | None
    reasoning: str

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def check_weights(weights: Mapping[str, float]) -> dict[str, float]:
    """The seven weights in FACTORS order; each in [0, 1], summing to 1 +/- 0.01."""
    missing = [f for f in FACTORS if f not in weights]
    extra = [k for k in weights if k not in FACTORS]
    if missing or extra:
        raise ValueError(f"weights need exactly {', '.join(FACTORS)}"
                         + (f"; missing {', '.join(missing)}" if missing else "")
                         + (f"; unknown {', '.join(extra)}" if extra else ""))
    if any(not 0.0 <= float(weights[f]) <= 1.0 for f in FACTORS):
        raise ValueError("each weight must be in [0, 1]")
    total = sum(float(weights[f]) for f in FACTORS)
    if abs(total - 1.0) > 0.01:
        raise ValueError(f"weights must sum to 1 +/- 0.01, got {total:.3f}")
    return {f: float(weights[f]) for f in FACTORS}


def level_of(score: float) -> tuple[str, str]:
    """(level, description) of a score."""
    for name, bound, text in LEVELS:
        if score + _EPS >= bound:
            return name, text
    return LEVELS[-1][0], LEVELS[-1][2]


def composite(factors: Mapping[str, float], weights: Mapping[str, float] | None = None) -> Confidence:
    """The weighted score of one fact's factors (each must be in [0, 1])."""
    w = check_weights(weights or DEFAULT_WEIGHTS)
    for f in FACTORS:
        if not 0.0 <= factors[f] <= 1.0:
            raise ValueError(f"factor {f} must be in [0, 1], got {factors[f]}")
    score = min(1.0, max(0.0, sum(w[f] * float(factors[f]) for f in FACTORS)))
    level, text = level_of(score)
    return Confidence(score, level, text, {f: float(factors[f]) for f in FACTORS}, w)


def composite_many(matrix: np.ndarray, weights: Mapping[str, float] | None = None) -> np.ndarray:
    """Scores of many facts: ``matrix`` has one row per fact, one column per FACTORS entry."""
    w = check_weights(weights or DEFAULT_WEIGHTS)
    return np.clip(matrix @ np.array([w[f] for f in FACTORS]), 0.0, 1.0)


def level_codes(scores: np.ndarray) -> np.ndarray:
    """Vectorized level: index into LEVELS (0 very_high ... 4 very_low)."""
    bounds = np.array([b for _, b, _ in LEVELS[:-1]])
    return (np.asarray(scores)[:, None] + _EPS < bounds[None, :]).sum(axis=1)


def decide(score: float, risk: str, thresholds: Mapping[str, float] | None = None,
           margin: float = VERIFY_MARGIN) -> Decision:
    """Whether to act on a fact of confidence ``score`` for an action of ``risk``."""
    table = RISK_THRESHOLDS if thresholds is None else thresholds
    if risk not in table:
        raise ValueError(f"unknown risk {risk!r} (known: {', '.join(table)})")
    need = float(table[risk])
    if score + _EPS >= need:
        return Decision(risk, need, True, "proceed with the action", None,
                        f"confidence {score:.2f} meets threshold {need:.2f} for a {risk} risk action")
    if score + _EPS >= need - margin:
        return Decision(risk, need, False, "verify the information before acting", "verify-fact",
                        f"confidence {score:.2f} slightly below threshold {need:.2f}")
    return Decision(risk, need, False, "find more reliable information or verify this one", "search-alternatives",
                    f"confidence {score:.2f} too low for a {risk} risk action (threshold {need:.2f})")
