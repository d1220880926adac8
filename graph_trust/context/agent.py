"""One entry point for an agent's context: search, then every trust stage, then format.

:func:`build_context` runs ``trust_search`` (fusion + trust boost) and hands the hits to
:func:`context_from_records`, which is pure:

1. records (:mod:`graph_trust.search.records`) and the memory-type filter;
2. trust override (:mod:`graph_trust.access.override`; audited, fails closed);
3. access control (:mod:`graph_trust.access.trust_context`; a trust context is required);
4. scoring: ``composite`` (:mod:`graph_trust.search.composite`; min_trust filter) or ``boost`` (the
   search stage's order, every composite dimension still reported);
5. the salience filter (:mod:`graph_trust.access.layers`);
6. competing facts (:mod:`graph_trust.access.selector`), among the records that passed 3-5;
7. ranking, trim to ``max_results``, then layers;
8. the text block or JSON (:mod:`graph_trust.context.format`).

The order (trust, salience, selection, rank, limit) matters: access control and
the salience filter run before selection and trimming, so a denied or non-salient record never
takes a slot, and the best *eligible* fact of a competing group is the one shown. When what
survives does not fill ``max_results``, :func:`build_context` searches again with a wider window
(:mod:`graph_trust.search.window`) until it does or the graph has no more candidates. Every sort
breaks ties by the record's search rank and then its uuid, so the output does not depend on
the order in which candidates arrive.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from typing import Any, Literal

from graphiti_core.edges import EntityEdge
from graphiti_core.errors import EdgeNotFoundError, NodeNotFoundError
from graphiti_core.nodes import EntityNode

from graph_trust.access.audit import AuditStore
from graph_trust.access.layers import Layer, filter_by_salience, flatten, group_into_layers
from graph_trust.access.override import OverrideDecision, OverridePolicy, request_override
from graph_trust.access.selector import Selection, resolve_competing
from graph_trust.access.trust_context import (
    TrustContext,
    check_default_sensitivity,
    filter_by_trust,
    get_by_id,
    require_context,
)
from graph_trust.config import MAX_SEARCH_DEPTH, Settings
from graph_trust.context.format import format_context, records_payload
from graph_trust.errors import InputError, NotFoundError
from graph_trust.search.composite import DEFAULT_MAX_FUSED, MaxFused, RankedRecord, score_records
from graph_trust.search.ranked import max_fused_for, search_config_for
from graph_trust.search.records import MemoryRecord, check_memory_types, record_from_item, records_from_results
from graph_trust.search.session import open_graphiti, resolve_groups
from graph_trust.search.slots import Relations
from graph_trust.search.trust_search import relations_of, trust_search
from graph_trust.search.window import fill_window

RankMode = Literal["composite", "boost"]
RANK_MODES: tuple[str, ...] = ("composite", "boost")


@dataclass(frozen=True, slots=True)
class ContextOptions:
    """How the stages after search run for one request (everything but the settings, the
    trust context and, for :func:`build_context`, the search itself).

    ``rank``: ``composite`` or ``boost`` (the search order). ``memory_types``: keep only these.
    ``trust_override`` (with ``override_policy``; audited into ``audit_store``, default the
    state store's): force one trust value, composite rank only. ``min_salience`` drops records
    below it; ``by_salience`` sorts within a layer by salience. ``max_results`` (default
    ``composite.max_results``) records are kept. ``now`` is the instant recency is measured from."""

    rank: RankMode = "composite"
    memory_types: Collection[str] | None = None
    trust_override: float | None = None
    override_policy: OverridePolicy | None = None
    audit_store: AuditStore | None = None
    min_salience: float | None = None
    by_salience: bool = False
    max_results: int | None = None
    now: datetime | None = None

    @classmethod
    def of(cls, options: ContextOptions | None, fields_given: dict[str, Any]) -> ContextOptions:
        """``options`` (default: all defaults) with ``fields_given`` (field names) replaced; an
        unknown name is a TypeError, as for any keyword argument."""
        unknown = sorted(set(fields_given) - _OPTION_FIELDS)
        if unknown:
            raise TypeError(f"unexpected keyword argument {unknown[0]!r}")
        return replace(options or cls(), **fields_given)


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """How :func:`build_context` searches: ``config`` (a graphiti ``SearchConfig`` or
    ``TrustSearchConfig``; None: the edge hybrid RRF recipe with ``settings.search`` applied),
    ``group_ids``, ``search_filter``, ``trust_weight`` (overrides the recipe's) and ``embedder``
    (with a bare driver or GraphConnection)."""

    config: Any = None
    group_ids: list[str] | None = None
    search_filter: Any = None
    trust_weight: float | None = None
    embedder: Any = None


_OPTION_FIELDS = frozenset(f.name for f in fields(ContextOptions))
_SEARCH_FIELDS = frozenset(f.name for f in fields(SearchOptions))


@dataclass(frozen=True, slots=True)
class ContextResult:
    """What :func:`build_context` returns: final items in layer order, and how they got there."""

    query: str
    rank: RankMode
    items: list[RankedRecord]
    layers: list[Layer[RankedRecord]]
    selections: list[Selection[RankedRecord]]
    override: OverrideDecision | None
    trust_context: TrustContext
    candidates: int  # from search, out-of-scope records not counted
    denied: int  # in-scope records access control withheld
    redacted: int
    below_min_trust: int
    unknown_label: int = 0  # of ``denied``: withheld for a sensitivity label the scale does not know
    search_depth: int | None = None  # the window of the last search round (None: records given)
    out_of_scope: int = field(default=0, repr=False)  # not shown anywhere: what is out of scope does not exist

    def text(self) -> str:
        """The ``## Trusted Memory Context`` block."""
        return format_context(self.items, self.selections)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: every dimension per record, plus the stages' counts."""
        layer_of = {it.uuid: layer.memory_type for layer in self.layers for it in layer.items}
        ctx = self.trust_context
        return {
            "query": self.query,
            "rank": self.rank,
            "trust_context": {
                "max_sensitivity": ctx.max_sensitivity,
                "authenticated": ctx.authenticated,
                "actor_id": ctx.actor_id,
                "scopes": list(ctx.scopes),
                "unrestricted": ctx.is_unrestricted,
            },
            "counts": {
                "candidates": self.candidates,
                "denied": self.denied,
                "unknown_label": self.unknown_label,
                "redacted": self.redacted,
                "below_min_trust": self.below_min_trust,
                "competing_groups": len(self.selections),
                "returned": len(self.items),
                "search_depth": self.search_depth,
            },
            "override": None if self.override is None else self.override.event.to_dict(),
            "layers": [layer.memory_type for layer in self.layers],
            "records": records_payload(self.items, self.selections, layer_of),
        }


def _ordered(ranked: list[RankedRecord], rank: RankMode) -> list[RankedRecord]:
    """Best first: the composite score, or for ``boost`` the search stage's ``final`` (edges and
    nodes merged). Ties break by search rank, then uuid: a total order on the records
    themselves, never on their arrival order."""
    def key(it: RankedRecord) -> tuple[float, float, str]:
        e = it.record.explanation
        primary = it.score if rank == "composite" else (e.final if e is not None else float("-inf"))
        return (-primary, e.rank if e is not None else float("inf"), it.uuid)

    return sorted(ranked, key=key)


def context_from_records(
    records: Sequence[MemoryRecord],
    query: str,
    *,
    settings: Settings,
    trust_context: TrustContext | None,
    options: ContextOptions | None = None,
    max_fused: MaxFused = DEFAULT_MAX_FUSED,
    relations: Relations | None = None,
    **option_fields: Any,
) -> ContextResult:
    """Every stage after search over ready-made records (pure apart from the audit store).

    ``options`` (:class:`ContextOptions`) says how; its fields may also be given as keyword
    arguments (``rank="boost"``), which replace those of ``options``. ``max_fused`` is the
    largest fused score per record kind (:func:`max_fused_for` of the recipe searched).
    ``relations`` says which relations hold one value, so which facts compete (the search's,
    ``TrustSearchResults.relations``; None: the names and default of ``settings.search``)."""
    opts = ContextOptions.of(options, option_fields)
    ctx = require_context(trust_context)
    rank = opts.rank
    if rank not in RANK_MODES:
        raise InputError(f"rank must be one of {', '.join(RANK_MODES)}, got {rank!r}")
    comp, xs = settings.composite, settings.context
    default_sensitivity = check_default_sensitivity(xs.default_sensitivity, ctx.scale)
    wanted_types = check_memory_types(list(opts.memory_types) if opts.memory_types else None, settings)
    now = opts.now or datetime.now(UTC)
    limit = comp.max_results if opts.max_results is None else opts.max_results
    if limit < 1:
        raise InputError(f"max_results must be >= 1, got {limit}")

    candidates = len(records)
    decision: OverrideDecision | None = None
    if opts.trust_override is not None:
        if rank != "composite":
            raise InputError("a trust override applies to the composite rank only (rank='composite')")
        decision = request_override(opts.trust_override, opts.override_policy,
                                    opts.audit_store or AuditStore.for_settings(settings))
    applied = decision.applied if decision is not None else None

    if wanted_types:
        records = [r for r in records if r.memory_type in wanted_types]
    visible = filter_by_trust(records, ctx, default_sensitivity=default_sensitivity)
    scored = score_records(visible.records, comp, now=now, trust_override=applied, max_fused=max_fused)
    if rank == "composite":
        scored = [it for it in scored if it.trust >= comp.min_trust]
        below = len(visible.records) - len(scored)
    else:
        below = 0
    if opts.min_salience is not None:
        scored = filter_by_salience(scored, opts.min_salience)

    kept, selections = resolve_competing(
        _ordered(scored, rank),
        weights=xs.selector_weights,
        threshold=xs.needs_more_threshold,
        now=now,
        half_life_hours=comp.half_life_hours,
        max_fused=max_fused,
        relations=relations if relations is not None else relations_of(settings.search),
    )
    layers = group_into_layers(_ordered(kept, rank)[:limit], xs.layer_order, by_salience=opts.by_salience)
    items = flatten(layers)
    shown = {it.uuid for it in items}
    return ContextResult(
        query=query,
        rank=rank,
        items=items,
        layers=layers,
        selections=[s for s in selections if s.best.uuid in shown],
        override=decision,
        trust_context=ctx,
        candidates=candidates - visible.out_of_scope,  # what is out of scope does not exist for this context
        denied=visible.denied,
        redacted=visible.redacted,
        below_min_trust=below,
        unknown_label=visible.unknown_label,
        out_of_scope=visible.out_of_scope,
    )


def _driver_and_embedder(graph: Any, embedder: Any) -> tuple[Any, Any]:
    """A Graphiti, a GraphConnection (its ``.driver``) or a driver; embedder as given."""
    if getattr(graph, "clients", None) is None and hasattr(graph, "driver") and hasattr(graph, "dialect"):
        return graph.driver, embedder
    return graph, embedder


def visible_count(result: ContextResult, wanted: int) -> int:
    """How many of ``result``'s records count toward filling its window: its items, or ``wanted``
    when access control withheld nothing (a deeper search is for denied facts, not for what the
    other stages drop)."""
    return len(result.items) if result.denied or result.out_of_scope else wanted


def _first_window(settings: Settings, max_results: int) -> int:
    """The first search window for ``max_results`` records: twice as deep, at least ``search.limit``."""
    return min(MAX_SEARCH_DEPTH, max(2 * max_results, settings.search.limit))


async def build_context(
    graphiti_or_conn: Any,
    query: str,
    *,
    settings: Settings,
    trust_context: TrustContext | None,
    search: SearchOptions | None = None,
    options: ContextOptions | None = None,
    **fields_given: Any,
) -> ContextResult:
    """Search ``graphiti_or_conn`` (a Graphiti, a GraphConnection or a driver plus an
    embedder) and build the trusted context.

    ``search`` (:class:`SearchOptions`) says how to search, ``options`` (:class:`ContextOptions`)
    how the later stages run; the fields of either may also be given as keyword arguments
    (``group_ids=[...]``, ``rank="boost"``). A recipe (``config``) is used as given; None means
    the edge hybrid RRF recipe with ``settings.search`` applied and a limit of twice
    ``max_results`` (later stages drop candidates). Relevance is normalized by the recipe's
    largest possible fused score (:func:`max_fused_for`)."""
    search_fields = {k: v for k, v in fields_given.items() if k in _SEARCH_FIELDS}
    how = replace(search or SearchOptions(), **search_fields)
    opts = ContextOptions.of(options, {k: v for k, v in fields_given.items() if k not in _SEARCH_FIELDS})
    ctx = require_context(trust_context)  # fail before touching the graph
    check_memory_types(list(opts.memory_types) if opts.memory_types else None, settings)
    graph, embedder = _driver_and_embedder(graphiti_or_conn, how.embedder)
    limit = opts.max_results or settings.composite.max_results
    # Access control, min_trust and competing facts remove candidates: the first window is twice
    # as deep, and it widens while what survives does not fill max_results.
    base = how.config if how.config is not None else search_config_for(settings, limit=_first_window(settings, limit),
                                                                         shown=limit)

    async def run(depth: int) -> tuple[Any, ContextResult]:
        cfg = base.model_copy(update={"limit": depth})
        results = await trust_search(graph, query, cfg, group_ids=how.group_ids, search_filter=how.search_filter,
                                     embedder=embedder, trust_weight=how.trust_weight,
                                     max_query_chars=settings.search.max_query_chars)
        return results, context_from_records(records_from_results(results), query, settings=settings,
                                              trust_context=ctx, options=opts, max_fused=max_fused_for(cfg),
                                              relations=results.relations)

    (results, out), depth = await fill_window(
        run, lambda r: (visible_count(r[1], limit), max(len(r[0].edges), len(r[0].nodes))),
        wanted=limit, first=base.limit, multiple=settings.access.max_fetch_multiple)
    return replace(out, search_depth=depth)


async def context_for_settings(
    settings: Settings,
    query: str,
    *,
    trust_context: TrustContext | None,
    groups: list[str] | None = None,
    **options: Any,
) -> ContextResult:
    """Open the configured graph and run :func:`build_context` (what ``graph-trust context``
    runs). ``groups`` None means ``search.group_ids``, else every group; ``options`` are
    :func:`build_context`'s keyword arguments."""
    require_context(trust_context)
    if not isinstance(query, str) or not query.strip():
        raise InputError("the query is empty")
    async with open_graphiti(settings) as (conn, graphiti):
        group_ids = await resolve_groups(conn, groups or settings.search.group_ids or None,
                                         scopes=trust_context.scopes if trust_context else ())
        if group_ids == []:  # only out-of-scope groups that do not exist: nothing to search
            stages = {k: v for k, v in options.items() if k in _OPTION_FIELDS}
            empty = context_from_records([], query, settings=settings, trust_context=trust_context,
                                         options=options.get("options"), **stages)
            return replace(empty, search_depth=_first_window(
                settings, stages.get("max_results") or settings.composite.max_results))
        return await build_context(
            graphiti, query, settings=settings, trust_context=trust_context, group_ids=group_ids, **options
        )


async def get_record(
    graphiti_or_conn: Any, uuid: str, *, settings: Settings, trust_context: TrustContext | None
) -> MemoryRecord:
    """One edge or node by uuid, as ``trust_context`` may see it (possibly redacted).

    On FalkorDB each group is its own graph: pass a handle on the group's graph
    (``conn.for_group(group_id)``).

    NotFoundError when neither an edge nor a node has that uuid; AccessDeniedError when it
    exists but is denied; MissingTrustContextError without a context.
    """
    ctx = require_context(trust_context)
    clients = getattr(graphiti_or_conn, "clients", None)
    driver = clients.driver if clients is not None else _driver_and_embedder(graphiti_or_conn, None)[0]
    item: Any
    try:
        item = await EntityEdge.get_by_uuid(driver, uuid)
    except EdgeNotFoundError:
        try:
            item = await EntityNode.get_by_uuid(driver, uuid)
        except NodeNotFoundError:
            raise NotFoundError(f"no edge or node with id {uuid}") from None
    record = record_from_item(item)
    return get_by_id([record], uuid, ctx, default_sensitivity=settings.context.default_sensitivity)


__all__ = [
    "RANK_MODES",
    "ContextOptions",
    "ContextResult",
    "RankMode",
    "SearchOptions",
    "build_context",
    "context_for_settings",
    "context_from_records",
    "get_record",
    "max_fused_for",
    "search_config_for",
    "visible_count",
]
