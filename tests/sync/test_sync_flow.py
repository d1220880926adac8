"""End-to-end sync on a real embedded FalkorDB built through graphiti-core's API."""

from __future__ import annotations

import json
from datetime import UTC

import pytest
from sync_fixtures import (
    FACTS,
    build,
    bulk_graph,
    bulk_rows,
    edge_props,
    entity_trust,
    expected_state,
    review_db,
    row,
    set_rows,
)

from graph_trust.sync import rollback, run_sync, verify
from graph_trust.sync.review_db import insert_rows


@pytest.fixture
async def world(graph, settings, tmp_path, unique):
    group = f"g_{unique}"
    uuids = await build(graph, group)
    u = [uuids[f.fact] for f in FACTS]
    rows = [
        row("c1", u[0], "promoted", group, memory_type="fact", sensitivity="low", scope="ops"),
        row("c2", u[1], "corroborated", group),
        row("c3", u[2], "candidate", group),
        row("c4", u[3], "rejected", group),
        row("c5", u[2], "promoted", group),        # same edge as c3: highest tier wins
        row("c6", u[4], "expired", group),
        row("c7", "no-such-edge", "promoted", group),
        row("c8", None, "promoted", group, ev="{not json"),
    ]
    db = review_db(tmp_path / "review.sqlite3", rows)
    return graph, settings, db, group, u


async def test_sync_sets_scores_and_aggregates(world):
    graph, settings, db, group, u = world
    rep = await run_sync(settings, review_db=db, graph=graph)
    props = await edge_props(graph, group)
    assert props[u[0]]["trust_score"] == 1.0 and props[u[0]]["trust_status"] == "promoted"
    assert (props[u[0]]["memory_type"], props[u[0]]["sensitivity"], props[u[0]]["scope"]) == ("fact", "low", "ops")
    assert props[u[1]]["trust_score"] == 0.6
    assert props[u[2]]["trust_score"] == 1.0 and props[u[2]]["trust_status"] == "promoted"
    assert props[u[3]]["trust_score"] is None and props[u[4]]["trust_score"] is None
    assert props[u[0]]["trust_run_id"] == rep.run_id
    assert rep.edges_set == 3 and rep.edges_cleared == 0
    assert rep.unmatched_count == 1 and rep.unmatched[0]["id"] == "c7" and "relink" in rep.unmatched_hint
    assert rep.quarantined_count == 1 and rep.quarantined[0]["id"] == "c8"
    ent = await entity_trust(graph, group)
    assert ent["billing-db"] == 1.0 and ent["db-host-1"] == 0.6 and ent["auth-service"] is None
    assert rep.entities_updated == 4  # billing-db, 03:00 UTC, db-host-1, team-data
    v = await verify(settings, review_db=db, graph=graph)
    assert v.in_sync, v.drift
    again = await run_sync(settings, review_db=db, graph=graph)
    assert (again.edges_set, again.edges_cleared, again.entities_updated) == (0, 0, 0)
    assert again.edges_unchanged == 3


async def test_changes_manual_edits_and_rollback(world):
    graph, settings, db, group, u = world
    first = await run_sync(settings, review_db=db, graph=graph)
    set_rows(db, "UPDATE candidates SET status = 'rejected', updated_at = '2030-01-01T00:00:00Z' WHERE id = 'c1'")
    set_rows(db, "DELETE FROM candidates WHERE id = 'c2'")
    await graph.for_group(group).run_text("MATCH ()-[r:RELATES_TO {uuid: $u}]->() SET r.trust_score = 0.01",
                                          {"u": u[2]}, write=True)
    v = await verify(settings, review_db=db, graph=graph)
    # u0's only row now has an unscored status: labels only (its trust differs); u1 lost its row
    assert not v.in_sync and v.drift["edge_wrong_trust"] == 2 and v.drift["edge_stale_trust"] == 1
    second = await run_sync(settings, review_db=db, graph=graph)
    props = await edge_props(graph, group)
    assert props[u[0]]["trust_score"] is None and props[u[0]]["memory_type"] is None
    assert (props[u[0]]["sensitivity"], props[u[0]]["scope"], props[u[0]]["trust_run_id"]) == ("low", "ops", second.run_id)
    assert props[u[1]]["trust_score"] is None
    assert props[u[2]]["trust_score"] == 1.0
    assert second.edges_cleared == 2 and second.edges_set == 1 and second.drift_healed == 1
    assert (await entity_trust(graph, group))["03:00 UTC"] is None
    assert (await verify(settings, review_db=db, graph=graph)).in_sync
    # roll back the second run: the graph returns to what the first run left (incl. the manual edit)
    rb = await rollback(settings, second.run_id, graph=graph)
    assert rb.edges_restored == 3
    props = await edge_props(graph, group)
    assert props[u[0]]["trust_score"] == 1.0 and props[u[0]]["trust_run_id"] == first.run_id
    assert props[u[2]]["trust_score"] == 0.01
    assert (await entity_trust(graph, group))["03:00 UTC"] == 1.0


