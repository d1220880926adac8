"""A status whose tier is null never drops an edge's access labels.

An edge whose citing rows all have unscored statuses is *labels only*: no trust_score,
trust_status nor memory_type, but the strictest sensitivity and every scope of all its rows, as a
scored edge has, and the trust_run_id and trust_updated_at of the run that wrote them (the mark that
sync owns them). Labels set by hand on an edge no row cites are not sync's: no run changes them,
``verify`` does not report them, a rollback leaves them. Hypothesis plays random review histories
under random tier maps holding null tiers (rows moving into and out of unscored statuses, labels
edited, rows added and deleted; normal and ``--full`` runs), with random hand labels on the edges no
row cites, on a real FalkorDB, and after every run checks the labels against the rows (the hand
labels as set), that labels-only edges carry no trust, that entity trust ignores them, that a
following normal run writes nothing and that ``verify`` is at 0; at the end it rolls back every
run, newest first, each restoring the graph exactly. Then the same on the Bolt path, ``verify`` on
hand edits of a labels-only edge and on hand labels of an edge no row cites (and then one does),
and rollback of a journal written before the labels-only state existed."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from sync_fixtures import bulk_graph, edge_props, review_db, row, set_rows

from graph_trust.access.sensitivity import scale_of, scope_parts
from graph_trust.config import load_settings
from graph_trust.errors import InputError
from graph_trust.graph.connection import open_graph
from graph_trust.sync import rollback, run_sync, verify
from graph_trust.sync.aggregate import aggregate, same_score
from graph_trust.sync.labels import joined_scope, strictest_sensitivity
from graph_trust.sync.review_db import insert_rows
from graph_trust.sync.store.state import EDGE_PROPS

STATUSES = ("promoted", "corroborated", "candidate", "rejected", "expired")
TRUST_PROPS = ("trust_score", "trust_status", "memory_type")
MARK_PROPS = ("trust_run_id", "trust_updated_at")  # the run that wrote the edge: sync owns it
LABELS = [None, "public", "low", "internal", "medium", "high", "secret"]  # secret: unknown, above every level
SCOPES = [None, "org", "team-a", "team-b"]
N_EDGES, CITED = 6, 4  # the last two edges are cited by no row
# what someone else set by hand on an edge no row cites: labels (and a memory_type), never sync's
HAND = st.fixed_dictionaries({"sensitivity": st.sampled_from(LABELS), "scope": st.sampled_from(SCOPES),
                              "memory_type": st.sampled_from([None, None, "fact"])})


@st.composite
def tier_maps(draw) -> dict[str, float | None]:
    """Random tiers with at least one null (unscored) status."""
    tiers = {s: draw(st.sampled_from([None, 0.0, 0.25, 0.6, 1.0])) for s in STATUSES}
    tiers[draw(st.sampled_from(STATUSES))] = None
    return tiers


ROW = st.tuples(st.integers(0, CITED - 1), st.sampled_from(STATUSES), st.sampled_from(LABELS),
                st.sampled_from(SCOPES), st.sampled_from([None, "fact", "instruction"]))
EDIT = st.one_of(st.tuples(st.just("status"), st.integers(0, 99), st.sampled_from(STATUSES)),
                 st.tuples(st.just("labels"), st.integers(0, 99), st.sampled_from(LABELS), st.sampled_from(SCOPES)),
                 st.tuples(st.just("delete"), st.integers(0, 99)),
                 st.tuples(st.just("add"), ROW))


class World:
    """One group's graph, a review DB and a state directory, with the checks every run must pass."""

    def __init__(self, graph, settings, group: str, edges: list[str], db: Path, rows: dict[str, tuple],
                 hand: dict[str, dict] | None = None) -> None:
        self.graph, self.settings, self.group, self.edges, self.db = graph, settings, group, edges, db
        self.rows = rows  # id -> (edge index, status, sensitivity, scope, memory_type)
        self.hand = hand or {}  # uncited edge uuid -> the properties set on it by hand
        self.tiers = dict(settings.sync.tiers)
        self.scale = scale_of(settings)
        self.ends: dict[str, tuple[str, str]] = {}
        self.runs: list[tuple[str, dict, dict]] = []  # (run id, graph before, graph after)

    async def read(self, text: str) -> list[dict]:
        return await self.graph.for_group(self.group).run_text(text, {}, write=False)

    async def snapshot(self) -> dict:
        """Every owned property of every edge and every entity's trust."""
        edges = await self.read("MATCH (a)-[r:RELATES_TO]->(b) RETURN r.uuid AS uuid, a.uuid AS s, b.uuid AS t, "
                                + ", ".join(f"r.{p} AS {p}" for p in EDGE_PROPS))
        self.ends = {e["uuid"]: (e["s"], e["t"]) for e in edges}
        ents = await self.read("MATCH (n:Entity) RETURN n.uuid AS uuid, n.trust_score AS s, n.trust_run_id AS r")
        return {"edges": {e["uuid"]: {p: e[p] for p in EDGE_PROPS} for e in edges},
                "entities": {n["uuid"]: (n["s"], n["r"]) for n in ents}}

    def edit(self, change: tuple) -> None:
        ids = sorted(self.rows, key=lambda i: int(i[1:]))
        con = sqlite3.connect(self.db)
        with con:
            if change[0] == "add":
                cid = f"c{max((int(i[1:]) for i in ids), default=-1) + 1}"
                self.rows[cid] = change[1]
                e, status, sens, scope, mt = change[1]
                con.execute("INSERT INTO candidates (id, status, evidence_refs_json, group_id, updated_at, memory_type, "
                            "sensitivity, scope) VALUES (?, ?, ?, ?, '2026-01-01', ?, ?, ?)",
                            (cid, status, json.dumps([{"evidence_id": self.edges[e]}]), self.group, mt, sens, scope))
            elif ids:
                cid = ids[change[1] % len(ids)]
                e, status, sens, scope, mt = self.rows[cid]
                if change[0] == "status":
                    self.rows[cid] = (e, change[2], sens, scope, mt)
                    con.execute("UPDATE candidates SET status = ? WHERE id = ?", (change[2], cid))
                elif change[0] == "labels":
                    self.rows[cid] = (e, status, change[2], change[3], mt)
                    con.execute("UPDATE candidates SET sensitivity = ?, scope = ? WHERE id = ?",
                                (change[2], change[3], cid))
                else:
                    del self.rows[cid]
                    con.execute("DELETE FROM candidates WHERE id = ?", (cid,))
        con.close()

    def _level(self, label) -> int:  # an unknown label withholds from everyone: above every level
        if label is None:
            return -1
        return len(self.scale.levels) if self.scale.level(label) < 0 else self.scale.level(label)

    def check(self, snap: dict) -> None:
        """Each edge's properties against the rows citing it, and each entity's trust."""
        scores: dict[str, float | None] = {}
        for k, u in enumerate(self.edges):
            cites = [r for r in self.rows.values() if r[0] == k]
            have = snap["edges"][u]
            if u in self.hand:  # no row cites it: exactly what was set by hand, whatever ran
                assert have == {p: self.hand[u].get(p) for p in EDGE_PROPS}, (u, have)
                scores[u] = None
                continue
            sens = strictest_sensitivity([r[2] for r in cites], self.scale)
            scope = joined_scope([r[3] for r in cites])
            # never lower, never wider than the rows citing it demand ...
            assert self._level(have["sensitivity"]) >= self._level(sens), (u, have, cites)
            assert set(scope_parts(have["scope"])) >= set(scope_parts(scope)) - {None}, (u, have, cites)
            # ... and exactly the documented rule: the strictest label, every scope
            assert (have["sensitivity"], have["scope"]) == (sens, scope), (u, have, cites)
            scored = [self.tiers[r[1]] for r in cites if self.tiers[r[1]] is not None]
            if scored:
                assert same_score(have["trust_score"], max(scored)), (u, have, cites)
                assert self.tiers[have["trust_status"]] == max(scored) and have["trust_run_id"], (u, have)
            else:  # labels only (or nothing): no trust property, no memory_type; the run that wrote the labels
                assert all(have[p] is None for p in TRUST_PROPS), (u, have, cites)
                labelled = sens is not None or scope is not None
                assert all((have[p] is not None) == labelled for p in MARK_PROPS), (u, have, cites)
            scores[u] = have["trust_score"]
        for n, (held, _) in snap["entities"].items():  # labels-only edges carry no trust to entities
            want = aggregate([s for u, s in scores.items() if n in self.ends[u]], self.settings.sync.aggregation)
            assert same_score(held, want), (n, held, want)

    async def sync(self, *, full: bool) -> None:
        """One run, its checks, a following normal run that writes nothing, and verify at 0."""
        before = await self.snapshot()
        rep = await run_sync(self.settings, review_db=self.db, graph=self.graph, full=full)
        after = await self.snapshot()
        self.check(after)
        quiet = await run_sync(self.settings, review_db=self.db, graph=self.graph)
        assert (quiet.edges_set, quiet.edges_cleared, quiet.entities_updated) == (0, 0, 0), quiet.to_dict()
        assert await self.snapshot() == after
        v = await verify(self.settings, review_db=self.db, graph=self.graph)
        assert v.in_sync, (v.drift, v.examples)
        self.runs.append((rep.run_id, before, after))

    async def roll_back_every_run(self) -> None:
        """Newest first: each rollback gives back exactly the graph its run started from."""
        for run_id, before, after in reversed(self.runs):
            try:
                await rollback(self.settings, run_id, graph=self.graph)
            except InputError:  # the run changed nothing
                assert before == after
                continue
            assert await self.snapshot() == before, run_id


