"""The MCP server (``graph-trust mcp``, stdio, the official ``mcp`` SDK; extra ``mcp``).

Its tools for agents (:func:`build_server`):

- ``search_facts(query, limit, group, min_confidence)``: trust-boosted search with each hit's
  explanation, after access control (denied facts take no slot: the search window widens past
  them; one level above the clearance is shown as ``[REDACTED]``) and PII redaction;
  ``min_confidence`` keeps only the facts the review DB scores at least that;
- ``get_context(query, format, group)``: the retrieval policy's payload (``format="payload"``)
  or its system-prompt block (``format="prompt"``);
- seven confidence tools on the configured review DB, answering as the CLI commands of the same
  names do (:mod:`graph_trust.sync.confidence.ops`, handed in by ``graph_trust.api.serve_mcp``:
  this module sits beside the api and does not import sync): ``confidence``, ``verify_fact``,
  ``record_usage``, ``vote``, ``contradictions``, ``stale``, ``credibility``;
- with the review side handed in (:class:`McpReview`, as ``graph-trust mcp`` does):
  ``flag_fact(id, reason)`` puts a fact in the review queue with this server's agent as the
  flagger, and ``skip_fact(id, reason)`` records that the agent looked at a fact and did not
  decide it (agents flag and skip, people decide: no tool promotes or rejects).

The facts ``search_facts`` and ``get_context`` return are counted in the retrieval log (interface
``mcp``) by the callables :func:`graph_trust.api.serve_mcp` hands in (:class:`McpReview`).

The trust context (``mcp.max_sensitivity``, ``mcp.scopes`` or ``mcp.unrestricted``) and the
acting agent of the write tools (``mcp.agent``) are fixed when the server starts; no tool
argument can change them, so an agent can neither raise its own clearance nor write in another
agent's name. The tools' input schemas carry the bounds the tools enforce; an argument outside
them is a tool error (``isError``) of one line naming the argument.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError

from graph_trust import __version__
from graph_trust.access.trust_context import TrustContext
from graph_trust.confidence.composite import RISK_THRESHOLDS
from graph_trust.confidence.consensus import VOTES
from graph_trust.confidence.success import OUTCOMES
from graph_trust.confidence.verification import VERDICTS
from graph_trust.config import SearchSettings, Settings, checked_value
from graph_trust.context.redact import Redactor
from graph_trust.context.service import ContextService
from graph_trust.errors import ConfigError, GraphTrustError

MAX_LIMIT = 50  # search_facts' largest limit
Limit = Annotated[int, Field(ge=1, le=MAX_LIMIT, description="facts to return, 1-50")]
UnitOrNone = Annotated[float | None, Field(ge=0.0, le=1.0, description="0-1")]
Unit = Annotated[float, Field(ge=0.0, le=1.0, description="0-1")]
Days = Annotated[float | None, Field(gt=0.0, description="days, > 0")]

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


def _tool_error_class() -> type[Exception]:
    try:
        from mcp.server.mcpserver.exceptions import ToolError  # mcp >= 2
    except ImportError:
        from mcp.server.fastmcp.exceptions import ToolError  # mcp 1.x
    return ToolError


def argument_error(tool: str, schema: dict[str, Any], exc: ValidationError) -> str:
    """One line naming the first bad argument of ``tool`` and what it must be, with the
    schema's whole range for a bounded number (no pydantic URL, no error count)."""
    err = exc.errors()[0]
    name = ".".join(str(p) for p in err["loc"]) or "arguments"
    prop = schema.get("properties", {}).get(str(err["loc"][0]) if err["loc"] else "", {})
    prop = next((p for p in prop.get("anyOf", []) if "minimum" in p or "maximum" in p
                 or "exclusiveMinimum" in p), prop)
    ctx = err.get("ctx") or {}
    kind = err["type"]
    if kind == "missing":
        return f"{tool}: argument {name} is required"
    if kind in ("greater_than_equal", "less_than_equal") and "minimum" in prop and "maximum" in prop:
        what = f"must be between {prop['minimum']:g} and {prop['maximum']:g}"
    elif kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        word = {"greater_than_equal": "at least", "less_than_equal": "at most", "greater_than": "greater than",
                "less_than": "less than"}[kind]
        bound = next(iter(ctx.values()), "")
        what = f"must be {word} {bound}"
    else:
        what = str(err["msg"]).replace("Input should be", "must be").replace("Value error, ", "")
    got = repr(err.get("input"))
    return f"{tool}: argument {name} {what} (got {got if len(got) <= 60 else got[:57] + '...'})"


