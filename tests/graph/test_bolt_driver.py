"""Driver behaviour over Bolt (ArcadeDB in CI; real Neo4j with GRAPH_TRUST_TEST_NEO4J_URI):
one clear line and exit 2 for connection, authentication and unknown-database errors, no
credentials anywhere (also under --debug), writes retried on real transient errors, batch sizes
bounded below the Bolt message limit."""

from __future__ import annotations

import asyncio
import logging
import uuid

import pytest
from bolt_server import free_port
from builders import Fact, build_graph
from cli_helpers import run_cli
from graphiti_core.driver.driver import GraphProvider
from sync_fixtures import review_db

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.config import load_settings
from graph_trust.errors import ConfigError, GraphAuthError, GraphConnectionError
from graph_trust.graph.connection import open_graph

pytestmark = pytest.mark.bolt
# Distinctive, so a leak is found by plain substring search.
BAD_PASSWORD = "Wr0ng-pw-8d1f2c7e"
# Authentication failures use a user that does not exist: ArcadeDB locks a user out for 30 s after
# 5 failed logins and Neo4j for 5 s after 3, which would break the session's other Bolt tests.
NO_USER = "graph-trust-test-nobody"


def _cli_env(bolt, **overrides):
    return {"NEO4J_USER": bolt.user, "NEO4J_PASSWORD": bolt.password, "NEO4J_DATABASE": bolt.database, **overrides}


def _one_clear_line(r, *, expect: str, secrets: list[str]) -> None:
    assert r.code == 2, (r.code, r.err)
    assert r.err.startswith("error: ") and len(r.err.strip().splitlines()) == 1, r.err
    assert expect in r.err and "Traceback" not in r.err and r.out == ""
    for s in secrets:
        assert s not in r.err and s not in r.out


@pytest.mark.parametrize("case", ["bad credentials", "unknown database", "connection refused"])
def test_cli_connection_errors_are_one_line_exit_2_without_secrets(bolt, tmp_path, case):
    uri = bolt.uri
    if case == "bad credentials":
        env, expect = _cli_env(bolt, NEO4J_USER=NO_USER, NEO4J_PASSWORD=BAD_PASSWORD), "authentication failed"
    elif case == "unknown database":
        env, expect = _cli_env(bolt, NEO4J_DATABASE="nosuchdb"), "database 'nosuchdb' does not exist"
    else:
        uri = f"bolt://127.0.0.1:{free_port()}"
        env, expect = _cli_env(bolt), "cannot reach graph bolt://127.0.0.1:"
    secrets = [env["NEO4J_PASSWORD"]]
    review = str(review_db(tmp_path / "review.sqlite3", []))
    for command in (["init"], ["verify", "--review-db", review]):
        r = run_cli(*command, "--graph", uri, env=env, cwd=tmp_path, timeout=120)
        _one_clear_line(r, expect=expect, secrets=secrets)
    # --debug: a traceback and the drivers' debug logs, still without the password.
    r = run_cli("init", "--graph", uri, "--debug", env=env, cwd=tmp_path, timeout=120)
    assert r.code == 2 and "DEBUG" in r.err and expect in r.err
    for s in secrets:
        assert s not in r.err and s not in r.out


async def test_library_raises_typed_errors(bolt, tmp_path):
    base = {"graph.uri": bolt.uri, "graph.user": bolt.user, "graph.password": bolt.password,
            "graph.database": bolt.database, "state_dir": str(tmp_path)}
    cases = [
        ({"graph.user": NO_USER, "graph.password": BAD_PASSWORD}, GraphAuthError, "authentication failed"),
        ({"graph.database": "nosuchdb"}, GraphConnectionError, "database 'nosuchdb' does not exist"),
        ({"graph.uri": f"bolt://127.0.0.1:{free_port()}"}, GraphConnectionError, "cannot reach graph"),
    ]
    for overrides, error, text in cases:
        settings = load_settings(overrides={**base, **overrides}, environ={})
        with pytest.raises(error) as err:
            async with open_graph(settings):
                pass
        assert text in str(err.value) and str(err.value).count("graph bolt://") == 1
        assert bolt.password not in str(err.value) and BAD_PASSWORD not in str(err.value)


async def _one_edge(g, bolt, group: str) -> str:
    """Save one fact with graphiti-core into ``group`` (after the driver's index build); its edge uuid."""
    await g.settle()
    uuids = await build_graph(g.driver, HashingEmbedder(), [Fact("a", "R", "b", "a relates to b")], group,
                              indices=False, vector_procedure=not bolt.arcadedb)
    return uuids["a relates to b"]


