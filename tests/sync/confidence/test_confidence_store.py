"""Confidence records in a real SQLite review DB: schema and in-place migration, the writes,
and the set-wise read checked against the pure factor functions over generated histories."""

from __future__ import annotations

import random
import sqlite3
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graph_trust.confidence import composite as comp
from graph_trust.confidence import consensus as cons
from graph_trust.confidence import contradiction as contra
from graph_trust.confidence import credibility as cred
from graph_trust.confidence import freshness as fr
from graph_trust.confidence import success as succ
from graph_trust.confidence import verification as ver
from graph_trust.config import ConfidenceSettings, ReviewSettings
from graph_trust.errors import InputError, NotFoundError, ReviewDBError
from graph_trust.sync.confidence.schema import TABLES, init_confidence_tables
from graph_trust.sync.confidence.store import ConfidenceStore
from graph_trust.sync.review_db import init_review_db, insert_rows

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def iso(t: datetime) -> str:
    return t.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def make_db(path: Path, facts: list[dict]) -> Path:
    init_review_db(path)
    init_confidence_tables(path)
    insert_rows(path, facts)
    return path


def store(path: Path, now: datetime = NOW, **cfg) -> ConfidenceStore:
    return ConfidenceStore.open(path, ReviewSettings(), ConfidenceSettings(**cfg), now=now)


def fact(i, s="es", p="port", o="9200", status="promoted", days_ago=0.0, evidence="[]"):
    return {"id": i, "subject": s, "predicate": p, "object": o, "fact": f"{s} {p} {o}", "status": status,
            "updated_at": iso(NOW - timedelta(days=days_ago)), "evidence_refs_json": evidence}


def sources(path: Path, rows: list[tuple]) -> None:
    con = sqlite3.connect(path)
    with con:
        con.executemany("INSERT INTO fact_sources (fact_id, agent_id, role, source_type, category, created_at) "
                        "VALUES (?, ?, ?, ?, ?, ?)", rows)
    con.close()


# --- schema ----------------------------------------------------------------------------------

def test_review_init_creates_tables_and_is_idempotent(tmp_path):
    p = tmp_path / "r.db"
    init_review_db(p)
    assert init_confidence_tables(p) == list(TABLES)
    assert init_confidence_tables(p) == []
    con = sqlite3.connect(p)
    names = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
    assert set(TABLES) <= names and {"candidates_spo", "fact_verifications_fact", "fact_sources_agent_category"} <= names


def test_older_db_is_migrated_in_place_keeping_data(tmp_path):
    p = tmp_path / "old.db"
    init_review_db(p)
    insert_rows(p, [fact("f1")])
    con = sqlite3.connect(p)
    with con:  # an older layout: votes without reasoning, no other confidence table
        con.execute("CREATE TABLE fact_votes (id INTEGER PRIMARY KEY, fact_id TEXT NOT NULL, agent_id TEXT NOT NULL, "
                    "vote TEXT NOT NULL, confidence REAL NOT NULL, voted_at TEXT NOT NULL, UNIQUE (fact_id, agent_id))")
        con.execute("INSERT INTO fact_votes (fact_id, agent_id, vote, confidence, voted_at) "
                    "VALUES ('f1', 'a', 'agree', 0.5, '2026-01-01')")
    con.close()
    with pytest.raises(ReviewDBError, match="review init"):
        store(p)
    added = init_confidence_tables(p)
    assert "fact_votes.reasoning" in added and "fact_verifications" in added and "fact_votes" not in added
    with store(p) as s:
        s.vote("f1", "disagree", 0.7, "b", reasoning="saw 9300")
        rows = s.conn.execute("SELECT agent_id, vote, reasoning FROM fact_votes ORDER BY agent_id").fetchall()
    assert rows == [("a", "agree", None), ("b", "disagree", "saw 9300")]


# --- writes ----------------------------------------------------------------------------------

