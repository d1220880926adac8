"""The trust boost: ``trust_score * trust_weight`` added to each item's fused score (the additive
form, ``rrf + trust_score * trust_weight``), times the item's relevance ``support`` in the
``supported`` form. Absent trust, trust below ``min_boost_trust``, items with negative evidence
and ineligible ones (past ``invalid_at``/``expired_at`` unless ``boost_expired``) get 0."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from graph_trust.search.fusion import support
from graph_trust.search.rules.base import RankState, RuleParams, reads


def boost_amounts(trust: np.ndarray, weight: float, eligible: np.ndarray | None = None,
                  scale: np.ndarray | None = None, min_trust: float = 0.0) -> np.ndarray:
    """``trust * weight`` (times ``scale`` when given: the supported form); absent trust (NaN),
    trust below ``min_trust`` and ineligible items get 0."""
    t = np.nan_to_num(trust, nan=0.0)
    t = np.where(t >= min_trust, t, 0.0)  # at min_trust 0 too: a negative trust never lowers a score
    if eligible is not None:
        t = np.where(eligible, t, 0.0)
    out = t * weight
    return out if scale is None else out * scale


def boost(fused: np.ndarray, trust: np.ndarray, weight: float, eligible: np.ndarray | None = None) -> np.ndarray:
    """``final = fused + trust * weight``; absent trust (NaN) and ineligible items get 0."""
    return fused + boost_amounts(trust, weight, eligible)


@reads("eligible", "neg")
def apply(state: RankState, params: RuleParams) -> RankState:
    scale = support(state.pool) if params.form == "supported" else None
    boosts = boost_amounts(state.trust, params.weight, state.boostable, scale, params.min_boost_trust)
    return replace(state, boosts=boosts)
