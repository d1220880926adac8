"""``graph-trust relink``: point orphaned candidates at the edges of a migrated graph."""

from __future__ import annotations

import click

from graph_trust import api
from graph_trust.cli.common import ProgressBars, common_options, emit_json, run, runtime, shorten, table

EXAMPLES = """
\b
Examples:
  graph-trust relink --review-db review.sqlite3 --dry-run     # what would be relinked, and why
  graph-trust relink --review-db review.sqlite3               # write, journaled (run id printed)
  graph-trust relink --group tenant_a --min-similarity 0.6 --json
  graph-trust rollback RUN_ID                                 # restore the old evidence JSON
  graph-trust sync --relink                                   # relink, then sync, in one run
"""

SHOWN = 20


@click.command(epilog=EXAMPLES)
@click.option("--review-db", default=None, metavar="PATH|URL",
              help="Review DB (default: config review.url or $GRAPH_TRUST_REVIEW_DB).")
@click.option("--dry-run", is_flag=True, help="Match and report; write nothing to the review DB.")
@click.option("--min-similarity", type=click.FloatRange(0, 1), default=None, metavar="X",
              help="Fact similarity a similar match needs (default: config relink.min_similarity, 0.5).")
@click.option("--margin", type=click.FloatRange(0, 1), default=None, metavar="M",
              help="Lead over the runner-up a match needs, else ambiguous (default: relink.margin, 0.05).")
@click.option("--group", default=None, metavar="G", help="Only candidates of this group id.")
@common_options
def relink(review_db: str | None, dry_run: bool, min_similarity: float | None, margin: float | None,
           group: str | None) -> None:
    """Relink candidates whose evidence edge uuid vanished (re-extraction, migration).

    Each orphaned candidate (evidence_refs_json[0].evidence_id names no RELATES_TO edge of
    its group) is matched to an edge of the current graph, subject to source and object to
    target (an edge the other way is a different fact): exactly by subject, predicate and
    object (names normalized: case, spacing, hyphens, punctuation); else the one edge from the
    subject to the object (predicate renamed; several: the most similar fact); else by fact
    similarity among edges whose endpoints plausibly match, above --min-similarity and
    --margin ahead of the runner-up. Similarity is BM25 plus cosine with the embedder
    search.embedder configures, where it reproduces the graph's stored embeddings; BM25
    alone otherwise (the report says so). An edge that a candidate with a different fact
    holds or takes is ambiguous. Ambiguous and unmatched candidates are reported, never written. Writes change only
    element 0's evidence_id (the old one is kept in previous_evidence_ids), in one
    transaction journaled for 'graph-trust rollback RUN_ID'. Run 'graph-trust sync' after.
    """
    rt = runtime({"review.url": review_db, "relink.min_similarity": min_similarity,
                  "relink.margin": margin})
    with ProgressBars(rt.quiet) as bars:
        report = run(api.relink(rt.settings, dry_run=dry_run, group=group, progress=bars.at))
    for w in report.warnings:
        click.echo(f"warning: {w}", err=True)
    if rt.json:
        emit_json(report.to_dict())
        return
    click.echo(render(report.to_dict()))


def render(d: dict) -> str:
    """The human summary of a relink report."""
    verb = "would relink" if d["dry_run"] else "relinked"
    lines = [
        f"run {d['run_id']}{' (dry run)' if d['dry_run'] else ''}: {d['candidates_read']} candidates read, "
        f"{d['orphaned']} orphaned, {d['edges_read']} edges read",
        f"{verb}: {len(d['relinked_exact'])} exact, {len(d['relinked_endpoints'])} by endpoints, "
        f"{len(d['relinked_similar'])} similar; "
        f"{len(d['ambiguous'])} ambiguous, {len(d['unmatched'])} unmatched, {len(d['quarantined'])} quarantined"
        + (f", {len(d['conflicts'])} conflicts" if d["conflicts"] else ""),
    ]
    for gid, v in sorted(d.get("similarity", {}).items()):
        how = "BM25 + cosine" if v["method"] == "bm25+cosine" else f"BM25 only (lexical): {v['reason']}"
        lines.append(f"similarity in group {gid or '(default)'}: {how} [{v['embedder']}]")
    for key in ("relinked_exact", "relinked_endpoints", "relinked_similar", "ambiguous", "unmatched", "quarantined", "conflicts"):
        items = d[key]
        if not items:
            continue
        rows = []
        for e in items[:SHOWN]:
            target = e.get("new_evidence_id") or ", ".join(
                f"{t['uuid'][:8]} {t['score']}" for t in e.get("top", [])) or "-"
            rows.append([e["id"], target, shorten(e["reason"], 90)])
        lines += ["", f"{key} ({len(items)}):", table(rows, ["candidate", "edge / top two", "reason"])]
        if len(items) > SHOWN:
            lines.append(f"... {len(items) - SHOWN} more (use --json)")
    if d["written"]:
        lines += ["", f"{d['written']} rows written; undo with: graph-trust rollback {d['run_id']}",
                  "next: graph-trust sync"]
    return "\n".join(lines)
