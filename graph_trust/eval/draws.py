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
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from typing import Any

from graph_trust.errors import InputError

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


def _pick(rng: random.Random, table: tuple[tuple[str, float], ...]) -> str:
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
        status = _pick(rng, NOISE_STATUS[verdict] if noisy else STATUS_BY_VERDICT[verdict])
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
