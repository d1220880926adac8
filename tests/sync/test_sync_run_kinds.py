"""Runs of every kind through the run-kind registry (``graph_trust.sync.runs.listing``): sync and
rollback runs, relink runs and learned confidence-weight changes, each listed and rolled back
by its own job, on real state stores and review DBs (no graph is needed for these paths)."""

from __future__ import annotations

import random
import sqlite3
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graph_trust.confidence import composite as comp
from graph_trust.config import load_settings
from graph_trust.errors import InputError, NotFoundError, RollbackConflictError
from graph_trust.sync import list_runs, rollback
from graph_trust.sync.confidence.schema import init_confidence_tables
from graph_trust.sync.confidence.store import ConfidenceStore
from graph_trust.sync.review_db import ReviewDB, init_review_db, insert_rows
from graph_trust.sync.runs.listing import RUN_KINDS, kind_of
from graph_trust.sync.store.relink_journal import JournalStore
from graph_trust.sync.store.state import StateStore

KINDS = {k.name: k for k in RUN_KINDS}


@given(st.text(max_size=30))
def test_a_run_id_goes_to_the_kind_whose_prefix_it_has(rest):
    assert kind_of("relink-" + rest) is KINDS["relink"]
    assert kind_of("weights-" + rest) is KINDS["confidence-weights"]
    if not rest.startswith(("relink-", "weights-")):
        assert kind_of(rest) is KINDS["sync"]  # sync-..., rollback-... and unknown ids alike


def _review_db(path: Path, outcomes: int = 60, seed: int = 0) -> Path:
    """A review DB with candidates, the confidence tables and ``outcomes`` recorded uses."""
    init_review_db(path)
    init_confidence_tables(path)
    insert_rows(path, [{"id": f"f{i}", "subject": "s", "predicate": "p", "object": str(i), "fact": f"s p {i}",
                        "status": "promoted", "updated_at": "2026-01-01T00:00:00.000Z",
                        "evidence_refs_json": "[]"} for i in range(10)])
    rng = random.Random(seed)
    rows = []
    for k in range(outcomes):
        f = {x: rng.random() for x in comp.FACTORS}
        outcome = "success" if rng.random() < f["verification"] else "failure"
        rows.append((f"f{k % 10}", comp.composite(f).score, *[f[x] for x in comp.FACTORS], outcome))
    con = sqlite3.connect(path)
    with con:
        con.executemany(f"INSERT INTO confidence_predictions (fact_id, predicted_confidence, "
                        f"{', '.join(x + '_score' for x in comp.FACTORS)}, actual_outcome, predicted_at) "
                        f"VALUES (?, ?, {', '.join('?' for _ in comp.FACTORS)}, ?, '2026-01-01')", rows)
    con.close()
    return path


def _settings(tmp_path: Path, review: Path | None = None):
    overrides = {"state_dir": str(tmp_path / "state")}
    if review is not None:
        overrides["review.path"] = str(review)
    return load_settings(overrides=overrides, environ={})


def _apply_weights(settings) -> int:
    with ConfidenceStore.open(None, settings.review, settings.confidence) as store:
        return store.learn(apply=True)["applied"]["change_id"]


@pytest.mark.parametrize("seed", range(4))
def test_runs_lists_every_kind_newest_first(tmp_path, seed):
    """A random interleaving of sync/rollback runs, relink runs and weight changes: each appears
    once with its kind; the list is newest first; a limit keeps the newest."""
    rng = random.Random(seed)
    settings = _settings(tmp_path, _review_db(tmp_path / "review.db", seed=seed))
    plan = [rng.choice(["sync", "rollback", "relink", "weights"]) for _ in range(rng.randint(3, 12))]
    made: dict[str, str] = {}  # run id -> kind
    for what in plan:
        if what in ("sync", "rollback"):
            store = StateStore.for_settings(settings)
            try:
                run_id, _ = store.start_run(kind=what, graph_key="k", graph="g", dry_run=False, full=False,
                                            config_hash="h")
                store.finish_run(run_id, "ok", {})
            finally:
                store.close()
            made[run_id] = what
        elif what == "relink":
            db = ReviewDB.open(None, settings.review)
            try:
                with JournalStore(settings) as journal:
                    run_id = f"relink-{len(made)}"
                    journal.record(run_id, db, {"orphaned": 0})
            finally:
                db.close()
            made[run_id] = "relink"
        else:
            made[f"weights-{_apply_weights(settings)}"] = "confidence-weights"
        time.sleep(0.003)  # the runs' times (milliseconds) tell them apart
    listed = list_runs(settings, limit=1000)
    assert {r["run_id"]: r["kind"] for r in listed} == made
    assert len(listed) == len(made)
    times = [r["started_at"] for r in listed]
    assert times == sorted(times, reverse=True)
    limit = rng.randint(1, len(made))
    newest = list_runs(settings, limit=limit)
    assert [r["run_id"] for r in newest] == [r["run_id"] for r in listed[:limit]]


async def test_a_weight_change_rolls_back_through_the_registry(tmp_path):
    """``weights-N`` reverts change N; the changes learned on top of it go with it, so while one is
    in use the rollback refuses (naming them) unless forced, as a sync rollback does."""
    settings = _settings(tmp_path, _review_db(tmp_path / "review.db"))
    ids = [_apply_weights(settings) for _ in range(3)]
    with pytest.raises(RollbackConflictError, match=f"weights-{ids[1]}, weights-{ids[2]}"):
        await rollback(settings, f"weights-{ids[0]}")
    assert {r["status"] for r in list_runs(settings)} == {"ok"}  # refused: nothing reverted
    out = await rollback(settings, f"weights-{ids[2]}")  # the newest: nothing learned on top of it
    assert out["reverted"] == [ids[2]]
    out = await rollback(settings, f"weights-{ids[0]}", force=True)
    assert out["reverted"] == ids[:2] and out["weights"] == comp.DEFAULT_WEIGHTS
    assert {r["status"] for r in list_runs(settings)} == {"rolled_back"}
    with pytest.raises(NotFoundError):
        await rollback(settings, f"weights-{ids[0]}")
    with pytest.raises(InputError, match="weights-N"):
        await rollback(settings, "weights-x")


async def test_relink_and_sync_ids_reach_their_own_jobs(tmp_path):
    settings = _settings(tmp_path, _review_db(tmp_path / "review.db"))
    db = ReviewDB.open(None, settings.review)
    try:
        with JournalStore(settings) as journal:
            journal.record("relink-x", db, {})
    finally:
        db.close()
    out = await rollback(settings, "relink-x")  # relink's rollback: the review DB, no graph
    assert out == {"run_id": "relink-x", "restored": 0, "already": False, "conflicts": []}
    with pytest.raises(NotFoundError, match="no sync run"):
        await rollback(settings, "sync-20260101T000000Z-abcdef")


def test_no_review_db_lists_no_weight_changes(tmp_path):
    settings = _settings(tmp_path)
    assert list_runs(settings) == []
    settings = _settings(tmp_path, tmp_path / "missing.db")
    assert list_runs(settings) == []
