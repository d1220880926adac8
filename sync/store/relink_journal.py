"""Relink's journal in the state store: ``relink_runs(run_id, started_at, finished_at, status,
review_db, table_name, id_column, evidence_column, counts_json, updated_column)`` and
``relink_journal(run_id, seq, candidate_id, old_json, new_json)``, created on relink's first use
(:mod:`graph_trust.sync.relink.store` writes the review DB and journals here first)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from graph_trust.config import Settings, state_path
from graph_trust.errors import StateStoreError
from graph_trust.sync.review_db import ReviewDB
from graph_trust.sync.store.named import run, run_many
from graph_trust.sync.store.state import StateStore, connect_state, now_iso

RUN_KEYS = ("run_id", "started_at", "finished_at", "status", "review_db", "table_name", "id_column",
            "evidence_column", "counts", "updated_column")


class JournalStore:
    """relink_runs / relink_journal in the state store (``state_path(settings, 'state.sqlite3')``)."""

    def __init__(self, settings: Settings) -> None:
        self.path = state_path(settings, "state.sqlite3")
        self.con = connect_state(self.path)  # sync's pragmas (WAL, busy timeout) and tables
        try:
            run(self.con, "create_relink_runs")
            run(self.con, "create_relink_journal")
        except sqlite3.Error as exc:
            self.con.close()
            raise StateStoreError(f"state store {self.path}: {exc}") from None

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> JournalStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def begin(self, run_id: str, db: ReviewDB, counts: dict[str, int], journal: list[tuple[str, str, str]]) -> None:
        try:
            with self.con:
                run(self.con, "begin")
                run(self.con, "add_relink_run", (run_id, now_iso(), db.identity, db.table, db.columns["id"],
                                                 db.columns["evidence_refs_json"], json.dumps(counts, sort_keys=True),
                                                 db.columns.get("updated_at")))
                run_many(self.con, "add_relink_journal",
                         [(run_id, k, cid, old, new) for k, (cid, old, new) in enumerate(journal)])
        except sqlite3.Error as exc:
            raise StateStoreError(f"state store {self.path}: {exc}") from None

    def record(self, run_id: str, db: ReviewDB, counts: dict[str, Any]) -> None:
        """A run that wrote nothing (dry run, or nothing to relink)."""
        self.begin(run_id, db, counts, [])
        self.finish(run_id, "ok")

    def finish(self, run_id: str, status: str) -> None:
        with self.con:
            run(self.con, "finish_relink_run", {"status": status, "at": now_iso(), "run_id": run_id})

    def run(self, run_id: str) -> dict | None:
        row = run(self.con, "relink_run", {"run_id": run_id}).fetchone()
        if row is None:
            return None
        out = dict(zip(RUN_KEYS, row, strict=True))
        out["counts"] = json.loads(out["counts"] or "{}")
        return out

    def runs(self) -> list[dict]:
        return [self.run(r[0]) for r in run(self.con, "relink_run_ids").fetchall()]

    def journal(self, run_id: str) -> list[tuple[str, str, str]]:
        return list(run(self.con, "relink_journal_of", {"run_id": run_id}))

    def later_runs_touching(self, run_row: dict, ids: set[str]) -> list[str]:
        rows = run(self.con, "later_relink_runs", {"started_at": run_row["started_at"], "run_id": run_row["run_id"],
                                                   "review_db": run_row["review_db"]}).fetchall()
        return [rid for (rid,) in rows if ids & {cid for cid, _, _ in self.journal(rid)}]


def list_runs(settings: Settings, limit: int) -> list[dict[str, Any]]:
    """The newest ``limit`` relink runs (dry runs too), newest first, as ``graph-trust runs`` rows."""
    store = StateStore.for_settings(settings)  # (creates no relink table: a store relink never used lists none)
    try:
        if store.one("relink_used") is None:
            return []
        return [{"run_id": r[0], "kind": "relink", "started_at": r[1], "ended_at": r[2], "status": r[3],
                 "counts": json.loads(r[4] or "{}"), "journal_pruned_at": None}
                for r in store.rows("newest_relink_runs", limit=limit)]
    finally:
        store.close()


__all__ = ["JournalStore", "list_runs"]
