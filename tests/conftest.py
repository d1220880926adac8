"""Shared fixtures: one embedded FalkorDB per test session, a fresh graph per test.

Each test gets its own FalkorDB graph name (and its own group ids), so tests never see each
other's data while sharing one server process.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase
from hypothesis import settings as hypothesis_settings

from graph_trust.config import Settings, load_settings
from graph_trust.graph.embedded import EmbeddedServer

GRAPH_FIXTURES = frozenset({"falkor_server", "bolt_server"})

# The suite runs two workers on two cores, often beside other work: no example fails on time and
# no health check fires on how fast examples are generated (a load-dependent verdict is a flaky
# one; a test says what it asserts, never how long it took). Tests that set their own settings
# keep them, on top of this profile.
hypothesis_settings.register_profile("suite", deadline=None,
                                     suppress_health_check=[HealthCheck.too_slow])
hypothesis_settings.load_profile("suite")

if "MUTANT_UNDER_TEST" in os.environ:
    # Under mutmut (docs/development.md, "Mutation testing") every run draws the same examples, so
    # the scores table is reproducible; no example fails on time (a slow mutant is not a caught one),
    # and a failing example is not shrunk (the failure is all a mutation run needs).
    hypothesis_settings.register_profile("mutation", parent=hypothesis_settings.get_profile("suite"),
                                         derandomize=True, database=None,
                                         phases=[Phase.explicit, Phase.reuse, Phase.generate])
    hypothesis_settings.load_profile("mutation")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests that use a graph server ``graph`` (``-m "not graph"`` leaves them out)."""
    for item in items:
        if GRAPH_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.graph)


@pytest.fixture(scope="session")
def embedded_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("falkordb") / "graph"


@pytest.fixture(scope="session")
def falkor_server(embedded_path: Path):
    """A running embedded FalkorDB shared by the session (stopped at the end)."""
    server = EmbeddedServer(embedded_path).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def unique() -> str:
    """A short unique suffix for graph and group names."""
    return uuid.uuid4().hex[:10]


# The sync machinery tests (journal, rollback, limits, counts) are written for tiers that clear
# rejected and expired edges (null). The default tiers (0.0 with trust_status: negative evidence
# search can see) are tested in tests/search/test_negative_evidence.py.
CLEARING_TIERS = {"promoted": 1.0, "corroborated": 0.6, "candidate": 0.25, "rejected": None, "expired": None}


@pytest.fixture
def settings(tmp_path: Path, falkor_server: EmbeddedServer, embedded_path: Path, unique: str) -> Settings:
    """Settings pointing at the session's embedded server, a fresh graph and a tmp state dir."""
    return load_settings(
        overrides={
            "graph.uri": f"embedded:{embedded_path}",
            "graph.database": f"t_{unique}",
            "state_dir": str(tmp_path / "state"),
            "sync.tiers": dict(CLEARING_TIERS),
        },
        environ={},
    )


@pytest.fixture
async def graph(settings: Settings):
    """An open :class:`GraphConnection` on a fresh FalkorDB graph."""
    from graph_trust.graph.connection import open_graph

    async with open_graph(settings) as g:
        yield g


# --- Bolt (Neo4j wire protocol): ArcadeDB in CI, real Neo4j with GRAPH_TRUST_TEST_NEO4J_URI ---

@pytest.fixture(scope="session")
def bolt_server(tmp_path_factory):
    """ArcadeDB's Bolt endpoint for the session (stopped at the end), or the real Neo4j named by
    GRAPH_TRUST_TEST_NEO4J_URI (with NEO4J_USER, NEO4J_PASSWORD, GRAPH_TRUST_TEST_NEO4J_DATABASE)."""
    import os

    from bolt_server import BoltEndpoint, arcadedb_bolt

    uri = os.environ.get("GRAPH_TRUST_TEST_NEO4J_URI")
    if uri:
        yield BoltEndpoint.external(uri, os.environ.get("NEO4J_USER", "neo4j"), os.environ.get("NEO4J_PASSWORD", ""),
                                    os.environ.get("GRAPH_TRUST_TEST_NEO4J_DATABASE", "neo4j"))
        return
    with arcadedb_bolt(tmp_path_factory.mktemp("arcadedb")) as ep:
        yield ep


@pytest.fixture
def bolt(bolt_server, unique):
    """ArcadeDB: a fresh database with Graphiti's fulltext indexes; real Neo4j: the shared
    database, emptied first (tests own it: sync's full runs and verify see the whole database)."""
    from bolt_server import create_graphiti_fulltext_indexes

    if not bolt_server.arcadedb:
        from neo4j import GraphDatabase

        with GraphDatabase.driver(bolt_server.uri, auth=bolt_server.auth) as driver:
            driver.execute_query("MATCH (n) DETACH DELETE n", database_=bolt_server.database)
        return bolt_server
    ep = bolt_server.create_database(f"t_{unique}")
    create_graphiti_fulltext_indexes(ep)
    return ep


@pytest.fixture
def bolt_settings(bolt, tmp_path: Path) -> Settings:
    """Settings pointing graph-trust's Neo4j code path at the Bolt endpoint."""
    return load_settings(
        overrides={"graph.uri": bolt.uri, "graph.user": bolt.user, "graph.password": bolt.password,
                   "graph.database": bolt.database, "state_dir": str(tmp_path / "state"),
                   "sync.tiers": dict(CLEARING_TIERS)},
        environ={},
    )


@pytest.fixture(scope="session")
def pg_server():
    """A real PostgreSQL 16 for the session (the pgserver wheel: a child process on a unix socket
    under a temp dir, no TCP port), stopped and removed at the end."""
    import shutil
    import tempfile

    import pgserver

    where = tempfile.mkdtemp(prefix="gt-pg-")  # (short: unix socket paths are limited to ~100 bytes)
    server = pgserver.get_server(where, cleanup_mode="stop")
    try:
        yield server
    finally:
        server.cleanup()
        shutil.rmtree(where, ignore_errors=True)


def new_pg_database(pg_server, name: str) -> str:
    """A fresh database on the session's PostgreSQL; returns its URL."""
    import psycopg

    with psycopg.connect(pg_server.get_uri(), autocommit=True) as con:
        con.execute(f'CREATE DATABASE "{name}"')
    return pg_server.get_uri(name)


@pytest.fixture(params=["sqlite", "postgresql"])
def review_url(request, tmp_path: Path, unique: str) -> str:
    """An empty review DB location on each backend: an SQLite path, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "review.sqlite3")
    return new_pg_database(request.getfixturevalue("pg_server"), f"r_{unique}")