async def test_a_candidate_that_moves_to_another_edge(world):
    """A review row whose evidence now names another edge: the old edge loses its trust, the
    new one gains it (the row is updated in place in the state store's copy)."""
    graph, settings, db, group, u = world
    await run_sync(settings, review_db=db, graph=graph)
    set_rows(db, "UPDATE candidates SET evidence_refs_json = ?, updated_at = '2030-01-01T00:00:00Z' WHERE id = 'c2'",
             (json.dumps([{"evidence_id": u[4]}]),))
    moved = await run_sync(settings, review_db=db, graph=graph)
    assert (moved.edges_set, moved.edges_cleared) == (1, 1)
    props = await edge_props(graph, group)
    assert props[u[1]]["trust_score"] is None and props[u[4]]["trust_score"] == 0.6
    assert (await verify(settings, review_db=db, graph=graph)).in_sync


@pytest.mark.parametrize("edit", [
    "SET r.sensitivity = 'pii'",                     # same length as 'low': text lengths cannot see it
    "SET r.trust_status = 'candidate', r.scope = 'o'",  # a different combination of owned values
    "REMOVE r.memory_type",
])
async def test_a_normal_run_heals_manual_edits_of_owned_text(world, edit):
    graph, settings, db, group, u = world
    await run_sync(settings, review_db=db, graph=graph)
    await graph.for_group(group).run_text(f"MATCH ()-[r:RELATES_TO {{uuid: $u}}]->() {edit}", {"u": u[0]},
                                          write=True)
    assert not (await verify(settings, review_db=db, graph=graph)).in_sync
    healed = await run_sync(settings, review_db=db, graph=graph)
    assert healed.drift_healed == 1 and healed.edges_set == 1
    props = (await edge_props(graph, group))[u[0]]
    assert (props["trust_status"], props["memory_type"], props["sensitivity"], props["scope"]) == \
        ("promoted", "fact", "low", "ops")
    assert (await verify(settings, review_db=db, graph=graph)).in_sync
    quiet = await run_sync(settings, review_db=db, graph=graph)
    assert (quiet.drift_healed, quiet.edges_set) == (0, 0)


@pytest.mark.parametrize("method", ["max", "mean", "noisy_or"])
async def test_full_run_aggregation_in_graph_matches_python(world, method):
    graph, settings, db, group, u = world
    settings.sync.aggregation = method
    full = await run_sync(settings, review_db=db, graph=graph, full=True)
    v = await verify(settings, review_db=db, graph=graph)  # verify aggregates in Python
    assert v.in_sync, v.drift
    ent = await entity_trust(graph, group)
    # billing-db touches u0 (1.0), u1 (0.6), u2 (1.0, promoted wins) and u4 (no trust)
    want = {"max": 1.0, "mean": (1.0 + 0.6 + 1.0) / 3, "noisy_or": 1.0 - 0.0 * 0.4 * 0.0}[method]
    assert abs(ent["billing-db"] - want) < 1e-9
    assert full.entities_updated == 4
    # an entity holding trust with no trusted edge (a manual edit) is cleared by the next full run
    await graph.for_group(group).run_text("MATCH (n:Entity {name: 'auth-service'}) SET n.trust_score = 0.9", {},
                                          write=True)
    refull = await run_sync(settings, review_db=db, graph=graph, full=True)
    assert refull.entities_updated == 1 and (await entity_trust(graph, group))["auth-service"] is None
    set_rows(db, "UPDATE candidates SET status = 'candidate', updated_at = '2030-01-01T00:00:00Z' WHERE id = 'c2'")
    inc = await run_sync(settings, review_db=db, graph=graph)
    assert inc.entities_updated >= 1 and (await verify(settings, review_db=db, graph=graph)).in_sync
    await rollback(settings, inc.run_id, graph=graph)
    await rollback(settings, refull.run_id, graph=graph)
    assert (await entity_trust(graph, group))["auth-service"] == 0.9  # restored exactly
    await graph.for_group(group).run_text("MATCH (n:Entity {name: 'auth-service'}) REMOVE n.trust_score", {},
                                          write=True)
    await rollback(settings, full.run_id, graph=graph)
    assert set((await entity_trust(graph, group)).values()) == {None}
    assert _scores(await edge_props(graph, group)) == {}


async def test_full_run_journals_the_exact_previous_values(world):
    """A ``--full`` run journals in SQLite straight from its work table: the previous values come
    from the shadow it rebuilt from the graph (trust another run or someone else set) and from
    the edges holding owned properties without trust; rollback restores exactly those."""
    graph, settings, db, group, u = world
    gg = graph.for_group(group)
    first = await run_sync(settings, review_db=db, graph=graph)
    set_rows(db, "UPDATE candidates SET status = 'corroborated', updated_at = '2030-01-01T00:00:00Z' WHERE id = 'c1'")
    await gg.run_text("MATCH ()-[r:RELATES_TO {uuid: $u}]->() REMOVE r.trust_score SET r.sensitivity = 'secret'",
                      {"u": u[1]}, write=True)  # owned text without trust: journaled from foreign_props
    await gg.run_text("MATCH ()-[r:RELATES_TO {uuid: $u}]->() SET r.trust_score = 0.3, r.scope = 'manual'",
                      {"u": u[4]}, write=True)  # trust no candidate wants: cleared
    before = await edge_props(graph, group)
    full = await run_sync(settings, review_db=db, graph=graph, full=True)
    assert (full.edges_set, full.edges_cleared, full.unmatched_count) == (2, 1, 1)  # u0, u1; u4; c7
    props = await edge_props(graph, group)
    assert (props[u[0]]["trust_score"], props[u[0]]["trust_run_id"]) == (0.6, full.run_id)
    assert (props[u[1]]["trust_score"], props[u[1]]["sensitivity"]) == (0.6, None)
    assert props[u[4]]["trust_score"] is None and props[u[4]]["scope"] is None
    assert props[u[2]]["trust_run_id"] == first.run_id  # unchanged, not rewritten
    assert (await verify(settings, review_db=db, graph=graph)).in_sync
    assert (await run_sync(settings, review_db=db, graph=graph)).edges_set == 0  # the shadow followed
    await rollback(settings, full.run_id, graph=graph)
    assert await edge_props(graph, group) == before


