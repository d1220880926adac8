"""Trust search driven by settings: the recipe the ``search:`` section makes
(:func:`search_config`), the search on the configured graph (:func:`search`, what
``graph-trust search`` runs), and the optional composite second stage (:func:`composite_rank`).

The search itself is :func:`graph_trust.search.trust_search.trust_search`; this module only turns
settings into its arguments, so the CLI, the MCP server, the context pipeline and the
evaluation all search alike.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from graphiti_core.search.search_config import EdgeReranker, NodeReranker, SearchConfig

from graph_trust.config import RANKING_KEYS, Settings
from graph_trust.errors import InputError
from graph_trust.search.composite import RankedRecord, max_rrf, rank_composite
from graph_trust.search.cosine import CosineStage
from graph_trust.search.pool_facts import competitor_keys, relations_of
from graph_trust.search.records import MemoryRecord, check_memory_types, records_from_results
from graph_trust.search.session import open_graphiti, resolve_groups
from graph_trust.search.trust_search import (
    EDGE_HYBRID_SEARCH_RRF_TRUST,
    NODE_HYBRID_SEARCH_RRF_TRUST,
    TrustSearchConfig,
    TrustSearchResults,
    check_query,
    trust_search,
)


def search_config(settings: Settings, *, scope: str = "edges", limit: int | None = None,
                  base: SearchConfig | None = None, shown: int | None = None) -> TrustSearchConfig:
    """The hybrid RRF trust recipe for ``scope`` (or ``base``) with ``settings.search`` applied.
    A ``base`` that sets its own ``trust_weight`` keeps it. ``shown``: how many results a later
    stage keeps of a pool searched ``limit`` deep (the relation bonus's window; None: ``limit``)."""
    s = settings.search
    recipe = base if base is not None else (
        EDGE_HYBRID_SEARCH_RRF_TRUST if scope == "edges" else NODE_HYBRID_SEARCH_RRF_TRUST)
    data = recipe.model_dump()
    weight = data.get("trust_weight")
    data.update(limit=limit or s.limit, **{k: getattr(s, k) for k in RANKING_KEYS},
                cosine=CosineStage.for_settings(settings).model_dump())
    if weight is not None:
        data["trust_weight"] = weight
    return TrustSearchConfig(**data, relation_window=shown)


def search_config_for(settings: Settings, *, limit: int | None = None, base: Any = None,
                      shown: int | None = None) -> TrustSearchConfig:
    """The edge trust recipe (or ``base``) with ``settings.search`` applied; the pool is at least
    ``composite.max_results`` deep so the composite stage has something to rank, of which it keeps
    ``shown`` (:func:`search_config`)."""
    return search_config(settings, limit=limit or max(settings.search.limit, settings.composite.max_results),
                         base=base, shown=shown)


def max_fused_for(config: Any) -> dict[str, float]:
    """Largest fused score per record kind for ``config`` (RRF: methods / rank_const; else 1)."""
    rank_const = getattr(config, "rank_const", 1.0)
    out: dict[str, float] = {}
    for kind, cfg, rrf in (("edge", config.edge_config, EdgeReranker.rrf), ("node", config.node_config, NodeReranker.rrf)):
        if cfg is not None:
            out[kind] = max_rrf(max(1, len(cfg.search_methods)), rank_const) if cfg.reranker == rrf else 1.0
    return out


async def search(
    settings: Settings,
    query: str,
    *,
    scope: str = "edges",
    limit: int | None = None,
    trust_weight: float | None = None,
    groups: list[str] | None = None,
) -> TrustSearchResults:
    """Trust-boosted search on the configured graph (what ``graph-trust search`` runs)."""
    s = settings.search
    check_query(query, s.max_query_chars)
    config = search_config(settings, scope=scope, limit=limit)
    async with open_graphiti(settings) as (conn, graphiti):
        group_ids = await resolve_groups(conn, groups or s.group_ids or None)
        return await trust_search(graphiti, query, config=config, group_ids=group_ids,
                                  trust_weight=trust_weight, max_query_chars=s.max_query_chars)


def keep_confident(results: TrustSearchResults, confidences: dict[str, float],
                   min_confidence: float) -> TrustSearchResults:
    """``results`` without the facts whose confidence is below ``min_confidence`` or unknown
    (absent from ``confidences``); the kept facts are renumbered 1.. in their order."""
    keep = {u for u, c in confidences.items() if c >= min_confidence}
    expl = [dataclasses.replace(e, rank=i) for i, e in
            enumerate((e for e in results.edge_explanations if e.uuid in keep), start=1)]
    return results.model_copy(update={"edges": [e for e in results.edges if e.uuid in keep],
                                      "edge_explanations": expl})


async def search_confident(settings: Settings, query: str, *,
                           confidences: Callable[[list[str]], dict[str, float]], scope: str = "edges",
                           limit: int | None = None, groups: list[str] | None = None,
                           ) -> tuple[TrustSearchResults, dict[str, float] | None]:
    """:func:`search`, then (``search.min_confidence`` set) without the facts below it or of
    unknown confidence; ``confidences(edge uuids)`` gives the known ones (the review DB's,
    handed in by ``graph_trust.api``, which opens it once, before the search, so a missing one
    fails first). Returns the results and each kept fact's confidence (None when no threshold
    is set: nothing was read)."""
    threshold = settings.search.min_confidence
    if threshold is not None and scope != "edges":
        raise InputError("search.min_confidence (--min-confidence) filters facts: it does not apply to --nodes")
    results = await search(settings, query, scope=scope, limit=limit, groups=groups)
    if threshold is None:
        return results, None
    known = confidences([e.uuid for e in results.edges])
    kept = keep_confident(results, known, threshold)
    return kept, {e.uuid: known[e.uuid] for e in kept.edges}


def composite_rank(settings: Settings, results: TrustSearchResults, *, scope: str = "edges",
                   limit: int | None = None, memory_types: list[str] | None = None,
                   now: datetime | None = None) -> list[RankedRecord]:
    """The optional second stage: composite rank (trust, recency, relevance, type) of a search.
    ``now`` (a datetime; default the current time) is the instant recency is measured from."""
    keys = dict(zip((e.uuid for e in results.edges), competitor_keys(results.edges, relations_of(results)),
                    strict=True))
    return composite_rank_records(settings, records_from_results(results), keys, scope=scope, limit=limit,
                                  memory_types=memory_types, now=now)


def composite_rank_records(settings: Settings, records: list[MemoryRecord], keys: Mapping[str, Any], *,
                           scope: str = "edges", limit: int | None = None, memory_types: list[str] | None = None,
                           now: datetime | None = None) -> list[RankedRecord]:
    """:func:`composite_rank` over records (``keys``: each edge's competitor key by uuid), as a
    trust context left them (:attr:`graph_trust.access.visible_search.VisibleSearch.records`)."""
    wanted = check_memory_types(memory_types, settings)
    return rank_composite(records, settings.composite, memory_types=wanted, now=now,
                          max_fused=max_fused_for(search_config(settings, scope=scope)),
                          max_results=limit or settings.composite.max_results,
                          competitors=settings.search.competitors, verified_trust=settings.search.min_boost_trust,
                          competitor_keys=keys)


__all__ = ["composite_rank", "composite_rank_records", "max_fused_for", "search", "search_config", "search_config_for"]
