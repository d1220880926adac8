"""Installed, only graph_trust.* is importable; telemetry is off unless the user turns it on."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _py(code: str, env: dict[str, str] | None = None) -> str:
    import os

    base = {k: v for k, v in os.environ.items() if k != "GRAPHITI_TELEMETRY_ENABLED"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/",
                         env={**base, **(env or {})}, check=True)
    return out.stdout.strip()


def test_only_graph_trust_is_importable_from_this_install():
    out = _py("import importlib.util as u; print([u.find_spec(n) is None for n in ('sync', 'cli', 'cypher')]);"
              "import graph_trust.sync, graph_trust.cli.main, graph_trust.cypher; print('ok')")
    assert out.splitlines() == ["[True, True, True]", "ok"]


def test_wheel_holds_only_graph_trust(tmp_path):
    # built from a copy without build/ (setuptools would reuse the stale files of an earlier build)
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns("build", ".venv", ".git", "mutants", "*.egg-info",
                                                             "__pycache__", ".graph-trust", "node_modules"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp_path), str(src)], check=True, capture_output=True)
    wheel = next(tmp_path.glob("graph_trust-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"graph_trust", next(t for t in tops if t.endswith(".dist-info"))}
    for expected in ("graph_trust/sync/runner.py", "graph_trust/cli/main.py", "graph_trust/cypher/edge_trust_clear.cypher",
                     "graph_trust/sync/store/statements.sql", "graph_trust/sync/runs/listing.py",
                     "graph_trust/confidence/composite.py", "graph_trust/sync/confidence/store.py",
                     "graph_trust/context/policy.py",
                     "graph_trust/data/sample_graph.json", "graph_trust/eval/metrics.py",
                     "graph_trust/data/eval/graph.json", "graph_trust/data/eval/qrels.txt",
                     "graph_trust/data/eval/queries.jsonl", "graph_trust/data/eval/verdicts.json",
                     # the review page's templates and static files (package data)
                     *(f"graph_trust/review/web/{f.relative_to(ROOT / 'graph_trust' / 'review' / 'web')}"
                       for d in ("templates", "static") for f in sorted((ROOT / "graph_trust" / "review" / "web" / d).iterdir()))):
        assert expected in names
    # every module of every package directory is in the wheel (a subpackage missing from
    # pyproject's packages list installs editable and breaks as a wheel)
    mapped = {"graph_trust": ROOT / "graph_trust", "graph_trust/sync": ROOT / "sync", "graph_trust/cli": ROOT / "cli"}
    missing = []
    for prefix, src in mapped.items():
        for f in src.rglob("*.py"):
            rel = f.relative_to(src)
            if "__pycache__" in rel.parts or not (f.parent / "__init__.py").exists():
                continue
            if prefix == "graph_trust" and rel.parts[0] in ("sync", "cli"):
                continue
            if f"{prefix}/{rel.as_posix()}" not in names:
                missing.append(f"{prefix}/{rel.as_posix()}")
    assert missing == []


def test_graphiti_telemetry_is_off_unless_turned_on():
    code = ("import graph_trust; from graphiti_core.telemetry.telemetry import is_telemetry_enabled; "
            "print(is_telemetry_enabled())")
    assert _py(code) == "False"
    assert _py(code, {"GRAPHITI_TELEMETRY_ENABLED": "true"}) == "True"


def test_the_docs_name_the_graphiti_core_version_the_suite_runs_on():
    """One place says which graphiti-core the suite ran on: the one installed here (the newest the
    range allows when CI installs afresh), so the claim cannot go stale."""
    from importlib.metadata import version

    from paths import REPO

    page = (REPO / "docs" / "getting-started.md").read_text(encoding="utf-8")
    assert f"tested with {version('graphiti-core')})" in page
