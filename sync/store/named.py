"""The state store's statements, by name: ``statements.sql`` holds each one under a
``-- name: NAME`` line, with a comment saying what it does and its parameters (as ``cypher/``
keeps the Cypher). Code runs them by name; none of it holds SQL text of its own."""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files

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


def sql(name: str) -> str:
    """The statement ``name`` (KeyError naming it when there is none)."""
    try:
        return statements()[name]
    except KeyError:
        raise KeyError(f"no statement {name!r} in the state store's statements.sql") from None


__all__ = ["sql", "statements"]
