"""``graph-trust eval``: measure rankings against judged queries (yours, or the bundled set)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from graph_trust import api
from graph_trust.cli.common import ProgressBars, common_options, emit_json, run, runtime, table
from graph_trust.config import parse_sets
from graph_trust.errors import ConfigError, InputError

EXAMPLES = """
\b
Examples:
  graph-trust eval --bundled                                # shipped set, 5 review draws
  graph-trust eval --bundled --draws 10 --noise 0.1 --weights 0,0.05,0.15,0.3
  graph-trust eval --bundled --rank-const 1,60              # today's RRF constant and upstream's proposal
  graph-trust eval --bundled --set search.rank_const=60     # the same, one constant
  graph-trust eval --queries q.jsonl --qrels qrels.txt --json > eval.json   # your graph, as synced
  graph-trust eval --bundled --plot quality.png             # needs graph-trust[plot]
  graph-trust eval --bundled --rank trust,composite,confidence   # confidence mode too
  graph-trust eval --bundled --embedder hashing,wordllama   # one table per embedder (graph-trust[wordllama])
  graph-trust eval --queries q.jsonl --qrels qrels.txt --rank trust,confidence --review-db review.sqlite3
  graph-trust eval --bundled --review-budget 5%,10% --draws 3 --plot docs/img/budget.png
  graph-trust eval --bundled --review-budget 23 --review-strategy queue --review-start none --draws 1
  graph-trust eval --bundled --review-budget 5%,10%,40% --review-start none --unseen-share 0.33 --draws 3

