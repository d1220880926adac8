"""The graph layer (graph_trust/graph/) stands alone: no module in it imports search, context,
sync, the CLI or the library entry point, at the top or inside a function, and its modules
import each other without a cycle. The walker itself is checked on generated sources, so a
missed import form fails here rather than passing silently."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

import graph_trust.graph

FORBIDDEN = ("graph_trust.sync", "graph_trust.cli", "graph_trust.search", "graph_trust.context", "graph_trust.access.trust_context",
             "graph_trust.demo.run", "graph_trust.eval", "graph_trust.mcp", "graph_trust.review", "graph_trust.api")
ROOT = Path(graph_trust.graph.__file__).parent
PACKAGE = "graph_trust.graph"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE, *parts])


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(source: str, module: str, is_package: bool = False) -> list[tuple[str, bool]]:
    """Every module ``source`` imports, anywhere in it, as ``(name, runtime)``: ``runtime`` is
    False inside ``if TYPE_CHECKING:``. ``from a import b`` yields ``a`` and ``a.b`` (b may be
    a module); relative imports are resolved against ``module``."""
    found: list[tuple[str, bool]] = []
    package = module if is_package else module.rpartition(".")[0]

    def visit(node: ast.AST, runtime: bool) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, False)
            for child in node.orelse:
                visit(child, runtime)
            return
        if isinstance(node, ast.Import):
            found.extend((a.name, runtime) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            found.append((base, runtime))
            found.extend((f"{base}.{a.name}", runtime) for a in node.names if a.name != "*")
        for child in ast.iter_child_nodes(node):
            visit(child, runtime)

    visit(ast.parse(source), True)
    return found


def _forbidden(name: str) -> bool:
    return any(name == f or name.startswith(f + ".") for f in FORBIDDEN)


MODULES = sorted(ROOT.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_graph_module_imports_neither_search_nor_sync(path: Path):
    module = _module_name(path)
    bad = sorted({n for n, _ in imports_of(path.read_text(encoding="utf-8"), module, path.name == "__init__.py")
                  if _forbidden(n)})
    assert not bad, f"{module} imports {', '.join(bad)}: the graph layer must not import search, sync or the CLI"


def test_graph_layer_has_no_import_cycle():
    names = {_module_name(p): p for p in MODULES}
    edges: dict[str, set[str]] = {}
    for name, path in names.items():
        # annotation-only imports count too: a cycle through them still ties the modules together
        targets = {n for n, _ in imports_of(path.read_text(encoding="utf-8"), name, path.name == "__init__.py")
                   if n in names and n != name}
        edges[name] = targets
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(edges[n]):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state and (cycle := dfs(m)) is not None:
                return cycle
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(edges):
        if n not in state:
            cycle = dfs(n)
            assert cycle is None, "import cycle in the graph layer: " + " -> ".join(cycle)


def test_the_walk_covers_the_whole_layer():
    names = {_module_name(p) for p in MODULES}
    assert {"graph_trust.graph.connection", "graph_trust.graph.routing", "graph_trust.graph.schema",
            "graph_trust.graph.backends.base", "graph_trust.graph.backends.falkordb",
            "graph_trust.graph.backends.bolt"} <= names


# -- the walker sees every way of importing a forbidden module --------------------------------

_FORMS = [
    "import {mod}",
    "import {mod} as alias",
    "from {mod} import something",
    "from {parent} import {leaf}",
    "def f():\n    import {mod}",
    "async def f():\n    from {mod} import x",
    "class C:\n    def m(self):\n        from {parent} import {leaf}",
    "if TYPE_CHECKING:\n    from {mod} import T",
    "try:\n    import {mod}\nexcept ImportError:\n    pass",
]


@pytest.mark.parametrize("mod, form", list(itertools.product(FORBIDDEN, _FORMS)))
def test_walker_finds_forbidden_import_in_any_form(mod: str, form: str):
    parent, _, leaf = mod.rpartition(".")
    source = form.format(mod=mod, parent=parent, leaf=leaf)
    assert any(_forbidden(n) for n, _ in imports_of(source, "graph_trust.graph.x"))


@pytest.mark.parametrize("level, tail, expected", [
    (2, "sync", "graph_trust.sync"), (2, "search", "graph_trust.search"), (3, "cli", "graph_trust.cli")])
def test_walker_resolves_relative_imports(level: int, tail: str, expected: str):
    module = "graph_trust.graph.x" if level == 2 else "graph_trust.graph.backends.x"
    found = [n for n, _ in imports_of(f"from {'.' * level}{tail} import y", module)]
    assert expected in found and _forbidden(expected)


def test_walker_allows_the_layer_and_its_neighbours():
    source = ("from graph_trust.graph import routing\nfrom graph_trust import errors, config\n"
              "import graph_trust.graph.backends\nfrom graph_trust.synchrony import x\n")
    assert not [n for n, _ in imports_of(source, "graph_trust.graph.x") if _forbidden(n)]


# -- backend differences live in graph/backends/ only ----------------------------------------

_SERVER_NAMES = {"falkordb", "neo4j", "FALKORDB", "NEO4J"}
_PACKAGE_ROOT = ROOT.parent  # graph_trust/
_OUTSIDE = sorted(p for top in (_PACKAGE_ROOT, _PACKAGE_ROOT.parent / "sync", _PACKAGE_ROOT.parent / "cli")
                  for p in top.rglob("*.py") if ROOT / "backends" not in p.parents)


def server_comparisons(source: str) -> list[int]:
    """Lines comparing something with a server's name (``dialect == "falkordb"``,
    ``provider != GraphProvider.NEO4J``, ``kind == "neo4j"``)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn)
                                                 for op in node.ops):
            for side in (node.left, *node.comparators):
                if (isinstance(side, ast.Constant) and side.value in _SERVER_NAMES) or (
                        isinstance(side, ast.Attribute) and side.attr in _SERVER_NAMES):
                    lines.append(node.lineno)
    return lines


@pytest.mark.parametrize("path", _OUTSIDE, ids=lambda p: str(p.relative_to(_PACKAGE_ROOT.parent)))
def test_no_server_branch_outside_the_backends(path: Path):
    found = server_comparisons(path.read_text(encoding="utf-8"))
    assert not found, f"{path.name} lines {found}: ask the backend (graph_trust.graph.backends) instead"


@pytest.mark.parametrize("source", ['if conn.dialect == "falkordb": pass', "x = d.provider != GraphProvider.FALKORDB",
                                    'y = a.kind == "neo4j"', 'z = "neo4j" != g.dialect'])
def test_server_branch_finder_sees_each_form(source: str):
    assert server_comparisons(source) == [1]
