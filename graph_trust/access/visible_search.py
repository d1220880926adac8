"""Search as a trust context sees it: :func:`graph_trust.search.ranked.search_confident`'s search,
with what the context may not see taken out before the window is filled (denied facts take no
slot), one level above its clearance redacted, and other groups invisible to a scoped caller.

It lives here, above search, so search never imports access: the access stages read search
records, search knows nothing of who asks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graph_trust.access.trust_context import TrustContext, filter_by_trust, require_context
from graph_trust.config import Settings
from graph_trust.errors import InputError
from graph_trust.search.pool_facts import competitor_keys, relations_of
from graph_trust.search.ranked import keep_confident, search_config
from graph_trust.search.ranking import Explanation
from graph_trust.search.records import MemoryRecord, records_from_results
from graph_trust.search.session import open_graphiti, resolve_groups
from graph_trust.search.trust_search import check_query, trust_search
from graph_trust.search.window import fill_window


@dataclass(frozen=True)
class VisibleSearch:
    """A search as a trust context sees it: only what it may see (redacted records in place),
    best first, ranks renumbered 1.. over what is shown, and how many were withheld."""

    records: list[MemoryRecord]
    trust_weight: float
    denied: int = 0
    redacted: int = 0
    unknown_label: int = 0  # of ``denied``: withheld for a sensitivity label the scale does not know
    search_depth: int = 0  # candidates the last search round asked for
    confidences: dict[str, float] | None = None  # search.min_confidence set: each shown fact's
    competitor_keys: dict[str, Any] = field(default_factory=dict)  # shown, unredacted edges only

    @property
    def explanations(self) -> list[Explanation]:
        return [r.explanation for r in self.records if r.explanation is not None]


async def search_visible(settings: Settings, query: str, *, trust_context: TrustContext | None,
                         confidences: Callable[[list[str]], dict[str, float]], scope: str = "edges",
                         limit: int | None = None, groups: list[str] | None = None) -> VisibleSearch:
    """:func:`search_confident` for a trust context: denied facts take no slot (the window widens,
    :mod:`graph_trust.search.window`, until ``limit`` visible facts or no more candidates), one
    level above the clearance is redacted, and a scoped caller learns nothing of other groups."""
    ctx = require_context(trust_context)
    s = settings.search
    check_query(query, s.max_query_chars)
    threshold = s.min_confidence
    if threshold is not None and scope != "edges":
        raise InputError("search.min_confidence (--min-confidence) filters facts: it does not apply to --nodes")
    limit = limit or s.limit
    config = search_config(settings, scope=scope, limit=limit)
    default = settings.context.default_sensitivity

    async with open_graphiti(settings) as (conn, graphiti):
        group_ids = await resolve_groups(conn, groups or s.group_ids or None, scopes=ctx.scopes)
        if group_ids == []:  # only out-of-scope groups that do not exist: nothing to search (as an empty group)
            return VisibleSearch([], config.trust_weight or 0.0, search_depth=limit)

        async def run(depth: int) -> tuple[Any, dict[str, float] | None, Any, int]:
            results = await trust_search(graphiti, query, config.model_copy(update={"limit": depth}),
                                         group_ids=group_ids, max_query_chars=s.max_query_chars)
            returned = len(results.edges if scope == "edges" else results.nodes)
            known = None
            if threshold is not None:
                known = confidences([e.uuid for e in results.edges])
                results = keep_confident(results, known, threshold)
            return results, known, filter_by_trust(records_from_results(results), ctx, default_sensitivity=default), \
                returned

        (results, known, visible, _), depth = await fill_window(  # (deeper only past facts access control withheld)
            run, lambda r: (len(r[2].records) if r[2].denied or r[2].out_of_scope else limit, r[3]), wanted=limit,
            first=limit, multiple=settings.access.max_fetch_multiple)
    shown = visible.records[:limit]
    records = [r if r.explanation is None else dataclasses.replace(
        r, explanation=dataclasses.replace(r.explanation, rank=i)) for i, r in enumerate(shown, start=1)]
    keys = {e.uuid: k for e, k in zip(results.edges, competitor_keys(results.edges, relations_of(results)),
                                      strict=True)}
    return VisibleSearch(
        records=records, trust_weight=results.trust_weight, denied=visible.denied, redacted=visible.redacted,
        unknown_label=visible.unknown_label, search_depth=depth,
        confidences=None if known is None else {r.uuid: known[r.uuid] for r in records if r.uuid in known},
        competitor_keys={r.uuid: keys[r.uuid] for r in records if r.uuid in keys and not r.redacted})

__all__ = ["VisibleSearch", "search_visible"]
