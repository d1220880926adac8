"""Trust-boosted search for Graphiti, as a plugin (no patching of graphiti-core).

``trust_search`` asks graphiti-core's own candidate searches (BM25 fulltext, cosine, BFS) for
each configured method, fuses the lists with RRF in :mod:`graph_trust.search.fusion`, boosts by trust
and demotes negative evidence over the whole pool, and truncates to ``limit``. It returns a
:class:`TrustSearchResults` — Graphiti's ``SearchResults`` with the reranker score lists
holding the final scores — plus one :class:`~graph_trust.search.ranking.Explanation` per item.

With ``trust_weight=0`` and the default pool, edges and nodes are exactly what
``Graphiti.search_`` returns for the vanilla RRF recipe (same items, order and scores), as long
as no item carries negative evidence; with ``profile="graphiti"`` they are whatever the trust.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import Any, Protocol

import numpy as np
from graphiti_core.helpers import semaphore_gather, validate_group_ids
from graphiti_core.search import search as gsearch
from graphiti_core.search import search_utils as su
from graphiti_core.search.search_config import (
    EdgeReranker,
    EdgeSearchConfig,
    EdgeSearchMethod,
    NodeReranker,
    NodeSearchConfig,
    NodeSearchMethod,
    SearchConfig,
    SearchResults,
)
from graphiti_core.search.search_config_recipes import COMBINED_HYBRID_SEARCH_RRF
from graphiti_core.search.search_filters import SearchFilters
from pydantic import Field

from graph_trust.clients.probe import check_query_embedder
from graph_trust.config import RankingSettings, SearchSettings, TrustWeight, checked_value, env_setting
from graph_trust.errors import InputError
from graph_trust.graph import routing
from graph_trust.graph.reviewed_slots import reviewed_slot_rows
from graph_trust.search import bm25, fusion, ranking
from graph_trust.search.cosine import Candidates, CosineStage, cosine_candidates
from graph_trust.search.fulltext import searchable
from graph_trust.search.pool_facts import PoolFacts, relations_of
from graph_trust.search.ranking import Explanation
from graph_trust.search.rules.base import RuleParams
from graph_trust.search.slots import ALL_SINGLE, LEARNED_FROM, Relations, learn_relations, relation_key

MAX_QUERY_CHARS: int = SearchSettings.model_fields["max_query_chars"].default
# edge uuids of a candidate pool -> the trust each is ranked by instead of its stored trust_score
TrustOverride = Callable[[list[str]], Mapping[str, float | None]]


def env_trust_weight(environ: dict[str, str] | None = None) -> float:
    """``GRAPHITI_TRUST_WEIGHT`` if set (validated like the config), else ``search.trust_weight``'s default."""
    return env_setting("search.trust_weight", environ)


def check_weight(value: Any, source: str = "trust_weight") -> float:
    """A trust weight is a finite number in [0, 1] (checked by the settings model; ConfigError)."""
    return checked_value(RankingSettings, "trust_weight", value, source)


