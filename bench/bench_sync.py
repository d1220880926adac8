"""Benchmark of ``graph-trust sync`` on an embedded FalkorDB (issues 3 and 15, Speed).

    python bench/bench_sync.py [--edges 100000] [--rounds 5] [--small 10000]

Builds a graph of N RELATES_TO edges between N/2 Entity nodes, shaped like Graphiti's
(same labels, uuid/group_id/name/fact/created_at/valid_at/episodes properties, Graphiti's
own indices) but bulk-created with UNWIND Cypher (``cypher/bench_create_*``) instead of
``EntityEdge.save()`` (which takes minutes at this size) and without embeddings (sync never
reads them), plus a review DB of N candidates (one per edge; 40% promoted, 30% corroborated,
20% candidate, 10% rejected). Then, in the same process and on the same graph, it measures:

* ``ceiling``: the same writes as the sync (7 edge properties on every scored edge, 2 on every
  entity it updated) with the sync's own statements (``edge_trust_set``, ``entity_trust_set``),
  bare: batched, precomputed values, no journal; also the edge writes alone, and the edge writes
  plus the reference design's one-statement aggregation (``bench_reference_aggregate``);
* ``full``: ``run_sync(full=True)`` (first run: reads the review DB, writes and journals
  edges, aggregates entities);
* ``incremental``: a normal run with nothing changed, then one with 1% of candidates changed
  (their status; half of them with ``updated_at`` left as it was: change detection compares
  content, so it makes no difference);
* ``verify``: ``verify()`` after the 1% run (every trusted edge and every entity), against the full run;
* memory: tracemalloc peak of a full sync at ``--small`` and at N candidates, and peak RSS.

Targets (issue 15; ``targets`` in the output, each with its figure and whether it is met): a
normal run with nothing changed at most 10% of the full run, one with 1% changed at most 15%
(medians of the rounds' fractions), and the fastest full sync at least 0.7 of the fastest ceiling.

Besides wall time, the full and the 1% runs report this process's and the server's CPU time
and the full garbage collections Python made during them (``full_gc``, ``full_gc_s``).

The full sync, the two incremental runs and the ceiling repeat ``--rounds`` times (each round
on the graph cleared of trust, with a fresh state store; rounds 1, 3, 5, ... run the sync
first, the others the ceiling first). It reports each round, the medians, and the ratio of the fastest
full sync to the fastest ceiling: the server slows down by up to 2x for a minute now and then
(its CPU time for the same writes doubles while it frees its indexes' garbage), which a median
of five rounds still feels. The bench's own temporary server runs without automatic snapshots
or log rewrites (see ``no_background_saves``); every write is still appended to its log.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import resource
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import tracemalloc
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from output import emit  # noqa: E402

from graph_trust.config import Settings, load_settings  # noqa: E402
from graph_trust.graph.connection import open_graph  # noqa: E402
from graph_trust.graph.schema import ensure_uuid_indexes  # noqa: E402
from graph_trust.sync.confidence.schema import init_confidence_tables  # noqa: E402
from graph_trust.sync.review_db import COLUMNS, init_review_db  # noqa: E402
from graph_trust.sync.runner import run_sync  # noqa: E402
from graph_trust.sync.verify import verify  # noqa: E402

STATUSES = ["promoted"] * 4 + ["corroborated"] * 3 + ["candidate"] * 2 + ["rejected"]
TIERS = Settings().sync.tiers  # the shipped policy, which the sync runs with (rejected: 0.0, written like any score)
NOW = "2026-01-01T00:00:00Z"
RUN_ID = "sync-20260101T000000Z-000000"  # as long as a sync's run id


async def build(g, n_edges: int, rng: random.Random) -> tuple[list[str], list[str]]:
    """N/2 entities and N edges between random pairs, with Graphiti's indices; returns their uuids."""
    await g.driver.build_indices_and_constraints()
    await ensure_uuid_indexes(g)
    ents = [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(max(2, n_edges // 2))]
    for i in range(0, len(ents), 5000):
        await g.write("bench_create_entities", nodes=[
            {"uuid": u, "name": f"entity {i + k}", "group_id": g.database, "summary": f"entity {i + k}",
             "created_at": NOW} for k, u in enumerate(ents[i:i + 5000])])
    edges = [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(n_edges)]
    for i in range(0, n_edges, 5000):
        await g.write("bench_create_relates_to", edges=[
            {"uuid": u, "source_uuid": rng.choice(ents), "target_uuid": rng.choice(ents), "group_id": g.database,
             "name": "RELATES", "fact": f"fact number {i + k} about something", "created_at": NOW,
             "fact_embedding": None} for k, u in enumerate(edges[i:i + 5000])])
    return ents, edges


async def clear_trust(g, world: tuple[list[str], list[str]]) -> None:
    """Remove every trust property from the bench graph (the sync's own clear statements)."""
    ents, edges = world
    for i in range(0, len(edges), 5000):
        await g.write("edge_trust_clear", uuids=edges[i:i + 5000])
    for i in range(0, len(ents), 5000):
        await g.write("entity_trust_clear", uuids=ents[i:i + 5000])


def make_review_db(path: Path, edges: list[str], group: str, rng: random.Random) -> None:
    init_review_db(path)
    con = sqlite3.connect(path)
    with con:
        con.executemany(
            f"INSERT INTO candidates ({', '.join(COLUMNS)}) VALUES ({', '.join('?' for _ in COLUMNS)})",
            ((f"cand-{i:07d}", "s", "p", "o", f"fact {i}", rng.choice(STATUSES),
              json.dumps([{"evidence_id": u}]), group, "2026-01-01T00:00:00Z", "fact", "low", "ops", None)
             for i, u in enumerate(edges)))
    con.close()


def review_rows(review: Path) -> list[tuple[str, str]]:
    """(status, evidence_refs_json) of every candidate, by id: the review DB as a sync reads it now."""
    con = sqlite3.connect(review)
    try:
        return con.execute("SELECT status, evidence_refs_json FROM candidates ORDER BY id").fetchall()
    finally:
        con.close()


async def raw_ceiling(g, candidates: list[tuple[str, str]], world, bs: int, root: Path) -> tuple:
    """The sync's own write statements (``edge_trust_set``, ``entity_trust_set``), bare: batched,
    no journal, with the values the sync writes for ``candidates`` (:func:`review_rows`) computed
    before the timer starts."""
    rows = [{"uuid": json.loads(ev)[0]["evidence_id"], "trust_score": TIERS[status], "trust_status": status,
             "trust_run_id": RUN_ID, "trust_updated_at": NOW, "memory_type": "fact", "sensitivity": "low",
             "scope": "ops"} for status, ev in candidates if TIERS[status] is not None]
    entity_uuids = await trusted_entities(g, candidates)
    ent_rows = [{"uuid": u, "trust_score": 1.0, "trust_run_id": RUN_ID} for u in entity_uuids]
    with Clock(root) as clock:
        t = time.perf_counter()
        for i in range(0, len(rows), bs):
            await g.write("edge_trust_set", rows=rows[i:i + bs])
        edges_s = time.perf_counter() - t
        for i in range(0, len(ent_rows), bs):
            await g.write("entity_trust_set", rows=ent_rows[i:i + bs])
        total = time.perf_counter() - t
    for i in range(0, len(entity_uuids), 5000):
        await g.write("entity_trust_clear", uuids=entity_uuids[i:i + 5000])
    t = time.perf_counter()
    await g.write("bench_reference_aggregate")
    reference = edges_s + time.perf_counter() - t
    await clear_trust(g, world)
    return edges_s, total, reference, len(rows), len(entity_uuids), clock.figures()


def server_cpu_s(root: Path) -> float | None:
    """CPU seconds the embedded server process has used (Linux /proc; None elsewhere)."""
    try:
        pid = (root / "graph" / "falkordb.pid").read_text().strip()
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


class Clock:
    """Wall time, this process's CPU time (all threads) and the server's CPU time of a block,
    and the full (generation 2) garbage collections Python made in it, with their time."""

    def __init__(self, root: Path):
        self.root = root
        self.full_gcs: list[float] = []
        self._gc_t = 0.0

    def _on_gc(self, phase: str, info: dict) -> None:
        if info["generation"] == 2:
            if phase == "start":
                self._gc_t = time.perf_counter()
            else:
                self.full_gcs.append(time.perf_counter() - self._gc_t)

    def __enter__(self):
        gc.callbacks.append(self._on_gc)
        self.t, self.c, self.s = time.perf_counter(), time.process_time(), server_cpu_s(self.root)
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.t
        self.client_cpu = time.process_time() - self.c
        end = server_cpu_s(self.root)
        self.server_cpu = None if end is None or self.s is None else end - self.s
        gc.callbacks.remove(self._on_gc)

    def figures(self) -> dict:
        return {"wall_s": round(self.wall, 3), "client_cpu_s": round(self.client_cpu, 3),
                "server_cpu_s": None if self.server_cpu is None else round(self.server_cpu, 2),
                "full_gc": len(self.full_gcs), "full_gc_s": round(sum(self.full_gcs), 3)}


async def one_round(g, root: Path, n: int, review: Path, rnd: int, bs: int, world) -> dict:
    """One round on a graph without trust: a full sync (fresh state store), a run with nothing
    changed, a run with 1% of candidates changed, and the ceiling of the same writes. Rounds
    1, 3, 5, ... (``rnd`` 0, 2, 4, ...) run the sync first, the others the ceiling first: the
    server slows down now and then for reasons of its own (see the README), and alternating
    spreads that over both."""
    out: dict = {}
    candidates = review_rows(review)  # as this round's full sync reads them (its 1% run changes some)
    if rnd % 2:
        await _ceiling_into(out, g, root, candidates, world, bs)
    await clear_trust(g, world)
    settings = load_settings(overrides={"graph.uri": f"embedded:{root / 'graph'}", "graph.database": g.database,
                                        "state_dir": str(root / f"state_{n}_{rnd}")}, environ={})
    with Clock(root) as clock:
        rep = await run_sync(settings, review_db=review, full=True, batch_size=bs, graph=g)
    out["full_s"] = round(clock.wall, 3)
    out["full_cpu"] = clock.figures()
    out["full_report"] = {k: getattr(rep, k) for k in ("edges_set", "entities_updated", "batches", "phase_s")}
    with Clock(root) as clock:
        rep0 = await run_sync(settings, review_db=review, graph=g, batch_size=bs)
    assert rep0.candidates_changed == 0 and rep0.edges_set == 0, rep0  # nothing changed, nothing parsed again
    out["incremental_nochange_s"] = round(clock.wall, 3)
    out["incremental_nochange_cpu"] = clock.figures()
    out["incremental_nochange_phase_s"] = rep0.phase_s
    con = sqlite3.connect(review)
    with con:  # 1% of candidates change status: half with a newer updated_at, half with it left as it was
        flip = "status = CASE status WHEN 'promoted' THEN 'corroborated' ELSE 'promoted' END"
        changed = con.execute(f"UPDATE candidates SET {flip}, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?) "
                              "WHERE rowid % 200 = 7", (f"+{rnd + 1} day",)).rowcount
        changed += con.execute(f"UPDATE candidates SET {flip} WHERE rowid % 200 = 107").rowcount
    con.close()
    with Clock(root) as clock:
        rep1 = await run_sync(settings, review_db=review, graph=g, batch_size=bs)
    assert rep1.candidates_changed == changed, (rep1.candidates_changed, changed)  # every changed row, no other
    out["incremental_1pct_s"] = round(clock.wall, 3)
    out["incremental_1pct_cpu"] = clock.figures()
    out["incremental_report"] = {k: getattr(rep1, k) for k in ("candidates_changed", "edges_set", "edges_cleared",
                                                                 "entities_updated", "phase_s")}
    with Clock(root) as clock:
        v = await verify(settings, review_db=review, graph=g)
    assert v.in_sync, v.drift  # the 1% run left the graph exactly as the review DB says
    out["verify_s"] = round(clock.wall, 3)
    out["verify_cpu"] = clock.figures()
    if not rnd % 2:
        await _ceiling_into(out, g, root, candidates, world, bs)
    # the same writes on both sides: every edge the sync set, every entity it gave trust
    assert (out["ceiling_rows"], out["ceiling_entity_rows"]) == (rep.edges_set, rep.entities_updated), \
        (out["ceiling_rows"], out["ceiling_entity_rows"], rep.edges_set, rep.entities_updated)
    out["ceiling_first"] = bool(rnd % 2)
    out["ratio_full_vs_ceiling"] = round(out["ceiling_s"] / out["full_s"], 3)
    out["incremental_1pct_fraction_of_full"] = round(out["incremental_1pct_s"] / out["full_s"], 4)
    out["incremental_nochange_fraction_of_full"] = round(out["incremental_nochange_s"] / out["full_s"], 4)
    out["verify_fraction_of_full"] = round(out["verify_s"] / out["full_s"], 4)
    return out


async def _ceiling_into(out: dict, g, root: Path, candidates: list[tuple[str, str]], world, bs: int) -> None:
    """The ceiling of the full sync of ``candidates``: the same writes, bare, on the graph without
    trust (cleared before and after)."""
    await clear_trust(g, world)
    edges_s, ceiling_s, reference_s, n_rows, n_entities, out["ceiling_cpu"] = await raw_ceiling(
        g, candidates, world, bs, root)
    out.update(ceiling_edges_s=round(edges_s, 3), ceiling_s=round(ceiling_s, 3),
               ceiling_reference_s=round(reference_s, 3), ceiling_rows=n_rows, ceiling_entity_rows=n_entities)


@asynccontextmanager
async def bench_world(n_edges: int, prefix: str) -> AsyncIterator[tuple[Path, Any, tuple[list[str], list[str]], Path,
                                                                       float, random.Random]]:
    """A temporary embedded server holding :func:`build`'s graph of ``n_edges`` edges (group
    ``bench_<n>``) and its review DB (one candidate per edge, with the confidence tables): yields
    ``(root, graph connection, (entities, edges), review DB path, build seconds, the random
    generator that built them, for more data)``; all removed after."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    rng = random.Random(n_edges)
    try:
        base = load_settings(overrides={"graph.uri": f"embedded:{root / 'graph'}", "state_dir": str(root / "s")},
                             environ={})
        async with open_graph(base) as g0:
            g = g0.for_group(f"bench_{n_edges}")
            await no_background_saves(g)
            t = time.perf_counter()
            world = await build(g, n_edges, rng)
            review = root / "review.sqlite3"
            make_review_db(review, world[1], g.database, rng)
            init_confidence_tables(review)
            yield root, g, world, review, round(time.perf_counter() - t, 1), rng
    finally:
        shutil.rmtree(root, ignore_errors=True)


async def trusted_entities(g, candidates: list[tuple[str, str]]) -> list[str]:
    """The entities a sync of ``candidates`` gives trust: endpoints of the edges scored above 0."""
    scored = sorted(json.loads(ev)[0]["evidence_id"] for status, ev in candidates if (TIERS[status] or 0) > 0)
    ends = set()
    for i in range(0, len(scored), 5000):
        for r in await g.query("edge_trust_read", uuids=scored[i:i + 5000]):
            ends.update((r["source_uuid"], r["target_uuid"]))
    return sorted(ends)


async def no_background_saves(g) -> None:
    """Benchmark hygiene on the bench's own (temporary) server: no automatic RDB snapshot or
    append-only-file rewrite. Both fork the server, and the child's serialization of the whole
    graph competes for the two cores at moments that have nothing to do with what is measured.
    Every write is still appended to the log (``appendfsync everysec``), as in production."""
    for name, value in (("save", ""), ("auto-aof-rewrite-percentage", "0")):
        await g.driver.client.execute_command("CONFIG", "SET", name, value)


async def one_size(g0, root: Path, n: int, *, bs: int, rounds: int) -> dict:
    """Timings at ``n`` candidates (no tracemalloc: it slows Python down several times). The
    sync and its ceiling run ``rounds`` times, alternating, so load that comes and goes on a
    shared machine hits both; the figures reported are medians of the rounds."""
    rng = random.Random(n)
    tag = f"bench_{n}"
    review = root / f"review_{n}.sqlite3"
    out: dict = {"candidates": n, "rounds": rounds}
    g = g0.for_group(tag)  # one server for everything (each size its own graph)
    await no_background_saves(g)
    t = time.perf_counter()
    world = await build(g, n, rng)
    make_review_db(review, world[1], tag, rng)
    out["build_s"] = round(time.perf_counter() - t, 2)
    out["per_round"] = [await one_round(g, root, n, review, rnd, bs, world) for rnd in range(rounds)]
    for key in ("full_s", "incremental_nochange_s", "incremental_1pct_s", "ceiling_edges_s", "ceiling_s",
                "ceiling_reference_s", "ratio_full_vs_ceiling", "incremental_1pct_fraction_of_full",
                "incremental_nochange_fraction_of_full", "verify_s", "verify_fraction_of_full"):
        out[key] = statistics.median(r[key] for r in out["per_round"])
    return out


async def memory(root: Path, n: int, bs: int) -> dict:
    """tracemalloc peak and peak RSS of a full sync of ``n`` candidates (run in its own process)."""
    rng = random.Random(n)
    tag = f"mem_{n}"
    settings = load_settings(overrides={"graph.uri": f"embedded:{root / 'graph'}", "graph.database": tag,
                                        "state_dir": str(root / f"state_mem_{n}")}, environ={})
    review = root / f"review_mem_{n}.sqlite3"
    async with open_graph(settings) as g:
        _, edges = await build(g, n, rng)
        make_review_db(review, edges, tag, rng)
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        tracemalloc.start()
        await run_sync(settings, review_db=review, full=True, batch_size=bs, graph=g)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return {"candidates": n, "tracemalloc_peak_mb": round(peak, 1),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "rss_before_sync_mb": round(rss_before, 1)}


async def main() -> None:
    ap = argparse.ArgumentParser(prog="python bench/bench_sync.py", description=__doc__.split("\n\n")[0],
                                 epilog="Prints one JSON document: every round, the medians, and the ratios.")
    ap.add_argument("--edges", type=int, default=100_000, help="edges in the graph, one candidate each (default 100000)")
    ap.add_argument("--small", type=int, default=10_000,
                    help="candidates of the smaller memory measurement (default 10000)")
    ap.add_argument("--batch-size", type=int, default=1000, help="sync --batch-size and the ceiling's (default 1000)")
    ap.add_argument("--rounds", type=int, default=5,
                    help="rounds of full sync, incremental runs and ceiling (default 5; medians and fastest reported)")
    ap.add_argument("--no-memory", action="store_true", help="skip the tracemalloc runs (two more full syncs)")
    ap.add_argument("--json", type=Path, default=None, help="also write the JSON document to this file")
    ap.add_argument("--memory-only", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--root", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.memory_only is not None:
        print(json.dumps(await memory(Path(args.root), args.memory_only, args.batch_size)))
        return
    root = Path(tempfile.mkdtemp(prefix="bench-sync-"))
    base = load_settings(overrides={"graph.uri": f"embedded:{root / 'graph'}", "state_dir": str(root / "state")},
                         environ={})
    try:
        async with open_graph(base) as g0:
            big = await one_size(g0, root, args.edges, bs=args.batch_size, rounds=args.rounds)
            mem = []
            for n in () if args.no_memory else (args.small, args.edges):  # each in its own process
                proc = await asyncio.create_subprocess_exec(
                    sys.executable, __file__, "--memory-only", str(n), "--root", str(root),
                    "--batch-size", str(args.batch_size), stdout=asyncio.subprocess.PIPE)
                out, _ = await proc.communicate()
                mem.append(json.loads(out.decode().strip().splitlines()[-1]))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    n = big["candidates"]
    res = {
        "big": big,
        "memory": mem,
        "throughput_candidates_per_s": round(n / big["full_s"]),
        "ratio_full_vs_ceiling": big["ratio_full_vs_ceiling"],
        "ratio_fastest_full_vs_fastest_ceiling": round(min(r["ceiling_s"] for r in big["per_round"])
                                                       / min(r["full_s"] for r in big["per_round"]), 3),
        "ratio_full_vs_edge_only_ceiling": round(big["ceiling_edges_s"] / big["full_s"], 3),
        "ratio_full_vs_reference_ceiling": round(big["ceiling_reference_s"] / big["full_s"], 3),
        "incremental_1pct_fraction_of_full": big["incremental_1pct_fraction_of_full"],
        "incremental_nochange_fraction_of_full": big["incremental_nochange_fraction_of_full"],
        "verify_fraction_of_full": big["verify_fraction_of_full"],
        "python": sys.version.split()[0],
    }
    res["targets"] = {name: {"value": value, "limit": limit, "met": value <= limit if upper else value >= limit}
                      for name, value, limit, upper in (
                          ("incremental_nochange_fraction_of_full", res["incremental_nochange_fraction_of_full"],
                           0.10, True),
                          ("incremental_1pct_fraction_of_full", res["incremental_1pct_fraction_of_full"], 0.15, True),
                          ("ratio_fastest_full_vs_fastest_ceiling", res["ratio_fastest_full_vs_fastest_ceiling"],
                           0.7, False))}
    emit(res, args.json)


if __name__ == "__main__":
    asyncio.run(main())
