"""``graph-trust search``: trust-boosted search with explanations."""

from __future__ import annotations

import dataclasses

import click

from graph_trust import api
from graph_trust.api import TrustContext
from graph_trust.cli.common import (
    EXPLAIN_HEADERS,
    common_options,
    emit_json,
    explain_cells,
    run,
    runtime,
    shorten,
    table,
    trust_cell,
)
from graph_trust.config import RankingSettings

EXAMPLES = """
\b
Examples:
  graph-trust search "when does the billing backup run"
  graph-trust search "auth service port" --explain --limit 5
  graph-trust search "payments owner" --trust-weight 0 --json     # no boost; the ranking rules still apply
  graph-trust search "payments owner" --config vanilla.yaml      # vanilla.yaml: search: {profile: graphiti}
  graph-trust search "billing" --nodes --group ops
  graph-trust search "auth service port" --min-confidence 0.7 --review-db review.sqlite3 --explain
  graph-trust search "billing backup" --actor alice --max-sensitivity low   # as alice may see it
  echo "long question" | graph-trust search -          # query from stdin
"""


@click.command(epilog=EXAMPLES)
@click.argument("query")
@click.option("--edges", "scope", flag_value="edges", default=True, help="Search facts (RELATES_TO edges). Default.")
@click.option("--nodes", "scope", flag_value="nodes", help="Search entities instead of facts.")
@click.option("--limit", "-k", type=click.IntRange(1, 1000), default=None, help="Results to return (default 10).")
@click.option("--trust-weight", default=None, metavar="W",
              help="Boost weight in [0, 1] (default: config, $GRAPHITI_TRUST_WEIGHT, or "
                   f"{RankingSettings.model_fields['trust_weight'].default}).")
@click.option("--group", "groups", multiple=True, metavar="G", help="Restrict to a group (repeatable).")
@click.option("--explain", is_flag=True, help="Show ranks, fused score, trust, boost and the unboosted rank (with "
              "sync.trust_mode confidence and a review DB: also the fact, confidence and factors behind each trust).")
@click.option("--rank", "rank_mode", type=click.Choice(["boost", "composite"]), default="boost", show_default=True,
              help="boost: RRF + trust boost. composite: then rank by trust, recency, relevance and type.")
@click.option("--type", "memory_types", multiple=True, metavar="T",
              help="With --rank composite: keep only these memory types (repeatable).")
@click.option("--min-confidence", default=None, metavar="X",
              help="Drop facts whose confidence (the review DB's confidence model, 0-1) is below X; facts the "
                   "review DB does not know are dropped too. Default: config search.min_confidence, unset (no "
                   "filter, nothing read). Filters the --limit results, so fewer may remain.")
@click.option("--review-db", default=None, metavar="PATH|URL",
              help="The review DB --min-confidence reads (default: review.url or $GRAPH_TRUST_REVIEW_DB).")
@click.option("--actor", default=None, metavar="A",
              help="Search as this caller: access control applies (with --max-sensitivity, --scope). Without any "
                   "of the three, search shows every fact (an operator's view).")
@click.option("--max-sensitivity", default=None, metavar="LEVEL",
              help="Access control: highest sensitivity shown in full (default config context.max_sensitivity); "
                   "one level above is redacted, higher ones are withheld and take no slot.")
