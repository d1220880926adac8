"""The cosine candidate stage of trust_search: the exact vector store, Graphiti's scan, or the vector index.

The store stage (:mod:`graph_trust.graph.vector_store`, the default wherever the store is built)
finds the exact top candidates among every stored embedding outside the graph, scores them
again in the graph with graphiti-core's own cosine expression and filter conditions, and keeps
reading further down the store's order until no unread item can beat the ``limit``-th it has
(the store's float32 cosines are within :data:`STORE_TOL` of the graph's): the result is the
exact top ``limit`` by Graphiti's score, equal scores ordered by uuid.

Graphiti's cosine stage scores every edge (or entity) of the graph, so its cost grows with the
graph. The index stage asks the HNSW index (:mod:`graph_trust.graph.vector_index`) for an
oversampled top-k, then scores exactly those candidates with graphiti-core's own cosine query
pieces (its filter conditions built from ``SearchFilters``, its cosine expression, its return
clause and record parser), so every filter, score and returned object is what Graphiti's scan
would give for them.
When the filters leave fewer than ``limit`` while the index has more candidates above
``sim_min_score``, k is widened; when it has no more (or ``max_k`` is reached) the stage falls
back to the scan, because an approximate index cannot prove that the graph holds no more: the
stage never returns fewer items than the scan would.

``auto`` (the default) uses a graph's index only where it pays and is measured to be accurate:
the graph holds at least ``min_size`` items and the index's recall@10, measured on the graph's
own data and kept in the state store (:mod:`graph_trust.graph.index_recall`), reaches
``min_recall``; the index is then asked for the k the measurement found sufficient.
Equal cosine scores among the top candidates (or at the cut) are ordered by the scan: Graphiti's
scan orders them by its database's sort, which depends on every row it met and cannot be
reproduced from the index's candidates, so such a query takes the scan's list. Otherwise the
index's candidates, scored by the same expression on the same stored vectors, come out in the
scan's order whenever they are the scan's candidates.
"""

from __future__ import annotations

import logging
import math
import os
import time
import weakref
from pathlib import Path
from typing import Any, Literal

import numpy as np
from graphiti_core.edges import get_entity_edge_from_record
from graphiti_core.graph_queries import get_vector_cosine_func_query
from graphiti_core.models.edges.edge_db_queries import get_entity_edge_return_query
from graphiti_core.models.nodes.node_db_queries import get_entity_node_return_query
from graphiti_core.nodes import get_entity_node_from_record
from graphiti_core.search import search_utils as su
from graphiti_core.search.search_filters import (
    SearchFilters,
    edge_search_filter_query_constructor,
    node_search_filter_query_constructor,
)
from pydantic import BaseModel, ConfigDict, Field

from graph_trust.config import Settings
from graph_trust.graph import backends, index_recall, queries
from graph_trust.graph import vector_index as vi
from graph_trust.graph import vector_store as vs
from graph_trust.graph.connection import address_of
from graph_trust.graph.recall_store import RecallStore, store_path
from graph_trust.search import store_stage

log = logging.getLogger(__name__)

PROBE_TTL_S = 30.0  # how long auto mode trusts what it learnt about a graph (index, size)
# The store's float32 cosines and the graph's differ by far less than this on Graphiti's
# (1 + cos) / 2 scale: an item the store ranks below another by more cannot outscore it in the graph.
STORE_TOL = 1e-5


