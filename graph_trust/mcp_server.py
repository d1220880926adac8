"""The MCP server (``graph-trust mcp``, stdio, the official ``mcp`` SDK; extra ``mcp``).

Two tools for agents:

- ``search_facts(query, limit, group)``: trust-boosted search with each hit's explanation,
  after access control (denied facts are left out, one level above the clearance is shown
  as ``[REDACTED]``) and PII redaction;
- ``get_context(query, format, group)``: the retrieval policy's payload (``format="payload"``)
  or its system-prompt block (``format="prompt"``).

The trust context is fixed when the server starts (config ``context.*`` and the command's
flags); no tool argument can change it, so an agent cannot raise its own clearance.
"""

from __future__ import annotations

from typing import Any, Literal

from graph_trust.access import TrustContext, filter_by_trust
from graph_trust.config import Settings
from graph_trust.context.redact import Redactor
from graph_trust.context.service import ContextService
from graph_trust.errors import ConfigError
from graph_trust.ranked_search import search
from graph_trust.records import records_from_results

INSTRUCTIONS = (
    "Trust-ranked memory from a Graphiti knowledge graph. Call get_context with the user's question "
    "for a ready prompt block of verified, deduplicated, PII-redacted facts within a token budget; "
    "call search_facts to see individual facts and why each ranked where it did."
)


def _server_class() -> Any:
    # mcp is an optional dependency (the ``mcp`` extra): imported when a server is built
    try:
        from mcp.server.mcpserver import MCPServer  # mcp >= 2

        return MCPServer
    except ImportError:
        try:
            from mcp.server.fastmcp import FastMCP  # mcp 1.x

            return FastMCP
        except ImportError:
            raise ConfigError("graph-trust mcp needs the mcp package (pip install 'graph-trust[mcp]')") from None


async def search_facts_payload(settings: Settings, trust_context: TrustContext, query: str, limit: int = 10,
                               group: str | None = None) -> dict[str, Any]:
    """What the ``search_facts`` tool returns: visible hits with explanations, PII redacted."""
    if not 1 <= limit <= 50:
        raise ValueError("limit must be in [1, 50]")
    results = await search(settings, query, limit=limit, groups=[group] if group else None)
    visible = filter_by_trust(records_from_results(results), trust_context,
                              default_sensitivity=settings.context.default_sensitivity)
    red = Redactor.from_settings(settings.policy)
    facts = []
    for r in visible.records:
        text, was = red(r.text) if not r.redacted else (settings.policy.redaction_replacement, True)
        e = r.explanation
        facts.append({
            "id": r.uuid, "fact": text, "group": r.group_id, "type": r.memory_type, "trust_score": r.trust_score,
            "was_redacted": was,
            "explanation": None if e is None else {
                "bm25_rank": e.bm25_rank, "cosine_rank": e.cosine_rank, "fused": e.fused, "boost": e.boost,
                "final": e.final, "rank": e.rank, "rank_without_boost": e.rank_without_boost},
        })
    return {"facts": facts, "denied": visible.denied, "trust_weight": results.trust_weight}


def build_server(settings: Settings, trust_context: TrustContext) -> Any:
    """An MCP server whose tools run with ``trust_context`` (fixed here, not per call)."""
    server = _server_class()("graph-trust", instructions=INSTRUCTIONS)
    service = ContextService()

    @server.tool()
    async def search_facts(query: str, limit: int = 10, group: str | None = None) -> dict[str, Any]:
        """Trust-boosted search: facts best first, each with why it ranked there (BM25 and cosine
        ranks, fused score, trust boost). Facts above this server's clearance are left out."""
        return await search_facts_payload(settings, trust_context, query, limit, group)

    @server.tool()
    async def get_context(query: str, format: Literal["prompt", "payload"] = "prompt",
                          group: str | None = None) -> dict[str, Any]:
        """Context for a prompt: deduplicated, clipped, PII-redacted facts within the token budget.
        format="prompt" gives {"prompt": text, "metadata": ...}; "payload" gives memories + metadata."""
        payload = await service.get_context(settings, query, trust_context=trust_context,
                                            groups=[group] if group else None)
        if format == "payload":
            return payload.to_dict()
        return {"prompt": payload.format_for_system_prompt(settings.context.layer_order),
                "metadata": payload.metadata.to_dict()}

    return server


def serve_stdio(settings: Settings, trust_context: TrustContext) -> None:
    """Run the server on stdin/stdout until the client closes it."""
    build_server(settings, trust_context).run("stdio")
