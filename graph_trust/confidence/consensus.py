"""Consensus: do other agents assert the same fact, and how do they vote.

Similar facts: candidates with the same subject, predicate and object (case- and
space-insensitive) from distinct agents, the fact's own author included. The
cluster score is ``(min(1, log(agents + 1) / log 10) + min(0.2, 0.05 * specializations)) *
(0.8 if independent else 0.5)``. A lone fact is neutral (0.5). Choice: the cluster score never
falls below that neutral 0.5, because the raw formula gives one agreeing agent (0.28 to 0.46)
less than none, and agreement must not count against a fact.

Votes: ``agree_weight / (agree_weight + disagree_weight + 0.001)`` where each vote weighs its
stated confidence times the voter's credibility. With votes, consensus is the mean
of the cluster score and the vote score; without agree or disagree votes it is the cluster score.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

NEUTRAL = 0.5
VOTES = ("agree", "disagree", "unsure")


def cluster_score(agent_count, specializations, independent=True):
    """Cluster score for ``agent_count`` distinct agents (the author included); scalar or array."""
    agents = np.asarray(agent_count, dtype=float)
    spec = np.asarray(specializations, dtype=float)
    raw = (np.minimum(1.0, np.log(agents + 1) / math.log(10)) + np.minimum(0.2, spec * 0.05)) * \
        np.where(np.asarray(independent, dtype=bool), 0.8, 0.5)
    out = np.where(agents <= 1, NEUTRAL, np.clip(np.maximum(raw, NEUTRAL), 0.0, 1.0))
    return float(out) if np.ndim(agent_count) == 0 else out


def vote_score(votes: Iterable[tuple[str, float, float]]) -> float | None:
    """Credibility-weighted agreement from ``(vote, confidence, voter_credibility)``; None
    without agree or disagree votes."""
    agree = disagree = 0.0
    for vote, conf, cred in votes:
        if vote == "agree":
            agree += conf * cred
        elif vote == "disagree":
            disagree += conf * cred
    if agree == 0.0 and disagree == 0.0:
        return None
    return agree / (agree + disagree + 0.001)


def consensus_many(cluster: np.ndarray, agree_w: np.ndarray, disagree_w: np.ndarray) -> np.ndarray:
    """Vectorized consensus from cluster scores and summed agree/disagree vote weights."""
    voted = (agree_w + disagree_w) > 0
    votes = agree_w / (agree_w + disagree_w + 0.001)
    return np.clip(np.where(voted, (cluster + votes) / 2, cluster), 0.0, 1.0)


def consensus(cluster: float, votes: float | None) -> float:
    """Cluster score, averaged with the vote score when there are votes."""
    return cluster if votes is None else float(min(1.0, max(0.0, (cluster + votes) / 2)))