async def test_verify_and_rerun_after_a_full_run_stopped_part_way(world, monkeypatch):
    """A full run recomputes the desired trust range by range as it writes. Stopped part-way, it
    leaves that table partly recomputed: verify still compares the graph with every candidate,
    and the next (normal) run converges."""
    from graph_trust.errors import RunFailedError
    from graph_trust.sync import edge_phase

    graph, settings, db, group, u = world
    monkeypatch.setattr(edge_phase, "RANGE_CANDIDATES", 1)  # one range per candidate
    monkeypatch.setattr(edge_phase, "PIPELINE_DEPTH", 1)  # stopped after the first batch, one more in flight

    def stop(phase: str, n: int, total: int | None) -> None:
        if phase == "edges":
            raise RuntimeError("stop here")

    with pytest.raises(RunFailedError, match="stop here"):
        await run_sync(settings, review_db=db, graph=graph, full=True, batch_size=1, progress=stop)
    written = len(_scores(await edge_props(graph, group)))
    assert 1 <= written < 3
    v = await verify(settings, review_db=db, graph=graph)
    assert v.drift["edge_missing_trust"] == 3 - written
    again = await run_sync(settings, review_db=db, graph=graph, batch_size=1)
    assert again.edges_set == 3 - written and again.edges_unchanged == written
    v = await verify(settings, review_db=db, graph=graph)
    assert v.in_sync, v.drift


async def test_full_run_over_two_groups_in_many_ranges(graph, settings, tmp_path, unique, monkeypatch):
    """Two groups (two FalkorDB graphs) in one review DB, a full run streamed in ranges of 7
    candidates and batches of 5: batches never mix graphs, every edge lands, each phase's
    progress bar ends exactly full (also in a normal run), and the runs verify, a rerun is
    quiet, and rollback leaves nothing."""
    from graph_trust.sync import edge_phase

    monkeypatch.setattr(edge_phase, "RANGE_CANDIDATES", 7)
    groups = (f"ga_{unique}", f"gb_{unique}")
    rows = []
    for group in groups:
        rows += [r | {"id": f"{group}-{r['id']}"} for r in bulk_rows(await bulk_graph(graph, group, 60), group)]
    db = review_db(tmp_path / "review.sqlite3", rows)
    events: dict[str, list[tuple[int, int | None]]] = {}

    def progress(phase: str, n: int, total: int | None) -> None:
        events.setdefault(phase, []).append((n, total))

    full = await run_sync(settings, review_db=db, graph=graph, full=True, batch_size=5, progress=progress)
    _assert_bars_end_full(events)
    want = expected_state(rows)
    assert full.edges_set == len(want) and full.unmatched_count == 0
    for group in groups:
        got = _scores(await edge_props(graph, group))
        assert got == {u: s for u, s in want.items() if f"-{group}-" in u}
    assert (await verify(settings, review_db=db, graph=graph)).in_sync
    again = await run_sync(settings, review_db=db, graph=graph, full=True, batch_size=5)
    assert (again.edges_set, again.edges_cleared, again.entities_updated) == (0, 0, 0)
    set_rows(db, "UPDATE candidates SET status = 'promoted', updated_at = '2030-01-01T00:00:00Z' "
                 "WHERE status = 'candidate' AND id LIKE '%6'")  # c00006, c00026, c00046 of each group
    normal = await run_sync(settings, review_db=db, graph=graph, batch_size=5, progress=progress)
    assert normal.edges_set == 6 and normal.entities_updated > 0
    _assert_bars_end_full(events)
    await rollback(settings, normal.run_id, graph=graph)
    await rollback(settings, full.run_id, graph=graph)
    for group in groups:
        assert _scores(await edge_props(graph, group)) == {}
        assert set((await entity_trust(graph, group)).values()) == {None}


async def test_small_batches_pipeline_to_the_same_state(world):
    """Batches of 1: every edge and entity write is its own batch, pipelined (the next batch is
    journaled, and the next entity inputs read, while one is written); the result verifies and
    rolls back like one big batch."""
    graph, settings, db, group, u = world
    first = await run_sync(settings, review_db=db, graph=graph, batch_size=1)
    assert (first.edges_set, first.entities_updated, first.batches) == (3, 4, 3 + 4)
    assert (await verify(settings, review_db=db, graph=graph)).in_sync
    set_rows(db, "UPDATE candidates SET status = 'candidate', updated_at = '2030-01-01T00:00:00Z' WHERE id IN ('c1', 'c2')")
    second = await run_sync(settings, review_db=db, graph=graph, batch_size=1)
    assert second.edges_set == 2 and second.entities_updated >= 2
    assert (await verify(settings, review_db=db, graph=graph)).in_sync
    await rollback(settings, second.run_id, graph=graph)
    await rollback(settings, first.run_id, graph=graph)
    assert _scores(await edge_props(graph, group)) == {}
    assert set((await entity_trust(graph, group)).values()) == {None}


