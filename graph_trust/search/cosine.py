"""The cosine candidate stage of trust_search: Graphiti's exact scan, or the vector index.

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
"""

from __future__ import annotations

import logging
import math
import time
import weakref
from typing import Any, Literal

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

from graph_trust.graph import backends, queries
from graph_trust.graph import vector_index as vi

log = logging.getLogger(__name__)

PROBE_TTL_S = 30.0  # how long auto mode trusts what it learnt about a graph (index, size)


class CosineStage(BaseModel):
    """How trust_search produces its cosine candidates.

    ``scan``: Graphiti's exact scan (every result equals Graphiti's). ``index``: the vector
    index where one exists, else the scan. ``auto``: the index when one exists and the graph
    holds at least ``min_size`` items of the searched kind, else the scan.
    """

    model_config = ConfigDict(extra="forbid")

    mode: Literal["scan", "index", "auto"] = "scan"
    min_size: int = Field(default=5000, ge=0)
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
    has = present is not None and bool(present.get(kind, {}).get("ready"))  # a half-filled index misses items
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


async def _from_index(kind: str, driver: Any, vector: list[float], search_filter: SearchFilters,
                      group_ids: list[str] | None, limit: int, min_score: float,
                      stage: CosineStage) -> list[Any] | None:
    """Index candidates filtered and scored exactly; None means "use the scan"."""
    k = max(limit, int(math.ceil(limit * stage.oversample)))
    while True:
        try:
            found = await _search(kind, driver, vector, k, search_filter, group_ids, limit, min_score)
        except Exception:  # noqa: BLE001 - index dropped since the probe, or unusable: scan
            log.debug("vector index query failed; using the scan", exc_info=True)
            forget(driver)
            return None
        if len(found) >= limit:
            return found
        # Fewer than asked. HNSW is approximate, so only the scan can tell whether the graph
        # holds more: widen while the index has candidates above min_score, then scan.
        rows = await vi.run(driver, f"vector_query_{kind}s", k=k, search_vector=vector)
        similarity = backends.for_driver(driver).similarity  # on Graphiti's cosine scale, (1 + cos) / 2
        worst = min((similarity(float(r["score"])) for r in rows), default=min_score)
        if len(rows) < k or worst <= min_score or k >= stage.max_k:
            return None
        k = min(stage.max_k, k * 4)


async def _search(kind: str, driver: Any, vector: list[float], k: int, search_filter: SearchFilters,
                  group_ids: list[str] | None, limit: int, min_score: float) -> list[Any]:
    """The index's top ``k``, through graphiti-core's own filters, score, return clause and parser."""
    p = driver.provider
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
    text = (queries.load(f"{kind}_vector_search", vi.dialect_of(driver))
            .replace("/*filters*/", "".join(f" AND {c}" for c in conds))
            .replace("/*score*/", score).replace("/*returns*/", returns))
    records, _, _ = await driver.execute_query(text, k=k, search_vector=vector, limit=limit, min_score=min_score,
                                               routing_="r", **params)
    return [build(r, p) for r in records or []]
