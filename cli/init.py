"""``graph-trust init``: create indices and constraints, idempotently."""

from __future__ import annotations

import click

from graph_trust import api
from graph_trust.cli.common import ProgressBars, common_options, emit_json, run, runtime

EXAMPLES = """
\b
Examples:
  graph-trust init                                   # the embedded default
  graph-trust init --graph bolt://localhost:7687     # Neo4j (NEO4J_USER / NEO4J_PASSWORD)
  graph-trust init --group ops --group ops-eu        # FalkorDB: these groups' graphs
"""

KIND_WORD = {"edge": "edges", "node": "entities"}


@click.command(epilog=EXAMPLES)
@click.option("--group", "groups", multiple=True, metavar="G",
              help="FalkorDB: initialise this group's graph (repeatable; default every group).")
@common_options
def init(groups: tuple[str, ...]) -> None:
    """Create Graphiti's indices and constraints and the range indexes sync needs, and build each
    graph's exact vector store (vector_index.store), from which search takes its exact cosine
    candidates (graph-trust index status). With the store off, or vector_index.enabled true, it
    creates HNSW vector indexes on edge and entity embeddings instead (dimension read from the
    stored ones) and measures each one's recall@10 on its graph's own embeddings (where not
    measured yet).

    Safe to run any number of times, on Neo4j and FalkorDB.
    """
    rt = runtime()
    with ProgressBars(rt.quiet) as bars:
        out = run(api.init(rt.settings, list(groups) or None, progress=bars))
    if rt.json:
        emit_json(out)
        return
    click.echo(f"initialised {out['graph']} ({out['dialect']}): {', '.join(out['graphs'])}")
    for name, kinds in out["vector_indexes"].items():
        if all(v["status"] == "not needed" for v in kinds.values()):
            shown = "none (not needed beside the exact vector store)"
        else:
            shown = ", ".join(f"{k}s {v['status']}" + (f" ({v['dimension']} dims)" if v["dimension"] else "")
                              for k, v in kinds.items())
        click.echo(f"  vector indexes of {name}: {shown}")
        built = out.get("vector_stores", {}).get(name)
        if built and any(v["items"] is not None for v in built.values()):
            click.echo(f"  exact vector store of {name}: " + ", ".join(
                f"{KIND_WORD[k]} {v['status']} ({v['items']:,})" for k, v in built.items() if v["items"] is not None))
        for kind, r in out["recall"].get(name, {}).items():
            c = r["choice"]
            click.echo(f"    search of its {kind}s uses the {c['stage']}: {c['reason']}")
