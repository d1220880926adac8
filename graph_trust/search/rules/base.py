"""What every ranking rule takes and returns: the state of one candidate pool on its way from
fused scores to an order, and the parameters the settings give the rules.

A rule is ``apply(state, params) -> state``: a pure function over the pool's arrays (numpy,
one entry per candidate in first-appearance order, Graphiti's tie order). It returns a new
state and never mutates the one it was given, so each rule can be tested alone and the order
they run in (:data:`graph_trust.search.rules.ORDER`) is the only place that ties them together.
A rule declares the pool facts it reads (:func:`reads`, :class:`graph_trust.search.pool_facts.PoolFacts`):
the pipeline computes those, and only those, from the pool's items and the settings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from graph_trust.config import RankingSettings
from graph_trust.search.fusion import FusedPool
from graph_trust.search.pool_facts import FACTS, PoolFacts

BoostForm = Literal["additive", "supported"]
RelationMode = Literal["best", "sum"]
BOOST_FORMS: tuple[str, ...] = ("additive", "supported")
# negative reasons that say the graph holds a newer value of the fact's slot (Graphiti set
# invalid_at/expired_at when a contradicting fact arrived): competed even with no competitor in the pool
SUPERSEDED = frozenset({"invalidated"})


@dataclass(frozen=True, slots=True)
class NegativePolicy:
    """What negative evidence does: keep ``1 - penalty`` of the fused score (1: sink below every
    other item), or ``drop`` the item.

    ``lone_places`` (None: off) turns on the competitor-aware rule: the penalty then applies
    only to items with a competitor in the pool (a member of their group without negative
    evidence), and an item with none moves down at most that many places instead
    (:mod:`~graph_trust.search.rules.placement`). ``competed`` ``"yield"`` places a competed item
    right below its lowest competitor rather than applying the penalty."""

    penalty: float = 1.0
    drop: bool = False
    lone_places: int | None = None
    competed: Literal["penalty", "yield"] = "penalty"
    superseded: frozenset[str] = SUPERSEDED


@dataclass(frozen=True, slots=True)
class RuleParams:
    """The rules' settings for one ranking (from ``search:`` or a recipe)."""

    weight: float = 0.0
    form: BoostForm = "additive"
    min_boost_trust: float = 0.0
    negative_policy: NegativePolicy = field(default_factory=NegativePolicy)
    reorder: bool = True
    relation_weight: float = 0.0
    relation_cap: float | None = None
    relation_mode: RelationMode = "sum"
    relation_window: int | None = None  # only items this high by fused score get the bonus (None: all)
    min_score: float = 0.0  # items fused below it are left out

    @classmethod
    def of(cls, settings: RankingSettings, *, weight: float, shown: int | None = None,
           min_score: float = 0.0) -> RuleParams:
        """The rules' parameters from the ranking settings (the one place they are translated):
        ``weight`` the trust weight the search resolved (a call's, the recipe's or the
        environment's), ``shown`` how many results it returns (the relation bonus's window under
        ``relation_scope: limit``), ``min_score`` the reranker's minimum fused score."""
        s = settings
        return cls(weight=weight, form=s.boost_form, min_boost_trust=s.min_boost_trust,
                   negative_policy=NegativePolicy(s.negative_penalty, s.drop_negative, s.negative_lone_places,
                                                  s.negative_competed, frozenset(s.negative_superseded)),
                   reorder=s.competitors != "none", relation_weight=s.relation_weight, relation_cap=s.relation_cap,
                   relation_mode=s.relation_mode, relation_window=shown if s.relation_scope == "limit" else None,
                   min_score=min_score)


