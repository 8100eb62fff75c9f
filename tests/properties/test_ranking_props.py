"""Propositions 15-17 of Martin-Maroto et al. (2026, appendix) as hypothesis properties.

Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond ECE:
Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics. arXiv:2605.01796.

Pair sums are brute-forced over every (positive, negative) pair on small inputs; scores
come from a coarse grid so that ties are frequent.
"""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from calreport.metrics import ranking

PROPS = settings(max_examples=60, deadline=None)

#: scores on a grid strictly inside (0, 1): ties are common, logit is finite
grid_scores = st.integers(min_value=1, max_value=9).map(lambda i: i / 10)
#: top-label confidence: at least 1/2 for a binary problem, grid to allow ties
confidences = st.integers(min_value=5, max_value=20).map(lambda i: i / 20)
#: sample weights including zeros
weights = st.integers(min_value=0, max_value=4).map(float)


@st.composite
def binary_rows(draw, min_size=2, max_size=25):
    """Labels with both classes, grid scores, confidences and integer weights."""
    n = draw(st.integers(min_value=min_size, max_value=max_size))
    y = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    assume(any(y) and not all(y))
    s = draw(st.lists(grid_scores, min_size=n, max_size=n))
    c = draw(st.lists(confidences, min_size=n, max_size=n))
    w = draw(st.lists(weights, min_size=n, max_size=n))
    return np.array(y), np.array(s), np.array(c), np.array(w)


@st.composite
def multiclass_rows(draw, max_size=30):
    """Labels 0..K-1 and a probability matrix on a coarse grid (frequent ties)."""
    k = draw(st.integers(min_value=3, max_value=4))
    n = draw(st.integers(min_value=2, max_value=max_size))
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    raw = np.array(draw(st.lists(st.lists(st.integers(1, 4), min_size=k, max_size=k),
                                 min_size=n, max_size=n)), dtype=float)
    p = raw / raw.sum(axis=1, keepdims=True)
    w = np.array(draw(st.lists(weights, min_size=n, max_size=n)))
    assume(w.sum() > 0)
    return y, p, p.max(axis=1), w


def pairs(pos, score, weight):
    """z_ij and w_ij = weight_i * weight_j over all (positive i, negative j) pairs."""
    i, j = np.flatnonzero(pos), np.flatnonzero(~pos)
    si, sj = score[i][:, None], score[j][None, :]
    z = (si > sj) + 0.5 * (si == sj)
    w = weight[i][:, None] * weight[j][None, :]
    return z.ravel(), w.ravel()


# ------------------------------------------------------------------ Proposition 15
@PROPS
@given(binary_rows())
def test_prop15_cwauc_is_the_confidence_weighted_pair_probability(data):
    y, s, c, _ = data
    z, w = pairs(y, s, c)
    # P_w(i, j) = c_i c_j / sum c_i' c_j'; cwAUC = sum_ij P_w(i, j) z_ij
    expected = np.sum(w / w.sum() * z)
    got = ranking.cwauc(y.astype(int), s, c)
    assert np.isclose(got, expected, rtol=1e-12, atol=1e-14)
    fpr, tpr, _ = ranking.cw_roc_curve(y, s, c)
    assert np.isclose(np.trapezoid(tpr, fpr), expected, rtol=1e-12, atol=1e-14)


