"""PII redaction by pattern: SSN, 16-digit card numbers, email, and configured patterns.

Patterns run to a fixed point (a replacement can join text into a new match); text that
still matches after :data:`MAX_PASSES` passes is replaced whole. The original text is never
kept: callers get the redacted text and a flag.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from graph_trust.config import PolicySettings

DEFAULT_PATTERNS: dict[str, str] = {
    "ssn": r"\b\d{3}-\d{2}-\d{4}\b",
    "card": r"\b(?:\d{4}[ -]?){3}\d{4}\b",  # 16 digits, plain or in fours with spaces or dashes
    "email": r"\b(?i:[A-Z0-9._%+-]+@[A-Z0-9.-]+\.[A-Z]{2,})\b",
}
# The defaults run as two regexes, each only on text that has what it needs: a digit (SSN and
# card, as one alternation) or an "@" (email).
_NUMBERS = re.compile(f"(?:{DEFAULT_PATTERNS['ssn']})|(?:{DEFAULT_PATTERNS['card']})")
_EMAIL = re.compile(DEFAULT_PATTERNS["email"])
_DIGIT = re.compile(r"\d")
MAX_PASSES = 8


class Redactor:
    """Applies the default patterns plus ``custom`` ones (already validated by config)."""

    def __init__(self, custom: Sequence[str] = (), replacement: str = "[REDACTED]", enabled: bool = True):
        self.enabled = enabled
        self.replacement = replacement
        self._template = replacement.replace("\\", "\\\\")  # literal, not a group reference
        self.patterns = [re.compile(p) for p in (*DEFAULT_PATTERNS.values(), *custom)] if enabled else []
        self._custom = [re.compile(p) for p in custom] if enabled else []

    @classmethod
    def from_settings(cls, policy: PolicySettings) -> Redactor:
        return cls(policy.redaction_patterns, policy.redaction_replacement, policy.enable_redaction)

    def matches(self, text: str) -> bool:
        """Whether any enabled pattern matches somewhere in ``text``."""
        return any(p.search(text) for p in self.patterns)

    def _active(self, text: str) -> list[re.Pattern[str]]:
        """The regexes that can match ``text`` at all (cheap checks before they run)."""
        active = [_NUMBERS] if _DIGIT.search(text) else []
        if "@" in text:
            active.append(_EMAIL)
        return active + self._custom if self._custom else active

    def __call__(self, text: str) -> tuple[str, bool]:
        """(redacted text, whether anything was replaced)."""
        if not self.patterns:
            return text, False
        out = text
        for _ in range(MAX_PASSES):
            changed = False
            for p in self._active(out):
                new = p.sub(self._template, out)
                if new != out:
                    out, changed = new, True
            if not changed:
                return out, out != text
        return self.replacement, True


def check_replacement(replacement: str, custom: Sequence[str]) -> str | None:
    """Why ``replacement`` cannot be used (a pattern matches it), or None."""
    for name, pattern in [*DEFAULT_PATTERNS.items(), *((f"redaction_patterns[{i}]", p) for i, p in enumerate(custom))]:
        if re.search(pattern, replacement):
            return f"{name} ({pattern!r}) matches redaction_replacement {replacement!r}: redaction would never finish"
    return None
