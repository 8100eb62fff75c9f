"""TCE_bpm (Dong et al. (2025, arXiv:2412.10658)): binnings, the likelihood fit, the
integral, accuracy against the exact true TCE, and the published objective's reference
values.

Reference values come from independent computations: statsmodels' binomial GLM on bins
cut by explicit Python loops, QUADPACK's algebraic-weight rule (scipy.integrate.quad,
weight="alg") for the Beta integrals, hand-worked integrals, and the values printed by
the authors' published code (github.com/NeuroDong/TCEbpm at commit a05322d,
``metrics/TCE_BPM.py``: Nelder-Mead from its own starting point, ``mpmath.quad`` at
``mp.dps = 15``, result rounded to 5 significant digits) run on float64 inputs with
Python 3.11.7, NumPy 2.4.6, SciPy 1.17.1 and mpmath 1.3.0, next to a separate float64
re-implementation of that code (plain NumPy/SciPy, not calreport's) that matches it to
1e-6 and gives the unrounded values.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, optimize, special, stats

from calreport.metrics._bpm_published import _published_objective_tce
from calreport.metrics.bpm import (
    BpmFit,
    TceBpmResult,
    bpm_bin_counts,
    fit_bpm_curve,
    tce_bpm,
    tce_integral,
)
from calreport.synthetic import bpm_simulation, true_tce


# ------------------------------------------------------------------ shared datasets
def dataset_d(kind: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Deterministic data, true curve x^2 ("sq", TCE_1 = 1/6) or x ("id", TCE = 0).

    ``f_i = (i - 0.5) / n``, ``u_i = frac(i * 0.6180339887498949)`` (golden-ratio
    low-discrepancy uniforms), ``y_i = 1[u_i < f_i^2]`` or ``1[u_i < f_i]``: the same
    numbers in any language, so the published code can be run on them.
    """
    i = np.arange(1, n + 1)
    f = (i - 0.5) / n
    u = np.mod(i * 0.6180339887498949, 1.0)
    y = (u < (f**2 if kind == "sq" else f)).astype(int)
    return f, y


