"""Debiased L2 ECE against Kumar, Liang & Ma's ``calibration`` package and by simulation."""

from __future__ import annotations

import numpy as np
import pytest

from calreport.metrics import binned
from calreport.metrics.debiased import (
    debiased_classwise_ece,
    debiased_ece,
    debiased_ece_squared,
    debiased_edges,
)

cu = pytest.importorskip("calibration.utils")


def _binary(name: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(sum(map(ord, name)))
    if name == "miscalibrated 500":
        s = rng.uniform(size=500)
        return s, (rng.uniform(size=500) < s**2).astype(int)
    if name == "calibrated 2000":
        s = rng.beta(2, 5, 2000)
        return s, (rng.uniform(size=2000) < s).astype(int)
    if name == "overconfident 5000":
        s = rng.beta(5, 1, 5000)
        return s, (rng.uniform(size=5000) < 0.85 * s).astype(int)
    if name == "ties 3000":
        s = rng.integers(0, 200, 3000) / 199
        return s, (rng.uniform(size=3000) < s).astype(int)
    if name == "tiny 7 (bins of 1 row)":
        s = rng.uniform(size=7)
        return s, rng.integers(0, 2, 7)
    if name == "23 rows (bins of 1 and 2)":
        s = rng.uniform(size=23)
        return s, rng.integers(0, 2, 23)
    raise KeyError(name)


BINARY = ["miscalibrated 500", "calibrated 2000", "overconfident 5000", "ties 3000",
          "tiny 7 (bins of 1 row)", "23 rows (bins of 1 and 2)"]


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("n_bins", [15, 4, 40])
def test_equal_mass_equals_kumar(name, n_bins):
    s, y = _binary(name)
    ref = cu.lower_bound_scaling_ce(s, y, p=2, debias=True, num_bins=n_bins)
    assert debiased_ece(s, y, n_bins=n_bins) == pytest.approx(ref, abs=1e-10)
    bins = cu.get_equal_bins(list(s), num_bins=n_bins)
    np.testing.assert_allclose(debiased_edges(s, n_bins=n_bins), bins, atol=0, rtol=0)
    sq = cu.unbiased_square_ce(cu.bin(list(zip(s, y, strict=True)), bins))
    assert debiased_ece_squared(s, y, n_bins=n_bins) == pytest.approx(sq, abs=1e-10)


@pytest.mark.parametrize("name", BINARY)
def test_uniform_and_auto_equal_kumar(name):
    s, y = _binary(name)
    ref = cu.lower_bound_scaling_ce(s, y, p=2, debias=True, num_bins=15,
                                    binning_scheme=cu.get_equal_prob_bins)
    assert debiased_ece(s, y, strategy="uniform") == pytest.approx(ref, abs=1e-10)
    # their user-facing default switches to one bin per value on discrete scores
    ref_auto = cu.get_calibration_error(s, y, p=2, debias=True)
    assert debiased_ece(s, y, strategy="auto") == pytest.approx(ref_auto, abs=1e-10)


def test_discrete_scores_use_one_bin_per_value():
    rng = np.random.default_rng(3)
    s = rng.choice([0.1, 0.35, 0.6, 0.9], size=800)
    y = (rng.uniform(size=800) < s**1.3).astype(int)
    ref = cu.get_binning_ce(s, y, p=2, debias=True)
    assert debiased_ece(s, y, strategy="discrete") == pytest.approx(ref, abs=1e-10)
    assert debiased_ece(s, y, strategy="auto") == pytest.approx(ref, abs=1e-10)
    np.testing.assert_allclose(debiased_edges(s, strategy="discrete"),
                               [0.225, 0.475, 0.75, 1.0], atol=1e-15)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_top_label_and_marginal_equal_kumar(seed):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(3000, 4)) * 1.5
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    y = np.array([rng.choice(4, p=np.sqrt(r) / np.sqrt(r).sum()) for r in proba])
    conf, correct = proba.max(axis=1), proba.argmax(axis=1) == y
    top = cu.lower_bound_scaling_ce(proba, y, p=2, debias=True, mode="top-label")
    assert debiased_ece(conf, correct) == pytest.approx(top, abs=1e-10)
    marginal = cu.lower_bound_scaling_ce(proba, y, p=2, debias=True, mode="marginal")
    assert debiased_classwise_ece(y, proba) == pytest.approx(marginal, abs=1e-10)


