"""Negative evidence end to end on a real embedded FalkorDB, with the default tiers: sync writes
``trust_score`` 0 and ``trust_status`` on rejected and expired edges (journaled, verified, rolled
back), entity aggregation ignores them, and trust_search demotes or drops them."""

from __future__ import annotations

import pytest
from builders import Fact, reference_recipe
from sync_fixtures import build, edge_props, entity_trust, review_db, row, set_rows

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.clients.offline import make_graphiti
from graph_trust.config import SyncSettings
from graph_trust.search import trust_search as gt
from graph_trust.sync import rollback, run_sync, verify

FACTS = [
    Fact("billing-db", "BACKUP_AT", "02:00 UTC", "The billing-db backup job runs at 02:00 UTC every night"),
    Fact("billing-db", "BACKUP_AT", "03:00 UTC", "The billing-db backup job runs at 03:00 UTC every night"),
    Fact("billing-db", "BACKUP_AT", "04:00 UTC", "The billing-db backup job runs at 04:00 UTC on weekends"),
    Fact("legacy-db", "BACKUP_AT", "01:00 UTC", "The legacy-db backup runs at 01:00 UTC"),
    Fact("billing-db", "RUNS_ON", "db-host-1", "billing-db runs on db-host-1"),
    Fact("auth-service", "LISTENS_ON", "8443", "auth-service listens on port 8443 with TLS"),
]
WRONG, RIGHT, OTHER, STALE = (f.fact for f in FACTS[:4])


@pytest.fixture
async def world(graph, settings, tmp_path, unique):
    group = f"g_{unique}"
    uuids = await build(graph, group, FACTS)
    s = settings.model_copy(update={"sync": SyncSettings()})  # the default tiers
    rows = [row("c1", uuids[WRONG], "rejected", group), row("c2", uuids[RIGHT], "candidate", group),
            row("c3", uuids[STALE], "expired", group), row("c4", uuids[FACTS[4].fact], "promoted", group)]
    db = review_db(tmp_path / "review.sqlite3", rows)
    return graph, s, db, group, uuids


async def test_sync_writes_zero_and_the_status_and_entities_ignore_it(world):
    graph, s, db, group, uuids = world
    assert s.sync.tiers["rejected"] == 0.0 and s.sync.tiers["expired"] == 0.0
    rep = await run_sync(s, review_db=db, graph=graph)
    props = await edge_props(graph, group)
    assert (props[uuids[WRONG]]["trust_score"], props[uuids[WRONG]]["trust_status"]) == (0.0, "rejected")
    assert (props[uuids[STALE]]["trust_score"], props[uuids[STALE]]["trust_status"]) == (0.0, "expired")
    assert props[uuids[WRONG]]["trust_run_id"] == rep.run_id
    ent = await entity_trust(graph, group)
    assert ent["legacy-db"] is None and ent["01:00 UTC"] is None and ent["02:00 UTC"] is None  # 0 is no evidence
    assert ent["billing-db"] == 1.0 and ent["03:00 UTC"] == 0.25
    assert (await verify(s, review_db=db, graph=graph)).in_sync
    again = await run_sync(s, review_db=db, graph=graph)
    assert (again.edges_set, again.edges_cleared, again.entities_updated) == (0, 0, 0)
    # a reviewer reverses the rejection: the edge becomes a promoted one, its entities gain trust
    set_rows(db, "UPDATE candidates SET status = 'promoted', updated_at = '2030-01-01T00:00:00Z' WHERE id = 'c3'")
    second = await run_sync(s, review_db=db, graph=graph)
    assert (await edge_props(graph, group))[uuids[STALE]]["trust_status"] == "promoted"
    assert (await entity_trust(graph, group))["legacy-db"] == 1.0
    assert (await verify(s, review_db=db, graph=graph)).in_sync
    await rollback(s, second.run_id, graph=graph)
    props = await edge_props(graph, group)
    assert (props[uuids[STALE]]["trust_score"], props[uuids[STALE]]["trust_status"]) == (0.0, "expired")
    assert (await entity_trust(graph, group))["legacy-db"] is None
    await rollback(s, rep.run_id, graph=graph)
    assert all(p["trust_score"] is None and p["trust_status"] is None for p in (await edge_props(graph, group)).values())


async def test_search_sinks_or_drops_what_reviewers_rejected(world):
    graph, s, db, group, uuids = world
    await run_sync(s, review_db=db, graph=graph)
    graphiti = make_graphiti(graph.for_group(group).driver, embedder=HashingEmbedder())
    query = "when does the billing-db backup job run"
    ref = await gt.trust_search(graphiti, query, config=reference_recipe(gt.EDGE_HYBRID_SEARCH_RRF_TRUST, 10),
                                group_ids=[group], trust_weight=0.0)
    ref_order = [e.uuid for e in ref.edges]
    assert uuids[WRONG] in ref_order

    res = await gt.trust_search(graphiti, query, group_ids=[group])  # the defaults
    order = [e.uuid for e in res.edges]
    ex = {e.uuid: e for e in res.edge_explanations}
    negative = {u for u in order if ex[u].negative}
    assert negative == {uuids[WRONG], uuids[STALE]} & set(order)
    assert ex[uuids[WRONG]].negative == "rejected" and ex[uuids[WRONG]].boost == 0.0
    # WRONG competes with RIGHT (billing-db BACKUP_AT) and sinks; STALE (legacy-db's only
    # BACKUP_AT, expired) has no competitor, so it keeps its place (negative_lone_places 0)
    assert order[-1] == uuids[WRONG]
    assert [u for u in order if u != uuids[WRONG]] == [u for u in ref_order if u != uuids[WRONG]]
    sunk_all = await gt.trust_search(graphiti, query, group_ids=[group], config=gt.EDGE_HYBRID_SEARCH_RRF_TRUST
                                     .model_copy(update={"negative_lone_places": None}))
    order_all = [e.uuid for e in sunk_all.edges]  # the rule off: every negative edge sinks
    assert order_all[-len(negative):] == [u for u in ref_order if u in negative]  # last, in their own order
    assert [u for u in order_all if u not in negative] == [u for u in ref_order if u not in negative]

    cfg = gt.EDGE_HYBRID_SEARCH_RRF_TRUST.model_copy(update={"drop_negative": True})
    dropped = await gt.trust_search(graphiti, query, config=cfg, group_ids=[group])
    assert [e.uuid for e in dropped.edges] == [u for u in order if u not in negative]

    cfg = gt.EDGE_HYBRID_SEARCH_RRF_TRUST.model_copy(update={"negative_statuses": []})
    ignored = await gt.trust_search(graphiti, query, config=cfg, group_ids=[group], trust_weight=0.0)
    assert [e.uuid for e in ignored.edges] == ref_order  # status ignored: vanilla order (no invalid_at here)
