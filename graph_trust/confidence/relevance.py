"""Context relevance: how well a fact fits the asking agent's task.

Weighted over the parts of the context that are given: project 0.3 (same 1.0, related 0.6),
team 0.25 (same 1.0, shared with 0.8), category 0.2 (same 1.0, related 0.5), target systems
0.15 (overlap share), task similarity 0.1 (a similarity in [0, 1] the caller computed).
Normalized by the weights used; no context gives the neutral 0.5.
"""

from __future__ import annotations

from dataclasses import dataclass, field

NEUTRAL = 0.5


@dataclass(frozen=True)
class Context:
    project: str | None = None
    related_projects: frozenset[str] = frozenset()
    team: str | None = None
    category: str | None = None
    related_categories: frozenset[str] = frozenset()
    target_systems: frozenset[str] = frozenset()
    task_similarity: float | None = None


@dataclass(frozen=True)
class FactScope:
    project: str | None = None
    team: str | None = None
    shared_with: frozenset[str] = field(default_factory=frozenset)
    category: str | None = None
    systems: frozenset[str] = field(default_factory=frozenset)


def relevance(fact: FactScope, ctx: Context | None) -> float:
    """The weighted match of ``fact`` to ``ctx``, in [0, 1]."""
    if ctx is None:
        return NEUTRAL
    score = used = 0.0
    if ctx.project:
        used += 0.3
        score += 0.3 * (1.0 if fact.project == ctx.project else 0.6 if fact.project in ctx.related_projects else 0.0)
    if ctx.team:
        used += 0.25
        score += 0.25 * (1.0 if fact.team == ctx.team else 0.8 if ctx.team in fact.shared_with else 0.0)
    if ctx.category:
        used += 0.2
        score += 0.2 * (1.0 if fact.category == ctx.category else
                        0.5 if fact.category in ctx.related_categories else 0.0)
    if ctx.target_systems:
        used += 0.15
        score += 0.15 * min(1.0, len(fact.systems & ctx.target_systems) / len(ctx.target_systems))
    if ctx.task_similarity is not None:
        if not 0.0 <= ctx.task_similarity <= 1.0:
            raise ValueError(f"task_similarity must be in [0, 1], got {ctx.task_similarity}")
        used += 0.1
        score += 0.1 * ctx.task_similarity
    return score / used if used else NEUTRAL
