"""The confidence model's operator commands: confidence, verify-fact, record-usage, vote,
contradictions, stale, credibility. They read and write only the review DB."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from graph_trust import api
from graph_trust.api import FACTORS, OUTCOMES, RISK_THRESHOLDS, VERDICTS, VOTES
from graph_trust.api import confidence_ops as ops
from graph_trust.cli.common import common_options, emit_json, runtime, table

REVIEW_DB_HELP = "Review DB (default: review.url or $GRAPH_TRUST_REVIEW_DB). `graph-trust review init` adds the tables."
BY_HELP = "The acting agent's id (recorded with the write)."


def review_db_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--review-db", default=None, metavar="PATH|URL",
                        help=REVIEW_DB_HELP)(fn)


def _ask(review_db: str | None, call: Callable[[Any], Any], *, trust: bool = False) -> tuple[Any, Any]:
    """(runtime, ``call(store)``) on the review DB's confidence store, closed afterwards; the
    result is printed as JSON under --json (the caller then prints nothing). ``trust``: the result
    is one fact's confidence; add the trust_score sync would write for it (``trust``)."""
    rt = runtime()
    with api.confidence_store(rt.settings, review_db) as store:
        out = call(store)
    if trust:
        out = {**out, "trust": api.confidence_trust_of(rt.settings, out)}
    if rt.json:
        emit_json(out)
    return rt, out


class _FactIdGroup(click.Group):
    """``confidence ID`` runs ``confidence show ID``; ``learn``, ``weights`` and ``revert`` are
    subcommands (a fact whose id is one of those names: ``confidence show ID``)."""

    def resolve_command(self, ctx: click.Context, args: list[str]):
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["show", *args]
        return super().resolve_command(ctx, args)


@click.group(cls=_FactIdGroup, subcommand_metavar="ID | COMMAND [ARGS]...", epilog="""
\b
Examples:
  graph-trust confidence fact-42 --review-db review.sqlite3
  graph-trust confidence fact-42 --risk high --json
  graph-trust confidence learn                 # fit weights to recorded outcomes, report only
  graph-trust confidence learn --apply         # use them (journaled; `confidence revert` undoes)
""")
def confidence() -> None:
    """How far to trust a fact: score, level, the seven factors behind it, and what to do.

    confidence = 0.20 freshness + 0.20 source + 0.15 verification + 0.15 consensus
    + 0.10 contradiction + 0.10 success + 0.10 context (confidence.weights). Levels:
    very_high >= 0.85, high >= 0.70, medium >= 0.55, low >= 0.40, very_low below.
    """


@confidence.command("show", epilog="""
\b
Examples:
  graph-trust confidence show fact-42 --review-db review.sqlite3
  graph-trust confidence fact-42 --risk critical
""")
@click.argument("fact_id", metavar="ID")
@click.option("--risk", type=click.Choice(list(RISK_THRESHOLDS)), default=None,
              help="Also say whether to act for an action of this risk (thresholds: low 0.40, medium 0.60, "
                   "high 0.75, critical 0.90; within 0.1 below: verify first).")
