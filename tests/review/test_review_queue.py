"""The review queue: each rule on built inputs (its condition, its numbers), the ranking as the
weighted sum of the rules (property-tested over generated inputs), and the whole queue on a real
graph, review DB (both backends) and retrieval log, through the api and the CLI."""

from __future__ import annotations

import json
import math
import time
from datetime import UTC, datetime

import numpy as np
import pytest
from builders import Fact
from cli_helpers import run_cli
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from sync_fixtures import build, row

from graph_trust import api
from graph_trust.config import QUEUE_RULES, ReviewQueueSettings, SearchSettings
from graph_trust.review.db import ReviewConn
from graph_trust.review.log import RetrievalLog, Use
from graph_trust.review.queue import rank
from graph_trust.review.rules import RULES, QueueInputs, SlotEdge
from graph_trust.search.rules.competitors import order_competitors
from graph_trust.sync.review_db import insert_records, insert_rows

TIERS = {"promoted": 1.0, "corroborated": 0.6, "candidate": 0.25, "rejected": 0.0, "expired": 0.0}
CFG = ReviewQueueSettings()


DAY = 86400.0
NO_PRIOR = ReviewQueueSettings(prior_searches=0)


def use(uuid: str, weighted: float, returns: int = 1, best: int = 1, firsts: float = 0.0) -> Use:
    return Use(uuid, "g", returns, weighted, best, "2026-11-01", firsts)


def slot(uuid: str, obj: str, subject: str = "es", pred: str = "PORT", valid: bool = True,
         day: float | None = None) -> SlotEdge:
    return SlotEdge(uuid, "g", subject, pred, obj, obj, f"{subject} {pred} {obj}", valid,
                    None if day is None else day * DAY)


def risk(gap_days: float, cfg: ReviewQueueSettings = CFG) -> float:
    return math.exp(-gap_days / cfg.update_days)


def hits(rule: str, inp: QueueInputs, cfg: ReviewQueueSettings = CFG) -> dict[str, float]:
    return {h.key: h.value for h in RULES[rule](inp, cfg)}


def test_unreviewed_use_counts_the_trust_a_decision_could_still_move_and_the_chance_it_removes_the_fact():
    reviews = {"b": [("cb", "candidate")], "c": [("cc", "corroborated")], "d": [("cd", "promoted")],
               "e": [("ce1", "candidate"), ("ce2", "rejected")]}
    inp = QueueInputs(uses={u: use(u, 10) for u in "abcde"}, tiers=TIERS, reviews=reviews)
    # d: decided; e: sync applies its highest tier (candidate) whatever else its rows say;
    # decided facts: c and d, none removed: a decision removes a fact with chance (0 + 1) / (2 + 2)
    assert inp.removal_rate() == (0.25, 0, 2)
    assert hits("unreviewed_use", inp) == pytest.approx({"a": 2.5, "b": 7.5 / 4, "c": 1, "e": 7.5 / 4})
    more = QueueInputs(uses=inp.uses, tiers=TIERS, reviews=reviews | {"f": [("cf", "rejected")],
                                                                      "g": [("cg", "expired")]})
    assert more.removal_rate() == (0.5, 2, 4)  # (2 + 1) / (4 + 2)
    assert hits("unreviewed_use", more) == pytest.approx({"a": 5, "b": 3.75, "c": 2, "e": 3.75})
    assert QueueInputs().removal_rate() == (0.5, 0, 0)


