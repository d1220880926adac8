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

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from graph_trust.config import ReviewQueueSettings
from graph_trust.review.log import Use, searches
from graph_trust.search.slots import SlotKey, slot_key

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
    stamp: float | None = None  # valid_at, else created_at, in seconds: the competitor order's time


@dataclass
class QueueInputs:
    """Everything the rules read, gathered once (:func:`graph_trust.review.queue.gather`), or
    built by hand (a simulation)."""

    uses: dict[str, Use] = field(default_factory=dict)  # edge uuid -> its returns (the retrieval log)
    reviews: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # edge uuid -> [(candidate id, status)]
    tiers: dict[str, float | None] = field(default_factory=dict)  # sync.tiers
    slots: list[SlotEdge] = field(default_factory=list)  # every edge of the returned edges' subjects (the graph)
    invalidated: dict[str, dict[str, Any]] = field(default_factory=dict)  # edge uuid -> open guard record
    confidences: dict[str, float] = field(default_factory=dict)  # edge uuid -> its fact's confidence
    flags: list[dict[str, Any]] = field(default_factory=list)  # open flags (edge_uuid, candidate_id, agent, reason)
    unplaced: list[dict[str, Any]] = field(default_factory=list)  # review rows whose edge is not in the graph
    facts: dict[str, str] = field(default_factory=dict)  # key -> fact text (shown)
    groups: dict[str, str | None] = field(default_factory=dict)  # key -> group id (shown, filtered)
    skipped: dict[str, dict[str, Any]] = field(default_factory=dict)  # key -> its open skip (not offered)
    now: float | None = None  # the instant ages are measured from (seconds; None: the newest stamp)
    cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)  # derived once per inputs

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

    def removal_rate(self) -> tuple[float, int, int]:
        """(the chance a decision rejects or expires a fact, rejected or expired facts, decided
        facts): this review DB's own rate among decided facts, Laplace-smoothed (0.5 with none)."""
        decided = bad = 0
        for uuid in self.reviews:
            s = self.status(uuid)
            if s in DECISIVE or s in VERIFIED:
                decided += 1
                bad += s in ("rejected", "expired")
        return (bad + 1) / (decided + 2), bad, decided

    def trust(self, uuid: str) -> float:
        s = self.status(uuid)
        return (self.tiers.get(s) or 0.0) if s is not None else 0.0


    def open_keys(self) -> list[str]:
        """Every fact a reviewer could still decide: the graph's edges no reviewer promoted, rejected
        or expired, and the review rows whose edge is not in the graph (not rejected or expired)."""
        keys = [e.uuid for e in self.slots if self.status(e.uuid) not in DECISIVE]
        keys += [f"candidate:{r['candidate_id']}" for r in self.unplaced if r.get("status") not in DECISIVE]
        return keys


@dataclass(frozen=True)
class Exposure:
    """How many weighted returns a fact can expect, from the log where it has some and from priors
    where it has none (:func:`exposure`): ``per_slot``, the prior each slot of the graph gets
    (``prior_searches`` searches' worth of weighted returns spread evenly over every slot);
    a subject's *share* (its weighted returns spread over its slots: agents who ask about an
    entity ask about its other relations too); its *centrality* (its relations over the graph's
    mean: a hub is asked about more often than a leaf)."""

    per_slot: float
    per_search: float
    subject_use: dict[str, float]
    subject_slots: dict[str, set[SlotKey | None]]
    mean_degree: float
    by_uuid: dict[str, SlotEdge]

    def share(self, subject: str) -> float:
        slots = self.subject_slots.get(subject)
        return self.subject_use.get(subject, 0.0) / len(slots) if slots else 0.0

    def centrality(self, subject: str) -> float:
        slots = self.subject_slots.get(subject)
        return len(slots) / self.mean_degree if slots and self.mean_degree > 0 else 1.0

    def prior(self, subject: str) -> float:
        """A slot's prior exposure, scaled by its subject's centrality."""
        return self.per_slot * self.centrality(subject)

    def of(self, uuid: str) -> float:
        """A fact's expected exposure without its own returns: its subject's share and its prior."""
        e = self.by_uuid.get(uuid)
        return 0.0 if e is None else self.share(e.subject_uuid) + self.prior(e.subject_uuid)