def test_a_verification_two_days_ago_keeps_a_180_day_old_fact_fresh(tmp_path):
    p = make_db(tmp_path / "r.db", [fact("f1", status="candidate")])  # (no review verdict: agents' alone)
    sources(p, [("f1", "alice", "developer", "observation", "infrastructure", iso(NOW - timedelta(days=180)))])
    with store(p) as s:
        before = s.confidence("f1")
    assert before["factors"]["freshness"] == pytest.approx(0.5 ** 6)
    with store(p, now=NOW - timedelta(days=2)) as s:
        s.verify("f1", "still_valid", "bob")
    with store(p) as s:
        after = s.confidence("f1")
    assert after["factors"]["freshness"] == pytest.approx(0.5 ** (2 / 30)) and after["factors"]["freshness"] > 0.9
    assert after["factors"]["verification"] == 0.7 and after["inputs"]["verification_level"] == "peer"
    assert after["score"] > before["score"]
    # an "outdated" verdict does not reset the clock and refutes the fact
    with store(p) as s:
        s.verify("f1", "outdated", "carol")
        out = s.confidence("f1")
    assert out["factors"]["verification"] == 0.0 and out["factors"]["freshness"] == after["factors"]["freshness"]


def test_verification_updates_the_authors_cached_track_record(tmp_path):
    p = make_db(tmp_path / "r.db", [fact("f1"), fact("f2", o="x")])
    sources(p, [("f1", "alice", None, None, "runbooks", iso(NOW - timedelta(days=10))),
                ("f2", "alice", None, None, "runbooks", iso(NOW - timedelta(days=5)))])
    with store(p) as s:
        s.verify("f1", "confirmed", "bob")
        s.verify("f2", "incorrect", "carol")
        s.verify("f2", "confirmed", "alice")  # self-verification: not counted in the track record
        row = s.conn.execute("SELECT verification_count, verified_correct, verified_incorrect, contribution_count "
                            "FROM agent_credibility WHERE agent_id = 'alice' AND category = 'runbooks'").fetchone()
        cr = s.credibility("alice")
    assert row == (2, 1, 1, 2)
    assert cr[0]["verified_correct"] == 1 and cr[0]["verified_total"] == 2 and cr[0]["contributions"] == 2


def test_usage_outcomes_regress_and_record_predictions(tmp_path):
    p = make_db(tmp_path / "r.db", [fact("f1")])
    with store(p) as s:
        for _ in range(2):
            s.record_usage("f1", "success", "bot", "connect")
        assert s.confidence("f1")["factors"]["success"] == pytest.approx(0.6)
        s.record_usage("f1", "partial", "bot", "connect")
        assert s.confidence("f1")["factors"]["success"] == pytest.approx((2.5 / 3) * 0.3 + 0.5 * 0.7)
        preds = s.conn.execute("SELECT predicted_confidence, success_score, actual_outcome FROM confidence_predictions "
                              "ORDER BY id").fetchall()
    assert [r[2] for r in preds] == ["success", "success", "partial"]
    assert preds[0][1] == 0.5 and preds[1][1] == pytest.approx(0.55) and preds[2][1] == pytest.approx(0.6)
    # outcomes older than the window no longer count
    with store(p, now=NOW + timedelta(days=91)) as s:
        assert s.confidence("f1")["factors"]["success"] == 0.5


def test_votes_are_credibility_weighted_and_replaced(tmp_path):
    p = make_db(tmp_path / "r.db", [fact("f1")])
    con = sqlite3.connect(p)
    with con:
        con.execute("INSERT INTO agent_credibility (agent_id, category, expertise) VALUES ('expert1', 'global', 'expert')")
    con.close()
    with store(p) as s:
        s.vote("f1", "agree", 1.0, "expert1")
        s.vote("f1", "disagree", 1.0, "newbie")
        c = s.confidence("f1")["factors"]["consensus"]
        assert c == pytest.approx((0.5 + 1.0 / (1.0 + 0.3 + 0.001)) / 2)
        s.vote("f1", "unsure", 0.2, "expert1")  # replaces the agree vote
        assert s.confidence("f1")["factors"]["consensus"] == pytest.approx((0.5 + 0.0) / 2)
        assert s.conn.execute("SELECT count(*) FROM fact_votes").fetchone()[0] == 2


