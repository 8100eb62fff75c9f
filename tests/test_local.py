"""Local calibration: LOWESS / local-mean calibration curve, LCS, ICI family.

Reference values come from R 4.2.2 runs of the original definitions on the
deterministic datasets D(kind, n) below -- the Local Calibration Score of Fernandes
Machado et al. (2024, arXiv:2402.07790) by a brute-force nearest-neighbour local mean
(the locfit ``deg = 0``, ``kern = "rect"``, ``nn = 0.15`` fit without its jitter) with
the reflected-KDE weights of R's ``density()``, and the ICI family of Austin &
Steyerberg (2019, doi:10.1002/sim.8281) by R's ``loess`` with its default settings --
and from independent computations in this file:
statsmodels' ``lowess`` called directly, an O(J N) brute-force nearest-neighbour
local mean and the exact Gaussian sum of the reflected KDE over all 3n points.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.nonparametric.smoothers_lowess import lowess

from calreport.metrics import _score_density, local, local_band
from calreport.metrics.calibration_index import (
    calibration_error_summary,
    eci,
    eci_multiclass,
    ici,
)
from calreport.metrics.local import lcs, lowess_curve

GOLDEN = 0.6180339887498949


def dataset_d(kind: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """D(kind, n): scores (i - 0.5)/n, outcomes 1{frac(i * golden) < g(score)}, deterministic."""
    i = np.arange(1, n + 1)
    f = (i - 0.5) / n
    u = np.modf(i * GOLDEN)[0]
    truth = f**2 if kind == "sq" else f
    return f, (u < truth).astype(np.int64)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def logit(p):
    return np.log(p) - np.log1p(-p)


# --- independent reference computations ------------------------------------------


def grid_in_range(s, n_grid=100):
    g = np.linspace(0, 1, n_grid)
    return g[(g >= s.min()) & (g <= s.max())]


def brute_force_local_mean(s, y, x, frac):
    """LCS's local mean: k-th nearest distance by a full sort per point (ties included)."""
    k = int(np.floor(frac * len(s)))
    out = []
    for xj in x:
        d = np.abs(s - xj)
        h = np.sort(d)[k - 1]
        out.append(y[d <= h].mean())
    return np.array(out)


def exact_reflected_kde(s, x):
    """Gaussian KDE of {-s, s, 2-s} at x by the full 3n-term sum, R's bw.nrd0."""
    r = np.concatenate([-s, s, 2 - s])
    q75, q25 = np.percentile(r, [75, 25])
    bw = 0.9 * min(r.std(ddof=1), (q75 - q25) / 1.34) * len(r) ** (-0.2)
    z = (x[:, None] - r[None, :]) / bw
    return np.exp(-0.5 * z**2).sum(axis=1) / (len(r) * bw * math.sqrt(2 * math.pi)), bw


def reference_lcs(s, y, fitted_at_grid_fn):
    x = grid_in_range(s)
    g = np.clip(fitted_at_grid_fn(x), 0, 1)
    w, _ = exact_reflected_kde(s, x)
    return np.sum(w * (g - x) ** 2) / np.sum(w)


# --- reference values of the R 4.2.2 runs ---------------------------------------------

# LCS with the brute-force nearest-neighbour local mean (span 0.15, rectangular
# kernel, no jitter) and the reflected-KDE bandwidth, printed to 8 / 6 decimals.
BRUTE_FORCE_NN = {
    ("sq", 500): (0.03261112, 0.180592),
    ("sq", 2000): (0.03372968, 0.136829),
    ("id", 500): (0.00035654, 0.180592),
    ("id", 2000): (0.00023711, 0.136829),
}


@pytest.mark.parametrize(("kind", "n"), list(BRUTE_FORCE_NN))
def test_local_constant_lcs_reproduces_r_reference(kind, n):
    s, y = dataset_d(kind, n)
    expected, _ = BRUTE_FORCE_NN[(kind, n)]
    # the R run printed 8 decimals (D(id,500) = 0.000356545040 is printed 0.00035654):
    # agreement to one unit of the last digit
    assert lcs(s, y, method="local_constant") == pytest.approx(expected, abs=1e-8)


