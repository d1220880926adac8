"""Source credibility: who asserted a fact and how.

``source = 0.5 * agent + 0.3 * role + 0.2 * source_type``. The agent part is the agent's track
record in the fact's category, shrunk toward its expertise level while it
has fewer than ``PRIOR_SAMPLES`` verified facts: a new agent starts at its expertise (``unknown``
0.3), not at 0, and earns or loses trust as verifications arrive: so both track record and
expertise enter the one agent term.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

EXPERTISE_LEVELS: dict[str, float] = {
    "expert": 1.0,
    "experienced": 0.8,
    "intermediate": 0.6,
    "novice": 0.4,
    "unknown": 0.3,
}
ROLE_TRUST_WEIGHTS: dict[str, float] = {
    "owner": 0.95,
    "admin": 0.90,
    "member": 0.75,
    "readonly": 0.60,
    "guest": 0.50,
    "orchestrator": 0.90,
    "elasticsearch_specialist": 0.95,
    "database_admin": 0.95,
    "developer": 0.80,
    "monitor": 0.85,
}
SOURCE_TYPE_WEIGHTS: dict[str, float] = {
    "automated_metric": 1.0,
    "verified_fact": 0.95,
    "expert_analysis": 0.85,
    "observation": 0.70,
    "hypothesis": 0.40,
    "speculation": 0.20,
    "rumor": 0.10,
}
DEFAULT_ROLE = 0.7
DEFAULT_SOURCE_TYPE = 0.5
PRIOR_SAMPLES = 10
AGENT_W, ROLE_W, SOURCE_W = 0.5, 0.3, 0.2


@dataclass(frozen=True)
class TrackRecord:
    """An agent's history in one category (counts from the review DB's records)."""

    verified_correct: int = 0
    total_verified: int = 0
    contributions: int = 0
    corrections_issued: int = 0
    days_active: float = 0.0
    expertise: str | None = None


def track_record_score(r: TrackRecord) -> float:
    """An agent's track record: accuracy 0.6, experience 0.3, tenure 0.1, minus 0.05 per
    correction issued, clipped to [0, 1]."""
    success = r.verified_correct / max(1, r.total_verified)
    experience = min(1.0, r.contributions / 100)
    tenure = min(0.2, r.days_active / 365 * 0.2)
    return float(min(1.0, max(0.0, success * 0.6 + experience * 0.3 + tenure * 0.1 - r.corrections_issued * 0.05)))


def expertise_score(level: str | None) -> float:
    """The expertise table's value (``unknown`` for none or an unknown level)."""
    return EXPERTISE_LEVELS.get((level or "unknown").lower(), EXPERTISE_LEVELS["unknown"])


def agent_credibility(r: TrackRecord) -> float:
    """Track record shrunk toward expertise below ``PRIOR_SAMPLES`` verified facts."""
    w = min(1.0, r.total_verified / PRIOR_SAMPLES)
    return w * track_record_score(r) + (1 - w) * expertise_score(r.expertise)


def role_weight(role: str | None) -> float:
    return ROLE_TRUST_WEIGHTS.get((role or "").lower(), DEFAULT_ROLE)


def source_type_weight(source_type: str | None) -> float:
    return SOURCE_TYPE_WEIGHTS.get((source_type or "").lower(), DEFAULT_SOURCE_TYPE)


def source_score(agent: float, role: str | None = None, source_type: str | None = None) -> float:
    """``0.5 * agent + 0.3 * role + 0.2 * source_type``, clipped to [0, 1]."""
    return float(source_many(np.float64(agent), np.float64(role_weight(role)),
                             np.float64(source_type_weight(source_type))))


def source_many(agent: np.ndarray, role: np.ndarray, source_type: np.ndarray) -> np.ndarray:
    """Vectorized :func:`source_score` over weights already looked up."""
    return np.clip(AGENT_W * agent + ROLE_W * role + SOURCE_W * source_type, 0.0, 1.0)
