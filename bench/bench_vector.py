"""Search latency and the vector-index cosine stage, against Graphiti's ``search_``, at one size.

    python bench/bench_vector.py [--edges 10000] [--queries 60] [--limit 10] [--no-scan] [--embedder wordllama]
                                 [--json out.json]
    python -m bench ...   # the harness: this measurement at every size of its curves

In one process and on one synthetic graph (bench/synth.py, 256-dimensional HashingEmbedder
vectors, or WordLlama's with ``--embedder wordllama``): p50 of ``trust_search`` with ``search.cosine`` = index, scan and auto against
Graphiti's own ``search_`` (EDGE_HYBRID_SEARCH_RRF), interleaved query by query (each query's
calls in alternating order) over ``--rounds`` rounds; recall@10 of the index stage against an
exact numpy scan of every stored vector (an edge scoring at least the scan's 10th score counts
as a hit, so ties at the 10th score are hits); that numpy scan's time (the physical floor of a
cosine stage); the time ``graph-trust init`` takes to build the vector indexes, until FalkorDB
reports them filled, and the FalkorDB server's resident memory before and after. No timed
assertions.
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
from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF  # noqa: E402
from graphiti_core.search.search_filters import SearchFilters  # noqa: E402

import synth  # noqa: E402
from graph_trust.config import SearchSettings, VectorIndexSettings, load_settings  # noqa: E402
from graph_trust.graph.connection import open_graph  # noqa: E402
from graph_trust.graph import vector_index as vi  # noqa: E402
from graph_trust.search.trust_search import EDGE_HYBRID_SEARCH_RRF_TRUST, trust_search  # noqa: E402
from graph_trust.clients.offline import make_graphiti  # noqa: E402
from graph_trust.search.cosine import CosineStage, cosine_candidates, forget  # noqa: E402

GROUP = "bench"
MODES = ("search_", "scan", "index", "auto")


async def server_memory_mb(driver) -> dict[str, float]:  # noqa: ANN001
    """Resident memory of the FalkorDB server process now and at its peak (VmRSS, VmHWM), MiB."""
    info = await driver.client.connection.info("server")
    out = {}
    for line in Path(f"/proc/{int(info['process_id'])}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out["rss_mb" if key == "VmRSS" else "peak_rss_mb"] = round(int(value.split()[0]) / 1024, 1)
    return out


def spread(xs: list[float]) -> dict[str, float]:
    """p50 and the 10th/90th percentiles of ``xs`` (seconds), in ms."""
    q = np.percentile(np.asarray(xs) * 1000, [10, 50, 90])
    return {"p10": round(float(q[0]), 2), "p50": round(float(q[1]), 2), "p90": round(float(q[2]), 2)}


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


async def measure(n_edges: int, *, queries: int = 60, timed_queries: int | None = None, rounds: int = 1,
                  limit: int = 10, modes: tuple[str, ...] = MODES, hnsw: dict | None = None,
                  oversample: float | None = None, data: Path | None = None, embedder: str = "hashing") -> dict:
    """Every search figure at ``n_edges`` edges (see the module docstring). ``timed_queries``
    (default ``queries``) are timed per round; recall always runs over ``queries`` queries.
    ``data`` keeps the graph there and reuses it (its index is rebuilt with ``hnsw``)."""
    hnsw = hnsw or {}
    oversample = oversample or SearchSettings().cosine_oversample
    with tempfile.TemporaryDirectory() as tmp:
        root = data or Path(tmp)
        settings = load_settings(overrides={"graph.uri": f"embedded:{root}/g", "graph.database": GROUP,
                                            "state_dir": f"{root}/state",
                                            **{f"vector_index.{k}": v for k, v in hnsw.items()}}, environ={})
        embedder_name, embedder = embedder, synth.make_embedder(embedder)
        async with open_graph(settings) as conn:
            driver = conn.driver
            build_graph_s = None
            if not (await conn.query("relates_to_count"))[0]["n"]:
                await driver.build_indices_and_constraints()
                t0 = time.perf_counter()
                await synth.build_fast(conn, embedder, n_edges)
                build_graph_s = round(time.perf_counter() - t0, 1)
            else:
                present = await vi.existing(driver) or {}
                for kind in present:  # rebuilt below with this run's HNSW parameters
                    await conn.write(f"bench_drop_{kind}_vector_index")
                while await vi.existing(driver):  # FalkorDB drops in the background; still listed meanwhile
                    await asyncio.sleep(0.5)
            graphiti = make_graphiti(driver, embedder=embedder)
            texts = synth.synth_queries(queries)
            vectors = [v.tolist() for v in embedder.embed(texts)]
            n_timed = min(timed_queries or queries, queries)

            cfg_v = EDGE_HYBRID_SEARCH_RRF.model_copy(deep=True)
            cfg_v.limit = limit

            def cfg(mode: str):  # noqa: ANN202
                c = EDGE_HYBRID_SEARCH_RRF_TRUST.model_copy(deep=True)
                c.limit = limit
                c.cosine = CosineStage(mode=mode, oversample=oversample)
                return c

            def call(mode: str, q: str, v: list[float]):  # noqa: ANN202
                if mode == "search_":
                    return graphiti.search_(q, config=cfg_v, group_ids=[GROUP], query_vector=v)
                return trust_search(graphiti, q, config=cfg(mode), group_ids=[GROUP], query_vector=v)

            mem_before = await server_memory_mb(driver)
            t0 = time.perf_counter()
            report = await vi.ensure(conn, settings.vector_index)  # returns once the indexes are filled
            index_build_s = time.perf_counter() - t0
            mem_after = await server_memory_mb(driver)
            forget(driver)
            for q, v in zip(texts[:3], vectors[:3], strict=True):  # warm-up
                for m in modes:
                    await call(m, q, v)
            runs: dict[str, list[list[float]]] = {m: [] for m in modes}
            for r in range(rounds):
                for m in modes:
                    runs[m].append([])
                for i, (q, v) in enumerate(zip(texts[:n_timed], vectors[:n_timed], strict=True)):
                    order = list(modes) if (i + r) % 2 == 0 else list(reversed(modes))
                    for m in order:
                        t = time.perf_counter()
                        await call(m, q, v)
                        runs[m][-1].append(time.perf_counter() - t)
            p50 = {m: statistics.median(statistics.median(rr) for rr in runs[m]) * 1000 for m in modes}
            recall, floor_ms = await recall_at(conn, driver, vectors, 10, CosineStage(mode="index",
                                                                                      oversample=oversample))
            res = {
                "edges": n_edges, "queries": queries, "timed_queries": n_timed, "rounds": rounds, "limit": limit,
                "dimension": 256, "embedder": embedder_name, "graph_build_s": build_graph_s, "index_report": report,
                "index_build_s": round(index_build_s, 2),
                "server_rss_mb": {"before_index": mem_before["rss_mb"], "after_index": mem_after["rss_mb"],
                                  "peak": mem_after["peak_rss_mb"]},
                "index_memory_mb": round(mem_after["rss_mb"] - mem_before["rss_mb"], 1),
                "p50_ms": {m: round(v, 2) for m, v in p50.items()},
                "round_p50_ms": {m: [round(statistics.median(rr) * 1000, 2) for rr in runs[m]] for m in modes},
                "spread_ms": {m: spread([x for rr in runs[m] for x in rr]) for m in modes},
                "recall_at_10": round(recall, 4), "numpy_scan_p50_ms": round(floor_ms, 3),
                "auto_min_size": SearchSettings().cosine_index_min_size,
                "hnsw": {k: getattr(settings.vector_index, k) for k in ("m", "ef_construction", "ef_runtime")},
                "oversample": oversample,
            }
            for m in modes:
                if m != "search_" and "search_" in modes:
                    res[f"ratio_{m}_to_search_"] = round(p50[m] / p50["search_"], 3)
            if "auto" in modes and "scan" in modes:
                res["ratio_auto_to_scan"] = round(p50["auto"] / p50["scan"], 3)
            return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--edges", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=60, help="queries (recall over all of them)")
    ap.add_argument("--timed-queries", type=int, default=None, help="queries timed per round (default: all)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--limit", type=int, default=10)
    d = VectorIndexSettings()
    ap.add_argument("--m", type=int, default=d.m, help="HNSW links per node (vector_index.m)")
    ap.add_argument("--ef-construction", type=int, default=d.ef_construction)
    ap.add_argument("--ef-runtime", type=int, default=d.ef_runtime)
    ap.add_argument("--no-scan", action="store_true",
                    help="time only search_ and the index stage (large graphs: the scan modes equal search_)")
    ap.add_argument("--oversample", type=float, default=None, help="search.cosine_oversample")
    ap.add_argument("--data", type=Path, default=None, help="keep the graph in this directory and reuse it")
    ap.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    synth.add_embedder_option(ap)
    args = ap.parse_args()
    hnsw = {"m": args.m, "ef_construction": args.ef_construction, "ef_runtime": args.ef_runtime}
    res = asyncio.run(measure(args.edges, queries=args.queries, timed_queries=args.timed_queries,
                              rounds=args.rounds, limit=args.limit, hnsw=hnsw, oversample=args.oversample,
                              modes=("search_", "index") if args.no_scan else MODES, data=args.data,
                              embedder=args.embedder))
    text = json.dumps(res, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
