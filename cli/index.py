"""``graph-trust index status | check | rebuild``: the exact vector stores, the vector indexes,
their measured recall and the cosine stage search chooses for each graph."""

from __future__ import annotations

from typing import Any

import click

from graph_trust import api
from graph_trust.cli.common import ProgressBars, common_options, emit_json, run, runtime, shorten, table

KIND_WORD = {"edge": "edges", "node": "entities"}


@click.group(epilog="""
\b
Examples:
  graph-trust index status                      # every group: index, recall, the stage search uses and why
  graph-trust index check --group ops           # measure the recall of ops's indexes now
  graph-trust index rebuild --group ops --kind edge   # rebuild ops's store, recreate its edge index
""")
def index() -> None:
    """The exact vector stores and HNSW vector indexes behind search's cosine stage.

    With search.cosine auto (the default) search takes the exact top k from a graph's exact
    vector store wherever init, index rebuild or sync built one (state_dir/vectors, kept fresh
    against Graphiti's writes at each search). Without one, a graph's index is used only when
    the graph holds at least search.cosine_index_min_size items and the index's recall@10,
    measured on the graph's own embeddings against an exact scan, is at least
    vector_index.min_recall; otherwise search scans, as Graphiti does. init, index check and
    sync measure it; index status shows it.
    """


@index.command(epilog="""
\b
Examples:
  graph-trust index status
  graph-trust index status --group ops --json
""")
@click.option("--group", "groups", multiple=True, metavar="G", help="Only this group's graph (repeatable).")
@common_options
def status(groups: tuple[str, ...]) -> None:
    """Show each graph's exact vector store, vector indexes, their measured recall@10 and the
    cosine stage search uses (store, index or scan) with the reason. Reads only: nothing is
    measured or created."""
    rt = runtime()
    out = run(api.index_status(rt.settings, list(groups) or None))
    if rt.json:
        emit_json(out)
        return
    _print(out)


@index.command(epilog="""
\b
Examples:
  graph-trust index check                 # every graph with a filled index
  graph-trust index check --stale         # only those never measured, or measured on another size or index
  graph-trust index check --group ops --json
""")
@click.option("--group", "groups", multiple=True, metavar="G", help="Only this group's graph (repeatable).")
@click.option("--stale", "stale_only", is_flag=True,
              help="Measure only indexes never measured, or whose graph or index changed since.")
@common_options
def check(groups: tuple[str, ...], stale_only: bool) -> None:
    """Measure the recall@10 of each vector index against an exact scan of the stored
    embeddings (queries sampled from the graph's own embeddings: as stored, perturbed, and
    halfway between two; the hardest kind's recall counts), exploring wider step by step up to
    vector_index.max_ef until vector_index.min_recall holds, and keep the result in the state
    store, where search reads it."""
    rt = runtime()
    with ProgressBars(rt.quiet) as bars:
        out = run(api.index_check(rt.settings, list(groups) or None, stale_only=stale_only, progress=bars))
    if rt.json:
        emit_json(out)
        return
    measured = out["measured"]
    click.echo("measured: " + (", ".join(f"{g} {KIND_WORD[k]} ({why})" for g, kinds in measured.items()
                                         for k, why in kinds.items()) or "nothing"))
    _print(out)


@index.command(epilog="""
\b
Examples:
  graph-trust index rebuild --group ops
  graph-trust index rebuild --kind edge --json
""")
@click.option("--group", "groups", multiple=True, metavar="G", help="Only this group's graph (repeatable).")
@click.option("--kind", "kinds", multiple=True, type=click.Choice(["edge", "node"]),
              help="Only the edge (fact) or node (entity) index (repeatable; default both).")
@common_options
def rebuild(groups: tuple[str, ...], kinds: tuple[str, ...]) -> None:
    """Rebuild each graph's exact vector store (vector_index.store) and, where the settings create
    vector indexes (vector_index.enabled; by default only with the store off), drop and recreate
    them with the HNSW parameters for the graph's current size (vector_index.m and
    ef_construction, or by size when unset), wait until they are filled, then measure them.
    Searches keep working meanwhile: on the previous store, or a scan of the graph."""
    rt = runtime()
    with ProgressBars(rt.quiet) as bars:
        out = run(api.index_rebuild(rt.settings, list(groups) or None, list(kinds) or None, progress=bars))
    if rt.json:
        emit_json(out)
        return
    for name, kinds_out in out["graphs"].items():
        for kind, r in kinds_out.items():
            params = f" (M {r['M']}, efConstruction {r['efConstruction']})" if "M" in r else ""
            choice = r["status_after"]["choice"]
            store = r.get("store") or {}
            built = f"store {store['status']} ({store['items']:,}); " if store.get("items") is not None else ""
            click.echo(f"{name} {KIND_WORD[kind]}: {built}index {r['status']}{params}; search uses the {choice['stage']}: "
                       f"{choice['reason']}")


def _print(out: dict[str, Any]) -> None:
    click.echo(f"{out['graph']} (search.cosine {out['cosine']})")
    rows = []
    for name, kinds in out["graphs"].items():
        for kind, e in kinds.items():
            ix = e["index"]
            if ix == "unsupported":
                shown = "unsupported"
            elif ix is None:
                shown = "none"
            else:
                shown = f"M {ix.get('M')} efC {ix.get('efConstruction')}" + (
                    "" if ix.get("ready", True) else f" filling {int(100 * (ix.get('filled') or 0))}%")
            m = e["measurement"]
            recall = "-" if m is None else " ".join(f"{s['recall']:.3f}@k{s['k']}" for s in m["ladder"])
            ties = "-" if m is None else f"{m['tie_share']:.0%}"
            c = e["choice"]
            st = e.get("store")
            rows.append([name, KIND_WORD[kind], f"{e['items']:,}", "-" if st is None else f"{st['items']:,}", shown,
                         recall, ties, c["stage"], shorten(c["reason"], 100)])
    click.echo(table(rows, ["graph", "kind", "items", "store", "index", "recall@10", "ties", "search uses", "why"]))
