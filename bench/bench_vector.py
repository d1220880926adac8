"""Benchmark: the index-backed cosine stage against Graphiti's scan, on the embedded FalkorDB.

    python bench/bench_vector.py [--edges 10000] [--queries 60] [--limit 10] [--no-scan] [--json out.json]

In one process and on one synthetic graph (bench/synth.py, 256-dimensional HashingEmbedder
vectors): p50 of ``trust_search`` with ``search.cosine`` = index, scan and auto against
Graphiti's own ``search_`` (EDGE_HYBRID_SEARCH_RRF), interleaved query by query; recall@10 of
the index stage against graphiti-core's exact cosine scan (an edge scoring at least the scan's
10th score counts as a hit, so ties at the 10th score are hits); the time ``graph-trust init``
takes to build the vector indexes and the server memory they add. No timed assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import numpy as np  # noqa: E402
from graphiti_core.search import search_utils as su  # noqa: E402
from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF  # noqa: E402
from graphiti_core.search.search_filters import SearchFilters  # noqa: E402

import synth  # noqa: E402
from graph_trust.config import VectorIndexSettings, load_settings  # noqa: E402
from graph_trust.graph.connection import open_graph  # noqa: E402
from graph_trust.embedder import HashingEmbedder  # noqa: E402
from graph_trust.graph import vector_index as vi  # noqa: E402
from graph_trust.trust_search import EDGE_HYBRID_SEARCH_RRF_TRUST, trust_search  # noqa: E402
from graph_trust.offline import make_graphiti  # noqa: E402
from graph_trust.vector_candidates import CosineStage, cosine_candidates, forget  # noqa: E402

GROUP = "bench"


async def used_memory(driver) -> int:  # noqa: ANN001
    info = await driver.client.connection.info("memory")
    return int(info["used_memory"])


async def recall_at(conn, driver, vectors, limit: int, stage: CosineStage) -> tuple[float, float]:  # noqa: ANN001
    """(mean recall@limit of the index stage against an exact numpy scan, where an edge scoring at
    least the scan's limit-th score is a hit; p50 ms of that numpy scan, the physical floor)."""
    rows = await conn.query("bench_edge_embeddings")
    uuids = [r["uuid"] for r in rows]
    mat = np.asarray([r["v"] for r in rows], dtype=np.float32)
    mat /= np.linalg.norm(mat, axis=1, keepdims=True)
    pos = {u: i for i, u in enumerate(uuids)}
    hits = total = 0
    floor = []
    for vec in vectors:
        q = np.asarray(vec, dtype=np.float32)
        t = time.perf_counter()
        sims = mat @ (q / np.linalg.norm(q))
        cut = float(np.partition(sims, -limit)[-limit])
        floor.append(time.perf_counter() - t)
        got = await cosine_candidates("edge", driver, vec, SearchFilters(), [GROUP], limit, -1.0, stage)
        hits += sum(1 for e in got if sims[pos[e.uuid]] >= cut - 1e-5)
        total += limit
    return hits / total, statistics.median(floor) * 1000


async def run(n_edges: int, n_queries: int, limit: int, hnsw: dict, oversample: float, no_scan: bool) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(overrides={"graph.uri": f"embedded:{tmp}/g", "graph.database": GROUP,
                                            "state_dir": f"{tmp}/state",
                                            **{f"vector_index.{k}": v for k, v in hnsw.items()}}, environ={})
        async with open_graph(settings) as conn:
            embedder = HashingEmbedder()
            driver = conn.driver
            await driver.build_indices_and_constraints()
            t0 = time.perf_counter()
            await synth.build(driver, embedder, n_edges, GROUP)
            build_graph_s = time.perf_counter() - t0
            graphiti = make_graphiti(driver, embedder=embedder)
            queries = synth.synth_queries(n_queries)
            vectors = [await embedder.create(input_data=[q]) for q in queries]

            cfg_v = EDGE_HYBRID_SEARCH_RRF.model_copy(deep=True)
            cfg_v.limit = limit

            def cfg(mode: str):  # noqa: ANN202
                c = EDGE_HYBRID_SEARCH_RRF_TRUST.model_copy(deep=True)
                c.limit = limit
                c.cosine = CosineStage(mode=mode, oversample=oversample)
                return c

            async def timed(runs: dict[str, list[float]]) -> None:
                for i, (q, v) in enumerate(zip(queries, vectors, strict=True)):
                    calls = [("search_", lambda q=q, v=v: graphiti.search_(q, config=cfg_v, group_ids=[GROUP],
                                                                            query_vector=v))]
                    calls += [(m, lambda q=q, v=v, m=m: trust_search(graphiti, q, config=cfg(m), group_ids=[GROUP],
                                                                      query_vector=v))
                              for m in runs if m != "search_"]
                    if i % 2:
                        calls.reverse()
                    for name, fn in calls:
                        t = time.perf_counter()
                        await fn()
                        runs[name].append(time.perf_counter() - t)

            before = await used_memory(driver)
            t0 = time.perf_counter()
            report = await vi.ensure(conn, settings.vector_index)
            index_build_s = time.perf_counter() - t0
            index_memory = await used_memory(driver) - before
            forget(driver)
            for q, v in zip(queries[:5], vectors[:5], strict=True):  # warm-up
                await graphiti.search_(q, config=cfg_v, group_ids=[GROUP], query_vector=v)
                await trust_search(graphiti, q, config=cfg("index"), group_ids=[GROUP], query_vector=v)
            runs: dict[str, list[float]] = {"search_": [], "index": []} if no_scan else {
                "search_": [], "scan": [], "index": [], "auto": []}
            await timed(runs)
            p50 = {k: statistics.median(v) * 1000 for k, v in runs.items()}
            recall, floor_ms = await recall_at(conn, driver, vectors, 10, CosineStage(mode="index", oversample=oversample))
            return {
                "edges": n_edges, "queries": n_queries, "limit": limit, "dimension": 256,
                "graph_build_s": round(build_graph_s, 1), "index_report": report,
                "index_build_s": round(index_build_s, 2), "index_memory_mb": round(index_memory / 2**20, 1),
                "p50_ms": {k: round(v, 2) for k, v in p50.items()},
                "ratio_index_to_search_": round(p50["index"] / p50["search_"], 3),
                **({} if no_scan else {"ratio_scan_to_search_": round(p50["scan"] / p50["search_"], 3),
                                       "ratio_auto_to_scan": round(p50["auto"] / p50["scan"], 3)}),
                "recall_at_10": round(recall, 4), "numpy_scan_p50_ms": round(floor_ms, 3),
                "auto_min_size": CosineStage().min_size, "hnsw": hnsw, "oversample": oversample,
            }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--edges", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--limit", type=int, default=10)
    d = VectorIndexSettings()
    ap.add_argument("--m", type=int, default=d.m, help="HNSW links per node (vector_index.m)")
    ap.add_argument("--ef-construction", type=int, default=d.ef_construction)
    ap.add_argument("--ef-runtime", type=int, default=d.ef_runtime)
    ap.add_argument("--no-scan", action="store_true",
                    help="time only search_ and the index stage (large graphs: the scan modes equal search_)")
    ap.add_argument("--oversample", type=float, default=4.0, help="search.cosine_oversample")
    ap.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = ap.parse_args()
    hnsw = {"m": args.m, "ef_construction": args.ef_construction, "ef_runtime": args.ef_runtime}
    res = asyncio.run(run(args.edges, args.queries, args.limit, hnsw, args.oversample, args.no_scan))
    text = json.dumps(res, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
