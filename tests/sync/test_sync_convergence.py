"""Convergence under random histories: review DB edits, changes made to the graph outside sync,
and sync runs of every kind (also stopped part-way), in seeded random order. After every real
sync, ``verify`` must find the graph in sync and no review row the sync's copy has otherwise
(``missed_candidates`` 0), except while a change only ``--full`` can see is outstanding (an
entity's trust set by hand). Review edits stamp ``updated_at`` older than, equal to or newer
than the last run's refresh, NULL, text that is no date, or leave it unchanged: a normal run
must apply them all (change detection is by content). Some edits set a row's group_id to a typo
or hostile text: no graph of that name may ever appear.

This test found three ways the graph stayed wrong for good (each now has its own test in
test_sync_flow.py): a dry run absorbed a hand edit into the shadow without marking the edge for
the next run; a ``--full --dry-run`` did the same for entities; a rollback restored edges
without marking the entities at their ends. A second test plays the same over two groups (two FalkorDB graphs) sharing one review DB, a
group's graph now and then deleted and built again. More histories:
``GRAPH_TRUST_CONVERGENCE_SEEDS=200 GRAPH_TRUST_CONVERGENCE_STEPS=100 pytest tests/sync/test_sync_convergence.py``.
"""

from __future__ import annotations

import os
import random
import sqlite3
from datetime import datetime, timedelta

import pytest
from sync_fixtures import bulk_graph, bulk_rows, evidence

from graph_trust.config import load_settings
from graph_trust.errors import GraphTrustError
from graph_trust.sync import rollback, run_sync, verify
from graph_trust.sync.review_db import SCHEMA, insert_rows
from graph_trust.sync.store.state import now_iso

STATUSES = ["promoted", "corroborated", "candidate", "rejected", "expired"]
SEEDS = int(os.environ.get("GRAPH_TRUST_CONVERGENCE_SEEDS", "6"))
STEPS = int(os.environ.get("GRAPH_TRUST_CONVERGENCE_STEPS", "50"))
# review DB edits (R), changes outside sync (G), runs (S); runs weighted up
OPS = ["R_status", "R_status", "R_delete", "R_insert", "R_move", "R_meta", "R_bad_group",
       "G_delete_edge", "G_set_score", "G_strip_trust", "G_resave", "G_delete_entity", "G_entity_by_hand",
       "G_edge_appears", "S_sync", "S_sync", "S_sync", "S_full", "S_dry", "S_full_dry", "S_rollback",
       "S_interrupted"]


# How an edit stamps updated_at, relative to the last run's refresh of the review DB's copy
STAMPS = ["older", "equal", "newer", "null", "junk", "unchanged"]


