"""One run's temporary tables, owned by one object: ``temp.keys`` (the edges the run compares),
``temp.unmatched`` (edges it did not find), ``temp.foreign_props`` (what a full scan read of edges
holding owned properties but no trust_score), ``temp.work`` (the diff, built by
:class:`~graph_trust.sync.work.WorkTable`), ``temp.tiers`` (the policy's tiers, from
:func:`~graph_trust.sync.desired.load_tiers`), ``temp.guard_edges`` (the guard's invalidated
edges), ``temp.conf_edges`` (the edges whose winner's confidence moved), ``temp.changed`` and
``temp.gone`` (the review rows a refresh reads again, the ids that left), ``temp.review_rows`` and
``temp.desired`` (verify's fresh read of the review DB and the desired state it gives), and verify's
``temp.actual``, ``temp.want``, ``temp.have`` and ``temp.unmatched_edges`` (what the graph holds).
A run starts with none of them and drops them all when it ends."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from graph_trust.sync.store.named import sql

TEMP_TABLES = ("keys", "work", "unmatched", "foreign_props", "tiers", "guard_edges", "conf_edges", "changed", "gone",
               "review_rows", "desired", "actual", "want", "have", "unmatched_edges")


class RunTables:
    """The temporary tables of one run over the state store's connection ``con``."""

    def __init__(self, con: sqlite3.Connection) -> None:
        self.con = con

    def new_keys(self) -> None:
        """An empty ``temp.keys``."""
        self.con.execute(sql("create_keys"))
        self.con.execute(sql("clear_keys"))

    def new_conf_edges(self) -> None:
        """An empty ``temp.conf_edges``."""
        self.con.execute(sql("create_conf_edges"))
        self.con.execute(sql("clear_conf_edges"))

    def load_tiers(self, tiers: dict[str, float | None]) -> None:
        """``temp.tiers`` holds ``tiers`` (status -> score; None: unscored)."""
        self.con.execute(sql("create_tiers"))
        self.con.execute(sql("clear_tiers"))
        self.con.executemany(sql("add_tier"), list(tiers.items()))

    def new_changed(self, params: dict[str, Any], scan: str) -> None:
        """``temp.changed``: the review rows of ``scan`` whose content differs from the copy's."""
        self.con.execute(sql("drop_changed"))
        self.con.execute(sql("create_changed", scan=scan), params)

    def new_gone(self) -> None:
        """An empty ``temp.gone`` (ids of candidates that left the review DB)."""
        self.con.execute(sql("drop_gone"))
        self.con.execute(sql("create_gone"))

    def new_review_rows(self) -> None:
        """An empty ``temp.review_rows`` (verify's fresh read of the review DB)."""
        self.con.execute(sql("drop_review_rows"))
        self.con.execute(sql("create_review_rows"))
        self.con.execute(sql("index_review_rows"))

    def new_exact_desired(self, params: dict[str, Any], parts: dict[str, str]) -> None:
        """``temp.desired``: the desired state ``temp.review_rows`` gives each edge."""
        self.con.execute(sql("drop_exact_desired"))
        self.con.execute(sql("create_exact_desired", **parts), params)
        self.con.execute(sql("index_exact_desired"))

    def new_work(self, *, source: str, graph_key: str, everything: bool) -> None:
        """A new ``temp.work`` (empty with ``everything``: filled range by range; else the keys'
        differences) and an empty ``temp.unmatched``; ``temp.keys`` gets the touched (and, but with
        ``everything``, the unmatched) edges."""
        self.con.execute(sql("drop_work"))
        self.con.execute(sql("drop_unmatched"))
        self.con.execute(sql("create_unmatched"))
        self.con.execute(sql("keys_of_touched"), {"source": source})
        if everything:
            self.con.execute(sql("create_work_empty"))
            return
        self.con.execute(sql("keys_of_unmatched"), {"source": source})
        self.con.execute(sql("create_work_of_keys"), {"source": source, "graph_key": graph_key})

    def new_want_and_have(self, graph: str) -> None:
        """Verify's ``temp.want`` (each entity's trust computed from ``temp.actual``'s edges of
        ``graph``, with the connection's ``trust_aggregate``) and an empty ``temp.have``."""
        self.con.execute(sql("drop_want"))
        self.con.execute(sql("create_want"))
        self.con.execute(sql("fill_want"), {"g": graph})
        self.con.execute(sql("drop_have"))
        self.con.execute(sql("create_have"))

    def new_actual(self) -> None:
        """An empty ``temp.actual`` (verify's read of the edges carrying trust)."""
        self.con.execute(sql("drop_actual"))
        self.con.execute(sql("create_actual"))

    def new_unmatched_edges(self, edges: list[tuple[str, str]]) -> None:
        """``temp.unmatched_edges``: ``edges`` (graph, uuid)."""
        self.con.execute(sql("drop_unmatched_edges"))
        self.con.execute(sql("create_unmatched_edges"))
        self.con.executemany(sql("note_unmatched_edge"), edges)

    def work_rows(self) -> int:
        return self.con.execute(sql("count_work")).fetchone()[0]

    def note_unmatched(self, graph: str, uuids: Iterable[str]) -> None:
        self.con.executemany(sql("note_unmatched"), [{"graph": graph, "uuid": u} for u in uuids])

    def note_foreign_props(self, graph: str, edges: list[dict[str, Any]], props: tuple[str, ...]) -> None:
        """``temp.foreign_props`` gets ``edges`` of ``graph`` (created when missing)."""
        self.con.execute(sql("create_foreign_props"))
        self.con.executemany(sql("note_foreign_props"),
                             [{"graph": graph, "uuid": e["uuid"], **{p: e.get(p) for p in props}} for e in edges])

    def drop(self) -> None:
        """The run is over: every temporary table it made goes."""
        for name in TEMP_TABLES:
            self.con.execute(sql("drop_temp_table", table=name))


__all__ = ["RunTables", "TEMP_TABLES"]