class TrustSearchConfig(SearchConfig, RankingSettings):
    """Graphiti's ``SearchConfig`` plus the trust settings (see :mod:`graph_trust.search.fusion`), whose
    fields, defaults and bounds are :class:`graph_trust.config.RankingSettings`'.

    ``trust_weight`` None means ``GRAPHITI_TRUST_WEIGHT`` or the default. ``boost_form``
    ``additive`` is the plain ``rrf + trust * weight``; ``supported`` scales the boost by
    the item's relevance support. Trust below ``min_boost_trust`` boosts nothing.
    ``pool_multiplier`` widens each method's candidate list beyond Graphiti's ``2 * limit``.
    ``boost_expired`` lets edges whose ``invalid_at``/``expired_at`` is past keep their boost.
    Negative evidence: edges whose ``trust_status`` is in ``negative_statuses``, or (with
    ``demote_invalidated``) whose ``invalid_at``/``expired_at`` is past, keep ``1 -
    negative_penalty`` of their fused score (1: below every other edge) where a competitor
    can take their place or they are superseded (``negative_superseded``), move down at most
    ``negative_lone_places`` places where none can, or, with ``drop_negative``, are left out.
    ``competitors``: edges stating the same relation of the same subject (source entity and
    edge name) share the slots relevance gave them, filled by verified trust (``trust``), then
    by the newer ``valid_at`` (``trust_recency``), or not at all (``none``);
    ``relation_weight`` adds to each edge that share of its best competitor's fused score
    (``relation_mode`` ``best``) or of all of theirs (``sum``), at most ``relation_cap`` of
    its own. ``profile`` ``reference`` is the additive formula alone; ``graphiti`` is Graphiti's
    ``search_`` (weight 0, no rule); explicit keys override the profile's.
    """

    trust_weight: TrustWeight | None = None
    cosine: CosineStage = Field(default_factory=CosineStage)
    # which relations hold one value, with what the review DB taught (None: the settings' names and
    # default alone); set by graph_trust.search.ranked, not a setting
    relations: Any = Field(default=None, exclude=True)
    # how many results a later stage shows when the pool is searched deeper (the composite rank,
    # the agent context): the relation bonus window under relation_scope limit (None: limit)
    relation_window: int | None = Field(default=None, ge=1, exclude=True)


async def learned_relations(config: RankingSettings, routes: Sequence[tuple[Any, Any]]) -> Relations:
    """The recipe's relation names and default, with what the review decisions on the searched
    graphs teach (:func:`graph_trust.search.slots.learn_relations` over
    :func:`graph_trust.graph.reviewed_slots.reviewed_slot_rows`)."""
    rows: list[Any] = []
    names: dict[str, str] = {}
    for d, _ in routes:
        more, named = await reviewed_slot_rows(d, LEARNED_FROM)
        rows += more
        names.update(named)
    return Relations.of(config.single_valued, config.multi_valued, config.unreviewed_relations,
                        learn_relations(rows, names, config.unreviewed_relations))


EDGE_HYBRID_SEARCH_RRF_TRUST = TrustSearchConfig(
    edge_config=EdgeSearchConfig(
        search_methods=[EdgeSearchMethod.bm25, EdgeSearchMethod.cosine_similarity],
        reranker=EdgeReranker.rrf,
    )
)
NODE_HYBRID_SEARCH_RRF_TRUST = TrustSearchConfig(
    node_config=NodeSearchConfig(
        search_methods=[NodeSearchMethod.bm25, NodeSearchMethod.cosine_similarity],
        reranker=NodeReranker.rrf,
    )
)
COMBINED_HYBRID_SEARCH_RRF_TRUST = TrustSearchConfig(**COMBINED_HYBRID_SEARCH_RRF.model_dump())


class TrustSearchResults(SearchResults):
    """``SearchResults`` re-ranked by trust, with an explanation per edge and node."""

    edge_explanations: list[Explanation] = Field(default_factory=list)
    node_explanations: list[Explanation] = Field(default_factory=list)
    trust_weight: float = RankingSettings.model_fields["trust_weight"].default
    # per scope and graph searched by cosine: {"kind", "graph", "stage" (index | scan), "reason"}
    cosine_stages: list[dict[str, str]] = Field(default_factory=list)
    # the Relations the search used (which relations hold one value, and why): the later stages
    # (composite, the context's selector) compete facts by the same slots
    relations: Any = Field(default=None, exclude=True)

    def relation_verdicts(self) -> dict[str, dict[str, str]]:
        """Per relation of the returned facts: whether it holds one value or several, and why."""
        rel = self.relations if isinstance(self.relations, Relations) else ALL_SINGLE
        out: dict[str, dict[str, str]] = {}
        for e in self.edges:
            key = relation_key(e.name)
            if key is not None and key not in out:
                v = rel.verdict(key)
                out[key] = {"holds": v.cardinality, "source": v.source, "reason": v.reason}
        return out


