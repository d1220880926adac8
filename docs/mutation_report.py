"""The mutation scores table of docs/development.md ("Mutation testing"), from a mutmut run.

Run after ``mutmut run`` (which leaves its results in ``mutants/``)::

    .venv/bin/python docs/mutation_report.py            # print the table
    .venv/bin/python docs/mutation_report.py --write    # and put it into docs/development.md
    .venv/bin/python docs/mutation_report.py --survivors [MODULE]   # each survivor's changed line

A module's score counts as caught the mutants a test failed on (killed), those that made their
tests run out of time (timeout), and the surviving mutants listed as equivalent in
``docs/mutation_equivalents.txt``, each with the line the mutant changed (checked here: an entry
whose mutant no longer changes that line is stale and not counted) and why no test can tell it
from the original. Nothing else counts.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import re
import sys
from datetime import date
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"
EQUIVALENTS = ROOT / "docs" / "mutation_equivalents.txt"
DOC = ROOT / "docs" / "development.md"
BEGIN, END = "<!-- mutation-table: begin -->", "<!-- mutation-table: end -->"
KILLED, TIMEOUT, SURVIVED = {1, 3}, {24, -24, 36, 152, 255}, {0}


def results() -> dict[str, dict[str, int | None]]:
    """mutant name -> exit code, per module file (``graph_trust/search/fusion.py``)."""
    out = {}
    for meta in sorted(MUTANTS.glob("graph_trust/**/*.py.meta")):
        rel = meta.relative_to(MUTANTS).as_posix().removesuffix(".meta")
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        if codes:
            out[rel] = codes
    return out


def _functions(module: str) -> dict[str, str]:
    """Source of each function of the mutated copy of ``module`` (methods included)."""
    text = (MUTANTS / module).read_text()
    tree = ast.parse(text)
    return {n.name: ast.get_source_segment(text, n) or "" for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


def changed_line(name: str, functions: dict[str, str]) -> str:
    """The line a mutant changed (stripped), as it reads in the mutant."""
    fn = name.rsplit(".", 1)[1]
    orig = functions[fn.split("__mutmut_")[0] + "__mutmut_orig"].splitlines()
    new = functions[fn].splitlines()
    added = [d[1:].strip() for d in difflib.unified_diff(orig[1:], new[1:], lineterm="", n=0)
             if d.startswith("+") and not d.startswith("+++")]
    if not added and orig[0] != new[0]:  # a default value in the signature
        added = [new[0].strip()]
    return " / ".join(added)


def equivalents() -> dict[str, tuple[str, str]]:
    """name -> (changed line, reason) from docs/mutation_equivalents.txt."""
    out = {}
    for raw in EQUIVALENTS.read_text().splitlines():
        if raw.strip() and not raw.lstrip().startswith("#"):
            # the name has no " | " and the reason is written without one; the changed line
            # may contain one (``datetime | None``), so it is what lies between
            name, rest = raw.split(" | ", 1)
            line, reason = rest.rsplit(" | ", 1)
            out[name.strip()] = (line.strip(), reason.strip())
    return out


def table() -> tuple[str, list[str]]:
    eq, rows, stale = equivalents(), [], []
    totals = [0] * 6
    for module, codes in results().items():
        functions = _functions(module)
        killed = sum(c in KILLED for c in codes.values())
        timeout = sum(c in TIMEOUT for c in codes.values())
        survivors = [n for n, c in codes.items() if c in SURVIVED]
        equiv = 0
        for n in survivors:
            if n in eq and eq[n][0] == changed_line(n, functions):
                equiv += 1
            elif n in eq:
                stale.append(n)
        other = len(codes) - killed - timeout - len(survivors)  # no tests, not checked, suspicious
        row = [len(codes), killed, timeout, equiv, len(survivors) - equiv, other]
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        rows.append((module, row))
    lines = ["| module | mutants | killed | timeout | equivalent | survived | other | score |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for module, (n, k, t, e, s, o) in [*rows, ("all", totals)]:
        score = 100.0 * (k + t + e) / n if n else 100.0
        name = f"`{module}`" if module != "all" else "**all**"
        lines.append(f"| {name} | {n} | {k} | {t} | {e} | {s} | {o} | {score:.1f}% |")
    head = f"mutmut {version('mutmut')}, {date.today().isoformat()}"
    return head + "\n\n" + "\n".join(lines), stale


def survivors(pattern: str) -> None:
    eq = equivalents()
    for module, codes in results().items():
        if pattern not in module:
            continue
        functions = _functions(module)
        for n, c in codes.items():
            if c in SURVIVED:
                mark = "=" if n in eq and eq[n][0] == changed_line(n, functions) else " "
                print(f"{mark} {n} | {changed_line(n, functions)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="put the table into docs/development.md")
    ap.add_argument("--survivors", nargs="?", const="", metavar="MODULE", help="list surviving mutants")
    args = ap.parse_args()
    if not MUTANTS.is_dir():
        print("error: no mutants/ folder: run `mutmut run` first", file=sys.stderr)
        return 2
    if args.survivors is not None:
        survivors(args.survivors)
        return 0
    text, stale = table()
    print(text)
    for n in stale:
        print(f"stale equivalent (the mutant no longer changes the listed line): {n}", file=sys.stderr)
    if args.write:
        doc = DOC.read_text()
        pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
        DOC.write_text(pattern.sub(lambda _: f"{BEGIN}\n{text}\n{END}", doc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
