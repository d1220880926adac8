"""graph_trust.eval.metrics against values computed by hand, and properties of the class."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_trust.eval.dataset import JudgedSet, Query
from graph_trust.eval.metrics import bootstrap_ci, per_query, wrong_first


def judged(qrels: dict[str, dict[str, int]], wrong: dict[str, tuple[str, ...]] | None = None) -> JudgedSet:
    wrong = wrong or {}
    return JudgedSet([Query(q, q, wrong=wrong.get(q, ())) for q in qrels], qrels)


def test_hand_computed_ndcg_mrr_p5():
    # q1: right answer (2) at rank 2, related (1) at rank 3, a wrong one (0) first.
    # DCG = 0 + 2/log2(3) + 1/log2(4); ideal = 2 + 1/log2(3).
    j = judged({"q1": {"a": 2, "b": 1, "w": 0}})
    m = per_query({"q1": ["w", "a", "b"]}, j)["q1"]
    dcg = 2 / math.log2(3) + 1 / 2
    idcg = 2 + 1 / math.log2(3)
    assert m["ndcg@10"] == pytest.approx(dcg / idcg)
    assert m["mrr@10"] == pytest.approx(1 / 2)
    assert m["p@5"] == pytest.approx(1 / 5)


def test_mrr_counts_only_correct_answers_and_empty_ranking_scores_zero():
    j = judged({"q1": {"a": 2, "r": 1}, "q2": {"c": 2}})
    m = per_query({"q1": ["r", "x", "y", "a"]}, j)  # q2 returned nothing
    assert m["q1"]["mrr@10"] == pytest.approx(1 / 4)  # the related fact at 1 does not count
    assert m["q2"] == {"ndcg@10": 0.0, "mrr@10": 0.0, "p@5": 0.0}


def test_cutoffs_are_applied():
    j = judged({"q1": {"a": 2}})
    ranking = [f"x{i}" for i in range(10)] + ["a"]  # the answer at rank 11
    m = per_query({"q1": ranking}, j)["q1"]
    assert m == {"ndcg@10": 0.0, "mrr@10": 0.0, "p@5": 0.0}
    m = per_query({"q1": ["x0", "x1", "x2", "x3", "x4", "a"]}, j)["q1"]  # rank 6: out of P@5 only
    assert m["p@5"] == 0.0 and m["mrr@10"] == pytest.approx(1 / 6)


def test_rank_order_is_kept_whatever_the_ids():
    """trec_eval breaks score ties by id: the scores given to it must not tie."""
    j = judged({"q1": {"zzz": 2, "aaa": 0}})
    assert per_query({"q1": ["zzz", "aaa"]}, j)["q1"]["mrr@10"] == 1.0
    assert per_query({"q1": ["aaa", "zzz"]}, j)["q1"]["mrr@10"] == 0.5


def test_wrong_first_definition():
    q = Query("q", "q", wrong=("w",))
    grades = {"a": 2, "w": 0, "r": 1}
    assert wrong_first(["w", "a"], q, grades) is True
    assert wrong_first(["a", "w"], q, grades) is False
    assert wrong_first(["r", "x"], q, grades) is False  # no wrong answer shown
    assert wrong_first(["r", "w"], q, grades) is True  # wrong shown, no right one
    assert wrong_first(["a"] + ["x"] * 9 + ["w"], q, grades) is False
    assert wrong_first(["x"] * 10 + ["w"], q, grades) is False  # beyond the top 10
    assert wrong_first(["w", "a"], Query("c", "c"), grades) is None  # not contested


@settings(max_examples=150, deadline=None)
@given(grades=st.lists(st.integers(0, 2), min_size=1, max_size=15), perm=st.randoms(use_true_random=False))
def test_ideal_order_is_one_and_metrics_are_bounded(grades, perm):
    docs = [f"d{i}" for i in range(len(grades))]
    qrels = {"q": dict(zip(docs, grades, strict=True))}
    j = judged(qrels)
    shuffled = list(docs)
    perm.shuffle(shuffled)
    m = per_query({"q": shuffled}, j)["q"]
    for v in m.values():
        assert 0.0 <= v <= 1.0 + 1e-12
    ideal = sorted(docs, key=lambda d: -qrels["q"][d])
    best = per_query({"q": ideal}, j)["q"]
    if any(g > 0 for g in grades):
        assert best["ndcg@10"] == pytest.approx(1.0)
        assert m["ndcg@10"] <= best["ndcg@10"] + 1e-12
    if 2 in grades:
        assert best["mrr@10"] == 1.0
        assert best["p@5"] == pytest.approx(min(5, grades.count(2)) / 5)


def test_bootstrap_interval():
    assert bootstrap_ci([0.1] * 20) == pytest.approx((0.1, 0.1))
    lo, hi = bootstrap_ci([0.0, 0.2] * 30)
    assert lo < 0.1 < hi and lo > 0.0 and hi < 0.2
    assert bootstrap_ci([]) == (0.0, 0.0)
    assert bootstrap_ci([1.0, -1.0, 0.5], seed=3) == bootstrap_ci([1.0, -1.0, 0.5], seed=3)
