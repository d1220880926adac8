"""Rewrite a candidate's evidence JSON to name its new edge, touching nothing else."""

from __future__ import annotations

import json
import re

_SPACED_COLON = re.compile(r'"\s*:\s')
_SPACED_COMMA = re.compile(r',\s')


def relinked_evidence_json(text: str, new_id: str) -> str:
    """``text`` with element 0's ``evidence_id`` set to ``new_id`` and the old id appended to
    element 0's ``previous_evidence_ids``. Everything outside element 0 is kept byte for byte;
    element 0 keeps its key order and separator style.

    >>> relinked_evidence_json('[{"evidence_id": "old", "k": 1}, {"x": 2}]', "new")
    '[{"evidence_id": "new", "k": 1, "previous_evidence_ids": ["old"]}, {"x": 2}]'
    """
    dec = json.JSONDecoder()
    start = len(text) - len(text.lstrip())
    if not text[start:].startswith("["):
        raise ValueError("evidence_refs_json is not a JSON list")
    i = start + 1
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    elem, end = dec.raw_decode(text, i)
    if not isinstance(elem, dict) or not isinstance(elem.get("evidence_id"), str):
        raise ValueError("evidence_refs_json[0] has no string evidence_id")
    old = elem["evidence_id"]
    prev = elem.get("previous_evidence_ids")
    prev = list(prev) if isinstance(prev, list) else ([] if prev is None else [prev])
    if old != new_id and old not in prev:
        prev.append(old)
    new_elem = dict(elem)
    new_elem["evidence_id"] = new_id
    new_elem["previous_evidence_ids"] = prev
    original = text[i:end]
    seps = (", " if _SPACED_COMMA.search(original) else ",", ": " if _SPACED_COLON.search(original) else ":")
    ascii_only = all(ord(c) < 128 for c in original)
    return text[:i] + json.dumps(new_elem, separators=seps, ensure_ascii=ascii_only) + text[end:]