@click.option("--scope", "scopes", multiple=True, metavar="X", help="Access control: an allowed scope (repeatable).")
@common_options
def search(query: str, scope: str, limit: int | None, trust_weight: str | None, groups: tuple[str, ...],
           explain: bool, rank_mode: str, memory_types: tuple[str, ...], min_confidence: str | None,
           review_db: str | None, actor: str | None, max_sensitivity: str | None, scopes: tuple[str, ...]) -> None:
    """Search the graph; verified facts rank higher.

    The score is Reciprocal Rank Fusion of BM25 and cosine candidates plus
    trust_score x trust_weight, and the ranking rules of search.profile (negative
    evidence, competing facts, ...). Scores follow the order: a fact a rule moved
    scores what its new place scores (--explain shows the rule and the score it
    had). JSON output has, per result: uuid, text, bm25_rank, cosine_rank, fused,
    trust_score, boost, relation_bonus, final, rank, rank_without_boost, negative,
    moved_by, score_before_move, missing_identifier (the query's identifier a
    fact lacks, so trust did not lift it: search.topic_guard), cosine_stage (and,
    with --min-confidence, confidence), and per relation of the results
    (relations): whether it holds one value (its facts compete) or several, and why
    (--explain prints it too). With --actor, --max-sensitivity or --scope the results are
    what that caller may see: facts above its clearance take no slot (the search goes deeper
    to fill --limit) and the JSON says how many were withheld.
    """
    rt = runtime({"search.trust_weight": trust_weight, "search.min_confidence": min_confidence,
                  "review.url": review_db},
                 flags={"search.trust_weight": "--trust-weight", "search.min_confidence": "--min-confidence",
                        "review.url": "--review-db"})
    if query == "-":
        query = click.get_text_stream("stdin").read()
    pool_limit = limit  # the composite re-ranks what the search returns (it brings nothing in)
    if actor is not None or max_sensitivity is not None or scopes:
        ctx = TrustContext.from_settings(rt.settings, actor_id=actor, max_sensitivity=max_sensitivity, scopes=scopes)
        _print_visible(rt, query, scope, explain, rank_mode, limit, list(memory_types) or None,
                       run(api.search_visible(rt.settings, query, trust_context=ctx, scope=scope, limit=pool_limit,
                                              groups=list(groups) or None)))
        return
    results, confidences = run(api.search_confident(rt.settings, query, scope=scope, limit=pool_limit,
                                                    groups=list(groups) or None))
    if rank_mode == "composite":
        ranked = api.composite_rank(rt.settings, results, scope=scope, limit=limit or rt.settings.search.limit,
                                        memory_types=list(memory_types) or None)
        _print_composite(rt.json, query, scope, results.trust_weight, ranked)
        return
    explanations = results.edge_explanations if scope == "edges" else results.node_explanations
    conf = {} if confidences is None else {"min_confidence": rt.settings.search.min_confidence}
    # in confidence mode, --explain shows the fact and factors behind each edge's trust (review DB)
    behind = (api.confidence_behind(rt.settings, [e.uuid for e in explanations])
              if explain and scope == "edges" and rt.settings.sync.trust_mode == "confidence"
              and (rt.settings.review.url or rt.settings.review.path) else None)
    if rt.json:
        emit_json({"query": query, "scope": scope, "trust_weight": results.trust_weight, **conf,
                   "cosine_stages": results.cosine_stages, "relations": results.relation_verdicts(),
                   "results": [{**e.to_dict(), **({} if confidences is None else {"confidence": confidences[e.uuid]}),
                                **({} if behind is None else {"confidence_behind": behind.get(e.uuid)})}
                               for e in explanations]})
        return
    if not explanations:
        click.echo("no results")
        return
    if explain:
        rows = [explain_cells(e) + ([] if confidences is None else [f"{confidences[e.uuid]:.3f}"])
                + [shorten(e.text, 70)] for e in explanations]
        click.echo(table(rows, EXPLAIN_HEADERS + ([] if confidences is None else ["confidence"]) + ["text"]))
        click.echo("")
        for c in results.cosine_stages:
            click.echo(f"cosine candidates of {c['graph']} ({c['kind']}s): {c['stage']}"
                       + (f", {c['reason']}" if c["reason"] else ""))
        _print_relations(results.relation_verdicts())
        if behind:
            click.echo("\ntrust behind each result (sync.trust_mode confidence: tier x (1 - w + w x confidence)):")
            rows = [[e.rank, b["fact_id"], b["status"], trust_cell(b["tier"]), f"{b['confidence']:.3f}",
                     trust_cell(b["trust_score"]),
                     " ".join(f"{k[:5]} {v:.2f}" for k, v in b["factors"].items())]
                    for e in explanations if (b := behind.get(e.uuid))]
            click.echo(table(rows, ["#", "fact", "status", "tier", "confidence", "trust", "factors"]))
    else:
        rows = [[e.rank, f"{e.final:.4f}", trust_cell(e.trust_score), shorten(e.text, 90)] for e in explanations]
        click.echo(table(rows, ["#", "score", "trust", "text"]))


