"""``get_context``: trust search, the trust stages, then the retrieval policy, with a cache,
a per-caller rate limit and an error policy per failure (below).

Flow: check the arguments (a bad one raises: :class:`~graph_trust.errors.InputError` or
:class:`~graph_trust.errors.ConfigError`) -> open the graph -> the groups (a scoped caller
learns nothing of groups outside its scopes) -> the graphs' trust-state tokens -> cache (fresh
hit: served) -> rate limit (limited: the last result for the same key, even past its TTL, else
empty) -> trust search with ``search_type`` mapped onto the search methods (hybrid: BM25 +
cosine, semantic: cosine, keyword: BM25), first for ``2 * top_k`` candidates -> the context
pipeline's trust stages (:func:`graph_trust.context.agent.context_from_records`: access control,
override, min_trust, competing facts; a denied fact never reaches the policy); while access
control withholds facts and fewer than ``2 * top_k`` survive, the search window widens
(:mod:`graph_trust.search.window`) ->
the policy (:func:`graph_trust.context.policy.apply_policy`) -> payload.

**Score** (``min_score`` applies to it; always in [0, 1]): with ``rank="composite"`` (default)
the composite rank of :mod:`graph_trust.search.composite` (trust, recency, relevance, type; relevance
is the fused score divided by the largest fused score the recipe can give); with
``rank="boost"`` the boosted search score normalized by its largest possible value,
``(fused + trust_weight * trust) / (max_fused + trust_weight)``, where ``max_fused`` is
``methods / rank_const`` (2.0 for hybrid with ``rank_const=1``).

**Error policies** (never raised; the payload is empty and ``metadata`` says why). They cover
the query's text and the graph's failures and state; bad arguments (a query that is not text,
an unknown rank, groups that are no list, an override out of range) raise:

=================  ===========  ==============================================
code               fallback     when
=================  ===========  ==============================================
INVALID_QUERY      skip         the query is empty, blank, longer than
                                ``policy.max_query_chars`` or has no
                                searchable text
GRAPH_UNAVAILABLE  skip         the graph cannot be reached
GROUP_NOT_FOUND    empty        a requested group does not exist
RATE_LIMITED       cache        over ``rate_limit_per_minute`` for this caller;
                                the last result for the same request if any
=================  ===========  ==============================================

The cache key holds the query, every setting, the groups, the rank, ``now``, the trust context
and the trust-state tokens of the graphs searched (:mod:`graph_trust.graph.trust_state`), so a
result is never served to another trust context nor after a sync changed trust. Cached entries
and returned payloads share nothing mutable (each is a deep copy).
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import threading
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from cachetools import LRUCache
from graphiti_core.search.search_config import EdgeSearchMethod

from graph_trust.access.trust_context import TrustContext, require_context
from graph_trust.clients.factory import make_embedder
from graph_trust.clients.offline import make_graphiti
from graph_trust.config import PolicySettings, Settings, policy_with
from graph_trust.context import metrics
from graph_trust.context.agent import RANK_MODES, context_from_records, visible_count
from graph_trust.context.payload import Metadata, Payload
from graph_trust.context.policy import Candidate, apply_policy
from graph_trust.errors import GraphConnectionError, InputError
from graph_trust.graph import trust_state
from graph_trust.graph.connection import address_of, translate_error
from graph_trust.search.composite import RankedRecord
from graph_trust.search.ranked import max_fused_for, search_config
from graph_trust.search.records import records_from_results
from graph_trust.search.session import open_graphiti, resolve_groups
from graph_trust.search.trust_search import EDGE_HYBRID_SEARCH_RRF_TRUST, check_query, trust_search
from graph_trust.search.window import fill_window

SEARCH_METHODS: dict[str, tuple[str, ...]] = {
    "hybrid": ("bm25", "cosine_similarity"),
    "semantic": ("cosine_similarity",),
    "keyword": ("bm25",),
}


def policy_search_config(settings: Settings, policy: PolicySettings) -> Any:
    """The edge RRF trust recipe with ``policy.search_type``'s methods and a limit of
    ``2 * top_k`` (later stages drop candidates)."""
    base = EDGE_HYBRID_SEARCH_RRF_TRUST.model_copy(deep=True)
    base.edge_config.search_methods = [EdgeSearchMethod(m) for m in SEARCH_METHODS[policy.search_type]]
    return search_config(settings, limit=2 * policy.top_k, base=base)


def boosted_score(item: RankedRecord, max_fused: float, trust_weight: float) -> float:
    """``(fused + w * trust) / (max_fused + w)`` clipped to [0, 1]; 0 without an explanation."""
    e = item.record.explanation
    if e is None:
        return 0.0
    return min(1.0, max(0.0, e.final / (max_fused + trust_weight)))


def candidates_from(
    items: Sequence[RankedRecord],
    *,
    rank: str,
    max_fused: Mapping[str, float],
    trust_weight: float,
    episodes: Mapping[str, Sequence[str]],
) -> list[Candidate]:
    """Policy candidates from the trust stages' output (see the module docstring for score)."""
    out = []
    for it in items:
        r = it.record
        score = it.score if rank == "composite" else boosted_score(it, max_fused.get(r.kind, 1.0), trust_weight)
        text = r.text if r.kind == "edge" or not r.summary else f"{r.text}: {r.summary}"
        status = r.attributes.get("trust_status")
        role = r.attributes.get("role")
        out.append(Candidate(
            id=r.uuid,
            text=text,
            score=min(1.0, max(0.0, float(score))),
            timestamp=r.valid_at or r.created_at,
            group=r.group_id,
            type=r.memory_type,
            trust_score=r.trust_score,
            review_status=status if isinstance(status, str) else None,
            role=role if role in ("user", "assistant") else None,
            # a redacted fact's source episodes are not shown: they would point at its content
            episodes=() if r.redacted else tuple(str(e) for e in episodes.get(r.uuid, ())),
            access_redacted=r.redacted,
        ))
    return out


