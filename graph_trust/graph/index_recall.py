"""A vector index's recall, measured on its graph's own data, and the cosine stage it leads to.

An HNSW index is approximate: how many of the exact top 10 it finds depends on the data (where
every query has hundreds of near-equal neighbours it falls) and on how widely a query explores.
:func:`measure` samples queries from the graph's stored embeddings (as stored, perturbed, and
halfway between two of them, plus any real query embeddings handed in), asks the index for each as
the search stage does, and compares the index's top 10 with an exact scan of every stored vector.
A step's recall is that of its hardest kind of query: a query near no stored fact (a midpoint; a
real query sharing words with many facts) is where HNSW misses, and a sample of stored facts alone
measured 1.000 where real queries got 0.973 (docs/benchmarks.md, "Vector index"). Real queries,
once there are as many as the midpoints would be, replace them. Below the target it asks
again exploring wider (the query's k, doubled step by step: FalkorDB explores ``max(efRuntime,
k)``, Neo4j ``k``) up to ``vector_index.max_ef``, and records every step. :func:`choose` turns
a measurement, the graph's size and the settings into the stage a search uses and why;
:func:`refresh` (re)measures what is missing or stale and keeps it in the state store
(:mod:`graph_trust.graph.recall_store`). Search reads the store; init, ``index check`` and sync
write it.

Equal cosine scores are no reason to scan: the index stage orders them by uuid, the documented
tie key (:mod:`graph_trust.search.cosine`). How often the sampled queries' top candidates tie
(``tie_share``) is still measured and shown by ``index status``: it says how much of a graph's
order the key decides.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np

from graph_trust.config import Settings
from graph_trust.graph import backends
from graph_trust.graph import vector_index as vi
from graph_trust.graph.recall_store import RecallStore

TOP = 10  # recall@10
EPS = 1e-5  # an item scoring within this of the exact 10th score is a hit (ties at the 10th count)
PERTURB = 0.3  # norm of the noise added to a perturbed sample (stored embeddings are unit vectors)
# What a measurement's figures mean; one measured by an earlier check is stale (re-measured).
METHOD = 2  # 2: recall of the hardest kind of sampled query (stored, perturbed, between, given)
WORD = {"edge": "edges", "node": "entities"}

Progress = Callable[[str, int, int | None], None]
# a group (None: every group) -> real query embeddings (the retrieval log's: review.log.query_source)
QuerySource = Callable[[str | None], Awaitable[list[list[float]]]]


@dataclass(frozen=True)
class Choice:
    """The cosine stage a search of one graph uses, and why; ``k``: what the index is asked for."""

    stage: str  # "index" | "scan"
    reason: str
    k: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def pool_k(settings: Settings) -> tuple[int, int]:
    """(the cosine stage's pool at ``search.limit``, the k it asks the index for)."""
    s = settings.search
    pool = max(1, math.ceil(2 * s.limit * s.pool_multiplier))
    return pool, max(pool, math.ceil(pool * s.cosine_oversample))


def ladder(k0: int, ef_runtime: int | None, max_ef: int) -> list[int]:
    """The ks a check tries: the stage's own, then doubling from what it already explores."""
    steps = [k0]
    explore = max(k0, ef_runtime or 0)
    while explore < max_ef:
        explore = min(max_ef, 2 * explore)
        steps.append(explore)
    return steps


def k_for(measurement: dict[str, Any], target: float) -> int | None:
    """The smallest measured k whose recall reached ``target`` (None: none did)."""
    ok = [s["k"] for s in measurement.get("ladder", []) if s["recall"] >= target]
    return min(ok) if ok else None


def best_recall(measurement: dict[str, Any]) -> float:
    return max((s["recall"] for s in measurement.get("ladder", [])), default=0.0)


def _options(present: dict[str, Any]) -> dict[str, Any]:
    return {k: present.get(k) for k in ("dimension", "M", "efConstruction", "efRuntime")}


def stale_reason(measurement: dict[str, Any], items: int, present: dict[str, Any], share: float,
                 kind: str) -> str | None:
    """Why ``measurement`` no longer describes the index (None: it does)."""
    if measurement.get("method") != METHOD:
        return "recall was measured by an earlier version of the check"
    then = int(measurement["items"])
    if abs(items - then) > share * max(then, 1):
        return (f"recall was measured at {then:,} {WORD[kind]}, the graph now holds {items:,} "
                f"(more than vector_index.recheck_share {share:g} apart)")
    now = _options(present)
    if any(v is not None and measurement["options"].get(k) not in (None, v) for k, v in now.items()):
        return "recall was measured on another index (rebuilt since)"
    return None


def choose(*, mode: str, kind: str, items: int, present: dict[str, Any] | None,
           measurement: dict[str, Any] | None, min_size: int, min_recall: float, recheck_share: float,
           k0: int) -> Choice:
    """The stage a search of one graph uses (``mode`` is ``search.cosine``), and why."""
    if mode == "scan":
        return Choice("scan", "search.cosine is scan")
    if present is None:
        return Choice("scan", "no vector index (graph-trust init creates it)")
    if not present.get("ready", True):
        return Choice("scan", "the vector index is still being filled")
    stale = None if measurement is None else stale_reason(measurement, items, present, recheck_share, kind)
    k = None if measurement is None or stale else k_for(measurement, min_recall)
    if mode == "index":
        return Choice("index", "search.cosine is index", max(k0, k or k0))
    if items < min_size:
        return Choice("scan", f"{items:,} {WORD[kind]}, below search.cosine_index_min_size ({min_size:,})")
    if measurement is None:
        return Choice("scan", "recall not measured yet (graph-trust index check measures it)")
    if stale:
        return Choice("scan", f"{stale}: graph-trust index check (or the next sync) re-measures it")
    if k is None:
        steps = measurement["ladder"]
        return Choice("scan", f"recall@10 {best_recall(measurement):.3f} < vector_index.min_recall "
                              f"{min_recall:g}, even at k {steps[-1]['k']:,}")
    recall = next(s["recall"] for s in measurement["ladder"] if s["k"] == k)
    return Choice("index", f"recall@10 {recall:.3f} >= {min_recall:g} at k {k:,} (measured at "
                           f"{int(measurement['items']):,} {WORD[kind]})", max(k0, k))


def _unit(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows scaled to unit length, and which rows are non-zero (a zero vector is similar to nothing)."""
    norms = np.linalg.norm(rows, axis=1)
    ok = norms > 0
    out = np.zeros_like(rows)
    out[ok] = rows[ok] / norms[ok, None]
    return out, ok


async def _sample(conn: Any, target: vi.Target, items: int, n: int, rng: random.Random) -> list[list[float]]:
    """About ``n`` stored embeddings from randomly chosen small read ranges (spread over the graph)."""
    ranges = await conn.backend.vector_read_ranges(conn, target.kind, items, batch=max(1, n // 8))
    rng.shuffle(ranges)
    pool: list[Any] = []
    for lo, hi in ranges:
        pool += [v for v in (r["v"] for r in await conn.query(f"{target.kind}_vectors_in_range", lo=lo, hi=hi))
                 if v is not None]
        if len(pool) >= 2 * n:
            break
    rng.shuffle(pool)
    return [list(map(float, v)) for v in pool[:n]]


def _between(a: list[float], b: list[float]) -> list[float]:
    """The unit vector halfway between two stored embeddings: a query near neither (it shares
    some of each one's words), the kind whose exact top 10 HNSW misses first."""
    x = np.asarray(a, dtype=np.float64) / (np.linalg.norm(a) or 1.0) + np.asarray(b, dtype=np.float64) / (
        np.linalg.norm(b) or 1.0)
    n = np.linalg.norm(x)
    return (x / n).tolist() if n > 1e-6 else list(map(float, a))


def _perturbed(v: list[float], rng: np.random.Generator) -> list[float]:
    x = np.asarray(v, dtype=np.float64)
    noise = rng.normal(size=x.shape)
    x = x / (np.linalg.norm(x) or 1.0) + PERTURB * noise / np.linalg.norm(noise)
    return (x / np.linalg.norm(x)).tolist()


async def _exact_top(conn: Any, target: vi.Target, items: int, queries: np.ndarray, depth: int,
                     progress: Progress) -> np.ndarray:
    """Per query, its ``depth`` highest exact cosines over every stored vector (descending)."""
    q, _ = _unit(queries.astype(np.float32))
    top = np.full((len(q), depth), -np.inf, dtype=np.float32)
    async for _, vectors in vi.iter_vectors(conn, target, items, progress=lambda i, n: progress("exact scan", 1, n)):
        rows = [v for v in vectors if v is not None and len(v) == q.shape[1]]
        if not rows:
            continue
        mat, ok = _unit(np.asarray(rows, dtype=np.float32))
        sims = q @ mat[ok].T
        both = np.concatenate([top, sims], axis=1)
        keep = min(depth, both.shape[1])
        part = np.partition(both, both.shape[1] - keep, axis=1)[:, -keep:]
        top = -np.sort(-part, axis=1)
    return top


async def measure(conn: Any, kind: str, settings: Settings, *, extra_queries: list[list[float]] | None = None,
                  seed: int = 0, progress: Progress | None = None) -> dict[str, Any]:
    """Measure the recall@10 of ``conn``'s graph's ``kind`` index (which must exist and be
    filled) against an exact scan; see the module docstring. ``extra_queries``: real query
    embeddings (e.g. a retrieval log's) measured beside the sampled ones."""
    progress = progress or (lambda phase, n, total: None)
    t0 = time.monotonic()
    target = vi.EDGES if kind == "edge" else vi.NODES
    await conn.settle()  # the index builds graphiti-core's drivers start, then their filling:
    await vi.until_ready(conn)  # a range read of a half-filled uuid index would miss items
    present = (await vi.existing(conn.driver) or {}).get(kind)
    if present is None:
        raise ValueError(f"no {kind} vector index in graph {conn.database!r}")
    items = await vi.count(conn, kind)
    vs = settings.vector_index
    rng = random.Random(seed)
    third = vs.check_queries // 3
    dim = present.get("dimension")

    async def sample(n: int) -> list[list[float]]:
        return [v for v in await _sample(conn, target, items, n, rng) if len(v) == dim or not dim]

    raw = await sample(vs.check_queries - 2 * third)
    nprng = np.random.default_rng(seed)
    perturbed = [_perturbed(v, nprng) for v in await sample(third)]
    given = [list(map(float, v)) for v in (extra_queries or []) if len(v) == dim or not dim]
    # midpoints stand in for real queries until the retrieval log holds as many as they would be
    ends = await sample(2 * third) if len(given) < third else []
    between = [_between(a, b) for a, b in zip(ends[::2], ends[1::2], strict=False)]
    kinds = {"stored": raw, "perturbed": perturbed, "between": between, "given": given}
    queries = raw + perturbed + between + given
    kind_of = [k for k, qs in kinds.items() for _ in qs]
    if not queries:
        raise ValueError(f"no stored {kind} embeddings to sample in graph {conn.database!r}")
    pool, k0 = pool_k(settings)
    top = min(TOP, pool)  # (a search of fewer than 5 results has a pool below 10)
    exact = await _exact_top(conn, target, items, np.asarray(queries, dtype=np.float32), pool + 1, progress)
    want = np.isfinite(exact[:, :top]).sum(axis=1)  # top, or fewer in a graph that holds fewer
    # the exact 10th score on Graphiti's scale (the last there is, in a smaller graph)
    cut = (1.0 + exact[np.arange(len(exact)), np.maximum(want, 1) - 1].astype(np.float64)) / 2.0
    similarity = backends.for_driver(conn.driver).similarity
    steps: list[dict[str, Any]] = []
    tie_share = 0.0
    plan = ladder(k0, present.get("efRuntime"), vs.max_ef)
    for k in plan:
        hits = dict.fromkeys(kinds, 0)
        wanted = dict.fromkeys(kinds, 0)
        tied = 0
        times = []
        for i, vec in enumerate(queries):
            t = time.perf_counter()
            rows = await conn.query(f"vector_query_{kind}s", k=k, search_vector=vec)
            times.append(time.perf_counter() - t)
            sims = sorted((similarity(float(r["score"])) for r in rows), reverse=True)
            hits[kind_of[i]] += min(int(want[i]), sum(1 for s in sims[:top] if s >= cut[i] - EPS))
            wanted[kind_of[i]] += int(want[i])
            head = sims[: pool + 1]
            tied += i < len(raw) and any(a == b for a, b in zip(head, head[1:], strict=False))
            progress("index queries", 1, len(plan) * len(queries))
        by_kind = {q: round(hits[q] / wanted[q], 4) for q in kinds if wanted[q]}
        steps.append({"k": k, "recall": min(by_kind.values(), default=1.0), "by_kind": by_kind,
                      "query_ms": round(statistics.median(times) * 1000, 2)})
        tie_share = tied / max(1, len(raw))
        if steps[-1]["recall"] >= vs.min_recall:
            break
    return {"graph": conn.address.display, "database": conn.database, "kind": kind, "items": items,
            "options": _options(present), "ladder": steps, "tie_share": round(tie_share, 4),
            "queries": len(queries), "sampled": {q: len(qs) for q, qs in kinds.items()}, "method": METHOD,
            "target": vs.min_recall, "seconds": round(time.monotonic() - t0, 2),
            "measured_at": datetime.now(UTC).isoformat(timespec="seconds")}


async def graph_status(conn: Any, settings: Settings, store: RecallStore) -> dict[str, Any]:
    """Per kind: the index (options, filled), the item count, the stored measurement and the
    stage ``search.cosine`` chooses for ``conn``'s graph, with why."""
    present_all = await vi.existing(conn.driver)
    _, k0 = pool_k(settings)
    out: dict[str, Any] = {}
    for t in vi.TARGETS:
        present = None if present_all is None else present_all.get(t.kind)
        items = await vi.count(conn, t.kind)
        m = store.get(conn.address.display, conn.database, t.kind)
        choice = choose(mode=settings.search.cosine, kind=t.kind, items=items, present=present, measurement=m,
                        min_size=settings.search.cosine_index_min_size, min_recall=settings.vector_index.min_recall,
                        recheck_share=settings.vector_index.recheck_share, k0=k0)
        m_size = vi.params_for(items, settings.vector_index)
        entry = {"items": items, "index": None if present is None else {**_options(present),
                                                                        "ready": present.get("ready", True),
                                                                        "filled": present.get("filled")},
                 "measurement": m, "choice": choice.to_dict(),
                 "params_for_size": {"M": m_size[0], "efConstruction": m_size[1]}}
        if present_all is None:
            entry["index"] = "unsupported"
        out[t.kind] = entry
    return out


def needs_measuring(kind: str, entry: dict[str, Any], settings: Settings, *, force: bool,
                    written: int = 0) -> str | None:
    """Why the graph's ``kind`` index (a :func:`graph_status` entry) is to be measured now, or None."""
    index = entry["index"]
    if not isinstance(index, dict) or not index.get("ready"):
        return None
    if force:
        return "asked"
    m = entry["measurement"]
    if m is None:
        return "not measured"
    share = settings.vector_index.recheck_share
    if written > share * max(1, entry["items"]):
        return f"{written:,} written (more than {share:g} of {entry['items']:,})"
    return stale_reason(m, entry["items"], index, share, kind)


async def refresh(conn: Any, settings: Settings, store: RecallStore, *, force: bool = False,
                  written: dict[str, int] | None = None, min_items: int = 0,
                  progress: Progress | None = None, queries: QuerySource | None = None) -> dict[str, Any]:
    """Measure ``conn``'s graph's indexes where :func:`needs_measuring` says so (``written``: per
    kind, items a sync just wrote; ``min_items``: skip smaller ones; ``queries``: real query
    embeddings measured beside the sampled ones) and store the results. Returns
    :func:`graph_status` after it, with ``measured`` (why, per kind re-measured)."""
    status = await graph_status(conn, settings, store)
    measured = {}
    real: list[list[float]] | None = None
    for kind, entry in status.items():
        why = needs_measuring(kind, entry, settings, force=force, written=(written or {}).get(kind, 0))
        if why is None or entry["items"] < min_items:
            continue
        if real is None:
            real = await queries(conn.database if conn.backend.graph_per_group else None) if queries else []
        m = await measure(conn, kind, settings, extra_queries=real, progress=progress)
        store.put(conn.address.display, conn.database, kind, m)
        measured[kind] = why
    if measured:
        status = await graph_status(conn, settings, store)
    return {"graph": conn.database, "measured": measured, "kinds": status}
