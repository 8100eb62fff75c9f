"""AUC, cwAUC, ROC and cwROC (calreport.metrics.ranking).

Reference values come from scikit-learn (``roc_auc_score``, ``roc_curve``), from
brute-force loops over all (positive, negative) pairs and from a hand-worked example.
"""

from __future__ import annotations

import tracemalloc
import warnings
from fractions import Fraction

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score
from sklearn.metrics import roc_curve as sk_roc_curve

from calreport.metrics import ranking


# ------------------------------------------------------------------------ helpers
def brute_pair_auc(pos, score, weight=None):
    """O(N^2) pair-weighted AUC: sum_{i pos, j neg} w_i w_j z_ij / sum w_i w_j."""
    pos = np.asarray(pos, bool)
    score = np.asarray(score, float)
    w = np.ones(len(score)) if weight is None else np.asarray(weight, float)
    num = den = 0.0
    for i in np.flatnonzero(pos):
        for j in np.flatnonzero(~pos):
            z = 1.0 if score[i] > score[j] else 0.5 if score[i] == score[j] else 0.0
            num += w[i] * w[j] * z
            den += w[i] * w[j]
    return num / den if den > 0 else np.nan


def multiclass(n=300, k=4, seed=0, decimals=None):
    """Softmax probabilities, labels drawn from them, top-label confidence."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, k)) * 1.5
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    if decimals is not None:  # coarse probabilities: many ties within each column
        p = np.round(p, decimals)
        p[:, -1] = 1.0 - p[:, :-1].sum(axis=1)
        p = np.clip(p, 0.0, 1.0)
        p /= p.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=row) for row in p])
    return y, p, p.max(axis=1)


def binary(n=400, seed=0, decimals=2):
    rng = np.random.default_rng(seed)
    s = np.round(rng.beta(2, 2, n), decimals)  # rounding creates ties
    y = (rng.random(n) < s).astype(int)
    return y, s, np.maximum(s, 1.0 - s)


# -------------------------------------------------------------------- weighted_auc
def test_weighted_auc_hand_worked():
    # positives score 0.35 and 0.8; negatives 0.1 and 0.4.
    # pairs: (0.35, 0.1) win, (0.35, 0.4) loss, (0.8, 0.1) win, (0.8, 0.4) win -> 3/4
    assert ranking.weighted_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == 0.75
    # weights c = [0.9, 0.6, 0.65, 0.8] (neg, neg, pos, pos); pair weights c_i c_j:
    # (0.35,0.1): 0.65*0.9 = 0.585 win   (0.35,0.4): 0.65*0.6 = 0.39 loss
    # (0.8, 0.1): 0.8*0.9  = 0.72  win   (0.8, 0.4): 0.8*0.6  = 0.48 win
    # cwAUC = (0.585 + 0.72 + 0.48) / (0.585 + 0.39 + 0.72 + 0.48) = 1.785 / 2.175
    got = ranking.weighted_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], weight=[0.9, 0.6, 0.65, 0.8])
    assert got == pytest.approx(1.785 / 2.175, rel=1e-14)


def test_weighted_auc_ties_count_half():
    # one tie (0.5, 0.5) = 1/2, one win (0.7 > 0.5) = 1 -> (0.5 + 1) / 2
    assert ranking.weighted_auc([0, 1, 1], [0.5, 0.5, 0.7]) == 0.75
    # every score tied: every pair counts 1/2
    assert ranking.weighted_auc([0, 1, 0, 1], [0.3] * 4) == 0.5


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_weighted_auc_matches_sklearn_and_brute_force(seed):
    y, s, _ = binary(n=120, seed=seed, decimals=1)
    rng = np.random.default_rng(seed)
    w = rng.uniform(0.0, 2.0, len(y))
    assert ranking.weighted_auc(y, s) == pytest.approx(roc_auc_score(y, s), rel=1e-12)
    assert ranking.weighted_auc(y, s) == pytest.approx(brute_pair_auc(y, s), rel=1e-12)
    assert ranking.weighted_auc(y, s, weight=w) == pytest.approx(
        roc_auc_score(y, s, sample_weight=w), rel=1e-12)
    assert ranking.weighted_auc(y, s, weight=w) == pytest.approx(
        brute_pair_auc(y, s, w), rel=1e-12)


def test_weighted_auc_accepts_any_real_score_and_bool_labels():
    y = np.array([True, False, True, False, True])
    s = np.array([-3.0, -10.0, 2.5, 0.0, 100.0])
    assert ranking.weighted_auc(y, s) == pytest.approx(roc_auc_score(y, s))


def test_weighted_auc_nan_for_one_class():
    assert np.isnan(ranking.weighted_auc([1, 1, 1], [0.2, 0.5, 0.9]))
    assert np.isnan(ranking.weighted_auc([0, 0], [0.2, 0.5]))
    # positives present but without weight
    assert np.isnan(ranking.weighted_auc([0, 1, 0], [0.2, 0.5, 0.9], weight=[1, 0, 1]))


def test_weighted_auc_does_not_mutate_inputs():
    y, s, c = binary(n=50)
    y0, s0, c0 = y.copy(), s.copy(), c.copy()
    ranking.weighted_auc(y, s, weight=c)
    ranking.cw_roc_curve(y, s, c)
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_array_equal(s, s0)
    np.testing.assert_array_equal(c, c0)


# ------------------------------------------------------------------ auc / cwauc
@pytest.mark.parametrize(("k", "decimals"), [(3, None), (4, 1), (6, 2)])
def test_auc_multiclass_matches_sklearn_ovr(k, decimals):
    y, p, _ = multiclass(n=400, k=k, seed=k, decimals=decimals)
    assert set(np.unique(y)) == set(range(k))
    expected = roc_auc_score(y, p, multi_class="ovr", average="macro")
    assert ranking.auc(y, p) == pytest.approx(expected, rel=1e-12)
    per = ranking.auc(y, p, average=None)
    assert per.shape == (k,)
    for cls in range(k):
        assert per[cls] == pytest.approx(roc_auc_score(y == cls, p[:, cls]), rel=1e-12)


def test_auc_multiclass_sample_weight_matches_sklearn():
    y, p, _ = multiclass(n=300, k=4, seed=7, decimals=2)
    w = np.random.default_rng(7).uniform(0.1, 3.0, len(y))
    expected = roc_auc_score(y, p, multi_class="ovr", average="macro", sample_weight=w)
    assert ranking.auc(y, p, sample_weight=w) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("with_weight", [False, True])
def test_cwauc_per_class_matches_brute_force_pairs(with_weight):
    y, p, c = multiclass(n=90, k=3, seed=11, decimals=1)
    w = np.random.default_rng(3).uniform(0.0, 2.0, len(y)) if with_weight else None
    pair_w = c if w is None else w * c
    per_auc, per_cw = ranking.auc_cwauc(y, p, c, sample_weight=w)
    for cls in range(3):
        assert per_cw[cls] == pytest.approx(brute_pair_auc(y == cls, p[:, cls], pair_w),
                                            rel=1e-12)
        assert per_auc[cls] == pytest.approx(brute_pair_auc(y == cls, p[:, cls], w), rel=1e-12)
        # scikit-learn's sample-weighted AUC is the same pair-weighted AUC
        assert per_cw[cls] == pytest.approx(
            roc_auc_score(y == cls, p[:, cls], sample_weight=pair_w), rel=1e-12)
    assert ranking.cwauc(y, p, c, sample_weight=w) == pytest.approx(per_cw.mean(), rel=1e-14)
    np.testing.assert_allclose(ranking.cwauc(y, p, c, sample_weight=w, average=None), per_cw)


def test_cwauc_weights_by_top_label_confidence_not_class_score():
    # Prop. 15 remark: the pair weight is c_i c_j with c the predicted-class confidence,
    # even for class k whose own column is used for ranking.
    y, p, c = multiclass(n=60, k=3, seed=5, decimals=1)
    got = ranking.cwauc(y, p, c, average=None)
    wrong = np.array([brute_pair_auc(y == k, p[:, k], p[:, k]) for k in range(3)])
    right = np.array([brute_pair_auc(y == k, p[:, k], c) for k in range(3)])
    np.testing.assert_allclose(got, right, rtol=1e-12)
    assert not np.allclose(got, wrong)


def test_binary_inputs_one_column_two_columns_and_positive_class():
    y, s, c = binary(n=200, seed=4)
    two = np.column_stack([1.0 - s, s])
    ref_auc = roc_auc_score(y, s)
    ref_cw = roc_auc_score(y, s, sample_weight=c)
    assert ranking.auc(y, s) == pytest.approx(ref_auc, rel=1e-12)
    assert ranking.auc(y, two) == pytest.approx(ref_auc, rel=1e-12)
    assert ranking.cwauc(y, s, c) == pytest.approx(ref_cw, rel=1e-12)
    assert ranking.cwauc(y, two, c) == pytest.approx(ref_cw, rel=1e-12)
    # both per-class entries are the positive-class value (class 0 is its mirror image)
    per_auc, per_cw = ranking.auc_cwauc(y, two, c)
    np.testing.assert_allclose(per_auc, [ref_auc, ref_auc], rtol=1e-12)
    np.testing.assert_allclose(per_cw, [ref_cw, ref_cw], rtol=1e-12)
    mirror = brute_pair_auc(y == 0, two[:, 0], c)
    assert per_cw[0] == pytest.approx(mirror, rel=1e-12)


def test_class_without_positives_is_nan_and_left_out_of_macro():
    y, p, c = multiclass(n=200, k=3, seed=2)
    keep = y != 2  # class 2 never occurs as a true label
    y, p, c = y[keep], p[keep], c[keep]
    per_auc, per_cw = ranking.auc_cwauc(y, p, c)
    assert np.isnan(per_auc[2]) and np.isnan(per_cw[2])
    ref = [roc_auc_score(y == k, p[:, k]) for k in (0, 1)]
    np.testing.assert_allclose(per_auc[:2], ref, rtol=1e-12)
    assert ranking.auc(y, p) == pytest.approx(np.mean(ref), rel=1e-12)
    assert ranking.cwauc(y, p, c) == pytest.approx(np.nanmean(per_cw), rel=1e-12)


def test_single_class_gives_nan_macro():
    p = np.array([[0.7, 0.2, 0.1], [0.6, 0.3, 0.1]])
    assert np.isnan(ranking.auc([0, 0], p))
    assert np.isnan(ranking.cwauc([0, 0], p, p.max(axis=1)))
    assert np.isnan(ranking.delta_auc([0, 0], p, p.max(axis=1)))


def test_delta_auc_is_cwauc_minus_auc():
    y, p, c = multiclass(n=300, k=5, seed=9, decimals=2)
    assert ranking.delta_auc(y, p, c) == pytest.approx(
        ranking.cwauc(y, p, c) - ranking.auc(y, p), abs=1e-14)
    # hand-worked example of test_weighted_auc_hand_worked: 1.785/2.175 - 0.75
    got = ranking.delta_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], [0.9, 0.6, 0.65, 0.8])
    assert got == pytest.approx(1.785 / 2.175 - 0.75, rel=1e-12)


def test_auc_and_cwauc_agree_with_auc_cwauc():
    y, p, c = multiclass(n=250, k=4, seed=12, decimals=1)
    w = np.random.default_rng(0).integers(0, 4, len(y)).astype(float)
    per_auc, per_cw = ranking.auc_cwauc(y, p, c, sample_weight=w)
    np.testing.assert_array_equal(ranking.auc(y, p, sample_weight=w, average=None), per_auc)
    np.testing.assert_array_equal(ranking.cwauc(y, p, c, sample_weight=w, average=None),
                                  per_cw)


@pytest.mark.parametrize(("k", "decimals", "weighted"),
                         [(11, None, False), (19, 1, True), (9, 2, False)])
def test_classes_in_several_column_blocks_match_sklearn_and_brute_force(k, decimals, weighted):
    # more classes than one block of columns (8): every block must map to its classes
    y, p, c = multiclass(n=240, k=k, seed=k, decimals=decimals)
    w = np.random.default_rng(k).uniform(0.0, 2.0, len(y)) if weighted else None
    per_auc, per_cw = ranking.auc_cwauc(y, p, c, sample_weight=w)
    pair_w = c if w is None else w * c
    for cls in range(k):
        pos = y == cls
        if pos.all() or not pos.any():
            assert np.isnan(per_auc[cls]) and np.isnan(per_cw[cls])
            continue
        assert per_auc[cls] == pytest.approx(
            roc_auc_score(pos, p[:, cls], sample_weight=w), rel=1e-12)
        assert per_cw[cls] == pytest.approx(brute_pair_auc(pos, p[:, cls], pair_w), rel=1e-12)


def test_zero_weights_keep_their_label():
    # a zero payload is carried as +0.0 / -0.0: the label survives the sort
    y, s, c = binary(n=300, seed=8, decimals=1)
    w = np.random.default_rng(8).integers(0, 3, len(y)).astype(float)
    assert ranking.weighted_auc(y, s, weight=w) == pytest.approx(
        roc_auc_score(y, s, sample_weight=w), rel=1e-12)
    c0 = np.where(np.arange(len(y)) % 3 == 0, 0.0, c)
    assert ranking.cwauc(y, s, c0) == pytest.approx(
        brute_pair_auc(y == 1, s, c0), rel=1e-12)
    assert ranking.cwauc(y, s, c0, sample_weight=w) == pytest.approx(
        brute_pair_auc(y == 1, s, w * c0), rel=1e-12)


def test_unweighted_auc_is_exact_with_and_without_ties():
    # integer pair counts: the value is the exact fraction, bit for bit
    y = np.array([0, 1, 0, 1, 1, 0, 0, 1])
    s = np.array([0.1, 0.9, 0.4, 0.4, 0.35, 0.8, 0.2, 0.7])
    # positives 0.9, 0.4, 0.35, 0.7 beat 4, 2.5 (0.1, 0.2 and half of the tie), 2, 3
    assert ranking.auc(y, s) == (4 + 2.5 + 2 + 3) / 16
    rng = np.random.default_rng(0)
    for s2 in (rng.random(5000), np.round(rng.random(5000), 2)):
        y2 = (rng.random(5000) < s2).astype(int)
        neg = np.sort(s2[y2 == 0])
        pos = s2[y2 == 1]
        # twice the won pairs, in exact integers: 2 * below + tied
        twice = int(np.searchsorted(neg, pos, "left").sum()
                    + np.searchsorted(neg, pos, "right").sum())
        assert ranking.auc(y2, s2) == float(Fraction(twice, 2 * pos.size * neg.size))


# ------------------------------------------------------------------ extreme weights
@pytest.mark.parametrize("scale", [1e160, 1e-100, 1e80, 1e300, 5e-324])
def test_constant_extreme_weights_equal_unit_weights(scale):
    y, p, c = multiclass(n=400, k=4, seed=3, decimals=2)
    w = np.full(len(y), scale)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow / underflow RuntimeWarning leaks
        per_auc, per_cw = ranking.auc_cwauc(y, p, c, sample_weight=w)
        ys, s, _ = binary(n=400, seed=3)
        got_binary = ranking.weighted_auc(ys, s, weight=np.full(len(ys), scale))
    ref_auc, ref_cw = ranking.auc_cwauc(y, p, c)
    assert np.isfinite(per_auc).all() and np.isfinite(per_cw).all()
    np.testing.assert_allclose(per_auc, ref_auc, rtol=1e-13)
    np.testing.assert_allclose(per_cw, ref_cw, rtol=1e-13)
    assert got_binary == pytest.approx(roc_auc_score(ys, s), rel=1e-13)


def test_weight_scale_invariance_over_the_float_range():
    y, p, c = multiclass(n=300, k=3, seed=4, decimals=1)
    v = np.random.default_rng(4).uniform(0.0, 4.0, len(y))
    ref_auc, ref_cw = ranking.auc_cwauc(y, p, c, sample_weight=v)
    for exponent in (-1000, -500, 500, 1000):
        # a power-of-two scale: the values must be identical bit for bit
        auc2, cw2 = ranking.auc_cwauc(y, p, c, sample_weight=np.ldexp(v, exponent))
        np.testing.assert_array_equal(auc2, ref_auc)
        np.testing.assert_array_equal(cw2, ref_cw)
    # mixed magnitudes: rows of weight 1e-200 next to rows of weight 1e160 count for
    # nothing, as if their weight were 0
    huge = np.where(np.arange(len(y)) % 2 == 0, 1e160, 1e-200)
    zero = np.where(np.arange(len(y)) % 2 == 0, 1.0, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = ranking.auc_cwauc(y, p, c, sample_weight=huge)
    np.testing.assert_allclose(got[0], ranking.auc(y, p, sample_weight=zero, average=None),
                               rtol=1e-12)
    np.testing.assert_allclose(got[1], ranking.cwauc(y, p, c, sample_weight=zero,
                                                     average=None), rtol=1e-12)


# --------------------------------------------------------------------------- memory
def test_multiclass_extra_memory_is_bounded_by_the_rows_not_the_classes():
    # no (K, N) transposed copy, no N x K sort orders: the peak beyond the input is a
    # few per-class arrays of N values (complex key, tie marks, sums) and one block of
    # 8 columns; the earlier implementation needed about 10 times the input here
    rng = np.random.default_rng(0)
    n, k = 20_000, 20
    p = rng.dirichlet(np.ones(k), n)
    y = rng.integers(0, k, n)
    c = p.max(axis=1)
    w = rng.random(n)
    ranking.auc_cwauc(y, p, c, sample_weight=w)  # warm-up: imports, caches
    tracemalloc.start()
    try:
        ranking.auc_cwauc(y, p, c, sample_weight=w)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * p.nbytes
    # and it does not grow with K: 100 classes of the same rows use no more
    p100 = rng.dirichlet(np.ones(100), n)
    tracemalloc.start()
    try:
        ranking.auc_cwauc(rng.integers(0, 100, n), p100, p100.max(axis=1))
        _, peak100 = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak100 < 0.5 * p100.nbytes


# ------------------------------------------------------------- fixed class set
def test_macro_average_over_a_fixed_class_set():
    per = np.array([[0.9, 0.5, 0.7], [0.8, np.nan, 0.6], [np.nan, np.nan, np.nan]])
    # default: the defined classes of each row
    np.testing.assert_allclose(ranking.macro_average(per), [0.7, 0.7, np.nan])
    # fixed set: a replicate missing a class is NaN, never a mean of fewer classes
    np.testing.assert_allclose(ranking.macro_average(per, classes=[0, 1, 2]),
                               [0.7, np.nan, np.nan])
    np.testing.assert_allclose(ranking.macro_average(per, classes=[0, 2]), [0.8, 0.7, np.nan])
    assert ranking.macro_average([0.25, 0.75]) == 0.5


def test_rare_class_missing_from_a_resample_gives_nan_with_fixed_classes():
    y, p, c = multiclass(n=300, k=4, seed=6)
    rare = np.flatnonzero(y == 3)[0]
    y = np.where(y == 3, 0, y)
    y[rare] = 3  # class 3 has a single row
    classes = np.flatnonzero(~np.isnan(ranking.auc(y, p, average=None)))
    assert classes.tolist() == [0, 1, 2, 3]
    resample = np.delete(np.arange(len(y)), rare)  # a replicate without the rare row
    yr, pr, cr = y[resample], p[resample], c[resample]
    assert np.isnan(ranking.auc(yr, pr, classes=classes))
    assert np.isnan(ranking.cwauc(yr, pr, cr, classes=classes))
    # without the fixed set the macro silently averages three classes
    assert ranking.auc(yr, pr) == pytest.approx(
        np.mean([roc_auc_score(yr == k, pr[:, k]) for k in range(3)]), rel=1e-12)
    assert ranking.auc(y, p, classes=classes) == pytest.approx(ranking.auc(y, p), rel=1e-14)


# -------------------------------------------------------------------------- curves
@pytest.mark.parametrize("decimals", [1, 3])
def test_roc_curve_matches_sklearn(decimals):
    y, s, _ = binary(n=300, seed=decimals, decimals=decimals)
    fpr, tpr, thr = ranking.roc_curve(y, s)
    sk_fpr, sk_tpr, sk_thr = sk_roc_curve(y, s, drop_intermediate=False)
    np.testing.assert_allclose(fpr, sk_fpr, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(tpr, sk_tpr, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(thr, sk_thr)
    assert thr[0] == np.inf and np.all(np.diff(thr) < 0)
    assert (fpr[0], tpr[0], fpr[-1], tpr[-1]) == (0.0, 0.0, 1.0, 1.0)


def test_roc_curve_area_equals_auc():
    y, s, c = binary(n=500, seed=8, decimals=2)
    w = np.random.default_rng(8).uniform(0, 2, len(y))
    fpr, tpr, _ = ranking.roc_curve(y, s)
    assert np.trapezoid(tpr, fpr) == pytest.approx(ranking.weighted_auc(y, s), rel=1e-12)
    fpr, tpr, _ = ranking.roc_curve(y, s, weight=w)
    assert np.trapezoid(tpr, fpr) == pytest.approx(ranking.weighted_auc(y, s, weight=w),
                                                   rel=1e-12)
    cfpr, ctpr, _ = ranking.cw_roc_curve(y, s, c, sample_weight=w)
    assert np.trapezoid(ctpr, cfpr) == pytest.approx(ranking.cwauc(y, s, c, sample_weight=w),
                                                     rel=1e-12)


def test_cw_roc_curve_matches_sklearn_with_confidence_weights():
    y, s, c = binary(n=300, seed=3, decimals=2)
    w = np.random.default_rng(1).uniform(0.5, 1.5, len(y))
    fpr, tpr, thr = ranking.cw_roc_curve(y, s, c, sample_weight=w)
    sk_fpr, sk_tpr, sk_thr = sk_roc_curve(y, s, sample_weight=w * c, drop_intermediate=False)
    np.testing.assert_allclose(fpr, sk_fpr, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(tpr, sk_tpr, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(thr, sk_thr)


def test_cw_roc_hand_worked():
    # rows by decreasing score: 0.9 (pos, c 0.9), 0.6 (pos, c 0.6), 0.2 (neg, c 0.8)
    # cwTPR: 0, 0.9/1.5, 1.5/1.5, 1 ; cwFPR: 0, 0, 0, 0.8/0.8
    fpr, tpr, thr = ranking.cw_roc_curve([0, 1, 1], [0.2, 0.9, 0.6], [0.8, 0.9, 0.6])
    np.testing.assert_allclose(tpr, [0.0, 0.6, 1.0, 1.0])
    np.testing.assert_allclose(fpr, [0.0, 0.0, 0.0, 1.0])
    np.testing.assert_array_equal(thr, [np.inf, 0.9, 0.6, 0.2])


def test_roc_curve_zero_weight_rows_add_no_point():
    y = np.array([0, 1, 0, 1, 1])
    s = np.array([0.1, 0.9, 0.3, 0.5, 0.7])
    w = np.array([1.0, 1.0, 0.0, 1.0, 1.0])
    dropped = ranking.roc_curve(y[w > 0], s[w > 0])
    for got, ref in zip(ranking.roc_curve(y, s, weight=w), dropped, strict=True):
        np.testing.assert_array_equal(got, ref)


def test_roc_curve_without_positives_gives_nan_tpr():
    fpr, tpr, _ = ranking.roc_curve([0, 0, 0], [0.1, 0.5, 0.9])
    assert np.isnan(tpr).all()
    np.testing.assert_allclose(fpr, [0.0, 1 / 3, 2 / 3, 1.0])


# -------------------------------------------------------------------------- errors
def test_error_messages():
    p = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6]])
    c = p.max(axis=1)
    with pytest.raises(ValueError, match=r"`y_true` has 1 value that is not a class code 0\.\.2"):
        ranking.auc([0, 1, 3], p)
    with pytest.raises(ValueError, match=r"`y_true` has 1 value .*first at position 1: 0\.5"):
        ranking.auc([0, 0.5, 2], p)
    with pytest.raises(TypeError, match=r"`y_true` must hold integer class codes 0\.\.2"):
        ranking.auc(["a", "b", "c"], p)
    with pytest.raises(ValueError, match=r"`proba`: 1 row of 3 do not sum to 1"):
        ranking.auc([0, 1, 2], p * [[1.0], [1.0], [0.5]])
    with pytest.raises(ValueError, match=r"`y_true` has 2, `proba` has 3"):
        ranking.auc([0, 1], p)
    with pytest.raises(ValueError, match=r"`conf` has 2, `proba` has 3"):
        ranking.cwauc([0, 1, 2], p, c[:2])
    with pytest.raises(ValueError, match=r"`conf` has 1 value outside \[0, 1\]"):
        ranking.cwauc([0, 1, 2], p, [0.7, 0.8, 1.6])
    with pytest.raises(ValueError, match=r"`average` must be one of 'macro', None; got 'micro'"):
        ranking.auc([0, 1, 2], p, average="micro")
    with pytest.raises(ValueError, match=r"`sample_weight` has 1 negative value"):
        ranking.auc([0, 1, 2], p, sample_weight=[1, -1, 1])
    with pytest.raises(ValueError, match=r"`y_binary` must hold 0/1 or True/False; 1 value"):
        ranking.weighted_auc([0, 2, 1], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match=r"`score` has 1 missing value"):
        ranking.roc_curve([0, 1, 1], [0.1, np.nan, 0.3])
    with pytest.raises(ValueError, match=r"`weight` has 1 negative value"):
        ranking.weighted_auc([0, 1, 1], [0.1, 0.2, 0.3], weight=[1, 1, -2])
    with pytest.raises(ValueError, match=r"`y_binary` has 2, `score` has 3"):
        ranking.cw_roc_curve([0, 1], [0.1, 0.2, 0.3], [0.9, 0.8, 0.7])
    with pytest.raises(ValueError, match=r"`classes` must list distinct class codes"):
        ranking.macro_average([0.5, 0.6, 0.7], classes=[0, 0])
    with pytest.raises(ValueError, match=r"`classes` has 1 value that is not a class code 0\.\.2"):
        ranking.auc([0, 1, 2], p, classes=[0, 3])
    with pytest.raises(ValueError, match=r"`per_class` must have one value per class"):
        ranking.macro_average(0.5)


# ------------------------------------------------------------------ rare-class path
@pytest.mark.parametrize("rare", ["positives", "negatives"])
@pytest.mark.parametrize("decimals", [None, 2, 1])
def test_rare_side_ranks_equal_the_running_sum_bit_for_bit(rare, decimals):
    """One class of many (few positives), or few negatives: ranks from a plain sort.

    Both forms count won pairs plus half the tied ones exactly, so they agree bit
    for bit; scikit-learn and the exact fraction check the value.
    """
    rng = np.random.default_rng(7)
    n = 4000
    s = rng.random(n)
    if decimals is not None:
        s = np.round(s, decimals)  # many ties, some mixed
    flag = rng.random(n) < 0.04 + 0.04 * s  # about 6 % of the rows
    pos = flag if rare == "positives" else ~flag
    assert 8 * min(pos.sum(), (~pos).sum()) <= n  # the rank path is taken
    got = ranking._class_auc(s, pos, None, None)[0]
    ref = ranking._pair_auc(*_sorted_by_score(s, pos), [None])[0]
    assert got == ref
    assert got == pytest.approx(roc_auc_score(pos, s), rel=1e-13)
    neg_sorted = np.sort(s[~pos])
    twice = int(np.searchsorted(neg_sorted, s[pos], "left").sum()
                + np.searchsorted(neg_sorted, s[pos], "right").sum())
    assert got == float(Fraction(twice, 2 * int(pos.sum()) * int((~pos).sum())))


def _sorted_by_score(s, pos):
    order = np.argsort(s, kind="stable")
    return s[order], ~pos[order]


def test_rare_side_path_in_multiclass_auc_matches_sklearn():
    y, p, _ = multiclass(n=3000, k=12, seed=8, decimals=2)  # every class under 1/8
    got = ranking.auc(y, p, average=None)
    ref = [roc_auc_score(y == j, p[:, j]) for j in range(12)]
    np.testing.assert_allclose(got, ref, rtol=1e-13)
    # one positive: at the top it wins all 8 pairs, at the bottom none
    assert ranking.weighted_auc([0, 0, 0, 0, 0, 0, 0, 0, 1], np.arange(9.0)) == 1.0
    assert ranking.weighted_auc([1, 0, 0, 0, 0, 0, 0, 0, 0], np.arange(9.0)) == 0.0
    # one negative tied with one of the positives: 7 won pairs and a half of 8
    assert ranking.weighted_auc([1, 1, 1, 1, 0, 1, 1, 1, 1],
                                [0, 1, 2, 3, 3, 5, 6, 7, 8]) == 4.5 / 8
    assert np.isnan(ranking.weighted_auc([0] * 9, np.arange(9.0)))
