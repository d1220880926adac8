"""``graph-trust review queue``: facts ranked by the expected change in what agents see if a
reviewer decided them, each with its reasons (the rule and its numbers).

Two steps, so a simulation can build the inputs itself and tune the weights:

- :func:`gather` reads everything the rules need, set-wise: the retrieval log's returns per fact
  (:func:`graph_trust.review.log.uses`), every review row's status and edge, the open guard
  records and agent flags (review DB), every edge of the returned edges' subjects (their slots)
  and which review rows' edges are gone (the graph, a few chunked queries), and the used facts'
  confidences (a callable the api hands in: the confidence model lives with sync);
- :func:`rank` runs the rules (:data:`graph_trust.review.rules.RULES`) and orders the facts by
  ``sum(weight[rule] x value)``, ties by uuid.
"""

from __future__ import annotations

import asyncio
import heapq
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from graph_trust.config import ReviewQueueSettings
from graph_trust.graph.temporal import as_datetime
from graph_trust.review.candidates import CandidateTable
from graph_trust.review.db import ReviewConn
from graph_trust.review.decisions import version_of
from graph_trust.review.graph_read import all_edges, edge_facts
from graph_trust.review.log import uses
from graph_trust.review.rules import RULES, Hit, QueueInputs, SlotEdge
from graph_trust.review.schema import missing_tables
from graph_trust.review.skips import open_skips

GUARD_TYPE = "graphiti_invalidation"  # the guard's contradiction records (sync/guard.py)


@dataclass
class QueueItem:
    """One fact of the queue: its priority and every rule's reason."""

    key: str
    edge_uuid: str | None
    candidate_ids: list[str]
    group_id: str | None
    fact: str | None
    status: str | None
    priority: float
    reasons: list[dict[str, Any]] = field(default_factory=list)
    # the fact's state as the queue read it (decisions.version_of): `review promote ID --expect VERSION`
    version: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def rank(inputs: QueueInputs, cfg: ReviewQueueSettings, *, limit: int | None = None,
         group: str | None = None) -> list[QueueItem]:
    """The queue: every fact some rule with a positive weight concerns, highest priority first.
    Priorities are summed for every fact; items (and their reasons' text) are made only for the
    ``limit`` kept."""
    found: dict[str, list[tuple[str, float, Hit]]] = {}
    for name, rule in RULES.items():
        weight = cfg.weights.get(name, 0.0)
        if weight <= 0:
            continue
        for hit in rule(inputs, cfg):
            if hit.value > 0:
                found.setdefault(hit.key, []).append((name, weight, hit))
    for key in inputs.open_keys():  # the queue never runs out while a fact is undecided
        found.setdefault(key, [])
    priority = {k: round(sum(w * h.value for _, w, h in hits), 6) for k, hits in found.items()
                if (group is None or inputs.groups.get(k) == group) and k not in inputs.skipped}

    def order(k: str) -> tuple[float, str]:
        return (-priority[k], k)

    keys = sorted(priority, key=order) if limit is None else heapq.nsmallest(limit, priority, key=order)
    return [_item(inputs, k, priority[k], found[k]) for k in keys]


def _item(inputs: QueueInputs, key: str, priority: float, hits: list[tuple[str, float, Hit]]) -> QueueItem:
    uuid = None if key.startswith("candidate:") else key
    first = hits[0][2].figures if hits else {}
    cands = [c for c, _ in inputs.reviews.get(uuid, [])] if uuid else [key.split(":", 1)[1]]
    item = QueueItem(key, uuid or first.get("edge_uuid"), cands, inputs.groups.get(key), inputs.facts.get(key),
                     inputs.status(uuid) if uuid else first.get("status"), priority)
    rows = inputs.reviews.get(uuid, []) if uuid else [(c, item.status) for c in cands if item.status is not None]
    item.version = version_of(rows)
    for name, weight, hit in hits:
        score = weight * hit.value
        item.reasons.append({"rule": name, "score": round(score, 4), "value": round(hit.value, 4), "weight": weight,
                             "why": hit.reason, "numbers": hit.figures})
    item.reasons.sort(key=lambda r: -r["score"])
    return item


def review_rows(conn: ReviewConn, cand: CandidateTable) -> list[tuple[str, str, str | None, str | None, str | None]]:
    """Every review row: (candidate id, status, edge uuid, group id, fact), one scan."""
    eid = conn.first_evidence_id(cand.col("evidence_refs_json"))
    return [(str(r[0]), r[1], r[2], r[3], r[4]) for r in conn.query(
        f'SELECT {cand.col("id")}, {cand.col("status")}, {eid}, {cand.col("group_id")}, {cand.col("fact")} '
        f'FROM "{cand.table}"')]


def guard_records(conn: ReviewConn) -> dict[str, dict[str, Any]]:
    """Edge uuid -> the guard's open record of it (Graphiti invalidated it while review vouched)."""
    if "fact_contradictions" not in conn.tables():
        return {}
    out: dict[str, dict[str, Any]] = {}
    for a, detail in conn.query("SELECT fact_a_id, detail FROM fact_contradictions WHERE contradiction_type = ? "
                                "AND resolved_at IS NULL ORDER BY id", (GUARD_TYPE,)):
        try:
            d = json.loads(detail or "{}")
        except ValueError:
            continue
        if isinstance(d, dict) and d.get("uuid"):
            sup = d.get("superseded_by")
            out[d["uuid"]] = {"candidate_id": a, "invalid_at": d.get("invalid_at"), "expired_at": d.get("expired_at"),
                              "group_id": d.get("group_id"), "fact": d.get("fact"),
                              "superseded_by": sup.get("uuid") if isinstance(sup, dict) else None}
    return out