@review_db_option
@common_options
def show(fact_id: str, risk: str | None, review_db: str | None) -> None:
    """Score, level and factor breakdown of the fact ID (its edge uuid, as search and context show it,
    or a review candidate id; an edge several candidates cite answers for the one its trust comes
    from, chosen as sync chooses it), and the
    trust_score sync writes for it (sync.trust_mode: its tier, or the tier blended with this
    confidence) when it is its edge's winning candidate."""
    rt, out = _ask(review_db, lambda s: ops.fact_confidence(s, fact_id, risk), trust=True)
    if rt.json:
        return
    named = fact_id if out["id"] == fact_id.strip() else f"{fact_id} (candidate {out['id']})"
    click.echo(f"{named}: confidence {out['score']:.3f} ({out['level']}): {out['description']}")
    rows = [[f, f"{out['factors'][f]:.3f}", f"{out['weights'][f]:.2f}",
             f"{out['factors'][f] * out['weights'][f]:.3f}"] for f in FACTORS]
    click.echo(table(rows, ["factor", "score", "weight", "contributes"]))
    i = out["inputs"]
    click.echo(f"author {i['author'] or '-'} · category {i['category']} · age {i['age_days']:.1f} d · "
               f"verification {i['verification_level']} ({i['verifiers']}) · {i['agents_agreeing']} agent(s) agree · "
               f"{i['votes']} vote(s) · {i['contradictions_lost']} contradiction(s) lost · {i['uses']} use(s)")
    t = out["trust"]
    if not t["known_status"]:
        click.echo(f"trust: none (status {t['status']!r} is not in sync.tiers: sync quarantines it)")
    elif t["tier"] is None or not t["confidence_weight"] or t["tier"] <= 0:
        click.echo(f"trust sync writes (trust_mode {t['trust_mode']}): "
                   f"{'none' if t['trust_score'] is None else format(t['trust_score'], '.3f')}, the {t['status']} tier")
    else:
        w = t["confidence_weight"]
        click.echo(f"trust sync writes (trust_mode confidence): {t['tier']:.3f} ({t['status']} tier) x "
                   f"(1 - {w:g} + {w:g} x {out['score']:.3f}) = {t['trust_score']:.3f}")
    if "decision" in out:
        d = out["decision"]
        click.echo(f"{risk} risk: {'act' if d['should_act'] else 'do not act yet'}: {d['recommendation']} "
                   f"({d['reasoning']})")


@confidence.command(epilog="""
\b
Examples:
  graph-trust confidence learn --review-db review.sqlite3
  graph-trust confidence learn --apply --json
""")
@click.option("--apply", is_flag=True, help="Use the fitted weights from now on (a journaled record in the review "
                                              "DB that overrides confidence.weights; `confidence revert` undoes it).")
@review_db_option
@common_options
def learn(apply: bool, review_db: str | None) -> None:
    """Fit the factor weights to recorded usage outcomes (logistic regression) and show the
    calibration (success rate per confidence band, and at or above 0.8) before and after.

    Needs at least 20 outcomes recorded with `graph-trust record-usage`, not all alike.
    """
    rt, out = _ask(review_db, lambda s: s.learn(apply))
    if rt.json:
        return
    click.echo(f"{out['outcomes']} outcomes; factors that varied: {', '.join(out['learned']) or 'none'}")
    click.echo(table([[f, f"{out['weights_before'][f]:.3f}", f"{out['weights_after'][f]:.3f}",
                       f"{out['coefficients'][f]:+.3f}"] for f in FACTORS],
                     ["factor", "weight before", "weight after", "coefficient"]))
    for when in ("before", "after"):
        cal = out[f"calibration_{when}"]
        click.echo(f"\ncalibration {when} (Brier {cal['brier']}):")
        click.echo(table([[b["level"], b["uses"], "-" if b["success_rate"] is None else f"{b['success_rate']:.2f}"]
                          for b in cal["bands"]] +
                         [[">= 0.8", cal["at_or_above_0_8"]["uses"],
                           "-" if cal["at_or_above_0_8"]["success_rate"] is None
                           else f"{cal['at_or_above_0_8']['success_rate']:.2f}"]],
                         ["band", "uses", "success rate"]))
    click.echo("\napplied as change " + str(out["applied"]["change_id"]) if out["applied"]
               else "\nnot applied (rerun with --apply to use these weights)")


@confidence.command(epilog="\b\nExample:\n  graph-trust confidence weights --json")
@review_db_option
@common_options
def weights(review_db: str | None) -> None:
    """The weights in use and the journal of learned changes (newest first)."""
    rt, out = _ask(review_db, lambda s: {"weights": s.weights, "changes": s.weight_changes()})
    if rt.json:
        return
    click.echo("in use: " + ", ".join(f"{f} {out['weights'][f]:.3f}" for f in FACTORS))
    for c in out["changes"]:
        click.echo(f"change {c['change_id']} applied {c['applied_at']}"
                   + (f", reverted {c['reverted_at']}" if c["reverted_at"] else " (in use)"))


