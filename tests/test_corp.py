"""CORP reliability curve, consistency bands and score decomposition.

Independent references: scikit-learn's ``IsotonicRegression`` (its own PAV, pooling
tied scores by weighted means), ``scipy.optimize.isotonic_regression`` on the tie
groups aggregated here, the ``model-diagnostics`` package's ``decompose`` (isotonic
recalibration, Dimitriadis et al. 2021) and a hand-worked example.
"""

from __future__ import annotations

import numpy as np
import pytest
from model_diagnostics.scoring import LogLoss, SquaredError, decompose
from scipy.optimize import isotonic_regression
from sklearn.isotonic import IsotonicRegression

from calreport.metrics import corp
from calreport.metrics.corp import consistency_band, corp_curve, corp_decomposition
from calreport.metrics.scoring import brier_score, log_loss


def tied_data(n: int, seed: int, decimals: int = 2):
    rng = np.random.default_rng(seed)
    s = np.round(rng.beta(2, 3, n), decimals)  # many ties
    y = (rng.random(n) < s**1.4).astype(int)
    return rng, s, y


# --- the curve ---------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_curve_equals_sklearn_isotonic_regression(seed, weighted):
    rng, s, y = tied_data(1500, seed)
    w = rng.uniform(0.1, 3.0, s.size) if weighted else None
    curve = corp_curve(s, y, sample_weight=w)
    ref = IsotonicRegression(out_of_bounds="clip").fit(s, y, sample_weight=w)
    np.testing.assert_allclose(curve.recalibrated, ref.predict(s), rtol=0, atol=1e-12)
    np.testing.assert_allclose(curve.y, ref.predict(curve.x), rtol=0, atol=1e-12)
    assert curve.n_blocks == np.unique(np.round(curve.y, 12)).size


