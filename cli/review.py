"""``graph-trust review``: the review DB (``init``), review decisions with their audit trail
(``promote``, ``corroborate``, ``reject``, ``expire``, ``undo``, ``history``), the retrieval log
(``log``), the review queue (``queue``) and the review page (``serve``)."""

from __future__ import annotations

from typing import Any

import click

from graph_trust import api
from graph_trust.cli.common import common_options, emit_json, run, runtime, shorten, table


@click.group()
def review() -> None:
    """Work with the review DB: decide facts, see what to review next, the retrieval log."""


REVIEW_DB = click.option("--review-db", default=None, metavar="PATH|URL",
                         help="Review DB (default: config review.url or $GRAPH_TRUST_REVIEW_DB).")
ACTOR = click.option("--actor", required=True, metavar="NAME",
                     help="Who decides (recorded in the audit trail; a placeholder such as 'unknown' is refused).")
REASON = click.option("--reason", required=True, metavar="TEXT", help="Why (recorded in the audit trail).")
SYNC_NOW = click.option("--sync", "sync_now", is_flag=True,
                        help="Apply now: run graph-trust sync after the decision (otherwise the next sync does).")


@review.command(epilog="""
\b
Examples:
  graph-trust review init --review-db review.sqlite3
  graph-trust review init --review-db postgresql://alice@db.example/review
  GRAPH_TRUST_REVIEW_DB=review.sqlite3 graph-trust review init
  graph-trust sync --review-db review.sqlite3
""")
@click.argument("path", required=False, metavar="[PATH|URL]")
@REVIEW_DB
@common_options
def init(path: str | None, review_db: str | None) -> None:
    """Create a review DB with the documented `candidates` schema, the confidence tables and the
    review tables (idempotent; an existing DB gains missing tables, columns and indexes in place).
    The DB is --review-db (or PATH|URL, the older form), else review.url or $GRAPH_TRUST_REVIEW_DB."""
    if path and review_db and path != review_db:
        raise click.UsageError(f"give the review DB once: PATH {path!r} or --review-db, not both")
    rt = runtime({"review.url": review_db or path}, flags={"review.url": "--review-db" if review_db else "PATH"})
    out = api.init_review_db(None, rt.settings)
    added = out["added"]
    if rt.json:
        emit_json(out)
    else:
        click.echo(f"review DB ready: {out['path']} (table candidates; confidence and review tables"
                   + (f", added {', '.join(added)})" if added else ")"))


@review.command(epilog="""
\b
Examples:
  graph-trust review copy .graph-trust/demo-review.sqlite3 postgresql://alice@db.example/review
  graph-trust review copy postgresql://alice@db.example/review backup.sqlite3 --json
""")
@click.argument("source", metavar="SRC")
@click.argument("destination", metavar="DST")
@common_options
def copy(source: str, destination: str) -> None:
    """Copy every table of the review DB SRC into DST (SQLite or PostgreSQL, either way): candidates,
    the decisions' audit trail, the retrieval log, agent flags and the confidence tables. DST is made
    a review DB first; a row whose key DST already holds is kept as it is (counted, never
    overwritten), so a second run copies nothing new. Each table's keys are checked to be all in
    DST afterwards."""
    rt = runtime()
    out = api.review_copy(rt.settings, source, destination)
    if rt.json:
        emit_json(out.to_dict())
        return
    click.echo(f"copied {out.copied} row(s) from {out.source} to {out.destination}"
               + ("" if out.copied else " (nothing new: every row was there already)"))
    click.echo(table([[t.table, t.source_rows, t.copied, t.already, t.differing] for t in out.tables],
                     ["table", "rows in SRC", "copied", "already in DST", "of those differing"]))
    if out.absent:
        click.echo(f"not in SRC: {', '.join(out.absent)}")




