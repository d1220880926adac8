"""What ``sync.trust_mode: confidence`` adds to a sync (issue 18, Speed: at most +30%).

    python bench/bench_sync_confidence.py [--edges 100000] [--rounds 3]

Builds ``bench_sync``'s graph and review DB (N edges, one candidate each) and adds
``bench_confidence``'s confidence records for those candidates (a source row each, N/2
verifications, N uses, N/5 votes, N/50 contradictions). Then, per round, on the graph cleared of
trust and a fresh state store, in one process: a full sync in tiers mode and one in confidence
mode (alternating which goes first), then a normal run in confidence mode (nothing changed in the
review DB; confidence still moves with time). Reports the medians and ``overhead_full``:
confidence-mode full sync / tiers-mode full sync - 1, with the confidence phase's own time
(``ConfidenceStore.scores`` and loading the scores) measured apart.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_confidence import add_records  # noqa: E402
from bench_sync import bench_world, clear_trust  # noqa: E402

from graph_trust.config import load_settings  # noqa: E402
from graph_trust.sync.runner import run_sync  # noqa: E402


async def one_round(g, root: Path, review: Path, world, rnd: int, bs: int) -> dict:
    out: dict = {}
    for mode in (("tiers", "confidence") if rnd % 2 == 0 else ("confidence", "tiers")):
        await clear_trust(g, world)
        settings = load_settings(overrides={"graph.uri": f"embedded:{root / 'graph'}", "graph.database": g.database,
                                            "state_dir": str(root / f"state_{mode}_{rnd}"), "sync.trust_mode": mode},
                                 environ={})
        t = time.perf_counter()
        rep = await run_sync(settings, review_db=review, full=True, batch_size=bs, graph=g)
        out[f"full_{mode}_s"] = round(time.perf_counter() - t, 3)
        out[f"full_{mode}_phase_s"] = rep.phase_s
        out[f"full_{mode}_edges_set"] = rep.edges_set
        if mode == "confidence":
            t = time.perf_counter()
            again = await run_sync(settings, review_db=review, batch_size=bs, graph=g)
            out["normal_confidence_s"] = round(time.perf_counter() - t, 3)
            out["normal_confidence_changed"] = again.confidence_changed
            out["normal_confidence_edges_set"] = again.edges_set
    out["overhead_full"] = round(out["full_confidence_s"] / out["full_tiers_s"] - 1, 3)
    return out


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--edges", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=1000)
    args = ap.parse_args()
    async with bench_world(args.edges, "bench-sync-conf-") as (root, g, world, review, build_s, rng):
        t = time.perf_counter()
        add_records(review, [f"cand-{i:07d}" for i in range(args.edges)], rng)
        build_s = round(build_s + time.perf_counter() - t, 1)
        rounds = [await one_round(g, root, review, world, r, args.batch_size) for r in range(args.rounds)]
    keys = [k for k, v in rounds[0].items() if isinstance(v, (int, float))]
    res = {"candidates": args.edges, "rounds": rounds, "build_s": build_s,
           "median": {k: statistics.median(r[k] for r in rounds) for k in keys},
           "python": sys.version.split()[0]}
    res["target"] = {"overhead_full": res["median"]["overhead_full"], "limit": 0.30,
                     "met": res["median"]["overhead_full"] <= 0.30}
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
