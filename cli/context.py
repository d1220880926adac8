"""``graph-trust context``: the trusted memory block for an agent's prompt."""

from __future__ import annotations

import logging

import click

from graph_trust import api
from graph_trust.api import MEMORY_TYPES, RANK_MODES, OverridePolicy, TrustContext
from graph_trust.cli.common import common_options, emit_json, run, runtime

NOT_WITH_POLICY = {"trust_override": "--trust-override", "min_salience": "--min-salience",
                   "by_salience": "--by-salience", "memory_types": "--type", "limit": "--limit"}

EXAMPLES = """
\b
Examples:
  graph-trust context "when does the billing backup run" --actor alice
  graph-trust context "on-call rules" --max-sensitivity high --scope ops --scope billing
  graph-trust context "deploy policy" --type instruction --type fact --limit 5 --json
  graph-trust context "backup" --unrestricted --rank boost      # everything, search order
  graph-trust context "incident" --actor ops-user --trust-override 0.95 \\
      --approved-by security-reviewer --reason "incident runbook" --request-id INC-42

\b
Retrieval policy (--policy): dedup, interleave, clip, token budget, PII redaction:
  graph-trust context "billing backup" --policy                  # the prompt block
  graph-trust context "billing backup" --policy --json           # memories + metadata
  graph-trust context "backup" --policy --top-k 5 --max-tokens 400 --search-type keyword
  graph-trust context "backup" --policy --metrics-file /var/lib/node_exporter/graph_trust.prom
"""


@click.command(epilog=EXAMPLES)
@click.argument("query")
@click.option("--actor", default=None, metavar="A", help="Who is asking (recorded; also the override actor).")
@click.option("--max-sensitivity", default=None, metavar="LEVEL",
              help="Highest sensitivity shown in full, a level of access.levels (public, low, medium, high, hyper "
                   "by default) or a label of access.labels; one level above is shown redacted "
                   "(default: config context.max_sensitivity, medium).")
@click.option("--scope", "scopes", multiple=True, metavar="X",
              help="Allowed scope (repeatable; a record's scope is its `scope` property, else its group). "
                   "None given: every scope.")
@click.option("--unrestricted", is_flag=True, help="See everything: every sensitivity and scope.")
@click.option("--rank", type=click.Choice(RANK_MODES), default="composite", show_default=True,
              help="composite: trust/recency/relevance/type; boost: the search order.")
@click.option("--type", "memory_types", multiple=True, metavar="T",
              help=f"Only these memory types (repeatable): {', '.join(MEMORY_TYPES)} (the bundled sample's types), "
                   "or a custom type context.layer_order or composite.type_boosts names; another is an error.")
@click.option("--limit", type=click.IntRange(1, 1000), default=None,
              help="Records to keep (default: config composite.max_results, 20).")
@click.option("--group", "groups", multiple=True, metavar="G", help="Restrict to a group (repeatable).")
@click.option("--min-salience", type=click.FloatRange(0, 1), default=None, help="Drop records below this salience.")
@click.option("--by-salience", is_flag=True, help="Sort within each layer by salience instead of rank.")
@click.option("--trust-override", type=float, default=None, metavar="V",
              help="Force trust V for every record (audited; >= 0.90 needs --approved-by and --reason).")
@click.option("--override-source", default="cli", show_default=True, metavar="S",
              help="Source of the override ('system' needs no actor).")
@click.option("--approved-by", default=None, metavar="A", help="Approver of a high override (not the actor).")
@click.option("--reason", default=None, help="Why the override is needed.")
@click.option("--request-id", default=None, metavar="ID", help="Request id recorded in the audit event.")
@click.option("--policy", "use_policy", is_flag=True,
              help="Apply the retrieval policy (config section policy:): memories + metadata, or the prompt block.")
@click.option("--top-k", type=int, default=None, help="[--policy] Memories at most (1-20, default 8).")
@click.option("--max-tokens", type=int, default=None, help="[--policy] Token budget (100-3000, default 1500).")
@click.option("--clip-sentences", type=int, default=None, help="[--policy] Sentences per memory (1-5, default 2).")
@click.option("--min-score", type=float, default=None, help="[--policy] Drop memories scoring below (0-1, default 0.3).")
@click.option("--search-type", type=click.Choice(["hybrid", "semantic", "keyword"]), default=None,
              help="[--policy] hybrid: BM25 + cosine; semantic: cosine; keyword: BM25 (default hybrid).")
@click.option("--interleave", type=click.Choice(["alternate", "score_first", "recency_first"]), default=None,
              help="[--policy] Order: alternate score and recency (default), or one of them first.")
