"""Weights everywhere: debiased ECE, LCS, ECI and TCE_bpm under sample weights.

Frequency weights equal the rows repeated ``w`` times (to 1e-10): every one of these
metrics is deterministic (no sampling, no random start), so equality is exact up to
rounding. Importance weights are honoured where a weighted definition exists
(debiased ECE: all-ones equal no weights, any scale the same value) and refused
with the reason elsewhere (the fits count rows).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import calreport  # noqa: F401  (registers the accessors)
from calreport.metrics import debiased

FOUR = ["debiased_ece", "lcs", "eci", "tce_bpm"]


def _frame(n=300, seed=0, ties=False):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 1, n)
    if ties:
        p = np.round(p, 1)
    y = (rng.random(n) < p**1.3).astype(int)
    return pd.DataFrame({"y": y, "p": p, "w": rng.integers(1, 4, n)})


def _repeated(df):
    return df.loc[df.index.repeat(df["w"])]


# ---------------------------------------------------------------- debiased ECE
@pytest.mark.parametrize("strategy", debiased.DEBIAS_STRATEGIES)
@pytest.mark.parametrize("n_bins", [15, 4, 1000])
def test_debiased_frequency_equals_repeated_rows(strategy, n_bins):
    df = _frame(seed=3, ties=strategy == "discrete")
    s, y, w = df["p"].to_numpy(), df["y"].to_numpy(), df["w"].to_numpy().copy()
    w[::7] = 0  # zero counts: rows absent from the repeated data
    kw = {"n_bins": n_bins, "strategy": strategy}
    got = debiased.debiased_ece_squared(s, y, sample_weight=w, weights="frequency", **kw)
    ref = debiased.debiased_ece_squared(np.repeat(s, w), np.repeat(y, w), **kw)
    assert got == pytest.approx(ref, rel=1e-10, abs=1e-12)
    np.testing.assert_array_equal(
        debiased.debiased_edges(s, sample_weight=w, weights="frequency", **kw),
        debiased.debiased_edges(np.repeat(s, w), **kw))


def test_debiased_importance_ones_scale_and_frequency_default_kept():
    df = _frame(seed=4)
    s, y, w = df["p"].to_numpy(), df["y"].to_numpy(), df["w"].to_numpy() * 0.37
    base = debiased.debiased_ece(s, y)
    assert debiased.debiased_ece(s, y, sample_weight=np.ones(s.size),
                                 weights="importance") == pytest.approx(base, abs=1e-15)
    ref = debiased.debiased_ece(s, y, sample_weight=w)
    for scale in (1e-300, 1e-8, 1e8, 1e300):
        assert debiased.debiased_ece(s, y, sample_weight=w * scale) == pytest.approx(
            ref, rel=1e-12)
    with pytest.raises(ValueError, match="not a whole number"):
        debiased.debiased_ece(s, y, sample_weight=w, weights="frequency")


# -------------------------------------------------------------------- TCE_bpm
@pytest.mark.parametrize("n", [300, 2000])
def test_tce_bpm_frequency_equals_repeated_rows(n):
    from calreport.metrics import bpm

    rng = np.random.default_rng(n)
    s = np.round(rng.beta(4, 1.5, n), 2)  # ties: bins cut inside runs of equal scores
    y = (rng.random(n) < s**1.5).astype(int)
    w = rng.integers(0, 4, n)
    got = bpm.tce_bpm(s, y, sample_weight=w, return_fit=True)
    ref = bpm.tce_bpm(np.repeat(s, w), np.repeat(y, w), return_fit=True)
    assert got.tce == pytest.approx(ref.tce, rel=1e-10)
    assert got.fit.n == ref.fit.n == w.sum()
    assert got.fit.bin_counts == ref.fit.bin_counts
    np.testing.assert_allclose(got.fit.coef, ref.fit.coef, rtol=1e-9)
    np.testing.assert_allclose(got.density, ref.density, rtol=1e-12)
    assert bpm.tce_bpm(s, y, sample_weight=np.ones(n)) == pytest.approx(
        bpm.tce_bpm(s, y), rel=1e-12)


def test_tce_bpm_refuses_importance_weights():
    from calreport.metrics import bpm

    s = np.linspace(0.05, 0.95, 200)
    with pytest.raises(ValueError, match="TCE_bpm is not defined with importance weights"):
        bpm.tce_bpm(s, s > 0.5, sample_weight=np.ones(200), weights="importance")
    with pytest.raises(ValueError, match="needs at least 60"):
        bpm.tce_bpm(s, s > 0.5, sample_weight=np.r_[np.ones(59), np.zeros(141)])
