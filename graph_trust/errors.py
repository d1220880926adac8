"""Typed errors. The CLI maps each to one line and its ``exit_code``."""

from __future__ import annotations


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
