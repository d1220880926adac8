"""The run's diff: ``temp.work``, the edges whose desired trust differs from what the graph
holds (as the shadow records it), built in SQLite; and the clear limit that stops a run that
would clear trust from too many edges (``sync.max_clear``)."""

from __future__ import annotations

from collections.abc import Iterator

from graph_trust.sync.desired import EDGE_ROWS, desired_ranges, range_sql, recompute_desired
from graph_trust.sync.store.state import StateStore

# sync.max_clear applies to runs that would clear more edges than this.
CLEAR_LIMIT_FLOOR = 100
WORK_COLS = ("trust_score", "trust_status", "memory_type", "sensitivity", "scope")
_DESIRED_COLS = ", ".join(f"d.{p}" for p in WORK_COLS)
# the shadow s differs from the desired d (or the edge has no trust yet)
_DIFFERS = ("(s.uuid IS NULL OR abs(s.trust_score - d.trust_score) > 1e-9 OR s.trust_status IS NOT d.trust_status "
            "OR s.memory_type IS NOT d.memory_type OR s.sensitivity IS NOT d.sensitivity OR s.scope IS NOT d.scope)")




class WorkTable:
    """``temp.work`` (and ``temp.unmatched``) of one run over the state store's connection."""

    def __init__(self, store: StateStore, source: str, graph_key: str, batch_size: int, blend: float = 0.0) -> None:
        self.store, self.con = store, store.con
        self.source, self.graph_key, self.batch_size = source, graph_key, batch_size
        self.blend = blend  # confidence mode's weight (desired.BLEND); 0: tiers mode

    def build(self, *, everything: bool) -> None:
        """``temp.work``: edges whose desired trust differs from the shadow. With ``everything``, it
        is filled range by range as the edges are written (:meth:`stream`); otherwise now,
        for the keys: touched, unmatched and drifted edges."""
        c = self.con
        c.execute("DROP TABLE IF EXISTS temp.work")
        c.execute("DROP TABLE IF EXISTS temp.unmatched")
        c.execute("CREATE TEMP TABLE unmatched (graph TEXT, uuid TEXT, PRIMARY KEY (graph, uuid))")
        # the touched edges as of now: the run clears these when done (not those touched meanwhile)
        c.execute("INSERT OR IGNORE INTO temp.keys SELECT graph, uuid FROM sync_touched WHERE source = :source",
                  {"source": self.source})
        if everything:
            c.execute(f"CREATE TEMP TABLE work (graph TEXT, uuid TEXT, {', '.join(WORK_COLS)})")
            return
        c.execute("INSERT OR IGNORE INTO temp.keys SELECT graph, uuid FROM sync_unmatched WHERE source = :source",
                  {"source": self.source})
        # rowids follow (graph, uuid): a batch is a rowid range (see JournaledWriter.begin_work_edges)
        c.execute(f"""
            CREATE TEMP TABLE work AS
            SELECT k.graph AS graph, k.uuid AS uuid, {_DESIRED_COLS}
            FROM temp.keys k
            LEFT JOIN sync_desired d ON d.source = :source AND d.graph = k.graph AND d.uuid = k.uuid
            LEFT JOIN sync_shadow s ON s.graph_key = :graph_key AND s.graph = k.graph AND s.uuid = k.uuid
            WHERE (d.uuid IS NOT NULL AND {_DIFFERS}) OR (d.uuid IS NULL AND s.uuid IS NOT NULL)
            ORDER BY k.graph, k.uuid
        """, {"graph_key": self.graph_key, "source": self.source})

    def over_clear_limit(self, limit: float, *, everything: bool) -> str | None:
        """Why the run may not go on, if it would clear trust from more than ``sync.max_clear`` of
        the graph's trusted edges (and more than ``CLEAR_LIMIT_FLOOR``); None when it may."""
        if limit >= 1:
            return None
        c = self.con
        p = {"graph_key": self.graph_key, "source": self.source}
        if everything:  # the work is built range by range later: the trusted edges no scored candidate supports
            clears = c.execute(
                "SELECT count(*) FROM sync_shadow s WHERE s.graph_key = :graph_key AND NOT EXISTS (SELECT 1 FROM "
                f"{EDGE_ROWS} JOIN temp.tiers t ON t.status = c.status WHERE c.source = :source AND c.graph = "
                "s.graph AND c.edge_uuid = s.uuid AND c.reason IS NULL AND t.score IS NOT NULL)", p).fetchone()[0]
        else:
            clears = c.execute("SELECT count(*) FROM temp.work WHERE trust_score IS NULL").fetchone()[0]
        if clears <= CLEAR_LIMIT_FLOOR:
            return None
        trusted = c.execute("SELECT count(*) FROM sync_shadow WHERE graph_key = :graph_key", p).fetchone()[0]
        if clears <= limit * trusted:
            return None
        return (f"this run would clear trust from {clears} of the graph's {trusted} trusted edges "
                f"({clears / trusted:.0%}), more than sync.max_clear allows ({limit:.0%})")

    def stream_bound(self) -> int:
        """An upper bound of the rows :meth:`stream` yields (the progress bar's total)."""
        return self.con.execute("SELECT (SELECT count(*) FROM sync_candidates WHERE source = ? AND edge_uuid IS NOT "
                                "NULL) + (SELECT count(*) FROM sync_shadow WHERE graph_key = ?)",
                                (self.source, self.graph_key)).fetchone()[0]

    def stream(self, graphs: list[str], range_candidates: int) -> Iterator[list[tuple]]:
        """Everything mode: per graph and uuid range (about ``range_candidates`` candidates), recompute
        the desired trust, append the range's differences to ``temp.work`` (in (graph, uuid) order)
        and yield its new rows; the edges of one range are written while the next is computed."""
        c = self.con
        size = max(self.batch_size, range_candidates)
        last = 0
        for graph in graphs:
            for lo, hi in desired_ranges(c, self.source, graph, size):
                p = {"graph_key": self.graph_key, "source": self.source, "graph": graph, "lo": lo, "hi": hi}
                with self.store.tx():
                    recompute_desired(c, self.source, graph, lo, hi, self.blend)
                c.execute(f"""
                    INSERT INTO temp.work SELECT * FROM (
                        SELECT d.graph, d.uuid, {_DESIRED_COLS} FROM sync_desired d
                        LEFT JOIN sync_shadow s ON s.graph_key = :graph_key AND s.graph = d.graph AND s.uuid = d.uuid
                        WHERE d.source = :source AND d.graph = :graph{range_sql("d.uuid", lo, hi)} AND {_DIFFERS}
                        UNION ALL
                        SELECT s.graph, s.uuid, NULL, NULL, NULL, NULL, NULL FROM sync_shadow s
                        WHERE s.graph_key = :graph_key AND s.graph = :graph{range_sql("s.uuid", lo, hi)} AND NOT EXISTS (
                            SELECT 1 FROM sync_desired d
                            WHERE d.source = :source AND d.graph = s.graph AND d.uuid = s.uuid)
                    ) ORDER BY uuid""", p)
                cur = c.execute(f"SELECT rowid, graph, uuid, {', '.join(WORK_COLS)} FROM temp.work WHERE rowid > ? "
                                "ORDER BY rowid", (last,))
                while rows := cur.fetchmany(self.batch_size):  # a range may hold many shadow-only edges
                    last = rows[-1][0]
                    yield rows

    def unchanged(self) -> int:
        """Edges whose desired trust they already hold (desired, and not to be set)."""
        c = self.con
        desired = c.execute("SELECT count(*) FROM sync_desired WHERE source = ?", (self.source,)).fetchone()[0]
        to_set = c.execute("SELECT count(*) FROM temp.work WHERE trust_score IS NOT NULL").fetchone()[0]
        return desired - to_set

    def rows(self) -> Iterator[list[tuple]]:
        """``temp.work`` in batches of ``(rowid, graph, uuid, trust_score, ...)``."""
        cur = self.con.execute(f"SELECT rowid, graph, uuid, {', '.join(WORK_COLS)} FROM temp.work ORDER BY rowid")
        while rows := cur.fetchmany(self.batch_size):
            yield rows
