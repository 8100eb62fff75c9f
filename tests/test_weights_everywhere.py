"""Weights everywhere: debiased ECE, LCS, ECI and TCE_bpm under sample weights.

Frequency weights equal the rows repeated ``w`` times (to 1e-10): every one of these
metrics is deterministic (no sampling, no random start), so equality is exact up to
rounding.  (Scores are rounded to 2-3 decimals for ties, not 1: with ten distinct
scores a LOWESS window can hold its positive weights on one score only, where
statsmodels' local line is undefined and its value is the tied mean plus rounding
amplified by the 1e-12 variance floor, about 1e-6, on the repeated rows too; see
:mod:`calreport.metrics._local_units`.)  TCE_bpm agrees to its fit's precision
(``TOL``).  Importance weights are honoured where a weighted definition exists
(debiased ECE: all-ones equal no weights, any scale the same value) and refused with
the reason elsewhere (the fits count rows).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import calreport
from calreport.metrics import debiased
from calreport.profile import ConfidenceProfile
from calreport.summary import summarize

FOUR = ["debiased_ece", "lcs", "eci", "tce_bpm"]
#: Relative agreement with the repeated rows on this file's fixed frames.  TCE_bpm's
#: curve is an optimum found by Newton steps that stop when the loss stops decreasing
#: in rounding: bin sums differing in the last bit move its parameters, so its TCE
#: agrees to 1e-8 on these frames (small random frames: ``PROPERTY_TOL``); the others
#: are closed forms of the same sums, to 1e-10.
TOL = {"debiased_ece": 1e-10, "lcs": 1e-10, "eci": 1e-10, "tce_bpm": 1e-8}
#: The property below draws small frames (70-160 rows, 60-800 units) whose fit is
#: ill-conditioned, and frequency weights and repeated rows may then take different
#: paths to the same optimum (Newton, accepted at a gradient <= 1e-9, or L-BFGS-B,
#: which stops at a projected gradient <= 1e-10 or at a relative loss decrease
#: <= ftol = 1e-15).  The bin sums agree to 1e-15 and the two losses at both optima
#: agree to the last bit: the optimiser's stopping rule, not the weights, sets the
#: difference.  Near the optimum the loss is quadratic, so a stop at ftol locates the
#: parameters to sqrt(2 ftol |loss| / lambda), with |loss| about 0.5 and lambda, the
#: smallest curvature, above 1e-3 on 99 % of these frames: about 1e-6.  (Seen: TCE
#: relative differences of 1.8e-8 and 6e-8, the worst of 5,300 random frames.)
PROPERTY_TOL = {**TOL, "tce_bpm": 1e-6}


def _frame(n=300, seed=0, ties=False):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 1, n)
    if ties:  # about 100 distinct scores (see the LOWESS note below)
        p = np.round(p, 2)
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


def test_debiased_frequency_equals_kumars_package_on_the_repeated_rows():
    """The issue's check: Kumar, Liang & Ma's ``calibration`` package on the repeated
    rows gives what frequency weights give (it gave 0.0 against their 0.0506)."""
    cu = pytest.importorskip("calibration.utils")
    df = _frame(300, seed=13)
    rep = _repeated(df)
    ref = cu.lower_bound_scaling_ce(rep["p"].to_numpy(), rep["y"].to_numpy(), p=2,
                                    debias=True, num_bins=15)
    got = df.calib(y="y", proba="p", weight="w", weights="frequency").debiased_ece(
        view="positive")
    assert got == pytest.approx(ref, rel=1e-10)


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
    assert got.tce == pytest.approx(ref.tce, rel=TOL["tce_bpm"])
    assert got.fit.n == ref.fit.n == w.sum()
    assert got.fit.bin_counts == ref.fit.bin_counts
    np.testing.assert_allclose(got.fit.coef, ref.fit.coef, rtol=1e-8)
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


# ------------------------------------------------------------------- LCS and ECI
@pytest.fixture(params=["window sums", "repeated"])
def lu(request, monkeypatch):
    """The frequency-weighted LOWESS both ways: window sums over the rows, and the
    repeated rows (built when small) through the unweighted engine."""
    from calreport.metrics import _local_units

    if request.param == "window sums":
        monkeypatch.setattr(_local_units, "REPEAT_MAX", 0)
    return _local_units


@pytest.mark.parametrize(("n", "ties"), [(300, False), (300, True), (3000, False)])
def test_lcs_eci_frequency_equal_repeated_rows(lu, n, ties):
    from calreport.metrics.calibration_index import eci
    from calreport.metrics.local import lcs

    df = _frame(n, seed=n + ties, ties=ties)
    s, y, w = df["p"].to_numpy(), df["y"].to_numpy(), df["w"].to_numpy().copy()
    w[::5] = 0
    rs, ry = np.repeat(s, w), np.repeat(y, w)
    assert lu.lcs_counts(s, y, w) == pytest.approx(lcs(rs, ry), rel=1e-10)
    assert lu.eci_counts(s, y, w) == pytest.approx(eci(rs, ry), rel=1e-10)
    # the curve read at every distinct score, and interpolated between quantile nodes
    assert lu.eci_counts(s, y, w, n_nodes=None) == pytest.approx(
        eci(rs, ry, n_nodes=None), rel=1e-10)
    assert lu.eci_counts(s, y, w, n_nodes=20) == pytest.approx(eci(rs, ry, n_nodes=20),
                                                               rel=1e-10)


def test_lcs_eci_heavy_tie_and_heavy_row_take_the_tied_mean(lu):
    """A score holding more than frac of the units (here confidence 1 and one row of
    weight n) has no local line: the repeated rows' tied mean, as unweighted."""
    from calreport.metrics.calibration_index import eci
    from calreport.metrics.local import lcs

    rng = np.random.default_rng(1)
    n = 400
    s = rng.uniform(0.3, 1, n)
    s[: n // 4] = 1.0
    y = (rng.random(n) < s**1.3).astype(int)
    w = rng.integers(0, 4, n)
    w[-1] = n
    rs, ry = np.repeat(s, w), np.repeat(y, w)
    assert lu.lcs_counts(s, y, w) == pytest.approx(lcs(rs, ry), rel=1e-10)
    assert lu.eci_counts(s, y, w) == pytest.approx(eci(rs, ry), rel=1e-10)
    assert lu.lcs_counts(s, y, np.ones(n)) == pytest.approx(lcs(s, y), rel=1e-12)


# ----------------------------------------------------- through the accessor and summary
@pytest.mark.parametrize("ties", [False, True])
def test_accessor_frequency_weights_equal_the_repeated_frame(ties):
    df = _frame(300, seed=7, ties=ties)
    got = df.calib(y="y", proba="p", weight="w", weights="frequency").summary(metrics=FOUR)
    ref = _repeated(df).calib(y="y", proba="p").summary(metrics=FOUR)
    for m in FOUR:
        assert got[m] == pytest.approx(ref[m], rel=TOL[m]), m
    assert not got.attrs.get("reasons")


def test_grouped_frequency_weights_equal_each_repeated_group():
    df = _frame(600, seed=8).assign(g=lambda d: np.arange(len(d)) % 3)
    got = df.groupby("g").calib(y="y", proba="p", weight="w",
                                weights="frequency").summary(metrics=FOUR)
    for key, part in df.groupby("g"):
        ref = _repeated(part).calib(y="y", proba="p").summary(metrics=FOUR)
        for m in FOUR:
            assert got.loc[key, m] == pytest.approx(ref[m], rel=TOL[m]), (key, m)


def test_importance_weights_refused_with_the_reason_or_honoured():
    df = _frame(300, seed=9).assign(w=lambda d: d["w"] * 0.7)
    with pytest.warns(calreport.UndefinedMetricWarning,
                      match="not defined with importance weights: its fit counts rows"):
        got = df.calib(y="y", proba="p", weight="w").summary(metrics=FOUR)
    for m in ("lcs", "eci", "tce_bpm"):
        assert math.isnan(got[m])
        assert got.attrs["reasons"][m].startswith("not defined with importance weights")
        assert "weights='frequency'" in got.attrs["reasons"][m]
    # debiased ECE: importance weights honoured, scale-free, all ones = no weights
    for scale in (1e-200, 1.0, 1e200):
        scaled = df.assign(w=df["w"] * scale).calib(y="y", proba="p", weight="w")
        assert scaled.debiased_ece() == pytest.approx(got["debiased_ece"], rel=1e-12)
    with pytest.warns(calreport.UndefinedMetricWarning, match="importance weights"):
        ones = df.assign(w=1.0).calib(y="y", proba="p", weight="w").summary(metrics=FOUR)
    plain = df.calib(y="y", proba="p").summary(metrics=FOUR)
    assert ones["debiased_ece"] == pytest.approx(plain["debiased_ece"], rel=1e-12)
    for m in ("lcs", "eci", "tce_bpm"):  # all-ones importance weights are still refused
        assert math.isnan(ones[m]) and not math.isnan(plain[m])


def test_frequency_ones_equal_no_weights_and_scale_matters():
    df = _frame(300, seed=10)
    plain = df.calib(y="y", proba="p").summary(metrics=FOUR)
    ones = df.assign(w=1).calib(y="y", proba="p", weight="w",
                                weights="frequency").summary(metrics=FOUR)
    for m in FOUR:
        assert ones[m] == pytest.approx(plain[m], rel=1e-12), m


# ------------------------------------------------------------------- a property
def _weighted_frame(n, seed, decimals, power, w_high):
    rng = np.random.default_rng(seed)
    s = rng.uniform(0, 1, n)
    if decimals is not None:
        s = np.round(s, decimals)
    y = (rng.random(n) < s**power).astype(int)
    w = rng.integers(0, w_high, n)
    w[0] = max(w[0], 1)
    return pd.DataFrame({"y": y, "p": s, "w": w})


@st.composite
def _weighted_rows(draw):
    n = draw(st.integers(70, 160))
    seed = draw(st.integers(0, 2**32 - 1))
    decimals = draw(st.integers(2, 3)) if draw(st.booleans()) else None
    return _weighted_frame(n, seed, decimals, draw(st.floats(0.5, 2.0)),
                           draw(st.integers(2, 6)))


@settings(max_examples=25, deadline=None)
@given(_weighted_rows())
# TCE_bpm 5.1e-8 apart (a bound binds: L-BFGS-B stops at its gradient on the weighted
# rows, at ftol on the repeated ones), and 6.0e-8 (Newton on the repeated rows only)
@example(_weighted_frame(150, 3326911096, None, 1.3008819144487473, 3))
@example(_weighted_frame(71, 2679238917, None, 1.2400786147175626, 5))
def test_property_frequency_weights_are_repeated_rows(df):
    from unittest import mock

    from calreport.metrics import _local_units

    prof = ConfidenceProfile.from_arrays(df["y"], df["p"], sample_weight=df["w"],
                                         weights="frequency")
    rep = _repeated(df)
    ref = summarize(ConfidenceProfile.from_arrays(rep["y"], rep["p"]), metrics=FOUR)
    for repeat_max in (_local_units.REPEAT_MAX, 0):  # repeated, and window sums
        with mock.patch.object(_local_units, "REPEAT_MAX", repeat_max):
            got = summarize(prof, metrics=FOUR)
        assert got.values["n"] == got.values["n_eff"] == ref.values["n"] == df["w"].sum()
        for m in FOUR:
            a, b = got.values[m], ref.values[m]
            # undefined on both (too few rows for TCE_bpm, one score), with one reason
            assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(
                b, rel=PROPERTY_TOL[m], abs=1e-13), m
            assert got.reasons.get(m) == ref.reasons.get(m), m


# ------------------------------------------------------------------ n and n_eff
def test_n_counts_units_of_frequency_weights_and_n_eff_is_kish():
    df = _frame(300, seed=11)
    df.loc[::10, "w"] = 0
    w = df["w"].to_numpy(float)
    freq = df.calib(y="y", proba="p", weight="w", weights="frequency").summary(
        metrics=["ece"])
    rep = _repeated(df).calib(y="y", proba="p").summary(metrics=["ece"])
    assert freq["n"] == rep["n"] == freq["n_eff"] == rep["n_eff"] == w.sum()
    imp = df.calib(y="y", proba="p", weight="w").summary(metrics=["ece"])
    assert imp["n"] == np.count_nonzero(w)
    assert imp["n_eff"] == pytest.approx(w.sum() ** 2 / np.sum(w * w), rel=1e-12)
    for scale in (1e-300, 1e300):
        scaled = df.assign(w=w * scale).calib(y="y", proba="p", weight="w")
        assert scaled.summary(metrics=["ece"])["n_eff"] == pytest.approx(imp["n_eff"],
                                                                         rel=1e-12)
    plain = df.calib(y="y", proba="p").summary(metrics=["ece"])
    assert plain["n"] == plain["n_eff"] == 300
    grouped = df.assign(g=np.arange(300) % 2).groupby("g").calib(
        y="y", proba="p", weight="w").summary(metrics=["ece"])
    for key in (0, 1):
        part = w[np.arange(300) % 2 == key]
        assert grouped.loc[key, "n_eff"] == pytest.approx(
            part.sum() ** 2 / np.sum(part * part), rel=1e-12)


@pytest.mark.filterwarnings("ignore::calreport.UndefinedMetricWarning")
@pytest.mark.parametrize("weights", ["frequency", "importance"])
def test_out_of_core_n_and_the_four_metrics_equal_pandas(weights):
    from calreport.accumulator import Accumulator

    df = _frame(400, seed=12)
    want = df.calib(y="y", proba="p", weight="w", weights=weights).summary(
        metrics=FOUR)
    acc = Accumulator(y="y", proba="p", weight="w", weights=weights, sample_size=20_000)
    for part in (df.iloc[:150], df.iloc[150:]):
        acc.update(part)
    got = acc.summary()
    for m in ["n", "n_eff", *FOUR]:
        assert got[m] == pytest.approx(want[m], rel=TOL.get(m, 1e-12), nan_ok=True), m
    if weights == "importance":  # refused out of core too, with the pandas reason
        for m in ("lcs", "eci", "tce_bpm"):
            assert got.attrs["reasons"][m] == [want.attrs["reasons"][m]]
