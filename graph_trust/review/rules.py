"""The review queue's rules: each a small pure function with one signature,
``rule(inputs: QueueInputs, cfg: ReviewQueueSettings) -> Iterable[Hit]``, that says for the facts
it concerns how much what agents see could change if a reviewer decided them (``value``, in
*weighted returns*: a return at rank 1 today counts 1, at rank r 1/r, one half-life ago half),
and why, with the numbers. The queue (:mod:`.queue`) sums ``value x review.queue.weights[rule]``
per fact; the weights are settings so they can be tuned (the evaluation's review-budget proof).

A fact is keyed by its edge uuid, or ``candidate:<id>`` for a review row whose edge is not in the
graph. ``inputs.use(key)`` is the fact's weighted returns (0 when the log never saw it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from graph_trust.config import ReviewQueueSettings
from graph_trust.review.log import Use

DECISIVE = ("promoted", "rejected", "expired")  # a reviewer already decided these
VERIFIED = ("promoted", "corroborated")


@dataclass(frozen=True)
class SlotEdge:
    """An edge of a slot (its subject entity and relation name), as the graph holds it."""

    uuid: str
    group_id: str | None
    subject_uuid: str
    predicate: str
    object_uuid: str
    object: str | None
    fact: str | None
    valid: bool


@dataclass
class QueueInputs:
    """Everything the rules read, gathered once (:func:`graph_trust.review.queue.gather`), or
    built by hand (a simulation)."""

    uses: dict[str, Use] = field(default_factory=dict)  # edge uuid -> its returns (the retrieval log)
    reviews: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # edge uuid -> [(candidate id, status)]
    tiers: dict[str, float | None] = field(default_factory=dict)  # sync.tiers
    slots: list[SlotEdge] = field(default_factory=list)  # the returned edges' slots (the graph)
    invalidated: dict[str, dict[str, Any]] = field(default_factory=dict)  # edge uuid -> open guard record
    confidences: dict[str, float] = field(default_factory=dict)  # edge uuid -> its fact's confidence
    flags: list[dict[str, Any]] = field(default_factory=list)  # open flags (edge_uuid, candidate_id, agent, reason)
    unplaced: list[dict[str, Any]] = field(default_factory=list)  # review rows whose edge is not in the graph
    facts: dict[str, str] = field(default_factory=dict)  # key -> fact text (shown)
    groups: dict[str, str | None] = field(default_factory=dict)  # key -> group id (shown, filtered)

    def use(self, key: str) -> float:
        u = self.uses.get(key)
        return u.weighted if u is not None else 0.0

    def status(self, uuid: str) -> str | None:
        """The review status sync would apply to the edge (the highest tier among its rows), or None."""
        rows = self.reviews.get(uuid)
        if not rows:
            return None
        if len(rows) == 1:
            return rows[0][1]
        return max(rows, key=lambda r: (self.tiers.get(r[1]) is not None, self.tiers.get(r[1]) or 0.0, r[1]))[1]

    def trust(self, uuid: str) -> float:
        s = self.status(uuid)
        return (self.tiers.get(s) or 0.0) if s is not None else 0.0


@dataclass(frozen=True)
class Hit:
    """One rule's finding on one fact: its value (weighted returns that could change) and why."""

    key: str
    value: float
    reason: str
    numbers: dict[str, Any]


Rule = Callable[[QueueInputs, ReviewQueueSettings], Iterable[Hit]]


def unreviewed_use(inp: QueueInputs, cfg: ReviewQueueSettings) -> Iterable[Hit]:
    """Facts agents are shown that no reviewer decided: their returns times the trust a decision
    could still move (1 - the current tier: unreviewed 1, candidate 0.75, corroborated 0.4)."""
    for key, u in inp.uses.items():
        status = inp.status(key)
        if status in DECISIVE:
            continue
        room = 1.0 - inp.trust(key)
        if room <= 0:
            continue
        yield Hit(key, u.weighted * room,
                  f"{'unreviewed' if status is None else status}, returned {u.returns} times "
                  f"(best rank {u.best_rank}, {u.weighted:.1f} weighted)",
                  {"status": status, "returns": u.returns, "weighted": round(u.weighted, 3), "best_rank": u.best_rank,
                   "room": round(room, 3)})


