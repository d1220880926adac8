"""Composite rank: the optional second stage after fusion and the trust boost.

``rank = (w_trust*trust + w_recency*recency + w_relevance*relevance + w_type*type_boost) / W``
where ``W`` is the sum of the weights (config keeps it within 1 +/- 0.05; dividing by it keeps
the rank in [0, 1] and changes nothing for the default weights, which sum to 1).

- **trust**: the record's ``trust_score``; ``default_trust`` (0.25, the candidate tier: an
  unreviewed fact never outranks a reviewed candidate on trust) when absent; rejected and
  expired facts read 0.0 (sync's default tiers) and fall under a positive ``min_trust``; a validated
  per-request trust override (:mod:`graph_trust.access.override`) replaces it for every record.
- **recency**: ``0.5 ** (age / half_life)``, age from ``valid_at`` else ``created_at``;
  half-life ``half_life_hours_by_type[memory_type]`` else ``half_life_hours`` (24 h, right for
  chat memories); a type mapped to null does not decay (recency 1: by default facts, system
  settings and instructions, so an edge without a declared memory_type, a fact, keeps its
  place however old); no timestamp gives 0.5; a timestamp in the future counts as age 0.
- **relevance**: the search stage's final score (the fused RRF score with its trust boost and
  relation bonus, in the order of its rules; the fused score alone for a record without an
  explanation) divided by the largest score RRF can give, ``max_fused =
  n_methods / rank_const`` (first place in every search method; 2.0 for Graphiti's BM25 +
  cosine with ``rank_const=1``), clipped to [0, 1]. It is absolute, not relative to the pool:
  a hit ranked first by both BM25 and cosine is 1.0 whatever else was found, and a lone weak
  hit does not become 1.0. ``max_fused`` may differ per record kind (edge/node scopes can use
  different methods); for a non-RRF reranker pass 1.0 (its score is clipped). No score gives 0.5.
- **type_boost**: :data:`DEFAULT_TYPE_BOOSTS`, overridden per key by ``type_boosts``; types
  not in the table get ``type_boosts['unknown']`` or 0.5.

Scoring is numpy over arrays; the per-record Python work is reading five fields.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

import numpy as np

from graph_trust.config import CompositeSettings
from graph_trust.errors import ConfigError
from graph_trust.search.records import MemoryRecord
from graph_trust.search.rules.competitors import order_competitors
from graph_trust.search.slots import slot_key

DEFAULT_TYPE_BOOSTS: Mapping[str, float] = {
    "instruction": 1.0,
    "system": 1.0,
    "fact": 0.9,
    "goal": 0.85,
    "preference": 0.8,
    "observation": 0.6,
}
UNKNOWN_TYPE = "unknown"
UNKNOWN_TYPE_BOOST = 0.5
MISSING_TIMESTAMP_RECENCY = 0.5
MISSING_RELEVANCE = 0.5

TrustSource = Literal["property", "default", "override"]


@dataclass(frozen=True, slots=True)
class RankedRecord:
    """A record with every composite dimension and the resulting score."""

    record: MemoryRecord
    trust: float
    recency: float
    relevance: float
    type_boost: float
    score: float
    trust_source: TrustSource
    # set when the competitor rule moved the record from the place its score gave it: the rule
    # and that score (``score`` is then the score of the slot it took: scores follow the order)
    moved_by: str | None = None
    score_before_move: float | None = None

    @property
    def uuid(self) -> str:
        return self.record.uuid

    @property
    def memory_type(self) -> str:
        return self.record.memory_type


def type_boost_table(settings: CompositeSettings) -> dict[str, float]:
    """Built-in boosts with the configured overrides applied (``unknown`` included)."""
    table = {**DEFAULT_TYPE_BOOSTS, UNKNOWN_TYPE: UNKNOWN_TYPE_BOOST}
    for key, value in settings.type_boosts.items():
        if not (isinstance(value, int | float) and math.isfinite(value) and 0.0 <= value <= 1.0):
            raise ConfigError(f"config key composite.type_boosts.{key}: must be in [0, 1], got {value!r}")
        table[key.strip().lower()] = float(value)
    return table


def _half_life_table(settings: CompositeSettings) -> dict[str, float]:
    """Half-life per memory type in hours; None (no decay) becomes infinity."""
    table: dict[str, float] = {}
    for key, value in settings.half_life_hours_by_type.items():
        if value is None:
            table[key.strip().lower()] = math.inf
            continue
        if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
            raise ConfigError(
                f"config key composite.half_life_hours_by_type.{key}: must be a positive number of hours, got {value!r}"
            )
        table[key.strip().lower()] = float(value)
    return table


def recency_scores(age_seconds: np.ndarray, half_life_hours: np.ndarray | float) -> np.ndarray:
    """``0.5 ** (age / half_life)``; NaN or None age (no timestamp) gives 0.5, negative age counts
    as 0; an infinite half-life (no decay) gives 1 whatever the timestamp. Any real numbers (ints,
    Decimals, NumPy scalars) are read as float64."""
    age = np.asarray(age_seconds, dtype=np.float64)
    half_life_s = np.asarray(half_life_hours, dtype=np.float64) * 3600.0
    out = np.power(0.5, np.maximum(age, 0.0) / half_life_s)
    out = np.where(np.isnan(age), MISSING_TIMESTAMP_RECENCY, out)
    return np.where(np.isinf(half_life_s), 1.0, out)


def max_rrf(n_methods: int, rank_const: float = 1.0) -> float:
    """The largest fused score: first place in each of ``n_methods`` lists."""
    if n_methods < 1 or not rank_const > 0:
        raise ValueError("n_methods must be >= 1 and rank_const > 0")
    return n_methods / rank_const


DEFAULT_MAX_FUSED = max_rrf(2, 1.0)
MaxFused = float | Mapping[str, float]


def normalize_relevance(fused: np.ndarray, max_fused: np.ndarray | float = DEFAULT_MAX_FUSED) -> np.ndarray:
    """Fused score / ``max_fused``, clipped to [0, 1]; NaN or None (no score) gives 0.5. Any real
    numbers (ints, Decimals, NumPy scalars) are read as float64."""
    raw = np.asarray(fused, dtype=np.float64)
    out = np.clip(raw / np.asarray(max_fused, dtype=np.float64), 0.0, 1.0)
    return np.where(np.isnan(raw), MISSING_RELEVANCE, out)


def max_fused_of(kind: str, max_fused: MaxFused) -> float:
    if isinstance(max_fused, Mapping):
        return float(max_fused.get(kind, DEFAULT_MAX_FUSED))
    return float(max_fused)


def composite_scores(
    trust: np.ndarray,
    recency: np.ndarray,
    relevance: np.ndarray,
    type_boost: np.ndarray,
    settings: CompositeSettings,
) -> np.ndarray:
    """The weighted sum divided by the weight total (so [0, 1] inputs give a [0, 1] rank)."""
    w = np.array([settings.w_trust, settings.w_recency, settings.w_relevance, settings.w_type])
    total = float(w.sum())
    if total <= 0:
        raise ConfigError("config key composite: the weights sum to 0")
    # Elementwise, not a matrix product: BLAS accumulates in an order that depends on an item's
    # position, so two items with equal dimensions could score 1 ulp apart and their order would
    # depend on the order the candidates arrived in.
    w = w / total
    return w[0] * trust + w[1] * recency + w[2] * relevance + w[3] * type_boost


@dataclass(frozen=True, slots=True)
class CompositeArrays:
    """Every dimension as arrays aligned with the input records."""

    trust: np.ndarray  # effective trust (property, default or override)
    trust_missing: np.ndarray  # bool: no trust_score on the record
    recency: np.ndarray
    relevance: np.ndarray
    type_boost: np.ndarray
    score: np.ndarray


def composite_arrays(
    records: Sequence[MemoryRecord],
    settings: CompositeSettings,
    *,
    now: datetime | None = None,
    trust_override: float | None = None,
    max_fused: MaxFused = DEFAULT_MAX_FUSED,
) -> CompositeArrays:
    """The vectorized core: five fields read per record, everything else in numpy."""
    now_s = (now or datetime.now(UTC)).timestamp()
    boosts = type_boost_table(settings)
    unknown_boost = boosts[UNKNOWN_TYPE]
    half_lives = _half_life_table(settings)

    # np.array(..., dtype=float) turns None into NaN (= absent).
    trust = np.array([r.trust_score for r in records], dtype=np.float64)
    stamp = np.array(
        [None if (t := r.valid_at or r.created_at) is None else t.timestamp() for r in records], dtype=np.float64
    )
    # the search stage's final score (fused, trust boost, relation bonus, its rules' order), else
    # the fused score alone
    fused = np.array([None if r.relevance_raw is None else
                      r.explanation.final if r.explanation is not None else r.relevance_raw
                      for r in records], dtype=np.float64)
    types = [r.memory_type for r in records]
    tboost = np.array([boosts.get(t, unknown_boost) for t in types], dtype=np.float64)
    hl: np.ndarray | float = settings.half_life_hours
    if half_lives:
        hl = np.array([half_lives.get(t, settings.half_life_hours) for t in types], dtype=np.float64)
    mf: np.ndarray | float = float(max_fused) if not isinstance(max_fused, Mapping) else np.array(
        [max_fused_of(r.kind, max_fused) for r in records], dtype=np.float64
    )

    missing = np.isnan(trust)
    if trust_override is not None:
        trust_eff = np.full(len(records), float(trust_override))
    else:
        trust_eff = np.where(missing, settings.default_trust, trust)
    recency = recency_scores(now_s - stamp, hl)
    relevance = normalize_relevance(fused, mf)
    score = composite_scores(trust_eff, recency, relevance, tboost, settings)
    return CompositeArrays(trust_eff, missing, recency, relevance, tboost, score)


def _ranked(
    records: Sequence[MemoryRecord], a: CompositeArrays, idx: Sequence[int], overridden: bool,
    slot_scores: Sequence[float] | None = None, moved: Sequence[bool] | None = None,
) -> list[RankedRecord]:
    """The records at ``idx``, each with its dimensions; where ``moved`` (aligned with ``idx``)
    says the competitor rule moved one, it scores its place's score (``slot_scores``)."""
    scores = a.score[idx].tolist()
    moved = [False] * len(scores) if moved is None else list(moved)
    shown = [v if m else s for s, v, m in zip(scores, slot_scores or scores, moved, strict=True)]
    cols = zip(
        a.trust[idx].tolist(),
        a.recency[idx].tolist(),
        a.relevance[idx].tolist(),
        a.type_boost[idx].tolist(),
        scores,
        shown,
        moved,
        a.trust_missing[idx].tolist(),
        strict=True,
    )
    return [
        RankedRecord(records[i], t, rc, rv, tb, v, "override" if overridden else ("default" if m else "property"),
                     "competitors" if mv else None, s if mv else None)
        for i, (t, rc, rv, tb, s, v, mv, m) in zip(idx, cols, strict=True)
    ]