def world_settings(base, state_dir: Path, tiers: dict) -> object:
    return load_settings(overrides={"graph.uri": base.graph.uri, "graph.database": base.graph.database,
                                    "graph.user": base.graph.user, "graph.password": base.graph.password,
                                    "state_dir": str(state_dir), "sync.tiers": tiers, "sync.max_clear": 1},
                         environ={})


def test_no_run_drops_labels_under_null_tiers(settings, tmp_path):
    """Random tiers (with nulls) and review histories on one FalkorDB graph, reset per example."""
    loop = asyncio.new_event_loop()
    opened = open_graph(settings)
    graph = loop.run_until_complete(opened.__aenter__())
    group = f"l{uuid.uuid4().hex[:10]}"
    edges = loop.run_until_complete(bulk_graph(graph, group, N_EDGES))
    owned = ", ".join(f"r.{p}" for p in EDGE_PROPS)

    @hsettings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
    @given(tiers=tier_maps(), start=st.lists(ROW, min_size=1, max_size=6),
           history=st.lists(st.tuples(EDIT, st.booleans()), min_size=1, max_size=4),
           hand=st.lists(HAND, min_size=N_EDGES - CITED, max_size=N_EDGES - CITED))
    def play(tiers, start, history, hand) -> None:
        root = tmp_path / uuid.uuid4().hex[:8]
        root.mkdir()
        loop.run_until_complete(graph.for_group(group).run_text(  # a fresh start: nothing owned on the graph
            f"MATCH ()-[r:RELATES_TO]->() REMOVE {owned} WITH count(r) AS n MATCH (e:Entity) "
            "REMOVE e.trust_score, e.trust_run_id", {}, write=True))
        by_hand = dict(zip(edges[CITED:], hand, strict=True))
        for u, props in by_hand.items():  # labels someone else set on the edges no row cites
            loop.run_until_complete(graph.for_group(group).run_text(
                "MATCH ()-[r:RELATES_TO {uuid: $u}]->() SET r.sensitivity = $sensitivity, r.scope = $scope, "
                "r.memory_type = $memory_type", {"u": u, **props}, write=True))
        rows = {f"c{i}": r for i, r in enumerate(start)}
        db = review_db(root / "review.sqlite3", [
            row(cid, edges[e], status, group, sensitivity=sens, scope=scope, memory_type=mt)
            for cid, (e, status, sens, scope, mt) in rows.items()])
        w = World(graph, world_settings(settings, root / "state", tiers), group, edges, db, rows, by_hand)

        async def go() -> None:
            await w.sync(full=False)
            for change, full in history:
                w.edit(change)
                await w.sync(full=full)
            await w.roll_back_every_run()

        loop.run_until_complete(go())

    try:
        play()
    finally:
        loop.run_until_complete(opened.__aexit__(None, None, None))
        loop.close()


