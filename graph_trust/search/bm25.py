"""The BM25 candidate stage of trust_search for facts, from postings graph-trust keeps.

FalkorDB's fulltext index scores a fact by statistics that still count replaced entries and
places a rewritten fact anew among equal scores, so its candidates depend on the graph's write
history. Where the exact vector store is built (:mod:`graph_trust.graph.vector_store`), this
stage ranks facts by Okapi BM25 over the store's postings instead
(:mod:`graph_trust.graph.text_index`: per-group statistics over each fact's name and text, kept
fresh against Graphiti's writes like the vectors), has the graph check that the best ones still
exist and pass the search's filters, and returns graphiti-core's own objects: the exact top
``limit`` by that score, equal scores by uuid, a function of the graph's content and the query.
"""

from __future__ import annotations

from typing import Any

from graphiti_core.edges import EntityEdge, get_entity_edge_from_record
from graphiti_core.models.edges.edge_db_queries import get_entity_edge_return_query
from graphiti_core.search.search_filters import SearchFilters, edge_search_filter_query_constructor

from graph_trust.graph import queries, text_index
from graph_trust.graph import vector_index as vi
from graph_trust.graph import vector_store as vs
from graph_trust.search import store_stage
from graph_trust.search.cosine import store_view
from graph_trust.search.fulltext import edge_fulltext_candidates


async def edge_bm25_candidates(driver: Any, view: vs.StoreView, query: str, search_filter: SearchFilters,
                               group_ids: list[str] | None, limit: int) -> list[EntityEdge] | None:
    """The best ``limit`` facts by BM25 (None: the filters pass too few of the matches to check)."""
    terms = text_index.tokens(query)
    if not terms:
        return store_stage.Scored([], [])
    await view.refresh(driver, "edge")
    p = driver.provider
    conds, params = edge_search_filter_query_constructor(search_filter, p)
    if group_ids is not None:
        conds.append("e.group_id IN $group_ids")
        params["group_ids"] = group_ids
    check = queries.load("edge_store_filter", vi.dialect_of(driver)).replace(
        "/*filters*/", "".join(f" AND {c}" for c in conds))
    scores: dict[str, float] = {}

    def top(k: int):  # noqa: ANN202
        uuids, s = view.bm25_top(terms, k, group_ids)
        scores.update(zip(uuids, s.tolist(), strict=True))
        return uuids, s

    async def verify(uuids: list[str]) -> dict[str, float]:
        records, _, _ = await driver.execute_query(check, uuids=uuids, routing_="r", **params)
        return {r["uuid"]: scores[r["uuid"]] for r in records or [] if r["passes"]}

    chosen = await store_stage.exact_cut(top, verify, limit, store_stage.MAX_READ, floor=0.0)
    if chosen is None:
        return None
    return await store_stage.fetch("edge", driver, chosen, get_entity_edge_return_query(p), get_entity_edge_from_record)


async def edge_candidates(driver: Any, query: str, search_filter: SearchFilters, group_ids: list[str] | None,
                          limit: int, stage: Any, own: bool) -> list[EntityEdge]:
    """The BM25 candidates of facts: graph-trust's own where ``own`` and the store is built for the
    driver's graph (``stage``: the search's :class:`~graph_trust.search.cosine.CosineStage`), else
    graphiti-core's fulltext search (:func:`graph_trust.search.fulltext.edge_fulltext_candidates`)."""
    view = store_view(stage, driver, "edge") if own and stage.mode in ("auto", "store") else None
    found = None if view is None or view.postings is None else await edge_bm25_candidates(
        driver, view, query, search_filter, group_ids, limit)
    if found is not None:
        return found
    return await edge_fulltext_candidates(driver, query, search_filter, group_ids, limit)
