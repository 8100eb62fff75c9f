"""Accuracy, cwA, gain and the classical / confidence-weighted confusion metrics."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

from calreport._warnings import UndefinedMetricWarning
from calreport.metrics import weighted


def _data(n=400, k=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    pred = np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))
    conf = rng.uniform(1 / k, 1, n)
    return y, pred, conf


def test_cwa_hand_worked():
    # correct rows carry 0.9 + 0.5 of the 2.0 total confidence
    assert weighted.cwa([0.9, 0.6, 0.5], [1, 0, 1]) == pytest.approx(0.7)
    # gain = (0.7 - 2/3) / (1 - 2/3)
    assert weighted.gain([0.9, 0.6, 0.5], [1, 0, 1]) == pytest.approx(0.1)
    assert math.isnan(weighted.gain([0.9, 0.6], [1, 1]))
    assert math.isnan(weighted.cwa([0.0, 0.0], [1, 0]))


@pytest.mark.parametrize("average", ["macro", "micro", "weighted"])
@pytest.mark.parametrize("cw", [False, True])
def test_precision_recall_f1_match_sklearn(average, cw):
    y, pred, conf = _data()
    sw = conf if cw else None  # Definition 5 = sklearn's counts with sample_weight=conf
    out = weighted.classification_metrics(y, pred, conf if cw else None, n_classes=4,
                                          average=average)
    p, r, f, _ = skm.precision_recall_fscore_support(y, pred, average=average,
                                                     sample_weight=sw, zero_division=np.nan)
    assert out["precision"] == pytest.approx(p)
    assert out["recall"] == pytest.approx(r)
    assert out["f1"] == pytest.approx(f)


@pytest.mark.parametrize("cw", [False, True])
def test_mcc_balanced_accuracy_confusion_match_sklearn(cw):
    y, pred, conf = _data(seed=3)
    sw = conf if cw else None
    out = weighted.classification_metrics(y, pred, conf if cw else None, n_classes=4)
    assert out["mcc"] == pytest.approx(skm.matthews_corrcoef(y, pred, sample_weight=sw))
    assert out["balanced_accuracy"] == pytest.approx(
        skm.balanced_accuracy_score(y, pred, sample_weight=sw))
    assert out["accuracy"] == pytest.approx(skm.accuracy_score(y, pred, sample_weight=sw))
    m = weighted.confusion_matrix(y, pred, n_classes=4, weights=sw)
    np.testing.assert_allclose(m, skm.confusion_matrix(y, pred, sample_weight=sw))


def test_binary_mcc_and_specificity_hand_worked():
    # TP=2 (rows 0,1), FN=1 (row 2), FP=1 (row 3), TN=2 (rows 4,5) for class 1
    y = [1, 1, 1, 0, 0, 0]
    pred = [1, 1, 0, 1, 0, 0]
    out = weighted.classification_metrics(y, pred, n_classes=2, average=None)
    assert out["specificity"][1] == pytest.approx(2 / 3)
    assert out["precision"][1] == pytest.approx(2 / 3)
    mcc = (2 * 2 - 1 * 1) / math.sqrt(3 * 3 * 3 * 3)
    assert weighted.classification_metrics(y, pred, n_classes=2)["mcc"] == pytest.approx(mcc)


def test_cw_confusion_definition5_by_hand():
    y = [0, 1, 1, 2]
    pred = [0, 1, 0, 1]
    c = [0.9, 0.8, 0.6, 0.5]
    cts = weighted.cw_confusion(y, pred, c, n_classes=3)
    # class 0: cwTP = 0.9 (row 0); cwFP = 0.6 (row 2, predicted 0, wrong); cwFN = 0
    # cwTN = rows with pred != 0 and y != 0: rows 1 and 3 -> 0.8 + 0.5
    assert cts.tp.tolist() == pytest.approx([0.9, 0.8, 0.0])
    assert cts.fp.tolist() == pytest.approx([0.6, 0.5, 0.0])
    assert cts.fn.tolist() == pytest.approx([0.0, 0.6, 0.5])
    assert cts.tn.tolist() == pytest.approx([1.3, 0.9, 2.3])
    assert cts.p.tolist() == pytest.approx([0.9, 1.4, 0.5])


def test_undefined_ratios_are_nan_and_skipped():
    out = weighted.classification_metrics([0, 0, 1], [0, 0, 0], n_classes=3, average=None)
    assert math.isnan(out["precision"][1]) and math.isnan(out["recall"][2])
    # precision of class 0 is 2/3; classes 1 and 2 are never predicted -> left out, and
    # the warning says which (class 2 has no label either: no recall)
    with pytest.warns(UndefinedMetricWarning) as got:
        macro = weighted.classification_metrics([0, 0, 1], [0, 0, 0], n_classes=3,
                                                class_names=["a", "b", "c"])
    assert macro["precision"] == pytest.approx(2 / 3)
    (w,) = got
    assert str(w.message).startswith(
        "Undefined for some classes, left out of the macro mean: precision (class b, c); "
        "recall (class c)")
    assert w.filename == __file__  # the caller's line


def test_weight_invariances():
    y, pred, conf = _data(n=80, seed=9)
    w = np.random.default_rng(1).integers(0, 3, 80)
    w[0] = 1
    a = weighted.classification_metrics(y, pred, conf, n_classes=4, sample_weight=w)
    b = weighted.classification_metrics(np.repeat(y, w), np.repeat(pred, w),
                                        np.repeat(conf, w), n_classes=4)
    for key in a:
        assert a[key] == pytest.approx(b[key], nan_ok=True), key
    ok = y == pred
    assert weighted.cwa(conf, ok, sample_weight=np.ones(80)) == pytest.approx(
        weighted.cwa(conf, ok))


def test_errors():
    with pytest.raises(ValueError, match=r"`y_true` has 1 value that is not a class code 0\.\.1"):
        weighted.confusion_counts([0, 2], [0, 1], n_classes=2)
    with pytest.raises(TypeError, match="`y_true` must hold integer class codes"):
        weighted.confusion_counts(["a", "b"], [0, 1], n_classes=2)
    with pytest.raises(ValueError, match="`average` must be one of"):
        weighted.classification_metrics([0], [0], n_classes=1, average="samples")
    with pytest.raises(ValueError, match="`conf` has 1 value outside"):
        weighted.cwa([0.5, 2.0], [1, 0])


@pytest.mark.parametrize("conf", [[0.513, 0.869, 0.057], [0.358, 0.572, 0.322]])
def test_mcc_no_math_domain_error(conf):
    """Regression: rounding made the MCC radicand -6.7e-16 ("math domain error").

    Every prediction is class 0 and no true label is 0, so the column-sum factor
    s^2 - p.p is exactly 0: MCC is 0 as in scikit-learn.  The second triple raised
    with the unclipped radicand (found by search); the first is the reported input.
    """
    y, pred = [1, 2, 3], [0, 0, 0]
    out = weighted.classification_metrics(y, pred, conf, n_classes=4)
    assert out["mcc"] == skm.matthews_corrcoef(y, pred, sample_weight=conf) == 0.0


@pytest.mark.parametrize("scale", [5e-324, 1e-300, 1e-100, 1e-8, 1e8, 1e80, 1e160, 1e300])
def test_metrics_invariant_to_weight_scale(scale):
    """Relative weights: constant weights of any size give the unweighted values."""
    y, pred, conf = _data(n=400, k=3, seed=11)
    ok = y == pred
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow/underflow RuntimeWarning leaks
        w = np.full(400, scale)
        for cw in (None, conf):
            a = weighted.classification_metrics(y, pred, cw, n_classes=3, sample_weight=w)
            b = weighted.classification_metrics(y, pred, cw, n_classes=3)
            for key in a:
                assert a[key] == pytest.approx(b[key], rel=1e-12, nan_ok=True), key
        assert weighted.cwa(conf, ok, sample_weight=w) == pytest.approx(weighted.cwa(conf, ok))
        assert weighted.accuracy(ok, sample_weight=w) == pytest.approx(ok.mean())
        assert weighted.gain(conf, ok, sample_weight=w) == pytest.approx(
            weighted.gain(conf, ok))
    # the unweighted MCC is scikit-learn's, so the scaled ones are too
    assert weighted.classification_metrics(y, pred, n_classes=3)["mcc"] == pytest.approx(
        skm.matthews_corrcoef(y, pred))


def test_mixed_extreme_weights_match_sklearn_after_rescaling():
    """Weights spanning 1e-150..1e150: sklearn on weights / max gives the same MCC."""
    y, pred, conf = _data(n=300, k=4, seed=12)
    w = 10.0 ** np.random.default_rng(3).uniform(-150, 150, 300)
    out = weighted.classification_metrics(y, pred, conf, n_classes=4, sample_weight=w)
    ref = skm.matthews_corrcoef(y, pred, sample_weight=conf * w / w.max())
    assert out["mcc"] == pytest.approx(ref, rel=1e-9)
    assert out["accuracy"] == pytest.approx(
        skm.accuracy_score(y, pred, sample_weight=w / w.max()), rel=1e-9)


@pytest.mark.parametrize("scale", [1.0, 10.0, 1e-300, 1e300])
def test_mcc_of_a_single_true_class_is_zero_at_every_weight_scale(scale):
    """Every true label is 0: the row-sum factor of R_K is exactly 0, so R_K is 0 (it
    was 1.06e-8 at scale 10 and 0 at scale 1 from the rounding of 1 - t.t)."""
    y, pred = np.array([0, 0, 0, 0]), np.array([0, 1, 0, 0])
    w = np.random.default_rng(249).uniform(0.1, 1.0, 4) * scale
    out = weighted.classification_metrics(y, pred, np.array([0.5, 1.0, 0.75, 1.0]),
                                          n_classes=2, sample_weight=w)
    assert out["mcc"] == 0.0


# ----------------------------------------------------------------- overconfidence
def test_overconfidence_hand_worked_and_by_brute_force():
    # mean confidence 0.8, accuracy 2/3
    assert weighted.overconfidence([0.9, 0.8, 0.7], [1, 0, 1]) == pytest.approx(0.8 - 2 / 3)
    # weights 2, 1, 1: (2 * -0.1 + 0.8 - 0.3) / 4
    assert weighted.overconfidence([0.9, 0.8, 0.7], [1, 0, 1], sample_weight=[2, 1, 1]) \
        == pytest.approx(0.075)
    with pytest.raises(ValueError, match="sample_weight"):
        weighted.overconfidence([0.9], [1], sample_weight=[0.0])
    y, pred, conf = _data()
    ok = y == pred
    w = np.random.default_rng(1).gamma(2.0, 1.0, y.size)
    assert weighted.overconfidence(conf, ok) == pytest.approx(conf.mean() - ok.mean(),
                                                              rel=1e-12)
    assert weighted.overconfidence(conf, ok, sample_weight=w) == pytest.approx(
        np.average(conf, weights=w) - np.average(ok, weights=w), rel=1e-12)


@pytest.mark.parametrize("n_bins", [1, 7, 15])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_overconfidence_is_the_top_label_signed_ece_on_any_bins(n_bins, strategy):
    """The bins' confidence - accuracy gaps, weighted by their mass, add up to it."""
    from calreport.metrics import binned

    y, pred, conf = _data(seed=n_bins)
    ok = y == pred
    assert weighted.overconfidence(conf, ok) == pytest.approx(
        binned.signed_ece(conf, ok, n_bins=n_bins, strategy=strategy), abs=1e-12)
