"""Benchmark: the in-process part of trust_search (fusion, boost and explanations of a
1,000-candidate pool) against graphiti-core's pure-Python ``rrf`` plus a Python boost.

    python bench/bench_search.py [--pool 1000] [--reps 2000]

Prints one JSON line. trust_search against Graphiti's ``search_`` on a graph is measured by
``bench_vector.py`` (``cosine: scan`` is today's default search), at every size by ``python -m bench``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np
from graphiti_core.search.search_utils import rrf

from graph_trust.search import fusion, ranking


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
        ranked = ranking.rank_pool(pool, tv, ranking.RuleParams(weight=0.15))
        ranking.explain(ranked, texts, ranked.order[:10])

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pool", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=2000)
    args = ap.parse_args()
    core = bench_core(args.pool, args.reps)
    print(json.dumps({"pool": args.pool, "core_p50_ms": round(core["core"], 4),
                      "python_rrf_plus_boost_p50_ms": round(core["python_rrf_plus_boost"], 4),
                      "ratio_core_to_baseline": round(core["core"] / core["python_rrf_plus_boost"], 3)}))


if __name__ == "__main__":
    main()
