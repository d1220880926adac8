"""``graph-trust sync | verify | runs | rollback | prune``: the nightly trust sync and its tools."""

from __future__ import annotations

import click

from graph_trust import api
from graph_trust.cli.common import ProgressBars, common_options, emit_json, run, runtime, table
from graph_trust.errors import RunFailedError

REVIEW_DB = click.option("--review-db", default=None, metavar="PATH|URL",
                         help="Review DB (default: config review.url or $GRAPH_TRUST_REVIEW_DB).")

SYNC_EXAMPLES = """
\b
Examples:
  graph-trust sync --review-db review.sqlite3            # nightly run (incremental)
  graph-trust sync --review-db review.sqlite3 --dry-run  # what would change, write nothing
  graph-trust sync --full --json > sync-report.json      # recompute everything, report for monitoring
  graph-trust sync --relink                              # relink orphaned candidates, then sync
  graph-trust sync --max-clear 1                         # allow clearing most trusted edges at once
\b
Exit codes: 0 ok; 2 usage, config, review DB, lock or connection error, or over --max-clear;
3 the run failed part-way (every applied batch journaled: rerun to converge, or rollback).
"""


@click.command(epilog=SYNC_EXAMPLES)
@REVIEW_DB
@click.option("--dry-run", is_flag=True, help="Compute and report the changes; write nothing to the graph.")
@click.option("--full", is_flag=True, help="Re-read every candidate and edge and re-aggregate every entity.")
@click.option("--batch-size", type=click.IntRange(1, 10000), default=None, metavar="N",
              help="Edges per write batch (default: config sync.batch_size, 1000).")
@click.option("--relink", "with_relink", is_flag=True, help="Run `graph-trust relink` first, then sync.")
@click.option("--max-clear", type=click.FloatRange(0, 1), default=None, metavar="F",
              help="Stop before writing if the run would clear trust from more than this fraction of the "
                   "graph's trusted edges (and more than 100); 1 = no limit (default: config sync.max_clear, 0.5).")
@common_options
def sync(review_db: str | None, dry_run: bool, full: bool, batch_size: int | None, with_relink: bool,
         max_clear: float | None) -> None:
    """Write review decisions onto the graph as trust_score, journaled and idempotent.

    Reads the review DB (status -> tier: promoted 1.0, corroborated 0.6, candidate 0.25;
    rejected/expired: no boost; highest tier wins per edge), sets trust_score and its audit
    properties on RELATES_TO edges matched by evidence uuid, clears edges no candidate
    supports, and aggregates trust onto entities. Incremental by default: every review row whose
    content differs from the last run's copy (whatever its updated_at says), plus any edge whose
    trust disagrees with the review DB. A group_id with no graph is reported, never created.
    Every change is journaled for 'graph-trust rollback RUN_ID'.

    The guard: promoted or corroborated edges Graphiti invalidated (invalid_at / expired_at set)
    are reported as trusted_invalidated with the edge that superseded them, recorded as
    contradictions for review in the review DB, and restored to valid when the setting
    guard.restore_trusted is true (journaled: rollback re-invalidates them).
    """
    rt = runtime({"review.url": review_db, "sync.max_clear": max_clear})
    bars = ProgressBars(rt.quiet)
    relinked = None
    try:
        if with_relink:
            relinked = run(api.relink(rt.settings, dry_run=dry_run)).to_dict()
        report = run(api.sync(rt.settings, dry_run=dry_run, full=full, batch_size=batch_size,
                              progress=bars)).to_dict()
    except RunFailedError as exc:
        if rt.json and exc.report is not None:  # interrupted: the report so far, then the error and its exit code
            bars.close()
            emit_json({**exc.report.to_dict(), **({"relink": relinked} if relinked is not None else {})})
        raise
    except KeyboardInterrupt:
        raise RunFailedError("sync interrupted; every applied batch is journaled: run `graph-trust sync` again "
                             "to converge") from None
    finally:
        bars.close()
    if relinked is not None:
        report["relink"] = relinked
    if rt.json:
        emit_json(report)
    else:
        click.echo(render_sync(report))


