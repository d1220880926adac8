"""The review DB's change marker: whether anything the confidence scoring reads has changed.

The one-row table ``graph_trust_changes`` (a random token naming the DB, a counter) and AFTER
INSERT, UPDATE and DELETE triggers on every table ``ConfidenceStore.gather`` reads (``WATCHED``
and the candidates table), each adding 1 to the counter, so any write, through graph-trust or raw
SQL, moves it. ``graph-trust review init`` creates them (an existing DB gains them in place). A
DB whose marker is missing, or whose triggers were dropped or altered, has no marker to read.
"""

from __future__ import annotations

import sqlite3

MARKER = "graph_trust_changes"
WATCHED = ("fact_sources", "fact_verifications", "fact_usage_outcomes", "fact_votes", "fact_contradictions",
           "agent_credibility")


def _triggers(table: str) -> dict[str, str]:
    """Name -> CREATE statement of ``table``'s three triggers (as sqlite_master keeps it)."""
    return {f"graph_trust_changed_{table}_{op.lower()}":
            f'CREATE TRIGGER "graph_trust_changed_{table}_{op.lower()}" AFTER {op} ON "{table}" '
            f"BEGIN UPDATE {MARKER} SET n = n + 1; END" for op in ("INSERT", "UPDATE", "DELETE")}


def install_marker(con: sqlite3.Connection, candidates_table: str | None) -> None:
    """Create the change marker and its triggers where missing (in the caller's transaction)."""
    con.execute(f"CREATE TABLE IF NOT EXISTS {MARKER} (token TEXT NOT NULL, n INTEGER NOT NULL)")
    con.execute(f"INSERT INTO {MARKER} SELECT lower(hex(randomblob(16))), 0 WHERE NOT EXISTS (SELECT 1 FROM {MARKER})")
    have = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    for table in (*WATCHED, *([candidates_table] if candidates_table else [])):
        for name, sql in _triggers(table).items():
            if name not in have:
                con.execute(sql)


def marker(con: sqlite3.Connection, candidates_table: str) -> tuple[str, int, int] | None:
    """(token, counter, schema version) when the DB's change marker is whole; else None."""
    want: dict[str, str] = {}
    for table in (*WATCHED, candidates_table):
        want |= _triggers(table)
    have = dict(con.execute(f"SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN "
                            f"({','.join('?' * len(want))})", list(want)).fetchall())
    if have != want:
        return None
    try:
        rows = con.execute(f"SELECT token, n FROM {MARKER}").fetchall()
    except sqlite3.Error:
        return None
    if len(rows) != 1:
        return None
    return rows[0][0], rows[0][1], con.execute("PRAGMA schema_version").fetchone()[0]


__all__ = ["MARKER", "WATCHED", "install_marker", "marker"]
