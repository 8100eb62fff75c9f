"""The packed-key AUC path and the AUC-only / cwAUC-only computations.

Without sample weights a binary (or one-vs-rest) score is sorted with its label in
the low bit of its own bits (``ranking._packed_sort``); the cwAUC rides along when
the confidence is the one the score implies.  Every result here is checked against
the general complex-key path, scikit-learn's ``roc_auc_score`` (the cwAUC as
``sample_weight=conf``) and brute-force loops over all (positive, negative) pairs.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

import calreport  # registers the accessor
from calreport.metrics import ranking
from calreport.profile import ConfidenceProfile
from calreport.registry import REGISTRY, MetricCache
from calreport.settings import Settings


def brute(pos, score, weight=None):
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
    return num / den if den > 0 else math.nan


def top_label(s, thr=0.5):
    """The binary profile's confidence: ``s`` where ``s >= thr``, else ``1 - s``."""
    return np.where(s >= thr, s, 1.0 - s)


def general(s, pos, conf):
    """AUC and cwAUC from the complex-key sort (the path for any real score)."""
    key = ranking._keyed(s, pos, conf)
    return ranking._pair_auc(key.real, np.signbit(key.imag), [None, np.abs(key.imag)])


def packed(s, pos, thr=0.5):
    """AUC and cwAUC from the packed uint64 sort, the confidence from sorted scores."""
    got = ranking._packed_sort(s, pos)
    assert got is not None
    ss, negative = got
    return ranking._pair_auc(ss, negative, [None, top_label(ss, thr)])


def datasets():
    rng = np.random.default_rng(7)
    out = {}
    s = np.round(rng.beta(2, 2, 300), 2)  # many ties
    out["ties"] = (s, rng.random(300) < s)
    s = np.full(50, 0.3)
    out["all equal"] = (s, np.arange(50) % 3 == 0)
    s = np.r_[np.zeros(20), np.ones(20), rng.random(40)]  # 0/1 extremes, tied
    out["extremes"] = (s, rng.random(80) < 0.5)
    s = rng.random(60)
    s[:10] = -0.0
    s[10:20] = 0.0  # -0.0 and +0.0 are the same score: one tie group
    out["signed zero"] = (s, np.arange(60) % 2 == 0)
    s = rng.random(200) ** 6  # tiny scores (small exponents) beside large ones
    s[::7] = 5e-324  # subnormal
    out["subnormal"] = (s, rng.random(200) < 0.4)
    return out


@pytest.mark.parametrize("name", list(datasets()))
def test_packed_path_equals_general_path_sklearn_and_brute_force(name):
    s, pos = datasets()[name]
    conf = top_label(s)
    a_p, cw_p = packed(s, pos)
    a_g, cw_g = general(s, pos, conf)
    assert a_p == a_g  # sums of halves: exact in either order
    assert cw_p == pytest.approx(cw_g, rel=1e-13, abs=0)
    assert a_p == pytest.approx(roc_auc_score(pos, s), rel=1e-12)
    assert cw_p == pytest.approx(roc_auc_score(pos, s, sample_weight=conf), rel=1e-12)
    assert a_p == pytest.approx(brute(pos, s), rel=1e-12)
    assert cw_p == pytest.approx(brute(pos, s, conf), rel=1e-12)
    # and through the public functions, which take the packed path here
    per_a, per_cw = ranking.auc_cwauc(pos.astype(int), s, conf)
    assert per_a[1] == a_p and per_cw[1] == pytest.approx(cw_p, rel=1e-13)


def test_signed_zero_ties_with_positive_zero():
    # one positive at -0.0, one negative at +0.0: a tie, 1/2 (a sign bit would rank it last)
    s = np.array([-0.0, 0.0, 0.9, 0.1])
    pos = np.array([True, False, True, False])
    a, _ = packed(s, pos)
    # pairs: (-0.0 vs 0.0) 1/2, (-0.0 vs 0.1) 0, (0.9 vs 0.0) 1, (0.9 vs 0.1) 1 -> 2.5 / 4
    assert a == 0.625 == roc_auc_score(pos, s)
    ss, _ = ranking._packed_sort(s, pos)
    assert not np.signbit(ss).any()  # -0.0 became +0.0
    assert s[0] == 0.0 and np.signbit(s[0])  # the input is untouched