def test_contested_slots_need_two_live_values_and_no_single_verified_one():
    base = [slot("x1", "9200", day=100), slot("x2", "9300", day=40), slot("x3", "9400", day=10),
            slot("x4", "9500", valid=False, day=200)]
    uses = {"x1": use("x1", 6), "x2": use("x2", 3)}
    inp = QueueInputs(uses=uses, tiers=TIERS, slots=base)
    # exposure: the slot's 9 weighted returns + its subject's 9 over its one slot (no rank-1 returns: no
    # searches to spread a prior over); x1 is shown first (the newest valid value: x4 is invalidated), 60
    # days after x2 took its place: the hit is x1's, at the risk that a value 60 days newer is a conflict
    assert hits("contested_slot", inp) == pytest.approx({"x1": 18 * risk(60)})
    one_verified = QueueInputs(uses=uses, tiers=TIERS, slots=base, reviews={"x2": [("c", "promoted")]})
    assert hits("contested_slot", one_verified) == {}
    # two verified: the higher tier goes first whatever its age (x2, older than x1: no gap to trust)
    two_verified = QueueInputs(uses=uses, tiers=TIERS, slots=base,
                               reviews={"x1": [("c1", "corroborated")], "x2": [("c2", "promoted")]})
    assert hits("contested_slot", two_verified) == pytest.approx({"x2": 18})
    once = QueueInputs(uses={"x1": use("x1", 6)}, tiers=TIERS, slots=base)
    assert hits("contested_slot", once) == pytest.approx({"x1": 12 * risk(60)})  # the graph says it is contested
    same_value = QueueInputs(uses=uses, tiers=TIERS, slots=[slot("x1", "9200"), slot("x2", "9200")])
    assert hits("contested_slot", same_value) == {}
    # a rejected value no longer competes: one live value left
    rejected = QueueInputs(uses=uses, tiers=TIERS, slots=base[:2], reviews={"x2": [("c2", "rejected")]})
    assert hits("contested_slot", rejected) == {}
    # rejecting the value shown first hands the slot to the next one (x2, 30 days newer than x3)
    first_gone = QueueInputs(uses=uses, tiers=TIERS, slots=base, reviews={"x1": [("c1", "rejected")]})
    assert hits("contested_slot", first_gone) == pytest.approx({"x2": 18 * risk(30)})
    # the same time: the search keeps relevance order, which the log tells as the more returned first
    tied = QueueInputs(uses={"a": use("a", 1), "b": use("b", 4)}, tiers=TIERS,
                       slots=[slot("a", "1", day=5), slot("b", "2", day=5)])
    assert hits("contested_slot", tied) == pytest.approx({"b": 10})
    # no time on an edge: nothing to tell an update from a conflict (risk 1)
    untimed = QueueInputs(uses=uses, tiers=TIERS, slots=[slot("x1", "9200"), slot("x2", "9300", day=5)])
    assert hits("contested_slot", untimed) == pytest.approx({"x2": 18})


def test_a_slot_nobody_was_shown_is_exposed_through_its_subject_and_the_prior():
    edges = [slot("y1", "team-a", pred="OWNER"), slot("z1", "9200", day=20), slot("z2", "9300", day=10),
             slot("w1", "1", subject="other", day=0), slot("w2", "2", subject="other", day=0)]
    inp = QueueInputs(uses={"y1": use("y1", 4, returns=2, firsts=2)}, tiers=TIERS, slots=edges)
    # es: 4 weighted returns over its 2 slots; its PORT slot (never returned) gets 2, all of it on z1, shown
    # first; the other subject was never shown: without a prior, no exposure
    assert hits("contested_slot", inp, NO_PRIOR) == pytest.approx({"z1": 2 * risk(10)})
    # the log holds 2 searches (rank-1 returns) of 2 weighted returns each; 3 searches before it, spread
    # over the 3 slots in view, add 3 x 2 / 3 = 2 weighted returns to a slot, scaled by its subject's
    # centrality (its relations over the mean, 1.5): es 2 / 1.5, other 1 / 1.5
    cfg = ReviewQueueSettings(prior_searches=3)
    assert hits("contested_slot", inp, cfg) == pytest.approx({"z1": (2 + 8 / 3) * risk(10), "w1": 4 / 3})
    z1 = next(h for h in RULES["contested_slot"](inp, cfg) if h.key == "z1").figures
    assert (z1["subject_share"], z1["prior"], z1["gap_days"], z1["risk"]) == (2, 2.6667, 10, round(risk(10), 4))


