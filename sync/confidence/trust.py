"""``sync.trust_mode: confidence``: every candidate's confidence, computed in one set-wise pass,
kept in the state store (``sync_confidence``) for ``part_score_blended`` to blend in SQL.

Change detection covers the confidence too: an edge whose candidate's confidence moved by more
than ``EPSILON`` since the last run is touched (``sync_touched``), so a new verification, vote or
use reaches the graph on the next normal run although the candidate row did not change.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from graph_trust.confidence.composite import FACTORS, composite_many
from graph_trust.config import Settings
from graph_trust.sync.confidence.cache import gather_all
from graph_trust.sync.confidence.store import ConfidenceStore
from graph_trust.sync.desired import insert_desired
from graph_trust.sync.review_db import ReviewDB
from graph_trust.sync.store.run_tables import RunTables
from graph_trust.sync.store.state import StateStore

EPSILON = 1e-9  # a confidence that moved by no more than this leaves its edge alone


def blend_of(settings: Settings) -> float:
    """The blend weight sync uses: ``sync.confidence_weight`` in confidence mode, else 0 (tiers)."""
    return settings.sync.confidence_weight if settings.sync.trust_mode == "confidence" else 0.0


def quantized(scores: np.ndarray, step: float) -> np.ndarray:
    """``scores`` rounded to a multiple of ``step`` (``sync.confidence_step``; 0: as they are)."""
    return np.round(scores / step) * step if step else scores


def blended(tier: float | None, confidence: float | None, weight: float) -> float | None:
    """The trust_score ``part_score_blended`` gives a winner with this tier and confidence (Python twin of
    the SQL, for ``graph-trust confidence ID`` and the tests): ``tier * (1 - w + w * confidence)`` for
    a positive tier; a tier of 0 or none (unscored) is returned as it is."""
    if tier is None or tier <= 0 or not weight:
        return tier
    return tier * (1 - weight + weight * (1.0 if confidence is None else confidence))


def trust_of(settings: Settings, confidence: dict[str, Any]) -> dict[str, Any]:
    """The trust_score sync writes for a fact (``confidence``: ``ConfidenceStore.confidence``'s
    answer) when it is its edge's winning candidate, under ``sync.trust_mode``, with its parts."""
    status = confidence["inputs"]["status"]
    tier = settings.sync.tiers.get(status)
    weight = blend_of(settings)
    return {"trust_mode": settings.sync.trust_mode, "status": status, "tier": tier, "known_status":
            status in settings.sync.tiers, "confidence_weight": weight or None,
            "confidence_step": settings.sync.confidence_step, "trust_score": blended(
                tier, float(quantized(np.float64(confidence["score"]), settings.sync.confidence_step)), weight)
            if status in settings.sync.tiers else None}