def render_sync(d: dict) -> str:
    head = "dry run (nothing written)" if d["dry_run"] else f"run {d['run_id']}"
    lines = [
        f"{head}: {d['candidates_read']} candidates read ({d['candidates_changed']} changed since the last read); "
        f"edges: {d['edges_set']} set, "
        f"{d['edges_cleared']} cleared, {d['edges_unchanged']} unchanged; {d['entities_updated']} entities "
        f"updated; {d['duration_s']} s",
    ]
    if d["drift_healed"]:
        lines.append(f"{d['drift_healed']} edge(s) changed outside sync since the last run (edited, re-saved or "
                     "deleted): set again where the review DB says so, their entities re-aggregated")
    if d["quarantined_count"]:
        lines.append(f"{d['quarantined_count']} candidate(s) quarantined:")
        lines += [f"  {q['id']}: {q['reason']}" for q in d["quarantined"][:10]]
    if d["unmatched_count"]:
        lines.append(f"{d['unmatched_count']} candidate(s) point at edges not in the graph: "
                     + ", ".join(u["id"] for u in d["unmatched"][:10]))
        lines.append(f"hint: {d['unmatched_hint']}")
    if d.get("unknown_sensitivity"):
        lines.append(f"warning: {api.unknown_sensitivity_hint(d['unknown_sensitivity'])}")
    lines += render_trusted_invalidated(d)
    if d.get("guard_hint"):
        lines.append(f"hint: {d['guard_hint']}")
    if d.get("clear_limit"):
        lines.append(f"note: {d['clear_limit']}")
    if d.get("lock_takeover_pid"):
        lines.append(f"note: took over a sync lock left by dead process {d['lock_takeover_pid']}")
    return "\n".join(lines)


def render_trusted_invalidated(d: dict, shown: int = 10) -> list[str]:
    """The guard's findings (sync and verify reports), one line per edge."""
    n = d.get("trusted_invalidated_count", 0)
    if not n:
        return []
    restored = d.get("trusted_restored", 0)
    lines = [f"trusted_invalidated: {n} promoted or corroborated edge(s) invalidated by Graphiti"
             + (f", {restored} restored" if restored else "")
             + (f"; {d['contradictions_recorded']} contradiction(s) recorded for review"
                if d.get("contradictions_recorded") else "")]
    for i in d["trusted_invalidated"][:shown]:
        when = ", ".join(f"{k} {i[k]}" for k in ("invalid_at", "expired_at") if i[k])
        newer = i["superseded_by"]
        lines.append(f"  {i['uuid']} ({i['group_id']}; {'/'.join(i['candidate_ids'])}): {i['fact']!r}; {when}"
                     + (f"; superseded by {newer['uuid']}: {newer['fact']!r}" if newer else "")
                     + ("; restored" if i.get("restored") else ""))
    if n > shown:
        lines.append(f"  ... and {n - shown} more (--json lists up to 1000)")
    return lines


@click.command(epilog="""
\b
Examples:
  graph-trust verify --review-db review.sqlite3
  graph-trust verify --json || alert "graph trust drifted"
\b
Exit codes: 0 in sync; 1 drift found; 2 usage, config, review DB or connection error.
""")
@REVIEW_DB
@click.option("--examples", type=click.IntRange(0, 1000), default=5, show_default=True,
              help="Examples shown per drift kind.")
@common_options
def verify(review_db: str | None, examples: int) -> None:
    """Check the graph's trust properties against the review DB (read-only, exact).

    Reads every review row as it is now (whatever its updated_at says), every edge carrying
    trust and every entity holding trust. Drift kinds: edge_missing_trust, edge_wrong_trust,
    edge_stale_trust, entity_wrong_trust, entity_stale_trust. Names the group_ids that have no
    graph (their candidates are unmatched; nothing is created), and review rows that changed
    while verify read them (the next sync reads them). Also reports trusted_invalidated:
    promoted or corroborated edges Graphiti invalidated (not drift: the exit code ignores them).
    """
    rt = runtime({"review.url": review_db})
    result = run(api.verify(rt.settings, examples=examples))
    report = result.to_dict()
    if rt.json:
        emit_json(report)
    else:
        state = "in sync" if report["in_sync"] else "DRIFT"
        click.echo(f"{state}: {report['edges_checked']} edge(s) with trust and {report['entities_checked']} "
                   f"entities checked; {report['unmatched_count']} unmatched, {report['quarantined_count']} "
                   "quarantined candidates")
        for kind, n in report["drift"].items():
            if n:
                click.echo(f"  {kind}: {n}")
                for ex in report["examples"][kind]:
                    click.echo(f"    {ex}")
        for line in render_trusted_invalidated(report):
            click.echo(line)
        ids = report["missed_candidate_ids"]
        for i, hint in enumerate(result.hints):
            click.echo(f"hint: {hint}" + (f" (e.g. {', '.join(ids)})" if ids and i == 0 else ""))
    if not report["in_sync"]:
        click.get_current_context().exit(1)