# every transition between scored, labels-only and absent, on two edges (the second keeps a scored row)
TRANSITIONS = [("status", 0, "rejected"), ("labels", 0, "high", "team-a"), ("status", 0, "promoted"),
               ("status", 0, "expired"), ("delete", 0), ("add", (0, "rejected", "low", None, "fact")),
               ("status", 2, "candidate"), ("add", (0, "candidate", None, "org", None)), ("status", 3, "rejected"),
               ("status", 0, "expired"), ("labels", 1, None, None)]


async def _transitions(graph, settings, tmp_path: Path, group: str) -> None:
    edges = await bulk_graph(graph, group, N_EDGES)
    rows = {"c0": (0, "promoted", "medium", "org", "instruction"), "c1": (1, "candidate", None, None, None),
            "c2": (1, "rejected", "secret", "team-b", None)}
    db = review_db(tmp_path / "review.sqlite3", [
        row(cid, edges[e], status, group, sensitivity=sens, scope=scope, memory_type=mt)
        for cid, (e, status, sens, scope, mt) in rows.items()])
    tiers = {"promoted": 1.0, "corroborated": 0.6, "candidate": 0.25, "rejected": None, "expired": None}
    w = World(graph, world_settings(settings, tmp_path / "state", tiers), group, edges, db, rows)
    await w.sync(full=False)
    for i, change in enumerate(TRANSITIONS):
        w.edit(change)
        await w.sync(full=i % 3 == 2)
    await w.roll_back_every_run()