@dataclass(frozen=True, slots=True)
class RankState:
    """One pool on its way to an order. Inputs (never changed by a rule): the fused ``pool``,
    ``trust`` (NaN: none), the boost eligibility ``eligible`` (None: all), per item the
    ``negative`` reason (None: none) and its mask ``neg`` (None when no item has one), the
    competitor keys ``groups``, the statement keys ``twins`` and the ``stamps`` (seconds) the
    competitor rule orders by. What rules add: ``boosts`` and ``relation`` (score terms),
    ``duplicate``/``penalized``/``placed`` (how negative evidence is treated), and, once the
    ``sort`` rule ran, ``final``, ``sunk`` and ``order`` (pool indices, best first). ``facts``
    holds the pool's items and settings for a rule that reads more than the inputs above;
    ``terms`` are score terms such a rule adds (the ``sort`` rule sums them with the others).

    Scores follow the order: a rule that moves items also gives each the score of the place it
    takes, so ``final`` never increases down ``order``; ``scored`` keeps what each item scored
    when the ``sort`` rule ordered the pool, and ``moved`` names the rule that moved it (None:
    none did)."""

    pool: FusedPool
    trust: np.ndarray
    eligible: np.ndarray | None = None
    negative: Sequence[str | None] | None = None
    neg: np.ndarray | None = None
    groups: Sequence[Any] | None = None
    twins: Sequence[Any] | None = None
    stamps: np.ndarray | None = None
    boosts: np.ndarray | None = None
    relation: np.ndarray | None = None
    duplicate: np.ndarray | None = None
    penalized: np.ndarray | None = None
    placed: np.ndarray | None = None
    final: np.ndarray | None = None
    sunk: np.ndarray | None = None
    order: np.ndarray | None = None
    scored: np.ndarray | None = None
    moved: tuple[str | None, ...] | None = None
    facts: PoolFacts | None = None
    terms: tuple[np.ndarray, ...] = ()

    def moved_by(self, rule: str, items: np.ndarray, final: np.ndarray) -> tuple[str | None, ...]:
        """``moved`` with the pool ``items`` (indices) marked as moved by ``rule``."""
        out = list(self.moved or (None,) * len(final))
        for i in items.tolist():
            out[i] = rule
        return tuple(out)

    @property
    def boostable(self) -> np.ndarray | None:
        """Items a trust boost (or the relation bonus) may lift: eligible, without negative evidence."""
        if self.neg is None:
            return self.eligible
        return ~self.neg if self.eligible is None else self.eligible & ~self.neg


Rule = Callable[[RankState, RuleParams], RankState]


def reads(*facts: str) -> Callable[[Rule], Rule]:
    """Declare the pool facts (:data:`graph_trust.search.pool_facts.FACTS`) the decorated rule
    reads; the pipeline computes them before the rules run (:func:`graph_trust.search.rules.start`)."""
    unknown = set(facts) - set(FACTS)
    if unknown:
        raise ValueError(f"unknown pool facts {sorted(unknown)} (known: {', '.join(FACTS)})")

    def mark(rule: Rule) -> Rule:
        rule.reads = facts  # type: ignore[attr-defined]
        return rule

    return mark


def declared(rule: Rule) -> tuple[str, ...]:
    """The pool facts ``rule`` declared it reads (:func:`reads`; none when undeclared)."""
    return tuple(getattr(rule, "reads", ()))


def group_ids(groups: Sequence[Any]) -> np.ndarray:
    """Dense ids of the competitor keys (-1: None)."""
    ids: dict[Any, int] = {}
    return np.fromiter((-1 if k is None else ids.setdefault(k, len(ids)) for k in groups), dtype=np.int64,
                       count=len(groups))


def has_competitor(negative: np.ndarray, groups: Sequence[Any] | None) -> np.ndarray:
    """Per item, whether another item of its group (its competitor key) has no negative evidence."""
    n = len(negative)
    if groups is None or n == 0:
        return np.zeros(n, dtype=bool)
    gid = group_ids(groups)
    grouped = gid >= 0
    clean = np.bincount(gid[grouped & ~negative], minlength=int(gid.max()) + 1)  # no group: max -1, empty
    out = np.zeros(n, dtype=bool)
    out[grouped] = clean[gid[grouped]] > np.where(negative[grouped], 0, 1)
    return out


def superseded(state: RankState, policy: NegativePolicy) -> np.ndarray:
    """Items whose negative reason says the graph holds a newer value of their slot."""
    negative = state.negative or ()
    return np.fromiter((r in policy.superseded for r in negative), dtype=bool, count=len(negative))