@click.command(epilog="""
\b
Examples:
  graph-trust runs
  graph-trust runs --limit 5 --json
""")
@click.option("--limit", type=click.IntRange(1, 10000), default=20, show_default=True, help="How many runs.")
@common_options
def runs(limit: int) -> None:
    """List recent sync, rollback and relink runs and learned weight changes (newest first)."""
    rt = runtime()
    items = api.runs(rt.settings, limit=limit)
    if rt.json:
        emit_json(items)
        return
    rows = [[r["run_id"], r["kind"] + (" (dry run)" if r.get("dry_run") else "") + (" --full" if r.get("full") else ""),
             r["status"] + (" (journal pruned)" if r.get("journal_pruned_at") else ""),
             r["started_at"], r["ended_at"] or "", _run_detail(r)] for r in items]
    click.echo(table(rows, ["run", "kind", "status", "started", "ended", "counts / error"]) if rows else "no runs yet")


def _run_detail(r: dict) -> str:
    """The non-zero counts of a run, and the error of one that failed (its first 100 characters)."""
    counts = " ".join(f"{k}={v}" for k, v in (r.get("counts") or {}).items() if v)
    error = r.get("error")
    if error and r["status"] != "ok":
        error = error if len(error) <= 100 else error[:99] + "…"
        return f"{counts}  error: {error}" if counts else f"error: {error}"
    return counts


@click.command(epilog="""
\b
Examples:
  graph-trust runs                        # find the run id
  graph-trust rollback sync-20261122T020000Z-1a2b3c
  graph-trust rollback RUN_ID --force     # even if a later run changed the same properties
  graph-trust rollback relink-...         # a relink run: restores the review DB's evidence JSON
  graph-trust rollback weights-3          # a learned confidence-weight change: the weights before it return
""")
@click.argument("run_id")
@click.option("--force", is_flag=True, help="Restore even if a later run changed the same properties.")
@common_options
def rollback(run_id: str, force: bool) -> None:
    """Restore exactly the values a run replaced (journaled as a new run)."""
    rt = runtime()
    report = run(api.rollback(rt.settings, run_id, force=force))
    d = report.to_dict() if hasattr(report, "to_dict") else report
    if rt.json:
        emit_json(d)
    elif "edges_restored" in d:
        click.echo(f"rolled back {d['rolled_back']} as {d['run_id']}: {d['edges_restored']} edges and "
                   f"{d['entities_restored']} entities restored"
                   + (f", {d['invalidations_restored']} invalidations put back" if d.get("invalidations_restored")
                      else "") + (" (forced)" if d["forced"] else ""))
    else:
        click.echo(f"rolled back {run_id}: {d}")


@click.command(epilog="""
\b
Examples:
  graph-trust prune --dry-run             # what would go, per graph: runs and journal rows
  graph-trust prune                       # keep the journal of each graph's newest 30 runs
  graph-trust prune --keep 7 --vacuum     # keep 7, then give the space back to the disk
  graph-trust prune --keep 60 --json      # in a weekly cron job, JSON for monitoring
""")
@click.option("--keep", type=click.IntRange(1, None), default=30, show_default=True, metavar="N",
              help="Per graph, keep the journal of the newest N runs that wrote to it (sync and rollback).")
@click.option("--dry-run", is_flag=True, help="Count what would be deleted; delete nothing.")
@click.option("--vacuum", is_flag=True, help="Rewrite the state store afterwards to return the freed space.")
@common_options
def prune(keep: int, dry_run: bool, vacuum: bool) -> None:
    """Delete the journal of old runs (they can no longer be rolled back).

    The journal holds every property change with its previous value, so it grows with every
    run. Older runs stay listed in `graph-trust runs`; never pruned: a run still marked running
    or with pending journal rows. Relink's journal is not touched.
    """
    rt = runtime()
    d = api.prune(rt.settings, keep=keep, dry_run=dry_run, vacuum=vacuum).to_dict()
    if rt.json:
        emit_json(d)
        return
    verb = "would prune" if dry_run else "pruned"
    click.echo(f"{verb} {d['runs_pruned']} run(s): {d['journal_rows_deleted']} journal and "
               f"{d['quarantine_rows_deleted']} quarantine rows (kept each graph's newest {keep})")
    for s in d["skipped"]:
        click.echo(f"  left {s['run_id']}: {s['reason']}")
    if d["vacuumed"]:
        click.echo(f"state store: {d['state_store_bytes_before']:,} -> {d['state_store_bytes_after']:,} bytes")
