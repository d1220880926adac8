"""The guard against Graphiti invalidating verified facts: verify and sync report promoted and
corroborated edges Graphiti invalidated (``trusted_invalidated``) with the edge that superseded
them, sync records each as a contradiction for review once, and with ``guard.restore_trusted``
restores them, journaled, so rollback re-invalidates them exactly. Real embedded FalkorDB, edges
invalidated through graphiti-core's own API, real SQLite."""

from __future__ import annotations

import json
import random
import sqlite3
from datetime import UTC, datetime, timedelta, timezone

import neo4j.time
import pytest
import yaml
from builders import Fact, _save, build_graph
from cli_helpers import run_cli
from graphiti_core.edges import EntityEdge
from hypothesis import given
from hypothesis import strategies as st
from sync_fixtures import FACTS, bulk_graph, review_db, row

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.graph.connection import open_graph
from graph_trust.graph.temporal import as_datetime, from_json, to_json
from graph_trust.sync import rollback, run_sync, verify
from graph_trust.sync.confidence.schema import init_confidence_tables
from graph_trust.sync.guard import superseder
from graph_trust.sync.runs.identity import graph_key
from graph_trust.sync.store.state import StateStore
from graph_trust.sync.writer import VALIDITY_KIND, Change, insert_journal, write_validity

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NEWER = Fact("billing-db", "RUNS_ON", "db-host-2", "billing-db moved to db-host-2", at=T0 + timedelta(days=60))
OTHER = Fact("billing-db", "OWNED_BY", "team-pay", "billing-db is owned by team-pay", at=T0 + timedelta(days=90))


async def invalidate(driver, uuid: str, invalid_at: datetime | None, expired_at: datetime | None) -> None:
    """What Graphiti's contradiction step does to an edge, through graphiti-core's own API."""
    edge = await EntityEdge.get_by_uuid(driver, uuid)
    await edge.load_fact_embedding(driver)
    edge.invalid_at, edge.expired_at = invalid_at, expired_at
    await edge.save(driver)


async def validity(graph, group: str) -> dict[str, tuple]:
    """{edge uuid: (invalid_at, expired_at)} exactly as stored."""
    rows = await graph.for_group(group).run_text(
        "MATCH ()-[r:RELATES_TO]->() RETURN r.uuid AS uuid, r.invalid_at AS i, r.expired_at AS x", {}, write=False)
    return {r["uuid"]: (r["i"], r["x"]) for r in rows}


def contradictions(db) -> list[tuple]:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT fact_a_id, fact_b_id, contradiction_type, resolved_at, resolution_strategy, detail "
                           "FROM fact_contradictions ORDER BY id").fetchall()
    finally:
        con.close()


@pytest.fixture
async def world(graph, settings, tmp_path, unique):
    group = f"g_{unique}"
    driver = graph.for_group(group).driver
    uuids = await build_graph(driver, HashingEmbedder(), [*FACTS, NEWER, OTHER], group)
    u = [uuids[f.fact] for f in FACTS]
    rows = [row("c1", u[0], "promoted", group), row("c2", u[1], "promoted", group),
            row("c3", u[2], "corroborated", group), row("c4", u[3], "candidate", group),
            row("c5", u[4], "rejected", group)]
    db = review_db(tmp_path / "review.sqlite3", rows)
    init_confidence_tables(db)
    # Graphiti's contradiction step: the newer edge's valid_at becomes the old one's invalid_at
    at = NEWER.at
    await invalidate(driver, u[1], at, at + timedelta(hours=1))  # promoted, superseded by NEWER
    await invalidate(driver, u[2], None, OTHER.at + timedelta(minutes=5))  # corroborated, expired only
    await invalidate(driver, u[3], at, at)  # candidate: not the guard's business
    await invalidate(driver, u[4], at, at)  # rejected
    await invalidate(driver, u[5], at, at)  # no review row
    return graph, settings, db, group, u, uuids


