"""The numeric core: Reciprocal Rank Fusion, the trust boost, and per-item explanations.

``final = rrf + trust_score * trust_weight`` where ``rrf = sum(1 / (rank0 + rank_const))`` over
the candidate lists an item appears in (0-based ranks, Graphiti's formula). Everything is
vectorized over the candidate pool; ties keep first-appearance order, exactly as
``graphiti_core.search.search_utils.rrf`` (a stable sort), so weight 0 reproduces Graphiti.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from numbers import Real
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

METHOD_NAMES = ("bm25", "cosine", "bfs")


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
    cosine_stage: str | None = None  # "index" or "scan": which cosine stage found it (None: not found by cosine)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class FusedPool:
    """A fused candidate pool, in first-appearance order (Graphiti's tie order).

    ``ranks`` has one row per method list (0-based rank, -1 where absent).
    """

    uuids: list[str]
    methods: tuple[str, ...]
    ranks: np.ndarray
    fused: np.ndarray


def fuse(lists: Sequence[Sequence[str]], methods: Sequence[str], rank_const: float = 1.0) -> FusedPool:
    """RRF over ``lists`` (one uuid list per method, best first)."""
    index: dict[str, int] = {}
    for lst in lists:
        for uid in lst:
            index.setdefault(uid, len(index))
    ranks = np.full((len(lists), len(index)), -1, dtype=np.int64)
    fused = np.zeros(len(index), dtype=np.float64)
    for m, lst in enumerate(lists):
        if not lst:
            continue
        cols = np.array([index[u] for u in lst], dtype=np.int64)
        pos = np.arange(len(lst), dtype=np.int64)
        # A uuid listed twice by one method keeps its best (first) rank for the explanation;
        # its score adds both, as Graphiti's dict accumulation does (bincount sums duplicates).
        ranks[m, cols[::-1]] = pos[::-1]
        fused += np.bincount(cols, weights=1.0 / (pos + rank_const), minlength=len(index))
    return FusedPool(list(index), tuple(methods), ranks, fused)


def sanitize_trust(values: Sequence[Any], uuids: Sequence[str] | None = None) -> np.ndarray:
    """Trust values as floats in [0, 1], NaN where absent.

    Missing/None is absent (no boost, no penalty). NaN, infinities, strings, booleans and
    other types are ignored (absent); finite numbers outside [0, 1] are clamped. Problems are
    reported in one warning per call, never raised.
    """
    if all(v is None or type(v) is float for v in values):  # fast path: the common case
        out = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
        absent = np.fromiter((v is None for v in values), dtype=bool, count=len(values))
        if (absent | ((out >= 0.0) & (out <= 1.0))).all():  # NaN compares False: slow path
            return out
    out = np.full(len(values), np.nan, dtype=np.float64)
    bad: list[str] = []
    for i, v in enumerate(values):
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, Real):
            bad.append(_label(uuids, i, v, "not a number, ignored"))
            continue
        f = float(v)
        if not math.isfinite(f):
            bad.append(_label(uuids, i, v, "not finite, ignored"))
        elif f < 0.0 or f > 1.0:
            bad.append(_label(uuids, i, v, "out of [0, 1], clamped"))
            out[i] = min(1.0, max(0.0, f))
        else:
            out[i] = f
    if bad:
        shown = "; ".join(bad[:5]) + (f"; and {len(bad) - 5} more" if len(bad) > 5 else "")
        log.warning("invalid trust_score on %d item(s): %s", len(bad), shown)
    return out


def _label(uuids: Sequence[str] | None, i: int, v: Any, what: str) -> str:
    who = uuids[i] if uuids is not None else f"#{i}"
    return f"{who}={v!r:.40} ({what})"


def boost_amounts(trust: np.ndarray, weight: float, eligible: np.ndarray | None = None) -> np.ndarray:
    """``trust * weight``; absent trust (NaN) and ineligible items get 0."""
    t = np.nan_to_num(trust, nan=0.0)
    if eligible is not None:
        t = np.where(eligible, t, 0.0)
    return t * weight


def boost(fused: np.ndarray, trust: np.ndarray, weight: float, eligible: np.ndarray | None = None) -> np.ndarray:
    """``final = fused + trust * weight``; absent trust (NaN) and ineligible items get 0."""
    return fused + boost_amounts(trust, weight, eligible)


def order(scores: np.ndarray) -> np.ndarray:
    """Indices best-first; ties keep pool order (stable), like Graphiti's ``rrf``."""
    return np.argsort(-scores, kind="stable")


def ranks_of(scores: np.ndarray) -> np.ndarray:
    """1-based rank of each item under :func:`order`."""
    r = np.empty(len(scores), dtype=np.int64)
    r[order(scores)] = np.arange(1, len(scores) + 1)
    return r


@dataclass(frozen=True, slots=True)
class Ranked:
    """A boosted pool: item indices best-first plus the arrays explanations read from."""

    pool: FusedPool
    trust: np.ndarray
    boosts: np.ndarray
    final: np.ndarray
    order: np.ndarray
    rank_without_boost: np.ndarray


def rank_pool(
    pool: FusedPool,
    trust_values: Sequence[Any],
    weight: float,
    eligible: np.ndarray | None = None,
    min_score: float = 0.0,
) -> Ranked:
    """Boost the whole pool, then order it. Items with ``fused < min_score`` are dropped."""
    trust = sanitize_trust(trust_values, pool.uuids)
    boosts = boost_amounts(trust, weight, eligible)
    final = pool.fused + boosts
    idx = order(final)
    idx = idx[pool.fused[idx] >= min_score]
    return Ranked(pool, trust, boosts, final, idx, ranks_of(pool.fused))


def explain(ranked: Ranked, texts: Sequence[str], positions: Sequence[int] | None = None) -> list[Explanation]:
    """Explanations for the items at ``ranked.order`` (or the given pool ``positions``)."""
    pool = ranked.pool
    rows = {m: pool.ranks[i] for i, m in enumerate(pool.methods)}
    picks = ranked.order if positions is None else positions
    out = []
    for rank, i in enumerate(picks, start=1):
        t = ranked.trust[i]
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
            )
        )
    return out


def _rank1(row: np.ndarray | None, i: int) -> int | None:
    if row is None or row[i] < 0:
        return None
    return int(row[i]) + 1
