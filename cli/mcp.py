"""``graph-trust mcp``: the MCP server for agents (stdio)."""

from __future__ import annotations

import click

from graph_trust import api
from graph_trust.api import TrustContext
from graph_trust.cli.common import common_options, runtime

EXAMPLES = """
\b
Examples:
  graph-trust mcp --actor support-bot                       # clearance: mcp.max_sensitivity, else context's
  graph-trust mcp --actor ops-bot --max-sensitivity high --scope ops
  graph-trust mcp --actor me --unrestricted                 # a trusted single-user agent: every fact
  graph-trust mcp --actor ops-bot --agent ops-bot --review-db review.sqlite3   # confidence write tools too
\b
An MCP client config (e.g. Claude Desktop's mcpServers):
  {"graph-trust": {"command": "graph-trust",
                   "args": ["mcp", "--actor", "support-bot", "--graph", "embedded:/srv/graph"]}}
"""


@click.command(epilog=EXAMPLES)
@click.option("--actor", default=None, metavar="A", help="Who the agent is (recorded in the trust context).")
@click.option("--max-sensitivity", default=None, metavar="LEVEL",
              help="The agent's clearance: a level of access.levels (public, low, medium, high, hyper by default) "
                   "or a label of access.labels (default: config mcp.max_sensitivity, else "
                   "context.max_sensitivity, medium).")
@click.option("--scope", "scopes", multiple=True, metavar="X",
              help="Allowed scope (repeatable; default config mcp.scopes). None: every scope.")
@click.option("--unrestricted", is_flag=True, default=None,
              help="Every fact, whatever its sensitivity label or scope (config mcp.unrestricted): only for a "
                   "trusted single-user agent.")
@click.option("--agent", default=None, metavar="NAME",
              help="The agent the write tools record (flag_fact, skip_fact, verify_fact, record_usage, vote, contradictions "
                   "with resolve); default config mcp.agent. Without one those tools answer with an error.")
@click.option("--review-db", default=None, metavar="PATH|URL",
              help="The review DB of the confidence tools (default: review.url or $GRAPH_TRUST_REVIEW_DB).")
@common_options
def mcp(actor: str | None, max_sensitivity: str | None, scopes: tuple[str, ...], unrestricted: bool | None,
        agent: str | None, review_db: str | None) -> None:
    """Serve tools for agents over MCP (stdio): search_facts (optionally min_confidence) and
    get_context; flag_fact (ask a person to review a fact) and skip_fact (looked at it, could not
    decide; both need --agent); the confidence tools
    confidence, verify_fact, record_usage, vote, contradictions, stale and credibility on the
    review DB. A fact's id is the edge uuid search_facts returns, or a review candidate id.

    The trust context and the acting agent come from this command's flags and the config
    (mcp: max_sensitivity, scopes, unrestricted, agent), never from a tool's arguments: an agent
    cannot raise its own clearance or write in another's name. The clearance is printed on
    stderr when the server starts. Settings (policy:, search:, context:, access:, mcp:) come from
    --config and the environment like every command.
    """
    rt = runtime({"mcp.agent": agent, "review.url": review_db, "mcp.max_sensitivity": max_sensitivity,
                  "mcp.scopes": list(scopes) or None, "mcp.unrestricted": unrestricted},
                 flags={"mcp.agent": "--agent", "review.url": "--review-db",
                        "mcp.max_sensitivity": "--max-sensitivity", "mcp.scopes": "--scope",
                        "mcp.unrestricted": "--unrestricted"})
    ctx = TrustContext.for_mcp(rt.settings, actor_id=actor)
    click.echo(f"graph-trust mcp {api.VERSION}: clearance {ctx.describe()}", err=True)
    api.serve_mcp(rt.settings, ctx)
