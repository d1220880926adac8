"""Resident memory of the exact vector store per million 256-dimension edges, against the vectors' own size.

    python bench/bench_store_memory.py [--items 1000000] [--dim 256] [--queries 20] [--json out.json]

No graph: a synthetic store (random unit vectors, the bench's operations facts as text, one
group) is written through the store's own build path (``vector_store.write_generation``, the
rows a graph read would hand it), then mapped as search maps it (``vector_store.view``) by this
process and by a second process, each of which runs ``--queries`` exact cosine and BM25 searches
(FAISS's flat search reads every vector: the whole matrix becomes resident). Each reports the
resident (Rss) and proportional (Pss: shared pages divided among the processes mapping them)
memory of its mappings of the store's files, from ``/proc/self/smaps``, and how much its own
resident memory grew; the bound is the vectors' size plus 20%. No timed assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import numpy as np  # noqa: E402
import synth  # noqa: E402
from output import emit  # noqa: E402

from graph_trust.graph import text_index  # noqa: E402
from graph_trust.graph import vector_store as vs  # noqa: E402

GRAPH, DATABASE, GROUP = "synthetic", "bench", "bench"
BOUND = 1.20  # the vectors' size plus 20%


def mapped_mb(where: Path) -> dict[str, float]:
    """Rss and Pss of this process's mappings of the files under ``where``, per file and in all, MiB."""
    out: dict[str, float] = {}
    current = None
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()
        if head and "-" in head[0] and all(c in "0123456789abcdef-" for c in head[0]):
            current = Path(head[-1]).name if len(head) >= 6 and head[-1].startswith(str(where)) else None
        elif current is not None and head and head[0] in ("Rss:", "Pss:"):
            key = f"{current}:{head[0][:-1]}"
            out[key] = out.get(key, 0.0) + int(head[1]) / 1024
    total = {f: round(sum(v for k, v in out.items() if k.endswith(f":{f}")), 1) for f in ("Rss", "Pss")}
    return {"rss_mb": total["Rss"], "pss_mb": total["Pss"],
            "vectors_rss_mb": round(out.get("vectors.npy:Rss", 0.0), 1),
            "vectors_pss_mb": round(out.get("vectors.npy:Pss", 0.0), 1)}


def own_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def build(root: Path, items: int, dim: int, batch: int = 8192) -> dict:
    """A store of ``items`` synthetic edges written by the store's own build path."""
    facts = synth.synth_facts(items)
    rng = np.random.default_rng(3)
    at = datetime(2026, 1, 1, tzinfo=UTC)

    async def batches():  # noqa: ANN202 - the rows a graph read (vector_index.iter_rows) yields
        for a in range(0, items, batch):
            v = rng.standard_normal((min(batch, items - a), dim), dtype=np.float32)
            yield [{"uuid": synth._uuid("edge", a + i), "v": v[i], "group_id": GROUP, "created_at": at,
                    "name": facts[a + i][1], "fact": facts[a + i][3]} for i in range(len(v))]

    async def count() -> int:
        return items

    return await vs.write_generation(vs.location(root, GRAPH, DATABASE, "edge"), "edge", batches(), graph=GRAPH,
                                     database=DATABASE, count=count)


def probe(root: Path, queries: int, hold: float = 0.0) -> dict:
    """Map the store as search does, search it ``queries`` times (cosine and BM25), and report
    this process's memory for it; then keep the mapping ``hold`` seconds (for another process's
    proportional share)."""
    before = own_rss_mb()
    view = vs.view(root, GRAPH, DATABASE, "edge")
    rng = np.random.default_rng(5)
    t0 = time.perf_counter()
    for q in synth.synth_queries(queries):
        v = rng.standard_normal(view.vectors.shape[1]).astype(np.float32)
        view.top(v / np.linalg.norm(v), 50, [GROUP])
        view.bm25_top(text_index.tokens(q), 50, [GROUP])
    spent = time.perf_counter() - t0
    out = {**mapped_mb(Path(view.meta["dir"])), "process_rss_growth_mb": round(own_rss_mb() - before, 1),
           "query_ms": round(spent / max(1, queries) * 1000, 1), "library": vs.library()}
    time.sleep(hold)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=1_000_000)
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    ap.add_argument("--probe", type=Path, help=argparse.SUPPRESS)  # the second process: the store's root
    args = ap.parse_args()
    if args.probe:
        print(json.dumps(probe(args.probe, args.queries)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        meta = asyncio.run(build(root, args.items, args.dim))
        build_s = time.perf_counter() - t0
        gen = Path(meta["dir"])
        files = {p.name: round(p.stat().st_size / 2**20, 1) for p in sorted(gen.iterdir())}
        vectors_mb = args.items * args.dim * 4 / 2**20
        first = probe(root, args.queries)  # this process keeps its mapping while the second maps it too
        second = json.loads(subprocess.run([sys.executable, __file__, "--probe", str(root), "--queries",
                                            str(args.queries)], check=True, capture_output=True, text=True).stdout)
    res = {"items": args.items, "dimension": args.dim, "queries": args.queries, "build_s": round(build_s, 1),
           "vectors_mb": round(vectors_mb, 1), "files_mb": files, "store_mb": round(sum(files.values()), 1),
           "first_process": first, "second_process": second,
           "rss_per_vectors": round(first["rss_mb"] / vectors_mb, 3),
           "within_bound": first["rss_mb"] <= BOUND * vectors_mb and second["rss_mb"] <= BOUND * vectors_mb,
           "command": shlex.join(["python", "bench/bench_store_memory.py", *sys.argv[1:]])}
    emit(res, args.json)


if __name__ == "__main__":
    main()
