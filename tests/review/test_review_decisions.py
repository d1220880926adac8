"""Review decisions on both backends: by candidate id or edge uuid (an unreviewed edge gets its row
from the graph), one transaction, the audit trail, the override policy's self-review rules, undo,
and the next sync (or --sync) applying them; the CLI's exit codes and JSON."""

from __future__ import annotations

import json

import pytest
from cli_helpers import run_cli
from sync_fixtures import FACTS, build, edge_props, row

from graph_trust import api
from graph_trust.errors import InputError, NotFoundError, RollbackConflictError
from graph_trust.review.db import ReviewConn
from graph_trust.sync.confidence.schema import init_confidence_tables
from graph_trust.sync.review_db import insert_records, insert_rows


def statuses(url: str) -> dict[str, str]:
    with ReviewConn.open(url) as conn:
        return dict(conn.query("SELECT id, status FROM candidates"))


@pytest.fixture
async def world(graph, settings, review_url, unique):
    group = f"g_{unique}"
    uuids = await build(graph, group)
    u = [uuids[f.fact] for f in FACTS]
    api.init_review_db(review_url)
    insert_rows(review_url, [row("c1", u[0], "candidate", group), row("c2", u[1], "candidate", group),
                             row("c3", u[1], "corroborated", group), row("c4", u[2], "promoted", group)])
    insert_records(review_url, {"fact_sources": [{"fact_id": "c1", "agent_id": "bot-7", "created_at": "2026-01-01"}]})
    settings.review.url = review_url
    return graph, settings, review_url, group, u


async def test_decide_by_id_and_edge_uuid_with_audit_trail_and_undo(world):
    graph, settings, url, group, u = world
    out = await api.review_decide(settings, "promote", ["c1", u[1]], actor="alice", reason="checked the runbook",
                                  graph=graph)
    b = out["batch"]
    # c1 by id; the edge u[1] is cited by c2 and c3: both decided
    assert [(d["candidate_id"], d["previous_status"], d["new_status"]) for d in b["decisions"]] == [
        ("c1", "candidate", "promoted"), ("c2", "candidate", "promoted"), ("c3", "corroborated", "promoted")]
    assert statuses(url) == {"c1": "promoted", "c2": "promoted", "c3": "promoted", "c4": "promoted"}
    trail = api.review_history(settings)
    assert {(r["candidate_id"], r["actor"], r["reason"], r["previous_status"]) for r in trail} == {
        ("c1", "alice", "checked the runbook", "candidate"), ("c2", "alice", "checked the runbook", "candidate"),
        ("c3", "alice", "checked the runbook", "corroborated")}
    # an unreviewed edge: its candidate row comes from the graph's fact, subject, predicate, object
    out2 = await api.review_decide(settings, "reject", [u[5]], actor="bob", reason="team-pay was renamed",
                                   graph=graph)
    assert out2["batch"]["decisions"][0]["created_row"] is True
    with ReviewConn.open(url) as conn:
        new = conn.query("SELECT subject, predicate, object, fact, group_id, status, evidence_refs_json "
                         "FROM candidates WHERE id = ?", (u[5],))[0]
    assert new[:6] == ("payments-api", "OWNED_BY", "team-pay", FACTS[5].fact, group, "rejected")
    assert json.loads(new[6])[0]["evidence_id"] == u[5]
    # undo: the latest batch first (the created row goes), then the one before
    undone = await api.review_undo(settings, actor="bob", reason="wrong edge")
    assert undone["batch"]["undoes"] == out2["batch"]["batch_id"] and u[5] not in statuses(url)
    await api.review_undo(settings, actor="alice", reason="too early")
    assert statuses(url) == {"c1": "candidate", "c2": "candidate", "c3": "corroborated", "c4": "promoted"}
    with pytest.raises(InputError, match="already undone"):
        await api.review_undo(settings, actor="alice", reason="again", batch_id=b["batch_id"])
    assert [r["action"] for r in api.review_history(settings)][:2] == ["undo", "undo"]


async def test_nothing_is_written_when_one_id_is_wrong_or_the_actor_names_nobody(world):
    graph, settings, url, group, u = world
    before = statuses(url)
    with pytest.raises(NotFoundError, match="no-such"):
        await api.review_decide(settings, "reject", ["c2", "no-such"], actor="alice", reason="x", graph=graph)
    for actor in ("", "  ", "unknown", "[anonymous]"):
        with pytest.raises(InputError, match="--actor"):
            await api.review_decide(settings, "reject", ["c2"], actor=actor, reason="x", graph=graph)
    with pytest.raises(InputError, match="--reason"):
        await api.review_decide(settings, "reject", ["c2"], actor="alice", reason=" ", graph=graph)
    assert statuses(url) == before and api.review_history(settings) == []


