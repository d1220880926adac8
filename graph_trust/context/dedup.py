"""Duplicate removal by normalized hash: one memory per distinct text, the most trusted kept."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

_SPACE = re.compile(r"\s+")
_BOUNDARY = re.compile(r"^\W+|\W+$")  # Unicode-aware: letters of every script are word characters


def normalize(text: str) -> str:
    """Lowercase, NFKC, whitespace collapsed, punctuation at both ends stripped."""
    t = unicodedata.normalize("NFKC", text.lower()).lower()
    return _BOUNDARY.sub("", _SPACE.sub(" ", t).strip())


def normalized_hash(text: str) -> str:
    """First 16 hex characters of the SHA-256 of :func:`normalize` (the reference's key)."""
    return hashlib.sha256(normalize(text).encode("utf-8")).hexdigest()[:16]


def dedup(items: Sequence[T], text: Callable[[T], str]) -> tuple[list[T], int]:
    """Keep the first item of each normalized hash; pass ``items`` best first (e.g. most
    trusted) so the best of each duplicate set is the one kept. Returns (kept, removed)."""
    seen: set[str] = set()
    kept: list[T] = []
    for it in items:
        h = normalized_hash(text(it))
        if h not in seen:
            seen.add(h)
            kept.append(it)
    return kept, len(items) - len(kept)
