"""The guard of a normal sync reads only what Graphiti invalidated since the last run, and finds
what a full read finds: edges invalidated between runs (now, with an ``expired_at`` earlier than
the last run's start, with ``invalid_at`` only), made valid again by hand or by the guard's own
restore, deleted, and review rows changing, in random order. Real embedded FalkorDB, real SQLite."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from sync_fixtures import bulk_graph, bulk_rows, review_db, set_rows

from graph_trust.config import load_settings
from graph_trust.graph.routing import Graphs
from graph_trust.sync import guard, run_sync, verify
from graph_trust.sync.runs.identity import graph_key
from graph_trust.sync.store.state import StateStore

STATUSES = ["promoted", "corroborated", "candidate", "rejected"]
OPS = ["G_invalidate_now", "G_invalidate_now", "G_invalidate_past", "G_invalid_only", "G_valid_again", "G_delete",
       "G_reinvalidate", "R_status", "S_sync", "S_sync", "S_sync", "S_restore", "S_full", "S_dry"]


def iso(at: datetime) -> str:
    """A time as Graphiti's FalkorDB driver stores it (ISO text)."""
    return at.isoformat()


class World:
    def __init__(self, graph, settings, db, group: str, edges: list[str], rng: random.Random):
        self.graph, self.settings, self.db, self.group, self.rng = graph, settings, db, group, rng
        self.gg = graph.for_group(group)
        self.edges = list(edges)
        self.last_start = datetime.now(UTC)

    async def write(self, text: str, **params) -> None:
        await self.gg.run_text(text, params, write=True)

    async def invalidated(self) -> list[str]:
        rows = await self.gg.run_text("MATCH ()-[r:RELATES_TO]->() WHERE r.expired_at IS NOT NULL OR "
                                      "r.invalid_at IS NOT NULL RETURN r.uuid AS u", {}, write=False)
        return [r["u"] for r in rows]

    async def step(self, op: str) -> None:
        rng, now = self.rng, datetime.now(UTC)
        if op == "G_invalidate_now":  # Graphiti's contradiction step: expired_at is the time it runs
            await self.write("MATCH ()-[r:RELATES_TO {uuid: $u}]->() SET r.invalid_at = $i, r.expired_at = $x",
                             u=rng.choice(self.edges), i=iso(now - timedelta(days=3)), x=iso(now))
        elif op == "G_invalidate_past":  # another writer sets expired_at before the last run's start
            at = self.last_start - timedelta(seconds=rng.randrange(1, 10**7))
            await self.write("MATCH ()-[r:RELATES_TO {uuid: $u}]->() SET r.invalid_at = $i, r.expired_at = $x",
                             u=rng.choice(self.edges), i=iso(at - timedelta(days=1)), x=iso(at))
        elif op == "G_invalid_only":
            await self.write("MATCH ()-[r:RELATES_TO {uuid: $u}]->() SET r.invalid_at = $i",
                             u=rng.choice(self.edges), i=iso(now - timedelta(days=rng.randrange(1, 900))))
        elif op == "G_valid_again" and (gone := await self.invalidated()):  # by hand
            await self.write("MATCH ()-[r:RELATES_TO {uuid: $u}]->() REMOVE r.invalid_at, r.expired_at",
                             u=rng.choice(gone))
        elif op == "G_reinvalidate" and (gone := await self.invalidated()):  # an invalidated edge, new times
            await self.write("MATCH ()-[r:RELATES_TO {uuid: $u}]->() SET r.expired_at = $x", u=rng.choice(gone),
                             x=iso(rng.choice([now, self.last_start - timedelta(hours=rng.randrange(1, 99))])))
        elif op == "G_delete":
            u = rng.choice(self.edges)
            self.edges.remove(u)
            await self.write("MATCH ()-[r:RELATES_TO {uuid: $u}]->() DELETE r", u=u)
        elif op == "R_status":
            set_rows(self.db, "UPDATE candidates SET status = ? WHERE id = ?",
                     (rng.choice(STATUSES), f"c{rng.randrange(len(self.edges)):05d}"))

    async def run(self, op: str) -> None:
        """A sync run of kind ``op``; its guard must find what a full read (verify's) finds."""
        restore = op == "S_restore"
        settings = self.settings.model_copy(update={"guard": self.settings.guard.model_copy(
            update={"restore_trusted": restore})})
        expected = await verify(settings, review_db=self.db, graph=self.graph)
        self.last_start = datetime.now(UTC)
        rep = await run_sync(settings, review_db=self.db, graph=self.graph, full=op == "S_full",
                             dry_run=op == "S_dry")
        assert rep.trusted_invalidated_count == expected.trusted_invalidated_count, op
        assert [(i["uuid"], i["invalid_at"], i["expired_at"], i["candidate_ids"]) for i in rep.trusted_invalidated] \
            == [(i["uuid"], i["invalid_at"], i["expired_at"], i["candidate_ids"]) for i in expected.trusted_invalidated]
        if restore:
            assert rep.trusted_restored == rep.trusted_invalidated_count
            after = await verify(settings, review_db=self.db, graph=self.graph)
            assert after.trusted_invalidated_count == 0


