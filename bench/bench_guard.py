"""What the guard against Graphiti invalidating verified facts adds to sync and verify.

    python bench/bench_guard.py [--edges 100000] [--rounds 3] [--invalidated 0.41]

Builds ``bench_sync``'s graph and review DB (N edges, one candidate each, random statuses) and
invalidates a fraction of the edges (default 41%, the share graphiti issue 1728 reports) with the
guard's own ``edge_validity_set``. After one full sync, per round, in one process: a normal sync
with ``guard.enabled: false`` (the baseline) and one with the guard on (alternating which goes
first), and ``verify`` both ways. The first guarded run records the contradictions; later ones
find them recorded. Then, once: a run with ``guard.restore_trusted`` (every trusted invalidated
edge restored, journaled) and its rollback. Reports medians and ``overhead_normal``: guarded
normal sync / unguarded - 1 (and ``overhead_verify`` likewise).
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

from bench_sync import bench_world  # noqa: E402

from graph_trust.config import load_settings  # noqa: E402
from graph_trust.sync.runner import run_sync  # noqa: E402
from graph_trust.sync.runs.rollback import rollback_sync  # noqa: E402
from graph_trust.sync.verify import verify  # noqa: E402


async def timed(coro) -> tuple[float, object]:
    t = time.perf_counter()
    out = await coro
    return round(time.perf_counter() - t, 3), out


async def one_round(g, settings, review: Path, rnd: int) -> dict:
    out: dict = {}
    on, off = settings, settings.model_copy(update={"guard": settings.guard.model_copy(update={"enabled": False})})
    for name, s in ((("off", off), ("on", on)) if rnd % 2 == 0 else (("on", on), ("off", off))):
        out[f"normal_{name}_s"], rep = await timed(run_sync(s, review_db=review, graph=g))
        if name == "on":
            out["guard_phase_s"] = rep.phase_s.get("guard")
            out["trusted_invalidated"] = rep.trusted_invalidated_count
            out["contradictions_recorded"] = rep.contradictions_recorded
        out[f"verify_{name}_s"], _ = await timed(verify(s, review_db=review, graph=g))
    out["overhead_normal"] = round(out["normal_on_s"] / out["normal_off_s"] - 1, 3)
    out["overhead_verify"] = round(out["verify_on_s"] / out["verify_off_s"] - 1, 3)
    return out


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--edges", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--invalidated", type=float, default=0.41)
    args = ap.parse_args()
    async with bench_world(args.edges, "bench-guard-") as (root, g, world, review, build_s, rng):
        t = time.perf_counter()
        hit = [u for u in world[1] if rng.random() < args.invalidated]
        for i in range(0, len(hit), 5000):
            rows = [{"uuid": u, "invalid_at": "2026-03-01T00:00:00+00:00",
                     "expired_at": "2026-03-01T00:05:00+00:00"} for u in hit[i:i + 5000]]
            await g.write("edge_validity_set", rows=rows)
        build_s = round(build_s + time.perf_counter() - t, 1)
        settings = load_settings(overrides={"graph.uri": f"embedded:{root / 'graph'}", "graph.database": g.database,
                                            "state_dir": str(root / "state")}, environ={})
        unguarded = settings.model_copy(update={"guard": settings.guard.model_copy(update={"enabled": False})})
        first_s, _ = await timed(run_sync(unguarded, review_db=review, full=True, graph=g))
        rounds = [await one_round(g, settings, review, r) for r in range(args.rounds)]
        restoring = settings.model_copy(update={"guard": settings.guard.model_copy(update={"restore_trusted": True})})
        restore_s, rep = await timed(run_sync(restoring, review_db=review, graph=g))
        rollback_s, rb = await timed(rollback_sync(restoring, rep.run_id, graph=g))
    keys = [k for k, v in rounds[0].items() if isinstance(v, (int, float))]
    res = {"edges": args.edges, "invalidated": len(hit), "rounds": rounds, "build_s": build_s,
           "first_full_s": first_s, "median": {k: statistics.median(r[k] for r in rounds) for k in keys},
           "restore": {"run_s": restore_s, "restored": rep.trusted_restored, "guard_phase_s": rep.phase_s.get("guard"),
                       "rollback_s": rollback_s, "invalidations_restored": rb.invalidations_restored},
           "python": sys.version.split()[0]}
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
