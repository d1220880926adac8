"""Memory records: one flat, typed view of a Graphiti search hit for the ranking stages.

:func:`records_from_results` turns the ``EntityEdge`` / ``EntityNode`` items of a search
result (plus the per-item :class:`~graph_trust.search.ranking.Explanation`) into
:class:`MemoryRecord` objects. Properties graph-trust owns come back from Graphiti in
``.attributes``: ``trust_score``, ``memory_type``, ``sensitivity``, ``scope``, ``salience``,
``success_count``, ``failure_count``, ``reinforced_at`` (and optionally ``subject``,
``predicate``, ``object``). ``trust_score`` comes from the explanation when there is one,
else it is sanitized like the search stage does; other numbers outside their range are ignored.

Memory type (first rule that applies):

1. the ``memory_type`` property, lower-cased (sync writes it from the review DB); a value
   outside the built-in table is kept as is and ranks with its ``type_boosts`` entry, or the
   ``unknown`` boost;
2. for edges, phrases in the edge name or fact (whole words, case-insensitive) that *address*
   someone or *state an aim*, not words that merely occur in facts: a fact starting with
   ``always``, ``never``, ``do not``, ``don't``, ``please``, or saying ``you must``, ``you
   should``, ``agents must``, ``agents should`` -> ``instruction`` (``the disk must be
   encrypted`` is a fact); ``our goal``, ``the goal is``, ``goals are``, ``plans to``, ``aims
   to``, ``intends to``, ``wants to``, ``objective is`` (not a recovery point / recovery time /
   service level objective, which are facts) -> ``goal``; ``prefers``, ``prefer``,
   ``preference``, ``likes``, ``dislikes``, ``favorite`` -> ``preference``; otherwise ``fact``
   (a Graphiti edge *is* an extracted fact); then the edge name (a predicate such as
   ``HAS_GOAL``, ``PREFERS`` or ``RULE`` names its type);
3. nodes without the property are ``observation`` (an entity summary aggregates observations).

Subject / predicate / object (for competing facts): the ``subject``/``predicate``/``object``
properties when present, else the edge's source node uuid, edge name and target node uuid.
Nodes have none.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from graph_trust.errors import InputError
from graph_trust.graph.temporal import as_datetime
from graph_trust.search.fusion import sanitize_trust
from graph_trust.search.ranking import Explanation

MemoryKind = Literal["edge", "node"]

MEMORY_TYPES: tuple[str, ...] = ("instruction", "system", "fact", "goal", "preference", "observation")

# Properties read into typed fields; everything else stays in ``attributes``.
OWNED_PROPERTIES = frozenset(
    {
        "trust_score",
        "memory_type",
        "sensitivity",
        "scope",
        "salience",
        "success_count",
        "failure_count",
        "reinforced_at",
        "subject",
        "predicate",
        "object",
    }
)

_NOT_AN_AIM = r"(?<!point\s)(?<!time\s)(?<!level\s)"  # recovery point / recovery time / service level objective
# someone's goal stated: "the user's goal is", "our long-term goals are", "Alice's main goal: ...",
# "the goal of the project is" (a possessive or article, up to two qualifiers, then is/are/was/:)
_SOMEONES_GOAL = (r"\b(?:our|my|their|his|her|its|your|the|a|one|[\w-]+(?:'s|’s|s'|s’))\s+(?:[\w-]+\s+){0,2}?"
                  r"goals?(?:\s+(?:of|for)\s+[\w\s'’-]{1,40}?)?\s*(?:is|are|was|were|remains?|:\s*)")
_TYPE_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(r"(?:" + "|".join(words) + r")\b", re.IGNORECASE))
    for kind, words in (
        ("instruction", (r"^\W*(?:always|never|do\s+not|don't|please)", r"\b(?:you|agents?|assistants?)\s+(?:must|should)")),
        ("goal", (_SOMEONES_GOAL, r"\bgoals\s+are",
                  r"\b(?:plans|aims|intends|wants)\s+to", r"\b" + _NOT_AN_AIM + r"objectives?\s+(?:is|are)")),
        ("preference", (r"\bprefers?", r"\bpreferences?", r"\blikes", r"\bdislikes", r"\bfavou?rites?")),
    )
)

_NAME_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(r"\b(?:" + "|".join(words) + r")\b", re.IGNORECASE))
    for kind, words in (
        ("instruction", (r"instructions?", r"rules?", r"must", r"should")),
        ("goal", (r"goals?", r"objectives?", r"aims?", r"plans\s+to")),
        ("preference", (r"prefers?", r"preferences?", r"likes", r"dislikes", r"favou?rites?")),
    )
)

@dataclass(frozen=True, slots=True)
class MemoryRecord:
    """One search hit, flattened. ``text`` is the edge fact or the node name."""

    uuid: str
    kind: MemoryKind
    text: str
    name: str = ""
    summary: str = ""
    group_id: str | None = None
    scope: str | None = None  # the ``scope`` property; access falls back to group_id
    memory_type: str = "fact"
    sensitivity: str | None = None  # lower-cased property value, None when absent
    trust_score: float | None = None  # sanitized to [0, 1]; None when absent or invalid
    relevance_raw: float | None = None  # fused (RRF) score; None without an explanation
    valid_at: datetime | None = None
    created_at: datetime | None = None
    reinforced_at: datetime | None = None
    salience: float | None = None
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    success_count: int | None = None
    failure_count: int | None = None
    attributes: Mapping[str, Any] = field(default_factory=dict)
    explanation: Explanation | None = None
    redacted: bool = False

    @property
    def effective_scope(self) -> str | None:
        """The record's scope for access checks: ``scope`` property, else its group."""
        return self.scope if self.scope else self.group_id


