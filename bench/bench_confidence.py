"""Benchmark of the confidence model on a review DB of N candidates (issue 18, Speed).

    python bench/bench_confidence.py [--candidates 100000] [--rounds 5] [--sample 200] [--seed 1] [--agents N]

Builds a review DB of N candidates with the confidence records a busy deployment would have:
a source row per candidate (N/200 agents, 10 categories), N/2 verifications, N usage outcomes
(partly outside the 90-day window), N/5 votes, N/50 recorded contradictions (half resolved),
and ``agent_credibility`` profiles for a tenth of the agents. Then, in one process:

* ``one``: what ``graph-trust confidence ID`` does after start-up: open the review DB (mapping
  and table checks) and compute one fact's confidence, for ``--sample`` random ids; median and
  95th percentile (the target is under 50 ms);
* ``cli_in_process``: ``graph-trust confidence ID --json`` run in this process after a first call
  imported its modules (settings, the api call, the JSON output: the command's own time);
* ``cli``: the same through the real process, a few times (wall time including Python's
  start-up and imports), and ``imports``: a process that only starts Python and imports the
  command's modules (what start-up costs, measured apart);
* ``all``: every candidate's confidence set-wise (``ConfidenceStore.scores()``: grouped queries
  plus numpy), the call sync makes in confidence mode;
* ``read``: the sync's own read of the same candidates (``ReviewDB.iter_batches`` with its
  batch size and fields), the baseline ``all`` is compared with in the same process;
* ``loop``: one-fact calls on the sample, extrapolated to N (what set-wise saves).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from graph_trust.confidence.consensus import VOTES
from graph_trust.confidence.credibility import EXPERTISE_LEVELS, ROLE_TRUST_WEIGHTS, SOURCE_TYPE_WEIGHTS
from graph_trust.confidence.freshness import HALF_LIVES
from graph_trust.confidence.success import OUTCOMES
from graph_trust.confidence.verification import VERDICTS
from graph_trust.config import ConfidenceSettings, ReviewSettings
from graph_trust.sync.confidence.schema import init_confidence_tables
from graph_trust.sync.confidence.store import ConfidenceStore
from graph_trust.sync.review_db import COLUMNS, ReviewDB, init_review_db

NOW = datetime.now(UTC)


def iso(days_ago: float) -> str:
    return (NOW - timedelta(days=days_ago)).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def build(path: Path, n: int, rng: random.Random, agents: int | None = None) -> None:
    init_review_db(path)
    init_confidence_tables(path)
    statuses = ["promoted"] * 4 + ["corroborated"] * 3 + ["candidate"] * 2 + ["rejected"]
    subjects = [f"service-{i}" for i in range(n // 4)]
    con = sqlite3.connect(path)
    with con:
        con.executemany(f"INSERT INTO candidates ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})", (
            (f"c{i:07d}", rng.choice(subjects), rng.choice(["port", "runs_on", "owned_by"]), str(rng.randrange(40)),
             f"fact {i}", rng.choice(statuses), json.dumps([f"edge-{i}"]), "g", iso(rng.uniform(0, 400)),
             None, None, None, None) for i in range(n)))
    con.close()
    add_records(path, [f"c{i:07d}" for i in range(n)], rng, agents)


def add_records(path: Path, ids: list[str], rng: random.Random, n_agents: int | None = None) -> None:
    """The confidence records of the candidates ``ids`` (see the module docstring for the shares;
    ``n_agents`` authors and verifiers instead of one per 200 facts)."""
    n = len(ids)
    agents = [f"agent-{i}" for i in range(n_agents or max(2, n // 200))]
    cats, roles, stypes = list(HALF_LIVES), list(ROLE_TRUST_WEIGHTS), list(SOURCE_TYPE_WEIGHTS)
    con = sqlite3.connect(path)
    with con:
        con.executemany("INSERT INTO fact_sources VALUES (?, ?, ?, ?, ?, ?)", (
            (f, rng.choice(agents), rng.choice(roles), rng.choice(stypes), rng.choice(cats),
             iso(rng.uniform(0, 400))) for f in ids))
        con.executemany("INSERT INTO fact_verifications (fact_id, verifier_id, verification_type, verified_at) "
                        "VALUES (?, ?, ?, ?)", (
                            (rng.choice(ids), rng.choice(agents), rng.choice(VERDICTS), iso(rng.uniform(0, 300)))
                            for _ in range(n // 2)))
        con.executemany("INSERT INTO fact_usage_outcomes (fact_id, agent_id, action, outcome, tracked_at) "
                        "VALUES (?, ?, 'act', ?, ?)", (
                            (rng.choice(ids), rng.choice(agents), rng.choice(OUTCOMES), iso(rng.uniform(0, 150)))
                            for _ in range(n)))
        con.executemany("INSERT OR IGNORE INTO fact_votes (fact_id, agent_id, vote, confidence, voted_at) "
                        "VALUES (?, ?, ?, ?, ?)", (
                            (rng.choice(ids), rng.choice(agents), rng.choice(VOTES), rng.random(), iso(1))
                            for _ in range(n // 5)))
        con.executemany("INSERT OR IGNORE INTO fact_contradictions (fact_a_id, fact_b_id, contradiction_type, severity, "
                        "detected_at, resolved_at, resolution_strategy, resolution_loser) VALUES (?, ?, 'different_object', "
                        "?, ?, ?, ?, ?)", (
                            (a, b, rng.choice(["low", "medium", "high"]), iso(1), *(
                                (iso(0), "temporal", b) if rng.random() < 0.5 else (None, None, None)))
                            for a, b in ((rng.choice(ids), rng.choice(ids)) for _ in range(n // 50))))
        con.executemany("INSERT OR IGNORE INTO agent_credibility (agent_id, category, expertise, corrections_issued) "
                        "VALUES (?, ?, ?, ?)", (
                            (a, "global", rng.choice(list(EXPERTISE_LEVELS)), rng.randrange(3))
                            for a in agents[: max(1, len(agents) // 10)]))
    con.execute("ANALYZE")
    con.close()


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--candidates", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--sample", type=int, default=200)
    ap.add_argument("--cli-runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--agents", type=int, default=None,
                    help="authors (and verifiers) of the facts; default one per 200 facts (1: one pipeline agent)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    review, cfg = ReviewSettings(), ConfidenceSettings()
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "review.sqlite3"
        build_s, _ = timed(lambda: build(path, args.candidates, rng, args.agents))
        ids = [f"c{rng.randrange(args.candidates):07d}" for _ in range(args.sample)]

        def one(fid: str) -> float:
            with ConfidenceStore.open(path, review, cfg) as s:
                return s.confidence(fid)["score"]

        one_ms = sorted(timed(lambda f=f: one(f))[0] * 1000 for f in ids)

        def read_all() -> int:
            with ReviewDB.open(path, review) as db:
                return sum(len(b) for b in db.iter_batches(batch_size=1000))

        def all_scores() -> int:
            with ConfidenceStore.open(path, review, cfg) as s:
                return len(s.scores()[2])

        rounds = []
        for r in range(args.rounds):
            pair = [("read", read_all), ("all", all_scores)]
            if r % 2:
                pair.reverse()
            res = {name: timed(fn) for name, fn in pair}
            assert res["read"][1] == res["all"][1] == args.candidates
            rounds.append({k: round(v[0], 4) for k, v in res.items()})
        from graph_trust.cli.main import cli as cli_group

        def cli_once(fid: str) -> None:  # what graph_trust.cli.main.main runs, without its sys.exit
            with contextlib.redirect_stdout(io.StringIO()) as out:
                cli_group.main(args=["confidence", fid, "--review-db", str(path), "--json"], prog_name="graph-trust",
                               standalone_mode=False)
            assert json.loads(out.getvalue())["id"] == fid

        cli_once(ids[0])  # imports the command's modules
        in_process_ms = sorted(timed(lambda f=f: cli_once(f))[0] * 1000 for f in ids)
        cli, imports = [], []
        for f in ids[: args.cli_runs]:
            t, p = timed(lambda f=f: subprocess.run(
                [sys.executable, "-m", "graph_trust", "confidence", f, "--review-db", str(path), "--json"],
                capture_output=True, text=True, check=True))
            cli.append(round(t * 1000, 1))
            t, _ = timed(lambda: subprocess.run(
                [sys.executable, "-c", "import graph_trust.cli.main, graph_trust.cli.confidence"], check=True))
            imports.append(round(t * 1000, 1))
    all_s = min(r["all"] for r in rounds)
    read_s = min(r["read"] for r in rounds)
    loop_s = statistics.median(one_ms) / 1000 * args.candidates
    def dist(ms: list[float]) -> dict:
        return {"median": round(statistics.median(ms), 2), "p95": round(ms[int(0.95 * (len(ms) - 1))], 2),
                "max": round(ms[-1], 2), "sample": len(ms)}

    print(json.dumps({
        "candidates": args.candidates, "build_s": round(build_s, 2), "rounds": rounds,
        "one_fact_ms": dist(one_ms), "cli_in_process_ms": dist(in_process_ms),
        "cli_process_ms": cli, "imports_process_ms": imports,
        "all_s_fastest": all_s, "sync_read_s_fastest": read_s,
        "all_over_sync_read": round(all_s / read_s, 2),
        "loop_s_extrapolated": round(loop_s, 1), "set_wise_speedup_over_loop": round(loop_s / all_s, 1),
    }, indent=2))


if __name__ == "__main__":
    main()