def test_hand_worked_squared():
    # scores .2 .2 .8 .8, outcomes 0 1 1 1, 2 equal-mass bins -> edge (0.2 + 0.8) / 2 = 0.5
    # bin 1: conf .2, acc .5: (.3)^2 - .5 * .5 / (2 - 1) = 0.09 - 0.25 = -0.16
    # bin 2: conf .8, acc 1:  (.2)^2 - 1 * 0 / 1        = 0.04
    # CE^2 = 0.5 * (-0.16) + 0.5 * 0.04 = -0.06, reported L2 = sqrt(max(-0.06, 0)) = 0
    s, y = [0.2, 0.2, 0.8, 0.8], [0, 1, 1, 1]
    assert debiased_ece_squared(s, y, n_bins=2) == pytest.approx(-0.06, abs=1e-15)
    assert debiased_ece(s, y, n_bins=2) == 0.0


def test_tiny_bins_are_finite_and_add_nothing():
    # 3 rows, 15 bins -> 3 bins of one row each: no variance estimate, all add 0
    assert debiased_ece_squared([0.1, 0.5, 0.9], [1, 0, 1]) == 0.0
    assert np.isfinite(debiased_ece([0.3], [1]))


def test_weights_scale_ones_and_zero():
    s, y = _binary("miscalibrated 500")
    w = np.random.default_rng(0).integers(0, 4, s.size).astype(float)
    base = debiased_ece_squared(s, y, sample_weight=w)
    assert debiased_ece_squared(s, y, sample_weight=np.ones_like(s)) == pytest.approx(
        debiased_ece_squared(s, y), abs=1e-15)
    assert debiased_ece_squared(s, y, sample_weight=w * 0.01) == pytest.approx(base, abs=1e-14)
    keep = w > 0
    assert debiased_ece_squared(s[keep], y[keep], sample_weight=w[keep]) == pytest.approx(
        base, abs=1e-15)


def test_weighted_correction_uses_kish_size():
    # one bin, weights 1 and 3: n_eff = 16 / 10 = 1.6; acc = 3/4 (outcome 1 on w = 3)
    # conf = (0.4 * 1 + 0.6 * 3) / 4 = 0.55
    # CE^2 = (0.55 - 0.75)^2 - 0.75 * 0.25 / (1.6 - 1) = 0.04 - 0.3125 = -0.2725
    got = debiased_ece_squared([0.4, 0.6], [0, 1], n_bins=1, sample_weight=[1, 3])
    assert got == pytest.approx(-0.2725, abs=1e-14)


def test_approximately_unbiased_under_calibration():
    # 400 calibrated samples of 1000 rows: the plug-in squared ECE of the same bins is
    # biased upward by about sum_b ybar(1 - ybar) / n ~ 15 * 0.16 / 1000 = 2.4e-3; the
    # debiased estimate averages to the true value 0 (up to the binned-truth effect)
    rng = np.random.default_rng(11)
    deb, plug = [], []
    for _ in range(400):
        s = rng.beta(2, 3, 1000)
        y = (rng.uniform(size=1000) < s).astype(int)
        deb.append(debiased_ece_squared(s, y))
        bins = cu.get_equal_bins(list(s), num_bins=15)
        plug.append(cu.plugin_ce(cu.bin(list(zip(s, y, strict=True)), bins), power=2) ** 2)
    deb, plug = np.array(deb), np.array(plug)
    se = deb.std(ddof=1) / np.sqrt(deb.size)
    assert abs(deb.mean()) < 4 * se + 1e-4
    assert plug.mean() > 1.5e-3
    assert plug.mean() - deb.mean() > 10 * se


def test_recovers_a_known_miscalibration():
    # truth P(y | s) = s^2 on uniform scores: squared L2 error int (s - s^2)^2 ds = 1/30;
    # 15 equal-mass bins lose a little of it (a lower bound, section 5): about 0.0331
    rng = np.random.default_rng(12)
    s = rng.uniform(size=200_000)
    y = (rng.uniform(size=s.size) < s**2).astype(int)
    assert debiased_ece_squared(s, y) == pytest.approx(1 / 30, abs=1.5e-3)
    assert debiased_ece_squared(s, y) < binned.ece(s, y, p=2, strategy="quantile") ** 2


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match=r"`strategy` must be one of 'equal_mass'"):
        debiased_ece([0.1, 0.9], [0, 1], strategy="quantile")
    with pytest.raises(ValueError, match=r"`n_bins` must be a positive integer"):
        debiased_ece([0.1, 0.9], [0, 1], n_bins=0)
    with pytest.raises(ValueError, match=r"`score` has 1 value outside \[0, 1\]"):
        debiased_ece([0.1, 1.9], [0, 1])
    with pytest.raises(ValueError, match=r"`y_true` has 1 value that is not a class code"):
        debiased_classwise_ece([0, 5], [[0.3, 0.7], [0.5, 0.5]])
