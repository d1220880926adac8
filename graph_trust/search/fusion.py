"""The numeric core: Reciprocal Rank Fusion, the trust boost, negative evidence, explanations.

``rrf = sum(1 / (rank0 + rank_const))`` over the candidate lists an item appears in (0-based
ranks, Graphiti's formula). Two boost forms:

- ``additive`` (the reference, seed 002): ``final = rrf + trust_score * trust_weight``. Its
  weight is in absolute fused-score units, so its meaning depends on ``rank_const``.
- ``supported``: ``final = rrf + trust_score * trust_weight * support`` where ``support`` is
  the fused score the item would have if every relevance method (BM25, cosine; not BFS)
  ranked it at its worst rank among them (``n * min_m 1 / (rank_m + rank_const)``, 0 when a
  method missed it). ``support <= rrf``, so ``final <= rrf * (1 + weight)``: a trusted item
  never passes one whose fused score exceeds its own by a factor of more than ``1 + weight``,
  whatever ``rank_const`` is, and an item only one method found gets no boost (it cannot win
  a near tie on trust alone).

Trust below ``min_boost_trust`` boosts nothing. Items with negative evidence (a rejected or
expired review status, or an ``invalid_at``/``expired_at`` in the past) get no boost and keep
``1 - penalty`` of their fused score; ``penalty`` 1 sinks them below every other item (their
own order kept), ``drop`` removes them. With ``NegativePolicy.lone_places`` set, the penalty
applies only where the evidence decides between values: to items with a competitor without
negative evidence in the pool, or superseded ones (invalidated: the graph holds a newer value);
an item alone in its slot moves down at most ``lone_places`` places (a wrong review decision
then costs little; there is no other value to prefer), and a duplicate of a statement a clean
competitor makes (same target) goes right below its competitors instead of sinking.

Competitors: facts that state the same relation of the same subject (Graphiti's contradiction
key: one source entity, one edge ``name``) compete for one answer. With competitor ordering on,
each group of competitors keeps the slots its members reached by relevance, and the slots are
handed out again by evidence: verified trust (``>= min_boost_trust``) first, then the newer
``valid_at``. Relevance still decides which slots a subject's relation gets; trust and time
decide which of its values fills the best one. The relation bonus adds to each member a share
of its best competitor's fused score (or of all of theirs summed). Everything is vectorized
over the candidate pool; ties keep first-appearance order, exactly as
``graphiti_core.search.search_utils.rrf`` (a stable sort), so weight 0 without negative
evidence reproduces Graphiti.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from numbers import Real
from typing import Any, Literal

import numpy as np

log = logging.getLogger(__name__)

METHOD_NAMES = ("bm25", "cosine", "bfs")
BoostForm = Literal["additive", "supported"]
RelationMode = Literal["best", "sum"]
BOOST_FORMS: tuple[str, ...] = ("additive", "supported")
NON_RELEVANCE_METHODS = frozenset({"bfs"})  # graph neighbourhood: says nothing about the query
# negative reasons that say the graph holds a newer value of the fact's slot (Graphiti set
# invalid_at/expired_at when a contradicting fact arrived): competed even with no competitor in the pool
SUPERSEDED = frozenset({"invalidated"})


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
    rank_const: float = 1.0


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


def boost_amounts(trust: np.ndarray, weight: float, eligible: np.ndarray | None = None,
                  scale: np.ndarray | None = None, min_trust: float = 0.0) -> np.ndarray:
    """``trust * weight`` (times ``scale`` when given: the supported form); absent trust (NaN),
    trust below ``min_trust`` and ineligible items get 0."""
    t = np.nan_to_num(trust, nan=0.0)
    if min_trust > 0.0:
        t = np.where(t >= min_trust, t, 0.0)
    if eligible is not None:
        t = np.where(eligible, t, 0.0)
    out = t * weight
    return out if scale is None else out * scale


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
    negative: Sequence[str | None] | None = None
    relation: np.ndarray | None = None  # relation bonus per item (None: off)


@dataclass(frozen=True, slots=True)
class NegativePolicy:
    """What negative evidence does: keep ``1 - penalty`` of the fused score (1: sink below every
    other item), or ``drop`` the item.

    ``lone_places`` (None: off) turns on the competitor-aware rule (:func:`place_negative`):
    the penalty then applies only to items with a competitor in the pool (a member of their
    group without negative evidence), and an item with none moves down at most that many
    places instead. ``competed`` ``"yield"`` places a competed item right below its lowest
    competitor rather than applying the penalty."""

    penalty: float = 1.0
    drop: bool = False
    lone_places: int | None = None
    competed: Literal["penalty", "yield"] = "penalty"
    superseded: frozenset[str] = SUPERSEDED


def final_scores(fused: np.ndarray, boosts: np.ndarray, negative: np.ndarray | None,
                 policy: NegativePolicy) -> tuple[np.ndarray, np.ndarray]:
    """``(final, sunk)``: boosted scores, negative items at ``fused * (1 - penalty)`` (no boost);
    ``sunk`` marks the items ordered after all others (penalty 1)."""
    final = fused + boosts
    sunk = np.zeros(len(fused), dtype=bool)
    if negative is not None and negative.any() and policy.penalty > 0.0:
        final = np.where(negative, fused * (1.0 - policy.penalty), final)
        if policy.penalty >= 1.0:
            sunk = negative.copy()
            final = np.where(negative, fused, final)  # their own order, below everything else
    return final, sunk


def order_sunk(final: np.ndarray, sunk: np.ndarray) -> np.ndarray:
    """Indices best-first, the sunk ones after the others; ties keep pool order (stable)."""
    idx = order(final)
    if not sunk.any():
        return idx
    return np.concatenate([idx[~sunk[idx]], idx[sunk[idx]]])


def rank_pool(
    pool: FusedPool,
    trust_values: Sequence[Any],
    weight: float,
    eligible: np.ndarray | None = None,
    min_score: float = 0.0,
    *,
    form: BoostForm = "additive",
    min_boost_trust: float = 0.0,
    negative: Sequence[str | None] | None = None,
    negative_policy: NegativePolicy | None = None,
    competitors: Sequence[Any] | None = None,
    stamps: np.ndarray | None = None,
    reorder: bool = True,
    relation_weight: float = 0.0,
    relation_cap: float | None = None,
    relation_mode: RelationMode = "sum",
    twins: Sequence[Any] | None = None,
) -> Ranked:
    """Boost the whole pool, then order it. Items with ``fused < min_score`` are dropped.

    ``negative`` holds, per item, why it is demoted (None: not): such items get no boost and
    are treated by ``negative_policy`` (default: sunk below every other item). ``competitors``
    (per item, its competitor key or None) turns on :func:`order_competitors`, by trust and
    then by ``stamps`` when given (``reorder``); items with negative evidence take no part.
    ``relation_weight`` adds to each item without negative evidence that share of the fused
    scores of the other members of its group (:func:`relation_bonus`). ``twins`` (per item, its
    statement key: the competitor key and the target, or None) marks duplicates: a rejected or
    expired item that a competitor without negative evidence states word for word (same
    target) yields to its competitors instead of taking the penalty, since the evidence holds
    its statement (reviewers reject duplicates; a noisy review rejects a correct paraphrase),
    and keeps its share of the relation bonus (it gets no trust boost).
    """
    if form not in BOOST_FORMS:
        raise ValueError(f"unknown boost form {form!r} (choose from {', '.join(BOOST_FORMS)})")
    trust = sanitize_trust(trust_values, pool.uuids)
    neg = None if negative is None else np.fromiter((n is not None for n in negative), dtype=bool,
                                                    count=len(negative))
    if neg is not None and not neg.any():
        neg = None
    ok = eligible if neg is None else (~neg if eligible is None else eligible & ~neg)
    scale = support(pool) if form == "supported" else None
    boosts = boost_amounts(trust, weight, ok, scale, min_boost_trust)
    policy = negative_policy or NegativePolicy()
    penalized, placed, duplicate = neg, None, None
    if neg is not None and policy.lone_places is not None:
        superseded = np.fromiter((r in policy.superseded for r in negative), dtype=bool, count=len(negative))
        competed = neg & (superseded | has_competitor(neg, competitors))
        if policy.competed == "penalty":
            duplicate = neg & ~superseded & has_competitor(neg, twins)  # yields, as its statement holds
            penalized = competed & ~duplicate
            placed = neg & ~penalized
        else:
            penalized, placed = None, neg
    relation = None
    if competitors is not None and relation_weight > 0.0:
        # a duplicate keeps the relation's share (relevance, not trust): its twin's statement holds
        related = ok if duplicate is None else ok | (duplicate if eligible is None else duplicate & eligible)
        relation = relation_bonus(pool.fused, competitors, relation_weight, related, relation_cap, relation_mode)
    final, sunk = final_scores(pool.fused, boosts if relation is None else boosts + relation, penalized, policy)
    idx = order_sunk(final, sunk)
    if competitors is not None and reorder:
        idx = order_competitors(idx, competitors, trust, stamps, min_boost_trust, neg)
    if placed is not None and placed.any():  # within the items not sunk
        head = ~sunk[idx]
        idx = np.concatenate([place_negative(idx[head], placed, neg, competitors, policy.lone_places or 0),
                              idx[~head]])
    keep = pool.fused[idx] >= min_score
    if neg is not None and policy.drop:
        keep &= ~neg[idx]
    return Ranked(pool, trust, boosts, final, idx[keep], ranks_of(pool.fused), negative, relation)


def has_competitor(negative: np.ndarray, groups: Sequence[Any] | None) -> np.ndarray:
    """Per item, whether another item of its group (its competitor key) has no negative evidence."""
    n = len(negative)
    if groups is None or n == 0:
        return np.zeros(n, dtype=bool)
    gid = _group_ids(groups)
    grouped = gid >= 0
    clean = np.bincount(gid[grouped & ~negative], minlength=int(gid.max()) + 1) if grouped.any() else np.zeros(0)
    out = np.zeros(n, dtype=bool)
    out[grouped] = clean[gid[grouped]] > np.where(negative[grouped], 0, 1)
    return out


def place_negative(order_idx: np.ndarray, placed: np.ndarray, negative: np.ndarray, groups: Sequence[Any] | None,
                   lone_places: int) -> np.ndarray:
    """Move the ``placed`` items (pool mask) of ``order_idx`` (best first): one with a competitor
    without negative evidence goes right below the lowest such competitor (it yields its slot to
    them, and only to them); one with none moves down ``lone_places`` places. Everything else
    keeps its relative order; ties keep the current order (stable)."""
    n = len(order_idx)
    pos = np.arange(n, dtype=np.float64)
    key = pos.copy()
    moving = placed[order_idx]
    lowest = np.full(n, -1.0)  # per position: the lowest position of a clean competitor
    if groups is not None:
        gid = _group_ids(groups)[order_idx]
        clean = (gid >= 0) & ~negative[order_idx]
        if clean.any():
            last = np.full(int(gid.max()) + 1, -1.0)
            np.maximum.at(last, gid[clean], pos[clean])
            lowest = np.where(gid >= 0, last[np.maximum(gid, 0)], -1.0)
    competed = moving & (lowest >= 0)
    key[competed] = np.maximum(pos[competed], lowest[competed]) + 0.5
    lone = moving & ~competed
    key[lone] = pos[lone] + lone_places + 0.5
    return order_idx[np.argsort(key, kind="stable")]


def _group_ids(groups: Sequence[Any]) -> np.ndarray:
    """Dense ids of the competitor keys (-1: None)."""
    ids: dict[Any, int] = {}
    return np.fromiter((-1 if k is None else ids.setdefault(k, len(ids)) for k in groups), dtype=np.int64,
                       count=len(groups))


def relation_bonus(fused: np.ndarray, groups: Sequence[Any], weight: float, eligible: np.ndarray | None = None,
                   cap: float | None = None, mode: RelationMode = "sum") -> np.ndarray:
    """``weight`` times the fused score of the best *other* member of each item's group
    (``mode`` ``best``) or the summed fused scores of all the others (``sum``). All members
    count, negative evidence included: their relevance says the relation is what the query asks
    about; whether they are true is decided separately. At most ``cap`` times the item's own
    fused score (None: unbounded); 0 for ineligible items and items that compete with nothing."""
    gid = _group_ids(groups)
    out = np.zeros(len(fused))
    grouped = gid >= 0
    if not grouped.any():
        return out
    g, f = gid[grouped], fused[grouped]
    if mode == "sum":
        sums = np.bincount(g, weights=f, minlength=int(g.max()) + 1)
        others = sums[g] - f
    else:  # the best other member: the group's best, or its second best for the best member itself
        first = np.full(int(g.max()) + 1, -np.inf)
        np.maximum.at(first, g, f)
        top = f == first[g]
        ties = np.bincount(g[top], minlength=len(first))  # a shared best counts as the other's
        second = np.full(len(first), -np.inf)
        np.maximum.at(second, g[~top], f[~top])
        best_other = np.where(top & (ties[g] < 2), second[g], first[g])
        others = np.where(np.isfinite(best_other), best_other, 0.0)
    out[grouped] = weight * others
    if cap is not None:
        out = np.minimum(out, cap * fused)
    return out if eligible is None else np.where(eligible, out, 0.0)


def order_competitors(order_idx: np.ndarray, groups: Sequence[Any], trust: np.ndarray, stamps: np.ndarray | None,
                      min_trust: float = 0.0, exclude: np.ndarray | None = None) -> np.ndarray:
    """Reassign the slots each competitor group holds in ``order_idx`` (pool indices, best
    first): members sorted by verified trust (trust below ``min_trust`` or absent counts 0),
    then by newer ``stamps`` (seconds; NaN is oldest; None: trust alone), ties in their current
    order. ``groups[i]`` is item ``i``'s competitor key (None: competes with nothing);
    ``exclude`` marks items left where they are (sunk negative evidence)."""
    n = len(order_idx)
    if n < 2:
        return order_idx
    ids: dict[Any, int] = {}
    gid = np.fromiter(((-1 if (k := groups[i]) is None or (exclude is not None and exclude[i])
                        else ids.setdefault(k, len(ids))) for i in order_idx), dtype=np.int64, count=n)
    if len(ids) == int((gid >= 0).sum()):  # every group is a singleton
        return order_idx
    pos = np.arange(n)
    t = np.nan_to_num(trust[order_idx], nan=0.0)
    t = np.where(t >= min_trust, t, 0.0)
    st = np.zeros(n) if stamps is None else np.nan_to_num(stamps[order_idx], nan=-np.inf)
    grouped = gid >= 0
    slots = np.lexsort((pos, gid))[np.count_nonzero(~grouped):]
    members = np.lexsort((pos, -st, -t, gid))[np.count_nonzero(~grouped):]
    out = order_idx.copy()
    out[slots] = order_idx[members]
    return out


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
                negative=None if ranked.negative is None else ranked.negative[i],
                relation_bonus=0.0 if ranked.relation is None else float(ranked.relation[i]),
            )
        )
    return out


def _rank1(row: np.ndarray | None, i: int) -> int | None:
    if row is None or row[i] < 0:
        return None
    return int(row[i]) + 1
