"""Search latency with the shipped defaults (the exact vector store) or the vector index, against Graphiti's ``search_``, at one size.

    python bench/bench_vector.py [--edges 10000] [--embedder hashing|clustered|module:factory] [--json out.json]
                                 [--set vector_index.enabled=true ...]   # a setting instead of the shipped default
    python -m bench ...   # the harness: this measurement at every size and embedder of its curves

In one process, on one synthetic graph (bench/synth.py: facts of an operations domain; their
vectors from the offline ``HashingEmbedder``, from ``synth.ClusteredEmbedder``'s dense clustered
ones, or from any embedder ``search.embedder`` accepts, ``module:factory``), with the shipped
default settings: ``graph-trust init``'s steps (the exact vector store; the HNSW vector indexes,
parameters by size, and their recall check only where the settings create them:
``--set vector_index.enabled=true``), then ``trust_search`` as ``graph-trust search`` runs it (``search.cosine: auto``) against
Graphiti's own ``search_`` (EDGE_HYBRID_SEARCH_RRF), interleaved query by query (each query's
calls in alternating order) over ``--rounds`` rounds: p50 and p95 and their ratios, which stage
the default chose and why. Beside them: each candidate stage alone (BM25: Graphiti's and trust_search's; cosine: the scan
and the index); recall@10 of the index stage (at the k the check chose)
against an exact numpy scan of every stored vector, over the benchmark's own queries (an edge
scoring at least the scan's 10th score is a hit, so ties at the 10th count); how often, at
trust weight 0 with the reference settings, the default's top 10 equals ``search_``'s, and how
often the index's candidates are the scan's; the index build time (until the server reports it
filled), the recall check's time, and the FalkorDB server's resident memory. ``--modes`` adds
``index`` (the index forced) and ``scan``. ``--logged-queries N`` gives the graph a retrieval log
of N earlier queries (``review.log_queries``) that the recall check measures as real queries, as
on a graph agents already search. No timed assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import numpy as np  # noqa: E402
import synth  # noqa: E402
from graphiti_core.search import search_utils as su  # noqa: E402
from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF  # noqa: E402
from graphiti_core.search.search_filters import SearchFilters  # noqa: E402
from output import emit  # noqa: E402

from graph_trust.clients.factory import make_embedder
from graph_trust.clients.hashing import HashingEmbedder  # noqa: E402
from graph_trust.clients.offline import make_graphiti  # noqa: E402
from graph_trust.config import PROFILES, load_settings, parse_sets  # noqa: E402
from graph_trust.errors import GraphTrustError  # noqa: E402
from graph_trust.graph import (
    index_recall,  # noqa: E402
    vector_store,  # noqa: E402
)
from graph_trust.graph import vector_index as vi  # noqa: E402
from graph_trust.graph.connection import open_graph  # noqa: E402
from graph_trust.graph.recall_store import RecallStore  # noqa: E402
from graph_trust.review import log as retrieval_log  # noqa: E402
from graph_trust.review.db import ReviewConn  # noqa: E402
from graph_trust.review.schema import init_review_tables  # noqa: E402
from graph_trust.search.bm25 import bm25_candidates  # noqa: E402
from graph_trust.search.cosine import (  # noqa: E402
    cosine_candidates,
    forget,
    store_view,  # noqa: E402
)
from graph_trust.search.fulltext import edge_fulltext_candidates  # noqa: E402
from graph_trust.search.ranked import search_config  # noqa: E402
from graph_trust.search.trust_search import trust_search  # noqa: E402

GROUP = "bench"
MODES = ("search_", "default")


EMBEDDER_SPECS = {"clustered": "synth:ClusteredEmbedder"}  # search.embedder naming the bench's embedders


def write_log(path: Path, n: int, timed: list[str]) -> Path:
    """A review DB whose retrieval log kept ``n`` earlier queries of the bench's group: texts of
    the same templates as the ``timed`` queries, none of them."""
    ReviewConn.open(path, create=True).close()
    init_review_tables(path)
    earlier = [q for q in dict.fromkeys(synth.synth_queries(8 * n, seed=97)) if q not in set(timed)][:n]
    log = retrieval_log.RetrievalLog(path, log_queries=True, background=False)
    start = datetime(2026, 1, 1, tzinfo=UTC).timestamp()
    for i, q in enumerate(earlier):
        log.record("search", [], query=q, groups=[GROUP], at=start + i)
    log.close()
    return path


def make(name: str):  # noqa: ANN201
    """The benchmark's embedder: ``hashing``, ``clustered``, or what ``search.embedder`` names."""
    if name == "clustered":
        return synth.ClusteredEmbedder()
    if name == "hashing":
        return HashingEmbedder()
    return make_embedder(load_settings(overrides={"search.embedder": name}, environ={}))


