"""Sensitivity levels and labels: which level a record's ``sensitivity`` value means.

The scale is ``access.levels`` (lowest first; default ``public < low < medium < high < hyper``)
plus ``access.labels``, custom labels mapped onto a level (``internal: low``). A value is read
case-insensitively with surrounding spaces ignored. A value that is neither a level nor a
label is *unknown*: access control denies it (fail closed) and says how many facts it withheld
for that reason; sync reports each unknown label of the review DB with a count and an example.

Both the trust context (:mod:`graph_trust.access.trust_context`) and sync's report read this module, so they
agree on what a label means.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from graph_trust.config import DEFAULT_LEVELS


def normalize_label(value: Any) -> str | None:
    """A label as compared: stripped and lower-cased; None for a non-string or blank value."""
    if not isinstance(value, str) or not value.strip():
        return None
    return value.strip().lower()


@dataclass(frozen=True, slots=True)
class SensitivityScale:
    """Ordered levels (lowest first) and custom labels, each naming a level."""

    levels: tuple[str, ...] = DEFAULT_LEVELS
    labels: tuple[tuple[str, str], ...] = ()  # (label, level) pairs, sorted
    _index: dict[str, int] = field(default_factory=dict, compare=False, repr=False, hash=False)

    def __post_init__(self) -> None:
        levels = tuple(normalize_label(x) or "" for x in self.levels)
        if not levels or "" in levels or len(set(levels)) != len(levels):
            raise ValueError("levels must be distinct, non-blank names")
        index = {name: i for i, name in enumerate(levels)}
        pairs = []
        for label, level in self.labels:
            key, target = normalize_label(label), normalize_label(level)
            if key is None or target not in index:
                raise ValueError(f"label {label!r} must name one of the levels ({', '.join(levels)}), got {level!r}")
            if key in index and index[key] != index[target]:
                raise ValueError(f"label {label!r} is a level itself and cannot mean {level!r}")
            pairs.append((key, target))
            index[key] = index[target]
        object.__setattr__(self, "levels", levels)
        object.__setattr__(self, "labels", tuple(sorted(set(pairs))))
        object.__setattr__(self, "_index", index)

    @classmethod
    def of(cls, levels: Iterable[str], labels: Mapping[str, str] | None = None) -> SensitivityScale:
        """The scale of ``access.levels`` and ``access.labels``."""
        return cls(tuple(levels), tuple((labels or {}).items()))

    def level(self, value: Any) -> int:
        """0 for the lowest level up, -1 for an unknown value (None and blanks included)."""
        key = normalize_label(value)
        return -1 if key is None else self._index.get(key, -1)

    def level_name(self, value: Any) -> str | None:
        """The level a level or label means (``internal`` -> ``low``), None when unknown."""
        i = self.level(value)
        return None if i < 0 else self.levels[i]

    def known(self, value: Any) -> bool:
        return self.level(value) >= 0

    def describe(self) -> str:
        """``public < low < ... (internal = low)``: for errors and the MCP server's start-up line."""
        text = " < ".join(self.levels)
        if self.labels:
            text += " (" + ", ".join(f"{k} = {v}" for k, v in self.labels) + ")"
        return text


DEFAULT_SCALE = SensitivityScale()

# An edge whose review rows name different scopes carries them all, sorted, joined by this: only a
# caller cleared for every one of them sees it (sync writes it; see graph_trust.sync.labels).
SCOPE_JOIN = " & "


def scope_parts(scope: str | None) -> list[str | None]:
    """The scopes a record's effective scope names (one, or several joined by :data:`SCOPE_JOIN`)."""
    return scope.split(SCOPE_JOIN) if isinstance(scope, str) and scope else [scope]


def scale_of(settings: Any) -> SensitivityScale:
    """The scale of a :class:`~graph_trust.config.Settings` (its ``access`` section)."""
    access = settings.access
    return SensitivityScale.of(access.levels, access.labels)


def unknown_labels(counts: Iterable[tuple[Any, int, str]], scale: SensitivityScale) -> list[dict[str, Any]]:
    """``[{label, count, example}]`` of the unknown labels among ``(label, count, example id)``
    rows (labels compared normalized, counts summed, the smallest example kept), most frequent first."""
    out: dict[str, dict[str, Any]] = {}
    for label, count, example in counts:
        key = normalize_label(label)
        if key is None or scale.known(key):
            continue
        e = out.setdefault(key, {"label": key, "count": 0, "example": example})
        e["count"] += int(count)
        e["example"] = min(e["example"], example)
    return sorted(out.values(), key=lambda e: (-e["count"], e["label"]))


__all__ = ["DEFAULT_LEVELS", "DEFAULT_SCALE", "SCOPE_JOIN", "SensitivityScale", "normalize_label", "scale_of", "scope_parts",
           "unknown_labels"]