async def test_verify_and_sync_report_trusted_invalidated_edges_with_their_superseder(world):
    graph, settings, db, group, u, uuids = world
    v = await verify(settings, review_db=db, graph=graph)
    assert v.trusted_invalidated_count == 2 and "trusted_invalidated" in v.hint
    by = {i["uuid"]: i for i in v.trusted_invalidated}
    assert set(by) == {u[1], u[2]}
    moved = by[u[1]]
    assert moved["fact"] == FACTS[1].fact and moved["group_id"] == group and moved["candidate_ids"] == ["c2"]
    assert as_datetime(moved["invalid_at"]) == NEWER.at
    assert as_datetime(moved["expired_at"]) == NEWER.at + timedelta(hours=1)
    assert moved["superseded_by"]["uuid"] == uuids[NEWER.fact]  # same source, same relation, valid from then
    assert moved["superseded_by"]["fact"] == NEWER.fact
    # expired only: the invalidation time is expired_at, after OTHER became valid: no superseder
    assert by[u[2]]["invalid_at"] is None and by[u[2]]["superseded_by"] is None
    before = await validity(graph, group)
    dry = await run_sync(settings, review_db=db, graph=graph, dry_run=True)
    assert {i["uuid"] for i in dry.trusted_invalidated} == {u[1], u[2]} and dry.trusted_restored == 0
    assert dry.contradictions_recorded == 0 and contradictions(db) == [] and await validity(graph, group) == before
    rep = await run_sync(settings, review_db=db, graph=graph)
    assert rep.trusted_invalidated_count == 2 and rep.trusted_restored == 0
    assert [i["superseded_by"] for i in rep.trusted_invalidated] == [i["superseded_by"] for i in v.trusted_invalidated]
    assert await validity(graph, group) == before  # the setting is off: reported, never written
    assert "guard.restore_trusted" in rep.guard_hint


async def test_the_contradiction_is_recorded_once_across_runs_and_left_open(world):
    graph, settings, db, group, u, _ = world
    first = await run_sync(settings, review_db=db, graph=graph)
    second = await run_sync(settings, review_db=db, graph=graph)
    assert (first.contradictions_recorded, second.contradictions_recorded) == (2, 0)
    recorded = contradictions(db)
    assert sorted(r[0] for r in recorded) == ["c2", "c3"]
    assert {r[2] for r in recorded} == {"graphiti_invalidation"}
    assert all(r[3] is None and r[4] is None for r in recorded)  # flagged for review: unresolved
    detail = json.loads(next(r[5] for r in recorded if r[0] == "c2"))
    assert detail["uuid"] == u[1] and detail["superseded_by"]["fact"] == NEWER.fact
    # Graphiti invalidates the edge again, at another time: a new invalidation, a new record
    driver = graph.for_group(group).driver
    await invalidate(driver, u[1], NEWER.at + timedelta(days=1), NEWER.at + timedelta(days=1))
    third = await run_sync(settings, review_db=db, graph=graph)
    assert third.contradictions_recorded == 1 and len(contradictions(db)) == 3


async def test_without_confidence_tables_sync_reports_and_says_why_nothing_was_recorded(graph, settings, tmp_path,
                                                                                        unique):
    group = f"g_{unique}"
    driver = graph.for_group(group).driver
    uuids = await build_graph(driver, HashingEmbedder(), FACTS[:2], group)
    u = uuids[FACTS[0].fact]
    db = review_db(tmp_path / "review.sqlite3", [row("c1", u, "promoted", group)])
    await invalidate(driver, u, T0 + timedelta(days=1), T0 + timedelta(days=1))
    rep = await run_sync(settings, review_db=db, graph=graph)
    assert rep.trusted_invalidated_count == 1 and rep.contradictions_recorded == 0
    assert "review init" in rep.guard_hint


async def test_restore_then_rollback_puts_the_invalidation_back_exactly(world):
    graph, settings, db, group, u, _ = world
    settings = settings.model_copy(update={"guard": settings.guard.model_copy(update={"restore_trusted": True})})
    before = await validity(graph, group)
    rep = await run_sync(settings, review_db=db, graph=graph)
    assert rep.trusted_restored == 2 and all(i["restored"] for i in rep.trusted_invalidated)
    after = await validity(graph, group)
    assert after[u[1]] == (None, None) and after[u[2]] == (None, None)
    assert {k: v for k, v in after.items() if k not in (u[1], u[2])} == \
        {k: v for k, v in before.items() if k not in (u[1], u[2])}  # candidate, rejected, unreviewed untouched
    driver = graph.for_group(group).driver
    edge = await EntityEdge.get_by_uuid(driver, u[1])  # Graphiti still loads it, valid again
    assert edge.invalid_at is None and edge.expired_at is None and edge.fact == FACTS[1].fact
    assert (await verify(settings, review_db=db, graph=graph)).trusted_invalidated_count == 0
    assert (await run_sync(settings, review_db=db, graph=graph)).trusted_invalidated_count == 0
    rb = await rollback(settings, rep.run_id, graph=graph)
    assert rb.invalidations_restored == 2
    restored = await validity(graph, group)
    assert restored == before  # byte for byte: the same strings
    assert all(type(a) is type(b) for k in before for a, b in zip(restored[k], before[k], strict=True))
    edge = await EntityEdge.get_by_uuid(driver, u[1])
    assert edge.invalid_at == NEWER.at and edge.expired_at == NEWER.at + timedelta(hours=1)


