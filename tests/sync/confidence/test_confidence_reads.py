"""What the confidence model reads and writes, beyond what it computes: one fact's confidence
(``graph-trust confidence ID``) reaches its records through indexes only, never a scan of a
record table, on a real SQLite review DB; and sync keeps ``sync_confidence`` equal to the scores
while writing only the candidates whose score moved, is new, or left, over random histories."""

from __future__ import annotations

import random
import sqlite3
from dataclasses import fields
from datetime import timedelta

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_confidence_store import NOW, build_history, fact, iso, make_db, sources, store

from graph_trust.config import load_settings
from graph_trust.sync.confidence.schema import TABLES
from graph_trust.sync.confidence.trust import EPSILON, store_confidence
from graph_trust.sync.desired import load_tiers
from graph_trust.sync.policy import policy_of
from graph_trust.sync.store.state import StateStore

# tables whose size grows with the review DB: a scan of one would make one fact cost the whole DB
BIG = {"candidates", "fact_sources", "fact_verifications", "fact_usage_outcomes", "fact_votes",
       "fact_contradictions", "agent_credibility", "confidence_predictions"}


def _busy_db(path, n: int, rng: random.Random):
    facts = [fact(f"f{i}", s=f"svc-{i % 37}", o=str(i % 5), status=rng.choice(["promoted", "candidate", "rejected"]),
                  days_ago=rng.uniform(0, 300)) for i in range(n)]
    make_db(path, facts)
    sources(path, [(f"f{i}", f"a{i % 11}", "developer", "observation", rng.choice(["security", "runbooks", None]),
                    iso(NOW - timedelta(days=rng.uniform(0, 300)))) for i in range(n)])
    con = sqlite3.connect(path)
    with con:
        con.executemany("INSERT INTO fact_verifications (fact_id, verifier_id, verification_type, verified_at) "
                        "VALUES (?, ?, ?, ?)", [(f"f{rng.randrange(n)}", f"a{rng.randrange(11)}",
                                                 rng.choice(["confirmed", "incorrect"]), iso(NOW)) for _ in range(n)])
        con.executemany("INSERT INTO fact_usage_outcomes (fact_id, agent_id, action, outcome, tracked_at) "
                        "VALUES (?, 'u', 'x', ?, ?)", [(f"f{rng.randrange(n)}", rng.choice(["success", "failure"]),
                                                        iso(NOW)) for _ in range(n)])
        con.executemany("INSERT OR IGNORE INTO fact_votes (fact_id, agent_id, vote, confidence, voted_at) "
                        "VALUES (?, ?, 'agree', 0.5, ?)", [(f"f{rng.randrange(n)}", f"a{rng.randrange(11)}", iso(NOW))
                                                           for _ in range(n // 2)])
        con.executemany("INSERT OR IGNORE INTO fact_contradictions (fact_a_id, fact_b_id, contradiction_type, "
                        "severity, detected_at) VALUES (?, ?, 't', 'low', ?)",
                        [(f"f{rng.randrange(n)}", f"f{rng.randrange(n)}", iso(NOW)) for _ in range(n // 10)])
        con.executemany("INSERT INTO agent_credibility (agent_id, category, expertise) VALUES (?, 'global', 'expert')",
                        [(f"a{i}",) for i in range(11)])
    con.execute("ANALYZE")
    con.close()


@pytest.mark.parametrize("fact_id", ["f0", "f17", "f199"])
def test_one_fact_reads_its_records_through_indexes_only(tmp_path, fact_id):
    path = tmp_path / "r.db"
    _busy_db(path, 200, random.Random(fact_id))
    statements: list[str] = []
    with store(path) as s:
        s.conn.raw.set_trace_callback(statements.append)
        s.confidence(fact_id)
        s.conn.raw.set_trace_callback(None)
        reads = [q for q in statements if q.lstrip().upper().startswith(("SELECT", "WITH"))]
        assert len(reads) >= 8  # candidates, cluster, sources, verifications, uses, contradictions, votes, agents
        touched = set()
        for q in reads:
            for *_, detail in s.conn.raw.execute("EXPLAIN QUERY PLAN " + q):
                words = detail.split()
                if words[0] in ("SCAN", "SEARCH") and words[1] in BIG:
                    touched.add(words[1])
                    assert words[0] == "SEARCH", f"{detail!r} in: {q}"
        assert touched >= set(TABLES) & BIG - {"confidence_predictions", "agent_credibility"} | {"candidates"}


# --- sync's store of the scores --------------------------------------------------------------

def _stored(con, source: str) -> dict[str, float]:
    return dict(con.execute("SELECT id, confidence FROM sync_confidence WHERE source = ?", (source,)))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.integers(0, 2**32 - 1))
def test_store_confidence_writes_only_what_moved(tmp_path_factory, seed):
    rng = random.Random(seed)
    state = tmp_path_factory.mktemp("state")
    st_store = StateStore.for_settings(load_settings(overrides={"state_dir": str(state)}, environ={}))
    try:
        con = st_store.con
        before: dict[str, float] = {}
        for _ in range(4):  # a few runs in a row over a changing review DB
            ids = rng.sample([f"c{i}" for i in range(40)], rng.randint(0, 40))
            scores = {}
            for i in ids:
                old = before.get(i)
                scores[i] = (old if old is not None and rng.random() < 0.6 else
                             old + rng.choice([EPSILON / 2, -EPSILON / 2]) if old is not None and rng.random() < 0.5
                             else round(rng.random(), 3))
            moved = {i for i in ids if i not in before or abs(before[i] - scores[i]) > EPSILON}
            gone = set(before) - set(ids)
            writes_before = con.total_changes
            n = store_confidence(st_store, "src", ids, np.array([scores[i] for i in ids], dtype=float), touch=False)
            assert n == len(moved) + len(gone)
            assert con.total_changes - writes_before == len(moved) + len(gone)  # nothing else rewritten
            now = _stored(con, "src")
            assert set(now) == set(ids)
            for i in ids:  # a move within EPSILON keeps the stored value (and leaves the edge alone)
                assert now[i] == (scores[i] if i in moved else before[i])
            before = now
    finally:
        st_store.close()


def test_storing_moved_scores_finds_their_edges_by_key(tmp_path):
    """A normal run's store of the moved scores looks their candidates and edges up by key:
    no statement scans ``sync_candidates`` or ``sync_desired`` (a scan per moved candidate made
    a run with 18k moved scores take minutes)."""
    s = load_settings(overrides={"state_dir": str(tmp_path)}, environ={})
    st_store = StateStore.for_settings(s)
    try:
        load_tiers(st_store.con, policy_of(s))
        statements: list[str] = []
        st_store.con.set_trace_callback(statements.append)
        store_confidence(st_store, "src", ["a", "b"], np.array([0.5, 0.7]), touch=True, params={"source": "src", "cw": 0.5})
        st_store.con.set_trace_callback(None)
        writes = [q for q in statements if q.lstrip().upper().startswith(("INSERT", "DELETE"))]
        assert any("sync_desired" in q for q in writes) and any("sync_touched" in q for q in writes)
        for q in writes:
            for *_, detail in st_store.con.execute("EXPLAIN QUERY PLAN " + q):
                words = detail.split()
                if words[0] in ("SCAN", "SEARCH") and words[1] in ("c", "sync_candidates", "sync_desired"):
                    # a search on the whole key, not on the source alone (every candidate of it)
                    assert words[0] == "SEARCH" and ("id=?" in detail or "uuid=?" in detail), (detail, q)
    finally:
        st_store.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.integers(0, 2**32 - 1))
def test_whole_set_read_equals_each_facts_own_read_exactly(tmp_path_factory, seed):
    """The whole-set read (sync's: consensus clusters and per-fact columns counted on integer
    codes over every candidate) gives each fact bit for bit the inputs its own read gives (the
    clusters looked up by key, as ``graph-trust confidence ID`` reads them), over random
    histories: same subjects and objects in several spellings, missing sources, refuting
    verifications, votes, open and resolved contradictions."""
    path = tmp_path_factory.mktemp("h") / "r.db"
    h = build_history(random.Random(seed), path)
    ids = [x["id"] for x in h["facts"]]
    with store(path) as s:
        whole = s.gather()
        some = sorted(random.Random(seed).sample(ids, max(1, len(ids) // 2)))
        part = s.gather(some)
        alone = {i: s.gather([i]) for i in ids}
    assert sorted(whole.ids) == sorted(ids)
    at = {f: k for k, f in enumerate(whole.ids)}
    pairs = [(part, k, fid) for k, fid in enumerate(part.ids)] + [(alone[fid], 0, fid) for fid in ids]
    for g, k, fid in pairs:
        for f in fields(whole.inputs):
            w, o = getattr(whole.inputs, f.name), getattr(g.inputs, f.name)
            if len(w):
                assert np.array_equal(w[at[fid]], o[k], equal_nan=True), (fid, f.name)
    for fid in ids:
        assert (whole.authors[at[fid]], whole.categories[at[fid]], whole.statuses[at[fid]]) == (
            alone[fid].authors[0], alone[fid].categories[0], alone[fid].statuses[0])
