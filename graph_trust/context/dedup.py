"""Duplicate removal by normalized hash: one memory per distinct text, the most trusted kept."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def _is_word(ch: str) -> bool:
    """Python's Unicode ``\\w``: letters and digits of every script, and the underscore."""
    return ch.isalnum() or ch == "_"


def normalize(text: str) -> str:
    """Lowercase, NFKC, whitespace collapsed, non-word characters at both ends stripped."""
    t = " ".join(unicodedata.normalize("NFKC", text.lower()).lower().split())
    i, j = 0, len(t)
    while i < j and not _is_word(t[i]):
        i += 1
    while j > i and not _is_word(t[j - 1]):
        j -= 1
    return t[i:j]


def normalized_hash(text: str) -> str:
    """First 16 hex characters of the SHA-256 of :func:`normalize`."""
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
