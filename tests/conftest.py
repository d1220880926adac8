"""Shared fixtures: one embedded FalkorDB per test session, a fresh graph per test.

Each test gets its own FalkorDB graph name (and its own group ids), so tests never see each
other's data while sharing one server process.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from graph_trust.config import Settings, load_settings
from graph_trust.embedded import EmbeddedServer


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


@pytest.fixture
def settings(tmp_path: Path, falkor_server: EmbeddedServer, embedded_path: Path, unique: str) -> Settings:
    """Settings pointing at the session's embedded server, a fresh graph and a tmp state dir."""
    return load_settings(
        overrides={
            "graph.uri": f"embedded:{embedded_path}",
            "graph.database": f"t_{unique}",
            "state_dir": str(tmp_path / "state"),
        },
        environ={},
    )


@pytest.fixture
async def graph(settings: Settings):
    """An open :class:`GraphConnection` on a fresh FalkorDB graph."""
    from graph_trust.connection import open_graph

    async with open_graph(settings) as g:
        yield g