def _assert_bars_end_full(events: dict[str, list[tuple[int, int | None]]]) -> None:
    """Progress of one run: one bar per phase (one total), advanced to exactly that total."""
    for phase in ("edges", "entities"):
        steps = events.pop(phase)
        totals = {t for _, t in steps}
        assert len(totals) == 1 and sum(n for n, _ in steps) == totals.pop(), (phase, steps)
    events.clear()


def _scores(props):
    return {k: v["trust_score"] for k, v in props.items() if v["trust_score"] is not None}


async def test_rollback_refuses_when_a_later_run_changed_the_same_properties(world):
    from graph_trust.errors import NotFoundError, RollbackConflictError

    graph, settings, db, group, u = world
    first = await run_sync(settings, review_db=db, graph=graph)
    set_rows(db, "UPDATE candidates SET status = 'corroborated', updated_at = '2030-01-01T00:00:00Z' WHERE id = 'c1'")
    second = await run_sync(settings, review_db=db, graph=graph)
    with pytest.raises(RollbackConflictError, match=second.run_id):
        await rollback(settings, first.run_id, graph=graph)
    assert (await edge_props(graph, group))[u[0]]["trust_score"] == 0.6  # nothing restored
    with pytest.raises(NotFoundError):
        await rollback(settings, "sync-nope", graph=graph)
    await rollback(settings, second.run_id, graph=graph)  # newest first: no conflict
    await rollback(settings, first.run_id, graph=graph)   # the later run is rolled back now
    assert _scores(await edge_props(graph, group)) == {}
    assert set((await entity_trust(graph, group)).values()) == {None}
    forced = await run_sync(settings, review_db=db, graph=graph)
    later = await run_sync(settings, review_db=db, graph=graph, full=True)
    assert later.edges_set == 0
    rb = await rollback(settings, forced.run_id, graph=graph, force=True)
    assert rb.edges_restored == 3


async def test_a_run_keeps_full_collections_off_startup_objects(world):
    """While a sync runs, the objects that existed before it are frozen (full garbage
    collections skip them); after the run they are collected as usual again."""
    import gc

    graph, settings, db, _, _ = world
    before = gc.get_freeze_count()
    during: list[int] = []
    await run_sync(settings, review_db=db, graph=graph, progress=lambda *_: during.append(gc.get_freeze_count()))
    assert during and min(during) > before
    assert gc.get_freeze_count() == before


async def test_verify_finds_entity_drift_and_full_heals_it(world):
    """verify compares every entity with its trusted edges: a hand-set wrong score and a score
    on an entity without trusted edges are drift (with examples); a --full run heals both."""
    graph, settings, db, group, u = world
    await run_sync(settings, review_db=db, graph=graph)
    gg = graph.for_group(group)
    rows = await gg.run_text("MATCH (n:Entity) RETURN n.uuid AS uuid, n.name AS name, n.trust_score AS t", {},
                             write=False)
    trusted = sorted((r for r in rows if r["t"] is not None), key=lambda r: r["name"])[0]
    bare = sorted((r for r in rows if r["t"] is None), key=lambda r: r["name"])[0]
    await gg.write("entity_trust_set", rows=[{"uuid": trusted["uuid"], "trust_score": 0.01, "trust_run_id": "hand"},
                                             {"uuid": bare["uuid"], "trust_score": 0.5, "trust_run_id": "hand"}])
    v = await verify(settings, review_db=db, graph=graph)
    assert not v.in_sync and (v.drift["entity_wrong_trust"], v.drift["entity_stale_trust"]) == (1, 1)
    assert v.examples["entity_wrong_trust"] == [{"graph": group, "uuid": trusted["uuid"], "have": 0.01,
                                                  "want": trusted["t"]}]
    assert v.examples["entity_stale_trust"] == [{"graph": group, "uuid": bare["uuid"], "have": 0.5}]
    assert v.entities_checked == len(rows)
    assert v.hints == ["a normal sync re-aggregates the entities at the ends of edges whose trust changed or that "
                       "left the graph; entity trust edited by hand needs 'graph-trust sync --full'"]
    await run_sync(settings, review_db=db, graph=graph, full=True)
    assert (await verify(settings, review_db=db, graph=graph)).in_sync



async def _remove_edges(graph, group: str, how: str, u: list[str]) -> None:
    """Take trusted edges out of the graph as Graphiti or an operator would."""
    gg = graph.for_group(group)
    if how == "graphiti":  # graphiti-core's own delete (what remove_episode does to an edge)
        from graphiti_core.edges import EntityEdge

        for uuid in (u[0], u[2]):
            await (await EntityEdge.get_by_uuid(gg.driver, uuid)).delete(gg.driver)
    elif how == "cypher":
        await gg.run_text("MATCH ()-[r:RELATES_TO]->() WHERE r.uuid IN $u DELETE r", {"u": [u[0], u[2]]}, write=True)
    else:  # the entities at the far ends are deleted, and their edges with them
        await gg.run_text("MATCH (n:Entity) WHERE n.name IN ['03:00 UTC', 'team-data'] DETACH DELETE n", {},
                          write=True)


