"""Trust context: the sensitivity x scope matrix, redaction, unknown values, get-by-id."""

from __future__ import annotations

import pytest
from memory_records import NOW, rec

from graph_trust.access.trust_context import (
    REDACTED_KEEPS,
    SENSITIVITY_LEVELS,
    Access,
    TrustContext,
    filter_by_trust,
    get_by_id,
    redact,
    sensitivity_level,
)
from graph_trust.config import load_settings
from graph_trust.context.agent import context_from_records
from graph_trust.errors import AccessDeniedError, ConfigError, InputError, MissingTrustContextError, NotFoundError

# Row: the context's max_sensitivity; columns: the record's sensitivity in SENSITIVITY_LEVELS
# order. F = full, R = redacted (exactly one level above), D = denied.
MATRIX = {
    "public": "FRDDD",
    "low": "FFRDD",
    "medium": "FFFRD",
    "high": "FFFFR",
    "hyper": "FFFFF",
}
CODE = {"F": Access.FULL, "R": Access.REDACTED, "D": Access.DENIED}


def test_levels_are_ordered():
    assert SENSITIVITY_LEVELS == ("public", "low", "medium", "high", "hyper")
    assert [sensitivity_level(s) for s in ("PUBLIC", " low ", "Medium", "high", "hyper")] == [0, 1, 2, 3, 4]
    assert sensitivity_level("secret") == -1 and sensitivity_level(None) == -1


@pytest.mark.parametrize("max_s", list(MATRIX))
@pytest.mark.parametrize("rec_i", range(5))
@pytest.mark.parametrize(
    ("ctx_scopes", "scope", "group", "in_scope"),
    [
        ((), "anything", "g", True),  # empty scope list allows all
        (("team-a",), "team-a", "g", True),
        (("team-a",), "team-b", "g", False),
        (("team-a",), None, "team-a", True),  # no scope property: the group is the scope
        (("team-a",), "team-b", "team-a", False),  # the scope property wins over the group
        (("team-a", "team-b"), "team-b", None, True),
    ],
)
def test_sensitivity_by_scope_matrix(max_s, rec_i, ctx_scopes, scope, group, in_scope):
    ctx = TrustContext(max_s, True, "alice", ctx_scopes)
    r = rec("r", sensitivity=SENSITIVITY_LEVELS[rec_i], scope=scope, group_id=group)
    expected = CODE[MATRIX[max_s][rec_i]] if in_scope else Access.DENIED
    assert ctx.access(r) is expected
    assert ctx.allows(r) is (expected is Access.FULL)
    assert ctx.allows_redacted(r) is (expected is Access.REDACTED)


@pytest.mark.parametrize("value", ["secret", "HIGHEST", "", "  ", "0"])
def test_unknown_sensitivity_is_denied(value):
    ctx = TrustContext("hyper", True, "root")
    assert ctx.access(rec("r", sensitivity=value)) is Access.DENIED


def test_missing_sensitivity_takes_the_configured_default():
    r = rec("r", sensitivity=None)
    assert TrustContext("low").access(r, "low") is Access.FULL
    assert TrustContext("public").access(r, "low") is Access.REDACTED
    assert TrustContext("medium").access(r, "hyper") is Access.DENIED
    with pytest.raises(ConfigError, match=r"context\.default_sensitivity"):
        filter_by_trust([r], TrustContext("low"), default_sensitivity="secret")


def test_unrestricted_sees_everything_even_unknown():
    ctx = TrustContext.unrestricted()
    recs = [rec("a", sensitivity="hyper"), rec("b", sensitivity="bogus"), rec("c", scope="x")]
    out = filter_by_trust(recs, ctx)
    assert [r.uuid for r in out.records] == ["a", "b", "c"] and (out.redacted, out.denied) == (0, 0)