class RateLimiter:
    """A token bucket per caller: ``per_minute`` requests, refilled continuously."""

    def __init__(self, clock: Any = time.monotonic):
        self.clock = clock
        self._buckets: LRUCache[str, tuple[float, float]] = LRUCache(maxsize=100_000)
        self._lock = threading.Lock()

    def allow(self, caller: str, per_minute: int) -> bool:
        if per_minute <= 0:
            return True
        now = self.clock()
        with self._lock:
            tokens, last = self._buckets.get(caller, (float(per_minute), now))
            tokens = min(float(per_minute), tokens + (now - last) * per_minute / 60.0)
            ok = tokens >= 1.0
            self._buckets[caller] = (tokens - 1.0 if ok else tokens, now)
            return ok


@dataclass(slots=True)
class _Entry:
    payload: Payload
    stored: float


class ContextCache:
    """Results by request key; fresh for ``ttl`` seconds, kept (LRU) to serve when rate limited."""

    def __init__(self, clock: Any = time.monotonic):
        self.clock = clock
        self._entries: LRUCache[str, _Entry] = LRUCache(maxsize=1024)
        self._lock = threading.Lock()
        self.lookups = 0
        self.hits = 0

    @property
    def hit_rate(self) -> float:
        return self.hits / self.lookups if self.lookups else 0.0

    def get(self, key: str, ttl: float, *, stale_ok: bool = False) -> Payload | None:
        """A deep copy of the entry for ``key`` (fresh within ``ttl``, or any age with
        ``stale_ok``): what the caller does with it never reaches the cache."""
        with self._lock:
            if not stale_ok:
                self.lookups += 1
            e = self._entries.get(key)
            if e is None or (not stale_ok and self.clock() - e.stored >= ttl):
                return None
            if not stale_ok:
                self.hits += 1
            return copy.deepcopy(e.payload)

    def put(self, key: str, payload: Payload, size: int) -> None:
        """Keep a deep copy of ``payload``: the caller's payload and the entry share nothing."""
        entry = _Entry(copy.deepcopy(payload), self.clock())
        with self._lock:
            if self._entries.maxsize != size:
                old = list(self._entries.items())[-size:]
                self._entries = LRUCache(maxsize=size)
                self._entries.update(old)
            self._entries[key] = entry


