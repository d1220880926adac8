"""What a sync or rollback whose process died left behind: its pending journal rows are
settled against the graph and the run is marked ``interrupted`` (the caller holds the lock)."""

from __future__ import annotations

from typing import Any

from graph_trust.graph.routing import Graphs
from graph_trust.sync.store.state import StateStore
from graph_trust.sync.writer import recover

DEAD_RUN_ERROR = "the process running it stopped before it finished (journal settled)"


async def recover_dead_runs(store: StateStore, g: Any, graph_key: str) -> int:
    """Mark runs whose process died as interrupted and settle their pending journal rows; their
    counters (and those of finished runs that left rows pending) are counted again from the
    settled journal."""
    settling = store.runs_with_pending_rows(graph_key)
    settled = await recover(store, await Graphs.open(g), graph_key)
    dead = store.unfinished_runs(graph_key)
    for run_id in dead:
        store.finish_run(run_id, "interrupted", store.run(run_id)["counts"], error=DEAD_RUN_ERROR)
    store.recount([r for r in settling if r not in dead])
    return settled
