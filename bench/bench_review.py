"""Benchmarks of the review side (issue 28), each a ratio against its baseline in the same process.

    python bench/bench_review.py [--sync-rows 100000] [--log-edges 10000] [--queue-edges 100000] [--json OUT]
    python bench/bench_review.py --only sync,log        # some parts

* ``sync``: ``graph-trust sync`` of N review rows (one per edge of a bulk graph, the rows of
  ``bench_sync``) from a PostgreSQL review DB (a pgserver the bench starts, unix socket) against
  the same rows in an SQLite review DB: a full run, a run with nothing changed and one with 1% of
  the rows changed, each from a fresh state store per round, alternating which backend goes first.
  Baseline: SQLite. The PostgreSQL runs read the rows through the snapshot ``ReviewDB`` writes.
* ``log``: ``api.search`` on a synthetic graph (``synth.build_fast``, hashing embedder) with the
  retrieval log on (``review.log``, an SQLite review DB, the default batching) against the same
  searches with it off, alternating per query, several rounds. Baseline: the log off. Target:
  at most 5% more (median of per-round ratios).
* ``tslog``: ``trust_search(...)`` (the library entry point, one Graphiti object reused, as an
  application calls it) on the same synthetic graph, with ``log=RetrievalLog(...)`` (the default
  batching, a background writer) against the same searches with no log, alternating per query,
  several rounds. Baseline: no log. Target: at most 5% more (median of per-round ratios).
* ``queue``: ``api.review_queue`` on a graph of N edges with N review rows (40% decided), a year
  of retrieval log (every day 1000 searches of 10 results drawn Zipf-like over the edges, stored
  as the per-day counts the writer keeps), 200 agent flags and 200 guard records. Baseline: one
  grouped read of the same log (``SELECT edge_uuid, sum(hits) ... GROUP BY edge_uuid``), the
  least any ranking by use must read.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import synth  # noqa: E402
from bench.bench_sync import build as build_bulk  # noqa: E402
from bench.bench_sync import make_review_db, no_background_saves  # noqa: E402
from graph_trust import api  # noqa: E402
from graph_trust.clients.hashing import HashingEmbedder  # noqa: E402
from graph_trust.config import load_settings  # noqa: E402
from graph_trust.graph.connection import open_graph  # noqa: E402
from graph_trust.review.db import ReviewConn  # noqa: E402
from graph_trust.review.log import writer_for  # noqa: E402
from graph_trust.sync.runner import run_sync  # noqa: E402

TIERS = {"promoted": 1.0, "corroborated": 0.6, "candidate": 0.25, "rejected": None}


def start_pg():
    import pgserver

    where = tempfile.mkdtemp(prefix="gt-bench-pg-")
    return where, pgserver.get_server(where, cleanup_mode="stop")


def copy_to_pg(sqlite_path: Path, url: str) -> None:
    """The SQLite review DB's candidates into the PostgreSQL one (both initialised)."""
    src = sqlite3.connect(sqlite_path)
    cols = [r[1] for r in src.execute("PRAGMA table_info(candidates)")]
    rows = src.execute(f"SELECT {', '.join(cols)} FROM candidates").fetchall()
    src.close()
    with ReviewConn.open(url) as conn:
        conn.write(lambda c: c.executemany(
            f"INSERT INTO candidates ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})", rows))