def exposure(inp: QueueInputs, cfg: ReviewQueueSettings) -> Exposure:
    """The exposure model of ``inp`` (computed once, kept in ``inp.cache``). The prior's unit is
    the log's own weighted returns per search; with no search logged yet, what one search returning
    ``top_ranks`` facts counts (1 + 1/2 + ... + 1/top_ranks), so a queue with no log still ranks
    by the priors."""
    key = ("exposure", cfg.prior_searches, cfg.top_ranks)
    if key in inp.cache:
        return inp.cache[key]
    uses = inp.uses
    subject_use: dict[str, float] = {}
    subject_slots: dict[str, set[SlotKey | None]] = {}
    for e in inp.slots:
        u = uses.get(e.uuid)
        if u is not None:
            subject_use[e.subject_uuid] = subject_use.get(e.subject_uuid, 0.0) + u.weighted
        subject_slots.setdefault(e.subject_uuid, set()).add(slot_key(e.subject_uuid, e.predicate))
    n_slots = sum(len(p) for p in subject_slots.values())
    n_searches = searches(uses)
    if n_searches > 0:
        per_search = sum(u.weighted for u in uses.values()) / n_searches
    else:  # no search logged (a log of deeper ranks only gives no unit: no prior)
        per_search = 0.0 if uses else sum(1.0 / r for r in range(1, cfg.top_ranks + 1))
    per_slot = cfg.prior_searches * per_search / n_slots if n_slots else 0.0
    mean_degree = n_slots / len(subject_slots) if subject_slots else 0.0
    out = Exposure(per_slot, per_search, subject_use, subject_slots, mean_degree, {e.uuid: e for e in inp.slots})
    inp.cache[key] = out
    return out


class Hit(NamedTuple):
    """One rule's finding on one fact: its value (weighted returns that could change) and why, with
    its numbers. ``why`` and ``numbers`` may be functions of ``args``, so the queue makes the text
    only for the facts it shows (a rule finds tens of thousands at 100k facts)."""

    key: str
    value: float
    why: str | Callable[..., str]
    numbers: dict[str, Any] | Callable[..., dict[str, Any]]
    args: tuple = ()

    @property
    def reason(self) -> str:
        return self.why(*self.args) if callable(self.why) else self.why

    @property
    def figures(self) -> dict[str, Any]:
        return self.numbers(*self.args) if callable(self.numbers) else self.numbers


def figures(**numbers: Any) -> dict[str, Any]:
    """A hit's numbers, floats rounded to 4 places (what the queue shows)."""
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in numbers.items()}


Rule = Callable[[QueueInputs, ReviewQueueSettings], Iterable[Hit]]


def unreviewed_use(inp: QueueInputs, cfg: ReviewQueueSettings) -> Iterable[Hit]:
    """Facts agents are shown that no reviewer decided. A decision changes what agents see of such
    a fact (one no other value competes with) when it takes it away: the fact is wrong or outdated.
    Value: its returns x the trust a decision could still move (1 - the current tier: unreviewed 1,
    candidate 0.75, corroborated 0.4) x the chance a decision removes it, the review DB's own rate
    (rejected or expired among decided facts, Laplace-smoothed: 0.5 before any decision)."""
    p_bad, bad, decided = inp.removal_rate()
    reviews, tiers = inp.reviews, inp.tiers
    for key, u in inp.uses.items():
        status = inp.status(key) if key in reviews else None
        if status in DECISIVE:
            continue
        room = 1.0 - ((tiers.get(status) or 0.0) if status is not None else 0.0)
        if room <= 0:
            continue
        yield Hit(key, u.weighted * room * p_bad, _unreviewed_why, _unreviewed_numbers,
                  (status, u, room, p_bad, bad, decided))


def _unreviewed_numbers(status: str | None, u: Use, room: float, p_bad: float, bad: int, decided: int
                        ) -> dict[str, Any]:
    return figures(status=status, returns=u.returns, weighted=u.weighted, best_rank=u.best_rank, room=room,
                   p_removed=p_bad)


def _unreviewed_why(status: str | None, u: Use, room: float, p_bad: float, bad: int, decided: int) -> str:
    return (f"{'unreviewed' if status is None else status}, returned {u.returns} times (best rank {u.best_rank}, "
            f"{u.weighted:.1f} weighted); a decision removes it with chance {p_bad:.2f} ({bad} of {decided} decided "
            "facts were rejected or expired)")