def confidence_behind(settings: Settings, uuids: Sequence[str], review_db: str | Path | None = None,
                      now: datetime | None = None) -> dict[str, dict[str, Any]]:
    """For ``search --explain``: per edge uuid, the candidate whose decision its trust comes from
    (the winner, chosen as sync chooses it: highest tier, then status, then id), its tier, its
    confidence with the factor breakdown, and the trust_score ``sync.trust_mode`` gives it. Read
    from the review DB as it is now (one scan for the candidates, one set-wise score); edges no
    usable candidate points at are left out (candidates as ``ConfidenceStore.candidates_for_edges``
    maps them). ``now`` is the instant ages are measured from (default: now; the bundled
    evaluation scores as of its set's ``as_of``)."""
    wanted = list(dict.fromkeys(uuids))
    if not wanted:
        return {}
    tiers, weight = settings.sync.tiers, blend_of(settings)
    with ConfidenceStore.open(review_db, settings.review, settings.confidence, now=now, readonly=True) as cs:
        by_edge = cs.candidates_for_edges(wanted)
        if not by_edge:
            return {}
        g = cs.gather(sorted({i for ids in by_edge.values() for i in ids}))
        matrix = cs.matrix(g)
        scores = composite_many(matrix, cs.weights)
        weights = cs.weights
    fids = g.ids
    status_of = dict(zip(fids, g.statuses, strict=True))
    best: dict[str, tuple] = {}
    for uuid, ids in by_edge.items():
        for cid in ids:
            status = status_of[cid]
            if status not in tiers:  # (sync quarantines it)
                continue
            tier = tiers[status]
            key = (tier is None, -(tier or 0.0), status, cid)
            if uuid not in best or key < best[uuid][0]:
                best[uuid] = (key, cid, status, tier)
    used = quantized(scores, settings.sync.confidence_step)  # (what sync blends)
    at = {f: i for i, f in enumerate(fids)}
    out = {}
    for uuid, (_, cid, status, tier) in best.items():
        i = at[cid]
        out[uuid] = {"fact_id": cid, "status": status, "tier": tier, "trust_mode": settings.sync.trust_mode,
                     "confidence": float(scores[i]), "factors": dict(zip(FACTORS, map(float, matrix[i]), strict=True)),
                     "weights": dict(weights), "trust_score": blended(tier, float(used[i]), weight)}
    return out


def score_all(review: ReviewDB, settings: Settings, now: datetime | None = None) -> tuple[list[str], np.ndarray]:
    """Every candidate's confidence (``ConfidenceStore.scores``: one set-wise read of the review DB,
    read-only, and numpy; the inputs that do not depend on the time from ``confidence_cache`` while
    the review DB is unchanged), rounded to ``sync.confidence_step``. Touches no state store, so it
    can run in its own thread while the run refreshes its copy of the candidates."""
    with ConfidenceStore.open(review.location, settings.review, settings.confidence, now=now, readonly=True) as cs:
        ids, _, scores = cs.scored(gather_all(cs, settings)[0])
    return ids, quantized(scores, settings.sync.confidence_step)


def store_confidence(store: StateStore, source: str, ids: list[str], scores: np.ndarray, *,
                     touch: bool, params: dict[str, object] | None = None) -> int:
    """Keep ``scores`` (from :func:`score_all`) in ``sync_confidence`` under ``source``, writing only
    the candidates whose score moved by more than ``EPSILON``, is new, or left. With ``touch``
    (a run that compares only touched edges), their edges are touched and, with ``params``
    (``ReviewSource.params``), their desired trust recomputed now, after ``refresh_candidates``.
    Returns how many candidates' confidence changed."""
    new = dict(zip(ids, scores.tolist(), strict=True))  # (an id read twice: the last, as SQLite's upsert kept it)
    old = dict(store.rows("confidences", source=source))
    before = np.array([old.pop(i, np.nan) for i in new], dtype=float)  # what stays in ``old`` left the review DB
    after = np.fromiter(new.values(), dtype=float, count=len(new))
    moved_at = np.flatnonzero(np.isnan(before) | (np.abs(after - before) > EPSILON))
    keys = list(new)
    upsert = sorted((keys[i], new[keys[i]]) for i in moved_at.tolist())
    gone = sorted(old)
    changed = len(upsert) + len(gone)
    if not changed:
        return 0
    with store.tx():
        store.do_many("forget_confidence", [(source, i) for i in gone])
        store.do_many("store_confidence", [(source, i, v) for i, v in upsert])
        if touch:
            RunTables(store.con).new_conf_edges()
            store.do("note_conf_edges", ids=json.dumps([i for i, _ in upsert] + gone), source=source)
            store.do("touch_conf_edges")
            if params is not None:
                store.do("forget_desired_of_conf_edges")
                insert_desired(store.con, params, blend=float(params["cw"]), rows="conf_edge_rows")
    return changed


__all__ = ["EPSILON", "blend_of", "confidence_behind", "blended", "quantized", "score_all", "store_confidence",
           "trust_of"]