async def test_a_restore_interrupted_between_journal_and_write_is_settled_by_the_next_run(world):
    graph, settings, db, group, u, _ = world
    store = StateStore.for_settings(settings)
    key = graph_key(graph)
    gname = graph.for_group(group).database
    current = await validity(graph, group)
    written = Change(u[1], {"invalid_at": current[u[1]][0], "expired_at": current[u[1]][1]},
                     {"invalid_at": None, "expired_at": None})
    unwritten = Change(u[2], {"invalid_at": None, "expired_at": current[u[2]][1]},
                       {"invalid_at": None, "expired_at": None})
    try:
        dead, _ = store.start_run(kind="sync", graph_key=key, graph=graph.address.display, dry_run=False, full=False,
                                  config_hash="x", pid=2 ** 22 + 7)
        with store.tx() as c:  # journaled, then the process died: one batch written, one not
            insert_journal(c, dead, 1, key, gname, VALIDITY_KIND, [written], "pending")
            insert_journal(c, dead, 2, key, gname, VALIDITY_KIND, [unwritten], "pending")
        assert await write_validity(graph.for_group(group), [written]) == {u[1]}
    finally:
        store.close()
    rep = await run_sync(settings, review_db=db, graph=graph)
    assert rep.recovered_journal_rows == 2
    assert {i["uuid"] for i in rep.trusted_invalidated} == {u[2]}  # the written one is valid now
    store = StateStore.for_settings(settings)
    try:
        states = dict(store.con.execute("SELECT batch, state FROM sync_journal WHERE run_id = ?", (dead,)).fetchall())
    finally:
        store.close()
    assert states == {1: "applied", 2: "void"}
    rb = await rollback(settings, dead, graph=graph, force=True)  # the applied restore is undone exactly
    assert rb.invalidations_restored == 1 and (await validity(graph, group))[u[1]] == current[u[1]]


async def test_cli_text_and_json_show_the_guard(world, tmp_path, embedded_path):
    graph, settings, db, group, u, uuids = world
    cfg = tmp_path / "graph-trust.yaml"
    cfg.write_text(yaml.safe_dump({"graph": {"uri": f"embedded:{embedded_path}", "database": settings.graph.database},
                                   "state_dir": str(settings.state_dir), "sync": {"tiers": settings.sync.tiers},
                                   "guard": {"restore_trusted": True}}))
    v = run_cli("verify", "--review-db", str(db), "--config", str(cfg), "--json")
    assert v.code == 1 and set(k for k, n in v.json()["drift"].items() if n) == {"edge_missing_trust"}  # (unsynced)
    assert {i["uuid"] for i in v.json()["trusted_invalidated"]} == {u[1], u[2]}
    text = run_cli("verify", "--review-db", str(db), "--config", str(cfg))
    assert "trusted_invalidated: 2" in text.out and f"superseded by {uuids[NEWER.fact]}" in text.out
    dry = run_cli("sync", "--review-db", str(db), "--config", str(cfg), "--dry-run")
    assert dry.code == 0 and "trusted_invalidated: 2" in dry.out and "restored" not in dry.out
    real = run_cli("sync", "--review-db", str(db), "--config", str(cfg), "--json")
    d = real.json()
    assert d["trusted_restored"] == 2 and d["contradictions_recorded"] == 2 and d["guard_hint"] is None
    v = run_cli("verify", "--review-db", str(db), "--config", str(cfg), "--json")
    assert v.code == 0 and v.json()["trusted_invalidated_count"] == 0  # synced and restored
    rb = run_cli("rollback", d["run_id"], "--config", str(cfg))
    assert rb.code == 0 and "2 invalidations put back" in rb.out


# --- which edge superseded an invalidated one (pure) ---------------------------------------------

def _item(**kw):
    return {"uuid": "old", "source_uuid": "a", "target_uuid": "b", "name": "RUNS_ON",
            "invalid_at": "2026-03-01T00:00:00+00:00", "expired_at": "2026-03-02T00:00:00+00:00", **kw}


def _edge(uuid, source="a", target="c", name="RUNS_ON", valid_at="2026-03-01T00:00:00+00:00"):
    return {"uuid": uuid, "source_uuid": source, "target_uuid": target, "name": name, "fact": uuid,
            "valid_at": valid_at}