def _resolve(graphiti: Any, embedder: Any) -> tuple[Any, Any, Any]:
    """(driver, embedder, cross_encoder) from a Graphiti instance or a bare driver."""
    clients = getattr(graphiti, "clients", None)
    if clients is not None:
        return clients.driver, embedder or clients.embedder, clients.cross_encoder
    if hasattr(graphiti, "provider") and hasattr(graphiti, "execute_query"):
        return graphiti, embedder, None
    raise TypeError("trust_search needs a Graphiti instance or a graphiti-core GraphDriver")


def check_query(query: Any, max_chars: int = MAX_QUERY_CHARS, setting: str = "search.max_query_chars") -> str:
    """The query as search reads it (:func:`graph_trust.search.fulltext.searchable`: what no
    fulltext engine can parse taken out) when ``query`` is a string of at most ``max_chars``
    characters with searchable text, else :class:`InputError` saying which (naming the ``setting``
    that sets the limit)."""
    if not isinstance(query, str):
        raise InputError(f"the search query must be text, got {type(query).__name__}")
    if not query.strip():
        raise InputError("the search query is empty")
    if len(query) > max_chars:
        raise InputError(f"the search query is {len(query):,} characters; the limit is {max_chars:,} ({setting})")
    text = searchable(query)
    if not text:
        raise InputError("the search query has no searchable text (only control, format or unassigned characters "
                         "and underscores)")
    return text


async def _method_lists(kind: str, driver: Any, query: str, vector: list[float] | None, group_ids: list[str] | None,
                        cfg: Any, search_filter: SearchFilters, bfs_origin: list[str] | None, pool: int,
                        max_coroutines: int | None, cosine: CosineStage, own_bm25: bool = False
                        ) -> tuple[list[str], list[list[Any]]]:
    """Each configured method's candidate list (best first), through graphiti-core (``own_bm25``:
    BM25 from graph-trust's postings where the store is built)."""
    is_edge = kind == "edge"
    M = EdgeSearchMethod if is_edge else NodeSearchMethod
    names, tasks = [], []
    if M.bm25 in cfg.search_methods:
        names.append("bm25")
        tasks.append(bm25.candidates(kind, driver, query, search_filter, group_ids, pool, cosine, own_bm25))
    if M.cosine_similarity in cfg.search_methods:
        names.append("cosine")
        tasks.append(cosine_candidates(kind, driver, vector, search_filter, group_ids, pool, cfg.sim_min_score, cosine))
    if M.bfs in cfg.search_methods:
        names.append("bfs")
        tasks.append(_bfs(is_edge, driver, bfs_origin, cfg, search_filter, group_ids, pool))
    lists = list(await semaphore_gather(*tasks, max_coroutines=max_coroutines)) if tasks else []
    if M.bfs in cfg.search_methods and bfs_origin is None:
        # Graphiti expands BFS from the other methods' results when no origin is given.
        origins = [(x.source_node_uuid if is_edge else x.uuid) for lst in lists for x in lst]
        lists.append(await _bfs(is_edge, driver, origins, cfg, search_filter, group_ids, pool))
        names.append("bfs")
    return names, lists


async def _bfs(is_edge, driver, origin, cfg, search_filter, group_ids, pool):  # noqa: ANN001, ANN202
    if is_edge:
        return await su.edge_bfs_search(driver, origin, cfg.bfs_max_depth, search_filter, group_ids, pool)
    return await su.node_bfs_search(driver, origin, search_filter, cfg.bfs_max_depth, group_ids, pool)


