"""Duplicates yield: a rejected or expired fact that a competitor without negative evidence
states word for word (same subject, relation and target: its statement key) is not penalized;
the placement rule puts it right below its competitors, and it keeps its share of the relation
bonus (it gets no trust boost). Reviewers reject duplicates, and a noisy review rejects a
correct paraphrase; the evidence holds its statement. On only with the competitor-aware
negative rule (``negative_lone_places``) and ``negative_competed: penalty``."""

from __future__ import annotations

from dataclasses import replace

from graph_trust.search.rules.base import RankState, RuleParams, has_competitor, reads, superseded


@reads("negative", "neg", "twins")
def apply(state: RankState, params: RuleParams) -> RankState:
    policy = params.negative_policy
    if state.neg is None or policy.lone_places is None or policy.competed != "penalty":
        return state
    duplicate = state.neg & ~superseded(state, policy) & has_competitor(state.neg, state.twins)
    return replace(state, duplicate=duplicate)