def _contested_numbers(predicate: str, values: list[str], verified: int, returned: int, exposure: float, own: float,
                       subject: float, prior: float, gap: float | None, risk: float) -> dict[str, Any]:
    return figures(predicate=predicate, values=len(values), verified=verified, returned=returned, slot_weighted=own,
                   subject_share=subject, prior=prior, exposure=exposure,
                   gap_days=None if gap is None else round(gap, 1), risk=risk)


def _contested_why(predicate: str, values: list[str], verified: int, returned: int, exposure: float, own: float,
                   subject: float, prior: float, gap: float | None, risk: float) -> str:
    after = "no time to compare" if gap is None else f"{gap:.0f} days after the value it displaced"
    return (f"contested slot {predicate}: {len(values)} values ({', '.join(map(str, values[:4]))}"
            f"{', ...' if len(values) > 4 else ''}), {verified or 'none'} verified, {returned} returned; this one "
            f"is shown first ({after}: wrong first with risk {risk:.2f}); exposure {exposure:.1f} ({own:.1f} "
            f"weighted returns of the slot + {subject:.1f} of its subject's + {prior:.2f} prior)")


def first_shown(live: list[SlotEdge], trust: Callable[[str], float | None], use: Callable[[str], float]
                ) -> tuple[SlotEdge, float | None]:
    """The value of a slot agents see first, as the search's competitor rule orders a slot's values
    (verified trust first, then the newer stamp; a missing stamp is oldest; ties in relevance order,
    which the log tells as the more returned first), and the days between it and the newest edge
    holding another value (None when either has no stamp)."""

    def key(e: SlotEdge) -> tuple[float, float, float, str]:
        return (-(trust(e.uuid) or 0.0), -(e.stamp if e.stamp is not None else -math.inf), -use(e.uuid), e.uuid)

    order = sorted(live, key=key)
    first = order[0]
    runner = next(e for e in order if e.object_uuid != first.object_uuid)
    if first.stamp is None or runner.stamp is None:
        return first, None
    return first, max(0.0, first.stamp - runner.stamp) / 86400.0


def contested_slot(inp: QueueInputs, cfg: ReviewQueueSettings) -> Iterable[Hit]:
    """Slots (subject and relation) holding different values, of which none or several are
    verified, among the facts no reviewer rejected or expired: the wrong-answer-first risk.

    Which fact: the value agents see first (:func:`first_shown`). One decision on it settles the
    slot whichever way it goes: promoted, it stays first and is verified; rejected or expired, it
    drops and the next value takes its place. The slot's other values are left to later (deciding
    them changes what agents see first only when the first one is wrong *and* they are right).

    Value: the slot's exposure x the risk that the value shown first is wrong. Risk: that value
    is newer than the one it displaced by ``gap`` days; a value that changed long after the last
    one is most likely an update (the search already puts the newer first: right), one that came
    soon after a different value is a conflict between sources, as likely wrong as right. Values
    change about every ``update_days``, so the newer one is an update with chance
    ``1 - exp(-gap / update_days)`` and the risk is ``exp(-gap / update_days)`` (1 without stamps).

    Exposure: the slot's weighted returns, plus its subject's share (the subject's returns spread
    evenly over its slots: agents who ask about an entity ask about its other relations too), plus
    a prior: ``prior_searches`` searches' worth of returns spread evenly over every slot the queue
    reads, so a slot no search returned yet is still exposed and a short log does not decide alone."""
    slots: dict[tuple[str, str], list[SlotEdge]] = {}
    for e in inp.slots:
        if e.valid and (key := slot_key(e.subject_uuid, e.predicate)) is not None:
            slots.setdefault(key, []).append(e)
    model = exposure(inp, cfg)

    def trust(uuid: str) -> float | None:
        s = inp.status(uuid)
        return inp.tiers.get(s) if s in VERIFIED else None

    for edges in slots.values():
        if len(edges) < 2:
            continue
        subject, predicate = edges[0].subject_uuid, edges[0].predicate
        status_of = {e.uuid: inp.status(e.uuid) for e in edges}
        live = [e for e in edges if status_of[e.uuid] not in ("rejected", "expired")]
        if len({e.object_uuid for e in live}) < 2:
            continue
        verified = [e for e in live if status_of[e.uuid] in VERIFIED]
        if len(verified) == 1:
            continue  # one verified value: review already says which comes first
        own = sum(inp.use(e.uuid) for e in edges)
        share, prior = model.share(subject), model.prior(subject)
        exposed = own + share + prior
        first, gap = first_shown(live, trust, inp.use)
        risk = 1.0 if gap is None else math.exp(-gap / cfg.update_days)
        if exposed * risk <= 0:
            continue
        returned = sum(1 for e in live if inp.use(e.uuid) > 0)
        values = sorted({e.object or e.object_uuid for e in live})
        yield Hit(first.uuid, exposed * risk, _contested_why, _contested_numbers,
                  (predicate, values, len(verified), returned, exposed, own, share, prior, gap, risk))


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
    """Facts whose confidence (the confidence model) is below ``low_confidence``: their exposure
    (returns, else their subject's share and prior, :class:`Exposure`) times the confidence they
    lack."""
    model = exposure(inp, cfg)
    for key, c in inp.confidences.items():
        if c >= cfg.low_confidence:
            continue
        use = inp.use(key)
        exposed = use if use > 0 else model.of(key)
        if exposed <= 0 or inp.status(key) in DECISIVE:
            continue
        yield Hit(key, exposed * (1.0 - c), _low_confidence_why, _low_confidence_numbers,
                  (c, cfg.low_confidence, exposed))


