"""Entity trust: each entity's ``trust_score`` aggregated from the trusted edges touching it
(``sync.aggregation``, :mod:`graph_trust.sync.aggregate`), the last phase of a sync run.

Normally only the entities on the dirty list (at the ends of edges that changed) are
re-aggregated, batch by batch; a ``--full`` run re-aggregates every entity in the graph, one
uuid range at a time. Both are journaled and pipelined like the edge batches.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from graph_trust.graph.routing import Graphs
from graph_trust.sync.aggregate import aggregate, same_score
from graph_trust.sync.overlap import PIPELINE_DEPTH, started
from graph_trust.sync.report import SyncReport
from graph_trust.sync.store.state import StateStore
from graph_trust.sync.writer import Change, JournaledWriter, entity_values, landed, read_range, write_range


class EntityAggregation:
    """The entity phase of one run (``progress`` as :data:`graph_trust.sync.runner.Progress`)."""

    def __init__(self, store: StateStore, writer: JournaledWriter, report: SyncReport, graph_key: str,
                 batch_size: int, method: str, progress: Any) -> None:
        self.store, self.con, self.writer, self.report = store, store.con, writer, report
        self.graph_key, self.batch_size, self.method, self.progress = graph_key, batch_size, method, progress
        self.in_flight: deque[tuple] = deque()  # (graph, begun, write task) of the entity ranges in flight

    async def abandon(self) -> None:
        """After a failure: let the range writes in flight finish (their markers stay pending:
        recovery settles them)."""
        await asyncio.gather(*(item[2] for item in self.in_flight), return_exceptions=True)
        self.in_flight.clear()

    def changes(self, rows: list[dict]) -> list[Change]:
        """Entities whose aggregated trust differs from what they hold."""
        changes = []
        for row in rows:
            before = entity_values(row)
            score = aggregate(row.get("scores") or [], self.method)
            if not same_score(score, before["trust_score"]):
                changes.append(Change(row["uuid"], before,
                                      {"trust_score": score, "trust_run_id": self.report.run_id if score is not None else None}))
        return changes

    async def aggregate_all(self, graphs: Graphs, graph: str, buckets: list[str], n_ranges: int) -> None:
        """``--full``: re-aggregate every entity of ``graph``, one uuid range (of ``buckets``) at a
        time, in the graph; ``n_ranges`` is the phase's total for the progress bar."""
        graph_conn = graphs(graph)
        # Pipelined like the edge batches. A range's previous values are read two ranges ahead
        # (before the write of the range in between, which cannot change them), so the server
        # goes from one write to the next without waiting for this process.
        reads = deque([await started(read_range(graph_conn, b)) for b in buckets[:2]])
        try:
            for i, b in enumerate(buckets):
                begun = self.writer.mark_range(graph, b, await reads.popleft())  # journaled before its write
                task = await started(write_range(graph_conn, b, self.method, self.report.run_id, begun[2]))
                if i + 2 < len(buckets):
                    reads.append(await started(read_range(graph_conn, buckets[i + 2])))
                self.in_flight.append((graph, begun, task))
                await self._settle(PIPELINE_DEPTH)
                self.progress("entities", 1, n_ranges)
            await self._settle(0)
        finally:
            for read in reads:
                read.cancel()
            await asyncio.gather(*reads, return_exceptions=True)
        with self.store.tx():  # everything of this graph is aggregated now
            self.store.do("clear_dirty_graph", graph_key=self.graph_key, graph=graph)

    async def _settle(self, limit: int) -> None:
        """Settle the oldest entity ranges in flight until at most ``limit`` remain."""
        while len(self.in_flight) > limit:
            graph, begun, task = self.in_flight[0]
            self.report.entities_updated += self.writer.finish_range(graph, begun, await landed(task))
            self.in_flight.popleft()

    async def aggregate_dirty(self, graphs: Graphs) -> None:
        """Re-aggregate the entities on the dirty list (touching edges that changed)."""
        r = self.report
        names = [row[0] for row in self.store.rows("dirty_graphs", graph_key=self.graph_key)]
        total = self.store.one("dirty_count", graph_key=self.graph_key)
        for graph in names:
            graph_conn = graphs(graph)

            def next_batch(after: str) -> list[str]:
                return [u for (u,) in self.store.rows("dirty_after", graph_key=self.graph_key, graph=graph,
                                                      after=after, limit=self.batch_size)]

            # The inputs of batch k+1 are read while batch k is journaled and written (an entity's
            # inputs are its edges and its own values, which no other entity's write changes).
            uuids = next_batch("")
            reading = await started(graph_conn.query("entity_trust_inputs", uuids=uuids)) if uuids else None
            try:
                while uuids:
                    rows = await reading
                    upcoming = next_batch(uuids[-1])
                    reading = await started(graph_conn.query("entity_trust_inputs", uuids=upcoming)) if upcoming else None
                    changes = self.changes(rows)
                    await self.writer.entities(graph_conn, graph, changes, uuids)
                    r.entities_updated += len(changes)
                    self.progress("entities", len(uuids), total)
                    uuids = upcoming
            finally:
                if reading is not None and not reading.done():
                    reading.cancel()
                    await asyncio.gather(reading, return_exceptions=True)
