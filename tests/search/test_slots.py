"""Competing slots: one key, which relations hold one value (learned from review decisions,
configured, or the default), and every stage that compares slots honouring it: trust search's
competitor keys, the composite rank, the context's selector (verified wins) and the review
queue's contested-slot rule."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from relation_rule import plain_rule

from graph_trust.access.selector import competing_groups, resolve_competing, select, verdict_rank
from graph_trust.config import CompositeSettings, load_settings
from graph_trust.errors import ConfigError
from graph_trust.search.composite import rank_composite
from graph_trust.search.pool_facts import competitor_keys
from graph_trust.search.records import MemoryRecord
from graph_trust.search.slots import ALL_SINGLE, Relations, learn_relations, relation_key, slot_key

NOW = datetime(2026, 10, 1, tzinfo=UTC)
STATUSES = ["promoted", "corroborated", "candidate", "rejected", "expired", None]


def test_one_key_for_every_spelling_of_a_relation():
    assert relation_key("depends on") == relation_key("DEPENDS_ON") == relation_key(" Depends-On ") == "DEPENDS_ON"
    assert slot_key("Payments  API", "runs on") == slot_key("payments api", "RUNS_ON")
    assert slot_key("", "RUNS_ON") is None and slot_key("s", "  ") is None and slot_key(None, "X") is None


rows_st = st.lists(st.tuples(st.sampled_from(["api", "db", "Api"]),
                             st.sampled_from(["RUNS_ON", "runs on", "OWNED_BY", "DEPENDS_ON"]),
                             st.sampled_from(["h1", "h2", "H1", "h3"]), st.sampled_from(STATUSES)), max_size=25)


@given(rows_st)
def test_learning_follows_the_documented_rule_over_random_review_histories(rows):
    for default in ("single", "multi"):
        learned = learn_relations(rows, default=default)
        assert {k: v.cardinality for k, v in learned.items()} == plain_rule(rows, default)
        assert all(v.source in ("review", "default") and v.reason for v in learned.values())
        # order of the decisions does not matter
        again = learn_relations(list(reversed(rows)), default=default)
        assert {k: v.cardinality for k, v in again.items()} == plain_rule(rows, default)


@st.composite
def histories(draw):
    """Review histories of relations whose truth is known: a single-valued relation's subjects have
    one true value and wrong ones, a multi-valued relation's two or three true values and sometimes
    a wrong one. A careful reviewer verifies true values and rejects wrong ones; a *noisy* subject
    is one where the reviewer erred (verified a wrong value, or rejected a true one). Some values
    stay unreviewed. Returns (rows, truth, per relation: clean multi-value subjects, noisy subjects,
    subjects whose evidence says one value)."""
    rows, truth, stats = [], {}, {}
    for r in range(draw(st.integers(1, 4))):
        rel = f"REL_{r}"
        truth[rel] = draw(st.sampled_from(["single", "multi"]))
        clean_several = noisy = shows_one = 0
        for k in range(draw(st.integers(1, 7))):
            subj = f"{rel.lower()}-subject-{k}"
            n_true = 1 if truth[rel] == "single" else draw(st.integers(2, 3))
            n_wrong = draw(st.integers(0, 2))
            err = draw(st.booleans()) and draw(st.booleans())  # about one subject in four is noisy
            reviewed = draw(st.lists(st.booleans(), min_size=n_true + n_wrong, max_size=n_true + n_wrong))
            decided = []
            for i in range(n_true + n_wrong):
                correct = i < n_true
                status = "promoted" if correct else "rejected"
                if err and i == (n_true if n_wrong and truth[rel] == "single" else 0):
                    status = "rejected" if correct else "corroborated"  # the reviewer's one mistake
                elif not reviewed[i]:
                    status = "candidate"
                decided.append(status)
                rows.append((subj, rel, f"value-{i}", status))
            noisy += err and any(x in ("promoted", "corroborated", "rejected") for x in decided)
            verified = sum(x in ("promoted", "corroborated") for x in decided)
            clean_several += not err and verified >= 2
            shows_one += verified == 1 and "rejected" in decided
        stats[rel] = (clean_several, noisy, shows_one)
    return rows, truth, stats


@hsettings(max_examples=200)
@given(histories(), st.sampled_from(["single", "multi"]))
def test_learning_weighs_subjects_so_noise_does_not_flip_a_relation(history, default):
    rows, truth, stats = history
    learned = learn_relations(rows, default=default)
    assert {k: v.cardinality for k, v in learned.items()} == plain_rule(rows, default)
    for rel, (clean_several, noisy, shows_one) in stats.items():
        got = learned.get(rel)
        if truth[rel] == "single" and noisy <= 1:
            # one subject verified twice by mistake never makes the relation's facts stop competing
            assert got is None or got.cardinality == "single" or got.source == "default", got
        if truth[rel] == "multi" and clean_several >= 2 and shows_one <= clean_several:
            # enough subjects with several values verified, no more against them: noise does not flip it either
            assert got is not None and got.cardinality == "multi", (got, clean_several, shows_one)
        # each relation is learned from its own rows alone: the other relations in the history change nothing
        alone = learn_relations([r for r in rows if r[1] == rel], default=default)
        assert alone.get(rel) == got


def test_ties_and_too_little_evidence_are_decided_as_documented():
    def rows(several: int, one: int) -> list[tuple[str, str, str, str]]:
        out = []
        for k in range(several):
            out += [(f"m{k}", "RUNS_ON", "h1", "promoted"), (f"m{k}", "RUNS_ON", "h2", "corroborated")]
        for k in range(one):
            out += [(f"s{k}", "RUNS_ON", "h1", "promoted"), (f"s{k}", "RUNS_ON", "h2", "rejected")]
        return out

    assert learn_relations(rows(2, 2))["RUNS_ON"].cardinality == "multi"  # a tie goes to several
    assert learn_relations(rows(2, 3))["RUNS_ON"].cardinality == "single"
    one_noisy = learn_relations(rows(1, 1))["RUNS_ON"]  # the demo's case: one subject never flips it
    assert one_noisy.cardinality == "single" and one_noisy.source == "review"
    assert one_noisy.reason.startswith("1 subject with several verified values, 1 with one ('s0': 'h1' verified")
    alone = learn_relations(rows(1, 0), default="multi")["RUNS_ON"]
    assert alone.cardinality == "multi" and alone.source == "default" and "several values needs 2" in alone.reason
    assert learn_relations(rows(1, 0))["RUNS_ON"].cardinality == "single"
    multi = learn_relations(rows(3, 1))["RUNS_ON"]
    assert multi.reason == "3 subjects with several verified values, 1 with one ('m0' has 2 verified values ('h1', 'h2'))"


def test_configuration_wins_over_learning_and_the_default_covers_the_rest():
    learned = learn_relations([(s, "RUNS_ON", h, "promoted") for s in ("a", "b") for h in ("h1", "h2")])
    rel = Relations.of(single=["runs on"], multi=["calls"], default="single", learned=learned)
    assert rel.verdict("RUNS_ON").source == "config" and rel.competes("RUNS_ON")
    assert not Relations.of(learned=learned).competes("runs_on")
    assert not rel.competes("CALLS") and rel.verdict("OWNED_BY").source == "default" and rel.competes("OWNED_BY")
    assert not Relations.of(default="multi").competes("OWNED_BY")


def test_a_relation_in_both_lists_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="DEPENDS_ON"):
        load_settings(overrides={"search.single_valued": ["depends on"], "search.multi_valued": ["DEPENDS_ON"]},
                      environ={})
    s = load_settings(overrides={"search.multi_valued": ["DEPENDS_ON"], "search.unreviewed_relations": "multi"},
                      environ={})
    assert s.search.multi_valued == ["DEPENDS_ON"] and s.search.unreviewed_relations == "multi"
    with pytest.raises(ConfigError, match="single_valued: a relation name is empty"):
        load_settings(overrides={"search.single_valued": ["  "]}, environ={})
    with pytest.raises(ConfigError, match="unreviewed_relations"):
        load_settings(overrides={"search.unreviewed_relations": "several"}, environ={})


edge_st = st.builds(lambda i, s, n, t: SimpleNamespace(uuid=f"e{i}", source_node_uuid=s, name=n, target_node_uuid=t),
                    st.integers(0, 10**6), st.sampled_from(["s1", "s2"]),
                    st.sampled_from(["RUNS_ON", "DEPENDS_ON", "CALLS", "OWNED_BY"]), st.sampled_from(["t1", "t2", "t3"]))


@given(st.lists(edge_st, max_size=12), st.sets(st.sampled_from(["RUNS_ON", "DEPENDS_ON", "CALLS", "OWNED_BY"])))
def test_competitor_keys_leave_out_every_multi_valued_relation(edges, multi):
    rel = Relations.of(multi=sorted(multi))
    keys = competitor_keys(edges, rel)
    for e, k in zip(edges, keys, strict=True):
        assert (k is None) == (e.name in multi)
        if k is not None:
            assert k == slot_key(e.source_node_uuid, e.name)
    assert competitor_keys(edges) == [slot_key(e.source_node_uuid, e.name) for e in edges]


def rec(uuid: str, subject: str = "svc", predicate: str = "RUNS_ON", obj: str | None = None,
        status: str | None = None, trust: float | None = None, fused: float | None = None,
        stamp: datetime | None = None, success: int | None = None, failure: int | None = None) -> MemoryRecord:
    return MemoryRecord(uuid=uuid, kind="edge", text=f"{subject} {predicate} {obj or uuid}", name=predicate,
                        subject=subject, predicate=predicate, object=obj or uuid, trust_score=trust,
                        relevance_raw=fused, valid_at=stamp, success_count=success, failure_count=failure,
                        attributes={} if status is None else {"trust_status": status})


member_st = st.builds(
    lambda i, status, fused, age, s, f: rec(f"r{i}", status=status, fused=fused,
                                            stamp=None if age is None else NOW - timedelta(hours=age),
                                            success=s, failure=f),
    st.integers(0, 10**6), st.sampled_from(STATUSES), st.one_of(st.none(), st.floats(0, 2)),
    st.one_of(st.none(), st.floats(0, 500)), st.one_of(st.none(), st.integers(0, 5)),
    st.one_of(st.none(), st.integers(0, 5)))


@given(st.lists(member_st, min_size=2, max_size=6, unique_by=lambda r: r.uuid))
def test_verified_wins_and_a_rejected_or_expired_fact_is_never_chosen_over_another(members):
    sel = select(members, now=NOW)
    best = verdict_rank(sel.best)
    assert best == max(verdict_rank(m) for m in members)
    if any(m.attributes.get("trust_status") not in ("rejected", "expired") for m in members):
        assert sel.best.attributes.get("trust_status") not in ("rejected", "expired")
    # among the members of the best verdict, the reference selector (relevance, success, recency) decides
    same = [m for m in members if verdict_rank(m) == best]
    assert sel.scores[sel.best.uuid] == max(sel.scores[m.uuid] for m in same)
    plain = select([m.__class__(**{**{f: getattr(m, f) for f in m.__slots__}, "attributes": {}}) for m in same],
                   now=NOW)
    assert plain.best.uuid == sel.best.uuid
    others = [m for m in members if m.uuid != sel.best.uuid]
    if all(verdict_rank(m) < best for m in others):
        assert sel.decided_by == "review" and sel.confidence == 1.0 and not sel.needs_more
    else:
        assert sel.decided_by == "signals"


def test_the_issue_example_the_verified_host_is_chosen_over_a_more_relevant_candidate():
    app06 = rec("app06", obj="app-06", status="candidate", trust=0.25, fused=1.5, stamp=NOW)
    app07 = rec("app07", obj="app-07", status="promoted", trust=1.0, fused=0.2, stamp=NOW - timedelta(days=30))
    kept, sels = resolve_competing([app06, app07], now=NOW)
    assert [k.uuid for k in kept] == ["app07"] and sels[0].alternatives[0].uuid == "app06"
    assert sels[0].decided_by == "review"
    # a relation that holds several values forms no group: both are kept, no alternatives
    kept, sels = resolve_competing([app06, app07], now=NOW, relations=Relations.of(multi=["runs on"]))
    assert [k.uuid for k in kept] == ["app06", "app07"] and sels == []


@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), st.sampled_from(["RUNS_ON", "DEPENDS_ON", "OWNED_BY"]),
                          st.sampled_from(["x", "y", "z"])), max_size=10),
       st.sets(st.sampled_from(["RUNS_ON", "DEPENDS_ON", "OWNED_BY"])))
def test_selector_groups_only_single_valued_slots(facts, multi):
    items = [rec(f"f{i}", subject=s, predicate=p, obj=o) for i, (s, p, o) in enumerate(facts)]
    rel = Relations.of(multi=sorted(multi))
    for group in competing_groups(items, rel):
        names = {items[i].predicate for i in group}
        assert len(names) == 1 and not names & multi
        assert len({items[i].subject for i in group}) == 1 and len({items[i].object for i in group}) > 1
    expected = {(s, p) for s, p, _ in facts if p not in multi
                and len({o for s2, p2, o in facts if (s2, p2) == (s, p)}) > 1}
    assert {(items[g[0]].subject, items[g[0]].predicate) for g in competing_groups(items, rel)} == expected


def test_composite_competes_only_single_valued_slots():
    recs = [rec("cand", obj="h1", trust=0.25, fused=2.0), rec("prom", obj="h2", trust=1.0, fused=0.1)]
    s = CompositeSettings(min_trust=0.0)
    ordered = rank_composite(recs, s, now=NOW, competitors="trust", max_results=0)
    assert [o.uuid for o in ordered] == ["prom", "cand"]  # same slot: verified first
    edges = [SimpleNamespace(source_node_uuid=r.subject, name=r.name) for r in recs]
    keys = dict(zip((r.uuid for r in recs), competitor_keys(edges, Relations.of(multi=["RUNS_ON"])), strict=True))
    apart = rank_composite(recs, s, now=NOW, competitors="trust", max_results=0, competitor_keys=keys)
    assert [o.uuid for o in apart] == ["cand", "prom"] and all(o.moved_by is None for o in apart)


def test_default_relations_make_every_relation_compete():
    assert ALL_SINGLE.competes("ANYTHING") and ALL_SINGLE.verdict("X").source == "default"


@hsettings(max_examples=30)
@given(st.lists(st.tuples(st.sampled_from(["s1", "s2"]), st.sampled_from(["RUNS_ON", "CALLS"]),
                          st.sampled_from(["t1", "t2"]), st.sampled_from(STATUSES)), max_size=10))
def test_learned_reasons_name_entities_by_name(rows):
    names = {"s1": "payments-api", "s2": "auth", "t1": "app-01", "t2": "app-02"}
    for v in learn_relations(rows, names).values():
        assert "'payments-api'" in v.reason or "'auth'" in v.reason