@st.composite
def contested_inputs(draw, max_slots: int = 4):
    """Slots of a few subjects, each edge with a status (no rejected/expired here: those leave the slot),
    maybe a time (days, often tied), maybe returns with some at rank 1."""
    inp = QueueInputs(tiers=TIERS)
    n = 0
    for s in range(draw(st.integers(1, max_slots))):
        subject, pred = draw(st.sampled_from(["s", "t"])), f"P{s}"
        for _ in range(draw(st.integers(1, 5))):
            k = f"e{n}"
            n += 1
            day = draw(st.none() | st.integers(0, 1000))
            inp.slots.append(slot(k, draw(st.sampled_from(["1", "2", "3"])), subject=subject, pred=pred,
                                  valid=draw(st.integers(0, 5)) > 0, day=day))
            status = draw(st.sampled_from([None, None, "candidate", "corroborated", "promoted"]))
            if status:
                inp.reviews[k] = [(f"c-{k}", status)]
            if draw(st.booleans()):
                w = draw(st.floats(0.01, 20))
                inp.uses[k] = use(k, w, firsts=draw(st.sampled_from([0.0, w / 2, w])))
    return inp


def live_slots(inp: QueueInputs) -> dict[tuple[str, str], list[SlotEdge]]:
    out: dict[tuple[str, str], list[SlotEdge]] = {}
    for e in inp.slots:
        if e.valid and inp.status(e.uuid) not in ("rejected", "expired"):
            out.setdefault((e.subject_uuid, e.predicate), []).append(e)
    return out


@given(contested_inputs())
@hsettings(max_examples=200, deadline=None)
def test_the_hit_is_the_value_the_search_shows_first_one_per_slot(inp):
    # the search's own competitor rule, on a pool holding every live value of each slot in relevance order
    # (as the log saw it: the more returned first, then uuid)
    min_trust = SearchSettings().min_boost_trust
    slots = live_slots(inp)
    found = list(RULES["contested_slot"](inp, CFG))
    assert len({h.key for h in found}) == len(found)  # one hit per slot
    for h in found:
        key = next(k for k, edges in slots.items() if h.key in {e.uuid for e in edges})
        pool = sorted(slots[key], key=lambda e: (-inp.use(e.uuid), e.uuid))
        trust = np.array([np.nan if inp.status(e.uuid) is None else TIERS[inp.status(e.uuid)] for e in pool])
        stamps = np.array([np.nan if e.stamp is None else e.stamp for e in pool])
        order = order_competitors(np.arange(len(pool)), [key] * len(pool), trust, stamps, min_trust)
        assert pool[order[0]].uuid == h.key
        assert h.figures["values"] == len({e.object_uuid for e in pool}) >= 2
        verified = sum(inp.status(e.uuid) in ("promoted", "corroborated") for e in pool)
        assert verified != 1 and h.figures["verified"] == verified
        assert 0 < h.figures["risk"] <= 1 and h.value > 0


@given(contested_inputs(max_slots=1), st.sampled_from(["promoted", "rejected", "expired"]))
@hsettings(max_examples=200, deadline=None)
def test_one_decision_on_the_value_shown_first_settles_it_whichever_way_it_goes(inp, decision):
    before = {h.key: h for h in RULES["contested_slot"](inp, CFG)}
    if not before or any(inp.status(e.uuid) in ("promoted", "corroborated") for e in inp.slots):
        return
    (first,) = before
    inp.reviews[first] = [("c-decided", decision)]
    after = {h.key for h in RULES["contested_slot"](inp, CFG)}
    if decision == "promoted":
        assert after == set()  # verified alone: it stays first, the slot is settled
    else:
        # it drops; the next value takes its place, asked next if the slot is still contested
        assert first not in after and len(after) <= 1


