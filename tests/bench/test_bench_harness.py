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
    assert set(row["p50_ms"]) == set(row["p95_ms"]) == {"search_", "default"}
    assert all(positive(v) for v in row["p50_ms"].values())
    for mode, s in row["spread_ms"].items():
        assert s["p10"] <= s["p50"] <= s["p90"] <= s["p95"], mode
        assert len(row["round_p50_ms"][mode]) == row["rounds"]
    for key in ("ratio_default_to_search_", "ratio_p95_default_to_search_", "index_build_s", "check_s",
                "numpy_scan_p50_ms", "graph_build_s"):
        assert positive(row[key]), key
    assert 0.0 <= row["recall_at_10"] <= 1.0
    assert row["index_report"]["edge"]["status"] == "created"  # init built the index the stage used
    assert row["index_report"]["edge"]["dimension"] == row["dimension"]
    assert row["choice"]["stage"] in ("index", "scan") and row["choice"]["reason"]
    assert sum(row["default_stages"].values()) == row["timed_queries"] * row["rounds"]
    assert row["check"]["ladder"] and all(0.0 <= x["recall"] <= 1.0 for x in row["check"]["ladder"])
    ref = row["reference_weight0"]
    assert ref["equal_top10_where_same_candidates"] == ref["same_candidates"] <= ref["queries"]  # exact
    mem = row["server_rss_mb"]
    assert positive(mem["before_index"]) and mem["peak"] >= mem["after_index"]


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
    assert [(r["embedder"], r["edges"]) for r in res["search"]] == [("hashing", 1000), ("clustered", 1000)]
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
    one = merge(row(100000, 5.0), {"search": [row(1000, 1.0)]})  # a bench_vector.py --json file
    assert [r["edges"] for r in one["search"]] == [1000, 100000]


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