@pytest.mark.parametrize("first", ["normal", "full"])
@pytest.mark.parametrize("how", ["graphiti", "cypher", "entities"])
async def test_a_normal_run_reaggregates_entities_whose_trusted_edges_left_the_graph(world, how, first):
    """Trusted edges deleted from the graph (Graphiti's delete, Cypher, their entities deleted):
    the next normal run re-aggregates the entities they connected. After a normal run the shadow
    knows each edge's endpoints; after a --full run it does not (it read none), and the run
    re-aggregates every entity instead. Without this billing-db kept 1.0 and 03:00 UTC its
    trust until a --full run, and verify reported the drift every night."""
    graph, settings, db, group, u = world
    await run_sync(settings, review_db=db, graph=graph, full=first == "full")
    assert (await entity_trust(graph, group))["billing-db"] == 1.0
    await _remove_edges(graph, group, how, u)
    drifted = await verify(settings, review_db=db, graph=graph)
    assert not drifted.in_sync and drifted.drift["entity_wrong_trust"] == 1  # billing-db: 1.0, wants 0.6
    calls = []
    healed = await run_sync(settings, review_db=db, graph=graph,
                            progress=lambda phase, n, total: calls.append((n, total)) if phase == "entities" else None)
    assert healed.drift_healed == 2 and healed.entities_updated >= 1
    if first == "normal":  # the three entities the two edges connected, from the shadow's endpoints
        assert calls == [(3, 3)]
    else:  # every entity, one uuid range at a time
        assert calls and all(c == (1, len(calls)) for c in calls)
    ent = await entity_trust(graph, group)
    assert ent["billing-db"] == 0.6 and ent["db-host-1"] == 0.6
    assert ent.get("03:00 UTC") is None and ent.get("team-data") is None
    assert (await verify(settings, review_db=db, graph=graph)).in_sync
    quiet = await run_sync(settings, review_db=db, graph=graph)
    assert (quiet.drift_healed, quiet.entities_updated, quiet.edges_set) == (0, 0, 0)


@pytest.mark.parametrize("first", ["normal", "full"])
async def test_edges_graphiti_saves_again(world, first):
    """graphiti-core's EntityEdge.save() writes ``SET e = $edge_data``. An edge it loaded keeps
    sync's properties (they come back in ``.attributes`` and are saved with it); an edge object
    made afresh with the same uuid (as an extraction that resolves to an existing fact may) loses
    them, and the next normal run sets them again and re-aggregates just its two entities, also
    when a --full run set its trust (no endpoints on record: they are read, not guessed)."""
    from graphiti_core.edges import EntityEdge

    graph, settings, db, group, u = world
    await run_sync(settings, review_db=db, graph=graph, full=first == "full")
    driver = graph.for_group(group).driver
    loaded = await EntityEdge.get_by_uuid(driver, u[0])
    assert loaded.attributes["trust_score"] == 1.0
    loaded.fact += " (confirmed)"
    await loaded.save(driver)
    assert (await edge_props(graph, group))[u[0]]["trust_score"] == 1.0
    fresh = loaded.model_copy(update={"attributes": {}})
    await fresh.save(driver)
    assert (await edge_props(graph, group))[u[0]]["trust_score"] is None
    calls = []
    healed = await run_sync(settings, review_db=db, graph=graph,
                            progress=lambda phase, n, total: calls.append((n, total)) if phase == "entities" else None)
    assert (healed.drift_healed, healed.edges_set) == (1, 1)
    assert calls == [(2, 2)]  # billing-db and 03:00 UTC, not every entity
    props = (await edge_props(graph, group))[u[0]]
    assert (props["trust_score"], props["memory_type"], props["scope"]) == (1.0, "fact", "ops")
    assert (await verify(settings, review_db=db, graph=graph)).in_sync


async def test_an_entity_graphiti_loads_and_saves_keeps_its_trust(world):
    """Graphiti updates an entity (its summary, after an episode) on the node it loaded, whose
    ``.attributes`` carry sync's properties, so ``SET n = $entity_data`` keeps them."""
    from graphiti_core.nodes import EntityNode

    graph, settings, db, group, u = world
    await run_sync(settings, review_db=db, graph=graph)
    driver = graph.for_group(group).driver
    node = next(n for n in await EntityNode.get_by_group_ids(driver, [group]) if n.name == "billing-db")
    assert node.attributes["trust_score"] == 1.0
    node.summary = "updated by a later episode"
    await node.save(driver)
    assert (await entity_trust(graph, group))["billing-db"] == 1.0
    assert (await verify(settings, review_db=db, graph=graph)).in_sync


