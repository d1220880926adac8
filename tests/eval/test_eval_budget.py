"""The review-budget proof (``graph-trust eval --bundled --review-budget``): the split keeps the
scored queries out of the retrieval log, budgets are honoured exactly, the random strategy is
seeded, the queue strategy takes the real queue's top, decisions go through the real review
commands (their audit trail), and a small run end to end through the CLI."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from cli_helpers import run_cli
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from graph_trust import api
from graph_trust.config import load_settings
from graph_trust.errors import InputError
from graph_trust.eval import budget as B
from graph_trust.eval.dataset import Query, bundled
from graph_trust.eval.runner import bundled_graph
from graph_trust.review.schema import STATUS_OF

CMDS = B.ReviewCommands(init_db=api.init_review_db, sync_db=api._sync_review_db, search=api.search,
                        queue=api.review_queue, decide=api.review_decide)


@given(st.lists(st.booleans(), min_size=1, max_size=80), st.integers(0, 10_000))
@hsettings(max_examples=200, deadline=None)
def test_the_split_is_disjoint_complete_balanced_and_seeded(contested, seed):
    queries = [Query(f"q{i}", f"query {i}", "g", ("w",) if c else ()) for i, c in enumerate(contested)]
    log, scored = B.split_queries(queries, seed)
    assert not {q.id for q in log} & {q.id for q in scored}
    assert sorted(q.id for q in log + scored) == sorted(q.id for q in queries)
    assert abs(len(log) - len(scored)) <= 1
    for kind in (True, False):  # each half holds half of each kind (one more on one side at most)
        assert abs(sum(q.contested == kind for q in log) - sum(q.contested == kind for q in scored)) <= 1
    assert B.split_queries(queries, seed) == (log, scored)


def test_budgets_are_shares_or_counts():
    got = B.resolve_budgets(["5%", "23", "10%", "1"], 467)
    assert [(b.spec, b.facts) for b in got] == [("1", 1), ("5%", 23), ("10%", 47)]  # 23 given twice: once
    assert B.resolve_budgets(["100%"], 10)[0].facts == 10
    for bad in ("0", "0%", "101%", "x", "500", "-3", "2.5"):
        with pytest.raises(InputError, match="--review-budget"):
            B.resolve_budgets([bad], 467)
    with pytest.raises(InputError, match="--review-strategy"):
        B.names(["queue", "best"], B.STRATEGIES, "--review-strategy")


@given(st.sampled_from(["correct", "wrong", "outdated"]), st.text(min_size=1, max_size=8), st.integers(0, 99))
@hsettings(max_examples=100, deadline=None)
def test_the_reviewer_decides_by_the_gold_verdict_flipped_by_noise(verdict, uuid, seed):
    assert B.reviewer_action(verdict, uuid, seed, 0.0) == B.GOLD[verdict]
    flipped = B.reviewer_action(verdict, uuid, seed, 1.0)
    assert flipped != B.GOLD[verdict]
    assert (flipped in ("reject", "expire")) == (verdict == "correct")
    assert B.reviewer_action(verdict, uuid, seed, 0.3) == B.reviewer_action(verdict, uuid, seed, 0.3)


def _rows(db: Path, sql: str) -> list[tuple]:
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


async def test_the_log_holds_only_the_log_half_and_strategies_decide_exactly_the_budget(tmp_path):
    data = bundled()
    log_half, scored = B.split_queries(data.judged.queries[:16], seed=3)
    base = load_settings(environ={})
    plan = B.resolve_budgets(["2", "5"], len(data.graph["edges"]))
    async with bundled_graph(base, data.graph, "hashing") as (s, conn, _, _):
        db0 = tmp_path / "start.sqlite3"
        await api.sync_review_rows(s, [], db0, conn)
        CMDS.init_db(db0)
        s_log = await B.record_log(CMDS, s, db0, log_half)
        # the real log writer recorded exactly the log half's searches, no scored query
        texts = [t for (t,) in _rows(db0, "SELECT query FROM retrieval_queries")]
        assert sorted(texts) == sorted(q.text for q in log_half)
        assert not set(texts) & {q.text for q in scored}
        logged = {u: n for u, n in _rows(db0, "SELECT edge_uuid, sum(hits) FROM retrieval_log GROUP BY edge_uuid")}
        s_off = s.model_copy(deep=True)
        s_off.review.log = False
        expect: dict[str, int] = {}
        for q in log_half:  # the same searches again, unlogged: the log is theirs and nothing else
            for e in (await api.search(s_off, q.text, groups=[q.group])).edges:
                expect[e.uuid] = expect.get(e.uuid, 0) + 1
        assert logged == expect
        s_log.review.log = False
        top = (await api.review_queue(s_log, review_db=db0, graph=conn, limit=1))[0].edge_uuid
        choices = {}
        for strategy, seed in (("queue", 3), ("random", 3), ("random", 3), ("random", 4)):
            db = B.snapshot(db0, tmp_path / f"{strategy}-{seed}-{len(choices)}.sqlite3")
            out = tmp_path / f"snap-{len(choices)}"
            out.mkdir()
            choices[(strategy, seed, len(choices))] = c = await B.choose(
                CMDS, strategy, s_log, db, conn, plan, data.verdicts, seed=seed, noise=0.0, out_dir=out)
            assert sorted(c.dbs) == [2, 5] and len(c.decided) == 5
            for k, snap in c.dbs.items():  # each budget's review DB: exactly k decisions, by the real commands
                trail = _rows(snap, "SELECT edge_uuid, action, actor, previous_status, new_status FROM review_decisions "
                                    "ORDER BY id")
                assert [(u, a) for u, a, *_ in trail] == [(u, a) for u, a, _ in c.decided[:k]]
                assert {r[2] for r in trail} == {B.ACTOR} and {r[3] for r in trail} == {None}
                statuses = dict(_rows(snap, "SELECT id, status FROM candidates"))
                assert len(statuses) == k
                for u, action, _ in c.decided[:k]:  # noise 0: the gold verdict's decision
                    assert action == B.GOLD[data.verdicts[u]] and statuses[u] == STATUS_OF[action]
            assert _rows(db0, "SELECT count(*) FROM review_decisions") == [(0,)]  # the start stays as it was
    queue, r3a, r3b, r4 = (c.decided for c in choices.values())
    assert queue[0][0] == top and {b for *_, b in queue} == {"queue"}
    assert r3a == r3b and r3a != r4 and {b for *_, b in r3a} == {"random"}  # seeded, reproducible


def test_a_small_budget_end_to_end(tmp_path):
    r = run_cli("eval", "--bundled", "--quick", "--draws", "1", "--review-budget", "3",
                "--json", cwd=tmp_path)
    assert r.code == 0, r.err
    d = r.json()
    assert d["mode"] == "review-budget" and d["facts"] == len(bundled().graph["edges"])
    draw = d["draws"][0]
    assert not set(draw["log_queries"]) & set(draw["scored_queries"])
    assert len(draw["log_queries"]) + len(draw["scored_queries"]) == 12
    keys = {(r["case"], r["strategy"], r["facts"]) for r in d["rows"]}
    assert keys == {("none", "start", 0), ("none", "queue", 3), ("none", "random", 3),
                    ("coverage", "start", 0), ("coverage", "queue", 3), ("coverage", "random", 3)}
    by = {(r["case"], r["strategy"]): r for r in d["rows"]}
    assert by[("none", "queue")]["reviewed"]["mean"] == 3 and by[("none", "random")]["reviewed"]["mean"] == 3
    assert by[("none", "queue")]["chosen_by_queue"]["mean"] + by[("none", "queue")]["filled_at_random"]["mean"] == 3
    for row in d["rows"]:
        # each state's own vanilla is Graphiti's order as the sync left the graph (no index is
        # rebuilt; FalkorDB's fulltext order moves with the writes), reported beside the reference's
        assert 0.0 <= row["state_vanilla_ndcg@10"]["mean"] <= 1.0 and row["state_vanilla_wrong_first"]["mean"] >= 0
        lo, hi = row["gain"]["ci95"]
        assert lo <= row["gain"]["mean"] + 1e-9 and row["gain"]["mean"] <= hi + 1e-9 or row["gain"]["queries"] == 0
    # a start with no review writes no trust: its graph ranks as the reference graph, vanilla included
    start = by[("none", "start")]
    assert start["state_vanilla_ndcg@10"] == start["vanilla_ndcg@10"], start
    assert start["state_vanilla_wrong_first"] == start["vanilla_wrong_first"], start
    assert d["acceptance"]["evaluated"] is False  # 3 facts is not 5% of the facts
    r = run_cli("eval", "--bundled", "--quick", "--draws", "1", "--review-budget", "2",
                "--review-strategy", "random", "--review-start", "none", "--plot", "b.png", cwd=tmp_path)
    assert r.code == 0, r.err
    assert "gain vs vanilla" in r.out and (tmp_path / "b.png").stat().st_size > 0


@pytest.mark.parametrize("args, message", [
    (["--review-budget", "5%"], "needs --bundled"),
    (["--bundled", "--review-budget", "5%", "--rank", "trust"], "--rank is not for --review-budget"),
    (["--bundled", "--review-strategy", "queue"], "go with --review-budget"),
    (["--bundled", "--review-budget", "7x"], "--review-budget: '7x'"),
    (["--bundled", "--review-budget", "5%", "--review-start", "all"], "--review-start: unknown 'all'"),
])
def test_bad_review_budget_options_are_one_line_errors(tmp_path, args, message):
    r = run_cli("eval", *args, cwd=tmp_path)
    assert r.code == 2 and message in r.err, (r.code, r.err)
    assert len([line for line in r.err.splitlines() if "rror" in line]) == 1 and "Traceback" not in r.err


@given(st.floats(0, 0.5), st.integers(0, 50))
@hsettings(max_examples=40, deadline=None)
def test_generated_sets_hold_out_the_share_asked_of_a_group_the_log_never_searches(share, seed):
    data = B.generated(seed)
    queries = data.judged.queries
    log_half, scored = B.split_unseen(queries, share, seed)
    assert not {q.id for q in log_half} & {q.id for q in scored}
    assert {q.id for q in log_half} | {q.id for q in scored} <= {q.id for q in queries}
    regional = {g for g in data.graph["groups"] if "-r" in g}
    assert regional and not {q.group for q in log_half} & regional  # the log never searches the region
    unseen = sum(q.group in regional for q in scored)
    assert abs(unseen / len(scored) - share) <= 1 / len(scored) + 1e-9
    # deterministic: the same seed gives the same set and split
    again = B.split_unseen(B.generated(seed).judged.queries, share, seed)
    assert [q.id for q in again[1]] == [q.id for q in scored]
    # a generated set is a valid judged set (its wrong facts are judged 0) and its verdicts cover the graph
    assert set(data.verdicts) == {e["uuid"] for e in data.graph["edges"]}
    for q in queries:
        assert all(data.judged.qrels[q.id][w] == 0 for w in q.wrong)


def test_the_split_refuses_a_share_outside_0_to_half():
    with pytest.raises(InputError, match="--unseen-share"):
        B.split_unseen(B.generated(0).judged.queries, 0.6, 0)


def _row(strategy: str, facts: int, ndcg: float, wrong: float) -> dict:
    return {"case": "none", "strategy": strategy, "facts": facts, "ndcg@10": {"mean": ndcg},
            "wrong_first": {"mean": wrong}}


@pytest.mark.parametrize("q5, q10, met", [
    ((0.60, 2.0), (0.61, 1.0), True),
    ((0.60, 2.0), (0.60, 1.0), False),  # 10% must beat it, not tie
    ((0.59, 2.0), (0.61, 1.0), False),  # 5% short on nDCG@10
    ((0.60, 2.5), (0.61, 1.0), False),  # 5% short on wrong first
])
def test_acceptance_compares_the_queue_with_random_40_percent_by_the_same_reviewer(q5, q10, met):
    r = B.BudgetReport("hashing", 100, "trust@0.05", [], [])
    r.rows = [_row("queue", 5, *q5), _row("queue", 10, *q10), _row("random", 40, 0.60, 2.0)]
    a = r._acceptance()
    assert a["evaluated"] and a["met"] is met and a["facts"] == [5, 10, 40]
    r.rows = r.rows[:2]
    assert r._acceptance()["evaluated"] is False


def test_a_generated_set_end_to_end(tmp_path):
    r = run_cli("eval", "--bundled", "--quick", "--draws", "1", "--review-budget", "2",
                "--review-start", "none", "--unseen-share", "0.5", "--json", cwd=tmp_path, timeout=900)
    assert r.code == 0, r.err
    d = r.json()
    assert d["dataset"].startswith("generated") and d["facts"] == len(B.generated(0).graph["edges"])
    draw = d["draws"][0]
    # the scored half's regional queries ask about subjects the log never returned
    assert draw["scored_unseen_by_log"] >= 0.5 - 1e-9 and draw["set"] == "generated-0"