@pytest.mark.parametrize("call, match", [
    (lambda s: s.verify("nope", "confirmed", "a"), "no fact with id 'nope'"),
    (lambda s: s.verify("f1", "maybe", "a"), "unknown verification type"),
    (lambda s: s.verify("f1", "confirmed", "  "), "--by"),
    (lambda s: s.record_usage("f1", "great", "a", "x"), "unknown outcome"),
    (lambda s: s.record_usage("f1", "success", "a", ""), "--action"),
    (lambda s: s.vote("f1", "agree", 1.5, "a"), r"--confidence must be in \[0, 1\]"),
    (lambda s: s.vote("f1", "perhaps", 0.5, "a"), "unknown vote"),
    (lambda s: s.stale(0), "--days"),
    (lambda s: s.credibility("ghost"), "agent 'ghost'"),
    (lambda s: s.confidence("nope"), "no fact"),
])
def test_bad_input_one_clear_error_and_nothing_written(tmp_path, call, match):
    p = make_db(tmp_path / "r.db", [fact("f1")])
    with store(p) as s:
        with pytest.raises((InputError, NotFoundError), match=match):
            call(s)
        counts = [s.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES]
    assert counts == [0] * len(TABLES)


def test_readonly_store_scores_and_refuses_writes(tmp_path):
    p = make_db(tmp_path / "r.db", [fact("f1"), fact("f2", o="9300")])
    with ConfidenceStore.open(p, ReviewSettings(), ConfidenceSettings(), now=NOW, readonly=True) as s:
        ids, m, scores = s.scores()
        assert ids == ["f1", "f2"] and m.shape == (2, 7) and scores.shape == (2,)
        with pytest.raises(ReviewDBError, match="readonly"):
            s.verify("f1", "confirmed", "a")


# --- contradictions --------------------------------------------------------------------------

def test_contradictions_listed_then_recorded_and_resolved(tmp_path):
    p = make_db(tmp_path / "r.db", [
        fact("old", o="9200"), fact("new", o="9300"),                       # temporal
        fact("hi", "db", "state", "running"), fact("lo", "db", "state", "stopped"),  # credibility
        fact("c1", "bk", "at", "2am"), fact("c2", "bk", "at", "3am"),       # flagged
        fact("gone", "bk", "at", "4am", status="rejected"),                 # inactive: ignored
    ])
    sources(p, [("old", "a", None, None, None, iso(NOW - timedelta(days=60))),
                ("new", "b", None, None, None, iso(NOW - timedelta(days=5))),
                ("hi", "sys", "database_admin", "automated_metric", None, iso(NOW - timedelta(days=1))),
                ("lo", "x", "guest", "rumor", None, iso(NOW - timedelta(days=2)))])
    with store(p) as s:
        listed = s.contradictions()
        assert listed["recorded"] == [] and len(listed["detected_unrecorded"]) == 3
        assert s.conn.execute("SELECT count(*) FROM fact_contradictions").fetchone()[0] == 0  # listing writes nothing
        pen_before = s.confidence("c1")["factors"]["contradiction"]
        out = s.contradictions(resolve_them=True)
    by = {frozenset((r["a"], r["b"])): r for r in out["recorded"]}
    t = by[frozenset(("new", "old"))]
    assert (t["strategy"], t["winner"], t["loser"], t["type"]) == ("temporal", "new", "old", "conflicting_value")
    c = by[frozenset(("hi", "lo"))]
    assert (c["strategy"], c["winner"], c["type"]) == ("source_credibility", "hi", "exclusive_state")
    f = by[frozenset(("c1", "c2"))]
    assert (f["strategy"], f["winner"], f["resolved_at"]) == ("agent_review", None, None)
    assert len(out["recorded"]) == 3
    with store(p) as s:
        assert pen_before == 1.0
        assert s.confidence("old")["factors"]["contradiction"] == pytest.approx(0.7)  # loser penalized
        assert s.confidence("new")["factors"]["contradiction"] == 1.0  # winner not
        assert s.confidence("c1")["factors"]["contradiction"] == pytest.approx(0.9)  # open, high severity
        again = s.contradictions(resolve_them=True)  # idempotent: nothing new, the flagged one stays open
    assert len(again["recorded"]) == 3 and again["detected_unrecorded"] == []
    assert [r["strategy"] for r in again["resolutions"]] == ["agent_review"]


def test_system_verification_hook_setting(tmp_path, monkeypatch):
    import sys
    import types

    mod = types.ModuleType("gt_test_hook")
    mod.pick = lambda a, b: "c2"
    monkeypatch.setitem(sys.modules, "gt_test_hook", mod)
    p = make_db(tmp_path / "r.db", [fact("c1", "bk", "at", "2am"), fact("c2", "bk", "at", "3am")])
    with store(p, system_verification_hook="gt_test_hook:pick") as s:
        out = s.contradictions(resolve_them=True)
    r = out["recorded"][0]
    assert (r["strategy"], r["winner"], r["loser"]) == ("system_verification", "c2", "c1")


