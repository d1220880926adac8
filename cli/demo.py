"""``graph-trust demo``: load the sample graph, sync its review DB, compare ranks."""

from __future__ import annotations

import click

from graph_trust import api
from graph_trust.cli.common import (
    EXPLAIN_HEADERS,
    common_options,
    emit_json,
    explain_cells,
    graph_option,
    run,
    runtime,
    shorten,
    table,
    trust_cell,
)
from graph_trust.config import DEFAULT_GRAPH, state_path

EXAMPLES = f"""
\b
Examples:
  graph-trust demo                                # its own embedded FalkorDB: {DEFAULT_GRAPH}
  graph-trust demo --json > demo.json
  graph-trust demo --reset                        # the demo's review DB afresh (your decisions, log, flags go)
  graph-trust demo --graph bolt://localhost:7687  # the same on Neo4j (only a graph named here)
  graph-trust demo --embedder wordllama --graph embedded:.graph-trust/wordllama   # graph-trust[wordllama]
"""


@click.command(epilog=EXAMPLES)
@click.option("--limit", "-k", type=click.IntRange(1, 20), default=5, show_default=True)
@click.option("--embedder", type=click.Choice(api.BUILTIN_EMBEDDERS), default="hashing", show_default=True,
              help="What embeds the sample's facts and the queries: hashing (lexical, core install) or wordllama "
                   "(semantic, offline: graph-trust[wordllama]). A graph holds the sample embedded by one of them: "
                   "give the other a graph of its own (--graph).")
@click.option("--reset", is_flag=True,
              help="Start the demo's review DB afresh: the sample's rows only (your review decisions, retrieval log, "
                   "flags and confidence records in it are deleted). Without it a demo keeps them.")
@common_options
def demo(limit: int, embedder: str, reset: bool) -> None:
    """The whole loop: review decisions in, boosted ranks out.

    Loads a bundled operations graph (services, ports, owners, schedules; idempotent),
    syncs its bundled review DB onto it, then shows three queries side by side:
    Graphiti's vanilla order and the trust-boosted order with explanations. Offline.

    The sample goes into the demo's own embedded graph, or into the graph --graph names: never
    into one the configuration or the environment (NEO4J_URI, GRAPH_TRUST_GRAPH) points at.
    Later commands on that graph search with search.embedder: set it (or GRAPH_TRUST_EMBEDDER)
    to the demo's --embedder.

    The demo's review DB (STATE_DIR/demo-review.sqlite3) has every table (review, confidence) from
    the first run. A later demo keeps what you added to it (review decisions, the retrieval log,
    flags, confidence records) and its sync applies your decisions; --reset starts it afresh.
    """
    named = graph_option()
    rt = runtime() if named else runtime({"graph.uri": DEFAULT_GRAPH}, explicit={"graph.database": None})
    kept = not reset and state_path(rt.settings, "demo-review.sqlite3").exists()
    report = run(api.demo(rt.settings, limit=limit, embedder=embedder, reset=reset))
    if rt.json:
        emit_json(report.to_dict())
        return
    load, sync = report.load, report.sync
    whose = "named by --graph" if named else "the demo's own; --graph URI loads the sample elsewhere"
    click.echo(f"graph {report.graph} ({whose}), embedder {report.embedder}: {load.entities_created} entities "
               f"and {load.edges_created} facts loaded "
               f"({load.entities_existing + load.edges_existing} already there)")
    if kept:
        click.echo(f"review DB {report.review_db} kept: your decisions, retrieval log, flags and confidence records "
                   "stay (graph-trust demo --reset starts it afresh)")
    click.echo(f"sync {sync.run_id}: {sync.candidates_read} review decisions read, {sync.edges_set} edges set, "
               f"{sync.edges_unchanged} unchanged, {sync.edges_cleared} cleared, {sync.entities_updated} entities "
               f"updated, {sync.unmatched_count} unmatched (run `graph-trust relink`), "
               f"{sync.quarantined_count} quarantined")
    for q in report.queries:
        click.echo(f"\n=== {q.query!r}  (group {report.group}, limit {limit})")
        rows = []
        for i in range(max(len(q.vanilla), len(q.boosted))):
            v = q.vanilla[i] if i < len(q.vanilla) else None
            b = q.boosted[i] if i < len(q.boosted) else None
            rows.append([
                i + 1,
                trust_cell(v["trust_score"]) if v else "", shorten(v["text"], 44) if v else "",
                trust_cell(b.trust_score) if b else "", shorten(b.text, 44) if b else "",
                _moved(b) if b else "",
            ])
        click.echo(table(rows, ["#", "trust", "Graphiti search_ (vanilla RRF)", "trust", "graph-trust (boosted)",
                                "was"]))
        click.echo("\n" + table([explain_cells(e, 3) for e in q.boosted], EXPLAIN_HEADERS))
    usual = runtime({"graph.uri": None}).settings.graph  # the graph of a command given no --graph
    there = "" if (usual.uri, usual.database) == (rt.settings.graph.uri, rt.settings.graph.database) \
        else f" --graph {report.graph}"
    env = "" if report.embedder == "hashing" else f"GRAPH_TRUST_EMBEDDER={report.embedder} "
    click.echo(f"\ndone in {report.duration_s:.1f} s. Try: {env}graph-trust search \"...\"{there} --explain")


def _moved(e) -> str:  # noqa: ANN001
    if e.rank_without_boost == e.rank:
        return "="
    return f"#{e.rank_without_boost} {'↑' if e.rank < e.rank_without_boost else '↓'}"