def _order_competitors(records: Sequence[MemoryRecord], a: CompositeArrays, keep: np.ndarray, timed: bool,
                       verified_trust: float, keys: Mapping[str, Any] | None) -> np.ndarray:
    """``keep`` with competing edges reordered by evidence. ``keys`` maps an edge uuid to its
    competitor key (search's :func:`graph_trust.search.pool_facts.competitor_keys`, which leaves out
    relations that hold several values); without it, the :func:`graph_trust.search.slots.slot_key` of
    a record's subject and relation name."""
    if keys is not None:
        groups = [keys.get(r.uuid) if r.kind == "edge" else None for r in records]
    else:
        groups = [slot_key(r.subject, r.name) if r.kind == "edge" else None for r in records]
    trust = np.where(a.trust_missing, np.nan, a.trust)
    stamps = None
    if timed:
        stamps = np.array([np.nan if (t := r.valid_at or r.created_at) is None else t.timestamp() for r in records],
                          dtype=np.float64)
    return order_competitors(keep, groups, trust, stamps, verified_trust)


def score_records(
    records: Sequence[MemoryRecord],
    settings: CompositeSettings,
    *,
    now: datetime | None = None,
    trust_override: float | None = None,
    max_fused: MaxFused = DEFAULT_MAX_FUSED,
) -> list[RankedRecord]:
    """Every dimension and the composite score for each record, in input order."""
    if not records:
        return []
    a = composite_arrays(records, settings, now=now, trust_override=trust_override, max_fused=max_fused)
    return _ranked(records, a, list(range(len(records))), trust_override is not None)