@given(contested_inputs(), st.floats(1.5, 50), st.floats(0, 500))
@hsettings(max_examples=150, deadline=None)
def test_the_prior_is_fixed_searches_so_a_longer_log_outweighs_it(inp, scale, prior_searches):
    # scaling the log (more searches of the same kind) scales the returns-based exposure and leaves the
    # prior as it was: value(c x log) - c x value_without_prior(log) does not depend on c
    cfg, bare = ReviewQueueSettings(prior_searches=prior_searches), NO_PRIOR
    longer = QueueInputs(uses={k: use(k, u.weighted * scale, firsts=u.firsts * scale) for k, u in inp.uses.items()},
                         reviews=inp.reviews, tiers=inp.tiers, slots=inp.slots)
    one, c = hits("contested_slot", inp, cfg), hits("contested_slot", longer, cfg)
    b1, bc = hits("contested_slot", inp, bare), hits("contested_slot", longer, bare)
    for k in one.keys() & c.keys():
        assert c[k] - bc.get(k, 0.0) * 1 == pytest.approx(one[k] - b1.get(k, 0.0), rel=1e-6, abs=1e-9)
        assert bc.get(k, 0.0) == pytest.approx(scale * b1.get(k, 0.0), rel=1e-6, abs=1e-9)


def test_the_risk_falls_with_the_gap_between_the_value_shown_first_and_the_one_it_displaced():
    def value(gap: float, cfg: ReviewQueueSettings = CFG) -> float:
        inp = QueueInputs(uses={"a": use("a", 3)}, tiers=TIERS, slots=[slot("a", "1", day=500 + gap),
                                                                        slot("b", "2", day=500)])
        return hits("contested_slot", inp, cfg)["a"]

    values = [value(g) for g in (0, 7, 30, 180, 720)]
    assert values == sorted(values, reverse=True) and values[0] == pytest.approx(6)  # 3 own + 3 subject
    assert value(180) / value(0) == pytest.approx(math.exp(-1))
    assert value(90, ReviewQueueSettings(update_days=90)) == pytest.approx(value(180))


def test_the_other_rules():
    inp = QueueInputs(uses={"u1": use("u1", 2)}, tiers=TIERS, confidences={"u1": 0.2, "u2": 0.1, "u3": 0.9},
                      invalidated={"u9": {"candidate_id": "c9", "invalid_at": "2026-01-02"}},
                      flags=[{"edge_uuid": "u1", "agent": "bot", "reason": "port moved", "target": "u1"},
                             {"edge_uuid": "u1", "agent": "bot2", "reason": "seen 9443", "target": "u1"},
                             {"edge_uuid": None, "candidate_id": "c7", "agent": "bot", "reason": "x", "target": "c7"}],
                      unplaced=[{"candidate_id": "c5", "edge_uuid": "gone", "status": "promoted"},
                                {"candidate_id": "c6", "edge_uuid": "gone2", "status": "rejected"}])
    assert hits("low_confidence_use", inp) == pytest.approx({"u1": 2 * 0.8})  # u2 unused, u3 confident
    assert hits("trusted_invalidated", inp) == {"u9": CFG.floor_uses}
    assert hits("flagged", inp) == pytest.approx({"u1": 2 * CFG.flag_uses + 2, "candidate:c7": CFG.flag_uses})
    assert hits("unplaced", inp) == {"candidate:c5": CFG.floor_uses}
    # the reason says what is true whether or not relink ever ran: the edge is missing, what fixes it
    why = next(iter(RULES["unplaced"](inp, CFG))).reason
    assert "gone, which is not in the graph" in why and "relink matches it" in why and "could not" not in why


@st.composite
def inputs(draw):
    keys = [f"e{i}" for i in range(draw(st.integers(2, 12)))]
    statuses = st.sampled_from([None, "candidate", "corroborated", "promoted", "rejected", "expired"])
    inp = QueueInputs(tiers=TIERS)
    for k in keys:
        if draw(st.booleans()):
            inp.uses[k] = use(k, draw(st.floats(0.01, 100)), best=draw(st.integers(1, 10)))
        s = draw(statuses)
        if s:
            inp.reviews[k] = [(f"c-{k}", s)]
        if draw(st.integers(0, 4)) == 0:
            inp.confidences[k] = draw(st.floats(0, 1))
        if draw(st.integers(0, 6)) == 0:
            inp.flags.append({"edge_uuid": k, "agent": draw(st.sampled_from(["a", "b"])), "reason": "r", "target": k})
        if draw(st.integers(0, 6)) == 0:
            inp.invalidated[k] = {"candidate_id": f"c-{k}"}
        inp.slots.append(slot(k, draw(st.sampled_from(["1", "2", "3"])), subject=draw(st.sampled_from(["s", "t"])),
                              valid=draw(st.booleans())))
    return inp