def _low_confidence_why(c: float, low: float, use: float) -> str:
    return f"confidence {c:.2f} < {low:g}, exposure {use:.2f} weighted returns"


def _low_confidence_numbers(c: float, low: float, use: float) -> dict[str, Any]:
    return figures(confidence=c, exposure=use)


def _undecided(inp: QueueInputs) -> Iterable[tuple[SlotEdge, str | None, float]]:
    """The graph's facts no reviewer decided, with their status and the trust a decision could
    still move (1 - the current tier)."""
    for e in inp.slots:
        status = inp.status(e.uuid) if e.uuid in inp.reviews else None
        if status in DECISIVE:
            continue
        room = 1.0 - ((inp.tiers.get(status) or 0.0) if status is not None else 0.0)
        if room > 0:
            yield e, status, room


def centrality(inp: QueueInputs, cfg: ReviewQueueSettings) -> Iterable[Hit]:
    """Every fact no reviewer decided, logged or not (the explore part: the queue never runs out
    while such facts remain): the returns it can expect without a log of its own, its subject's
    share of the log plus the prior scaled by its subject's centrality (:class:`Exposure`), x the
    trust a decision could still move x the chance a decision removes it (the review DB's rate, as
    ``unreviewed_use``). Invalidated facts are ``contradiction``'s."""
    model = exposure(inp, cfg)
    p_bad, _, _ = inp.removal_rate()
    for e, status, room in _undecided(inp):
        if not e.valid:
            continue
        share, prior = model.share(e.subject_uuid), model.prior(e.subject_uuid)
        value = (share + prior) * room * p_bad
        if value > 0:
            yield Hit(e.uuid, value, _centrality_why, _centrality_numbers,
                      (status, share, prior, model.centrality(e.subject_uuid), room, p_bad))


def _centrality_why(status: str | None, share: float, prior: float, central: float, room: float, p_bad: float) -> str:
    return (f"{status or 'unreviewed'}; expected exposure {share + prior:.2f} ({share:.2f} its subject's returns "
            f"per relation + {prior:.2f} prior, centrality {central:.2f}) x room {room:.2f} x removal chance "
            f"{p_bad:.2f}")


def _centrality_numbers(status: str | None, share: float, prior: float, central: float, room: float,
                        p_bad: float) -> dict[str, Any]:
    return figures(status=status, subject_share=share, prior=prior, centrality=central, room=room, p_removed=p_bad)


