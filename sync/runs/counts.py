"""A run's counters of what it changed, derived from its journal.

What a run wrote is what its journal says it wrote, whatever stopped it: a batch settled after
Ctrl-C, a batch a later run's recovery found landed, a run killed outright. So these counters
are never tallied in memory; they are counted from the run's ``sync_journal`` rows in the
transaction that records the run's end (:meth:`~graph_trust.sync.store.state.StateStore.finish_run`),
again whenever recovery settles rows the run left ``pending``, before ``prune`` deletes the
journal, and live while a run is still running or has rows pending (``graph-trust runs``).
"""

from __future__ import annotations

import sqlite3

from graph_trust.sync.store.named import run

# kind of run -> its counters, in the order its statement (journal_counts_KIND) gives them
COUNTERS: dict[str, tuple[str, ...]] = {
    "sync": ("batches", "edges_set", "edges_cleared", "entities_updated", "trusted_restored", "journal_pending"),
    "rollback": ("edges_restored", "entities_restored", "invalidations_restored", "journal_pending"),
}
_STATEMENT = {"sync": "journal_counts_sync", "rollback": "journal_counts_rollback"}


def journal_counts(con: sqlite3.Connection, run_id: str, kind: str) -> dict[str, int]:
    """The counters of run ``run_id`` (of ``kind``: sync or rollback) as its journal gives them:

    ``batches`` (journaled), ``edges_set`` / ``edges_cleared`` (edge rows applied with a new
    ``trust_score`` / without one), ``entities_updated``, ``trusted_restored`` (the guard's
    validity rows applied); a rollback's ``edges_restored``, ``entities_restored``,
    ``invalidations_restored``; ``journal_pending``: rows whose outcome no one has read back yet
    (a run killed outright: the next sync or rollback on the graph settles them). Empty for
    other kinds."""
    if kind not in COUNTERS:
        return {}
    row = run(con, _STATEMENT[kind], {"run_id": run_id}).fetchone()
    return {name: int(v) for name, v in zip(COUNTERS[kind], row, strict=True)}


def is_final(kind: str, counts: dict) -> bool:
    """True when stored ``counts`` of a finished run can change no more (nothing pending)."""
    return kind not in COUNTERS or not counts.get("journal_pending")


__all__ = ["COUNTERS", "is_final", "journal_counts"]