\b
queries (JSON Lines): {"id": "q1", "query": "...", "group": "ops", "wrong": ["<fact uuid>"]}
qrels (TREC):         q1 0 <fact uuid> 2      (2 correct answer, 1 related, 0 irrelevant/wrong)
"""


def _parse_numbers(raw: str | None, option: str, lo: float, hi: float) -> list[float] | None:
    """A comma-separated list of finite numbers in [lo, hi]."""
    if raw is None:
        return None
    out = []
    for part in raw.split(","):
        try:
            w = float(part)
        except ValueError:
            raise InputError(f"{option}: {part.strip()!r} is not a number (give e.g. 0,0.05,0.15)") from None
        if not lo <= w <= hi:
            raise InputError(f"{option}: {w:g} is outside [{lo:g}, {hi:g}]")
        out.append(w)
    return out


def _check_plot_available() -> None:
    # matplotlib is an optional dependency (the plot extra): checked before any graph work
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ConfigError("--plot needs matplotlib: pip install 'graph-trust[plot]'") from None


@click.command(name="eval", epilog=EXAMPLES)
@click.option("--queries", "queries_path", type=click.Path(dir_okay=False), default=None,
              help="Judged queries, JSON Lines (id, query, group, wrong, classes).")
@click.option("--qrels", "qrels_path", type=click.Path(dir_okay=False), default=None,
              help="Graded judgments, TREC qrels: 'query_id 0 fact_uuid grade'.")
@click.option("--bundled", is_flag=True,
              help="Use the shipped evaluation set: a temporary embedded graph per review draw, synced "
                   "with the real sync job, its indexes then rebuilt from its data so it ranks as a freshly "
                   "loaded graph does (ignores --graph).")
@click.option("--draws", type=int, default=5, show_default=True, help="Review draws (--bundled).")
@click.option("--noise", type=click.FloatRange(0, 1), default=0.05, show_default=True,
              help="Share of reviewed facts whose decision is flipped (--bundled).")
@click.option("--coverage", type=click.FloatRange(0, 1), default=0.4, show_default=True,
              help="Share of facts in the review DB (--bundled).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the first draw (--bundled).")
@click.option("--quick", is_flag=True, help="Only the first 12 bundled queries (smoke test).")
@click.option("--rank", "ranks", default="trust,noreview,composite", show_default=True,
              help="Rankings to compare with vanilla (Graphiti's search_, always measured): trust, noreview (the "
                   "trust search's rules as if there were no review DB: no trust score, no review status; "
                   "Graphiti's own invalidation still counts: what the rules do before any review), composite, "
                   "confidence (the trust a sync in sync.trust_mode: confidence writes, from the review DB's "
                   "confidence records, at search.trust_weight).")
@click.option("--weights", default=None, metavar="W1,W2,...",
              help="Trust weights to compare (one 'trust@W' ranking each); default search.trust_weight.")
@click.option("--rank-const", "rank_consts", default=None, metavar="C1,C2",
              help="RRF constants to compare (e.g. 1,60: Graphiti's today and upstream's proposal); each trust "
                   "and composite ranking is measured once per constant. Default search.rank_const.")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="A settings key for the trust, composite and confidence rankings (and sync, with --bundled), "
                   "e.g. search.rank_const=60, composite.w_trust=0.2 or sync.confidence_weight=0.8. Repeatable; "
                   "validated like the config file.")
@click.option("--review-db", default=None, metavar="PATH|URL",
              help="Review DB the confidence ranking reads with --queries (default: review.url or "
                   "$GRAPH_TRUST_REVIEW_DB); it needs the confidence tables (graph-trust review init). "
                   "--bundled makes its own per draw.")
@click.option("--embedder", "embedders", default="hashing", show_default=True, metavar="NAME[,NAME]",
              help="What embeds the bundled set's facts and queries (--bundled): hashing (lexical, core install) "
                   "or wordllama (semantic, offline: graph-trust[wordllama]); several, comma-separated, run the "
                   "whole evaluation once each and print one table each (--json: {\"reports\": [...]}, "
                   "--plot: one chart each, named PATH-NAME.png).")
@click.option("--review-budget", "review_budget", default=None, metavar="K[,K2,...]",
              help="Instead of comparing rankings, test the review queue (--bundled): a simulated reviewer decides "
                   "K facts (a share such as 5%, or a count) chosen by each --review-strategy, from each "
                   "--review-start, through the real review commands (gold verdicts, --noise flips); the retrieval "
                   "log comes from one half of the queries (run through search) and nDCG@10 and the wrong answer "
                   "first of the trust search at search.trust_weight are measured on the other half. See "
                   "docs/evaluation.md.")
@click.option("--review-strategy", "review_strategies", default="queue,random", show_default=True,
              metavar="NAME[,NAME]",
              help="With --review-budget: queue (the top of `graph-trust review queue`, read again after each "
                   "decision) and/or random (a seeded random order of the undecided facts).")
@click.option("--review-start", "review_starts", default="none,coverage", show_default=True, metavar="NAME[,NAME]",
              help="With --review-budget: none (the bundled review DB with its reviews removed) and/or coverage "
                   "(the draw's review DB: --coverage of the facts reviewed at random).")
@click.option("--unseen-share", "unseen_share", type=click.FloatRange(0, 0.5), default=None, metavar="SHARE",
              help="With --review-budget: instead of the bundled set, a judged set generated per draw (the bundled "
                   "set's generator, another seed) whose scored half holds SHARE (0 to 0.5) of queries about "
                   "subjects no logged query asks about; the share the log never returned is reported.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None,
              help="Write a PNG chart of nDCG@10 and the wrong-answer-first rate (needs matplotlib).")
@common_options
def eval_cmd(queries_path: str | None, qrels_path: str | None, bundled: bool, draws: int, noise: float,
             coverage: float, seed: int, quick: bool, ranks: str, weights: str | None, rank_consts: str | None,
             sets: tuple[str, ...], embedders: str, review_db: str | None, review_budget: str | None,
             review_strategies: str, review_starts: str, unseen_share: float | None, plot_path: str | None) -> None:
    """Measure how well each ranking puts right facts first.

    Compares Graphiti's own search_ (vanilla RRF), the trust-boosted search at one or more
    weights, the composite rank and, with --rank confidence, the trust of confidence mode, on
    the same graph state, over judged queries. Reports
    nDCG@10, MRR@10 and P@5 of correct answers (grade 2), the wrong-answer-first rate on
    contested queries, per-query wins and losses against vanilla with a paired bootstrap 95%
    interval, losses on clean queries (no wrong answer in the graph), and the settings the
    data supports. Needs graph-trust[eval] (ir-measures).
    """
    ctx = click.get_current_context()
    if review_budget is not None:
        if not bundled:
            raise click.UsageError("--review-budget needs --bundled (the simulated reviewer uses its gold verdicts)")
        flags = {"ranks": "--rank", "weights": "--weights", "rank_consts": "--rank-const"}
        given = [f for o, f in flags.items() if ctx.get_parameter_source(o).name != "DEFAULT"]
        if given:
            raise click.UsageError(f"{given[0]} is not for --review-budget: it "
                                   "measures the trust search at search.trust_weight (set it with --set)")
    elif any(ctx.get_parameter_source(o).name != "DEFAULT" for o in ("review_strategies", "review_starts",
                                                                      "unseen_share")):
        raise click.UsageError("--review-strategy, --review-start and --unseen-share go with --review-budget")
    if bundled == bool(queries_path or qrels_path):
        raise click.UsageError("give either --bundled or both --queries and --qrels")
    if not bundled and not (queries_path and qrels_path):
        raise click.UsageError("--queries and --qrels go together")
    if bundled and review_db:
        raise click.UsageError("--review-db is for --queries/--qrels: --bundled builds a review DB per draw")
    embedder_list = list(dict.fromkeys(e.strip() for e in embedders.split(",") if e.strip()))
    if not bundled and click.get_current_context().get_parameter_source("embedders").name != "DEFAULT":
        raise click.UsageError("--embedder is for --bundled: your graph is searched with search.embedder, "
                               "the embedder that built it")
    unknown = [e for e in embedder_list if e not in api.BUILTIN_EMBEDDERS]
    if unknown or not embedder_list:
        raise click.UsageError(f"--embedder: unknown embedder {(unknown or [embedders])[0]!r}: choose from "
                               f"{', '.join(api.BUILTIN_EMBEDDERS)}")
    overrides = parse_sets(sets)
    rank_list = [r.strip() for r in ranks.split(",") if r.strip() and r.strip() != "vanilla"]
    weight_list = _parse_numbers(weights, "--weights", 0.0, 1.0)
    const_list = _parse_numbers(rank_consts, "--rank-const", 1e-9, 1e6)
    if plot_path:
        _check_plot_available()
    rt = runtime(explicit=overrides)
    api.check_eval_extra()  # fail before any graph work when the extra is missing
    if bundled:
        for name in embedder_list:
            api.embedder_named(name)  # a missing wordllama extra fails before any graph work
    reports = []
    # bars go to stderr: shown when it is a terminal, never under --json
    with ProgressBars(rt.json or not sys.stderr.isatty()) as bars:
        if review_budget is not None:
            for name in embedder_list:
                reports.append(run(api.evaluate_review_budget(
                    rt.settings, budgets=_names(review_budget), strategies=_names(review_strategies),
                    starts=_names(review_starts), draws=draws, noise=noise, coverage=coverage, seed=seed,
                    quick=quick, progress=bars, embedder=name, unseen_share=unseen_share)))
        elif bundled:
            for name in embedder_list:
                reports.append(run(api.evaluate_bundled(
                    rt.settings, ranks=rank_list, weights=weight_list, sets=overrides, draws=draws, noise=noise,
                    coverage=coverage, seed=seed, quick=quick, rank_consts=const_list, progress=bars,
                    embedder=name)))
        else:
            reports.append(run(api.evaluate_judged(rt.settings, queries_path, qrels_path, ranks=rank_list,
                                                   weights=weight_list, sets=overrides, rank_consts=const_list,
                                                   review_db=review_db, progress=bars)))
    charts = [plot_path] if len(reports) == 1 else [_suffixed(plot_path, r.embedder) for r in reports]
    if plot_path:
        for report, chart in zip(reports, charts, strict=True):
            (api.write_plot if review_budget is None else api.write_budget_plot)(report, chart)
    if rt.json:
        emit_json(reports[0].to_dict() if len(reports) == 1 else {"reports": [r.to_dict() for r in reports]})
        return
    click.echo("\n\n".join((render if review_budget is None else render_budget)(r) for r in reports))
    if plot_path:
        click.echo(f"\nchart{'s' if len(charts) > 1 else ''} written to {', '.join(charts)}")


def _names(raw: str) -> list[str]:
    return [p.strip() for p in raw.split(",") if p.strip()]


def _suffixed(path: str | None, name: str | None) -> str | None:
    """PATH.png -> PATH-NAME.png (one chart per embedder)."""
    if path is None:
        return None
    p = Path(path)
    return str(p.with_name(f"{p.stem}-{name}{p.suffix}"))


def render(report: Any) -> str:
    """The quality table, the paired comparison and the recommendation, as text."""
    d = report.to_dict()
    n_draws = max(1, len(d["draws"]))
    head = (f"{d['queries']} queries ({d['contested_queries']} contested, {d['clean_queries']} clean), "
            f"{len(d['draws']) or 'no'} review draw(s), rank_const {d['rank_const']:g}, graph {d['graph']}, "
            f"embedder {d['embedder']}")
    if d["settings"]:
        head += "\nsettings: " + ", ".join(f"{k}={v}" for k, v in d["settings"].items())

    def cell(s: dict[str, Any], pct: bool = False) -> str:
        f = (lambda v: f"{v:.0%}") if pct else (lambda v: f"{v:.3f}")
        return f(s["mean"]) + (f" ±{f(s['std'])}" if n_draws > 1 else "")

    rows = []
    for r in d["methods"]:
        vs = r.get("vs_vanilla")
        rows.append([
            r["name"], cell(r["ndcg@10"]), cell(r["mrr@10"]), cell(r["p@5"]), cell(r["wrong_first"], pct=True),
            "-" if vs is None else f"{vs['ndcg@10_diff']:+.3f} [{vs['ci95'][0]:+.3f}, {vs['ci95'][1]:+.3f}]",
            "-" if vs is None else f"{vs['wins']}/{vs['losses']}/{vs['ties']}",
            "-" if vs is None else f"{vs['clean_losses']['mean']:g} of {d['clean_queries']}",
        ])
    body = table(rows, ["ranking", "nDCG@10", "MRR@10", "P@5", "wrong first", "ΔnDCG@10 vs vanilla [95% CI]",
                        "win/loss/tie", "clean losing >0.05"])
    names = [m["name"] for m in d["methods"]]
    by_class = table([[c["class"], c["queries"]] + [
        f"{c['ndcg@10'][n]:.3f}" + ("" if c["wrong_first"][n] is None else f" ({c['wrong_first'][n]:.0%})")
        for n in names] for c in d["by_class"]], ["class", "queries", *names]) if d["by_class"] else ""
    classes = f"\n\nnDCG@10 by query class (wrong answer first in brackets):\n{by_class}" if by_class else ""
    return f"{head}\n\n{body}{classes}\n\nrecommendation: {d['recommendation']['reason']}"


def render_budget(report: Any) -> str:
    """The review-budget table (one row per starting point, strategy and budget) and the verdict."""
    d = report.to_dict()
    n = len(d["draws"])
    scored = d["rows"][0]["contested_scored"]["mean"] if d["rows"] else 0
    unseen = [x["scored_unseen_by_log"] for x in d["draws"] if "scored_unseen_by_log" in x]
    head = (f"review budget: {d['dataset']} set, {d['facts']} facts, {n} draw(s), embedder {d['embedder']}, "
            f"{d['trust_ranking']} vs vanilla on the held-out half of the queries (log from the other half); "
            f"{scored:g} contested queries scored per draw"
            + (f"; scored queries about subjects the log never returned: {sum(unseen) / len(unseen):.0%}"
               if unseen else ""))

    def pm(s: dict[str, Any], fmt: str) -> str:
        return format(s["mean"], fmt) + (f" ±{format(s['std'], fmt)}" if n > 1 else "")

    rows = [[r["start"], r["strategy"], f"{r['facts']} ({r['share']:.0%})", f"{r['reviewed']['mean']:g}",
             pm(r["ndcg@10"], ".3f"), f"{r['gain']['mean']:+.3f} [{r['gain']['ci95'][0]:+.3f}, "
             f"{r['gain']['ci95'][1]:+.3f}]", f"{pm(r['wrong_first'], '.2f')} (vanilla "
             f"{r['vanilla_wrong_first']['mean']:.2f})", f"{r['wrong_first_reduction']['mean']:+.2f}",
             "-" if r["strategy"] == "start" else f"{r['chosen_by_queue']['mean']:g}/{r['filled_at_random']['mean']:g}"]
            for r in d["rows"]]
    body = table(rows, ["start", "strategy", "budget (facts)", "reviewed", "nDCG@10", "gain vs vanilla [95% CI]",
                        "wrong first", "fewer wrong first", "by queue/random"])
    a = d["acceptance"]
    if not a.get("evaluated"):
        verdict = f"acceptance: not evaluated ({a.get('reason')})"
    else:
        k5, k10, k40 = a["facts"]
        verdict = (f"acceptance (same reviewer, from no review; nDCG@10 / wrong first): queue {k5} facts (5%) "
                   f"{a['queue5']['ndcg@10']:.3f} / {a['queue5']['wrong_first']:.2f}, queue {k10} (10%) "
                   f"{a['queue10']['ndcg@10']:.3f} / {a['queue10']['wrong_first']:.2f}, random {k40} (40%) "
                   f"{a['random40']['ndcg@10']:.3f} / {a['random40']['wrong_first']:.2f}: 5% reaches it "
                   f"{'yes' if a['q5_ndcg'] and a['q5_wrong'] else 'no'}, 10% beats it "
                   f"{'yes' if a['q10_ndcg'] and a['q10_wrong'] else 'no'} ({'met' if a['met'] else 'not met'})")
    return f"{head}\n\n{body}\n\n{verdict}"


eval = eval_cmd  # noqa: A001 - cli/main.py's COMMANDS names a command by its attribute
