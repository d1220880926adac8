"""Trust override policy matrix, audit events (logging + state store), fail-closed pipeline."""

from __future__ import annotations

import logging
import math
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from memory_records import NOW, rec

from graph_trust.access.audit import AuditEvent, AuditStore, emit, list_events
from graph_trust.access.override import OverridePolicy, evaluate_override, request_override
from graph_trust.access.trust_context import TrustContext
from graph_trust.config import load_settings
from graph_trust.context.agent import context_from_records

OK_HIGH = dict(approved_by="security-reviewer", reason="incident-response runbook")


@pytest.mark.parametrize(
    ("requested", "policy", "decision", "applied", "violation"),
    [
        # system source: no actor needed
        (0.5, OverridePolicy("system"), "applied", 0.5, None),
        (0.95, OverridePolicy("system", **OK_HIGH), "applied", 0.95, None),
        (0.95, OverridePolicy("system"), "rejected", None, "approved_by"),
        (0.95, OverridePolicy("SYSTEM", approved_by="sec"), "rejected", None, "reason"),
        # non-system: actor required
        (0.5, OverridePolicy("api"), "rejected", None, "named actor"),
        (0.5, OverridePolicy("api", actor="   "), "rejected", None, "named actor"),
        (0.5, OverridePolicy("api", actor="ops-user"), "applied", 0.5, None),
        (0.89, OverridePolicy("api", actor="ops-user"), "applied", 0.89, None),
        # >= 0.90: a different approver and a reason
        (0.90, OverridePolicy("api", actor="ops-user"), "rejected", None, "approved_by"),
        (0.95, OverridePolicy("api", actor="ops-user", **OK_HIGH), "applied", 0.95, None),
        (0.95, OverridePolicy("api", actor="ops-user", approved_by="ops-user", reason="r"), "rejected", None, "different"),
        (0.95, OverridePolicy("api", actor="ops-user", approved_by=" OPS-USER ", reason="r"), "rejected", None, "different"),
        (0.95, OverridePolicy("api", actor="ops-user", approved_by="sec"), "rejected", None, "reason"),
        (0.95, OverridePolicy("api", actor="ops-user", approved_by="sec", reason=" "), "rejected", None, "reason"),
        # clamping: the clamped value is what the policy checks
        (-0.3, OverridePolicy("api", actor="ops-user"), "clamped", 0.0, None),
        (1.7, OverridePolicy("api", actor="ops-user"), "rejected", None, "approved_by"),
        (1.7, OverridePolicy("api", actor="ops-user", **OK_HIGH), "clamped", 1.0, None),
        # bad input fails closed
        (math.nan, OverridePolicy("system"), "rejected", None, "finite"),
        (math.inf, OverridePolicy("system"), "rejected", None, "finite"),
        ("0.5", OverridePolicy("system"), "rejected", None, "finite"),
        (True, OverridePolicy("system"), "rejected", None, "finite"),
        (0.5, None, "rejected", None, "policy"),
        (0.5, OverridePolicy(""), "rejected", None, "source"),
    ],
)
def test_policy_matrix(requested, policy, decision, applied, violation):
    d = evaluate_override(requested, policy)
    assert d.decision == decision
    assert d.applied == applied
    assert d.accepted is (applied is not None)
    if violation is None:
        assert d.violations == ()
    else:
        assert any(violation in v for v in d.violations), d.violations
    assert d.event.decision == decision
    assert d.event.violations == d.violations


def test_event_attribution():
    p = OverridePolicy("api", actor="ops-user", request_id="retrieval-override-001", **OK_HIGH)
    e = evaluate_override(0.9, p).event
    assert (e.event, e.actor, e.source, e.approved_by, e.request_id) == (
        "trust_override",
        "ops-user",
        "api",
        "security-reviewer",
        "retrieval-override-001",
    )
    assert (e.requested, e.applied, e.reason) == (0.9, 0.9, "incident-response runbook")


def test_audit_logged_and_stored(tmp_path: Path, caplog: pytest.LogCaptureFixture):
    store = AuditStore(tmp_path / "state.sqlite3")
    caplog.set_level(logging.INFO, logger="graph_trust.access.audit")
    ok = request_override(0.4, OverridePolicy("api", actor="a"), store)
    bad = request_override(0.99, OverridePolicy("api", actor="a"), store)
    assert ok.event.id is not None and bad.event.id is not None and bad.event.id > ok.event.id

    levels = [(r.levelname, r.audit_event["decision"]) for r in caplog.records if r.name == "graph_trust.access.audit"]
    assert levels == [("INFO", "applied"), ("WARNING", "rejected")]

    events = store.events()
    assert [(e.decision, e.requested, e.applied) for e in events] == [("applied", 0.4, 0.4), ("rejected", 0.99, None)]
    assert events[1].violations == bad.violations and events[1].actor == "a"
    assert store.events(limit=1)[0].decision == "rejected"  # the newest


