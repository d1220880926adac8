"""Reports of sync, verify, rollback and runs: dataclasses with a stable JSON form."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

REPORT_LIMIT = 1000  # at most this many ids per list in a report (the *_count fields are exact)


def unknown_groups_hint(groups: list[str]) -> str | None:
    """The hint for candidates whose group_id names no graph (a typo?), or None."""
    if not groups:
        return None
    shown = ", ".join(repr(g) for g in groups[:5]) + (", ..." if len(groups) > 5 else "")
    return (f"{len(groups)} group_id(s) name no existing graph ({shown}): their candidates are unmatched and no "
            "graph was created; fix the review rows' group_id if it is a typo")


GUARD_HINT = ("{n} promoted or corroborated edge(s) were invalidated by Graphiti (trusted_invalidated): review "
              "them (`graph-trust contradictions`); `guard.restore_trusted: true` makes sync restore them")
RELINK_HINT = ("these candidates point at edge uuids the graph does not have (re-extraction or migration?): "
               "run `graph-trust relink` to match them to the current edges, then sync again")


@dataclass
class SyncReport:
    run_id: str
    graph: str
    dry_run: bool
    full: bool
    status: str = "ok"
    interrupted: bool = False  # stopped by Ctrl-C or SIGTERM: the counts are those so far
    # every candidate of the review DB, read and compared with the state store's copy; of those,
    # the ones that differed from it (new, edited or gone) and were parsed again
    candidates_read: int = 0
    candidates_changed: int = 0
    # counted from the journal (sync/runs/counts.py), as are entities_updated, trusted_restored, batches
    edges_set: int = 0
    edges_unchanged: int = 0
    edges_cleared: int = 0
    entities_updated: int = 0
    unmatched_count: int = 0
    unmatched: list[dict[str, Any]] = field(default_factory=list)
    unmatched_hint: str | None = None
    # group_ids of review rows that name no existing graph (FalkorDB): unmatched, nothing created
    unknown_groups: list[str] = field(default_factory=list)
    quarantined_count: int = 0
    quarantined: list[dict[str, Any]] = field(default_factory=list)
    # sensitivity labels of the candidates access.levels / access.labels do not know: {label, count, example}
    unknown_sensitivity: list[dict[str, Any]] = field(default_factory=list)
    drift_healed: int = 0
    # sync.trust_mode confidence: candidates whose confidence moved since the last run (their edges compared)
    confidence_changed: int = 0
    # the guard (docs/sync.md): trusted edges Graphiti invalidated, those restored (guard.restore_trusted),
    # contradictions recorded for review (new ones), and why it could not record or read (else null)
    trusted_invalidated_count: int = 0
    trusted_invalidated: list[dict[str, Any]] = field(default_factory=list)
    trusted_restored: int = 0
    contradictions_recorded: int = 0
    guard_hint: str | None = None
    recovered_journal_rows: int = 0
    lock_takeover_pid: int | None = None
    clear_limit: str | None = None  # dry run: why a real run would stop at sync.max_clear (else null)
    # the vector indexes this run re-measured: {graph: {kind: {"why", "choice": {"stage", "reason", "k"}}}},
    # and why the check failed (else null)
    vector_index: dict[str, Any] = field(default_factory=dict)
    vector_index_hint: str | None = None
    batches: int = 0
    phase_s: dict[str, float] = field(default_factory=dict)
    duration_s: float = 0.0

    def counters(self) -> dict[str, Any]:
        """The counters ``graph-trust runs`` lists with the run (those of what a real run changed are
        counted from its journal when they are recorded: :mod:`~graph_trust.sync.runs.counts`)."""
        return {k: getattr(self, k) for k in RUN_COUNTERS}

    def take_counters(self, counts: dict[str, Any]) -> None:
        """Say what the run's record says (its journal's counts, for a real run)."""
        for k in RUN_COUNTERS:
            setattr(self, k, counts[k])

    def note_unmatched(self, count: int, first: list[dict[str, Any]], unknown_groups: list[str]) -> None:
        """The scored candidates whose edge the run did not find (how many, the first of them), the
        groups the review rows name that have no graph, and the hint for them."""
        self.unmatched_count, self.unmatched, self.unknown_groups = count, first, unknown_groups
        self.unmatched_hint = "; ".join(filter(None, (unknown_groups_hint(unknown_groups), RELINK_HINT))) \
            if count else None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# The counters of a sync report that `graph-trust runs` lists with the run (docs/sync.md, JSON reports)
RUN_COUNTERS = ("candidates_read", "candidates_changed", "edges_set", "edges_unchanged", "edges_cleared",
                "entities_updated", "unmatched_count", "quarantined_count", "drift_healed", "confidence_changed",
                "trusted_invalidated_count", "trusted_restored", "contradictions_recorded", "batches")


@dataclass
class VerifyReport:
    graph: str
    in_sync: bool
    drift: dict[str, int]
    examples: dict[str, list[dict[str, Any]]]
    edges_checked: int = 0
    entities_checked: int = 0
    unmatched_count: int = 0
    unknown_groups: list[str] = field(default_factory=list)  # as in SyncReport
    quarantined_count: int = 0
    # review rows the state store's copy has otherwise after verify brought it up to date (the
    # review DB changed while verify read it): the next sync reads them
    missed_candidates: int = 0
    missed_candidate_ids: list[str] = field(default_factory=list)
    # the guard: trusted edges Graphiti invalidated (not drift: in_sync does not count them)
    trusted_invalidated_count: int = 0
    trusted_invalidated: list[dict[str, Any]] = field(default_factory=list)
    duration_s: float = 0.0

    @property
    def hints(self) -> list[str]:
        """What to do about what was found, one line each (the missed rows' first)."""
        hints = []
        if self.missed_candidates:
            hints.append(f"{self.missed_candidates} review row(s) changed while verify read the review DB: "
                         "the next 'graph-trust sync' reads them")
        if self.unknown_groups:
            hints.append(unknown_groups_hint(self.unknown_groups))
        if self.trusted_invalidated_count:
            hints.append(GUARD_HINT.format(n=self.trusted_invalidated_count))
        if self.drift.get("entity_wrong_trust") or self.drift.get("entity_stale_trust"):
            hints.append("a normal sync re-aggregates the entities at the ends of edges whose trust changed or "
                         "that left the graph; entity trust edited by hand needs 'graph-trust sync --full'")
        return hints

    @property
    def hint(self) -> str | None:
        return "; ".join(self.hints) or None

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "hint": self.hint}


@dataclass
class RollbackReport:
    run_id: str
    rolled_back: str
    edges_restored: int = 0
    entities_restored: int = 0
    invalidations_restored: int = 0  # the guard's restores undone: invalid_at / expired_at written back
    forced: bool = False
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    duration_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class PruneReport:
    keep: int
    dry_run: bool
    runs_pruned: int = 0
    pruned: list[str] = field(default_factory=list)  # run ids, oldest first (at most REPORT_LIMIT)
    journal_rows_deleted: int = 0
    quarantine_rows_deleted: int = 0
    skipped: list[dict[str, Any]] = field(default_factory=list)  # {run_id, reason}: older runs left alone
    vacuumed: bool = False
    state_store_bytes_before: int = 0
    state_store_bytes_after: int = 0
    duration_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