# Weights without subnormals: scaling a subnormal weight can round it to 0.0 (5e-324 x 0.5 == 0),
# which turns its rule off; that is float arithmetic, not the queue. A normal weight times a scale
# of at least 0.1 stays positive, so the scaled queue must hold the same facts.
@given(inputs(), st.dictionaries(st.sampled_from(QUEUE_RULES), st.floats(0, 5, allow_subnormal=False)),
       st.floats(0.1, 10))
@hsettings(max_examples=150, deadline=None)
def test_priority_is_the_weighted_sum_of_the_rules(inp, weights, scale):
    cfg = ReviewQueueSettings(weights=weights)
    items = rank(inp, cfg)
    expect: dict[str, float] = {}
    for name, rule in RULES.items():
        for h in rule(inp, cfg):
            if cfg.weights[name] > 0 and h.value > 0:
                expect[h.key] = expect.get(h.key, 0.0) + cfg.weights[name] * h.value
    # every fact a reviewer could still decide is listed (the queue never runs out), at 0 without a hit
    expect = {k: 0.0 for k in inp.open_keys()} | expect
    assert {i.key: i.priority for i in items} == pytest.approx(expect, rel=1e-6, abs=1e-6)
    assert [i.priority for i in items] == sorted((i.priority for i in items), reverse=True)
    for i in items:
        assert sum(r["score"] for r in i.reasons) == pytest.approx(i.priority, abs=1e-3)
        assert all(cfg.weights[r["rule"]] > 0 for r in i.reasons)
    scaled = rank(inp, ReviewQueueSettings(weights={k: v * scale for k, v in cfg.weights.items()}))
    assert [i.key for i in scaled] == [i.key for i in items] or \
        [round(i.priority, 4) for i in scaled] == pytest.approx([round(i.priority * scale, 4) for i in items], rel=1e-3)


def test_weights_are_checked():
    with pytest.raises(ValueError, match="unknown rule"):
        ReviewQueueSettings(weights={"popularity": 1})
    with pytest.raises(ValueError, match=">= 0"):
        ReviewQueueSettings(weights={"flagged": -1})
    assert ReviewQueueSettings(weights={"flagged": 2}).weights["unplaced"] == 0.0  # unnamed rules are off


ES = [Fact("es", "LISTENS_ON", "9200", "es listens on port 9200", at=datetime(2026, 3, 1, tzinfo=UTC)),
      Fact("es", "LISTENS_ON", "9300", "es listens on port 9300"),
      Fact("billing-db", "BACKUP_AT", "03:00 UTC", "The billing-db backup job runs at 03:00 UTC every night"),
      Fact("billing-db", "OWNED_BY", "team-data", "billing-db is owned by team-data"),
      Fact("auth-service", "LISTENS_ON", "8443", "auth-service listens on port 8443 with TLS")]