def rank_composite(
    records: Sequence[MemoryRecord],
    settings: CompositeSettings,
    *,
    now: datetime | None = None,
    memory_types: Collection[str] | None = None,
    trust_override: float | None = None,
    max_fused: MaxFused = DEFAULT_MAX_FUSED,
    max_results: int | None = None,
    competitors: str = "none",
    verified_trust: float = 0.5,
    competitor_keys: Mapping[str, Any] | None = None,
) -> list[RankedRecord]:
    """Score, drop trust below ``min_trust`` and types outside ``memory_types``, sort, trim.

    Ties keep input (fusion) order. ``max_results`` None means ``settings.max_results``;
    0 means no trim (the pipeline trims after access control and selection). ``competitors``
    (``search.competitors``): edges stating one relation of one subject share the slots their
    composite scores gave them, by trust at or above ``verified_trust``, then (``trust_recency``)
    by the newer timestamp, as in :func:`graph_trust.search.rules.competitors.order_competitors`.
    """
    if memory_types:
        wanted = {t.strip().lower() for t in memory_types}
        records = [r for r in records if r.memory_type in wanted]
    if not records:
        return []
    a = composite_arrays(records, settings, now=now, trust_override=trust_override, max_fused=max_fused)
    order = np.argsort(-a.score, kind="stable")
    keep = order[a.trust[order] >= settings.min_trust]
    slots = a.score[keep]  # each place's score: a record moved into a place takes its score
    before = keep
    if competitors != "none" and len(keep) > 1:
        keep = _order_competitors(records, a, keep, competitors == "trust_recency", verified_trust,
                                  competitor_keys)
    moved = keep != before
    limit = settings.max_results if max_results is None else max_results
    if limit:
        keep, slots, moved = keep[:limit], slots[:limit], moved[:limit]
    return _ranked(records, a, keep.tolist(), trust_override is not None, slots.tolist(), moved.tolist())
