"""Calibration matches the reference numbers and the real boost ordering."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from graph_trust.search import fusion, ranking
from graph_trust.search.calibrate import calibration_table


def test_reference_numbers():
    rows = {r.rank: r for r in calibration_table(0.15, 1, 2, 20)}
    assert rows[8].overtakes[1.0] == 6  # a promoted #8 overtakes an unboosted #6 ...
    assert rows[20].overtakes[1.0] != 1  # ... and a promoted #20 never overtakes #1
    assert rows[20].overtakes[1.0] == 9
    assert rows[1].overtakes[1.0] is None


@given(st.floats(0.0, 1.0), st.integers(1, 3), st.integers(1, 3), st.integers(2, 25))
def test_boost_ordering_matches_calibrate(weight, k, methods, r):
    """Fuse real candidate lists with one trusted item at rank r; it lands where calibrate says."""
    table = {row.rank: row for row in calibration_table(weight, k, methods, r, tiers=(1.0,))}
    lists = [[f"u{q}" for q in range(1, r + 1)] for _ in range(methods)]
    pool = fusion.fuse(lists, ["m"] * methods, rank_const=k)
    trust = [None] * (r - 1) + [1.0]
    ranked = ranking.rank_pool(pool, trust, ranking.RuleParams(weight=weight))
    final_rank = int(np.nonzero(ranked.order == r - 1)[0][0]) + 1
    best = table[r].overtakes[1.0]
    assert final_rank == (best if best is not None else r)


def test_cli_shows_rank_const_1_and_60_and_names_a_bad_constant(tmp_path):
    from cli_helpers import run_cli

    r = run_cli("calibrate", "--form", "additive", "--trust-weight", "0.15", "--max-rank", "8", "--json", cwd=tmp_path)
    assert r.code == 0, r.err
    out = r.json()
    tables = {t["rank_const"]: {row["rank"]: row for row in t["rows"]} for t in out["tables"]}
    assert set(tables) == {1.0, 60.0} and out["boost_form"] == "additive"
    assert tables[1.0][8]["overtakes"]["1"] == 6 and tables[60.0][8]["overtakes"]["1"] == 1  # the additive form at 0.15 barely moves anything at 60
    sup = run_cli("calibrate", "--form", "supported", "--trust-weight", "0.05", "--max-rank", "8", "--json",
                  cwd=tmp_path).json()
    rows = {t["rank_const"]: {row["rank"]: row for row in t["rows"]} for t in sup["tables"]}
    assert rows[1.0][8]["overtakes"]["1"] is None and rows[60.0][8]["overtakes"]["1"] > 1
    assert rows[60.0][8]["overtakes"]["0.25"] is None  # below min_boost_trust: no boost
    text = run_cli("calibrate", "--max-rank", "3", cwd=tmp_path)
    assert text.code == 0 and "rank_const=1 " in text.out and "rank_const=60 " in text.out
    bad = run_cli("calibrate", "--rank-const", "1,zero", cwd=tmp_path)
    assert bad.code != 0 and "--rank-const" in bad.err and "Traceback" not in bad.err