async def test_self_review_follows_the_override_policy(world):
    graph, settings, url, group, u = world
    # bot-7 proposed c1 (fact_sources): it may not promote it (trust 1.0 >= 0.90), but may corroborate (0.6)
    with pytest.raises(InputError, match="(?i)bot-7 proposed c1"):
        await api.review_decide(settings, "promote", ["c1"], actor="BOT-7", reason="mine", graph=graph)
    await api.review_decide(settings, "corroborate", ["c1"], actor="bot-7", reason="seen again", graph=graph)
    # whoever created a row by a review decision proposed it too
    await api.review_decide(settings, "corroborate", [u[6]], actor="carol", reason="new", graph=graph)
    with pytest.raises(InputError, match="carol proposed"):
        await api.review_decide(settings, "promote", [u[6]], actor="carol", reason="self", graph=graph)
    await api.review_decide(settings, "promote", [u[6]], actor="dave", reason="second pair of eyes", graph=graph)
    assert statuses(url)[u[6]] == "promoted"


async def test_undo_refuses_a_fact_changed_since_unless_forced(world):
    graph, settings, url, group, u = world
    first = await api.review_decide(settings, "reject", ["c2"], actor="alice", reason="stale", graph=graph)
    await api.review_decide(settings, "expire", ["c2"], actor="bob", reason="gone", graph=graph)
    with pytest.raises(RollbackConflictError, match="c2"):
        await api.review_undo(settings, actor="alice", reason="x", batch_id=first["batch"]["batch_id"])
    assert statuses(url)["c2"] == "expired"
    await api.review_undo(settings, actor="alice", reason="x", batch_id=first["batch"]["batch_id"], force=True)
    assert statuses(url)["c2"] == "candidate"


async def test_sync_applies_decisions(world):
    graph, settings, url, group, u = world
    await api.sync(settings, graph=graph)
    assert (await edge_props(graph, group))[u[0]]["trust_score"] == 0.25
    out = await api.review_decide(settings, "promote", [u[0]], actor="alice", reason="ok", apply_sync=True,
                                  graph=graph)
    assert out["sync"].edges_set == 1 and (await edge_props(graph, group))[u[0]]["trust_score"] == 1.0
    await api.review_decide(settings, "reject", [u[3]], actor="alice", reason="port moved", graph=graph)
    await api.sync(settings, graph=graph)  # the next sync applies a decision made without --sync
    assert (await edge_props(graph, group))[u[3]]["trust_status"] is None  # rejected: cleared by the test tiers
    await api.review_undo(settings, actor="alice", reason="undo", apply_sync=True, graph=graph)
    assert u[3] not in statuses(url)


def test_cli_decide_undo_history(tmp_path):
    db = tmp_path / "r.sqlite3"
    env = {"GRAPH_TRUST_STATE_DIR": str(tmp_path / "state")}
    assert run_cli("review", "init", str(db), env=env).code == 0
    insert_rows(db, [row("c1", "e1", "candidate", "g")])
    ok = run_cli("review", "corroborate", "c1", "--actor", "alice", "--reason", "seen", "--review-db", str(db),
                 "--json", env=env)
    assert ok.code == 0, ok.err
    assert ok.json()["batch"]["decisions"][0]["new_status"] == "corroborated" and ok.json()["sync"] is None
    bad = run_cli("review", "reject", "c1", "nope", "--actor", "alice", "--reason", "x", "--review-db", str(db),
                  env=env)
    assert bad.code == 2 and bad.err.startswith("error:") and "nope" in bad.err and len(bad.err.splitlines()) == 1
    nobody = run_cli("review", "reject", "c1", "--actor", "unknown", "--reason", "x", "--review-db", str(db), env=env)
    assert nobody.code == 2 and "names nobody" in nobody.err
    hist = run_cli("review", "history", "--review-db", str(db), "--json", env=env)
    assert [r["new_status"] for r in hist.json()] == ["corroborated"]
    undo = run_cli("review", "undo", "--actor", "alice", "--reason", "oops", "--review-db", str(db), env=env)
    assert undo.code == 0 and "undid" in undo.out
    con = ReviewConn.open(db)
    assert con.query("SELECT status FROM candidates") == [("candidate",)]
    con.close()
    init_confidence_tables(db)  # (idempotent after review init)