def test_store_is_wal_with_its_own_table(tmp_path: Path):
    path = tmp_path / "state.sqlite3"
    with sqlite3.connect(path) as conn:  # another feature's table in the same file survives
        conn.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY)")
    emit(AuditEvent(event="other", decision="applied", details={"k": 1}), AuditStore(path))
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"runs", "audit_events"} <= tables
    stored = AuditStore(path).events(event="other")
    assert stored[0].details == {"k": 1}


def test_pipeline_fails_closed_and_audits(tmp_path: Path):
    settings = load_settings(overrides={"state_dir": str(tmp_path / "state")}, environ={})
    recs = [rec("a", trust_score=0.3), rec("b")]
    ctx = TrustContext.unrestricted()

    rejected = context_from_records(
        recs, "q", settings=settings, trust_context=ctx, trust_override=0.95,
        override_policy=OverridePolicy("api", actor="ops"), now=NOW,
    )
    assert rejected.override is not None and rejected.override.decision == "rejected"
    assert {i.uuid: (i.trust, i.trust_source) for i in rejected.items} == {
        "a": (0.3, "property"),
        "b": (0.25, "default"),  # absent trust: the candidate tier
    }

    applied = context_from_records(
        recs, "q", settings=settings, trust_context=ctx, trust_override=0.95,
        override_policy=OverridePolicy("api", actor="ops", **OK_HIGH), now=NOW,
    )
    assert {i.trust for i in applied.items} == {0.95}
    assert [e.decision for e in list_events(settings)] == ["rejected", "applied"]


# --- names that attribute the override to nobody -------------------------------------------


from graph_trust.access.override import PLACEHOLDER_NAMES, names_nobody  # noqa: E402

_ISSUE_NAMES = ["unknown", "anonymous", "bypass", "none", "null", "", " ", "\t\n", "\u3000"]


def _case_mix(draw, word: str) -> str:
    flips = draw(st.lists(st.booleans(), min_size=len(word), max_size=len(word)))
    return "".join(c.upper() if f else c.lower() for c, f in zip(word, flips))


@st.composite
def placeholder_names(draw):
    word = _case_mix(draw, draw(st.sampled_from(sorted(PLACEHOLDER_NAMES | set(_ISSUE_NAMES)))))
    left, right = draw(st.sampled_from([("", ""), ("<", ">"), ("(", ")"), ("[", "]"), ('"', '"'), ("'", "'")]))
    pad = draw(st.sampled_from(["", " ", "  ", "\t", "\u00a0"]))
    return f"{pad}{left}{word}{right}{pad}"


@hsettings(max_examples=300, deadline=None)
@given(name=placeholder_names(), value=st.floats(0.0, 1.0), field=st.sampled_from(["actor", "source", "approved_by"]))
def test_a_placeholder_name_is_missing_attribution_and_the_override_fails_closed(name, value, field):
    assert names_nobody(name)
    good = {"source": "api", "actor": "ops-user", "approved_by": "sec-lead", "reason": "incident 42"}
    if field == "approved_by":
        value = max(value, 0.9)  # approval only matters at or above the threshold
    d = evaluate_override(value, OverridePolicy(**{**good, field: name}))
    assert d.decision == "rejected" and d.applied is None
    assert d.event.decision == "rejected"


@pytest.mark.parametrize("name", ["unknown", "ANONYMOUS", " Bypass ", "NONE", "null", "", "   ", "<unknown>"])
def test_the_issue_names_reject_a_non_system_override(name):
    d = evaluate_override(0.5, OverridePolicy("api", actor=name))
    assert d.decision == "rejected"
    assert any("named actor" in v for v in d.violations)


@pytest.mark.parametrize("name", ["ops-user", "unknown-bot", "nonexistent", "anonymous.coward@example.com", "nullable", "Noné"])
def test_real_names_that_merely_contain_a_placeholder_still_attribute(name):
    assert not names_nobody(name)
    assert evaluate_override(0.5, OverridePolicy("api", actor=name)).decision == "applied"


def test_a_placeholder_approver_is_no_approval_and_the_audit_keeps_what_was_claimed():
    d = evaluate_override(0.95, OverridePolicy("api", actor="ops-user", approved_by="Anonymous", reason="r"))
    assert d.decision == "rejected"
    assert any("approved_by" in v and "names nobody" in v for v in d.violations)
    assert d.event.approved_by == "Anonymous"
