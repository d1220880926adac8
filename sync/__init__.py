"""graph-trust sync: the nightly job (review DB -> trust_score on edges and entities).

Entry points: :func:`run_sync`, :func:`verify`, :func:`rollback`, :func:`list_runs`,
:func:`init_review_db`, :func:`sync_demo`, :func:`prune`. Relink is its
own subpackage, :mod:`graph_trust.sync.relink`. See docs/sync.md and docs/development.md.
"""

from graph_trust.sync.prune import prune
from graph_trust.sync.review_db import init_review_db, insert_records, insert_rows
from graph_trust.sync.runner import run_sync, sync_demo
from graph_trust.sync.runs.listing import list_runs, rollback
from graph_trust.sync.verify import verify

__all__ = ["init_review_db", "insert_records", "insert_rows", "list_runs", "prune", "rollback",
           "run_sync", "sync_demo", "verify"]
