"""`graph-trust eval` end to end: the bundled set (few queries, two draws), the user's judged
files on a graph they synced, and bad input (one clear line, exit code 2)."""

from __future__ import annotations

import json

import pytest
from cli_helpers import run_cli, run_inproc

from graph_trust.config import SearchSettings
from graph_trust.eval.dataset import bundled

METHOD_KEYS = {"name", "kind", "weight", "ndcg@10", "mrr@10", "p@5", "wrong_first"}


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("eval")
    # Graphiti's own stages (search.profile: graphiti) with negative evidence, competitor ordering and
    # the relation bonus off (the additive formula alone), so trust@0 must reproduce Graphiti's search_.
    r = run_cli("eval", "--bundled", "--quick", "--draws", "2", "--weights", "0,0.15", "--rank", "trust,composite",
                "--rank-const", "1,60", "--set", "search.negative_penalty=0",
                "--set", "search.demote_invalidated=false", "--set", "search.competitors=none",
                "--set", "search.relation_weight=0", "--set", "search.profile=graphiti", "--json", cwd=cwd, timeout=600)
    assert r.code == 0, r.err
    return r.json()


def test_bundled_json_is_complete_and_stable(quick):
    assert quick["version"] == 1 and quick["mode"] == "bundled" and quick["limit"] == 10
    assert [m["name"] for m in quick["methods"]] == ["vanilla", "trust@0 rc=1", "trust@0.15 rc=1", "composite rc=1",
                                                     "trust@0 rc=60", "trust@0.15 rc=60", "composite rc=60"]
    assert [m["rank_const"] for m in quick["methods"]] == [1, 1, 1, 1, 60, 60, 60]
    assert quick["queries"] == 12 == len(quick["per_query"])
    assert quick["contested_queries"] + quick["clean_queries"] == 12
    assert [d["seed"] for d in quick["draws"]] == [0, 1]
    for d in quick["draws"]:
        assert d["sync"]["edges_set"] > 0 and d["sync"]["unmatched"] == 0
    for m in quick["methods"]:
        assert METHOD_KEYS <= set(m)
        for metric in ("ndcg@10", "mrr@10", "p@5"):
            assert len(m[metric]["per_draw"]) == 2 and 0 <= m[metric]["mean"] <= 1
        assert ("vs_vanilla" in m) == (m["kind"] != "vanilla")
    by_class = {c["class"]: c for c in quick["by_class"]}
    assert by_class["clean"]["queries"] == quick["clean_queries"] and by_class["clean"]["contested_queries"] == 0
    assert all(v is None for v in by_class["clean"]["wrong_first"].values())
    rec = quick["recommendation"]
    assert set(rec) >= {"method", "settings", "significant", "reason"}


def test_weight_zero_equals_vanilla_on_the_same_index_state(quick):
    """trust@0 is Graphiti's search_ on every query of every draw: both read the same graph state."""
    by = {m["name"]: m for m in quick["methods"]}
    assert by["trust@0 rc=1"]["ndcg@10"]["per_draw"] == by["vanilla"]["ndcg@10"]["per_draw"]
    assert by["trust@0 rc=1"]["vs_vanilla"]["ties"] == 12
    for q in quick["per_query"]:
        assert q["ndcg@10"]["trust@0 rc=1"] == q["ndcg@10"]["vanilla"]
    # rank_const 60 fuses differently (Graphiti's search_ keeps 1): some query must move
    assert any(q["ndcg@10"]["trust@0 rc=60"] != q["ndcg@10"]["vanilla"] for q in quick["per_query"])


def test_help_teaches(tmp_path, monkeypatch, capsys):
    code, out, _ = run_inproc(["eval", "--help"], tmp_path, monkeypatch, capsys)
    assert code == 0 and "--bundled" in out and "qrels (TREC)" in out and "--set" in out


@pytest.fixture
def judged_graph(tmp_path, settings):
    """The bundled infra group on an embedded graph, synced with draw 0; 8 of its queries."""
    import asyncio

    from graph_trust.clients.hashing import HashingEmbedder
    from graph_trust.demo.sample import load_sample
    from graph_trust.graph.connection import open_graph
    from graph_trust.sync.review_db import init_review_db, insert_rows
    from graph_trust.sync.runner import run_sync

    data = bundled()
    graph_path = tmp_path / "g"
    s = settings.model_copy(update={"state_dir": tmp_path / "state"})
    s.graph = s.graph.model_copy(update={"uri": f"embedded:{graph_path}", "database": None})
    review = init_review_db(tmp_path / "review.sqlite3")
    insert_rows(review, [r for r in data.review if r["group_id"] == "infra"])

    async def build():
        async with open_graph(s) as conn:
            await load_sample(conn.driver, HashingEmbedder(), groups=["infra"], data=data.graph)
            await run_sync(s, review_db=review, full=True, graph=conn)

    asyncio.run(build())
    queries = [q for q in data.judged.queries if q.group == "infra"][:8]
    qf, rf = tmp_path / "q.jsonl", tmp_path / "qrels.txt"
    qf.write_text("".join(json.dumps({"id": q.id, "query": q.text, "group": q.group, "wrong": list(q.wrong)}) + "\n"
                          for q in queries))
    rf.write_text("".join(f"{q.id} 0 {d} {g}\n" for q in queries for d, g in data.judged.qrels[q.id].items()))
    return graph_path, qf, rf


