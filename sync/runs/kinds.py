"""The kinds of run that ``graph-trust runs`` lists and ``graph-trust rollback`` undoes.

Each job that records runs (sync, relink, learned confidence weights) describes them with one
:class:`RunKind`: which run ids are its own, how to list its recent runs, and how to roll one
back. :mod:`graph_trust.sync.runs.listing` dispatches through the kinds it is given, so neither the
listing nor the rollback reads another job's tables. Adding a kind: define its ``RunKind`` in
the job's own module and add it to ``RUN_KINDS`` in :mod:`graph_trust.sync.runs.listing`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from graph_trust.config import Settings

# (settings, limit) -> the kind's newest runs, newest first, as dicts with at least run_id, kind,
# started_at, ended_at, status, counts, journal_pruned_at (the ``graph-trust runs`` row)
ListRuns = Callable[[Settings, int], list[dict[str, Any]]]
# (settings, run_id, force, graph) -> the rollback's report (an object with to_dict(), or a dict)
Rollback = Callable[[Settings, str, bool, Any], Awaitable[Any]]


@dataclass(frozen=True)
class RunKind:
    """One job's runs: ``prefix`` is how its run ids start (None: the kind that takes every id no
    other kind claims, the sync job's), ``list_runs`` and ``rollback`` as above."""

    name: str
    prefix: str | None
    list_runs: ListRuns
    rollback: Rollback

    def owns(self, run_id: str) -> bool:
        return self.prefix is not None and run_id.startswith(self.prefix)
