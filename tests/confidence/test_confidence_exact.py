"""The confidence factors pinned exactly: decisions and their texts at the thresholds, levels at
their bounds, consensus clusters and votes, penalties, success rates, resolution's strategies
and reasons, credibility, freshness, relevance and verification at their boundaries."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from graph_trust.confidence import composite as comp
from graph_trust.confidence import consensus as cons
from graph_trust.confidence import contradiction as contra
from graph_trust.confidence import credibility as cred
from graph_trust.confidence import freshness as fr
from graph_trust.confidence import relevance as rel
from graph_trust.confidence import resolution as res
from graph_trust.confidence import success as succ
from graph_trust.confidence import verification as ver

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


def test_load_hook_splits_at_the_first_colon():
    assert res.load_hook("") is None and res.load_hook(None) is None
    assert res.load_hook("os.path:join") is __import__("os").path.join
    with pytest.raises(Exception, match=r"cannot load 'os.path:join:x'"):
        res.load_hook("os.path:join:x")
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
