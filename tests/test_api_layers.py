"""Layers point one way: settings (``graph_trust.config``) import nothing of the project but its
errors; the CLI calls only the library entry point (``graph_trust.api``); search, context, demo
and evaluation do not import the sync job; search does not import access; project modules are
imported at module level (an import inside a function hides an edge); module-level imports form
no cycle.

Read from the source tree with ``ast`` (nothing is imported), so a new module is checked the
moment it exists.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# setuptools package-dir: the top-level folders installed under graph_trust.*
PACKAGES = {"graph_trust": ROOT / "graph_trust", "graph_trust.sync": ROOT / "sync", "graph_trust.cli": ROOT / "cli"}

# What a CLI command module may import from the project: the entry point, the CLI's own plumbing,
# settings and errors.
CLI_MAY_IMPORT = {"graph_trust", "graph_trust.api", "graph_trust.cli.common", "graph_trust.config",
                  "graph_trust.errors"}

# Areas checked by their own tests (test_graph_layer_imports.py, the sync import rules); ``data``
# holds generator scripts run from a checkout (they set sys.path before importing).
OTHER_AREAS = ("graph_trust.graph", "graph_trust.sync", "graph_trust.data")


def _modules() -> dict[str, Path]:
    out = {}
    for pkg, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            if any(p.startswith(".") for p in parts):
                continue
            name = ".".join([pkg, *parts])
            if pkg == "graph_trust" and parts and parts[0] in ("sync", "cli"):
                continue  # not a folder of graph_trust/ (package-dir maps them)
            out[name] = path
    return out


MODULES = _modules()


def _target(name: str, attr: str | None) -> str | None:
    """The project module an import names (``from a import b``: ``a.b`` when it is a module)."""
    if not name.startswith("graph_trust"):
        return None
    if attr and f"{name}.{attr}" in MODULES:
        return f"{name}.{attr}"
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(path: Path) -> list[tuple[str, bool, int]]:
    """(project module, at module level, line) for every import in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[tuple[str, bool, int]] = []

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                out.extend((t, top, child.lineno) for a in child.names if (t := _target(a.name, None)))
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                out.extend((t, top, child.lineno) for a in child.names if (t := _target(child.module, a.name)))
            elif isinstance(child, ast.If) and ast.unparse(child.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
                for stmt in child.orelse:  # (annotations only: never imported at run time)
                    visit(stmt, top)
                continue
            visit(child, top and not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda))

    visit(tree, True)
    return out


def _mine(name: str) -> bool:
    return not any(name == area or name.startswith(area + ".") for area in OTHER_AREAS)


def test_the_tree_is_read(tmp_path):
    assert {"graph_trust.api", "graph_trust.cli.search", "graph_trust.sync.runner", "graph_trust.context.agent"} <= set(MODULES)
    assert ("graph_trust.api", True) in {(t, top) for t, top, _ in _imports(MODULES["graph_trust.cli.search"])}
    planted = tmp_path / "m.py"
    planted.write_text("import os\nfrom graph_trust import api\nfrom graph_trust.config import Settings\n"
                       "if TYPE_CHECKING:\n    from graph_trust.context.agent import x\n"
                       "def f():\n    from graph_trust.sync.runner import run_sync\n"
                       "    g = lambda: __import__('x')\n", encoding="utf-8")
    assert _imports(planted) == [("graph_trust.api", True, 2), ("graph_trust.config", True, 3),
                                 ("graph_trust.sync.runner", False, 7)]


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("graph_trust.cli.")
                                        and n not in ("graph_trust.cli.common", "graph_trust.cli.main")))
def test_cli_commands_call_only_the_api(name):
    bad = sorted({(t, line) for t, _, line in _imports(MODULES[name]) if t not in CLI_MAY_IMPORT})
    assert not bad, f"{name} imports {bad}: route it through graph_trust.api"


def test_config_imports_only_the_errors():
    """Every package may import its settings: config itself sits below them all (the checks it
    needs from a package are installed by graph_trust/__init__.py, see test_config)."""
    found = {t for t, _, _ in _imports(MODULES["graph_trust.config"])}
    assert found == {"graph_trust.errors"}, f"graph_trust.config imports {sorted(found - {'graph_trust.errors'})}"


def test_the_entry_point_is_a_facade_with_real_signatures_and_one_name_each():
    """``help(api.search)`` lists what search takes: no function of api.py hides its parameters
    behind ``**options``; and a command has one name there (no ``sync = run_sync``)."""
    hidden, aliases = _facade_faults(MODULES["graph_trust.api"].read_text(encoding="utf-8"))
    assert not hidden, f"api functions taking **kwargs: {hidden}"
    assert not aliases, f"second names in api.py: {aliases}"


def _facade_faults(source: str) -> tuple[list[str], list[str]]:
    """(top-level functions taking ``**kwargs``, top-level ``name = other_name`` assignments that
    are not constants)."""
    tree = ast.parse(source)
    hidden = [f.name for f in tree.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and f.args.kwarg]
    aliases = [a.targets[0].id for a in tree.body if isinstance(a, ast.Assign) and len(a.targets) == 1
               and isinstance(a.targets[0], ast.Name) and not a.targets[0].id.isupper()
               and isinstance(a.value, ast.Name | ast.Attribute)]
    return hidden, aliases


def test_the_facade_check_sees_what_it_forbids():
    planted = ("VERSION = __version__\nsync = run_sync\nstatus = index_ops.status\nlimit = 5\n"
               "async def search(settings, q, **options): ...\ndef runs(settings, limit=50): ...\n")
    assert _facade_faults(planted) == (["search"], ["sync", "status"])


def test_no_function_level_imports_of_project_modules():
    hidden = [(name, t, line) for name, path in MODULES.items() if _mine(name)
              for t, top, line in _imports(path) if not top]
    assert not hidden, f"imports inside functions (move them to the top of the module): {hidden}"


def test_search_context_demo_and_eval_do_not_import_the_sync_job():
    above = ("graph_trust.api", "graph_trust.cli")  # the entry point and the CLI sit above sync
    bad = [(name, t, line) for name, path in MODULES.items()
           if _mine(name) and not name.startswith(above)
           for t, _, line in _imports(path) if t == "graph_trust.sync" or t.startswith("graph_trust.sync.")]
    assert not bad, f"the search side imports the sync job: {bad}"


def test_search_does_not_import_access():
    """Access reads search records and sits above search (the search a trust context sees is
    :mod:`graph_trust.access.visible_search`); search knows nothing of who asks."""
    bad = [(name, t, line) for name, path in MODULES.items() if name.startswith("graph_trust.search")
           for t, _, line in _imports(path) if t == "graph_trust.access" or t.startswith("graph_trust.access.")]
    assert not bad, f"search imports access: {bad}"


def test_module_level_imports_have_no_cycle():
    graph = {name: {t for t, top, _ in _imports(path) if top and t != name} for name, path in MODULES.items()}
    cycles = _cycles(graph)
    assert not cycles, f"import cycles: {cycles}"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def test_cycle_finder_finds_a_planted_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_top_level_holds_only_the_entry_point_settings_and_errors():
    """Each stage lives in its own folder (docs/development.md): graph_trust/ itself holds only the
    library entry point, the settings, the errors and the package's own files."""
    top = {p.name for p in (ROOT / "graph_trust").glob("*.py")}
    assert top == {"__init__.py", "__main__.py", "api.py", "config.py", "errors.py"}
