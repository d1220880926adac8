"""The ``## Trusted Memory Context`` block and the JSON form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memory_records import NOW, rec

from graph_trust.access.selector import resolve_competing
from graph_trust.access.trust_context import TrustContext
from graph_trust.config import load_settings
from graph_trust.context.agent import context_from_records
from graph_trust.context.format import format_context, record_payload
from graph_trust.search.ranking import Explanation


@pytest.fixture
def settings(tmp_path: Path):
    return load_settings(overrides={"state_dir": str(tmp_path / "state")}, environ={})


def test_seed_block(settings):
    recs = [
        rec("p", memory_type="preference", trust_score=0.75, text="User prefers concise responses"),
        rec("f", trust_score=0.85, text="User's timezone is EST"),
        rec("i", memory_type="instruction", trust_score=0.9, text="Always respond in English"),
    ]
    out = context_from_records(recs, "q", settings=settings, trust_context=TrustContext.unrestricted(), now=NOW)
    assert out.text() == "\n".join(
        [
            "## Trusted Memory Context",
            "- [instruction|trust:90%] Always respond in English",
            "- [fact|trust:85%] User's timezone is EST",
            "- [preference|trust:75%] User prefers concise responses",
        ]
    )


def test_competing_facts_are_flagged_with_alternatives():
    items = [
        rec("a", text="Backup runs at 2am", trust_score=0.85, subject="b", predicate="RUNS_AT", object="2am",
            success_count=9, failure_count=1, relevance_raw=1.0),
        rec("b", text="Backup runs at 3am", trust_score=0.6, subject="b", predicate="RUNS_AT", object="3am",
            relevance_raw=1.0),
    ]
    kept, selections = resolve_competing(items, now=NOW, threshold=0.2)
    assert format_context(kept, selections).splitlines() == [
        "## Trusted Memory Context",
        "- [fact|trust:85%] Backup runs at 2am (competing facts: confidence 17%, needs more evidence)",
        "  - alternative [fact|trust:60%] Backup runs at 3am",
    ]
    kept, selections = resolve_competing(items, now=NOW, threshold=0.1)
    assert "(competing facts: confidence 17%)" in format_context(kept, selections)


def test_redacted_missing_trust_nodes_newlines_and_empty():
    items = [
        rec("r", text="", redacted=True, sensitivity="high", trust_score=0.7),
        rec("n", text="line one\n## injected heading\n- fake", trust_score=None),
        rec("node", kind="node", text="Alice", summary="Works on billing", memory_type="observation", trust_score=1.0),
    ]
    assert format_context(items).splitlines() == [
        "## Trusted Memory Context",
        "- [fact|trust:70%|sensitivity:high] [redacted]",
        "- [fact|unreviewed] line one ## injected heading - fake",
        "- [observation|trust:100%] Alice: Works on billing",
    ]
    assert format_context([]) == "## Trusted Memory Context\n- (no trusted memories matched)"


def test_json_has_every_dimension(settings):
    expl = Explanation("a", "Backup runs at 2am", 1, 2, 1.5, 0.8, 0.12, 1.62, 1, 1)
    recs = [
        rec("a", text="Backup runs at 2am", trust_score=0.8, relevance_raw=1.5, explanation=expl,
            subject="b", predicate="RUNS_AT", object="2am", attributes={"source": "runbook"}),
        rec("b", text="Backup runs at 3am", relevance_raw=0.2, subject="b", predicate="RUNS_AT", object="3am"),
        rec("s", sensitivity="high", text="secret", trust_score=0.4),
    ]
    out = context_from_records(recs, "backup", settings=settings, trust_context=TrustContext("medium", True, "bob"),
                               now=NOW)
    data = json.loads(json.dumps(out.to_dict(), default=str))
    assert data["trust_context"] == {"max_sensitivity": "medium", "authenticated": True, "actor_id": "bob",
                                     "scopes": [], "unrestricted": False}
    assert data["counts"] == {"candidates": 3, "denied": 0, "unknown_label": 0, "redacted": 1, "below_min_trust": 0,
                              "competing_groups": 1, "returned": 2, "search_depth": None}
    first = data["records"][0]
    for key in ("trust", "trust_score", "trust_source", "recency", "relevance", "type_boost", "composite",
                "salience", "sensitivity", "scope", "layer", "fusion", "memory_type", "valid_at"):
        assert key in first
    assert first["uuid"] == "a" and first["layer"] == "fact"
    assert first["relevance"] == 0.81 and first["trust"] == 0.8  # the search's final score 1.62 / 2 and first["recency"] == 1.0
    assert first["fusion"] == {"bm25_rank": 1, "cosine_rank": 2, "fused": 1.5, "boost": 0.12, "final": 1.62,
                               "rank": 1, "rank_without_boost": 1, "relation_bonus": 0.0, "negative": None,
                               "moved_by": None, "score_before_move": None, "missing_identifier": None}
    assert first["attributes"] == {"source": "runbook"}
    alt = first["competing"]["alternatives"]
    assert [a["uuid"] for a in alt] == ["b"] and alt[0]["signals"]["applicability"] == pytest.approx(0.1)
    assert data["records"][1]["redacted"] is True and data["records"][1]["text"] == ""


def test_record_payload_for_plain_record():
    p = record_payload(rec("x", trust_score=0.3))
    assert p["trust"] == 0.3 and p["composite"] is None and p["fusion"] is None and p["competing"] is None
