"""A status whose tier is null never drops an edge's access labels.

An edge whose citing rows all have unscored statuses is *labels only*: no trust_score,
trust_status, trust_run_id, trust_updated_at nor memory_type, but the strictest sensitivity and
every scope of all its rows, as a scored edge has. Hypothesis plays random review histories under
random tier maps holding null tiers (rows moving into and out of unscored statuses, labels edited,
rows added and deleted; normal and ``--full`` runs) on a real FalkorDB, and after every run checks
the labels against the rows, that labels-only edges carry no trust, that entity trust ignores
them, that a following normal run writes nothing and that ``verify`` is at 0; at the end it rolls
back every run, newest first, each restoring the graph exactly. Then the same on the Bolt path,
``verify`` on hand edits of a labels-only edge, and rollback of a journal written before the
labels-only state existed."""

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
from sync_fixtures import bulk_graph, review_db, row

from graph_trust.access.sensitivity import scale_of, scope_parts
from graph_trust.config import load_settings
from graph_trust.errors import InputError
from graph_trust.graph.connection import open_graph
from graph_trust.sync import rollback, run_sync, verify
from graph_trust.sync.aggregate import aggregate, same_score
from graph_trust.sync.labels import joined_scope, strictest_sensitivity
from graph_trust.sync.store.state import EDGE_PROPS

STATUSES = ("promoted", "corroborated", "candidate", "rejected", "expired")
TRUST_PROPS = ("trust_score", "trust_status", "trust_run_id", "trust_updated_at", "memory_type")
LABELS = [None, "public", "low", "internal", "medium", "high", "secret"]  # secret: unknown, above every level
SCOPES = [None, "org", "team-a", "team-b"]
N_EDGES, CITED = 5, 4  # the last edge is cited by no row


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

    def __init__(self, graph, settings, group: str, edges: list[str], db: Path, rows: dict[str, tuple]) -> None:
        self.graph, self.settings, self.group, self.edges, self.db = graph, settings, group, edges, db
        self.rows = rows  # id -> (edge index, status, sensitivity, scope, memory_type)
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
            else:  # labels only (or nothing): no trust property, no memory_type
                assert all(have[p] is None for p in TRUST_PROPS), (u, have, cites)
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
           history=st.lists(st.tuples(EDIT, st.booleans()), min_size=1, max_size=4))
    def play(tiers, start, history) -> None:
        root = tmp_path / uuid.uuid4().hex[:8]
        root.mkdir()
        loop.run_until_complete(graph.for_group(group).run_text(  # a fresh start: nothing owned on the graph
            f"MATCH ()-[r:RELATES_TO]->() REMOVE {owned} WITH count(r) AS n MATCH (e:Entity) "
            "REMOVE e.trust_score, e.trust_run_id", {}, write=True))
        rows = {f"c{i}": r for i, r in enumerate(start)}
        db = review_db(root / "review.sqlite3", [
            row(cid, edges[e], status, group, sensitivity=sens, scope=scope, memory_type=mt)
            for cid, (e, status, sens, scope, mt) in rows.items()])
        w = World(graph, world_settings(settings, root / "state", tiers), group, edges, db, rows)

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
