"""``graph-trust runs`` and ``graph-trust rollback``: every job's runs, through the run kinds.

Each kind (:class:`~graph_trust.sync.runs.kinds.RunKind`) lists its own runs and rolls its own
back; this module only merges the listings and hands a run id to the kind that owns it.
"""

from __future__ import annotations

from typing import Any

from graph_trust.config import Settings
from graph_trust.sync.confidence import store as confidence_store
from graph_trust.sync.relink import RUN_KIND as RELINK
from graph_trust.sync.runs import sync_kind as sync_runs
from graph_trust.sync.runs.kinds import RunKind

# Listed in this order where start times tie; the sync kind (prefix None) takes the ids no other claims.
RUN_KINDS: tuple[RunKind, ...] = (sync_runs.RUN_KIND, RELINK, confidence_store.RUN_KIND)


def kind_of(run_id: str, kinds: tuple[RunKind, ...] = RUN_KINDS) -> RunKind:
    """The kind whose run ids start like ``run_id`` (else the fallback kind)."""
    for kind in kinds:
        if kind.owns(run_id):
            return kind
    return next(k for k in kinds if k.prefix is None)


def list_runs(settings: Settings, limit: int = 50) -> list[dict[str, Any]]:
    """Recent runs of every kind, newest first (``graph-trust runs``)."""
    per_kind = [runs for kind in RUN_KINDS if (runs := kind.list_runs(settings, limit))]
    if len(per_kind) == 1:  # one kind's runs are in its own order already
        return per_kind[0][:limit]
    items = [r for runs in per_kind for r in runs]
    items.sort(key=lambda r: r["started_at"], reverse=True)  # stable: a kind's order among equal times
    return items[:limit]


async def rollback(settings: Settings, run_id: str, *, force: bool = False, graph: Any = None) -> Any:
    """Roll back ``run_id`` with the kind that owns it; returns that kind's report (a sync run: a
    :class:`~graph_trust.sync.report.RollbackReport`; a relink run or a weight change: a dict)."""
    return await kind_of(run_id).rollback(settings, run_id, force, graph)
