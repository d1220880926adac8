"""Placement of negative evidence that is not penalized (competitor-aware rule,
``negative_lone_places``): an item with a competitor without negative evidence goes right below
the lowest such competitor (it yields its slot to them, and only to them; duplicates too); one
with none moves down ``lone_places`` places (a wrong review decision then costs little: there
is no other value to prefer). Sunk items stay where the sort put them. An item moved down takes
the score of the item right above its new place (when its own is higher), so scores still
follow the order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from graph_trust.search.rules.base import RankState, RuleParams, group_ids, reads


def place_negative(order_idx: np.ndarray, placed: np.ndarray, negative: np.ndarray, groups: Sequence[Any] | None,
                   lone_places: int) -> np.ndarray:
    """Move the ``placed`` items (pool mask) of ``order_idx`` (best first): one with a competitor
    without negative evidence goes right below the lowest such competitor; one with none moves
    down ``lone_places`` places. Everything else keeps its relative order; ties keep the current
    order (stable)."""
    n = len(order_idx)
    pos = np.arange(n, dtype=np.float64)
    key = pos.copy()
    moving = placed[order_idx]
    lowest = np.full(n, -1.0)  # per position: the lowest position of a clean competitor
    if groups is not None:
        gid = group_ids(groups)[order_idx]
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


@reads("neg", "groups")
def apply(state: RankState, params: RuleParams) -> RankState:
    placed, idx = state.placed, state.order
    if placed is None or not placed.any() or idx is None:
        return state
    sunk = state.sunk[idx]
    head = idx[~sunk]
    new = place_negative(head, placed, state.neg, state.groups, params.negative_policy.lone_places or 0)
    final = state.final.copy()
    # only an item moved down can score above the item now above it: the running minimum is the
    # identity for the others (everything above them was above them before)
    final[new] = np.minimum.accumulate(state.final[new])
    was = np.empty(len(final), dtype=np.int64)
    was[head] = np.arange(len(head))
    # moved: an item that was below it is now above it
    passed = np.concatenate([[-1], np.maximum.accumulate(was[new])[:-1]]) > was[new]
    down = new[placed[new] & passed]
    moved = state.moved_by("placement", down, final) if len(down) else state.moved
    return replace(state, order=np.concatenate([new, idx[sunk]]), final=final, moved=moved)