def _stamp(row: dict[str, Any]) -> float | None:
    """An edge's time in the competitor order (valid_at, else created_at), in seconds."""
    t = as_datetime(row.get("valid_at")) or as_datetime(row.get("created_at"))
    return t.timestamp() if t is not None else None


async def gather(conn: ReviewConn, cand: CandidateTable, graph: Any, cfg: ReviewQueueSettings,
                 tiers: dict[str, float | None], *, group: str | None = None,
                 confidences: Callable[[list[str]], dict[str, float]] | None = None,
                 today: datetime | None = None) -> QueueInputs:
    """The rules' inputs from the review DB, the graph and ``confidences`` (module docstring)."""
    log_ok = not missing_tables(conn, ("retrieval_log", "review_flags"))
    used = uses(conn, days=cfg.window_days, half_life_days=cfg.half_life_days, top_ranks=cfg.top_ranks,
                group=group, today=today) if log_ok else {}
    inp = QueueInputs(uses=used, tiers=dict(tiers))
    rows = review_rows(conn, cand)
    for cid, status, uuid, gid, fact in rows:
        if uuid:
            inp.reviews.setdefault(uuid, []).append((cid, status))
            inp.groups.setdefault(uuid, gid or None)
            if fact:
                inp.facts.setdefault(uuid, fact)
    inp.invalidated = guard_records(conn)
    if log_ok:
        inp.flags = [dict(zip(("target", "candidate_id", "edge_uuid", "group_id", "agent", "reason"), r)) for r in
                     conn.query("SELECT target, candidate_id, edge_uuid, group_id, agent, reason FROM review_flags "
                                "WHERE resolved_at IS NULL ORDER BY id")]
    scoring = None
    if confidences is not None and cfg.weights.get("low_confidence_use", 0) > 0 and (used or inp.reviews):
        # the confidence model scores in a thread (its own connection) while the graph is read
        scoring = asyncio.ensure_future(asyncio.to_thread(confidences, sorted(set(used) | set(inp.reviews))))
    try:
        # the graph: every edge (the slots of every subject, logged or not)
        inp.slots = sorted((SlotEdge(r["uuid"], r.get("group_id"), r["subject_uuid"], r["predicate"],
                                     r["object_uuid"], r.get("object"), None, bool(r.get("valid")), _stamp(r))
                            for r in await all_edges(graph, group)), key=lambda e: e.uuid)
        placed = {e.uuid for e in inp.slots}
    finally:
        if scoring is not None:
            inp.confidences = await scoring
    inp.now = (today or datetime.now(UTC)).timestamp()
    for e in inp.slots:
        inp.groups.setdefault(e.uuid, e.group_id)
    for cid, status, uuid, gid, fact in rows:
        if uuid and uuid not in placed and (group is None or gid == group):
            key = f"candidate:{cid}"
            inp.unplaced.append({"candidate_id": cid, "edge_uuid": uuid, "status": status, "group_id": gid})
            inp.facts[key], inp.groups[key] = fact, gid or None
    for uuid, rec in inp.invalidated.items():
        inp.groups.setdefault(uuid, rec.get("group_id"))
        if rec.get("fact"):
            inp.facts.setdefault(uuid, rec["fact"])
    for f in inp.flags:
        key = f.get("edge_uuid") or f"candidate:{f.get('candidate_id') or f['target']}"
        inp.groups.setdefault(key, f.get("group_id"))
    inp.skipped = open_skips(conn, inp, days=cfg.skip_days, now=today)
    return inp


async def with_facts(graph: Any, items: list[QueueItem]) -> list[QueueItem]:
    """``items`` with the graph's fact text (what agents see) where the graph has their edge."""
    found = await edge_facts(graph, [i.edge_uuid for i in items if i.edge_uuid and not i.key.startswith("candidate:")])
    for i in items:
        e = found.get(i.edge_uuid or "")
        if e is not None and not i.key.startswith("candidate:"):
            i.fact = e.fact
            i.group_id = i.group_id or e.group_id
    return items


def with_weights(cfg: ReviewQueueSettings, weights: dict[str, float] | None) -> ReviewQueueSettings:
    """``cfg`` with ``weights`` overriding entries of ``review.queue.weights`` (validated like the
    config: an unknown rule or a bad weight is an error)."""
    if not weights:
        return cfg
    return cfg.model_copy(update={"weights": type(cfg).model_validate({"weights": {**cfg.weights, **weights}}).weights})


async def queue(conn: ReviewConn, cand: CandidateTable, graph: Any, cfg: ReviewQueueSettings,
                tiers: dict[str, float | None], *, group: str | None = None, limit: int | None = None,
                weights: dict[str, float] | None = None,
                confidences: Callable[[list[str]], dict[str, float]] | None = None) -> list[QueueItem]:
    """The queue as ``graph-trust review queue`` lists it: :func:`gather`, :func:`rank` (``limit``
    items, default ``review.queue.limit``; ``weights`` as :func:`with_weights`), then
    :func:`with_facts`."""
    cfg = with_weights(cfg, weights)
    inputs = await gather(conn, cand, graph, cfg, tiers, group=group, confidences=confidences)
    return await with_facts(graph, rank(inputs, cfg, limit=limit or cfg.limit, group=group))


__all__ = ["QueueItem", "gather", "guard_records", "queue", "rank", "review_rows", "with_facts", "with_weights"]