def _server(name: str) -> Any:
    """The SDK's server, whose argument validation errors are one line naming the argument."""
    base = _server_class()
    tool_error = _tool_error_class()

    class Server(base):  # type: ignore[misc, valid-type]
        async def call_tool(self, tool: str, arguments: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
            found = self._tool_manager.get_tool(tool)
            schema = getattr(found, "parameters", None) or {}
            extra = sorted(set(arguments or {}) - set(schema.get("properties", {}))) if found else []
            if extra:  # (a clearance, say): refused by name rather than silently ignored
                raise tool_error(f"{tool}: there is no argument {extra[0]} (arguments: "
                                 f"{', '.join(schema.get('properties', {}))})")
            try:
                return await super().call_tool(tool, arguments, *args, **kwargs)
            except tool_error as exc:
                cause = exc.__cause__
                if not isinstance(cause, ValidationError):
                    raise
                raise tool_error(argument_error(tool, schema, cause)) from cause

    try:
        return Server(name, instructions=INSTRUCTIONS, version=__version__)
    except TypeError:  # mcp 1.x: no version argument; its low-level server carries it
        server = Server(name, instructions=INSTRUCTIONS)
        server._mcp_server.version = __version__
        return server


def _tool(server: Any) -> Callable[[Callable[..., Any]], Any]:
    """``server.tool()`` for a function whose bad-input errors (GraphTrustError, ValueError) reach
    the agent as a tool error carrying their message (the SDK hides other exceptions' text)."""
    tool_error = _tool_error_class()

    def register(fn: Callable[..., Any]) -> Any:
        @functools.wraps(fn)
        async def run(*args: Any, **kwargs: Any) -> Any:
            try:
                out = fn(*args, **kwargs)
                return await out if inspect.isawaitable(out) else out
            except (GraphTrustError, ValueError) as exc:
                raise tool_error(str(exc)) from exc

        return server.tool()(run)

    return register


# search(settings, query, trust_context=, limit=, groups=) -> VisibleSearch: api.search_visible
VisibleSearchFn = Callable[..., Awaitable[Any]]


@dataclass(frozen=True)
class McpReview:
    """The review side's callables the api hands the server: ``get_context(settings, query,
    trust_context=, groups=)`` (the policy payload, counted in the retrieval log) and
    ``flag(target, reason)`` (:func:`graph_trust.api.flag_fact` on the server's settings)."""

    get_context: Callable[..., Awaitable[Any]]
    flag: Callable[[str, str], Awaitable[dict[str, Any]]]
    skip: Callable[[str, str], Awaitable[dict[str, Any]]] | None = None  # api.review_skip as the server's agent


async def search_facts_payload(settings: Settings, trust_context: TrustContext, search: VisibleSearchFn,
                               query: str, limit: int = 10, group: str | None = None,
                               min_confidence: float | None = None) -> dict[str, Any]:
    """What the ``search_facts`` tool returns: the facts ``trust_context`` may see (denied ones take
    no slot; a redacted one shows ``[REDACTED]`` and no explanation), PII redacted; with
    ``min_confidence`` (validated as ``search.min_confidence``) only facts the review DB scores at
    least that, each with its ``confidence``."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"argument limit must be between 1 and {MAX_LIMIT} (got {limit!r})")
    if min_confidence is not None:
        value = checked_value(SearchSettings, "min_confidence", min_confidence, "argument min_confidence")
        settings = settings.model_copy(update={"search": settings.search.model_copy(update={"min_confidence": value})})
    found = await search(settings, query, trust_context=trust_context, limit=limit,
                         groups=[group] if group else None)
    red = Redactor.from_settings(settings.policy)
    facts = []
    for r in found.records:
        text, was = red(r.text) if not r.redacted else (settings.policy.redaction_replacement, True)
        e = None if r.redacted else r.explanation
        facts.append({
            "id": r.uuid, "fact": text, "group": r.group_id, "type": r.memory_type, "trust_score": r.trust_score,
            **({} if found.confidences is None else {"confidence": found.confidences.get(r.uuid)}),
            "was_redacted": was,
            "explanation": None if e is None else {
                "bm25_rank": e.bm25_rank, "cosine_rank": e.cosine_rank, "fused": e.fused, "boost": e.boost,
                "relation_bonus": e.relation_bonus, "final": e.final, "rank": e.rank,
                "rank_without_boost": e.rank_without_boost, "negative": e.negative, "moved_by": e.moved_by,
                "score_before_move": e.score_before_move, "missing_identifier": e.missing_identifier},
        })
    return {"facts": facts, "denied": found.denied, "unknown_label": found.unknown_label,
            "redacted": found.redacted, "search_depth": found.search_depth, "trust_weight": found.trust_weight}


def build_server(settings: Settings, trust_context: TrustContext, ops: ModuleType, search: VisibleSearchFn,
                 review: McpReview | None = None) -> Any:
    """An MCP server whose tools run with ``trust_context`` (fixed here, not per call); ``ops``
    is :mod:`graph_trust.sync.confidence.ops`, ``search`` ``api.search_visible``, ``review``
    the logged context and ``flag_fact`` (without it: an unlogged context and no flag_fact tool)."""
    server = _server("graph-trust")
    context = review.get_context if review is not None else ContextService().get_context
    tool = _tool(server)

    @tool
    async def search_facts(query: str, limit: Limit = 10, group: str | None = None,
                           min_confidence: UnitOrNone = None) -> dict[str, Any]:
        """Trust-boosted search: facts best first, each with why it ranked there (BM25 and cosine
        ranks, fused score, trust boost). Facts above this server's clearance are left out (counted
        in denied) and take no slot. min_confidence (0-1): only facts the review DB scores at least
        that, each with its confidence."""
        return await search_facts_payload(settings, trust_context, search, query, limit, group, min_confidence)

    @tool
    async def get_context(query: str, format: Literal["prompt", "payload"] = "prompt",
                          group: str | None = None) -> dict[str, Any]:
        """Context for a prompt: deduplicated, clipped, PII-redacted facts within the token budget.
        format="prompt" gives {"prompt": text, "metadata": ...}; "payload" gives memories + metadata.
        A query that cannot be searched (empty, blank, too long, no searchable text) gives no
        memories and metadata error_code INVALID_QUERY, fallback skip: go on without memory."""
        payload = await context(settings, query, trust_context=trust_context, groups=[group] if group else None)
        if format == "payload":
            return payload.to_dict()
        return {"prompt": payload.format_for_system_prompt(settings.context.layer_order),
                "metadata": payload.metadata.to_dict()}

    if review is not None:
        @tool
        async def flag_fact(id: str, reason: str) -> dict[str, Any]:
            """Ask a person to review a fact that looks wrong, stale or contradicted: id is the fact's id
            from search_facts (an edge uuid) or a review candidate id; reason says what looks wrong. The
            fact goes in the review queue under this server's agent; nothing about its trust changes."""
            return await review.flag(id, reason)

    if review is not None and review.skip is not None:
        @tool
        async def skip_fact(id: str, reason: str) -> dict[str, Any]:
            """Record that you looked at a fact and could not decide it (looked, not decided): id is an
            edge uuid or a review candidate id; reason says why. No trust changes; the review queue stops
            offering it for a while unless new evidence arrives. Audited under this server's agent."""
            return await review.skip(id, reason)

    _confidence_tools(tool, settings, ops)
    return server