def known_memory_types(settings: Any) -> tuple[str, ...]:
    """The memory types the configuration knows: the built-in ones, then the custom types
    ``context.layer_order``, ``composite.type_boosts`` or ``composite.half_life_hours_by_type``
    name (a graph's own types, such as a review DB's ``semantic``, become known by naming them
    there)."""
    named = [*settings.context.layer_order, *settings.composite.type_boosts,
             *settings.composite.half_life_hours_by_type]
    extra = (t.strip().lower() for t in named if t.strip().lower() not in ("", "unknown"))
    return tuple(dict.fromkeys([*MEMORY_TYPES, *extra]))


def check_memory_types(types: Sequence[str] | None, settings: Any) -> set[str] | None:
    """The requested memory types (lower-cased), or an InputError naming the first unknown one
    and listing the known ones; None when none were requested."""
    if not types:
        return None
    known = known_memory_types(settings)
    wanted = {t.strip().lower() for t in types}
    unknown = sorted(wanted - set(known))
    if unknown:
        raise InputError(f"memory type {unknown[0]!r} is not known (known: {', '.join(known)}; a custom type is "
                         "known once context.layer_order or composite.type_boosts names it)")
    return wanted


def record_of(item: Any) -> MemoryRecord:
    """The :class:`MemoryRecord` of ``item``: itself, or its ``.record`` (a ranked wrapper)."""
    return item.record if hasattr(item, "record") else item


def infer_memory_type(kind: MemoryKind, name: str, text: str, declared: Any = None) -> str:
    """The record's memory type by the rules in the module docstring."""
    if isinstance(declared, str) and declared.strip():
        return declared.strip().lower()
    if kind == "node":
        return "observation"
    for kind_name, pattern in _TYPE_RULES:
        if pattern.search(text):
            return kind_name
    words = name.replace("_", " ")  # a predicate such as HAS_GOAL or PREFERS names its type
    for kind_name, pattern in _NAME_RULES:
        if pattern.search(words):
            return kind_name
    return "fact"


