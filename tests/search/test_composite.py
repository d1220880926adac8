"""Composite rank: reference numbers, type table, defaults, filters, validation, properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from memory_records import NOW, SEED_WEIGHTS, rec

from graph_trust.config import CompositeSettings, SyncSettings, load_settings
from graph_trust.errors import ConfigError
from graph_trust.search.composite import (
    DEFAULT_TYPE_BOOSTS,
    composite_scores,
    normalize_relevance,
    rank_composite,
    recency_scores,
    score_records,
    type_boost_table,
)

HOUR = 3600.0


# --- recency: the reference numbers ------------------------------------------------------


def test_recency_reference_numbers():
    r = recency_scores(np.array([1.0, 24 * HOUR, 48 * HOUR, 7 * 24 * HOUR]), 24.0)
    assert r[0] > 0.99
    assert r[1] == pytest.approx(0.5)
    assert r[2] == pytest.approx(0.25)
    assert r[3] == pytest.approx(0.008, abs=0.0005)  # 0.5 ** 7 = 0.0078125


def test_recency_missing_timestamp_is_half_and_future_is_fresh():
    r = recency_scores(np.array([math.nan, -5 * HOUR]), 24.0)
    assert r.tolist() == [0.5, 1.0]


def test_recency_uses_valid_at_then_created_at_then_half():
    s = CompositeSettings(half_life_hours_by_type={})  # facts decay too (by default they do not)
    from datetime import timedelta

    out = score_records(
        [
            rec("valid", valid_at=NOW - timedelta(hours=24), created_at=NOW),
            rec("created", age_h=None, created_at=NOW - timedelta(hours=48)),
            rec("none", age_h=None),
        ],
        s,
        now=NOW,
    )
    assert [round(o.recency, 6) for o in out] == [0.5, 0.25, 0.5]


def test_half_life_per_type_overrides_default():
    s = CompositeSettings(half_life_hours=24.0, half_life_hours_by_type={"instruction": 48.0})
    out = score_records(
        [rec("i", age_h=48, memory_type="instruction"), rec("f", age_h=48, memory_type="fact")], s, now=NOW
    )
    assert out[0].recency == pytest.approx(0.5)
    assert out[1].recency == pytest.approx(0.25)


def test_bad_half_life_names_the_key():
    s = CompositeSettings(half_life_hours_by_type={"fact": 0.0})
    with pytest.raises(ConfigError, match=r"composite\.half_life_hours_by_type\.fact"):
        score_records([rec("a")], s, now=NOW)


# --- type table, trust default, relevance ----------------------------------------------


def test_type_table_matches_reference():
    assert dict(DEFAULT_TYPE_BOOSTS) == {
        "instruction": 1.0,
        "system": 1.0,
        "fact": 0.9,
        "goal": 0.85,
        "preference": 0.8,
        "observation": 0.6,
    }
    table = type_boost_table(CompositeSettings())
    assert table["unknown"] == 0.5
    types = [*DEFAULT_TYPE_BOOSTS, "mystery"]
    out = score_records([rec(t, memory_type=t) for t in types], CompositeSettings(), now=NOW)
    assert [o.type_boost for o in out] == [1.0, 1.0, 0.9, 0.85, 0.8, 0.6, 0.5]


def test_type_boosts_are_overridable_including_unknown():
    s = CompositeSettings(type_boosts={"observation": 0.7, "unknown": 0.1, "runbook": 0.95})
    out = score_records(
        [rec("o", memory_type="observation"), rec("x", memory_type="mystery"), rec("r", memory_type="runbook")],
        s,
        now=NOW,
    )
    assert [o.type_boost for o in out] == [0.7, 0.1, 0.95]


def test_type_boost_out_of_range_names_the_key():
    with pytest.raises(ConfigError, match=r"composite\.type_boosts\.fact"):
        type_boost_table(CompositeSettings(type_boosts={"fact": 1.5}))


def test_absent_trust_reads_as_the_candidate_tier():
    """Absent trust is 0.25, the candidate tier: an unreviewed fact never outranks a reviewed
    candidate on trust, and a rejected fact (0.0 from sync) reads below both."""
    out = score_records([rec("none"), rec("some", trust_score=0.9), rec("cand", trust_score=0.25),
                         rec("rejected", trust_score=0.0)], CompositeSettings(), now=NOW)
    assert (out[0].trust, out[0].trust_source) == (0.25, "default")
    assert (out[1].trust, out[1].trust_source) == (0.9, "property")
    assert out[3].trust < out[0].trust <= out[2].trust
    assert out[0].trust == CompositeSettings().default_trust == SyncSettings().tiers["candidate"]


def test_trust_override_replaces_every_trust():
    out = score_records([rec("a", trust_score=0.2), rec("b")], CompositeSettings(), now=NOW, trust_override=0.8)
    assert [(o.trust, o.trust_source) for o in out] == [(0.8, "override"), (0.8, "override")]


def test_relevance_is_fused_over_max_rrf():
    assert normalize_relevance(np.array([2.0, 1.0, 0.5, 0.0, math.nan, 3.0])).tolist() == [
        1.0,
        0.5,
        0.25,
        0.0,
        0.5,
        1.0,
    ]
    out = score_records(
        [rec("e", relevance_raw=1.5), rec("n", kind="node", relevance_raw=1.5)],
        CompositeSettings(),
        now=NOW,
        max_fused={"edge": 2.0, "node": 3.0},
    )
    assert [o.relevance for o in out] == [0.75, 0.5]


def test_composite_formula_with_defaults():
    s = CompositeSettings()
    out = score_records([rec("a", trust_score=0.8, relevance_raw=1.0, age_h=0)], s, now=NOW)[0]
    total = s.w_trust + s.w_recency + s.w_relevance + s.w_type
    assert out.score == pytest.approx((s.w_trust * 0.8 + s.w_recency * 1.0 + s.w_relevance * 0.5 + s.w_type * 0.9)
                                      / total)


def test_seed_000_weights_stay_available():
    s = CompositeSettings(w_trust=0.30, w_recency=0.25, w_relevance=0.30, w_type=0.15, half_life_hours_by_type={},
                          default_trust=0.5)
    out = score_records([rec("a", trust_score=0.8, relevance_raw=1.0, age_h=24)], s, now=NOW)[0]
    assert out.score == pytest.approx(0.30 * 0.8 + 0.25 * 0.5 + 0.30 * 0.5 + 0.15 * 0.9)
    assert score_records([rec("b", age_h=0)], s, now=NOW)[0].trust == 0.5


# --- filter, sort, trim ------------------------------------------------------------------


def test_min_trust_filter_sort_and_max_results():
    s = CompositeSettings(max_results=2, min_trust=0.1, **SEED_WEIGHTS)
    recs = [
        rec("low", trust_score=0.05),  # below min_trust 0.1: dropped
        rec("mid", trust_score=0.5),
        rec("high", trust_score=0.9),
        rec("top", trust_score=1.0, memory_type="instruction"),
    ]
    out = rank_composite(recs, s, now=NOW)
    assert [o.uuid for o in out] == ["top", "high"]
    everything = rank_composite(recs, s, now=NOW, max_results=0)
    assert [o.uuid for o in everything] == ["top", "high", "mid"]


def test_memory_type_filter_and_stable_ties():
    recs = [rec("f1"), rec("i1", memory_type="instruction"), rec("f2"), rec("o1", memory_type="observation")]
    out = rank_composite(recs, CompositeSettings(), now=NOW, memory_types=["fact", "Observation"])
    assert [o.uuid for o in out] == ["f1", "f2", "o1"]  # equal facts keep input order


def test_recent_instruction_beats_stale_observation():
    recs = [
        rec("stale-obs", memory_type="observation", age_h=24 * 7, trust_score=0.7, relevance_raw=1.0),
        rec("new-instr", memory_type="instruction", age_h=1, trust_score=0.7, relevance_raw=1.0),
    ]
    assert [o.uuid for o in rank_composite(recs, CompositeSettings(), now=NOW)] == ["new-instr", "stale-obs"]


# --- config validation -------------------------------------------------------------------


def test_weight_sum_validation_names_keys_and_sum():
    with pytest.raises(ConfigError) as err:
        load_settings(overrides={"composite.w_trust": 0.5}, environ={})
    msg = str(err.value)
    d = CompositeSettings()
    assert "composite" in msg and "w_trust" in msg and "command line" in msg
    assert f"{0.5 + d.w_recency + d.w_relevance + d.w_type:.3f}" in msg


def test_weight_sum_validation_from_yaml(tmp_path):
    cfg = tmp_path / "graph-trust.yaml"
    cfg.write_text("composite:\n  w_trust: 0.1\n  w_recency: 0.1\n  w_relevance: 0.3\n  w_type: 0.3\n")
    with pytest.raises(ConfigError, match=r"composite.*sum to 1 \+/- 0\.05, got 0\.800.*graph-trust\.yaml"):
        load_settings(cfg, environ={})


def test_weight_range_validation_names_the_key():
    with pytest.raises(ConfigError, match=r"composite\.w_recency"):
        load_settings(overrides={"composite.w_recency": 1.5}, environ={})
    with pytest.raises(ConfigError, match=r"composite\.w_type"):
        load_settings(overrides={"composite.w_type": -0.1}, environ={})


def test_weights_within_tolerance_are_accepted():
    w = round(CompositeSettings().w_trust + 0.04, 2)  # sum 1.04
    s = load_settings(overrides={"composite.w_trust": w}, environ={})
    assert s.composite.w_trust == w


# --- properties ----------------------------------------------------------------------------

unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@st.composite
def weights(draw: st.DrawFn) -> CompositeSettings:
    raw = [draw(st.floats(min_value=0.0, max_value=1.0)) for _ in range(4)]
    if sum(raw) == 0:
        raw[0] = 1.0
    total = draw(st.floats(min_value=0.951, max_value=1.049))
    w = [x / sum(raw) * total for x in raw]
    if max(w) > 1.0:
        w = [x / sum(raw) for x in raw]
    return CompositeSettings(w_trust=w[0], w_recency=w[1], w_relevance=w[2], w_type=w[3])


@given(weights(), st.lists(st.tuples(unit, unit, unit, unit), min_size=1, max_size=20))
@hsettings(max_examples=200, deadline=None)
def test_composite_stays_in_unit_interval(s: CompositeSettings, dims: list[tuple[float, ...]]):
    arr = np.array(dims).T
    out = composite_scores(arr[0], arr[1], arr[2], arr[3], s)
    assert np.all(out >= 0.0) and np.all(out <= 1.0 + 1e-12)


@given(weights(), st.tuples(unit, unit, unit, unit), st.integers(0, 3), unit)
@hsettings(max_examples=300, deadline=None)
def test_composite_is_monotone_in_each_dimension(s, base, dim, higher):
    lo = list(base)
    hi = list(base)
    hi[dim] = max(base[dim], higher)
    a = composite_scores(*[np.array([x]) for x in lo], s)[0]
    b = composite_scores(*[np.array([x]) for x in hi], s)[0]
    assert b >= a - 1e-12


@given(
    trust=st.one_of(st.none(), unit),
    age_h=st.one_of(st.none(), st.floats(min_value=0, max_value=24 * 365)),
    fused=st.one_of(st.none(), st.floats(min_value=0, max_value=2)),
    mtype=st.sampled_from([*DEFAULT_TYPE_BOOSTS, "other"]),
    bump=st.floats(min_value=0.0, max_value=1.0),
)
@hsettings(max_examples=200, deadline=None)
def test_record_scores_in_unit_interval_and_monotone(trust, age_h, fused, mtype, bump):
    s = CompositeSettings()
    base = rec("a", trust_score=trust, age_h=age_h, relevance_raw=fused, memory_type=mtype)
    score = score_records([base], s, now=NOW)[0].score
    assert 0.0 <= score <= 1.0
    better = [
        rec("t", trust_score=max(trust if trust is not None else 0.5, bump), age_h=age_h, relevance_raw=fused, memory_type=mtype),
        rec("r", trust_score=trust, age_h=None if age_h is None else age_h * (1 - bump), relevance_raw=fused, memory_type=mtype),
        rec("f", trust_score=trust, age_h=age_h, relevance_raw=None if fused is None else fused + bump, memory_type=mtype),
        rec("y", trust_score=trust, age_h=age_h, relevance_raw=fused, memory_type="instruction"),
    ]
    for b in score_records(better, s, now=NOW):
        assert b.score >= score - 1e-12, b.uuid


def test_facts_do_not_decay_by_default_chat_memories_do():
    """24 h is right for chat memories, not for facts: a fact (declared, or an edge with no
    memory_type) keeps recency 1 at any age; an observation halves every 24 h."""
    s = CompositeSettings()
    ages = [0, 24, 24 * 30, 24 * 3650, None]
    facts = score_records([rec(f"f{i}", age_h=a, memory_type="fact") for i, a in enumerate(ages)], s, now=NOW)
    assert [o.recency for o in facts] == [1.0] * len(ages)
    obs = score_records([rec("o", age_h=48, memory_type="observation")], s, now=NOW)
    assert obs[0].recency == pytest.approx(0.25)


@given(st.lists(st.tuples(st.floats(0.0, 1.0), st.one_of(st.none(), st.floats(0, 24 * 3650))), min_size=2, max_size=30))
def test_undeclared_facts_rank_on_trust_and_relevance_alone_at_defaults(rows):
    """At the defaults, the age of an edge without a declared memory_type never changes its place."""
    s = CompositeSettings()
    young = [rec(f"y{i}", age_h=0, relevance_raw=f) for i, (f, _) in enumerate(rows)]
    aged = [rec(f"y{i}", age_h=a, relevance_raw=f) for i, (f, a) in enumerate(rows)]
    order = lambda recs: [r.uuid for r in rank_composite(recs, s, now=NOW, max_results=0)]  # noqa: E731
    assert order(young) == order(aged)


_SUBJECTS = st.sampled_from([None, "s1", "s2"])
_NAMES = st.sampled_from(["PORT", "OWNER"])


@given(st.lists(st.tuples(_SUBJECTS, _NAMES, st.sampled_from([None, 0.25, 0.6, 1.0]), st.floats(0.0, 5000.0),
                          st.floats(0.0, 1.0)), min_size=1, max_size=14), st.booleans(), st.booleans())
def test_competing_edges_share_their_composite_slots_by_evidence(rows, timed, keyed):
    records = [rec(f"u{i}", age_h=age, subject=s, name=n, trust_score=t, relevance_raw=rel)
               for i, (s, n, t, age, rel) in enumerate(rows)]
    keys = {r.uuid: ((r.subject, r.name) if r.subject else None) for r in records} if keyed else None
    cfg = CompositeSettings()
    plain = [r.uuid for r in rank_composite(records, cfg, now=NOW, max_results=0)]
    ordered = [r.uuid for r in rank_composite(records, cfg, now=NOW, max_results=0, competitor_keys=keys,
                                              competitors="trust_recency" if timed else "trust")]
    assert sorted(plain) == sorted(ordered)
    by = {r.uuid: r for r in records}
    key = {u: ((by[u].subject, by[u].name) if by[u].subject else None) for u in plain}
    for p, u in enumerate(plain):
        if key[u] is None:
            assert ordered[p] == u  # competes with nothing: keeps its slot
    for k in {k for k in key.values() if k is not None}:
        slots = [p for p, u in enumerate(plain) if key[u] == k]
        assert slots == [p for p, u in enumerate(ordered) if key[u] == k]

        def evidence(u):
            t = by[u].trust_score
            return ((t if t is not None and t >= 0.5 else 0.0), by[u].valid_at.timestamp() if timed else 0.0)
        members = [evidence(ordered[p]) for p in slots]
        assert members == sorted(members, reverse=True)
