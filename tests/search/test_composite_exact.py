"""The composite rank pinned exactly: max_rrf at rank_const 60, relevance with the relation bonus,
rank_composite honouring now / trust_override / max_fused, the min_trust boundary, competing
edges (with and without timestamps), and the degenerate inputs that must not crash."""

from __future__ import annotations

import math
from datetime import timedelta
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from memory_records import NOW, SEED_WEIGHTS, rec

from graph_trust.config import CompositeSettings
from graph_trust.errors import ConfigError
from graph_trust.search.composite import (
    DEFAULT_MAX_FUSED,
    composite_scores,
    max_fused_of,
    max_rrf,
    normalize_relevance,
    rank_composite,
    recency_scores,
    score_records,
    type_boost_table,
)
from graph_trust.search.pool_facts import competitor_keys
from graph_trust.search.ranking import Explanation

DAY = 24 * 3600.0


def _expl(uuid: str, fused: float, relation: float = 0.0) -> Explanation:
    return Explanation(uuid, "t", 1, 1, fused, None, 0.0, fused, 1, 1, relation_bonus=relation)


@pytest.mark.parametrize(("n", "k", "expected"), [(2, 60.0, 2 / 60), (1, 60.0, 1 / 60), (3, 1.0, 3.0),
                                                  (2, 0.5, 4.0)])
def test_max_rrf_is_methods_over_rank_const(n, k, expected):
    assert max_rrf(n, k) == expected
    assert DEFAULT_MAX_FUSED == 2.0 == max_rrf(2)


@pytest.mark.parametrize(("n", "k"), [(0, 1.0), (1, 0.0), (2, -60.0), (2, math.nan)])
def test_max_rrf_rejects_no_method_and_a_constant_not_above_zero(n, k):
    with pytest.raises(ValueError, match=r"^n_methods must be >= 1 and rank_const > 0$"):
        max_rrf(n, k)


def test_relevance_at_rank_const_60():
    top = 2 / 60  # first in BM25 and cosine at rank_const 60: the largest fused score
    out = normalize_relevance(np.array([top, 1 / 60, 1 / 61 + 1 / 62, math.nan]), max_rrf(2, 60))
    assert out.tolist() == pytest.approx([1.0, 0.5, (1 / 61 + 1 / 62) / top, 0.5])


def test_max_fused_of_a_mapping_without_the_kind_is_the_default():
    assert max_fused_of("edge", {"node": 1.0}) == 2.0
    assert max_fused_of("node", {"node": 0.5, "edge": 3.0}) == 0.5
    assert max_fused_of("node", 2 / 60) == 2 / 60 and isinstance(max_fused_of("edge", 1), float)
    out = score_records([rec("e", relevance_raw=1.0), rec("n", kind="node", relevance_raw=0.25)], CompositeSettings(),
                        now=NOW, max_fused={"node": 0.5})
    assert [o.relevance for o in out] == [0.5, 0.5]


def test_the_search_stage_final_score_is_the_relevance():
    # the search's final score (fused + boost + relation bonus, its rules' order) is what the
    # composite ranks by; a record without an explanation falls back to its fused score
    lifted = Explanation("a", "t", 1, 1, 0.5, 1.0, 0.05, 0.8, 1, 2, relation_bonus=0.25)
    r = rec("a", relevance_raw=0.5, explanation=lifted)
    plain = rec("b", relevance_raw=0.5, explanation=_expl("b", 0.5))
    bare = rec("c", relevance_raw=0.5)
    s = CompositeSettings()
    out = score_records([r, plain, bare], s, now=NOW, max_fused=1.0)
    assert [o.relevance for o in out] == [0.8, 0.5, 0.5]
    assert out[1].score == out[2].score
    total = s.w_trust + s.w_recency + s.w_relevance + s.w_type
    assert out[0].score - out[1].score == pytest.approx(s.w_relevance / total * 0.3)


