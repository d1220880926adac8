"""``graph-trust mcp``: the MCP server for agents (stdio)."""

from __future__ import annotations

import click

from graph_trust import api
from graph_trust.api import SENSITIVITY_LEVELS, TrustContext
from graph_trust.cli.common import common_options, runtime

EXAMPLES = """
\b
Examples:
  graph-trust mcp --actor support-bot                       # clearance: context.max_sensitivity
  graph-trust mcp --actor ops-bot --max-sensitivity high --scope ops
  graph-trust mcp --actor ops-bot --agent ops-bot --review-db review.sqlite3   # confidence write tools too
\b
An MCP client config (e.g. Claude Desktop's mcpServers):
  {"graph-trust": {"command": "graph-trust",
                   "args": ["mcp", "--actor", "support-bot", "--graph", "embedded:/srv/graph"]}}
"""


@click.command(epilog=EXAMPLES)
@click.option("--actor", default=None, metavar="A", help="Who the agent is (recorded in the trust context).")
@click.option("--max-sensitivity", type=click.Choice(SENSITIVITY_LEVELS, case_sensitive=False), default=None,
              help="The agent's clearance (default: config context.max_sensitivity, medium).")
@click.option("--scope", "scopes", multiple=True, metavar="X", help="Allowed scope (repeatable). None: every scope.")
@click.option("--agent", default=None, metavar="NAME",
              help="The agent the confidence write tools record (verify_fact, record_usage, vote, contradictions "
                   "with resolve); default config mcp.agent. Without one those tools answer with an error.")
@click.option("--review-db", default=None, metavar="PATH|URL",
              help="The review DB of the confidence tools (default: review.url or $GRAPH_TRUST_REVIEW_DB).")
@common_options
def mcp(actor: str | None, max_sensitivity: str | None, scopes: tuple[str, ...], agent: str | None,
        review_db: str | None) -> None:
    """Serve tools for agents over MCP (stdio): search_facts (optionally min_confidence) and
    get_context; the confidence tools confidence, verify_fact, record_usage, vote,
    contradictions, stale and credibility on the review DB.

    The trust context and the acting agent come from this command's flags and the config,
    never from a tool's arguments: an agent cannot raise its own clearance or write in
    another's name. Settings (policy:, search:, context:, mcp:) come from --config and the
    environment like every command.
    """
    rt = runtime({"mcp.agent": agent, "review.url": review_db},
                 flags={"mcp.agent": "--agent", "review.url": "--review-db"})
    ctx = TrustContext.from_settings(rt.settings.context, actor_id=actor, max_sensitivity=max_sensitivity,
                                     scopes=scopes)
    api.serve_mcp(rt.settings, ctx)