def _print_batch(rt: Any, out: dict[str, Any]) -> None:
    if rt.json:
        emit_json(out)
        return
    b = out["batch"]
    what = f"undid {b['undoes']}" if b["action"] == "undo" else b["action"]
    facts = len({d["edge_uuid"] or d["candidate_id"] for d in b["decisions"]})
    click.echo(f"{b['batch_id']}: {what} by {b['actor']} ({facts} fact(s), {len(b['decisions'])} candidate row(s)): "
               f"{b['reason']}")
    rows = [[d["candidate_id"], d["edge_uuid"] or "-", d["previous_status"] or "(new row)",
             d["new_status"] or "(row deleted)"] for d in b["decisions"]]
    click.echo(table(rows, ["candidate", "edge", "before", "after"]))
    if out["sync"] is not None:
        s = out["sync"]
        click.echo(f"sync {s.run_id}: {s.edges_set} set, {s.edges_cleared} cleared")
    else:
        click.echo("the next graph-trust sync applies it (or pass --sync)"
                   + ("" if b["action"] == "undo" else "; undo with: graph-trust review undo"))


def _decision_command(action: str, status: str) -> click.Command:
    @click.command(name=action, epilog=f"""
\b
Examples:
  graph-trust review {action} cand-42 --actor alice --reason "checked the runbook"
  graph-trust review {action} 3f1c...e9 --actor alice --reason "seen in prod" --sync   # an edge uuid
  graph-trust review {action} cand-42 --actor alice --reason "checked" --expect candidate
  graph-trust review undo --actor alice --reason "wrong fact"
""")
    @click.argument("ids", nargs=-1, required=True)
    @ACTOR
    @REASON
    @click.option("--group", default=None, metavar="G", help="Look up edge uuids in this group's graph only.")
    @click.option("--expect", default=None, metavar="STATUS|VERSION",
                  help="The state you saw: the fact's status (as review queue shows it; 'unreviewed' for none) or "
                       "its version (review queue --json). A fact changed since is refused, naming who changed it "
                       "and when; nothing is decided (exit 2).")
    @SYNC_NOW
    @REVIEW_DB
    @common_options
    def command(ids: tuple[str, ...], actor: str, reason: str, group: str | None, expect: str | None,
                sync_now: bool, review_db: str | None) -> None:
        rt = runtime({"review.url": review_db}, flags={"review.url": "--review-db"})
        _print_batch(rt, run(api.review_decide(rt.settings, action, list(ids), actor=actor, reason=reason,
                                               group=group, apply_sync=sync_now, expect=expect)))

    command.help = (f"Mark facts {status}: each ID is an edge uuid or the id of any candidate citing it, and every "
                    "candidate row citing that edge gets the decision (the output lists each row changed; an edge "
                    "no candidate cites gets a candidate row from the graph's fact, subject, predicate and "
                    "object). All IDs in one "
                    "transaction with an audit trail (who, when, why, status before); nothing is written when "
                    "one is unknown. A promotion cannot be made by the fact's own proposer (override policy).")
    return command


for _action, _status in (("promote", "promoted"), ("corroborate", "corroborated"), ("reject", "rejected"),
                         ("expire", "expired")):
    review.add_command(_decision_command(_action, _status))


@review.command(epilog="""
\b
Examples:
  graph-trust review undo --actor alice --reason "promoted the wrong fact"
  graph-trust review undo review-20261122T101500123Z-a1b2c3 --actor alice --reason "batch in error" --sync
""")
@click.argument("batch_id", required=False)
@ACTOR
@REASON
@click.option("--force", is_flag=True, help="Undo facts changed since the batch too.")
@SYNC_NOW
@REVIEW_DB
@common_options
def undo(batch_id: str | None, actor: str, reason: str, force: bool, sync_now: bool, review_db: str | None) -> None:
    """Revert a decision batch (default: the --actor's own latest not yet undone; another reviewer's
    batch only by its BATCH_ID): each fact gets its previous status back (a row the batch created is deleted). A fact changed since is a conflict and
    nothing is undone (exit 2) unless --force. The undo is recorded in the audit trail."""
    rt = runtime({"review.url": review_db}, flags={"review.url": "--review-db"})
    _print_batch(rt, run(api.review_undo(rt.settings, actor=actor, reason=reason, batch_id=batch_id, force=force,
                                         apply_sync=sync_now)))


