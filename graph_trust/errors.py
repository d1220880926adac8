"""Typed errors. The CLI maps each to one line and its ``exit_code``.

Secrets never reach a message: whatever parses a secret (a review DB connection string's
password) calls :func:`remember_secret`, and the CLI passes its error lines, ``--debug``
tracebacks and log records through :func:`scrub`, so even a driver's message that quotes a
connection string carries no password out.
"""

from __future__ import annotations

import threading

SECRET_MASK = "***"
_MIN_SCRUBBED = 3  # shorter secrets are not scrubbed from free text (they would eat ordinary words)
_secrets: set[str] = set()
_secrets_lock = threading.Lock()


def remember_secret(secret: str | None) -> None:
    """Keep ``secret`` out of every text :func:`scrub` passes (for this process)."""
    if secret and len(secret) >= _MIN_SCRUBBED:
        with _secrets_lock:
            _secrets.add(secret)


def scrub(text: str) -> str:
    """``text`` with every secret seen so far masked (longest first)."""
    with _secrets_lock:
        known = sorted(_secrets, key=len, reverse=True)
    for s in known:
        if s in text:
            text = text.replace(s, SECRET_MASK)
    return text


class GraphTrustError(Exception):
    """Base class. ``exit_code`` is what the CLI exits with (see docs/errors.md)."""

    exit_code = 2


class ConfigError(GraphTrustError):
    """Invalid configuration: the message names the key."""


class InputError(GraphTrustError):
    """Invalid user input (query, weight, group, ...)."""


class GraphConnectionError(GraphTrustError):
    """The graph cannot be reached or refused us."""


class GraphAuthError(GraphConnectionError):
    """Wrong credentials for the graph."""


class EmbeddedServerError(GraphConnectionError):
    """The embedded FalkorDB server could not be started or shared."""


class ReviewDBError(GraphTrustError):
    """The review DB is missing, locked, corrupt or lacks columns."""


class StateStoreError(GraphTrustError):
    """The state store (runs, journal, audit) is unusable."""


class LockHeldError(GraphTrustError):
    """Another live process holds the sync lock for this graph."""


class RollbackConflictError(GraphTrustError):
    """A later run changed properties a rollback would restore."""


class ChangedSinceError(RollbackConflictError):
    """A review decision on a fact that changed since the reviewer saw it (nothing decided)."""


class ClearLimitError(GraphTrustError):
    """A sync run would clear trust from more edges than ``sync.max_clear`` allows (nothing written)."""


class RunFailedError(GraphTrustError):
    """A run failed part-way; every applied batch is journaled, so state is consistent."""

    exit_code = 3
    report: object | None = None  # an interrupted sync's report so far (a SyncReport), when it has one


class DriftError(GraphTrustError):
    """``verify`` found the graph out of sync with the review DB."""

    exit_code = 1


class MissingTrustContextError(GraphTrustError):
    """Access-controlled retrieval was asked for without a trust context (ErrNilTrust)."""


class AccessDeniedError(GraphTrustError):
    """The record exists but the trust context may not see it."""


class NotFoundError(GraphTrustError):
    """No record with that id."""
