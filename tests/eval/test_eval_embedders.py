"""`graph-trust eval --bundled --embedder`: the bundled set embedded by each embedder, one table
each; one progress bar per draw on a terminal's stderr (none under --json or when stderr is not a
terminal); the warning when the graph's order moves while a query is ranked says what it means."""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import os
import pty
import re
import subprocess
import sys

import pytest
from cli_helpers import clean_env, run_cli, run_inproc

from graph_trust.eval import runner

needs_wordllama = pytest.mark.skipif(importlib.util.find_spec("wordllama") is None,
                                     reason="the wordllama extra (in the test extra)")
QUICK = ("eval", "--bundled", "--quick", "--draws", "1", "--rank", "trust")


@needs_wordllama
def test_two_embedders_two_reports(tmp_path):
    r = run_cli(*QUICK, "--embedder", "hashing,wordllama", "--json", cwd=tmp_path, timeout=600)
    assert r.code == 0, r.err
    reports = r.json()["reports"]
    assert [x["embedder"] for x in reports] == ["hashing", "wordllama"]
    for x in reports:
        assert [m["name"] for m in x["methods"]][0] == "vanilla" and x["queries"] == 12
    # another embedder, other cosine candidates: Graphiti's own ranking differs somewhere
    a, b = ({q["id"]: q["ndcg@10"]["vanilla"] for q in x["per_query"]} for x in reports)
    assert a != b

    text = run_cli(*QUICK, "--embedder", "wordllama,hashing", cwd=tmp_path, timeout=600)
    assert text.code == 0, text.err
    heads = re.findall(r"^12 queries .*, embedder (\w+)$", text.out, flags=re.M)
    assert heads == ["wordllama", "hashing"]
    assert text.out.count("ΔnDCG@10 vs vanilla") == 2 and text.out.count("recommendation:") == 2


def test_one_embedder_keeps_the_one_report_form(tmp_path):
    r = run_cli(*QUICK, "--json", cwd=tmp_path, timeout=600)
    assert r.code == 0, r.err
    assert r.json()["embedder"] == "hashing" and "reports" not in r.json()
    assert r.err == ""  # --json: no progress bar (and stderr is no terminal here anyway)


@pytest.mark.parametrize(("args", "message"), [
    (["--bundled", "--embedder", "bogus"], "--embedder: unknown embedder 'bogus': choose from hashing, wordllama"),
    (["--queries", "q.jsonl", "--qrels", "qrels.txt", "--embedder", "wordllama"], "--embedder is for --bundled"),
])
def test_bad_embedder_option(tmp_path, monkeypatch, capsys, args, message):
    (tmp_path / "q.jsonl").write_text('{"id": "q1", "query": "x"}\n')
    (tmp_path / "qrels.txt").write_text("q1 0 a 2\n")
    code, out, err = run_inproc(["eval", *args], tmp_path, monkeypatch, capsys)
    assert code == 2 and message in err and out == ""


def _run_with_terminal_stderr(args, cwd) -> tuple[int, str, str]:
    """The CLI with stdout a pipe and stderr a real pseudo-terminal: (code, stdout, terminal text)."""
    master, slave = pty.openpty()
    env = clean_env()
    proc = subprocess.Popen([sys.executable, "-m", "graph_trust", *args], stdout=subprocess.PIPE, stderr=slave,
                            stdin=subprocess.DEVNULL, cwd=cwd, env={**env, "COLUMNS": "120"})
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    out = proc.stdout.read().decode()
    code = proc.wait(timeout=600)
    os.close(master)
    return code, out, b"".join(chunks).decode(errors="replace")


def test_a_progress_bar_per_draw_on_a_terminal(tmp_path):
    code, out, term = _run_with_terminal_stderr([*QUICK[:4], "2", *QUICK[5:]], tmp_path)
    assert code == 0, term
    assert "draw 1/2 hashing" in term and "draw 2/2 hashing" in term
    assert re.search(r"draw 2/2 hashing\s+\[#+\]\s+100%", term)  # the bar fills
    assert "draw 1/2" not in out and "nDCG@10" in out  # bars on stderr, the report on stdout

    code, out, term = _run_with_terminal_stderr([*QUICK, "--json"], tmp_path)
    assert code == 0 and "draw 1/1" not in term and out.lstrip().startswith("{")


def test_draw_progress_counts_every_step_once():
    seen: list[tuple[str, int, int | None]] = []
    bar = runner.DrawProgress(lambda p, n, t: seen.append((p, n, t)), "draw 1/1 x", queries=7)
    assert bar.total == 2 + 7  # load, sync and rebuild, queries
    bar.step()
    bar.step()
    for _ in range(7):
        bar.ranking("ranking", 1, 7)
    assert sum(n for _, n, _ in seen) == bar.total == bar.pos and all(n > 0 for _, n, _ in seen)
    assert {(p, t) for p, _, t in seen} == {("draw 1/1 x", 9)}


def _orders(*seq):
    it = iter(seq)

    async def vanilla():
        return next(it)
    return vanilla


def test_a_moved_order_is_ranked_again_with_a_warning_that_says_why(caplog):
    ranks = iter([{"trust": ["a"]}, {"trust": ["b"]}, {"trust": ["c"]}])

    async def rank_all():
        return next(ranks)

    with caplog.at_level(logging.WARNING, logger=runner.log.name):
        got = asyncio.run(runner.rank_on_one_state("q7", _orders(["x"], ["y"], ["y"], ["y"]), rank_all))
    assert got == {"vanilla": ["y"], "trust": ["b"]}  # the second attempt read one state: kept
    [msg] = [r.getMessage() for r in caplog.records]
    assert msg.startswith("query q7: Graphiti's own search (vanilla) gave another order after")
    assert "the graph changed while ranking" in msg and "ranking the query again (attempt 2 of 3)" in msg


def test_an_order_that_keeps_moving_is_reported_once_more(caplog):
    async def rank_all():
        return {"trust": ["t"]}

    with caplog.at_level(logging.WARNING, logger=runner.log.name):
        got = asyncio.run(runner.rank_on_one_state("q9", _orders(*[[str(i)] for i in range(6)]), rank_all))
    assert got == {"vanilla": ["4"], "trust": ["t"]}
    msgs = [r.getMessage() for r in caplog.records]
    assert len(msgs) == runner.STABLE_ATTEMPTS
    assert "attempt 3 of 3" in msgs[1]
    assert msgs[-1].startswith("query q9: Graphiti's own search order still moved after 3 attempts")
    assert "is something writing to the graph?" in msgs[-1] and "--settle" not in msgs[-1]


def test_a_stable_order_is_ranked_once_and_silently(caplog):
    calls = []

    async def rank_all():
        calls.append(1)
        return {"trust": ["t"]}

    with caplog.at_level(logging.WARNING, logger=runner.log.name):
        got = asyncio.run(runner.rank_on_one_state("q1", _orders(["v"], ["v"]), rank_all))
    assert got == {"vanilla": ["v"], "trust": ["t"]} and calls == [1] and caplog.records == []
