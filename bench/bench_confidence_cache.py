"""What the confidence cache saves sync's scoring of every candidate (issue 18, Speed).

    python bench/bench_confidence_cache.py [--candidates 100000] [--rounds 3]

Builds ``bench_confidence``'s review DB of N candidates and their records, then per round, in
one process, CPU time of: ``fresh``, ``ConfidenceStore.scores()`` (no cache); ``miss``, the
cached path with no cache file (a full read plus writing the cache: a run after any write to
the records); ``hit``, the cached path with a current cache (a run with nothing changed: the
cache read, the time-dependent factors, the scores). Reports the medians and ``hit / fresh``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_confidence import build  # noqa: E402

from graph_trust.config import load_settings  # noqa: E402
from graph_trust.sync.confidence.cache import cache_path, gather_all  # noqa: E402
from graph_trust.sync.confidence.store import ConfidenceStore  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--candidates", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-conf-cache-") as tmp:
        db = Path(tmp) / "review.sqlite3"
        build(db, args.candidates, random.Random(7))
        s = load_settings(overrides={"state_dir": str(Path(tmp) / "state"), "review.path": str(db)}, environ={})
        cpu: dict[str, list[float]] = {"fresh": [], "miss": [], "hit": []}
        for _ in range(args.rounds):
            for kind in cpu:
                if kind == "miss":
                    cache_path(s, db.resolve()).unlink(missing_ok=True)
                with ConfidenceStore.open(db, s.review, s.confidence, readonly=True) as cs:
                    t = time.process_time()
                    if kind == "fresh":
                        cs.scores()
                    else:
                        g, hit = gather_all(cs, s)
                        assert hit == (kind == "hit"), kind
                        cs.scored(g)
                    cpu[kind].append(round(time.process_time() - t, 3))
    med = {k: statistics.median(v) for k, v in cpu.items()}
    print(json.dumps({"candidates": args.candidates, "cpu_s": cpu, "median_cpu_s": med,
                      "hit_over_fresh": round(med["hit"] / med["fresh"], 3),
                      "miss_over_fresh": round(med["miss"] / med["fresh"], 3)}, indent=2))


if __name__ == "__main__":
    main()
