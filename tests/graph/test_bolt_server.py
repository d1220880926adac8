"""Smoke tests for the ArcadeDB Bolt test server (tests/bolt_server.py) via the official neo4j driver."""

from __future__ import annotations

import os
import socket
from urllib.parse import urlparse

import pytest
from bolt_server import BoltEndpoint, arcadedb_bolt, create_graphiti_fulltext_indexes, fulltext_sql
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError

pytestmark = pytest.mark.bolt


def _listening(uri: str) -> bool:
    url = urlparse(uri)
    try:
        with socket.create_connection((url.hostname, url.port), timeout=1):
            return True
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One server for the module (the conftest pattern); afterwards it must be gone."""
    with arcadedb_bolt(tmp_path_factory.mktemp("arcadedb")) as ep:
        yield ep
    assert not _listening(ep.uri) and not _alive(ep.pid)


@pytest.fixture
def bolt(server, request):
    """A fresh database per test on the shared server."""
    return server.create_database("t_" + request.node.name[-40:])


def test_round_trip_batch_update(bolt):
    assert urlparse(bolt.uri).hostname == "127.0.0.1" and _listening(bolt.uri) and bolt.arcadedb
    assert bolt.password not in repr(bolt)
    rows = [
        {"uuid": "e-1", "score": 0.6, "status": "verified"},
        {"uuid": "missing", "score": 0.25, "status": "verified"},
    ]
    with GraphDatabase.driver(bolt.uri, auth=bolt.auth) as driver:
        driver.execute_query(
            "CREATE (a:Entity {uuid: $a, name: 'Alice', group_id: $g})"
            "-[:RELATES_TO {uuid: $e, fact: 'Alice knows Bob', group_id: $g}]->"
            "(b:Entity {uuid: $b, name: 'Bob', group_id: $g})",
            a="n-a", b="n-b", e="e-1", g="g1", database_=bolt.database,
        )
        with driver.session(database=bolt.database) as session:
            updated = session.execute_write(
                lambda tx: tx.run(
                    "UNWIND $rows AS row MATCH ()-[r:RELATES_TO {uuid: row.uuid}]->() "
                    "SET r.trust_score = row.score, r.trust_status = row.status RETURN count(r) AS n",
                    rows=rows,
                ).single()["n"]
            )
        records, _, _ = driver.execute_query(
            "MATCH ()-[r:RELATES_TO]->() "
            "RETURN startNode(r).uuid AS src, endNode(r).uuid AS dst, properties(r) AS props",
            database_=bolt.database,
        )
    assert updated == 1
    assert [(r["src"], r["dst"]) for r in records] == [("n-a", "n-b")]
    props = records[0]["props"]
    assert type(props["trust_score"]) is float and props["trust_score"] == 0.6
    assert props["trust_status"] == "verified" and props["fact"] == "Alice knows Bob"


def test_graphiti_fulltext_indexes_are_queryable_by_name(bolt):
    names = create_graphiti_fulltext_indexes(bolt)
    with GraphDatabase.driver(bolt.uri, auth=bolt.auth) as driver:
        driver.execute_query(
            "CREATE (:Entity {uuid: 'a', name: 'Alice', summary: 's', group_id: 'g'})"
            "-[:RELATES_TO {uuid: 'e', name: 'KNOWS', fact: 'Alice knows Bob', group_id: 'g'}]->"
            "(:Entity {uuid: 'b', name: 'Bob', summary: 's', group_id: 'g'})",
            database_=bolt.database,
        )
        shown, _, _ = driver.execute_query("SHOW INDEXES YIELD name, type", database_=bolt.database)
        hits, _, _ = driver.execute_query(
            "CALL db.index.fulltext.queryRelationships('edge_name_and_fact', $q, {limit: 5}) "
            "YIELD relationship AS r, score RETURN r.uuid AS uuid",
            q="Alice", database_=bolt.database,
        )
    assert {"edge_name_and_fact", "node_name_and_summary"} <= set(names)
    assert {r["name"]: r["type"] for r in shown if r["name"] in names} == dict.fromkeys(names, "FULLTEXT")
    assert [h["uuid"] for h in hits] == ["e"]


def test_server_stops_when_the_body_raises(tmp_path):
    with pytest.raises(AuthError):
        with arcadedb_bolt(tmp_path) as ep:
            assert _listening(ep.uri)
            with GraphDatabase.driver(ep.uri, auth=(ep.user, ep.password + "x")) as driver:
                driver.verify_connectivity()
    assert not _listening(ep.uri)
    assert not _alive(ep.pid)
    log = (tmp_path / "server.log").read_text()
    assert "test server stopped" in log and ep.password not in log


def test_fulltext_sql_translates_and_rejects():
    assert fulltext_sql(
        "CREATE FULLTEXT INDEX edge_name_and_fact IF NOT EXISTS\n  FOR ()-[e:RELATES_TO]-() ON EACH [e.name, e.fact]"
    ) == [
        "CREATE EDGE TYPE RELATES_TO IF NOT EXISTS",
        "CREATE PROPERTY RELATES_TO.name IF NOT EXISTS STRING",
        "CREATE PROPERTY RELATES_TO.fact IF NOT EXISTS STRING",
        "CREATE INDEX `edge_name_and_fact` IF NOT EXISTS ON RELATES_TO (name, fact) FULL_TEXT",
    ]
    with pytest.raises(ValueError, match="not a Neo4j CREATE FULLTEXT INDEX"):
        fulltext_sql("CREATE INDEX x IF NOT EXISTS FOR (n:Entity) ON (n.uuid)")


def test_external_endpoint_is_not_arcadedb_and_hides_its_password():
    ep = BoltEndpoint.external("bolt://db.example:7687", "neo4j", "s3cret-pw", "neo4j")
    assert not ep.arcadedb and ep.auth == ("neo4j", "s3cret-pw") and "s3cret-pw" not in repr(ep)
