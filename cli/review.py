"""``graph-trust review``: the review DB (``review init PATH`` creates the documented schema)."""

from __future__ import annotations

import click

from graph_trust import api
from graph_trust.cli.common import emit_json


@click.group()
def review() -> None:
    """Work with the review DB (the promotion pipeline's candidates)."""


@review.command(epilog="""
\b
Examples:
  graph-trust review init review.sqlite3
  graph-trust sync --review-db review.sqlite3
""")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON on stdout.")
def init(path: str, as_json: bool) -> None:
    """Create a review DB at PATH with the documented `candidates` schema and the confidence
    tables (idempotent; an existing DB gains missing tables, columns and indexes in place)."""
    out = api.init_review_db(path)
    added = out["added"]
    if as_json:
        emit_json(out)
    else:
        click.echo(f"review DB ready: {out['path']} (table candidates; confidence tables"
                   + (f", added {', '.join(added)})" if added else ")"))
