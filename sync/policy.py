"""Promotion policy: review status -> trust tier, and which candidate wins an edge.

Tiers come from ``settings.sync.tiers`` (status -> score, or None for "no trust properties").
Defaults: promoted 1.0, corroborated 0.6, candidate 0.25, rejected and expired 0.0: a rejected or
expired edge carries ``trust_score`` 0 and its ``trust_status``, negative evidence search can
demote (None would remove every trust property, so search could not tell it from an unreviewed
edge; its labels stay).

When several candidates point at one edge, **the highest tier wins**: the edge gets the
largest score among its candidates, and its ``trust_status`` is that candidate's status.
Rejected and expired (0.0) rank below every positive tier, so they mark an edge only when no
other candidate on it carries a higher score; statuses configured with no score rank below every
scored status, and an edge none of whose candidates carries a score is *labels only*: no trust
property, no memory_type, its labels as below (nothing at all when no row labels it). Ties (two statuses configured with
the same score) break by status name, then by candidate id, so the result is deterministic.
A status not in the tiers is unknown and its candidate is quarantined. The edge's
``sensitivity`` and ``scope`` are not the winner's: they are the strictest of all its rows
(:mod:`graph_trust.sync.labels`).
"""

from __future__ import annotations

from dataclasses import dataclass

from graph_trust.access.sensitivity import DEFAULT_SCALE, SensitivityScale, scale_of


@dataclass(frozen=True)
class Policy:
    tiers: dict[str, float | None]
    scale: SensitivityScale = DEFAULT_SCALE  # access.levels/labels: which row label is strictest (sync.labels)

    def knows(self, status: object) -> bool:
        return isinstance(status, str) and status in self.tiers

    def score(self, status: str) -> float | None:
        return self.tiers[status]

    def rank_key(self, status: str, candidate_id: str) -> tuple:
        """Sort key: the smallest key wins (highest score, then status name, then id)."""
        s = self.tiers.get(status)
        return (0 if s is not None else 1, -(s or 0.0), status, candidate_id)

    def winner(self, candidates: list[tuple[str, str]]) -> tuple[str, str] | None:
        """``(status, candidate id)`` that wins among ``candidates``, or None for none."""
        return min(candidates, key=lambda c: self.rank_key(c[0], c[1]), default=None)


def policy_of(settings) -> Policy:
    return Policy(dict(settings.sync.tiers), scale_of(settings))
