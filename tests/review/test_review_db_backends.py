"""Every reader and writer of the review DB on both backends: a real SQLite file and a real
PostgreSQL (the session's pgserver). The readers must agree: the same generated records give the
same confidence inputs and scores on either; the writers write the same; sync, verify, the guard's
records and relink's write and rollback run on a PostgreSQL review DB as on an SQLite one."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from conftest import new_pg_database
from sync_fixtures import FACTS, build, edge_props, row

from graph_trust.config import ConfidenceSettings, ReviewSettings
from graph_trust.errors import ReviewDBError
from graph_trust.review.db import ReviewConn, parse_location, pg_sql
from graph_trust.sync import run_sync, verify
from graph_trust.sync.confidence.schema import init_confidence_tables
from graph_trust.sync.confidence.store import ConfidenceStore
from graph_trust.sync.relink.store import apply_relinks, open_review_db, rollback
from graph_trust.sync.review_db import ReviewDB, init_review_db, insert_records, insert_rows
from graph_trust.sync.store.relink_journal import JournalStore

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def iso(t: datetime) -> str:
    return t.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def make(where: str, rows: list[dict], records: dict[str, list[dict]] | None = None) -> str:
    init_review_db(where)
    init_confidence_tables(where)
    insert_rows(where, rows)
    if records:
        insert_records(where, records)
    return where


def open_store(where: str, **cfg) -> ConfidenceStore:
    return ConfidenceStore.open(where, ReviewSettings(), ConfidenceSettings(**cfg), now=NOW)


# --- generated histories ----------------------------------------------------------------------

def _time(rng: random.Random) -> str | None:
    """Mostly ISO 8601 UTC (two spellings, some ties), sometimes a date, naive, or no time at all."""
    t = NOW - timedelta(days=rng.choice([0, 1, 3, 30, 200]), minutes=rng.choice([0, 0, 7, 90]))
    kind = rng.random()
    if kind < 0.7:
        return iso(t)
    if kind < 0.8:
        return t.strftime("%Y-%m-%d %H:%M:%S")  # naive: UTC on both
    if kind < 0.9:
        return t.strftime("%Y-%m-%d")
    return "not a time"


def history(seed: int, n: int = 60) -> tuple[list[dict], dict[str, list[dict]]]:
    """Candidates with shared subjects, predicates and objects (consensus clusters, contradictions)
    and every kind of confidence record, with ties and unreadable times."""
    rng = random.Random(seed)
    statuses = ["candidate", "corroborated", "promoted", "rejected", "expired"]
    agents = ["a1", "a2", "a3", "sys-check", "truth"]
    rows, sources, verifs, votes, uses, contras = [], [], [], [], [], []
    for i in range(n):
        fid = f"f{i:03d}"
        s, p, o = rng.choice(["es", "db", " ES", "cache"]), rng.choice(["port", "owner", "PORT "]), rng.choice(
            ["9200", "9300", "alice", None])
        rows.append({"id": fid, "subject": s, "predicate": p, "object": o, "fact": f"{s} {p} {o}",
                     "status": rng.choice(statuses), "updated_at": _time(rng) or iso(NOW),
                     "evidence_refs_json": json.dumps([{"evidence_id": f"e{rng.randrange(n)}"}])})
        if rng.random() < 0.8:
            sources.append({"fact_id": fid, "agent_id": rng.choice(agents[:3]), "role": rng.choice(
                ["developer", "ops", None]), "source_type": rng.choice(["observation", "documentation", None]),
                "category": rng.choice(["security", "Global", None]), "created_at": _time(rng)})
        for _ in range(rng.choice([0, 0, 1, 2, 3])):
            at = rng.choice([iso(NOW - timedelta(days=2)), iso(NOW - timedelta(days=rng.randrange(40)))])
            verifs.append({"fact_id": fid, "verifier_id": rng.choice(agents), "verification_type": rng.choice(
                ["confirmed", "still_valid", "partially_valid", "outdated", "incorrect"]), "verified_at": at})
        for agent in rng.sample(agents[:3], rng.choice([0, 1, 2])):
            votes.append({"fact_id": fid, "agent_id": agent, "vote": rng.choice(["agree", "disagree", "unsure"]),
                          "confidence": rng.choice([0.2, 0.5, 1.0]), "voted_at": iso(NOW)})
        for _ in range(rng.choice([0, 1, 2])):
            uses.append({"fact_id": fid, "agent_id": "a1", "action": "used", "outcome": rng.choice(
                ["success", "partial", "failure", "error"]), "tracked_at": iso(NOW - timedelta(days=rng.randrange(90)))})
    for k in range(n // 6):
        a, b = sorted(rng.sample([r["id"] for r in rows], 2))
        resolved = rng.random() < 0.5
        contras.append({"fact_a_id": a, "fact_b_id": f"{b}#{k}" if k % 3 == 0 else b, "contradiction_type": "value",
                        "severity": rng.choice(["low", "medium", "high"]), "detected_at": iso(NOW),
                        "resolved_at": iso(NOW) if resolved else None,
                        "resolution_loser": rng.choice([a, b]) if resolved else None})
    contras = list({(c["fact_a_id"], c["fact_b_id"]): c for c in contras}.values())
    return rows, {"fact_sources": sources, "fact_verifications": verifs, "fact_votes": votes,
                  "fact_usage_outcomes": uses, "fact_contradictions": contras}


@pytest.fixture
def both(tmp_path, pg_server, unique):
    """An SQLite path and a fresh PostgreSQL URL."""
    return str(tmp_path / "r.sqlite3"), new_pg_database(pg_server, f"p_{unique}")


@pytest.mark.parametrize("seed", range(4))
def test_confidence_reads_agree_across_backends(both, seed):
    rows, records = history(seed)
    lite, pg = (make(w, rows, records) for w in both)
    cfg = {"system_verifiers": ["sys-check"], "ground_truth_verifiers": ["truth"]}
    with open_store(lite, **cfg) as a, open_store(pg, **cfg) as b:
        ids_a, m_a, s_a = a.scores()
        ids_b, m_b, s_b = b.scores()  # (every candidate, in whatever order the DB reads them)
        assert sorted(ids_a) == sorted(ids_b)
        order_a, order_b = np.argsort(ids_a), np.argsort(ids_b)
        np.testing.assert_allclose(m_b[order_b], m_a[order_a], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(s_b[order_b], s_a[order_a], rtol=1e-9, atol=1e-9)
        ids_a = sorted(ids_a)
        some = ids_a[::7]
        (ids_x, m_x, s_x), (ids_y, m_y, s_y) = a.scores(some), b.scores(some)
        assert ids_x == ids_y == some
        np.testing.assert_allclose(m_y, m_x, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(s_y, s_x, rtol=1e-9, atol=1e-9)
        assert a.confidence(ids_a[3]) == b.confidence(ids_a[3])
        assert a.track_records() == b.track_records()
        assert a.stale(10) == b.stale(10)
        assert a.contradictions() == b.contradictions()
        assert a.candidates_for_edges([f"e{i}" for i in range(0, 60, 3)]) == \
            b.candidates_for_edges([f"e{i}" for i in range(0, 60, 3)])


def test_confidence_writes_agree_across_backends(both):
    rows, records = history(7, n=30)
    for where in both:
        make(where, rows, records)
    out = []
    for where in both:
        with open_store(where) as s:
            got = [s.verify("f001", "confirmed", "reviewer", notes="checked"),
                   s.vote("f002", "agree", 0.9, "a2", reasoning="seen it"), s.vote("f002", "disagree", 0.4, "a2"),
                   s.record_usage("f003", "success", "a3", "deployed"),
                   s.flag_for_review([("f004", "k1", "t", "medium", "d"), ("f004", "k1", "t", "medium", "d2"),
                                      ("f005", "k2", "t", "low", None)]),
                   s.flag_for_review([("f004", "k1", "t", "medium", "d")]),
                   s.contradictions(resolve_them=True)]
            for _ in range(20):  # enough outcomes to learn from
                s.record_usage("f006", "failure", "a1", "ran it")
            learned = s.learn(apply=True)
            got.append({k: learned[k] for k in ("weights_after", "applied")})
            got.append(s.revert())
            got.append(s.conn.query("SELECT fact_id, agent_id, vote, confidence FROM fact_votes ORDER BY fact_id, agent_id"))
            got.append(s.conn.query("SELECT agent_id, category, verification_count, verified_correct "
                                    "FROM agent_credibility ORDER BY 1, 2"))
            out.append(json.loads(json.dumps(got, default=str)))
    assert out[0] == out[1]
    assert out[0][4] == 2 and out[0][5] == 0  # one record per fact_b_id, a rerun adds none


async def test_sync_verify_and_guard_on_postgresql(graph, settings, pg_server, unique):
    group = f"g_{unique}"
    uuids = await build(graph, group)
    u = [uuids[f.fact] for f in FACTS]
    url = new_pg_database(pg_server, f"s_{unique}")
    make(url, [row("c1", u[0], "promoted", group, memory_type="fact"), row("c2", u[1], "corroborated", group),
               row("c3", u[2], "candidate", group), row("c7", "no-such-edge", "promoted", group),
               row("c8", None, "promoted", group, ev="{not json")])
    rep = await run_sync(settings, review_db=url, graph=graph)
    props = await edge_props(graph, group)
    assert (props[u[0]]["trust_score"], props[u[1]]["trust_score"], props[u[2]]["trust_score"]) == (1.0, 0.6, 0.25)
    assert rep.unmatched_count == 1 and rep.quarantined_count == 1
    assert (await verify(settings, review_db=url, graph=graph)).in_sync
    with ReviewConn.open(url) as conn:  # a reviewer's change: the next (incremental) run applies it
        conn.write(lambda c: c.execute("UPDATE candidates SET status = 'rejected' WHERE id = 'c1'"))
    again = await run_sync(settings, review_db=url, graph=graph)
    assert again.edges_cleared == 1 and (await edge_props(graph, group))[u[0]]["trust_score"] is None
    # the guard: Graphiti invalidates a corroborated fact; sync records it for review in the PostgreSQL DB
    await graph.for_group(group).run_text("MATCH ()-[r:RELATES_TO {uuid: $u}]->() SET r.invalid_at = '2026-01-02'",
                                          {"u": u[1]}, write=True)
    third = await run_sync(settings, review_db=url, graph=graph)
    assert [i["uuid"] for i in third.trusted_invalidated] == [u[1]] and third.contradictions_recorded == 1
    with ReviewConn.open(url) as conn:
        assert conn.query("SELECT fact_a_id, contradiction_type FROM fact_contradictions") == [
            ("c2", "graphiti_invalidation")]


def test_relink_write_and_rollback_on_both(review_url, settings):
    settings.review.url = review_url
    make(review_url, [row(f"c{i}", f"old-{i}", "promoted", "g") for i in range(5)])
    with open_review_db(settings, None) as db:
        written, conflicts = apply_relinks(db, "relink-t1", [("c1", "old-1", "new-1"), ("c2", "old-9", "new-2")],
                                           {"orphaned": 2}, settings)
    assert written == 1 and [c["id"] for c in conflicts] == ["c2"]
    with ReviewConn.open(review_url) as conn:
        ev = dict(conn.query("SELECT id, evidence_refs_json FROM candidates"))
    assert json.loads(ev["c1"])[0]["evidence_id"] == "new-1" and json.loads(ev["c2"])[0]["evidence_id"] == "old-2"
    out = rollback(settings, "relink-t1")
    assert out["restored"] == 1
    with ReviewConn.open(review_url) as conn:
        assert json.loads(conn.query("SELECT evidence_refs_json FROM candidates WHERE id = 'c1'")[0][0])[0][
            "evidence_id"] == "old-1"
    with JournalStore(settings) as store:
        assert store.run("relink-t1")["status"] == "rolled_back"


def test_snapshot_reads_pipeline_types_as_sqlite_holds_them(pg_server, unique, tmp_path):
    """A pipeline's own PostgreSQL table (jsonb evidence, timestamptz, numeric) is read for sync as
    text and numbers, through the column mapping."""
    url = new_pg_database(pg_server, f"m_{unique}")
    with ReviewConn.open(url) as conn:
        conn.write(lambda c: (c.execute(
            "CREATE TABLE facts (fid TEXT PRIMARY KEY, state TEXT, refs JSONB, changed TIMESTAMPTZ, conf NUMERIC)"),
            c.execute("INSERT INTO facts VALUES ('x1', 'promoted', '[{\"evidence_id\": \"e1\"}]', "
                      "'2026-01-02T03:04:05Z', 0.5)")))
    review = ReviewSettings(table="facts", columns={"id": "fid", "status": "state", "evidence_refs_json": "refs",
                                                    "updated_at": "changed", "confidence": "conf"})
    with ReviewDB.open(url, review) as db:
        assert db.unique_ids
        batch = next(db.iter_batches(fields=("id", "status", "evidence_refs_json")))
        assert batch == [{"id": "x1", "status": "promoted", "evidence_refs_json": '[{"evidence_id": "e1"}]'}]
        import sqlite3
        from urllib.parse import unquote
        snap = sqlite3.connect(unquote(db.uri()[len("file:"):].split("?")[0]))
        assert snap.execute("SELECT * FROM facts").fetchall() == [  # the columns sync reads, nothing else
            ("x1", "promoted", '[{"evidence_id": "e1"}]', "2026-01-02T03:04:05Z")]
        assert [r[1] for r in snap.execute("PRAGMA table_info(facts)")] == ["fid", "state", "refs", "changed"]
        snap.close()


def test_addresses_and_errors(pg_server, unique):
    assert parse_location("postgresql://u:secret@h:5/db").display == "postgresql://u:***@h:5/db"
    assert parse_location("sqlite:////tmp/x.db").target == "/tmp/x.db"
    assert parse_location("review.sqlite3").dialect == "sqlite"
    with pytest.raises(Exception, match="neither a path"):
        parse_location("mysql://x/y")
    with pytest.raises(ReviewDBError, match="does not exist"):
        ReviewConn.open("/nonexistent/r.db")
    bad = pg_server.get_uri(f"no_such_db_{unique}")
    with pytest.raises(ReviewDBError, match=f"no_such_db_{unique}"):
        ReviewConn.open(bad)
    # placeholders outside literals only; % doubled when parameters are passed
    assert pg_sql("SELECT '?', \"a?\", ? -- ?\n, 'x%' LIKE ?", True) == "SELECT '?', \"a?\", %s -- ?\n, 'x%%' LIKE %s"
    assert pg_sql("SELECT 'x%'", False) == "SELECT 'x%'"


def test_change_marker_and_confidence_cache_on_both(review_url, tmp_path):
    from graph_trust.config import load_settings
    from graph_trust.sync.confidence.cache import gather_all
    from graph_trust.sync.runs.change_marker import marker

    rows, records = history(3, n=20)
    make(review_url, rows, records)
    s = load_settings(overrides={"state_dir": str(tmp_path / "state"), "review.url": review_url}, environ={})
    with ReviewConn.open(review_url) as conn:
        seen = [marker(conn, "candidates")]
        insert_records(review_url, {"fact_votes": [{"fact_id": "f001", "agent_id": f"v{i}", "vote": "agree",
                                                    "confidence": 1.0, "voted_at": iso(NOW)} for i in range(50)]})
        seen.append(marker(conn, "candidates"))  # one bulk transaction: the marker moved
        conn.write(lambda c: c.execute("UPDATE candidates SET status = 'rejected' WHERE id = 'f002'"))
        seen.append(marker(conn, "candidates"))
        assert None not in seen and len(set(seen)) == 3 and seen[1][1] > seen[0][1]
        with open_store(review_url) as cs:
            first, hit1 = gather_all(cs, s)
            again, hit2 = gather_all(cs, s)
        assert (hit1, hit2) == (False, True) and again.ids == first.ids
        conn.write(lambda c: c.execute("DELETE FROM fact_votes WHERE agent_id = 'v7'"))
        with open_store(review_url) as cs:
            _, hit3 = gather_all(cs, s)  # a write since: read afresh
        assert hit3 is False
        drop = ('DROP TRIGGER "graph_trust_changed_fact_votes" ON fact_votes' if conn.pg
                else 'DROP TRIGGER "graph_trust_changed_fact_votes_update"')
        conn.write(lambda c: c.execute(drop))
        assert marker(conn, "candidates") is None  # no whole marker: never cached
    init_confidence_tables(review_url)  # review init restores it in place
    with ReviewConn.open(review_url) as conn:
        assert marker(conn, "candidates") is not None
