"""Several writers at once lose no update, on SQLite and PostgreSQL: writer threads in one process
and writer processes (the page, two MCP servers and a sync are separate processes) each decide the
same fact, add to the same retrieval-log counters and verify the same fact; at the end every
count adds up and the audit trail is one unbroken chain (each decision saw the status the previous
one left)."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest
from concurrent_writer import RETURNED, work
from sync_fixtures import row

from graph_trust import api
from graph_trust.review.db import ReviewConn
from graph_trust.sync.review_db import insert_records, insert_rows

WORKERS, ROUNDS = 4, 8


@pytest.mark.parametrize("how", ["threads", "processes"])
def test_parallel_writers_lose_no_update(review_url, how):
    api.init_review_db(review_url)
    insert_rows(review_url, [row("c-shared", "e1", "candidate", "g"), row("f-shared", "e2", "candidate", "g")])
    insert_records(review_url, {"fact_sources": [{"fact_id": "f-shared", "agent_id": "author-a", "category": "ops",
                                                  "created_at": "2026-01-01T00:00:00Z"}]})
    if how == "threads":
        errors: list[BaseException] = []

        def run(w: int) -> None:
            try:
                work(review_url, w, ROUNDS)
            except BaseException as exc:  # (reported below)
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(w,)) for w in range(WORKERS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
    else:
        script = Path(__file__).parent.parent / "concurrent_writer.py"
        procs = [subprocess.Popen([sys.executable, str(script), review_url, str(w), str(ROUNDS)],
                                  stderr=subprocess.PIPE, text=True) for w in range(WORKERS)]
        for p in procs:
            _, err = p.communicate(timeout=300)
            assert p.returncode == 0, err
    total = WORKERS * ROUNDS
    with ReviewConn.open(review_url) as conn:
        trail = conn.query("SELECT previous_status, new_status FROM review_decisions WHERE candidate_id = 'c-shared' "
                           "ORDER BY id")
        hits = dict(conn.query("SELECT edge_uuid, sum(hits) FROM retrieval_log GROUP BY edge_uuid"))
        verified = conn.query("SELECT count(*) FROM fact_verifications WHERE fact_id = 'f-shared'")[0][0]
        cached = conn.query("SELECT verification_count, verified_correct FROM agent_credibility "
                            "WHERE agent_id = 'author-a'")
        final = conn.query("SELECT status FROM candidates WHERE id = 'c-shared'")[0][0]
    assert len(trail) == total
    assert trail[0][0] == "candidate" and all(a[1] == b[0] for a, b in zip(trail, trail[1:]))  # no lost update
    assert trail[-1][1] == final
    assert hits == {u: total for u, _ in RETURNED}
    assert verified == total and cached == [(total, total)]