@click.option("--ratio", type=float, default=None,
              help="[--policy] Share of slots from the lead order (0-1; alternate's default 0.5).")
@click.option("--metrics-file", type=click.Path(dir_okay=False), default=None,
              help="[--policy] Write Prometheus metrics here (node-exporter textfile format).")
@common_options
def context(
    query: str,
    actor: str | None,
    max_sensitivity: str | None,
    scopes: tuple[str, ...],
    unrestricted: bool,
    rank: str,
    memory_types: tuple[str, ...],
    limit: int | None,
    groups: tuple[str, ...],
    min_salience: float | None,
    by_salience: bool,
    trust_override: float | None,
    override_source: str,
    approved_by: str | None,
    reason: str | None,
    request_id: str | None,
    use_policy: bool,
    **policy_options: object,
) -> None:
    """Print a "## Trusted Memory Context" block for QUERY, or JSON with every dimension.

    Candidates come from the trust-boosted search; records the trust context may not see
    are dropped (or shown redacted one level above --max-sensitivity), the rest are ranked,
    competing facts (same subject and predicate, different object) are resolved with a
    confidence, and the result is grouped by memory type. QUERY "-" reads stdin.
    """
    if use_policy:
        given = {"trust_override": trust_override, "min_salience": min_salience, "by_salience": by_salience,
                 "memory_types": memory_types, "limit": limit}
        used = [flag for name, flag in NOT_WITH_POLICY.items() if given[name] not in (None, False, ())]
        if used:
            raise click.UsageError(f"--policy does not take {', '.join(used)}")
    elif any(v is not None for v in policy_options.values()):
        raise click.UsageError("--top-k, --max-tokens, --clip-sentences, --min-score, --search-type, "
                               "--interleave, --ratio and --metrics-file need --policy")
    metrics_file = policy_options.pop("metrics_file", None)
    rt = runtime({f"policy.{k}": v for k, v in policy_options.items()})
    if not rt.debug:  # the audit log line would repeat the warning below (the event is stored)
        logging.getLogger("graph_trust.access.audit").setLevel(logging.ERROR)
    if query == "-":
        query = click.get_text_stream("stdin").read()
    if unrestricted and (max_sensitivity or scopes):
        raise click.UsageError("--unrestricted cannot be combined with --max-sensitivity or --scope")
    trust_context = TrustContext.from_settings(rt.settings, actor_id=actor, max_sensitivity=max_sensitivity,
                                               scopes=scopes, unrestricted=unrestricted)
    if use_policy:
        _print_policy(rt, query, trust_context, list(groups) or None, rank, metrics_file)
        return
    policy = None
    if trust_override is not None:
        policy = OverridePolicy(override_source, actor, approved_by, reason, request_id)
    result = run(
        api.context(
            rt.settings,
            query,
            trust_context=trust_context,
            groups=list(groups) or None,
            rank=rank,
            memory_types=list(memory_types) or None,
            trust_override=trust_override,
            override_policy=policy,
            min_salience=min_salience,
            by_salience=by_salience,
            max_results=limit,
        )
    )
    if result.override is not None and not result.override.accepted:
        click.echo(
            "warning: trust override rejected (" + "; ".join(result.override.violations) + "); baseline trust used",
            err=True,
        )
    _warn_unknown_labels(result.unknown_label)
    if rt.json:
        emit_json(result.to_dict())
    else:
        click.echo(result.text())


def _warn_unknown_labels(n: int) -> None:
    """Facts withheld for a sensitivity label the configuration does not know are never silent."""
    if n:
        click.echo(f"warning: {n} fact(s) withheld for a sensitivity label access.levels and access.labels do not "
                   "know (map it in access.labels; `graph-trust sync` lists them)", err=True)


def _print_policy(rt, query: str, trust_context: TrustContext, groups: list[str] | None, rank: str,
                  metrics_file: str | None) -> None:
    """Run get_context and print the payload (JSON) or the prompt block; a fallback is warned."""
    payload = run(api.get_context(rt.settings, query, trust_context=trust_context, groups=groups, rank=rank))
    md = payload.metadata
    if metrics_file:
        api.write_metrics(metrics_file)
    if md.error_code and not rt.json:
        click.echo(f"warning: {md.error_code} ({md.reason}); fallback: {md.fallback}", err=True)
    _warn_unknown_labels(md.unknown_label)
    if rt.json:
        emit_json(payload.to_dict())
    else:
        click.echo(payload.format_for_system_prompt(rt.settings.context.layer_order), nl=False)
