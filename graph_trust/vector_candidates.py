"""The cosine candidate stage of trust_search: Graphiti's exact scan, or the vector index.

Graphiti's cosine stage scores every edge (or entity) of the graph, so its cost grows with the
graph. The index stage asks the HNSW index (:mod:`graph_trust.graph.vector_index`) for an
oversampled top-k, then hands exactly those candidates to graphiti-core's own cosine query
(edges: its ``edge_similarity_search`` restricted by ``SearchFilters.edge_uuids``; entities: the
same score formula, group and label filters), so every filter and every score is Graphiti's.
When the filters leave fewer than ``limit`` while the index had more to give, k is widened; past
``max_k`` the stage falls back to the scan. The stage returns fewer than ``limit`` only when the
index ran out of candidates above ``sim_min_score``, as the scan would.
"""

from __future__ import annotations

import math
import time
import weakref
from typing import Any, Literal

from graphiti_core.nodes import EntityNode
from graphiti_core.search import search_utils as su
from graphiti_core.search.search_filters import SearchFilters, node_search_filter_query_constructor
from pydantic import BaseModel, ConfigDict, Field

from graph_trust.graph import vector_index as vi

PROBE_TTL_S = 30.0  # how long auto mode trusts what it learnt about a graph (index, size)


class CosineStage(BaseModel):
    """How trust_search produces its cosine candidates.

    ``scan``: Graphiti's exact scan (every result equals Graphiti's). ``index``: the vector
    index where one exists, else the scan. ``auto``: the index when one exists and the graph
    holds at least ``min_size`` items of the searched kind, else the scan.
    """

    model_config = ConfigDict(extra="forbid")

    mode: Literal["scan", "index", "auto"] = "auto"
    min_size: int = Field(default=20000, ge=0)
    oversample: float = Field(default=4.0, ge=1.0, le=100.0)
    max_k: int = Field(default=4096, ge=1)


class Candidates(list):
    """A cosine candidate list (best first) that remembers the stage that produced it."""

    def __init__(self, items: list[Any], stage: str):
        super().__init__(items)
        self.stage = stage


_PROBES: weakref.WeakKeyDictionary[Any, tuple[float, dict[str, Any] | None, dict[str, int]]] = (
    weakref.WeakKeyDictionary())


async def _probe(driver: Any, kind: str, need_size: bool) -> tuple[bool, int]:
    """(an index on ``kind`` exists, how many items of ``kind`` the graph holds), cached."""
    now = time.monotonic()
    cached = _PROBES.get(driver)
    if cached is None or now - cached[0] > PROBE_TTL_S:
        cached = (now, await vi.existing(driver), {})
        _PROBES[driver] = cached
    _, present, sizes = cached
    has = present is not None and kind in present
    if has and need_size and kind not in sizes:
        rows = await vi.run(driver, "relates_to_count" if kind == "edge" else "entity_count")
        sizes[kind] = int(rows[0]["n"]) if rows else 0
    return has, sizes.get(kind, 0)


def forget(driver: Any) -> None:
    """Drop what auto mode cached about ``driver``'s graph (after creating an index)."""
    _PROBES.pop(driver, None)


async def cosine_candidates(kind: str, driver: Any, vector: list[float], search_filter: SearchFilters,
                            group_ids: list[str] | None, limit: int, min_score: float,
                            stage: CosineStage) -> Candidates:
    """The cosine candidate list of ``kind`` ('edge' or 'node'), as Graphiti's scan would give it."""
    if stage.mode != "scan":
        has, size = await _probe(driver, kind, stage.mode == "auto")
        if has and (stage.mode == "index" or size >= stage.min_size):
            found = await _from_index(kind, driver, vector, search_filter, group_ids, limit, min_score, stage)
            if found is not None:
                return Candidates(found, "index")
    return Candidates(await _scan(kind, driver, vector, search_filter, group_ids, limit, min_score), "scan")


async def _scan(kind, driver, vector, search_filter, group_ids, limit, min_score):  # noqa: ANN001, ANN202
    if kind == "edge":
        return await su.edge_similarity_search(driver, vector, None, None, search_filter, group_ids, limit, min_score)
    return await su.node_similarity_search(driver, vector, search_filter, group_ids, limit, min_score)


def _similarity(score: float, dialect: str) -> float:
    """An index score on Graphiti's cosine scale, (1 + cos) / 2: FalkorDB returns a distance."""
    return (2.0 - score) / 2.0 if dialect == "falkordb" else score


async def _from_index(kind: str, driver: Any, vector: list[float], search_filter: SearchFilters,
                      group_ids: list[str] | None, limit: int, min_score: float,
                      stage: CosineStage) -> list[Any] | None:
    """Index candidates filtered and re-scored exactly; None means "use the scan"."""
    dialect = vi.dialect_of(driver)
    k = max(limit, int(math.ceil(limit * stage.oversample)))
    while True:
        try:
            rows = await vi.run(driver, f"vector_query_{kind}s", k=k, search_vector=vector)
        except Exception:  # noqa: BLE001 - index dropped since the probe, or unusable: scan
            forget(driver)
            return None
        uuids = [r["uuid"] for r in rows]
        found = await (_rescore_edges if kind == "edge" else _rescore_nodes)(
            driver, vector, uuids, search_filter, group_ids, limit, min_score)
        if len(found) >= limit:
            return found
        exhausted = len(rows) < k or _similarity(float(rows[-1]["score"]), dialect) <= min_score
        if exhausted:
            return found
        if k >= stage.max_k:
            return None
        k = min(stage.max_k, k * 4)


async def _rescore_edges(driver, vector, uuids, search_filter, group_ids, limit, min_score):  # noqa: ANN001, ANN202
    if search_filter.edge_uuids is not None:
        allowed = set(search_filter.edge_uuids)
        uuids = [u for u in uuids if u in allowed]
    if not uuids:
        return []
    restricted = search_filter.model_copy(update={"edge_uuids": uuids})
    return await su.edge_similarity_search(driver, vector, None, None, restricted, group_ids, limit, min_score)


async def _rescore_nodes(driver, vector, uuids, search_filter, group_ids, limit, min_score):  # noqa: ANN001, ANN202
    if not uuids:
        return []
    node_search_filter_query_constructor(search_filter, driver.provider)  # Graphiti's label validation
    rows = await vi.run(driver, "node_vector_rescore", uuids=uuids, group_ids=group_ids,
                        search_vector=vector, min_score=min_score)
    wanted = set(search_filter.node_labels) if search_filter.node_labels is not None else None
    keep = [r for r in rows if wanted is None or wanted & set(r["labels"] or [])][:limit]
    if not keep:
        return []
    nodes = {n.uuid: n for n in await EntityNode.get_by_uuids(driver, [r["uuid"] for r in keep])}
    return [nodes[r["uuid"]] for r in keep if r["uuid"] in nodes]