async def test_a_dry_run_that_sees_edges_leave_keeps_their_entities_for_the_next_run(world):
    """A dry run re-reads drifted buckets into the shadow too, so it records the entities to
    re-aggregate for the next real run (which no longer sees the drift)."""
    graph, settings, db, group, u = world
    await run_sync(settings, review_db=db, graph=graph)
    await _remove_edges(graph, group, "cypher", u)
    dry = await run_sync(settings, review_db=db, graph=graph, dry_run=True)
    assert dry.drift_healed == 2 and (await entity_trust(graph, group))["billing-db"] == 1.0
    real = await run_sync(settings, review_db=db, graph=graph)
    assert real.drift_healed == 0 and (await entity_trust(graph, group))["billing-db"] == 0.6
    assert (await verify(settings, review_db=db, graph=graph)).in_sync


async def test_the_run_after_a_rollback_re_aggregates_the_restored_entities(world):
    """Rolling back a run that only corrected entities (their trusted edges had left the graph)
    restores their old values exactly; the next normal run re-aggregates them again."""
    graph, settings, db, group, u = world
    await run_sync(settings, review_db=db, graph=graph)
    await _remove_edges(graph, group, "cypher", u)
    healed = await run_sync(settings, review_db=db, graph=graph)
    rb = await rollback(settings, healed.run_id, graph=graph)
    assert (rb.edges_restored, rb.entities_restored) == (0, healed.entities_updated)
    assert (await entity_trust(graph, group))["billing-db"] == 1.0
    again = await run_sync(settings, review_db=db, graph=graph)
    assert again.entities_updated == healed.entities_updated
    assert (await entity_trust(graph, group))["billing-db"] == 0.6
    assert (await verify(settings, review_db=db, graph=graph)).in_sync


async def test_a_dry_run_that_sees_a_hand_edit_leaves_it_for_the_next_run(world):
    """A dry run re-reads drifted buckets into the shadow; the edges it found are marked for the
    next run to compare (the shadow no longer shows that run any drift). Found by the
    convergence test: the hand edit stayed for good."""
    graph, settings, db, group, u = world
    await run_sync(settings, review_db=db, graph=graph)
    await graph.for_group(group).run_text("MATCH ()-[r:RELATES_TO {uuid: $u}]->() SET r.trust_score = 0.01",
                                          {"u": u[0]}, write=True)
    dry = await run_sync(settings, review_db=db, graph=graph, dry_run=True)
    assert (dry.drift_healed, dry.edges_set) == (1, 1)
    real = await run_sync(settings, review_db=db, graph=graph)
    assert (real.drift_healed, real.edges_set) == (0, 1)
    assert (await edge_props(graph, group))[u[0]]["trust_score"] == 1.0
    assert (await verify(settings, review_db=db, graph=graph)).in_sync


async def test_a_full_dry_run_that_sees_edges_leave_keeps_every_entity_for_the_next_run(world):
    """``--full --dry-run`` rebuilds the shadow from the graph, absorbing what changed: the next
    real run re-aggregates every entity (it cannot tell which the change touched)."""
    graph, settings, db, group, u = world
    await run_sync(settings, review_db=db, graph=graph)
    await _remove_edges(graph, group, "cypher", u)
    await run_sync(settings, review_db=db, graph=graph, full=True, dry_run=True)
    await run_sync(settings, review_db=db, graph=graph)
    ent = await entity_trust(graph, group)
    assert ent["billing-db"] == 0.6 and ent["03:00 UTC"] is None
    assert (await verify(settings, review_db=db, graph=graph)).in_sync


async def test_after_a_rollback_the_entities_at_the_restored_edges_ends_are_re_aggregated(world):
    """A run set an edge's trust back after a hand edit removed it (its entity was already
    counting it); rolling that run back restores the hand edit, and when the edge then leaves
    the graph the next run still re-aggregates its entity. Found by the convergence test."""
    graph, settings, db, group, u = world
    await run_sync(settings, review_db=db, graph=graph)
    gg = graph.for_group(group)
    await gg.run_text("MATCH ()-[r:RELATES_TO {uuid: $u}]->() REMOVE r.trust_score, r.trust_status",
                      {"u": u[0]}, write=True)
    again = await run_sync(settings, review_db=db, graph=graph)
    assert again.edges_set == 1 and again.entities_updated == 0
    rb = await rollback(settings, again.run_id, graph=graph)
    assert (rb.edges_restored, rb.entities_restored) == (1, 0)
    await gg.run_text("MATCH ()-[r:RELATES_TO {uuid: $u}]->() DELETE r", {"u": u[0]}, write=True)
    await run_sync(settings, review_db=db, graph=graph)
    assert (await entity_trust(graph, group))["03:00 UTC"] is None
    assert (await verify(settings, review_db=db, graph=graph)).in_sync


