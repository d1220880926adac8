"""The sync job's runs (``sync`` and ``rollback``, in the state store's ``sync_runs``) as a run
kind: listed by ``graph-trust runs``, rolled back by :func:`~graph_trust.sync.runs.rollback.rollback_sync`."""

from __future__ import annotations

from typing import Any

from graph_trust.config import Settings
from graph_trust.sync.runs.kinds import RunKind
from graph_trust.sync.runs.lock import holder_gone
from graph_trust.sync.runs.rollback import rollback_sync
from graph_trust.sync.store.state import StateStore


def list_sync_runs(settings: Settings, limit: int) -> list[dict[str, Any]]:
    """The newest ``limit`` sync and rollback runs, newest first."""
    store = StateStore.for_settings(settings)
    try:
        items = store.runs(limit=limit)
    finally:
        store.close()
    for r in items:  # a run killed outright stays marked running until the next run takes its lock
        if r["status"] == "running" and holder_gone(settings.state_dir, r["graph_key"], r.get("pid")):
            r["status"] = "interrupted"
            who = f" (pid {r['pid']})" if r.get("pid") else ""
            r["error"] = f"its process{who} is gone; the next sync on this graph settles what it left"
    return items


async def _rollback_run(settings: Settings, run_id: str, force: bool, graph: Any) -> Any:
    return await rollback_sync(settings, run_id, force=force, graph=graph)


RUN_KIND = RunKind("sync", None, list_sync_runs, _rollback_run)