def contested_slot(inp: QueueInputs, cfg: ReviewQueueSettings) -> Iterable[Hit]:
    """Slots (subject and relation) holding different values of which none or several are verified,
    with at least two returned to agents: the wrong-answer-first risk. Each undecided edge of the
    slot gets the slot's weighted returns, scaled by its own share of the most returned edge's."""
    slots: dict[tuple[str, str], list[SlotEdge]] = {}
    for e in inp.slots:
        if e.valid:
            slots.setdefault((e.subject_uuid, e.predicate), []).append(e)
    for (_, predicate), edges in slots.items():
        if len({e.object_uuid for e in edges}) < 2:
            continue
        use = {e.uuid: inp.use(e.uuid) for e in edges}
        returned = [e for e in edges if use[e.uuid] > 0]
        if len(returned) < 2:
            continue
        status_of = {e.uuid: inp.status(e.uuid) for e in edges}
        verified = [e for e in edges if status_of[e.uuid] in VERIFIED]
        if len(verified) == 1:
            continue  # one verified value: review already says which comes first
        total = sum(use[e.uuid] for e in returned)
        top = max(use[e.uuid] for e in returned)
        values = sorted({e.object or e.object_uuid for e in edges})
        for e in edges:
            status = status_of[e.uuid]
            if status in ("rejected", "expired") or (not verified and status == "promoted"):
                continue
            share = use[e.uuid] / top if top else 0.0
            if share <= 0:
                continue
            yield Hit(e.uuid, total * share,
                      f"contested slot {predicate}: {len(values)} values ({', '.join(map(str, values[:4]))}"
                      f"{', ...' if len(values) > 4 else ''}), {len(verified) or 'none'} verified, "
                      f"{len(returned)} returned ({total:.1f} weighted, this one {use[e.uuid]:.1f})",
                      {"predicate": predicate, "values": len(values), "verified": len(verified),
                       "returned": len(returned), "slot_weighted": round(total, 3),
                       "weighted": round(use[e.uuid], 3)})


def trusted_invalidated(inp: QueueInputs, cfg: ReviewQueueSettings) -> Iterable[Hit]:
    """Facts Graphiti invalidated that review vouches for (the guard's open records): agents lose
    a verified fact, or keep a stale one, until a reviewer decides. Their returns, at least
    ``floor_uses``."""
    for key, rec in inp.invalidated.items():
        value = max(inp.use(key), cfg.floor_uses)
        yield Hit(key, value,
                  f"Graphiti invalidated it ({rec.get('invalid_at') or rec.get('expired_at') or 'no time'}) while "
                  f"review vouches for it (candidate {rec.get('candidate_id')})"
                  + (f"; superseded by {rec['superseded_by']}" if rec.get("superseded_by") else ""),
                  {"candidate_id": rec.get("candidate_id"), "weighted": round(inp.use(key), 3),
                   "floor": cfg.floor_uses})


def low_confidence_use(inp: QueueInputs, cfg: ReviewQueueSettings) -> Iterable[Hit]:
    """Facts in use whose confidence (the confidence model) is below ``low_confidence``: their
    returns times the confidence they lack."""
    for key, c in inp.confidences.items():
        if c >= cfg.low_confidence or inp.use(key) <= 0 or inp.status(key) in ("rejected", "expired"):
            continue
        yield Hit(key, inp.use(key) * (1.0 - c),
                  f"confidence {c:.2f} < {cfg.low_confidence:g}, returned {inp.use(key):.1f} weighted",
                  {"confidence": round(c, 4), "weighted": round(inp.use(key), 3)})


def flagged(inp: QueueInputs, cfg: ReviewQueueSettings) -> Iterable[Hit]:
    """Facts agents flagged (MCP ``flag_fact``): ``flag_uses`` per distinct flagging agent, plus returns."""
    by: dict[str, list[dict[str, Any]]] = {}
    for f in inp.flags:
        key = f.get("edge_uuid") or f"candidate:{f.get('candidate_id') or f['target']}"
        by.setdefault(key, []).append(f)
    for key, flags in by.items():
        agents = sorted({f["agent"] for f in flags})
        yield Hit(key, cfg.flag_uses * len(agents) + inp.use(key),
                  f"flagged by {', '.join(agents)}: " + "; ".join(f["reason"] for f in flags[:3]),
                  {"agents": agents, "flags": len(flags), "weighted": round(inp.use(key), 3)})


def unplaced(inp: QueueInputs, cfg: ReviewQueueSettings) -> Iterable[Hit]:
    """Review rows whose edge is not in the graph (relink could not place them): their decision
    reaches no agent until someone relinks, re-creates or expires them. ``floor_uses`` each."""
    for r in inp.unplaced:
        if r.get("status") in ("rejected", "expired"):
            continue
        yield Hit(f"candidate:{r['candidate_id']}", cfg.floor_uses,
                  f"review row {r['candidate_id']} ({r.get('status')}) points at edge {r['edge_uuid']}, which is not "
                  "in the graph (graph-trust relink could not place it)",
                  {"candidate_id": r["candidate_id"], "edge_uuid": r["edge_uuid"], "status": r.get("status")})


RULES: dict[str, Rule] = {"unreviewed_use": unreviewed_use, "contested_slot": contested_slot,
                          "trusted_invalidated": trusted_invalidated, "low_confidence_use": low_confidence_use,
                          "flagged": flagged, "unplaced": unplaced}

__all__ = ["DECISIVE", "RULES", "Hit", "QueueInputs", "Rule", "SlotEdge", "contested_slot", "flagged",
           "low_confidence_use", "trusted_invalidated", "unplaced", "unreviewed_use"]
