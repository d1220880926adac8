"""The factor matrix of many facts at once: each factor's numpy form over aligned arrays.

This is the set-wise entry point (sync, ``stale``, learning): a caller gathers the raw inputs
of n facts into :class:`FactorInputs` (``graph_trust.sync.confidence.store.gather`` does it
from the review DB) and gets an (n, 7) matrix in ``composite.FACTORS`` order; one fact is the
case n = 1, so the operator commands and sync share this path.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

from graph_trust.confidence import consensus, contradiction, credibility, freshness, success, verification
from graph_trust.confidence.composite import FACTORS


@dataclass
class FactorInputs:
    """Raw inputs, one array entry per fact (all arrays the same length)."""

    age_days: np.ndarray  # days since creation or the last confirming verification
    half_life: np.ndarray  # the fact's category half-life, days
    agent: np.ndarray  # author's credibility (credibility.agent_credibility)
    role: np.ndarray  # role weight
    source_type: np.ndarray  # source-type weight
    level: np.ndarray  # verification level code (verification.LEVEL_CODES)
    verifiers: np.ndarray  # confirming verifiers
    agents: np.ndarray  # distinct agents asserting the same fact (author included)
    specializations: np.ndarray  # distinct roles among them
    independent: np.ndarray  # bool: they cite different evidence
    agree: np.ndarray  # summed agree vote weights (confidence x voter credibility)
    disagree: np.ndarray
    losses: np.ndarray  # contradictions lost
    unresolved: np.ndarray  # summed severity scores of unresolved contradictions
    successes: np.ndarray  # uses in the window
    partials: np.ndarray
    uses: np.ndarray
    context: np.ndarray = field(default_factory=lambda: np.empty(0))  # relevance; empty: neutral 0.5

    def __len__(self) -> int:
        return len(self.age_days)

    def select(self, mask: np.ndarray) -> FactorInputs:
        """The facts where ``mask`` is true (or at the given indices)."""
        return FactorInputs(**{f.name: (getattr(self, f.name)[mask] if len(getattr(self, f.name)) else
                                        getattr(self, f.name)) for f in fields(self)})


def factor_matrix(x: FactorInputs, *, decay: str = "half_life", decay_rate: float = 0.01,
                  max_age_days: float = 365.0, min_samples: int = success.MIN_SAMPLES) -> np.ndarray:
    """(n, 7) factor scores in ``FACTORS`` order."""
    n = len(x)
    ctx = x.context if len(x.context) else np.full(n, 0.5)
    cols = {
        "freshness": freshness.freshness_many(x.age_days, x.half_life, model=decay, rate=decay_rate,
                                              max_age_days=max_age_days),
        "source": credibility.source_many(x.agent, x.role, x.source_type),
        "verification": verification.verification_many(x.level.astype(int), x.verifiers),
        "consensus": consensus.consensus_many(
            np.asarray(consensus.cluster_score(x.agents, x.specializations, x.independent), dtype=float).reshape(n),
            x.agree, x.disagree),
        "contradiction": contradiction.penalty_many(x.losses, x.unresolved),
        "success": success.success_many(x.successes, x.partials, x.uses, min_samples),
        "context": np.clip(ctx, 0.0, 1.0),
    }
    return np.column_stack([np.asarray(cols[f], dtype=float).reshape(n) for f in FACTORS])
