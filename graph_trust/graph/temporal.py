"""Graphiti's temporal edge properties (``valid_at``, ``invalid_at``, ``expired_at``) as the
graph stores them, kept exactly through a JSON journal.

Graphiti writes Python datetimes; FalkorDB's driver turns them into ISO 8601 strings, Neo4j stores
them as ``DateTime`` (the neo4j driver returns ``neo4j.time.DateTime``). A value read from the
graph goes into the journal with its type (:func:`to_json`) and comes back as the same type
(:func:`from_json`), so writing it back restores what was there (a string as the same string, a
``DateTime`` as a ``DateTime`` of the same instant, offset and nanoseconds). Instants to compare:
:func:`as_datetime`.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

import neo4j.time

_NEO4J = "$neo4j"  # a neo4j.time value: {"$neo4j": "DateTime" | "Date" | "Time", "iso": ...}
_NEO4J_TYPES = (neo4j.time.DateTime, neo4j.time.Date, neo4j.time.Time)
_PY_DATETIME = "$py_datetime"  # a Python datetime (a driver that returns those)


def to_json(value: Any) -> Any:
    """A stored temporal value as JSON: None and strings as they are, datetimes tagged by type."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, _NEO4J_TYPES):  # (a zone-less LocalDateTime is a DateTime without tzinfo)
        return {_NEO4J: type(value).__name__, "iso": value.iso_format()}
    if isinstance(value, datetime):
        return {_PY_DATETIME: value.isoformat()}
    raise TypeError(f"unexpected temporal value {value!r} ({type(value).__name__})")


def from_json(value: Any) -> Any:
    """The inverse of :func:`to_json`: the value to write back, of the type it was read as."""
    if isinstance(value, dict):
        if _NEO4J in value:
            kind = next(t for t in _NEO4J_TYPES if t.__name__ == value[_NEO4J])
            return kind.from_iso_format(value["iso"])
        return datetime.fromisoformat(value[_PY_DATETIME])
    return value


def iso(value: Any) -> str | None:
    """A temporal value as ISO 8601 text for reports (strings as stored)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, _NEO4J_TYPES):
        return value.iso_format()
    return value.isoformat() if isinstance(value, datetime) else str(value)


__all__ = ["from_json", "iso", "to_json"]


def as_datetime(value: Any) -> datetime | None:
    """datetime, neo4j/falkordb temporal (``to_native``), ISO string or epoch seconds -> aware UTC."""
    if value is None or isinstance(value, bool):
        return None
    if hasattr(value, "to_native"):
        value = value.to_native()
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    elif isinstance(value, int | float):
        if not math.isfinite(value):
            return None
        try:
            value = datetime.fromtimestamp(float(value), tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, datetime):
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)