def dataset_p(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The default :func:`bpm_simulation` preset, written out independently.

    Sorted Beta(1.1233, 0.1147) confidences from ``default_rng(seed)``, then hits with
    probability ``sigmoid(-0.88 + 0.49 logit c)``, ``c`` clipped to [1e-10, 1 - 1e-10].
    """
    rng = np.random.default_rng(seed)
    conf = np.sort(rng.beta(1.1233, 0.1147, n))
    c = np.clip(conf, 1e-10, 1 - 1e-10)
    y = rng.random(n) < special.expit(-0.88 + 0.49 * special.logit(c))
    return conf, y


# int |sigmoid(-0.88 + 0.49 logit x) - x| Beta(1.1233, 0.1147)(x) dx, by scipy.integrate.quad
# and by mpmath.quad (mp.dps = 15; SciPy 1.17.1, mpmath 1.3.0)
P_TRUE_TCE = 0.130714


def simulated(n: int, seed: int, ties: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    s = rng.beta(3.0, 1.0, n)
    if ties is not None:
        s = np.round(s, ties)
    return s, rng.random(n) < s**1.5


# ------------------------------------------------------------------------ binnings
def test_bin_counts_equal_published_rule_when_100_divides_n():
    for n in range(300, 30_001, 100):
        k_min, k_max = n // 100, n // 20
        assert bpm_bin_counts(n) == tuple(range(k_min, k_max + 1, (k_max - k_min) // 10)), n


def test_bin_counts_hand_worked():
    # n = 1000: k from 10 to 50 in steps of (50 - 10) // 10 = 4
    assert bpm_bin_counts(1000) == (10, 14, 18, 22, 26, 30, 34, 38, 42, 46, 50)
    # n = 1234: k_min = ceil(12.34) = 13, k_max = 61, step = 48 // 10 = 4 -> 13..61
    assert bpm_bin_counts(1234) == tuple(range(13, 62, 4))
    # n = 60: k_min = 1, k_max = 3, step 1
    assert bpm_bin_counts(60) == (1, 2, 3)


@pytest.mark.parametrize("n", [60, 61, 99, 100, 101, 150, 239, 241, 999, 1234, 5003, 20_011])
def test_every_bin_holds_20_to_100_rows_and_every_row_is_used(n):
    for k in bpm_bin_counts(n):
        sizes = [((i + 1) * n) // k - (i * n) // k for i in range(k)]
        assert sum(sizes) == n
        assert min(sizes) >= 20 and max(sizes) <= 100, (n, k, min(sizes), max(sizes))


# ---------------------------------------------------------------------------- fit
def _loop_bins(s: np.ndarray, y: np.ndarray, ks: tuple[int, ...]):
    """Bins cut by explicit loops over the sorted rows (the specification)."""
    order = np.lexsort((y, s))
    s, y = s[order], y[order].astype(float)
    n = len(s)
    rows = []
    for k in ks:
        for i in range(k):
            lo, hi = (i * n) // k, ((i + 1) * n) // k
            rows.append((s[lo:hi].mean(), y[lo:hi].sum(), hi - lo))
    return np.array(rows)


def test_fit_equals_statsmodels_binomial_glm_on_loop_bins():
    s, y = simulated(3000, seed=4)
    fit = fit_bpm_curve(s, y)
    bins = _loop_bins(s, y, bpm_bin_counts(3000))
    mean, hits, size = bins.T
    x = np.column_stack([np.ones_like(mean), np.log(mean), -np.log1p(-mean)])
    glm = sm.GLM(np.column_stack([hits, size - hits]), x,
                 family=sm.families.Binomial()).fit(tol=1e-14)
    c, a, b = glm.params
    assert a > 0 and b > 0  # the bounds are inactive, so the GLM is the reference
    np.testing.assert_allclose([fit.a, fit.b, fit.c], [a, b, c], atol=2e-6)
    eta = x @ glm.params
    loglik = np.sum(hits * eta - size * np.logaddexp(0, eta))  # no binomial coefficients
    assert fit.log_likelihood == pytest.approx(loglik, rel=1e-10)
    assert fit.bin_counts == bpm_bin_counts(3000) and fit.n == 3000 and fit.converged


def test_constrained_fit_on_decreasing_data_is_the_pooled_rate():
    # hits more frequent at low confidence: the best monotone curve is flat, a = b = 0,
    # and then every binning gives the likelihood of one pooled binomial: sigma(c) = mean
    rng = np.random.default_rng(3)
    s = rng.random(500)
    y = rng.random(500) < 1 - s
    fit = fit_bpm_curve(s, y)
    assert fit.a == 0.0 and fit.b == 0.0
    assert special.expit(fit.c) == pytest.approx(y.mean(), abs=1e-7)


def test_fitted_curve_is_identity_like_on_calibrated_data():
    f, y = dataset_d("id", 2000)
    fit = fit_bpm_curve(f, y)
    grid = np.linspace(0.05, 0.95, 19)
    assert np.max(np.abs(fit(grid) - grid)) < 0.03


def test_predict_limits_and_identity():
    fit = BpmFit(a=1.0, b=1.0, c=0.0)
    x = np.array([0.0, 1e-300, 0.3, 1.0])
    np.testing.assert_allclose(fit.predict(x), x, rtol=1e-12)
    flat = BpmFit(a=0.0, b=0.0, c=0.0)  # no ln x / ln(1-x) terms: g = 1/2 on [0, 1]
    np.testing.assert_array_equal(flat([0.0, 0.5, 1.0]), [0.5, 0.5, 0.5])


# ---------------------------------------------------------------------- integral
def quadpack_tce(a, b, c, al, be, p=1.0):
    """Independent reference: QUADPACK with the Beta kernel as an algebraic weight."""
    def g(x):
        x = min(max(x, 1e-300), 1.0 - 2.0**-53)  # QUADPACK may evaluate the end points
        return float(special.expit(c + a * math.log(x) - b * math.log1p(-x)))

    def h(x):
        return abs(g(x) - x) ** p

    grid = np.linspace(1e-6, 1 - 1e-6, 20_001)
    gap = np.array([g(x) - x for x in grid])
    roots = [optimize.brentq(lambda x: g(x) - x, grid[i], grid[i + 1], xtol=1e-15)
             for i in np.flatnonzero(np.sign(gap[:-1]) != np.sign(gap[1:]))]
    knots = sorted({0.0, 0.5, 1.0, *roots})
    total = 0.0
    for lo, hi in itertools.pairwise(knots):
        kw = {"epsabs": 1e-13, "epsrel": 1e-12, "limit": 500}
        if lo == 0.0:
            val = integrate.quad(lambda x: h(x) * (1 - x) ** (be - 1), lo, hi,
                                 weight="alg", wvar=(al - 1, 0.0), **kw)[0]
        elif hi == 1.0:
            val = integrate.quad(lambda x: h(x) * x ** (al - 1), lo, hi,
                                 weight="alg", wvar=(0.0, be - 1), **kw)[0]
        else:
            val = integrate.quad(lambda x: h(x) * x ** (al - 1) * (1 - x) ** (be - 1),
                                 lo, hi, **kw)[0]
        total += val
    return (total / math.exp(special.betaln(al, be))) ** (1.0 / p)


# QUADPACK warns about the (1 - x)^-0.885 end of Beta(1.1233, 0.1147) but its value agrees
# with mpmath.quad (mpmath 1.3.0, mp.dps = 15) to 1e-10: 0.130714
@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")
@pytest.mark.parametrize(
    ("coef", "beta", "p"),
    [((0.49, 0.49, -0.88), (1.1233, 0.1147), 1.0),   # the P preset (beta < 1)
     ((1.5, 0.6, 0.4), (3.0, 1.0), 1.0),
     ((2.0, 2.0, 0.0), (2.0, 2.0), 2.0),             # two crossings
     ((0.3, 1.7, 0.2), (0.5, 0.5), 1.0),             # both ends singular
     ((1.0, 0.2, -1.0), (0.7, 3.0), 3.0)],
)
def test_tce_integral_equals_quadpack(coef, beta, p):
    ours = tce_integral(coef, beta, p=p)
    assert ours == pytest.approx(quadpack_tce(*coef, *beta, p=p), abs=1e-8)


def test_tce_integral_hand_worked():
    # g = 1/2 (a = b = c = 0), f uniform: int |1/2 - x| dx = 2 * int_0^1/2 t dt = 1/4
    assert tce_integral((0.0, 0.0, 0.0), (1.0, 1.0)) == pytest.approx(0.25, abs=1e-12)
    # p = 2: int (1/2 - x)^2 dx = 1/12
    assert tce_integral((0.0, 0.0, 0.0), (1.0, 1.0), p=2) == pytest.approx(
        math.sqrt(1 / 12), abs=1e-12)
    # p = 3: 2 * int_0^1/2 t^3 dt = 1/32
    assert tce_integral((0.0, 0.0, 0.0), (1.0, 1.0), p=3) == pytest.approx(
        (1 / 32) ** (1 / 3), abs=1e-12)
    # identity curve: zero under any density
    assert tce_integral((1.0, 1.0, 0.0), (0.3, 0.2)) == pytest.approx(0.0, abs=1e-15)
    # g(x) = x^2 (outside the family), f uniform: int x - x^2 = 1/6
    assert tce_integral(np.square, (1.0, 1.0)) == pytest.approx(1 / 6, abs=1e-12)


def test_near_point_mass_density_is_the_gap_at_the_mean():
    fit = BpmFit(1.2, 0.8, 0.1)
    m = 0.7
    for total in (1e9, 1e13, 1e30):  # sd = sqrt(m (1 - m) / total)
        val = tce_integral(fit, (m * total, (1 - m) * total))
        assert val == pytest.approx(abs(fit(m) - m), abs=1e-5)


def test_tce_integral_accepts_scipy_distributions():
    coef = (1.5, 0.6, 0.4)
    assert tce_integral(coef, stats.beta(2.0, 5.0)) == pytest.approx(
        tce_integral(coef, (2.0, 5.0)), abs=1e-12)
    tn = stats.truncnorm((0 - 0.7) / 0.1, (1 - 0.7) / 0.1, loc=0.7, scale=0.1)
    fit = BpmFit(*coef)
    ref = integrate.quad(lambda x: abs(fit(x) - x) * tn.pdf(x), 0, 1, points=[0.7],
                         epsabs=1e-13, limit=200)[0]
    assert tce_integral(coef, tn) == pytest.approx(ref, abs=1e-9)


def test_callable_curve_equals_family_curve():
    fit = BpmFit(2.0, 2.0, 0.1)  # two crossings, found on a grid for the callable
    assert tce_integral(lambda x: fit.predict(x), (2.0, 3.0)) == pytest.approx(
        tce_integral(fit, (2.0, 3.0)), abs=1e-11)


def test_true_tce_of_the_paper_preset():
    # int |sigma(-0.88 + 0.49 logit x) - x| Beta(1.1233, 0.1147)(x) dx (see P_TRUE_TCE)
    assert tce_integral((0.49, 0.49, -0.88), (1.1233, 0.1147)) == pytest.approx(
        P_TRUE_TCE, abs=5e-7)


# ------------------------------------------- U-shaped densities with tiny shapes
def logspace_tce(a, b, c, al, be, p=1.0):
    """Independent reference for Beta densities of any shapes: QUADPACK in log space.

    Below x = 1/2 the substitution ``x = w^(1/al)`` and above it ``1 - x = z^(1/be)``
    turn the Beta measure into ``(1 - x)^(be - 1) dw / (al B)`` (``x^(al - 1) dz / (be B)``),
    bounded, so the mass within 1e-16 of an end (or below the smallest double) is a
    piece of an ordinary interval.  ``ln x`` and ``ln(1 - x)`` come from ``ln w / al``
    (``ln z / be``), never from a rounded ``x``, and the gap is ``sigma(eta) - x`` below
    1/2, ``(1 - x) - sigma(-eta)`` above.  The pieces are cut at the crossings (a
    400,001-point logit grid over [-745, 745] and brentq) and at distances 10^-k to
    the end.
    """
    t = np.linspace(-745.0, 745.0, 400_001)

    def d(tt):  # logit g - logit x on the logit scale
        lx, lt = -np.logaddexp(0.0, -tt), -np.logaddexp(0.0, tt)
        return c + (a * lx if a else 0.0) - (b * lt if b else 0.0) - tt

    dv = d(t)
    roots = [optimize.brentq(d, t[i], t[i + 1], xtol=1e-13)
             for i in np.flatnonzero(np.sign(dv[:-1]) * np.sign(dv[1:]) < 0)]
    total = 0.0
    for s1, s2, upper in ((al, be, False), (be, al, True)):
        def f(w, s1=s1, s2=s2, upper=upper):
            if w <= 0.0:
                return 0.0
            near = math.log(w) / s1  # ln of the distance to this end
            far = math.log1p(-math.exp(near))
            lx, lt = (far, near) if upper else (near, far)
            eta = c + (a * lx if a else 0.0) - (b * lt if b else 0.0)
            gap = (math.exp(lt) - special.expit(-eta) if upper
                   else special.expit(eta) - math.exp(lx))
            return abs(gap) ** p * math.exp((s2 - 1.0) * far)

        top = 0.5**s1
        cuts = [math.exp(s1 * -np.logaddexp(0.0, r if upper else -r)) for r in roots]
        cuts += [math.exp(-s1 * k * math.log(10.0)) for k in range(1, 330)]
        knots = [0.0, *sorted({q for q in cuts if 0.0 < q < top}), top]
        half = sum(integrate.quad(f, lo, hi, epsabs=1e-18, epsrel=1e-13, limit=200)[0]
                   for lo, hi in itertools.pairwise(knots))
        total += half / s1
    return (total / math.exp(special.betaln(al, be))) ** (1.0 / p)


@pytest.mark.parametrize(("al", "be"), [(1.0, 1.0), (0.01, 0.02), (0.005, 0.3), (0.4, 0.007)])
def test_logspace_reference_against_closed_forms(al, be):
    # g = 1/2: E|X - 1/2| = (m - 1/2) + 2 E(1/2 - X)^+ with
    # E(1/2 - X)^+ = I_1/2(al, be) / 2 - m I_1/2(al + 1, be), m = al / (al + be);
    # E(X - 1/2)^2 = Var X + (m - 1/2)^2
    m = al / (al + be)
    e1 = (m - 0.5) + 2 * (0.5 * special.betainc(al, be, 0.5) - m * special.betainc(al + 1, be, 0.5))
    e2 = al * be / ((al + be) ** 2 * (al + be + 1)) + (m - 0.5) ** 2
    assert logspace_tce(0.0, 0.0, 0.0, al, be) == pytest.approx(e1, rel=1e-12)
    assert logspace_tce(0.0, 0.0, 0.0, al, be, p=2) == pytest.approx(math.sqrt(e2), rel=1e-12)
    assert tce_integral((0.0, 0.0, 0.0), (al, be)) == pytest.approx(e1, rel=1e-12)
    with warnings.catch_warnings():  # identity: the integrand is rounding noise
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        assert logspace_tce(1.0, 1.0, 0.0, al, be) == pytest.approx(0.0, abs=1e-15)


def test_logspace_reference_hand_worked_and_quadpack():
    assert logspace_tce(0.0, 0.0, 0.0, 1.0, 1.0, p=3) == pytest.approx((1 / 32) ** (1 / 3),
                                                                        rel=1e-12)
    for coef, dens in [((1.5, 0.6, 0.4), (3.0, 1.0)), ((0.3, 1.7, 0.2), (0.5, 0.5))]:
        assert logspace_tce(*coef, *dens) == pytest.approx(quadpack_tce(*coef, *dens), abs=1e-9)
    # the paper's preset (mpmath.quad: 0.130714)
    assert logspace_tce(0.49, 0.49, -0.88, 1.1233, 0.1147) == pytest.approx(P_TRUE_TCE,
                                                                            abs=5e-7)


def test_tce_integral_u_shaped_tiny_shapes_defect_case():
    # a bootstrap refit on breast-cancer probabilities: the mass sits within 1e-16 of 0
    # and 1, where x rounded to 1.1e-16 steps made the integrand a step function
    # (the value was 0.0198588, 1.1e-3 below)
    coef, dens = (2.86, 0.142, 1.915), (0.072, 0.041)
    assert tce_integral(coef, dens) == pytest.approx(logspace_tce(*coef, *dens), rel=1e-9)
    assert tce_integral((0.49, 0.49, -0.88), (1.1233, 0.1147)) == pytest.approx(
        logspace_tce(0.49, 0.49, -0.88, 1.1233, 0.1147), rel=1e-12)


def test_tce_integral_random_fits_with_tiny_shapes():
    rng = np.random.default_rng(2025)
    for i in range(50):
        al, be = np.exp(rng.uniform(math.log(0.005), math.log(0.5), 2))
        a, b = np.exp(rng.uniform(math.log(0.05), math.log(4.0), 2))
        c, p = rng.uniform(-3.0, 3.0), (1.0, 2.0)[i % 2]
        ref = logspace_tce(a, b, c, al, be, p=p)
        assert tce_integral((a, b, c), (al, be), p=p) == pytest.approx(ref, rel=1e-9), (
            a, b, c, al, be, p)


# ------------------------------------------------------------------ the estimator
# Error of tce_bpm against the exact true TCE on Dong et al. (2025) Algorithm 3 data,
# measured over 200 seeds by benchmarks/bench_bpm.py: mean error +0.0004 (N = 1000) and
# -0.0004 (N = 5000), standard deviation SD[n].  Each of the 20 seeds below must fall
# within 4 SD of the truth (0.048 and 0.022), and their mean error within 3 standard
# errors (SD / sqrt(20)) of zero plus a bias allowance of 0.001.
SD = {1000: 0.0120, 5000: 0.0056}


@pytest.mark.parametrize("n", [1000, 5000])
def test_tce_bpm_close_to_exact_true_tce_on_algorithm_3_data(n):
    truth = true_tce()
    errors = []
    for seed in range(20):
        df = bpm_simulation(n, seed=seed)
        errors.append(tce_bpm(df["confidence"], df["correct"]) - truth)
    errors = np.array(errors)
    assert np.max(np.abs(errors)) < 4 * SD[n], errors
    assert abs(errors.mean()) < 0.001 + 3 * SD[n] / math.sqrt(20)


def test_qualitative_results_on_the_reference_datasets():
    for n in (500, 2000):
        assert tce_bpm(*dataset_d("sq", n)) == pytest.approx(1 / 6, abs=0.01)
        assert tce_bpm(*dataset_d("id", n)) < 0.01
    assert tce_bpm(*dataset_p(0, 5000)) == pytest.approx(P_TRUE_TCE, abs=0.01)
    assert tce_bpm(*dataset_p(1, 2000)) == pytest.approx(P_TRUE_TCE, abs=0.02)


def test_sorted_and_shuffled_input_give_identical_results_with_ties():
    s, y = simulated(1500, seed=8, ties=2)  # many tied confidences
    order = np.lexsort((y, s))
    perm = np.random.default_rng(0).permutation(1500)
    a = tce_bpm(s[order], y[order], return_fit=True)
    b = tce_bpm(s[perm], y[perm], return_fit=True)
    assert a.tce == b.tce and a.fit == b.fit


def test_input_types_and_dtypes_give_identical_results():
    s, y = simulated(400, seed=2)
    ref = tce_bpm(s, y)
    assert tce_bpm(list(s), list(y.astype(int))) == ref
    assert tce_bpm(pd.Series(s), pd.Series(y)) == ref
    # float32 confidences (the published code crashes on them) are read as float64
    s32 = s.astype(np.float32)
    assert tce_bpm(s32, y) == tce_bpm(s32.astype(np.float64), y)


def test_inputs_are_not_mutated():
    s, y = simulated(300, seed=5)
    s0, y0 = s.copy(), y.copy()
    tce_bpm(s, y)
    np.testing.assert_array_equal(s, s0)
    np.testing.assert_array_equal(y, y0)


def test_return_types_and_reported_p_and_density():
    s, y = simulated(800, seed=6)
    val = tce_bpm(s, y, p=2)
    assert type(val) is float
    res = tce_bpm(s, y, p=2, return_fit=True)
    assert isinstance(res, TceBpmResult) and res.p == 2.0 and res.tce == val
    mu, v = s.mean(), s.var(ddof=1)
    alpha = mu**2 * (1 - mu) / v - mu  # method of moments, as the published code
    assert res.density == pytest.approx((alpha, alpha * (1 - mu) / mu), rel=1e-12)
    assert res.tce == pytest.approx(tce_integral(res.fit, res.density, p=2), abs=1e-15)
    # TCE_2 >= TCE_1 (power means of |g - x| under f)
    assert val >= tce_bpm(s, y)


def test_density_argument():
    s, y = simulated(800, seed=7)
    fit = fit_bpm_curve(s, y)
    assert tce_bpm(s, y, density=(2.0, 1.0)) == pytest.approx(
        tce_integral(fit, (2.0, 1.0)), abs=1e-15)
    assert tce_bpm(s, y, density=stats.beta(2.0, 1.0)) == pytest.approx(
        tce_integral(fit, (2.0, 1.0)), abs=1e-12)


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [(lambda: tce_bpm(*simulated(59, 0)), ValueError,
      r"`conf` has 59 rows, but .* needs at least 60"),
     (lambda: fit_bpm_curve(np.full(30, 0.5), np.ones(30)), ValueError, "needs at least 60"),
     (lambda: tce_bpm(np.linspace(0.1, 0.9, 100), np.ones(99)), ValueError,
      "different numbers of rows"),
     # 0.1 + i * 1.4 / 99 > 1 for i >= 64: 36 of the 100 values
     (lambda: tce_bpm(np.linspace(0.1, 1.5, 100), np.ones(100)), ValueError,
      r"`conf` has 36 values outside \[0, 1\]"),
     (lambda: tce_bpm(np.linspace(0.1, 0.9, 100), np.full(100, 2)), ValueError,
      "`correct` must hold 0/1"),
     (lambda: tce_bpm(*simulated(100, 0), p=0.5), ValueError,
      "`p` must be a finite number >= 1"),
     (lambda: tce_bpm(*simulated(100, 0), density=(0.0, 1.0)), ValueError,
      "not a valid Beta density"),
     (lambda: tce_bpm(*simulated(100, 0), density="beta"), TypeError,
      "`density` must be None, a pair"),
     (lambda: tce_bpm(*simulated(100, 0), density=stats.norm()), ValueError,
      r"support is \[-inf, inf\]"),
     (lambda: tce_bpm(np.full(100, 0.7), np.arange(100) % 2), ValueError,
      "method-of-moments Beta fit of `conf`"),
     (lambda: tce_bpm(*simulated(300, 0), min_bin=30, max_bin=50), ValueError,
      "`max_bin` must be at least twice `min_bin`"),
     (lambda: tce_bpm(*simulated(300, 0), n_binnings=1), ValueError,
      "`n_binnings` must be an integer >= 2"),
     (lambda: _published_objective_tce(*simulated(239, 0)), ValueError,
      "the published TCE_bpm objective needs at least 240"),
     (lambda: tce_integral("curve", (1.0, 1.0)), TypeError, "`curve` must be a BpmFit")],
)
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# ----------------------------------- the published objective (github.com/NeuroDong/TCEbpm)
# (data, theta = (a, b, c), (alpha, beta), TCE_bpm printed by the published code (5 s.f.),
#  TCE of the separate float64 re-implementation of that code; see the module docstring)
REFERENCE_D = {
    ("sq", 500): ((1.767967, 0.883494, -0.451844), (0.997006, 0.997006), 0.16453, 0.1645255),
    ("sq", 2000): ((1.739917, 0.959099, -0.566469), (0.999250, 0.999250), 0.16624, 0.1662373),
    ("id", 500): ((0.995485, 1.011814, -0.016363), (0.997006, 0.997006), 0.00083873,
                  0.00083867),
    ("id", 2000): ((0.981466, 1.025297, -0.033157), (0.999250, 0.999250), 0.00094994,
                   0.00094979),
}


@pytest.mark.parametrize("key", list(REFERENCE_D))
def test_published_objective_reproduces_reference_on_dataset_d(key):
    theta, ab, ref, reimpl = REFERENCE_D[key]
    res = _published_objective_tce(*dataset_d(*key))
    assert res.tce == pytest.approx(ref, abs=1e-4)
    assert res.tce == pytest.approx(reimpl, abs=2e-6)
    np.testing.assert_allclose([res.a, res.b, res.c], theta, atol=1e-5)
    np.testing.assert_allclose([res.alpha, res.beta], ab, atol=1e-6)


REFERENCE_P = {  # the same, on dataset_p(seed, n) drawn with NumPy 2.4.6
    (0, 5000): ((0.714481, 0.475812, -0.730346), (1.176248, 0.116225), 0.12522, 0.1252212),
    (1, 2000): ((0.634629, 0.517815, -0.923966), (1.106901, 0.121136), 0.13426, 0.1342558),
    (2, 1000): ((0.399459, 0.561227, -1.350873), (1.085726, 0.124457), 0.16381, 0.1638097),
}


@pytest.mark.parametrize("key", list(REFERENCE_P))
def test_published_objective_reproduces_reference_on_dataset_p(key):
    theta, ab, ref, reimpl = REFERENCE_P[key]
    conf, y = dataset_p(*key)
    mu, v = conf.mean(), conf.var(ddof=1)
    if abs(mu**2 * (1 - mu) / v - mu - ab[0]) > 1e-5:  # fingerprint of the data
        pytest.skip("this NumPy's Beta stream differs from NumPy 2.4.6's, which drew "
                    "the reference data")
    res = _published_objective_tce(conf, y)
    assert res.tce == pytest.approx(ref, abs=1e-4)
    assert res.tce == pytest.approx(reimpl, abs=2e-6)
    np.testing.assert_allclose([res.a, res.b, res.c], theta, atol=1e-5)
    if key == (0, 5000):
        assert res.objective == pytest.approx(-1631.7128, abs=1e-3)


# ------------------------------------------------------------------------ properties
coefficients = st.tuples(st.floats(0.0, 4.0), st.floats(0.0, 4.0), st.floats(-3.0, 3.0))
beta_shapes = st.tuples(st.floats(0.2, 8.0), st.floats(0.2, 8.0))
samples = st.tuples(st.integers(60, 400), st.integers(0, 2**32 - 1),
                    st.sampled_from([None, 1, 2]))


@settings(max_examples=40, deadline=None)
@given(coef=coefficients, dens=beta_shapes)
def test_tce_is_a_power_mean_nondecreasing_in_p_and_within_0_1(coef, dens):
    t1, t2, t4 = (tce_integral(coef, dens, p=p) for p in (1, 2, 4))
    assert 0.0 <= t1 <= t2 + 1e-10 <= t4 + 2e-10 <= 1.0 + 2e-10


@settings(max_examples=30, deadline=None)
@given(sample=samples)
def test_fit_is_monotone_and_order_free(sample):
    n, seed, ties = sample
    s, y = simulated(n, seed, ties)
    perm = np.random.default_rng(seed).permutation(n)
    a = tce_bpm(s, y, return_fit=True)
    b = tce_bpm(s[perm], y[perm], return_fit=True)
    assert a.tce == b.tce and a.fit == b.fit
    assert a.fit.a >= 0 and a.fit.b >= 0
    assert np.all(np.diff(a.fit(np.linspace(0, 1, 501))) >= 0)
    assert 0.0 <= a.tce <= 1.0