def request_key(
    query: str, settings: Settings, trust_context: TrustContext, groups: Sequence[str] | None, rank: str,
    *, trust_state: Sequence[tuple[str, str | None]] = (), now: datetime | None = None,
) -> str:
    """SHA-256 of everything that shapes the answer: query, settings, groups, rank, trust
    context, the searched graphs' trust-state tokens and ``now`` (when given)."""
    ctx = dataclasses.asdict(trust_context)
    body = json.dumps(
        {"q": query, "s": settings.model_dump(mode="json"), "g": sorted(groups or []), "r": rank, "t": ctx,
         "ts": [list(x) for x in trust_state], "now": now.isoformat() if now is not None else None},
        sort_keys=True, default=str,
    )
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


class ContextService:
    """The cache, the rate limiter and the counters behind :func:`get_context`.

    One per process is the default (:data:`DEFAULT_SERVICE`); tests and servers may hold
    their own. ``clock`` is injectable for the TTL and the rate limit."""

    def __init__(self, clock: Any = time.monotonic):
        self.cache = ContextCache(clock)
        self.limiter = RateLimiter(clock)

    async def get_context(
        self,
        settings: Settings,
        query: Any,
        *,
        trust_context: TrustContext | None,
        policy: PolicySettings | Mapping[str, Any] | None = None,
        groups: Sequence[str] | None = None,
        rank: str = "composite",
        caller: str | None = None,
        connection: Any = None,
        now: datetime | None = None,
    ) -> Payload:
        """The policy payload for ``query`` (see the module docstring).

        ``policy``: a PolicySettings, or overrides of ``settings.policy`` by field name
        (validated; a bad value is a ConfigError naming ``policy.<key>``). ``caller`` is who the
        rate limit counts (default: the trust context's actor). ``connection``: an open
        GraphConnection to reuse (else the configured graph is opened for this call)."""
        started = time.perf_counter()
        ctx = require_context(trust_context)
        pol = policy if isinstance(policy, PolicySettings) else policy_with(settings.policy, policy or {})
        settings = settings.model_copy(update={"policy": pol})
        if not isinstance(query, str):
            raise InputError(f"the query must be text, got {type(query).__name__}")
        if rank not in RANK_MODES:
            raise InputError(f"rank must be one of {', '.join(RANK_MODES)}, got {rank!r}")
        if isinstance(groups, str) or not all(isinstance(g, str) and g.strip() for g in groups or ()):
            raise InputError("groups must be a list of group names")
        groups = list(groups or settings.search.group_ids or [])

        def fail(code: str, fallback: str, reason: str) -> Payload:
            return self._finish(Payload([], Metadata(fallback=fallback, error_code=code, reason=reason)), pol, started)

        try:  # INVALID_QUERY: the turn goes on without memory
            query = check_query(query, pol.max_query_chars, "policy.max_query_chars")
        except InputError as exc:
            return fail("INVALID_QUERY", "skip", str(exc))
        try:
            async with self._opened(settings, connection) as (conn, graphiti):
                try:
                    group_ids = await resolve_groups(conn, groups or None, scopes=ctx.scopes)
                except InputError as exc:  # resolve_groups' only InputError names the unknown group
                    return fail("GROUP_NOT_FOUND", "empty", str(exc))
                if group_ids == []:  # only out-of-scope groups that do not exist: nothing to search (as an empty group)
                    return self._finish(Payload([], Metadata(config=pol.model_dump(mode="json"),
                                                             search_depth=2 * pol.top_k)), pol, started)
                state = await trust_state.tokens(conn, group_ids)
                key = request_key(query, settings, ctx, group_ids, rank, trust_state=state, now=now)
                if pol.cache_ttl_s > 0 and (hit := self.cache.get(key, pol.cache_ttl_s)) is not None:
                    return self._served(hit, pol, started, fallback=None)
                who = caller or ctx.actor_id or "anonymous"
                if not self.limiter.allow(who, pol.rate_limit_per_minute):
                    stale = self.cache.get(key, pol.cache_ttl_s, stale_ok=True) if pol.cache_ttl_s > 0 else None
                    reason = f"over policy.rate_limit_per_minute ({pol.rate_limit_per_minute}) for caller {who!r}"
                    if stale is not None:
                        return self._served(stale, pol, started, fallback="cache", code="RATE_LIMITED", reason=reason)
                    return fail("RATE_LIMITED", "cache", reason + "; nothing cached for this request")
                payload = await self._search(settings, graphiti, query, ctx, group_ids, rank, now)
        except GraphConnectionError as exc:
            return fail("GRAPH_UNAVAILABLE", "skip", str(exc))
        except Exception as exc:  # a driver error mid-search: the connection module says if the graph is gone
            lost = translate_error(exc, address_of(settings), settings.graph.database)
            if lost is None:
                raise
            return fail("GRAPH_UNAVAILABLE", "skip", str(lost))
        payload = self._finish(payload, pol, started)
        if pol.cache_ttl_s > 0:  # a deep copy: what the caller does with its payload stays out of the cache
            self.cache.put(key, payload, pol.cache_size)
        return payload

    @asynccontextmanager
    async def _opened(self, settings: Settings, connection: Any) -> AsyncIterator[tuple[Any, Any]]:
        """(connection, Graphiti): on ``connection`` when given, else on the configured graph."""
        if connection is not None:
            yield connection, make_graphiti(connection.driver, embedder=make_embedder(settings))
        else:
            async with open_graphiti(settings) as pair:
                yield pair

    async def _search(self, settings: Settings, graphiti: Any, query: str, ctx: TrustContext,
                      group_ids: list[str] | None, rank: str, now: datetime | None) -> Payload:
        pol = settings.policy
        base = policy_search_config(settings, pol)
        max_fused = max_fused_for(base)
        window = 2 * pol.top_k  # facts surviving the trust stages that fill the policy's choice

        async def run(depth: int) -> tuple[Any, Any]:
            results = await trust_search(graphiti, query, base.model_copy(update={"limit": depth}),
                                         group_ids=group_ids, max_query_chars=pol.max_query_chars)
            ranked = context_from_records(records_from_results(results), query, settings=settings,
                                          trust_context=ctx, rank=rank, max_results=window, max_fused=max_fused,
                                          now=now, relations=results.relations)
            return results, ranked

        (results, ranked), depth = await fill_window(run, lambda r: (visible_count(r[1], window), len(r[0].edges)),
                                                     wanted=window, first=base.limit,
                                                     multiple=settings.access.max_fetch_multiple)
        episodes = {str(e.uuid): list(e.episodes or []) for e in results.edges}
        cands = candidates_from(ranked.items, rank=rank, max_fused=max_fused, trust_weight=results.trust_weight,
                                episodes=episodes)
        memories, stats = apply_policy(cands, pol)
        md = Metadata(
            total_results=ranked.candidates,
            included_results=len(memories),
            total_tokens=stats.total_tokens,
            applied_filters=stats.applied_filters,
            config=pol.model_dump(mode="json"),
            denied=ranked.denied,
            unknown_label=ranked.unknown_label,
            search_depth=depth,
            below_min_score=stats.below_min_score,
            duplicates_removed=stats.duplicates_removed,
            dedup_ratio=stats.dedup_ratio,
            truncated=stats.truncated,
        )
        return Payload(memories, md)

    def _finish(self, payload: Payload, pol: PolicySettings, started: float) -> Payload:
        md = payload.metadata
        md.query_time_ms = round((time.perf_counter() - started) * 1000, 3)
        md.cache_hit_rate = self.cache.hit_rate
        if not md.config:
            md.config = pol.model_dump(mode="json")
        metrics.record(md)
        return payload

    def _served(self, cached: Payload, pol: PolicySettings, started: float, *, fallback: str | None,
                code: str | None = None, reason: str | None = None) -> Payload:
        """A cache entry (already a private deep copy) as this request's payload."""
        md = cached.metadata
        md.cache_hit, md.fallback, md.error_code, md.reason = True, fallback, code, reason
        return self._finish(cached, pol, started)


DEFAULT_SERVICE = ContextService()


async def get_context(settings: Settings, query: Any, *, trust_context: TrustContext | None, **options: Any) -> Payload:
    """The retrieval policy payload for ``query`` on the configured graph, through the process's
    cache and rate limiter. ``options`` are :meth:`ContextService.get_context`'s."""
    return await DEFAULT_SERVICE.get_context(settings, query, trust_context=trust_context, **options)


__all__ = ["DEFAULT_SERVICE", "SEARCH_METHODS", "ContextService", "candidates_from", "get_context",
           "policy_search_config", "request_key"]
