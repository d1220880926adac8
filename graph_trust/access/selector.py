"""Competing facts: several candidates with the same subject and predicate, different objects
("backup runs at 2am" vs "3am"): which one to show, and how sure that choice is.

Each candidate gets three signals in [0, 1]:

- **applicability**: its relevance (the composite stage's normalized fused score, or the
  record's fused score normalized the same way; 0.5 when unknown);
- **success**: ``success_count / (success_count + failure_count)`` when usage outcomes are
  recorded, else 0.5;
- **recency**: recency of reinforcement, ``0.5 ** (age / half_life)`` from ``reinforced_at``,
  else ``valid_at``, else ``created_at`` (0.5 with none).

``score`` is their weighted mean (``context.selector_weights``, equal by default).

A review verdict comes first: a candidate whose ``trust_status`` is verified (promoted,
corroborated) is chosen over unreviewed ones, and a rejected or expired one (``negative``) only when
nothing else is left; the score decides among candidates of equal verdict. The best is kept;
when the verdict decided (the best's verdict is above the runner-up's) ``confidence`` is 1 and
``decided_by`` is ``review``, else ``confidence = (best - second) / best`` (0 when best is 0);
``needs_more = confidence < threshold``. The others are reported as ``alternatives``.

Groups (:func:`competing_groups`) are the facts of one competing slot
(:func:`graph_trust.search.slots.slot_key` of subject and predicate) with two or more distinct
objects; a relation that holds several values (:class:`graph_trust.search.slots.Relations`) forms
no group.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

import numpy as np

from graph_trust.errors import ConfigError
from graph_trust.search.composite import DEFAULT_MAX_FUSED, MaxFused, max_fused_of, normalize_relevance, recency_scores
from graph_trust.search.records import MemoryRecord, record_of
from graph_trust.search.slots import ALL_SINGLE, VERIFIED, Relations, value_key

SIGNALS: tuple[str, ...] = ("applicability", "success", "recency")
EQUAL_WEIGHTS: Mapping[str, float] = {s: 1 / 3 for s in SIGNALS}
UNKNOWN_SUCCESS = 0.5
NEGATIVE = frozenset({"rejected", "expired"})

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Selection(Generic[T]):
    """The outcome for one competing group."""

    subject: str
    predicate: str
    best: T
    alternatives: tuple[T, ...]
    scores: dict[str, float]  # uuid -> score
    signals: dict[str, dict[str, float]] = field(default_factory=dict)  # uuid -> signal -> value
    confidence: float = 0.0
    needs_more: bool = True
    decided_by: str = "signals"  # "review": the best's verdict is above every other's


def check_weights(weights: Mapping[str, float]) -> np.ndarray:
    """The three weights as an array summing to 1; a ConfigError names a bad key."""
    unknown = set(weights) - set(SIGNALS)
    if unknown:
        raise ConfigError(
            f"config key context.selector_weights.{sorted(unknown)[0]}: unknown signal "
            f"(expected {', '.join(SIGNALS)})"
        )
    values = []
    for s in SIGNALS:
        v = weights.get(s, 0.0)
        if not (isinstance(v, int | float) and math.isfinite(v) and v >= 0):
            raise ConfigError(f"config key context.selector_weights.{s}: must be a number >= 0, got {v!r}")
        values.append(float(v))
    arr = np.array(values)
    if arr.sum() <= 0:
        raise ConfigError("config key context.selector_weights: the weights sum to 0")
    return arr / arr.sum()


def success_rate(record: MemoryRecord) -> float:
    """Observed success rate, 0.5 when no outcome is recorded."""
    s, f = record.success_count or 0, record.failure_count or 0
    return s / (s + f) if s + f > 0 else UNKNOWN_SUCCESS


def verdict_rank(record: MemoryRecord) -> int:
    """2 for a verified fact (promoted, corroborated), 0 for a rejected or expired one, else 1."""
    status = record.attributes.get("trust_status")
    status = status.strip().lower() if isinstance(status, str) else ""
    return 2 if status in VERIFIED else 0 if status in NEGATIVE else 1


def _applicability(item: Any, max_fused: MaxFused) -> float:
    relevance = getattr(item, "relevance", None)
    if relevance is not None:
        return float(relevance)
    rec = record_of(item)
    raw = math.nan if rec.relevance_raw is None else rec.relevance_raw
    return float(normalize_relevance(np.array([raw]), max_fused_of(rec.kind, max_fused))[0])


def select(
    candidates: Sequence[T],
    *,
    weights: Mapping[str, float] = EQUAL_WEIGHTS,
    threshold: float = 0.2,
    now: datetime | None = None,
    half_life_hours: float = 24.0,
    max_fused: MaxFused = DEFAULT_MAX_FUSED,
) -> Selection[T]:
    """Score ``candidates`` (non-empty) and pick the best; ties keep the incoming order."""
    if not candidates:
        raise ValueError("select() needs at least one candidate")
    w = check_weights(weights)
    now_s = (now or datetime.now(UTC)).timestamp()
    recs = [record_of(c) for c in candidates]
    stamps = np.array(
        [
            t.timestamp() if (t := r.reinforced_at or r.valid_at or r.created_at) is not None else math.nan
            for r in recs
        ]
    )
    signals = np.vstack(
        [
            np.array([_applicability(c, max_fused) for c in candidates]),
            np.array([success_rate(r) for r in recs]),
            recency_scores(now_s - stamps, half_life_hours),
        ]
    )
    scores = w @ signals
    verdicts = np.array([verdict_rank(r) for r in recs])
    order = np.lexsort((np.arange(len(recs)), -scores, -verdicts)).tolist()
    best_i = order[0]
    best = float(scores[best_i])
    second = float(scores[order[1]]) if len(order) > 1 else 0.0
    by_review = len(order) > 1 and verdicts[best_i] > verdicts[order[1]]
    confidence = 1.0 if by_review else (best - second) / best if best > 0 else 0.0
    first = recs[best_i]
    return Selection(
        subject=first.subject or "",
        predicate=first.predicate or "",
        best=candidates[best_i],
        alternatives=tuple(candidates[i] for i in order[1:]),
        scores={r.uuid: float(s) for r, s in zip(recs, scores.tolist(), strict=True)},
        signals={
            r.uuid: {name: float(signals[k, j]) for k, name in enumerate(SIGNALS)} for j, r in enumerate(recs)
        },
        confidence=confidence,
        needs_more=confidence < threshold,
        decided_by="review" if by_review else "signals",
    )


def competing_groups(items: Sequence[T], relations: Relations = ALL_SINGLE) -> list[list[int]]:
    """Indexes of items of one competing slot (``relations``: which relations hold one value) with
    at least two distinct objects."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, it in enumerate(items):
        r = record_of(it)
        key = relations.competing_slot(r.subject, r.predicate)
        if key is not None and r.object and not r.redacted:
            groups.setdefault(key, []).append(i)
    return [idx for idx in groups.values() if len({value_key(record_of(items[i]).object) for i in idx}) > 1]


def resolve_competing(
    items: Sequence[T],
    *,
    weights: Mapping[str, float] = EQUAL_WEIGHTS,
    threshold: float = 0.2,
    now: datetime | None = None,
    half_life_hours: float = 24.0,
    max_fused: MaxFused = DEFAULT_MAX_FUSED,
    relations: Relations = ALL_SINGLE,
) -> tuple[list[T], list[Selection[T]]]:
    """Keep one item per competing group (in the group's best-ranked slot), report the rest.

    Returns the kept items in order and one :class:`Selection` per group.
    """
    now = now or datetime.now(UTC)
    replace_at: dict[int, T] = {}
    dropped: set[int] = set()
    selections: list[Selection[T]] = []
    for idx in competing_groups(items, relations):
        sel = select(
            [items[i] for i in idx],
            weights=weights,
            threshold=threshold,
            now=now,
            half_life_hours=half_life_hours,
            max_fused=max_fused,
        )
        selections.append(sel)
        replace_at[idx[0]] = sel.best
        dropped.update(idx[1:])
    kept = [replace_at.get(i, it) for i, it in enumerate(items) if i not in dropped]
    return kept, selections
