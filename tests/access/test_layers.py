"""Layers by memory type, salience filter and sort."""

from __future__ import annotations

from memory_records import NOW, rec

from graph_trust.access.layers import (
    DEFAULT_LAYER_ORDER,
    filter_by_salience,
    flatten,
    group_into_layers,
    salience_of,
    sort_by_salience,
)
from graph_trust.config import CompositeSettings, ContextSettings
from graph_trust.search.composite import score_records


def test_default_order_matches_config_default():
    assert list(DEFAULT_LAYER_ORDER) == ContextSettings().layer_order
    assert DEFAULT_LAYER_ORDER == ("instruction", "system", "fact", "goal", "preference", "observation")


def test_grouping_follows_order_then_unlisted_types():
    items = [
        rec("o1", memory_type="observation"),
        rec("x1", memory_type="runbook"),
        rec("f1"),
        rec("i1", memory_type="instruction"),
        rec("f2"),
        rec("x2", memory_type="zzz"),
    ]
    layers = group_into_layers(items)
    assert [(layer.memory_type, [r.uuid for r in layer.items]) for layer in layers] == [
        ("instruction", ["i1"]),
        ("fact", ["f1", "f2"]),  # incoming (rank) order kept
        ("observation", ["o1"]),
        ("runbook", ["x1"]),
        ("zzz", ["x2"]),
    ]
    custom = group_into_layers(items, ["Observation", "fact"])
    assert [layer.memory_type for layer in custom] == ["observation", "fact", "runbook", "instruction", "zzz"]
    assert [r.uuid for r in flatten(custom)] == ["o1", "f1", "f2", "x1", "i1", "x2"]


def test_salience_property_then_trust_then_default():
    assert salience_of(rec("a", salience=0.2, trust_score=0.9)) == 0.2
    assert salience_of(rec("b", trust_score=0.9)) == 0.9
    assert salience_of(rec("c")) == 0.5
    ranked = score_records([rec("d")], CompositeSettings(default_trust=0.5), now=NOW, trust_override=0.7)[0]
    assert salience_of(ranked) == 0.7  # effective trust of a ranked item


def test_salience_filter_and_sort_within_layers():
    items = [
        rec("f-low", salience=0.1),
        rec("f-mid", salience=0.5),
        rec("f-high", salience=0.9),
        rec("i-mid", memory_type="instruction", trust_score=0.6),
    ]
    assert [r.uuid for r in filter_by_salience(items, 0.5)] == ["f-mid", "f-high", "i-mid"]
    assert [r.uuid for r in sort_by_salience(items)] == ["f-high", "i-mid", "f-mid", "f-low"]
    layers = group_into_layers(items, min_salience=0.5, by_salience=True)
    assert [[r.uuid for r in layer.items] for layer in layers] == [["i-mid"], ["f-high", "f-mid"]]
    unsorted = group_into_layers(items, min_salience=0.5)
    assert [[r.uuid for r in layer.items] for layer in unsorted] == [["i-mid"], ["f-mid", "f-high"]]


def test_empty_layers_are_omitted():
    assert group_into_layers([]) == []
    assert [layer.memory_type for layer in group_into_layers([rec("g", memory_type="goal")])] == ["goal"]
