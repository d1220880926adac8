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
@common_options
def mcp(actor: str | None, max_sensitivity: str | None, scopes: tuple[str, ...]) -> None:
    """Serve tools search_facts and get_context over MCP (stdio) for agents.

    The trust context comes from this command's flags and the config, never from a tool's
    arguments: an agent cannot raise its own clearance. Settings (policy:, search:, context:)
    come from --config and the environment like every command.
    """
    rt = runtime()
    ctx = TrustContext.from_settings(rt.settings.context, actor_id=actor, max_sensitivity=max_sensitivity,
                                     scopes=scopes)
    api.serve_mcp(rt.settings, ctx)
