"""Contradiction resolution: strategies in a fixed order; the first that decides wins.

1. ``temporal``: created more than ``temporal_days`` (30) apart: the newer fact wins.
2. ``source_credibility``: source scores more than ``credibility_gap`` (0.3) apart: the higher wins.
3. ``consensus``: one side asserted by more than ``consensus_margin`` (2) more agents wins
   (checked both ways: either side may be the better supported).
4. ``system_verification``: a pluggable hook ``hook(a_id, b_id) -> winner id | None``
   (``confidence.system_verification_hook``); None means inconclusive.
5. ``agent_review``: none decided; flagged for review (no winner, no loser).

The loser takes the contradiction factor's loss penalty (0.3).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from graph_trust.errors import ConfigError

STRATEGIES = ("temporal", "source_credibility", "consensus", "system_verification", "agent_review")
_EPS = 1e-9  # 0.8 - 0.5 is a gap of 0.3, not 0.30000000000000004
SystemVerifier = Callable[[str, str], "str | None"]


@dataclass(frozen=True)
class Claim:
    """One side of a contradiction."""

    id: str
    created_at: datetime
    source: float  # source credibility factor
    agents: int  # distinct agents asserting this side


@dataclass(frozen=True)
class Resolution:
    strategy: str
    reason: str
    winner: str | None = None
    loser: str | None = None

    @property
    def resolved(self) -> bool:
        return self.winner is not None


def resolve(a: Claim, b: Claim, *, temporal_days: float = 30.0, credibility_gap: float = 0.3,
            consensus_margin: int = 2, system_verify: SystemVerifier | None = None) -> Resolution:
    """Resolve ``a`` against ``b`` (see the module docstring for the order)."""
    days = abs((a.created_at - b.created_at).total_seconds()) / 86400
    if days > temporal_days + _EPS:
        w, lo = (a, b) if a.created_at > b.created_at else (b, a)
        return Resolution("temporal", f"newer information ({w.created_at.isoformat()}) supersedes older "
                                      f"({days:.0f} days apart)", w.id, lo.id)
    if abs(a.source - b.source) > credibility_gap + _EPS:
        w, lo = (a, b) if a.source > b.source else (b, a)
        return Resolution("source_credibility", f"higher credibility source ({w.source:.2f} vs {lo.source:.2f})",
                          w.id, lo.id)
    for w, lo in ((a, b), (b, a)):
        if w.agents > lo.agents + consensus_margin:
            return Resolution("consensus", f"{w.agents} agents agree vs {lo.agents}", w.id, lo.id)
    if system_verify is not None:
        winner = system_verify(a.id, b.id)
        if winner is not None:
            if winner not in (a.id, b.id):
                raise ValueError(f"system verification hook returned {winner!r}, neither {a.id!r} nor {b.id!r}")
            return Resolution("system_verification", "automated verification determined ground truth",
                              winner, b.id if winner == a.id else a.id)
    return Resolution("agent_review", "unable to auto-resolve: requires agent judgment")


def load_hook(spec: str | None) -> SystemVerifier | None:
    """Import ``module:callable`` (the ``confidence.system_verification_hook`` setting)."""
    if not spec:
        return None
    mod, _, attr = spec.partition(":")
    if not mod or not attr or ":" in attr:
        raise ConfigError(f"config key confidence.system_verification_hook: {spec!r} is not module:callable")
    try:
        fn = getattr(importlib.import_module(mod), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(f"config key confidence.system_verification_hook: cannot load {spec!r} ({exc})") from None
    if not callable(fn):
        raise ConfigError(f"config key confidence.system_verification_hook: {spec!r} is not callable")
    return fn