def test_packed_sort_carries_labels_and_orders_by_score():
    rng = np.random.default_rng(3)
    s = np.round(rng.random(1000), 3)
    pos = rng.random(1000) < 0.3
    ss, negative = ranking._packed_sort(s, pos)
    np.testing.assert_array_equal(ss, np.sort(s))
    # inside each tie group the labels are a permutation of the group's labels
    for v in np.unique(s)[:50]:
        assert np.sort(~negative[ss == v]).tolist() == np.sort(pos[s == v]).tolist()
    assert int((~negative).sum()) == int(pos.sum())


def test_negative_or_nan_scores_fall_back_to_the_general_path():
    s = np.array([-1.0, 0.5, 2.0, -3.0])
    pos = np.array([True, False, True, False])
    assert ranking._packed_sort(s, pos) is None
    assert ranking._packed_sort(np.array([0.1, np.nan]), np.array([True, False])) is None
    # the public function still ranks any real score
    assert ranking.weighted_auc(pos, s) == brute(pos, s) == roc_auc_score(pos, s)


def test_unweighted_binary_auc_takes_the_packed_path(monkeypatch):
    s, pos = datasets()["ties"]
    conf = top_label(s)
    expect = ranking.auc_cwauc(pos.astype(int), s, conf)

    def no_complex_sort(*args, **kwargs):
        raise AssertionError("the complex-key sort was used")

    monkeypatch.setattr(ranking, "_keyed", no_complex_sort)
    got = ranking.auc_cwauc(pos.astype(int), s, conf)
    np.testing.assert_array_equal(got[0], expect[0])
    np.testing.assert_array_equal(got[1], expect[1])
    assert ranking.auc(pos.astype(int), s) == expect[0][1]
    # a confidence that is not the score's top-label one must ride in the sort
    with pytest.raises(AssertionError, match="complex-key sort"):
        ranking.auc_cwauc(pos.astype(int), s, np.full(s.shape, 0.7))


def test_confidence_not_implied_by_the_score_uses_it_as_given():
    rng = np.random.default_rng(11)
    s = np.round(rng.random(120), 2)
    pos = rng.random(120) < 0.5
    conf = rng.uniform(0.5, 1.0, 120)  # a given confidence: not max(s, 1 - s)
    assert ranking._conf_threshold(s, conf, 0.5) is None
    assert ranking._conf_threshold(s, top_label(s), 0.5) == 0.5
    assert ranking._conf_threshold(s, top_label(s, 0.3), 0.5) is None
    _, per_cw = ranking.auc_cwauc(pos.astype(int), s, conf)
    assert per_cw[1] == pytest.approx(brute(pos, s, conf), rel=1e-12)
    assert per_cw[1] == pytest.approx(roc_auc_score(pos, s, sample_weight=conf), rel=1e-12)


@pytest.mark.parametrize("want", [(True, True), (True, False), (False, True)])
def test_auc_only_and_cwauc_only_equal_the_pair(want):
    want_auc, want_cw = want
    rng = np.random.default_rng(5)
    for y, p, c, w in [
        # binary, packed
        ((s := np.round(rng.random(300), 2)) > rng.random(300), s, top_label(s), None),
        # binary, weighted (general path)
        ((s2 := np.round(rng.random(300), 2)) > rng.random(300), s2, top_label(s2),
         rng.random(300)),
    ]:
        y = y.astype(int)
        full_a, full_cw = ranking._per_class(y, p, c, w, with_cw=True)
        a, cw = ranking._per_class(y, p, c if want_cw else None, w, with_cw=want_cw,
                                   want_auc=want_auc)
        if want_auc:
            assert a.tolist() == full_a.tolist()
        else:
            assert np.isnan(a).all()
        if want_cw:
            np.testing.assert_allclose(cw, full_cw, rtol=1e-13)
        else:
            assert cw is None
    # multiclass with a rare class (rank path for the AUC) and a common one
    k, n = 12, 600
    logits = rng.normal(size=(n, k)) * 1.5
    logits[:, 0] += 2.0
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    y = (p.cumsum(axis=1) < rng.random(n)[:, None]).sum(axis=1).clip(max=k - 1)
    c = p.max(axis=1)
    full_a, full_cw = ranking.auc_cwauc(y, p, c)
    a, cw = ranking._per_class(y, p, c if want_cw else None, None, with_cw=want_cw,
                               want_auc=want_auc)
    if want_auc:
        np.testing.assert_allclose(a, full_a, rtol=1e-13)
        ok = ~np.isnan(full_a)
        ref = [roc_auc_score(y == j, p[:, j]) for j in np.flatnonzero(ok)]
        np.testing.assert_allclose(a[ok], ref, rtol=1e-12)
    if want_cw:
        np.testing.assert_allclose(cw, full_cw, rtol=1e-13)