@pytest.mark.parametrize("weighted", [False, True])
def test_curve_equals_scipy_on_tie_groups(weighted):
    rng, s, y = tied_data(2000, 7, decimals=3)
    w = rng.integers(1, 5, s.size).astype(float) if weighted else np.ones(s.size)
    # aggregate ties by hand: weighted event rate and total weight per distinct score
    x, inverse = np.unique(s, return_inverse=True)
    wsum = np.bincount(inverse, weights=w)
    rate = np.bincount(inverse, weights=w * y) / wsum
    expected = isotonic_regression(rate, weights=wsum).x
    curve = corp_curve(s, y, sample_weight=w if weighted else None)
    np.testing.assert_array_equal(curve.x, x)
    np.testing.assert_allclose(curve.y, expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(curve.weight, wsum)


def test_fallback_pav_matches_sklearn(monkeypatch):
    # SciPy < 1.12 has no isotonic_regression: the vectorised parallel pooling is used
    monkeypatch.setattr(corp, "_scipy_isotonic", None)
    rng, s, y = tied_data(3000, 11)
    w = rng.uniform(0.5, 2.0, s.size)
    ref = IsotonicRegression(out_of_bounds="clip").fit(s, y, sample_weight=w)
    np.testing.assert_allclose(corp_curve(s, y, sample_weight=w).recalibrated, ref.predict(s),
                               rtol=0, atol=1e-12)
    # a long cascade of pools: one high value followed by an increasing run
    values = np.r_[10.0, np.linspace(0, 1, 200)]
    np.testing.assert_allclose(corp._pav_parallel(values, np.ones(values.size)),
                               isotonic_regression(values).x, rtol=0, atol=1e-12)


def test_curve_hand_worked_example():
    # distinct scores 0.1, 0.3 (two rows, rate 1/2), 0.6, 0.8 with rates 0, 1/2, 0, 1:
    # 1/2 > 0 violates, pooling 0.3 and 0.6 gives (1 + 0) / 3 = 1/3
    curve = corp_curve([0.8, 0.3, 0.1, 0.6, 0.3], [1, 0, 0, 0, 1])
    np.testing.assert_allclose(curve.y, [0, 1 / 3, 1 / 3, 1])
    np.testing.assert_allclose(curve.recalibrated, [1, 1 / 3, 0, 1 / 3, 1 / 3])
    assert curve.n_blocks == 3 and curve.n == 5


def test_integer_weights_equal_repeated_rows_and_zero_weights_drop_rows():
    rng, s, y = tied_data(400, 3)
    counts = rng.integers(0, 4, s.size)
    counts[:5] = 0
    weighted = corp_curve(s, y, sample_weight=counts)
    repeated = corp_curve(np.repeat(s, counts), np.repeat(y, counts))
    np.testing.assert_array_equal(weighted.x, repeated.x)
    np.testing.assert_allclose(weighted.y, repeated.y, atol=1e-12)
    kept = counts > 0
    np.testing.assert_allclose(weighted.recalibrated[kept],
                               np.interp(s[kept], repeated.x, repeated.y), atol=1e-12)
    # scaling the weights changes nothing
    np.testing.assert_allclose(corp_curve(s, y, sample_weight=3.5 * counts).y, weighted.y,
                               atol=1e-12)


# --- decomposition -----------------------------------------------------------------


def test_decomposition_hand_worked_example():
    s, y = [0.1, 0.3, 0.3, 0.6, 0.8], [0, 1, 0, 0, 1]
    d = corp_decomposition(s, y)
    # Brier of the forecasts: (0.01 + 0.49 + 0.09 + 0.36 + 0.04) / 5 = 0.198
    # recalibrated [0, 1/3, 1/3, 1/3, 1]: (0 + 4/9 + 1/9 + 1/9 + 0) / 5 = 2/15
    # constant r = 0.4: (0.16 + 0.36 + 0.16 + 0.16 + 0.36) / 5 = 0.24
    assert d.score == pytest.approx(0.198, abs=1e-15)
    assert d.mcb == pytest.approx(0.198 - 2 / 15, abs=1e-15)
    assert d.dsc == pytest.approx(0.24 - 2 / 15, abs=1e-15)
    assert d.unc == pytest.approx(0.24, abs=1e-15)
    assert d.terms == (d.mcb, d.dsc, d.unc) and d.rule == "brier"


@pytest.mark.parametrize(("rule", "scoring_function"),
                         [("brier", SquaredError()), ("log", LogLoss())])
@pytest.mark.parametrize("weighted", [False, True])
def test_decomposition_equals_model_diagnostics(rule, scoring_function, weighted):
    rng, s, y = tied_data(3000, 5)
    s = np.clip(s, 0.01, 0.99)  # model-diagnostics' log loss does not clip
    w = rng.uniform(0.2, 2.0, s.size) if weighted else None
    d = corp_decomposition(s, y, rule=rule, sample_weight=w)
    ref = decompose(y.astype(float), s, weights=w, scoring_function=scoring_function)
    row = ref.to_dicts()[0]
    np.testing.assert_allclose([d.mcb, d.dsc, d.unc, d.score],
                               [row["miscalibration"], row["discrimination"],
                                row["uncertainty"], row["score"]], rtol=1e-10, atol=1e-14)


def test_decomposition_score_is_calreports_brier_and_log_loss():
    rng, s, y = tied_data(800, 9)
    s[:3] = [0.0, 1.0, 1.0]
    y[:3] = [1, 0, 1]  # a certain miss: the log loss is large but finite (clipped)
    w = rng.uniform(0.5, 1.5, s.size)
    assert corp_decomposition(s, y, sample_weight=w).score == pytest.approx(
        brier_score(y, s, sample_weight=w), rel=1e-12)
    assert corp_decomposition(s, y, rule="log", sample_weight=w).score == pytest.approx(
        log_loss(y, s, sample_weight=w), rel=1e-12)


def test_calibrated_forecast_has_small_mcb_and_recalibration_has_none():
    rng = np.random.default_rng(4)
    s = rng.uniform(0, 1, 20_000)
    y = rng.random(s.size) < s
    assert corp_decomposition(s, y).mcb < 2e-3
    recal = corp_curve(s, y).recalibrated
    # PAV is idempotent: the recalibrated forecast is its own recalibration
    assert corp_decomposition(recal, y).mcb == pytest.approx(0.0, abs=1e-12)
    assert corp_decomposition(rng.uniform(0, 1, s.size) ** 3, y).mcb > 0.05


# --- consistency band ----------------------------------------------------------------


def test_band_covers_calibrated_curves_at_about_the_nominal_rate():
    # outcomes drawn from the scores: the observed CORP curve should lie inside the
    # pointwise 90 % band at about 90 % of the grid points (averaged over datasets)
    rng = np.random.default_rng(12)
    inside, contains_diagonal = [], []
    for _ in range(15):
        s = np.round(rng.uniform(0.02, 0.98, 400), 2)
        y = rng.random(s.size) < s
        band = consistency_band(s, n_boot=200, seed=rng)
        curve = corp_curve(s, y)
        g = np.interp(band.x, curve.x, curve.y)
        inside.append(np.mean((band.low <= g) & (g <= band.high)))
        contains_diagonal.append(np.mean((band.low <= band.x) & (band.x <= band.high)))
    assert 0.80 <= np.mean(inside) <= 0.97
    assert np.mean(contains_diagonal) > 0.97
    # a miscalibrated forecast leaves the band far more often
    s = rng.uniform(0.02, 0.98, 400)
    y = rng.random(s.size) < s**2
    band = consistency_band(s, n_boot=200, seed=1)
    curve = corp_curve(s, y)
    assert np.mean((band.low <= curve.y) & (curve.y <= band.high)) < 0.6


def test_band_is_seeded_and_unit_weights_change_nothing():
    rng = np.random.default_rng(2)
    s = rng.uniform(0, 1, 300)  # no ties: per-row and per-score draws coincide
    a = consistency_band(s, n_boot=50, seed=3)
    b = consistency_band(s, n_boot=50, seed=np.random.default_rng(3))
    c = consistency_band(s, n_boot=50, seed=3, sample_weight=np.ones(s.size))
    np.testing.assert_array_equal(a.low, b.low)
    np.testing.assert_array_equal(a.high, c.high)
    assert not np.array_equal(a.low, consistency_band(s, n_boot=50, seed=4).low)
    assert a.level == 0.9 and a.n_boot == 50


def test_band_grid_options_and_tiling():
    rng = np.random.default_rng(6)
    s = rng.uniform(0, 1, 5000)
    band = consistency_band(s, n_boot=20, n_grid=50, seed=0)
    assert band.x.size == 50 and band.x[0] == s.min() and band.x[-1] == s.max()
    grid = [0.9, 0.1, 0.5]
    on_grid = consistency_band(s, n_boot=20, grid=grid, seed=0)
    np.testing.assert_array_equal(on_grid.x, [0.1, 0.5, 0.9])
    # several tiles of replicates give the same result as one
    old = corp._TILE_VALUES
    try:
        corp._TILE_VALUES = 3 * s.size
        tiled = consistency_band(s, n_boot=20, n_grid=50, seed=0)
    finally:
        corp._TILE_VALUES = old
    np.testing.assert_allclose(tiled.low, band.low, atol=1e-12)
    np.testing.assert_allclose(tiled.high, band.high, atol=1e-12)


# --- errors ------------------------------------------------------------------------------


def test_errors():
    with pytest.raises(ValueError, match=r"`score` has 1 value outside \[0, 1\]"):
        corp_curve([0.2, 1.3], [0, 1])
    with pytest.raises(ValueError, match="`outcome` must hold 0/1"):
        corp_decomposition([0.2, 0.3], [0, 2])
    with pytest.raises(ValueError, match="different numbers of rows"):
        corp_curve([0.2, 0.3, 0.4], [0, 1])
    with pytest.raises(ValueError, match="`rule` must be one of 'brier', 'log'"):
        corp_decomposition([0.2, 0.3], [0, 1], rule="crps")
    with pytest.raises(ValueError, match="`sample_weight` has 1 negative value"):
        corp_curve([0.2, 0.3], [0, 1], sample_weight=[1, -1])
    with pytest.raises(ValueError, match="`n_boot` must be an integer >= 1"):
        consistency_band([0.2, 0.3], n_boot=0)
    with pytest.raises(ValueError, match="`level`"):
        consistency_band([0.2, 0.3], level=1.0)
    with pytest.raises(TypeError, match="`score` must be numeric"):
        corp_curve(["a", "b"], [0, 1])
