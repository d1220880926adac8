"""Learned factor weights (``graph-trust confidence learn --apply``), journaled in the review DB's
``confidence_weight_changes`` so a change can be reverted (a mixin of
:class:`~graph_trust.sync.confidence.store.ConfidenceStore`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

import numpy as np

from graph_trust.confidence import composite as comp
from graph_trust.confidence import learning
from graph_trust.config import ConfidenceSettings
from graph_trust.errors import InputError, NotFoundError
from graph_trust.review.db import ReviewConn
from graph_trust.sync.confidence.schema import iso_utc, sql_list


class LearnedWeights:
    """The factor weights in use, and fitting, applying and reverting learned ones."""

    conn: ReviewConn
    cfg: ConfidenceSettings
    now: datetime
    _weights: dict[str, float] | None
    _query: Callable[..., list[tuple]]
    _write: Callable[[list[tuple[str, tuple]]], int]

    # --- weights ------------------------------------------------------------------------------

    @property
    def weights(self) -> dict[str, float]:
        """``confidence.weights``, unless a learned change is applied and not reverted."""
        if self._weights is None:
            row = self._query("SELECT new_weights_json FROM confidence_weight_changes WHERE reverted_at IS NULL "
                              "ORDER BY id DESC LIMIT 1")
            self._weights = comp.check_weights(json.loads(row[0][0])) if row else dict(self.cfg.weights)
        return self._weights


    # --- learning -----------------------------------------------------------------------------

    def outcomes(self) -> tuple[np.ndarray, np.ndarray]:
        """Recorded uses as (factor rows in FACTORS order, outcome values)."""
        rows = self._query(f"SELECT {sql_list(f + '_score' for f in comp.FACTORS)}, actual_outcome "
                           "FROM confidence_predictions WHERE actual_outcome IS NOT NULL ORDER BY id")
        if not rows:
            return np.empty((0, len(comp.FACTORS))), np.empty(0)
        X = np.array([[0.5 if v is None else v for v in r[:-1]] for r in rows], dtype=float)
        return X, np.array([learning.OUTCOME_VALUES[r[-1]] for r in rows])

    def learn(self, apply: bool = False) -> dict[str, Any]:
        """Fit weights to the recorded outcomes; with ``apply``, journal them as the weights in use."""
        X, y = self.outcomes()
        try:
            report = learning.learn(X, y, self.weights)
        except ValueError as exc:
            raise InputError(str(exc)) from None
        report["applied"] = None
        if apply:
            at = iso_utc(self.now)
            change_id = self.conn.write(lambda c: c.insert_id(
                "INSERT INTO confidence_weight_changes (applied_at, old_weights_json, new_weights_json, report_json) "
                "VALUES (?, ?, ?, ?)",
                (at, json.dumps(report["weights_before"]), json.dumps(report["weights_after"]),
                 json.dumps({k: report[k] for k in ("outcomes", "calibration_before", "calibration_after")}))))
            report["applied"] = {"change_id": change_id, "applied_at": at}
            self._weights = None
        return report

    def weight_changes(self) -> list[dict[str, Any]]:
        """The journal of learned weights, newest first."""
        return [{"change_id": r[0], "applied_at": r[1], "weights_before": json.loads(r[2]),
                 "weights_after": json.loads(r[3]), "reverted_at": r[4]}
                for r in self._query("SELECT id, applied_at, old_weights_json, new_weights_json, reverted_at "
                                     "FROM confidence_weight_changes ORDER BY id DESC")]

    def revert(self, change_id: int | None = None) -> dict[str, Any]:
        """Revert a learned change (the latest in use when None): the weights before it return."""
        live = [c for c in self.weight_changes() if c["reverted_at"] is None]
        if change_id is None:
            if not live:
                raise InputError("no learned weight change is in use: nothing to revert")
            change_id = live[0]["change_id"]
        elif change_id not in {c["change_id"] for c in live}:
            raise NotFoundError(f"no learned weight change {change_id} in use (see `graph-trust confidence weights`)")
        later = [c["change_id"] for c in live if c["change_id"] > change_id]
        at = iso_utc(self.now)
        # reverting a change also reverts the ones applied after it: their "before" was built on it
        self._write([("UPDATE confidence_weight_changes SET reverted_at = ? WHERE id >= ? AND reverted_at IS NULL",
                      (at, change_id))])
        self._weights = None
        return {"reverted": [change_id, *later], "reverted_at": at, "weights": self.weights}


