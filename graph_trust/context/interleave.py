"""Interleaving relevance with recency (reference section 3, with strategies and a ratio).

Two orders over the same memories: by score (highest first) and by recency (newest first;
no timestamp sorts last); ties break by id, so the result never depends on arrival order.
The *lead* order is the score order for ``alternate`` and ``score_first``, the recency order
for ``recency_first``; ``ratio`` is the share of slots the lead order fills, spread evenly
(slot ``i`` comes from the lead when ``ceil((i+1)*ratio) > ceil(i*ratio)``), the others take
the best unused item of the other order. Defaults: ``alternate`` 0.5 (score, recency, score,
...), ``score_first`` and ``recency_first`` 1.0 (pure orders).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TypeVar

T = TypeVar("T")

STRATEGIES: tuple[str, ...] = ("alternate", "score_first", "recency_first")
DEFAULT_RATIO = {"alternate": 0.5, "score_first": 1.0, "recency_first": 1.0}


def interleave(
    items: Sequence[T],
    *,
    strategy: str,
    top_k: int,
    score: Callable[[T], float],
    timestamp: Callable[[T], datetime | None],
    ident: Callable[[T], str],
    ratio: float | None = None,
) -> list[T]:
    """At most ``top_k`` items in interleaved order (see the module docstring)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"interleave strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
    r = DEFAULT_RATIO[strategy] if ratio is None else ratio
    by_score = sorted(items, key=lambda it: (-score(it), ident(it)))
    by_recency = sorted(
        items,
        key=lambda it: (timestamp(it) is None, -(timestamp(it).timestamp()) if timestamp(it) else 0.0, ident(it)),
    )
    lead, other = (by_recency, by_score) if strategy == "recency_first" else (by_score, by_recency)
    out: list[T] = []
    used: set[str] = set()
    pos = {id(lead): 0, id(other): 0}
    n = min(top_k, len(items))
    for i in range(n):
        source = lead if math.ceil((i + 1) * r) > math.ceil(i * r) else other
        j = pos[id(source)]
        while ident(source[j]) in used:
            j += 1
        pos[id(source)] = j + 1
        out.append(source[j])
        used.add(ident(source[j]))
    return out