@pytest.mark.parametrize(("kind", "n"), list(BRUTE_FORCE_NN))
def test_reflected_kde_bandwidth_matches_r_bw_nrd0(kind, n):
    s, _ = dataset_d(kind, n)
    _, bw = _score_density.reflected_kde(s, np.array([0.5]))
    assert bw == pytest.approx(BRUTE_FORCE_NN[(kind, n)][1], abs=5e-7)


@pytest.mark.parametrize(("kind", "n"), list(BRUTE_FORCE_NN))
def test_lowess_lcs_close_to_r_reference(kind, n):
    # default LOWESS (frac 0.15): within 1 % on the miscalibrated datasets; on the
    # calibrated ones it lacks the local mean's boundary bias, so it is smaller and
    # only an absolute tolerance makes sense
    s, y = dataset_d(kind, n)
    expected, _ = BRUTE_FORCE_NN[(kind, n)]
    got = lcs(s, y)
    if kind == "sq":
        assert got == pytest.approx(expected, rel=0.01)
    else:
        assert 0 <= got < expected
        assert got == pytest.approx(expected, abs=2.5e-4)


def test_lowess_lcs_matches_direct_statsmodels_and_exact_kde():
    rng = np.random.default_rng(11)
    s = rng.beta(2, 4, 700)
    y = (rng.random(700) < s**1.5).astype(int)
    for frac in (0.1, 0.15, 0.4):
        expected = reference_lcs(
            s, y, lambda x, f=frac: lowess(y, s, frac=f, it=0, xvals=x)
        )
        assert lcs(s, y, frac=frac) == pytest.approx(expected, rel=1e-6)


def test_local_constant_lcs_matches_brute_force_with_ties():
    # scores rounded to 2 decimals: many rows at exactly the k-th distance
    rng = np.random.default_rng(5)
    s = np.round(rng.uniform(0.03, 0.97, 400), 2)
    y = (rng.random(400) < s**2).astype(int)
    for frac in (0.05, 0.15, 0.5):
        expected = reference_lcs(s, y, lambda x, f=frac: brute_force_local_mean(s, y, x, f))
        # the binned KDE weights agree with the exact sum to ~1e-7 relative
        assert lcs(s, y, method="local_constant", frac=frac) == pytest.approx(
            expected, rel=1e-6)


def test_local_constant_curve_matches_brute_force_at_arbitrary_points():
    rng = np.random.default_rng(6)
    s = np.round(rng.beta(0.5, 0.5, 300), 3)
    y = (rng.random(300) < s).astype(int)
    x = np.sort(np.r_[rng.uniform(0, 1, 50), 0.0, 1.0, s[:10]])
    curve = lowess_curve(s, y, method="local_constant", frac=0.2, grid=x)
    np.testing.assert_allclose(curve.y, brute_force_local_mean(s, y, x, 0.2), rtol=0,
                               atol=1e-12)


@pytest.mark.parametrize(("n", "shape"), [(50, (1, 1)), (3000, (0.3, 0.3)), (20000, (5, 1))])
def test_reflected_kde_matches_exact_gaussian_sum(n, shape):
    rng = np.random.default_rng(n)
    s = np.sort(rng.beta(*shape, n))
    x = np.linspace(0, 1, 37)
    got, bw = _score_density.reflected_kde(s, x)
    expected, bw_exact = exact_reflected_kde(s, x)
    assert bw == pytest.approx(bw_exact, rel=1e-12)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


# --- the curve -------------------------------------------------------------------


def test_curve_matches_direct_statsmodels_call():
    rng = np.random.default_rng(1)
    s = rng.uniform(0.02, 0.97, 1500)  # unsorted on purpose
    y = (rng.random(1500) < s**2).astype(int)
    curve = lowess_curve(s, y, frac=0.3)
    grid = np.linspace(0, 1, 100)
    grid = grid[(grid >= s.min()) & (grid <= s.max())]
    np.testing.assert_array_equal(curve.x, grid)
    direct = lowess(y, s, frac=0.3, it=0, xvals=grid)
    np.testing.assert_allclose(curve.y, np.clip(direct, 0, 1), rtol=1e-12, atol=1e-14)
    assert (curve.method, curve.frac, curve.n, curve.n_neighbors) == ("lowess", 0.3, 1500,
                                                                      450)


