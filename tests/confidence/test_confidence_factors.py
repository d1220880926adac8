"""The confidence factors and composite: the reference's worked numbers, and properties over
generated inputs (range, monotonicity, vector form equal to the scalar form)."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_trust.confidence import composite as comp
from graph_trust.confidence import consensus as cons
from graph_trust.confidence import contradiction as contra
from graph_trust.confidence import credibility as cred
from graph_trust.confidence import freshness as fr
from graph_trust.confidence import relevance as rel
from graph_trust.confidence import success as succ
from graph_trust.confidence import verification as ver

NOW = datetime(2026, 1, 1, tzinfo=UTC)
ages = st.floats(min_value=0, max_value=5000, allow_nan=False)
unit = st.floats(min_value=0, max_value=1, allow_nan=False)


# --- freshness -------------------------------------------------------------------------------

@pytest.mark.parametrize("days, want", [(1, 0.990), (30, 0.741), (90, 0.407), (180, 0.165), (365, 0.026)])
def test_exponential_reference_table(days, want):
    assert fr.exponential(days, 0.01) == pytest.approx(want, abs=5e-4)


@pytest.mark.parametrize("days, want", [(1, 0.997), (30, 0.918), (90, 0.753), (180, 0.507), (365, 0.0)])
def test_linear_reference_table(days, want):
    assert fr.linear(days, 365) == pytest.approx(want, abs=5e-4)


def test_infrastructure_at_one_half_life_is_one_half():
    created = NOW - timedelta(days=30)
    assert fr.freshness(created, NOW, "infrastructure") == pytest.approx(0.5)
    assert fr.freshness(created, NOW, "unknown-category") == pytest.approx(0.5 ** 0.5)  # default 60 days


def test_security_decays_faster_than_runbooks():
    for days in (1, 10, 45, 200):
        created = NOW - timedelta(days=days)
        assert fr.freshness(created, NOW, "security") < fr.freshness(created, NOW, "runbooks")


def test_verification_resets_the_clock():
    created = NOW - timedelta(days=180)
    assert fr.freshness(created, NOW, "infrastructure") < 0.02
    assert fr.freshness(created, NOW, "infrastructure", last_verified_at=NOW - timedelta(days=2)) > 0.9
    # a verification older than the fact does not age it
    assert fr.freshness(created, NOW, "runbooks", NOW - timedelta(days=400)) == fr.freshness(created, NOW, "runbooks")


def test_half_lives_are_the_issues_table():
    assert fr.HALF_LIVES == {"infrastructure": 30, "incidents": 60, "deployments": 45, "monitoring": 40,
                             "runbooks": 90, "security": 20, "team_membership": 180,
                             "agent_capabilities": 120, "conversation": 7, "global": 60}
    assert fr.half_life_for(None) == 60 and fr.half_life_for(" Security ") == 20


@given(st.lists(ages, min_size=2, max_size=20), st.sampled_from(sorted(fr.HALF_LIVES)),
       st.sampled_from(["half_life", "exponential", "linear"]))
def test_freshness_in_range_and_monotone(age_list, category, model):
    a = np.sort(np.array(age_list))
    hl = np.full_like(a, fr.HALF_LIVES[category])
    out = fr.freshness_many(a, hl, model=model)
    assert np.all((out >= 0) & (out <= 1))
    assert np.all(np.diff(out) <= 1e-12)  # older never fresher
    for age, v in zip(a[:3], out[:3], strict=False):
        assert fr.freshness(NOW - timedelta(days=float(age)), NOW, category, model=model) == pytest.approx(v)


# --- source credibility ----------------------------------------------------------------------

def test_source_combination_weights():
    assert cred.source_score(1.0, "database_admin", "automated_metric") == pytest.approx(0.5 + 0.3 * 0.95 + 0.2)
    assert cred.source_score(0.0, None, None) == pytest.approx(0.3 * 0.7 + 0.2 * 0.5)
    assert cred.source_score(0.5, "guest", "rumor") == pytest.approx(0.25 + 0.15 + 0.02)


def test_track_record_reference_formula():
    r = cred.TrackRecord(verified_correct=9, total_verified=10, contributions=50, corrections_issued=2, days_active=365)
    assert cred.track_record_score(r) == pytest.approx(0.9 * 0.6 + 0.5 * 0.3 + 0.2 * 0.1 - 0.1)
    assert cred.agent_credibility(r) == pytest.approx(cred.track_record_score(r))  # 10 samples: no prior


def test_new_agent_starts_at_expertise_then_follows_record():
    assert cred.agent_credibility(cred.TrackRecord()) == pytest.approx(0.3)
    assert cred.agent_credibility(cred.TrackRecord(expertise="expert")) == pytest.approx(1.0)
    bad = cred.TrackRecord(verified_correct=0, total_verified=5, expertise="expert")
    assert cred.agent_credibility(bad) == pytest.approx(0.5)  # half way from 1.0 to 0.0


@given(st.integers(0, 200), st.integers(0, 200), st.integers(0, 500), st.integers(0, 30),
       st.floats(0, 3000), st.sampled_from([None, *cred.EXPERTISE_LEVELS]),
       st.sampled_from([None, "x", *cred.ROLE_TRUST_WEIGHTS]), st.sampled_from([None, "y", *cred.SOURCE_TYPE_WEIGHTS]))
def test_source_in_range_and_more_correct_never_hurts(correct, wrong, contrib, corr, days, exp, role, stype):
    r = cred.TrackRecord(correct, correct + wrong, contrib, corr, days, exp)
    better = cred.TrackRecord(correct + 1, correct + wrong + 1, contrib, corr, days, exp)
    a, b = cred.agent_credibility(r), cred.agent_credibility(better)
    assert 0 <= a <= 1 and 0 <= cred.source_score(a, role, stype) <= 1
    if correct + wrong >= cred.PRIOR_SAMPLES:
        assert b >= a - 1e-12


# --- verification ----------------------------------------------------------------------------

def test_verification_levels_and_bonus():
    assert ver.verification_score("unverified", 0) == 0.3
    assert ver.verification_score("self", 1) == 0.5
    assert ver.verification_score("peer", 1) == 0.7
    assert ver.verification_score("multiple", 3) == pytest.approx(0.95)
    assert ver.verification_score("multiple", 10) == pytest.approx(1.0)  # bonus capped at 0.2, score at 1
    assert ver.verification_score("system", 1) == 0.95
    assert ver.verification_score("ground_truth", 1) == 1.0
    assert ver.verification_score("refuted", 4) == 0.0


def test_level_from_several_verifiers():
    t = [NOW - timedelta(days=d) for d in range(10)]
    assert ver.level_of([], "alice") == ("unverified", 0)
    assert ver.level_of([("alice", "confirmed", t[3])], "alice") == ("self", 1)
    assert ver.level_of([("alice", "confirmed", t[3]), ("bob", "still_valid", t[2])], "alice") == ("peer", 2)
    three = [("bob", "confirmed", t[5]), ("carol", "partially_valid", t[4]), ("dan", "confirmed", t[3])]
    assert ver.level_of(three, "alice") == ("multiple", 3)
    assert ver.verification_score(*ver.level_of(three, "alice")) == pytest.approx(0.95)
    five = three + [("erin", "confirmed", t[2]), ("fay", "confirmed", t[1])]
    assert ver.level_of(five, "alice") == ("consensus", 5)
    assert ver.level_of(three + [("system_auto_verify", "confirmed", t[1])], "alice")[0] == "system"
    assert ver.level_of(three, "alice", ground_truth_verifiers=["dan"])[0] == "ground_truth"
    # a verifier's later verdict replaces the earlier; the newest verdict refuting refutes
    assert ver.level_of([("bob", "confirmed", t[5]), ("bob", "outdated", t[1])], "alice") == ("refuted", 0)
    assert ver.level_of([("bob", "incorrect", t[5]), ("bob", "confirmed", t[1])], "alice") == ("peer", 1)


@given(st.lists(st.tuples(st.sampled_from("abcdefg"), st.sampled_from(ver.VERDICTS), st.integers(0, 100)), max_size=12))
def test_verification_in_range_and_vector_matches(records):
    recs = [(v, verdict, NOW - timedelta(days=d)) for v, verdict, d in records]
    level, n = ver.level_of(recs, "a")
    s = ver.verification_score(level, n)
    assert 0 <= s <= 1
    assert ver.verification_many(np.array([ver.LEVEL_CODES[level]]), np.array([n]))[0] == s


# --- consensus -------------------------------------------------------------------------------

def test_consensus_cluster_and_votes():
    assert cons.cluster_score(1, 1) == 0.5
    assert cons.cluster_score(9, 4) == pytest.approx(min(1.0, (1.0 + 0.2) * 0.8))
    assert cons.cluster_score(4, 4) == pytest.approx((math.log(5) / math.log(10) + 0.2) * 0.8)
    assert cons.cluster_score(4, 4, independent=False) == pytest.approx(0.5)  # floor: never below neutral
    v = cons.vote_score([("agree", 1.0, 0.9), ("agree", 0.5, 0.6), ("disagree", 1.0, 0.3), ("unsure", 1, 1)])
    assert v == pytest.approx(1.2 / (1.2 + 0.3 + 0.001))
    assert cons.vote_score([("unsure", 1.0, 1.0)]) is None
    assert cons.consensus(0.5, None) == 0.5 and cons.consensus(0.5, v) == pytest.approx((0.5 + v) / 2)


@given(st.integers(1, 200), st.integers(0, 10), st.booleans(), unit, unit)
def test_consensus_range_and_more_agents_never_lower(n, spec, indep, aw, dw):
    a, b = cons.cluster_score(n, spec, indep), cons.cluster_score(n + 1, spec, indep)
    assert 0.5 <= a <= 1 and b >= a
    out = cons.consensus_many(np.array([a]), np.array([aw]), np.array([dw]))[0]
    assert 0 <= out <= 1


# --- contradiction ---------------------------------------------------------------------------

def test_contradiction_penalty():
    assert contra.contradiction_score() == 1.0
    assert contra.contradiction_score(losses=1) == pytest.approx(0.7)
    assert contra.contradiction_score(unresolved=["high"]) == pytest.approx(0.9)
    assert contra.contradiction_score(losses=5) == pytest.approx(0.2)  # max penalty 0.8


@given(st.integers(0, 20), st.lists(st.sampled_from(["low", "medium", "high"]), max_size=20))
def test_contradiction_range_and_more_never_better(losses, unresolved):
    s = contra.contradiction_score(losses, unresolved)
    assert 0.2 <= s <= 1
    assert contra.contradiction_score(losses + 1, unresolved) <= s
    assert contra.contradiction_score(losses, unresolved + ["low"]) <= s


# --- success rate ----------------------------------------------------------------------------

def test_success_rate_regression_with_few_samples():
    assert succ.success_rate(0, 0, 0) == 0.5
    assert succ.success_rate(2, 0, 2) == pytest.approx(1.0 * 0.2 + 0.5 * 0.8)  # 0.6
    assert succ.success_rate(0, 0, 5) == pytest.approx(0.25)
    assert succ.success_rate(1, 2, 4) == pytest.approx(0.5 * 0.4 + 0.5 * 0.6)
    assert succ.success_rate(12, 0, 13) == pytest.approx(12 / 13)  # enough samples: the raw rate
    with pytest.raises(ValueError):
        succ.success_rate(3, 0, 2)


@given(st.integers(0, 50), st.integers(0, 50), st.integers(0, 50))
def test_success_range_and_monotone_in_successes(s, p, f):
    total = s + p + f
    r = succ.success_rate(s, p, total)
    assert 0 <= r <= 1
    assert succ.success_rate(s + 1, p, total + 1) >= r - 1e-12  # one more success never lowers it


# --- relevance -------------------------------------------------------------------------------

def test_relevance():
    fact = rel.FactScope(project="p", team="t", category="infrastructure", systems=frozenset({"redis", "es"}))
    assert rel.relevance(fact, None) == 0.5
    assert rel.relevance(fact, rel.Context(project="p")) == 1.0
    assert rel.relevance(fact, rel.Context(project="q", related_projects=frozenset({"p"}))) == pytest.approx(0.6)
    ctx = rel.Context(project="p", team="x", target_systems=frozenset({"redis", "pg"}))
    assert rel.relevance(fact, ctx) == pytest.approx((0.3 + 0 + 0.15 * 0.5) / 0.7)


names = st.sampled_from(["p", "q", "t", "x", None])
sets = st.frozensets(st.sampled_from(["p", "q", "t", "redis", "es"]), max_size=3)


@given(names, names, sets, names, sets, names, sets, sets, st.one_of(st.none(), unit), names, names, sets)
def test_relevance_in_range_and_exact_match_is_best(fp, ft, fshared, fc, fsys, cp, crel, ccats, sim, ct, cc, csys):
    fact = rel.FactScope(project=fp, team=ft, shared_with=fshared, category=fc, systems=fsys)
    ctx = rel.Context(project=cp, related_projects=crel, team=ct, category=cc, related_categories=ccats,
                      target_systems=csys, task_similarity=sim)
    r = rel.relevance(fact, ctx)
    assert 0 <= r <= 1
    best = rel.FactScope(project=cp, team=ct, category=cc, systems=csys)
    given_any = bool(cp or ct or cc or csys) or sim is not None
    assert rel.relevance(best, rel.Context(project=cp, team=ct, category=cc, target_systems=csys,
                                           task_similarity=1.0 if sim is not None else None)) == \
        pytest.approx(1.0 if given_any else 0.5)


# --- composite, levels, decisions ------------------------------------------------------------

def test_reference_weights_and_breakdown():
    assert comp.DEFAULT_WEIGHTS == {"freshness": 0.20, "source": 0.20, "verification": 0.15, "consensus": 0.15,
                                    "contradiction": 0.10, "success": 0.10, "context": 0.10}
    # the reference's UI example breakdown
    f = dict(freshness=0.95, source=0.90, verification=0.85, consensus=0.80, contradiction=1.0,
             success=0.92, context=0.88)
    c = comp.composite(f)
    assert c.score == pytest.approx(0.19 + 0.18 + 0.1275 + 0.12 + 0.1 + 0.092 + 0.088)
    assert c.level == "very_high"


@pytest.mark.parametrize("score, level", [(1.0, "very_high"), (0.85, "very_high"), (0.8499, "high"), (0.70, "high"),
                                          (0.6999, "medium"), (0.55, "medium"), (0.5499, "low"), (0.40, "low"),
                                          (0.3999, "very_low"), (0.0, "very_low")])
def test_level_boundaries(score, level):
    assert comp.level_of(score)[0] == level
    assert comp.LEVELS[int(comp.level_codes(np.array([score]))[0])][0] == level


@pytest.mark.parametrize("risk, need", list(comp.RISK_THRESHOLDS.items()))
def test_decision_thresholds(risk, need):
    assert comp.decide(need, risk).should_act
    near = comp.decide(need - 0.05, risk)
    assert not near.should_act and near.suggested_action == "verify-fact"
    assert comp.decide(need - 0.1, risk).suggested_action == "verify-fact"
    assert comp.decide(need - 0.1001, risk).suggested_action == "search-alternatives"
    with pytest.raises(ValueError):
        comp.decide(0.5, "extreme")


def test_bad_weights_rejected():
    with pytest.raises(ValueError, match="sum"):
        comp.check_weights({f: 0.5 for f in comp.FACTORS})
    with pytest.raises(ValueError, match="missing freshness"):
        comp.check_weights({f: 1 / 6 for f in comp.FACTORS if f != "freshness"})


@settings(max_examples=200)
@given(st.lists(st.lists(unit, min_size=7, max_size=7), min_size=1, max_size=30), st.integers(0, 6), unit)
def test_composite_range_monotone_and_vector_matches(rows, col, bump):
    m = np.array(rows)
    out = comp.composite_many(m)
    assert np.all((out >= 0) & (out <= 1))
    for row, v in zip(rows, out, strict=True):
        assert comp.composite(dict(zip(comp.FACTORS, row, strict=True))).score == pytest.approx(v)
    higher = m.copy()
    higher[:, col] = np.maximum(higher[:, col], bump)
    assert np.all(comp.composite_many(higher) >= out - 1e-12)  # raising a factor never lowers the score
