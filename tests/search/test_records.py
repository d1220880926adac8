"""MemoryRecord from Graphiti EntityEdge / EntityNode, and memory-type inference."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EntityNode
from hypothesis import given
from hypothesis import strategies as st

from graph_trust.errors import InputError
from graph_trust.graph.temporal import as_datetime
from graph_trust.search.ranking import Explanation
from graph_trust.search.records import infer_memory_type, record_from_item, records_from_results

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def edge(uuid: str, fact: str, name: str = "RELATES_TO", **attrs):
    return EntityEdge(uuid=uuid, group_id="g", source_node_uuid="s", target_node_uuid="t", name=name, fact=fact,
                      created_at=T0, valid_at=T0, attributes=attrs)


def expl(uuid: str, fused: float = 1.0, trust: float | None = None) -> Explanation:
    return Explanation(uuid, "", 1, 1, fused, trust, 0.0, fused, 1, 1)


@pytest.mark.parametrize(
    ("name", "fact", "declared", "expected"),
    [
        ("RELATES_TO", "The agent must answer in English", None, "instruction"),
        ("RULE", "Never deploy on Fridays", None, "instruction"),
        ("RULE", "Do not   page the on-call twice", None, "instruction"),
        ("PLANS_TO", "Alice plans to migrate the DB", None, "goal"),
        ("HAS_GOAL", "Reduce latency", None, "goal"),
        ("PREFERS", "User prefers dark mode", None, "preference"),
        ("LIKES", "Bob likes tea", None, "preference"),
        ("RUNS_AT", "Backup runs at 2am", None, "fact"),
        ("RUNS_AT", "Mustang is a car", None, "fact"),  # whole words only
        ("RUNS_AT", "Always restart", " System ", "system"),  # the property wins
        ("RUNS_AT", "x", "runbook", "runbook"),
    ],
)
def test_edge_type_inference(name, fact, declared, expected):
    assert infer_memory_type("edge", name, fact, declared) == expected


def test_node_type_defaults_to_observation():
    assert infer_memory_type("node", "Alice", "Alice must go") == "observation"
    assert infer_memory_type("node", "Alice", "", "goal") == "goal"


def test_edge_record_reads_owned_properties():
    e = edge("e1", "Backup runs at 2am", "RUNS_AT", trust_score=0.8, memory_type="FACT", sensitivity="High",
             scope="ops", salience=0.4, success_count=3, failure_count=1.0, reinforced_at="2026-01-02T00:00:00Z",
             source="review")
    r = record_from_item(e)
    assert (r.kind, r.text, r.name, r.group_id, r.scope, r.memory_type, r.sensitivity) == (
        "edge", "Backup runs at 2am", "RUNS_AT", "g", "ops", "fact", "high")
    assert (r.trust_score, r.salience, r.success_count, r.failure_count) == (0.8, 0.4, 3, 1)
    assert (r.subject, r.predicate, r.object) == ("s", "RUNS_AT", "t")
    assert r.reinforced_at == datetime(2026, 1, 2, tzinfo=UTC) and r.valid_at == T0
    assert r.attributes == {"source": "review"} and r.relevance_raw is None
    assert r.effective_scope == "ops"


def test_bad_property_values_are_ignored_or_clamped():
    r = record_from_item(edge("e", "f", trust_score="high", salience=7, success_count=-1, sensitivity="  "))
    assert (r.trust_score, r.salience, r.success_count, r.sensitivity) == (None, None, None, None)
    assert record_from_item(edge("e", "f", trust_score=1.5)).trust_score == 1.0  # as the search stage
    assert r.effective_scope == "g"


def test_node_record_and_explanations():
    n = EntityNode(uuid="n1", name="Alice", group_id="g", summary="Works on billing", created_at=T0,
                   attributes={"trust_score": 0.3})

    class Results:  # the shape of TrustSearchResults
        edges = [edge("e1", "f1"), edge("e2", "f2")]
        nodes = [n]
        edge_explanations = [expl("e1", 1.5, 0.9), expl("e2", 0.5)]
        node_explanations = [expl("n1", 1.0, 0.3)]

    recs = records_from_results(Results())
    assert [(r.uuid, r.kind, r.relevance_raw, r.trust_score) for r in recs] == [
        ("e1", "edge", 1.5, 0.9), ("e2", "edge", 0.5, None), ("n1", "node", 1.0, 0.3)]
    node = recs[2]
    assert (node.text, node.summary, node.memory_type, node.subject) == ("Alice", "Works on billing", "observation", None)
    assert recs[0].explanation is Results.edge_explanations[0]


def test_misaligned_explanations_are_an_input_error():
    with pytest.raises(InputError, match="align"):
        records_from_results([edge("e1", "f")], [expl("e1"), expl("e2")])
    with pytest.raises(InputError, match="uuids differ"):
        records_from_results([edge("e1", "f")], [expl("zz")])


def test_as_datetime():
    assert as_datetime("2026-01-01T00:00:00") == T0
    assert as_datetime(T0.timestamp()) == T0
    assert as_datetime("not a date") is None and as_datetime(float("nan")) is None and as_datetime(True) is None


@pytest.mark.parametrize("text", [
    "The recovery point objective for billing-db is 15 minutes",
    "The recovery time objective of ledger-db is 1 hour",
    "The service level objective is 99.9% availability",
    "Backups must be encrypted at rest",
    "The TLS certificate should be renewed 30 days before expiry",
    "Every deploy must pass the smoke tests",
])
def test_facts_that_merely_contain_must_or_objective_stay_facts(text):
    assert infer_memory_type("edge", "RELATES_TO", text) == "fact"


@pytest.mark.parametrize("text,kind", [
    ("Always page the primary on-call first", "instruction"),
    ("You should answer in English", "instruction"),
    ("Our goal is to retire the legacy queue by Q3", "goal"),
    ("The objective is to halve p99 latency", "goal"),
])
def test_addressed_instructions_and_stated_aims_keep_their_type(text, kind):
    assert infer_memory_type("edge", "RELATES_TO", text) == kind


@given(st.sampled_from(["The user's", "Alice's", "the team's", "Our", "my", "his", "her", "their", "The customers'",
                        "The", "the project’s"]),
       st.sampled_from(["", "main ", "primary ", "long-term ", "single biggest "]),
       st.sampled_from(["goal is", "goals are", "goal was", "goal:", "goal remains", "goal of the quarter is"]),
       st.sampled_from(["to learn Python", "a faster checkout", "zero downtime deploys"]))
def test_a_sentence_stating_someones_goal_is_a_goal(owner, qualifier, verb, what):
    text = f"{owner} {qualifier}{verb} {what}"
    assert infer_memory_type("edge", "RELATES_TO", text) == "goal", text


@pytest.mark.parametrize("text", ["The team scored a goal in the final", "the goal keeper is Alice",
                                  "billing-db backup runs at 3am UTC", "The recovery point objective is 15 minutes",
                                  "Goalposts were moved to the north field"])
def test_a_sentence_that_only_mentions_a_goal_is_not_one(text):
    assert infer_memory_type("edge", "RELATES_TO", text) == "fact"
