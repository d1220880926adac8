"""The exact vector store: every stored embedding of a graph, memory-mapped beside it.

Graphiti's cosine stage scans every edge in Cypher; an HNSW index is fast but approximate. This
store keeps, per graph address, graph (FalkorDB: a group's graph; Neo4j: the database) and kind
(``edge``: ``RELATES_TO.fact_embedding``; ``node``: ``Entity.name_embedding``), every embedding
as one float32 matrix of unit rows (``vectors.npy``) with the items' uuids (``uuids.npy``) and
the BM25 postings of their text (:mod:`graph_trust.graph.text_index`), sorted by group then uuid,
under ``state_dir/vectors/``. Search maps the files read-only
(``np.load(mmap_mode="r")``), so every process on the machine (the MCP server, the CLI, an
application) shares one copy in the page cache, and finds the exact top k with FAISS's flat
inner-product search when ``faiss-cpu`` is installed (``graph-trust[exact]``), else with NumPy
(the same float32 products; docs/benchmarks.md, "Exact cosine store").

Fresh by construction, against Graphiti's own writes (:meth:`StoreView.refresh`, at each search):
items created after the store's watermark (the newest ``created_at`` it holds; Graphiti's range
index on ``created_at``) are read and added in memory; when the graph's item count is not the
one the store accounts for (items deleted, or saved with an older ``created_at`` than the
watermark, as Graphiti does when it saves an edge it made before a newer one), every uuid is
read and compared, so deleted items are dropped and missing ones added. The stage scores its candidates again in the
graph (:mod:`graph_trust.search.cosine`), so an item deleted since is never returned and a
re-embedded one is scored by its current embedding. ``graph-trust init``, ``index rebuild`` and
``sync`` write a new generation (a new directory, then the ``current`` pointer replaced at once):
readers switch at their next search, and a reader of the old generation keeps its mapping.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from graph_trust.graph import text_index
from graph_trust.graph import vector_index as vi

try:  # the optional extra graph-trust[exact]: the same exact scan, several times faster (measured)
    import faiss
except ImportError:  # pragma: no cover - exercised where faiss-cpu is not installed
    faiss = None

DIR = "vectors"  # under the state directory
POINTER = "current"
VERSION = 1
KINDS = ("edge", "node")


def library() -> str:
    return "faiss" if faiss is not None else "numpy"


def location(root: Path, graph: str, database: str, kind: str) -> Path:
    """The directory of one store: readable names plus a hash (addresses hold ``:`` and ``/``)."""
    def slug(s: str) -> str:
        return re.sub(r"[^A-Za-z0-9_.-]+", "_", s)[:40] + "-" + hashlib.sha1(s.encode()).hexdigest()[:10]
    return root / slug(graph) / slug(database) / kind


def as_datetime(value: Any) -> datetime | None:
    """A stored ``created_at`` (FalkorDB: Graphiti's ISO string; Neo4j: a driver DateTime) as an aware datetime."""
    if value is None:
        return None
    if hasattr(value, "to_native"):
        value = value.to_native()
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    if not isinstance(value, datetime):
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def unit_rows(rows: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length in place (a zero row stays zero: it is similar to nothing)."""
    norms = np.linalg.norm(rows, axis=1)
    ok = norms > 0
    rows[ok] /= norms[ok, None]
    return rows


def read_meta(path: Path) -> dict[str, Any] | None:
    """The current generation's metadata (with ``dir``), or None when no store was built."""
    try:
        name = (path / POINTER).read_text().strip()
        meta = json.loads((path / name / "meta.json").read_text())
    except (OSError, ValueError):
        return None
    return {**meta, "dir": str(path / name)} if meta.get("version") == VERSION else None


async def build(conn: Any, kind: str, root: Path, progress: Callable[[int, int], None] | None = None
                ) -> dict[str, Any]:
    """Read every stored embedding of ``kind`` in ``conn``'s graph and write a new generation of
    its store (the previous one stays readable until the pointer moves). Returns its metadata."""
    target = vi.EDGES if kind == "edge" else vi.NODES
    total = await vi.count(conn, kind)
    return await write_generation(location(root, conn.address.display, conn.database, kind), kind,
                                  vi.iter_rows(conn, target, total, progress), graph=conn.address.display,
                                  database=conn.database, count=lambda: vi.count(conn, kind))


async def write_generation(path: Path, kind: str, batches: AsyncIterator[list[dict[str, Any]]], *, graph: str,
                           database: str, count: Callable[[], Awaitable[int]]) -> dict[str, Any]:
    """Write a new generation of the store at ``path`` from ``batches`` of rows (``uuid``, ``v``,
    ``group_id``, ``created_at`` and the text :data:`~graph_trust.graph.text_index.FIELDS` names;
    :func:`graph_trust.graph.vector_index.iter_rows`' rows), then move the pointer to it and
    remove earlier generations. ``count()``: the graph's item count once every row was read (the
    view's change check starts from it). Returns the generation's metadata."""
    t0 = time.monotonic()
    gen = path / f"g{time.time_ns()}"
    gen.mkdir(parents=True)
    try:
        uuids: list[str] = []
        groups: list[str] = []
        docs: list[list[str]] = []  # each item's BM25 terms
        watermark: datetime | None = None
        dims: dict[int, int] = {}
        raw = gen / "raw.f32"
        with raw.open("wb") as out:
            async for rows in batches:
                rows = [r for r in rows if r["v"] is not None and r["uuid"] is not None]
                for r in rows:
                    dims[len(r["v"])] = dims.get(len(r["v"]), 0) + 1
                if len(dims) > 1:
                    vi.one_dimension(dims, vi.EDGES if kind == "edge" else vi.NODES, database, None)  # raises
                if rows:
                    out.write(np.asarray([r["v"] for r in rows], dtype=np.float32).tobytes())
                uuids += [r["uuid"] for r in rows]
                groups += [r.get("group_id") or "" for r in rows]
                docs += [text_index.tokens(text_index.doc_text(r, kind)) for r in rows]
                for r in rows:
                    t = as_datetime(r.get("created_at"))
                    if t is not None and (watermark is None or t > watermark):
                        watermark = t
        dim = next(iter(dims), 0)
        order = sorted(range(len(uuids)), key=lambda i: (groups[i], uuids[i]))
        names = sorted(set(groups))
        starts = np.searchsorted(np.asarray([groups[i] for i in order], dtype=object), names).tolist() if order else []
        width = max((len(u.encode()) for u in uuids), default=1)
        np.save(gen / "uuids.npy", np.asarray([uuids[i].encode() for i in order], dtype=f"S{width}"))
        vectors = np.lib.format.open_memmap(gen / "vectors.npy", mode="w+", dtype=np.float32,
                                            shape=(len(order), dim))
        if order:
            src = np.memmap(raw, dtype=np.float32, mode="r", shape=(len(uuids), dim))
            perm = np.asarray(order, dtype=np.int64)
            for a in range(0, len(perm), 8192):
                vectors[a:a + 8192] = unit_rows(np.array(src[perm[a:a + 8192]], dtype=np.float32))
            del src
        vectors.flush()
        del vectors
        raw.unlink()
        text_index.write(gen, [docs[i] for i in order])
        after = await count()
        meta = {"version": VERSION, "graph": graph, "database": database, "kind": kind,
                "items": len(order), "dimension": dim, "groups": names, "starts": starts,
                "count": max(after, len(order)), "watermark": watermark.isoformat() if watermark else None,
                "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
                "seconds": round(time.monotonic() - t0, 2)}
        (gen / "meta.json").write_text(json.dumps(meta))
        tmp = path / f"{POINTER}.tmp{os.getpid()}"
        tmp.write_text(gen.name)
        os.replace(tmp, path / POINTER)
    except BaseException:
        shutil.rmtree(gen, ignore_errors=True)
        raise
    for old in path.glob("g*"):  # earlier generations: open mappings stay valid after unlink
        if old.name != gen.name:
            shutil.rmtree(old, ignore_errors=True)
    return {**meta, "dir": str(gen)}


def root_of(settings: Any) -> Path:
    """Where the stores of ``settings``' state directory live."""
    return settings.state_dir / DIR


async def ensure(conn: Any, settings: Any, *, force: bool = False,
                 progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Build ``conn``'s graph's stores (``vector_index.store``) where missing, where the graph's
    item count is not the one built (Graphiti added or deleted items since), or with ``force``
    (``index rebuild``). Per kind: ``{"status": "built" | "current" | "disabled", ...meta}``."""
    if not settings.vector_index.store:
        return {k: {"status": "disabled"} for k in KINDS}
    root = root_of(settings)
    out: dict[str, Any] = {}
    for kind in KINDS:
        meta = read_meta(location(root, conn.address.display, conn.database, kind))
        if not force and meta is not None and meta["count"] == await vi.count(conn, kind):
            out[kind] = {"status": "current", **meta}
            continue
        out[kind] = {"status": "built", **await build(conn, kind, root, progress)}
    return out


def reason(items: int, built_at: str, kind: str) -> str:
    """Why search uses the store (``index status``, ``--explain``)."""
    return (f"exact vector store of {items:,} {'edges' if kind == 'edge' else 'entities'}, kept fresh at each search, "
            f"scanned with {library()}")


def status(settings: Any, graph: str, database: str, kind: str) -> dict[str, Any] | None:
    """What ``index status`` shows of one store (None: not built)."""
    if not settings.vector_index.store:
        return None
    meta = read_meta(location(root_of(settings), graph, database, kind))
    return None if meta is None else {k: meta[k] for k in ("items", "dimension", "built_at", "seconds", "count")}


def choice(settings: Any, store: dict[str, Any] | None, kind: str) -> dict[str, Any] | None:
    """The stage ``search.cosine`` takes given a store's :func:`status` (None: not the store)."""
    if store is None or settings.search.cosine not in ("auto", "store"):
        return None
    return {"stage": "store", "reason": reason(store["items"], store["built_at"], kind), "k": None}


def forget(conn_graph: str, database: str, kind: str, root: Path) -> bool:
    """Remove a store (``index rebuild`` of an emptied graph); False when there was none."""
    path = location(root, conn_graph, database, kind)
    if not path.exists():
        return False
    shutil.rmtree(path, ignore_errors=True)
    return True


class StoreView:
    """One store as a process sees it: the built generation, memory-mapped, plus what Graphiti
    wrote since (kept in memory until the next generation) and what it deleted."""

    def __init__(self, path: Path, meta: dict[str, Any]):
        self.path = path
        self.meta = meta
        gen = Path(meta["dir"])
        self.uuids = np.load(gen / "uuids.npy", mmap_mode="r")
        self.vectors = np.load(gen / "vectors.npy", mmap_mode="r")
        self.groups: list[str] = meta["groups"]
        starts = meta["starts"]
        self.bounds = list(zip(starts, [*starts[1:], meta["items"]][:len(starts)], strict=True))
        self.postings = text_index.Postings.load(gen)  # BM25 postings of the built items
        self.deleted = np.zeros(0, dtype=np.int64)  # store rows found deleted
        self.added: dict[str, tuple[str, np.ndarray | None]] = {}  # uuid -> (group, unit vector or None)
        self.added_terms: dict[str, list[str]] = {}  # uuid -> BM25 terms of an item added since
        self.count = int(meta["count"])  # the graph's item count this view accounts for
        # an empty store reads every item Graphiti writes later
        self.watermark = as_datetime(meta.get("watermark")) or datetime(1970, 1, 1, tzinfo=UTC)
        self.checked_at: str | None = None
        self.lock = asyncio.Lock()

    async def refresh(self, driver: Any, kind: str) -> dict[str, int]:
        """Take in what Graphiti wrote since (see the module docstring); what changed."""
        async with self.lock:
            added = deleted = 0
            rows = await vi.run(driver, f"{kind}_created_since", since=self.watermark)
            new = [r["uuid"] for r in rows if r["uuid"] not in self.added]
            stored = self._stored(new)
            added += await self._add(driver, kind, [u for u, s in zip(new, stored, strict=True) if not s])
            if await vi.count(driver, kind) != self.count:
                a, deleted = await self._reconcile(driver, kind)
                added += a
            self.checked_at = datetime.now(UTC).isoformat(timespec="seconds")
            return {"added": added, "deleted": deleted}

    def _stored(self, uuids: list[str]) -> np.ndarray:
        """Which of ``uuids`` the built generation holds (in any group)."""
        found = np.zeros(len(uuids), dtype=bool)
        if not uuids or not len(self.uuids):
            return found
        keys = np.asarray([u.encode() for u in uuids], dtype=self.uuids.dtype)
        for a, b in self.bounds:
            i = np.minimum(a + np.searchsorted(self.uuids[a:b], keys), max(a, b - 1))
            found |= (i < b) & (self.uuids[i] == keys)
        return found

    async def _add(self, driver: Any, kind: str, new: list[str]) -> int:
        if not new:
            return 0
        rows = await vi.run(driver, f"{kind}_vectors_by_uuid", uuids=new)
        for r in rows:
            v = None if r["v"] is None else unit_rows(np.asarray([r["v"]], dtype=np.float32))[0]
            if v is not None and self.vectors.shape[1] and len(v) != self.vectors.shape[1]:
                v = None  # another dimension: Graphiti's cosine compares nothing with it either
            self.added[r["uuid"]] = (r.get("group_id") or "", v)
            self.added_terms[r["uuid"]] = text_index.tokens(text_index.doc_text(r, kind))
            t = as_datetime(r.get("created_at"))
            if t is not None and (self.watermark is None or t > self.watermark):
                self.watermark = t
        self.count += len(rows)
        return len(rows)

    async def _reconcile(self, driver: Any, kind: str) -> tuple[int, int]:
        """Compare every uuid of the graph with the view's: drop the deleted, add the missing."""
        present = {r["uuid"] for r in await vi.run(driver, f"{kind}_uuids_all")}
        gone = [u for u in self.added if u not in present]
        for u in gone:
            del self.added[u]
            self.added_terms.pop(u, None)
        alive = np.isin(np.char.decode(np.asarray(self.uuids)), list(present)) if len(self.uuids) else np.zeros(0, bool)
        before = len(self.deleted)
        self.deleted = np.flatnonzero(~alive)
        stored = set(np.char.decode(np.asarray(self.uuids[alive])).tolist()) if alive.any() else set()
        missing = [u for u in present if u not in stored and u not in self.added]
        added = await self._add(driver, kind, missing)
        self.count = len(present)
        return added, len(gone) + max(0, len(self.deleted) - before)

    def top(self, query: np.ndarray, k: int, groups: list[str] | None) -> tuple[list[str], np.ndarray]:
        """The ``k`` best items by cosine with ``query`` (a unit float32 vector) among ``groups``
        (None: all), deleted ones left out: uuids and cosines, best first, equal cosines by uuid."""
        found_u: list[str] = []
        found_s: list[np.ndarray] = []
        spans = [b for g, b in zip(self.groups, self.bounds, strict=True) if groups is None or g in groups]
        for a, b in spans:
            if b <= a:
                continue
            dead = self.deleted[(self.deleted >= a) & (self.deleted < b)]
            want = min(b - a, k + len(dead))
            idx, sims = _knn(self.vectors[a:b], query, want)
            keep = ~np.isin(idx + a, dead)
            found_u += np.char.decode(np.asarray(self.uuids[idx[keep] + a])).tolist()
            found_s.append(sims[keep])
        extra = [(u, v) for u, (g, v) in self.added.items() if v is not None and (groups is None or g in groups)]
        if extra:
            found_u += [u for u, _ in extra]
            found_s.append(np.stack([v for _, v in extra]) @ query)
        scores = np.concatenate(found_s) if found_s else np.zeros(0, np.float32)
        order = sorted(range(len(found_u)), key=lambda i: (-float(scores[i]), found_u[i]))[:k]
        return [found_u[i] for i in order], scores[order] if order else np.zeros(0, np.float32)

    def bm25_top(self, terms: list[str], k: int, groups: list[str] | None) -> tuple[list[str], np.ndarray]:
        """The ``k`` best items by BM25 for the query ``terms`` (:mod:`graph_trust.graph.text_index`,
        statistics per group over the items the view holds), deleted ones left out: uuids and
        scores, best first, equal scores by uuid; only items matching some term."""
        found_u: list[str] = []
        found_s: list[np.ndarray] = []
        for g, (a, b) in zip(self.groups, self.bounds, strict=True):
            if groups is not None and g not in groups:
                continue
            u, s = self._bm25_group(g, a, b, list(dict.fromkeys(terms)), k)
            found_u += u
            found_s.append(s)
        for g in {g for g, _ in self.added.values()} - set(self.groups):  # groups that are new since the build
            if groups is None or g in groups:
                u, s = self._bm25_group(g, 0, 0, list(dict.fromkeys(terms)), k)
                found_u += u
                found_s.append(s)
        scores = np.concatenate(found_s) if found_s else np.zeros(0)
        order = sorted(range(len(found_u)), key=lambda i: (-float(scores[i]), found_u[i]))[:k]
        return [found_u[i] for i in order], scores[order] if order else np.zeros(0)

    def _bm25_group(self, group: str, a: int, b: int, terms: list[str], k: int) -> tuple[list[str], np.ndarray]:
        p = self.postings
        dead = self.deleted[(self.deleted >= a) & (self.deleted < b)]
        extra = {u: ts for u, ts in self.added_terms.items() if self.added[u][0] == group}
        n = (b - a) - len(dead) + len(extra)
        if n <= 0 or not terms:
            return [], np.zeros(0)
        total = (float(np.sum(p.doclen[a:b], dtype=np.int64)) if p is not None and b > a else 0.0) - (
            float(np.sum(p.doclen[dead])) if p is not None and len(dead) else 0.0) + sum(map(len, extra.values()))
        avgdl = total / n
        scores = np.zeros(b - a)
        extra_u = list(extra)
        extra_s = np.zeros(len(extra_u))
        extra_len = np.asarray([len(extra[u]) for u in extra_u], dtype=np.float64)
        for term in terms:
            rows, tf = p.postings(term, a, b) if p is not None else (np.zeros(0, np.int64), np.zeros(0))
            if len(dead) and len(rows):
                keep = ~np.isin(rows, dead)
                rows, tf = rows[keep], tf[keep]
            etf = np.asarray([extra[u].count(term) for u in extra_u], dtype=np.float64)
            df = len(rows) + int(np.count_nonzero(etf))
            if df == 0:
                continue
            if len(rows):
                scores[rows - a] += text_index.bm25(tf.astype(np.float64), p.doclen[rows].astype(np.float64), df, n,
                                                    avgdl)
            if len(extra_u):
                extra_s += np.where(etf > 0, text_index.bm25(etf, extra_len, df, n, avgdl), 0.0)
        hit = np.flatnonzero(scores > 0)
        if len(hit) > k:  # the best k and every fact tied with the k-th (the key orders those)
            cut = np.partition(scores[hit], len(hit) - k)[len(hit) - k]
            hit = hit[scores[hit] >= cut]
        uuids = np.char.decode(np.asarray(self.uuids[hit + a])).tolist() if len(hit) else []
        ehit = np.flatnonzero(extra_s > 0)
        return uuids + [extra_u[i] for i in ehit], np.concatenate([scores[hit], extra_s[ehit]])

    def describe(self) -> dict[str, Any]:
        return {"items": int(self.meta["items"]), "built_at": self.meta["built_at"], "added": len(self.added),
                "deleted": int(len(self.deleted)), "library": library(), "dimension": int(self.meta["dimension"])}


def _knn(matrix: np.ndarray, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Row indices and inner products of ``matrix``'s ``k`` best rows, best first (exact)."""
    if faiss is not None:
        # one query is memory-bound: one thread (OpenMP threads beside other processes only wait)
        threads = faiss.omp_get_max_threads()
        faiss.omp_set_num_threads(1)
        try:
            sims, idx = faiss.knn(query[None, :], matrix, k, metric=faiss.METRIC_INNER_PRODUCT)
        finally:
            faiss.omp_set_num_threads(threads)
        ok = idx[0] >= 0
        return idx[0][ok].astype(np.int64), sims[0][ok]
    scores = matrix @ query
    if k < len(scores):
        part = np.argpartition(-scores, k - 1)[:k]
    else:
        part = np.arange(len(scores))
    part = part[np.argsort(-scores[part], kind="stable")]
    return part.astype(np.int64), scores[part]


_VIEWS: dict[Path, tuple[Any, StoreView]] = {}


def _stamp(path: Path) -> Any:
    try:
        st = (path / POINTER).stat()
        return (st.st_ino, st.st_mtime_ns, st.st_size)
    except OSError:
        return None


def view(root: Path, graph: str, database: str, kind: str) -> StoreView | None:
    """This process's view of a store (None: not built); a new generation is mapped at once."""
    path = location(root, graph, database, kind)
    stamp = _stamp(path)
    hit = _VIEWS.get(path)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    meta = read_meta(path) if stamp is not None else None
    if meta is None:
        _VIEWS.pop(path, None)
        return None
    v = StoreView(path, meta)
    _VIEWS[path] = (stamp, v)
    return v
