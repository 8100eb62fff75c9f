"""Brier score, log loss, Murphy decomposition and sharpness (calreport.metrics.scoring).

Reference values come from scikit-learn (``brier_score_loss``, ``log_loss``),
statsmodels (``DescrStatsW``), a brute-force group-by loop for the decomposition and
hand-worked examples with the arithmetic in comments.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.metrics import brier_score_loss
from sklearn.metrics import log_loss as sk_log_loss
from statsmodels.stats.weightstats import DescrStatsW

from calreport.metrics import binned, scoring

HAND_P = np.array([0.0, 0.25, 0.25, 0.5, 0.6, 0.75, 1.0, 1.0])
HAND_Y = np.array([0, 1, 0, 1, 1, 0, 1, 0])


def binary_data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.beta(1.5, 1.5, n)
    y = (rng.random(n) < p).astype(int)
    return y, p


def multiclass_data(n=300, k=4, seed=0):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, k)) * 1.5
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    y = (p.cumsum(axis=1) < rng.random(n)[:, None]).sum(axis=1)
    return np.minimum(y, k - 1), p


def weights(n, seed=1):
    return np.random.default_rng(seed).uniform(0.0, 3.0, n)


# ---------------------------------------------------------------------- Brier score
def test_brier_hand_example():
    # (0.1-0)^2 + (0.9-1)^2 + (0.8-1)^2 + (0.3-0)^2 = 0.01 + 0.01 + 0.04 + 0.09 = 0.15
    assert scoring.brier_score([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3]) == pytest.approx(0.0375)
    # three classes: rows (0.04+0.01+0.01), (0.04+0.09+0.01), (0.04+0.04+0.16) -> 0.44/3
    p3 = [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.2, 0.2, 0.6]]
    assert scoring.brier_score([0, 1, 2], p3) == pytest.approx(0.44 / 3)


@pytest.mark.parametrize("weighted", [False, True])
def test_brier_binary_matches_sklearn(weighted):
    y, p = binary_data()
    w = weights(y.size) if weighted else None
    expected = brier_score_loss(y, p, sample_weight=w)
    assert scoring.brier_score(y, p, sample_weight=w) == pytest.approx(expected, rel=1e-12)
    # two columns: scikit-learn halves the two-class sum, which is the binary score
    p2 = np.column_stack([1 - p, p])
    assert brier_score_loss(y, p2, sample_weight=w) == pytest.approx(expected, rel=1e-12)
    assert scoring.brier_score(y, p2, sample_weight=w) == pytest.approx(expected, rel=1e-12)
    # a single column is the positive-class probability
    assert scoring.brier_score(y, p[:, None], sample_weight=w) == pytest.approx(expected)


@pytest.mark.parametrize("k", [3, 4, 6])
@pytest.mark.parametrize("weighted", [False, True])
def test_brier_multiclass_matches_sklearn(k, weighted):
    y, p = multiclass_data(k=k, seed=k)
    w = weights(y.size) if weighted else None
    expected = brier_score_loss(y, p, sample_weight=w, labels=np.arange(k))
    assert scoring.brier_score(y, p, sample_weight=w) == pytest.approx(expected, rel=1e-12)
    # multiclass scale is [0, 2]: all mass on a wrong class costs 2
    wrong = np.zeros((2, k))
    wrong[:, 1] = 1.0
    assert scoring.brier_score([0, 0], wrong) == 2.0


def test_top_label_brier_matches_sklearn():
    y, p = multiclass_data(k=5, seed=3)
    conf = p.max(axis=1)
    correct = p.argmax(axis=1) == y
    w = weights(y.size)
    assert scoring.top_label_brier(conf, correct) == pytest.approx(
        brier_score_loss(correct.astype(int), conf), rel=1e-12)
    assert scoring.top_label_brier(conf, correct, sample_weight=w) == pytest.approx(
        brier_score_loss(correct.astype(int), conf, sample_weight=w), rel=1e-12)
    # (0.9-1)^2 + (0.6-0)^2 + (0.8-1)^2 = 0.01 + 0.36 + 0.04 = 0.41 -> 0.41/3
    assert scoring.top_label_brier([0.9, 0.6, 0.8], [1, 0, 1]) == pytest.approx(0.41 / 3)


@pytest.mark.parametrize("weighted", [False, True])
def test_top_label_log_loss_matches_sklearn(weighted):
    y, p = multiclass_data(k=5, seed=3)
    conf = p.max(axis=1)
    correct = p.argmax(axis=1) == y
    w = weights(y.size) if weighted else None
    assert scoring.top_label_log_loss(conf, correct, sample_weight=w) == pytest.approx(
        sk_log_loss(correct.astype(int), conf, sample_weight=w, labels=[0, 1]), rel=1e-12)


def test_top_label_log_loss_hand_example_and_clipping():
    # -(ln 0.9 + ln(1 - 0.6) + ln 0.8) / 3
    assert scoring.top_label_log_loss([0.9, 0.6, 0.8], [1, 0, 1]) == pytest.approx(
        -(math.log(0.9) + math.log(0.4) + math.log(0.8)) / 3, rel=1e-15)
    # a certain error costs -ln(eps), as log_loss clips, not infinity
    eps = scoring.LOG_LOSS_EPS
    assert scoring.top_label_log_loss([1.0], [0]) == pytest.approx(-math.log(eps), rel=1e-15)
    assert scoring.top_label_log_loss([1.0], [1]) == pytest.approx(-math.log1p(-eps))
    # a proper score: when 7 of 10 are right, confidence 0.7 scores better than 0.9
    assert scoring.top_label_log_loss([0.7] * 10, [1] * 7 + [0] * 3) <= \
        scoring.top_label_log_loss([0.9] * 10, [1] * 7 + [0] * 3)


# ------------------------------------------------------------------------- log loss
def test_log_loss_hand_example():
    # -(log 0.5 + log 0.8) / 2 with the true-class probabilities 0.5 and 1 - 0.2
    assert scoring.log_loss([1, 0], [0.5, 0.2]) == pytest.approx(
        -(math.log(0.5) + math.log(0.8)) / 2)


@pytest.mark.parametrize("weighted", [False, True])
def test_log_loss_binary_matches_sklearn(weighted):
    y, p = binary_data(seed=4)
    w = weights(y.size) if weighted else None
    expected = sk_log_loss(y, p, sample_weight=w)
    assert scoring.log_loss(y, p, sample_weight=w) == pytest.approx(expected, rel=1e-12)
    p2 = np.column_stack([1 - p, p])
    assert scoring.log_loss(y, p2, sample_weight=w) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("k", [3, 5])
@pytest.mark.parametrize("weighted", [False, True])
def test_log_loss_multiclass_matches_sklearn(k, weighted):
    y, p = multiclass_data(k=k, seed=10 + k)
    w = weights(y.size) if weighted else None
    expected = sk_log_loss(y, p, sample_weight=w, labels=np.arange(k))
    assert scoring.log_loss(y, p, sample_weight=w) == pytest.approx(expected, rel=1e-12)


def test_log_loss_clips_like_sklearn():
    # probability 0 on the true class costs -log(eps) = 36.04..., 1 costs -log(1 - eps)
    y = [1, 0, 1, 0]
    p = [0.0, 1.0, 1.0, 0.0]
    expected = sk_log_loss(y, p)
    assert scoring.log_loss(y, p) == pytest.approx(expected, rel=1e-12)
    eps = np.finfo(np.float64).eps
    assert expected == pytest.approx(-(2 * math.log(eps) + 2 * math.log1p(-eps)) / 4)
    assert scoring.LOG_LOSS_EPS == eps
    pm = np.array([[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]])
    assert scoring.log_loss([1, 2], pm) == pytest.approx(
        sk_log_loss([1, 2], pm, labels=[0, 1, 2]), rel=1e-12)


def test_log_loss_two_columns_reads_class_0_from_its_own_column():
    # A tiny p0 in a row that sums to 1 within the tolerance but not exactly: the true
    # class 0 costs -log(p0) = -log(7e-7) = 14.17213..., while 1 - p1 = 7.0014e-7 would
    # give -log(7.0014e-7) = 14.17193... (a 2e-4 gap at this row).
    p0, p1 = 7e-7, 1.0 - 7e-7 - 1.4e-10
    y = np.array([0, 1, 0, 1])
    proba = np.array([[p0, p1], [0.3, 0.7], [0.6, 0.4], [0.2, 0.8]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # sklearn: rows do not sum to 1
        expected = sk_log_loss(y, proba)
    ours = scoring.log_loss(y, proba)
    assert ours == pytest.approx(expected, rel=1e-14)
    assert ours == pytest.approx(
        -(math.log(p0) + math.log(0.7) + math.log(0.6) + math.log(0.8)) / 4, rel=1e-14)
    assert abs(ours - scoring.log_loss(y, proba[:, 1])) > 4e-5  # the 1 - p1 reading

    w = np.array([2.0, 0.5, 1.0, 3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        expected_w = sk_log_loss(y, proba, sample_weight=w)
    assert scoring.log_loss(y, proba, sample_weight=w) == pytest.approx(expected_w, rel=1e-14)


def test_log_loss_clips_both_ends_like_sklearn():
    # [eps, 1 - eps]: a probability 1 on the true class still costs -log(1 - eps) > 0,
    # in both the 1-D and the two-column form
    eps = scoring.LOG_LOSS_EPS
    assert scoring.log_loss([1], [1.0]) == pytest.approx(-math.log1p(-eps), rel=1e-12)
    assert scoring.log_loss([0], [[1.0, 0.0]]) == pytest.approx(-math.log1p(-eps), rel=1e-12)
    assert scoring.log_loss([0], [[1.0, 0.0]]) == pytest.approx(
        sk_log_loss([0], [[1.0, 0.0]], labels=[0, 1]), rel=1e-12)
    assert scoring.log_loss([0], [[0.0, 1.0]]) == pytest.approx(-math.log(eps), rel=1e-12)


def test_accessor_two_column_log_loss_reads_class_0_column():
    import pandas as pd

    import calreport  # noqa: F401  (registers the accessor)

    p0 = np.array([7e-7, 0.3, 0.6, 0.2])
    p1 = 1.0 - p0
    p1[0] = 1.0 - 7e-7 - 1.4e-10
    y = np.array([0, 1, 0, 1])
    df = pd.DataFrame({"y": y, "p0": p0, "p1": p1})
    got = df.calib(y="y", proba=["p0", "p1"], classes=[0, 1]).summary(["log_loss"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        expected = sk_log_loss(y, np.column_stack([p0, p1]))
    assert float(got["log_loss"]) == pytest.approx(expected, rel=1e-12)


# ---------------------------------------------------------------- Murphy decomposition
def brute_murphy(s, y, w, bins, n_bins):
    """Reliability, resolution, uncertainty, brier and within-bin term by loops."""
    total = sum(w)
    base = sum(wi * yi for wi, yi in zip(w, y, strict=True)) / total
    rel = res = within = 0.0
    for b in range(n_bins):
        idx = [i for i in range(len(s)) if bins[i] == b and w[i] > 0]
        wb = sum(w[i] for i in idx)
        if wb == 0:
            continue
        sb = sum(w[i] * s[i] for i in idx) / wb
        yb = sum(w[i] * y[i] for i in idx) / wb
        rel += wb * (sb - yb) ** 2
        res += wb * (yb - base) ** 2
        within += sum(w[i] * ((s[i] - sb) ** 2 - 2 * (s[i] - sb) * (y[i] - yb)) for i in idx)
    brier = sum(wi * (si - yi) ** 2 for wi, si, yi in zip(w, s, y, strict=True)) / total
    return {"reliability": rel / total, "resolution": res / total,
            "uncertainty": base * (1 - base), "within_bin": within / total, "brier": brier}


def test_murphy_hand_example():
    d = scoring.murphy_decomposition(HAND_P, HAND_Y, n_bins=4)
    # bins {0,.25,.25} {.5} {.6,.75} {1,1}: conf 1/6, .5, .675, 1; acc 1/3, 1, .5, .5
    # REL = 3/8 (1/6)^2 + 1/8 (.5)^2 + 2/8 (.175)^2 + 2/8 (.5)^2 = 0.111822916...
    rel = 3 / 8 / 36 + 1 / 8 * 0.25 + 2 / 8 * 0.175**2 + 2 / 8 * 0.25
    # base rate 1/2; RES = 3/8 (1/3 - 1/2)^2 + 1/8 (1 - 1/2)^2 + 0 + 0 = 1/96 + 1/32
    res = 1 / 96 + 1 / 32
    # Brier: (0 + .5625 + .0625 + .25 + .16 + .5625 + 0 + 1) / 8 = 2.5975 / 8
    brier = 2.5975 / 8
    # within-bin: bin 1 rows (d_s, d_y) = (-1/6, -1/3), (1/12, 2/3), (1/12, -1/3)
    #   -> 1/36 - 4/36 + 1/144 - 16/144 + 1/144 + 8/144 = -0.125
    # bin 3 rows (-.075, .5), (.075, -.5) -> 2 * (.005625 + .075) = 0.16125
    within = (-0.125 + 0.16125) / 8
    assert d["reliability"] == pytest.approx(rel, rel=1e-13)
    assert d["resolution"] == pytest.approx(res, rel=1e-13)
    assert d["uncertainty"] == 0.25
    assert d["brier"] == pytest.approx(brier, rel=1e-13)
    assert d["within_bin"] == pytest.approx(within, rel=1e-12)
    assert rel - res + 0.25 + within == pytest.approx(brier, rel=1e-13)  # 0.3246875


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("weighted", [False, True])
def test_murphy_matches_brute_force(strategy, weighted):
    y, p = binary_data(300, seed=8)
    p = np.round(p, 2)
    w = weights(y.size) if weighted else np.ones(y.size)
    sw = w if weighted else None
    bins = binned.assign_bins(p, binned.bin_edges(p, n_bins=10, strategy=strategy,
                                                  sample_weight=sw))
    d = scoring.murphy_decomposition(p, y, n_bins=10, strategy=strategy, sample_weight=sw)
    ref = brute_murphy(p, y, w, bins, 10)
    for key, value in ref.items():
        assert d[key] == pytest.approx(value, rel=1e-10, abs=1e-14), key
    assert d["brier"] == pytest.approx(brier_score_loss(y, p, sample_weight=sw), rel=1e-12)


def test_murphy_constant_scores_within_bins_is_exact():
    # scores take one value per uniform bin: REL - RES + UNC is the Brier score itself
    rng = np.random.default_rng(2)
    s = (rng.integers(0, 10, 500) + 0.5) / 10
    y = rng.random(500) < s
    d = scoring.murphy_decomposition(s, y, n_bins=10)
    assert d["within_bin"] == pytest.approx(0.0, abs=1e-15)
    assert d["reliability"] - d["resolution"] + d["uncertainty"] == pytest.approx(
        brier_score_loss(y, s), rel=1e-12)


def test_murphy_uninformative_forecaster():
    # the constant base-rate forecaster (section 5.1): perfectly calibrated, no resolution
    y = np.r_[np.ones(30), np.zeros(70)]
    d = scoring.murphy_decomposition(np.full(100, 0.3), y)
    assert d["reliability"] == pytest.approx(0.0, abs=1e-15)
    assert d["resolution"] == pytest.approx(0.0, abs=1e-15)
    assert d["brier"] == pytest.approx(0.3 * 0.7)
    assert scoring.sharpness(np.full(100, 0.3)) == 0.0


# ------------------------------------------------------------------------- sharpness
def test_sharpness_matches_numpy_and_statsmodels():
    _, p = binary_data(seed=6)
    w = weights(p.size)
    assert scoring.sharpness(p) == pytest.approx(np.var(p), rel=1e-12)
    assert scoring.sharpness(p, sample_weight=w) == pytest.approx(
        DescrStatsW(p, weights=w, ddof=0).var, rel=1e-12)
    # [0.2, 0.4, 0.6, 0.8]: mean 0.5, deviations^2 0.09, 0.01, 0.01, 0.09 -> 0.05
    assert scoring.sharpness([0.2, 0.4, 0.6, 0.8]) == pytest.approx(0.05)


# ------------------------------------------------------------------ weight invariances
def _calls():
    y, p = multiclass_data(n=60, k=3, seed=21)
    yb, pb = binary_data(60, seed=22)
    conf, correct = p.max(axis=1), p.argmax(axis=1) == y
    return [
        ("brier_multi", lambda sl, w: scoring.brier_score(y[sl], p[sl], sample_weight=w)),
        ("brier_binary", lambda sl, w: scoring.brier_score(yb[sl], pb[sl], sample_weight=w)),
        ("log_loss_multi", lambda sl, w: scoring.log_loss(y[sl], p[sl], sample_weight=w)),
        ("log_loss_binary", lambda sl, w: scoring.log_loss(yb[sl], pb[sl], sample_weight=w)),
        ("top_label_brier", lambda sl, w: scoring.top_label_brier(conf[sl], correct[sl],
                                                                  sample_weight=w)),
        ("top_label_log_loss", lambda sl, w: scoring.top_label_log_loss(
            conf[sl], correct[sl], sample_weight=w)),
        ("sharpness", lambda sl, w: scoring.sharpness(conf[sl], sample_weight=w)),
        ("murphy_rel", lambda sl, w: scoring.murphy_decomposition(
            pb[sl], yb[sl], n_bins=5, strategy="quantile", sample_weight=w)["reliability"]),
        ("murphy_within", lambda sl, w: scoring.murphy_decomposition(
            pb[sl], yb[sl], n_bins=5, sample_weight=w)["within_bin"]),
    ]


@pytest.mark.parametrize(("name", "call"), _calls())
def test_weight_invariances(name, call):
    n = 60
    everything = np.arange(n)
    assert call(everything, np.ones(n)) == pytest.approx(call(everything, None), rel=1e-12)
    counts = np.random.default_rng(3).integers(0, 4, n)
    counts[0] = 1
    repeated = np.repeat(everything, counts)
    assert call(everything, counts.astype(float)) == pytest.approx(
        call(repeated, None), rel=1e-10, abs=1e-14)
    w = weights(n, seed=4)
    w[::3] = 0.0
    keep = w > 0
    assert call(everything, w) == pytest.approx(call(everything[keep], w[keep]), rel=1e-12)


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize("fn", [scoring.brier_score, scoring.log_loss])
def test_label_and_proba_errors(fn):
    with pytest.raises(ValueError, match=r"`proba` has 1 value outside \[0, 1\]"):
        fn([0, 1], [0.2, 1.3])
    with pytest.raises(ValueError, match="`proba`: 1 row of 2 do not sum to 1"):
        fn([0, 1], [[0.2, 0.3, 0.5], [0.5, 0.6, 0.1]])
    with pytest.raises(ValueError, match=r"`y_true` has 1 value that is not a class code 0\.\.1"):
        fn([0, 2], [0.2, 0.7])
    with pytest.raises(ValueError, match=r"not a class code 0\.\.2"):
        fn([0, 3], [[0.2, 0.3, 0.5], [0.5, 0.4, 0.1]])
    with pytest.raises(TypeError, match="`y_true` must hold integer class codes"):
        fn(["a", "b"], [0.2, 0.7])
    with pytest.raises(ValueError, match="`y_true` has 3, `proba` has 2"):
        fn([0, 1, 1], [0.2, 0.7])
    with pytest.raises(ValueError, match="`sample_weight` has 1 negative value"):
        fn([0, 1], [0.2, 0.7], sample_weight=[1.0, -1.0])


def test_other_errors():
    with pytest.raises(ValueError, match="`correct` must hold 0/1"):
        scoring.top_label_brier([0.6, 0.7], [1, 3])
    with pytest.raises(ValueError, match="`conf` has 1 value outside"):
        scoring.sharpness([0.6, -0.1])
    with pytest.raises(ValueError, match="`n_bins` must be a positive integer"):
        scoring.murphy_decomposition([0.6], [1], n_bins=0)
    with pytest.raises(ValueError, match="`strategy` must be one of"):
        scoring.murphy_decomposition([0.6], [1], strategy="width")
    with pytest.raises(ValueError, match="`score` has 2, `outcome` has 1"):
        scoring.murphy_decomposition([0.6, 0.7], [1])


def test_inputs_not_mutated():
    y, p = multiclass_data(n=50, k=3, seed=5)
    w = weights(50)
    copies = y.copy(), p.copy(), w.copy()
    scoring.brier_score(y, p, sample_weight=w)
    scoring.log_loss(y, p, sample_weight=w)
    for a, b in zip((y, p, w), copies, strict=True):
        np.testing.assert_array_equal(a, b)
    assert isinstance(scoring.brier_score(y, p), float)
    assert isinstance(scoring.murphy_decomposition(p[:, 0], y == 0)["brier"], float)