def test_curve_with_delta_matches_statsmodels_delta_fit():
    rng = np.random.default_rng(2)
    s = rng.uniform(0, 1, 3000)
    y = (rng.random(3000) < s).astype(int)
    curve = lowess_curve(s, y, frac=0.5, delta=0.001)
    fit = lowess(y, s, frac=0.5, it=0, delta=0.001)  # sorted (x, fitted) pairs
    np.testing.assert_allclose(curve.y, np.clip(np.interp(curve.x, fit[:, 0], fit[:, 1]),
                                                0, 1), rtol=1e-12)


def test_curve_user_grid_keeps_order_and_clips():
    s, y = dataset_d("sq", 500)
    grid = np.array([0.9, 0.1, 0.5, 0.0])
    curve = lowess_curve(s, y, grid=grid)
    np.testing.assert_array_equal(curve.x, grid)
    direct = lowess(y.astype(float), s, frac=0.15, it=0, xvals=np.sort(grid))
    np.testing.assert_allclose(curve.y, np.clip(direct[[3, 1, 2, 0]], 0, 1), rtol=1e-12)
    assert np.all((curve.y >= 0) & (curve.y <= 1))


def test_default_grid_is_restricted_to_score_range():
    s, y = dataset_d("id", 500)
    curve = lowess_curve(s, y)
    assert curve.x.size == 98  # as in the R runs: J = 98 grid points on the D datasets
    assert curve.x[0] == pytest.approx(1 / 99) and curve.x[-1] == pytest.approx(98 / 99)
    assert lowess_curve(s, y, n_grid=11).x.size == 9


def test_heavy_tie_at_one_uses_the_mean_of_the_tied_rows():
    # 30 % of the confidences are exactly 1.0 (more than frac = 15 %): at 1.0 every
    # one of the k nearest rows is tied, the tricube radius is 0 and a local line is
    # undefined; the fit is the event rate of the tied rows
    rng = np.random.default_rng(21)
    s = np.r_[np.ones(300), rng.uniform(0.5, 1, 700)]
    y = rng.random(1000) < 0.9 * s
    tied_rate = y[:300].mean()
    for kw in ({}, {"delta": 0.01}, {"method": "local_constant"}):
        curve = lowess_curve(s, y, grid=[0.75, 1.0], **kw)
        assert np.all(np.isfinite(curve.y))
        assert curve.y[1] == pytest.approx(tied_rate, rel=1e-12)
    assert np.isfinite(lcs(s, y))
    res = calibration_error_summary(s, y, n_nodes=None)
    # the other rows' errors are about 0.1 s for s in (0.5, 1): about 470 of them lie
    # below the tied rows' error 1 - rate, so the median falls in the tied block
    assert res.e50 == pytest.approx(1 - tied_rate, rel=1e-12)
    assert calibration_error_summary(s, y).ici == pytest.approx(res.ici, abs=1e-4)


def test_curve_inputs_are_not_mutated():
    rng = np.random.default_rng(3)
    s = rng.uniform(0, 1, 200)
    y = (rng.random(200) < s).astype(int)
    s0, y0 = s.copy(), y.copy()
    lowess_curve(s, y)
    lcs(s, y, method="local_constant")
    calibration_error_summary(s, y)
    np.testing.assert_array_equal(s, s0)
    np.testing.assert_array_equal(y, y0)


def test_accepts_lists_and_booleans():
    s, y = dataset_d("sq", 500)
    assert lcs(list(s), list(y.astype(bool))) == lcs(s, y)


# --- LCS behaviour -----------------------------------------------------------------