class CosineStage(BaseModel):
    """How trust_search produces its cosine candidates.

    ``scan``: Graphiti's exact scan (every result equals Graphiti's). ``store``: the exact
    vector store under ``store_dir`` where it is built for the graph, else the scan. ``index``:
    the vector index where one exists and is filled, else the scan. ``auto``: the store where
    it is built; else the index for a graph that holds at least ``min_size`` items of the
    searched kind and whose index's measured recall@10 (kept in the state store at
    ``recall_store``, for the graph at address ``graph``) is at least ``min_recall``; else the
    scan. :meth:`for_settings` fills these from the settings.
    """

    model_config = ConfigDict(extra="forbid")

    mode: Literal["scan", "store", "index", "auto"] = "auto"
    min_size: int = Field(default=5000, ge=0)
    oversample: float = Field(default=4.0, ge=1.0, le=100.0)
    max_k: int = Field(default=4096, ge=1)
    min_recall: float = Field(default=0.98, ge=0.0, le=1.0)
    recheck_share: float = Field(default=0.2, gt=0.0, le=1.0)
    recall_store: str | None = None  # the state store file; None: nothing measured (auto scans)
    graph: str | None = None  # the graph's address as the measurements name it
    store_dir: str | None = None  # where the exact vector stores are (None: none, as if never built)

    @classmethod
    def for_settings(cls, settings: Settings) -> CosineStage:
        s, v = settings.search, settings.vector_index
        return cls(mode=s.cosine, min_size=s.cosine_index_min_size, oversample=s.cosine_oversample,
                   max_k=v.max_ef, min_recall=v.min_recall, recheck_share=v.recheck_share,
                   recall_store=str(store_path(settings).resolve()),
                   graph=address_of(settings).display,
                   store_dir=str((settings.state_dir / vs.DIR).resolve()) if v.store else None)


class Candidates(store_stage.Scored):
    """A cosine candidate list (best first) that remembers the stage that produced it and why
    (and its scores where the stage knows them: the store's)."""

    def __init__(self, items: list[Any], stage: str, reason: str = "", graph: str = ""):
        super().__init__(items, getattr(items, "scores", None))
        self.stage = stage
        self.reason = reason
        self.graph = graph


_PROBES: weakref.WeakKeyDictionary[Any, tuple[float, dict[str, Any] | None, dict[str, int]]] = (
    weakref.WeakKeyDictionary())
_MEASURED: dict[tuple[str, str, str, str], tuple[Any, dict[str, Any] | None]] = {}


async def _probe(driver: Any, kind: str) -> tuple[dict[str, Any] | None, int]:
    """(the index on ``kind`` or None, how many items of ``kind`` the graph holds), cached."""
    now = time.monotonic()
    cached = _PROBES.get(driver)
    if cached is None or now - cached[0] > PROBE_TTL_S:
        cached = (now, await vi.existing(driver), {})
        _PROBES[driver] = cached
    _, present, sizes = cached
    index = None if present is None else present.get(kind)
    if index is not None and kind not in sizes:
        sizes[kind] = await vi.count(driver, kind)
    return index, sizes.get(kind, 0)


def _stamp(path: str) -> tuple:
    """When the state store file (and its write-ahead log) last changed: a new measurement
    written by any process changes it."""
    out = []
    for p in (path, path + "-wal"):
        try:
            st = os.stat(p)
            out.append((st.st_mtime_ns, st.st_size))
        except OSError:
            out.append(None)
    return tuple(out)


def _measurement(stage: CosineStage, driver: Any, kind: str) -> dict[str, Any] | None:
    """The stored measurement of the driver's graph's ``kind`` index (read again when the store changed)."""
    if stage.recall_store is None or stage.graph is None:
        return None
    key = (stage.recall_store, stage.graph, vi.graph_name(driver), kind)
    stamp = _stamp(stage.recall_store)
    hit = _MEASURED.get(key)
    if hit is None or hit[0] != stamp:
        with RecallStore.open_read_only(stage.recall_store) as store:
            hit = (stamp, store.get(stage.graph, key[2], kind))
        _MEASURED[key] = hit
    return hit[1]


def forget(driver: Any = None) -> None:
    """Drop what the stage cached about ``driver``'s graph (after creating an index) and every
    cached measurement (after measuring)."""
    if driver is not None:
        _PROBES.pop(driver, None)
    _MEASURED.clear()


