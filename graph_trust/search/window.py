"""The search window of access-controlled retrieval: facts the caller may not see take no slot.

A search returns its best ``depth`` candidates; access control (and the stages after it) then
drop some. When access control withheld candidates and what the caller may see does not fill
what was asked for, the search runs again with the window doubled, up to ``access.max_fetch_multiple`` times its first size
and never beyond :data:`~graph_trust.config.MAX_SEARCH_DEPTH` candidates, and stops as soon as
enough visible facts are found or the graph returned fewer candidates than the window (it has
no more). Every path that applies a trust context searches through :func:`fill_window`: the
retrieval policy, ``graph-trust context``, ``search`` with a trust context and the MCP tools.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from graph_trust.config import MAX_SEARCH_DEPTH

R = TypeVar("R")


def window_sizes(first: int, multiple: int) -> list[int]:
    """The windows searched in turn: ``first``, doubled, ..., ending at
    ``min(first * multiple, MAX_SEARCH_DEPTH)`` (``first`` alone when it is already that deep)."""
    first = max(1, min(first, MAX_SEARCH_DEPTH))
    last = max(first, min(first * max(1, multiple), MAX_SEARCH_DEPTH))
    sizes = [first]
    while sizes[-1] < last:
        sizes.append(min(sizes[-1] * 2, last))
    return sizes


async def fill_window(search: Callable[[int], Awaitable[R]], count: Callable[[R], tuple[int, int]], *,
                      wanted: int, first: int, multiple: int) -> tuple[R, int]:
    """``search(depth)`` over :func:`window_sizes` until ``count(result)`` = (visible, returned)
    shows ``wanted`` visible facts, or fewer candidates than the window (the graph has no more).
    Returns the last result and the window it was searched with."""
    result: R | None = None
    depth = first
    for depth in window_sizes(first, multiple):
        result = await search(depth)
        visible, returned = count(result)
        if visible >= wanted or returned < depth:
            break
    assert result is not None
    return result, depth


__all__ = ["fill_window", "window_sizes"]
