"""The sync package's import rules (docs/development.md): no project import hidden inside a
function, and sync never imports the search side (search and sync meet only in the graph)."""

from __future__ import annotations

import ast

from paths import REPO

SYNC = REPO / "sync"
SEARCH_SIDE = ("graph_trust.search", "graph_trust.context", "graph_trust.access.trust_context", "graph_trust.cli",
               "graph_trust.demo.run", "graph_trust.mcp", "graph_trust.eval")


def _on_search_side(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in SEARCH_SIDE)


def _imports(tree: ast.AST) -> list[tuple[ast.AST, str]]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.append((node, node.module))
        elif isinstance(node, ast.Import):
            out += [(node, alias.name) for alias in node.names]
    return out


def _function_level(tree: ast.AST) -> set[ast.AST]:
    inside = set()
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inside.update(n for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom)))
    return inside


def test_sync_modules_import_project_modules_at_top_level_only():
    found = []
    for path in sorted(SYNC.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        hidden = _function_level(tree)
        found += [f"{path.relative_to(SYNC.parent)}:{node.lineno} {name}" for node, name in _imports(tree)
                  if node in hidden and name.startswith("graph_trust")]
    assert found == []


def test_sync_never_imports_the_search_side():
    found = []
    for path in sorted(SYNC.rglob("*.py")):
        for node, name in _imports(ast.parse(path.read_text(), str(path))):
            if _on_search_side(name):
                found.append(f"{path.relative_to(SYNC.parent)}:{node.lineno} {name}")
    assert found == []