def test_bad_max_sensitivity_is_an_input_error():
    with pytest.raises(InputError, match="secret"):
        TrustContext("secret")
    assert TrustContext(" HIGH ").max_sensitivity == "high"
    assert TrustContext("low", scopes="team-a").scopes == ("team-a",)


def test_redaction_keeps_metadata_and_removes_content():
    r = rec(
        "r",
        text="root password is hunter2",
        name="PASSWORD_IS",
        summary="secret summary",
        sensitivity="high",
        scope="ops",
        group_id="g",
        trust_score=0.9,
        relevance_raw=1.2,
        salience=0.7,
        subject="s",
        predicate="p",
        object="o",
        success_count=3,
        failure_count=1,
        attributes={"note": "secret note"},
    )
    x = redact(r)
    assert x.redacted and (x.text, x.name, x.summary) == ("", "", "")
    assert x.attributes == {} and (x.subject, x.predicate, x.object) == (None, None, None)
    assert (x.success_count, x.failure_count) == (None, None)
    assert (x.uuid, x.kind, x.memory_type, x.sensitivity, x.scope, x.group_id) == ("r", "edge", "fact", "high", "ops", "g")
    assert (x.trust_score, x.relevance_raw, x.salience, x.created_at) == (0.9, 1.2, 0.7, r.created_at)
    assert x.valid_at is None and x.reinforced_at is None  # the fact's own times are content
    kept = {f for f in REDACTED_KEEPS if getattr(x, f) not in (None, "", {})}
    assert kept <= set(REDACTED_KEEPS)


def test_filter_counts_and_order():
    ctx = TrustContext("medium", True, "alice", ("team-a",))
    recs = [
        rec("ok", sensitivity="low", scope="team-a"),
        rec("red", sensitivity="high", scope="team-a", text="secret"),
        rec("deny-level", sensitivity="hyper", scope="team-a"),
        rec("deny-scope", sensitivity="public", scope="team-b"),
    ]
    out = filter_by_trust(recs, ctx)
    assert [r.uuid for r in out.records] == ["ok", "red"]
    assert out.records[1].redacted and out.records[1].text == ""
    assert (out.redacted, out.denied, out.out_of_scope) == (1, 1, 1)  # out of scope: not counted as denied


def test_get_by_id_distinguishes_not_found_from_denied():
    recs = [rec("pub", sensitivity="public"), rec("high", sensitivity="high"), rec("hyper", sensitivity="hyper")]
    ctx = TrustContext("medium")
    assert get_by_id(recs, "pub", ctx).redacted is False
    assert get_by_id(recs, "high", ctx).redacted is True
    with pytest.raises(AccessDeniedError):
        get_by_id(recs, "hyper", ctx)
    with pytest.raises(NotFoundError):
        get_by_id(recs, "missing", ctx)
    with pytest.raises(MissingTrustContextError):
        get_by_id(recs, "pub", None)


def test_retrieval_without_trust_context_is_an_error(tmp_path):
    settings = load_settings(overrides={"state_dir": str(tmp_path)}, environ={})
    with pytest.raises(MissingTrustContextError):
        filter_by_trust([rec("a")], None)
    with pytest.raises(MissingTrustContextError):
        context_from_records([rec("a")], "q", settings=settings, trust_context=None, now=NOW)


def test_pipeline_denied_records_take_no_slot(tmp_path):
    settings = load_settings(
        overrides={"state_dir": str(tmp_path), "composite.max_results": 2}, environ={}
    )
    recs = [
        rec("hyper-1", sensitivity="hyper", trust_score=1.0),
        rec("hyper-2", sensitivity="hyper", trust_score=1.0),
        rec("ok-1", sensitivity="low", trust_score=0.5),
        rec("ok-2", sensitivity="low", trust_score=0.4),
    ]
    out = context_from_records(recs, "q", settings=settings, trust_context=TrustContext("medium"), now=NOW)
    assert [i.uuid for i in out.items] == ["ok-1", "ok-2"]
    assert out.denied == 2