async def test_queue_on_a_real_graph_review_db_and_log(graph, settings, review_url, unique):
    group = f"g_{unique}"
    uuids = await build(graph, group, ES)
    u = [uuids[f.fact] for f in ES]
    api.init_review_db(review_url)
    insert_rows(review_url, [row("c-backup", u[2], "candidate", group), row("c-owner", u[3], "promoted", group),
                             row("c-gone", "edge-deleted-by-migration", "corroborated", group)])
    insert_records(review_url, {"fact_contradictions": [{
        "fact_a_id": "c-owner", "fact_b_id": f"graphiti-invalidation:{group}/{u[3]}:x", "contradiction_type":
        "graphiti_invalidation", "severity": "medium", "detected_at": "2026-11-01T00:00:00Z",
        "detail": json.dumps({"uuid": u[3], "group_id": group, "invalid_at": "2026-10-30T00:00:00Z"})}]})
    log = RetrievalLog(review_url, background=False)
    now = time.time()
    for _ in range(5):  # agents see both ports of es, and the backup fact at rank 3
        log.record("search", [(u[0], group), (u[1], group), (u[2], group)], at=now)
    log.record("mcp", [(u[4], group)], at=now)
    log.flush()
    settings.review.url = review_url
    settings.review.queue.prior_searches = 0  # (the prior: test_a_contested_slot_no_search_returned...)
    settings.review.queue.weights.update(centrality=0.0, age=0.0, contradiction=0.0)  # (the priors: below)
    settings.mcp.agent = "bot"
    await api.flag_fact(settings, u[4], "TLS port changed", graph=graph)
    items = await api.review_queue(settings, graph=graph)
    by = {i.key: i for i in items}
    rules = {k: {r["rule"] for r in i.reasons} for k, i in by.items()}
    # es's port slot: 9200 is shown first (newer by 59 days, as the graph's valid_at says): its decision
    # settles the slot; 9300 is only an unreviewed fact in use
    assert rules[u[0]] == {"unreviewed_use", "contested_slot"} and rules[u[1]] == {"unreviewed_use"}
    # the backup fact has a review row: the confidence model scores it (below 0.5: nothing confirms it)
    assert rules[u[2]] == {"unreviewed_use", "low_confidence_use"} and by[u[2]].status == "candidate"
    low = next(r for r in by[u[2]].reasons if r["rule"] == "low_confidence_use")
    assert low["numbers"]["confidence"] < 0.5
    assert rules[u[3]] == {"trusted_invalidated"}
    assert rules[u[4]] == {"unreviewed_use", "flagged"}
    assert rules["candidate:c-gone"] == {"unplaced"}
    # the flag first (20 for one agent + 1 return, plus unreviewed 1 x 0.25: a decision removes a fact
    # with chance (0 + 1) / (2 + 2), two decided facts and none removed), then es's port 9200: 5 weighted
    # returns at rank 1 x 0.25, plus the slot's exposure (its 7.5 weighted returns + its subject's 7.5 over
    # one slot) x the risk that a value 59 days newer is a conflict; 9300 far below (2.5 at rank 2 x 0.25)
    assert [i.key for i in items[:2]] == [u[4], u[0]]
    assert [i.priority for i in items[:2]] == pytest.approx([21.25, 1.25 + 15 * risk(59)], abs=1e-5)
    assert by[u[1]].priority == pytest.approx(0.625) and [i for i in items if i.priority > 0][-1].key == u[1]
    contested = next(r for r in by[u[0]].reasons if r["rule"] == "contested_slot")
    assert contested["numbers"]["values"] == 2 and contested["numbers"]["verified"] == 0
    assert contested["numbers"]["gap_days"] == 59 and contested["numbers"]["exposure"] == 15
    assert "9200" in contested["why"] and "9300" in contested["why"] and "59 days after" in contested["why"]
    assert by[u[2]].fact == ES[2].fact and by[u[2]].candidate_ids == ["c-backup"]
    # deciding a fact takes it off the rules that asked for a decision
    await api.review_decide(settings, "promote", [u[0]], actor="alice", reason="checked", graph=graph)
    after = {i.key: {r["rule"] for r in i.reasons} for i in await api.review_queue(settings, graph=graph)}
    assert u[0] not in after and "contested_slot" not in after.get(u[1], set())
    assert [i.key for i in await api.review_queue(settings, graph=graph, limit=1)] == [next(iter(after))]
    # every fact, not the first review.queue.limit: the graph holds other tests' groups, whose facts tie at 0
    only = await api.review_queue(settings, graph=graph, weights={k: 0.0 for k in QUEUE_RULES} | {"unplaced": 1.0},
                                  limit=100000)
    mine = [i for i in only if i.key in set(u) | {"candidate:c-gone"}]
    assert only[0].key == "candidate:c-gone" and {i.key for i in mine[1:]} == {u[1], u[2], u[4]}
    assert all(i.priority == 0 and not i.reasons for i in only[1:])  # undecided, no rule on: still listed
    settings.review.queue = ReviewQueueSettings()  # the command reads the defaults
    cli = run_cli("review", "queue", "--graph", settings.graph.uri, "--json", "--limit", "3",
                  env={"GRAPH_TRUST_STATE_DIR": str(settings.state_dir), "GRAPH_TRUST_REVIEW_DB": review_url,
                       "NEO4J_DATABASE": settings.graph.database or ""})
    assert cli.code == 0, cli.err
    assert [i["key"] for i in cli.json()] == [i.key for i in (await api.review_queue(settings, graph=graph))[:3]]
    with ReviewConn.open(review_url) as conn:
        assert conn.query("SELECT count(*) FROM review_decisions")[0][0] == 1  # the queue wrote nothing


