"""The main job end to end, through the real `graph-trust` command on the embedded default."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import clean_env, run_cli


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("demo")
    r = run_cli("demo", "--json", cwd=d)
    assert r.code == 0, r.err
    (d / "first.json").write_text(r.out)
    return d


def _first(d: Path):
    import json

    return json.loads((d / "first.json").read_text())


def test_demo_loads_syncs_and_boosts(demo_dir):
    rep = _first(demo_dir)
    assert rep["graph"] == "embedded:.graph-trust/graph"
    assert rep["load"]["entities_created"] > 200 and rep["load"]["edges_created"] > 400
    assert rep["sync"]["edges_set"] > 100 and rep["sync"]["entities_updated"] > 0
    assert len(rep["queries"]) == 3
    rose = 0
    for q in rep["queries"]:
        assert q["vanilla"] and q["boosted"]
        for e in q["boosted"]:
            assert set(e) == {"uuid", "text", "bm25_rank", "cosine_rank", "fused", "trust_score", "boost", "final",
                              "rank", "rank_without_boost", "negative", "cosine_stage", "relation_bonus", "moved_by",
                              "score_before_move", "missing_identifier"}
            # a fact a rule moved scores its new place's score; what it scored is kept beside
            own = e["final"] if e["moved_by"] is None else e["score_before_move"]
            if e["negative"] is None:
                assert own == pytest.approx(e["fused"] + e["boost"] + e["relation_bonus"])
        finals = [e["final"] for e in q["boosted"]]
        assert finals == sorted(finals, reverse=True)  # scores follow the order
        rose += sum(e["rank"] < e["rank_without_boost"] and (e["trust_score"] or 0) > 0 for e in q["boosted"])
    assert rose >= 3  # review decisions in, boosted ranks out: every demo query flips its top two
    # Review decisions reach the top: no boosted top answer is a rejected or invalidated fact, and
    # some query's top answer changes.
    assert all(q["boosted"][0]["negative"] is None for q in rep["queries"])
    assert any(q["boosted"][0]["uuid"] != q["vanilla"][0]["uuid"] for q in rep["queries"])


def test_demo_is_idempotent_and_data_persists(demo_dir):
    r = run_cli("demo", "--json", cwd=demo_dir)
    assert r.code == 0, r.err
    rep = r.json()
    assert rep["load"]["entities_created"] == 0 and rep["load"]["edges_created"] == 0
    assert rep["load"]["edges_existing"] == _first(demo_dir)["load"]["edges_created"]
    # The same trust ranking as the first run, which loaded and wrote trust where this one wrote
    # nothing and the embedded server restarted in between: the trust search ranks by the graph's
    # content (its exact vector store), not by the fulltext index's history. (Graphiti's own order,
    # vanilla, may differ: FalkorDB's fulltext statistics keep what the first run's sync replaced.)
    def ranking(report):
        return [(q["query"], [(b["uuid"], b["final"]) for b in q["boosted"]]) for q in report["queries"]]

    assert ranking(rep) == ranking(_first(demo_dir))


def test_server_is_stopped_after_each_command(demo_dir):
    graph = demo_dir / ".graph-trust" / "graph"
    assert not list((graph / "leases").glob("*"))
    pidfile = graph / "falkordb.pid"
    if pidfile.exists():
        pid = int(pidfile.read_text().strip() or 0)
        assert not pid or not Path(f"/proc/{pid}").exists()


def test_search_json_has_explanations_and_trust(demo_dir):
    r = run_cli("search", "who owns the payments api", "--json", "--explain", "--limit", "5", cwd=demo_dir)
    assert r.code == 0, r.err
    out = r.json()
    assert out["trust_weight"] == 0.05 and len(out["results"]) == 5
    assert [e["rank"] for e in out["results"]] == [1, 2, 3, 4, 5]
    assert any(e["trust_score"] == 1.0 for e in out["results"])


def test_search_weight_zero_and_table(demo_dir):
    r = run_cli("search", "who owns the payments api", "--trust-weight", "0", "--json", "--group", "ops",
                cwd=demo_dir)
    assert r.code == 0, r.err
    res = r.json()["results"]
    assert all(e["boost"] == 0 for e in res)
    assert all((e["final"] if e["moved_by"] is None else e["score_before_move"])
               == pytest.approx(e["fused"] + e["relation_bonus"]) for e in res if e["negative"] is None)
    # weight 0 without competitor ordering and relation bonus: only negative evidence moves an
    # item; the others keep their unboosted order
    cfg = demo_dir / "no-competitors.yaml"
    cfg.write_text("search:\n  competitors: none\n  relation_weight: 0\n")
    r = run_cli("search", "who owns the payments api", "--trust-weight", "0", "--json", "--group", "ops",
                "--config", str(cfg), cwd=demo_dir)
    assert r.code == 0, r.err
    res = r.json()["results"]
    clean = [e["rank_without_boost"] for e in res if e["negative"] is None]
    assert clean == sorted(clean)
    by_rank = {e["rank"]: e for e in res}
    for e in res:
        if e["negative"]:  # sunk below every clean item, or (a duplicate of a clean competitor's
            above = by_rank.get(e["rank"] - 1)  # statement) right below a clean item it outranked unboosted
            assert all(e["rank"] > c["rank"] for c in res if c["negative"] is None) or (
                above is not None and above["negative"] is None
                and e["rank_without_boost"] < above["rank_without_boost"]), e
    t = run_cli("search", "who owns the payments api", "--explain", cwd=demo_dir)
    assert t.code == 0 and "unboosted#" in t.out and "payments-api" in t.out


async def test_only_the_graphiti_profile_gives_graphitis_vanilla_order(demo_dir):
    """What docs/search.md and `search --help` say: `search.profile: graphiti` is Graphiti's own
    search_ (the demo's vanilla column); `--trust-weight 0` only turns the boost off, and the
    ranking rules still move facts on the demo. Graphiti's order reads FalkorDB's fulltext index,
    which moves once its collector drops the entries the demo's sync replaced: the profile's
    answer is Graphiti's as read just before it or just after it (the collector runs once)."""
    from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF

    from graph_trust.clients.factory import embedder_named
    from graph_trust.clients.offline import make_graphiti
    from graph_trust.config import load_settings
    from graph_trust.graph.connection import open_graph

    cfg = demo_dir / "vanilla.yaml"
    cfg.write_text("search:\n  profile: graphiti\n")
    settings = load_settings(overrides={"graph.uri": f"embedded:{demo_dir / '.graph-trust' / 'graph'}",
                                        "state_dir": str(demo_dir / ".graph-trust")}, environ={})
    differs = 0
    async with open_graph(settings) as conn:
        graphiti = make_graphiti(conn.for_group("ops").driver, embedder=embedder_named("hashing"))

        async def graphitis(query: str, limit: int) -> list[str]:
            recipe = EDGE_HYBRID_SEARCH_RRF.model_copy(deep=True)
            recipe.limit = limit
            return [e.uuid for e in (await graphiti.search_(query, config=recipe, group_ids=["ops"])).edges]

        for q in _first(demo_dir)["queries"]:
            limit = len(q["vanilla"])
            args = ("search", q["query"], "--json", "--group", "ops", "--limit", str(limit))
            before = await graphitis(q["query"], limit)
            r = run_cli(*args, "--config", str(cfg), cwd=demo_dir)
            after = await graphitis(q["query"], limit)
            assert r.code == 0, r.err
            assert [e["uuid"] for e in r.json()["results"]] in (before, after)
            w0 = run_cli(*args, "--trust-weight", "0", cwd=demo_dir)
            differs += [e["uuid"] for e in w0.json()["results"]] not in (before, after)
    assert differs >= 1
    assert "--trust-weight 0 --json     # no boost; the ranking rules still apply" in run_cli("search", "--help").out


def test_search_nodes(demo_dir):
    r = run_cli("search", "payments", "--nodes", "--json", cwd=demo_dir)
    assert r.code == 0, r.err
    assert r.json()["scope"] == "nodes" and r.json()["results"]


def test_search_composite_shows_every_dimension(demo_dir):
    r = run_cli("search", "billing database backup", "--rank", "composite", "--json", cwd=demo_dir)
    assert r.code == 0, r.err
    res = r.json()["results"]
    assert res
    for e in res:
        for k in ("score", "trust", "recency", "relevance", "type_boost", "memory_type", "explanation"):
            assert k in e
        assert 0.0 <= e["score"] <= 1.0
    assert [e["score"] for e in res] == sorted((e["score"] for e in res), reverse=True)
    t = run_cli("search", "billing database backup", "--rank", "composite", cwd=demo_dir)
    assert t.code == 0 and "recency" in t.out and "relevance" in t.out


def _run_in_pty(args: list[str], cwd) -> str:
    """Run the CLI with stdout and stderr on a pseudo-terminal; return what the terminal saw."""
    import os
    import pty
    import subprocess
    import sys

    master, slave = pty.openpty()
    env = clean_env()
    proc = subprocess.Popen([sys.executable, "-m", "graph_trust", *args], stdout=slave, stderr=slave, cwd=cwd,
                            env={**env, "COLUMNS": "120"})
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(120)
    os.close(master)
    assert proc.returncode == 0, b"".join(chunks)[-2000:]
    return b"".join(chunks).decode(errors="replace")


def test_progress_bars_on_a_terminal_only(demo_dir):
    review = ".graph-trust/demo-review.sqlite3"
    shown = _run_in_pty(["sync", "--full", "--review-db", review], demo_dir)
    assert "edges" in shown and "%" in shown  # a click progress bar for the edge phase
    quiet = _run_in_pty(["sync", "--full", "--review-db", review, "--json"], demo_dir)
    assert "%" not in quiet.split("{", 1)[0] and '"run_id"' in quiet  # --json: no bar, just JSON
    piped = run_cli("sync", "--full", "--review-db", review, cwd=demo_dir)
    assert piped.code == 0 and "%" not in piped.err  # not a terminal: no bar


def test_explain_table_adds_up(demo_dir):
    """Every row of ``search --explain``'s table shows each term of its final score: final = fused
    + boost + relation (to the table's rounding), for the items without negative evidence (the
    demo's rejected facts, trust 0.00, keep a share of their fused score instead); for an item a
    rule moved, the score it had (shown beside the rule) adds up and final is its new place's."""
    t = run_cli("search", "who owns the payments api", "--explain", "--group", "ops", cwd=demo_dir)
    assert t.code == 0, t.err
    lines = t.out.splitlines()
    head = lines[0].split()
    assert head[:11] == ["#", "final", "fused", "trust", "boost", "relation", "bm25", "cos", "unboosted#", "negative",
                         "moved"]
    table_end = lines.index("")  # then, after a blank line, the cosine stage each graph used
    rows = [line.split() for line in lines[2:table_end]]
    assert rows and lines[table_end + 1].startswith("cosine candidates of ops (edges): store, ")
    finals = [float(r[1]) for r in rows]
    assert finals == sorted(finals, reverse=True)  # scores follow the order
    for r in [r for r in rows if r[3] != "0.00"]:
        final, fused, boost, relation = float(r[1]), float(r[2]), float(r[4]), float(r[5])
        own = final if r[10] == "-" else float(r[12])  # "<rule> from <score>"
        assert own == pytest.approx(fused + boost + relation, abs=2e-4), r