@review.command(epilog="""
\b
Examples:
  graph-trust review skip 3f1c...e9 --actor alice --reason "cannot tell without the vendor contract"
  graph-trust review undo skip-20261122T101500123Z-a1b2c3 --actor alice --reason "looked again"
""")
@click.argument("ids", nargs=-1, required=True)
@ACTOR
@REASON
@click.option("--group", default=None, metavar="G", help="Look up edge uuids in this group's graph only.")
@REVIEW_DB
@common_options
def skip(ids: tuple[str, ...], actor: str, reason: str, group: str | None, review_db: str | None) -> None:
    """Looked, not decided: record that you looked at these facts (candidate ids or edge uuids) and
    did not decide them. No status changes; the audit trail keeps who, when and why; the queue
    stops offering them for review.queue.skip_days (14) unless new evidence arrives (a search
    returns them on a later day, an agent flags them, their review row changes). Undo with
    `graph-trust review undo SKIP-BATCH`."""
    rt = runtime({"review.url": review_db}, flags={"review.url": "--review-db"})
    out = run(api.review_skip(rt.settings, list(ids), actor=actor, reason=reason, group=group))
    if rt.json:
        emit_json(out)
        return
    b = out["batch"]
    click.echo(f"{b['batch_id']}: skipped by {b['actor']} ({len(b['decisions'])} fact(s)): {b['reason']}")
    click.echo(f"undo with: graph-trust review undo {b['batch_id']} --actor NAME --reason TEXT")


@review.command(epilog="""
\b
Examples:
  graph-trust review history
  graph-trust review history cand-42 --json
""")
@click.argument("target", required=False)
@click.option("--limit", type=click.IntRange(1, 100000), default=50, show_default=True)
@REVIEW_DB
@common_options
def history(target: str | None, limit: int, review_db: str | None) -> None:
    """The audit trail of review decisions, newest first (all, or those on one candidate id or edge uuid)."""
    rt = runtime({"review.url": review_db}, flags={"review.url": "--review-db"})
    rows = api.review_history(rt.settings, target, limit=limit)
    if rt.json:
        emit_json(rows)
        return
    click.echo(table([[r["decided_at"], r["batch_id"], r["action"], r["candidate_id"],
                       f"{r['previous_status'] or '(new)'} -> {r['new_status'] or '(deleted)'}", r["actor"],
                       shorten(r["reason"], 40) + (f" [undone by {r['undone_by']}]" if r["undone_by"] else "")]
                      for r in rows], ["when", "batch", "action", "candidate", "status", "actor", "reason"]))


@review.command(name="log", epilog="""
\b
Examples:
  graph-trust review log
  graph-trust review log --days 7 --group ops --json
""")
@click.option("--days", type=click.IntRange(1, 36500), default=30, show_default=True, help="The last N days.")
@click.option("--group", default=None, metavar="G", help="Only this group's facts.")
@click.option("--top", type=click.IntRange(0, 1000), default=10, show_default=True, help="Most returned facts shown.")
@REVIEW_DB
@common_options
def log_(days: int, group: str | None, top: int, review_db: str | None) -> None:
    """Summarise the retrieval log: how often search, context and the MCP tools returned facts
    (per interface and day), how many distinct facts, and the most returned ones. The log keeps
    no query text unless review.log_queries is true; review.log false turns it off."""
    rt = runtime({"review.url": review_db}, flags={"review.url": "--review-db"})
    out = api.review_log(rt.settings, days=days, group=group, top=top)
    if rt.json:
        emit_json(out)
        return
    kept = out["kept"]
    click.echo(f"last {days} days{f' in group {group}' if group else ''}: {out['returns']} returns of "
               f"{out['facts']} facts ({', '.join(f'{k} {v}' for k, v in out['by_interface'].items()) or 'none'}); "
               f"log kept from {kept['oldest_day'] or '-'} to {kept['newest_day'] or '-'} ({kept['rows']} rows)")
    if out["most_returned"]:
        click.echo(table([[m["edge_uuid"], m["group_id"] or "-", m["returns"], m["best_rank"]]
                          for m in out["most_returned"]], ["fact (edge uuid)", "group", "returns", "best rank"]))


@review.command(epilog="""
\b
Examples:
  graph-trust review queue
  graph-trust review queue --group ops --limit 20
  graph-trust review queue --json | jq '.[0].reasons'
  graph-trust review promote $(graph-trust review queue --limit 1 --json | jq -r '.[0].edge_uuid') \\
      --actor alice --reason "checked"
""")
@click.option("--group", default=None, metavar="G", help="Only this group's facts.")
@click.option("--limit", type=click.IntRange(1, 100000), default=None,
              help="How many facts (default: review.queue.limit, 50).")