def test_lcs_near_zero_when_calibrated_and_grows_with_distortion():
    # scores sigmoid(gamma * logit(p)) of true probabilities p (Fernandes Machado et al.
    # 2024, Eq. 8) or p**alpha (Eq. 7): gamma = alpha = 1 is calibrated
    rng = np.random.default_rng(7)
    n = 100_000
    p = rng.beta(2, 2, n)
    y = rng.random(n) < p
    calibrated = lcs(p, y)
    assert calibrated < 1e-4
    by_gamma = {g: lcs(sigmoid(g * logit(p)), y) for g in (1 / 3, 1 / 2, 1, 2, 3)}
    assert by_gamma[1] == pytest.approx(calibrated, rel=1e-6)
    assert by_gamma[1 / 3] > by_gamma[1 / 2] > 10 * calibrated
    assert by_gamma[3] > by_gamma[2] > 10 * calibrated
    by_alpha = {a: lcs(p**a, y) for a in (1 / 3, 1 / 2, 2, 3)}
    assert by_alpha[1 / 3] > by_alpha[1 / 2] > 10 * calibrated
    assert by_alpha[3] > by_alpha[2] > 10 * calibrated


def test_lcs_of_known_curve_close_to_population_value():
    # y ~ Bernoulli(s^2) on uniform scores: the population LCS with the same grid
    # and weights is sum w (l^2 - l)^2 / sum w
    rng = np.random.default_rng(8)
    s = rng.uniform(0, 1, 200_000)
    y = rng.random(s.size) < s**2
    x = grid_in_range(s)
    w, _ = _score_density.reflected_kde(np.sort(s), x)
    population = np.sum(w * (x**2 - x) ** 2) / np.sum(w)
    assert lcs(s, y) == pytest.approx(population, rel=0.02)


def test_lcs_is_permutation_invariant():
    rng = np.random.default_rng(9)
    s = np.round(rng.uniform(0, 1, 500), 2)
    y = rng.random(500) < s
    perm = rng.permutation(500)
    # the local mean includes all ties at the k-th distance: exactly invariant
    assert lcs(s[perm], y[perm], method="local_constant") == lcs(s, y,
                                                                  method="local_constant")
    t = rng.uniform(0, 1, 500)  # no ties: LOWESS invariant too
    assert lcs(t[perm], y[perm]) == pytest.approx(lcs(t, y), rel=1e-12)


def test_lcs_empty_grid_is_nan_with_warning():
    s = np.array([0.501, 0.502, 0.503, 0.504] * 5)
    y = np.array([0, 1] * 10)
    with pytest.warns(RuntimeWarning, match="No point of the 100-point grid"):
        assert math.isnan(lcs(s, y))


# --- ICI family --------------------------------------------------------------------


def direct_errors(s, fitted):
    e = np.abs(np.clip(fitted, 0, 1) - s)
    return e.mean(), np.median(e), np.quantile(e, 0.9), e.max()


def test_ici_exact_matches_statsmodels_fit_at_every_row():
    rng = np.random.default_rng(12)
    s = rng.beta(2, 5, 1500)
    y = (rng.random(1500) < np.sqrt(s)).astype(int)
    fitted = lowess(y, s, frac=0.15, it=0, return_sorted=False)
    res = calibration_error_summary(s, y, n_nodes=None)
    assert res.exact
    np.testing.assert_allclose([res.ici, res.e50, res.e90, res.emax],
                               direct_errors(s, fitted), rtol=1e-9)


def test_ici_local_constant_matches_brute_force():
    rng = np.random.default_rng(13)
    s = np.round(rng.uniform(0, 1, 600), 3)
    y = (rng.random(600) < s**2).astype(int)
    res = calibration_error_summary(s, y, method="local_constant", frac=0.1)
    np.testing.assert_allclose([res.ici, res.e50, res.e90, res.emax],
                               direct_errors(s, brute_force_local_mean(s, y, s, 0.1)),
                               rtol=1e-12)