class _Pool:
    """One scope's candidates (edges or nodes) from one graph, fused."""

    def __init__(self, fused: fusion.FusedPool, items: list[Any], stages: dict[str, str] | None = None,
                 cosine: list[dict[str, str]] | None = None):
        self.fused = fused
        self.items = items
        self.stages = stages or {}  # uuid -> the cosine stage that produced it
        self.cosine = cosine or []  # the cosine stage of each graph searched, and why
        self.lists: tuple[list[str], list[list[Any]]] | None = None  # (methods, candidate lists) before RRF

    @classmethod
    def from_lists(cls, names: list[str], lists: list[list[Any]], rank_const: float) -> _Pool:
        by_uuid = {x.uuid: x for lst in lists for x in lst}  # last wins, as in Graphiti
        fused = fusion.fuse([[x.uuid for x in lst] for lst in lists], names, rank_const)
        stages = {x.uuid: lst.stage for lst in lists if isinstance(lst, Candidates) for x in lst}
        cosine = [{"graph": lst.graph, "stage": lst.stage, "reason": lst.reason}
                  for lst in lists if isinstance(lst, Candidates)]
        pool = cls(fused, [by_uuid[u] for u in fused.uuids], stages, cosine)
        pool.lists = (names, lists)
        return pool

    @staticmethod
    def mergeable(pools: list[_Pool]) -> bool:
        """Whether every graph's every method list carries its scores (graph-trust's own stages)."""
        return all(p.lists is not None and p.lists[0] == pools[0].lists[0]
                   and all(getattr(lst, "scores", None) is not None for lst in p.lists[1]) for p in pools)

    @classmethod
    def merged(cls, pools: list[_Pool], pool_size: int, rank_const: float) -> _Pool:
        """One pool from several FalkorDB graphs fused as one database would fuse them: each
        method's lists merged by score (equal scores by uuid) and cut to ``pool_size`` before RRF,
        so a small group's best facts do not outrank a large one's by their rank alone."""
        names = pools[0].lists[0]
        lists = []
        for m in range(len(names)):
            scored = [(s, x.uuid, x) for p in pools for x, s in zip(p.lists[1][m], p.lists[1][m].scores, strict=True)]
            scored.sort(key=lambda t: (-t[0], t[1]))
            lists.append([x for _, _, x in scored[:pool_size]])
        pool = cls.from_lists(names, lists, rank_const)
        pool.stages = {u: s for p in pools for u, s in p.stages.items()}
        pool.cosine = [c for p in pools for c in p.cosine]
        return pool

    def keyed(self) -> _Pool:
        """The pool in the documented tie order: fused score, then uuid (every profile but
        ``graphiti``, whose ties keep Graphiti's first-appearance order)."""
        f = self.fused
        perm = np.asarray(sorted(range(len(f.uuids)), key=lambda i: (-f.fused[i], f.uuids[i])), dtype=np.int64)
        keyed = fusion.FusedPool([f.uuids[i] for i in perm], f.methods, f.ranks[:, perm] if len(perm) else f.ranks,
                                 f.fused[perm] if len(perm) else f.fused, f.rank_const)
        return _Pool(keyed, [self.items[i] for i in perm], self.stages, self.cosine)

    @classmethod
    def scored(cls, items: list[Any], scores: list[float]) -> _Pool:
        """A pool already scored by a non-RRF Graphiti reranker (no per-method ranks)."""
        f = fusion.FusedPool([x.uuid for x in items], (), np.empty((0, len(items)), np.int64),
                             np.asarray(scores, dtype=np.float64))
        return cls(f, list(items))

    @staticmethod
    def concat(pools: list[_Pool]) -> _Pool:
        """Merge pools from several FalkorDB graphs into one pool (re-sorted later)."""
        if len(pools) == 1:
            return pools[0]
        methods = tuple(dict.fromkeys(m for p in pools for m in p.fused.methods))
        n = sum(len(p.items) for p in pools)
        ranks = np.full((len(methods), n), -1, dtype=np.int64)
        col = 0
        for p in pools:
            for r, m in enumerate(p.fused.methods):
                ranks[methods.index(m), col : col + len(p.items)] = p.fused.ranks[r]
            col += len(p.items)
        f = fusion.FusedPool([u for p in pools for u in p.fused.uuids], methods, ranks,
                             np.concatenate([p.fused.fused for p in pools]) if pools else np.zeros(0),
                             pools[0].fused.rank_const if pools else 1.0)  # support divides by it
        return _Pool(f, [x for p in pools for x in p.items], {u: s for p in pools for u, s in p.stages.items()},
                     [c for p in pools for c in p.cosine])