def test_rank_composite_honours_now_trust_override_and_max_fused():
    s = CompositeSettings(half_life_hours_by_type={}, max_results=5)
    recs = [rec("old", age_h=48, trust_score=0.9, relevance_raw=0.02),
            rec("new", age_h=0, trust_score=0.3, relevance_raw=0.01)]
    at_now = {o.uuid: o for o in rank_composite(recs, s, now=NOW)}
    assert at_now["old"].recency == pytest.approx(0.25) and at_now["new"].recency == 1.0
    later = {o.uuid: o for o in rank_composite(recs, s, now=NOW + timedelta(hours=24))}
    assert later["old"].recency == pytest.approx(0.125) and later["new"].recency == pytest.approx(0.5)
    over = rank_composite(recs, s, now=NOW, trust_override=0.6)
    assert {(o.trust, o.trust_source) for o in over} == {(0.6, "override")}
    assert [o.trust_source for o in rank_composite(recs, s, now=NOW)] == ["property", "property"]
    at60 = {o.uuid: o for o in rank_composite(recs, s, now=NOW, max_fused=max_rrf(2, 60))}
    assert at60["old"].relevance == pytest.approx(0.02 / (2 / 60)) and at60["new"].relevance == pytest.approx(0.3)
    at1 = {o.uuid: o for o in rank_composite(recs, s, now=NOW)}
    assert at1["old"].relevance == pytest.approx(0.01)
    kinds = {o.uuid: o for o in rank_composite(recs, s, now=NOW, max_fused={"edge": 0.04})}
    assert kinds["old"].relevance == pytest.approx(0.5)


def test_the_min_trust_boundary_keeps_trust_at_exactly_min_trust():
    s = CompositeSettings(min_trust=0.3)
    out = rank_composite([rec("at", trust_score=0.3), rec("below", trust_score=0.2999), rec("none")], s, now=NOW)
    assert [o.uuid for o in out] == ["at"]  # absent trust reads 0.25, below 0.3 too
    assert [o.uuid for o in rank_composite([rec("x", trust_score=0.1)], CompositeSettings(), now=NOW)] == ["x"]


def test_max_results_none_zero_and_a_limit():
    recs = [rec(f"r{i}", trust_score=1.0 - i / 100) for i in range(30)]
    assert len(rank_composite(recs, CompositeSettings(), now=NOW)) == 20  # settings.max_results
    assert len(rank_composite(recs, CompositeSettings(), now=NOW, max_results=0)) == 30
    assert [o.uuid for o in rank_composite(recs, CompositeSettings(), now=NOW, max_results=3)] == ["r0", "r1", "r2"]


def test_ties_keep_input_order_beyond_sixteen_records():
    recs = [rec(f"r{i:02d}", trust_score=0.5 if i % 2 else 0.6) for i in range(40)]
    out = rank_composite(recs, CompositeSettings(**SEED_WEIGHTS), now=NOW, max_results=0)
    assert [o.uuid for o in out] == [f"r{i:02d}" for i in range(0, 40, 2)] + [f"r{i:02d}" for i in range(1, 40, 2)]


def test_recency_boundaries():
    hl = np.array([24.0, 24.0, math.inf, 24.0, 48.0])
    r = recency_scores(np.array([DAY, -DAY, 1e9, math.nan, DAY]), hl)
    assert r.tolist() == [0.5, 1.0, 1.0, 0.5, pytest.approx(2 ** -0.5)]
    assert recency_scores(np.array([math.nan]), math.inf).tolist() == [1.0]


def test_type_and_half_life_tables_normalize_keys_and_name_bad_values():
    t = type_boost_table(CompositeSettings(type_boosts={" Goal ": 0.0, "unknown": 1.0}))
    assert t["goal"] == 0.0 and t["unknown"] == 1.0 and t["fact"] == 0.9 and isinstance(t["goal"], float)
    s = CompositeSettings(half_life_hours_by_type={" Chat ": 2.0, "FACT": None})
    out = score_records([rec("a", memory_type="chat", age_h=2), rec("b", memory_type="fact", age_h=1e6)], s, now=NOW)
    assert [o.recency for o in out] == [0.5, 1.0]
    with pytest.raises(ConfigError, match=r"^config key composite.type_boosts.x: must be in \[0, 1\], got nan$"):
        type_boost_table(CompositeSettings(type_boosts={"x": math.nan}))
    for bad in (0.0, -1.0, math.inf):
        with pytest.raises(ConfigError, match=r"^config key composite.half_life_hours_by_type.x: must be a positive"):
            score_records([rec("a")], CompositeSettings(half_life_hours_by_type={"x": bad}), now=NOW)


def test_weights_are_divided_by_their_sum():
    s = CompositeSettings(w_trust=0.24, w_recency=0.10, w_relevance=0.60, w_type=0.10)  # sums to 1.04
    out = composite_scores(np.array([1.0]), np.array([0.5]), np.array([0.25]), np.array([0.0]), s)
    assert out.tolist() == pytest.approx([(0.24 * 1.0 + 0.10 * 0.5 + 0.60 * 0.25) / 1.04])
    zero = CompositeSettings.model_construct(w_trust=0.0, w_recency=0.0, w_relevance=0.0, w_type=0.0)
    with pytest.raises(ConfigError, match=r"^config key composite: the weights sum to 0$"):
        composite_scores(np.zeros(1), np.zeros(1), np.zeros(1), np.zeros(1), zero)