# The enums as the tools' schemas show them (an agent sees the choices; a wrong one is a tool error).
Risk = Literal[tuple(RISK_THRESHOLDS)]  # type: ignore[valid-type]
Verdict = Literal[tuple(VERDICTS)]  # type: ignore[valid-type]
Outcome = Literal[tuple(OUTCOMES)]  # type: ignore[valid-type]
Vote = Literal[tuple(VOTES)]  # type: ignore[valid-type]


def _confidence_tools(tool: Callable[[Callable[..., Any]], Any], settings: Settings, ops: ModuleType) -> None:
    """The operator tools: each opens the review DB (``review.path``) for its call only."""

    def agent() -> str:
        if settings.mcp.agent is None:
            raise ConfigError("this tool records a write and needs the acting agent: set mcp.agent in the "
                              "server's config (or start it with `graph-trust mcp --agent NAME`)")
        return settings.mcp.agent

    def ask(call: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
        with ops.store(settings) as s:
            return call(s)

    @tool
    def confidence(fact_id: str, risk: Risk | None = None) -> dict[str, Any]:
        """How far to trust the fact ``fact_id`` (its id from search_facts, an edge uuid, or a review
        candidate id): score 0-1, level, the seven factors behind it; with risk (low, medium, high,
        critical) whether to act on it."""
        return ask(lambda s: ops.fact_confidence(s, fact_id, risk))

    @tool
    def verify_fact(fact_id: str, verification_type: Verdict, notes: str | None = None) -> dict[str, Any]:
        """Record that this server's agent checked the fact ``fact_id`` (an id from search_facts or a
        candidate id): confirmed, still_valid, partially_valid (confirm it) or outdated, incorrect
        (refute it). Returns the new confidence."""
        return ask(lambda s: ops.verify_fact(s, fact_id, verification_type, agent(), notes))

    @tool
    def record_usage(fact_id: str, outcome: Outcome, action: str) -> dict[str, Any]:
        """Record that this server's agent acted on the fact ``fact_id`` (an id from search_facts or a
        candidate id; action: what was done) and the outcome: success, partial, failure or error."""
        return ask(lambda s: ops.record_usage(s, fact_id, outcome, agent(), action))

    @tool
    def vote(fact_id: str, vote: Vote, confidence: Unit, reasoning: str | None = None) -> dict[str, Any]:
        """This server's agent's vote on the fact ``fact_id`` (an id from search_facts or a candidate
        id): agree, disagree or uncertain, and how sure it is (0-1); a new vote replaces the old.
        Returns the fact's consensus factor."""
        return ask(lambda s: ops.vote(s, fact_id, vote, confidence, agent(), reasoning))

    @tool
    def contradictions(resolve: bool = False) -> dict[str, Any]:
        """Facts with the same subject and predicate but a different object. resolve=true records
        the new ones and resolves the open ones (a write: needs the server's agent)."""
        if resolve:
            agent()
        return ask(lambda s: ops.contradictions(s, resolve))

    @tool
    def stale(days: Days = None, category: str | None = None) -> dict[str, Any]:
        """Active facts not created or confirmed within days (default confidence.stale_days), oldest
        first, optionally of one category: what to verify next."""
        return ask(lambda s: ops.stale(s, days, category))

    @tool
    def credibility(agent_id: str, category: str | None = None) -> dict[str, Any]:
        """An agent's track record and credibility per category (or in one)."""
        return ask(lambda s: ops.credibility(s, agent_id, category))


def serve_stdio(settings: Settings, trust_context: TrustContext, ops: ModuleType, search: VisibleSearchFn,
                review: McpReview | None = None) -> None:
    """Run the server on stdin/stdout until the client closes it (arguments: :func:`build_server`'s)."""
    build_server(settings, trust_context, ops, search, review).run("stdio")
