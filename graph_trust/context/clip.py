"""Clipping a memory to its first N sentences.

Sentences come from ``sentencex`` (Wikimedia's rule-based segmenter, ~300 languages, no model
downloads): abbreviations ("e.g."), versions ("v2.1", "1.2.3"), decimals, IP addresses and
scripts with their own full stops ("。", "।") do not end a sentence. ASCII text with fewer
than N characters that could end a sentence (``.!?;:`` or a line break) before its end is
returned as is without splitting; other text is always split.
"""

from __future__ import annotations

from functools import lru_cache

ELLIPSIS = "\u2026"  # one character: cheap in every token count

# In ASCII text, every sentence boundary a segmenter may choose follows one of these.
_POSSIBLE_END = ".!?;:\n"


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
    if text.isascii():
        body = text.rstrip(_POSSIBLE_END + " \t\"')")
        if sum(body.count(ch) for ch in _POSSIBLE_END) < max_sentences:
            return text, False
    parts = sentences(text, language)
    if len(parts) <= max_sentences:
        return text, False
    return "".join(parts[:max_sentences]).rstrip() + " " + ELLIPSIS, True