async def test_trust_removed_by_hand_from_an_edge_its_review_row_no_longer_wants(world):
    """The review row was rejected (an unscored status) and, before the next run, someone removed
    the edge's trust and labels by hand: the edge gets its labels back (labels only, counted with
    the edges left without trust), and the entities at its ends are re-aggregated."""
    graph, settings, db, group, u = world
    await run_sync(settings, review_db=db, graph=graph)
    set_rows(db, "UPDATE candidates SET status = 'rejected', updated_at = '2030-01-01T00:00:00Z' WHERE id = 'c1'")
    await graph.for_group(group).run_text(
        "MATCH ()-[r:RELATES_TO {uuid: $u}]->() REMOVE r.trust_score, r.trust_status, r.trust_run_id, "
        "r.trust_updated_at, r.memory_type, r.sensitivity, r.scope", {"u": u[0]}, write=True)
    rep = await run_sync(settings, review_db=db, graph=graph)
    assert (rep.edges_set, rep.edges_cleared, rep.drift_healed) == (0, 1, 1)
    props = (await edge_props(graph, group))[u[0]]
    assert (props["trust_score"], props["trust_status"], props["sensitivity"], props["scope"]) == (None, None, "low", "ops")
    assert (await entity_trust(graph, group))["03:00 UTC"] is None
    assert (await verify(settings, review_db=db, graph=graph)).in_sync


async def test_a_row_added_with_an_old_updated_at_is_synced(world):
    """A row inserted later with an older updated_at (a backfill, a pipeline that stamps the
    decision time) arrives: the run compares content, not times."""
    graph, settings, db, group, u = world
    await run_sync(settings, review_db=db, graph=graph)
    insert_rows(db, [row("c9", u[5], "promoted", group, updated_at="2001-01-01T00:00:00Z")])
    rep = await run_sync(settings, review_db=db, graph=graph)
    assert (rep.candidates_changed, rep.edges_set) == (1, 1)
    assert (await edge_props(graph, group))[u[5]]["trust_score"] == 1.0
    assert (await verify(settings, review_db=db, graph=graph)).in_sync
    # the same when verify looks first (its refresh of the copy hands the edge on to the next run)
    insert_rows(db, [row("c10", u[6], "corroborated", group, updated_at="2001-01-01T00:00:00Z")])
    v = await verify(settings, review_db=db, graph=graph)
    assert not v.in_sync and v.drift["edge_missing_trust"] == 1 and v.missed_candidates == 0
    rep = await run_sync(settings, review_db=db, graph=graph)
    assert (await edge_props(graph, group))[u[6]]["trust_score"] == 0.6 and rep.edges_set == 1
    assert (await verify(settings, review_db=db, graph=graph)).in_sync


async def test_a_normal_run_sees_changes_whatever_updated_at_says(world):
    """A row changed without a newer updated_at, a row removed while another arrived with an old
    one (the count stays the same): change detection is by content, so one normal run applies
    them all and verify finds nothing left (the random histories of test_sync_convergence.py
    cover every kind of updated_at)."""
    graph, settings, db, group, u = world
    await run_sync(settings, review_db=db, graph=graph)
    set_rows(db, "UPDATE candidates SET status = 'promoted' WHERE id = 'c2'")  # updated_at left as it was
    set_rows(db, "DELETE FROM candidates WHERE id = 'c6'")
    insert_rows(db, [row("c9", u[5], "corroborated", group, updated_at="2001-01-01T00:00:00Z")])
    rep = await run_sync(settings, review_db=db, graph=graph)
    # c2 and c9, whose content differs from the last run's copy, and c6, gone; every row was read
    assert (rep.candidates_changed, rep.candidates_read) == (3, 8)
    props = await edge_props(graph, group)
    assert (props[u[1]]["trust_score"], props[u[5]]["trust_score"]) == (1.0, 0.6)
    v = await verify(settings, review_db=db, graph=graph)
    assert v.in_sync and v.missed_candidates == 0 and v.to_dict()["hint"] is None
    again = await run_sync(settings, review_db=db, graph=graph)
    assert (again.candidates_changed, again.edges_set, again.edges_cleared) == (0, 0, 0)


async def test_a_change_a_verify_read_during_a_run_reaches_the_next_run(world, monkeypatch):
    """verify refreshes the state store's copy (it does not take the sync lock). A review change
    it reads while a run is writing is handed on as a touched edge; the run, when done, clears
    only the touched edges it worked on, so the next run writes that change."""
    from graph_trust.sync.edge_phase import EdgePhase
    from graph_trust.sync.store.state import now_iso

    graph, settings, db, group, u = world
    await run_sync(settings, review_db=db, graph=graph)
    write_edges = EdgePhase.write
    seen = []

    async def verify_meanwhile(self, *args, **kw):
        await write_edges(self, *args, **kw)
        if not seen:
            set_rows(db, "UPDATE candidates SET status = 'candidate', updated_at = ? WHERE id = 'c2'", (now_iso(),))
            seen.append(await verify(settings, review_db=db, graph=graph))

    monkeypatch.setattr(EdgePhase, "write", verify_meanwhile)
    set_rows(db, "UPDATE candidates SET status = 'corroborated', updated_at = ? WHERE id = 'c1'", (now_iso(),))
    await run_sync(settings, review_db=db, graph=graph)
    assert seen and seen[0].drift["edge_wrong_trust"] == 1  # c2's edge, as verify saw it
    monkeypatch.setattr(EdgePhase, "write", write_edges)
    rep = await run_sync(settings, review_db=db, graph=graph)
    assert rep.edges_set == 1
    props = await edge_props(graph, group)
    assert (props[u[0]]["trust_score"], props[u[1]]["trust_score"]) == (0.6, 0.25)
    assert (await verify(settings, review_db=db, graph=graph)).in_sync