@PROPS
@given(multiclass_rows())
def test_prop15_per_class_with_sample_weights(data):
    y, p, c, sw = data
    per_auc, per_cw = ranking.auc_cwauc(y, p, c, sample_weight=sw)
    for k in range(p.shape[1]):
        pos = y == k
        z, w_cw = pairs(pos, p[:, k], sw * c)
        _, w_plain = pairs(pos, p[:, k], sw)
        exp_cw = np.sum(w_cw * z) / w_cw.sum() if w_cw.sum() > 0 else np.nan
        exp_auc = np.sum(w_plain * z) / w_plain.sum() if w_plain.sum() > 0 else np.nan
        np.testing.assert_allclose(per_cw[k], exp_cw, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(per_auc[k], exp_auc, rtol=1e-12, atol=1e-14)


# ------------------------------------------------------------------ Proposition 16
@PROPS
@given(binary_rows())
def test_prop16_delta_auc_is_covariance_over_mean_weight(data):
    y, s, c, _ = data
    z, w = pairs(y, s, c)
    # population covariance over the pairs, divided by the mean pair weight
    cov = np.mean(w * z) - np.mean(w) * np.mean(z)
    expected = cov / np.mean(w)
    got = ranking.delta_auc(y.astype(int), s, c)
    assert np.isclose(got, expected, rtol=1e-10, atol=1e-13)


# ------------------------------------------------------------------ Proposition 17
@PROPS
@given(binary_rows(), st.sampled_from(["cube", "logit", "exp", "affine"]))
def test_prop17_auc_invariant_under_strictly_increasing_maps(data, name):
    y, s, _, w = data
    assume(w[y].sum() > 0 and w[~y].sum() > 0)
    phi = {"cube": lambda x: x**3, "logit": lambda x: np.log(x / (1 - x)),
           "exp": np.exp, "affine": lambda x: 3.0 * x - 7.0}[name]
    # same pairwise orderings, so equal up to the summation order inside tie groups
    assert np.isclose(ranking.weighted_auc(y, phi(s)), ranking.weighted_auc(y, s),
                      rtol=1e-14, atol=0)
    assert np.isclose(ranking.weighted_auc(y, phi(s), weight=w),
                      ranking.weighted_auc(y, s, weight=w), rtol=1e-14, atol=0)


@PROPS
@given(binary_rows())
def test_prop17_proof_unit_confidence_recovers_auc(data):
    y, s, _, w = data
    assume(w[y].sum() > 0 and w[~y].sum() > 0)
    ones = np.ones(len(y))
    assert np.isclose(ranking.cwauc(y.astype(int), s, ones), ranking.auc(y.astype(int), s),
                      rtol=1e-14)
    assert np.isclose(ranking.cwauc(y.astype(int), s, ones, sample_weight=w),
                      ranking.auc(y.astype(int), s, sample_weight=w), rtol=1e-14)


# --------------------------------------------------------------- other invariances
@PROPS
@given(multiclass_rows(), st.randoms(use_true_random=False))
def test_permutation_invariance_with_ties(data, rnd):
    y, p, c, w = data
    perm = np.arange(len(y))
    rnd.shuffle(perm)
    a1, c1 = ranking.auc_cwauc(y, p, c, sample_weight=w)
    a2, c2 = ranking.auc_cwauc(y[perm], p[perm], c[perm], sample_weight=w[perm])
    np.testing.assert_allclose(a1, a2, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(c1, c2, rtol=1e-12, atol=1e-14)


@PROPS
@given(multiclass_rows())
def test_sample_weight_invariances(data):
    y, p, c, w = data
    # all-ones weights = no weights
    for a, b in zip(ranking.auc_cwauc(y, p, c, sample_weight=np.ones(len(y))),
                    ranking.auc_cwauc(y, p, c), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-14)
    # integer weights = repeated rows (zero weights = dropped rows)
    rep = np.repeat(np.arange(len(y)), w.astype(int))
    for a, b in zip(ranking.auc_cwauc(y, p, c, sample_weight=w),
                    ranking.auc_cwauc(y[rep], p[rep], c[rep]), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    # a common scale factor on the weights changes nothing
    for a, b in zip(ranking.auc_cwauc(y, p, c, sample_weight=2.5 * w),
                    ranking.auc_cwauc(y, p, c, sample_weight=w), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@PROPS
@given(binary_rows())
def test_roc_curve_weight_invariances(data):
    y, s, c, w = data
    assume(w.sum() > 0)
    rep = np.repeat(np.arange(len(y)), w.astype(int))
    for got, ref in zip(ranking.roc_curve(y, s, weight=w), ranking.roc_curve(y[rep], s[rep]),
                        strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-15)
    for got, ref in zip(ranking.cw_roc_curve(y, s, c, sample_weight=w),
                        ranking.cw_roc_curve(y[rep], s[rep], c[rep]), strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-15)


@PROPS
@given(binary_rows())
def test_auc_bounds_and_label_flip(data):
    y, s, c, _ = data
    a = ranking.weighted_auc(y, s, weight=c)
    assert 0.0 <= a <= 1.0
    # swapping the classes and negating the score leaves every pair's z unchanged
    assert np.isclose(ranking.weighted_auc(~y, -s, weight=c), a, rtol=1e-12)
    # swapping the classes alone turns z into 1 - z
    assert np.isclose(ranking.weighted_auc(~y, s, weight=c), 1.0 - a, rtol=1e-12, atol=1e-14)


# ------------------------------------------------------------ weight scale and order
@PROPS
@given(multiclass_rows(), st.integers(min_value=-1000, max_value=1000),
       st.floats(min_value=1e-300, max_value=1e300))
def test_auc_and_cwauc_are_invariant_to_the_weight_scale(data, exponent, scale):
    y, p, c, w = data
    ref_auc, ref_cw = ranking.auc_cwauc(y, p, c, sample_weight=w)
    # a power of two changes no mantissa: bit for bit the same values
    a2, c2 = ranking.auc_cwauc(y, p, c, sample_weight=np.ldexp(w, exponent))
    np.testing.assert_array_equal(a2, ref_auc)
    np.testing.assert_array_equal(c2, ref_cw)
    # any scale of the float range: equal to rounding, never overflow to NaN
    a3, c3 = ranking.auc_cwauc(y, p, c, sample_weight=w * scale)
    np.testing.assert_allclose(a3, ref_auc, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(c3, ref_cw, rtol=1e-12, atol=1e-14)


@PROPS
@given(multiclass_rows(), st.randoms(use_true_random=False))
def test_row_order_does_not_change_auc_or_cwauc(data, rnd):
    # tie groups are summed as wholes: the order of tied rows after the sort is
    # irrelevant, so any permutation of the rows gives the same values
    y, p, c, w = data
    perm = np.array(rnd.sample(range(len(y)), len(y)))
    ref = ranking.auc_cwauc(y, p, c, sample_weight=w)
    got = ranking.auc_cwauc(y[perm], p[perm], c[perm], sample_weight=w[perm])
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-13, atol=1e-15)


#: scores with exact ties, both signed zeros, the extremes 0 and 1 and subnormals
packed_scores = st.sampled_from([-0.0, 0.0, 5e-324, 1e-300, 0.25, 0.5, 0.75, 1.0 - 2**-53,
                                 1.0])


@PROPS
@given(data=st.data(), threshold=st.sampled_from([0.5, 0.3, 0.7]))
def test_packed_sort_equals_brute_force_pairs(data, threshold):
    """The packed uint64 path (label in the low bit of the score) gives the pair sums
    of Equation 3 and Proposition 15 with c = the score's top-label confidence."""
    n = data.draw(st.integers(min_value=2, max_value=25))
    y = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    s = np.array(data.draw(st.lists(packed_scores, min_size=n, max_size=n)))
    c = np.where(s >= threshold, s, 1.0 - s)
    assert ranking._conf_threshold(s, c, threshold) == threshold
    a, cw = ranking._class_auc(s, y, c, None, threshold=threshold)
    if y.all() or not y.any():
        assert np.isnan(a) and np.isnan(cw)
        return
    z, _ = pairs(y, s, np.ones(n))
    assert a == z.mean()  # sums of halves: exact
    z, w = pairs(y, s, c)
    if w.sum() > 0:
        assert np.isclose(cw, (w * z).sum() / w.sum(), rtol=1e-12, atol=0)
    else:
        assert np.isnan(cw)
    # the general complex-key path (conf carried in the sort) agrees
    a_g, cw_g = ranking._class_auc(s, y, c, None, threshold=None)
    assert a == a_g
    assert np.isclose(cw, cw_g, rtol=1e-13, atol=0, equal_nan=True)


@PROPS
@given(data=st.data())
def test_few_positives_bucket_path_equals_brute_force_pairs(data):
    """With few positives only the rows in a positive's score bucket are sorted; the
    pair sums (Equation 3, Proposition 15) are those of all pairs."""
    n = data.draw(st.integers(min_value=16, max_value=60))
    m = data.draw(st.integers(min_value=1, max_value=n // 8))
    values = st.one_of(packed_scores, st.floats(0.0, 1.0), st.floats(0.0, 1e-200))
    s = np.array(data.draw(st.lists(values, min_size=n, max_size=n)))
    y = np.zeros(n, bool)
    y[data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m, unique=True))] = True
    c = np.array(data.draw(st.lists(confidences, min_size=n, max_size=n)))
    got = ranking._bucket_class_auc(s, y, c, True)
    a, cw = got if got is not None else ranking._class_auc(s, y, c, None, threshold=None)
    z, _ = pairs(y, s, np.ones(n))
    assert a == z.mean()  # sums of halves: exact
    z, w = pairs(y, s, c)
    assert np.isclose(cw, (w * z).sum() / w.sum(), rtol=1e-12, atol=0)