@click.option("--explain", is_flag=True, help="Show every part of each item's priority: value, weight, score, numbers.")
@REVIEW_DB
@common_options
def queue(group: str | None, limit: int | None, explain: bool, review_db: str | None) -> None:
    """What to review next: facts ranked by how much what agents see could change if a reviewer
    decided them, each with its reasons (the rule and its numbers). Rules: unreviewed facts often
    returned (the retrieval log); contested slots (one subject and relation, different values,
    none or several verified, at least two returned); facts Graphiti invalidated that review
    vouches for; low-confidence facts in use; facts agents flagged; review rows whose edge is not
    in the graph; and, for every undecided fact whether searched or not, priors: its subject's
    centrality and share of the log, its age, a contradiction (Graphiti invalidated it, or another
    value of its slot is verified). Every undecided fact is listed (ties by key); skipped facts
    wait. Weights: review.queue.weights."""
    rt = runtime({"review.url": review_db}, flags={"review.url": "--review-db"})
    items = run(api.review_queue(rt.settings, group=group, limit=limit))
    if rt.json:
        emit_json([i.to_dict() for i in items])
        return
    if not items:
        click.echo("the queue is empty: every fact is decided or skipped (see graph-trust review history)")
        return
    rows = [[n, f"{i.priority:.2f}", i.edge_uuid or "-", i.status or "unreviewed", shorten(i.fact or "", 50),
             shorten("; ".join(f"{r['rule']}: {r['why']}" for r in i.reasons), 90)]
            for n, i in enumerate(items, start=1)]
    click.echo(table(rows, ["#", "priority", "fact (edge uuid)", "status", "fact", "why"]))
    if explain:
        for n, i in enumerate(items, start=1):
            click.echo(f"\n#{n} {i.key}: priority {i.priority:g} = sum of weight x value")
            parts = [[r["rule"], f"{r['value']:g}", f"{r['weight']:g}", f"{r['score']:g}",
                      ", ".join(f"{k}={v}" for k, v in r["numbers"].items())] for r in i.reasons]
            click.echo(table(parts, ["part", "value", "weight", "score", "numbers"]) if parts
                       else "  no part has evidence on it: listed so the queue never runs out")


@review.command(epilog="""
\b
Examples:
  graph-trust review serve --reviewer alice                  # http://127.0.0.1:8765
  graph-trust review serve --port 9000 --review-db review.sqlite3
  GRAPH_TRUST_REVIEWER=alice graph-trust review serve --graph falkordb://localhost:6379
""")
@click.option("--host", default=None, metavar="ADDR",
              help="Address to bind (default: review.page.host, 127.0.0.1: this machine only).")
@click.option("--port", type=int, default=None, metavar="N", help="Port (default: review.page.port, 8765).")
@click.option("--reviewer", default=None, metavar="NAME",
              help="Who decides on the page (default: review.page.reviewer or $GRAPH_TRUST_REVIEWER); without "
                   "one, and without review.page.identity_header, decisions are refused.")
@REVIEW_DB
@common_options
def serve(host: str | None, port: int | None, reviewer: str | None, review_db: str | None) -> None:
    """Serve the review page: the queue (ranked as `review queue` ranks it, with why), each fact
    with its competitors, provenance (episodes), confidence factors and the searches it appeared
    in, and promote / corroborate / reject / expire with a reason, undo, and keyboard shortcuts.
    Decisions go through the same library calls as `review promote ...` (audit trail, override
    policy). Writes need a reviewer identity (review.page.reviewer, or the header a trusted proxy
    sets: review.page.identity_header) and the page's CSRF token. Stop with Ctrl-C."""
    rt = runtime({"review.url": review_db, "review.page.host": host, "review.page.port": port,
                  "review.page.reviewer": reviewer},
                 flags={"review.url": "--review-db", "review.page.host": "--host", "review.page.port": "--port",
                        "review.page.reviewer": "--reviewer"})
    run(api.serve_review_page(rt.settings))
