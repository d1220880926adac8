"""Contradictions: detection among facts and the penalty they cost.

Detection: facts with the same subject and predicate (compared as SQLite's ``lower(trim())``:
ASCII case and surrounding spaces ignored) and a different object contradict. The pair is typed by what differs:

- ``exclusive_state`` (high): the two hold opposite states of one pair, as whole words
  (running/stopped, enabled/disabled, healthy/degraded, online/offline, active/inactive, up/down);
- ``conflicting_value`` (high): both name a port, a time of day or a version, and the values differ;
- ``different_object`` (medium): anything else.

Penalty: ``1 - min(0.8, 0.3 per contradiction the fact lost + 0.1 * severity per unresolved
one)`` with severity low 1/3, medium 2/3, high 1. A won contradiction costs nothing.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations

import numpy as np

EXCLUSIVE_PAIRS = (
    ("running", "stopped"),
    ("enabled", "disabled"),
    ("healthy", "degraded"),
    ("online", "offline"),
    ("active", "inactive"),
    ("up", "down"),
)
SEVERITY_SCORES = {"low": 1 / 3, "medium": 2 / 3, "high": 1.0}
LOSS_PENALTY, UNRESOLVED_PENALTY, MIN_SCORE = 0.3, 0.1, 0.2  # at most 0.8 off

_WORD = re.compile(r"[a-z0-9_]+")
_PORT = re.compile(r"\bport\s*[:=#]?\s*(\d{1,5})\b|\b[a-z][a-z0-9.-]*:(\d{2,5})\b")
_TIME12 = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\b")
_TIME24 = re.compile(r"(?<![\d.:])(\d{1,2}):(\d{2})(?![\d:])")
_VERSION = re.compile(r"(?<![\d.])v?(\d+\.\d+(?:\.\d+)?)(?!\.?\d)")


@dataclass(frozen=True)
class Fact:
    id: str
    subject: str | None
    predicate: str | None
    object: str | None
    text: str | None = None


@dataclass(frozen=True)
class Contradiction:
    a: str
    b: str
    type: str
    severity: str
    detail: str


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def norm(v: object) -> str | None:
    """The key facts are compared on: SQLite's ``lower(trim(v))`` (ASCII case, surrounding
    spaces), so facts grouped in Python and in SQL (consensus clusters) agree; None stays None."""
    if v is None:
        return None
    v = str(v).strip(" ")
    return v.lower() if v.isascii() else v.translate(_ASCII_LOWER)


def values(text: str) -> dict[str, frozenset[str]]:
    """Ports, times of day (minutes after midnight) and versions named in ``text``."""
    t = text.lower()
    ports = {a or b for a, b in _PORT.findall(t)}
    times = {str((int(h) % 12 + (12 if ap == "p" else 0)) * 60 + int(m or 0)) for h, m, ap in _TIME12.findall(t)}
    t = _TIME12.sub(" ", t)  # "2:30 pm" is 14:30, not also 02:30
    times |= {str(int(h) * 60 + int(m)) for h, m in _TIME24.findall(t) if int(h) < 24 and int(m) < 60}
    versions = set(_VERSION.findall(_TIME24.sub(" ", t)))
    return {k: frozenset(v) for k, v in (("port", ports), ("time", times), ("version", versions)) if v}


def exclusive_states(a: str, b: str) -> tuple[str, str] | None:
    """The opposite states ``a`` and ``b`` hold (whole words), or None."""
    wa, wb = set(_WORD.findall(a.lower())), set(_WORD.findall(b.lower()))
    for x, y in EXCLUSIVE_PAIRS:
        if (x in wa and y in wb and y not in wa and x not in wb) or (y in wa and x in wb and x not in wa and y not in wb):
            return (x, y) if x in wa else (y, x)
    return None


def classify(a: Fact, b: Fact) -> Contradiction | None:
    """The contradiction between two facts on the same subject and predicate, or None when
    their objects agree."""
    if norm(a.object) == norm(b.object):
        return None
    # the predicate names the value's kind ("port" -> "9200") when the object is a bare value
    ta, tb = (f"{f.predicate or ''} {f.object or ''} {f.text or ''}" for f in (a, b))
    states = exclusive_states(ta, tb)
    if states:
        return Contradiction(a.id, b.id, "exclusive_state", "high", f"{states[0]} vs {states[1]}")
    va, vb = values(ta), values(tb)
    for kind in ("port", "time", "version"):
        if kind in va and kind in vb and va[kind] != vb[kind]:
            return Contradiction(a.id, b.id, "conflicting_value", "high",
                                 f"{kind} {','.join(sorted(va[kind]))} vs {','.join(sorted(vb[kind]))}")
    return Contradiction(a.id, b.id, "different_object", "medium", f"{a.object!r} vs {b.object!r}")


def detect(facts: Iterable[Fact], max_objects: int = 50) -> list[Contradiction]:
    """Contradicting pairs among ``facts``. Facts that agree (same object) form one side: each
    pair of distinct objects is reported once, between their first facts in input order; a
    subject and predicate with more than ``max_objects`` objects compares only the first ones."""
    groups: dict[tuple[str, str], dict[str, Fact]] = defaultdict(dict)
    for f in facts:
        if norm(f.subject) and norm(f.predicate):
            groups[(norm(f.subject), norm(f.predicate))].setdefault(norm(f.object), f)
    out = []
    for objs in groups.values():
        for a, b in combinations(list(objs.values())[:max_objects], 2):
            c = classify(a, b)
            if c is not None:
                out.append(c)
    return out


def penalty_many(losses: np.ndarray, unresolved_severity: np.ndarray) -> np.ndarray:
    """Vectorized factor: ``losses`` lost contradictions, ``unresolved_severity`` the summed
    severity scores of unresolved ones."""
    p = LOSS_PENALTY * np.asarray(losses, dtype=float) + UNRESOLVED_PENALTY * np.asarray(unresolved_severity, dtype=float)
    return np.clip(1.0 - np.maximum(p, 0.0), MIN_SCORE, 1.0)


def contradiction_score(losses: int = 0, unresolved: Iterable[str] = ()) -> float:
    """The factor for one fact: ``losses`` lost, ``unresolved`` the severities of open ones."""
    return float(penalty_many(np.array([losses]), np.array([sum(SEVERITY_SCORES[s] for s in unresolved)]))[0])
