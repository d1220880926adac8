"""The composite's array helpers read any real number as a float64 and None as missing: ages,
half-lives, fused scores and max_fused may come as Python ints or floats, Decimals (as a YAML
loader or a database driver may give them), NumPy scalars, or None for "no value"."""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from graph_trust.search.composite import (
    MISSING_RELEVANCE,
    MISSING_TIMESTAMP_RECENCY,
    normalize_relevance,
    recency_scores,
)

_KINDS = ("float", "int", "decimal", "numpy")


def _as(kind: str, x: float):
    """``x`` (an integral float) as the given kind of number."""
    return {"float": float(x), "int": int(x), "decimal": Decimal(int(x)), "numpy": np.int64(int(x))}[kind]


def test_no_age_and_no_fused_score_may_be_none():
    assert recency_scores([None, 0.0, 24 * 3600.0], 24.0).tolist() == [MISSING_TIMESTAMP_RECENCY, 1.0, 0.5]
    assert normalize_relevance([None, 1.0, 3.0], 2.0).tolist() == [MISSING_RELEVANCE, 0.5, 1.0]


def test_decimal_inputs_read_as_floats():
    assert recency_scores([Decimal(7200)], Decimal(1)).tolist() == [0.25]
    assert recency_scores([Decimal(-5), Decimal(3600)], [Decimal(2), Decimal(1)]).tolist() == [1.0, 0.5]
    assert normalize_relevance([Decimal(1), Decimal(4)], Decimal(2)).tolist() == [0.5, 1.0]
    assert normalize_relevance([0.5, 1.0], Decimal(2)).tolist() == [0.25, 0.5]


@given(st.lists(st.tuples(st.one_of(st.none(), st.integers(-10, 500)), st.sampled_from(_KINDS)), min_size=1, max_size=8),
       st.integers(1, 100), st.sampled_from(_KINDS), st.sampled_from(_KINDS))
def test_every_kind_of_number_gives_what_its_float_gives(values, scale, value_kind, scale_kind):
    # ages in hours (times 3600 seconds) with a half-life of ``scale`` hours; fused scores with a
    # max_fused of ``scale``: each as the kind drawn, against the same values as float64
    raw = [None if v is None else _as(k if value_kind == "float" else value_kind, v) for v, k in values]
    floats = np.array([math.nan if v is None else float(v) for v, _ in values])
    ages = [None if v is None else v * 3600 for v in raw]
    got = recency_scores(ages, _as(scale_kind, scale))
    assert got.dtype == np.float64
    assert got.tolist() == recency_scores(floats * 3600.0, float(scale)).tolist()
    got = normalize_relevance(raw, _as(scale_kind, scale))
    assert got.dtype == np.float64
    assert got.tolist() == normalize_relevance(floats, float(scale)).tolist()
