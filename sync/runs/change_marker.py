"""The review DB's change marker: whether anything the confidence scoring reads has changed.

The one-row table ``graph_trust_changes`` (a random token naming the DB, a counter) and triggers
on every table ``ConfidenceStore.gather`` reads (``WATCHED`` and the candidates table) adding 1
to the counter on every insert, update and delete, so any write, through graph-trust or raw SQL,
moves it (SQLite: AFTER ... FOR EACH ROW triggers; PostgreSQL: AFTER ... FOR EACH STATEMENT
triggers calling ``graph_trust_changed()``, which adds 1 once per transaction). ``graph-trust review init`` creates them (an existing
DB gains them in place). A DB whose marker is missing, or whose triggers were dropped or altered,
has no marker to read.
"""

from __future__ import annotations

from graph_trust.review.db import ReviewConn

MARKER = "graph_trust_changes"
WATCHED = ("fact_sources", "fact_verifications", "fact_usage_outcomes", "fact_votes", "fact_contradictions",
           "agent_credibility")
# Once per transaction: a bulk load of 100k single-row statements would otherwise update the one
# marker row 100k times in one transaction, each update walking the row's growing version chain.
PG_FUNCTION = f"""CREATE OR REPLACE FUNCTION graph_trust_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('graph_trust.changed_in', true) IS DISTINCT FROM pg_current_xact_id()::text THEN
    UPDATE {MARKER} SET n = n + 1;
    PERFORM set_config('graph_trust.changed_in', pg_current_xact_id()::text, true);
  END IF;
  RETURN NULL;
END $$"""


def _triggers(table: str) -> dict[str, str]:
    """Name -> CREATE statement of ``table``'s three SQLite triggers (as sqlite_master keeps it)."""
    return {f"graph_trust_changed_{table}_{op.lower()}":
            f'CREATE TRIGGER "graph_trust_changed_{table}_{op.lower()}" AFTER {op} ON "{table}" '
            f"BEGIN UPDATE {MARKER} SET n = n + 1; END" for op in ("INSERT", "UPDATE", "DELETE")}


def _pg_trigger(table: str) -> tuple[str, str]:
    """Name and CREATE statement of ``table``'s PostgreSQL trigger."""
    name = f"graph_trust_changed_{table}"
    return name, (f'CREATE TRIGGER "{name}" AFTER INSERT OR UPDATE OR DELETE ON "{table}" '
                  "FOR EACH STATEMENT EXECUTE FUNCTION graph_trust_changed()")


def _pg_triggers(conn: ReviewConn, tables: tuple[str, ...]) -> set[tuple[str, str]]:
    """(table, trigger) of the marker triggers present on ``tables``, enabled and calling the function."""
    rows = conn.query(
        "SELECT c.relname, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
        "JOIN pg_proc p ON p.oid = t.tgfoid JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE NOT t.tgisinternal AND t.tgenabled <> 'D' AND p.proname = 'graph_trust_changed' "
        "AND n.nspname = ANY (current_schemas(false))")
    return {(r[0], r[1]) for r in rows if r[0] in tables}


def install_marker(conn: ReviewConn, candidates_table: str | None) -> None:
    """Create the change marker and its triggers where missing (in the caller's transaction)."""
    tables = (*WATCHED, *([candidates_table] if candidates_table else []))
    conn.execute(f"CREATE TABLE IF NOT EXISTS {MARKER} (token TEXT NOT NULL, n BIGINT NOT NULL)")
    token = "md5(random()::text || clock_timestamp()::text)" if conn.pg else "lower(hex(randomblob(16)))"
    conn.execute(f"INSERT INTO {MARKER} SELECT {token}, 0 WHERE NOT EXISTS (SELECT 1 FROM {MARKER})")
    if conn.pg:
        conn.execute(PG_FUNCTION)
        have = _pg_triggers(conn, tables)
        for table in tables:
            name, sql = _pg_trigger(table)
            if (table, name) not in have:
                conn.execute(f'DROP TRIGGER IF EXISTS "{name}" ON "{table}"')
                conn.execute(sql)
        return
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    for table in tables:
        for name, sql in _triggers(table).items():
            if name not in have:
                conn.execute(sql)


def marker(conn: ReviewConn, candidates_table: str) -> tuple[str, int, str] | None:
    """(token, counter, schema version) when the DB's change marker is whole; else None."""
    tables = (*WATCHED, candidates_table)
    if conn.pg:
        if _pg_triggers(conn, tables) != {(t, _pg_trigger(t)[0]) for t in tables}:
            return None
        version = conn.query(  # the watched tables' columns stand in for SQLite's schema version
            "SELECT md5(string_agg(c.relname || '.' || a.attname || ':' || a.atttypid::text, ',' "
            "ORDER BY c.relname, a.attnum)) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE a.attnum > 0 AND NOT a.attisdropped "
            f"AND n.nspname = ANY (current_schemas(false)) AND c.relname IN ({','.join('?' * len(tables))})",
            tables)[0][0]
    else:
        want: dict[str, str] = {}
        for table in tables:
            want |= _triggers(table)
        have = dict(conn.query(f"SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN "
                               f"({','.join('?' * len(want))})", list(want)))
        if have != want:
            return None
        version = str(conn.query("PRAGMA schema_version")[0][0])
    if MARKER not in conn.tables():
        return None
    rows = conn.query(f"SELECT token, n FROM {MARKER}")
    if len(rows) != 1:
        return None
    return rows[0][0], int(rows[0][1]), version


__all__ = ["MARKER", "WATCHED", "install_marker", "marker"]
