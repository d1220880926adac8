"""The confidence cache (``sync.confidence_cache``) never changes a score: over random record
histories (inserts, in-place UPDATEs of votes, resolutions by UPDATE, deletes, relinked fact ids,
candidates changed, settings changed, time advancing), written through graph-trust's commands
and through raw SQL, the cached path's inputs and scores equal a fresh ``ConfidenceStore``'s bit
for bit after every step, and every write invalidates the cache (the change marker moves)."""

from __future__ import annotations

import random
import sqlite3
from dataclasses import fields
from datetime import timedelta
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_confidence_store import NOW, fact, iso, make_db, sources

from graph_trust.confidence.verification import VERDICTS
from graph_trust.config import load_settings
from graph_trust.review.db import ReviewConn, parse_location
from graph_trust.sync.confidence.cache import cache_path, gather_all
from graph_trust.sync.confidence.inputs import Gathered
from graph_trust.sync.confidence.schema import SCHEMA, init_confidence_tables
from graph_trust.sync.confidence.store import ConfidenceStore
from graph_trust.sync.confidence.trust import score_all
from graph_trust.sync.review_db import ReviewDB, init_review_db, insert_rows
from graph_trust.sync.runs.change_marker import MARKER, WATCHED, marker

N = 24
AGENTS = [f"a{i}" for i in range(5)]
CATS = ["security", "runbooks", "API", None]


def _settings(root: Path, db: Path, cfg: dict):
    return load_settings(overrides={"state_dir": str(root / "state"), "review.path": str(db),
                                    **{f"confidence.{k}": v for k, v in cfg.items()}}, environ={})


def _same(a: Gathered, b: Gathered) -> None:
    """Bit for bit: every input array (dtype and bytes) and every list."""
    assert (a.ids, a.authors, a.categories, a.statuses, a.votes) == (b.ids, b.authors, b.categories, b.statuses, b.votes)
    for f in fields(a.inputs):
        x, y = np.asarray(getattr(a.inputs, f.name)), np.asarray(getattr(b.inputs, f.name))
        assert x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes(), f.name


def _fid(rng: random.Random) -> str:
    return f"f{rng.randrange(N + 4)}"  # (a few ids no candidate has: records of facts gone)


def _at(rng: random.Random, now) -> str:
    return iso(now - timedelta(days=rng.uniform(-5, 200)))