def test_competing_edges_by_trust_then_time_with_and_without_timestamps():
    s = CompositeSettings()
    recs = [rec("a", age_h=None, subject="s", name="runs_at", trust_score=0.4, relevance_raw=1.0),
            rec("b", age_h=5, subject="s", name=" RUNS_AT ", trust_score=0.4, relevance_raw=0.5),
            rec("c", age_h=1, subject="s", name="RUNS_AT", trust_score=0.4, relevance_raw=0.1),
            rec("n", kind="node", age_h=0, subject="s", name="RUNS_AT", trust_score=0.4, relevance_raw=0.05)]
    plain = rank_composite(recs, s, now=NOW)
    assert [o.uuid for o in plain] == ["a", "b", "c", "n"] and all(o.moved_by is None for o in plain)
    timed = rank_composite(recs, s, now=NOW, competitors="trust_recency")
    # the edges share slots 1-3 by time: c (1 h) then b (5 h), a without a timestamp last; the node competes with nothing
    assert [o.uuid for o in timed] == ["c", "b", "a", "n"]
    assert [o.score for o in timed] == [o.score for o in plain]  # each slot keeps its score
    assert timed[0].moved_by == "competitors" and timed[0].score_before_move == plain[2].score
    assert timed[1].moved_by is None and timed[1].score_before_move is None  # b kept its slot
    assert [o.uuid for o in rank_composite(recs, s, now=NOW, competitors="trust")] == ["a", "b", "c", "n"]
    verified = [recs[0], rec("v", age_h=None, subject="s", name="RUNS_AT", trust_score=0.5, relevance_raw=0.5)]
    assert [o.uuid for o in rank_composite(verified, s, now=NOW, competitors="trust")] == ["v", "a"]
    assert [o.uuid for o in rank_composite(verified, s, now=NOW, competitors="trust", verified_trust=0.6)] == ["a", "v"]
    keyed = rank_composite(verified, s, now=NOW, competitors="trust", competitor_keys={"a": 1, "v": 2})
    assert [o.uuid for o in keyed] == ["a", "v"]
    unnamed = [rec("a", subject="s", name=" ", trust_score=0.4, relevance_raw=1.0),
               rec("v", subject="s", name=" ", trust_score=0.9, relevance_raw=0.5)]
    assert [o.uuid for o in rank_composite(unnamed, s, now=NOW, competitors="trust")] == ["a", "v"]


rows = st.lists(st.tuples(st.one_of(st.none(), st.floats(0, 1)), st.one_of(st.none(), st.floats(-48, 1e4)),
                          st.one_of(st.none(), st.floats(0, 3)), st.sampled_from(["edge", "node"]),
                          st.sampled_from(["fact", "observation", "chat", "instruction"])), max_size=24)


@given(rows, st.sampled_from(["none", "trust", "trust_recency"]), st.one_of(st.none(), st.floats(0, 1)),
       st.sampled_from([2.0, 2 / 60, {"node": 1.0}, {}]))
def test_degenerate_records_rank_without_crashing(rs, competitors, override, max_fused):
    recs = [rec(f"r{i}", age_h=age, trust_score=t, relevance_raw=f, kind=kind, memory_type=mt, subject="s",
                name="R") for i, (t, age, f, kind, mt) in enumerate(rs)]
    out = rank_composite(recs, CompositeSettings(min_trust=0.0), now=NOW, competitors=competitors,
                         trust_override=override, max_fused=max_fused, max_results=0)
    assert sorted(o.uuid for o in out) == sorted(r.uuid for r in recs)
    scores = [o.score for o in out]
    assert scores == sorted(scores, reverse=True) and all(0.0 <= x <= 1.0 for x in scores)


def test_empty_inputs():
    assert rank_composite([], CompositeSettings(), now=NOW) == []
    assert score_records([], CompositeSettings(), now=NOW) == []
    assert rank_composite([rec("a")], CompositeSettings(), now=NOW, memory_types=["goal"]) == []


