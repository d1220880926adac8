"""Clipping a memory to its first N sentences.

Sentences come from ``sentencex`` (Wikimedia's rule-based segmenter, ~300 languages, no model
downloads): abbreviations ("e.g."), versions ("v2.1", "1.2.3"), decimals, IP addresses and
scripts with their own full stops ("。", "।") do not end a sentence. Splitting is skipped when
the text cannot hold more than N sentences (fewer than N possible boundaries).
"""

from __future__ import annotations

import re
from functools import lru_cache

ELLIPSIS = "\u2026"  # one character: cheap in every token count

# Every sentence boundary a segmenter may choose is one of these (or a line break).
_POSSIBLE_END = re.compile(r"[.!?;:\n\u0964\u0965\u3002\uff01\uff1f\uff0e\u061f\u06d4\u2026]")


@lru_cache(maxsize=4096)
def sentences(text: str, language: str = "en") -> tuple[str, ...]:
    """The sentences of ``text``, each with the whitespace that follows it (they join back
    into ``text``); all-blank pieces are dropped."""
    from sentencex import segment

    return tuple(s for s in segment(language, text) if s.strip())


def clip(text: str, max_sentences: int, language: str = "en") -> tuple[str, bool]:
    """(the first ``max_sentences`` sentences, whether anything was cut); a cut ends in
    :data:`ELLIPSIS`."""
    text = text.strip()
    if len(_POSSIBLE_END.findall(text.rstrip(".!?;:\u3002\uff01\uff1f\u2026 \n"))) < max_sentences:
        return text, False
    parts = sentences(text, language)
    if len(parts) <= max_sentences:
        return text, False
    return "".join(parts[:max_sentences]).rstrip() + " " + ELLIPSIS, True
