"""The command outputs the docs show on the demo graph are a real run's: docs/gen_outputs.py
runs the demo in a fresh directory and every ``<!-- demo-run -->`` block's commands, and fails
when what they print differs from the docs (sync run ids and durations aside)."""

from __future__ import annotations

import subprocess
import sys

from paths import REPO


def test_the_docs_demo_outputs_are_a_real_runs():
    r = subprocess.run([sys.executable, str(REPO / "docs" / "gen_outputs.py"), "--check"], cwd=REPO,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr


def test_the_check_catches_drift(tmp_path, monkeypatch):
    """A changed output line is drift; a different sync run id or duration is not."""
    sys.path.insert(0, str(REPO / "docs"))
    try:
        import gen_outputs
    finally:
        sys.path.remove(str(REPO / "docs"))
    a = "sync sync-20261126T001634Z-d69e24: 238 edges set\ndone in 2.5 s."
    assert gen_outputs.masked(a) == gen_outputs.masked(a.replace("d69e24", "000000").replace("2.5", "13.0"))
    assert gen_outputs.masked(a) != gen_outputs.masked(a.replace("238", "211"))
    body = "$ graph-trust search x \\\n    --limit 5\nout\n$ graph-trust runs\n"
    assert gen_outputs.commands(body) == ["$ graph-trust search x \\\n    --limit 5", "$ graph-trust runs"]
