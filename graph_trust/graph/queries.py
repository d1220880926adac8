"""Load Cypher statements from the ``cypher/`` package data.

Each statement is one file, ``NAME.cypher``; a dialect variant ``NAME.neo4j.cypher`` or
``NAME.falkordb.cypher`` wins over the plain file for that dialect (a backend names its dialect:
:attr:`graph_trust.graph.backends.Backend.name`). A header of ``//`` comment
lines documents the parameters and is stripped before the text is sent.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

from graph_trust.graph import backends

DIALECTS = tuple(b.dialect for b in backends.BACKENDS)
_SAFE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


@cache
def load(name: str, dialect: str) -> str:
    """Return the statement ``name`` for ``dialect`` (a backend's name: 'neo4j', 'falkordb')."""
    if dialect not in DIALECTS:
        raise ValueError(f"unknown Cypher dialect {dialect!r}")
    root = resources.files("graph_trust.cypher")
    for candidate in (f"{name}.{dialect}.cypher", f"{name}.cypher"):
        path = root / candidate
        if path.is_file():
            return strip_header(path.read_text(encoding="utf-8"))
    raise KeyError(f"no Cypher statement named {name!r} for {dialect}")


def strip_header(text: str) -> str:
    """Drop ``//`` comment lines; what is left is the statement."""
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("//")]
    return "\n".join(lines).strip()


def names() -> list[str]:
    """Every statement name shipped in ``cypher/``."""
    root = resources.files("graph_trust.cypher")
    out = set()
    for entry in root.iterdir():
        if entry.name.endswith(".cypher"):
            stem = entry.name[: -len(".cypher")]
            for d in DIALECTS:
                if stem.endswith("." + d):
                    stem = stem[: -len(d) - 1]
            out.add(stem)
    return sorted(out)


def check_identifier(value: str, what: str = "identifier") -> str:
    """Allow-list check for labels, property and index names that come from config."""
    if not _SAFE_NAME.match(value or ""):
        raise ValueError(f"{what} {value!r} is not a plain identifier ([A-Za-z_][A-Za-z0-9_]*)")
    return value
