"""``sync.trust_mode: confidence``: every candidate's confidence, computed in one set-wise pass,
kept in the state store (``sync_confidence``) for ``desired.BLENDED_SQL`` to blend in SQL.

Change detection covers the confidence too: an edge whose candidate's confidence moved by more
than ``EPSILON`` since the last run is touched (``sync_touched``), so a new verification, vote or
use reaches the graph on the next normal run although the candidate row did not change.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from graph_trust.config import Settings
from graph_trust.confidence.composite import FACTORS, composite_many
from graph_trust.sync.confidence_store import ConfidenceStore
from graph_trust.sync.review_db import ReviewDB
from graph_trust.sync.state import StateStore

EPSILON = 1e-9  # a confidence that moved by no more than this leaves its edge alone


def blend_of(settings: Settings) -> float:
    """The blend weight sync uses: ``sync.confidence_weight`` in confidence mode, else 0 (tiers)."""
    return settings.sync.confidence_weight if settings.sync.trust_mode == "confidence" else 0.0


def quantized(scores: np.ndarray, step: float) -> np.ndarray:
    """``scores`` rounded to a multiple of ``step`` (``sync.confidence_step``; 0: as they are)."""
    return np.round(scores / step) * step if step else scores


def blended(tier: float | None, confidence: float | None, weight: float) -> float | None:
    """The trust_score ``desired.BLEND`` gives a winner with this tier and confidence (Python twin of
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


def load_confidence(store: StateStore, review: ReviewDB, settings: Settings, source: str) -> int:
    """Score every candidate of ``review`` (``ConfidenceStore.scores``: one set-wise read and numpy),
    store the scores under ``source`` and touch the edges of candidates whose score moved by more
    than ``EPSILON`` (or is new). Call before ``refresh_candidates``, which recomputes the desired
    trust of touched edges. Returns how many candidates' confidence changed."""
    with ConfidenceStore.open(review.path, settings.review, settings.confidence, readonly=True) as cs:
        ids, _, scores = cs.scores()
    scores = quantized(scores, settings.sync.confidence_step)
    con = store.con
    con.execute("CREATE TEMP TABLE IF NOT EXISTS conf_new (id TEXT PRIMARY KEY, confidence REAL NOT NULL) "
                "WITHOUT ROWID")
    con.execute("DELETE FROM temp.conf_new")
    con.executemany("INSERT OR REPLACE INTO temp.conf_new VALUES (?, ?)", zip(ids, scores.tolist(), strict=True))
    p = {"source": source, "eps": EPSILON}
    moved = ("SELECT n.id FROM temp.conf_new n LEFT JOIN sync_confidence o ON o.source = :source AND o.id = n.id "
             "WHERE o.id IS NULL OR abs(o.confidence - n.confidence) > :eps "
             "UNION ALL SELECT o.id FROM sync_confidence o WHERE o.source = :source "
             "AND NOT EXISTS (SELECT 1 FROM temp.conf_new n WHERE n.id = o.id)")
    with store.tx() as c:
        c.execute("DROP TABLE IF EXISTS temp.conf_moved")
        c.execute(f"CREATE TEMP TABLE conf_moved AS {moved}", p)
        c.execute("INSERT OR IGNORE INTO sync_touched SELECT c.source, c.graph, c.edge_uuid FROM temp.conf_moved m "
                  "JOIN sync_candidates c ON c.source = :source AND c.id = m.id WHERE c.edge_uuid IS NOT NULL", p)
        c.execute("DELETE FROM sync_confidence WHERE source = :source AND id IN (SELECT id FROM temp.conf_moved)", p)
        c.execute("INSERT INTO sync_confidence SELECT :source, n.id, n.confidence FROM temp.conf_new n "
                  "WHERE n.id IN (SELECT id FROM temp.conf_moved)", p)
        changed = c.execute("SELECT count(*) FROM temp.conf_moved").fetchone()[0]
    return changed


__all__ = ["EPSILON", "blend_of", "confidence_behind", "blended", "load_confidence", "quantized", "trust_of"]