async def server_memory_mb(driver) -> dict[str, float]:  # noqa: ANN001
    """Resident memory of the FalkorDB server process now and at its peak (VmRSS, VmHWM), MiB."""
    info = await driver.client.connection.info("server")
    out = {}
    for line in Path(f"/proc/{int(info['process_id'])}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out["rss_mb" if key == "VmRSS" else "peak_rss_mb"] = round(int(value.split()[0]) / 1024, 1)
    return out


def peak_mb(*samples: dict[str, float]) -> float:
    """The server's peak resident memory: its VmHWM and every VmRSS read. Linux updates the
    high-water mark lazily (and counts RSS per thread in batches), so a VmHWM read later can be
    below a VmRSS read earlier (63.2 after 63.3 MiB, seen once)."""
    return max(v for m in samples for v in (m["rss_mb"], m["peak_rss_mb"]))


def own_memory_mb() -> float:
    """This process's resident memory (VmRSS), MiB: the search side, which maps the store."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def store_mapped_mb(view) -> float:  # noqa: ANN001
    """Resident memory of this process's mappings of the store's files (page cache shared by
    every process that maps them), MiB."""
    where, total, inside = str(Path(view.meta["dir"])), 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        if line[:1].isdigit() or line[:1] in "abcdef" and "-" in line.split()[0]:
            inside = line.rstrip().endswith(".npy") and where in line
        elif inside and line.startswith("Rss:"):
            total += int(line.split()[1])
    return round(total / 1024, 1)


def store_files_mb(view) -> float:  # noqa: ANN001
    return round(sum(p.stat().st_size for p in Path(view.meta["dir"]).iterdir()) / 2**20, 1)


def spread(xs: list[float]) -> dict[str, float]:
    """p10, p50, p90 and p95 of ``xs`` (seconds), in ms."""
    q = np.percentile(np.asarray(xs) * 1000, [10, 50, 90, 95])
    return {k: round(float(v), 2) for k, v in zip(("p10", "p50", "p90", "p95"), q, strict=True)}


def say(what: str) -> None:
    """One progress line on stderr (a 1M-edge run takes over an hour: where it is shows)."""
    print(f"{time.strftime('%H:%M:%S')} {what}", file=sys.stderr, flush=True)


async def drop_vector_indexes(conn) -> None:  # noqa: ANN001
    for t in vi.TARGETS:
        await vi.drop(conn, t)


async def exact_cuts(conn, vectors: list[list[float]], limit: int) -> tuple[np.ndarray, float]:  # noqa: ANN001
    """Per query, the exact ``limit``-th cosine over every stored fact embedding (read range by
    range), and the p50 ms of that numpy scan per query (the physical floor of a cosine stage)."""
    q = np.asarray(vectors, dtype=np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    top = np.full((len(q), limit), -np.inf, dtype=np.float32)
    spent = 0.0
    async for _, vs in vi.iter_vectors(conn, vi.EDGES):
        if not vs:
            continue
        mat = np.asarray(vs, dtype=np.float32)
        t = time.perf_counter()
        mat /= np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-12)
        both = np.concatenate([top, q @ mat.T], axis=1)
        top = np.partition(both, both.shape[1] - limit, axis=1)[:, -limit:]
        spent += time.perf_counter() - t
    return np.min(top, axis=1), spent / len(q) * 1000


async def measure(n_edges: int, *, embedder: str = "hashing", queries: int = 60, timed_queries: int | None = None,
                  rounds: int = 1, limit: int = 10, modes: tuple[str, ...] = MODES, exact_queries: int = 20,
                  stage_queries: int = 10, data: Path | None = None, logged_queries: int = 0,
                  overrides: dict | None = None, skip_index: bool = False) -> dict:
    """Every figure at ``n_edges`` edges (see the module docstring). ``timed_queries`` (default
    ``queries``) are timed per round; recall runs over ``queries``; the comparison with
    ``search_`` at weight 0 over ``exact_queries``. ``data`` keeps the graph there and reuses it
    (its vector indexes are dropped and rebuilt, and its measurements forgotten).
    ``logged_queries``: a retrieval log holding that many earlier queries (other texts than the
    timed ones) with ``review.log_queries`` on, so the recall check measures them. ``overrides``:
    dotted settings instead of the shipped defaults (e.g. ``vector_index.m``), recorded in the result."""
    with tempfile.TemporaryDirectory() as tmp:
        root = data or Path(tmp)
        log = {}
        if logged_queries:  # the check embeds them with search.embedder, as in a deployment
            log = {"review.path": str(write_log(root / "review.sqlite3", logged_queries, synth.synth_queries(queries))),
                   "review.log_queries": True,
                   "search.embedder": EMBEDDER_SPECS.get(embedder, embedder)}
        settings = load_settings(overrides={"graph.uri": f"embedded:{root}/g", "graph.database": GROUP,
                                            "state_dir": f"{root}/state", **log, **(overrides or {})},
                                 environ={})
        emb = make(embedder)
        say(f"opening the graph kept in {data} (vector indexes kept in it are refilled as it loads)" if data
            else "opening a temporary graph")
        async with open_graph(settings) as conn:
            driver = conn.driver
            build_graph_s = None
            if not (await conn.query("relates_to_count"))[0]["n"]:
                say(f"building a graph of {n_edges:,} edges")
                await driver.build_indices_and_constraints()
                t0 = time.perf_counter()
                await synth.build_fast(conn, emb, n_edges)
                build_graph_s = round(time.perf_counter() - t0, 1)
                await conn.settle()
            say("dropping the vector indexes")
            await drop_vector_indexes(conn)  # a kept graph: rebuilt below, as init builds it
            with RecallStore.open(settings) as store:
                for kind in ("edge", "node"):
                    store.forget(conn.address.display, GROUP, kind)
                graphiti = make_graphiti(driver, embedder=emb)
                texts = synth.synth_queries(queries)
                vectors = (await synth.embed_texts(emb, texts)).astype(np.float64).tolist()
                n_timed = min(timed_queries or queries, queries)

                mem_before = await server_memory_mb(driver)
                say("building the exact vector store (init's step)")
                own_before = own_memory_mb()
                t0 = time.perf_counter()
                built = await vector_store.ensure(conn, settings, force=True)
                store_build_s = time.perf_counter() - t0
                index_build_s = check_s = None
                report = checked = None
                if not skip_index:
                    say("building the vector indexes (init's step)")
                    t0 = time.perf_counter()
                    report = await vi.ensure(conn, settings.vector_index)  # init's step: returns once filled
                    index_build_s = time.perf_counter() - t0
                mem_after = await server_memory_mb(driver)
                if not skip_index:
                    say(f"built in {index_build_s:,.0f} s; measuring their recall (the check)")
                    t0 = time.perf_counter()
                    checked = await index_recall.refresh(conn, settings, store,
                                                         queries=retrieval_log.query_source(settings))
                    check_s = time.perf_counter() - t0
                mem_checked = await server_memory_mb(driver)
            forget(driver)

            cfg_v = EDGE_HYBRID_SEARCH_RRF.model_copy(deep=True)
            cfg_v.limit = limit
            default = search_config(settings, limit=limit)  # what graph-trust search runs

            def cfg(mode: str):  # noqa: ANN202
                c = default.model_copy(deep=True)
                if mode != "default":
                    c.cosine.mode = mode
                return c

            stages: dict[str, int] = {}

            async def call(mode: str, q: str, v: list[float]):  # noqa: ANN202
                if mode == "search_":
                    return await graphiti.search_(q, config=cfg_v, group_ids=[GROUP], query_vector=v)
                res = await trust_search(graphiti, q, config=cfg(mode), group_ids=[GROUP], query_vector=v)
                if mode == "default":
                    for c in res.cosine_stages:
                        stages[f"{c['stage']}: {c['reason']}"] = stages.get(f"{c['stage']}: {c['reason']}", 0) + 1
                return res

            for q, v in zip(texts[:3], vectors[:3], strict=True):  # warm-up
                for m in modes:
                    await call(m, q, v)
            stages.clear()
            say(f"timing {n_timed} queries x {rounds} round(s) x {len(modes)} modes")
            runs: dict[str, list[list[float]]] = {m: [] for m in modes}
            for r in range(rounds):
                for m in modes:
                    runs[m].append([])
                for i, (q, v) in enumerate(zip(texts[:n_timed], vectors[:n_timed], strict=True)):
                    order = list(modes) if (i + r) % 2 == 0 else list(reversed(modes))
                    for m in order:
                        t = time.perf_counter()
                        await call(m, q, v)
                        runs[m][-1].append(time.perf_counter() - t)
            p50 = {m: statistics.median(statistics.median(rr) for rr in runs[m]) * 1000 for m in modes}
            p95 = {m: float(np.percentile([x for rr in runs[m] for x in rr], 95)) * 1000 for m in modes}

            say("timing each candidate stage alone")
            # each candidate stage alone, at trust_search's pool (2 x limit): BM25 (Graphiti's and
            # trust_search's), cosine (Graphiti's scan and the index at the chosen k)
            pool = 2 * limit
            min_score = cfg_v.edge_config.sim_min_score
            index_stage = default.cosine.model_copy(update={"mode": "index"})
            store_stage = default.cosine.model_copy(update={"mode": "store"})
            has_store = built["edge"]["status"] != "disabled"  # --set vector_index.store=false: none
            view = store_view(store_stage, driver, "edge") if has_store else None
            stage_t: dict[str, list[float]] = {"bm25_graphiti": [], "bm25_trust_search": [], "cosine_scan": []}
            if has_store:
                stage_t |= {"bm25_store": [], "cosine_store": []}
            if not skip_index:
                stage_t["cosine_index"] = []
            for q, v in zip(texts[:stage_queries], vectors[:stage_queries], strict=True):
                for name, run in (("bm25_graphiti", su.edge_fulltext_search(driver, q, SearchFilters(), [GROUP], pool)),
                                  ("bm25_trust_search", edge_fulltext_candidates(driver, q, SearchFilters(), [GROUP],
                                                                                 pool)),
                                  *((("bm25_store", bm25_candidates("edge", driver, view, q, SearchFilters(),
                                                                    [GROUP], pool)),) if has_store else ()),
                                  ("cosine_scan", su.edge_similarity_search(driver, v, None, None, SearchFilters(),
                                                                            [GROUP], pool, min_score)),
                                  *((("cosine_store", cosine_candidates("edge", driver, v, SearchFilters(), [GROUP],
                                                                        pool, min_score, store_stage)),)
                                    if has_store else ()),
                                  *((("cosine_index", cosine_candidates("edge", driver, v, SearchFilters(), [GROUP],
                                                                        pool, min_score, index_stage)),)
                                    if not skip_index else ())):
                    t = time.perf_counter()
                    await run
                    stage_t[name].append(time.perf_counter() - t)

            # recall@10 of the index stage (at the k the check chose) against the exact scan
            say("recall@10 of the index and store stages against an exact scan")
            cuts, floor_ms = await exact_cuts(conn, vectors, 10)

            async def recall_of(stage) -> float:  # noqa: ANN001
                hits = 0
                for vec, cut in zip(vectors, cuts, strict=True):
                    got = await cosine_candidates("edge", driver, vec, SearchFilters(), [GROUP], 10, -1.0, stage)
                    stored = await conn.query("relink_edge_embeddings", uuids=[e.uuid for e in got])
                    q = np.asarray(vec) / np.linalg.norm(vec)
                    hits += sum(1 for r in stored if float(np.dot(q, np.asarray(r["embedding"]) /
                                                                  np.linalg.norm(r["embedding"]))) >= cut - 1e-5)
                return hits / (10 * len(vectors))

            recall = None if skip_index else await recall_of(index_stage)
            store_recall = await recall_of(store_stage) if has_store else None
            own_after = own_memory_mb()
            mapped = store_mapped_mb(view) if has_store else None

            # at weight 0 with the reference settings: the default's top 10 against search_'s
            say("the default at weight 0 against search_")
            same = same_candidates = same_when_candidates = 0
            ref = default.model_copy(update={**PROFILES["graphiti"], "profile": "graphiti"})
            for q, v in zip(texts[:exact_queries], vectors[:exact_queries], strict=True):
                vanilla = await graphiti.search_(q, config=cfg_v, group_ids=[GROUP], query_vector=v)
                ours = await trust_search(graphiti, q, config=ref, group_ids=[GROUP], trust_weight=0.0,
                                          query_vector=v)
                scan = await su.edge_similarity_search(driver, v, None, None, SearchFilters(), [GROUP], pool,
                                                       min_score)
                idx = await cosine_candidates("edge", driver, v, SearchFilters(), [GROUP], pool, min_score,
                                              store_stage if has_store else index_stage)
                equal = [e.uuid for e in ours.edges] == [e.uuid for e in vanilla.edges] and (
                    ours.edge_reranker_scores == vanilla.edge_reranker_scores)
                same += equal
                if {e.uuid for e in idx} == {e.uuid for e in scan}:
                    same_candidates += 1
                    same_when_candidates += equal

            timed_stages = dict(stages)  # the timed queries' stages (the searches after the refresh count too)
            say(f"refresh after {n_edges // 100:,} new edges (1%)")
            added = await synth.add_edges(conn, emb, max(1, n_edges // 100))
            t0 = time.perf_counter()
            change = await view.refresh(driver, "edge") if has_store else {"added": None}
            refresh_s = time.perf_counter() - t0
            after_add = []
            for q, v in zip(texts[:stage_queries], vectors[:stage_queries], strict=True):
                t = time.perf_counter()
                await call("default", q, v)
                after_add.append(time.perf_counter() - t)
            edge_check = checked["kinds"]["edge"] if checked else None
            if edge_check is not None and not edge_check.get("measurement"):  # no index to measure (the store's default)
                edge_check = None
            store_meta = built["edge"]
            res = {
                "edges": n_edges, "embedder": embedder, "queries": queries, "timed_queries": n_timed,
                "logged_queries": logged_queries, "settings": dict(overrides or {}),
                "rounds": rounds, "limit": limit, "dimension": len(vectors[0]), "graph_build_s": build_graph_s,
                "index_report": report, "index_build_s": None if index_build_s is None else round(index_build_s, 2),
                "check_s": None if check_s is None else round(check_s, 2),
                "check": None if edge_check is None else {
                    "ladder": edge_check["measurement"]["ladder"], "sampled": edge_check["measurement"]["sampled"],
                    "tie_share": edge_check["measurement"]["tie_share"],
                    "queries": edge_check["measurement"]["queries"]},
                "choice": None if edge_check is None else edge_check["choice"], "default_stages": timed_stages,
                "store": None if not has_store else {"build_s": round(store_build_s, 2), "items": store_meta["items"],
                          "library": vector_store.library(), "recall_at_10": round(store_recall, 4),
                          "vectors_mb": round(view.vectors.nbytes / 2**20, 1), "files_mb": store_files_mb(view),
                          "mapped_rss_mb": mapped, "process_rss_growth_mb": round(own_after - own_before, 1),
                          "refresh_after_1pct": {"added": added, "seen": change["added"],
                                                 "refresh_s": round(refresh_s, 3),
                                                 "search_p50_ms_after": round(statistics.median(after_add) * 1000, 2)}},
                "server_rss_mb": {"before_index": mem_before["rss_mb"], "after_index": mem_after["rss_mb"],
                                  "after_check": mem_checked["rss_mb"], "peak": peak_mb(mem_before, mem_after, mem_checked)},
                "p50_ms": {m: round(v, 2) for m, v in p50.items()},
                "p95_ms": {m: round(v, 2) for m, v in p95.items()},
                "round_p50_ms": {m: [round(statistics.median(rr) * 1000, 2) for rr in runs[m]] for m in modes},
                "spread_ms": {m: spread([x for rr in runs[m] for x in rr]) for m in modes},
                "recall_at_10": None if recall is None else round(recall, 4),
                "numpy_scan_p50_ms": round(floor_ms, 3),
                "stage_p50_ms": {k: round(statistics.median(v) * 1000, 2) for k, v in stage_t.items() if v},
                "reference_weight0": {"queries": min(exact_queries, queries), "equal_top10": same,
                                      "same_candidates": same_candidates,
                                      "equal_top10_where_same_candidates": same_when_candidates},
                "hnsw": None if edge_check is None else {k: edge_check["index"].get(k)
                                                         for k in ("M", "efConstruction", "efRuntime")},
            }
            for m in modes:
                if m != "search_":
                    res[f"ratio_{m}_to_search_"] = round(p50[m] / p50["search_"], 3)
                    res[f"ratio_p95_{m}_to_search_"] = round(p95[m] / p95["search_"], 3)
            if data:  # a kept graph loads faster next time without them (they would be refilled first)
                say("dropping the vector indexes of the kept graph")
                await drop_vector_indexes(conn)
            return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--edges", type=int, default=10_000)
    ap.add_argument("--embedder", default="hashing",
                    help="hashing (offline, sparse: many exact ties), clustered (dense clustered synthetic), or "
                         "anything search.embedder accepts (module:factory returning a graphiti EmbedderClient)")
    ap.add_argument("--queries", type=int, default=60, help="queries (recall over all of them)")
    ap.add_argument("--timed-queries", type=int, default=None, help="queries timed per round (default: all)")
    ap.add_argument("--exact-queries", type=int, default=20,
                    help="queries compared with search_ at weight 0 and the reference settings")
    ap.add_argument("--stage-queries", type=int, default=10,
                    help="queries timing each candidate stage alone (BM25 and cosine, Graphiti's and trust_search's)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--limit", type=int, default=10)
    ap.add_argument("--modes", default=",".join(MODES),
                    help="search_ and trust_search with: default (the shipped settings), index, scan")
    ap.add_argument("--data", type=Path, default=None,
                    help="keep the graph in this directory and reuse it (its vector indexes are dropped at the end: "
                         "a graph kept with them refills them as it loads, at 1M edges about as long as a build)")
    ap.add_argument("--logged-queries", type=int, default=0,
                    help="a retrieval log of this many earlier queries (review.log_queries), which the recall check "
                         "measures (from 33 on, instead of its midpoints)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides",
                    help="a setting instead of the shipped default, as in graph-trust's --set (repeatable), "
                         "e.g. --set vector_index.m=64 --set vector_index.ef_construction=800")
    ap.add_argument("--skip-index", action="store_true",
                    help="build no HNSW index and run no recall check even where the settings create them "
                         "(the shipped defaults create none beside the exact store)")
    ap.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = ap.parse_args()
    try:
        overrides = parse_sets(args.overrides)
        own = sorted(k for k in overrides if k.split(".")[0] in ("graph", "state_dir") or k == "review.path")
        if own:  # the bench drops and rebuilds indexes in its graph: never one it was pointed at by --set
            raise GraphTrustError(f"--set {own[0]}: the benchmark builds its own graph and state; use --data DIR")
        load_settings(overrides=overrides, environ={})  # a bad key or value: one line, before any work
    except GraphTrustError as exc:
        ap.error(str(exc))
    modes = tuple(m.strip() for m in args.modes.split(",") if m.strip())
    res = asyncio.run(measure(args.edges, embedder=args.embedder, queries=args.queries,
                              timed_queries=args.timed_queries, rounds=args.rounds, limit=args.limit, modes=modes,
                              exact_queries=args.exact_queries, stage_queries=args.stage_queries, data=args.data,
                              logged_queries=args.logged_queries, overrides=overrides, skip_index=args.skip_index))
    res["command"] = shlex.join(["python", "bench/bench_vector.py", *sys.argv[1:]])
    emit(res, args.json)


if __name__ == "__main__":
    main()
