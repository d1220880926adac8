"""Layers: group results by memory type in a configured order; salience filter and sort.

Items are :class:`~graph_trust.search.records.MemoryRecord` or anything with a ``.record`` (such as
:class:`~graph_trust.search.composite.RankedRecord`). Salience is the ``salience`` property; when
absent it is derived from trust: the effective trust of a ranked item (``.trust``, which
includes the default and any override), else the record's ``trust_score``, else 0.5.

Layers follow ``order`` (default ``context.layer_order``: instruction, system, fact, goal,
preference, observation); types not in ``order`` follow, in order of first appearance.
Within a layer items keep their incoming (rank) order unless ``by_salience``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from graph_trust.search.records import record_of

DEFAULT_LAYER_ORDER: tuple[str, ...] = ("instruction", "system", "fact", "goal", "preference", "observation")
DEFAULT_SALIENCE = 0.5

T = TypeVar("T")


def salience_of(item: Any) -> float:
    """The item's salience (see module docstring)."""
    rec = record_of(item)
    if rec.salience is not None:
        return rec.salience
    trust = getattr(item, "trust", None)
    if trust is None:
        trust = rec.trust_score
    return DEFAULT_SALIENCE if trust is None else float(trust)


@dataclass(frozen=True, slots=True)
class Layer(Generic[T]):
    memory_type: str
    items: list[T]


def filter_by_salience(items: Iterable[T], min_salience: float) -> list[T]:
    """Items whose salience is at or above ``min_salience``."""
    return [it for it in items if salience_of(it) >= min_salience]


def sort_by_salience(items: Iterable[T]) -> list[T]:
    """Highest salience first; ties keep their order."""
    return sorted(items, key=salience_of, reverse=True)


def group_into_layers(
    items: Sequence[T],
    order: Sequence[str] = DEFAULT_LAYER_ORDER,
    *,
    min_salience: float | None = None,
    by_salience: bool = False,
) -> list[Layer[T]]:
    """Non-empty layers in ``order`` (then unlisted types), filtered and optionally sorted."""
    if min_salience is not None:
        items = filter_by_salience(items, min_salience)
    buckets: dict[str, list[T]] = {t.strip().lower(): [] for t in order}
    for it in items:
        buckets.setdefault(record_of(it).memory_type, []).append(it)
    return [
        Layer(t, sort_by_salience(bucket) if by_salience else bucket)
        for t, bucket in buckets.items()
        if bucket
    ]


def flatten(layers: Iterable[Layer[T]]) -> list[T]:
    """Items in layer order."""
    return [it for layer in layers for it in layer.items]