def age(inp: QueueInputs, cfg: ReviewQueueSettings) -> Iterable[Hit]:
    """Facts no reviewer decided that are old: a value stated ``age`` days ago has been replaced
    in the world with chance ``1 - exp(-age / update_days)`` (the contested rule's update rate),
    and a stale fact nobody contradicted in the graph is found only by asking. Value: the fact's
    exposure (returns, else its subject's share and prior) x room x that chance. Ages are measured
    from ``inputs.now`` (the queue's time), else the graph's newest stamp."""
    model = exposure(inp, cfg)
    stamps = [e.stamp for e in inp.slots if e.stamp is not None]
    if not stamps:
        return
    now = inp.now if inp.now is not None else max(stamps)
    for e, _status, room in _undecided(inp):
        if not e.valid or e.stamp is None:
            continue
        days = max(0.0, now - e.stamp) / 86400.0
        stale = 1.0 - math.exp(-days / cfg.update_days)
        exposed = inp.use(e.uuid) + model.of(e.uuid)
        if exposed * room * stale > 0:
            yield Hit(e.uuid, exposed * room * stale, _age_why, _age_numbers, (days, stale, exposed, room))


def _age_why(days: float, stale: float, exposed: float, room: float) -> str:
    return f"stated {days:.0f} days ago: replaced since with chance {stale:.2f}; exposure {exposed:.2f}"


def _age_numbers(days: float, stale: float, exposed: float, room: float) -> dict[str, Any]:
    return figures(age_days=round(days, 1), p_replaced=stale, exposure=exposed, room=room)


def contradiction(inp: QueueInputs, cfg: ReviewQueueSettings) -> Iterable[Hit]:
    """Facts no reviewer decided that Graphiti invalidated (its contradiction step has invalidated
    correct facts: a promotion brings one back) or that state another value than the one verified
    value of their slot (a rejection takes it out of the answers): a decision settles which is
    right. Value: the slot's exposure (its returns, its subject's share and prior) x room x 1/2
    (either side as likely)."""
    model = exposure(inp, cfg)
    verified: dict[SlotKey, set[str]] = {}
    slot_use: dict[SlotKey | None, float] = {}
    for e in inp.slots:
        key = slot_key(e.subject_uuid, e.predicate)
        if key is not None and e.valid and inp.status(e.uuid) in VERIFIED:
            verified.setdefault(key, set()).add(e.object_uuid)
        slot_use[key] = slot_use.get(key, 0.0) + inp.use(e.uuid)
    for e, _status, room in _undecided(inp):
        if e.uuid in inp.invalidated:
            continue  # the guard's record: trusted_invalidated
        key = slot_key(e.subject_uuid, e.predicate)
        values = verified.get(key, set()) if key is not None else set()
        against = len(values) == 1 and e.object_uuid not in values
        if e.valid and not against:
            continue
        exposed = (slot_use[key] if key is not None else inp.use(e.uuid)) + model.of(e.uuid)
        value = exposed * room * 0.5
        if value > 0:
            why = "Graphiti invalidated it" if not e.valid else "another value of its slot is verified"
            yield Hit(e.uuid, value, f"{why}; exposure {exposed:.2f} of its slot",
                      figures(invalidated=not e.valid, contradicts_verified=against, exposure=exposed, room=room))


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
    """Review rows whose edge is not in the graph (a migration, a re-extraction, a deleted edge):
    their decision reaches no agent until someone relinks, re-creates or expires them. Whether
    relink ran is not known here, so the reason says what is: the edge is missing and what fixes
    it. ``floor_uses`` each."""
    for r in inp.unplaced:
        if r.get("status") in ("rejected", "expired"):
            continue
        yield Hit(f"candidate:{r['candidate_id']}", cfg.floor_uses,
                  f"review row {r['candidate_id']} ({r.get('status')}) points at edge {r['edge_uuid']}, which is not "
                  "in the graph: its decision reaches no agent (graph-trust relink matches it to a current edge "
                  "that states the same fact; else expire it)",
                  {"candidate_id": r["candidate_id"], "edge_uuid": r["edge_uuid"], "status": r.get("status")})


RULES: dict[str, Rule] = {"unreviewed_use": unreviewed_use, "contested_slot": contested_slot,
                          "trusted_invalidated": trusted_invalidated, "low_confidence_use": low_confidence_use,
                          "flagged": flagged, "unplaced": unplaced, "centrality": centrality, "age": age,
                          "contradiction": contradiction}

__all__ = ["DECISIVE", "RULES", "Exposure", "Hit", "age", "centrality", "contradiction", "exposure", "figures", "QueueInputs", "Rule", "SlotEdge", "contested_slot", "first_shown",
           "flagged", "low_confidence_use", "trusted_invalidated", "unplaced", "unreviewed_use"]
