"""The relation bonus: facts stating the same relation of the same subject (one competitor key)
tell that the relation is what the query asks about, so each gets ``relation_weight`` times the
fused score of its best other member (``best``) or of all of them (``sum``), at most
``relation_cap`` times its own. Items with negative evidence get none, except duplicates (their
twin's statement holds)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from graph_trust.search.fusion import ranks_of
from graph_trust.search.rules.base import RankState, RelationMode, RuleParams, group_ids, reads


def relation_bonus(fused: np.ndarray, groups: Sequence[Any], weight: float, eligible: np.ndarray | None = None,
                   cap: float | None = None, mode: RelationMode = "sum") -> np.ndarray:
    """``weight`` times the fused score of the best *other* member of each item's group
    (``mode`` ``best``) or the summed fused scores of all the others (``sum``). All members
    count, negative evidence included: their relevance says the relation is what the query asks
    about; whether they are true is decided separately. At most ``cap`` times the item's own
    fused score (None: unbounded); 0 for ineligible items and items that compete with nothing."""
    gid = group_ids(groups)
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


@reads("eligible", "neg", "groups")
def apply(state: RankState, params: RuleParams) -> RankState:
    if state.groups is None or params.relation_weight <= 0.0:
        return state
    related, duplicate, eligible = state.boostable, state.duplicate, state.eligible
    if duplicate is not None:  # a duplicate keeps the relation's share (relevance, not trust)
        related = related | (duplicate if eligible is None else duplicate & eligible)
    if params.relation_window is not None:  # the bonus orders what relevance returns, brings nothing in
        within = ranks_of(state.pool.fused) <= params.relation_window
        related = within if related is None else related & within
    relation = relation_bonus(state.pool.fused, state.groups, params.relation_weight, related,
                              params.relation_cap, params.relation_mode)
    return replace(state, relation=relation)