@pytest.mark.parametrize("shape", [(2, 5), (0.3, 0.3), (8, 1)])
def test_ici_node_interpolation_is_accurate(shape):
    rng = np.random.default_rng(14)
    s = rng.beta(*shape, 20_000)
    y = rng.random(s.size) < sigmoid(1.5 * logit(np.clip(s, 1e-9, 1 - 1e-9)))
    exact = calibration_error_summary(s, y, n_nodes=None)
    approx = calibration_error_summary(s, y)
    assert not approx.exact
    for field in ("ici", "e50", "e90", "emax"):
        assert getattr(approx, field) == pytest.approx(getattr(exact, field), abs=2e-5)


# R 4.2.2 loess (default settings) values: ICI, E50, E90, Emax
LOESS = {
    ("sq", 500): (0.16389668, 0.18411927, 0.24289360, 0.24584300),
    ("sq", 2000): (0.16711987, 0.18715897, 0.24786352, 0.25047921),
    ("id", 500): (0.00308648, 0.00234617, 0.00593834, 0.01543819),
    ("id", 2000): (0.00087249, 0.00087552, 0.00134885, 0.00188468),
}


@pytest.mark.parametrize(("kind", "n"), list(LOESS))
def test_ici_compared_with_r_loess(kind, n):
    # a local line with span 0.15 vs loess (local quadratic, span 0.75): close on the
    # miscalibrated curve, noisier (larger) on the calibrated one; a wider span
    # brings the calibrated case to loess's level
    s, y = dataset_d(kind, n)
    res = calibration_error_summary(s, y)
    ref = LOESS[(kind, n)]
    if kind == "sq":
        assert res.ici == pytest.approx(ref[0], abs=0.001)
        assert res.e90 == pytest.approx(ref[2], abs=0.005)
    else:
        assert ref[0] < res.ici < 0.02
        assert calibration_error_summary(s, y, frac=0.5).ici == pytest.approx(ref[0],
                                                                               abs=5e-4)


def test_ici_shortcut_and_ordering():
    s, y = dataset_d("sq", 2000)
    res = calibration_error_summary(s, y)
    assert ici(s, y) == res.ici
    assert res.e50 <= res.e90 <= res.emax
    assert res.ici <= res.emax
    assert (res.method, res.frac, res.n) == ("lowess", 0.15, 2000)


def test_ici_small_for_calibrated_large_sample():
    rng = np.random.default_rng(15)
    p = rng.beta(2, 2, 200_000)
    y = rng.random(p.size) < p
    assert ici(p, y) < 0.005
    assert ici(sigmoid(2 * logit(p)), y) > 0.05


# --- properties ----------------------------------------------------------------------

def _scores_and_outcomes(denominator: int) -> st.SearchStrategy:
    return st.integers(min_value=20, max_value=120).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(0, denominator), min_size=n, max_size=n).map(
                lambda v: np.array(v) / denominator),
            st.lists(st.booleans(), min_size=n, max_size=n).map(np.array),
        )
    ).filter(lambda t: np.unique(t[0]).size > 1)


#: scores on a 1/100 grid: many ties at the k-th distance
scores_and_outcomes = _scores_and_outcomes(100)
#: scores on a 1/64 grid: 1 - s and all distances are exact in floating point
dyadic_scores_and_outcomes = _scores_and_outcomes(64)


