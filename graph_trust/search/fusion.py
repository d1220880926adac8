"""Reciprocal Rank Fusion: one candidate pool from the methods' lists (BM25, cosine, BFS).

``rrf = sum(1 / (rank0 + rank_const))`` over the candidate lists an item appears in (0-based
ranks, Graphiti's formula); ties keep first-appearance order, exactly as
``graphiti_core.search.search_utils.rrf`` (a stable sort). Also here: each item's relevance
``support`` (what the ``supported`` boost form scales by) and the trust values as read from the
graph (:func:`sanitize_trust`). What happens to the pool next is the ranking rules'
(:mod:`graph_trust.search.rules`, run by :func:`graph_trust.search.ranking.rank_pool`).

``support`` is the fused score the item would have if every relevance method (BM25, cosine; not
BFS) ranked it at its worst rank among them (``n * min_m 1 / (rank_m + rank_const)``, 0 when a
method missed it). ``support <= rrf``, so in the supported form ``final <= rrf * (1 + weight)``:
a trusted item never passes one whose fused score exceeds its own by a factor of more than
``1 + weight``, whatever ``rank_const`` is, and an item only one method found gets no boost.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

METHOD_NAMES = ("bm25", "cosine", "bfs")
NON_RELEVANCE_METHODS = frozenset({"bfs"})  # graph neighbourhood: says nothing about the query


@dataclass(frozen=True, slots=True)
class FusedPool:
    """A fused candidate pool, in first-appearance order (Graphiti's tie order).

    ``ranks`` has one row per method list (0-based rank, -1 where absent).
    """

    uuids: list[str]
    methods: tuple[str, ...]
    ranks: np.ndarray
    fused: np.ndarray
    rank_const: float = 1.0


def fuse(lists: Sequence[Sequence[str]], methods: Sequence[str], rank_const: float = 1.0) -> FusedPool:
    """RRF over ``lists`` (one uuid list per method, best first)."""
    if len(lists) != len(methods):  # each list needs its method: support and explanations read them by row
        raise ValueError(f"fuse: {len(lists)} candidate list(s) but {len(methods)} method name(s)")
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
    return FusedPool(list(index), tuple(methods), ranks, fused, float(rank_const))


def support(pool: FusedPool) -> np.ndarray:
    """Each item's relevance support: ``n * min_m 1 / (rank_m + rank_const)`` over the ``n``
    relevance methods (BFS left out), 0 when one of them missed the item. A pool without
    per-method ranks (another Graphiti reranker), or with no relevance method, supports each
    item with its own fused score."""
    rows = [r for r, m in enumerate(pool.methods) if m not in NON_RELEVANCE_METHODS]
    if not rows or pool.ranks.shape[0] == 0:
        return pool.fused.copy()
    ranks = pool.ranks[rows]
    worst = ranks.max(axis=0)
    found = (ranks >= 0).all(axis=0)
    return np.where(found, len(rows) / (np.maximum(worst, 0) + pool.rank_const), 0.0)


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


def order(scores: np.ndarray) -> np.ndarray:
    """Indices best-first; ties keep pool order (stable), like Graphiti's ``rrf``."""
    return np.argsort(-scores, kind="stable")


def ranks_of(scores: np.ndarray) -> np.ndarray:
    """1-based rank of each item under :func:`order`."""
    r = np.empty(len(scores), dtype=np.int64)
    r[order(scores)] = np.arange(1, len(scores) + 1)
    return r
