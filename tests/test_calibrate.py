"""Calibration matches the reference numbers and the real boost ordering."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from graph_trust import fusion
from graph_trust.calibrate import calibration_table


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
    ranked = fusion.rank_pool(pool, trust, weight)
    final_rank = int(np.nonzero(ranked.order == r - 1)[0][0]) + 1
    best = table[r].overtakes[1.0]
    assert final_rank == (best if best is not None else r)
