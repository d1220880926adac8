"""Step 3 of a run (:mod:`~graph_trust.sync.runner`): the shadow of what the graph holds brought
up to date. The graph computes its checksums (``exact``: per bucket; otherwise whole-graph
totals; one aggregate query per graph) while the run refreshes its candidates; then each graph's
figures are compared with the shadow's, and the buckets that differ are re-read (every bucket,
``exact``). A normal run records the drift it finds (:func:`~graph_trust.sync.drift.absorb_drift`)."""

from __future__ import annotations

import asyncio
from typing import Any

from graph_trust.graph.routing import Graphs
from graph_trust.sync import graphstate
from graph_trust.sync.drift import absorb_drift, endpoints_of_untrusted
from graph_trust.sync.report import SyncReport
from graph_trust.sync.store.run_tables import RunTables
from graph_trust.sync.store.state import EDGE_PROPS, StateStore


class ShadowRefresh:
    """The shadow refresh of one run over ``graphs``."""

    def __init__(self, store: StateStore, tables: RunTables, graphs: Graphs, report: SyncReport, graph_key: str,
                 source: str) -> None:
        self.store, self.tables, self.graphs, self.report = store, tables, graphs, report
        self.graph_key, self.source = graph_key, source
        self._checksums: dict[str, asyncio.Future] = {}  # graph -> its figures, being computed

    def start(self, names: list[str], *, exact: bool) -> None:
        """Let the graph compute the figures of ``names`` while the run goes on."""
        probe = graphstate.edge_checksums if exact else graphstate.edge_totals
        self._checksums = {name: asyncio.ensure_future(probe(self.graphs(name))) for name in names}

    async def cancel(self) -> None:
        """Drop the figures still being computed (a graph that left the scope, a failure, or
        figures of the other kind)."""
        for task in self._checksums.values():
            task.cancel()
        await asyncio.gather(*self._checksums.values(), return_exceptions=True)
        self._checksums = {}

    def own_figures(self, names: list[str], *, exact: bool) -> dict[str, dict]:
        """The shadow's figures of ``names``: per bucket (``exact``) or in total."""
        own = graphstate.shadow_checksums if exact else graphstate.shadow_totals
        return {name: own(self.store.con, self.graph_key, name) for name in names}

    async def refresh(self, names: list[str], shadow_sums: dict[str, dict], *, exact: bool) -> None:
        try:
            for graph in names:
                await self._refresh(graph, shadow_sums[graph], exact=exact)
        finally:
            await self.cancel()

    async def _refresh(self, graph: str, shadow_sums: dict, *, exact: bool) -> None:
        graph_conn = self.graphs(graph)
        task = self._checksums.pop(graph, None)
        if exact:
            graph_sums = await (task if task is not None else graphstate.edge_checksums(graph_conn))
            buckets = sorted(graphstate.buckets_of(graph_sums) | graphstate.buckets_of(shadow_sums))
            with self.store.tx():
                self.store.do("drop_shadow_graph", graph_key=self.graph_key, graph=graph)
                if self.report.full:  # the rebuild absorbs any drift: every entity is re-aggregated, by this run
                    # or (a dry run, a crash before the entity phase) the next one
                    self.store.do("mark_aggregate_all", graph_key=self.graph_key)
            self.tables.note_foreign_props(graph, await graph_conn.query("edges_with_foreign_props"), EDGE_PROPS)
        elif graphstate.totals_match(await (task if task is not None else graphstate.edge_totals(graph_conn)),
                                     shadow_sums):
            buckets = []
        else:  # drift somewhere: find the buckets (all of them if the per-bucket figures cannot tell)
            graph_sums = await graphstate.edge_checksums(graph_conn)
            own = graphstate.shadow_checksums(self.store.con, self.graph_key, graph)
            buckets = (graphstate.differing_buckets(graph_sums, own)
                       or sorted(graphstate.buckets_of(graph_sums) | graphstate.buckets_of(own)))
        for b in buckets:
            edges = await graphstate.edges_in_bucket(graph_conn, b)
            ends: dict[str, Any] = {} if exact else await endpoints_of_untrusted(
                self.store.con, graph_conn, self.graph_key, graph, b, edges)
            with self.store.tx() as c:
                if not exact:
                    self.report.drift_healed += absorb_drift(c, self.graph_key, self.source, graph, b, edges, ends)
                graphstate.replace_shadow_bucket(c, self.graph_key, graph, b, edges)


__all__ = ["ShadowRefresh"]