@pytest.fixture
async def world(graph, settings, tmp_path, unique):
    group = f"gi{unique}"
    edges = await bulk_graph(graph, group, 40)
    db = review_db(tmp_path / "r.sqlite3", bulk_rows(edges, group))
    settings = load_settings(overrides={"graph.uri": settings.graph.uri, "graph.database": settings.graph.database,
                                        "state_dir": str(tmp_path / "state")}, environ={})
    return graph, settings, db, group, edges


@pytest.mark.parametrize("seed", range(4))
async def test_a_normal_runs_guard_finds_what_a_full_read_finds(world, seed):
    graph, settings, db, group, edges = world
    w = World(graph, settings, db, group, edges, random.Random(seed))
    done = []
    for _ in range(40):
        op = w.rng.choice(OPS)
        done.append(op)
        if op.startswith("S_"):
            await w.run(op)
        else:
            await w.step(op)
    await w.run("S_sync")


async def test_what_a_normal_run_reads(world):
    """Nothing changed: no read; Graphiti invalidated edges: the edges expired since the latest
    expired_at seen; anything the figures cannot account for that way (an expired_at in the past,
    invalid_at alone, an edge made valid by hand): every invalidated edge; the guard's own restore
    leaves the record as the graph is."""
    graph, settings, db, group, edges = world
    g = graph.for_group(group)
    store = StateStore.for_settings(settings)
    key = graph_key(g)

    async def read(full: bool = False) -> tuple[str, set[str]]:
        how = await guard.track_invalidated(store, Graphs(g), [group], key, full=full)
        return how[group], {u for (u,) in store.con.execute("SELECT uuid FROM temp.guard_edges")}

    async def set_validity(u: str, invalid_at: str | None, expired_at: str | None) -> None:
        await g.run_text("MATCH ()-[r:RELATES_TO {uuid: $u}]->() SET r.invalid_at = $i, r.expired_at = $x",
                         {"u": u, "i": invalid_at, "x": expired_at}, write=True)

    try:
        now = datetime.now(UTC)
        await set_validity(edges[0], iso(now - timedelta(days=9)), iso(now))
        assert await read() == ("full", {edges[0]})  # the first read of a graph
        assert await read() == ("unchanged", {edges[0]})
        await set_validity(edges[1], iso(now - timedelta(days=2)), iso(now + timedelta(seconds=1)))
        await set_validity(edges[2], None, iso(now + timedelta(seconds=2)))
        assert await read() == ("since", {edges[0], edges[1], edges[2]})
        await set_validity(edges[3], iso(now - timedelta(days=30)), iso(now - timedelta(days=29)))  # in the past
        assert await read() == ("full", {edges[0], edges[1], edges[2], edges[3]})
        await set_validity(edges[4], iso(now - timedelta(days=30)), None)  # invalid_at alone
        assert await read() == ("full", {edges[0], edges[1], edges[2], edges[3], edges[4]})
        # one made valid again by hand and another invalidated in the past: as many as before
        await set_validity(edges[0], None, None)
        await set_validity(edges[5], iso(now - timedelta(days=40)), iso(now - timedelta(days=39)))
        assert await read() == ("full", {edges[1], edges[2], edges[3], edges[4], edges[5]})
        # the guard's own restore: taken out of the record, so the next read has nothing to read
        await set_validity(edges[1], None, None)
        guard.forget_restored(store, key, [{"graph": group, "uuid": edges[1], "restored": True}])
        assert await read() == ("unchanged", {edges[2], edges[3], edges[4], edges[5]})
        assert await read(full=True) == ("full", {edges[2], edges[3], edges[4], edges[5]})
        # a --full run's read started early (sync/runner.py) is what the guard's step takes, once
        await set_validity(edges[6], iso(now - timedelta(days=50)), iso(now - timedelta(days=49)))
        graphs = await Graphs.open(g)
        early = guard.EarlyRead(enabled=True)
        early.start(graphs, [group, "no_such_group"])  # (a graph that does not exist is not read)
        how = await guard.track_invalidated(store, graphs, [group], key, full=True, early=early)
        assert how == {group: "full"}
        assert {u for (u,) in store.con.execute("SELECT uuid FROM temp.guard_edges")} == {
            edges[2], edges[3], edges[4], edges[5], edges[6]}
        assert await early.take() == {}
        assert await read() == ("unchanged", {edges[2], edges[3], edges[4], edges[5], edges[6]})
        off = guard.EarlyRead(enabled=False)  # a normal run's: nothing read early
        off.start(Graphs(g), [group])
        assert await off.take() == {}
    finally:
        store.close()
