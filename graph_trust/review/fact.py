"""One fact as a reviewer decides it (the review page's fact view): the edge as the graph holds it,
the review rows on it, its competitors (the other edges of its slot: same subject and relation),
its provenance (the episodes it came from), its confidence factors, where agents were shown it
(the retrieval log), open agent flags and its audit trail. Only reads.

A fact is named like a review command names it: a candidate id, or an edge uuid (cited by
review rows or not). A name that is neither (no row, no edge in any graph) is a NotFoundError.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from graph_trust.errors import NotFoundError
from graph_trust.review.candidates import CandidateTable
from graph_trust.review.db import ReviewConn
from graph_trust.review.decisions import cited_by, history, rows_of, statuses_by_id, version_of
from graph_trust.review.flags import open_flags
from graph_trust.review.graph_read import edge_detail, edge_facts, episodes, subject_edges
from graph_trust.review.log import returns_of
from graph_trust.review.schema import missing_tables
from graph_trust.review.skips import history_rows as skip_rows
from graph_trust.search.slots import slot_key

ROW_FIELDS = ("id", "status", "updated_at", "group_id", "subject", "predicate", "object", "fact")
EPISODE_CHARS = 2000  # an episode's content shown, at most


def review_rows(conn: ReviewConn, cand: CandidateTable, ids: list[str]) -> list[dict[str, Any]]:
    """The candidate rows ``ids`` (logical fields; absent columns None), in id order."""
    if not ids:
        return []
    idc = cand.col("id")
    rows = conn.query(f'SELECT {", ".join(cand.col(f) for f in ROW_FIELDS)} FROM "{cand.table}" '
                      f"WHERE {conn.in_json_list(f'CAST({idc} AS TEXT)')} ORDER BY 1", (json.dumps(sorted(set(ids))),))
    return [dict(zip(ROW_FIELDS, (str(r[0]), *r[1:]), strict=True)) for r in rows]


def _text(v: Any) -> str | None:
    """A graph value as text (FalkorDB keeps times as ISO text, Neo4j as DateTime)."""
    if v is None:
        return None
    return v.isoformat() if hasattr(v, "isoformat") else str(v)


async def fact_view(conn: ReviewConn, cand: CandidateTable, graph: Any, target: str, *, days: int = 30,
                    confidence: Callable[[list[str]], dict[str, dict[str, Any]]] | None = None,
                    actor: str | None = None) -> dict[str, Any]:
    """Everything the review page shows of ``target`` (a candidate id or an edge uuid): keys
    ``target``, ``edge_uuid``, ``edge`` (None: no graph holds it), ``reviews``, ``competitors``,
    ``episodes``, ``confidence`` (None: no confidence record), ``returns``, ``flags``, ``history``,
    ``version`` (the state a decision from this view expects: :func:`~.decisions.version_of`) and
    ``undo_batch`` (``actor``'s own latest decision batch on it not yet undone; None without one)."""
    target = target.strip()
    by_id = statuses_by_id(conn, cand, [target])
    edge_uuid = by_id[target][1] if target in by_id else target
    edge = await edge_detail(graph, edge_uuid) if edge_uuid else None
    cited = [cid for cid, _ in cited_by(conn, cand, [edge_uuid]).get(edge_uuid, [])] if edge_uuid else []
    reviews = review_rows(conn, cand, sorted({*cited, *([target] if target in by_id else [])}))
    if edge is None and not reviews:
        raise NotFoundError(f"no fact {target!r}: neither a candidate id nor the uuid of an edge in the graph")
    group = (edge or {}).get("group_id") or next((r["group_id"] for r in reviews if r["group_id"]), None)
    if edge is not None:
        edge = {k: (_text(v) if k.endswith("_at") else v) for k, v in edge.items()}
        edge["episodes"] = [e for e in (edge.get("episodes") or []) if isinstance(e, str)]
    competitors = await _competitors(conn, cand, graph, edge) if edge is not None else []
    eps = await episodes(graph, edge["episodes"], group) if edge is not None and edge["episodes"] else []
    for e in eps:
        e.update({k: _text(e.get(k)) for k in ("valid_at", "created_at")})
        content = e.get("content") or ""
        e["content"], e["truncated"] = content[:EPISODE_CHARS], len(content) > EPISODE_CHARS
    review_tables = not missing_tables(conn, ("review_decisions", "review_flags"))
    names = {target, *(r["id"] for r in reviews), *([edge_uuid] if edge_uuid else [])}
    trail: dict[tuple[bool, int], dict[str, Any]] = {}
    if review_tables:
        for name in sorted(names):
            for row in history(conn, target=name, limit=200):
                trail[(False, row["id"])] = row
            for row in skip_rows(conn, name, 200):  # looked, not decided (review skip)
                trail[(True, row["id"])] = row
    trail_rows = sorted(trail.values(), key=lambda r: (r["decided_at"], r["batch_id"], r["id"]), reverse=True)
    mine = (actor or "").strip().casefold()
    undo_batch = next((r["batch_id"] for r in trail_rows if r["action"] != "undo" and r["undone_by"] is None
                       and mine and r["actor"].casefold() == mine), None)
    flags = [f for f in open_flags(conn) if {f["target"], f["candidate_id"], f["edge_uuid"]} & names] \
        if review_tables else []
    log = returns_of(conn, edge_uuid, days=days) if edge_uuid and not missing_tables(conn, ("retrieval_log",)) \
        else {"edge_uuid": edge_uuid, "days": days, "returns": [], "queries": []}
    conf = confidence([edge_uuid]).get(edge_uuid) if confidence is not None and edge_uuid else None
    return {"target": target, "edge_uuid": edge_uuid, "group_id": group, "edge": edge, "reviews": reviews,
            "competitors": competitors, "episodes": eps, "confidence": conf, "returns": log, "flags": flags,
            "history": trail_rows, "undo_batch": undo_batch, "version": version_of(rows_of(conn, cand, target))}


async def _competitors(conn: ReviewConn, cand: CandidateTable, graph: Any, edge: dict[str, Any]) -> list[dict[str, Any]]:
    """The other edges of the fact's slot (:func:`graph_trust.search.slots.slot_key`: same subject
    entity and relation), with their fact, validity and review rows: the values a reviewer
    chooses between."""
    rows = await subject_edges(graph, [edge["uuid"]], edge.get("group_id"))
    key = next((slot_key(r["subject_uuid"], r["predicate"]) for r in rows if r["uuid"] == edge["uuid"]), None)
    slot = [r for r in rows if key is not None and r["uuid"] != edge["uuid"]
            and slot_key(r["subject_uuid"], r["predicate"]) == key]
    if not slot:
        return []
    uuids = [r["uuid"] for r in slot]
    facts = await edge_facts(graph, uuids, edge.get("group_id"))
    reviews = cited_by(conn, cand, uuids)
    out = [{"uuid": r["uuid"], "object": r.get("object"), "valid": bool(r.get("valid")),
            "fact": facts[r["uuid"]].fact if r["uuid"] in facts else None,
            "reviews": [{"id": cid, "status": st} for cid, st in reviews.get(r["uuid"], [])]} for r in slot]
    return sorted(out, key=lambda c: (not c["valid"], str(c["object"]), c["uuid"]))


__all__ = ["fact_view", "review_rows"]