async def choice_for(kind: str, driver: Any, stage: CosineStage, limit: int) -> index_recall.Choice:
    """The stage a search of ``limit`` candidates uses on ``driver``'s graph, and why."""
    if stage.mode == "scan":
        return index_recall.Choice("scan", "search.cosine is scan")
    if stage.mode in ("auto", "store"):
        view = store_view(stage, driver, kind)
        if view is not None:
            return index_recall.Choice("store", vs.reason(int(view.meta["items"]), view.meta["built_at"], kind))
        if stage.mode == "store":
            return index_recall.Choice("scan", "no exact vector store for this graph (graph-trust init or "
                                               "index rebuild builds it)")
    index, size = await _probe(driver, kind)
    if stage.mode == "auto" and index is not None and (stage.recall_store is None or stage.graph is None):
        return index_recall.Choice("scan", "no recall store to read measurements from (CosineStage.recall_store)")
    return index_recall.choose(mode=stage.mode, kind=kind, items=size, present=index,
                               measurement=_measurement(stage, driver, kind) if index is not None else None,
                               min_size=stage.min_size, min_recall=stage.min_recall,
                               recheck_share=stage.recheck_share,
                               k0=max(limit, int(math.ceil(limit * stage.oversample))))


async def cosine_candidates(kind: str, driver: Any, vector: list[float], search_filter: SearchFilters,
                            group_ids: list[str] | None, limit: int, min_score: float,
                            stage: CosineStage) -> Candidates:
    """The cosine candidate list of ``kind`` ('edge' or 'node'), as Graphiti's scan would give it."""
    choice = await choice_for(kind, driver, stage, limit)
    reason = choice.reason
    if choice.stage == "store":
        view = store_view(stage, driver, kind)
        found, why = (None, "the exact vector store was removed meanwhile") if view is None else await _from_store(
            kind, driver, view, vector, search_filter, group_ids, limit, min_score, stage.max_k)
        if found is not None:
            return Candidates(found, "store", reason, vi.graph_name(driver))
        reason = why
    if choice.stage == "index":
        found, why = await _from_index(kind, driver, vector, search_filter, group_ids, limit, min_score, stage,
                                       choice.k or limit)
        if found is not None:
            return Candidates(found, "index", reason, vi.graph_name(driver))
        reason = why
    return Candidates(await _scan(kind, driver, vector, search_filter, group_ids, limit, min_score), "scan", reason,
                      vi.graph_name(driver))


async def _scan(kind, driver, vector, search_filter, group_ids, limit, min_score):  # noqa: ANN001, ANN202
    if kind == "edge":
        return await su.edge_similarity_search(driver, vector, None, None, search_filter, group_ids, limit, min_score)
    return await su.node_similarity_search(driver, vector, search_filter, group_ids, limit, min_score)


async def _from_index(kind: str, driver: Any, vector: list[float], search_filter: SearchFilters,
                      group_ids: list[str] | None, limit: int, min_score: float,
                      stage: CosineStage, k: int) -> tuple[list[Any] | None, str]:
    """Index candidates filtered and scored exactly, or (None, why the scan is used instead)."""
    k = max(limit, k)
    while True:
        try:
            found, scores = await _search(kind, driver, vector, k, search_filter, group_ids, limit + 1, min_score)
        except Exception:  # noqa: BLE001 - index dropped since the probe, or unusable: scan
            log.debug("vector index query failed; using the scan", exc_info=True)
            forget(driver)
            return None, "the vector index query failed (dropped meanwhile?)"
        if any(a == b for a, b in zip(scores, scores[1:], strict=False)):
            return None, "equal cosine scores among the top candidates: the scan orders them"
        if len(found) >= limit:
            return found[:limit], ""
        # Fewer than asked. HNSW is approximate, so only the scan can tell whether the graph
        # holds more: widen while the index has candidates above min_score, then scan.
        rows = await vi.run(driver, f"vector_query_{kind}s", k=k, search_vector=vector)
        similarity = backends.for_driver(driver).similarity  # on Graphiti's cosine scale, (1 + cos) / 2
        worst = min((similarity(float(r["score"])) for r in rows), default=min_score)
        if len(rows) < k or worst <= min_score or k >= stage.max_k:
            return None, f"fewer than {limit} candidates pass the filters among the index's nearest"
        k = min(stage.max_k, k * 4)