async def test_concurrent_writes_to_one_edge_are_retried_and_all_land(bolt, bolt_settings, unique, caplog):
    """Many managed-transaction writes to the same edge at once. ArcadeDB answers the losers with
    Neo.TransientError.Transaction.DeadlockDetected; they are retried, so every write succeeds and
    the edge ends with one of the written values. (Neo4j takes a lock instead: no retry needed,
    so there the retries are only counted, not required.)"""
    caplog.set_level(logging.WARNING, logger="neo4j")
    async with open_graph(bolt_settings) as g:
        edge = await _one_edge(g, bolt, f"c{unique}")
        retried, rounds = 0, 0
        while rounds < 10 and not retried:
            rounds += 1
            caplog.clear()
            scores = [round(0.01 * (i + 1) + rounds * 0.1, 4) for i in range(12)]
            rows = [{edge: {"trust_score": s, "trust_status": "verified", "trust_run_id": f"r{i}",
                            "trust_updated_at": None, "memory_type": None, "sensitivity": None, "scope": None}}
                    for i, s in enumerate(scores)]
            results = await asyncio.gather(*(g.write("edge_trust_set", uuids=[edge], by_uuid=r) for r in rows))
            assert results == [[{"matched": 1}]] * len(rows)
            final = await g.query("edge_trust_read", uuids=[edge])
            assert final[0]["trust_score"] in scores
            assert final[0]["trust_run_id"] == f"r{scores.index(final[0]['trust_score'])}"  # one write, whole
            retried = sum("will be retried" in r.getMessage() for r in caplog.records)
    if bolt.arcadedb:
        assert retried, "expected at least one write conflict to be retried"


def test_batch_size_is_bounded_in_config():
    assert load_settings(overrides={"sync.batch_size": 10000}, environ={}).sync.batch_size == 10000
    with pytest.raises(ConfigError, match="sync.batch_size"):
        load_settings(overrides={"sync.batch_size": 10001}, environ={})
    with pytest.raises(ConfigError, match="sync.batch_size"):
        load_settings(overrides={"sync.batch_size": 0}, environ={})


async def test_largest_allowed_batch_fits_one_bolt_message(bolt, bolt_settings, unique):
    """A 10,000-row edge_trust_set (the config maximum) with realistic values is a few MiB, well
    under Bolt's 16 MiB message limit (ArcadeDB's arcadedb.bolt.maxMessageSize), and runs."""
    async with open_graph(bolt_settings) as g:
        edge = await _one_edge(g, bolt, f"m{unique}")
        keys = [edge] + [str(uuid.uuid4()) for _ in range(9999)]
        row = {"trust_score": 0.6, "trust_status": "verified", "trust_run_id": str(uuid.uuid4()),
               "trust_updated_at": "2026-02-01T00:00:00+00:00", "memory_type": "semantic",
               "sensitivity": "internal", "scope": "team-data"}
        by_uuid = {k: dict(row) for k in keys}
        assert len(repr(by_uuid)) + len(repr(keys)) < 4 * 2**20  # a generous upper bound on PackStream size
        assert await g.write("edge_trust_set", uuids=keys, by_uuid=by_uuid) == [{"matched": 1}]
        assert (await g.query("edge_trust_read", uuids=[edge]))[0]["scope"] == "team-data"


async def test_the_index_build_is_awaited_to_its_last_statement(bolt_server, tmp_path):
    """Waiting for the index build graphiti-core's driver starts (``settle``, before every
    statement) returns only once each index statement has run, also where one fails (ArcadeDB
    rejects the fulltext DDL): every range index exists then, and an entity written right after
    is found through the ``created_at`` index (``node_created_since``), as through a label scan.
    graphiti-core's own build returned at the first failure, and an entity written while a range
    index was still being created was missing from it."""
    import re
    from datetime import UTC, datetime

    from bolt_server import create_graphiti_fulltext_indexes
    from builders import _save
    from graphiti_core.graph_queries import get_range_indices
    from graphiti_core.nodes import EntityNode

    want = {re.search(r"INDEX\s+(\w+)", q).group(1) for q in get_range_indices(GraphProvider.NEO4J)}
    for i in range(4):
        ep = bolt_server.create_database(f"t_{uuid.uuid4().hex[:12]}") if bolt_server.arcadedb else bolt_server
        if bolt_server.arcadedb:
            create_graphiti_fulltext_indexes(ep)
        settings = load_settings(overrides={"graph.uri": ep.uri, "graph.user": ep.user, "graph.password": ep.password,
                                            "graph.database": ep.database, "state_dir": str(tmp_path / str(i))},
                                 environ={})
        async with open_graph(settings) as g:
            await g.settle()
            assert want <= {r["name"] for r in await g.query("index_names")}
            written = [f"{uuid.uuid4()}" for _ in range(20)]
            for u in written:
                await _save(EntityNode(uuid=u, name=u, group_id="g", labels=["Entity"], summary="",
                                       created_at=datetime(2026, 1, 1, tzinfo=UTC), name_embedding=[0.5, 0.5]),
                            g.driver, vector_procedure=not bolt_server.arcadedb)
            since = {r["uuid"] for r in await g.query("node_created_since", since=datetime(2000, 1, 1, tzinfo=UTC))}
            assert set(written) <= since
