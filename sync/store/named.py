"""The state store's statements, by name: ``statements.sql`` holds each one under a
``-- name: NAME`` line, with a comment saying what it does and its parameters (as ``cypher/``
keeps the Cypher). Code runs them by name; none of it holds SQL text of its own."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from importlib.resources import files
from typing import Any

_NAME = re.compile(r"^-- name: ([a-z_]+)\s*$", re.MULTILINE)


@cache
def statements() -> dict[str, str]:
    """Every statement of ``statements.sql`` by name (its comment lines left out)."""
    text = files(__package__).joinpath("statements.sql").read_text(encoding="utf-8")
    parts = _NAME.split(text)[1:]
    out: dict[str, str] = {}
    for name, body in zip(parts[::2], parts[1::2], strict=True):
        if name in out:
            raise ValueError(f"statements.sql names {name!r} twice")
        out[name] = "\n".join(line for line in body.strip().splitlines() if not line.startswith("--")).strip()
    return out


def sql(name: str, **parts: str) -> str:
    """The statement ``name`` (KeyError naming it when there is none); ``parts`` fill the
    ``{placeholders}`` of a template (names of tables and columns, never values)."""
    try:
        text = statements()[name]
    except KeyError:
        raise KeyError(f"no statement {name!r} in the state store's statements.sql") from None
    while parts and "{" in text:  # (a part may hold placeholders of its own)
        text, before = text.format(**parts), text
        if text == before:
            break
    return text


def part(name: str) -> str:
    """The fragment ``part_NAME`` of ``statements.sql``, for a template's placeholder."""
    return sql(f"part_{name}")


Params = Mapping[str, Any] | Sequence[Any]


def run(con: sqlite3.Connection, name: str, params: Params = (), **parts: str) -> sqlite3.Cursor:
    """Execute the statement ``name`` on ``con`` (in the caller's transaction, if any)."""
    return con.execute(sql(name, **parts), params)


def run_many(con: sqlite3.Connection, name: str, params: Iterable[Params], **parts: str) -> sqlite3.Cursor:
    """Execute the statement ``name`` once per parameter set."""
    return con.executemany(sql(name, **parts), params)


__all__ = ["part", "run", "run_many", "sql", "statements"]
