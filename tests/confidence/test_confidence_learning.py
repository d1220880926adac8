"""Weight learning, calibration and the factor matrix (graph_trust.confidence.learning, .model),
pinned on data whose answer is known: a logistic model recovered from its own probabilities, an
intercept that no penalty may shrink, bands counted by hand."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_trust.confidence import learning, model
from graph_trust.confidence.composite import DEFAULT_WEIGHTS, FACTORS

RNG = np.random.default_rng(7)


def _soft(X, beta, b0):
    return 1.0 / (1.0 + np.exp(-(X @ beta + b0)))


def test_logistic_recovers_the_model_that_made_the_probabilities():
    X = RNG.uniform(0, 1, size=(400, 3))
    beta = np.array([2.0, -1.0, 0.5])
    coef, b0 = learning.logistic(X, _soft(X, beta, -0.3), l2=0.0)
    assert coef == pytest.approx(beta, abs=1e-6) and b0 == pytest.approx(-0.3, abs=1e-6)
    assert isinstance(b0, float) and coef.shape == (3,)


def test_logistic_penalizes_coefficients_but_never_the_intercept():
    X = np.tile(np.array([[-1.0], [1.0]]), (50, 1))  # zero mean: the intercept alone fits the mean
    y = np.full(100, 0.9)
    coef, b0 = learning.logistic(X, y, l2=10.0)
    assert coef == pytest.approx([0.0], abs=1e-9) and b0 == pytest.approx(np.log(9.0), abs=1e-9)
    y2 = np.where(X[:, 0] > 0, 0.9, 0.1)
    default, _ = learning.logistic(X, y2)
    strong, _ = learning.logistic(X, y2, l2=1.0)
    explicit, _ = learning.logistic(X, y2, l2=1e-2)
    assert default == pytest.approx(explicit, abs=1e-12) and abs(strong[0]) < abs(default[0]) < np.log(9.0)


def _rows(n=60):
    X = np.full((n, 7), 0.5)
    X[:, 0] = RNG.uniform(0, 1, n)  # freshness varies and predicts the outcome
    X[:, 1] = RNG.uniform(0, 1, n)  # source varies and predicts nothing
    y = (X[:, 0] > 0.5).astype(float)
    return X, y


def test_fit_weights_learns_the_factors_that_varied_and_keeps_the_others():
    X, y = _rows()
    fit = learning.fit_weights(X, y, DEFAULT_WEIGHTS)
    assert fit.learned == ("freshness", "source")
    kept = {f: DEFAULT_WEIGHTS[f] for f in FACTORS[2:]}
    assert {f: fit.weights[f] for f in FACTORS[2:]} == pytest.approx(kept, abs=1e-6)
    assert fit.weights["freshness"] + fit.weights["source"] == pytest.approx(0.40, abs=1e-6)
    assert fit.weights["freshness"] > 0.3 and sum(fit.weights.values()) == pytest.approx(1.0, abs=1e-5)
    assert fit.coefficients["freshness"] > 0 and fit.coefficients["consensus"] == 0.0
    assert all(round(w, 6) == w for w in fit.weights.values())


def test_fit_weights_keeps_the_old_weights_when_nothing_helps():
    X, y = _rows()
    flipped = learning.fit_weights(np.column_stack([1 - X[:, :1], np.full((60, 6), 0.5)]), y, DEFAULT_WEIGHTS)
    assert flipped.weights == pytest.approx(DEFAULT_WEIGHTS) and flipped.learned == ("freshness",)
    flat = learning.fit_weights(np.full((20, 7), 0.5), np.array([1.0, 0.0] * 10), DEFAULT_WEIGHTS)
    assert flat.weights == pytest.approx(DEFAULT_WEIGHTS) and flat.learned == () and flat.intercept == 0.0


def test_fit_weights_errors():
    X, y = _rows(19)
    with pytest.raises(ValueError, match=r"^need at least 20 recorded outcomes to learn weights, have 19$"):
        learning.fit_weights(X, y, DEFAULT_WEIGHTS)
    X, _ = _rows(20)
    for same in (np.ones(20), np.zeros(20)):
        with pytest.raises(ValueError, match=r"^the recorded outcomes are all successes or all failures"):
            learning.fit_weights(X, same, DEFAULT_WEIGHTS)
    learning.fit_weights(X, np.r_[np.ones(19), 0.5], DEFAULT_WEIGHTS)  # a partial is something to learn from


def test_calibration_counts_each_band():
    scores = np.array([0.9, 0.85, 0.8, 0.7999999999, 0.72, 0.6, 0.41, 0.1])
    y = np.array([1.0, 1.0, 0.0, 1.0, 0.5, 0.0, 1.0, 0.0])
    out = learning.calibration(scores, y)
    assert [(b["level"], b["from"], b["uses"]) for b in out["bands"]] == [
        ("very_high", 0.85, 2), ("high", 0.70, 3), ("medium", 0.55, 1), ("low", 0.40, 1), ("very_low", 0.0, 1)]
    assert [b["success_rate"] for b in out["bands"]] == [1.0, 0.5, 0.0, 1.0, 0.0]
    assert out["bands"][1]["mean_confidence"] == pytest.approx(round((0.8 + 0.7999999999 + 0.72) / 3, 4))
    assert out["at_or_above_0_8"] == {"uses": 4, "success_rate": 0.75}
    assert out["brier"] == round(float(np.mean((scores - y) ** 2)), 6)
    empty = learning.calibration(np.empty(0), np.empty(0))
    assert [b["uses"] for b in empty["bands"]] == [0] * 5 and empty["bands"][0]["success_rate"] is None
    assert empty["bands"][0]["mean_confidence"] is None
    assert empty["at_or_above_0_8"] == {"uses": 0, "success_rate": None} and empty["brier"] is None


def test_learn_reports_before_and_after():
    X, y = _rows()
    out = learning.learn(X, y, DEFAULT_WEIGHTS)
    fit = learning.fit_weights(X, y, DEFAULT_WEIGHTS)
    assert out["outcomes"] == 60 and out["weights_before"] == DEFAULT_WEIGHTS and out["weights_after"] == fit.weights
    assert out["learned"] == ["freshness", "source"] and out["intercept"] == round(fit.intercept, 6)
    assert out["coefficients"] == {k: round(v, 6) for k, v in fit.coefficients.items()}
    from graph_trust.confidence.composite import composite_many

    assert out["calibration_before"] == learning.calibration(composite_many(X, DEFAULT_WEIGHTS), y)
    assert out["calibration_after"] == learning.calibration(composite_many(X, fit.weights), y)


def _inputs(**kw):
    base = dict(age_days=np.array([0.0, 30.0]), half_life=np.array([30.0, 30.0]), agent=np.array([1.0, 0.0]),
                role=np.array([1.0, 0.5]), source_type=np.array([1.0, 0.5]), level=np.array([7.0, 1.0]),
                verifiers=np.array([1, 0]), agents=np.array([1, 9]), specializations=np.array([0, 4]),
                independent=np.array([True, False]), agree=np.array([0.0, 1.0]), disagree=np.array([0.0, 0.0]),
                losses=np.array([0, 1]), unresolved=np.array([0.0, 1.0]), successes=np.array([0, 10]),
                partials=np.array([0, 0]), uses=np.array([0, 10]))
    base.update(kw)
    return model.FactorInputs(**base)


def test_factor_matrix_columns_are_each_factor():
    m = model.factor_matrix(_inputs())
    assert m.shape == (2, 7)
    # freshness 1 and 1/2; source 1 and 0.3 * 0.5 + 0.2 * 0.5; verification ground truth 1 and unverified 0.3;
    # consensus neutral 0.5 and (1 + 0.2) * 0.5 = 0.6 averaged with votes 1/1.001; contradiction
    # 1 and 1 - 0.3 - 0.1; success 0.5 (no uses) and 1; context neutral 0.5
    assert m[0].tolist() == pytest.approx([1.0, 1.0, 1.0, 0.5, 1.0, 0.5, 0.5])
    assert m[1].tolist() == pytest.approx([0.5, 0.25, 0.3, (0.6 + 1 / 1.001) / 2, 0.6, 1.0, 0.5])
    lin = model.factor_matrix(_inputs(context=np.array([1.5, 0.25])), decay="linear", max_age_days=60.0)
    assert lin[:, 0].tolist() == [1.0, 0.5] and lin[:, 6].tolist() == [1.0, 0.25]
    exp = model.factor_matrix(_inputs(), decay="exponential", decay_rate=0.1)
    assert exp[:, 0].tolist() == pytest.approx([1.0, np.exp(-3.0)])
    few = model.factor_matrix(_inputs(successes=np.array([0, 5]), uses=np.array([0, 5])), min_samples=5)
    assert few[1, 5] == 1.0
    assert model.factor_matrix(model.FactorInputs(*[np.empty(0)] * 17)).shape == (0, 7)


def test_select_keeps_empty_context_empty():
    x = _inputs()
    one = x.select(np.array([False, True]))
    assert len(one) == 1 and one.agents.tolist() == [9] and len(one.context) == 0
    ctx = _inputs(context=np.array([0.1, 0.9])).select(np.array([1]))
    assert ctx.context.tolist() == [0.9] and ctx.age_days.tolist() == [30.0]


# --- how coefficients become weights ----------------------------------------------------------

def _sigmoid_rows(coef_fresh: float, coef_source: float, n: int = 80, seed: int = 11):
    """Rows where only freshness and source vary and the outcomes are a logistic model's own
    probabilities (the fit's L2 penalty shrinks the coefficients, but keeps their signs)."""
    rng = np.random.default_rng(seed)
    X = np.full((n, 7), 0.5)
    X[:, 0], X[:, 1] = rng.uniform(0, 1, n), rng.uniform(0, 1, n)
    return X, _soft(X[:, :2], np.array([coef_fresh, coef_source]), -0.2)


def test_the_weights_are_the_positive_coefficients_shares_to_6_decimals():
    X, y = _sigmoid_rows(3.0, 1.5)
    fit = learning.fit_weights(X, y, DEFAULT_WEIGHTS)
    cf, cs = fit.coefficients["freshness"], fit.coefficients["source"]
    assert cf > cs > 0
    assert fit.weights["freshness"] == pytest.approx(0.4 * cf / (cf + cs), abs=5e-7)
    assert fit.weights["source"] == pytest.approx(0.4 * cs / (cf + cs), abs=5e-7)
    assert all(round(w, 6) == w for w in fit.weights.values())


@pytest.mark.parametrize("strength", [0.6, 3.0])  # a weak signal (coefficient under 1) counts like a strong one
def test_a_factor_pointing_the_wrong_way_gets_no_weight(strength):
    X, y = _sigmoid_rows(strength, -0.5)
    fit = learning.fit_weights(X, y, DEFAULT_WEIGHTS)
    assert fit.coefficients["freshness"] > 0 > fit.coefficients["source"]
    assert fit.coefficients["freshness"] < 1 or strength > 1
    assert fit.weights == {**DEFAULT_WEIGHTS, "freshness": 0.4, "source": 0.0}


def test_no_weight_left_for_the_varied_factors_keeps_the_current_weights_normalized():
    X, y = _sigmoid_rows(3.0, 0.0)
    X[:, 1] = 0.5  # only freshness varies
    # the other factors' weights already sum to 1 (exactly, and then more): nothing left to learn into
    full = {"freshness": 0.005, "source": 0.25, "verification": 0.25, "consensus": 0.25, "contradiction": 0.125,
            "success": 0.125, "context": 0.0}
    over = {**full, "freshness": 0.0, "context": 0.005}
    for current in (full, over):
        fit = learning.fit_weights(X, y, current)
        assert fit.coefficients["freshness"] > 0 and fit.learned == ("freshness",)
        assert fit.weights == pytest.approx({f: w / 1.005 for f, w in current.items()}, abs=1e-6)
        assert sum(fit.weights.values()) == pytest.approx(1.0, abs=1e-5)


def test_fit_weights_needs_one_row_of_seven_factors_per_outcome():
    X, y = _rows(30)
    for bad_X, bad_y, shape in ((X[:, :1], y, "30x1"), (np.column_stack([X, X[:, :1]]), y, "30x8"),
                                (X[:, 0], y, "30"), (X, y[:29], "30x7")):
        with pytest.raises(ValueError, match=rf"^need one row of 7 factor scores \(freshness, source, verification, "
                                             rf"consensus, contradiction, success, context\) per outcome, got {shape} "
                                             rf"for {len(bad_y)} outcomes$"):
            learning.fit_weights(bad_X, bad_y, DEFAULT_WEIGHTS)


# --- calibration's figures --------------------------------------------------------------------

def test_calibration_rounds_rates_to_4_decimals_and_brier_to_6():
    scores, y = np.array([0.9, 0.86, 0.95, 0.333]), np.array([1.0, 0.0, 0.0, 0.0])
    out = learning.calibration(scores, y)
    top = out["bands"][0]
    assert (top["uses"], top["success_rate"], top["mean_confidence"]) == (3, 0.3333, 0.9033)
    assert out["at_or_above_0_8"] == {"uses": 3, "success_rate": 0.3333}
    assert out["brier"] == 0.440747  # (0.01 + 0.7396 + 0.9025 + 0.110889) / 4 = 0.44074725


def test_a_score_within_the_tolerance_of_0_8_counts_at_or_above_it():
    out = learning.calibration(np.array([0.8 - 1e-9, 0.8 - 2e-9, 0.79]), np.array([1.0, 0.0, 0.0]))
    assert out["at_or_above_0_8"] == {"uses": 1, "success_rate": 1.0}


def test_learn_reports_calibration_before_under_the_current_weights():
    X, y = _rows()
    X[:, 2] = RNG.uniform(0, 1, len(y))  # verification varies too, so the weights in use matter
    current = {**DEFAULT_WEIGHTS, "freshness": 0.05, "verification": 0.30}
    out = learning.learn(X, y, current)
    from graph_trust.confidence.composite import composite_many

    assert out["weights_before"] == current
    assert out["calibration_before"] == learning.calibration(composite_many(X, current), y)
    assert out["calibration_before"] != learning.calibration(composite_many(X, DEFAULT_WEIGHTS), y)


def test_factor_matrix_defaults_are_the_settings_defaults():
    from graph_trust.config import ConfidenceSettings

    cfg, x = ConfidenceSettings(), _inputs()
    assert model.factor_matrix(x, decay="exponential")[:, 0].tolist() == pytest.approx([1.0, np.exp(-0.3)])
    assert model.factor_matrix(x, decay="linear")[:, 0].tolist() == pytest.approx([1.0, 1 - 30 / 365])
    for decay in ("half_life", "exponential", "linear"):
        assert model.factor_matrix(x, decay=decay).tolist() == model.factor_matrix(
            x, decay=decay, decay_rate=cfg.decay_rate, max_age_days=cfg.max_age_days,
            min_samples=cfg.min_samples).tolist()


def test_factor_matrix_consensus_reads_independence():
    both = _inputs(agents=np.array([3, 9]), specializations=np.array([1, 4]), independent=np.array([True, True]))
    m = model.factor_matrix(both)
    assert m[:, 3].tolist() == pytest.approx([(np.log10(4) + 0.05) * 0.8, (0.96 + 1 / 1.001) / 2])
    one = model.factor_matrix(_inputs(agents=np.array([3, 9]), specializations=np.array([1, 4]),
                                      independent=np.array([False, True])))
    assert one[:, 3].tolist() == pytest.approx([0.5, (0.96 + 1 / 1.001) / 2])  # (0.60 + 0.05) * 0.5: neutral


def test_factor_matrix_clips_the_context_column_to_0_1():
    assert model.factor_matrix(_inputs(context=np.array([-0.5, 0.25])))[:, 6].tolist() == [0.0, 0.25]


@settings(max_examples=40)
@given(st.integers(20, 120), st.integers(0, 2**32 - 1), st.sampled_from(["split", "lopsided", "binary"]))
def test_under_the_default_penalty_newton_converges_long_before_the_cap(n, seed, kind):
    # what makes the iteration cap and the exp clip in logistic() inert under fit_weights
    # (docs/mutation_equivalents.txt): the fit settles within 15 steps, far inside +/-30
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, 7))
    if kind == "binary":
        X = np.round(X)
    y = (X @ rng.normal(0, 5, 7) > 0).astype(float) if kind != "lopsided" else (rng.uniform(size=n) < 0.05) * 1.0
    y[:2] = [0.0, 1.0]  # never all alike
    coef, b0 = learning.logistic(X, y)
    quick, quick_b0 = learning.logistic(X, y, iters=15)
    assert quick == pytest.approx(coef, abs=1e-9) and quick_b0 == pytest.approx(b0, abs=1e-9)
    assert np.abs(X @ coef + b0).max() < 30