def unit_float(value: Any) -> float | None:
    """A finite number in [0, 1], else None (strings, NaN, out of range, booleans)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    v = float(value)
    return v if math.isfinite(v) and 0.0 <= v <= 1.0 else None


def _trust(value: Any, uuid: str) -> float | None:
    """Sanitized like the search stage (:func:`graph_trust.search.fusion.sanitize_trust`)."""
    t = float(sanitize_trust([value], [uuid])[0])
    return None if math.isnan(t) else t


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value) or value < 0:
        return None
    return int(value)


def _text_or_none(value: Any) -> str | None:
    if value is None:
        return None
    s = str(value).strip()
    return s or None


def record_from_item(item: Any, explanation: Explanation | None = None) -> MemoryRecord:
    """One :class:`MemoryRecord` from a Graphiti ``EntityEdge`` or ``EntityNode``."""
    attrs: Mapping[str, Any] = getattr(item, "attributes", None) or {}
    is_edge = hasattr(item, "fact")
    kind: MemoryKind = "edge" if is_edge else "node"
    name = str(getattr(item, "name", "") or "")
    text = str(item.fact if is_edge else name)
    summary = "" if is_edge else str(getattr(item, "summary", "") or "")
    if explanation is not None:
        trust = explanation.trust_score
        relevance: float | None = float(explanation.fused)
    else:
        trust = _trust(attrs.get("trust_score"), str(item.uuid))
        relevance = None
    sensitivity = _text_or_none(attrs.get("sensitivity"))
    return MemoryRecord(
        uuid=str(item.uuid),
        kind=kind,
        text=text,
        name=name,
        summary=summary,
        group_id=getattr(item, "group_id", None),
        scope=_text_or_none(attrs.get("scope")),
        memory_type=infer_memory_type(kind, name, text, attrs.get("memory_type")),
        sensitivity=sensitivity.lower() if sensitivity else None,
        trust_score=trust,
        relevance_raw=relevance,
        valid_at=as_datetime(getattr(item, "valid_at", None)),
        created_at=as_datetime(getattr(item, "created_at", None)),
        reinforced_at=as_datetime(attrs.get("reinforced_at")),
        salience=unit_float(attrs.get("salience")),
        subject=_text_or_none(attrs.get("subject")) or (str(item.source_node_uuid) if is_edge else None),
        predicate=_text_or_none(attrs.get("predicate")) or (name or None if is_edge else None),
        object=_text_or_none(attrs.get("object")) or (str(item.target_node_uuid) if is_edge else None),
        success_count=_count(attrs.get("success_count")),
        failure_count=_count(attrs.get("failure_count")),
        attributes={k: v for k, v in attrs.items() if k not in OWNED_PROPERTIES},
        explanation=explanation,
    )


def records_from_results(
    results: Any,
    explanations: Sequence[Explanation] | None = None,
    *,
    node_explanations: Sequence[Explanation] | None = None,
) -> list[MemoryRecord]:
    """Records for a search result: its edges, then its nodes, in result order.

    ``results`` is a Graphiti ``SearchResults`` (a ``TrustSearchResults`` carries its own
    ``edge_explanations`` / ``node_explanations``, used when none are passed) or a plain
    sequence of edges/nodes, with ``explanations`` aligned to it.
    """
    if hasattr(results, "edges"):
        edges = list(results.edges)
        nodes = list(getattr(results, "nodes", []))
        edge_expl = explanations if explanations is not None else getattr(results, "edge_explanations", None)
        node_expl = (
            node_explanations if node_explanations is not None else getattr(results, "node_explanations", None)
        )
        return _pair(edges, edge_expl) + _pair(nodes, node_expl)
    return _pair(list(results), explanations)


def _pair(items: list[Any], explanations: Sequence[Explanation] | None) -> list[MemoryRecord]:
    if not explanations:
        return [record_from_item(it) for it in items]
    if len(explanations) != len(items):
        raise InputError(f"{len(explanations)} explanations for {len(items)} results: they must align")
    by_uuid = all(e.uuid == str(it.uuid) for e, it in zip(explanations, items, strict=True))
    if not by_uuid:
        raise InputError("explanations are not aligned with results (uuids differ)")
    return [record_from_item(it, e) for it, e in zip(items, explanations, strict=True)]