def test_judged_files_on_a_synced_graph(judged_graph, tmp_path):
    graph_path, qf, rf = judged_graph
    r = run_cli("eval", "--queries", str(qf), "--qrels", str(rf), "--graph", f"embedded:{graph_path}",
                "--weights", "0,0.3", "--set", "search.competitors=none", "--set", "search.relation_weight=0",
                "--json", cwd=tmp_path, timeout=300)
    assert r.code == 0, r.err
    rep = r.json()
    assert rep["mode"] == "judged" and rep["queries"] == 8 and rep["draws"] == []
    by = {m["name"]: m for m in rep["methods"]}
    assert by["trust@0"]["ndcg@10"] == by["vanilla"]["ndcg@10"]
    assert by["vanilla"]["ndcg@10"]["mean"] > 0.2  # the queries really found their answers
    # a trust weight that large moves some query (the review DB's decisions reach search)
    assert any(q["ndcg@10"]["trust@0.3"] != q["ndcg@10"]["vanilla"] for q in rep["per_query"])


def test_unknown_group_in_queries(judged_graph, tmp_path):
    graph_path, qf, rf = judged_graph
    qf.write_text(qf.read_text().replace('"group": "infra"', '"group": "nosuch"', 1))
    r = run_cli("eval", "--queries", str(qf), "--qrels", str(rf), "--graph", f"embedded:{graph_path}",
                cwd=tmp_path)
    assert r.code == 2 and "unknown group 'nosuch'" in r.err


@pytest.mark.parametrize("args, message", [
    ([], "give either --bundled or both --queries and --qrels"),
    (["--bundled", "--queries", "q.jsonl"], "give either --bundled"),
    (["--queries", "q.jsonl"], "--queries and --qrels go together"),
    (["--queries", "missing.jsonl", "--qrels", "qrels.txt"], "queries file missing.jsonl does not exist"),
    (["--queries", "q.jsonl", "--qrels", "bad.txt"], "line 2: expected 'query_id iteration fact_id grade'"),
    (["--queries", "q.jsonl", "--qrels", "unknown.txt"], "query id 'q7' is not in the queries file"),
    (["--bundled", "--set", "search.no_such_key=1"], "config key search.no_such_key: unknown key"),
    (["--bundled", "--set", "search.trust_weight=2"], "config key search.trust_weight"),
    (["--bundled", "--set", "nonsense"], "--set 'nonsense': expected KEY=VALUE"),
    (["--bundled", "--weights", "0,abc"], "--weights: 'abc' is not a number"),
    (["--bundled", "--weights", "1.5"], "--weights: 1.5 is outside [0, 1]"),
    (["--bundled", "--rank", "trust,bogus"], "unknown ranking 'bogus'"),
    (["--bundled", "--draws", "0"], "--draws must be between 1 and 100"),
    (["--bundled", "--rank-const", "1,0"], "--rank-const: 0 is outside"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, monkeypatch, capsys, args, message):
    (tmp_path / "q.jsonl").write_text('{"id": "q1", "query": "x"}\n')
    (tmp_path / "qrels.txt").write_text("q1 0 a 2\n")
    (tmp_path / "bad.txt").write_text("q1 0 a 2\nq1 0 b\n")
    (tmp_path / "unknown.txt").write_text("q1 0 a 2\nq7 0 b 1\n")
    code, out, err = run_inproc(["eval", *args], tmp_path, monkeypatch, capsys)
    assert code == 2, (out, err)
    assert message in err
    assert "Traceback" not in err and out == ""


def test_plot_needs_matplotlib(tmp_path):
    """Without matplotlib, --plot fails before any work, naming the extra."""
    blocker = tmp_path / "block"
    (blocker / "matplotlib").mkdir(parents=True)
    (blocker / "matplotlib" / "__init__.py").write_text("raise ImportError('matplotlib is not installed')\n")
    r = run_cli("eval", "--bundled", "--plot", "out.png", cwd=tmp_path, env={"PYTHONPATH": str(blocker)})
    assert r.code == 2 and "pip install 'graph-trust[plot]'" in r.err
    assert not (tmp_path / "out.png").exists()


def test_text_output_and_plot(tmp_path):
    pytest.importorskip("matplotlib")  # the plot extra (in the test extra, so CI runs this)
    r = run_cli("eval", "--bundled", "--quick", "--draws", "1", "--rank", "trust", "--plot", "q.png",
                cwd=tmp_path, timeout=600)
    assert r.code == 0, r.err
    default = f"trust@{SearchSettings().trust_weight:g}"
    assert "nDCG@10" in r.out and "vanilla" in r.out and default in r.out and "recommendation:" in r.out
    assert (tmp_path / "q.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
