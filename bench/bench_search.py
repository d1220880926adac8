"""Benchmark: trust_search vs graphiti-core's search_ on a 10k-edge embedded graph, and the
fusion + boost core on a 1,000-candidate pool.

    python bench/bench_search.py [--edges 10000] [--queries 60]

Both searches run in the same process against the same graph and the same Graphiti instance,
interleaved query by query; the ratio is p50(trust_search) / p50(search_ EDGE_HYBRID_SEARCH_RRF).
The core is compared with graphiti-core's pure-Python ``rrf`` on the same lists.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import numpy as np  # noqa: E402
from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF  # noqa: E402
from graphiti_core.search.search_utils import rrf  # noqa: E402

import synth  # noqa: E402
from graph_trust import fusion  # noqa: E402
from graph_trust.config import load_settings  # noqa: E402
from graph_trust.graph.connection import open_graph  # noqa: E402
from graph_trust.embedder import HashingEmbedder  # noqa: E402
from graph_trust.trust_search import EDGE_HYBRID_SEARCH_RRF_TRUST, trust_search  # noqa: E402
from graph_trust.offline import make_graphiti  # noqa: E402


def p50(xs: list[float]) -> float:
    return statistics.median(xs)


def bench_core(pool_size: int = 1000, reps: int = 2000) -> dict[str, float]:
    rng = np.random.default_rng(3)
    ids = [f"u{i}" for i in range(pool_size)]
    a = list(rng.permutation(ids)[: pool_size * 6 // 10])
    b = list(rng.permutation(ids)[: pool_size * 6 // 10])
    trust = [None if rng.random() < 0.6 else float(rng.choice([1.0, 0.6, 0.25])) for _ in range(pool_size)]
    texts = ids

    def ours() -> None:
        pool = fusion.fuse([a, b], ("bm25", "cosine"))
        tv = [trust[int(u[1:])] for u in pool.uuids]
        ranked = fusion.rank_pool(pool, tv, 0.15)
        fusion.explain(ranked, texts, ranked.order[:10])

    def baseline() -> None:
        uuids, scores = rrf([a, b])
        boosted = sorted(((s + (trust[int(u[1:])] or 0.0) * 0.15, u) for u, s in zip(uuids, scores)), reverse=True)
        boosted[:10]

    out = {}
    for name, fn in (("core", ours), ("python_rrf_plus_boost", baseline)):
        fn()
        ts = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t0)
        out[name] = p50(ts) * 1000
    return out


async def bench_search(n_edges: int, n_queries: int, limit: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(overrides={"graph.uri": f"embedded:{tmp}/g", "graph.database": "bench",
                                            "state_dir": f"{tmp}/state"}, environ={})
        async with open_graph(settings) as conn:
            embedder = HashingEmbedder()
            driver = conn.driver
            await driver.build_indices_and_constraints()
            t0 = time.perf_counter()
            await synth.build(driver, embedder, n_edges, "bench")
            build_s = time.perf_counter() - t0
            graphiti = make_graphiti(driver, embedder=embedder)
            queries = synth.synth_queries(n_queries)
            cfg_v = EDGE_HYBRID_SEARCH_RRF.model_copy(deep=True)
            cfg_v.limit = limit
            cfg_t = EDGE_HYBRID_SEARCH_RRF_TRUST.model_copy(update={"limit": limit})
            for q in queries[:5]:  # warm-up
                await graphiti.search_(q, config=cfg_v, group_ids=["bench"])
                await trust_search(graphiti, q, config=cfg_t, group_ids=["bench"])
            tv, tt = [], []
            for i, q in enumerate(queries):
                pair = [("v", graphiti.search_(q, config=cfg_v, group_ids=["bench"])),
                        ("t", trust_search(graphiti, q, config=cfg_t, group_ids=["bench"]))]
                if i % 2:
                    pair.reverse()  # alternate who goes first
                for who, coro in pair:
                    t0 = time.perf_counter()
                    await coro
                    (tv if who == "v" else tt).append(time.perf_counter() - t0)
            return {"build_s": build_s, "vanilla_p50_ms": p50(tv) * 1000, "trust_p50_ms": p50(tt) * 1000}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--edges", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--limit", type=int, default=10)
    args = ap.parse_args()
    core = bench_core()
    print(f"fusion+boost, 1,000-candidate pool: p50 {core['core']:.3f} ms "
          f"(pure-Python rrf + boost baseline {core['python_rrf_plus_boost']:.3f} ms, "
          f"ratio {core['core'] / core['python_rrf_plus_boost']:.2f})")
    res = asyncio.run(bench_search(args.edges, args.queries, args.limit))
    print(f"graph: {args.edges:,} edges built in {res['build_s']:.1f} s")
    print(f"search_ EDGE_HYBRID_SEARCH_RRF p50 {res['vanilla_p50_ms']:.2f} ms; trust_search p50 "
          f"{res['trust_p50_ms']:.2f} ms; ratio {res['trust_p50_ms'] / res['vanilla_p50_ms']:.3f} (target <= 1.2)")


if __name__ == "__main__":
    main()
