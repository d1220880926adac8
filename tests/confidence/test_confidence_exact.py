"""The confidence factors pinned exactly: decisions and their texts at the thresholds, levels at
their bounds, consensus clusters and votes, penalties, success rates, resolution's strategies
and reasons, credibility, freshness, relevance and verification at their boundaries."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from graph_trust.confidence import composite as comp
from graph_trust.confidence import consensus as cons
from graph_trust.confidence import contradiction as contra
from graph_trust.confidence import credibility as cred
from graph_trust.confidence import freshness as fr
from graph_trust.confidence import relevance as rel
from graph_trust.confidence import resolution as res
from graph_trust.confidence import success as succ
from graph_trust.confidence import verification as ver
from graph_trust.errors import ConfigError

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def test_decide_at_and_around_each_threshold():
    d = comp.decide(0.75, "high")
    assert d == comp.Decision("high", 0.75, True, "proceed with the action", None,
                              "confidence 0.75 meets threshold 0.75 for a high risk action")
    assert comp.decide(0.7499999999999, "high").should_act  # printed 0.75 counts as 0.75
    v = comp.decide(0.65, "high")
    assert v == comp.Decision("high", 0.75, False, "verify the information before acting", "verify-fact",
                              "confidence 0.65 slightly below threshold 0.75")
    f = comp.decide(0.6499, "high")
    assert f == comp.Decision("high", 0.75, False, "find more reliable information or verify this one",
                              "search-alternatives", "confidence 0.65 too low for a high risk action (threshold 0.75)")
    assert f.to_dict()["suggested_action"] == "search-alternatives" and d.to_dict()["should_act"] is True
    custom = comp.decide(0.5, "x", thresholds={"x": 0.5}, margin=0.2)
    assert custom.should_act and comp.decide(0.31, "x", {"x": 0.5}, 0.2).suggested_action == "verify-fact"
    assert comp.decide(0.29, "x", {"x": 0.5}, 0.2).suggested_action == "search-alternatives"
    with pytest.raises(ValueError, match=r"^unknown risk 'huge' \(known: low, medium, high, critical\)$"):
        comp.decide(0.5, "huge")
    with pytest.raises(ValueError, match=r"^unknown risk 'low' \(known: x, y\)$"):
        comp.decide(0.5, "low", thresholds={"x": 0.5, "y": 0.6})


def test_level_codes_at_the_bounds():
    scores = np.array([0.85, 0.8499999999999, 0.8499, 0.70, 0.55, 0.40, 0.3999, 0.0, 1.0])
    assert comp.level_codes(scores).tolist() == [0, 0, 1, 1, 2, 3, 4, 4, 0]
    assert [comp.level_of(s)[0] for s in scores] == [comp.LEVELS[c][0] for c in comp.level_codes(scores)]
    assert comp.level_of(-1.0) == ("very_low", "very low confidence: likely outdated or incorrect")


def test_confidence_to_dict_rounds():
    c = comp.composite({f: 1 / 3 for f in comp.FACTORS})
    d = c.to_dict()
    assert d == {"score": round(1 / 3, 6), "level": "very_low", "description": comp.LEVELS[-1][2],
                 "factors": {f: 0.333333 for f in comp.FACTORS}, "weights": comp.DEFAULT_WEIGHTS}
    with pytest.raises(ValueError, match=r"^factor context must be in \[0, 1\], got 1.5$"):
        comp.composite({**{f: 0.5 for f in comp.FACTORS}, "context": 1.5})


def test_check_weights_messages():
    with pytest.raises(ValueError, match=r"; missing context; unknown ctx$"):
        comp.check_weights({**{f: 0.1 for f in comp.FACTORS[:-1]}, "ctx": 0.4})
    with pytest.raises(ValueError, match=r"^each weight must be in \[0, 1\]$"):
        comp.check_weights({**comp.DEFAULT_WEIGHTS, "context": -0.1, "success": 0.3})
    with pytest.raises(ValueError, match=r"^weights must sum to 1 \+/- 0.01, got 1.020$"):
        comp.check_weights({**comp.DEFAULT_WEIGHTS, "context": 0.12})
    assert comp.check_weights({**comp.DEFAULT_WEIGHTS, "context": 0.109})["context"] == 0.109
    assert comp.composite_many(np.ones((2, 7))).tolist() == pytest.approx([1.0, 1.0])


def test_cluster_score_exactly():
    # 9 agents: log10(10) = 1; 4 specializations: +0.2 (capped); independent x0.8
    assert cons.cluster_score(9, 4, True) == pytest.approx(0.96)
    assert cons.cluster_score(9, 10, False) == pytest.approx(0.6)  # 1.2 x 0.5; the 0.2 cap holds
    assert cons.cluster_score(99, 0, True) == pytest.approx(0.8)  # log part capped at 1
    assert cons.cluster_score(1, 4, True) == 0.5 and cons.cluster_score(0, 0) == 0.5  # a lone fact is neutral
    assert cons.cluster_score(2, 0, False) == 0.5  # the raw 0.24 never goes below neutral
    assert cons.cluster_score(3, 1, True) == pytest.approx((math.log10(4) + 0.05) * 0.8)
    many = cons.cluster_score(np.array([1, 9, 99]), np.array([0, 4, 20]), np.array([1, 0, 1]))
    assert isinstance(many, np.ndarray) and many.tolist() == pytest.approx([0.5, 0.6, 0.96])
    assert isinstance(cons.cluster_score(9, 4), float)


def test_votes_and_consensus_exactly():
    assert cons.vote_score([]) is None and cons.vote_score([("unsure", 1.0, 1.0)]) is None
    assert cons.vote_score([("agree", 0.5, 0.8), ("disagree", 1.0, 0.2), ("disagree", 0.5, 0.4)]) == pytest.approx(
        0.4 / (0.4 + 0.4 + 0.001))
    assert cons.vote_score([("agree", 1.0, 1.0)]) == pytest.approx(1 / 1.001)
    assert cons.vote_score([("disagree", 1.0, 1.0)]) == 0.0
    assert cons.consensus(0.7, None) == 0.7 and cons.consensus(0.6, 0.9) == pytest.approx(0.75)
    out = cons.consensus_many(np.array([0.6, 0.6, 0.6, 0.6]), np.array([0.0, 2.0, 0.5, 0.0]),
                              np.array([0.0, 2.0, 0.0, 0.5]))
    assert out.tolist() == pytest.approx([0.6, (0.6 + 2 / 4.001) / 2, (0.6 + 0.5 / 0.501) / 2, 0.3])


def test_penalty_and_success_exactly():
    assert contra.penalty_many(np.array([0, 1, 2, 3, 0]), np.array([0.0, 0.0, 1.0, 0.0, 2 / 3])).tolist() == \
        pytest.approx([1.0, 0.7, 0.3, 0.2, 1 - 0.2 / 3])
    assert contra.penalty_many(np.array([-1]), np.array([0.0])).tolist() == [1.0]
    assert contra.contradiction_score(1, ["low", "high"]) == pytest.approx(1 - 0.3 - 0.1 * (1 / 3 + 1))
    assert succ.success_many(np.array([5, 0, 20, 3]), np.array([2, 0, 0, 0]), np.array([10, 0, 20, 5])).tolist() == \
        pytest.approx([0.6, 0.5, 1.0, 0.6 * 0.5 + 0.5 * 0.5])
    assert succ.success_rate(3, 0, 5) == pytest.approx(0.55) and succ.success_rate(1, 1, 2, min_samples=2) == 0.75
    assert succ.success_rate(0, 2, 2) == pytest.approx(0.5)
    for bad in ((3, 0, 2), (1, 1, 1), (-1, 0, 0), (0, -1, 0), (0, 0, -1)):
        with pytest.raises(ValueError, match=r"^outcome counts must be non-negative and successes \+ partials <= total$"):
            succ.success_rate(*bad)


def _claim(id_, days=0.0, source=0.5, agents=1):
    return res.Claim(id_, T0 + timedelta(days=days), source, agents)


def test_resolution_strategies_reasons_and_boundaries():
    r = res.resolve(_claim("a"), _claim("b", days=30.5))
    assert r == res.Resolution("temporal", f"newer information ({(T0 + timedelta(days=30.5)).isoformat()}) supersedes "
                                           "older (30 days apart)", "b", "a")
    assert res.resolve(_claim("a", days=30.5), _claim("b")).winner == "a"
    assert res.resolve(_claim("a"), _claim("b", days=30)).strategy == "agent_review"  # exactly 30 days: not more
    assert res.resolve(_claim("a"), _claim("b", days=20), temporal_days=10).strategy == "temporal"
    c = res.resolve(_claim("a", source=0.9), _claim("b", source=0.5))
    assert c == res.Resolution("source_credibility", "higher credibility source (0.90 vs 0.50)", "a", "b")
    assert res.resolve(_claim("a", source=0.5), _claim("b", source=0.9)).winner == "b"
    assert res.resolve(_claim("a", source=0.8), _claim("b", source=0.5)).strategy == "agent_review"  # a gap of 0.3
    assert res.resolve(_claim("a", source=0.8), _claim("b", source=0.5), credibility_gap=0.2).winner == "a"
    k = res.resolve(_claim("a", agents=1), _claim("b", agents=4))
    assert k == res.Resolution("consensus", "4 agents agree vs 1", "b", "a")
    assert res.resolve(_claim("a", agents=4), _claim("b", agents=1)).winner == "a"
    assert res.resolve(_claim("a", agents=3), _claim("b", agents=1)).strategy == "agent_review"  # 2 more: not enough
    assert res.resolve(_claim("a", agents=3), _claim("b", agents=1), consensus_margin=1).winner == "a"
    s = res.resolve(_claim("a"), _claim("b"), system_verify=lambda x, y: "a")
    assert s == res.Resolution("system_verification", "automated verification determined ground truth", "a", "b")
    assert res.resolve(_claim("a"), _claim("b"), system_verify=lambda x, y: "b").loser == "a"
    none = res.resolve(_claim("a"), _claim("b"), system_verify=lambda x, y: None)
    assert none == res.Resolution("agent_review", "unable to auto-resolve: requires agent judgment")
    assert not none.resolved and s.resolved
    with pytest.raises(ValueError, match=r"^system verification hook returned 'c', neither 'a' nor 'b'$"):
        res.resolve(_claim("a"), _claim("b"), system_verify=lambda x, y: "c")


def test_load_hook_takes_module_colon_callable():
    assert res.load_hook("") is None and res.load_hook(None) is None
    assert res.load_hook("os.path:join") is __import__("os").path.join
    for bad in ("os.path:join:x", "os.path", "os.path:", ":join", "os.path.join"):
        with pytest.raises(ConfigError, match=rf"^config key confidence.system_verification_hook: '{bad}' is not "
                                              r"module:callable$"):
            res.load_hook(bad)
    with pytest.raises(ConfigError, match=r"cannot load 'json:nosuch' \(module 'json' has no attribute 'nosuch'\)$"):
        res.load_hook("json:nosuch")
    with pytest.raises(Exception, match=r"^config key confidence.system_verification_hook: 'math:pi' is not callable$"):
        res.load_hook("math:pi")


def test_credibility_exactly():
    r = cred.TrackRecord(verified_correct=8, total_verified=10, contributions=50, corrections_issued=1,
                         days_active=365, expertise="Expert")
    assert cred.track_record_score(r) == pytest.approx(0.8 * 0.6 + 0.5 * 0.3 + 0.2 * 0.1 - 0.05)
    assert cred.track_record_score(cred.TrackRecord(contributions=500, days_active=3650)) == pytest.approx(0.3 + 0.02)
    assert cred.track_record_score(cred.TrackRecord(corrections_issued=30)) == 0.0
    assert cred.agent_credibility(r) == pytest.approx(cred.track_record_score(r))
    half = cred.TrackRecord(verified_correct=5, total_verified=5, expertise="novice")
    assert cred.agent_credibility(half) == pytest.approx(0.5 * cred.track_record_score(half) + 0.5 * 0.4)
    assert cred.expertise_score(None) == 0.3 and cred.expertise_score("WIZARD") == 0.3
    assert cred.role_weight("Owner") == 0.95 and cred.role_weight(None) == 0.7 and cred.role_weight("x") == 0.7
    assert cred.source_type_weight("Rumor") == 0.1 and cred.source_type_weight(None) == 0.5
    assert cred.source_score(1.0, "guest", "rumor") == pytest.approx(0.5 + 0.15 + 0.02)
    assert cred.source_score(2.0, "owner", "automated_metric") == 1.0


def test_freshness_exactly():
    assert fr.linear(-5.0) == 1.0 and fr.linear(73.0) == pytest.approx(0.8) and fr.linear(400) == 0.0
    assert fr.linear(30.0, max_age_days=60) == 0.5 and isinstance(fr.linear(1.0), float)
    assert fr.exponential(10.0, rate=0.1) == pytest.approx(math.exp(-1)) and fr.exponential(-3.0) == 1.0
    assert fr.half_life(np.array([0.0, 30.0, 60.0, -1.0]), 30.0).tolist() == [1.0, 0.5, 0.25, 1.0]
    assert fr.half_life_for(" Security ") == 20.0 and fr.half_life_for(None) == 60.0
    assert fr.half_life_for("x", {"x": 5}) == 5.0 and fr.half_life_for("y", {"x": 5}, default=7) == 7.0
    assert fr.age_days(T0, T0 + timedelta(hours=36)) == 1.5 and fr.age_days(T0 + timedelta(days=1), T0) == 0.0
    now = T0 + timedelta(days=40)
    assert fr.freshness(T0, now, "monitoring") == pytest.approx(0.5)
    assert fr.freshness(T0, now, "monitoring", last_verified_at=T0 + timedelta(days=20)) == pytest.approx(0.5 ** 0.5)
    assert fr.freshness(T0 + timedelta(days=10), now, "monitoring", last_verified_at=T0) == pytest.approx(0.5 ** 0.75)
    assert fr.freshness(T0, now, model="linear", max_age_days=80) == pytest.approx(0.5)
    assert fr.freshness(T0, now, model="exponential", rate=0.05) == pytest.approx(math.exp(-2))
    assert fr.freshness(T0, now, "x", half_lives={"x": 20.0}) == pytest.approx(0.25)
    assert fr.freshness(T0, now, "y", half_lives={"x": 20.0}, default_half_life=40.0) == pytest.approx(0.5)
    ages = np.array([0.0, 40.0])
    assert fr.freshness_many(ages, np.array([40.0, 40.0])).tolist() == [1.0, 0.5]
    assert fr.freshness_many(ages, ages, model="linear", max_age_days=80).tolist() == [1.0, 0.5]
    assert fr.freshness_many(ages, ages, model="exponential", rate=0.05).tolist() == pytest.approx([1.0, math.exp(-2)])


def test_relevance_exactly():
    ctx = rel.Context(project="p", related_projects=frozenset({"q"}), team="t", category="c",
                      related_categories=frozenset({"d"}), target_systems=frozenset({"s1", "s2"}), task_similarity=0.5)
    full = rel.FactScope(project="p", team="t", category="c", systems=frozenset({"s1", "s2", "s3"}))
    assert rel.relevance(full, ctx) == pytest.approx((0.3 + 0.25 + 0.2 + 0.15 + 0.05) / 1.0)
    near = rel.FactScope(project="q", team="u", shared_with=frozenset({"t"}), category="d", systems=frozenset({"s1"}))
    assert rel.relevance(near, ctx) == pytest.approx(0.3 * 0.6 + 0.25 * 0.8 + 0.2 * 0.5 + 0.15 * 0.5 + 0.05)
    assert rel.relevance(rel.FactScope(), ctx) == pytest.approx(0.05)
    assert rel.relevance(full, rel.Context(team="t")) == 1.0 and rel.relevance(full, rel.Context()) == 0.5
    assert rel.relevance(full, None) == 0.5
    assert rel.relevance(rel.FactScope(), rel.Context(category="c", task_similarity=1.0)) == pytest.approx(0.1 / 0.3)
    for bad in (-0.1, 1.1):
        with pytest.raises(ValueError, match=r"^task_similarity must be in \[0, 1\], got"):
            rel.relevance(full, rel.Context(task_similarity=bad))


def test_verification_exactly():
    c = ver.LEVEL_CODES
    assert ver.verification_score("peer", 1) == 0.7 and ver.verification_score("peer", 3) == pytest.approx(0.8)
    assert ver.verification_score("multiple", 9) == 1.0 and ver.verification_score("self", 5) == pytest.approx(0.7)
    assert ver.verification_score("unverified", 0) == 0.3 and ver.verification_score("refuted", 4) == 0.0
    codes = ver.levels_many(np.array([5, 3, 2, 1, 1, 0, 2]), np.array([4, 2, 1, 0, 1, 0, 2]),
                            np.array([False, False, False, False, False, False, True]),
                            np.array([False] * 7), np.array([False] * 7))
    assert codes.tolist() == [c["consensus"], c["multiple"], c["peer"], c["self"], c["peer"], c["unverified"],
                              c["system"]]
    at = [T0 + timedelta(days=i) for i in range(5)]
    assert ver.level_of([], "me") == ("unverified", 0)
    assert ver.level_of([("me", "confirmed", at[0])], "me") == ("self", 1)
    assert ver.level_of([("x", "confirmed", at[0]), ("x", "outdated", at[1]), ("y", "confirmed", at[2])], "me") == \
        ("peer", 1)  # x's latest verdict refutes, y's (the newest) confirms
    assert ver.level_of([("x", "confirmed", at[1]), ("y", "incorrect", at[2])], "me") == ("refuted", 0)
    assert ver.level_of([("x", "incorrect", at[1]), ("x", "confirmed", at[1])], "me") == ("peer", 1)  # same time: last
    assert ver.level_of([("sys", "still_valid", at[0])], "me", system_verifiers=("sys",)) == ("system", 1)
    assert ver.level_of([("gt", "partially_valid", at[0])], "me", ground_truth_verifiers=("gt",)) == ("ground_truth", 1)
    assert ver.level_of([("system_auto_verify", "confirmed", at[0])], "me") == ("system", 1)


# --- composite: weights, clipping and the tolerance at each bound ----------------------------

def _weights_error(weights) -> str:
    with pytest.raises(ValueError) as err:
        comp.check_weights(weights)
    return str(err.value)


def test_check_weights_names_exactly_what_is_missing_and_what_is_unknown():
    need = "weights need exactly freshness, source, verification, consensus, contradiction, success, context"
    assert _weights_error({f: 1 / 6 for f in comp.FACTORS[1:]}) == f"{need}; missing freshness"
    assert _weights_error({**comp.DEFAULT_WEIGHTS, "ctx": 0.0}) == f"{need}; unknown ctx"
    two_each = {**{f: 0.2 for f in comp.FACTORS[:5]}, "a": 0.0, "b": 0.0}
    assert _weights_error(two_each) == f"{need}; missing success, context; unknown a, b"


def test_a_weight_may_be_0_or_1_but_not_more_even_within_the_sums_tolerance():
    all_on_source = {**{f: 0.0 for f in comp.FACTORS}, "source": 1.0}
    assert comp.check_weights(all_on_source) == all_on_source
    # 1.005 alone sums to 1 within 0.01, yet no single weight may pass 1
    assert _weights_error({**all_on_source, "source": 1.005}) == "each weight must be in [0, 1]"
    assert _weights_error({**all_on_source, "source": -0.0001, "context": 1.0001}) == "each weight must be in [0, 1]"


def test_scores_are_clipped_to_1_when_the_weights_sum_a_little_over_1():
    heavy = {**comp.DEFAULT_WEIGHTS, "context": 0.109}  # sums to 1.009, allowed
    c = comp.composite({f: 1.0 for f in comp.FACTORS}, heavy)
    assert (c.score, c.level) == (1.0, "very_high")
    assert comp.composite_many(np.ones((2, 7)), heavy).tolist() == [1.0, 1.0]
    assert comp.composite_many(np.full((1, 7), 0.5), heavy).tolist() == pytest.approx([0.5045])


def test_composite_many_keeps_every_score_in_0_1():
    rows = np.array([[-1.0] * 7, [2.0] * 7, [0.5] * 7])
    assert comp.composite_many(rows).tolist() == pytest.approx([0.0, 1.0, 0.5])


@pytest.mark.parametrize("i", range(len(comp.LEVELS) - 1))
def test_a_score_within_the_tolerance_below_a_level_bound_has_that_level(i):
    name, bound, _ = comp.LEVELS[i]
    at = bound - comp._EPS
    assert at + comp._EPS == bound  # the tolerance is inclusive: this score counts as the bound
    assert comp.level_of(at)[0] == name and comp.level_codes(np.array([at])).tolist() == [i]
    below = bound - 2 * comp._EPS
    assert comp.level_of(below)[0] == comp.LEVELS[i + 1][0] and comp.level_codes(np.array([below])).tolist() == [i + 1]


@pytest.mark.parametrize("risk", list(comp.RISK_THRESHOLDS))
def test_decide_counts_a_score_within_the_tolerance_below_each_threshold(risk):
    need = comp.RISK_THRESHOLDS[risk]
    assert need - comp._EPS + comp._EPS == need
    assert comp.decide(need - comp._EPS, risk).should_act
    assert not comp.decide(need - 2 * comp._EPS, risk).should_act
    edge = need - comp.VERIFY_MARGIN  # the verify-first band's lower end
    assert edge - comp._EPS + comp._EPS == edge
    assert comp.decide(edge - comp._EPS, risk).suggested_action == "verify-fact"
    assert comp.decide(edge - 2 * comp._EPS, risk).suggested_action == "search-alternatives"


# --- consensus: two agents are already a cluster ---------------------------------------------

def test_two_agents_score_the_cluster_formula_once_it_passes_neutral():
    # two agents with three or four specializations (one agent can write under two roles)
    assert cons.cluster_score(2, 3, True) == pytest.approx((math.log10(3) + 0.15) * 0.8)
    assert cons.cluster_score(2, 4, True) == pytest.approx((math.log10(3) + 0.2) * 0.8)
    assert cons.cluster_score(2, 2, True) == 0.5  # (log10(3) + 0.1) * 0.8 = 0.46: never below neutral
    assert cons.cluster_score(np.array([1, 2]), np.array([4, 4]), np.array([True, True])).tolist() == \
        pytest.approx([0.5, (math.log10(3) + 0.2) * 0.8])


# --- credibility -----------------------------------------------------------------------------

def test_track_record_of_one_verified_fact_and_partial_tenure():
    assert cred.track_record_score(cred.TrackRecord(verified_correct=1, total_verified=1)) == pytest.approx(0.6)
    assert cred.track_record_score(cred.TrackRecord(verified_correct=0, total_verified=1)) == 0.0
    # tenure: 0.2 per year, at most 0.2, weighted 0.1
    for days, tenure in ((0.0, 0.0), (36.5, 0.02), (182.5, 0.1), (365.0, 0.2), (730.0, 0.2)):
        assert cred.track_record_score(cred.TrackRecord(days_active=days)) == pytest.approx(0.1 * tenure)


# --- freshness -------------------------------------------------------------------------------

def test_exponential_default_rate_is_0_01_per_day():
    assert fr.exponential(30.0) == pytest.approx(math.exp(-0.3))
    assert fr.freshness(T0, T0 + timedelta(days=30), model="exponential") == pytest.approx(math.exp(-0.3))
    assert fr.freshness_many(np.array([30.0]), np.array([60.0]), model="exponential").tolist() == \
        pytest.approx([math.exp(-0.3)])


def test_an_unknown_decay_model_is_an_error_not_a_half_life():
    message = r"^unknown decay model 'Linear' \(known: half_life, exponential, linear\)$"
    with pytest.raises(ValueError, match=message):
        fr.freshness(T0, T0 + timedelta(days=3), model="Linear")
    with pytest.raises(ValueError, match=message):
        fr.freshness_many(np.array([3.0]), np.array([30.0]), model="Linear")
    assert fr.MODELS == ("half_life", "exponential", "linear")


def test_scalar_freshness_is_a_plain_float():
    # a numpy scalar is not YAML-safe and prints as np.float64(...): scalar in, Python float out
    for value in (fr.linear(10.0), fr.exponential(10.0), fr.half_life(10.0, 30.0), fr.linear(np.float64(2.0)),
                  fr.freshness(T0, T0 + timedelta(days=3)), fr.freshness(T0, T0, model="linear")):
        assert type(value) is float
    assert isinstance(fr.half_life(np.array([10.0]), 30.0), np.ndarray)


# --- resolution: "more than" at its limits ---------------------------------------------------

def test_temporal_decides_one_second_past_the_limit():
    a = res.Claim("a", T0, 0.5, 1)
    late = res.resolve(a, res.Claim("b", T0 + timedelta(days=30, seconds=1), 0.5, 1))
    assert (late.strategy, late.winner) == ("temporal", "b")
    assert res.resolve(a, res.Claim("b", T0 + timedelta(days=30), 0.5, 1)).strategy == "agent_review"


@given(st.integers(0, 400 * 86400))
def test_a_gap_within_the_tolerance_of_temporal_days_is_not_more(seconds):
    days = seconds / 86400
    limit = days - res._EPS
    assume(limit >= 0 and limit + res._EPS == days)
    a, b = res.Claim("a", T0, 0.5, 1), res.Claim("b", T0 + timedelta(seconds=seconds), 0.5, 1)
    assert res.resolve(a, b, temporal_days=limit).strategy == "agent_review"
    assert res.resolve(a, b, temporal_days=days - 1e-6).strategy == "temporal"


@given(st.floats(0.0, 0.99))
def test_a_source_gap_within_the_tolerance_of_the_limit_is_not_more(gap):
    high = gap + res._EPS  # exactly the gap plus the tolerance
    assert not res.resolve(res.Claim("a", T0, high, 1), res.Claim("b", T0, 0.0, 1), credibility_gap=gap).resolved
    won = res.resolve(res.Claim("a", T0, gap + 1e-6, 1), res.Claim("b", T0, 0.0, 1), credibility_gap=gap)
    assert (won.strategy, won.winner) == ("source_credibility", "a")


# --- success and verification: the documented formulas over every count ----------------------

@given(st.integers(0, 40), st.integers(0, 40), st.integers(0, 40), st.integers(1, 20))
def test_success_rate_is_the_documented_formula(s, p, failed, min_samples):
    n = s + p + failed
    w = min(1.0, n / min_samples)
    want = 0.5 if n == 0 else (s + 0.5 * p) / n * w + 0.5 * (1 - w)
    assert succ.success_rate(s, p, n, min_samples) == pytest.approx(want, abs=1e-12)


def test_one_use_moves_a_tenth_of_the_way_from_neutral():
    assert succ.success_rate(1, 0, 1) == pytest.approx(0.55) and succ.success_rate(0, 0, 1) == pytest.approx(0.45)


@given(st.sampled_from(list(ver.LEVEL_SCORES)), st.integers(0, 30))
def test_verification_score_is_the_documented_formula(level, count):
    bonus = min(0.2, 0.05 * (count - 1)) if count > 0 else 0.0
    want = 0.0 if level == "refuted" else min(1.0, ver.LEVEL_SCORES[level] + max(bonus, 0.0))
    assert ver.verification_score(level, count) == pytest.approx(want, abs=1e-12)


def test_the_verifier_bonus_stops_at_0_2():
    assert ver.verification_score("self", 9) == pytest.approx(0.7) and ver.verification_score("peer", 6) == pytest.approx(0.9)