def _step(rng: random.Random, db: Path, now, cfg: dict) -> tuple[str, bool]:
    """One random change; returns (what, whether it wrote to the review DB)."""
    op = rng.choice(["verify", "verify_cmd", "use", "vote", "vote_update", "contradiction", "resolve", "delete",
                     "relink", "candidate", "candidate_new", "profile", "source", "settings", "time", "noop_update"])
    if op == "verify_cmd":
        with ConfidenceStore.open(db, _settings(db.parent, db, cfg).review,
                                  _settings(db.parent, db, cfg).confidence, now=now) as cs:
            cs.verify(f"f{rng.randrange(N)}", rng.choice(VERDICTS), rng.choice([*AGENTS, "system_auto_verify"]))
        return op, True
    if op in ("settings", "time"):
        return op, False
    sql: tuple[str, tuple] = {
        "verify": ("INSERT INTO fact_verifications (fact_id, verifier_id, verification_type, verified_at) "
                   "VALUES (?, ?, ?, ?)", (_fid(rng), rng.choice([*AGENTS, "system_auto_verify"]),
                                           rng.choice(VERDICTS), _at(rng, now))),
        "use": ("INSERT INTO fact_usage_outcomes (fact_id, agent_id, action, outcome, tracked_at) VALUES (?, ?, 'x', ?, ?)",
                (_fid(rng), rng.choice(AGENTS), rng.choice(["success", "failure", "partial", "error"]), _at(rng, now))),
        "vote": ("INSERT OR REPLACE INTO fact_votes (fact_id, agent_id, vote, confidence, voted_at) VALUES (?, ?, ?, ?, ?)",
                 (_fid(rng), rng.choice(AGENTS), rng.choice(["agree", "disagree", "unsure"]), rng.random(),
                  _at(rng, now))),
        "vote_update": ("UPDATE fact_votes SET vote = ?, confidence = ? WHERE id = (SELECT id FROM fact_votes "
                        "ORDER BY random() LIMIT 1)", (rng.choice(["agree", "disagree"]), rng.random())),
        "contradiction": ("INSERT OR IGNORE INTO fact_contradictions (fact_a_id, fact_b_id, contradiction_type, "
                          "severity, detected_at) VALUES (?, ?, 't', ?, ?)",
                          (_fid(rng), _fid(rng), rng.choice(["low", "medium", "high"]), _at(rng, now))),
        "resolve": ("UPDATE fact_contradictions SET resolved_at = ?, resolution_loser = "
                    "CASE WHEN ? THEN fact_a_id ELSE fact_b_id END WHERE id = (SELECT id FROM fact_contradictions "
                    "ORDER BY random() LIMIT 1)", (_at(rng, now), rng.random() < 0.5)),
        "delete": (f"DELETE FROM {rng.choice([*WATCHED, 'candidates'])} WHERE rowid = (SELECT rowid FROM "
                   f"{rng.choice([*WATCHED, 'candidates'])} ORDER BY random() LIMIT 1)", ()),
        "relink": (f"UPDATE OR REPLACE {rng.choice(['fact_sources', 'fact_verifications', 'fact_votes', 'fact_usage_outcomes'])} "
                   "SET fact_id = ? WHERE fact_id = ?", (_fid(rng), _fid(rng))),
        "candidate": ("UPDATE candidates SET status = ?, subject = ?, updated_at = ? WHERE id = ?",
                      (rng.choice(["candidate", "corroborated", "promoted", "rejected", "expired"]),
                       f"s{rng.randrange(3)}", _at(rng, now), _fid(rng))),
        "candidate_new": ("INSERT OR REPLACE INTO candidates (id, subject, predicate, object, status, evidence_refs_json, "
                          "updated_at) VALUES (?, ?, 'p', ?, 'promoted', ?, ?)",
                          (_fid(rng), f"s{rng.randrange(3)}", str(rng.randrange(2)),
                           rng.choice(['[]', '[{"evidence_id": "e1"}]']), _at(rng, now))),
        "profile": ("INSERT OR REPLACE INTO agent_credibility (agent_id, category, expertise, corrections_issued) "
                    "VALUES (?, ?, ?, ?)", (rng.choice(AGENTS), rng.choice(["global", "security", "api"]),
                                            rng.choice(["expert", "novice", None]), rng.randrange(3))),
        "source": ("INSERT OR REPLACE INTO fact_sources (fact_id, agent_id, role, source_type, category, created_at) "
                   "VALUES (?, ?, ?, ?, ?, ?)", (_fid(rng), rng.choice([*AGENTS, None]), rng.choice(["developer", None]),
                                                 rng.choice(["observation", "documentation", None]), rng.choice(CATS),
                                                 _at(rng, now))),
        "noop_update": ("UPDATE candidates SET status = status WHERE id = ?", (_fid(rng),)),
    }[op]
    con = sqlite3.connect(db)
    with con:
        changed = con.execute(*sql).rowcount
    con.close()
    return op, changed > 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.integers(0, 2**32 - 1))
def test_cached_inputs_equal_fresh_scoring_bit_for_bit(tmp_path_factory, seed):
    rng = random.Random(seed)
    root = tmp_path_factory.mktemp("cache")
    db = make_db(root / "r.db", [fact(f"f{i}", s=f"s{i % 3}", o=str(i % 2), days_ago=rng.uniform(0, 400),
                                      status=rng.choice(["promoted", "candidate", "rejected", "corroborated"]),
                                      evidence=rng.choice(['[]', '[{"evidence_id": "e1"}]'])) for i in range(N)])
    sources(db, [(f"f{i}", rng.choice([*AGENTS, None]), "developer", "observation", rng.choice(CATS),
                  iso(NOW - timedelta(days=rng.uniform(0, 400)))) for i in range(N) if rng.random() < 0.8])
    now, cfg = NOW, {}
    for _ in range(14):
        op, wrote = _step(rng, db, now, cfg)
        before = _settings(root, db, cfg).confidence
        if op == "time":
            now += timedelta(days=rng.choice([0.001, 1, 30, 120]))
        elif op == "settings":
            cfg = rng.choice([{}, {"success_window_days": rng.randint(1, 200)},
                              {"system_verifiers": [rng.choice(AGENTS)]}, {"ground_truth_verifiers": ["a1"]},
                              {"half_lives": {"security": rng.uniform(1, 400)}}, {"default_half_life": 9.5}])
        s = _settings(root, db, cfg)
        with ConfidenceStore.open(db, s.review, s.confidence, now=now, readonly=True) as cs:
            fresh = cs.gather()
            cached, hit = gather_all(cs, s)
            if wrote or s.confidence != before:
                assert not hit, op  # the write (or the new settings) moved the key: rebuilt
            _same(cached, fresh)
            again, hit = gather_all(cs, s)
            assert hit
            _same(again, fresh)
            assert cs.scored(again)[2].tobytes() == cs.scores()[2].tobytes()
        # later, with nothing written, only the time-dependent inputs move, exactly as fresh ones do
        later = now + timedelta(days=rng.uniform(0, 60))
        with ConfidenceStore.open(db, s.review, s.confidence, now=later, readonly=True) as cs:
            cached, hit = gather_all(cs, s)
            assert hit
            _same(cached, cs.gather())
    ids, scores = score_all(ReviewDB.open(db, s.review), s, now=now)
    with ConfidenceStore.open(db, s.review, s.confidence, now=now, readonly=True) as cs:
        want_ids, _, want = cs.scores()
    step = s.sync.confidence_step
    assert ids == want_ids and scores.tobytes() == (np.round(want / step) * step if step else want).tobytes()


