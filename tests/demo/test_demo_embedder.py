"""`graph-trust demo --embedder wordllama`: the sample embedded and searched semantically, the demo
says which embedder it ran, and a graph holding the sample embedded by the other embedder is one
clear error before anything is written."""

from __future__ import annotations

import importlib.util
import json

import pytest
from cli_helpers import run_cli

pytestmark = pytest.mark.skipif(importlib.util.find_spec("wordllama") is None,
                                reason="the wordllama extra (in the test extra)")
QUERY = "when does the billing database backup run"


def test_wordllama_demo_then_the_other_embedder(tmp_path):
    r = run_cli("demo", "--embedder", "wordllama", cwd=tmp_path, timeout=300)
    assert r.code == 0, r.err
    first = r.out.splitlines()[0]
    assert first.startswith("graph embedded:.graph-trust/graph (the demo's own; --graph URI loads the sample "
                            "elsewhere), embedder wordllama: ") and "facts loaded" in first
    assert "Try: GRAPH_TRUST_EMBEDDER=wordllama graph-trust search" in r.out

    runs_before = run_cli("runs", "--json", cwd=tmp_path).json()
    other = run_cli("demo", "--json", cwd=tmp_path)  # hashing, on the graph wordllama embedded
    assert other.code == 2 and other.out == ""
    assert other.err.count("\n") == 1 and other.err.startswith(
        "error: the demo graph embedded:.graph-trust/graph holds the sample embedded by 'wordllama', not 'hashing': "
        "run `graph-trust demo --embedder wordllama`, or give 'hashing' a graph of its own: graph-trust demo "
        "--embedder hashing --graph embedded:.graph-trust/hashing")
    assert run_cli("runs", "--json", cwd=tmp_path).json() == runs_before  # refused before the sync

    again = run_cli("demo", "--embedder", "wordllama", "--json", cwd=tmp_path, timeout=300)
    assert again.code == 0, again.err
    rep = json.loads(again.out)
    assert rep["embedder"] == "wordllama" and rep["load"]["edges_created"] == 0 < rep["load"]["edges_existing"]

    found = run_cli("search", QUERY, "--json", "--limit", "3", cwd=tmp_path, env={"GRAPH_TRUST_EMBEDDER": "wordllama"})
    assert found.code == 0, found.err
    assert any("backup" in e["text"].lower() for e in found.json()["results"])
    wrong = run_cli("search", QUERY, cwd=tmp_path)  # search.embedder: hashing (the default)
    assert wrong.code == 2 and wrong.err.startswith("error: config key search.embedder: ")
    assert "its facts were embedded by 'wordllama': set search.embedder: wordllama" in wrong.err

    own = run_cli("demo", "--embedder", "hashing", "--graph", "embedded:.graph-trust/hashing", "--json", cwd=tmp_path)
    assert own.code == 0, own.err
    assert json.loads(own.out)["embedder"] == "hashing"
