"""The exact cut over a candidate order graph-trust keeps (the exact vector store's cosine, its BM25).

A store ranks every item it holds; the graph decides which of them still exist and pass the
search's filters (and, for cosine, scores them again). :func:`exact_cut` reads the store's best
candidates, has the graph check them, and widens until no unread item can beat the
``limit``-th that passed: the result is the exact top ``limit`` by score, equal scores by uuid.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import Any

import numpy as np

from graph_trust.graph import queries
from graph_trust.graph import vector_index as vi

# At most this many candidates are checked in the graph before a stage leaves the query to the
# scan (filters that pass very few, or a larger block of equal scores at the cut): a check of
# 16,384 uuids reads far less than a scan of a graph large enough to hold them.
MAX_READ = 16_384
# top(k) -> (uuids, scores) best first (equal scores by uuid); verify(uuids) -> {uuid: score} of those that pass
Top = Callable[[int], tuple[list[str], np.ndarray]]
Verify = Callable[[list[str]], Awaitable[dict[str, float]]]


class Scored(list):
    """A candidate list (best first) with each item's score beside it (``scores``): lists from
    several graphs can then be merged into the one list a single database would give."""

    def __init__(self, items: list[Any], scores: list[float] | None = None):
        super().__init__(items)
        self.scores = scores


async def exact_cut(top: Top, verify: Verify, limit: int, max_k: int, *, floor: float = -math.inf,
                    tol: float = 0.0) -> dict[str, float] | None:
    """The exact top ``limit`` (uuid -> score, best first; scores above ``floor``), or None when more than
    ``max_k`` candidates would have to be read (filters that pass very few). ``tol``: how far
    the graph's score of an item may differ from the store's."""
    scored: dict[str, float] = {}
    read: set[str] = set()
    k = max(4 * limit, 64)
    while True:
        uuids, scores = top(k)
        exhausted = len(uuids) < k
        fresh = [u for u, s in zip(uuids, scores.tolist(), strict=True) if u not in read and s > floor - tol]
        if fresh:
            scored.update(await verify(fresh))
            read.update(fresh)
        best = [u for u, _ in sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))]
        if exhausted or not uuids:
            return {u: scored[u] for u in best[:limit]}
        bound = float(scores[-1]) + tol  # no unread item scores above this (in the graph)
        if bound <= floor:
            return {u: scored[u] for u in best[:limit]}
        if len(best) >= limit:
            last = best[limit - 1]
            # unread items tied with the last read one sort after it (the store orders ties by uuid)
            if scored[last] > bound or (tol == 0.0 and scored[last] == bound and last <= uuids[-1]):
                return {u: scored[u] for u in best[:limit]}
        if k >= max_k:
            return None
        k = min(max_k, k * 4)


async def fetch(kind: str, driver: Any, chosen: dict[str, float], returns: str,
                build: Callable[[Any, Any], Any]) -> Scored:
    """graphiti-core's objects of ``chosen`` (uuid -> score), in that order (its return clause and
    parser), with their scores."""
    if not chosen:
        return Scored([], [])
    text = queries.load(f"{kind}_store_fetch", vi.dialect_of(driver)).replace("/*returns*/", returns)
    records, _, _ = await driver.execute_query(text, uuids=list(chosen), routing_="r")
    by_uuid = {r["uuid"]: build(r, driver.provider) for r in records or []}
    kept = [u for u in chosen if u in by_uuid]
    return Scored([by_uuid[u] for u in kept], [chosen[u] for u in kept])
