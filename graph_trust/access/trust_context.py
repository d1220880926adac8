"""Trust context: who may see which records (seed 001, graduated exposure).

Sensitivity order: ``public < low < medium < high < hyper`` (the ``sensitivity`` property,
case-insensitive). A record without one takes the configured default
(``context.default_sensitivity``); an unknown value is denied. A record's scope is its
``scope`` property, else its group; an empty scope list in the context allows every scope.

For each record: out of scope or unknown sensitivity -> denied; level <= ``max_sensitivity``
-> visible; exactly one level above -> visible redacted (:func:`redact`); higher -> denied.
``authenticated`` and ``actor_id`` are carried for attribution, as in the reference; they do
not change what is visible (map authentication to ``max_sensitivity`` when building the
context). :meth:`TrustContext.unrestricted` sees everything, unknown sensitivities included.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from graph_trust.config import ContextSettings
from graph_trust.errors import AccessDeniedError, ConfigError, InputError, MissingTrustContextError, NotFoundError
from graph_trust.search.records import MemoryRecord

SENSITIVITY_LEVELS: tuple[str, ...] = ("public", "low", "medium", "high", "hyper")
_LEVEL = {name: i for i, name in enumerate(SENSITIVITY_LEVELS)}


def sensitivity_level(value: str | None) -> int:
    """0..4 for a known level (case-insensitive), -1 for anything else (None included)."""
    if not isinstance(value, str):
        return -1
    return _LEVEL.get(value.strip().lower(), -1)


class Access(Enum):
    FULL = "full"
    REDACTED = "redacted"
    DENIED = "denied"


@dataclass(frozen=True, slots=True)
class TrustContext:
    """The requester's clearance. Build with the fields, or :meth:`unrestricted`."""

    max_sensitivity: str
    authenticated: bool = False
    actor_id: str | None = None
    scopes: tuple[str, ...] = ()
    is_unrestricted: bool = False

    def __post_init__(self) -> None:
        if sensitivity_level(self.max_sensitivity) < 0:
            raise InputError(
                f"max_sensitivity {self.max_sensitivity!r} is not one of {', '.join(SENSITIVITY_LEVELS)}"
            )
        object.__setattr__(self, "max_sensitivity", self.max_sensitivity.strip().lower())
        scopes = (self.scopes,) if isinstance(self.scopes, str) else self.scopes
        object.__setattr__(self, "scopes", tuple(s.strip() for s in scopes if s and s.strip()))

    @classmethod
    def unrestricted(cls, actor_id: str | None = None) -> TrustContext:
        """Explicitly see everything (every sensitivity, unknown ones too, every scope)."""
        return cls(SENSITIVITY_LEVELS[-1], True, actor_id, (), True)

    @classmethod
    def from_settings(
        cls,
        settings: ContextSettings,
        *,
        actor_id: str | None = None,
        max_sensitivity: str | None = None,
        scopes: Sequence[str] = (),
        authenticated: bool | None = None,
    ) -> TrustContext:
        """The CLI's context: flags, else ``context.max_sensitivity``; authenticated when an
        actor is named (unless said otherwise)."""
        if max_sensitivity is None:
            if sensitivity_level(settings.max_sensitivity) < 0:
                raise ConfigError(
                    f"config key context.max_sensitivity: {settings.max_sensitivity!r} is not one of "
                    f"{', '.join(SENSITIVITY_LEVELS)}"
                )
            max_sensitivity = settings.max_sensitivity
        actor = actor_id.strip() if actor_id and actor_id.strip() else None
        return cls(max_sensitivity, actor is not None if authenticated is None else authenticated, actor, tuple(scopes))

    def access(self, record: MemoryRecord, default_sensitivity: str = "low") -> Access:
        """What this context may see of ``record``."""
        if self.is_unrestricted:
            return Access.FULL
        if self.scopes and record.effective_scope not in self.scopes:
            return Access.DENIED
        level = sensitivity_level(record.sensitivity if record.sensitivity is not None else default_sensitivity)
        if level < 0:
            return Access.DENIED
        allowed = _LEVEL[self.max_sensitivity]
        if level <= allowed:
            return Access.FULL
        return Access.REDACTED if level == allowed + 1 else Access.DENIED

    def allows(self, record: MemoryRecord, default_sensitivity: str = "low") -> bool:
        return self.access(record, default_sensitivity) is Access.FULL

    def allows_redacted(self, record: MemoryRecord, default_sensitivity: str = "low") -> bool:
        return self.access(record, default_sensitivity) is Access.REDACTED


def require_context(ctx: TrustContext | None) -> TrustContext:
    """``ctx``, or :class:`MissingTrustContextError` (the reference's ``ErrNilTrust``)."""
    if ctx is None:
        raise MissingTrustContextError(
            "a trust context is required for access-controlled retrieval "
            "(pass TrustContext(...), or TrustContext.unrestricted() to see everything)"
        )
    return ctx


def check_default_sensitivity(value: str) -> str:
    """The configured default for records without a sensitivity, validated."""
    if sensitivity_level(value) < 0:
        raise ConfigError(
            f"config key context.default_sensitivity: {value!r} is not one of {', '.join(SENSITIVITY_LEVELS)}"
        )
    return value.strip().lower()


def redact(record: MemoryRecord) -> MemoryRecord:
    """Metadata only: identity, type, sensitivity, scope, scores and timestamps stay;
    fact, name, summary, subject/predicate/object, counts and other attributes go."""
    return dataclasses.replace(
        record,
        text="",
        name="",
        summary="",
        subject=None,
        predicate=None,
        object=None,
        success_count=None,
        failure_count=None,
        attributes={},
        redacted=True,
    )


@dataclass(frozen=True, slots=True)
class AccessResult:
    """Visible records (redacted ones in place) and how many were denied."""

    records: list[MemoryRecord]
    redacted: int
    denied: int


def filter_by_trust(
    records: Iterable[MemoryRecord], ctx: TrustContext | None, *, default_sensitivity: str = "low"
) -> AccessResult:
    """Apply ``ctx`` to every record, in order. No context raises MissingTrustContextError."""
    ctx = require_context(ctx)
    default = check_default_sensitivity(default_sensitivity)
    out: list[MemoryRecord] = []
    redacted = denied = 0
    for r in records:
        a = ctx.access(r, default)
        if a is Access.FULL:
            out.append(r)
        elif a is Access.REDACTED:
            out.append(redact(r))
            redacted += 1
        else:
            denied += 1
    return AccessResult(out, redacted, denied)


def get_by_id(
    records: Sequence[MemoryRecord], uuid: str, ctx: TrustContext | None, *, default_sensitivity: str = "low"
) -> MemoryRecord:
    """The record ``uuid`` as ``ctx`` may see it (possibly redacted).

    Raises NotFoundError when no record has that id, AccessDeniedError when it exists but is
    denied, MissingTrustContextError without a context.
    """
    ctx = require_context(ctx)
    default = check_default_sensitivity(default_sensitivity)
    for r in records:
        if r.uuid == uuid:
            a = ctx.access(r, default)
            if a is Access.DENIED:
                raise AccessDeniedError(f"record {uuid} is not visible to this trust context")
            return redact(r) if a is Access.REDACTED else r
    raise NotFoundError(f"no record with id {uuid}")
