"""Competing facts: facts that state the same relation of the same subject (Graphiti's
contradiction key: one source entity, one edge ``name``) compete for one answer. Each group keeps
the slots its members reached by relevance, and the slots are handed out again by evidence:
verified trust (``>= min_boost_trust``) first, then the newer ``valid_at``. Relevance decides
which slots a subject's relation gets; trust and time decide which of its values fills the best
one. Only the trust of items a boost may lift counts (``eligible``: not past ``invalid_at``, on
the query's topic). Items with negative evidence take no part (the negative rules place them).
A slot keeps its score: the member that takes it scores what the slot's first holder scored, so scores still
follow the order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from graph_trust.search.rules.base import RankState, RuleParams, reads


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


@reads("eligible", "neg", "groups", "stamps")
def apply(state: RankState, params: RuleParams) -> RankState:
    if state.groups is None or not params.reorder or state.order is None:
        return state
    before = state.order
    # only trust that may lift an item orders its group: an ineligible item's (past invalid_at,
    # or off the query's topic) counts as none
    trust = state.trust if state.eligible is None else np.where(state.eligible, state.trust, np.nan)
    idx = order_competitors(before, state.groups, trust, state.stamps, params.min_boost_trust, state.neg)
    changed = idx != before
    if not changed.any():
        return state
    final = state.final.copy()
    final[idx] = state.final[before]  # each slot keeps its score
    return replace(state, order=idx, final=final, moved=state.moved_by("competitors", idx[changed], final))
