"""The bundled eval ranks each draw without rebuilding any index: after the sync it builds the
graph's exact vector stores (``runner.build_stores``), so the trust search's rankings are those of
the same content however it was written: a copy of the state loaded, synced and ranked at once,
and again after a restarted server loaded it from its snapshot, ranks the same."""

from __future__ import annotations

import pytest

from graph_trust import api
from graph_trust.clients.factory import embedder_named
from graph_trust.config import load_settings
from graph_trust.demo.sample import load_sample
from graph_trust.eval import runner
from graph_trust.eval.dataset import JudgedSet, bundled
from graph_trust.eval.draws import draw_review
from graph_trust.graph.connection import open_graph


@pytest.mark.parametrize("seed, coverage, noise", [(1, 0.4, 0.05), (6, 0.12, 0.2)])
async def test_a_draw_ranks_as_any_copy_of_its_content(tmp_path, seed, coverage, noise):
    data = bundled()
    queries = data.judged.queries[:12]
    judged = JudgedSet(queries, {q.id: data.judged.qrels[q.id] for q in queries})
    settings = load_settings(environ={})
    methods = runner.methods_for(["trust", "noreview"], None, settings)
    rows = draw_review(data.graph, data.verdicts, seed=seed, coverage=coverage, noise=noise)
    groups = list(data.graph["groups"])
    draw = await runner.rank_bundled_draw(settings, data.graph, rows, judged, methods, seed=seed,
                                          sync_rows=api.sync_review_rows)
    assert draw.sync["edges_set"] > 0

    # the same state built again, then loaded fresh by a restarted server
    s = settings.model_copy(update={"state_dir": tmp_path / "state"})
    s.graph = s.graph.model_copy(update={"uri": f"embedded:{tmp_path / 'graph'}", "database": None})
    vectors = embedder_named("hashing")

    servers = []

    def server_pid() -> str:
        servers.append((tmp_path / "graph" / "falkordb.pid").read_text())
        return servers[-1]

    trust = [m for m in methods if m.kind != "vanilla"]
    async with open_graph(s) as conn:
        server_pid()
        await load_sample(conn.driver, vectors, data=data.graph)
        await runner.build_stores(conn, s, data.graph)  # the stores first: the sync's writes come after
        await api.sync_review_rows(s, rows, tmp_path / "review.sqlite3", conn)
        right_after_sync = await runner.rank_queries(conn, s, judged, trust, embedder=vectors, default_groups=groups)
    async with open_graph(s) as conn:
        server_pid()
        fresh = await runner.rank_queries(conn, s, judged, trust, embedder=vectors, default_groups=groups)

    assert len(set(servers)) == 2  # a new server process, which loaded the graph from its snapshot
    ranked = {m.name: draw.rankings[m.name] for m in trust}
    assert ranked == {m.name: right_after_sync[m.name] for m in trust} == {m.name: fresh[m.name] for m in trust}
    assert any(ranked[trust[0].name].values())
