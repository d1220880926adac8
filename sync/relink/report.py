"""What a relink run did: :class:`RelinkReport`, the stable ``--json`` output, and the counts
a run records in the state store."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graph_trust.sync.relink.matching import MatchResult, RelinkCandidate


@dataclass
class RelinkReport:
    """What :func:`relink` did; :meth:`to_dict` is the stable ``--json`` output."""

    run_id: str | None
    dry_run: bool
    candidates_read: int = 0
    orphaned: int = 0
    edges_read: int = 0
    vectors_fetched: int = 0
    relinked_exact: list[dict] = field(default_factory=list)
    relinked_endpoints: list[dict] = field(default_factory=list)
    relinked_similar: list[dict] = field(default_factory=list)
    ambiguous: list[dict] = field(default_factory=list)
    unmatched: list[dict] = field(default_factory=list)
    quarantined: list[dict] = field(default_factory=list)
    conflicts: list[dict] = field(default_factory=list)
    similarity: dict[str, dict] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    phases_s: dict[str, float] = field(default_factory=dict)
    written: int = 0
    duration_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "dry_run": self.dry_run,
            "candidates_read": self.candidates_read,
            "orphaned": self.orphaned,
            "edges_read": self.edges_read,
            "vectors_fetched": self.vectors_fetched,
            "relinked_exact": self.relinked_exact,
            "relinked_endpoints": self.relinked_endpoints,
            "relinked_similar": self.relinked_similar,
            "ambiguous": self.ambiguous,
            "unmatched": self.unmatched,
            "quarantined": self.quarantined,
            "conflicts": self.conflicts,
            "similarity": self.similarity,
            "written": self.written,
            "warnings": self.warnings,
            "duration_s": round(self.duration_s, 3),
            "phases_s": {k: round(v, 3) for k, v in self.phases_s.items()},
        }

    def add(self, cand: RelinkCandidate, old_id: str, result: MatchResult) -> None:
        entry: dict[str, Any] = {
            "id": cand.id,
            "group_id": cand.group_id,
            "old_evidence_id": old_id,
            "reason": result.reason,
        }
        if result.edge is not None:
            entry["new_evidence_id"] = result.edge.uuid
            entry["score"] = round(float(result.edge.score or 0.0), 4)
        if result.outcome != "exact" or len(result.top) > 1:
            entry["top"] = [t.as_dict() for t in result.top]
        bucket = {
            "exact": self.relinked_exact,
            "endpoints": self.relinked_endpoints,
            "similar": self.relinked_similar,
            "ambiguous": self.ambiguous,
            "unmatched": self.unmatched,
        }[result.outcome]
        bucket.append(entry)


def report_counts(report: RelinkReport) -> dict[str, Any]:
    """The counts a relink run records in the state store."""
    return {
        "dry_run": report.dry_run,
        "candidates_read": report.candidates_read,
        "orphaned": report.orphaned,
        "relinked_exact": len(report.relinked_exact),
        "relinked_endpoints": len(report.relinked_endpoints),
        "relinked_similar": len(report.relinked_similar),
        "ambiguous": len(report.ambiguous),
        "unmatched": len(report.unmatched),
        "quarantined": len(report.quarantined),
    }
