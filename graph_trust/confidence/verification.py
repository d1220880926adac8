"""Verification: how a fact has been checked.

Levels and base scores: unverified 0.3, self 0.5 (only the fact's author confirmed it), peer
0.7 (one other agent), multiple 0.85 (two to four others), consensus 0.95 (five or more
agents), system 0.95 (a configured automated verifier), ground truth 1.0 (a configured
ground-truth verifier). Each verifier after the first adds 0.05, at most 0.2, capped at 1.

Verdicts: ``confirmed``, ``still_valid`` and ``partially_valid`` confirm; ``outdated`` and
``incorrect`` refute. Only each verifier's latest verdict counts. When the fact's most recent
verdict refutes it the level is ``refuted`` (0.0): a fact its last checker called wrong must
not keep a verification boost.

Review decisions are verifications too (:data:`REVIEW_VERDICTS`), by the verifier
:data:`REVIEWER`, at the decision's time (the candidate row's ``updated_at``): ``promoted``
confirms as a ground-truth verifier (a reviewer's promotion is the project's ground truth),
``corroborated`` confirms as one more verifier other than the author, ``rejected`` (``incorrect``)
and ``expired`` (``outdated``) refute. The newest word wins, as for any verifier: a promotion
after an agent's refutation lifts it, a refutation recorded after the promotion refutes it (a
decision and a verification of the same time: the decision wins). A
decision does not reset the freshness clock (only agents' confirmations do).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

import numpy as np

LEVEL_SCORES: dict[str, float] = {
    "refuted": 0.0,
    "unverified": 0.3,
    "self": 0.5,
    "peer": 0.7,
    "multiple": 0.85,
    "consensus": 0.95,
    "system": 0.95,
    "ground_truth": 1.0,
}
LEVEL_CODES = {name: i for i, name in enumerate(LEVEL_SCORES)}
_BASES = np.array(list(LEVEL_SCORES.values()))
VERDICTS = ("confirmed", "still_valid", "partially_valid", "outdated", "incorrect")
POSITIVE = frozenset({"confirmed", "still_valid", "partially_valid"})
CONSENSUS_VERIFIERS = 5


def verification_score(level: str, verifier_count: int) -> float:
    """Base score of ``level`` plus ``min(0.2, 0.05 * (count - 1))`` when count > 0, capped at 1."""
    return float(verification_many(np.array([LEVEL_CODES[level]]), np.array([verifier_count]))[0])


def verification_many(level_codes: np.ndarray, verifier_counts: np.ndarray) -> np.ndarray:
    """Vectorized :func:`verification_score` (``level_codes`` index ``LEVEL_SCORES``)."""
    base = _BASES[level_codes]
    bonus = np.where(verifier_counts > 0, np.minimum(0.2, (verifier_counts - 1) * 0.05), 0.0)
    out = np.minimum(1.0, base + np.maximum(bonus, 0.0))
    return np.where(level_codes == LEVEL_CODES["refuted"], 0.0, out)


def levels_many(confirming: np.ndarray, others: np.ndarray, system: np.ndarray, ground_truth: np.ndarray,
                refuted: np.ndarray) -> np.ndarray:
    """Level codes from per-fact counts: confirming verifiers, those of them not the author,
    and whether a system or ground-truth verifier confirmed or the newest verdict refutes."""
    c = LEVEL_CODES
    return np.select(
        [refuted, ground_truth, system, confirming >= CONSENSUS_VERIFIERS, others >= 2, others == 1, confirming > 0],
        [c["refuted"], c["ground_truth"], c["system"], c["consensus"], c["multiple"], c["peer"], c["self"]],
        c["unverified"])


LEVEL_NAMES = list(LEVEL_SCORES)
REVIEWER = "review"  # the verifier a review decision counts as (never a fact's author)
REVIEW_VERDICTS: dict[str, str] = {"promoted": "confirmed", "corroborated": "confirmed",
                                   "rejected": "incorrect", "expired": "outdated"}
GROUND_TRUTH_DECISIONS = frozenset({"promoted"})


def review_verdict(status: object) -> str | None:
    """The verdict a review status counts as (None: not a decision, e.g. ``candidate``)."""
    return REVIEW_VERDICTS.get(str(status or "").strip().lower())


def with_reviews(statuses: list[object], decided_at: np.ndarray, confirming: np.ndarray, others: np.ndarray,
                 system: np.ndarray, truth: np.ndarray, confirmed_at: np.ndarray, newest_at: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(level codes, confirming verifier counts) with each fact's review decision (``statuses``,
    at ``decided_at``: julian days, NaN unknown) counted as a verification by :data:`REVIEWER`
    (module docstring). The other arrays are per fact, from the verification records: confirming
    verifiers, those other than the author, whether a system or ground-truth verifier confirmed,
    the latest confirmation and the latest verdict (NaN: none). The decision's time only orders it
    among the verdicts: it does not reset the freshness clock (a row's ``updated_at`` also moves
    for edits that are no decision)."""
    verdicts = [review_verdict(s) for s in statuses]
    pos = np.array([v is not None and v in POSITIVE for v in verdicts], dtype=bool)
    neg = np.array([v is not None and v not in POSITIVE for v in verdicts], dtype=bool)
    gt = np.array([str(s or "").strip().lower() in GROUND_TRUTH_DECISIONS for s in statuses], dtype=bool)
    d = np.asarray(decided_at, dtype=float)
    confirmed_at = np.where(pos, np.fmax(confirmed_at, d), confirmed_at)
    newest_at = np.where(pos | neg, np.fmax(newest_at, d), newest_at)
    # a decision and a verification of one time: the decision wins (it is read as the later)
    refuted = ~np.isnan(newest_at) & (np.isnan(confirmed_at) | (confirmed_at < newest_at) | (neg & (d >= newest_at)))
    confirming = confirming + pos
    codes = levels_many(confirming, others + pos, system, truth | (pos & gt), refuted)
    return codes, np.where(refuted, 0.0, confirming)


def level_of(verifications: Iterable[tuple[str, str, datetime]], author: str | None,
             system_verifiers: Iterable[str] = ("system_auto_verify",),
             ground_truth_verifiers: Iterable[str] = (),
             review: tuple[str, datetime] | None = None) -> tuple[str, int]:
    """(level, confirming verifier count) from ``(verifier, verdict, at)`` records, and the fact's
    review decision ``(status, at)`` counted as a verification by :data:`REVIEWER`."""
    verifications = list(verifications)
    if review is not None and (verdict := review_verdict(review[0])) is not None:
        verifications.append((REVIEWER, verdict, review[1]))
        if str(review[0]).strip().lower() in GROUND_TRUTH_DECISIONS:
            ground_truth_verifiers = {*ground_truth_verifiers, REVIEWER}
    latest: dict[str, tuple[datetime, str]] = {}
    newest: tuple[datetime, str] | None = None
    for verifier, verdict, at in verifications:
        if verifier not in latest or at >= latest[verifier][0]:
            latest[verifier] = (at, verdict)
        if newest is None or at >= newest[0]:
            newest = (at, verdict)
    refuted = newest is not None and newest[1] not in POSITIVE
    confirming = {v for v, (_, verdict) in latest.items() if verdict in POSITIVE}
    code = levels_many(np.array([len(confirming)]), np.array([len(confirming - {author})]),
                       np.array([bool(confirming & set(system_verifiers))]),
                       np.array([bool(confirming & set(ground_truth_verifiers))]), np.array([refuted]))[0]
    return ("refuted", 0) if refuted else (LEVEL_NAMES[code], len(confirming))
