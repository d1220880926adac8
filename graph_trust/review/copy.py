"""``graph-trust review copy SRC DST``: every table of one review DB into another, SQLite and
PostgreSQL either way (a team moving from the demo's file to its shared database).

The destination is made a review DB first (``review init``); each table of the source that the
destination knows is copied in key order, in batches, each row inserted unless the destination
already holds its key (its primary key or unique columns): nothing in the destination is
overwritten, and a second run copies nothing new and says so. Ids are kept (the audit trail's
order, undo's ``undone_by`` links), and a PostgreSQL identity column continues after the highest
id copied. After each table the source's keys are checked to be all in the destination (a table
with a key the destination holds with other values is reported, never changed).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from graph_trust.errors import InputError, ReviewDBError
from graph_trust.review.db import Location, ReviewConn, init_hint

BATCH = 5000


@dataclass
class TableCopy:
    """One table's copy: the source's rows, those inserted, those the destination already held
    (same key), and of those the ones whose values differ there (kept as they are)."""

    table: str
    source_rows: int = 0
    copied: int = 0
    already: int = 0
    differing: int = 0


@dataclass
class CopyReport:
    source: str
    destination: str
    tables: list[TableCopy] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)  # tables the source does not have

    @property
    def copied(self) -> int:
        return sum(t.copied for t in self.tables)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "copied": self.copied}


def _key(conn: ReviewConn, table: str, cols: list[str]) -> list[str]:
    keys = [k for k in conn.unique_keys(table) if set(k) <= set(cols)]
    if not keys:
        raise ReviewDBError(f"review DB {conn.location} table {table!r} has no primary key or unique columns to "
                            f"copy it by ({init_hint(conn.location)})")
    return min(keys, key=len)


def _norm(v: Any) -> Any:
    """A value as both drivers compare it (an SQLite integer in a text key is its text on PostgreSQL)."""
    return v if v is None or isinstance(v, float) else str(v)


def copy_tables(src: ReviewConn, dst: ReviewConn, tables: list[str]) -> CopyReport:
    """Copy ``tables`` (those the source has) from ``src`` into ``dst`` (module docstring)."""
    report = CopyReport(src.location.display, dst.location.display)
    have = src.tables()
    for table in tables:
        if table not in have:
            report.absent.append(table)
            continue
        report.tables.append(_copy_table(src, dst, table))
    return report


def _copy_table(src: ReviewConn, dst: ReviewConn, table: str) -> TableCopy:
    src_cols, dst_cols = list(src.columns(table)), list(dst.columns(table))
    if not dst_cols:
        raise ReviewDBError(f"review DB {dst.location} has no table {table!r}: {init_hint(dst.location)}")
    extra = [c for c in src_cols if c not in dst_cols]
    if extra:
        raise ReviewDBError(f"review DB {src.location} table {table!r} has column(s) {', '.join(extra)} that "
                            f"{dst.location} lacks: nothing of {table} was copied")
    key = _key(dst, table, src_cols)
    names = ", ".join(f'"{c}"' for c in src_cols)
    order = ", ".join(f'"{c}"' for c in key)
    kpos = [src_cols.index(c) for c in key]
    out = TableCopy(table)
    held = {tuple(_norm(v) for v in r[:len(key)]): tuple(_norm(v) for v in r[len(key):])
            for r in dst.query(f'SELECT {order}, {names} FROM "{table}"')}
    insert = (f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" * len(src_cols))}) '
              f"ON CONFLICT ({order}) DO NOTHING")
    src_keys: set[tuple] = set()
    with src.snapshot():
        offset = 0
        while True:
            rows = src.query(f'SELECT {names} FROM "{table}" ORDER BY {order} LIMIT ? OFFSET ?', (BATCH, offset))
            if not rows:
                break
            offset += len(rows)
            fresh = []
            for r in rows:
                k = tuple(_norm(r[i]) for i in kpos)
                src_keys.add(k)
                if k in held:
                    out.already += 1
                    out.differing += held[k] != tuple(_norm(v) for v in r)
                else:
                    fresh.append(r)
            out.source_rows += len(rows)
            if fresh:
                dst.write(lambda c, batch=fresh: c.executemany(insert, batch))
                out.copied += len(fresh)
    if dst.pg and "id" in key and dst.columns(table).get("id") in ("bigint", "integer"):
        dst.write(lambda c: c.execute(f"SELECT setval(pg_get_serial_sequence('\"{table}\"', 'id'), "
                                      f'(SELECT max(id) FROM "{table}"))') if out.copied else None)
    now = {tuple(_norm(v) for v in r) for r in dst.query(f'SELECT {order} FROM "{table}"')}
    missing = len(src_keys - now)
    if missing:
        raise ReviewDBError(f"review DB copy of {table!r}: {missing} row(s) of {src.location} are not in "
                            f"{dst.location} after the copy; rerun graph-trust review copy")
    return out


def check_distinct(src: Location, dst: Location) -> None:
    """An InputError when ``src`` and ``dst`` are the same review DB (the same SQLite file, however
    named, or the same PostgreSQL address): a copy onto itself would copy nothing and say so."""
    same = src.path.resolve() == dst.path.resolve() if src.path and dst.path else src.display == dst.display
    if src.dialect == dst.dialect and same:
        raise InputError(f"review copy: the source and the destination are the same review DB ({src})")


__all__ = ["CopyReport", "TableCopy", "check_distinct", "copy_tables"]