# --- the set-wise read against the pure functions over generated histories -------------------

AGENTS = ["a", "b", "c", "system_auto_verify"]


def build_history(rng: random.Random, path: Path) -> dict:
    n = rng.randint(1, 9)
    facts, srcs, vers, votes, uses, cons_rows, profiles = [], [], [], [], [], [], []
    for i in range(n):
        facts.append(fact(f"f{i}", rng.choice(["es", "db"]), "port", rng.choice(["9200", "9300", " 9200"]),
                          rng.choice(["promoted", "candidate", "rejected"]), rng.uniform(0, 400),
                          rng.choice(["[]", '["e1"]', f'["e{i}"]'])))
        if rng.random() < 0.7:
            srcs.append((f"f{i}", rng.choice(AGENTS[:3]), rng.choice([None, "developer", "guest", "monitor"]),
                         rng.choice([None, "observation", "rumor"]), rng.choice([None, "security", "Runbooks"]),
                         iso(NOW - timedelta(days=rng.uniform(0, 400)))))
    for _ in range(rng.randint(0, 12)):
        vers.append((f"f{rng.randrange(n)}", rng.choice(AGENTS), rng.choice(ver.VERDICTS),
                     iso(NOW - timedelta(days=rng.uniform(0, 300)))))
    for _ in range(rng.randint(0, 6)):
        votes.append((f"f{rng.randrange(n)}", rng.choice(AGENTS), rng.choice(cons.VOTES), round(rng.random(), 3)))
    for _ in range(rng.randint(0, 25)):
        uses.append((f"f{rng.randrange(n)}", rng.choice(succ.OUTCOMES), iso(NOW - timedelta(days=rng.uniform(0, 120)))))
    for _ in range(rng.randint(0, 3)):
        a, b = rng.sample(range(n), 2) if n > 1 else (0, 0)
        if a == b:
            continue
        state = rng.choice(["open", "won", "review"])
        cons_rows.append((f"f{a}", f"f{b}", rng.choice(["low", "medium", "high"]),
                          None if state != "won" else iso(NOW), f"f{b}" if state == "won" else None))
    for agent in AGENTS[:3]:
        if rng.random() < 0.5:
            profiles.append((agent, rng.choice(["global", "security"]), rng.choice(list(cred.EXPERTISE_LEVELS)),
                             rng.randint(0, 3)))
    make_db(path, facts)
    sources(path, srcs)
    con = sqlite3.connect(path)
    with con:
        con.executemany("INSERT INTO fact_verifications (fact_id, verifier_id, verification_type, verified_at) "
                        "VALUES (?, ?, ?, ?)", vers)
        con.executemany("INSERT OR REPLACE INTO fact_votes (fact_id, agent_id, vote, confidence, voted_at) "
                        "VALUES (?, ?, ?, ?, '2026-01-01')", votes)
        con.executemany("INSERT INTO fact_usage_outcomes (fact_id, agent_id, action, outcome, tracked_at) "
                        "VALUES (?, 'u', 'x', ?, ?)", uses)
        con.executemany("INSERT OR IGNORE INTO fact_contradictions (fact_a_id, fact_b_id, contradiction_type, severity, "
                        "detected_at, resolved_at, resolution_loser) VALUES (?, ?, 't', ?, '2026-01-01', ?, ?)", cons_rows)
        con.executemany("INSERT INTO agent_credibility (agent_id, category, expertise, corrections_issued) "
                        "VALUES (?, ?, ?, ?)", profiles)
    con.close()
    votes_final = {(f, a): (v, c) for f, a, v, c in votes}
    return {"facts": facts, "sources": srcs, "vers": vers, "votes": votes_final, "uses": uses,
            "contradictions": first_per_pair(cons_rows), "profiles": profiles}


def first_per_pair(rows: list[tuple]) -> dict:
    """As INSERT OR IGNORE keeps them: the first row of each (a, b)."""
    out: dict = {}
    for a, b, *r in rows:
        out.setdefault((a, b), r)
    return out


def parse(t: str) -> datetime:
    return datetime.fromisoformat(t.replace("Z", "+00:00"))


