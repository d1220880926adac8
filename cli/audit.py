"""``graph-trust audit``: the audit events in the state store (trust overrides, ...)."""

from __future__ import annotations

import click

from graph_trust import api
from graph_trust.cli.common import common_options, emit_json, runtime, shorten, table

EXAMPLES = """
\b
Examples:
  graph-trust audit                         every event, oldest first
  graph-trust audit --limit 20 --json       the 20 newest, for monitoring
  graph-trust audit --event trust_override
"""


@click.command(epilog=EXAMPLES)
@click.option("--limit", type=click.IntRange(1, None), default=None, help="Only the newest N events.")
@click.option("--event", default=None, metavar="E", help="Only events of this kind (e.g. trust_override).")
@common_options
def audit(limit: int | None, event: str | None) -> None:
    """List audit events: decision (applied, clamped, rejected), actor, source, approver,
    request id, requested and applied value, violations. They live in the state store
    (state_dir/state.sqlite3, table audit_events) and are also logged as they happen.
    """
    rt = runtime()
    events = api.audit_events(rt.settings, event=event, limit=limit)
    if rt.json:
        emit_json({"events": [e.to_dict() for e in events]})
        return
    if not events:
        click.echo("no audit events")
        return
    rows = [
        [
            e.id,
            e.at.strftime("%Y-%m-%d %H:%M:%S"),
            e.event,
            e.decision,
            e.actor or "-",
            e.source or "-",
            e.approved_by or "-",
            e.request_id or "-",
            "-" if e.requested is None else f"{e.requested:.2f}",
            "-" if e.applied is None else f"{e.applied:.2f}",
            shorten("; ".join(e.violations) or "-", 60),
        ]
        for e in events
    ]
    click.echo(
        table(rows, ["id", "at (UTC)", "event", "decision", "actor", "source", "approver", "request", "req",
                     "applied", "violations"])
    )