@settings(max_examples=60, deadline=None)
@given(data=scores_and_outcomes)
def test_lcs_local_constant_matches_brute_force_property(data):
    s, y = data
    expected = reference_lcs(s, y, lambda x: brute_force_local_mean(s, y, x, 0.15))
    x = grid_in_range(s)
    if x.size == 0:
        return
    assert lcs(s, y, method="local_constant") == pytest.approx(expected, rel=1e-6,
                                                                abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(data=dyadic_scores_and_outcomes)
def test_flipping_scores_and_outcomes_mirrors_the_curve(data):
    # g(1 - x) for (1 - s, 1 - y) equals 1 - g(x): the local mean is symmetric
    s, y = data
    x = np.linspace(0, 1, 33)
    a = lowess_curve(s, y, method="local_constant", grid=x).y
    b = lowess_curve(1 - s, ~y, method="local_constant", grid=1 - x).y
    np.testing.assert_allclose(b, 1 - a, atol=1e-12)


# --- errors ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("score", "outcome", "kw", "exc", "match"),
    [
        ([0.2, 1.2, 0.5], [0, 1, 1], {}, ValueError, r"`score` has 1 value outside \[0, 1\]"),
        ([0.2, 0.4, 0.5], [0, 2, 1], {}, ValueError, "`outcome` must hold 0/1"),
        ([0.2, 0.4], [0, 1, 1], {}, ValueError, "different numbers of rows"),
        (["a", "b"], [0, 1], {}, TypeError, "`score` must be numeric"),
        ([0.2, 0.4, 0.5], [0, 1, 1], {"method": "loess"}, ValueError,
         "`method` must be one of 'lowess', 'local_constant'"),
        ([0.2, 0.4, 0.5], [0, 1, 1], {"frac": 0}, ValueError,
         r"`frac` must be a number in \(0, 1\]"),
        ([0.2, 0.4, 0.5], [0, 1, 1], {"frac": 1.5}, ValueError,
         r"`frac` must be a number in \(0, 1\]"),
        ([0.3] * 10, [0, 1] * 5, {}, ValueError,
         "`score` takes the single value 0.3 on all 10 rows"),
        ([0.1, 0.2, 0.3, 0.4, 0.5], [0, 1, 0, 1, 1], {}, ValueError,
         r"`frac`=0.15 keeps 0 of 5 rows in each local fit, but the lowess fit needs at "
         "least 2"),
        ([0.1] * 3 + [0.2] * 3 + [0.3] * 3, [0, 1, 1] * 3, {"frac": 0.2}, ValueError,
         "keeps 1 of 9 rows"),
    ],
)
def test_errors(score, outcome, kw, exc, match):
    for fn in (lowess_curve, lcs, calibration_error_summary):
        with pytest.raises(exc, match=match):
            fn(score, outcome, **kw)


def test_local_constant_needs_one_neighbour():
    s, y = np.array([0.1, 0.5, 0.9, 0.3, 0.7]), np.array([0, 1, 1, 0, 1])
    with pytest.raises(ValueError, match="the local_constant fit needs at least 1"):
        lcs(s, y, method="local_constant", frac=0.1)
    assert lcs(s, y, method="local_constant", frac=0.2) >= 0


def test_option_errors():
    s, y = dataset_d("id", 500)
    with pytest.raises(ValueError, match=r"`delta`=0\.01 has no effect with "
                                         r"method='local_constant'"):
        lowess_curve(s, y, method="local_constant", delta=0.01)
    with pytest.raises(ValueError, match="`n_grid` must be an integer >= 1"):
        lowess_curve(s, y, n_grid=0)
    with pytest.raises(ValueError, match=r"`grid` has 1 value outside \[0, 1\]"):
        lowess_curve(s, y, grid=[0.2, 1.5])
    with pytest.raises(ValueError, match="`n_nodes` must be an integer >= 2"):
        calibration_error_summary(s, y, n_nodes=1)
    with pytest.raises(ValueError, match="`delta` must be a finite number >= 0"):
        lowess_curve(s, y, delta=-1.0)


# --- ECI ---------------------------------------------------------------------------------


def test_eci_hand_worked_example():
    # with frac = 1 the local mean uses every row: g(p) = mean(y) = 0.5 everywhere;
    # gaps 0.5 - p = 0.4, 0.3, -0.1, -0.4; squares 0.16 + 0.09 + 0.01 + 0.16 = 0.42;
    # ECI = 100 * 0.42 / 4 = 10.5
    p, y = [0.1, 0.2, 0.6, 0.9], [0, 1, 0, 1]
    assert eci(p, y, method="local_constant", frac=1.0) == pytest.approx(10.5, abs=1e-12)
    res = calibration_error_summary(p, y, method="local_constant", frac=1.0)
    assert res.eci == pytest.approx(10.5, abs=1e-12)


