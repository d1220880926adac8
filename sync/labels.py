"""An edge's labels from all review rows citing it, and the labels the configuration does not know.

**The strictest labels win.** Whatever the rows' statuses and whichever row wins the edge's trust,
an edge's ``sensitivity`` is the most restrictive label any row citing it carries (the highest
level of ``access.levels``; a label the scale does not know, which access control withholds from
every caller, above all), and its ``scope`` every scope the rows name, sorted and joined by
:data:`~graph_trust.access.sensitivity.SCOPE_JOIN` when they differ (only a caller cleared for
each sees it). A row without a label adds none. So a review decision, which changes statuses,
never lowers a fact's sensitivity or widens its scope. Sync computes both in SQLite with the
window functions :func:`register` adds to its connection.

**Unknown labels.** Access control withholds a fact whose ``sensitivity`` is neither a level of ``access.levels``
nor a label of ``access.labels`` from every caller (fail closed). So that is never silent, each
sync run reports every such label of the current candidates with how many rows carry it and an
example row id (``SyncReport.unknown_sensitivity``; the CLI prints it with the fix).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from graph_trust.access.sensitivity import SCOPE_JOIN, SensitivityScale, normalize_label, unknown_labels
from graph_trust.sync.store.state import StateStore


def unknown_sensitivity(store: StateStore, source: str, scale: SensitivityScale) -> list[dict[str, Any]]:
    """``[{label, count, example}]`` of the labels ``scale`` does not know among ``source``'s usable
    candidates (quarantined rows excluded), most frequent first."""
    return unknown_labels(store.rows("unknown_label_counts", source=source), scale)


def unknown_sensitivity_hint(items: list[dict[str, Any]]) -> str | None:
    """What the report's unknown labels mean and how to fix them, or None."""
    if not items:
        return None
    shown = ", ".join(f"{i['label']!r} x{i['count']} (e.g. {i['example']})" for i in items[:5])
    more = f" and {len(items) - 5} more" if len(items) > 5 else ""
    return (f"sensitivity label(s) access.levels and access.labels do not know: {shown}{more}; agents never "
            "see these facts until access.labels maps each label to a level")


def strictest_sensitivity(labels: Iterable[Any], scale: SensitivityScale) -> str | None:
    """The most restrictive of ``labels`` (blank ones and None add nothing): an unknown label above
    every level, then the highest level; ties by the label's text. None when no label is given."""
    given = [v for v in labels if normalize_label(v) is not None]
    if not given:
        return None
    top = len(scale.levels)  # (an unknown label: above every level)
    return min(given, key=lambda v: (-(top if scale.level(v) < 0 else scale.level(v)), str(v)))


def joined_scope(scopes: Iterable[Any]) -> str | None:
    """Every distinct scope named (blank ones and None add nothing), sorted, joined by
    :data:`SCOPE_JOIN`; None when none is named."""
    named = sorted({str(s) for s in scopes if isinstance(s, str) and s.strip()})
    return SCOPE_JOIN.join(named) if named else None


def _named(value: Any) -> bool:
    """Whether a single row's label counts (a non-blank string): both folds then give it unchanged."""
    return isinstance(value, str) and bool(value.strip())


class _Window:
    """A SQLite window function over the values of a frame (an edge's rows: a few)."""

    def __init__(self, fold) -> None:  # noqa: ANN001
        self.fold, self.values, self.cached = fold, [], None

    def step(self, value: Any) -> None:
        self.values.append(value)
        self.cached = None

    def inverse(self, value: Any) -> None:
        self.values.remove(value)
        self.cached = None

    def value(self) -> Any:
        if self.cached is None:
            values = self.values
            # most edges have one row: its own label, when it names one (what either fold gives)
            self.cached = ((values[0] if _named(values[0]) else None) if len(values) == 1 else self.fold(values),)
        return self.cached[0]

    finalize = value


def register(con: sqlite3.Connection, scale: SensitivityScale) -> None:
    """Add ``strictest_sensitivity(x)`` and ``joined_scope(x)`` (window functions and aggregates
    over an edge's rows) to ``con``, on ``scale``."""
    con.create_window_function("strictest_sensitivity", 1,
                               lambda: _Window(lambda vs: strictest_sensitivity(vs, scale)))
    con.create_window_function("joined_scope", 1, lambda: _Window(joined_scope))


__all__ = ["joined_scope", "register", "strictest_sensitivity", "unknown_sensitivity", "unknown_sensitivity_hint"]
