"""One run's temporary tables, owned by one object: ``temp.keys`` (the edges the run compares),
``temp.unmatched`` (edges it did not find), ``temp.foreign_props`` (what a full scan read of edges
holding owned properties but no trust_score), ``temp.work`` (the diff, built by
:class:`~graph_trust.sync.work.WorkTable`), ``temp.tiers`` (the policy's tiers, from
:func:`~graph_trust.sync.desired.load_tiers`) and ``temp.guard_edges`` (the guard's invalidated
edges). A run starts with none of them and drops them all when it ends."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from graph_trust.sync.store.named import sql

TEMP_TABLES = ("keys", "work", "unmatched", "foreign_props", "tiers", "guard_edges")


class RunTables:
    """The temporary tables of one run over the state store's connection ``con``."""

    def __init__(self, con: sqlite3.Connection) -> None:
        self.con = con

    def new_keys(self) -> None:
        """An empty ``temp.keys``."""
        self.con.execute(sql("create_keys"))
        self.con.execute(sql("clear_keys"))

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
            self.con.execute(f"DROP TABLE IF EXISTS temp.{name}")


__all__ = ["RunTables", "TEMP_TABLES"]
