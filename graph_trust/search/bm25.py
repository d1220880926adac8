"""The BM25 candidate stage of trust_search for facts and entities, from postings graph-trust keeps.

FalkorDB's fulltext index scores an item by statistics that still count replaced entries and
places a rewritten item anew among equal scores, so its candidates depend on the graph's write
history. Where the exact vector store is built (:mod:`graph_trust.graph.vector_store`), this
stage ranks facts and entities by Okapi BM25 over the store's postings instead
(:mod:`graph_trust.graph.text_index`: per-group statistics over each fact's name and text, each
entity's name and summary, kept fresh against Graphiti's writes like the vectors), has the graph
check that the best ones still exist and pass the search's filters, and returns graphiti-core's
own objects: the exact top ``limit`` by that score, equal scores by uuid, a function of the
graph's content and the query.
"""

from __future__ import annotations

from typing import Any

from graphiti_core.search import search_utils as su
from graphiti_core.search.search_filters import SearchFilters

from graph_trust.graph import queries, text_index
from graph_trust.graph import vector_index as vi
from graph_trust.graph import vector_store as vs
from graph_trust.search import store_stage
from graph_trust.search.cosine import pieces, store_view
from graph_trust.search.fulltext import edge_fulltext_candidates


async def bm25_candidates(kind: str, driver: Any, view: vs.StoreView, query: str, search_filter: SearchFilters,
                          group_ids: list[str] | None, limit: int) -> list[Any] | None:
    """The best ``limit`` items of ``kind`` ('edge' or 'node') by BM25 (None: the filters pass
    too few of the matches to check)."""
    terms = text_index.tokens(query)
    if not terms:
        return store_stage.Scored([], [])
    await view.refresh(driver, kind)
    conds, params, _, returns, build = pieces(kind, driver.provider, search_filter, group_ids)
    check = queries.load(f"{kind}_store_filter", vi.dialect_of(driver)).replace(
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
    return await store_stage.fetch(kind, driver, chosen, returns, build)


async def candidates(kind: str, driver: Any, query: str, search_filter: SearchFilters, group_ids: list[str] | None,
                     limit: int, stage: Any, own: bool) -> list[Any]:
    """The BM25 candidates of ``kind``: graph-trust's own where ``own`` and the store is built for
    the driver's graph (``stage``: the search's :class:`~graph_trust.search.cosine.CosineStage`),
    else graphiti-core's fulltext search (facts:
    :func:`graph_trust.search.fulltext.edge_fulltext_candidates`, its faster equal)."""
    view = store_view(stage, driver, kind) if own and stage.mode in ("auto", "store") else None
    found = None if view is None or view.postings is None else await bm25_candidates(
        kind, driver, view, query, search_filter, group_ids, limit)
    if found is not None:
        return found
    if kind == "edge":
        return await edge_fulltext_candidates(driver, query, search_filter, group_ids, limit)
    return await su.node_fulltext_search(driver, query, search_filter, group_ids, limit)