def test_eci_multiclass_hand_worked_example():
    # frac = 1: each class curve is the class frequency (1/2, 1/4, 1/4 for y = 0,0,1,2)
    p = np.array([[0.5, 0.25, 0.25], [0.7, 0.2, 0.1], [0.2, 0.6, 0.2], [0.1, 0.1, 0.8]])
    y = [0, 0, 1, 2]
    # squared gaps per row: (0 + 0 + 0), (0.04 + 0.0025 + 0.0225), (0.09 + 0.1225 + 0.0025),
    # (0.16 + 0.0225 + 0.3025): total 0.065 + 0.215 + 0.485 = 0.765;
    # ECI = 100 / (2 * 4) * 0.765 = 9.5625
    assert eci_multiclass(p, y, method="local_constant", frac=1.0) == pytest.approx(
        9.5625, abs=1e-12)


def test_eci_matches_direct_statsmodels_formula():
    rng = np.random.default_rng(31)
    s = rng.beta(2, 5, 1200)
    y = (rng.random(s.size) < np.sqrt(s)).astype(int)
    fitted = lowess(y, s, frac=0.15, it=0, return_sorted=False)
    expected = 100 * np.mean((np.clip(fitted, 0, 1) - s) ** 2)  # CalibrationCurves' form
    assert eci(s, y, n_nodes=None) == pytest.approx(expected, rel=1e-9)
    assert calibration_error_summary(s, y, n_nodes=None).eci == pytest.approx(expected,
                                                                               rel=1e-9)


def test_eci_multiclass_with_two_classes_is_the_binary_eci():
    rng = np.random.default_rng(32)
    s = rng.uniform(0, 1, 800)
    y = (rng.random(s.size) < s**2).astype(int)
    two = np.column_stack((1 - s, s))
    for method in METHODS_UNDER_TEST:
        assert eci_multiclass(two, y, method=method) == pytest.approx(
            eci(s, y, method=method), rel=1e-9)


METHODS_UNDER_TEST = ("lowess", "local_constant")


