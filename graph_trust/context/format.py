"""Output for an agent's context: the ``## Trusted Memory Context`` block and a JSON form.

Text, one line per kept record in layer order::

    ## Trusted Memory Context
    - [instruction|trust:90%] Always respond in English
    - [fact|trust:85%] Backup runs at 2am (competing facts: confidence 33%, needs more evidence)
      - alternative [fact|trust:60%] Backup runs at 3am
    - [fact|trust:100%] billing-db runs on db-02 (competing facts: chosen by review)
      - alternative [fact|trust:25%] billing-db runs on db-07
    - [fact|unreviewed] The billing team owns billing-db
    - [fact|trust:70%|sensitivity:high] [redacted]

``trust`` is the fact's ``trust_score`` (what review decided) or an applied override;
``unreviewed`` when the fact has no ``trust_score``, so the composite's default trust for
unreviewed facts is never shown as if review had set it. Text is collapsed to one line so
stored facts cannot inject headings or lines into the block.

JSON (:func:`record_payload`): every dimension per record (trust, recency, relevance,
type_boost, composite score, the fusion explanation, salience, sensitivity, scope, ...).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from graph_trust.access.layers import salience_of
from graph_trust.access.selector import Selection
from graph_trust.search.records import record_of

TITLE = "## Trusted Memory Context"
EMPTY_LINE = "- (no trusted memories matched)"
REDACTED_TEXT = "[redacted]"
UNREVIEWED = "unreviewed"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _trust(item: Any) -> float | None:
    trust = getattr(item, "trust", None)
    return record_of(item).trust_score if trust is None else trust


def _tag(item: Any) -> str:
    rec = record_of(item)
    trust = _trust(item)
    reviewed = rec.trust_score is not None or getattr(item, "trust_source", None) == "override"
    parts = [rec.memory_type, f"trust:{round(trust * 100)}%" if trust is not None and reviewed else UNREVIEWED]
    if rec.redacted:
        parts.append(f"sensitivity:{rec.sensitivity or 'default'}")
    return "[" + "|".join(parts) + "]"


def _text(item: Any) -> str:
    rec = record_of(item)
    if rec.redacted:
        return REDACTED_TEXT
    if rec.kind == "node" and rec.summary:
        return _one_line(f"{rec.text}: {rec.summary}")
    return _one_line(rec.text)


def _by_best(selections: Iterable[Selection[Any]]) -> dict[str, Selection[Any]]:
    return {record_of(s.best).uuid: s for s in selections}


def format_context(items: Sequence[Any], selections: Iterable[Selection[Any]] = (), *, title: str = TITLE) -> str:
    """The text block. ``items`` are ranked or plain records, already in output order."""
    competing = _by_best(selections)
    lines = [title]
    for it in items:
        line = f"- {_tag(it)} {_text(it)}"
        sel = competing.get(record_of(it).uuid)
        if sel is not None:
            note = ("competing facts: chosen by review" if sel.decided_by == "review"
                    else f"competing facts: confidence {round(sel.confidence * 100)}%")
            if sel.needs_more:
                note += ", needs more evidence"
            lines.append(f"{line} ({note})")
            lines.extend(f"  - alternative {_tag(a)} {_text(a)}" for a in sel.alternatives)
        else:
            lines.append(line)
    if len(lines) == 1:
        lines.append(EMPTY_LINE)
    return "\n".join(lines)


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def record_payload(item: Any, *, layer: str | None = None, selection: Selection[Any] | None = None) -> dict[str, Any]:
    """Every dimension of one item as JSON-ready values."""
    rec = record_of(item)
    expl = rec.explanation
    out: dict[str, Any] = {
        "uuid": rec.uuid,
        "kind": rec.kind,
        "memory_type": rec.memory_type,
        "layer": layer,
        "text": rec.text,
        "name": rec.name,
        "summary": rec.summary,
        "group_id": rec.group_id,
        "scope": rec.effective_scope,
        "sensitivity": rec.sensitivity,
        "redacted": rec.redacted,
        "trust_score": rec.trust_score,
        "trust": _trust(item),
        "trust_source": getattr(item, "trust_source", None),
        "recency": getattr(item, "recency", None),
        "relevance": getattr(item, "relevance", None),
        "type_boost": getattr(item, "type_boost", None),
        "composite": getattr(item, "score", None),
        "composite_moved_by": getattr(item, "moved_by", None),
        "composite_before_move": getattr(item, "score_before_move", None),
        "salience": salience_of(item),
        "fusion": None
        if expl is None or rec.redacted  # a redacted fact's per-method ranks would tell what its text matches
        else {
            "bm25_rank": expl.bm25_rank,
            "cosine_rank": expl.cosine_rank,
            "fused": expl.fused,
            "boost": expl.boost,
            "relation_bonus": expl.relation_bonus,
            "final": expl.final,
            "rank": expl.rank,
            "rank_without_boost": expl.rank_without_boost,
            "negative": expl.negative,
            "moved_by": expl.moved_by,
            "score_before_move": expl.score_before_move,
            "missing_identifier": expl.missing_identifier,
        },
        "valid_at": _iso(rec.valid_at),
        "created_at": _iso(rec.created_at),
        "reinforced_at": _iso(rec.reinforced_at),
        "subject": rec.subject,
        "predicate": rec.predicate,
        "object": rec.object,
        "success_count": rec.success_count,
        "failure_count": rec.failure_count,
        "attributes": dict(rec.attributes),
        "competing": None,
    }
    if selection is not None:
        out["competing"] = {
            "confidence": selection.confidence,
            "needs_more": selection.needs_more,
            "decided_by": selection.decided_by,
            "score": selection.scores.get(rec.uuid),
            "signals": selection.signals.get(rec.uuid),
            "alternatives": [
                {
                    **record_payload(a),
                    "selection_score": selection.scores.get(record_of(a).uuid),
                    "signals": selection.signals.get(record_of(a).uuid),
                }
                for a in selection.alternatives
            ],
        }
    return out


def records_payload(
    items: Sequence[Any],
    selections: Iterable[Selection[Any]] = (),
    layer_of: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """:func:`record_payload` for each item, with its layer and competing-fact selection."""
    competing = _by_best(selections)
    layer_of = layer_of or {}
    return [
        record_payload(it, layer=layer_of.get(record_of(it).uuid), selection=competing.get(record_of(it).uuid))
        for it in items
    ]
