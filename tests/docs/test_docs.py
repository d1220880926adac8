"""The docs site: it builds in strict mode, its generated references match the code, the README
stays a front door whose links land, and no tracked file names one machine's paths."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from paths import REPO
from pydantic import BaseModel

from graph_trust import errors
from graph_trust.cli.main import cli
from graph_trust.config import ENV_KEYS, Settings

ROOT = REPO
DOCS = ROOT / "docs"
README = ROOT / "README.md"
TEST_COMMAND = "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/ruff check . && .venv/bin/pytest"


def _gen_ref():
    spec = importlib.util.spec_from_file_location("gen_ref", DOCS / "gen_ref.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_site_builds_in_strict_mode(tmp_path):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
                        "-d", str(tmp_path / "site")], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "WARNING" not in r.stderr, r.stderr
    for page in ("index.html", "sync/index.html", "reference/cli/index.html", "reference/configuration/index.html"):
        assert (tmp_path / "site" / page).is_file(), page
    assert not (tmp_path / "site" / "gen_ref.py").exists()  # the generator is not published


def test_every_page_is_in_the_navigation():
    import yaml

    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]

    def files(items):
        for item in items:
            for value in item.values():
                yield from files(value) if isinstance(value, list) else [value]

    listed = set(files(nav))
    assert {str(p.relative_to(DOCS)) for p in SITE_PAGES} == listed


def test_the_generated_references_are_current():
    stale = _gen_ref().stale()
    assert not stale, f"stale: {[str(p.relative_to(ROOT)) for p in stale]}; run: python docs/gen_ref.py"


def _all_commands(group: click.Group, prefix: str):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        yield f"{prefix} {name}", cmd
        if isinstance(cmd, click.Group):
            yield from _all_commands(cmd, f"{prefix} {name}")


def test_the_cli_reference_holds_every_commands_help():
    gen = _gen_ref()
    page = gen.cli_reference()
    commands = list(_all_commands(cli, "graph-trust"))
    assert len(commands) >= 13
    for path, cmd in commands:
        assert f"\n## {path}\n" in page, path
        for param in cmd.params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("--"):
                    assert opt in page, f"{path} {opt}"


def _keys(model: type[BaseModel], prefix: str = ""):
    for name, field in model.model_fields.items():
        ann = field.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            yield from _keys(ann, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", field


def test_the_configuration_reference_holds_every_setting_and_variable():
    page = _gen_ref().config_reference()
    # one definition per setting: the key, its facts line (type, default, bounds, environment), its description
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^`([a-z_.]+)`\n:   .*(?:\n\n    .*)?$", page, re.M)}
    keys = list(_keys(Settings))
    assert len(keys) >= 30
    for key, field in keys:
        assert key in rows, key
        assert "\n\n    " in rows[key], f"{key} has no description"  # every setting says what it does
        default = field.get_default(call_default_factory=True)
        if isinstance(default, (int, float)) and not isinstance(default, bool):
            assert f"`{default}`" in rows[key], (key, rows[key])
    assert "`0.05`" in rows["search.trust_weight"] and "`GRAPHITI_TRUST_WEIGHT`" in rows["search.trust_weight"]
    assert ">= 0.0, <= 1.0" in rows["search.trust_weight"]
    for var, key in ENV_KEYS:
        assert f"| `{var}` | `{key}` |" in page


def test_every_error_is_documented_with_its_exit_code():
    page = (DOCS / "errors.md").read_text(encoding="utf-8")
    classes = [c for c in vars(errors).values()
               if isinstance(c, type) and issubclass(c, errors.GraphTrustError) and c is not errors.GraphTrustError]
    assert len(classes) >= 14
    for cls in classes:
        assert f"| `{cls.__name__}` | {cls.exit_code} |" in page, cls.__name__


def test_the_readme_is_a_front_door():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    assert "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/graph-trust demo" in text
    assert TEST_COMMAND in text
    python = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(python) == 1 and len(python[0].splitlines()) <= 10
    cli_lines = re.search(r"## On the command line\n\n```bash\n(.*?)```", text, re.S).group(1).splitlines()
    assert len(cli_lines) == 5 and all(line.startswith("graph-trust ") for line in cli_lines)
    assert "RELATES_TO" in re.search(r"```text\n(.*?)```", text, re.S).group(1)  # the data-flow diagram



def test_the_readme_quality_table_is_the_evaluation_pages_figures():
    """The README's table and docs/evaluation.md's Confidence mode table come from the same command:
    the command, each ranking's nDCG@10, wrong-first rate and clean losses must agree."""
    readme = README.read_text(encoding="utf-8")
    page = (DOCS / "evaluation.md").read_text(encoding="utf-8")
    command = "graph-trust eval --bundled --draws 5 --rank trust,composite,confidence"
    assert command in readme and command in page.split("### Confidence mode", 1)[1]
    section = page.split("### Confidence mode", 1)[1]
    rows = {"Graphiti's own `search_`": "vanilla (`search_`)", "trust search, defaults": "trust, defaults (tiers)",
            "composite rank, defaults": "composite, defaults", "trust from the confidence model": "confidence"}
    for mine, theirs in rows.items():
        cells = re.search(rf"^\| {re.escape(mine)} \| ([^|]+) \| ([^|]+) \| ([^|]+) \|$", readme, re.M).groups()
        other = re.search(rf"^\| (?:\*\*)?{re.escape(theirs)}(?:\*\*)? \|(.*)$", section, re.M).group(1).split("|")
        ndcg, wrong = other[0].strip("* ").split(" ")[0], other[3].strip().split(" ")[0]
        assert cells[0].strip() == ndcg and cells[1].strip() == wrong, mine
        assert cells[2].strip() == other[6].strip(), mine


