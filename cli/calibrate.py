"""``graph-trust calibrate``: what a trust weight can overtake, at each RRF constant."""

from __future__ import annotations

import click

from graph_trust import api
from graph_trust.api import DEFAULT_RANK_CONSTS
from graph_trust.cli.common import common_options, emit_json, runtime, table
from graph_trust.errors import InputError

EXAMPLES = """
\b
Examples:
  graph-trust calibrate                        # configured weight and form, rank_const 1 and 60
  graph-trust calibrate --form additive --trust-weight 0.15 --rank-const 1
  graph-trust calibrate --trust-weight 0.3 --max-rank 30
  graph-trust calibrate --methods 1 --json
"""


def _rank_consts(value: str | None) -> tuple[float, ...]:
    if value is None:
        return DEFAULT_RANK_CONSTS
    try:
        out = tuple(float(v) for v in value.split(",") if v.strip())
    except ValueError:
        raise InputError(f"--rank-const: expected numbers like 1,60, got {value!r}") from None
    if not out or any(not k > 0 or k != k or k == float("inf") for k in out):
        raise InputError(f"--rank-const: every constant must be a finite number > 0, got {value!r}")
    return out


@click.command(epilog=EXAMPLES)
@click.option("--trust-weight", default=None, metavar="W",
              help="Boost weight in [0, 1] (default: config search.trust_weight).")
@click.option("--form", "form", type=click.Choice(["additive", "supported"]), default=None,
              help="Boost form (default: config search.boost_form). additive: fused + trust x W; "
                   "supported: fused + trust x W x support.")
@click.option("--rank-const", "rank_consts", default=None, metavar="K1,K2",
              help="RRF constants to show, comma-separated (default: 1,60 - Graphiti's today and "
                   "upstream's proposal).")
@click.option("--methods", type=click.IntRange(1, 3), default=2, show_default=True,
              help="Candidate lists fused (BM25 + cosine = 2).")
@click.option("--max-rank", type=click.IntRange(2, 200), default=20, show_default=True)
@common_options
def calibrate(trust_weight: str | None, form: str | None, rank_consts: str | None, methods: int,
              max_rank: int) -> None:
    """For trust 1.0, 0.6 and 0.25: the best unboosted rank an item at rank r overtakes.

    An item ranked r in every method has fused score methods / (r - 1 + rank_const); with
    trust t it gains t x W (additive) or t x W x fused (supported). One table per RRF
    constant: at 60 fused scores are about 60 times smaller, so an additive weight overtakes
    far more there. Trust below search.min_boost_trust gains nothing. '-' means it overtakes
    nothing (a tie keeps the better-ranked item first). Real items are rarely ranked alike by
    both methods at the top; `graph-trust search --json` shows each item's ranks.
    """
    rt = runtime({"search.trust_weight": trust_weight, "search.boost_form": form},
                 flags={"search.trust_weight": "--trust-weight"})
    s = rt.settings.search
    tiers = api.DEFAULT_TIERS
    tables = api.calibrate(rt.settings, rank_consts=_rank_consts(rank_consts), methods=methods, max_rank=max_rank,
                           tiers=tiers)
    if rt.json:
        emit_json({"trust_weight": s.trust_weight, "boost_form": s.boost_form, "min_boost_trust": s.min_boost_trust,
                   "methods": methods,
                   "tables": [{"rank_const": k, "rows": [{"rank": r.rank, "fused": r.fused,
                                                           "overtakes": {f"{t:g}": r.overtakes[t] for t in tiers}}
                                                          for r in rows]} for k, rows in tables.items()]})
        return
    for n, (k, rows) in enumerate(tables.items()):
        click.echo(("\n" if n else "") + f"trust_weight={s.trust_weight:g}  boost_form={s.boost_form}  "
                   f"min_boost_trust={s.min_boost_trust:g}  rank_const={k:g}  methods={methods}\n")
        body = [[f"#{r.rank}", f"{r.fused:.4f}", *[(f"#{r.overtakes[t]}" if r.overtakes[t] else "-") for t in tiers]]
                for r in rows]
        click.echo(table(body, ["rank", "fused", *[f"trust {t:g} overtakes" for t in tiers]]))