async def _scope_pool(kind: str, driver: Any, cross_encoder: Any, query: str, vector: list[float] | None,
                      group_ids: list[str] | None, cfg: Any, config: TrustSearchConfig,
                      search_filter: SearchFilters, center_node_uuid: str | None,
                      bfs_origin: list[str] | None, pool_size: int, max_coroutines: int | None) -> _Pool:
    rrf_reranker = EdgeReranker.rrf if kind == "edge" else NodeReranker.rrf
    if cfg.reranker == rrf_reranker:
        graphiti = config.profile == "graphiti"  # Graphiti's own stages and order, exactly
        names, lists = await _method_lists(kind, driver, query, vector, group_ids, cfg, search_filter,
                                           bfs_origin, pool_size, max_coroutines,
                                           CosineStage(mode="scan") if graphiti else config.cosine,
                                           own_bm25=config.profile == "default")
        return _Pool.from_lists(names, lists, config.rank_const)
    # Other Graphiti rerankers (mmr, cross_encoder, node_distance, ...): boost their scores.
    fn = gsearch.edge_search if kind == "edge" else gsearch.node_search
    items, scores = await fn(driver, cross_encoder, query, vector, group_ids, cfg, search_filter,
                             center_node_uuid, bfs_origin, max(1, pool_size // 2), config.reranker_min_score)
    return _Pool.scored(items, scores)


def _rank(pool: _Pool, kind: str, weight: float, config: TrustSearchConfig, rrf_scored: bool,
          trust_override: TrustOverride | None = None, query: str = ""
          ) -> tuple[list[Any], list[float], list[Explanation]]:
    items = pool.items
    facts = PoolFacts(items, kind, config, query)
    trust_values = [x.attributes.get("trust_score") if x.attributes else None for x in items]
    if trust_override is not None and kind == "edge" and items:
        given = trust_override([x.uuid for x in items])
        trust_values = [given[x.uuid] if x.uuid in given else v for x, v in zip(items, trust_values, strict=True)]
    params = RuleParams.of(config, weight=weight, shown=config.relation_window or config.limit,
                           min_score=config.reranker_min_score if rrf_scored else -math.inf)
    ranked = ranking.rank_pool(pool.fused, trust_values, params, facts)
    top = ranked.order[: config.limit]
    explanations = [replace(e, cosine_stage=pool.stages.get(e.uuid) if e.cosine_rank else None)
                    for e in ranking.explain(ranked, facts.texts, top)]
    return [items[i] for i in top], [float(ranked.final[i]) for i in top], explanations


async def trust_search(
    graphiti: Any,
    query: str,
    config: SearchConfig | None = None,
    group_ids: list[str] | None = None,
    search_filter: SearchFilters | None = None,
    center_node_uuid: str | None = None,
    *,
    embedder: Any = None,
    trust_weight: float | None = None,
    trust_override: TrustOverride | None = None,
    bfs_origin_node_uuids: list[str] | None = None,
    query_vector: list[float] | None = None,
    max_query_chars: int = MAX_QUERY_CHARS,
    log: ReturnLog | None = None,
) -> TrustSearchResults:
    """Search ``graphiti`` (a ``Graphiti``, or a driver plus ``embedder``) with the trust boost.

    ``config`` defaults to :data:`EDGE_HYBRID_SEARCH_RRF_TRUST`; a plain Graphiti
    ``SearchConfig`` is accepted and gets the default trust settings. It is copied, never
    mutated. ``trust_weight`` overrides the config's (which defaults to
    ``GRAPHITI_TRUST_WEIGHT`` or ``search.trust_weight``'s default). ``trust_override`` ranks the
    pool's facts by other trust values than their stored ``trust_score`` (edge uuids -> value;
    facts it leaves out keep theirs): how ``graph-trust eval`` ranks what a sync in
    ``sync.trust_mode: confidence`` would write, on the same graph state. On FalkorDB each group
    is its own graph: several ``group_ids`` are searched per graph; where every candidate list
    carries its scores (the default profile on graphs whose exact vector store is built) each
    method's lists are merged by score before fusion, as one database holding every group would
    rank them, else each graph's fused list is merged into one re-sorted list (Graphiti's way).

    ``log`` (a :class:`graph_trust.review.log.RetrievalLog`, or anything with its ``record``),
    else the one :func:`logging_to` set for this context, counts the returned edges in the review
    DB's retrieval log (in memory; the writer writes in the background, or on ``flush()`` /
    ``close()``), so the review queue sees what the application searched.
    """
    results = await _trust_search(graphiti, query, config, group_ids, search_filter, center_node_uuid,
                                  embedder=embedder, trust_weight=trust_weight, trust_override=trust_override,
                                  bfs_origin_node_uuids=bfs_origin_node_uuids, query_vector=query_vector,
                                  max_query_chars=max_query_chars)
    sink = log if log is not None else _LOG.get()
    if sink is not None:
        sink.record("search", [(e.uuid, e.group_id) for e in results.edges], query=query, groups=group_ids)
    return results


class ReturnLog(Protocol):
    """What :func:`trust_search` records into: :class:`graph_trust.review.log.RetrievalLog`."""

    def record(self, interface: str, returned: Any, *, query: str | None = None,
               groups: list[str] | None = None) -> None: ...


_LOG: ContextVar[ReturnLog | None] = ContextVar("graph_trust_search_log", default=None)


@contextmanager
def logging_to(log: ReturnLog | None) -> Iterator[ReturnLog | None]:
    """Within the block, every :func:`trust_search` without its own ``log`` records into ``log``
    (a ContextVar: per task and thread, restored on exit)::

        with logging_to(RetrievalLog("review.sqlite3")) as log:
            await trust_search(graphiti, "who owns billing-db")
        log.close()  # writes what is pending
    """
    token = _LOG.set(log)
    try:
        yield log
    finally:
        _LOG.reset(token)


async def _trust_search(
    graphiti: Any,
    query: str,
    config: SearchConfig | None,
    group_ids: list[str] | None,
    search_filter: SearchFilters | None,
    center_node_uuid: str | None,
    *,
    embedder: Any,
    trust_weight: float | None,
    trust_override: TrustOverride | None,
    bfs_origin_node_uuids: list[str] | None,
    query_vector: list[float] | None,
    max_query_chars: int,
) -> TrustSearchResults:
    query = check_query(query, max_query_chars)
    driver, embedder, cross_encoder = _resolve(graphiti, embedder)
    config = _as_trust_config(config)
    # a call's weight is checked here; a recipe's was checked by its model, the environment's by env_setting
    weight = (check_weight(trust_weight) if trust_weight is not None else
              config.trust_weight if config.trust_weight is not None else env_trust_weight())
    validate_group_ids(group_ids)
    group_ids = group_ids if group_ids and group_ids != [""] else None
    search_filter = search_filter or SearchFilters()
    max_coroutines = getattr(graphiti, "max_coroutines", None)

    needs_vector = any(
        c is not None and (
            (EdgeSearchMethod.cosine_similarity in c.search_methods if isinstance(c, EdgeSearchConfig)
             else NodeSearchMethod.cosine_similarity in c.search_methods)
            or c.reranker in (EdgeReranker.mmr, NodeReranker.mmr))
        for c in (config.edge_config, config.node_config)
    )
    vector = query_vector
    if needs_vector and vector is None:
        if embedder is None:
            raise TypeError("trust_search needs an embedder for cosine search (pass embedder=...)")
        vector = await embedder.create(input_data=[query.replace("\n", " ")])

    routes = routing.routes(driver, group_ids)  # one graph per group where the backend keeps them so
    if config.relations is None and config.learn_relations and config.edge_config is not None:
        config.relations = await learned_relations(config, routes)
    if needs_vector and query_vector is None:  # the query's vector must be comparable with the graph's
        for d, g in routes:
            await check_query_embedder(d, embedder, g)
    pool_size = max(1, int(math.ceil(2 * config.limit * config.pool_multiplier)))

    stages: list[dict[str, str]] = []

    async def scope(kind: str, cfg: Any) -> tuple[list[Any], list[float], list[Explanation]]:
        if cfg is None:
            return [], [], []
        pools = await semaphore_gather(*[
            _scope_pool(kind, d, cross_encoder, query, vector, g, cfg, config, search_filter, center_node_uuid,
                        bfs_origin_node_uuids, pool_size, max_coroutines) for d, g in routes
        ], max_coroutines=max_coroutines)
        rrf_scored = cfg.reranker == (EdgeReranker.rrf if kind == "edge" else NodeReranker.rrf)
        if config.profile == "default" and len(pools) > 1 and rrf_scored and _Pool.mergeable(list(pools)):
            pool = _Pool.merged(list(pools), pool_size, config.rank_const)
        else:
            pool = _Pool.concat(list(pools))
        if config.profile != "graphiti":
            pool = pool.keyed()
        stages.extend({"kind": kind, **c} for c in pool.cosine)
        return _rank(pool, kind, weight, config, rrf_scored, trust_override, query)

    (edges, e_scores, e_expl), (nodes, n_scores, n_expl) = await semaphore_gather(
        scope("edge", config.edge_config), scope("node", config.node_config), max_coroutines=max_coroutines
    )
    episodes, ep_scores, communities, c_scores = await _untrusted_scopes(
        routes, cross_encoder, query, vector, config, search_filter, max_coroutines)
    return TrustSearchResults(
        edges=edges, edge_reranker_scores=e_scores, nodes=nodes, node_reranker_scores=n_scores,
        episodes=episodes, episode_reranker_scores=ep_scores,
        communities=communities, community_reranker_scores=c_scores,
        edge_explanations=e_expl, node_explanations=n_expl, trust_weight=weight, cosine_stages=stages,
        relations=relations_of(config),
    )


async def _untrusted_scopes(routes, cross_encoder, query, vector, config, search_filter, max_coroutines):  # noqa: ANN001, ANN202
    """Episodes and communities carry no trust: Graphiti's own search, merged across graphs."""
    if config.episode_config is None and config.community_config is None:
        return [], [], [], []
    vec = vector or [0.0]
    results = await semaphore_gather(*[
        semaphore_gather(
            gsearch.episode_search(d, cross_encoder, query, vec, g, config.episode_config, search_filter,
                                   config.limit, config.reranker_min_score),
            gsearch.community_search(d, cross_encoder, query, vec, g, config.community_config, config.limit,
                                     config.reranker_min_score),
        ) for d, g in routes
    ], max_coroutines=max_coroutines)
    ep = sorted(((s, i, x) for i, ((xs, ss), _) in enumerate(results) for x, s in zip(xs, ss, strict=False)),
                key=lambda t: -t[0])[: config.limit]
    cm = sorted(((s, i, x) for i, (_, (xs, ss)) in enumerate(results) for x, s in zip(xs, ss, strict=False)),
                key=lambda t: -t[0])[: config.limit]
    return [x for _, _, x in ep], [s for s, _, _ in ep], [x for _, _, x in cm], [s for s, _, _ in cm]


def _as_trust_config(config: SearchConfig | None) -> TrustSearchConfig:
    """A private deep copy as a TrustSearchConfig (shared recipes are never mutated)."""
    if config is None:
        return EDGE_HYBRID_SEARCH_RRF_TRUST.model_copy(deep=True)
    if isinstance(config, TrustSearchConfig):
        return config.model_copy(deep=True)
    if isinstance(config, SearchConfig):
        return TrustSearchConfig(**config.model_copy(deep=True).model_dump())
    raise TypeError(f"config must be a graphiti SearchConfig, got {type(config).__name__}")