def oracle(h: dict, fid: str) -> float:
    """The fact's confidence computed straight from the history with the scalar functions."""
    src = {s[0]: s for s in h["sources"]}
    f = next(x for x in h["facts"] if x["id"] == fid)
    author, role, stype, cat, created = (src[fid][1:] if fid in src else (None, None, None, None, None))
    cat = (cat or "global").lower()
    created = parse(created) if created else parse(f["updated_at"])
    latest = {}
    for vf, verifier, verdict, at in h["vers"]:
        if vf == fid and (verifier not in latest or parse(at) >= latest[verifier][1]):
            latest[verifier] = (verdict, parse(at))
    # the review decision is a verification too, at the row's updated_at (confidence.md)
    level, n = ver.level_of([(v, d, t) for v, (d, t) in latest.items()], author,
                            review=(f["status"], parse(f["updated_at"])))
    confirmed = [t for d, t in latest.values() if d in ver.POSITIVE]
    fresh = fr.freshness(created, NOW, cat, max(confirmed) if confirmed else None)

    def record(agent, category):
        if agent is None:
            return cred.TrackRecord()
        mine = [s for s in h["sources"] if s[1] == agent and (s[4] or "global").lower() == category]
        ids = {s[0] for s in mine}
        rel = [v for v in h["vers"] if v[0] in ids and v[1] != agent]
        good = sum(v[2] in ver.POSITIVE for v in rel)
        bad = sum(v[2] == "incorrect" for v in rel)
        prof = {(p[0], p[1]): p for p in h["profiles"]}
        p = prof.get((agent, category))
        expertise = p[2] if p else (prof[(agent, "global")][2] if (agent, "global") in prof else None)
        first = min((parse(s[5]) for s in mine), default=None)
        return cred.TrackRecord(good, good + bad, len(mine), p[3] if p else 0,
                                fr.age_days(first, NOW) if first else 0.0, expertise)

    source = cred.source_score(cred.agent_credibility(record(author, cat)), role, stype)

    def key(x: dict) -> tuple[str, str, str]:
        return (x["subject"].strip().lower(), x["predicate"].strip().lower(), x["object"].strip().lower())

    members = [x for x in h["facts"] if x["status"] != "rejected" and key(x) == key(f)] if f["status"] != "rejected" else []
    agents = {src[m["id"]][1] if m["id"] in src else "fact:" + m["id"] for m in members}
    specs = {src[m["id"]][2] for m in members if m["id"] in src and src[m["id"]][2]}
    indep = len({m["evidence_refs_json"] for m in members}) == len(members) if len(members) > 1 else True
    vs = [(v, c, cred.agent_credibility(record(a, cat))) for (vf, a), (v, c) in h["votes"].items() if vf == fid]
    consensus = cons.consensus(cons.cluster_score(max(1, len(agents)), len(specs), indep), cons.vote_score(vs))
    losses = sum(1 for (a, b), (sev, res, loser) in h["contradictions"].items() if res and loser == fid)
    open_ = [sev for (a, b), (sev, res, loser) in h["contradictions"].items() if res is None and fid in (a, b)]
    window = [u for u in h["uses"] if u[0] == fid and parse(u[2]) >= NOW - timedelta(days=90)]
    success = succ.success_rate(sum(u[1] == "success" for u in window), sum(u[1] == "partial" for u in window),
                                len(window))
    factors = dict(freshness=fresh, source=source, verification=ver.verification_score(level, n),
                   consensus=consensus, contradiction=contra.contradiction_score(losses, open_), success=success,
                   context=0.5)
    return comp.composite(factors).score


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1))
def test_set_wise_read_matches_scalar_functions(seed):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "r.db"
        h = build_history(random.Random(seed), path)
        with store(path) as s:
            ids, m, scores = s.scores()
            one = {i: s.confidence(i)["score"] for i in ids}
        assert sorted(ids) == sorted(x["id"] for x in h["facts"])
        for i, sc in zip(ids, scores, strict=True):
            assert sc == pytest.approx(oracle(h, i), abs=1e-6), i
            assert one[i] == pytest.approx(sc, abs=2e-6)  # one fact alone scores as in the whole set
        assert np.all((m >= 0) & (m <= 1))


# --- learning --------------------------------------------------------------------------------