@confidence.command(epilog="\b\nExamples:\n  graph-trust confidence revert\n  graph-trust confidence revert 3")
@click.argument("change_id", type=click.IntRange(min=1), required=False)
@review_db_option
@common_options
def revert(change_id: int | None, review_db: str | None) -> None:
    """Undo a learned weight change (the latest in use by default) and any applied after it."""
    rt, out = _ask(review_db, lambda s: s.revert(change_id))
    if not rt.json:
        click.echo(f"reverted change(s) {', '.join(map(str, out['reverted']))}; weights in use: "
                   + ", ".join(f"{f} {out['weights'][f]:.3f}" for f in FACTORS))


def _echo(rt, text: str) -> None:
    if not rt.json:
        click.echo(text)


@click.command("verify-fact", epilog="""
\b
Examples:
  graph-trust verify-fact fact-42 --type confirmed --by db-agent
  graph-trust verify-fact fact-42 --type outdated --by ops --notes "port moved to 9300"
""")
@click.argument("fact_id", metavar="ID")
@click.option("--type", "verdict", type=click.Choice(VERDICTS), required=True,
              help="confirmed, still_valid and partially_valid confirm the fact (and reset its freshness clock); "
                   "outdated and incorrect refute it.")
@click.option("--by", "by", required=True, metavar="AGENT", help=BY_HELP)
@click.option("--notes", default=None, help="Free text kept with the verification.")
@review_db_option
@common_options
def verify_fact(fact_id: str, verdict: str, by: str, notes: str | None, review_db: str | None) -> None:
    """Record that AGENT checked the fact ID (an edge uuid or a candidate id) and found it VERDICT."""
    rt, out = _ask(review_db, lambda s: ops.verify_fact(s, fact_id, verdict, by, notes))
    _echo(rt, f"{fact_id}: {verdict} by {by}; confidence now {out['confidence']:.3f}")


@click.command("record-usage", epilog="""
\b
Examples:
  graph-trust record-usage fact-42 --outcome success --by deploy-bot --action "connected to es:9200"
  graph-trust record-usage fact-42 --outcome failure --by deploy-bot --action "restart" --json
""")
@click.argument("fact_id", metavar="ID")
@click.option("--outcome", type=click.Choice(OUTCOMES), required=True,
              help="success counts 1, partial 0.5, failure and error 0 in the success rate.")
@click.option("--by", "by", required=True, metavar="AGENT", help=BY_HELP)
@click.option("--action", required=True, metavar="TEXT", help="What was done relying on the fact.")
@review_db_option
@common_options
def record_usage(fact_id: str, outcome: str, by: str, action: str, review_db: str | None) -> None:
    """Record that AGENT acted on the fact ID (an edge uuid or a candidate id) and how it went (also
    learning data: the fact's
    confidence at the time is kept with the outcome)."""
    rt, out = _ask(review_db, lambda s: ops.record_usage(s, fact_id, outcome, by, action))
    _echo(rt, f"{fact_id}: {outcome} recorded for {by} (confidence at use {out['confidence_before']:.3f})")


@click.command(epilog="""
\b
Examples:
  graph-trust vote fact-42 agree --confidence 0.9 --by es-specialist
  graph-trust vote fact-42 disagree --confidence 0.6 --by ops --reasoning "saw 9300 in the config"
""")
@click.argument("fact_id", metavar="ID")
@click.argument("vote", type=click.Choice(VOTES))
@click.option("--confidence", type=click.FloatRange(0, 1), required=True, metavar="X",
              help="How sure the voter is, 0 to 1 (the vote weighs X times the voter's credibility).")
