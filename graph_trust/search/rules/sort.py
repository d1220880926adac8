"""The order by score: ``final = fused + boost + relation bonus`` (plus the ``terms`` other rules
add), penalized items at ``fused * (1 - penalty)``, best first; with penalty 1 they score 0 and
are sunk after every other item, in the order of their fused scores. Ties keep first-appearance order (a stable sort), exactly as
Graphiti's ``rrf``."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from graph_trust.search.fusion import order
from graph_trust.search.rules.base import RankState, RuleParams
from graph_trust.search.rules.negative_evidence import final_scores


def order_sunk(final: np.ndarray, sunk: np.ndarray) -> np.ndarray:
    """Indices best-first, the sunk ones after the others; ties keep pool order (stable)."""
    idx = order(final)
    if not sunk.any():
        return idx
    return np.concatenate([idx[~sunk[idx]], idx[sunk[idx]]])


def apply(state: RankState, params: RuleParams) -> RankState:
    fused = state.pool.fused
    boosts = np.zeros(len(fused)) if state.boosts is None else state.boosts
    terms = boosts if state.relation is None else boosts + state.relation
    for term in state.terms:  # what rules beyond these add
        terms = terms + term
    final, sunk = final_scores(fused, terms, state.penalized, params.negative_policy)
    idx = order_sunk(np.where(sunk, fused, final), sunk)  # sunk: 0 each, in their own order
    return replace(state, final=final, sunk=sunk, order=idx, scored=final)
