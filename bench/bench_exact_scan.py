"""Exact top-k cosine over n stored unit vectors: NumPy (float32, float16) against USearch's
exact search and FAISS's flat index, in one process (the choice behind the vector store,
docs/benchmarks.md "Exact cosine store").

    python bench/bench_exact_scan.py --sizes 100000,300000 --dims 256,1024 --queries 20

USearch and FAISS are optional here (``pip install usearch faiss-cpu``); a library that is not
installed is left out of the table. Each row: median ms per query (top 50, one query at a time,
as a search asks), and whether the top 50 equals NumPy float32's (compared by score).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

K = 50


def _clustered(n: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    centres = rng.normal(size=(max(1, n // 50), dim)).astype(np.float32)
    x = centres[rng.integers(0, len(centres), n)] + 0.3 * rng.normal(size=(n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _top(scores: np.ndarray, k: int) -> np.ndarray:
    part = np.argpartition(-scores, k)[:k]
    return part[np.argsort(-scores[part], kind="stable")]


def run(n: int, dim: int, queries: int, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    x = _clustered(n, dim, rng)
    qs = x[rng.integers(0, n, queries)] + 0.3 * rng.normal(size=(queries, dim)).astype(np.float32) / np.sqrt(dim)
    qs /= np.linalg.norm(qs, axis=1, keepdims=True)
    exact = [np.sort(x @ q)[::-1][:K] for q in qs]
    rows: list[dict] = []

    def timed(name: str, search) -> None:  # noqa: ANN001
        times, same = [], 0
        for q, want in zip(qs, exact, strict=True):
            t = time.perf_counter()
            idx = search(q)
            times.append(time.perf_counter() - t)
            got = np.sort(x[idx] @ q)[::-1][:K]
            same += bool(np.allclose(got, want, atol=1e-6))
        rows.append({"n": n, "dim": dim, "library": name, "ms_p50": round(statistics.median(times) * 1000, 2),
                     "top_equal": f"{same}/{queries}"})

    timed("numpy float32", lambda q: _top(x @ q, K))
    h = x.astype(np.float16)
    timed("numpy float16", lambda q: _top(h @ q.astype(np.float16), K))
    try:
        from usearch.index import MetricKind
        from usearch.index import search as usearch_search
        timed("usearch exact f32", lambda q: usearch_search(x, q, K, MetricKind.IP, exact=True).keys)
        timed("usearch exact f16", lambda q: usearch_search(h, q.astype(np.float16), K, MetricKind.IP,
                                                            exact=True).keys)
    except ImportError:
        pass
    try:
        import faiss
        flat = faiss.IndexFlatIP(dim)
        flat.add(x)
        timed("faiss flat f32", lambda q: flat.search(q[None, :], K)[1][0])
    except ImportError:
        pass
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="100000,300000")
    ap.add_argument("--dims", default="256,1024")
    ap.add_argument("--queries", type=int, default=20)
    a = ap.parse_args()
    for n in map(int, a.sizes.split(",")):
        for dim in map(int, a.dims.split(",")):
            for row in run(n, dim, a.queries):
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
