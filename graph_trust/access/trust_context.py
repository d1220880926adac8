"""Trust context: who may see which records, graduated by sensitivity (shown, redacted, withheld).

Sensitivity levels come from the configured scale (:mod:`graph_trust.access.sensitivity`:
``access.levels``, default ``public < low < medium < high < hyper``, and ``access.labels``, custom
labels mapped onto a level), read from the ``sensitivity`` property case-insensitively. A record
without one takes ``context.default_sensitivity``; a value the scale does not know is denied,
and counted apart (``unknown_label``) so it is never silent. A record's scope is its ``scope``
property, else its group; an empty scope list in the context allows every scope.

For each record: out of scope or unknown sensitivity -> denied; level <= ``max_sensitivity``
-> visible; exactly one level above -> visible redacted (:func:`redact`); higher -> denied.
``authenticated`` and ``actor_id`` are carried for attribution; they do
not change what is visible (map authentication to ``max_sensitivity`` when building the
context). :meth:`TrustContext.unrestricted` sees everything, unknown sensitivities included.

What a caller learns of a record it may not see: a denied record, nothing but a count; a
redacted one, only :data:`REDACTED_KEEPS` (its id, kind, memory type, sensitivity, scope and
group, trust, scores and ``created_at``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from graph_trust.access.sensitivity import DEFAULT_SCALE, SensitivityScale, scale_of, scope_parts
from graph_trust.errors import AccessDeniedError, ConfigError, InputError, MissingTrustContextError, NotFoundError
from graph_trust.search.records import MemoryRecord

SENSITIVITY_LEVELS: tuple[str, ...] = DEFAULT_SCALE.levels  # the default scale's levels


def sensitivity_level(value: str | None, scale: SensitivityScale = DEFAULT_SCALE) -> int:
    """0.. for a known level or label of ``scale`` (case-insensitive), -1 for anything else."""
    return scale.level(value)


class Access(Enum):
    FULL = "full"
    REDACTED = "redacted"
    DENIED = "denied"


@dataclass(frozen=True, slots=True)
class TrustContext:
    """The requester's clearance. Build with the fields, :meth:`from_settings` or
    :meth:`unrestricted`. ``max_sensitivity`` may be a level or a label of ``scale`` and is
    kept as the level it means."""

    max_sensitivity: str
    authenticated: bool = False
    actor_id: str | None = None
    scopes: tuple[str, ...] = ()
    is_unrestricted: bool = False
    scale: SensitivityScale = DEFAULT_SCALE

    def __post_init__(self) -> None:
        level = self.scale.level_name(self.max_sensitivity)
        if level is None:
            raise InputError(f"max_sensitivity {self.max_sensitivity!r} is not a sensitivity level or label "
                             f"({self.scale.describe()})")
        object.__setattr__(self, "max_sensitivity", level)
        scopes = (self.scopes,) if isinstance(self.scopes, str) else self.scopes
        object.__setattr__(self, "scopes", tuple(s.strip() for s in scopes if s and s.strip()))

    @classmethod
    def unrestricted(cls, actor_id: str | None = None, scale: SensitivityScale = DEFAULT_SCALE) -> TrustContext:
        """Explicitly see everything (every sensitivity, unknown ones too, every scope)."""
        return cls(scale.levels[-1], True, actor_id, (), True, scale)

    @classmethod
    def from_settings(
        cls,
        settings: Any,
        *,
        actor_id: str | None = None,
        max_sensitivity: str | None = None,
        scopes: Sequence[str] = (),
        authenticated: bool | None = None,
        unrestricted: bool = False,
    ) -> TrustContext:
        """The context of a command: ``max_sensitivity``, else ``context.max_sensitivity``, on
        the scale of ``access``; authenticated when an actor is named (unless said otherwise);
        ``unrestricted``: :meth:`unrestricted`. ``settings`` is a
        :class:`~graph_trust.config.Settings` (a bare ``ContextSettings`` means the default scale)."""
        scale = scale_of(settings) if hasattr(settings, "access") else DEFAULT_SCALE
        if unrestricted:
            if max_sensitivity is not None or scopes:
                raise InputError("an unrestricted trust context takes no max_sensitivity or scopes")
            return cls.unrestricted(actor_id, scale)
        section = settings.context if hasattr(settings, "context") else settings
        if max_sensitivity is None:
            if not scale.known(section.max_sensitivity):
                raise ConfigError(f"config key context.max_sensitivity: {section.max_sensitivity!r} is not a "
                                  f"sensitivity level or label ({scale.describe()})")
            max_sensitivity = section.max_sensitivity
        actor = actor_id.strip() if actor_id and actor_id.strip() else None
        return cls(max_sensitivity, actor is not None if authenticated is None else authenticated, actor,
                   tuple(scopes), False, scale)

    @classmethod
    def for_mcp(cls, settings: Any, *, actor_id: str | None = None) -> TrustContext:
        """The MCP server's clearance, from configuration only: ``mcp.unrestricted``, else
        ``mcp.max_sensitivity`` (default ``context.max_sensitivity``) and ``mcp.scopes``."""
        if settings.mcp.unrestricted:
            return cls.unrestricted(actor_id, scale_of(settings))
        return cls.from_settings(settings, actor_id=actor_id, max_sensitivity=settings.mcp.max_sensitivity,
                                 scopes=settings.mcp.scopes)

    def in_scope(self, record: MemoryRecord) -> bool:
        """Every scope the record names (its ``scope`` property, else its group; several joined by
        :data:`~graph_trust.access.sensitivity.SCOPE_JOIN` when its review rows name several) is one of ``scopes``, or there are none."""
        return not self.scopes or all(s in self.scopes for s in scope_parts(record.effective_scope))

    def level_of(self, record: MemoryRecord, default_sensitivity: str = "low") -> int:
        """The record's level on this context's scale (-1: unknown label)."""
        return self.scale.level(record.sensitivity if record.sensitivity is not None else default_sensitivity)

    def access(self, record: MemoryRecord, default_sensitivity: str = "low") -> Access:
        """What this context may see of ``record``."""
        if self.is_unrestricted:
            return Access.FULL
        if not self.in_scope(record):
            return Access.DENIED
        level = self.level_of(record, default_sensitivity)
        if level < 0:
            return Access.DENIED
        allowed = self.scale.level(self.max_sensitivity)
        if level <= allowed:
            return Access.FULL
        return Access.REDACTED if level == allowed + 1 else Access.DENIED

    def allows(self, record: MemoryRecord, default_sensitivity: str = "low") -> bool:
        return self.access(record, default_sensitivity) is Access.FULL

    def allows_redacted(self, record: MemoryRecord, default_sensitivity: str = "low") -> bool:
        return self.access(record, default_sensitivity) is Access.REDACTED

    def describe(self) -> str:
        """One line for logs: the clearance, scopes and actor (never any record)."""
        if self.is_unrestricted:
            return f"unrestricted (every fact, every label and scope); actor {self.actor_id or 'none'}"
        scopes = ", ".join(self.scopes) or "every scope"
        return (f"max_sensitivity {self.max_sensitivity} on {self.scale.describe()}; scopes: {scopes}; "
                f"actor {self.actor_id or 'none'}")


def require_context(ctx: TrustContext | None) -> TrustContext:
    """``ctx``, or :class:`MissingTrustContextError` (a missing context never means "see everything")."""
    if ctx is None:
        raise MissingTrustContextError(
            "a trust context is required for access-controlled retrieval "
            "(pass TrustContext(...), or TrustContext.unrestricted() to see everything)"
        )
    return ctx


def check_default_sensitivity(value: str, scale: SensitivityScale = DEFAULT_SCALE) -> str:
    """The configured default for records without a sensitivity, validated on ``scale``."""
    if not scale.known(value):
        raise ConfigError(
            f"config key context.default_sensitivity: {value!r} is not a sensitivity level or label "
            f"({scale.describe()})"
        )
    return value.strip().lower()


# What a redacted record keeps (everything else is emptied): documented in docs/context.md.
REDACTED_KEEPS: tuple[str, ...] = ("uuid", "kind", "memory_type", "sensitivity", "scope", "group_id",
                                   "trust_score", "relevance_raw", "salience", "created_at")


def redact(record: MemoryRecord) -> MemoryRecord:
    """Metadata only (:data:`REDACTED_KEEPS`): fact, name, summary, subject/predicate/object,
    counts, other attributes, the fact-time timestamps go, and from the explanation its text, the
    per-method ranks (which would tell what the text matches) and its review status; its scores
    stay (the ranking uses them)."""
    expl = record.explanation
    return dataclasses.replace(
        record,
        text="",
        name="",
        summary="",
        valid_at=None,
        reinforced_at=None,
        subject=None,
        predicate=None,
        object=None,
        success_count=None,
        failure_count=None,
        attributes={},
        explanation=None if expl is None else dataclasses.replace(expl, text="", bm25_rank=None, cosine_rank=None,
                                                                  cosine_stage=None, negative=None),
        redacted=True,
    )


@dataclass(frozen=True, slots=True)
class AccessResult:
    """Visible records (redacted ones in place); how many in-scope records were denied, and how
    many of those for a sensitivity label the scale does not know; how many were out of scope.

    Records out of the context's scopes do not exist for it: they are not ``denied`` and callers
    leave them out of every count they show, so a scoped caller learns nothing of other scopes."""

    records: list[MemoryRecord]
    redacted: int
    denied: int
    unknown_label: int = 0
    out_of_scope: int = 0


def filter_by_trust(
    records: Iterable[MemoryRecord], ctx: TrustContext | None, *, default_sensitivity: str = "low"
) -> AccessResult:
    """Apply ``ctx`` to every record, in order. No context raises MissingTrustContextError."""
    ctx = require_context(ctx)
    default = check_default_sensitivity(default_sensitivity, ctx.scale)
    out: list[MemoryRecord] = []
    redacted = denied = unknown = out_of_scope = 0
    for r in records:
        a = ctx.access(r, default)
        if a is Access.FULL:
            out.append(r)
        elif a is Access.REDACTED:
            out.append(redact(r))
            redacted += 1
        elif not ctx.in_scope(r):
            out_of_scope += 1
        else:
            denied += 1
            unknown += ctx.level_of(r, default) < 0
    return AccessResult(out, redacted, denied, unknown, out_of_scope)


def get_by_id(
    records: Sequence[MemoryRecord], uuid: str, ctx: TrustContext | None, *, default_sensitivity: str = "low"
) -> MemoryRecord:
    """The record ``uuid`` as ``ctx`` may see it (possibly redacted).

    Raises NotFoundError when no record has that id, AccessDeniedError when it exists but is
    denied, MissingTrustContextError without a context.
    """
    ctx = require_context(ctx)
    default = check_default_sensitivity(default_sensitivity, ctx.scale)
    for r in records:
        if r.uuid == uuid:
            a = ctx.access(r, default)
            if a is Access.DENIED:
                raise AccessDeniedError("the record is not visible to this trust context")
            return redact(r) if a is Access.REDACTED else r
    raise NotFoundError(f"no record with id {uuid}")
