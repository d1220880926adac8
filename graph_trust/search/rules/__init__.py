"""The ranking rules, one module each, and the one place that says in which order they run.

Each rule is ``apply(state, params) -> state`` over one candidate pool's arrays
(:mod:`~graph_trust.search.rules.base`); a rule whose settings turn it off returns the state
unchanged. Adding a rule is one module and one line in :data:`ORDER`.
"""

from __future__ import annotations

from graph_trust.search.rules import (
    competitors,
    duplicates,
    negative_evidence,
    placement,
    relation_bonus,
    sort,
    trust_boost,
)
from graph_trust.search.rules.base import RankState, Rule, RuleParams

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


def run(state: RankState, params: RuleParams) -> RankState:
    """Every rule of :data:`ORDER` in turn."""
    for rule in ORDER.values():
        state = rule(state, params)
    return state


__all__ = ["ORDER", "RankState", "Rule", "RuleParams", "run"]
