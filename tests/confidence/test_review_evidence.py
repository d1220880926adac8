"""Reviews are evidence: a reviewer's promote counts as a ground-truth verification, corroborate as
one more confirming verifier, reject and expire as refutations, the newest word winning. The
set-wise computation equals the per-fact reference over random histories, and over random review
DBs a promoted fact scores at least what it scores unreviewed, a rejected one at most."""

from __future__ import annotations

import sqlite3
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graph_trust.confidence import verification as ver
from graph_trust.config import ConfidenceSettings, ReviewSettings
from graph_trust.sync.confidence.schema import init_confidence_tables
from graph_trust.sync.confidence.store import ConfidenceStore
from graph_trust.sync.review_db import init_review_db, insert_rows

NOW = datetime(2026, 6, 1, tzinfo=UTC)
AGENTS = ["author", "a1", "a2", "a3", "system_auto_verify"]
STATUSES = ["promoted", "corroborated", "candidate", "rejected", "expired"]
record_st = st.tuples(st.sampled_from(AGENTS), st.sampled_from(ver.VERDICTS), st.integers(0, 6))


def _julian(t: datetime) -> float:
    return t.timestamp() / 86400.0 + 2440587.5


def _vectorized(records, status, day) -> tuple[str, int]:
    """with_reviews fed as the SQL read feeds it: per verifier the latest verdict (a refutation wins
    a tie within one verifier), the confirming counts, the latest confirmation and verdict."""
    latest: dict[str, tuple[int, bool]] = {}
    for v, verdict, t in records:
        ok = verdict in ver.POSITIVE
        if v not in latest or (t, not ok) > (latest[v][0], not latest[v][1]):
            latest[v] = (t, ok)
    ok = {v for v, (_, good) in latest.items() if good}
    conf_t = [t for v, (t, good) in latest.items() if good]
    all_t = [t for t, _ in latest.values()]
    codes, n = ver.with_reviews(
        [status], np.array([float(day)]), np.array([float(len(ok))]), np.array([float(len(ok - {"author"}))]),
        np.array([bool(ok & {"system_auto_verify"})]), np.array([False]),
        np.array([float(max(conf_t)) if conf_t else np.nan]), np.array([float(max(all_t)) if all_t else np.nan]))
    return ver.LEVEL_NAMES[int(codes[0])], int(n[0])


# (agents' records of one time are left out: between two agents the reference reads them in list
# order, which has nothing to do with reviews; a decision at an agent's time is covered)
@given(st.lists(record_st, max_size=7, unique_by=lambda r: r[2]), st.sampled_from(STATUSES), st.integers(0, 6))
def test_set_wise_review_evidence_equals_the_reference(records, status, day):
    base = NOW
    timed = [(v, d, base + timedelta(days=t)) for v, d, t in sorted(records, key=lambda r: r[2])]
    assert _vectorized(records, status, day) == ver.level_of(timed, "author", review=(status, base + timedelta(days=day)))


@given(st.lists(record_st, max_size=7, unique_by=lambda r: r[2]), st.integers(0, 6))
def test_the_decision_is_the_newest_word_unless_a_verifier_spoke_later(records, day):
    timed = [(v, d, NOW + timedelta(days=t)) for v, d, t in sorted(records, key=lambda r: r[2])]
    later = [d for _, d, t in records if t > day]
    newest_later_refutes = bool(later) and max((t, d not in ver.POSITIVE) for _, d, t in records if t > day)[1]
    promoted = ver.level_of(timed, "author", review=("promoted", NOW + timedelta(days=day)))
    rejected = ver.level_of(timed, "author", review=("rejected", NOW + timedelta(days=day)))
    if not later:
        assert promoted[0] == "ground_truth" and rejected == ("refuted", 0)
    if later and not newest_later_refutes:
        assert promoted[0] == "ground_truth"
    if later and newest_later_refutes:
        assert promoted == ("refuted", 0)


def _db(path: Path, status: str, verdicts: list[tuple[str, str, int]], age_days: float) -> Path:
    init_review_db(path)
    init_confidence_tables(path)
    stamp = (NOW - timedelta(days=age_days)).isoformat().replace("+00:00", "Z")
    insert_rows(path, [{"id": "f1", "subject": "api", "predicate": "port", "object": "8443", "fact": "api port 8443",
                        "status": status, "updated_at": stamp, "evidence_refs_json": "[]"}])
    con = sqlite3.connect(path)
    with con:
        con.executemany("INSERT INTO fact_verifications (fact_id, verifier_id, verification_type, verified_at) "
                        "VALUES ('f1', ?, ?, ?)",
                        [(v, d, (NOW - timedelta(days=t)).isoformat().replace("+00:00", "Z")) for v, d, t in verdicts])
    con.close()
    return path


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(AGENTS[1:]), st.sampled_from(ver.VERDICTS), st.integers(0, 300)),
                max_size=4, unique_by=lambda r: r[0]), st.floats(0, 300))
def test_a_promoted_fact_scores_at_least_its_unreviewed_self_and_a_rejected_one_at_most(verdicts, age):
    scores = {}
    with tempfile.TemporaryDirectory() as d:
        for status in ("candidate", "promoted", "corroborated", "rejected"):
            path = _db(Path(d) / f"{status}.db", status, verdicts, age)
            with ConfidenceStore.open(path, ReviewSettings(), ConfidenceSettings(), now=NOW) as cs:
                scores[status] = cs.confidence("f1")
    plain = scores["candidate"]["score"]
    assert scores["promoted"]["score"] >= plain - 1e-12 and scores["corroborated"]["score"] >= plain - 1e-12
    assert scores["rejected"]["score"] <= plain + 1e-12
    # the decision is newer than every verification unless one came after it
    if all(t >= age for _, _, t in verdicts):
        assert scores["promoted"]["factors"]["verification"] == 1.0
        assert scores["promoted"]["inputs"]["verification_level"] == "ground_truth"
        assert scores["rejected"]["factors"]["verification"] == 0.0
