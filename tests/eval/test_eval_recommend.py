"""The eval's recommendation (graph_trust.eval.report), on synthetic reports: no graph needed.

Random rankings of random judged sets: whatever the figures, the recommended ranking meets every
criterion and has the best nDCG@10 among those that do, and a ranking left out is listed with
the criteria it failed.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graph_trust.eval.dataset import JudgedSet, Query
from graph_trust.eval.report import TIE, EvalReport
from graph_trust.eval.runner import Method

pytest.importorskip("ir_measures")


def _judged(n_clean: int, n_contested: int) -> JudgedSet:
    queries, qrels = [], {}
    for i in range(n_clean + n_contested):
        contested = i >= n_clean
        qid = f"q{i}"
        queries.append(Query(qid, qid, wrong=(f"{qid}-w",) if contested else (),
                             classes=("stale",) if contested else ("clean",)))
        qrels[qid] = {f"{qid}-r": 2, f"{qid}-rel": 1, **({f"{qid}-w": 0} if contested else {})}
    return JudgedSet(queries, qrels)


def _ranking(q: Query, right_at: int, wrong_above: bool) -> list[str]:
    """Filler facts with the right answer at ``right_at`` (0-based; None: absent), the wrong one
    right above it when asked."""
    out = [f"{q.id}-x{k}" for k in range(9)]
    out.insert(right_at, f"{q.id}-r")
    if q.contested:
        out.insert(right_at if wrong_above else right_at + 1, f"{q.id}-w")
    return out[:10]


def _report(judged: JudgedSet, plans: dict[str, tuple[str, float | None, list[list[tuple[int, bool]]]]],
            default_weight: float | None = 0.05) -> EvalReport:
    """``plans[name] = (kind, weight, per draw: per query (right_at, wrong_above))``."""
    methods = [Method(name, kind, weight) for name, (kind, weight, _) in plans.items()]
    draws = len(next(iter(plans.values()))[2])
    rankings = [{name: {q.id: _ranking(q, *plan[d][i]) for i, q in enumerate(judged.queries)}
                 for name, (_, _, plan) in plans.items()} for d in range(draws)]
    return EvalReport.build(mode="judged", graph="synthetic", settings={}, rank_const=1.0, draws=[], judged=judged,
                            methods=methods, rankings=rankings, default_weight=default_weight)


def _plan(rng: random.Random, n: int, draws: int, quality: float) -> list[list[tuple[int, bool]]]:
    return [[(0 if rng.random() < quality else rng.randrange(1, 9), rng.random() > quality) for _ in range(n)]
            for _ in range(draws)]


def _meets(row: dict, van: dict, allowed: float) -> bool:
    return (row["vs_vanilla"]["ci95"][0] > 0 and row["wrong_first"]["mean"] <= van["wrong_first"]["mean"]
            and row["vs_vanilla"]["clean_losses"]["mean"] <= allowed + 1e-9)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31), st.integers(2, 6), st.integers(2, 6), st.integers(1, 3),
       st.lists(st.floats(0.0, 1.0), min_size=1, max_size=4), st.booleans())
def test_the_recommendation_meets_every_criterion_and_is_the_best_that_does(seed, clean, contested, draws,
                                                                         qualities, compare_configured):
    rng = random.Random(seed)
    judged = _judged(clean, contested)
    n = clean + contested
    plans = {"vanilla": ("vanilla", None, _plan(rng, n, draws, 0.4))}
    for k, quality in enumerate(qualities):
        plans[f"trust@{k / 100:g}"] = ("trust", k / 100, _plan(rng, n, draws, quality))
    rep = _report(judged, plans, default_weight=0.0 if compare_configured else 0.5)
    rec = rep.recommendation
    rows = {r["name"]: r for r in rep.method_rows}
    others = [r for r in rep.method_rows if r["kind"] != "vanilla"]
    allowed = (rows["trust@0"]["vs_vanilla"]["clean_losses"]["mean"] if compare_configured
               else min(r["vs_vanilla"]["clean_losses"]["mean"] for r in others))
    assert rec["criteria"]["clean_losses_at_most"] == allowed
    ok = [r for r in others if _meets(r, rows["vanilla"], allowed)]
    assert set(rec["rejected"]) == {r["name"] for r in others} - {r["name"] for r in ok}
    assert all(rec["rejected"][name] for name in rec["rejected"])  # each says why
    if not ok:
        assert rec["method"] is None and rec["settings"] == {} and not rec["significant"]
        for name in rec["rejected"]:
            assert name in rec["reason"]
    else:
        best = max(r["ndcg@10"]["mean"] for r in ok)
        assert rec["method"] in {r["name"] for r in ok}
        configured_ok = compare_configured and any(r["name"] == "trust@0" for r in ok)
        if configured_ok and best - rows["trust@0"]["ndcg@10"]["mean"] <= TIE:
            assert rec["method"] == "trust@0"  # a gain within TIE changes nothing
        else:
            assert rows[rec["method"]]["ndcg@10"]["mean"] == best
        assert rec["significant"] and rec["settings"]["search.trust_weight"] == rows[rec["method"]]["weight"]


def test_a_clear_gain_is_recommended_over_a_larger_one_that_costs_clean_queries():
    judged = _judged(6, 6)
    van = [[(3, True)] * 12] * 2
    configured = [[(0, False)] * 6 + [(1, False)] * 6] * 2  # right answers high, never below a wrong one
    greedy = [[(0, False)] * 5 + [(8, False)] + [(0, False)] * 6] * 2  # higher still, but one clean query loses
    rep = _report(judged, {"vanilla": ("vanilla", None, van), "trust@0.05": ("trust", 0.05, configured),
                           "trust@0.3": ("trust", 0.3, greedy)})
    rec = rep.recommendation
    rows = {r["name"]: r for r in rep.method_rows}
    assert rows["trust@0.3"]["ndcg@10"]["mean"] > rows["trust@0.05"]["ndcg@10"]["mean"]
    assert rec["method"] == "trust@0.05" and rec["settings"] == {"search.trust_weight": 0.05}
    assert "clean queries losing" in rec["rejected"]["trust@0.3"][0]


def test_nothing_qualifies_names_each_ranking_and_the_criterion_it_failed():
    judged = _judged(4, 4)
    van = [[(0, False)] * 8] * 2
    worse = [[(5, True)] * 8] * 2  # every answer deeper, every wrong one above it
    rep = _report(judged, {"vanilla": ("vanilla", None, van), "trust@0.05": ("trust", 0.05, worse),
                           "composite": ("composite", None, worse)})
    rec = rep.recommendation
    assert rec["method"] is None
    for name in ("trust@0.05", "composite"):
        why = " ".join(rec["rejected"][name])
        assert "does not exclude 0" in why and "wrong answer first" in why
        assert name in rec["reason"]


def test_a_gain_within_the_tie_margin_keeps_the_configured_settings():
    judged = _judged(30, 30)
    van = [[(3, True)] * 60] * 2
    configured = [[(1, False)] + [(0, False)] * 59] * 2
    slightly = [[(0, False)] * 60] * 2  # better on one query of 60: within the tie margin
    rep = _report(judged, {"vanilla": ("vanilla", None, van), "trust@0.05": ("trust", 0.05, configured),
                           "trust@0.15": ("trust", 0.15, slightly)})
    rows = {r["name"]: r for r in rep.method_rows}
    assert 0 < rows["trust@0.15"]["ndcg@10"]["mean"] - rows["trust@0.05"]["ndcg@10"]["mean"] <= TIE
    assert rep.recommendation["method"] == "trust@0.05"
    lower = [[(2, False)] * 6 + [(0, False)] * 54] * 2
    wider = _report(judged, {"vanilla": ("vanilla", None, van), "trust@0.05": ("trust", 0.05, lower),
                             "trust@0.15": ("trust", 0.15, slightly)})
    assert wider.recommendation["method"] == "trust@0.15"  # beyond the margin: the better one


def test_the_noreview_row_is_reported_and_never_recommended():
    """The noreview ranking (the rules without review evidence) is a row of its own, however well it
    does: it shows what review adds, it is not a setting one could switch to."""
    judged = _judged(6, 6)
    rng = random.Random(7)
    report = _report(judged, {"vanilla": ("vanilla", None, _plan(rng, 12, 3, 0.3)),
                              "trust@0.05": ("trust", 0.05, _plan(rng, 12, 3, 0.6)),
                              "no review": ("noreview", None, [[(0, False)] * 12] * 3)})
    rows = {r["name"]: r for r in report.method_rows}
    assert rows["no review"]["ndcg@10"]["mean"] > rows["trust@0.05"]["ndcg@10"]["mean"]
    assert report.recommendation["method"] != "no review"
    assert "no review" not in report.recommendation["rejected"]
