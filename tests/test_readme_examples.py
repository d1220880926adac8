"""The README's Python examples run as written, in order, in one namespace (like a notebook),
against the bundled sample on a real embedded FalkorDB: the docs cannot drift from the API.

Names the examples take as given (``driver``, ``graphiti``, ``settings``, ``texts``) are set up
here the way the README's prose describes them."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest
from falkordb.asyncio import FalkorDB
from graphiti_core.driver.falkordb_driver import FalkorDriver

from graph_trust.config import load_settings
from graph_trust.embedded import EmbeddedServer
from graph_trust.embedder import HashingEmbedder
from graph_trust.offline import make_graphiti
from graph_trust.sample import demo_group, load_sample

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


@pytest.fixture
async def namespace(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an example starts a server at the relative .graph-trust/graph
    with EmbeddedServer(tmp_path / "sample-graph") as server:
        driver = FalkorDriver(falkor_db=FalkorDB(unix_socket_path=server.socket_path), database=demo_group())
        await driver._init_task
        await load_sample(driver, HashingEmbedder())
        settings = load_settings(overrides={"graph.uri": f"embedded:{tmp_path / 'sample-graph'}",
                                            "state_dir": str(tmp_path / "state")}, environ={})
        try:
            yield {"driver": driver, "graphiti": make_graphiti(driver), "settings": settings,
                   "texts": ["The billing database backup runs at 03:00 UTC.", "auth-service listens on 8443"]}
        finally:
            await driver.close()


def test_the_readme_has_python_examples():
    assert len(BLOCKS) >= 6


async def test_every_python_example_runs(namespace, capsys):
    for i, block in enumerate(BLOCKS):
        code = compile(block, f"README.md python block {i}", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        result = eval(code, namespace)  # noqa: S307 - the README's own examples
        if inspect.isawaitable(result):
            await result
    out = capsys.readouterr().out
    assert "billing" in out.lower()  # the search and context examples printed their results
    assert namespace["results"].edges and namespace["payload"]["records"] is not None
