"""The Python examples of the README and of every docs page run as written, each page's blocks in
order in one namespace (like a notebook), against the bundled sample on a real embedded
FalkorDB: the docs cannot drift from the API.

Names the examples take as given (``driver``, ``graphiti``, ``settings``, ``texts``) are set up
here the way the pages' prose describes them."""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from falkordb.asyncio import FalkorDB
from graphiti_core.driver.falkordb_driver import FalkorDriver
from paths import REPO

from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.clients.offline import make_graphiti
from graph_trust.config import load_settings
from graph_trust.demo.sample import demo_group, load_sample
from graph_trust.graph.embedded import EmbeddedServer

ROOT = REPO
DOCS = ROOT / "docs"
# docs/incoming/ holds drafts the site does not build yet; everything else is a page.
PAGES = [ROOT / "README.md"] + sorted(p for p in DOCS.rglob("*.md") if "incoming" not in p.relative_to(DOCS).parts)


def python_blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)


WITH_EXAMPLES = [p for p in PAGES if python_blocks(p)]


def _readme(ns: dict, out: str) -> None:
    assert "billing" in out.lower()  # the search example printed its results
    assert ns["results"].edges
    assert "billing" in ns["results"].edges[0].fact.lower()


def _search(ns: dict, out: str) -> None:
    assert "billing" in out.lower()
    assert ns["results"].edges and len(ns["results"].edge_explanations) == len(ns["results"].edges)


def _context(ns: dict, out: str) -> None:
    assert "## Trusted Memory Context" in out
    assert ns["payload"]["records"] is not None


def _getting_started(ns: dict, out: str) -> None:
    assert ns["results"].edges  # offline Graphiti's own search found facts
    assert ns["report"] is not None  # a second load_sample: it reports what already existed


def _sync(ns: dict, out: str) -> None:
    assert ns["report"].to_dict()["edges_set"] > 100  # the sample's review rows reached the graph
    assert ns["check"].to_dict()["in_sync"] is True
    assert "in sync: True" in out


def _relink(ns: dict, out: str) -> None:
    assert ns["found"]["orphaned"] == 6 and ns["found"]["dry_run"] is True  # the sample's six orphans
    assert "6 orphaned" in out


def _review(ns: dict, out: str) -> None:
    assert "('promoted', 'corroborated')" in out  # the decision's audit row: status before and after
    assert ns["undone"]["batch"]["undoes"] == ns["out"]["batch"]["batch_id"]
    assert ns["results"].edges
def _embedders(ns: dict, out: str) -> None:
    assert out.splitlines()[0] == "0.45"  # a paraphrase scores high with WordLlama
    assert "its facts were embedded by 'hashing': set search.embedder: hashing" in out  # the check caught it


# What a page's examples must have produced beyond running (each page named here must have examples).
CHECKS: dict[str, Callable[[dict, str], None]] = {
    "README.md": _readme,
    "docs/search.md": _search,
    "docs/context.md": _context,
    "docs/sync.md": _sync,
    "docs/relink.md": _relink,
    "docs/review.md": _review,
    "docs/getting-started.md": _getting_started,
    "docs/embedders.md": _embedders,
}


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


def test_the_docs_have_python_examples():
    assert python_blocks(ROOT / "README.md"), "the README needs its Python example"
    assert sum(len(python_blocks(p)) for p in PAGES) >= 6
    for name in CHECKS:
        assert python_blocks(ROOT / name), f"{name} lost the examples tests/docs/test_readme_examples.py checks"


@pytest.mark.parametrize("page", WITH_EXAMPLES, ids=lambda p: str(p.relative_to(ROOT)))
async def test_every_python_example_runs(page, namespace, capsys):
    name = str(page.relative_to(ROOT))
    for i, block in enumerate(python_blocks(page)):
        code = compile(block, f"{name} python block {i}", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        result = eval(code, namespace)  # noqa: S307 - the docs' own examples
        if inspect.isawaitable(result):
            await result
    check = CHECKS.get(name)
    if check is not None:
        check(namespace, capsys.readouterr().out)
