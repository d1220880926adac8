"""Sensitivity labels of the review DB that the configuration does not know.

Access control withholds a fact whose ``sensitivity`` is neither a level of ``access.levels``
nor a label of ``access.labels`` from every caller (fail closed). So that is never silent, each
sync run reports every such label of the current candidates with how many rows carry it and an
example row id (``SyncReport.unknown_sensitivity``; the CLI prints it with the fix).
"""

from __future__ import annotations

from typing import Any

from graph_trust.access.sensitivity import SensitivityScale, unknown_labels
from graph_trust.sync.state import StateStore

_LABELS_SQL = ("SELECT lower(trim(sensitivity)), count(*), min(id) FROM sync_candidates "
               "WHERE source = ? AND reason IS NULL AND sensitivity IS NOT NULL AND trim(sensitivity) <> '' "
               "GROUP BY 1")


def unknown_sensitivity(store: StateStore, source: str, scale: SensitivityScale) -> list[dict[str, Any]]:
    """``[{label, count, example}]`` of the labels ``scale`` does not know among ``source``'s usable
    candidates (quarantined rows excluded), most frequent first."""
    return unknown_labels(store.con.execute(_LABELS_SQL, (source,)), scale)


def unknown_sensitivity_hint(items: list[dict[str, Any]]) -> str | None:
    """What the report's unknown labels mean and how to fix them, or None."""
    if not items:
        return None
    shown = ", ".join(f"{i['label']!r} x{i['count']} (e.g. {i['example']})" for i in items[:5])
    more = f" and {len(items) - 5} more" if len(items) > 5 else ""
    return (f"sensitivity label(s) access.levels and access.labels do not know: {shown}{more}; agents never "
            "see these facts until access.labels maps each label to a level")


__all__ = ["unknown_sensitivity", "unknown_sensitivity_hint"]