def test_superseder_rules():
    item = _item()
    assert superseder(item, []) is None
    assert superseder(item, [_edge("old")]) is None  # itself
    assert superseder(item, [_edge("n1")])["uuid"] == "n1"  # same source, same relation, valid from then
    assert superseder(item, [_edge("n1", valid_at="2026-02-28T23:59:59+00:00")]) is None  # valid before
    assert superseder(item, [_edge("n1", name="OWNED_BY")]) is None  # another relation, other ends
    assert superseder(item, [_edge("n1", source="x", target="a")]) is None  # not from the same source
    assert superseder(item, [_edge("n2", source="b", target="a", name="HOSTS")])["uuid"] == "n2"  # same ends
    # the one valid first wins; on a tie the same relation beats the same ends, then the uuid
    assert superseder(item, [_edge("n3", valid_at="2026-04-01T00:00:00Z"), _edge("n4")])["uuid"] == "n4"
    assert superseder(item, [_edge("n5", target="b", name="HOSTS"), _edge("n9")])["uuid"] == "n9"
    assert superseder(item, [_edge("n7"), _edge("n6")])["uuid"] == "n6"
    # expired only: the invalidation time is expired_at
    only_expired = _item(invalid_at=None)
    assert superseder(only_expired, [_edge("n1")]) is None
    assert superseder(only_expired, [_edge("n1", valid_at="2026-03-02T00:00:00+00:00")])["uuid"] == "n1"
    assert superseder(_item(invalid_at=None, expired_at=None), [_edge("n1")]) is None


# --- journal values: every stored type back as itself ------------------------------------------

@given(st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1)), st.integers(0, 999),
       st.one_of(st.none(), st.integers(-14 * 60, 14 * 60)), st.sampled_from(["neo4j", "python", "string"]))
def test_temporal_values_survive_the_journal(when, nanos, offset, kind):
    tz = None if offset is None else timezone(timedelta(minutes=offset))
    value = when.replace(tzinfo=tz)
    if kind == "neo4j":
        value = neo4j.time.DateTime.from_native(value) + neo4j.time.Duration(nanoseconds=nanos)
    elif kind == "string":
        value = value.isoformat()
    back = from_json(json.loads(json.dumps(to_json(value))))
    assert back == value and type(back) is type(value)
    if kind == "neo4j":
        assert back.iso_format() == value.iso_format()


# --- randomized: many edges, random statuses and invalidations ----------------------------------

STATUSES = ["promoted", "corroborated", "candidate", "rejected", "expired", None]  # None: no review row


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_random_statuses_and_invalidations(graph, settings, tmp_path, unique, seed):
    """Reported == the promoted/corroborated invalidated edges; restore then rollback is the identity."""
    rnd = random.Random(seed)
    group = f"g_{unique}"
    edges = await bulk_graph(graph, group, 300)
    conn = graph.for_group(group)
    rows, want = [], set()
    invalid = []
    for i, u in enumerate(edges):
        status = rnd.choice(STATUSES)
        if status is not None:
            rows.append(row(f"c{i:04d}", u, status, group))
        if rnd.random() < 0.2 and status is not None:  # a second row on the same edge
            rows.append(row(f"d{i:04d}", u, rnd.choice(STATUSES[:-1]), group))
        how = rnd.choice(["valid", "valid", "invalid", "expired", "both"])
        if how == "valid":
            continue
        t = (T0 + timedelta(minutes=rnd.randrange(100000))).isoformat()
        invalid.append({"uuid": u, "i": t if how in ("invalid", "both") else None,
                        "x": t if how in ("expired", "both") else None})
        statuses = {r["status"] for r in rows if json.loads(r["evidence_refs_json"])[0]["evidence_id"] == u}
        if statuses & {"promoted", "corroborated"}:
            want.add(u)
    await conn.run_text("UNWIND $rows AS row MATCH ()-[r:RELATES_TO {uuid: row.uuid}]->() "
                        "SET r.invalid_at = row.i, r.expired_at = row.x", {"rows": invalid}, write=True)
    db = review_db(tmp_path / "review.sqlite3", rows)
    init_confidence_tables(db)
    before = await validity(graph, group)
    settings = settings.model_copy(update={"guard": settings.guard.model_copy(update={"restore_trusted": True}),
                                           "sync": settings.sync.model_copy(update={"batch_size": 17})})
    v = await verify(settings, review_db=db, graph=graph)
    assert {i["uuid"] for i in v.trusted_invalidated} == want and v.trusted_invalidated_count == len(want)
    rep = await run_sync(settings, review_db=db, graph=graph)
    assert {i["uuid"] for i in rep.trusted_invalidated} == want and rep.trusted_restored == len(want)
    assert rep.contradictions_recorded == len(want)
    after = await validity(graph, group)
    assert {u for u, v in after.items() if v != (None, None)} == {x["uuid"] for x in invalid} - want
    assert all(after[u] == before[u] for u in after if u not in want)
    rb = await rollback(settings, rep.run_id, graph=graph)
    assert rb.invalidations_restored == len(want) and await validity(graph, group) == before


