"""Contradiction detection over generated facts, and each resolution strategy in order."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graph_trust.confidence import contradiction as c
from graph_trust.confidence.resolution import Claim, load_hook, resolve
from graph_trust.errors import ConfigError

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def F(i, s, p, o, text=None):
    return c.Fact(str(i), s, p, o, text)


def test_same_subject_predicate_different_object():
    found = c.detect([F(1, "Backup job", "runs_at", "2am"), F(2, " backup job ", "RUNS_AT", "3am"),
                      F(3, "backup job", "owned_by", "ops")])
    assert [(x.a, x.b, x.type, x.severity) for x in found] == [("1", "2", "conflicting_value", "high")]
    assert found[0].detail == "time 120 vs 180"


@pytest.mark.parametrize("a, b, kind", [
    ("port 9200", "port 9300", "port"),
    ("es1:9200", "es1:9300", "port"),
    ("02:00 UTC", "03:30 UTC", "time"),
    ("2 pm", "3pm", "time"),
    ("v7.10.2", "7.17", "version"),
])
def test_conflicting_values(a, b, kind):
    x = c.classify(F(1, "s", "p", a), F(2, "s", "p", b))
    assert x.type == "conflicting_value" and x.detail.startswith(kind)


@pytest.mark.parametrize("a, b", [("running", "stopped"), ("service is enabled", "disabled"), ("online", "offline"),
                                  ("Inactive", "active"), ("healthy", "degraded now")])
def test_exclusive_states(a, b):
    x = c.classify(F(1, "redis", "state", a), F(2, "redis", "state", b))
    assert x.type == "exclusive_state" and x.severity == "high"


def test_not_exclusive_when_words_only_overlap():
    # 'disabled' does not contain the state 'enabled' as a word; both name both states: no exclusion
    assert c.exclusive_states("disabled", "disabled") is None
    assert c.exclusive_states("running or stopped", "stopped") is None
    x = c.classify(F(1, "team", "member", "alice"), F(2, "team", "member", "bob"))
    assert x.type == "different_object" and x.severity == "medium"


def test_agreeing_facts_do_not_contradict_and_one_pair_per_object():
    facts = [F(1, "es", "port", "9200"), F(2, "ES", "port", " 9200 "), F(3, "es", "port", "9300"),
             F(4, "es", "port", "9300")]
    assert [(x.a, x.b) for x in c.detect(facts)] == [("1", "3")]
    assert c.detect([F(1, "", "p", "a"), F(2, "", "p", "b")]) == []  # no subject: nothing to compare


names = st.sampled_from(["es", "redis", "db", "backup"])
preds = st.sampled_from(["port", "state", "runs_at"])
objs = st.sampled_from(["9200", "9300", "running", "stopped", "2am", "3am", "x"])


@given(st.lists(st.tuples(names, preds, objs), max_size=40))
def test_detect_finds_exactly_the_pairs_of_distinct_objects(rows):
    facts = [F(i, s, p, o) for i, (s, p, o) in enumerate(rows)]
    found = c.detect(facts)
    by_id = {f.id: f for f in facts}
    # every pair found shares subject and predicate and differs in object
    for x in found:
        a, b = by_id[x.a], by_id[x.b]
        assert (a.subject, a.predicate) == (b.subject, b.predicate) and a.object != b.object
    # and every pair of distinct objects under one key is found once
    want = 0
    keys = {(s, p) for s, p, _ in rows}
    for k in keys:
        n = len({o for s, p, o in rows if (s, p) == k})
        want += n * (n - 1) // 2
    assert len(found) == want
    assert len({frozenset((x.a, x.b)) for x in found}) == len(found)


# --- resolution ------------------------------------------------------------------------------

def claim(i, days_ago=0, source=0.6, agents=1):
    return Claim(i, NOW - timedelta(days=days_ago), source, agents)


def test_temporal_newer_wins_when_more_than_30_days_apart():
    r = resolve(claim("old", 45), claim("new", 10))
    assert (r.strategy, r.winner, r.loser) == ("temporal", "new", "old")
    assert "supersedes" in r.reason
    assert resolve(claim("a", 40), claim("b", 10)).strategy != "temporal"  # exactly 30 days: not decisive


def test_source_credibility_gap_above_0_3():
    r = resolve(claim("a", 5, source=0.9), claim("b", 1, source=0.55))
    assert (r.strategy, r.winner, r.loser) == ("source_credibility", "a", "b")
    assert resolve(claim("a", 5, source=0.8), claim("b", 1, source=0.5)).strategy != "source_credibility"


def test_consensus_more_than_two_more_agents_either_side():
    r = resolve(claim("a", agents=1), claim("b", agents=4))
    assert (r.strategy, r.winner, r.loser) == ("consensus", "b", "a")
    assert resolve(claim("a", agents=1), claim("b", agents=3)).strategy == "agent_review"


def test_system_verification_hook():
    seen = []

    def hook(a, b):
        seen.append((a, b))
        return "b"

    r = resolve(claim("a"), claim("b"), system_verify=hook)
    assert (r.strategy, r.winner, r.loser, seen) == ("system_verification", "b", "a", [("a", "b")])
    r = resolve(claim("a"), claim("b"), system_verify=lambda a, b: None)
    assert r.strategy == "agent_review" and not r.resolved
    with pytest.raises(ValueError, match="neither"):
        resolve(claim("a"), claim("b"), system_verify=lambda a, b: "zzz")


def test_order_temporal_before_credibility_before_consensus():
    r = resolve(claim("old", 100, source=1.0, agents=9), claim("new", 0, source=0.1, agents=1))
    assert r.strategy == "temporal" and r.winner == "new"
    r = resolve(claim("a", 0, source=0.9, agents=1), claim("b", 0, source=0.2, agents=9))
    assert r.strategy == "source_credibility" and r.winner == "a"


def test_flagged_when_nothing_decides():
    r = resolve(claim("a"), claim("b"))
    assert (r.strategy, r.winner, r.loser) == ("agent_review", None, None)


def test_load_hook():
    assert load_hook(None) is None
    assert load_hook("os.path:join") is not None
    with pytest.raises(ConfigError, match="confidence.system_verification_hook"):
        load_hook("no_such_module_xyz:f")
    with pytest.raises(ConfigError, match="not callable"):
        load_hook("os:sep")


@given(st.floats(0, 400), st.floats(0, 400), st.floats(0, 1), st.floats(0, 1), st.integers(1, 10),
       st.integers(1, 10))
def test_resolution_is_symmetric(da, db, sa, sb, na, nb):
    a, b = claim("a", da, sa, na), claim("b", db, sb, nb)
    r1, r2 = resolve(a, b), resolve(b, a)
    assert (r1.strategy, r1.winner, r1.loser) == (r2.strategy, r2.winner, r2.loser)


# --- the comparison key is SQLite's lower(trim()) --------------------------------------------

keys = st.text(alphabet=st.sampled_from(list(" \t\nabcXYZ09_-.") + ["É", "é", "ß", "İ", "Ω", "\u00a0"]), max_size=12)


@given(keys)
def test_norm_is_sqlites_lower_trim(v):
    # consensus clusters are grouped in SQL and contradictions in Python: the two keys must agree
    with sqlite3.connect(":memory:") as db:
        assert c.norm(v) == db.execute("SELECT lower(trim(?))", (v,)).fetchone()[0]


def test_norm_ignores_only_ascii_case_and_spaces():
    assert c.norm(None) is None
    assert c.norm("  Redis\t") == "redis\t" and c.norm(" ÉCOLE Ab ") == "École ab"
    assert c.norm("X") == "x" and c.norm("ΩMEGA") == "Ωmega"


# --- times of day, 12- and 24-hour ------------------------------------------------------------

@given(st.integers(0, 23), st.integers(0, 59), st.sampled_from(["{h}:{m:02d} {ap}m", "{h}:{m:02d}{AP}M",
                                                                  "{h}:{m:02d} {ap}.m."]))
def test_a_time_is_its_minutes_after_midnight_in_either_clock(h, m, form):
    minutes = frozenset({str(h * 60 + m)})
    assert c.values(f"at {h:02d}:{m:02d} utc") == {"time": minutes}
    h12, ap = (h % 12 or 12), ("a" if h < 12 else "p")
    assert c.values(form.format(h=h12, m=m, ap=ap, AP=ap.upper())) == {"time": minutes}
    if m == 0:
        assert c.values(f"{h12}{ap}m") == {"time": minutes}
    # the same time in the two clocks is no conflict
    x = c.classify(F(1, "backup", "runs_at", f"{h:02d}:{m:02d}"), F(2, "backup", "runs_at", f"{h12}:{m:02d} {ap}m"))
    assert x.type == "different_object"


@pytest.mark.parametrize("text", ["24:00", "25:10", "10:60", "23:75"])
def test_no_time_of_day_outside_the_clock(text):
    assert c.values(text) == {}


def test_a_12_hour_time_is_not_also_read_as_a_24_hour_one():
    assert c.values("2:30 pm") == {"time": frozenset({"870"})}  # 14:30, not also 02:30
    assert c.classify(F(1, "job", "runs_at", "2:30 pm"), F(2, "job", "runs_at", "14:30")).type == "different_object"
    assert c.values("12 am") == {"time": frozenset({"0"})} and c.values("12:30pm") == {"time": frozenset({"750"})}


# --- what the contradiction says ---------------------------------------------------------------

def test_exclusive_state_detail_names_each_sides_state():
    x = c.classify(F(1, "redis", "state", "stopped"), F(2, "redis", "state", "running"))
    assert (x.a, x.b, x.type, x.severity, x.detail) == ("1", "2", "exclusive_state", "high", "stopped vs running")
    assert c.classify(F(1, "redis", "state", "up"), F(2, "redis", "state", "down")).detail == "up vs down"
    assert c.exclusive_states("now offline", "online") == ("offline", "online")


def test_conflicting_value_detail_lists_each_sides_values():
    x = c.classify(F(1, "es", "listens", "port 9300, port 9200"), F(2, "es", "listens", "port 9400"))
    assert (x.type, x.severity, x.detail) == ("conflicting_value", "high", "port 9200,9300 vs 9400")
    y = c.classify(F(1, "es", "listens", "port 9400"), F(2, "es", "listens", "port 9200 or port 9300"))
    assert y.detail == "port 9400 vs 9200,9300"


def test_different_object_detail_quotes_both_objects():
    x = c.classify(F(1, "team", "lead", "alice"), F(2, "team", "lead", "bob"))
    assert (x.type, x.severity, x.detail) == ("different_object", "medium", "'alice' vs 'bob'")


def test_objects_that_agree_as_keys_do_not_contradict():
    assert c.classify(F(1, "redis", "state", "Running "), F(2, "redis", "state", " running")) is None
    assert c.classify(F(1, "redis", "state", None), F(2, "redis", "state", None)) is None


def test_the_predicate_and_the_text_are_read_for_values_and_states():
    # a bare value takes its kind from the predicate
    x = c.classify(F(1, "es", "port", "9200"), F(2, "es", "port", "9300"))
    assert (x.type, x.detail) == ("conflicting_value", "port 9200 vs 9300")
    # the states may be in the fact's text only
    y = c.classify(F(1, "redis", "role", "primary", "redis is running"), F(2, "redis", "role", "replica",
                                                                        "redis was stopped"))
    assert (y.type, y.detail) == ("exclusive_state", "running vs stopped")


def test_detect_compares_the_first_50_objects_by_default():
    facts = [F(i, "svc", "owner", f"team {i}") for i in range(52)]
    found = c.detect(facts)
    assert len(found) == 50 * 49 // 2
    assert {int(x.a) for x in found} | {int(x.b) for x in found} == set(range(50))
    assert [(x.a, x.b) for x in c.detect(facts[::-1], max_objects=3)] == [("51", "50"), ("51", "49"), ("50", "49")]
