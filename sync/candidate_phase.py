"""Step 2 of a run (:mod:`~graph_trust.sync.runner`), the SQLite part of its start (it runs in a
worker thread while the graph computes its figures): the state store's copy of the review DB
refreshed, in confidence mode every candidate's confidence scored beside it (a thread of its own:
it reads only the review DB) and the moved ones stored, the quarantine recorded, the tiers loaded."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from graph_trust.access.sensitivity import scale_of
from graph_trust.config import Settings
from graph_trust.sync.confidence.trust import score_all, store_confidence
from graph_trust.sync.desired import ReviewSource, load_tiers, quarantined, refresh_candidates
from graph_trust.sync.labels import unknown_sensitivity
from graph_trust.sync.report import REPORT_LIMIT, SyncReport
from graph_trust.sync.review_db import ReviewDB
from graph_trust.sync.store.state import StateStore


def refresh(report: SyncReport, settings: Settings, store: StateStore, src: ReviewSource, graph_key: str,
            progress: Callable[[str, int, int | None], None]) -> bool:
    """Refresh the candidates of ``src`` into ``report``; returns whether the diff must cover
    every edge (:func:`~graph_trust.sync.desired.refresh_candidates`)."""
    r = report
    with ThreadPoolExecutor(1) as pool:  # (on an error the pool waits for the scoring to end)
        scoring = pool.submit(_score, r, src.review, settings) if src.blend else None
        r.candidates_changed, everything = refresh_candidates(
            store, src, graph_key=graph_key, full=r.full, progress=lambda n: progress("candidates", n, None),
            defer_desired=True)
        # every review row was read and compared with the copy, which now holds one per candidate
        r.candidates_read = store.one("count_candidates", source=src.key)
        if scoring is not None:
            t = time.monotonic()
            ids, scores = scoring.result()
            r.confidence_changed = store_confidence(store, src.key, ids, scores, touch=not everything,
                                                    params=src.params())
            r.phase_s["confidence"] = round(time.monotonic() - t, 3)  # what it adds after the refresh
    r.quarantined_count, r.quarantined = quarantined(store, src.key, REPORT_LIMIT)
    r.unknown_sensitivity = unknown_sensitivity(store, src.key, scale_of(settings))
    with store.tx():
        store.do("quarantine", run_id=r.run_id, source=src.key)
    load_tiers(store.con, src.policy)
    return everything


def _score(report: SyncReport, review: ReviewDB, settings: Settings) -> tuple[list[str], Any]:
    """Every candidate's confidence (:func:`score_all`), timed in ``phase_s["confidence_scoring"]``."""
    t = time.monotonic()
    out = score_all(review, settings)
    report.phase_s["confidence_scoring"] = round(time.monotonic() - t, 3)
    return out


__all__ = ["refresh"]
