"""The review queue: each rule on built inputs (its condition, its numbers), the ranking as the
weighted sum of the rules (property-tested over generated inputs), and the whole queue on a real
graph, review DB (both backends) and retrieval log, through the api and the CLI."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from builders import Fact
from cli_helpers import run_cli
from graph_trust import api
from graph_trust.config import QUEUE_RULES, ReviewQueueSettings
from graph_trust.review.db import ReviewConn
from graph_trust.review.log import RetrievalLog, Use
from graph_trust.review.queue import rank
from graph_trust.review.rules import RULES, QueueInputs, SlotEdge
from graph_trust.sync.review_db import insert_records, insert_rows
from sync_fixtures import build, row

TIERS = {"promoted": 1.0, "corroborated": 0.6, "candidate": 0.25, "rejected": 0.0, "expired": 0.0}
CFG = ReviewQueueSettings()


def use(uuid: str, weighted: float, returns: int = 1, best: int = 1) -> Use:
    return Use(uuid, "g", returns, weighted, best, "2026-11-01")


def slot(uuid: str, obj: str, subject: str = "es", pred: str = "PORT", valid: bool = True) -> SlotEdge:
    return SlotEdge(uuid, "g", subject, pred, obj, obj, f"{subject} {pred} {obj}", valid)


def hits(rule: str, inp: QueueInputs, cfg: ReviewQueueSettings = CFG) -> dict[str, float]:
    return {h.key: h.value for h in RULES[rule](inp, cfg)}


def test_unreviewed_use_counts_the_trust_a_decision_could_still_move():
    inp = QueueInputs(uses={u: use(u, 10) for u in "abcde"}, tiers=TIERS,
                      reviews={"b": [("cb", "candidate")], "c": [("cc", "corroborated")], "d": [("cd", "promoted")],
                               "e": [("ce1", "candidate"), ("ce2", "rejected")]})
    # d: decided; e: sync applies its highest tier (candidate) whatever else its rows say
    assert hits("unreviewed_use", inp) == pytest.approx({"a": 10, "b": 7.5, "c": 4, "e": 7.5})


def test_contested_slots_need_two_values_returned_and_no_single_verified_one():
    base = [slot("x1", "9200"), slot("x2", "9300"), slot("x3", "9400"), slot("x4", "9500", valid=False)]
    uses = {"x1": use("x1", 6), "x2": use("x2", 3)}
    inp = QueueInputs(uses=uses, tiers=TIERS, slots=base)
    got = hits("contested_slot", inp)
    assert got == pytest.approx({"x1": 9, "x2": 4.5})  # x3 never returned: share 0; x4 invalidated
    one_verified = QueueInputs(uses=uses, tiers=TIERS, slots=base, reviews={"x2": [("c", "promoted")]})
    assert hits("contested_slot", one_verified) == {}
    two_verified = QueueInputs(uses=uses, tiers=TIERS, slots=base,
                               reviews={"x1": [("c1", "promoted")], "x2": [("c2", "corroborated")]})
    assert set(hits("contested_slot", two_verified)) == {"x1", "x2"}
    once = QueueInputs(uses={"x1": use("x1", 6)}, tiers=TIERS, slots=base)
    assert hits("contested_slot", once) == {}  # only one of its values ever reached an agent
    same_value = QueueInputs(uses=uses, tiers=TIERS, slots=[slot("x1", "9200"), slot("x2", "9200")])
    assert hits("contested_slot", same_value) == {}


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


@given(inputs(), st.dictionaries(st.sampled_from(QUEUE_RULES), st.floats(0, 5)), st.floats(0.1, 10))
@hsettings(max_examples=150, deadline=None)
def test_priority_is_the_weighted_sum_of_the_rules(inp, weights, scale):
    cfg = ReviewQueueSettings(weights=weights)
    items = rank(inp, cfg)
    expect: dict[str, float] = {}
    for name, rule in RULES.items():
        for h in rule(inp, cfg):
            if cfg.weights[name] > 0 and h.value > 0:
                expect[h.key] = expect.get(h.key, 0.0) + cfg.weights[name] * h.value
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


ES = [Fact("es", "LISTENS_ON", "9200", "es listens on port 9200"),
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
    settings.mcp.agent = "bot"
    await api.flag_fact(settings, u[4], "TLS port changed", graph=graph)
    items = await api.review_queue(settings, graph=graph)
    by = {i.key: i for i in items}
    rules = {k: {r["rule"] for r in i.reasons} for k, i in by.items()}
    assert rules[u[0]] == rules[u[1]] == {"unreviewed_use", "contested_slot"}
    # the backup fact has a review row: the confidence model scores it (below 0.5: nothing confirms it)
    assert rules[u[2]] == {"unreviewed_use", "low_confidence_use"} and by[u[2]].status == "candidate"
    low = next(r for r in by[u[2]].reasons if r["rule"] == "low_confidence_use")
    assert low["numbers"]["confidence"] < 0.5
    assert rules[u[3]] == {"trusted_invalidated"}
    assert rules[u[4]] == {"unreviewed_use", "flagged"}
    assert rules["candidate:c-gone"] == {"unplaced"}
    # the flag first (20 for one agent + 1 return, unreviewed 1), then es's ports: 5 returns at rank 1
    # (5) or rank 2 (2.5), plus the slot's 7.5 weighted returns times each one's share (1, 0.5)
    assert [i.key for i in items[:3]] == [u[4], u[0], u[1]]
    assert [i.priority for i in items[:3]] == pytest.approx([22.0, 12.5, 6.25])
    contested = next(r for r in by[u[0]].reasons if r["rule"] == "contested_slot")
    assert contested["numbers"]["values"] == 2 and contested["numbers"]["verified"] == 0
    assert "9200" in contested["why"] and "9300" in contested["why"]
    assert by[u[2]].fact == ES[2].fact and by[u[2]].candidate_ids == ["c-backup"]
    # deciding a fact takes it off the rules that asked for a decision
    await api.review_decide(settings, "promote", [u[0]], actor="alice", reason="checked", graph=graph)
    after = {i.key: {r["rule"] for r in i.reasons} for i in await api.review_queue(settings, graph=graph)}
    assert u[0] not in after and "contested_slot" not in after.get(u[1], set())
    assert [i.key for i in await api.review_queue(settings, graph=graph, limit=1)] == [next(iter(after))]
    only = await api.review_queue(settings, graph=graph, weights={k: 0.0 for k in QUEUE_RULES} | {"unplaced": 1.0})
    assert [i.key for i in only] == ["candidate:c-gone"]
    cli = run_cli("review", "queue", "--graph", settings.graph.uri, "--json", "--limit", "3",
                  env={"GRAPH_TRUST_STATE_DIR": str(settings.state_dir), "GRAPH_TRUST_REVIEW_DB": review_url,
                       "NEO4J_DATABASE": settings.graph.database or ""})
    assert cli.code == 0, cli.err
    assert [i["key"] for i in cli.json()] == [i.key for i in (await api.review_queue(settings, graph=graph))[:3]]
    with ReviewConn.open(review_url) as conn:
        assert conn.query("SELECT count(*) FROM review_decisions")[0][0] == 1  # the queue wrote nothing
