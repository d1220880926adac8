"""Agents flag, people decide: the MCP tool ``flag_fact(id, reason)`` puts a fact in the review
queue with the agent's name (the server's ``mcp.agent``, never a tool argument). A flag changes
no status and no trust; it stays open until a reviewer decides the fact (``review promote`` ...
resolve it). One open flag per agent and fact: flagging again updates its reason."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graph_trust.errors import ConfigError, InputError, NotFoundError
from graph_trust.review.candidates import CandidateTable
from graph_trust.review.db import ReviewConn
from graph_trust.review.decisions import EdgeFact, cited_by, named, need_review_tables, now_iso, statuses_by_id

MAX_REASON = 2000


def acting_agent(agent: str | None, tool: str, records: str) -> str:
    """``agent`` (the one named, else the server's ``mcp.agent``), or a ConfigError saying that
    ``tool`` records who ``records`` and how to name one."""
    if agent is None:
        raise ConfigError(f"{tool} records who {records}: set mcp.agent in the server's config "
                          "(or start it with `graph-trust mcp --agent NAME`)")
    return agent


def flag(conn: ReviewConn, cand: CandidateTable, target: str, reason: str, *, agent: str,
         edge: EdgeFact | None = None, now: datetime | None = None) -> dict[str, Any]:
    """Flag ``target`` (a candidate id, or an edge uuid: cited by a candidate, or ``edge`` read
    from the graph by the caller) for review by ``agent``, in one transaction."""
    agent = named(agent, "the flagging agent (mcp.agent)")
    if not isinstance(reason, str) or not reason.strip():
        raise InputError("a flag needs a reason: what looks wrong with the fact")
    if len(reason) > MAX_REASON:
        raise InputError(f"the reason is {len(reason)} characters; at most {MAX_REASON}")
    target = (target or "").strip()
    if not target:
        raise InputError("name the fact: a candidate id or an edge uuid")
    need_review_tables(conn)
    at = now_iso(now)

    def run(c: ReviewConn) -> dict[str, Any]:
        found = statuses_by_id(c, cand, [target])
        if target in found:
            candidate_id, edge_uuid, group = target, found[target][1], None
        elif cited_by(c, cand, [target]):
            candidate_id, edge_uuid, group = None, target, None
        elif edge is not None and edge.uuid == target:
            candidate_id, edge_uuid, group = None, target, edge.group_id
        else:
            raise NotFoundError(f"{target!r} is neither a candidate id nor the uuid of an edge in the graph")
        open_ = c.query("SELECT id FROM review_flags WHERE target = ? AND agent = ? AND resolved_at IS NULL",
                        (target, agent))
        if open_:
            c.execute("UPDATE review_flags SET reason = ?, flagged_at = ? WHERE id = ?", (reason.strip(), at, open_[0][0]))
            flag_id, again = open_[0][0], True
        else:
            flag_id = c.insert_id("INSERT INTO review_flags (target, edge_uuid, candidate_id, group_id, agent, reason, "
                                  "flagged_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                                  (target, edge_uuid, candidate_id, group, agent, reason.strip(), at))
            again = False
        return {"flag_id": int(flag_id), "target": target, "candidate_id": candidate_id, "edge_uuid": edge_uuid,
                "agent": agent, "reason": reason.strip(), "flagged_at": at, "updated_open_flag": again}

    return conn.write(run)


def open_flags(conn: ReviewConn) -> list[dict[str, Any]]:
    """Every open flag: target, candidate id, edge uuid, agent, reason, when."""
    keys = ("flag_id", "target", "candidate_id", "edge_uuid", "group_id", "agent", "reason", "flagged_at")
    return [dict(zip(keys, r)) for r in conn.query(
        "SELECT id, target, candidate_id, edge_uuid, group_id, agent, reason, flagged_at FROM review_flags "
        "WHERE resolved_at IS NULL ORDER BY id")]


__all__ = ["acting_agent", "flag", "open_flags"]