def test_learn_report_apply_and_revert(tmp_path):
    p = make_db(tmp_path / "r.db", [fact(f"f{i}", o=str(i)) for i in range(40)])
    rng = random.Random(7)
    con = sqlite3.connect(p)
    rows = []
    for k in range(300):  # outcomes driven by verification only
        f = {x: rng.random() for x in comp.FACTORS}
        f["context"] = 0.5
        outcome = "success" if rng.random() < f["verification"] ** 2 else "failure"
        rows.append((f"f{k % 40}", comp.composite(f).score, *[f[x] for x in comp.FACTORS], outcome))
    with con:
        con.executemany(f"INSERT INTO confidence_predictions (fact_id, predicted_confidence, "
                        f"{', '.join(x + '_score' for x in comp.FACTORS)}, actual_outcome, predicted_at) "
                        f"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '2026-01-01')", rows)
    con.close()
    with store(p) as s:
        rep = s.learn()
        assert rep["applied"] is None and s.weights == comp.DEFAULT_WEIGHTS
        w = rep["weights_after"]
        assert w["verification"] == max(w.values()) and w["verification"] > 0.5
        assert w["context"] == pytest.approx(0.10, abs=1e-6)  # never varied: kept
        assert sum(w.values()) == pytest.approx(1.0, abs=1e-5)
        assert "context" not in rep["learned"]
        assert rep["calibration_after"]["brier"] < rep["calibration_before"]["brier"]
        assert sum(b["uses"] for b in rep["calibration_before"]["bands"]) == 300
        applied = s.learn(apply=True)
        assert s.weights == pytest.approx(applied["weights_after"])
    with store(p) as s:  # journaled: a new process uses the learned weights
        assert s.weights == pytest.approx(applied["weights_after"])
        assert s.weight_changes()[0]["reverted_at"] is None
        out = s.revert()
        assert out["reverted"] == [applied["applied"]["change_id"]] and s.weights == comp.DEFAULT_WEIGHTS
        with pytest.raises(InputError, match="nothing to revert"):
            s.revert()


def test_learn_needs_enough_varied_outcomes(tmp_path):
    p = make_db(tmp_path / "r.db", [fact("f1")])
    with store(p) as s:
        for _ in range(3):
            s.record_usage("f1", "success", "a", "x")
        with pytest.raises(InputError, match="at least 20"):
            s.learn()


def test_pipeline_db_with_other_table_and_column_names(tmp_path):
    """A pipeline's own table, mapped through review.table and review.columns, scores as the
    documented schema does: the same facts give the same scores and contradictions."""
    rows = [fact("f1", o="9200", days_ago=3), fact("f2", o="9300", days_ago=50), fact("f3", o=" 9200", days_ago=1)]
    doc = make_db(tmp_path / "doc.db", rows)
    p = tmp_path / "pipe.db"
    con = sqlite3.connect(p)
    with con:
        con.execute("CREATE TABLE facts (fid TEXT PRIMARY KEY, subj TEXT, pred TEXT, obj TEXT, txt TEXT, st TEXT, "
                    "refs TEXT, ts TEXT)")
        keys = ("id", "subject", "predicate", "object", "fact", "status", "evidence_refs_json", "updated_at")
        con.executemany("INSERT INTO facts VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [[r[k] for k in keys] for r in rows])
    con.close()
    init_confidence_tables(p)
    review = ReviewSettings(table="facts", columns={"id": "fid", "subject": "subj", "predicate": "pred",
                                                    "object": "obj", "fact": "txt", "status": "st",
                                                    "evidence_refs_json": "refs", "updated_at": "ts"})
    for path, rs in ((doc, ReviewSettings()), (p, review)):
        with ConfidenceStore.open(path, rs, ConfidenceSettings(), now=NOW) as s:
            s.verify("f1", "confirmed", "bob")
            s.vote("f2", "disagree", 0.8, "carol")
    results = []
    for path, rs in ((doc, ReviewSettings()), (p, review)):
        with ConfidenceStore.open(path, rs, ConfidenceSettings(), now=NOW) as s:
            ids, m, scores = s.scores()
            one = s.confidence("f3")
            res = s.contradictions(resolve_them=True)
            results.append((ids, m.round(9).tolist(), scores.round(9).tolist(), one["score"],
                            [(r["a"], r["b"], r["strategy"], r["winner"]) for r in res["recorded"]]))
    assert results[0] == results[1]
    ids, _, _, _, recorded = results[0]
    assert ids == ["f1", "f2", "f3"]
    assert recorded == [("f1", "f2", "temporal", "f1")]  # f1 and f3 agree (same object once trimmed)