# --- over Bolt (ArcadeDB in CI; real Neo4j with GRAPH_TRUST_TEST_NEO4J_URI): DateTime values ----

@pytest.mark.bolt
async def test_restore_and_rollback_over_bolt_keep_datetime_values(bolt, bolt_settings, tmp_path, unique):
    group = f"b{unique}"
    async with open_graph(bolt_settings) as g:
        await g.settle()
        driver = g.for_group(group).driver
        uuids = await build_graph(driver, HashingEmbedder(), [*FACTS[:3], NEWER], group, indices=False,
                                  vector_procedure=not bolt.arcadedb)
        u = [uuids[f.fact] for f in FACTS[:3]]
        for uuid, _status in zip(u, ("promoted", "corroborated", "candidate"), strict=True):
            edge = await EntityEdge.get_by_uuid(driver, uuid)  # Graphiti's contradiction step, saved as it saves
            edge.invalid_at, edge.expired_at = NEWER.at, NEWER.at + timedelta(seconds=1, microseconds=250)
            await _save(edge, driver, not bolt.arcadedb)
        db = review_db(tmp_path / "r.sqlite3", [row(f"c{i}", x, s, group) for i, (x, s) in
                                                 enumerate(zip(u, ("promoted", "corroborated", "candidate")))])
        init_confidence_tables(db)
        before = await validity(g, group)
        loaded = await EntityEdge.get_by_uuid(driver, u[1])  # (ArcadeDB hands DateTime back without its zone)
        assert as_datetime(loaded.invalid_at) == NEWER.at
        settings = bolt_settings.model_copy(
            update={"guard": bolt_settings.guard.model_copy(update={"restore_trusted": True})})
        v = await verify(settings, review_db=db, graph=g)
        assert {i["uuid"] for i in v.trusted_invalidated} == {u[0], u[1]}
        assert next(i for i in v.trusted_invalidated if i["uuid"] == u[1])["superseded_by"]["uuid"] == uuids[NEWER.fact]
        rep = await run_sync(settings, review_db=db, graph=g)
        assert rep.trusted_restored == 2 and rep.contradictions_recorded == 2
        after = await validity(g, group)
        assert after[u[0]] == after[u[1]] == (None, None) and after[u[2]] == before[u[2]]
        assert (await EntityEdge.get_by_uuid(driver, u[0])).invalid_at is None
        rb = await rollback(settings, rep.run_id, graph=g)
        assert rb.invalidations_restored == 2
        restored = await validity(g, group)
        assert restored == before
        assert all(type(a) is type(b) for k in before for a, b in zip(restored[k], before[k], strict=True))
        edge = await EntityEdge.get_by_uuid(driver, u[1])
        assert (edge.invalid_at, edge.expired_at) == (loaded.invalid_at, loaded.expired_at)


def test_guard_settings_are_checked_once_and_name_the_key():
    from graph_trust.config import load_settings
    from graph_trust.errors import ConfigError

    with pytest.raises(ConfigError, match=r"config key guard.statuses: 'promotd' is no status of sync.tiers"):
        load_settings(overrides={"guard.statuses": ["promoted", "promotd"]}, environ={})
    with pytest.raises(ConfigError, match="config key guard.restore_trusted"):
        load_settings(overrides={"guard.restore_trusted": "perhaps"}, environ={})
    with pytest.raises(ConfigError, match="config key guard.statuses"):
        load_settings(overrides={"guard.statuses": []}, environ={})
    custom = load_settings(overrides={"sync.tiers": {"verified": 1.0}, "guard.statuses": ["verified"]}, environ={})
    assert custom.guard.statuses == ["verified"] and not custom.guard.restore_trusted
    # custom tiers without the default statuses still load (the guard then finds nothing to guard)
    assert load_settings(overrides={"sync.tiers": {"verified": 1.0}}, environ={}).guard.enabled
