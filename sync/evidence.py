"""Parse ``evidence_refs_json``: element 0's ``evidence_id`` is the RELATES_TO edge uuid.

:func:`edge_uuid_of` returns ``(uuid, None)`` or ``(None, reason)``; the reason is what the
quarantine table and the sync report show.
"""

from __future__ import annotations

import json
from typing import Any

ASCII_SPACE = " \t\n\r\x0b\x0c"  # what "empty" ignores (statements.sql's part_fast_path applies the same rule)


def edge_uuid_of(text: Any) -> tuple[str | None, str | None]:
    """``(edge uuid, None)`` or ``(None, quarantine reason)`` for one candidate's evidence JSON."""
    if text is None:
        return None, "evidence_refs_json is missing (NULL)"
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            return None, "evidence_refs_json is not UTF-8 text"
    if not isinstance(text, str):
        return None, f"evidence_refs_json is not text (got {type(text).__name__})"
    try:
        refs = json.loads(text)
    except ValueError as exc:
        return None, f"evidence_refs_json is malformed JSON ({exc.msg} at char {exc.pos})"
    if not isinstance(refs, list):
        return None, f"evidence_refs_json is not a JSON list (got {type(refs).__name__})"
    if not refs:
        return None, "evidence_refs_json is an empty list"
    first = refs[0]
    if not isinstance(first, dict):
        return None, "evidence_refs_json[0] is not an object"
    if "evidence_id" not in first:
        return None, "evidence_refs_json[0] has no evidence_id"
    value = first["evidence_id"]
    if not isinstance(value, str):
        return None, f"evidence_refs_json[0].evidence_id is not a string (got {type(value).__name__})"
    if not value.strip(ASCII_SPACE):
        return None, "evidence_refs_json[0].evidence_id is empty"
    return value, None
