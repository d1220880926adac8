"""One writer of the concurrency test (run as a script in its own process, or called in a thread):
ROUNDS rounds of a review decision on the shared candidate, a retrieval-log batch adding to the
same counters, and a verification of the shared fact (which rewrites its author's cached record)."""

from __future__ import annotations

import sys

from graph_trust.config import ConfidenceSettings, ReviewSettings
from graph_trust.review.candidates import open_candidates
from graph_trust.review.decisions import decide
from graph_trust.review.log import RetrievalLog
from graph_trust.sync.confidence.store import ConfidenceStore

TIERS = {"promoted": 1.0, "corroborated": 0.6, "candidate": 0.25, "rejected": 0.0, "expired": 0.0}
RETURNED = [("e1", "g"), ("e2", "g"), ("e3", "g")]


def work(url: str, worker: int, rounds: int) -> None:
    conn, cand = open_candidates(url, ReviewSettings())
    log = RetrievalLog(url, background=False)
    store = ConfidenceStore.open(url, ReviewSettings(), ConfidenceSettings())
    try:
        for i in range(rounds):
            decide(conn, cand, ("promote", "corroborate", "reject")[(worker + i) % 3], ["c-shared"],
                   actor=f"w{worker}", reason=f"round {i}", tiers=TIERS)
            log.record("search", RETURNED)
            log.flush()
            store.verify("f-shared", "confirmed", f"w{worker}")
    finally:
        store.close()
        log.close()
        conn.close()


if __name__ == "__main__":
    work(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