SITE_PAGES = sorted(p for p in DOCS.rglob("*.md") if "incoming" not in p.relative_to(DOCS).parts)


@pytest.mark.parametrize("page", [README, *SITE_PAGES], ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_land_on_files(page):
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (page.parent / target.split("#")[0]).resolve()
        assert path.exists(), f"{page.relative_to(ROOT)} links to missing {target}"


def _tracked_files() -> list[Path]:
    r = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:  # not a git checkout (an unpacked sdist): every file but build output
        skip = {".venv", ".git", "build", "dist", "site", ".hypothesis", "__pycache__"}
        return [p for p in ROOT.rglob("*") if p.is_file() and not skip & set(p.relative_to(ROOT).parts)]
    return [ROOT / name for name in r.stdout.split("\0") if name]


# Written so that this line does not match itself.
MACHINE_PATH = re.compile(r"/wor[k]/|/hom[e]/[a-z_]|/User[s]/[A-Za-z]|/roo[t]/|/opt/pyp[i]")
DIARY = re.compile(r"this sess[i]on|previous sess[i]on|sess[i]on before|previous run\b|slower day|before this change",
                   re.I)


def test_no_tracked_file_names_one_machines_paths():
    offenders = []
    for path in _tracked_files():
        rel = path.relative_to(ROOT)
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        offenders += [f"{rel}:{n}" for n, line in enumerate(text.splitlines(), 1) if MACHINE_PATH.search(line)]
    assert not offenders


def test_the_docs_read_as_reference_not_as_a_diary():
    offenders = []
    for page in [README, *DOCS.rglob("*.md")]:
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if DIARY.search(line):
                offenders.append(f"{page.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not offenders


@pytest.mark.parametrize("page", [README, *SITE_PAGES], ids=lambda p: str(p.relative_to(ROOT)))
def test_repository_paths_named_in_the_docs_exist(page):
    """A file the docs point a reader at (`sync/text_index.py`, `cypher/bench_create_*`) is there."""
    text = page.read_text(encoding="utf-8")
    named = re.findall(r"`((?:graph_trust|sync|cli|cypher|tests|bench|docs)/[\w./*-]*)`", text)
    for path in named:
        assert list(ROOT.glob(path.rstrip("/"))), f"{page.relative_to(ROOT)} names {path}, which does not exist"


def test_ci_runs_the_readmes_test_command():
    """`.ci/run` runs exactly the README's test command (the line after "Run the tests")."""
    readme = README.read_text(encoding="utf-8")
    block = readme.split("**Run the tests**", 1)[1].split("```bash\n", 1)[1].split("\n```", 1)[0]
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert block.strip() in ci
