"""Learning the factor weights from recorded outcomes, and calibration by confidence band.

Each recorded use is a row of factor scores (as the fact had them when used) and an outcome:
success 1, partial 0.5, failure and error 0. A logistic regression (Newton's method with a
small L2 penalty, numpy) predicts the outcome from the factors; the new weights are the
positive coefficients, normalized to the weight mass of the factors that varied in the data.
A factor that never varied (context is 0.5 without a context) keeps its weight: the data say
nothing about it. Calibration reports, per confidence level band and for scores >= 0.8, how
many uses fall there and their success rate, under the old weights and the new.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from graph_trust.confidence.composite import FACTORS, LEVELS, composite_many, level_codes

OUTCOME_VALUES = {"success": 1.0, "partial": 0.5, "failure": 0.0, "error": 0.0}
MIN_OUTCOMES = 20
HIGH = 0.8


@dataclass(frozen=True)
class Fit:
    weights: dict[str, float]
    coefficients: dict[str, float]
    intercept: float
    learned: tuple[str, ...]  # factors that varied in the data


def logistic(X: np.ndarray, y: np.ndarray, l2: float = 1e-2, iters: int = 50) -> tuple[np.ndarray, float]:
    """Coefficients and intercept of a logistic regression of ``y`` (in [0, 1]) on ``X``."""
    n, k = X.shape
    A = np.column_stack([np.ones(n), X])
    beta = np.zeros(k + 1)
    reg = np.full(k + 1, l2)
    reg[0] = 0.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(A @ beta, -30, 30)))
        grad = A.T @ (p - y) / n + reg * beta
        H = (A * (p * (1 - p))[:, None]).T @ A / n + np.diag(reg) + 1e-9 * np.eye(k + 1)
        step = np.linalg.solve(H, grad)
        beta -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return beta[1:], float(beta[0])


def fit_weights(X: np.ndarray, y: np.ndarray, current: Mapping[str, float]) -> Fit:
    """New weights from factor rows ``X`` (columns in FACTORS order) and outcomes ``y``."""
    if X.shape != (len(y), len(FACTORS)):
        raise ValueError(f"need one row of {len(FACTORS)} factor scores ({', '.join(FACTORS)}) per outcome, "
                         f"got {'x'.join(map(str, X.shape))} for {len(y)} outcomes")
    if len(y) < MIN_OUTCOMES:
        raise ValueError(f"need at least {MIN_OUTCOMES} recorded outcomes to learn weights, have {len(y)}")
    if np.all(y >= 1) or np.all(y <= 0):
        raise ValueError("the recorded outcomes are all successes or all failures: nothing to learn from")
    varies = X.std(axis=0) > 1e-9
    coef = np.zeros(X.shape[1])
    intercept = 0.0
    if varies.any():
        coef[varies], intercept = logistic(X[:, varies], y)
    old = np.array([current[f] for f in FACTORS])
    pos = np.where(varies, np.maximum(coef, 0.0), 0.0)
    mass = 1.0 - old[~varies].sum()
    if pos.sum() <= 0 or mass <= 0:
        new = old.copy()
    else:
        new = np.where(varies, pos / pos.sum() * mass, old)
    new = new / new.sum()
    return Fit({f: round(float(w), 6) for f, w in zip(FACTORS, new, strict=True)},
               {f: float(c) for f, c in zip(FACTORS, coef, strict=True)}, intercept,
               tuple(f for f, v in zip(FACTORS, varies, strict=True) if v))


def calibration(scores: np.ndarray, y: np.ndarray) -> dict:
    """Uses and success rate per level band, and of scores >= 0.8; plus the Brier score."""
    codes = level_codes(scores)
    bands = []
    for i, (name, lower, _) in enumerate(LEVELS):
        sel = codes == i
        bands.append({"level": name, "from": lower, "uses": int(sel.sum()),
                      "success_rate": round(float(y[sel].mean()), 4) if sel.any() else None,
                      "mean_confidence": round(float(scores[sel].mean()), 4) if sel.any() else None})
    high = scores >= HIGH - 1e-9
    return {"bands": bands,
            "at_or_above_0_8": {"uses": int(high.sum()),
                                "success_rate": round(float(y[high].mean()), 4) if high.any() else None},
            "brier": round(float(np.mean((scores - y) ** 2)), 6) if len(y) else None}


def learn(X: np.ndarray, y: np.ndarray, current: Mapping[str, float]) -> dict:
    """Fit and report calibration before (``current``) and after (the fitted weights)."""
    fit = fit_weights(X, y, current)
    return {"outcomes": int(len(y)), "weights_before": dict(current), "weights_after": fit.weights,
            "coefficients": {k: round(v, 6) for k, v in fit.coefficients.items()},
            "intercept": round(fit.intercept, 6), "learned": list(fit.learned),
            "calibration_before": calibration(composite_many(X, current), y),
            "calibration_after": calibration(composite_many(X, fit.weights), y)}
