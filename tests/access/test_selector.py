"""Competing facts: signals, confidence, needs_more, alternatives."""

from __future__ import annotations

from datetime import timedelta

import pytest
from memory_records import NOW, rec

from graph_trust.access.selector import check_weights, competing_groups, resolve_competing, select, success_rate
from graph_trust.config import CompositeSettings
from graph_trust.errors import ConfigError
from graph_trust.search.composite import score_records


def backup(uuid: str, obj: str, **kw):
    kw.setdefault("relevance_raw", 1.0)  # applicability 0.5
    return rec(uuid, text=f"Backup runs at {obj}", subject="backup", predicate="RUNS_AT", object=obj, **kw)


def test_success_rate():
    assert success_rate(rec("a")) == 0.5
    assert success_rate(rec("a", success_count=0, failure_count=0)) == 0.5
    assert success_rate(rec("a", success_count=3)) == 1.0
    assert success_rate(rec("a", failure_count=2)) == 0.0
    assert success_rate(rec("a", success_count=9, failure_count=1)) == pytest.approx(0.9)


def test_confidence_and_needs_more():
    two = backup("2am", "2am", success_count=9, failure_count=1)
    three = backup("3am", "3am")
    sel = select([three, two], threshold=0.2, now=NOW)
    # scores: (0.5 + 0.9 + 1.0) / 3 = 0.8 and (0.5 + 0.5 + 1.0) / 3 = 0.6667
    assert sel.best is two and sel.alternatives == (three,)
    assert sel.scores == pytest.approx({"2am": 0.8, "3am": 2.0 / 3})
    assert sel.confidence == pytest.approx((0.8 - 2.0 / 3) / 0.8)
    assert sel.needs_more is True
    assert select([three, two], threshold=0.1, now=NOW).needs_more is False
    assert sel.signals["2am"] == pytest.approx({"applicability": 0.5, "success": 0.9, "recency": 1.0})


def test_equal_candidates_have_zero_confidence_and_keep_order():
    a, b = backup("a", "2am"), backup("b", "3am")
    sel = select([a, b], now=NOW)
    assert sel.best is a and sel.confidence == 0.0 and sel.needs_more is True


def test_zero_scores_give_zero_confidence():
    a = backup("a", "2am", relevance_raw=0.0, failure_count=1, age_h=None, reinforced_at=None)
    sel = select([a], weights={"applicability": 1.0, "success": 1.0, "recency": 0.0}, now=NOW)
    assert sel.scores["a"] == 0.0 and sel.confidence == 0.0 and sel.needs_more is True


def test_single_candidate_is_fully_confident():
    sel = select([backup("a", "2am")], now=NOW)
    assert sel.confidence == 1.0 and sel.needs_more is False and sel.alternatives == ()


def test_reinforcement_recency_prefers_reinforced_at():
    old = backup("old", "2am", age_h=1)
    reinforced = backup("new", "3am", age_h=240, reinforced_at=NOW - timedelta(minutes=5))
    sel = select([old, reinforced], now=NOW)
    assert sel.signals["new"]["recency"] > 0.99 and sel.signals["old"]["recency"] < 0.98
    assert sel.best is reinforced


def test_applicability_uses_the_composite_relevance_when_ranked():
    ranked = score_records(
        [backup("a", "2am", relevance_raw=2.0), backup("b", "3am", relevance_raw=0.2)], CompositeSettings(), now=NOW
    )
    sel = select(ranked, now=NOW)
    assert sel.best.uuid == "a"
    assert sel.signals["a"]["applicability"] == 1.0 and sel.signals["b"]["applicability"] == pytest.approx(0.1)


def test_weights_are_configurable_and_validated():
    a = backup("a", "2am", success_count=1, age_h=100)
    b = backup("b", "3am", failure_count=1, age_h=0)
    assert select([a, b], weights={"success": 1.0, "applicability": 0, "recency": 0}, now=NOW).best is a
    assert select([a, b], weights={"recency": 1.0, "applicability": 0, "success": 0}, now=NOW).best is b
    assert check_weights({"applicability": 2, "success": 1, "recency": 1}).tolist() == [0.5, 0.25, 0.25]
    with pytest.raises(ConfigError, match=r"selector_weights\.relevance"):
        check_weights({"relevance": 1.0})
    with pytest.raises(ConfigError, match=r"selector_weights\.success"):
        check_weights({"success": -1.0})
    with pytest.raises(ConfigError, match="sum to 0"):
        check_weights({"success": 0.0})


def test_groups_need_same_subject_and_predicate_and_different_objects():
    items = [
        backup("a", "2am"),
        rec("other", subject="backup", predicate="STORED_IN", object="s3"),
        backup("b", "3am"),
        rec("dup1", subject="db", predicate="HOSTED_ON", object="h1"),
        rec("dup2", subject="db", predicate="hosted_on", object=" H1 "),  # same object: no competition
        backup("c", "2AM"),
        rec("nosubj", predicate="RUNS_AT", object="4am"),
    ]
    assert competing_groups(items) == [[0, 2, 5]]


def test_resolve_keeps_best_in_group_slot_and_reports_alternatives():
    items = [
        rec("first", memory_type="instruction", subject="x", predicate="y", object="z"),
        backup("3am", "3am"),
        backup("2am", "2am", success_count=5),
        rec("last"),
    ]
    kept, selections = resolve_competing(items, now=NOW)
    assert [k.uuid for k in kept] == ["first", "2am", "last"]
    assert len(selections) == 1
    sel = selections[0]
    assert sel.best.uuid == "2am" and [a.uuid for a in sel.alternatives] == ["3am"]
    assert (sel.subject, sel.predicate) == ("backup", "RUNS_AT")


def test_redacted_records_do_not_compete():
    items = [backup("a", "2am"), backup("b", "3am", redacted=True)]
    assert competing_groups(items) == []


def test_select_needs_a_candidate():
    with pytest.raises(ValueError):
        select([])