def test_every_write_moves_the_marker_and_a_db_without_it_is_never_cached(tmp_path):
    db = make_db(tmp_path / "r.db", [fact("f0"), fact("f1", s="x")])
    sources(db, [("f0", "a0", "developer", "observation", "security", iso(NOW))])
    s = _settings(tmp_path, db, {})
    con = ReviewConn.open(db)
    seen = {marker(con, "candidates")}
    for sql in ["INSERT INTO fact_votes (fact_id, agent_id, vote, confidence, voted_at) VALUES ('f0', 'a1', 'agree', 1, 'x')",
                "UPDATE fact_votes SET confidence = 0.5", "DELETE FROM fact_votes",
                "UPDATE candidates SET status = 'rejected' WHERE id = 'f1'",
                "UPDATE agent_credibility SET expertise = 'x'",  # (no row: nothing written, nothing moves)
                "UPDATE fact_sources SET fact_id = 'f1'"]:
        con.execute(sql)
        seen.add(marker(con, "candidates"))
    assert len(seen) == 6 and None not in seen
    with ConfidenceStore.open(db, s.review, s.confidence, now=NOW, readonly=True) as cs:
        assert gather_all(cs, s)[1] is False and gather_all(cs, s)[1] is True
        assert cache_path(s, db.resolve()).exists()
    con.execute("DROP TRIGGER graph_trust_changed_fact_votes_update")  # a DB whose marker is no longer whole
    assert marker(con, "candidates") is None
    con.execute("UPDATE fact_sources SET role = 'ops'")
    with ConfidenceStore.open(db, s.review, s.confidence, now=NOW, readonly=True) as cs:
        for _ in range(2):
            cached, hit = gather_all(cs, s)
            assert not hit
            _same(cached, cs.gather())
    con.close()
    init_confidence_tables(db)  # review init restores it in place
    with ReviewConn.open(db) as con:
        assert marker(con, "candidates") is not None


def test_review_init_adds_the_marker_to_an_older_db_keeping_its_data(tmp_path):
    db = tmp_path / "old.db"
    init_review_db(db)
    insert_rows(db, [fact("f0"), fact("f1")])
    con = sqlite3.connect(db)
    con.executescript(SCHEMA)  # confidence tables from before the marker
    con.execute("INSERT INTO fact_votes (fact_id, agent_id, vote, confidence, voted_at) VALUES ('f0', 'a', 'agree', 1, 'x')")
    con.commit()
    assert marker(ReviewConn(parse_location(db), con, False), "candidates") is None
    s = _settings(tmp_path, db, {})
    with ConfidenceStore.open(db, s.review, s.confidence, now=NOW, readonly=True) as cs:
        assert not gather_all(cs, s)[1] and not gather_all(cs, s)[1]  # never cached, still scored
    init_confidence_tables(db)
    assert con.execute(f"SELECT n FROM {MARKER}").fetchone() == (0,)
    assert con.execute("SELECT count(*) FROM fact_votes").fetchone() == (1,)
    con.close()
    with ConfidenceStore.open(db, s.review, s.confidence, now=NOW, readonly=True) as cs:
        assert [gather_all(cs, s)[1] for _ in range(2)] == [False, True]
