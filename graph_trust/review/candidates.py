"""The review DB's candidates table as graph-trust reads and writes it: where the DB is, and the
logical -> actual column mapping of a pipeline's own table (``review.table``, ``review.columns``),
checked once per open. Sync (:class:`graph_trust.sync.review_db.ReviewDB`) and the review
commands (:mod:`.decisions`) both open it through :func:`open_candidates`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from graph_trust.config import ReviewSettings, review_location
from graph_trust.errors import ReviewDBError
from graph_trust.graph.queries import check_identifier
from graph_trust.review.db import Limits, Location, ReviewConn, init_hint, parse_location

REQUIRED = ("id", "status", "evidence_refs_json", "updated_at")
OPTIONAL = ("group_id", "memory_type", "sensitivity", "scope", "confidence",
            "subject", "predicate", "object", "fact")


@dataclass(frozen=True)
class CandidateTable:
    """The candidates table and its columns: logical name -> actual column (None: absent)."""

    table: str
    columns: dict[str, str | None]

    def col(self, logical: str) -> str:
        """The quoted actual column of ``logical``, or ``NULL`` when the table lacks it."""
        actual = self.columns.get(logical)
        return f'"{actual}"' if actual else "NULL"


def location_of(where: str | Path | Location | None, review: ReviewSettings) -> Location:
    """``where``, else the configured review DB (``review.url`` / ``review.path``)."""
    raw = where if where is not None else review_location(review)
    if raw is None:
        raise ReviewDBError("no review DB given: pass --review-db PATH|URL, set GRAPH_TRUST_REVIEW_DB or review.url")
    return raw if isinstance(raw, Location) else parse_location(raw, Limits.of(review))


def resolve_table(conn: ReviewConn, review: ReviewSettings) -> CandidateTable:
    """Check the mapping and that the table and its required columns exist."""
    try:
        table = check_identifier(review.table, "review.table")
        mapping = {k: check_identifier(v, f"review.columns.{k}") for k, v in review.columns.items()}
    except ValueError as exc:
        raise ReviewDBError(str(exc)) from None
    unknown = sorted(set(mapping) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise ReviewDBError(f"review.columns has unknown logical name(s): {', '.join(unknown)} "
                            f"(known: {', '.join(REQUIRED + OPTIONAL)})")
    cols = list(conn.columns(table))
    if not cols:
        raise ReviewDBError(f"review DB {conn.location} has no table {table!r}: {init_hint(conn.location)}"
                            + ("" if table == "candidates" else " (or set review.table to the pipeline's table)"))
    resolved: dict[str, str | None] = {}
    missing = []
    for logical in REQUIRED + OPTIONAL:
        actual = mapping.get(logical, logical)
        if actual in cols:
            resolved[logical] = actual
        elif logical in REQUIRED:
            missing.append(actual if actual == logical else f"{actual} (mapped from {logical})")
        else:
            resolved[logical] = None
    if missing:
        raise ReviewDBError(f"review DB {conn.location} table {table!r} lacks required column(s): {', '.join(missing)}")
    return CandidateTable(table, resolved)


def open_candidates(where: str | Path | Location | None, review: ReviewSettings, *,
                    readonly: bool = False) -> tuple[ReviewConn, CandidateTable]:
    """Open the review DB and resolve its candidates table (the connection is closed on error)."""
    conn = ReviewConn.open(location_of(where, review), readonly=readonly)
    try:
        return conn, resolve_table(conn, review)
    except BaseException:
        conn.close()
        raise


__all__ = ["OPTIONAL", "REQUIRED", "CandidateTable", "location_of", "open_candidates", "resolve_table"]
