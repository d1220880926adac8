"""Every normal run converges, whatever wrote the graph since this state store's last run: syncs of
another review DB (from this state directory or another), ``--full`` runs (what the demo's sync
is), hand edits of edges and rollbacks, in any order (a hypothesis state machine). After every
normal sync, ``verify`` of that review DB finds the graph in sync.

It starts from the reproduction of issue 39: a graph synced from a second review DB, then synced
again from the first one (``graph-trust demo`` run again), where every normal run of the second
used to report nothing to do while ``verify`` found dozens of edges wrong."""

from __future__ import annotations

import asyncio
import uuid

from hypothesis import HealthCheck
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule, run_state_machine_as_test
from sync_fixtures import bulk_graph, bulk_rows, review_db

from graph_trust.config import load_settings
from graph_trust.errors import GraphTrustError
from graph_trust.graph.connection import open_graph
from graph_trust.sync import rollback, run_sync, verify

N_EDGES = 30


def promoted_more(rows: list[dict]) -> list[dict]:
    """The second review DB: the same candidates, a third of them promoted where the first has not."""
    return [dict(r, status="promoted") if i % 3 == 0 else r for i, r in enumerate(rows)]


async def assert_converged(settings, db, graph, where: str) -> None:
    v = await verify(settings, review_db=db, graph=graph)
    assert v.in_sync and v.missed_candidates == 0, f"{where}: {v.drift} {v.examples}"


async def test_a_second_review_db_converges_after_the_first_is_synced_again(graph, settings, tmp_path, unique):
    group = f"d{unique}"
    rows = bulk_rows(await bulk_graph(graph, group, N_EDGES), group)
    demo = review_db(tmp_path / "demo.sqlite3", rows)
    ours = review_db(tmp_path / "b.sqlite3", promoted_more(rows))
    await run_sync(settings, review_db=demo, graph=graph, full=True)  # the demo's sync
    await run_sync(settings, review_db=ours, graph=graph)
    await assert_converged(settings, ours, graph, "b synced")
    again = await run_sync(settings, review_db=demo, graph=graph, full=True)  # the demo, run again
    assert again.edges_set > 0
    first = await run_sync(settings, review_db=ours, graph=graph)  # one normal run
    assert first.edges_set == again.edges_set + again.edges_cleared  # every edge the demo changed, back
    await assert_converged(settings, ours, graph, "b synced after the demo again")
    quiet = await run_sync(settings, review_db=ours, graph=graph)  # and then nothing is left to do
    assert (quiet.edges_set, quiet.edges_cleared, quiet.entities_updated) == (0, 0, 0)


def test_every_normal_run_converges_whatever_wrote_the_graph(settings, tmp_path):
    """Syncs of two review DBs from two state directories, full and normal, hand edits of edges and
    rollbacks, interleaved at random; after every normal sync, verify is at 0."""
    loop = asyncio.new_event_loop()
    opened = open_graph(settings)
    graph = loop.run_until_complete(opened.__aenter__())
    base = settings

    class Interleavings(RuleBasedStateMachine):
        @initialize()
        def world(self) -> None:
            self.group = f"h{uuid.uuid4().hex[:10]}"
            root = tmp_path / self.group
            root.mkdir()
            rows = bulk_rows(loop.run_until_complete(bulk_graph(graph, self.group, N_EDGES)), self.group)
            self.uuids = loop.run_until_complete(self.read("MATCH ()-[r:RELATES_TO]->() RETURN r.uuid AS u"))
            self.dbs = {"a": review_db(root / "a.sqlite3", rows), "b": review_db(root / "b.sqlite3",
                                                                                 promoted_more(rows))}
            self.states = {name: load_settings(overrides={
                "graph.uri": base.graph.uri, "graph.database": base.graph.database, "state_dir": str(root / name),
                "sync.tiers": dict(base.sync.tiers), "sync.max_clear": 1}, environ={}) for name in ("s1", "s2")}
            self.last_run: dict[str, str] = {}  # state dir -> its newest real sync run

        async def read(self, text: str, **params) -> list[str]:
            return [r["u"] for r in await graph.for_group(self.group).run_text(text, params, write=False)]

        def write(self, text: str, **params) -> None:
            loop.run_until_complete(graph.for_group(self.group).run_text(text, params, write=True))

        @rule(db=st.sampled_from("ab"), state=st.sampled_from(["s1", "s2"]), full=st.booleans())
        def sync(self, db: str, state: str, full: bool) -> None:
            s = self.states[state]
            rep = loop.run_until_complete(run_sync(s, review_db=self.dbs[db], graph=graph, full=full))
            self.last_run[state] = rep.run_id
            if not full:
                loop.run_until_complete(assert_converged(s, self.dbs[db], graph, f"after a normal sync of {db}"))

        @rule(i=st.integers(0, N_EDGES - 1), score=st.sampled_from([0.1, 0.6, 1.0]))
        def edge_score_by_hand(self, i: int, score: float) -> None:
            self.write("MATCH ()-[r:RELATES_TO {uuid: $u}]->() SET r.trust_score = $s", u=self.uuids[i], s=score)

        @rule(i=st.integers(0, N_EDGES - 1))
        def edge_trust_stripped_by_hand(self, i: int) -> None:
            self.write("MATCH ()-[r:RELATES_TO {uuid: $u}]->() REMOVE r.trust_score, r.trust_status",
                       u=self.uuids[i])

        @rule(i=st.integers(0, N_EDGES - 1), status=st.sampled_from(["promoted", "candidate", "made-up"]))
        def edge_status_by_hand(self, i: int, status: str) -> None:
            self.write("MATCH ()-[r:RELATES_TO {uuid: $u}]->() WHERE r.trust_score IS NOT NULL "
                       "SET r.trust_status = $s", u=self.uuids[i], s=status)

        @rule(state=st.sampled_from(["s1", "s2"]))
        def roll_back(self, state: str) -> None:
            run_id = self.last_run.pop(state, None)
            if run_id is None:
                return
            try:
                loop.run_until_complete(rollback(self.states[state], run_id, graph=graph, force=True))
            except GraphTrustError:  # e.g. the run changed nothing
                pass

    try:
        run_state_machine_as_test(Interleavings, settings=hsettings(
            max_examples=6, stateful_step_count=20, deadline=None, derandomize=False,
            suppress_health_check=list(HealthCheck)))
    finally:
        loop.run_until_complete(opened.__aexit__(None, None, None))
        loop.close()