async def _search(kind: str, driver: Any, vector: list[float], k: int, search_filter: SearchFilters,
                  group_ids: list[str] | None, limit: int, min_score: float) -> tuple[list[Any], list[float]]:
    """The index's top ``k``, through graphiti-core's own filters, score, return clause and
    parser: the best ``limit`` items and their scores."""
    p = driver.provider
    conds, params, score, returns, build = _pieces(kind, p, search_filter, group_ids)
    text = (queries.load(f"{kind}_vector_search", vi.dialect_of(driver))
            .replace("/*filters*/", "".join(f" AND {c}" for c in conds))
            .replace("/*score*/", score).replace("/*returns*/", returns))
    records, _, _ = await driver.execute_query(text, k=k, search_vector=vector, limit=limit, min_score=min_score,
                                               routing_="r", **params)
    records = list(records or [])
    return [build(r, p) for r in records], [float(r["score"]) for r in records]


def store_view(stage: CosineStage, driver: Any, kind: str) -> vs.StoreView | None:
    """This process's view of the driver's graph's store of ``kind`` (None: not built, or no store_dir)."""
    if stage.store_dir is None or stage.graph is None:
        return None
    return vs.view(Path(stage.store_dir), stage.graph, vi.graph_name(driver), kind)


def _pieces(kind: str, p: Any, search_filter: SearchFilters, group_ids: list[str] | None
            ) -> tuple[list[str], dict[str, Any], str, str, Any]:
    """graphiti-core's filter conditions, parameters, cosine expression, return clause and parser."""
    if kind == "edge":
        conds, params = edge_search_filter_query_constructor(search_filter, p)
        score = get_vector_cosine_func_query("e.fact_embedding", "$search_vector", p)
        returns, build = get_entity_edge_return_query(p), get_entity_edge_from_record
    else:
        conds, params = node_search_filter_query_constructor(search_filter, p)
        score = get_vector_cosine_func_query("n.name_embedding", "$search_vector", p)
        returns, build = get_entity_node_return_query(p), get_entity_node_from_record
    if group_ids is not None:
        conds.append(f"{'e' if kind == 'edge' else 'n'}.group_id IN $group_ids")
        params["group_ids"] = group_ids
    return conds, params, score, returns, build


async def _from_store(kind: str, driver: Any, view: vs.StoreView, vector: list[float],
                      search_filter: SearchFilters, group_ids: list[str] | None, limit: int, min_score: float,
                      max_k: int) -> tuple[list[Any] | None, str]:
    """The exact top ``limit`` by Graphiti's cosine score (equal scores by uuid), or (None, why
    the scan is used instead). Reads the store's best candidates, scores them in the graph
    (filters, deletions and re-embeddings applied there) and widens until no unread item can
    beat the ``limit``-th found."""
    q = np.asarray(vector, dtype=np.float32)
    if view.vectors.shape[1] and len(q) != view.vectors.shape[1]:
        return None, f"the query has {len(q)} dimensions, the stored embeddings {view.vectors.shape[1]}"
    norm = float(np.linalg.norm(q))
    if norm == 0.0:
        return store_stage.Scored([], []), ""  # Graphiti's cosine of a zero vector passes no min_score
    await view.refresh(driver, kind)
    q = q / norm
    p = driver.provider
    conds, params, score, returns, build = _pieces(kind, p, search_filter, group_ids)
    rescore = (queries.load(f"{kind}_store_rescore", vi.dialect_of(driver))
               .replace("/*filters*/", "".join(f" AND {c}" for c in conds)).replace("/*score*/", score))

    def top(k: int) -> tuple[list[str], np.ndarray]:
        uuids, cos = view.top(q, k, group_ids)
        return uuids, (1.0 + cos.astype(np.float64)) / 2.0  # Graphiti's scale

    async def verify(uuids: list[str]) -> dict[str, float]:
        records, _, _ = await driver.execute_query(rescore, uuids=uuids, search_vector=vector, routing_="r", **params)
        return {r["uuid"]: float(r["score"]) for r in records or []
                if r["passes"] and r["score"] is not None and float(r["score"]) > min_score}

    max_k = max(max_k, store_stage.MAX_READ)
    chosen = await store_stage.exact_cut(top, verify, limit, max_k, floor=min_score, tol=STORE_TOL)
    if chosen is None:
        return None, f"fewer than {limit} candidates pass the filters among the store's {max_k:,} nearest"
    return await store_stage.fetch(kind, driver, chosen, returns, build), ""