SVC = [Fact("svc", "OWNED_BY", "team-a", "svc is owned by team-a"),
       Fact("svc", "LISTENS_ON", "80", "svc listens on port 80"),
       Fact("svc", "LISTENS_ON", "8080", "svc listens on port 8080", at=datetime(2026, 1, 31, tzinfo=UTC)),
       Fact("other", "LISTENS_ON", "1", "other listens on port 1"),
       Fact("other", "LISTENS_ON", "2", "other listens on port 2")]


async def test_a_contested_slot_no_search_returned_is_found_through_its_subject(graph, settings, tmp_path, unique):
    group = f"g_{unique}"
    uuids = await build(graph, group, SVC)
    owner, p80, p8080 = (uuids[f.fact] for f in SVC[:3])
    review = tmp_path / "review.sqlite3"
    api.init_review_db(review)
    log = RetrievalLog(review, background=False)
    for _ in range(4):  # agents ask about svc's owner only
        log.record("search", [(owner, group)], at=time.time())
    log.flush()
    settings.review.url = str(review)
    items = await api.review_queue(settings, graph=graph, group=group)
    contested = {i.key: r for i in items for r in i.reasons if r["rule"] == "contested_slot"}
    # svc: 4 weighted returns over its 2 slots; its LISTENS_ON slot, never returned, gets 2, on 8080 (shown
    # first: 30 days newer), plus the prior: 120 searches of 1 weighted return each (the log's 4 searches
    # returned 4) over the 3 slots of the graph, 40, x svc's centrality (2 relations over the mean 1.5);
    # `other` was never shown: its port slot has the prior alone, x its centrality (1 / 1.5)
    p1, p2 = uuids[SVC[3].fact], uuids[SVC[4].fact]
    assert set(contested) == {p8080} | ({p1, p2} & set(contested)) and len(contested) == 2
    n = contested[p8080]["numbers"]
    assert (n["subject_share"], n["prior"], n["exposure"], n["returned"], n["gap_days"]) == (
        2, 53.3333, 55.3333, 0, 30)
    assert contested[p8080]["value"] == pytest.approx((2 + 160 / 3) * risk(30), abs=1e-3)
    assert "2 values (80, 8080)" in contested[p8080]["why"]
    other = next(r for k, r in contested.items() if k != p8080)
    assert other["numbers"]["prior"] == pytest.approx(80 / 3, abs=1e-3) and other["numbers"]["returned"] == 0
    assert {i.key for i in items} == {owner, *uuids.values()}  # every undecided fact is listed
    settings.review.queue.prior_searches = 0
    items = await api.review_queue(settings, graph=graph, group=group)
    assert [r["value"] for i in items for r in i.reasons if r["rule"] == "contested_slot"] == pytest.approx(
        [2 * risk(30)], abs=1e-4)
    assert {i.key for i in items} == set(uuids.values())  # without a prior, still every undecided fact
