"""Smooth ECE against the authors' package ``relplot`` and a direct evaluation."""

from __future__ import annotations

import numpy as np
import pytest

from calreport.metrics.smooth import smece, smece_bandwidth, smooth_reliability_curve

relplot = pytest.importorskip("relplot")
from relplot.estimators import KernelSmoother  # noqa: E402
from relplot.kernels import ReflectedGaussianKernel  # noqa: E402


def _datasets() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(123)
    out = {}
    # the "unif pair" of the reference notes: miscalibrated (truth s^2), then calibrated
    f = rng.uniform(0, 1, 2000)
    out["uniform, truth s^2"] = (f, (rng.uniform(0, 1, 2000) < f**2).astype(float))
    f = rng.uniform(0, 1, 2000)
    out["uniform, calibrated"] = (f, (rng.uniform(0, 1, 2000) < f).astype(float))
    # relplot's README example: confidence calibration of multiclass logits
    logits = rng.normal(size=(3000, 5)) * 2.0
    labels = rng.integers(0, 5, 3000)
    conf, acc = relplot.multiclass_logits_to_confidences(logits, labels)
    out["relplot README: logits -> confidences"] = (conf, acc)
    # deep-net-like confidences with many rows exactly at 1
    f = rng.beta(5, 1, 5000)
    f[:500] = 1.0
    out["mass at 1"] = (f, (rng.uniform(size=5000) < 0.9 * f).astype(float))
    out["tiny"] = (rng.uniform(size=37), rng.integers(0, 2, 37).astype(float))
    out["scores on 0 and 1"] = (np.array([0.0, 0.0, 1.0, 0.5]), np.array([0.0, 1, 1, 0]))
    f = rng.uniform(size=20000) ** 3
    out["skewed, calibrated (small sigma*)"] = (f, (rng.uniform(size=20000) < f).astype(float))
    f = rng.beta(2, 3, 100_000)
    out["1e5 overconfident"] = (f, (rng.uniform(size=f.size) < 0.2 + 0.6 * f).astype(float))
    return out


DATA = _datasets()


@pytest.mark.parametrize("name", list(DATA))
def test_smece_equals_relplot(name):
    f, y = DATA[name]
    ref, ref_sigma = relplot.smECE(f, y, return_width=True)
    assert smece(f, y) == pytest.approx(ref, abs=1e-6, rel=0)
    assert smece(f, y) == pytest.approx(ref, abs=1e-12, rel=0)  # in fact to rounding
    assert smece_bandwidth(f, y) == ref_sigma


@pytest.mark.parametrize("name", list(DATA))
@pytest.mark.parametrize("sigma", [0.003, 0.05, 0.3, 1.0])
def test_smece_at_fixed_sigma_equals_relplot(name, sigma):
    f, y = DATA[name]
    assert smece(f, y, sigma=sigma) == pytest.approx(relplot.smECE_sigma(f, y, sigma),
                                                     abs=1e-12, rel=0)


@pytest.mark.parametrize("name", ["uniform, truth s^2", "mass at 1", "tiny"])
def test_curve_equals_relplot_kernel_smoother(name):
    f, y = DATA[name]
    curve = smooth_reliability_curve(f, y)
    est = KernelSmoother(ReflectedGaussianKernel(curve.sigma)).fit(f.reshape(-1, 1), y)
    ref = est.predict(curve.grid.reshape(-1, 1))
    np.testing.assert_allclose(curve.mean_outcome, ref, atol=1e-10, rtol=0)
    assert curve.smece == pytest.approx(relplot.smECE(f, y), abs=1e-12)
    # the density is normalised on the grid (trapezoid rule)
    assert np.trapezoid(curve.density, curve.grid) == pytest.approx(1.0, abs=1e-12)
    assert not curve.mean_outcome.flags.writeable


def _direct_reflected(f, y, sigma):
    """Brute force: three images of every row, exact kernel, no node grid.

    Integrals are equal-weight sums over the mesh of max(200, 10 / sigma) points,
    the quadrature smece documents; only the node grid differs.
    """
    t = np.linspace(0, 1, max(200, round(10 / sigma)))[:, None]
    z = np.exp(-((t - f) ** 2) / (2 * sigma**2)) + np.exp(-((t + f) ** 2) / (2 * sigma**2))
    z += np.exp(-((t - (2 - f)) ** 2) / (2 * sigma**2))
    return np.abs(z @ (f - y)).sum() / z.sum()