def _profile(n=2000, seed=0, threshold=0.5, **kw):
    rng = np.random.default_rng(seed)
    s = np.round(rng.beta(2, 2, n), 3)
    y = (rng.random(n) < s).astype(int)
    return ConfidenceProfile.from_arrays(y, s, threshold=threshold, **kw), y, s


@pytest.mark.parametrize("threshold", [0.5, 0.3])
def test_registry_entries_match_sklearn_at_the_profile_threshold(threshold):
    p, y, s = _profile(threshold=threshold)
    conf = top_label(s, threshold)
    np.testing.assert_array_equal(p.conf, conf)
    assert ranking._conf_threshold(p.score, p.conf, p.threshold) == threshold
    cache = MetricCache()
    settings = Settings()
    a = REGISTRY["auc"].compute(p, settings, cache)
    cw = REGISTRY["cwauc"].compute(p, settings, cache)
    assert a == pytest.approx(roc_auc_score(y, s), rel=1e-12)
    assert cw == pytest.approx(roc_auc_score(y, s, sample_weight=conf), rel=1e-12)
    assert REGISTRY["delta_auc"].compute(p, settings, cache) == cw - a


def test_metric_cache_computes_only_what_its_metrics_need(monkeypatch):
    p, _, _ = _profile(seed=4)
    calls = []
    assert p.score is not None  # binary: the cache sorts through _binary_auc
    real = ranking._binary_auc

    def spy(scores, pos, conf, w, **kwargs):
        calls.append((kwargs["want_auc"], conf is not None))
        return real(scores, pos, conf, w, **kwargs)

    monkeypatch.setattr(ranking, "_binary_auc", spy)
    settings = Settings()
    both = MetricCache()
    ref = both.auc_pair(p)
    assert calls == [(True, True)]  # unknown metrics: one sort for both

    calls.clear()
    only = MetricCache(metrics=frozenset({"auc"}))
    assert REGISTRY["auc"].compute(p, settings, only) == ref[0]
    assert calls == [(True, False)]
    assert ("ranking", "cwauc") not in only.values

    calls.clear()
    only = MetricCache(metrics=frozenset({"cwauc", "accuracy"}))
    assert REGISTRY["cwauc"].compute(p, settings, only) == pytest.approx(ref[1], rel=1e-13)
    assert calls == [(False, True)]

    calls.clear()
    pair = MetricCache(metrics=frozenset({"auc", "cwauc"}))
    REGISTRY["auc"].compute(p, settings, pair)
    REGISTRY["cwauc"].compute(p, settings, pair)
    assert calls == [(True, True)]  # both wanted: one sort, not two

    calls.clear()
    delta = MetricCache(metrics=frozenset({"delta_auc"}))
    REGISTRY["delta_auc"].compute(p, settings, delta)
    assert calls == [(True, True)]


def test_accessor_single_class_is_nan_with_its_reason():
    df = pd.DataFrame({"y_true": np.ones(30, dtype=int),
                       "proba": np.linspace(0.1, 0.9, 30)})
    with pytest.warns(calreport.accessor.UndefinedMetricWarning,
                      match="auc is NaN: needs both positives and negatives"):
        assert math.isnan(df.calib(pos_label=1).auc())
    with pytest.warns(calreport.accessor.UndefinedMetricWarning,
                      match="cwauc is NaN: needs both positives and negatives"):
        assert math.isnan(df.calib(pos_label=1).cwauc())


def test_accessor_binary_auc_and_cwauc_match_sklearn():
    rng = np.random.default_rng(9)
    s = np.round(rng.beta(2, 2, 5000), 3)
    s[:5] = 0.0
    s[5:10] = 1.0
    y = (rng.random(5000) < s).astype(int)
    df = pd.DataFrame({"y_true": y, "proba": s})
    assert df.calib.auc() == pytest.approx(roc_auc_score(y, s), rel=1e-12)
    assert df.calib.cwauc() == pytest.approx(
        roc_auc_score(y, s, sample_weight=top_label(s)), rel=1e-12)


