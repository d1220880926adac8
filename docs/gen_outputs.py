"""Regenerate the command outputs the docs show on the demo graph, from a real run.

A ``console`` block preceded by ``<!-- demo-run -->`` (or ``<!-- demo-run: head N -->``, which
keeps the first N lines of each output and marks the cut with ``...``) holds commands (``$
graph-trust ...``) and their outputs. This script runs ``graph-trust demo`` in a fresh directory,
then every such block's commands in the order the docs list them (README.md, then docs/*.md by
name), and writes each command's output under it. A block's ``graph-trust demo`` itself runs in
a fresh directory of its own, so it shows a first run::

    .venv/bin/python docs/gen_outputs.py           # rewrite the blocks
    .venv/bin/python docs/gen_outputs.py --check   # exit 1 if a block differs from a real run

``--check`` (run by ``tests/docs/test_doc_outputs.py``) ignores only what differs between any two
runs: sync run ids and durations.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARK = re.compile(r"^<!-- demo-run(?::\s*head (?P<head>\d+))? -->\n```console\n(?P<body>.*?)^```\n", re.M | re.S)
# what two runs of the same commands on the same data may print differently
VOLATILE = [(re.compile(r"sync-\d{8}T\d{6}Z-[0-9a-f]{6}"), "sync-<run id>"),
            (re.compile(r"done in \d+\.\d+ s"), "done in <t> s")]


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def commands(body: str) -> list[str]:
    """The commands of a block: its ``$ `` lines (a trailing ``\\`` continues onto the next)."""
    out, lines = [], body.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("$ "):
            cmd = line[2:]
            j = i
            while cmd.endswith("\\") and j + 1 < len(lines):
                j += 1
                cmd = cmd[:-1].rstrip() + " " + lines[j].strip()
            out.append(line if j == i else "\n".join(lines[i:j + 1]))
    return out


def run(shown: str, cwd: Path) -> str:
    """The output of the command line ``shown`` (``$ graph-trust ...``, comments dropped), as a
    user's terminal shows it: stdout, then stderr."""
    text = " ".join(part.rstrip("\\").strip() for part in shown[2:].splitlines())
    argv = shlex.split(text, comments=True)
    if not argv or argv[0] != "graph-trust":
        raise SystemExit(f"docs/gen_outputs.py: only graph-trust commands run in a demo-run block: {shown!r}")
    if argv[1:2] == ["demo"]:
        with tempfile.TemporaryDirectory() as fresh:
            return _graph_trust(argv[1:], Path(fresh))
    return _graph_trust(argv[1:], cwd)


def _graph_trust(args: list[str], cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPH_TRUST_", "NEO4J_"))}
    env["COLUMNS"] = "120"
    r = subprocess.run([sys.executable, "-m", "graph_trust", *args], cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=300)
    return (r.stdout + r.stderr).rstrip("\n")


def render(match: re.Match, cwd: Path) -> str:
    head = int(match["head"]) if match["head"] else None
    parts = []
    for shown in commands(match["body"]):
        lines = run(shown, cwd).splitlines()
        if head is not None and len(lines) > head:
            lines = [*lines[:head], "..."]
        parts.append("\n".join([shown, *lines]))
    mark = f"<!-- demo-run: head {head} -->" if head is not None else "<!-- demo-run -->"
    return f"{mark}\n```console\n" + "\n\n".join(parts) + "\n```\n"


def masked(text: str) -> str:
    for pattern, repl in VOLATILE:
        text = pattern.sub(repl, text)
    return text


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when a block differs from a real run")
    args = ap.parse_args(argv)
    drift = []
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        if not _graph_trust(["demo"], cwd).splitlines()[-1].startswith("done in "):
            raise SystemExit("docs/gen_outputs.py: graph-trust demo failed")
        for page in pages():
            old = page.read_text(encoding="utf-8")
            new = MARK.sub(lambda m: render(m, cwd), old)
            if masked(new) != masked(old):
                drift.append(page.relative_to(ROOT).as_posix())
                if not args.check:
                    page.write_text(new, encoding="utf-8")
                    print(f"wrote {page.relative_to(ROOT)}")
    if args.check and drift:
        print(f"command outputs differ from a real run in: {', '.join(drift)} "
              "(run .venv/bin/python docs/gen_outputs.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
