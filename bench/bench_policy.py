"""Benchmark: the retrieval policy (dedup + interleave + clip + budget + format) on 40
candidates, its memory per request, and get_context against the trust search it wraps.

    python bench/bench_policy.py [--reps 500] [--edges 2000] [--queries 40]

1. Policy core: ``apply_policy`` + ``format_for_system_prompt`` on 40 candidates (multi-sentence
   facts with abbreviations, versions, IPs, PII, 10% duplicates); the sentence cache is cleared
   before every request, so each one splits afresh. Target: p50 <= 5 ms.
2. Memory: tracemalloc peak of one such request. Target: <= 10 MB.
3. get_context (cache off, no rate limit) vs ``trust_search`` with the same recipe (hybrid,
   limit 2 x top_k) on the same open graph, interleaved query by query, same process.
   Ratio p50(get_context) / p50(trust_search). Target: <= 1.2.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import synth  # noqa: E402

from graph_trust.access.trust_context import TrustContext  # noqa: E402
from graph_trust.clients.hashing import HashingEmbedder  # noqa: E402
from graph_trust.clients.offline import make_graphiti  # noqa: E402
from graph_trust.config import PolicySettings, load_settings  # noqa: E402
from graph_trust.context.clip import sentences  # noqa: E402
from graph_trust.context.payload import Metadata, Payload  # noqa: E402
from graph_trust.context.policy import Candidate, apply_policy  # noqa: E402
from graph_trust.context.service import ContextService, policy_search_config  # noqa: E402
from graph_trust.graph.connection import open_graph  # noqa: E402
from graph_trust.search.trust_search import trust_search  # noqa: E402

NOW = datetime(2026, 6, 1, tzinfo=UTC)
PARTS = [
    "The nightly backup of {s} runs at 02:00 UTC.", "It uses e.g. restic v2.1 with 3.5 GB chunks.",
    "Host 10.0.{i}.7 keeps the copies for 30 days.", "Contact ops{i}@example.com for restores.",
    "Version 1.{i}.3 fixed the retention bug.", "Alerts go to the on-call channel.",
    "東京のレプリカは毎朝確認されます。", "Проверка идёт утром.",
]


def candidates(n: int = 40, seed: int = 7) -> list[Candidate]:
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        k = rnd.randint(1, 6)
        text = " ".join(rnd.choice(PARTS).format(s=f"svc-{i}", i=i) for _ in range(k))
        if i % 10 == 9:  # a duplicate (case and punctuation) of an earlier one
            text = out[i - 5].text.upper() + "!"
        out.append(Candidate(id=f"e{i}", text=text, score=rnd.random(), trust_score=rnd.random(),
                             timestamp=NOW - timedelta(hours=rnd.uniform(0, 500)), group="g",
                             type=rnd.choice(["fact", "fact", "instruction", "preference"])))
    return out


def one_request(cands: list[Candidate], policy: PolicySettings) -> str:
    memories, stats = apply_policy(cands, policy)
    md = Metadata(included_results=len(memories), total_tokens=stats.total_tokens)
    return Payload(memories, md).format_for_system_prompt()


def bench_core(reps: int) -> dict[str, float]:
    policy = PolicySettings(min_score=0.0)
    sets = [candidates(40, seed) for seed in range(20)]
    times, cpu = [], []
    for r in range(reps):
        sentences.cache_clear()
        c = sets[r % len(sets)]
        t0, c0 = time.perf_counter(), time.thread_time()
        one_request(c, policy)
        cpu.append(time.thread_time() - c0)
        times.append(time.perf_counter() - t0)
    sentences.cache_clear()
    tracemalloc.start()
    one_request(sets[0], policy)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    times.sort()
    return {"p50_ms": statistics.median(times) * 1000, "p95_ms": times[int(0.95 * len(times))] * 1000,
            "cpu_p50_ms": statistics.median(cpu) * 1000, "peak_mb": peak / 1e6}


async def bench_get_context(n_edges: int, n_queries: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(overrides={"graph.uri": f"embedded:{tmp}/g", "graph.database": "bench",
                                            "state_dir": f"{tmp}/state", "policy.cache_ttl_s": 0,
                                            "policy.rate_limit_per_minute": 0}, environ={})
        async with open_graph(settings) as conn:
            embedder = HashingEmbedder()
            g = conn.for_group("bench")
            await g.driver.build_indices_and_constraints()
            await synth.build(g.driver, embedder, n_edges, "bench")
            graphiti = make_graphiti(conn.driver, embedder=embedder)
            cfg = policy_search_config(settings, settings.policy)
            svc = ContextService()
            ctx = TrustContext.unrestricted("bench")
            queries = synth.synth_queries(n_queries)

            def search(q):
                return trust_search(graphiti, q, cfg, group_ids=["bench"])

            def context(q):
                return svc.get_context(settings, q, trust_context=ctx, groups=["bench"], connection=conn)

            for q in queries[:5]:  # warm-up
                await search(q)
                await context(q)
            ts, tc = [], []
            for i, q in enumerate(queries):
                pair = [("s", search), ("c", context)]
                if i % 2:
                    pair.reverse()
                for who, fn in pair:
                    t0 = time.perf_counter()
                    await fn(q)
                    (ts if who == "s" else tc).append(time.perf_counter() - t0)
            return {"search_p50_ms": statistics.median(ts) * 1000, "context_p50_ms": statistics.median(tc) * 1000}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=500)
    ap.add_argument("--edges", type=int, default=2000)
    ap.add_argument("--queries", type=int, default=40)
    args = ap.parse_args()
    core = bench_core(args.reps)
    print(f"policy core, 40 candidates: p50 {core['p50_ms']:.3f} ms, p95 {core['p95_ms']:.3f} ms, "
          f"CPU time p50 {core['cpu_p50_ms']:.3f} ms (target <= 5 ms); "
          f"peak memory {core['peak_mb']:.2f} MB (target <= 10 MB)")
    res = asyncio.run(bench_get_context(args.edges, args.queries))
    print(f"graph: {args.edges:,} edges; trust_search p50 {res['search_p50_ms']:.2f} ms; get_context p50 "
          f"{res['context_p50_ms']:.2f} ms; ratio {res['context_p50_ms'] / res['search_p50_ms']:.3f} (target <= 1.2)")


if __name__ == "__main__":
    main()