def review_db(path, rows: list[dict]):
    """A review DB like the documented one, except that updated_at may be NULL (a pipeline that
    does not keep it)."""
    nullable = SCHEMA.replace("updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                              "updated_at TEXT")
    assert nullable != SCHEMA
    con = sqlite3.connect(path)
    with con:
        con.executescript(nullable)
    con.close()
    insert_rows(path, rows)
    return path


class Interrupted(Exception):
    """Raised from a run's progress callback: the run stops there, as on Ctrl-C."""


class History:
    """One graph group, its review DB and the random operations on them."""

    def __init__(self, graph, settings, db, group: str, rng: random.Random):
        self.graph, self.settings, self.db, self.group, self.rng = graph, settings, db, group, rng
        self.gg = graph.for_group(group)
        self.clock = 0
        self.inserted = 0
        self.last_sync: str | None = None
        self.only_full_sees = False  # a change normal runs cannot see is outstanding
        self.bad_groups: set[str] = set()  # group ids with no graph that review rows have named

    def sql(self, statement: str, params=()) -> list:
        con = sqlite3.connect(self.db)
        try:
            with con:
                return con.execute(statement, params).fetchall()
        finally:
            con.close()

    def last_refresh(self) -> str | None:
        """When the last run (or verify) refreshed the state store's copy of the review DB."""
        path = self.settings.state_dir / "state.sqlite3"
        if not path.exists():
            return None
        con = sqlite3.connect(path)
        try:
            return con.execute("SELECT max(refreshed_at) FROM sync_sources").fetchone()[0]
        except sqlite3.Error:
            return None
        finally:
            con.close()

    def stamp(self, *, new_row: bool = False) -> tuple[str, tuple]:
        """``(SQL, params)`` setting updated_at the way a random pipeline would (an empty SQL
        fragment leaves it as it is)."""
        how = self.rng.choice(STAMPS[:-1] if new_row else STAMPS)
        last = self.last_refresh()
        if how == "unchanged":
            return "", ()
        if how == "null":
            return ", updated_at = ?", (None,)
        if how == "junk":
            return ", updated_at = ?", ("not a date",)
        if how == "newer" or last is None:
            return ", updated_at = ?", (now_iso(),)
        if how == "equal":
            return ", updated_at = ?", (last,)
        older = datetime.fromisoformat(last.replace("Z", "+00:00")) - timedelta(seconds=self.rng.randrange(1, 10**7))
        return ", updated_at = ?", (older.isoformat(timespec="milliseconds").replace("+00:00", "Z"),)

    async def read(self, text: str, **params) -> list[str]:
        return [r["u"] for r in await self.gg.run_text(text, params, write=False)]

    async def write(self, text: str, **params) -> None:
        await self.gg.run_text(text, params, write=True)

    async def step(self, op: str) -> None:
        rng = self.rng
        edges = await self.read("MATCH ()-[r:RELATES_TO]->() RETURN r.uuid AS u")
        entities = await self.read("MATCH (n:Entity) WHERE n.uuid <> 'seed' RETURN n.uuid AS u")
        ids = [r[0] for r in self.sql("SELECT id FROM candidates")]
        if op == "R_status" and ids:
            stamp, p = self.stamp()
            self.sql(f"UPDATE candidates SET status = ?{stamp} WHERE id = ?",
                     (rng.choice(STATUSES), *p, rng.choice(ids)))
        elif op == "R_delete" and ids:
            self.sql("DELETE FROM candidates WHERE id = ?", (rng.choice(ids),))
        elif op == "R_insert":
            self.inserted += 1
            target = rng.choice(edges) if edges and rng.random() < 0.8 else f"gone-{self.inserted}"
            stamp, p = self.stamp(new_row=True)
            self.sql("INSERT INTO candidates (id, subject, predicate, object, fact, status, evidence_refs_json, "
                     "group_id) VALUES (?, 's', 'p', 'o', 'f', ?, ?, ?)",
                     (f"{self.group}-n{self.inserted}", rng.choice(STATUSES), evidence(target), self.group))
            self.sql(f"UPDATE candidates SET id = id{stamp} WHERE id = ?", (*p, f"{self.group}-n{self.inserted}"))
        elif op == "R_move" and ids and edges:
            stamp, p = self.stamp()
            self.sql(f"UPDATE candidates SET evidence_refs_json = ?{stamp} WHERE id = ?",
                     (evidence(rng.choice(edges)), *p, rng.choice(ids)))
        elif op == "R_meta" and ids:  # the optional columns sync copies onto the edge
            stamp, p = self.stamp()
            self.sql(f"UPDATE candidates SET memory_type = ?, sensitivity = ?, scope = ?{stamp} WHERE id = ?",
                     (rng.choice([None, "fact", "preference"]), rng.choice([None, "low", "high"]),
                      rng.choice([None, "ops", "team"]), *p, rng.choice(ids)))
        elif op == "R_bad_group" and ids:  # a typo or hostile text as group id, or the right one again
            bad = rng.choice([f"{self.group}x", f"{self.group.upper()}", f"x' OR 1=1 //{self.group}",
                              f"../{self.group}", f"{self.group} "])
            stamp, p = self.stamp()
            if rng.random() < 0.6:
                self.bad_groups.add(bad)
                self.sql(f"UPDATE candidates SET group_id = ?{stamp} WHERE id = ?", (bad, *p, rng.choice(ids)))
            else:
                marks = ", ".join("?" for _ in self.bad_groups)
                self.sql(f"UPDATE candidates SET group_id = ?{stamp} WHERE group_id IN ({marks})",
                         (self.group, *p, *sorted(self.bad_groups)))
        elif op == "G_delete_edge" and edges:
            await self.write("MATCH ()-[r:RELATES_TO {uuid: $u}]->() DELETE r", u=rng.choice(edges))
        elif op == "G_set_score" and edges:
            await self.write("MATCH ()-[r:RELATES_TO {uuid: $u}]->() SET r.trust_score = $s", u=rng.choice(edges),
                             s=rng.choice([0.1, 0.6, 1.0]))
        elif op == "G_strip_trust" and edges:
            await self.write("MATCH ()-[r:RELATES_TO {uuid: $u}]->() REMOVE r.trust_score, r.trust_status",
                             u=rng.choice(edges))
        elif op == "G_resave" and edges:  # saved again from a fresh object: every owned property gone
            await self.write("MATCH ()-[r:RELATES_TO {uuid: $u}]->() REMOVE r.trust_score, r.trust_status, "
                             "r.trust_run_id, r.trust_updated_at, r.memory_type, r.sensitivity, r.scope",
                             u=rng.choice(edges))
        elif op == "G_delete_entity" and entities:
            await self.write("MATCH (n:Entity {uuid: $u}) DETACH DELETE n", u=rng.choice(entities))
        elif op == "G_entity_by_hand" and entities:  # only --full corrects it
            await self.write("MATCH (n:Entity {uuid: $u}) SET n.trust_score = 0.123", u=rng.choice(entities))
            self.only_full_sees = True
        elif op == "G_edge_appears" and len(entities) > 1:  # an edge an unmatched candidate points at
            wanted = [r[0] for r in self.sql("SELECT json_extract(evidence_refs_json, '$[0].evidence_id') AS u "
                                             "FROM candidates WHERE u LIKE 'gone-%'") if r[0] not in edges]
            if wanted:
                a, b = rng.sample(entities, 2)
                await self.write("MATCH (a:Entity {uuid: $a}), (b:Entity {uuid: $b}) CREATE (a)-[:RELATES_TO "
                                 "{uuid: $u, group_id: $g, name: 'R', fact: 'f'}]->(b)",
                                 a=a, b=b, u=rng.choice(wanted), g=self.group)
        elif op in ("S_sync", "S_full"):
            report = await run_sync(self.settings, review_db=self.db, graph=self.graph, full=op == "S_full",
                                    batch_size=rng.choice([1, 7, 1000]))
            self.last_sync = report.run_id
            if op == "S_full":
                self.only_full_sees = False
        elif op == "S_interrupted":  # stops after a random number of progress reports, in any phase
            left = [rng.randrange(1, 8)]

            def stop(phase, n, total):
                left[0] -= 1
                if left[0] == 0:
                    raise Interrupted(phase)

            try:
                await run_sync(self.settings, review_db=self.db, graph=self.graph, full=rng.random() < 0.3,
                               batch_size=rng.choice([1, 7]), progress=stop)
            except (Interrupted, GraphTrustError):
                pass
        elif op in ("S_dry", "S_full_dry"):
            await run_sync(self.settings, review_db=self.db, graph=self.graph, dry_run=True, full=op == "S_full_dry")
        elif op == "S_rollback" and self.last_sync:
            try:
                await rollback(self.settings, self.last_sync, graph=self.graph, force=True)
            except GraphTrustError:  # e.g. the run changed nothing
                pass
            self.last_sync = None


async def assert_in_sync(settings, graph, db, histories: list[History], where: str) -> None:
    """verify finds no drift and nothing the sync's copy has otherwise, and no graph was made
    for a group id that had none."""
    v = await verify(settings, review_db=db, graph=graph)
    assert v.in_sync and v.missed_candidates == 0, f"{where}: {v.drift} {v.examples} {v.missed_candidate_ids}"
    names = {n.decode() if isinstance(n, bytes) else n
             for n in await graph.driver.client.execute_command("GRAPH.LIST")}
    bad = set().union(*(h.bad_groups for h in histories))
    assert not names & bad, f"{where}: graphs made for unknown groups {names & bad}"
    assert sorted(g for g in v.unknown_groups if g in bad) == v.unknown_groups, where


@pytest.mark.parametrize("seed", range(SEEDS))
async def test_every_real_sync_leaves_the_graph_in_sync(graph, settings, tmp_path, unique, seed):
    rng = random.Random(seed)
    settings = load_settings(overrides={
        "graph.uri": settings.graph.uri, "graph.database": settings.graph.database,
        "state_dir": str(tmp_path / "state"), "sync.max_clear": 1,
        "sync.aggregation": rng.choice(["max", "mean", "noisy_or"])}, environ={})
    group = f"c{unique}"
    edges = await bulk_graph(graph, group, 60)
    history = History(graph, settings, review_db(tmp_path / "r.sqlite3", bulk_rows(edges, group)), group, rng)
    done = []
    for _ in range(STEPS):
        op = rng.choice(OPS)
        await history.step(op)
        done.append(op)
        if op in ("S_sync", "S_full") and not history.only_full_sees:
            await assert_in_sync(settings, graph, history.db, [history], f"seed {seed}, after {done}")


@pytest.mark.parametrize("seed", range(max(1, SEEDS // 2)))
async def test_two_groups_and_a_group_graph_deleted_and_built_again(graph, settings, tmp_path, unique, seed):
    """The same over two groups (on FalkorDB, two graphs) sharing one review DB, where a group's
    whole graph is sometimes deleted and built again with the same uuids."""
    rng = random.Random(1000 + seed)
    settings = load_settings(overrides={
        "graph.uri": settings.graph.uri, "graph.database": settings.graph.database,
        "state_dir": str(tmp_path / "state"), "sync.max_clear": 1,
        "sync.aggregation": rng.choice(["max", "mean", "noisy_or"])}, environ={})
    groups = [f"a{unique}", f"b{unique}"]
    rows = []
    for group in groups:
        rows += [dict(r, id=f"{group}-{r['id']}") for r in bulk_rows(await bulk_graph(graph, group, 40), group)]
    db = review_db(tmp_path / "r.sqlite3", rows)
    histories = [History(graph, settings, db, group, rng) for group in groups]
    done = []
    for _ in range(STEPS):
        history, op = rng.choice(histories), rng.choice([*OPS, "G_graph_rebuilt"])
        if op == "G_graph_rebuilt":
            await history.gg.driver.client.execute_command("GRAPH.DELETE", history.group)
            await bulk_graph(graph, history.group, 40)
        else:
            await history.step(op)
        done.append(f"{history.group[0]}:{op}")
        if op == "S_full":
            for h in histories:
                h.only_full_sees = False
        if op in ("S_sync", "S_full") and not any(h.only_full_sees for h in histories):
            await assert_in_sync(settings, graph, db, histories, f"seed {seed}, after {done}")