async def test_every_transition_on_falkordb(graph, settings, tmp_path, unique):
    await _transitions(graph, settings, tmp_path, f"t{unique}")


@pytest.mark.bolt
async def test_every_transition_over_bolt(bolt_settings, tmp_path, unique):
    """The neo4j dialect (edge_labels_set, the scans and checksums) on ArcadeDB's Bolt endpoint."""
    async with open_graph(bolt_settings) as g:
        await _transitions(g, bolt_settings, tmp_path, f"b{unique}")


async def _labelled_world(graph, settings, tmp_path: Path, group: str):
    """Three edges: e0 cited only by an unscored row with labels (labels only), e1 promoted, e2 by no row."""
    edges = await bulk_graph(graph, group, 3)
    db = review_db(tmp_path / "review.sqlite3", [row("c0", edges[0], "rejected", group, sensitivity="high", scope="org",
                                                      memory_type="instruction"),
                                                  row("c1", edges[1], "promoted", group)])
    return edges, db


async def test_verify_sees_hand_edits_of_a_labels_only_edge(graph, settings, tmp_path, unique):
    """No drift on a labels-only edge as sync left it; each hand edit of it is drift of its kind,
    found and healed by the next normal run (the graph's checksums count labels-only edges)."""
    group = f"v{unique}"
    (e0, _, e2), db = await _labelled_world(graph, settings, tmp_path, group)
    gg = graph.for_group(group)
    await run_sync(settings, review_db=db, graph=graph)
    v = await verify(settings, review_db=db, graph=graph)
    assert v.in_sync and v.edges_checked == 2, v.drift
    edits = {"SET r.sensitivity = 'low'": "edge_wrong_trust", "SET r.scope = 'org & team-a'": "edge_wrong_trust",
             "SET r.trust_score = 0.5, r.trust_status = 'promoted'": "edge_wrong_trust",
             "SET r.memory_type = 'instruction'": "edge_wrong_trust",
             "REMOVE r.sensitivity, r.scope": "edge_wrong_trust",  # still sync's: it holds the run id
             "REMOVE r.trust_run_id, r.trust_updated_at": "edge_missing_trust"}  # the labels are no longer sync's
    for edit, kind in edits.items():
        await gg.run_text(f"MATCH ()-[r:RELATES_TO {{uuid: $u}}]->() {edit}", {"u": e0}, write=True)
        v = await verify(settings, review_db=db, graph=graph)
        assert not v.in_sync and v.drift[kind] == 1 and sum(v.drift.values()) == 1, (edit, v.drift)
        assert v.examples[kind][0]["uuid"] == e0
        healed = await run_sync(settings, review_db=db, graph=graph)
        assert healed.drift_healed == 1 and (healed.edges_set, healed.edges_cleared) == (0, 1), edit
        props = (await edge_props(graph, group))[e0]
        assert {p: props[p] for p in ("trust_score", "trust_status", "trust_run_id", "memory_type",
                                      "sensitivity", "scope")} == {
            "trust_score": None, "trust_status": None, "trust_run_id": healed.run_id, "memory_type": None,
            "sensitivity": "high", "scope": "org"}, edit
        assert (await verify(settings, review_db=db, graph=graph)).in_sync, edit


