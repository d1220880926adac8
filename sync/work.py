"""The run's diff: ``temp.work``, the edges whose desired trust differs from what the graph
holds (as the shadow records it), built in SQLite; and the clear limit that stops a run that
would clear trust from too many edges (``sync.max_clear``)."""

from __future__ import annotations

from collections.abc import Iterator

from graph_trust.sync.desired import bounds, desired_ranges, recompute_desired
from graph_trust.sync.store.run_tables import RunTables
from graph_trust.sync.store.state import StateStore

# sync.max_clear applies to runs that would clear more edges than this.
CLEAR_LIMIT_FLOOR = 100
WORK_COLS = ("trust_score", "trust_status", "memory_type", "sensitivity", "scope")


class WorkTable:
    """``temp.work`` (and ``temp.unmatched``) of one run over the state store."""

    def __init__(self, store: StateStore, source: str, graph_key: str, batch_size: int, blend: float = 0.0) -> None:
        self.store, self.con = store, store.con
        self.source, self.graph_key, self.batch_size = source, graph_key, batch_size
        self.blend = blend  # confidence mode's weight (part_score_blended); 0: tiers mode

    def build(self, *, everything: bool) -> None:
        """``temp.work``: edges whose desired trust differs from the shadow. With ``everything``, it
        is filled range by range as the edges are written (:meth:`stream`); otherwise now,
        for the keys: touched, unmatched and drifted edges."""
        RunTables(self.con).new_work(source=self.source, graph_key=self.graph_key, everything=everything)

    def over_clear_limit(self, limit: float, *, everything: bool) -> str | None:
        """Why the run may not go on, if it would clear trust from more than ``sync.max_clear`` of
        the graph's trusted edges (and more than ``CLEAR_LIMIT_FLOOR``); None when it may."""
        if limit >= 1:
            return None
        if everything:  # the work is built range by range later: the trusted edges no scored candidate supports
            # (an edge left labels only loses its trust too)
            clears = self.store.one("unsupported_trusted", graph_key=self.graph_key, source=self.source)
        else:
            clears = self.store.one("work_clears", graph_key=self.graph_key)
        if clears <= CLEAR_LIMIT_FLOOR:
            return None
        trusted = self.store.one("shadow_count", graph_key=self.graph_key)
        if clears <= limit * trusted:
            return None
        return (f"this run would clear trust from {clears} of the graph's {trusted} trusted edges "
                f"({clears / trusted:.0%}), more than sync.max_clear allows ({limit:.0%})")

    def stream_bound(self) -> int:
        """An upper bound of the rows :meth:`stream` yields (the progress bar's total)."""
        return self.store.one("stream_bound", source=self.source, graph_key=self.graph_key)

    def stream(self, graphs: list[str], range_candidates: int) -> Iterator[list[tuple]]:
        """Everything mode: per graph and uuid range (about ``range_candidates`` candidates), recompute
        the desired trust, append the range's differences to ``temp.work`` (in (graph, uuid) order)
        and yield its new rows; the edges of one range are written while the next is computed."""
        c = self.con
        size = max(self.batch_size, range_candidates)
        last = 0
        for graph in graphs:
            for lo, hi in desired_ranges(c, self.source, graph, size):
                with self.store.tx():
                    recompute_desired(c, self.source, graph, lo, hi, self.blend)
                self.store.do("work_of_range", graph_key=self.graph_key, source=self.source, graph=graph,
                              **bounds(lo, hi))
                cur = self.store.cursor("work_after", after=last)
                while rows := cur.fetchmany(self.batch_size):  # a range may hold many shadow-only edges
                    last = rows[-1][0]
                    yield rows

    def unchanged(self) -> int:
        """Edges whose desired trust they already hold (desired, and not to be set)."""
        return self.store.one("desired_count", source=self.source) - self.store.one("work_sets")

    def rows(self) -> Iterator[list[tuple]]:
        """``temp.work`` in batches of ``(rowid, graph, uuid, trust_score, ...)``."""
        cur = self.store.cursor("work_after", after=0)
        while rows := cur.fetchmany(self.batch_size):
            yield rows
