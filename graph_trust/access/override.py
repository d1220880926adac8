"""Per-request trust override, with its policy and audit.

A request may force one trust value for every record of a retrieval. Policy:

- the requested value must be a finite number; it is clamped to [0, 1];
- a policy with a ``source`` is required; non-``system`` sources need a named ``actor``;
- a name that names nobody is no name: empty, whitespace, or a placeholder such as
  ``unknown``, ``anonymous``, ``bypass``, ``none``, ``null`` (any case, Unicode-normalized,
  with or without surrounding brackets or quotes; :data:`PLACEHOLDER_NAMES`) counts as
  missing for ``source``, ``actor`` and ``approved_by``;
- a (clamped) value >= 0.90 needs ``approved_by``, an actor other than ``actor``, and a
  ``reason``;
- any violation fails closed: the override is rejected and baseline trust scoring is used.

Every attempt yields an :class:`~graph_trust.access.audit.AuditEvent` (event
``trust_override``, decision ``applied``, ``clamped`` or ``rejected``) sent to logging and,
when a store is given, to the state store.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass
from typing import Any, Literal

from graph_trust.access.audit import AuditEvent, AuditStore, emit

EVENT = "trust_override"
APPROVAL_THRESHOLD = 0.90
SYSTEM_SOURCE = "system"

Decision = Literal["applied", "clamped", "rejected"]

# Names that attribute an override to nobody (compared after NFKC, casefold and stripping
# whitespace, brackets and quotes).
PLACEHOLDER_NAMES = frozenset(
    {"unknown", "anonymous", "anon", "bypass", "none", "null", "nil", "n/a", "nobody",
     "undefined", "unspecified", "-", "?"}
)
_WRAPPERS = "<>()[]{}\"'`"


@dataclass(frozen=True, slots=True)
class OverridePolicy:
    """Who asks for the override and on whose authority."""

    source: str
    actor: str | None = None
    approved_by: str | None = None
    reason: str | None = None
    request_id: str | None = None


@dataclass(frozen=True, slots=True)
class OverrideDecision:
    """The outcome: ``applied`` is the trust to use, None when rejected (baseline scoring)."""

    decision: Decision
    requested: Any
    applied: float | None
    violations: tuple[str, ...]
    event: AuditEvent

    @property
    def accepted(self) -> bool:
        return self.applied is not None


def _filled(value: str | None) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def names_nobody(value: Any) -> bool:
    """True when ``value`` does not attribute anything to anyone (see the module docstring)."""
    if not isinstance(value, str):
        return True
    core = unicodedata.normalize("NFKC", value).strip().strip(_WRAPPERS).strip().casefold()
    return not core or core in PLACEHOLDER_NAMES


def _named(value: str | None) -> str | None:
    """The stripped name, or None when it names nobody."""
    return None if names_nobody(value) else _filled(value)


def _nobody_note(value: Any) -> str:
    """`` ('anonymous' names nobody)`` for a given placeholder, else nothing."""
    return f" ({_filled(value)!r} names nobody)" if _filled(value) is not None else ""


def _violations(value: float | None, policy: OverridePolicy | None) -> list[str]:
    out: list[str] = []
    if value is None:
        out.append("requested trust override is not a finite number")
    if policy is None:
        return [*out, "a trust override needs a policy (source, actor, ...)"]
    source = _named(policy.source)
    actor = _named(policy.actor)
    approver = _named(policy.approved_by)
    if source is None:
        out.append("source is required" + _nobody_note(policy.source))
    elif source.casefold() != SYSTEM_SOURCE and actor is None:
        out.append("non-system overrides require a named actor" + _nobody_note(policy.actor))
    if value is not None and value >= APPROVAL_THRESHOLD:
        if approver is None:
            out.append(f"overrides >= {APPROVAL_THRESHOLD:.2f} require approved_by" + _nobody_note(policy.approved_by))
        elif actor is not None and approver.casefold() == actor.casefold():
            out.append("approved_by must be a different actor than actor")
        if _filled(policy.reason) is None:
            out.append(f"overrides >= {APPROVAL_THRESHOLD:.2f} require a reason")
    return out


def evaluate_override(requested: Any, policy: OverridePolicy | None) -> OverrideDecision:
    """Apply the policy to one request (pure; nothing logged or stored)."""
    finite = (
        float(requested)
        if isinstance(requested, int | float) and not isinstance(requested, bool) and math.isfinite(requested)
        else None
    )
    clamped = None if finite is None else min(1.0, max(0.0, finite))
    violations = tuple(_violations(clamped, policy))
    if violations:
        decision: Decision = "rejected"
        applied = None
    else:
        decision = "clamped" if clamped != finite else "applied"
        applied = clamped
    event = AuditEvent(
        event=EVENT,
        decision=decision,
        actor=_filled(policy.actor) if policy else None,
        source=_filled(policy.source) if policy else None,
        approved_by=_filled(policy.approved_by) if policy else None,
        reason=_filled(policy.reason) if policy else None,
        request_id=_filled(policy.request_id) if policy else None,
        requested=finite,
        applied=applied,
        violations=violations,
        details={} if finite is not None else {"requested_raw": repr(requested)},
    )
    return OverrideDecision(decision, requested, applied, violations, event)


def request_override(
    requested: Any, policy: OverridePolicy | None, store: AuditStore | None = None
) -> OverrideDecision:
    """Evaluate, then log the audit event and store it when ``store`` is given."""
    decision = evaluate_override(requested, policy)
    stored = emit(decision.event, store)
    return OverrideDecision(decision.decision, decision.requested, decision.applied, decision.violations, stored)
