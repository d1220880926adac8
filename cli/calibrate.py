"""``graph-trust calibrate``: what a trust weight can overtake."""

from __future__ import annotations

import click

from graph_trust.calibrate import calibration_table
from graph_trust.cli.common import common_options, emit_json, runtime, table

EXAMPLES = """
\b
Examples:
  graph-trust calibrate                        # weight 0.15, rank_const 1, two methods
  graph-trust calibrate --trust-weight 0.3 --max-rank 30
  graph-trust calibrate --methods 1 --json
"""


@click.command(epilog=EXAMPLES)
@click.option("--trust-weight", type=click.FloatRange(0, 1), default=None, metavar="W",
              help="Boost weight (default: config or 0.15).")
@click.option("--rank-const", type=click.FloatRange(min=0, min_open=True), default=None, metavar="K",
              help="RRF rank constant (default: config or 1, Graphiti's).")
@click.option("--methods", type=click.IntRange(1, 3), default=2, show_default=True,
              help="Candidate lists fused (BM25 + cosine = 2).")
@click.option("--max-rank", type=click.IntRange(2, 200), default=20, show_default=True)
@common_options
def calibrate(trust_weight: float | None, rank_const: float | None, methods: int, max_rank: int) -> None:
    """For trust 1.0, 0.6 and 0.25: the best unboosted rank an item at rank r overtakes.

    An item ranked r in every method has fused score methods / (r - 1 + rank_const); with
    trust t it gains t x weight. '-' means it overtakes nothing (a tie keeps the
    better-ranked item first).
    """
    rt = runtime({"search.trust_weight": trust_weight, "search.rank_const": rank_const})
    w, k = rt.settings.search.trust_weight, rt.settings.search.rank_const
    tiers = tuple(sorted({1.0, 0.6, 0.25}, reverse=True))
    rows = calibration_table(w, k, methods, max_rank, tiers)
    if rt.json:
        emit_json({"trust_weight": w, "rank_const": k, "methods": methods,
                   "rows": [{"rank": r.rank, "fused": r.fused,
                             "overtakes": {f"{t:g}": r.overtakes[t] for t in tiers}} for r in rows]})
        return
    click.echo(f"trust_weight={w:g}  rank_const={k:g}  methods={methods}\n")
    body = [[f"#{r.rank}", f"{r.fused:.4f}", *[(f"#{r.overtakes[t]}" if r.overtakes[t] else "-") for t in tiers]]
            for r in rows]
    click.echo(table(body, ["rank", "fused", *[f"trust {t:g} overtakes" for t in tiers]]))
