"""What ``sync.trust_mode: confidence`` adds to a sync (issue 18, Speed: at most +30%).

    python bench/bench_sync_confidence.py [--edges 100000] [--rounds 3]

Builds ``bench_sync``'s graph and review DB (N edges, one candidate each) and adds
``bench_confidence``'s confidence records for those candidates (a source row each, N/2
verifications, N uses, N/5 votes, N/50 contradictions). Then, per round, on the graph cleared of
trust and a fresh state store, in one process: a full sync in tiers mode and one in confidence
mode (alternating which goes first), each followed by two normal runs: one with nothing changed in
the review DB (confidence still moves with time) and one with 1% changed (1% of the candidates
change status and another 1% get a verification; each mode changes its own rows). Reports the
medians, ``overhead_full`` (confidence-mode full sync / tiers-mode full sync - 1) and the normal
runs' ratios (confidence mode / tiers mode), with the scoring's own time (``phase_s``:
``confidence_scoring``, in a thread beside the candidate refresh, and ``confidence``, what storing
the scores adds after it) and this process's CPU time beside the wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_confidence import add_records  # noqa: E402
from bench_sync import bench_world, clear_trust  # noqa: E402

from graph_trust.config import load_settings  # noqa: E402
from graph_trust.sync.runner import run_sync  # noqa: E402


def change_one_percent(review: Path, k: int) -> int:
    """1% of the candidates (rowid % 100 == k) change status, another 1% get a verification."""
    con = sqlite3.connect(review)
    with con:
        flip = "status = CASE status WHEN 'promoted' THEN 'corroborated' ELSE 'promoted' END"
        n = con.execute(f"UPDATE candidates SET {flip} WHERE rowid % 100 = ?", (k,)).rowcount
        con.execute("INSERT INTO fact_verifications (fact_id, verifier_id, verification_type, verified_at) "
                    "SELECT id, 'bench-verifier', 'confirmed', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM candidates "
                    "WHERE rowid % 100 = ?", ((k + 50) % 100,))
    con.close()
    return n


async def timed_sync(settings, review: Path, g, bs: int, full: bool = False):
    t, cpu = time.perf_counter(), time.process_time()
    rep = await run_sync(settings, review_db=review, full=full, batch_size=bs, graph=g)
    return rep, round(time.perf_counter() - t, 3), round(time.process_time() - cpu, 3)


async def one_round(g, root: Path, review: Path, world, rnd: int, bs: int) -> dict:
    out: dict = {}
    for k, mode in enumerate(("tiers", "confidence") if rnd % 2 == 0 else ("confidence", "tiers")):
        await clear_trust(g, world)
        settings = load_settings(overrides={"graph.uri": f"embedded:{root / 'graph'}", "graph.database": g.database,
                                            "state_dir": str(root / f"state_{mode}_{rnd}"), "sync.trust_mode": mode},
                                 environ={})
        rep, out[f"full_{mode}_s"], out[f"full_{mode}_cpu_s"] = await timed_sync(settings, review, g, bs, full=True)
        out[f"full_{mode}_phase_s"] = rep.phase_s
        out[f"full_{mode}_edges_set"] = rep.edges_set
        rep, out[f"normal_{mode}_nochange_s"], out[f"normal_{mode}_nochange_cpu_s"] = await timed_sync(
            settings, review, g, bs)
        out[f"normal_{mode}_nochange_edges_set"] = rep.edges_set
        out[f"normal_{mode}_nochange_phase_s"] = rep.phase_s
        out[f"normal_{mode}_1pct_rows"] = change_one_percent(review, 2 * rnd + k)
        rep, out[f"normal_{mode}_1pct_s"], out[f"normal_{mode}_1pct_cpu_s"] = await timed_sync(settings, review, g, bs)
        out[f"normal_{mode}_1pct_edges_set"] = rep.edges_set
        out[f"normal_{mode}_1pct_phase_s"] = rep.phase_s
        if mode == "confidence":
            out["normal_confidence_1pct_changed"] = rep.confidence_changed
    out["overhead_full"] = round(out["full_confidence_s"] / out["full_tiers_s"] - 1, 3)
    out["overhead_full_cpu"] = round(out["full_confidence_cpu_s"] / out["full_tiers_cpu_s"] - 1, 3)
    for run in ("nochange", "1pct"):
        out[f"normal_{run}_ratio"] = round(out[f"normal_confidence_{run}_s"] / out[f"normal_tiers_{run}_s"], 2)
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
        rounds = []
        for r in range(args.rounds):  # (each round on stderr as it ends: a long run shows its progress)
            rounds.append(await one_round(g, root, review, world, r, args.batch_size))
            print(json.dumps(rounds[-1]), file=sys.stderr, flush=True)
    keys = [k for k, v in rounds[0].items() if isinstance(v, (int, float))]
    res = {"candidates": args.edges, "rounds": rounds, "build_s": build_s,
           "median": {k: statistics.median(r[k] for r in rounds) for k in keys},
           "python": sys.version.split()[0]}
    res["target"] = {"overhead_full": res["median"]["overhead_full"], "limit": 0.30,
                     "met": res["median"]["overhead_full"] <= 0.30}
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
