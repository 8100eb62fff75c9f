"""Accuracy, cwA, gain and the classical / confidence-weighted confusion metrics."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn import metrics as skm

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
    macro = weighted.classification_metrics([0, 0, 1], [0, 0, 0], n_classes=3)
    # precision of class 0 is 2/3; classes 1 and 2 are never predicted -> left out
    assert macro["precision"] == pytest.approx(2 / 3)


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
