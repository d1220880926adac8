"""Review DB draws: which facts the reviewers covered and what they decided, at random.

One shipped review DB is one draw among many that the same reviewers could have produced, so
results are reported over several draws (mean and spread), never from one. A draw picks
``round(coverage * n)`` facts at random; each covered fact gets a status from its verdict
(what a careful reviewer decides):

============  ==========================================================
verdict       status when covered (probabilities)
============  ==========================================================
``correct``   promoted 0.45, corroborated 0.25, candidate 0.30
``wrong``     rejected 0.65, candidate 0.35
``outdated``  expired 0.55, rejected 0.15, candidate 0.30
============  ==========================================================

With probability ``noise`` a covered fact's decision is flipped instead: a correct fact is
rejected (or expired), a wrong or outdated one promoted (or corroborated). ``candidate`` is
not a decision (nobody checked), so unverified wrong extractions stay candidates at the rates
above. Deterministic for a given seed.

:func:`draw_confidence` adds the records the confidence model reads (sources, verifications,
uses, votes, contradictions) for a draw's facts, from the tables below it (documented in
docs/evaluation.md, "Confidence records").
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from typing import Any

from graph_trust.errors import InputError
from graph_trust.eval.dataset import Query

STATUS_BY_VERDICT: dict[str, tuple[tuple[str, float], ...]] = {
    "correct": (("promoted", 0.45), ("corroborated", 0.25), ("candidate", 0.30)),
    "wrong": (("rejected", 0.65), ("candidate", 0.35)),
    "outdated": (("expired", 0.55), ("rejected", 0.15), ("candidate", 0.30)),
}
NOISE_STATUS: dict[str, tuple[tuple[str, float], ...]] = {
    "correct": (("rejected", 0.7), ("expired", 0.3)),
    "wrong": (("promoted", 0.5), ("corroborated", 0.5)),
    "outdated": (("promoted", 0.5), ("corroborated", 0.5)),
}
CONFIDENCE = {"promoted": 0.95, "corroborated": 0.8, "candidate": 0.55, "rejected": 0.2, "expired": 0.3}
DEFAULT_COVERAGE = 0.4
DEFAULT_NOISE = 0.05


def pick(rng: random.Random, table: tuple[tuple[str, float], ...]) -> str:
    return rng.choices([s for s, _ in table], weights=[w for _, w in table])[0]


def draw_review(graph: dict[str, Any], verdicts: dict[str, str], *, seed: int,
                coverage: float = DEFAULT_COVERAGE, noise: float = DEFAULT_NOISE) -> list[dict[str, Any]]:
    """Rows of the review DB's ``candidates`` table for one draw (the documented schema).

    Each row carries ``noisy`` (True where the decision was flipped) so tests and reports can
    count the noise; sync ignores columns it does not know.
    """
    if not 0.0 <= coverage <= 1.0:
        raise InputError(f"review coverage must be in [0, 1], got {coverage}")
    if not 0.0 <= noise <= 1.0:
        raise InputError(f"review noise must be in [0, 1], got {noise}")
    edges = graph["edges"]
    missing = [e["uuid"] for e in edges if e["uuid"] not in verdicts]
    if missing:
        raise InputError(f"fact {missing[0]} has no verdict (verdicts.json must name every fact)")
    rng = random.Random(seed)
    covered = sorted(rng.sample(range(len(edges)), round(coverage * len(edges))))
    as_of = datetime.fromisoformat(graph.get("as_of") or max(e["created_at"] for e in edges))
    rows = []
    for n, i in enumerate(covered, start=1):
        e = edges[i]
        verdict = verdicts[e["uuid"]]
        noisy = rng.random() < noise
        status = pick(rng, NOISE_STATUS[verdict] if noisy else STATUS_BY_VERDICT[verdict])
        rows.append({
            "id": f"rev-{seed}-{n:04d}",
            "subject": None,
            "predicate": e["name"],
            "object": None,
            "fact": e["fact"],
            "status": status,
            "evidence_refs_json": json.dumps([{"evidence_id": e["uuid"], "kind": "graphiti_edge"}]),
            "group_id": e["group_id"],
            "updated_at": (as_of - timedelta(days=rng.randint(1, 60), minutes=rng.randint(0, 1439))).isoformat(),
            "confidence": CONFIDENCE[status],
            "noisy": noisy,
        })
    return rows


# --- confidence records ------------------------------------------------------------------------
# What the confidence model reads besides the review decision (docs/evaluation.md, "Confidence
# records"), generated per draw for the facts the draw's review DB holds.

RELIABLE = "reliable"
UNRELIABLE = "unreliable"
# agent: (role, expertise, kind). Unreliable agents author most wrong extractions and verify and
# vote with little regard for the truth.
AGENTS: dict[str, tuple[str, str, str]] = {
    "ops-lead": ("owner", "expert", RELIABLE),
    "sre-oncall": ("admin", "experienced", RELIABLE),
    "db-admin": ("database_admin", "expert", RELIABLE),
    "platform-dev": ("developer", "intermediate", RELIABLE),
    "monitor-bot": ("monitor", "experienced", RELIABLE),
    "llm-extractor": ("member", "novice", UNRELIABLE),
    "chat-summarizer": ("guest", "novice", UNRELIABLE),
}
SYSTEM_VERIFIER = "system_auto_verify"  # confidence.system_verifiers' default: a system-level check
CATEGORY_BY_GROUP = {"infra": "infrastructure", "payments": "deployments"}
AUTHOR_RELIABLE = {"correct": 0.85, "outdated": 0.80, "wrong": 0.30}  # P(author is a reliable agent)
SOURCE_TYPE: dict[str, tuple[tuple[str, float], ...]] = {
    "correct": (("automated_metric", 0.2), ("verified_fact", 0.3), ("observation", 0.5)),
    "outdated": (("automated_metric", 0.2), ("verified_fact", 0.3), ("observation", 0.5)),
    "wrong": (("observation", 0.5), ("hypothesis", 0.5)),
}
VERIFICATIONS_PER_FACT = ((0, 0.4), (1, 0.3), (2, 0.2), (3, 0.1))
SYSTEM_SHARE = 0.1  # of verifications, made by SYSTEM_VERIFIER (it checks like a reliable agent)
VERDICT_BY: dict[str, tuple[tuple[str, float], ...]] = {  # what a reliable verifier records
    "correct": (("confirmed", 0.6), ("still_valid", 0.3), ("partially_valid", 0.1)),
    "outdated": (("outdated", 0.7), ("still_valid", 0.2), ("confirmed", 0.1)),
    "wrong": (("incorrect", 0.75), ("confirmed", 0.25)),
}
UNRELIABLE_VERDICT = (("confirmed", 0.7), ("incorrect", 0.3))
USES_PER_FACT = (0, 12)  # uniform, inclusive
OUTCOME_BY: dict[str, tuple[tuple[str, float], ...]] = {
    "correct": (("success", 0.80), ("partial", 0.10), ("failure", 0.07), ("error", 0.03)),
    "outdated": (("success", 0.20), ("partial", 0.15), ("failure", 0.55), ("error", 0.10)),
    "wrong": (("success", 0.15), ("partial", 0.10), ("failure", 0.60), ("error", 0.15)),
}
USE_DAYS = 120  # uses spread over the last 120 days (the success window counts the last 90)
VOTES_PER_FACT = (0, 4)  # uniform, inclusive; distinct voters other than the author
VOTE_BY: dict[str, tuple[tuple[str, float], ...]] = {  # a reliable voter
    "correct": (("agree", 0.85), ("disagree", 0.10), ("unsure", 0.05)),
    "outdated": (("agree", 0.15), ("disagree", 0.75), ("unsure", 0.10)),
    "wrong": (("agree", 0.15), ("disagree", 0.75), ("unsure", 0.10)),
}
UNRELIABLE_VOTE = (("agree", 0.6), ("disagree", 0.3), ("unsure", 0.1))
VOTE_CONFIDENCE = (0.5, 1.0)  # uniform
CONTRADICTION_RECORDED = 0.7  # of (wrong or outdated, right) pairs both in the review DB
CONTRADICTION_RESOLVED = 0.6  # of the recorded ones; the others stay open (flagged for review)
RIGHT_WINS = 0.85  # of the resolved ones
FLIPPED = {"confirmed": "incorrect", "still_valid": "incorrect", "partially_valid": "incorrect",
           "incorrect": "confirmed", "outdated": "still_valid",
           "success": "failure", "partial": "failure", "failure": "success", "error": "success",
           "agree": "disagree", "disagree": "agree", "unsure": "unsure"}


def contested_pairs(queries: list[Query], qrels: dict[str, dict[str, int]]) -> list[tuple[str, str, str]]:
    """(wrong or outdated fact, right fact, the query's first class) for every contested query:
    the facts a contradiction record can name."""
    out = {}
    for q in queries:
        for w in q.wrong:
            for doc, grade in qrels.get(q.id, {}).items():
                if grade == 2:
                    out.setdefault(tuple(sorted((w, doc))), (w, doc, (q.classes or ("",))[0]))
    return list(out.values())


def _iso(t: datetime) -> str:
    """The review DB's time format (ISO 8601 UTC, milliseconds, ``Z``): text order is time order."""
    return t.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _between(rng: random.Random, lo: datetime, hi: datetime) -> datetime:
    return lo + (hi - lo) * rng.random() if hi > lo else hi


def draw_confidence(graph: dict[str, Any], verdicts: dict[str, str], rows: list[dict[str, Any]],
                    pairs: list[tuple[str, str, str]], *, seed: int,
                    noise: float = DEFAULT_NOISE) -> dict[str, list[dict[str, Any]]]:
    """The confidence records of one draw's review DB (``rows``: :func:`draw_review`'s), per table.

    Distributions are the tables above (documented in docs/evaluation.md); with probability
    ``noise`` each verification, use, vote and resolution is flipped (a confirmation becomes a
    refutation, a success a failure, agree disagree, the winner the loser). Times are relative
    to the set's ``as_of``. Deterministic for a seed, and independent of :func:`draw_review`'s
    random stream, so adding records changes no review decision.
    """
    if not 0.0 <= noise <= 1.0:
        raise InputError(f"review noise must be in [0, 1], got {noise}")
    rng = random.Random(f"confidence-{seed}")
    edges = {e["uuid"]: e for e in graph["edges"]}
    as_of = datetime.fromisoformat(graph.get("as_of") or max(e["created_at"] for e in graph["edges"]))
    reliable = [a for a, (_, _, kind) in AGENTS.items() if kind == RELIABLE]
    unreliable = [a for a, (_, _, kind) in AGENTS.items() if kind == UNRELIABLE]
    out: dict[str, list[dict[str, Any]]] = {"agent_credibility": [
        {"agent_id": a, "category": "global", "expertise": exp} for a, (_, exp, _) in AGENTS.items()]}
    sources, verifications, uses, votes, contradictions = [], [], [], [], []

    def noisy(value: str) -> str:
        return FLIPPED[value] if rng.random() < noise else value

    fact_of: dict[str, str] = {}
    for row in rows:
        uuid = json.loads(row["evidence_refs_json"])[0]["evidence_id"]
        fact_of[uuid] = row["id"]
        e, verdict = edges[uuid], verdicts[uuid]
        created = datetime.fromisoformat(e["created_at"])
        author = rng.choice(reliable if rng.random() < AUTHOR_RELIABLE[verdict] else unreliable)
        sources.append({"fact_id": row["id"], "agent_id": author, "role": AGENTS[author][0],
                        "source_type": pick(rng, SOURCE_TYPE[verdict]),
                        "category": CATEGORY_BY_GROUP.get(e["group_id"], "global"), "created_at": _iso(created)})
        others = [a for a in AGENTS if a != author]
        n_ver = rng.choices([k for k, _ in VERIFICATIONS_PER_FACT], weights=[p for _, p in VERIFICATIONS_PER_FACT])[0]
        for who in rng.sample(others, n_ver):
            if rng.random() < SYSTEM_SHARE:
                who = SYSTEM_VERIFIER
            table = VERDICT_BY[verdict] if who == SYSTEM_VERIFIER or AGENTS[who][2] == RELIABLE else UNRELIABLE_VERDICT
            verifications.append({"fact_id": row["id"], "verifier_id": who,
                                  "verification_type": noisy(pick(rng, table)),
                                  "verified_at": _iso(_between(rng, max(created, as_of - timedelta(days=180)),
                                                               as_of - timedelta(hours=1)))})
        for _ in range(rng.randint(*USES_PER_FACT)):
            uses.append({"fact_id": row["id"], "agent_id": rng.choice(list(AGENTS)), "action": "answered a query",
                         "outcome": noisy(pick(rng, OUTCOME_BY[verdict])),
                         "tracked_at": _iso(_between(rng, max(created, as_of - timedelta(days=USE_DAYS)), as_of))})
        for voter in rng.sample(others, rng.randint(*VOTES_PER_FACT)):
            table = VOTE_BY[verdict] if AGENTS[voter][2] == RELIABLE else UNRELIABLE_VOTE
            votes.append({"fact_id": row["id"], "agent_id": voter, "vote": noisy(pick(rng, table)),
                          "confidence": round(rng.uniform(*VOTE_CONFIDENCE), 2),
                          "voted_at": _iso(_between(rng, max(created, as_of - timedelta(days=90)), as_of))})
    for wrong, right, cls in pairs:
        if wrong not in fact_of or right not in fact_of or rng.random() >= CONTRADICTION_RECORDED:
            continue
        a, b = sorted((fact_of[wrong], fact_of[right]))
        kind = "different_object" if cls == "wrong_extraction" else "conflicting_value"
        detected = _between(rng, as_of - timedelta(days=60), as_of - timedelta(hours=1))
        rec = {"fact_a_id": a, "fact_b_id": b, "contradiction_type": kind,
               "severity": "medium" if kind == "different_object" else "high",
               "detail": f"{edges[wrong]['fact']} / {edges[right]['fact']}", "detected_at": _iso(detected)}
        if rng.random() < CONTRADICTION_RESOLVED:
            win, lose = (right, wrong) if rng.random() < RIGHT_WINS else (wrong, right)
            if rng.random() < noise:
                win, lose = lose, win
            strategy = "source_credibility" if kind == "different_object" else "temporal"
            rec.update(resolved_at=_iso(_between(rng, detected, as_of)), resolution_strategy=strategy,
                       resolution_winner=fact_of[win], resolution_loser=fact_of[lose],
                       resolution_reason=f"{strategy}: {fact_of[win]} kept")
        contradictions.append(rec)
    out.update(fact_sources=sources, fact_verifications=verifications, fact_usage_outcomes=uses,
               fact_votes=votes, fact_contradictions=contradictions)
    return out
