"""Negative evidence: items with a rejected or expired review status, or an ``invalid_at``/
``expired_at`` in the past, get no boost (see :mod:`trust_boost`) and keep ``1 - penalty`` of
their fused score; penalty 1 sinks them below every other item (their own order kept), ``drop``
leaves them out. With ``lone_places`` set the penalty applies only where the evidence decides
between values: to items with a competitor without negative evidence in the pool, and to
superseded ones (the graph holds a newer value); the others (and duplicates) are *placed*
instead (:mod:`placement`). This rule decides which items are penalized and which are placed;
the ``sort`` rule applies the penalty."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from graph_trust.search.rules.base import NegativePolicy, RankState, RuleParams, has_competitor, reads, superseded


@reads("negative", "neg", "groups")
def apply(state: RankState, params: RuleParams) -> RankState:
    neg, policy = state.neg, params.negative_policy
    if neg is None:
        return state
    if policy.lone_places is None:
        return replace(state, penalized=neg, placed=None)
    if policy.competed != "penalty":
        return replace(state, penalized=None, placed=neg)
    competed = neg & (superseded(state, policy) | has_competitor(neg, state.groups))
    penalized = competed if state.duplicate is None else competed & ~state.duplicate
    return replace(state, penalized=penalized, placed=neg & ~penalized)


def final_scores(fused: np.ndarray, boosts: np.ndarray, negative: np.ndarray | None,
                 policy: NegativePolicy) -> tuple[np.ndarray, np.ndarray]:
    """``(final, sunk)``: boosted scores, negative items at ``fused * (1 - penalty)`` (no boost);
    ``sunk`` marks the items ordered after all others (penalty 1, which leaves them 0)."""
    final = fused + boosts
    sunk = np.zeros(len(fused), dtype=bool)
    if negative is not None and negative.any() and policy.penalty > 0.0:
        final = np.where(negative, fused * (1.0 - policy.penalty), final)
        if policy.penalty >= 1.0:
            sunk = negative.copy()
    return final, sunk