def _print_composite(as_json: bool, query: str, scope: str, weight: float, ranked: list,
                     counts: dict | None = None) -> None:
    """Every composite dimension per result, plus the boost-stage explanation."""
    if as_json:
        emit_json({"query": query, "scope": scope, "rank": "composite", "trust_weight": weight, **(counts or {}),
                   "results": [
            {"rank": i, "uuid": r.uuid, "text": "[redacted]" if r.record.redacted else r.record.text, "memory_type": r.memory_type, "score": r.score,
             "trust": r.trust, "trust_source": r.trust_source, "recency": r.recency, "relevance": r.relevance,
             "type_boost": r.type_boost, "redacted": r.record.redacted,
             "moved_by": r.moved_by, "score_before_move": r.score_before_move,
             "explanation": _shown(r.record).to_dict() if r.record.explanation else None}
            for i, r in enumerate(ranked, start=1)]})
        return
    if not ranked:
        click.echo("no results")
        return
    rows = [[i, f"{r.score:.3f}", f"{r.trust:.2f}", f"{r.recency:.3f}", f"{r.relevance:.3f}", f"{r.type_boost:.2f}",
             r.memory_type, _text(r.record, 60)] for i, r in enumerate(ranked, start=1)]
    click.echo(table(rows, ["#", "score", "trust", "recency", "relevance", "type", "memory_type", "text"]))


def _print_visible(rt, query: str, scope: str, explain: bool, rank_mode: str, limit: int | None,
                   memory_types: list[str] | None, found) -> None:
    """A search as a trust context sees it: redacted facts as [redacted], the withheld counted."""
    counts = {"denied": found.denied, "unknown_label": found.unknown_label, "redacted": found.redacted,
              "search_depth": found.search_depth}
    if found.unknown_label:
        click.echo(f"warning: {found.unknown_label} fact(s) withheld for a sensitivity label access.levels and "
                   "access.labels do not know (map it in access.labels)", err=True)
    if rank_mode == "composite":
        ranked = api.composite_rank_records(rt.settings, found.records, found.competitor_keys, scope=scope,
                                            limit=limit or rt.settings.search.limit, memory_types=memory_types)
        _print_composite(rt.json, query, scope, found.trust_weight, ranked, counts)
        return
    conf = found.confidences
    if rt.json:
        emit_json({"query": query, "scope": scope, "trust_weight": found.trust_weight, **counts,
                   "results": [{**_shown(r).to_dict(), "redacted": r.redacted,
                                **({} if conf is None else {"confidence": conf.get(r.uuid)})}
                               for r in found.records if r.explanation is not None]})
        return
    if not found.records:
        click.echo("no results")
    elif explain:
        rows = [explain_cells(_shown(r)) + [_text(r, 70)] for r in found.records if r.explanation is not None]
        click.echo(table(rows, EXPLAIN_HEADERS + ["text"]))
    else:
        rows = [[i, f"{r.explanation.final:.4f}" if r.explanation else "-", trust_cell(r.trust_score), _text(r, 90)]
                for i, r in enumerate(found.records, start=1)]
        click.echo(table(rows, ["#", "score", "trust", "text"]))
    if found.denied:
        click.echo(f"({found.denied} fact(s) above this clearance withheld)")


def _print_relations(verdicts: dict[str, dict[str, str]]) -> None:
    """Per relation of the results: whether its facts compete (it holds one value) and why."""
    for name, v in verdicts.items():
        holds = "one value: its facts compete" if v["holds"] == "single" else "several values: no competitors"
        click.echo(f"relation {name}: {holds} ({v['source']}: {v['reason']})")


def _shown(r):
    """The explanation as shown: a redacted fact's text is [redacted]."""
    return r.explanation if not r.redacted else dataclasses.replace(r.explanation, text="[redacted]")


def _text(r, width: int) -> str:
    return "[redacted]" if r.redacted else shorten(r.text, width)
