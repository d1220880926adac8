"""The topic guard: trust lifts only facts about what the query names.

A query that names an identifier (a token with a digit: ``INC-3090``, ``10.0.0.5``, ``v2``) asks
about that thing. A verified fact about ``INC-3055`` is still about another incident: review
says it is true, not that it answers. So when some candidate states every identifier the query
names, a candidate that lacks one gets no trust boost and no relation bonus; relevance alone
places it. Without such a candidate (a paraphrase, an identifier no fact spells out) nothing is
withheld. Matching is case-insensitive on whole tokens (``INC-3090`` does not match
``INC-30901`` or ``XINC-3090``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# a token: word characters joined by . - / : (so 10.0.0.5, INC-3090 and api/v2 are one token)
_TOKEN = re.compile(r"[^\W_](?:[\w./:-]*[^\W_])?")
_DIGIT = re.compile(r"\d")


def identifiers(query: str) -> list[str]:
    """The query's identifiers, lower-cased, in order, without repeats: its tokens with a digit."""
    return list(dict.fromkeys(tok.lower() for tok in _TOKEN.findall(query) if _DIGIT.search(tok)))


def _pattern(ident: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w./:-])" + re.escape(ident) + r"(?![\w/-]|[.-]\w)", re.IGNORECASE)


def missing_identifiers(query: str, texts: Sequence[str]) -> list[str | None] | None:
    """Per text, the first of the query's identifiers it lacks (None: it states them all), or
    None when the guard does not apply: the query names no identifier, or no text states them
    all."""
    idents = identifiers(query)
    if not idents:
        return None
    patterns = [(i, _pattern(i)) for i in idents]
    missing = [next((i for i, p in patterns if not p.search(t or "")), None) for t in texts]
    return missing if any(m is None for m in missing) else None


__all__ = ["identifiers", "missing_identifiers"]
