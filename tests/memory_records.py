"""Small builders of MemoryRecord values for the pure ranking tests (no graph)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from graph_trust.search.records import MemoryRecord

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def rec(uuid: str, *, age_h: float | None = 0.0, **kw: Any) -> MemoryRecord:
    """A record whose ``valid_at`` is ``age_h`` hours before :data:`NOW` (None: no timestamp)."""
    kw.setdefault("kind", "edge")
    kw.setdefault("text", f"fact {uuid}")
    kw.setdefault("memory_type", "fact")
    if age_h is not None and "valid_at" not in kw:
        kw["valid_at"] = NOW - timedelta(hours=age_h)
    return MemoryRecord(uuid=uuid, **kw)


# weights under which trust and type order records (the defaults leave ordering to the search's
# score): these tests are about the formula, not the defaults
SEED_WEIGHTS = {"w_trust": 0.2, "w_recency": 0.1, "w_relevance": 0.6, "w_type": 0.1}