def test_eci_small_when_calibrated():
    rng = np.random.default_rng(33)
    p = rng.dirichlet([1, 2, 3], 20_000)
    y = (rng.random(p.shape[0])[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    assert eci_multiclass(p, y) < 0.05
    sharpened = p**3 / (p**3).sum(axis=1, keepdims=True)
    assert eci_multiclass(sharpened, y) > 1.0


def test_eci_errors():
    with pytest.raises(ValueError, match="`proba` must have one column per class"):
        eci_multiclass([0.2, 0.8], [0, 1])
    with pytest.raises(ValueError, match="`y_true` has 1 value that is not a class code"):
        eci_multiclass([[0.2, 0.8], [0.5, 0.5]], [0, 2])
    with pytest.raises(ValueError, match="do not sum to 1"):
        eci_multiclass([[0.2, 0.7], [0.5, 0.5]], [0, 1])


# --- adaptive span -------------------------------------------------------------------------


def test_adaptive_frac_rule_and_auto_option():
    assert local.adaptive_frac(100) == pytest.approx(100**-0.2)
    assert local.adaptive_frac(1) == 1.0
    assert local.adaptive_frac(13_000) == pytest.approx(0.15, abs=5e-4)
    s, y = dataset_d("sq", 500)
    auto = lowess_curve(s, y, frac="auto")
    assert auto.frac == pytest.approx(500**-0.2)
    np.testing.assert_allclose(auto.y, lowess_curve(s, y, frac=500**-0.2).y, atol=1e-12)
    assert lcs(s, y, frac="auto") == lcs(s, y, frac=500**-0.2)
    with pytest.raises(ValueError, match="`frac` must be one of 'auto'"):
        lcs(s, y, frac="adaptive")


def test_adaptive_span_beats_fixed_span_on_a_known_curve():
    # integrated squared error of the curve at the rows, truth g(s) = s^2 (bpm preset)
    from calreport.synthetic import bpm_simulation

    errors = {"fixed": [], "auto": []}
    for seed in range(8):
        df = bpm_simulation(300, curve="square", beta=(1.0, 1.0), seed=seed)
        s, y, g = df["confidence"].to_numpy(), df["correct"].to_numpy(), df["true_proba"]
        for name, frac in (("fixed", 0.15), ("auto", "auto")):
            fit = lowess_curve(s, y, frac=frac, grid=s).y
            errors[name].append(np.mean((fit - g.to_numpy()) ** 2))
    assert np.mean(errors["auto"]) < 0.7 * np.mean(errors["fixed"])


# --- band ----------------------------------------------------------------------------------


@pytest.mark.parametrize("frac", [0.1, 0.3, 0.7])
def test_batched_local_line_equals_statsmodels(frac):
    # the band's vectorised neighbourhoods and weighted fit, with all counts 1
    rng = np.random.default_rng(41)
    s = np.sort(np.round(rng.beta(2, 5, 900), 3))
    y = (rng.random(s.size) < np.sqrt(s)).astype(float)
    x = np.linspace(0.01, 0.9, 77)
    k = int(frac * s.size + 1e-10)
    left, radius = local_band._lowess_windows(s, x, k)
    idx = left[:, None] + np.arange(k)
    d = s[idx] - x[:, None]
    kern = (1 - np.minimum(np.abs(d) / radius[:, None], 1) ** 3) ** 3
    sums = np.stack((kern, kern * d, kern * d * d, kern * y[idx], kern * d * y[idx]),
                    -1).sum(axis=1)
    np.testing.assert_allclose(local_band._local_linear(sums),
                               lowess(y, s, frac=frac, it=0, xvals=x), atol=1e-12)


def test_band_covers_the_true_curve_at_about_the_nominal_rate():
    rng = np.random.default_rng(42)
    cover = []
    for _ in range(10):
        s = rng.uniform(0, 1, 800)
        y = rng.random(s.size) < s**2
        band = local_band.lowess_band(s, y, seed=rng, n_boot=200)
        truth = band.x**2
        cover.append(np.mean((band.low <= truth) & (truth <= band.high)))
        assert np.all(band.low <= band.y + 1e-12) and np.all(band.y <= band.high + 1e-12)
    # pointwise 95 % band; LOWESS's curvature bias costs a little coverage
    assert 0.8 <= np.mean(cover) <= 1.0


def test_band_normal_and_bootstrap_agree_and_curve_is_lowess_curve():
    rng = np.random.default_rng(43)
    s = rng.uniform(0, 1, 3000)
    y = rng.random(s.size) < s**2
    boot = local_band.lowess_band(s, y, interval="bootstrap", seed=0)
    normal = local_band.lowess_band(s, y, interval="normal")
    assert (boot.interval, normal.interval, normal.n_boot) == ("bootstrap", "normal", 0)
    width = boot.high - boot.low
    open_ = width > 1e-3  # near score 0 both bands are clipped to [0, 0]
    ratio = np.median((normal.high - normal.low)[open_] / width[open_])
    assert 0.85 < ratio < 1.15
    np.testing.assert_allclose(boot.y, lowess_curve(s, y, frac="auto").y, atol=1e-12)
    np.testing.assert_array_equal(boot.y, normal.y)
    again = local_band.lowess_band(s, y, interval="bootstrap", seed=0)
    np.testing.assert_array_equal(again.low, boot.low)


def test_band_flags_sparse_regions():
    rng = np.random.default_rng(44)
    s = np.r_[rng.uniform(0.0, 0.6, 300), rng.uniform(0.9, 1.0, 3)]  # almost nothing above 0.6
    y = rng.random(s.size) < s
    band = local_band.lowess_band(s, y, frac=0.2, n_boot=50, seed=1)
    half = 0.1
    expected = np.array([np.sum(np.abs(s - x) <= half) for x in band.x])
    np.testing.assert_array_equal(band.count, expected)
    assert band.sparse[band.x > 0.75].all() and not band.sparse[band.x < 0.5].any()


def test_band_errors():
    s, y = dataset_d("id", 500)
    with pytest.raises(ValueError, match="`interval` must be one of 'auto', 'bootstrap'"):
        local_band.lowess_band(s, y, interval="basic")
    with pytest.raises(ValueError, match="`n_boot` must be an integer >= 1"):
        local_band.lowess_band(s, y, n_boot=0)