# ------------------------------------------------ few positives: the bucket path
def sparse_sets():
    rng = np.random.default_rng(21)
    out = {}
    n = 2000
    s = rng.random(n) ** 4
    pos = rng.random(n) < 0.03
    s[pos] = np.round(s[pos] ** 0.25, 3)  # positives higher, tied among themselves
    s[:40] = s[pos][:40].mean()  # negatives tied with no positive ...
    s[40:80] = s[pos][0]  # ... and tied with a positive
    out["ties"] = (s, pos)
    s = rng.random(n) ** 12  # scores over many binary exponents
    s[:100] = -0.0
    s[100:200] = 0.0
    s[200:300] = 1.0
    s[300:350] = 5e-324
    pos = np.zeros(n, bool)
    pos[[0, 5, 110, 320, 1500, 1900]] = True  # at -0.0, +0.0, the subnormal
    out["signed zero, extremes"] = (s, pos)
    s = rng.random(n) * 1e-200  # tiny scores: buckets from the bits, not the value
    pos = rng.random(n) < 0.05
    out["tiny"] = (s, pos)
    return out


@pytest.mark.parametrize("name", list(sparse_sets()))
def test_bucket_path_equals_brute_force_sklearn_and_general_path(name):
    s, pos = sparse_sets()[name]
    rng = np.random.default_rng(2)
    conf = rng.uniform(0.2, 1.0, s.shape[0])
    conf[:10] = 0.0  # zero weight keeps its label
    got = ranking._bucket_class_auc(s, pos, conf, True)
    assert got is not None  # few rows share a bucket with a positive here
    a, cw = got
    assert a == brute(pos, s)  # sums of halves: exact
    assert a == pytest.approx(roc_auc_score(pos, s), rel=1e-12)
    assert cw == pytest.approx(brute(pos, s, conf), rel=1e-12)
    assert cw == pytest.approx(roc_auc_score(pos, s, sample_weight=conf), rel=1e-12)
    a_g, cw_g = general(s, pos, conf)
    assert a == a_g and cw == pytest.approx(cw_g, rel=1e-13)
    a_only, no_cw = ranking._bucket_class_auc(s, pos, None, True)
    assert a_only == a and math.isnan(no_cw)
    no_a, cw_only = ranking._bucket_class_auc(s, pos, conf, False)
    assert math.isnan(no_a) and cw_only == cw


def test_bucket_path_declines_where_it_does_not_apply():
    rng = np.random.default_rng(4)
    pos = np.arange(100) % 10 == 0
    # every row in a positive's bucket: the full sort is as cheap
    assert ranking._bucket_class_auc(np.full(100, 0.4), pos, None, True) is None
    # negative or NaN scores: the bit pattern does not order them
    s = rng.normal(size=100)
    assert ranking._bucket_class_auc(s, pos, None, True) is None
    s = rng.random(100)
    s[3] = np.nan
    assert ranking._bucket_class_auc(s, pos, None, True) is None
    # the public function still gives the pair AUC for any real score
    s = rng.normal(size=100)
    assert ranking.weighted_auc(pos, s) == roc_auc_score(pos, s)


def test_many_classes_take_the_bucket_path_and_match_sklearn(monkeypatch):
    rng = np.random.default_rng(8)
    n, k = 3000, 20
    logits = rng.normal(size=(n, k)) * 2.0
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    y = (p.cumsum(axis=1) < rng.random(n)[:, None]).sum(axis=1).clip(max=k - 1)
    c = p.max(axis=1)
    used = []
    real = ranking._bucket_class_auc

    def spy(*args):
        got = real(*args)
        used.append(got is not None)
        return got

    monkeypatch.setattr(ranking, "_bucket_class_auc", spy)
    per_a, per_cw = ranking.auc_cwauc(y, p, c)
    assert len(used) == k and sum(used) >= k // 2
    ref = [roc_auc_score(y == j, p[:, j]) for j in range(k)]
    np.testing.assert_allclose(per_a, ref, rtol=1e-12)
    ref_cw = [roc_auc_score(y == j, p[:, j], sample_weight=c) for j in range(k)]
    np.testing.assert_allclose(per_cw, ref_cw, rtol=1e-12)
    assert ranking.auc(y, p) == pytest.approx(
        roc_auc_score(y, p, multi_class="ovr", average="macro"), rel=1e-12)
