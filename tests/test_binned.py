"""Bin edges, reliability table, ECE_p, MCE and signed ECE (calreport.metrics.binned).

Reference values come from a hand-worked example (eight rows, four bins; the
arithmetic is in the comments), scalar-loop bin membership and brute-force loops over
bins, scikit-learn's ``calibration_curve``, statsmodels' Wilson interval and the
plug-in ECEs computed by scalar loops over bins (the L1 plug-in estimator of Kumar,
Liang & Ma 2019, as in their ``verified_calibration`` package) on deterministic
"D" datasets defined in :func:`d_dataset`.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.calibration import calibration_curve
from statsmodels.stats.proportion import proportion_confint

from calreport.metrics import binned

# hand-worked example: eight rows, four equal-width bins (arithmetic in the tests)
HAND_P = np.array([0.0, 0.25, 0.25, 0.5, 0.6, 0.75, 1.0, 1.0])
HAND_Y = np.array([0, 1, 0, 1, 1, 0, 1, 0])


# ------------------------------------------------------------------------ helpers
def exact_uniform_bin(score: float, n_bins: int) -> int:
    """Bin of ((m-1)/M, m/M] by a scalar loop; 0 goes to the first bin.

    The edge m/M is the float nearest to it (Python's correctly rounded ``m / M``), so
    that a score typed as ``m / M`` -- ``0.2`` for 1/5 -- sits on the edge.
    """
    for m in range(1, n_bins + 1):
        if score <= m / n_bins:
            return m - 1
    raise AssertionError("score above 1")


def brute_bins(s, y, w, bins, n_bins):
    """Per-bin (weight, mean score, mean outcome) by a Python loop over bins."""
    out = []
    for b in range(n_bins):
        rows = [i for i in range(len(s)) if bins[i] == b and w[i] > 0]
        tot = sum(w[i] for i in rows)
        if tot == 0:
            out.append((0.0, math.nan, math.nan))
            continue
        out.append((tot, sum(w[i] * s[i] for i in rows) / tot,
                    sum(w[i] * y[i] for i in rows) / tot))
    return out


def brute_ece(per_bin, p):
    total = sum(t for t, _, _ in per_bin)
    acc = sum(t * abs(a - c) ** p for t, c, a in per_bin if t > 0)
    return (acc / total) ** (1 / p)


def d_dataset(kind: str, n: int):
    """D(kind, n): f_i = (i - 0.5)/n, u_i = frac(i * golden), y = 1[u < f^2 or f]."""
    i = np.arange(1, n + 1)
    f = (i - 0.5) / n
    u = np.mod(i * 0.6180339887498949, 1.0)
    y = (u < (f**2 if kind == "sq" else f)).astype(int)
    return f, y


def random_data(n=500, seed=0, decimals=None):
    rng = np.random.default_rng(seed)
    s = rng.beta(2.0, 1.5, n)
    if decimals is not None:
        s = np.round(s, decimals)
    y = (rng.random(n) < s**1.3).astype(int)
    return s, y


# ------------------------------------------------------------------ hand example
def test_hand_example_table():
    t = binned.reliability_table(HAND_P, HAND_Y, n_bins=4)
    # (lo, hi] bins with 0 in the first: {0, .25, .25}, {.5}, {.6, .75}, {1, 1}
    np.testing.assert_array_equal(t.count, [3, 1, 2, 2])
    np.testing.assert_array_equal(t.lower, [0.0, 0.25, 0.5, 0.75])
    np.testing.assert_array_equal(t.upper, [0.25, 0.5, 0.75, 1.0])
    # conf = 0.5/3, 0.5, 1.35/2, 1;  acc = 1/3, 1, 1/2, 1/2
    np.testing.assert_allclose(t.mean_score, [0.5 / 3, 0.5, 0.675, 1.0])
    np.testing.assert_allclose(t.mean_outcome, [1 / 3, 1.0, 0.5, 0.5])
    # gap = acc - conf: last two bins overconfident (negative)
    np.testing.assert_allclose(t.gap, [1 / 6, 0.5, -0.175, -0.5])
    assert t.strategy == "uniform" and t.n_bins == 4 and t.alpha == 0.05


def test_hand_example_scalars():
    # ECE = 3/8 * 1/6 + 1/8 * 0.5 + 2/8 * 0.175 + 2/8 * 0.5
    #     = 0.0625 + 0.0625 + 0.04375 + 0.125 = 0.29375
    assert binned.ece(HAND_P, HAND_Y, n_bins=4) == pytest.approx(0.29375, abs=1e-15)
    # the [lo, hi) convention would give 0.39375: make sure we are not on it
    assert binned.ece(HAND_P, HAND_Y, n_bins=4) != pytest.approx(0.39375)
    # ECE_2 = sqrt(3/8 (1/6)^2 + 1/8 0.5^2 + 2/8 0.175^2 + 2/8 0.5^2)
    ece2 = math.sqrt(3 / 8 / 36 + 1 / 8 * 0.25 + 2 / 8 * 0.175**2 + 2 / 8 * 0.25)
    assert binned.ece(HAND_P, HAND_Y, n_bins=4, p=2) == pytest.approx(ece2, rel=1e-14)
    # MCE: gaps 1/6, 0.5, 0.175, 0.5 with counts 3, 1, 2, 2
    assert binned.mce(HAND_P, HAND_Y, n_bins=4) == pytest.approx(0.5)
    assert binned.mce(HAND_P, HAND_Y, n_bins=4, min_count=2) == pytest.approx(0.5)
    assert binned.mce(HAND_P, HAND_Y, n_bins=4, min_count=3) == pytest.approx(1 / 6)
    assert math.isnan(binned.mce(HAND_P, HAND_Y, n_bins=4, min_count=4))
    # signed ECE = mean(p) - mean(y) = 4.35/8 - 4/8 = 0.04375
    assert binned.signed_ece(HAND_P, HAND_Y, n_bins=4) == pytest.approx(0.04375, abs=1e-15)


# ------------------------------------------------------------------- float edges
def test_uniform_edges_are_exact_fractions():
    for n_bins in range(1, 61):
        edges = binned.bin_edges([0.5], n_bins=n_bins)
        assert edges.shape == (n_bins + 1,)
        scores = np.arange(n_bins + 1) / n_bins  # the floats nearest m / M
        expected = [exact_uniform_bin(x, n_bins) for x in scores]
        np.testing.assert_array_equal(binned.assign_bins(scores, edges), expected)


def test_linspace_pitfalls_avoided():
    # linspace(0, 1, 11)[3] = 0.30000000000000004 > 0.3: 0.3 belongs to (0.2, 0.3]
    assert np.linspace(0, 1, 11)[3] == 0.30000000000000004
    edges = binned.bin_edges([0.3], n_bins=10)
    assert binned.assign_bins([0.3], edges)[0] == 2
    assert binned.assign_bins([np.nextafter(0.3, 1.0)], edges)[0] == 3
    # linspace(0, 1, 7)[5] is one ulp below 5/6: searchsorted on it would put the
    # float 5/6 in the sixth bin; it belongs to (4/6, 5/6]
    lin = np.linspace(0, 1, 7)
    assert lin[5] < 5 / 6
    assert np.searchsorted(lin[1:-1], 5 / 6) == 5
    assert binned.assign_bins([5 / 6], binned.bin_edges([0.5], n_bins=6))[0] == 4


def test_assign_bins_matches_scalar_loop_membership():
    rng = np.random.default_rng(3)
    s = np.concatenate([rng.random(300), np.arange(16) / 15, [0.0, 1.0]])
    got = binned.assign_bins(s, binned.bin_edges(s, n_bins=15))
    np.testing.assert_array_equal(got, [exact_uniform_bin(x, 15) for x in s])


# ------------------------------------------------------------ brute-force reference
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n_bins", [1, 4, 10, 15])
def test_uniform_metrics_match_brute_force(weighted, n_bins):
    s, y = random_data(400, seed=n_bins, decimals=2)  # many scores on edges m/M
    w = np.random.default_rng(7).uniform(0, 3, s.size) if weighted else np.ones(s.size)
    bins = [exact_uniform_bin(x, n_bins) for x in s]
    per_bin = brute_bins(s, y, w, bins, n_bins)
    sw = w if weighted else None
    for p in (1, 1.5, 2, 3):
        assert binned.ece(s, y, n_bins=n_bins, p=p, sample_weight=sw) == pytest.approx(
            brute_ece(per_bin, p), rel=1e-12)
    gaps = [abs(a - c) for t, c, a in per_bin if t > 0]
    assert binned.mce(s, y, n_bins=n_bins, sample_weight=sw) == pytest.approx(max(gaps))
    signed = sum(t * (c - a) for t, c, a in per_bin if t > 0) / sum(w)
    assert binned.signed_ece(s, y, n_bins=n_bins, sample_weight=sw) == pytest.approx(signed)
    t = binned.reliability_table(s, y, n_bins=n_bins, sample_weight=sw)
    np.testing.assert_allclose(t.weight_sum, [b[0] for b in per_bin], rtol=1e-12)
    np.testing.assert_allclose(t.mean_score, [b[1] for b in per_bin], rtol=1e-12)
    np.testing.assert_allclose(t.mean_outcome, [b[2] for b in per_bin], rtol=1e-12)


# --------------------------------------------------------------- scikit-learn
# np.percentile computes the position q (N - 1) in floating point from q * 100 / 100;
# when that position is an integer it can land one ulp low, and scikit-learn then
# moves that order statistic to the upper bin.  calreport computes the position
# exactly, so the comparison uses sizes with gcd(N - 1, M) = 1 (no integer
# positions); test_quantile_positions_are_exact covers the other case.
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize(("n", "n_bins"), [(500, 5), (1000, 10), (333, 15), (2000, 15),
                                           (97, 7)])
def test_matches_sklearn_calibration_curve(strategy, n, n_bins):
    assert math.gcd(n - 1, n_bins) == 1
    rng = np.random.default_rng(n + n_bins)
    s = rng.random(n) ** 1.5  # continuous: no ties
    y = (rng.random(n) < s).astype(int)
    prob_true, prob_pred = calibration_curve(y, s, n_bins=n_bins, strategy=strategy)
    t = binned.reliability_table(s, y, n_bins=n_bins, strategy=strategy)
    full = t.count > 0
    assert t.mean_score.shape == (n_bins,)
    np.testing.assert_allclose(t.mean_outcome[full], prob_true, rtol=1e-12)
    np.testing.assert_allclose(t.mean_score[full], prob_pred, rtol=1e-12)
    assert np.isnan(t.mean_score[~full]).all()
    if strategy == "quantile":
        edges = np.percentile(s, np.linspace(0, 1, n_bins + 1) * 100)
        np.testing.assert_allclose(binned.bin_edges(s, n_bins=n_bins, strategy=strategy),
                                   edges, rtol=0, atol=1e-15)


def test_quantile_positions_are_exact():
    # N = 16, M = 15: the type-7 positions q (N - 1) = 0, 1, ..., 15 are integers,
    # so every edge is a data point: the first bin holds the two smallest scores and
    # every other bin exactly one (scikit-learn leaves some bins empty here)
    rng = np.random.default_rng(0)
    s = rng.random(16)
    t = binned.reliability_table(s, s > 0.5, n_bins=15, strategy="quantile")
    np.testing.assert_array_equal(t.count, np.r_[2, np.ones(14, int)])
    np.testing.assert_array_equal(binned.bin_edges(s, n_bins=15, strategy="quantile"),
                                  np.sort(s)[np.arange(16)])


def test_quantile_heavy_ties_keep_fixed_length():
    s = np.r_[np.full(50, 0.2), np.full(50, 0.8)]
    y = np.r_[np.zeros(40), np.ones(10), np.zeros(10), np.ones(40)]
    # positions m * 99 / 10: m < 5 fall on 0.2, m = 5 at 49.5 interpolates to 0.5,
    # m > 5 fall on 0.8 -> edges [.2]*5 + [.5] + [.8]*5
    edges = binned.bin_edges(s, n_bins=10, strategy="quantile")
    np.testing.assert_allclose(edges, [0.2] * 5 + [0.5] + [0.8] * 5)
    t = binned.reliability_table(s, y, n_bins=10, strategy="quantile")
    assert t.count.shape == (10,)
    np.testing.assert_array_equal(np.flatnonzero(t.count), [0, 5])
    np.testing.assert_allclose(t.mean_outcome[[0, 5]], [0.2, 0.8])
    assert np.isnan(np.delete(t.mean_outcome, [0, 5])).all()
    assert np.isnan(np.delete(t.ci_low, [0, 5])).all()
    prob_true, prob_pred = calibration_curve(y, s, n_bins=10, strategy="quantile")
    np.testing.assert_allclose(t.mean_outcome[[0, 5]], prob_true)
    np.testing.assert_allclose(t.mean_score[[0, 5]], prob_pred)
    assert binned.ece(s, y, n_bins=10, strategy="quantile") == pytest.approx(0.0, abs=1e-15)


def test_quantile_bins_follow_sorted_positions_with_close_values():
    # adjacent floats: the interpolated edge must stay strictly below the next value
    x = 0.5
    s = np.array([x, np.nextafter(x, 1), np.nextafter(np.nextafter(x, 1), 1), 0.9])
    t = binned.reliability_table(s, [1, 0, 1, 0], n_bins=2, strategy="quantile")
    # position 0.5 * 3 = 1.5: rows 0 and 1 below, rows 2 and 3 above
    np.testing.assert_array_equal(t.count, [2, 2])


def test_quantile_normalised_weights_do_not_collapse():
    rng = np.random.default_rng(5)
    s, y = random_data(300, seed=5)
    w = rng.uniform(0.5, 2.0, s.size)
    per_mean = binned.bin_edges(s, n_bins=10, strategy="quantile", sample_weight=w / w.mean())
    per_sum = binned.bin_edges(s, n_bins=10, strategy="quantile", sample_weight=w / w.sum())
    np.testing.assert_allclose(per_sum, per_mean, rtol=1e-12)
    counts = binned.reliability_table(s, y, n_bins=10, strategy="quantile",
                                      sample_weight=w / w.sum()).count
    assert (counts > 15).all()


# --------------------------------------------------- published reference values
@pytest.mark.parametrize(
    ("kind", "n", "expected", "tol"),
    [("sq", 500, 0.164, 1e-12), ("sq", 2000, 0.167, 1e-12),
     ("id", 500, 0.022888, 5e-7), ("id", 2000, 0.0066555, 5e-8)],
)
def test_kumar_plugin_ece_on_d_datasets(kind, n, expected, tol):
    # L1 plug-in, 15 equal-width (lo, hi] bins, as verified_calibration; values from
    # scalar loops over the bins
    f, y = d_dataset(kind, n)
    assert binned.ece(f, y, n_bins=15) == pytest.approx(expected, abs=tol)


@pytest.mark.parametrize("n", [500, 2000])
def test_every_bin_overconfident_gives_mean_gap(n):
    # D(sq): true curve x^2 below the diagonal, every bin overconfident, so L1 ECE is
    # mean(f) - mean(y) = 0.5 - 0.336 (n=500) or 0.5 - 0.333 (n=2000), any binning
    f, y = d_dataset("sq", n)
    expected = {500: 0.5 - 0.336, 2000: 0.5 - 0.333}[n]
    for strategy in ("uniform", "quantile"):
        for n_bins in (5, 10, 15, 30):
            t = binned.reliability_table(f, y, n_bins=n_bins, strategy=strategy)
            assert (t.gap[t.count > 0] < 0).all()
            assert binned.ece(f, y, n_bins=n_bins, strategy=strategy) == pytest.approx(
                expected, abs=1e-12)


# ----------------------------------------------------------------- Wilson interval
@pytest.mark.parametrize("alpha", [0.05, 0.1, 0.01])
def test_wilson_matches_statsmodels(alpha):
    s, y = random_data(600, seed=11)
    t = binned.reliability_table(s, y, n_bins=10, alpha=alpha)
    full = t.count > 0
    succ = np.round(t.mean_outcome[full] * t.count[full])
    low, high = proportion_confint(succ, t.count[full], alpha=alpha, method="wilson")
    np.testing.assert_allclose(t.ci_low[full], low, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(t.ci_high[full], high, rtol=1e-10, atol=1e-14)
    assert (t.ci_low[full] <= t.mean_outcome[full]).all()
    assert (t.mean_outcome[full] <= t.ci_high[full]).all()


def test_weighted_wilson_uses_kish_effective_size():
    s, y = random_data(400, seed=12)
    w = np.random.default_rng(2).uniform(0.2, 3.0, s.size)
    t = binned.reliability_table(s, y, n_bins=8, sample_weight=w)
    bins = binned.assign_bins(s, binned.bin_edges(s, n_bins=8))
    n_eff = np.array([w[bins == b].sum() ** 2 / (w[bins == b] ** 2).sum() for b in range(8)])
    np.testing.assert_allclose(t.n_eff, n_eff, rtol=1e-12)
    low, high = proportion_confint(t.mean_outcome * n_eff, n_eff, alpha=0.05, method="wilson")
    np.testing.assert_allclose(t.ci_low, low, rtol=1e-10)
    np.testing.assert_allclose(t.ci_high, high, rtol=1e-10)
    # a constant weight changes nothing (Kish n_eff = row count)
    t1 = binned.reliability_table(s, y, n_bins=8)
    t3 = binned.reliability_table(s, y, n_bins=8, sample_weight=np.full(s.size, 3.0))
    np.testing.assert_allclose(t3.ci_low, t1.ci_low, rtol=1e-12)
    np.testing.assert_allclose(t3.n_eff, t1.count, rtol=1e-12)


def test_mce_min_count_uses_kish_size_with_weights():
    s = [0.1, 0.2, 0.9, 0.8]
    y = [0, 1, 1, 1]
    w = [1.0, 9.0, 1.0, 1.0]
    # bin 0 (scores <= 0.5): weight 10, conf = (0.1 + 9 * 0.2)/10 = 0.19,
    #   acc = 9/10 = 0.9 -> gap 0.71; Kish n = 10^2 / (1 + 81) ~ 1.22 (2 rows)
    # bin 1: weight 2, conf 0.85, acc 1 -> gap 0.15; Kish n = 2
    assert binned.mce(s, y, n_bins=2, sample_weight=w) == pytest.approx(0.71)
    # min_count = 2 drops bin 0: its row count (2) and weight sum (10) would not
    assert binned.mce(s, y, n_bins=2, sample_weight=w, min_count=2) == pytest.approx(0.15)
    assert math.isnan(binned.mce(s, y, n_bins=2, sample_weight=w, min_count=3))


# ---------------------------------------------------------------- table structure
def test_table_fixed_length_nan_for_empty_and_read_only():
    t = binned.reliability_table([0.91, 0.95, 0.97], [1, 1, 0], n_bins=15)
    assert all(getattr(t, f).shape == (15,) for f in (
        "lower", "upper", "count", "weight_sum", "n_eff", "mean_score", "mean_outcome",
        "gap", "ci_low", "ci_high"))
    assert t.count.sum() == 3 and (t.count > 0).sum() == 2
    empty = t.count == 0
    for f in ("mean_score", "mean_outcome", "gap", "ci_low", "ci_high"):
        assert np.isnan(getattr(t, f)[empty]).all()
    assert (t.weight_sum[empty] == 0).all()
    with pytest.raises(ValueError, match="read-only"):
        t.count[0] = 5


def test_inputs_not_mutated_and_types():
    s = np.array([0.2, 0.7, 0.9, 0.4])
    y = np.array([False, True, True, True])
    w = np.array([1.0, 2.0, 0.0, 1.0])
    copies = s.copy(), y.copy(), w.copy()
    binned.reliability_table(s, y, n_bins=3, strategy="quantile", sample_weight=w)
    binned.ece(s, y, n_bins=3, sample_weight=w)
    for a, b in zip((s, y, w), copies, strict=True):
        np.testing.assert_array_equal(a, b)
    assert isinstance(binned.ece(s.tolist(), y.astype(int).tolist()), float)
    assert isinstance(binned.mce(s, y), float)
    assert isinstance(binned.signed_ece(s, y), float)


def test_quantile_zero_weight_rows_do_not_move_edges():
    s = np.array([0.05, 0.2, 0.4, 0.6, 0.8, 0.99])
    w = np.array([0.0, 1.0, 1.0, 1.0, 1.0, 0.0])
    np.testing.assert_array_equal(
        binned.bin_edges(s, n_bins=3, strategy="quantile", sample_weight=w),
        binned.bin_edges(s[1:-1], n_bins=3, strategy="quantile"))


# ------------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"n_bins": 0}, ValueError, "`n_bins` must be a positive integer"),
        ({"n_bins": 2.5}, ValueError, "`n_bins` must be a positive integer"),
        ({"strategy": "equal"}, ValueError, "`strategy` must be one of 'uniform', 'quantile'"),
        ({"p": 0.5}, ValueError, "`p` must be a finite number >= 1"),
        ({"p": "two"}, TypeError, "`p` must be a number"),
        ({"sample_weight": [1, -1, 1, 1]}, ValueError, "`sample_weight` has 1 negative value"),
        ({"sample_weight": [1, 1]}, ValueError, "`sample_weight` has 2, `the data` has 4"),
        ({"sample_weight": [0, 0, 0, 0]}, ValueError, "`sample_weight` is zero everywhere"),
    ],
)
def test_option_errors(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        binned.ece([0.1, 0.5, 0.7, 0.9], [0, 1, 1, 1], **kwargs)


@pytest.mark.parametrize(
    ("score", "outcome", "exc", "match"),
    [
        ([0.1, 1.2, 0.3], [0, 1, 1], ValueError, r"`score` has 1 value outside \[0, 1\]"),
        ([0.1, np.nan, 0.3], [0, 1, 1], ValueError, "`score` has 1 missing value"),
        (["a", "b", "c"], [0, 1, 1], TypeError, "`score` must be numeric"),
        ([0.1, 0.2, 0.3], [0, 2, 1], ValueError, "`outcome` must hold 0/1"),
        ([0.1, 0.2, 0.3], [0, 1], ValueError, "`score` has 3, `outcome` has 2"),
        ([], [], ValueError, "`score` is empty"),
    ],
)
def test_input_errors(score, outcome, exc, match):
    for fn in (binned.ece, binned.mce, binned.signed_ece, binned.reliability_table):
        with pytest.raises(exc, match=match):
            fn(score, outcome)


def test_specific_option_errors():
    with pytest.raises(ValueError, match="`min_count` must be an integer >= 1"):
        binned.mce([0.2], [1], min_count=0)
    with pytest.raises(ValueError, match=r"`alpha` must be a number in \(0, 1\)"):
        binned.reliability_table([0.2], [1], alpha=1.0)
    with pytest.raises(ValueError, match="`edges` must be non-decreasing; 1 edge is below"):
        binned.assign_bins([0.2], [0.0, 0.6, 0.5, 1.0])
    with pytest.raises(ValueError, match="`edges` needs at least 2 values"):
        binned.assign_bins([0.2], [0.5])
    with pytest.raises(ValueError, match="`strategy` must be one of"):
        binned.bin_edges([0.2], strategy="kmeans")


# ------------------------------------------------------------------ extreme weights
@pytest.mark.parametrize("scale", [1e160, 1e-100, 1e80, 1e300, 5e-324])
def test_constant_extreme_weights_equal_unit_weights(scale):
    # sums of 1e160-sized weights (and their squares, for Kish's n_eff) overflowed and
    # 1e-200-sized ones underflowed; the weights are rescaled by a power of two first
    f, y = d_dataset("sq", 400)
    w = np.full(f.size, scale)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = {
            "ece": binned.ece(f, y, sample_weight=w),
            "ece2": binned.ece(f, y, p=2, sample_weight=w),
            "mce": binned.mce(f, y, sample_weight=w),
            "mce5": binned.mce(f, y, min_count=5, sample_weight=w),
            "signed": binned.signed_ece(f, y, sample_weight=w),
            "quantile": binned.ece(f, y, strategy="quantile", sample_weight=w),
        }
        t = binned.reliability_table(f, y, sample_weight=w)
    ref = {
        "ece": binned.ece(f, y), "ece2": binned.ece(f, y, p=2), "mce": binned.mce(f, y),
        "mce5": binned.mce(f, y, min_count=5), "signed": binned.signed_ece(f, y),
    }
    for name, value in ref.items():
        assert math.isfinite(got[name])
        assert got[name] == pytest.approx(value, rel=1e-12, abs=1e-15), name
    # quantile edges read weights as frequencies (the mean weight enters them): finite
    # always, and equal to the unweighted edges when the weights are below 1
    assert math.isfinite(got["quantile"])
    if scale < 1:
        assert got["quantile"] == pytest.approx(binned.ece(f, y, strategy="quantile"),
                                                rel=1e-12)
    ref_t = binned.reliability_table(f, y)
    np.testing.assert_allclose(t.n_eff, ref_t.n_eff, rtol=1e-12)
    np.testing.assert_allclose(t.mean_outcome, ref_t.mean_outcome, rtol=1e-12)
    np.testing.assert_allclose(t.ci_low, ref_t.ci_low, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(t.weight_sum, ref_t.count * scale, rtol=1e-12)


def test_weight_sum_beyond_the_float_range_is_inf_without_warning():
    f, y = d_dataset("id", 100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = binned.reliability_table(f, y, n_bins=2, sample_weight=np.full(100, 1e307))
        e = binned.ece(f, y, n_bins=2, sample_weight=np.full(100, 1e307))
    assert np.isinf(t.weight_sum).all()  # 50 rows of 1e307 each: beyond 1.8e308
    assert e == pytest.approx(binned.ece(f, y, n_bins=2), rel=1e-12)
