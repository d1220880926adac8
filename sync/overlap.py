"""Overlap the graph's queries with this process's own work (journaling, SQLite), safely under
cancellation: a statement on its way always lands before a cancellation goes on."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from graph_trust.sync.writer import WRITE_OUTCOME_WAIT_S, finished_first

# Batches (edges) or ranges (entities) written at a time, sent and not yet settled: the server has
# the next one queued while this process journals, settles, or computes the next range.
PIPELINE_DEPTH = 3


async def started(coro) -> asyncio.Future:
    """Schedule ``coro`` and let it run up to its first wait, so its query is on its way to the
    server before the caller goes on with synchronous work (journaling, settling).

    If the run is cancelled (Ctrl-C) during that one yield, the statement is on its way but the
    caller never gets the task to wait for: wait for it here (as ``landed`` does) before the
    cancellation goes on, or the failure handling could read the batch back before it lands and
    journal as ``void`` a write the graph then applies."""
    task = asyncio.ensure_future(coro)
    try:
        await asyncio.sleep(0)
    except asyncio.CancelledError:
        with contextlib.suppress(BaseException):
            await finished_first(task, WRITE_OUTCOME_WAIT_S)
        raise
    return task


async def in_thread(fn: Callable[[], Any]) -> Any:
    """Run ``fn`` in a worker thread (SQLite releases the GIL, so the graph's queries proceed
    meanwhile). If the run is cancelled, wait for ``fn`` to finish first: it holds the state
    store's connection, which the failure handling uses next."""
    return await finished_first(asyncio.get_running_loop().run_in_executor(None, fn))