def test_a_half_life_of_an_hour_or_less_is_valid():
    s = CompositeSettings(half_life_hours_by_type={"chat": 1.0, "note": 0.5})
    out = score_records([rec("c", memory_type="chat", age_h=1), rec("n", memory_type="note", age_h=1)], s, now=NOW)
    assert [o.recency for o in out] == [0.5, 0.25]


def test_a_negative_reranker_score_is_relevance_zero():
    # a non-RRF reranker (a cross-encoder's logit) can score below 0: relevance is clipped to [0, 1]
    assert normalize_relevance(np.array([-0.3, 0.4, 1.7, math.nan]), 1.0).tolist() == [0.0, 0.4, 1.0, 0.5]
    out = score_records([rec("a", relevance_raw=-2.0)], CompositeSettings(), now=NOW, max_fused=1.0)
    assert out[0].relevance == 0.0


def test_scored_records_are_never_marked_as_moved():
    recs = [rec("a", subject="s", name="R", trust_score=0.2, relevance_raw=1.0),
            rec("b", subject="s", name="R", trust_score=0.9, relevance_raw=0.1)]
    out = score_records(recs, CompositeSettings(), now=NOW)
    assert [(o.uuid, o.moved_by, o.score_before_move) for o in out] == [("a", None, None), ("b", None, None)]


def test_competitors_none_keeps_competing_edges_in_score_order():
    # b is more trusted but scores lower: only a competitor setting hands a's slot to b
    recs = [rec("a", subject="s", name="R", trust_score=0.2, relevance_raw=2.0),
            rec("b", subject="s", name="R", trust_score=0.9, relevance_raw=0.1)]
    s = CompositeSettings()
    plain = rank_composite(recs, s, now=NOW)
    assert [o.uuid for o in plain] == ["a", "b"] and plain[0].score > plain[1].score
    assert [o.uuid for o in rank_composite(recs, s, now=NOW, competitors="none")] == ["a", "b"]
    assert all(o.moved_by is None for o in rank_composite(recs, s, now=NOW, competitors="none"))
    assert [o.uuid for o in rank_composite(recs, s, now=NOW, competitors="trust")] == ["b", "a"]


def test_absent_trust_orders_no_competitor_even_below_a_low_verified_trust():
    # an unreviewed edge scores with the default trust 0.25, but in the competitor rule absent
    # trust counts as none: with verified_trust 0.2 the reviewed 0.22 takes the better slot
    recs = [rec("none", subject="s", name="R", relevance_raw=1.0),
            rec("low", subject="s", name="R", trust_score=0.22, relevance_raw=0.5)]
    s = CompositeSettings(min_trust=0.0)
    assert [o.uuid for o in rank_composite(recs, s, now=NOW)] == ["none", "low"]
    out = rank_composite(recs, s, now=NOW, competitors="trust", verified_trust=0.2)
    assert [o.uuid for o in out] == ["low", "none"]


def test_a_node_never_competes_even_when_the_key_map_names_it():
    recs = [rec("e", subject="s", name="R", trust_score=0.2, relevance_raw=1.0),
            rec("n", kind="node", subject="s", name="R", trust_score=0.9, relevance_raw=0.5)]
    s = CompositeSettings()
    assert [o.uuid for o in rank_composite(recs, s, now=NOW, competitors="trust",
                                           competitor_keys={"e": "k", "n": "k"})] == ["e", "n"]


NAMES = ["runs_at", "RUNS_AT", " Runs_At ", "straße", "STRASSE", "Strasse", " "]


@given(st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(["s", "t"]), st.one_of(st.none(), st.floats(0, 1)),
                          st.floats(0, 2)), max_size=10))
@example([("straße", "s", 0.2, 2.0), ("STRASSE", "s", 0.9, 0.5)])  # one name in upper case
def test_without_a_key_map_edges_compete_as_searchs_competitor_keys_group_them(rows):
    # the composite's own key (subject, relation name) must group what search's key groups
    recs = [rec(f"r{i}", subject=subj, name=name, trust_score=t, relevance_raw=f)
            for i, (name, subj, t, f) in enumerate(rows)]
    keys = competitor_keys([SimpleNamespace(source_node_uuid=r.subject, name=r.name) for r in recs])
    s = CompositeSettings(min_trust=0.0)
    own = rank_composite(recs, s, now=NOW, competitors="trust", max_results=0)
    searched = rank_composite(recs, s, now=NOW, competitors="trust", max_results=0,
                              competitor_keys={r.uuid: k for r, k in zip(recs, keys, strict=True)})
    assert [o.uuid for o in own] == [o.uuid for o in searched]
