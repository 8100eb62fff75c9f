"""The fast paths of the local metrics against their slow, independent definitions.

* LOWESS (``it=0``) by direct sums and by the moment tree against statsmodels' own
  ``lowess`` (the reference implementation);
* the exact small-sample KDE against the full Gaussian sum, and the binned KDE within
  its documented relative error;
* the batched smooth-ECE bandwidth search against the plain bisection written out;
* CORP's group-level decomposition against the row-level scores of ``corp_curve``;
* the summary's shared sort and moment tree against the public functions.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.nonparametric.smoothers_lowess import lowess as sm_lowess

import calreport.registry as registry
from calreport.metrics import (
    _lowess,
    _score_density,
    calibration_index,
    corp,
    debiased,
    local,
    smooth,
)
from calreport.profile import ConfidenceProfile
from calreport.registry import entries
from calreport.settings import Settings
from calreport.summary import summarize


def _sample(kind: str, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if kind == "beta":
        s = rng.beta(2.0, 2.0, n)
    elif kind == "ties":  # scores on a 0.01 grid: long runs of equal scores
        s = np.round(rng.beta(2.0, 5.0, n), 2)
    elif kind == "near_one":  # deep-network confidences: most rows within 1e-3 of 1
        s = np.clip(1.0 - rng.exponential(1e-3, n), 0.0, 1.0)
    else:  # two tight clusters far apart: windows that straddle an empty gap
        s = np.r_[0.2 + 1e-7 * rng.random(n // 2), 0.8 + 1e-7 * rng.random(n - n // 2)]
    y = (rng.random(n) < s**1.3).astype(np.float64)
    return s, y


def _statsmodels_at(s_sorted, y_sorted, x, frac):
    return sm_lowess(y_sorted, s_sorted, frac=frac, it=0, xvals=x, is_sorted=True)


CASES = [("beta", 60, 0.15), ("beta", 3000, 0.15), ("ties", 5000, 0.15),
         ("beta", 20000, 0.15), ("near_one", 20000, 0.3), ("ties", 12000, 0.5),
         ("gap", 9000, 0.4)]


@pytest.mark.parametrize(("kind", "n", "frac"), CASES)
def test_lowess_equals_statsmodels(kind, n, frac):
    s, y = _sample(kind, n)
    order = np.argsort(s, kind="stable")
    s, y = s[order], y[order]
    x = np.unique(np.r_[np.linspace(s[0], s[-1], 211), s[:: max(1, n // 150)]])
    k = int(np.floor(frac * n + 1e-10))
    ref = _statsmodels_at(s, y, x, frac)
    got = _lowess._lowess_at(s, y, x, k)
    # NaN exactly where statsmodels has no local line (fewer than 2 non-zero weights)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_allclose(got[~np.isnan(ref)], ref[~np.isnan(ref)], rtol=0, atol=1e-9)


@pytest.mark.parametrize(("kind", "n", "frac"), [("beta", 400, 0.3), ("ties", 900, 0.2),
                                                 ("gap", 300, 0.5)])
def test_moment_tree_equals_statsmodels_on_small_windows(monkeypatch, kind, n, frac):
    # force the tree (and its leaf-size edge cases) on windows the direct path would take
    monkeypatch.setattr(_lowess, "_BLOCK_MIN_K", 2)
    monkeypatch.setattr(_lowess, "_leaf_size", lambda k: 8)
    s, y = _sample(kind, n, seed=3)
    order = np.argsort(s)
    s, y = s[order], y[order]
    x = np.unique(np.r_[np.linspace(s[0], s[-1], 97), s[::7]])
    k = int(np.floor(frac * n + 1e-10))
    ref = _statsmodels_at(s, y, x, frac)
    got = _lowess._lowess_at(s, y, x, k)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_allclose(got[~np.isnan(ref)], ref[~np.isnan(ref)], rtol=0, atol=1e-9)


def test_moment_tree_nodes_hold_their_rows_moments():
    rng = np.random.default_rng(2)
    s = np.sort(rng.random(1000))
    y = (rng.random(1000) < s).astype(np.float64)
    tree = _lowess._MomentTree(s, y, 16)
    for level, (centre, moments) in enumerate(tree.levels[:5]):
        for node in (0, centre.size // 2, centre.size - 1):
            rows = slice(node * 16 * 2**level, (node + 1) * 16 * 2**level)
            v = s[rows] - centre[node]
            brute = np.array([[np.sum(v**p), np.sum(v**p * y[rows])] for p in range(12)])
            np.testing.assert_allclose(moments[node], brute, rtol=1e-10, atol=1e-15)


def test_lowess_curve_large_sample_never_calls_statsmodels(monkeypatch):
    s, y = _sample("beta", 30000, seed=5)
    expected = sm_lowess(np.asarray(y)[np.argsort(s)], np.sort(s), frac=0.15, it=0,
                         xvals=np.linspace(0.1, 0.9, 33), is_sorted=True)
    import statsmodels.nonparametric.smoothers_lowess as sml

    def forbidden(*args, **kwargs):
        raise AssertionError("statsmodels lowess called on the xvals path")

    monkeypatch.setattr(sml, "lowess", forbidden)
    curve = local.lowess_curve(s, y, grid=np.linspace(0.1, 0.9, 33))
    np.testing.assert_allclose(curve.y, np.clip(expected, 0, 1), rtol=0, atol=1e-12)


def _exact_kde(s, x):
    r = np.concatenate([-s, s, 2 - s])
    q75, q25 = np.percentile(r, [75, 25])
    bw = 0.9 * min(r.std(ddof=1), (q75 - q25) / 1.34) * len(r) ** (-0.2)
    z = (x[:, None] - r[None, :]) / bw
    return np.exp(-0.5 * z**2).sum(axis=1) / (len(r) * bw * math.sqrt(2 * math.pi))


@pytest.mark.parametrize("n", [2, 50, 200])
def test_small_sample_kde_is_the_exact_sum(n):
    rng = np.random.default_rng(n)
    s = np.sort(rng.beta(0.7, 1.5, n))
    x = np.linspace(0, 1, 100)
    got, _ = _score_density.reflected_kde(s, x)
    np.testing.assert_allclose(got, _exact_kde(s, x), rtol=1e-12)


@pytest.mark.parametrize("n", [50, 150])
def test_lcs_change_from_the_binned_kde_is_within_its_bound(monkeypatch, n):
    # the exact KDE replaced the binned one at small n: the values may differ only by
    # the binned KDE's documented relative error (< 1e-6 per weight)
    s, y = _sample("beta", n, seed=11)
    exact = local.lcs(s, y)
    monkeypatch.setattr(_score_density, "_KDE_DIRECT_PAIRS", 0)
    binned = local.lcs(s, y)
    assert binned == pytest.approx(exact, rel=2e-6)
    assert exact != binned  # two genuinely different computations


@pytest.mark.parametrize(("n", "shape"), [(1, (2, 2)), (7, (1, 1)), (999, (0.3, 0.3)),
                                          (50001, (5, 1))])
def test_reflected_bandwidth_without_building_the_sample(n, shape):
    s = np.sort(np.random.default_rng(n).beta(*shape, n))
    r = np.concatenate((-s[::-1], s, 2.0 - s[::-1]))
    assert _score_density.reflected_bw(s) == pytest.approx(_score_density.bw_nrd0(r),
                                                           rel=1e-12)


@pytest.mark.parametrize(("kind", "n"), [("beta", 50), ("ties", 3000), ("beta", 40000),
                                         ("near_one", 20000)])
def test_eci_and_ici_equal_the_statsmodels_computation(kind, n):
    s, y = _sample(kind, n, seed=7)
    order = np.argsort(s, kind="stable")
    ss, yy = s[order], y[order]
    first = np.flatnonzero(np.r_[True, ss[1:] != ss[:-1]])
    distinct = ss[first]
    if distinct.size <= 500:
        g = _statsmodels_at(ss, yy, distinct, 0.15)
    else:
        q = ss[np.round(np.linspace(0, n - 1, 500)).astype(np.int64)]
        nodes = np.unique(np.r_[q, np.linspace(ss[0], ss[-1], 102)])
        g = np.interp(distinct, nodes, _statsmodels_at(ss, yy, nodes, 0.15))
    gap = np.repeat(np.clip(g, 0, 1) - distinct, np.diff(np.r_[first, n]))
    assert calibration_index.eci(s, y) == pytest.approx(100 * np.mean(gap**2), abs=1e-9)
    assert calibration_index.ici(s, y) == pytest.approx(np.mean(np.abs(gap)), abs=1e-10)


# ------------------------------------------------------------------------- smooth ECE


def _plain_bisection(score, outcome):
    """The bandwidth search written out: eleven single evaluations with fftconvolve."""
    s = np.asarray(score, dtype=float)
    y = np.asarray(outcome, dtype=float)
    sm = smooth._Smoother(s, np.ones_like(s), (s - y,))

    def at(sigma):
        weight, residual = sm.masses(smooth._n_nodes(sigma))
        conv = smooth._convolve(np.vstack([weight, residual[0]]), sigma, "relplot")
        dens, resid = smooth._on_mesh(conv, np.linspace(0, 1, smooth._n_mesh(sigma)))
        return float(np.abs(resid).sum() / (dens + 1e-4).sum())

    def too_small(sigma):
        return sigma < 1e-3 or sigma < at(sigma)

    if too_small(1.0):
        return 1.0, at(1.0)
    hi, lo = 1.0, 0.0
    for _ in range(10):
        mid = (hi + lo) / 2
        if too_small(mid):
            lo = mid
        else:
            hi = mid
    return hi, at(hi)


@pytest.mark.parametrize(("n", "truth"), [(30, "calibrated"), (500, "over"), (5000, "under"),
                                          (200000, "calibrated")])
def test_batched_bandwidth_search_equals_plain_bisection(n, truth):
    rng = np.random.default_rng(n)
    s = rng.beta(2, 3, n)
    p = {"calibrated": s, "over": 0.2 + 0.6 * s, "under": s**2}[truth]
    y = rng.random(n) < p
    sigma, value = _plain_bisection(s, y)
    assert smooth.smece_bandwidth(s, y) == sigma
    assert smooth.smece(s, y) == pytest.approx(value, rel=1e-12, abs=1e-15)


def test_bandwidth_search_uses_at_most_five_batches(monkeypatch):
    calls = []
    batch = smooth._smece_batch

    def counting(smoother, sigmas, boundary):
        calls.append(len(sigmas))
        return batch(smoother, sigmas, boundary)

    monkeypatch.setattr(smooth, "_smece_batch", counting)
    rng = np.random.default_rng(0)
    s = rng.random(300)
    smooth.smece(s, rng.random(300) < s)
    assert len(calls) <= 5 and sum(calls) <= 16


# ------------------------------------------------------------------------------- CORP


@pytest.mark.parametrize("rule", ["brier", "log"])
@pytest.mark.parametrize("weighted", [False, True])
def test_corp_decomposition_equals_row_level_scores(rule, weighted):
    rng = np.random.default_rng(4)
    s = np.round(rng.beta(2, 3, 3000), 2)
    y = (rng.random(3000) < s**0.8).astype(float)
    w = rng.random(3000) * (rng.random(3000) > 0.1) if weighted else None
    recal = corp.corp_curve(s, y, sample_weight=w).recalibrated
    ww = np.ones(3000) if w is None else w
    rate = np.sum(ww * y) / ww.sum()

    def mean_score(p):
        if rule == "brier":
            loss = (p - y) ** 2
        else:
            q = np.clip(p, np.finfo(float).eps, 1 - np.finfo(float).eps)
            loss = -(y * np.log(q) + (1 - y) * np.log(1 - q))
        return np.sum(ww * loss) / ww.sum()

    d = corp.corp_decomposition(s, y, rule=rule, sample_weight=w)
    assert d.score == pytest.approx(mean_score(s), rel=1e-12)
    assert d.mcb == pytest.approx(mean_score(s) - mean_score(recal), abs=1e-12)
    assert d.unc == pytest.approx(mean_score(np.full(3000, rate)), abs=1e-12)
    assert d.dsc == pytest.approx(mean_score(np.full(3000, rate)) - mean_score(recal),
                                  abs=1e-12)


# --------------------------------------------------------------------- registry cache


def test_summary_shares_one_sort_and_one_tree(monkeypatch):
    rng = np.random.default_rng(9)
    n = 12000
    p = rng.beta(2, 2, n)
    y = (rng.random(n) < p**1.2).astype(int)
    prof = ConfidenceProfile.from_arrays(y, p)
    built = []
    tree = _lowess._MomentTree

    class Counting(tree):
        def __init__(self, *args, **kwargs):
            built.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(_lowess, "_MomentTree", Counting)
    sorts = []
    sorted_sample = local._sorted_sample
    monkeypatch.setattr(local, "_sorted_sample",
                        lambda *a: sorts.append(1) or sorted_sample(*a))
    res = summarize(prof, metrics=["lcs", "eci", "corp_mcb", "corp_dsc", "corp_unc"],
                    settings=Settings())
    assert len(sorts) == 1 and len(built) == 1
    score, outcome = prof.view(None)
    assert res.values["lcs"] == pytest.approx(local.lcs(score, outcome), rel=1e-12)
    assert res.values["eci"] == pytest.approx(calibration_index.eci(score, outcome), rel=1e-12)
    d = corp.corp_decomposition(score, outcome)
    assert res.values["corp_mcb"] == pytest.approx(d.mcb, rel=1e-12)
    assert res.values["corp_unc"] == pytest.approx(d.unc, rel=1e-12)


def test_cached_lcs_reports_the_same_errors_as_the_function():
    prof = ConfidenceProfile.from_arrays([0, 1, 1], [0.4, 0.4, 0.4])
    res = summarize(prof, metrics=["lcs", "eci"], settings=Settings())
    assert math.isnan(res.values["lcs"]) and math.isnan(res.values["eci"])
    assert "at least two distinct values" in res.reasons["lcs"]
    assert registry.REGISTRY["lcs"].compute is entries._lcs


@pytest.mark.parametrize("strategy", ["equal_mass", "uniform", "discrete", "auto"])
@pytest.mark.parametrize(("n", "n_bins"), [(2, 1), (9, 2), (400, 15), (20000, 40)])
def test_debiased_from_sorted_rows_equals_per_row_binning(strategy, n, n_bins):
    rng = np.random.default_rng(n)
    s = np.round(rng.beta(2, 2, n), 2 if n == 400 else 12)
    y = rng.random(n) < s
    ss, yy = local._sorted_sample(s, y)
    assert debiased._squared_sorted(ss, yy, n_bins, strategy) == pytest.approx(
        debiased.debiased_ece_squared(s, y, n_bins=n_bins, strategy=strategy),
        rel=1e-12, abs=1e-15)


def test_summary_debiased_ece_uses_the_shared_sort():
    rng = np.random.default_rng(12)
    p = rng.beta(2, 2, 5000)
    y = (rng.random(5000) < p).astype(int)
    prof = ConfidenceProfile.from_arrays(y, p)
    res = summarize(prof, metrics=["debiased_ece"], settings=Settings(n_bins=12))
    score, outcome = prof.view(None)
    assert res.values["debiased_ece"] == pytest.approx(
        debiased.debiased_ece(score, outcome, n_bins=12), rel=1e-12)