async def test_hand_labels_on_an_edge_no_row_cites_are_left_alone(graph, settings, tmp_path, unique):
    """Labels set by hand on an edge no row cites are not sync's: verify does not report them, no
    run (normal, --full) changes them. Once a row cites the edge, its rows decide the labels (as
    for a scored edge) and the run is journaled with the hand labels, which its rollback restores."""
    group = f"h{unique}"
    (_, _, e2), db = await _labelled_world(graph, settings, tmp_path, group)
    gg = graph.for_group(group)
    await gg.run_text("MATCH ()-[r:RELATES_TO {uuid: $u}]->() SET r.sensitivity = 'high', r.scope = 'team-a'",
                      {"u": e2}, write=True)
    hand = (await edge_props(graph, group))[e2]
    for full in (False, True, False):
        rep = await run_sync(settings, review_db=db, graph=graph, full=full)
        assert (await edge_props(graph, group))[e2] == hand, full
        v = await verify(settings, review_db=db, graph=graph)
        assert v.in_sync and v.edges_checked == 2, (v.drift, v.examples)
    assert rep.edges_set + rep.edges_cleared == 0
    # a row, unscored and unlabelled, cites it: nothing to own, the hand labels stay
    insert_rows(db, [row("c2", e2, "expired", group, updated_at="2030-01-01T00:00:00Z")])
    await run_sync(settings, review_db=db, graph=graph)
    assert (await edge_props(graph, group))[e2] == hand
    assert (await verify(settings, review_db=db, graph=graph)).in_sync
    # the row gets a label: the edge is labels only, sync's from now on
    set_rows(db, "UPDATE candidates SET sensitivity = 'low', updated_at = '2030-01-02T00:00:00Z' WHERE id = 'c2'")
    cited = await run_sync(settings, review_db=db, graph=graph)
    props = (await edge_props(graph, group))[e2]
    assert (props["sensitivity"], props["scope"], props["trust_score"], props["trust_run_id"]) == (
        "low", None, None, cited.run_id)
    assert (await verify(settings, review_db=db, graph=graph)).in_sync
    await rollback(settings, cited.run_id, graph=graph)
    assert (await edge_props(graph, group))[e2] == hand


