"""The ranking rules, one module each, and the one place that says in which order they run.

Each rule is ``apply(state, params) -> state`` over one candidate pool's arrays
(:mod:`~graph_trust.search.rules.base`), declaring the pool facts it reads (``@reads``); a rule
whose settings turn it off returns the state unchanged. Adding a rule is one module and one line
in :data:`ORDER`: :func:`start` computes the facts every rule of :data:`ORDER` reads, and
:func:`run` runs them in turn.
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from graph_trust.search.fusion import FusedPool
from graph_trust.search.pool_facts import PoolFacts
from graph_trust.search.rules import (
    competitors,
    duplicates,
    negative_evidence,
    placement,
    relation_bonus,
    sort,
    trust_boost,
)
from graph_trust.search.rules.base import RankState, Rule, RuleParams, declared

# name -> rule, in the order they run: score terms, how negative evidence is treated, the order by
# score, then the rules that move items within it.
ORDER: dict[str, Rule] = {
    "trust_boost": trust_boost.apply,
    "duplicates": duplicates.apply,
    "negative_evidence": negative_evidence.apply,
    "relation_bonus": relation_bonus.apply,
    "sort": sort.apply,
    "competitors": competitors.apply,
    "placement": placement.apply,
}


# the pool facts a RankState carries as inputs (the others a rule reads from ``state.facts``)
_STATE_INPUTS = frozenset(f.name for f in fields(RankState))


def start(pool: FusedPool, trust: np.ndarray, facts: PoolFacts) -> RankState:
    """The state the rules begin from: ``pool``, its ``trust``, and each fact a rule of
    :data:`ORDER` declared it reads (computed here, once; the others never are)."""
    wanted = dict.fromkeys(name for rule in ORDER.values() for name in declared(rule))
    computed = {name: facts.get(name) for name in wanted}
    return RankState(pool, trust, facts=facts, **{k: v for k, v in computed.items() if k in _STATE_INPUTS})


def run(state: RankState, params: RuleParams) -> RankState:
    """Every rule of :data:`ORDER` in turn."""
    for rule in ORDER.values():
        state = rule(state, params)
    return state


__all__ = ["ORDER", "RankState", "Rule", "RuleParams", "run", "start"]