def change_one_percent(where: str, rnd: int) -> None:
    """1% of the rows get another status (the same rows on both backends for a round)."""
    with ReviewConn.open(where) as conn:
        ids = [r[0] for r in conn.query("SELECT id FROM candidates ORDER BY id")]
        pick = random.Random(rnd).sample(ids, max(1, len(ids) // 100))
        conn.write(lambda c: c.executemany("UPDATE candidates SET status = CASE WHEN status = 'promoted' "
                                           "THEN 'corroborated' ELSE 'promoted' END WHERE id = ?",
                                           [(i,) for i in pick]))


async def bench_sync(n: int, rounds: int) -> dict:
    root = Path(tempfile.mkdtemp(prefix="gt-bench-review-"))
    pg_dir, pg = start_pg()
    try:
        settings = load_settings(overrides={"graph.uri": f"embedded:{root / 'graph'}", "graph.database": "bench",
                                            "state_dir": str(root / "state"), "sync.tiers": TIERS,
                                            "guard.enabled": False}, environ={})
        out: dict = {"rows": n, "rounds": []}
        async with open_graph(settings) as g:
            await no_background_saves(g)
            rng = random.Random(5)
            _, edges = await build_bulk(g, n, rng)
            lite = root / "review.sqlite3"
            make_review_db(lite, edges, "bench", random.Random(6))
            import psycopg

            with psycopg.connect(pg.get_uri(), autocommit=True) as c:
                c.execute("CREATE DATABASE review")
            url = pg.get_uri("review")
            api.init_review_db(url)
            copy_to_pg(lite, url)
            for rnd in range(rounds):
                times: dict[str, dict[str, float]] = {}
                order = [("sqlite", str(lite)), ("postgresql", url)]
                for backend, where in (order if rnd % 2 == 0 else order[::-1]):
                    s = settings.model_copy(update={"state_dir": root / f"state-{backend}-{rnd}"})
                    t = {}
                    t0 = time.perf_counter()
                    await run_sync(s, review_db=where, full=True, graph=g)
                    t["full_s"] = time.perf_counter() - t0
                    t0 = time.perf_counter()
                    await run_sync(s, review_db=where, graph=g)
                    t["unchanged_s"] = time.perf_counter() - t0
                    change_one_percent(where, rnd)
                    t0 = time.perf_counter()
                    await run_sync(s, review_db=where, graph=g)
                    t["one_percent_s"] = time.perf_counter() - t0
                    times[backend] = {k: round(v, 3) for k, v in t.items()}
                    for e in range(0, len(edges), 5000):  # (the next run starts from no trust)
                        await g.write("edge_trust_clear", uuids=edges[e:e + 5000])
                out["rounds"].append(times)
        for phase in ("full_s", "unchanged_s", "one_percent_s"):
            ratios = [r["postgresql"][phase] / r["sqlite"][phase] for r in out["rounds"]]
            out[f"{phase[:-2]}_pg_over_sqlite"] = round(statistics.median(ratios), 3)
            out[f"{phase[:-2]}_sqlite_s"] = round(statistics.median(r["sqlite"][phase] for r in out["rounds"]), 3)
            out[f"{phase[:-2]}_postgresql_s"] = round(statistics.median(r["postgresql"][phase] for r in out["rounds"]), 3)
        return out
    finally:
        pg.cleanup()
        shutil.rmtree(pg_dir, ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)


async def bench_log(n_edges: int, queries: int, rounds: int) -> dict:
    root = Path(tempfile.mkdtemp(prefix="gt-bench-log-"))
    try:
        review = root / "review.sqlite3"
        api.init_review_db(review)
        base = {"graph.uri": f"embedded:{root / 'graph'}", "graph.database": "bench", "state_dir": str(root / "state"),
                "search.group_ids": ["bench"], "review.url": str(review)}
        on = load_settings(overrides={**base, "review.log": True}, environ={})
        off = load_settings(overrides={**base, "review.log": False}, environ={})
        async with open_graph(on) as g:
            await g.driver.build_indices_and_constraints()
            await synth.build_fast(g, HashingEmbedder(), n_edges)
        texts = synth.synth_queries(queries)
        for q in texts[:5]:  # warm up both paths
            await api.search(on, q)
            await api.search(off, q)
        per_round = []
        for rnd in range(rounds):
            t_on = t_off = 0.0
            for i, q in enumerate(texts):
                first, second = (on, off) if (i + rnd) % 2 == 0 else (off, on)
                for s in (first, second):
                    t0 = time.perf_counter()
                    await api.search(s, q)
                    dt = time.perf_counter() - t0
                    if s is on:
                        t_on += dt
                    else:
                        t_off += dt
            per_round.append({"on_s": round(t_on, 3), "off_s": round(t_off, 3), "ratio": round(t_on / t_off, 4)})
        writer_for(on.review).flush()
        return _log_cost(review, n_edges, queries, per_round)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _log_cost(review, n_edges: int, queries: int, per_round: list[dict]) -> dict:
    """A log-cost result: the rounds' on/off times and what the log holds after them."""
    with ReviewConn.open(review) as conn:
        logged = conn.query("SELECT sum(hits), count(*) FROM retrieval_log")[0]
    return {"edges": n_edges, "queries": queries, "rounds": per_round,
            "median_ratio": round(statistics.median(r["ratio"] for r in per_round), 4),
            "per_search_ms_off": round(1000 * statistics.median(r["off_s"] for r in per_round) / queries, 2),
            "logged_returns": logged[0], "log_rows": logged[1], "target": "<= 1.05"}


async def bench_trust_search_log(n_edges: int, queries: int, rounds: int) -> dict:
    from graph_trust.clients.offline import make_graphiti
    from graph_trust.review.log import RetrievalLog
    from graph_trust.search.trust_search import trust_search

    root = Path(tempfile.mkdtemp(prefix="gt-bench-tslog-"))
    try:
        review = root / "review.sqlite3"
        api.init_review_db(review)
        settings = load_settings(overrides={"graph.uri": f"embedded:{root / 'graph'}", "graph.database": "bench",
                                            "state_dir": str(root / "state"), "review.log": False}, environ={})
        log = RetrievalLog(review)
        async with open_graph(settings) as g:
            await g.driver.build_indices_and_constraints()
            emb = HashingEmbedder()
            await synth.build_fast(g, emb, n_edges)
            graphiti = make_graphiti(g.for_group("bench").driver, embedder=emb)
            texts = synth.synth_queries(queries)
            for q in texts[:5]:  # warm up both paths
                await trust_search(graphiti, q, group_ids=["bench"], log=log)
                await trust_search(graphiti, q, group_ids=["bench"])
            per_round = []
            for rnd in range(rounds):
                t_on = t_off = 0.0
                for i, q in enumerate(texts):
                    for with_log in ((True, False) if (i + rnd) % 2 == 0 else (False, True)):
                        t0 = time.perf_counter()
                        await trust_search(graphiti, q, group_ids=["bench"], log=log if with_log else None)
                        dt = time.perf_counter() - t0
                        if with_log:
                            t_on += dt
                        else:
                            t_off += dt
                per_round.append({"on_s": round(t_on, 3), "off_s": round(t_off, 3), "ratio": round(t_on / t_off, 4)})
        log.close()
        return _log_cost(review, n_edges, queries, per_round)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def fill_log(review: Path, edges: list[str], days: int, searches: int, seed: int = 3) -> int:
    """A year of log as the writer stores it: per day, ``searches`` searches of 10 results drawn
    Zipf-like (rank r of a popularity order ~ 1/r) over ``edges``, counted per (day, edge, rank)."""
    rng = random.Random(seed)
    order = edges[:]
    rng.shuffle(order)
    weights = [1.0 / (i + 1) for i in range(len(order))]
    today = datetime.now(UTC).date()
    con = sqlite3.connect(review)
    n = 0
    with con:
        for d in range(days):
            day = (today - timedelta(days=d)).isoformat()
            counts: dict[tuple[str, int], int] = {}
            picks = rng.choices(order, weights=weights, k=searches * 10)
            for k, uuid in enumerate(picks):
                key = (uuid, k % 10 + 1)
                counts[key] = counts.get(key, 0) + 1
            con.executemany("INSERT INTO retrieval_log VALUES (?, 'bench', ?, 'search', ?, ?)",
                            [(day, u, r, h) for (u, r), h in counts.items()])
            n += len(counts)
    con.close()
    return n


async def bench_queue(n: int, days: int, searches: int, rounds: int) -> dict:
    root = Path(tempfile.mkdtemp(prefix="gt-bench-queue-"))
    try:
        settings = load_settings(overrides={"graph.uri": f"embedded:{root / 'graph'}", "graph.database": "bench",
                                            "state_dir": str(root / "state"), "sync.tiers": TIERS,
                                            "review.log": False}, environ={})
        review = root / "review.sqlite3"
        async with open_graph(settings) as g:
            await no_background_saves(g)
            _, edges = await build_bulk(g, n, random.Random(8))
            make_review_db(review, edges, "bench", random.Random(9))
            api.init_review_db(review)
            con = sqlite3.connect(review)
            with con:  # 60% of the facts unreviewed (candidate), the rest decided as make_review_db drew
                con.execute("UPDATE candidates SET status = 'candidate' WHERE abs(random()) % 10 < 6")
                rng = random.Random(10)
                con.executemany("INSERT INTO review_flags (target, edge_uuid, agent, reason, flagged_at) "
                                "VALUES (?, ?, 'bot', 'looks stale', '2026-11-01T00:00:00Z')",
                                [(u, u) for u in rng.sample(edges, 200)])
                con.executemany("INSERT INTO fact_contradictions (fact_a_id, fact_b_id, contradiction_type, severity, "
                                "detail, detected_at) VALUES (?, ?, 'graphiti_invalidation', 'medium', ?, "
                                "'2026-11-01T00:00:00Z')",
                                [(f"cand-{i:07d}", f"gi:{u}", json.dumps({"uuid": u, "group_id": "bench"}))
                                 for i, u in rng.sample(list(enumerate(edges)), 200)])
            con.close()
            t0 = time.perf_counter()
            log_rows = fill_log(review, edges, days, searches)
            fill_s = time.perf_counter() - t0
            settings.review.url = str(review)
            base, full = [], []
            for _ in range(rounds):
                t0 = time.perf_counter()
                with ReviewConn.open(review) as conn:
                    conn.query("SELECT edge_uuid, sum(hits) FROM retrieval_log GROUP BY edge_uuid")
                base.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                items = await api.review_queue(settings, graph=g, limit=50)
                full.append(time.perf_counter() - t0)
        return {"edges": n, "review_rows": n, "log_days": days, "searches_per_day": searches, "log_rows": log_rows,
                "fill_log_s": round(fill_s, 1), "queue_s": round(min(full), 3), "grouped_log_read_s": round(min(base), 3),
                "queue_over_log_read": round(min(full) / min(base), 2), "top_rules": sorted(
                    {r["rule"] for i in items[:50] for r in i.reasons})}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="sync,log,queue")
    ap.add_argument("--sync-rows", type=int, default=100000)
    ap.add_argument("--sync-rounds", type=int, default=3)
    ap.add_argument("--log-edges", type=int, default=10000)
    ap.add_argument("--log-queries", type=int, default=60)
    ap.add_argument("--log-rounds", type=int, default=5)
    ap.add_argument("--queue-edges", type=int, default=100000)
    ap.add_argument("--queue-days", type=int, default=365)
    ap.add_argument("--queue-searches", type=int, default=1000)
    ap.add_argument("--queue-rounds", type=int, default=2)
    ap.add_argument("--json", dest="out", default=None)
    a = ap.parse_args()
    parts = set(a.only.split(","))
    out: dict = {}
    if "sync" in parts:
        out["sync"] = asyncio.run(bench_sync(a.sync_rows, a.sync_rounds))
        print(json.dumps({"sync": {k: v for k, v in out["sync"].items() if k != "rounds"}}), flush=True)
    if "log" in parts:
        out["log"] = asyncio.run(bench_log(a.log_edges, a.log_queries, a.log_rounds))
        print(json.dumps({"log": {k: v for k, v in out["log"].items() if k != "rounds"}}), flush=True)
    if "tslog" in parts:
        out["tslog"] = asyncio.run(bench_trust_search_log(a.log_edges, a.log_queries, a.log_rounds))
        print(json.dumps({"tslog": {k: v for k, v in out["tslog"].items() if k != "rounds"}}), flush=True)
    if "queue" in parts:
        out["queue"] = asyncio.run(bench_queue(a.queue_edges, a.queue_days, a.queue_searches, a.queue_rounds))
        print(json.dumps({"queue": out["queue"]}), flush=True)
    if a.out:
        Path(a.out).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