async def test_a_state_store_and_journal_from_before_labels_only_edges(graph, settings, tmp_path, unique):
    """A state store whose desired state cannot hold labels-only edges (trust_score NOT NULL), with
    the journal of a run that cleared an edge (written as before: every property absent): opened
    again, its desired state is recomputed from a full re-read, the labels come back, and the old
    run still rolls back exactly."""
    group = f"m{unique}"
    (e0, e1, _), db = await _labelled_world(graph, settings, tmp_path, group)
    settings.sync.tiers = {**settings.sync.tiers, "rejected": 0.0}  # e0 scored 0 first, with its labels
    first = await run_sync(settings, review_db=db, graph=graph)
    before_old = await edge_props(graph, group)
    settings.sync.tiers = {**settings.sync.tiers, "rejected": None}
    state = tmp_path / "state" / "state.sqlite3"
    con = sqlite3.connect(state)
    with con:  # what the earlier version left: its table, and a run that cleared e0 and its labels
        con.execute("ALTER TABLE sync_desired RENAME TO d")
        con.execute("CREATE TABLE sync_desired (source TEXT NOT NULL, graph TEXT NOT NULL, uuid TEXT NOT NULL, "
                    "trust_score REAL NOT NULL, trust_status TEXT, memory_type TEXT, sensitivity TEXT, scope TEXT, "
                    "PRIMARY KEY (source, graph, uuid)) WITHOUT ROWID")
        con.execute("INSERT INTO sync_desired SELECT * FROM d WHERE trust_score IS NOT NULL")
        con.execute("DROP TABLE d")
    con.close()
    await graph.for_group(group).run_text(
        "MATCH ()-[r:RELATES_TO {uuid: $u}]->() REMOVE " + ", ".join(f"r.{p}" for p in EDGE_PROPS), {"u": e0},
        write=True)
    from graph_trust.sync.store.state import StateStore
    store = StateStore(state)
    old_run = "sync-20260101T000000Z-0old00"
    with store.tx() as c:
        c.execute("INSERT INTO sync_runs (run_id, seq, kind, graph_key, graph, started_at, ended_at, status) "
                  "SELECT ?, seq + 1, kind, graph_key, graph, started_at, started_at, 'ok' FROM sync_runs "
                  "WHERE run_id = ?", (old_run, first.run_id))
        c.execute("INSERT INTO sync_journal (run_id, batch, graph_key, graph, kind, uuid, old_json, new_json, state) "
                  "SELECT ?, 1, graph_key, graph, 'edge', ?, ?, ?, 'applied' FROM sync_journal WHERE run_id = ? LIMIT 1",
                  (old_run, e0, json.dumps({p: before_old[e0].get(p) for p in EDGE_PROPS} | {
                      "trust_updated_at": None}, sort_keys=True), json.dumps(dict.fromkeys(EDGE_PROPS)), first.run_id))
    store.close()
    store = StateStore(state)  # opened again: the old desired state goes, every row is read again
    declared = store.con.execute("SELECT sql FROM sqlite_master WHERE name = 'sync_desired'").fetchone()[0]
    assert "trust_score REAL NOT NULL" not in declared and "trust_score REAL," in declared
    store.close()
    again = await run_sync(settings, review_db=db, graph=graph)
    assert again.candidates_changed == 2
    props = (await edge_props(graph, group))[e0]
    assert (props["trust_score"], props["sensitivity"], props["scope"]) == (None, "high", "org")
    assert (await verify(settings, review_db=db, graph=graph)).in_sync
    await rollback(settings, again.run_id, graph=graph)
    await rollback(settings, old_run, graph=graph)  # the journal row written before: restored exactly
    props = (await edge_props(graph, group))[e0]
    assert {p: props[p] for p in ("trust_score", "trust_status", "sensitivity", "scope", "memory_type")} == {
        p: before_old[e0][p] for p in ("trust_score", "trust_status", "sensitivity", "scope", "memory_type")}
    assert (await edge_props(graph, group))[e1]["trust_score"] == 1.0


async def test_access_control_still_withholds_a_labels_only_fact(graph, settings, tmp_path, unique):
    """The reviewer moves a fact's only row to an unscored status: search sees no trust on it, and
    callers its labels exclude still do not see it."""
    from sync_fixtures import FACTS, build

    from graph_trust import api
    from graph_trust.access.trust_context import TrustContext

    group = f"a{unique}"
    u = (await build(graph, group))[FACTS[0].fact]
    db = review_db(tmp_path / "review.sqlite3", [row("c1", u, "promoted", group, sensitivity="high", scope="ops")])
    settings.review.url = str(db)
    await run_sync(settings, review_db=db, graph=graph)
    set_rows(db, "UPDATE candidates SET status = 'rejected'")
    await run_sync(settings, review_db=db, graph=graph)
    query = "billing-db backup job"

    async def shown(ctx: TrustContext) -> dict:
        out = await api.search_visible(settings, query, trust_context=ctx, groups=[group], limit=10)
        return {r.uuid: r for r in out.records if r.kind == "edge" and r.text == FACTS[0].fact}

    cleared = await shown(TrustContext("hyper", scopes=("ops",)))
    assert u in cleared and cleared[u].trust_score is None and cleared[u].sensitivity == "high"
    assert u not in await shown(TrustContext("medium", scopes=("ops",)))  # above the clearance
    assert u not in await shown(TrustContext("hyper", scopes=("team-a",)))  # another scope
