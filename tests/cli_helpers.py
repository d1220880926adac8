"""Run the real ``graph-trust`` command in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass

import pytest

from graph_trust.cli.main import main


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self):
        return json.loads(self.out)


def clean_env() -> dict[str, str]:
    """This process's environment without graph-trust's, Graphiti's and Neo4j's variables: a child
    command sees only the settings its test gives it."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("GRAPH_TRUST_", "NEO4J_", "GRAPHITI_"))}


def run_cli(*args: str, env: dict[str, str] | None = None, input: str | None = None, cwd=None,
            timeout: float = 180) -> Result:
    base = clean_env()
    proc = subprocess.run([sys.executable, "-m", "graph_trust", *args], env={**base, **(env or {})},
                          input=input, capture_output=True, text=True, cwd=cwd, timeout=timeout)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def run_inproc(args, cwd, monkeypatch, capsys):
    """The CLI's entry point in this process (no interpreter start per case): (code, out, err)."""
    monkeypatch.chdir(cwd)
    for var in ("GRAPH_TRUST_CONFIG", "GRAPH_TRUST_GRAPH", "GRAPHITI_TRUST_WEIGHT", "NEO4J_URI"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out, err = capsys.readouterr()
    return exc.value.code, out, err
