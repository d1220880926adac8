"""Composite ranking of N candidates: graph_trust.search.composite vs a per-record Python loop.

Both rank the same records with the same settings (score, min_trust filter, sort, trim) in
the same process; the loop is the straightforward implementation a reader would write first.
Target: 1,000 candidates in <= 2 ms.

    python bench/bench_composite.py [--n 1000] [--repeat 200]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from datetime import UTC, datetime, timedelta

from graph_trust.config import CompositeSettings
from graph_trust.search.composite import DEFAULT_TYPE_BOOSTS, rank_composite
from graph_trust.search.records import MemoryRecord

NOW = datetime(2026, 6, 1, tzinfo=UTC)
TYPES = [*DEFAULT_TYPE_BOOSTS, "other"]


def make_records(n: int, seed: int = 7) -> list[MemoryRecord]:
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        stamp = NOW - timedelta(hours=rnd.uniform(0, 24 * 30)) if rnd.random() > 0.1 else None
        out.append(
            MemoryRecord(
                uuid=f"r{i}",
                kind="edge",
                text=f"fact {i}",
                memory_type=rnd.choice(TYPES),
                trust_score=rnd.random() if rnd.random() > 0.3 else None,
                relevance_raw=rnd.uniform(0, 2),
                valid_at=stamp,
                created_at=NOW - timedelta(days=60),
            )
        )
    return out


def loop_rank(records: list[MemoryRecord], s: CompositeSettings, now: datetime) -> list[tuple[float, MemoryRecord]]:
    """Per-record baseline: same formula, same filter, same stable sort and trim."""
    boosts = {**DEFAULT_TYPE_BOOSTS, "unknown": 0.5, **s.type_boosts}
    total = s.w_trust + s.w_recency + s.w_relevance + s.w_type
    now_s = now.timestamp()
    scored = []
    for r in records:
        trust = s.default_trust if r.trust_score is None else r.trust_score
        ts = r.valid_at or r.created_at
        hl = s.half_life_hours_by_type.get(r.memory_type, s.half_life_hours)  # None: no decay
        recency = 0.5 if ts is None else 1.0 if hl is None else 0.5 ** (max(now_s - ts.timestamp(), 0.0) / (hl * 3600.0))
        relevance = 0.5 if r.relevance_raw is None else min(1.0, max(0.0, r.relevance_raw / 2.0))
        tb = boosts.get(r.memory_type, boosts["unknown"])
        score = (s.w_trust * trust + s.w_recency * recency + s.w_relevance * relevance + s.w_type * tb) / total
        if trust >= s.min_trust:
            scored.append((score, r))
    scored.sort(key=lambda t: -t[0])
    return scored[: s.max_results]


def timed(fn, repeat: int) -> list[float]:  # noqa: ANN001
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=200)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    s = CompositeSettings()
    records = make_records(args.n)
    fast = rank_composite(records, s, now=NOW)
    slow = loop_rank(records, s, NOW)
    assert [r.uuid for r in fast] == [r.uuid for _, r in slow], "implementations disagree"
    for _ in range(20):  # warm up
        rank_composite(records, s, now=NOW)
        loop_rank(records, s, NOW)
    t_fast = timed(lambda: rank_composite(records, s, now=NOW), args.repeat)
    t_loop = timed(lambda: loop_rank(records, s, NOW), args.repeat)
    res = {
        "n": args.n,
        "repeat": args.repeat,
        "composite_median_ms": statistics.median(t_fast) * 1e3,
        "composite_p95_ms": sorted(t_fast)[int(0.95 * len(t_fast)) - 1] * 1e3,
        "loop_median_ms": statistics.median(t_loop) * 1e3,
        "speedup_vs_loop": statistics.median(t_loop) / statistics.median(t_fast),
        "target_ms": 2.0,
    }
    res["meets_target"] = res["composite_median_ms"] <= res["target_ms"] if args.n <= 1000 else None
    verdict = {True: "target 1,000 in <= 2 ms: met", False: "target 1,000 in <= 2 ms: MISSED", None: "no target"}[
        res["meets_target"]
    ]
    if args.json:
        print(json.dumps(res, indent=2))
    else:
        print(
            f"composite rank of {args.n} candidates: median {res['composite_median_ms']:.3f} ms "
            f"(p95 {res['composite_p95_ms']:.3f} ms; {verdict})\n"
            f"per-record Python loop:            median {res['loop_median_ms']:.3f} ms\n"
            f"ratio loop / composite:            {res['speedup_vs_loop']:.2f}x"
        )


if __name__ == "__main__":
    main()
