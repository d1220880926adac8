"""Bounded waits on a PostgreSQL review DB, and the versions it runs on.

- A frozen server (its backend serving our connection SIGSTOPped, found by ``pg_backend_pid()``)
  fails a sync and a review decision with one line once ``review.statement_timeout_s`` + 5 s pass
  without an answer, and the sync lock is free afterwards.
- A decision blocked on a lock another session holds gives up after ``review.lock_timeout_s``
  (PostgreSQL's lock_timeout; SQLite's busy timeout).
- PostgreSQL 15 (Debian 12's ``postgresql`` package, started here from its binaries) runs the
  review DB as 16 does: bad dates and bad evidence JSON read as a miss, a sync and a decision go
  through; a server older than the floor is refused naming the version found and the one needed.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg
import pytest
from conftest import new_pg_database
from sync_fixtures import FACTS, build, row

from graph_trust import api
from graph_trust.errors import ReviewDBError
from graph_trust.review import db as review_db_mod
from graph_trust.review import decisions
from graph_trust.review.candidates import open_candidates
from graph_trust.review.db import ReviewConn
from graph_trust.sync.review_db import ReviewDB, insert_rows
from graph_trust.sync.runner import sync_graph
from graph_trust.sync.runs.identity import graph_key
from graph_trust.sync.runs.lock import sync_lock
from graph_trust.sync.store.state import StateStore

BOUND_S = 1.0  # review.statement_timeout_s in these tests: no answer for 1 + 5 s closes the connection


def _backend_pid(conn: ReviewConn) -> int:
    return int(conn.query("SELECT pg_backend_pid()")[0][0])


class _Frozen:
    """The backend process serving ``conn`` stopped (SIGSTOP) for the block, continued after."""

    def __init__(self, conn: ReviewConn):
        self.pid = _backend_pid(conn)

    def __enter__(self) -> _Frozen:
        os.kill(self.pid, signal.SIGSTOP)
        self.t0 = time.monotonic()
        return self

    def __exit__(self, *exc: object) -> None:
        self.elapsed = time.monotonic() - self.t0
        os.kill(self.pid, signal.SIGCONT)


async def _world(pg_server, graph, settings, unique) -> tuple[str, str, dict[str, str]]:
    url = new_pg_database(pg_server, f"w_{unique}")
    api.init_review_db(url)
    group = f"g_{unique}"
    uuids = await build(graph, group, FACTS[:3])
    insert_rows(url, [row(f"c{i}", uuids[f.fact], "candidate", group) for i, f in enumerate(FACTS[:3])])
    settings.review.statement_timeout_s = BOUND_S
    settings.review.lock_timeout_s = BOUND_S
    return url, group, uuids


async def test_a_frozen_backend_fails_a_sync_within_the_bound_and_frees_the_lock(pg_server, graph, settings, unique):
    url, _, _ = await _world(pg_server, graph, settings, unique)
    review = ReviewDB.open(url, settings.review)
    store = StateStore.for_settings(settings)
    try:
        with _Frozen(review.conn) as frozen, pytest.raises(ReviewDBError) as exc:
            await sync_graph(graph, settings, store, review)
    finally:
        review.close()
        store.close()
    msg = str(exc.value)
    assert "\n" not in msg and "did not answer within 6 s" in msg and "review.statement_timeout_s" in msg
    assert frozen.elapsed < 60  # (bounded: without the bound this waits until the server is killed)
    with sync_lock(settings.state_dir, graph_key(graph), "the test"):  # free again
        pass
    last = api.runs(settings, limit=1)[0]  # the run is recorded as failed, with the same one line
    assert last["status"] == "failed" and last["error"] == msg
    report = await api.sync(settings, review_db=url, graph=graph)  # the server answers again: converges
    assert report.status == "ok" and report.edges_set == 3


async def test_a_frozen_backend_fails_a_decision_within_the_bound(pg_server, graph, settings, unique):
    url, _, _ = await _world(pg_server, graph, settings, unique)
    conn, cand = open_candidates(url, settings.review)
    try:
        with _Frozen(conn), pytest.raises(ReviewDBError, match="did not answer within 6 s") as exc:
            decisions.decide(conn, cand, "promote", ["c0"], actor="alice", reason="checked", tiers=settings.sync.tiers)
    finally:
        conn.close()
    assert "\n" not in str(exc.value)
    with ReviewConn.open(url) as c:  # nothing was decided
        assert c.query("SELECT status FROM candidates WHERE id = 'c0'") == [("candidate",)]
        assert c.query("SELECT count(*) FROM review_decisions") == [(0,)]


async def test_a_decision_blocked_on_a_table_lock_gives_up_after_lock_timeout(pg_server, graph, settings, unique):
    url, _, _ = await _world(pg_server, graph, settings, unique)
    settings.review.statement_timeout_s = 60.0  # (the lock wait ends first)
    with psycopg.connect(url) as holder:  # another session holds the table
        holder.execute("LOCK TABLE candidates IN ACCESS EXCLUSIVE MODE")
        with pytest.raises(ReviewDBError, match=r"gave up waiting for a lock another session holds after 1 s "
                                                r"\(review.lock_timeout_s\); nothing was written"):
            await api.review_decide(settings, "promote", ["c0"], actor="alice", reason="checked", review_db=url,
                                    graph=graph)
        holder.rollback()
    out = await api.review_decide(settings, "promote", ["c0"], actor="alice", reason="checked", review_db=url,
                                  graph=graph)
    assert out["batch"]["decisions"][0]["new_status"] == "promoted"


async def test_an_sqlite_decision_blocked_by_a_writer_gives_up_after_lock_timeout(graph, settings, tmp_path, unique):
    url = str(tmp_path / "review.sqlite3")
    api.init_review_db(url)
    insert_rows(url, [row("c0", "e0", "candidate", None)])
    settings.review.lock_timeout_s = BOUND_S
    import sqlite3

    holder = sqlite3.connect(url, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(ReviewDBError, match="is locked by a writer"):
            await api.review_decide(settings, "promote", ["c0"], actor="alice", reason="x", review_db=url, graph=graph)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_the_version_floor_names_the_version_found_and_the_one_needed(pg_server, unique, monkeypatch):
    url = new_pg_database(pg_server, f"v_{unique}")
    with psycopg.connect(url) as c:
        found = c.info.parameter_status("server_version").split()[0]
        num = c.info.server_version
    monkeypatch.setattr(review_db_mod, "PG_MIN_VERSION", (num // 10000 + 1) * 10000)
    with pytest.raises(ReviewDBError) as exc:
        ReviewConn.open(url)
    assert str(exc.value).endswith(f": PostgreSQL {found} found; {num // 10000 + 1} or newer is needed")
    monkeypatch.setattr(review_db_mod, "PG_MIN_VERSION", num // 10000 * 10000)
    with ReviewConn.open(url) as conn:  # at the floor: open
        assert conn.query("SELECT 1") == [(1,)]


# --- PostgreSQL 15, from Debian's binaries -------------------------------------------------------

def _pg15_bin() -> Path | None:
    for found in sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres")):
        if Path(found).parent.parent.name == "15":
            return Path(found).parent
    return None


@pytest.fixture(scope="module")
def pg15():
    """A PostgreSQL 15 server from Debian's ``postgresql`` package (as Debian 12 ships it) on a unix
    socket in a temp dir, stopped and removed at the end."""
    bindir = _pg15_bin()
    if bindir is None:
        pytest.fail("PostgreSQL 15's binaries are not installed: apt-get install postgresql-15 (Debian 12's; the "
                    "README's test command installs it)")
    where = Path(tempfile.mkdtemp(prefix="gt-pg15-"))
    user = "postgres" if os.geteuid() == 0 else None  # (initdb refuses to run as root)
    if user:
        shutil.chown(where, user)
    data = where / "data"
    subprocess.run([bindir / "initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8"], user=user,
                   check=True, capture_output=True)
    proc = subprocess.Popen([bindir / "postgres", "-D", data, "-k", where, "-c", "listen_addresses=",
                             "-p", "5432"], user=user, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"postgresql://postgres@/postgres?host={where}"
    try:
        for _ in range(300):
            try:
                psycopg.connect(base).close()
                break
            except psycopg.OperationalError:
                time.sleep(0.1)
        yield lambda name: _new_db(base, where, name)
    finally:
        proc.terminate()
        proc.wait(30)
        shutil.rmtree(where, ignore_errors=True)


def _new_db(base: str, where: Path, name: str) -> str:
    with psycopg.connect(base, autocommit=True) as con:
        assert con.info.server_version // 10000 == 15
        con.execute(f'CREATE DATABASE "{name}"')
    return f"postgresql://postgres@/{name}?host={where}"


BAD_ROWS = [("ok", '[{"evidence_id": "e1"}]', "2026-01-02T03:04:05Z"), ("bad-json", "[{not json", "2026-01-02"),
            ("object", '{"evidence_id": "e2"}', "not a time"), ("empty", "", "2026-02-30T00:00:00Z"),
            ("nested", '[[1], {"evidence_id": "x"}]', "2026-13-01")]


def _reads(conn: ReviewConn) -> list[tuple]:
    return conn.query(f"SELECT id, {conn.first_evidence_id('evidence_refs_json')}, "
                      f"{conn.julian('updated_at')} IS NULL FROM candidates ORDER BY id")


def test_postgresql_15_reads_bad_dates_and_json_as_16_does(pg15, pg_server, unique):
    urls = [pg15(f"r15_{unique}"), new_pg_database(pg_server, f"r16_{unique}")]
    got = []
    for url in urls:
        api.init_review_db(url)
        with ReviewConn.open(url) as conn:
            conn.write(lambda c: c.executemany("INSERT INTO candidates (id, status, evidence_refs_json, updated_at) "
                                               "VALUES (?, 'candidate', ?, ?)", BAD_ROWS))
        with ReviewConn.open(url, readonly=True) as conn:
            got.append(_reads(conn))
    assert got[0] == got[1]
    assert dict((r[0], r[1]) for r in got[0]) == {"ok": "e1", "bad-json": None, "object": None, "empty": None,
                                                   "nested": None}


async def test_sync_and_decisions_on_postgresql_15(pg15, graph, settings, unique, monkeypatch):
    url = pg15(f"s15_{unique}")
    api.init_review_db(url)
    group = f"g_{unique}"
    uuids = await build(graph, group, FACTS[:2])
    insert_rows(url, [row("c0", uuids[FACTS[0].fact], "candidate", group)])
    out = await api.review_decide(settings, "promote", ["c0", uuids[FACTS[1].fact]], actor="alice", reason="checked",
                                  review_db=url, graph=graph, apply_sync=True)
    assert out["sync"].status == "ok" and out["sync"].edges_set == 2
    assert (await api.verify(settings, review_db=url, graph=graph)).in_sync
    monkeypatch.setattr(review_db_mod, "PG_MIN_VERSION", 160000)  # a floor above it: refused, both versions named
    with pytest.raises(ReviewDBError, match=r"PostgreSQL 15\.\d+ found; 16 or newer is needed"):
        ReviewConn.open(url)
