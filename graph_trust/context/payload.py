"""The policy's output: memories with provenance, metadata, and the system-prompt block."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

# Section headings of the prompt block, in this order; other types follow alphabetically.
TYPE_HEADINGS: dict[str, str] = {
    "instruction": "Instructions",
    "system": "System Notes",
    "fact": "Known Facts",
    "goal": "Goals",
    "preference": "Preferences",
    "observation": "Observations",
    "message": "Previous Messages",
    "summary": "Conversation Summaries",
}
TITLE = "## Relevant Context from Memory"


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a memory came from. ``original_length`` counts characters before clipping."""

    group: str | None
    search_type: str
    original_length: int
    was_redacted: bool
    episodes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Memory:
    """One memory as the agent sees it: clipped, deduplicated, redacted."""

    id: str
    content: str
    score: float  # in [0, 1]; see graph_trust.context.service for its definition
    timestamp: str | None  # ISO 8601
    group: str | None
    type: str
    tokens: int
    provenance: Provenance
    trust_score: float | None = None
    review_status: str | None = None
    role: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["provenance"]["episodes"] = list(self.provenance.episodes)
        return d


@dataclass(slots=True)
class Metadata:
    """How the memories were chosen, and the request's metrics."""

    query_time_ms: float = 0.0
    total_results: int = 0  # candidates from search, before any filter
    included_results: int = 0
    total_tokens: int = 0
    applied_filters: list[str] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)
    denied: int = 0  # removed by access control before the policy
    unknown_label: int = 0  # of those, withheld for a sensitivity label access.levels / access.labels lack
    search_depth: int = 0  # candidates the last search round asked for (the window widens past denied facts)
    below_min_score: int = 0
    duplicates_removed: int = 0
    dedup_ratio: float = 0.0  # duplicates removed / memories that reached dedup
    truncated: bool = False  # the last memory was cut to fit the budget
    cache_hit: bool = False
    cache_hit_rate: float = 0.0  # this process's cache, since start
    fallback: str | None = None  # skip | empty | cache when an error policy applied
    error_code: str | None = None  # GRAPH_UNAVAILABLE, GROUP_NOT_FOUND, RATE_LIMITED
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class Payload:
    """``memories`` and ``metadata``, ready for a prompt (:meth:`format_for_system_prompt`)."""

    memories: list[Memory]
    metadata: Metadata

    def to_dict(self) -> dict[str, Any]:
        return {"memories": [m.to_dict() for m in self.memories], "metadata": self.metadata.to_dict()}

    def format_for_system_prompt(self, type_order: Sequence[str] | None = None) -> str:
        """The prompt block (see :func:`format_for_system_prompt`)."""
        return format_for_system_prompt(self, type_order)


def _line(m: Memory) -> str:
    if m.role or m.type == "message":
        return f"[{m.timestamp or 'unknown time'}] {m.role or 'user'}: {m.content}"
    if m.type == "summary":
        return f"- {m.content}"
    # a fact no review decided on says so: its score is not a reviewed confidence
    return f"- {m.content} (confidence: {m.score:.2f}{'' if m.trust_score is not None else ', unreviewed'})"


def format_for_system_prompt(payload: Payload, type_order: Sequence[str] | None = None) -> str:
    """Memories grouped by type under ``###`` headings (``type_order`` first, then the
    built-in order, then the rest alphabetically), each as ``- content (confidence: 0.87)``
    (``(confidence: 0.41, unreviewed)`` for a fact without a ``trust_score``; messages as
    ``[time] role: content``), ending with the retrieval summary line.
    Empty string when there are no memories."""
    if not payload.memories:
        return ""
    order = list(dict.fromkeys([*(type_order or ()), *TYPE_HEADINGS]))
    present = {m.type for m in payload.memories}
    types = [t for t in order if t in present] + sorted(present - set(order))
    sections = [TITLE, ""]
    for t in types:
        sections.append(f"### {TYPE_HEADINGS.get(t, t.replace('_', ' ').title())}")
        sections.extend(_line(m) for m in payload.memories if m.type == t)
        sections.append("")
    md = payload.metadata
    sections.append(f"_Retrieved {md.included_results} memories in {md.query_time_ms:.0f}ms_\n")
    return "\n".join(sections)