@click.option("--by", "by", required=True, metavar="AGENT", help=BY_HELP)
@click.option("--reasoning", default=None, help="Why (kept with the vote).")
@review_db_option
@common_options
def vote(fact_id: str, vote: str, confidence: float, by: str, reasoning: str | None, review_db: str | None) -> None:
    """Record AGENT's vote on the fact ID, an edge uuid or a candidate id (one vote per agent; a new vote
    replaces the old)."""
    rt, out = _ask(review_db, lambda s: ops.vote(s, fact_id, vote, confidence, by, reasoning))
    _echo(rt, f"{fact_id}: {vote} ({confidence:g}) by {by}; consensus now {out['consensus']:.3f}")


@click.command(epilog="""
\b
Examples:
  graph-trust contradictions --review-db review.sqlite3        # list (writes nothing)
  graph-trust contradictions --resolve --json                  # record and resolve
""")
@click.option("--resolve", is_flag=True,
              help="Record newly detected contradictions and resolve the open ones: temporal (more than 30 days "
                   "apart: newer wins), source credibility (gap above 0.3), consensus (more than 2 more agents), "
                   "the system verification hook, else left flagged for review. Losers lose 0.3 of their "
                   "contradiction factor.")
@review_db_option
@common_options
def contradictions(resolve: bool, review_db: str | None) -> None:
    """Facts with the same subject and predicate but a different object (opposite states and
    differing ports, times or versions are high severity)."""
    rt, out = _ask(review_db, lambda s: ops.contradictions(s, resolve))
    if rt.json:
        return
    rows = [[r["id"], r["a"], r["b"], r["type"], r["severity"], r["strategy"] or "-",
             r["winner"] or ("flagged" if r["strategy"] else "open")] for r in out["recorded"]]
    rows += [["new", r["a"], r["b"], r["type"], r["severity"], "-", "detected"] for r in out["detected_unrecorded"]]
    click.echo(table(rows, ["id", "a", "b", "type", "severity", "strategy", "winner"]) if rows else "no contradictions")
    if out["detected_unrecorded"]:
        click.echo(f"{len(out['detected_unrecorded'])} detected but not recorded: rerun with --resolve")


@click.command(epilog="""
\b
Examples:
  graph-trust stale                            # not created or confirmed in 90 days
  graph-trust stale --days 30 --category infrastructure --json
""")
@click.option("--days", type=click.FloatRange(min=0, min_open=True), default=None, metavar="N",
              help="Age threshold in days (default confidence.stale_days, 90).")
@click.option("--category", default=None, metavar="C", help="Only facts of this category (fact_sources.category).")
@review_db_option
@common_options
def stale(days: float | None, category: str | None, review_db: str | None) -> None:
    """Active facts not created or confirmed within N days, oldest first: what to verify next."""
    rt, out = _ask(review_db, lambda s: ops.stale(s, days, category))
    if rt.json:
        return
    n = out["days"]
    rows = [[f["id"], f"{f['age_days']:.1f}", f["category"], f"{f['freshness']:.3f}", f["verification_level"]]
            for f in out["facts"]]
    click.echo(table(rows, ["id", "age (d)", "category", "freshness", "verification"]) if rows
               else f"no fact older than {n:g} days")


@click.command(epilog="""
\b
Examples:
  graph-trust credibility es-specialist
  graph-trust credibility es-specialist --category infrastructure --json
""")
@click.argument("agent", metavar="AGENT")
@click.option("--category", default=None, metavar="C", help="Only this category (default: every category seen).")
@review_db_option
@common_options
def credibility(agent: str, category: str | None, review_db: str | None) -> None:
    """AGENT's track record and credibility per category: accuracy of its verified facts, experience,
    tenure and corrections, shrunk toward its expertise level below 10 verified facts."""
    rt, out = _ask(review_db, lambda s: ops.credibility(s, agent, category))
    if rt.json:
        return
    click.echo(table([[c["category"], f"{c['credibility']:.3f}", c["expertise"], c["contributions"],
                       f"{c['verified_correct']}/{c['verified_total']}", c["corrections_issued"]]
                      for c in out["categories"]],
                     ["category", "credibility", "expertise", "facts", "verified ok", "corrections"]))


# cli.main's COMMANDS finds commands by attribute name, which is the command's name.
globals().update({"verify-fact": verify_fact, "record-usage": record_usage})