@pytest.mark.parametrize("method, billing_db", [("max", 0.6), ("mean", (0.6 + 0.25 + 0.25) / 3),
                                                ("noisy_or", 1 - 0.4 * 0.75 * 0.75)])
async def test_each_aggregation_counts_a_self_loop_once_in_sync_full_and_verify(graph, settings, tmp_path, unique,
                                                                                 method, billing_db):
    """billing-db's trusted edges: 0.6, 0.25 and a self-loop of 0.25, which counts once (twice
    would give mean 0.3375, noisy_or 0.83125). A normal run aggregates in Python, --full in the
    graph, verify from the endpoints of the edges it read: all three must agree."""
    from builders import Fact

    group = f"g_{unique}"
    loop = Fact("billing-db", "REPLICATES_TO", "billing-db", "billing-db replicates to itself")
    uuids = await build(graph, group, [*FACTS, loop])
    db = review_db(tmp_path / "r.sqlite3", [row("c1", uuids[FACTS[0].fact], "corroborated", group),
                                            row("c2", uuids[FACTS[1].fact], "candidate", group),
                                            row("c3", uuids[loop.fact], "candidate", group)])
    settings.sync.aggregation = method
    await run_sync(settings, review_db=db, graph=graph)
    assert (await entity_trust(graph, group))["billing-db"] == pytest.approx(billing_db)
    v = await verify(settings, review_db=db, graph=graph)
    assert v.in_sync, (v.drift, v.examples)
    await graph.for_group(group).run_text("MATCH (n:Entity {name: 'billing-db'}) REMOVE n.trust_score", {},
                                          write=True)
    v = await verify(settings, review_db=db, graph=graph)  # an entity that should hold trust and does not
    assert v.drift["entity_wrong_trust"] == 1 and v.examples["entity_wrong_trust"][0]["have"] is None
    assert v.examples["entity_wrong_trust"][0]["want"] == pytest.approx(billing_db)
    await run_sync(settings, review_db=db, graph=graph, full=True)
    assert (await entity_trust(graph, group))["billing-db"] == pytest.approx(billing_db)
    assert (await verify(settings, review_db=db, graph=graph)).in_sync

async def test_verify_keeps_full_collections_off_startup_objects(world, monkeypatch):
    """verify, like a run, freezes the objects that existed before it (observed from inside its
    edge reads, which still run for real) and unfreezes them after."""
    import gc

    from graph_trust.sync import graphstate

    graph, settings, db, _, _ = world
    real, during = graphstate.iter_trusted_edges, []

    async def observed(gg, buckets=None):
        during.append(gc.get_freeze_count())
        async for item in real(gg, buckets):
            yield item

    monkeypatch.setattr(graphstate, "iter_trusted_edges", observed)
    before = gc.get_freeze_count()
    assert (await verify(settings, review_db=db, graph=graph)).entities_checked > 0
    assert during and min(during) > before and gc.get_freeze_count() == before


async def test_a_group_graph_deleted_between_runs(world):
    """FalkorDB keeps each group in its own graph; when one is deleted (GRAPH.DELETE, a cleanup
    job), reading it is "Invalid graph operation on empty key". A long-lived process (a service
    calling run_sync) then failed every run with that error, and verify raised it. Now a deleted
    graph reads as an empty one: its candidates are unmatched and retried, and when the group's
    edges come back the next run gives them their trust again."""
    graph, settings, db, group, u = world
    first = await run_sync(settings, review_db=db, graph=graph)
    await graph.for_group(group).driver.client.execute_command("GRAPH.DELETE", group)
    v = await verify(settings, review_db=db, graph=graph)
    assert v.in_sync and v.unmatched_count == 5  # c1, c2, c3, c5 (their edges are gone) and c7
    gone = await run_sync(settings, review_db=db, graph=graph)
    assert (gone.edges_set, gone.edges_cleared, gone.drift_healed) == (0, 0, first.edges_set)
    assert gone.unmatched_count == 5 and {c["id"] for c in gone.unmatched} == {"c1", "c2", "c3", "c5", "c7"}
    await build(graph, group)  # the same facts again (graphiti-core's uuids are stable here)
    back = await run_sync(settings, review_db=db, graph=graph)
    assert back.edges_set == first.edges_set and back.entities_updated == first.entities_updated
    assert (await edge_props(graph, group))[u[0]]["trust_score"] == 1.0
    assert (await verify(settings, review_db=db, graph=graph)).in_sync


async def test_updated_at_offsets_do_not_matter(world):
    """A pipeline stamping times with an offset (an earlier time of day than the last run's as
    text): the row's content changed, and the run reads it."""
    from datetime import datetime, timedelta, timezone

    graph, settings, db, group, u = world
    await run_sync(settings, review_db=db, graph=graph)
    stamp = (datetime.now(UTC) + timedelta(hours=1)).astimezone(timezone(timedelta(hours=-10)))
    set_rows(db, "UPDATE candidates SET status = 'rejected', updated_at = ? WHERE id = 'c2'",
             (stamp.isoformat(timespec="seconds"),))
    rep = await run_sync(settings, review_db=db, graph=graph)
    assert (rep.candidates_changed, rep.edges_cleared) == (1, 1)
    assert (await edge_props(graph, group))[u[1]]["trust_score"] is None
