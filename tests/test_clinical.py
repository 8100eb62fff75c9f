"""Clinical calibration tests: Hosmer-Lemeshow, Spiegelhalter's Z, Cox intercept/slope.

calzone's validation dataset (``example_data/simulated_welldata.csv`` of calzone
0.1.0, github.com/DIDSR/calzone) is not shipped with calreport, so every
reference value is rebuilt independently: hand-worked examples (arithmetic in the
comments), the formulas written out directly, groups made by ``pandas.qcut``,
scikit-learn's unpenalised logistic regression and the Fisher information for Wald
intervals, and a root finder for the offset-only intercept.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats
from sklearn.linear_model import LogisticRegression

from calreport.metrics.clinical import (
    CoxResult,
    cox_calibration,
    hosmer_lemeshow,
    spiegelhalter_z,
)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def logit(p):
    return np.log(p) - np.log1p(-p)


def simulated(n=2000, seed=0, gamma=1.0):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 3, n)
    y = (rng.random(n) < sigmoid(gamma * logit(p))).astype(np.int64)
    return p, y


# --- Hosmer-Lemeshow ------------------------------------------------------------------


def test_hl_two_groups_by_hand():
    # group 1: 5 rows at 0.2 with 2 events, E = 1: (2-1)^2 / (1 * (1 - 0.2)) = 1.25
    # group 2: 5 rows at 0.8 with 3 events, E = 4: (3-4)^2 / (4 * (1 - 0.8)) = 1.25
    s = [0.2] * 5 + [0.8] * 5
    y = [1, 1, 0, 0, 0, 1, 1, 1, 0, 0]
    res = hosmer_lemeshow(s, y, n_groups=2, strategy="uniform", df=2)
    assert res.statistic == pytest.approx(2.5, rel=1e-12)
    assert res.df == 2 and res.n_groups == 2
    assert res.pvalue == pytest.approx(math.exp(-2.5 / 2), rel=1e-12)  # chi2(2) sf
    np.testing.assert_allclose(res.table["observed"], [2, 3])
    np.testing.assert_allclose(res.table["expected"], [1, 4])
    np.testing.assert_allclose(res.table["count"], [5, 5])


def test_hl_quartiles_by_hand_with_clipping():
    # np.quantile edges of [.1,.1,.2,.2,.3,.3,.4,.4] at 0, 1/4, 1/2, 3/4, 1 sit at
    # positions 0, 1.75, 3.5, 5.25, 7: 0.1, 0.175, 0.25, 0.325, 0.4, so each pair of
    # tied scores is one group (the minimum 0.1 belongs to the first group).
    s = [0.1, 0.1, 0.2, 0.2, 0.3, 0.3, 0.4, 0.4]
    y = [1, 0, 0, 0, 1, 1, 0, 1]
    res = hosmer_lemeshow(s, y, n_groups=4)
    np.testing.assert_allclose(res.table["lower"], [0.1, 0.175, 0.25, 0.325])
    np.testing.assert_allclose(res.table["upper"], [0.175, 0.25, 0.325, 0.4])
    eps = 1e-7
    expected = (
        (1 - 0.2) ** 2 / (0.2 * (1 - 0.1))  # O=1, E=0.2, N=2
        + (2 * eps - 0.4) ** 2 / (0.4 * (1 - 0.2))  # O=0: event rate clipped to 1e-7
        + (2 * (1 - eps) - 0.6) ** 2 / (0.6 * (1 - 0.3))  # O=2: rate clipped to 1-1e-7
        + (1 - 0.8) ** 2 / (0.8 * (1 - 0.4))  # O=1, E=0.8
    )
    assert res.statistic == pytest.approx(expected, rel=1e-12)
    assert res.df == 2
    assert res.pvalue == pytest.approx(math.exp(-expected / 2), rel=1e-12)
    # the table keeps the unclipped counts
    np.testing.assert_allclose(res.table["observed"], [1, 0, 2, 1])


def two_column_hl(p, y, groups):
    """sum over groups of (O1-E1)^2/E1 + (O0-E0)^2/E0, from a loop over the groups."""
    total = 0.0
    for g in np.unique(groups):
        m = groups == g
        o1, e1 = y[m].sum(), p[m].sum()
        o0, e0 = m.sum() - o1, m.sum() - e1
        total += (o1 - e1) ** 2 / e1 + (o0 - e0) ** 2 / e0
    return total


@pytest.mark.parametrize("n_groups", [5, 10, 15])
def test_hl_deciles_equal_two_column_form_on_qcut_groups(n_groups):
    p, y = simulated(3000, seed=n_groups, gamma=1.3)
    # pandas.qcut: np.quantile edges, (lo, hi] with the lowest included (R's cut)
    groups = pd.qcut(p, n_groups, labels=False, duplicates="drop")
    res = hosmer_lemeshow(p, y, n_groups=n_groups)
    assert res.n_groups == n_groups and res.df == n_groups - 2
    assert res.statistic == pytest.approx(two_column_hl(p, y, groups), rel=1e-9)
    assert res.pvalue == pytest.approx(stats.chi2.sf(res.statistic, n_groups - 2))
    np.testing.assert_allclose(res.table["count"], np.bincount(groups))


def test_hl_uniform_groups_match_loop_and_top_label_leaves_half_empty():
    # calzone's HL-H on top-label confidences (>= 0.5): 5 of 10 equal-width groups are
    # non-empty, so the default df is 5 - 2 = 3 (the top-class example of calzone
    # 0.1.0's documentation notebooks reports HL-H with df = 3 for this reason)
    rng = np.random.default_rng(4)
    conf = rng.uniform(0.5, 1.0, 1000)
    conf = conf[conf > 0.5]
    correct = (rng.random(conf.size) < conf).astype(int)
    res = hosmer_lemeshow(conf, correct, strategy="uniform")
    assert res.n_groups == 5 and res.df == 3
    groups = np.ceil(conf * 10).astype(int)  # (lo, hi] tenths
    assert res.statistic == pytest.approx(two_column_hl(conf, correct, groups), rel=1e-9)


def test_hl_ties_stay_in_one_group_and_duplicate_edges_drop_groups():
    s = np.r_[np.full(60, 0.1), np.linspace(0.2, 0.9, 40)]
    y = (np.arange(100) % 3 == 0).astype(int)
    res = hosmer_lemeshow(s, y, n_groups=10)
    assert res.table["count"][0] == 60  # the 60 tied scores share a group
    assert res.n_groups == 5 and res.df == 3
    groups = pd.qcut(s, 10, labels=False, duplicates="drop")
    assert res.statistic == pytest.approx(two_column_hl(s, y, groups), rel=1e-9)


def test_hl_df_override_and_degenerate_default():
    p, y = simulated(500)
    res = hosmer_lemeshow(p, y, df=10)
    assert res.df == 10
    assert res.pvalue == pytest.approx(stats.chi2.sf(res.statistic, 10))
    with pytest.warns(RuntimeWarning, match="Only 2 non-empty group"):
        res = hosmer_lemeshow(p, y, n_groups=2)
    assert math.isnan(res.pvalue) and res.df == 0


def test_hl_scores_at_zero_and_one_stay_finite():
    s = np.r_[np.zeros(20), np.full(20, 0.5), np.ones(20)]
    y = np.r_[np.zeros(20), np.arange(20) % 2, np.ones(20)].astype(int)
    res = hosmer_lemeshow(s, y, n_groups=3, strategy="uniform", df=1)
    # every group is perfectly calibrated; clipping keeps 0/0 away
    assert np.isfinite(res.statistic) and res.statistic == pytest.approx(0, abs=1e-5)


def test_hl_sample_weights():
    p, y = simulated(300, seed=2, gamma=0.7)
    rng = np.random.default_rng(0)
    w = rng.integers(0, 4, p.size)
    for strategy in ("quantile", "uniform"):
        base = hosmer_lemeshow(p, y, strategy=strategy)
        ones = hosmer_lemeshow(p, y, strategy=strategy, sample_weight=np.ones(p.size))
        assert ones.statistic == pytest.approx(base.statistic, rel=1e-12)
        weighted = hosmer_lemeshow(p, y, strategy=strategy, sample_weight=w)
        repeated = hosmer_lemeshow(np.repeat(p, w), np.repeat(y, w), strategy=strategy)
        assert weighted.statistic == pytest.approx(repeated.statistic, rel=1e-10)
        np.testing.assert_allclose(weighted.table["upper"], repeated.table["upper"])
        w01 = (w > 0).astype(float)
        dropped = hosmer_lemeshow(p[w > 0], y[w > 0], strategy=strategy)
        assert hosmer_lemeshow(p, y, strategy=strategy, sample_weight=w01).statistic == (
            pytest.approx(dropped.statistic, rel=1e-12))


def test_hl_detects_miscalibration():
    p, y = simulated(5000, seed=1, gamma=1.0)
    calibrated = hosmer_lemeshow(p, y)
    distorted = hosmer_lemeshow(sigmoid(2 * logit(p)), y)
    assert calibrated.pvalue > 0.01
    assert distorted.pvalue < 1e-6


# --- Spiegelhalter ---------------------------------------------------------------------


def direct_spiegelhalter(p, y):
    num = np.sum((y - p) * (1 - 2 * p))
    den = np.sqrt(np.sum((1 - 2 * p) ** 2 * p * (1 - p)))
    z = num / den
    return z, 2 * (1 - stats.norm.cdf(abs(z)))


def test_spiegelhalter_by_hand():
    # (1-0.25)(1-0.5) + (1-0.75)(1-1.5) = 0.375 - 0.125 = 0.25
    # variance: 0.25 * 0.25*0.75 + 0.25 * 0.75*0.25 = 0.09375; z = 0.25 / sqrt(0.09375)
    z, p = spiegelhalter_z([0.25, 0.75], [1, 1])
    assert z == pytest.approx(0.25 / math.sqrt(0.09375), rel=1e-12)
    assert p == pytest.approx(2 * stats.norm.sf(0.25 / math.sqrt(0.09375)), rel=1e-12)


@pytest.mark.parametrize("gamma", [0.5, 1.0, 2.0])
def test_spiegelhalter_matches_direct_formula(gamma):
    p, y = simulated(4000, seed=3, gamma=gamma)
    res = spiegelhalter_z(p, y)
    z, pval = direct_spiegelhalter(p, y)
    assert res.z == pytest.approx(z, rel=1e-12)
    assert res.pvalue == pytest.approx(pval, rel=1e-9, abs=1e-15)
    assert res == (res.z, res.pvalue)  # unpacks like a tuple


def test_spiegelhalter_sample_weights():
    p, y = simulated(400, seed=5, gamma=1.5)
    w = np.random.default_rng(1).integers(0, 3, p.size)
    assert spiegelhalter_z(p, y, sample_weight=np.ones(p.size)).z == pytest.approx(
        spiegelhalter_z(p, y).z, rel=1e-12)
    assert spiegelhalter_z(p, y, sample_weight=w).z == pytest.approx(
        spiegelhalter_z(np.repeat(p, w), np.repeat(y, w)).z, rel=1e-12)
    keep = w > 0
    assert spiegelhalter_z(p, y, sample_weight=keep.astype(float)).z == pytest.approx(
        spiegelhalter_z(p[keep], y[keep]).z, rel=1e-12)


def test_spiegelhalter_zero_variance_is_nan_with_warning():
    with pytest.warns(RuntimeWarning, match="every score is 0, 0.5 or 1"):
        z, p = spiegelhalter_z([0.0, 0.5, 1.0, 0.5], [0, 1, 1, 0])
    assert math.isnan(z) and math.isnan(p)


# --- Cox -------------------------------------------------------------------------------


def sklearn_cox(p, y, clip=1e-7):
    x = logit(np.clip(p, clip, 1 - clip))
    model = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(x[:, None], y)
    a, b = float(model.intercept_[0]), float(model.coef_[0, 0])
    # Wald standard errors from the inverse Fisher information X' W X
    design = np.column_stack([np.ones_like(x), x])
    mu = sigmoid(a + b * x)
    cov = np.linalg.inv(design.T @ (design * (mu * (1 - mu))[:, None]))
    return a, b, np.sqrt(np.diag(cov)), x


@pytest.mark.parametrize("gamma", [0.6, 1.0, 1.8])
def test_cox_matches_sklearn_and_fisher_information(gamma):
    p, y = simulated(3000, seed=7, gamma=gamma)
    res = cox_calibration(p, y)
    a, b, se, x = sklearn_cox(p, y)
    assert isinstance(res, CoxResult)
    assert res.intercept == pytest.approx(a, rel=1e-6, abs=1e-8)
    assert res.slope == pytest.approx(b, rel=1e-6)
    assert res.slope == pytest.approx(gamma, abs=0.15)
    q = stats.norm.ppf(0.975)
    np.testing.assert_allclose(res.intercept_ci, (a - q * se[0], a + q * se[0]), rtol=1e-5)
    np.testing.assert_allclose(res.slope_ci, (b - q * se[1], b + q * se[1]), rtol=1e-5)
    assert res.slope_pvalue == pytest.approx(2 * stats.norm.sf(abs(b - 1) / se[1]),
                                             rel=1e-4)
    assert res.intercept_pvalue == pytest.approx(2 * stats.norm.sf(abs(a) / se[0]),
                                                 rel=1e-4)
    assert res.ici == pytest.approx(np.mean(np.abs(sigmoid(a + b * x) - p)), rel=1e-6)


def test_cox_calibration_in_the_large_solves_the_score_equation():
    # with the slope fixed at 1 the MLE c solves sum(y - sigmoid(c + x)) = 0 and its
    # Wald standard error is 1 / sqrt(sum mu (1 - mu))
    p, y = simulated(2000, seed=8)
    p = np.clip(p * 0.8, 0, 1)  # predictions too low on average: c > 0
    x = logit(p)
    c = optimize.brentq(lambda c: np.sum(y - sigmoid(c + x)), -5, 5, xtol=1e-14)
    mu = sigmoid(c + x)
    se = 1 / np.sqrt(np.sum(mu * (1 - mu)))
    res = cox_calibration(p, y)
    assert res.calibration_in_the_large == pytest.approx(c, rel=1e-7)
    assert c > 0
    q = stats.norm.ppf(0.975)
    np.testing.assert_allclose(res.calibration_in_the_large_ci, (c - q * se, c + q * se),
                               rtol=1e-6)
    assert res.calibration_in_the_large_pvalue == pytest.approx(
        2 * stats.norm.sf(c / se), rel=1e-5)


def test_cox_alpha_and_clip():
    p, y = simulated(1000, seed=9)
    p = p.copy()
    p[:3] = [0.0, 1.0, 1.0]  # clipped to 1e-7 / 1 - 1e-7 before the logit
    res90 = cox_calibration(p, y, alpha=0.1)
    _, b, se, _ = sklearn_cox(p, y)
    assert res90.slope == pytest.approx(b, rel=1e-5)
    q = stats.norm.ppf(0.95)
    np.testing.assert_allclose(res90.slope_ci, (b - q * se[1], b + q * se[1]), rtol=1e-5)
    res = cox_calibration(p, y, clip=1e-3)
    assert res.slope == pytest.approx(sklearn_cox(p, y, clip=1e-3)[1], rel=1e-5)


def test_cox_sample_weights():
    p, y = simulated(500, seed=10, gamma=1.4)
    w = np.random.default_rng(2).integers(0, 3, p.size)
    base = cox_calibration(p, y)
    ones = cox_calibration(p, y, sample_weight=np.ones(p.size))
    weighted = cox_calibration(p, y, sample_weight=w)
    repeated = cox_calibration(np.repeat(p, w), np.repeat(y, w))
    keep = w > 0
    dropped = cox_calibration(p[keep], y[keep])
    zero_one = cox_calibration(p, y, sample_weight=keep.astype(float))
    for field in ("intercept", "slope", "calibration_in_the_large", "ici"):
        assert getattr(ones, field) == pytest.approx(getattr(base, field), rel=1e-6)
        assert getattr(weighted, field) == pytest.approx(getattr(repeated, field), rel=1e-6)
        assert getattr(zero_one, field) == pytest.approx(getattr(dropped, field), rel=1e-6)
    np.testing.assert_allclose(weighted.slope_ci, repeated.slope_ci, rtol=1e-6)
    np.testing.assert_allclose(ones.intercept_ci, base.intercept_ci, rtol=1e-6)


@pytest.mark.parametrize(
    ("p", "y", "w"),
    [
        ([0.1, 0.2, 0.3, 0.7, 0.8, 0.9], [0, 0, 0, 1, 1, 1], None),  # complete
        ([0.1, 0.2, 0.5, 0.5, 0.8, 0.9], [0, 0, 0, 1, 1, 1], None),  # quasi-complete
        ([0.1, 0.2, 0.3, 0.7, 0.8, 0.9], [1, 1, 0, 0, 0, 0], None),  # reversed
        ([0.1, 0.2, 0.3, 0.7, 0.8, 0.9], [0, 0, 0, 1, 1, 1], [1, 2, 1, 1, 2, 1]),
        ([0.1, 0.2, 0.9, 0.7, 0.8, 0.9], [0, 0, 0, 1, 1, 1], [1, 1, 0, 1, 1, 1]),
    ],
)
def test_cox_separation_gives_nan_with_warning(p, y, w):
    with pytest.warns(RuntimeWarning, match="separates the outcomes perfectly"):
        res = cox_calibration(p, y, sample_weight=w)
    assert math.isnan(res.slope) and math.isnan(res.intercept_ci[0])
    assert math.isnan(res.calibration_in_the_large)


def test_cox_overlap_by_one_row_is_finite():
    res = cox_calibration([0.1, 0.2, 0.75, 0.7, 0.8, 0.9], [0, 0, 0, 1, 1, 1])
    assert np.isfinite(res.slope) and res.slope > 0


# --- properties ------------------------------------------------------------------------

groups_of_risk = st.lists(
    st.tuples(st.integers(1, 30), st.integers(1, 99), st.floats(0.0, 1.0)),
    min_size=2, max_size=8, unique_by=lambda t: t[1],
)


@settings(max_examples=60, deadline=None)
@given(groups=groups_of_risk)
def test_hl_one_column_equals_two_column_form(groups):
    # groups of tied scores s = k/100 with n rows and round(frac * n) events, one
    # uniform group per distinct score (200 groups of width 0.005)
    s = np.concatenate([np.full(n, k / 100) for n, k, _ in groups])
    y = np.concatenate([np.arange(n) < round(f * n) for n, _, f in groups]).astype(int)
    res = hosmer_lemeshow(s, y, n_groups=200, strategy="uniform", df=1)
    inside = (res.table["event_rate"] > 0) & (res.table["event_rate"] < 1)
    o1, e1, n = res.table["observed"], res.table["expected"], res.table["count"]
    two_col = (o1 - e1) ** 2 / e1 + ((n - o1) - (n - e1)) ** 2 / (n - e1)
    assert res.n_groups == len(groups)
    # a group whose event rate is 0 or 1 has it clipped to 1e-7 / 1 - 1e-7, which moves
    # its term by at most ~1e-5 relative (scores are >= 0.01)
    assert res.statistic == pytest.approx(np.sum(two_col), rel=1e-4, abs=1e-9)
    if inside.all():
        assert res.statistic == pytest.approx(np.sum(two_col), rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    p=st.lists(st.floats(0.01, 0.99), min_size=3, max_size=40),
    data=st.data(),
)
def test_spiegelhalter_permutation_and_symmetry(p, data):
    p = np.array(p)
    y = np.array(data.draw(st.lists(st.booleans(), min_size=p.size, max_size=p.size)))
    if np.all(np.abs(1 - 2 * p) * p * (1 - p) == 0):
        return
    z, _ = spiegelhalter_z(p, y)
    perm = np.random.default_rng(0).permutation(p.size)
    assert spiegelhalter_z(p[perm], y[perm]).z == pytest.approx(z, rel=1e-9, abs=1e-12)
    # relabelling the classes (1 - p, 1 - y) leaves Z unchanged
    assert spiegelhalter_z(1 - p, ~y).z == pytest.approx(z, rel=1e-9, abs=1e-9)


# --- errors ----------------------------------------------------------------------------


@pytest.mark.parametrize("fn", [hosmer_lemeshow, spiegelhalter_z, cox_calibration])
@pytest.mark.parametrize(
    ("score", "outcome", "exc", "match"),
    [
        ([0.2, -0.1, 0.5], [0, 1, 1], ValueError, r"`score` has 1 value outside \[0, 1\]"),
        ([0.2, 0.4, 0.5], [0, 3, 1], ValueError, "`outcome` must hold 0/1"),
        ([0.2, 0.4], [0, 1, 1], ValueError, "different numbers of rows"),
        ([0.2, np.nan, 0.5], [0, 1, 1], ValueError, "`score` has 1 missing value"),
        (["x", "y"], [0, 1], TypeError, "`score` must be numeric"),
    ],
)
def test_input_errors(fn, score, outcome, exc, match):
    with pytest.raises(exc, match=match):
        fn(score, outcome)


def test_option_errors():
    p, y = simulated(100)
    with pytest.raises(ValueError, match="`strategy` must be one of 'quantile', 'uniform'"):
        hosmer_lemeshow(p, y, strategy="equal")
    with pytest.raises(ValueError, match="`n_groups` must be an integer >= 1"):
        hosmer_lemeshow(p, y, n_groups=0)
    with pytest.raises(ValueError, match="`df` must be an integer >= 1"):
        hosmer_lemeshow(p, y, df=0)
    with pytest.raises(ValueError, match="`sample_weight` has 1 negative value"):
        hosmer_lemeshow(p, y, sample_weight=np.r_[-1.0, np.ones(99)])
    with pytest.raises(ValueError, match=r"`clip` must be a number in \(0, 0.5\)"):
        cox_calibration(p, y, clip=0.5)
    with pytest.raises(ValueError, match=r"`alpha` must be a number in \(0, 1\)"):
        cox_calibration(p, y, alpha=1.0)
    with pytest.raises(ValueError, match=r"`outcome` holds only non-events \(0\) on all "
                                         "100 rows, but a logistic recalibration fit"):
        cox_calibration(p, np.zeros(100))
    with pytest.raises(ValueError, match="`score` takes the single value"):
        cox_calibration(np.full(100, 0.3), y)