@pytest.mark.parametrize("name", ["mass at 1", "scores on 0 and 1", "tiny"])
def test_reflect_boundary_matches_direct_evaluation(name):
    # with sigma = 0.05 the +-1/2 truncation removes < 1e-20 of the kernel mass,
    # so only the grid discretisation separates the two
    f, y = DATA[name]
    direct = _direct_reflected(f, y, 0.05)
    assert smece(f, y, sigma=0.05, boundary="reflect") == pytest.approx(direct, abs=2e-5)
    if name == "mass at 1":
        # relplot's half-kept end node gives a visibly different value here
        assert abs(smece(f, y, sigma=0.05) - direct) > 1e-3


def test_reflect_equals_relplot_away_from_the_boundary():
    rng = np.random.default_rng(5)
    f = rng.uniform(0.01, 0.99, 3000)
    y = (rng.uniform(size=3000) < f**1.5).astype(float)
    assert smece(f, y, boundary="reflect") == pytest.approx(smece(f, y), abs=1e-12)


def test_weights_all_ones_scale_zero_and_integer():
    f, y = DATA["uniform, truth s^2"]
    rng = np.random.default_rng(1)
    w = rng.integers(0, 4, f.size).astype(float)
    base = smece(f, y, sample_weight=w)
    assert smece(f, y, sample_weight=np.ones_like(f)) == smece(f, y)
    assert smece(f, y, sample_weight=w * 7.5) == pytest.approx(base, abs=1e-12)
    keep = w > 0
    assert smece(f[keep], y[keep], sample_weight=w[keep]) == pytest.approx(base, abs=1e-12)
    # integer weights = repeated rows, up to the 1e-4 density floor (scaled by N)
    rep = np.repeat(np.arange(f.size), w.astype(int))
    assert smece(f[rep], y[rep]) == pytest.approx(base, abs=1e-8)
    assert smece_bandwidth(f[rep], y[rep]) == smece_bandwidth(f, y, sample_weight=w)


def test_hand_checkable_constant_residual():
    # every row at s = 0.3 with outcome 1: residual -0.7 everywhere, so the
    # smoothed residual is -0.7 times the smoothed weight at every mesh point and
    # smECE_sigma = 0.7 * sum(A_1) / sum(A_1 + 1e-4): 0.7 up to the density floor.
    # A_1 sums kernel densities (about 50 * phi at the mesh points), so sum(A_1) is
    # about 50 * 199 and the floor (200 * 1e-4) lowers the value by about 2e-6 * 0.7
    f = np.full(50, 0.3)
    y = np.ones(50)
    value = smece(f, y, sigma=0.1)
    assert 0.7 - 5e-6 < value < 0.7
    # the fixed point: smECE_sigma = 0.7 > sigma for every sigma < 0.7, so the
    # bisection settles on the first dyadic midpoint above 0.7, 0.7001953125
    assert smece_bandwidth(f, y) == 717 / 1024


def test_large_calibrated_sample_is_small():
    # 1e6 calibrated rows: the grid path handles them and the error is near 0
    rng = np.random.default_rng(2)
    f = rng.uniform(size=1_000_000)
    y = (rng.uniform(size=f.size) < f).astype(float)
    assert smece(f, y) < 0.01


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"sigma": 0.0}, ValueError, r"`sigma` must be in \[0.0001, 1\]"),
        ({"sigma": 2.0}, ValueError, r"sigma=None for the automatic bandwidth"),
        ({"sigma": "wide"}, TypeError, r"`sigma` must be a number"),
        ({"boundary": "mirror"}, ValueError, r"`boundary` must be one of 'relplot', 'reflect'"),
        ({"sample_weight": [1.0, -1.0, 1.0]}, ValueError, r"`sample_weight` has 1 negative"),
    ],
)
def test_errors(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        smece([0.1, 0.5, 0.9], [0, 1, 1], **kwargs)


def test_input_errors_name_the_argument():
    with pytest.raises(ValueError, match=r"`score` has 1 value outside \[0, 1\]"):
        smece([0.1, 1.5], [0, 1])
    with pytest.raises(ValueError, match=r"`outcome` must hold 0/1"):
        smece([0.1, 0.5], [0, 2])
    with pytest.raises(ValueError, match=r"`score` has 2, `outcome` has 3"):
        smece([0.1, 0.5], [0, 1, 1])
    with pytest.raises(ValueError, match=r"`n_points` must be an integer >= 2"):
        smooth_reliability_curve([0.1, 0.5], [0, 1], n_points=1)

