"""Accuracy, confidence-weighted accuracy and the (confidence-weighted) confusion metrics.

Definitions from Martin-Maroto, Abderrahaman-Elena & de Polavieja (2026), "Beyond ECE",
arXiv:2605.01796, section 2.2 (Definitions 4-5) and appendix A.3 (Propositions 9-14).
Sample weights are relative: every metric here is a ratio, computed from weights
divided by their maximum, so it is invariant to the weight scale over the whole
floating-point range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from calreport import _labels as lab
from calreport import _validate as v
from calreport import _warnings

__all__ = [
    "ConfusionCounts",
    "accuracy",
    "classification_metrics",
    "confusion_counts",
    "confusion_matrix",
    "cw_confusion",
    "cwa",
    "gain",
    "kish_size",
    "sample_sizes",
]

_AVERAGES = ("macro", "micro", "weighted", None)


def _weights(w: Any, n: int) -> np.ndarray:
    """Validated weights divided by their maximum (ones when absent).

    Every metric of this module is a ratio of weighted sums, so dividing by the
    largest weight changes no value and keeps sums of 1e300 or 1e-300 weights finite
    and non-zero.
    """
    out = v.check_sample_weight(w, n)
    return np.ones(n) if out is None else out / out.max()


def _raw_weights(w: Any, n: int) -> np.ndarray:
    """Validated weights as given: the confusion counts keep the caller's units."""
    out = v.check_sample_weight(w, n)
    return np.ones(n) if out is None else out


def kish_size(total: Any, total_sq: Any) -> np.ndarray:
    """Kish's effective sample size ``(sum w)^2 / sum w^2``, elementwise (0 where
    ``sum w^2`` is 0).

    Parameters
    ----------
    total, total_sq : array-like of float
        Sums of the weights and of their squares (per group, per bin...).

    Returns
    -------
    ndarray of float64
        The number of equally weighted rows that would give a weighted mean the same
        variance: the row count for equal weights, less for unequal ones; invariant
        to the scale of the weights.

    References
    ----------
    Kish, L. (1965). Survey Sampling. John Wiley & Sons, New York.

    Examples
    --------
    >>> kish_size([4.0, 2.0], [10.0, 2.0]).tolist()
    [1.6, 2.0]
    """
    total = np.asarray(total, dtype=np.float64)
    total_sq = np.asarray(total_sq, dtype=np.float64)
    full = total_sq > 0
    return np.where(full, total**2 / np.where(full, total_sq, 1.0), 0.0)


def sample_sizes(total: Any, total_sq: Any, positive: Any, weights: str | None
                 ) -> tuple[Any, Any]:
    """The summaries' ``n`` and ``n_eff``: how many observations, and how many equally
    weighted ones would give the same precision.

    Parameters
    ----------
    total, total_sq : array-like of float or None
        Sums of the weights and of their squares (scalars, or one per group).
    positive : array-like of float
        Rows of positive weight (all rows without weights).
    weights : {"importance", "frequency"} or None
        The weights' meaning; None without weights.

    Returns
    -------
    n, n_eff
        Without weights: the rows, twice.  Frequency weights: ``sum w`` twice (the
        rows of the repeated data, every unit an observation).  Importance weights:
        the rows of positive weight, and Kish's effective size
        ``(sum w)^2 / sum w^2`` (:func:`kish_size`; scale-free, at most ``n``).

    Examples
    --------
    >>> sample_sizes(4.0, 10.0, 2, "importance")[1].item(), sample_sizes(4.0, 10.0, 2, "frequency")
    (1.6, (4.0, 4.0))
    """
    if weights is None:
        return positive, positive
    if weights == "frequency":
        return total, total
    return positive, kish_size(total, total_sq)


def accuracy(correct: Any, *, sample_weight: Any = None) -> float:
    """Fraction of correct predictions.

    Examples
    --------
    >>> accuracy([1, 0, 1, 1])
    0.75
    """
    ok = lab.check_binary_indicator(correct, "correct")
    w = _weights(sample_weight, len(ok))
    return float((w * ok).sum() / w.sum())


def _conf_correct(conf: Any, correct: Any, sample_weight: Any
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Checked confidences, correctness indicators and row weights of equal length."""
    c = v.check_probability(conf, "conf")
    ok = lab.check_binary_indicator(correct, "correct")
    v.check_consistent_length(conf=len(c), correct=len(ok))
    return c, ok, _weights(sample_weight, len(c))


def cwa(conf: Any, correct: Any, *, sample_weight: Any = None) -> float:
    """Confidence-weighted accuracy: the share of confidence mass on correct predictions.

    Parameters
    ----------
    conf : array-like of float, shape (N,)
        Confidence in the predicted class.
    correct : array-like of bool or 0/1, shape (N,)
    sample_weight : array-like, optional

    Returns
    -------
    float
        NaN when every confidence is 0.

    Notes
    -----
    Martin-Maroto et al. (2026), section 2.2, Definition 4:
    ``cwA = sum_i c_i 1[correct_i] / sum_i c_i``.  Proposition 9:
    ``cwA = acc + Cov(c, correct) / mean(c)``; a flat profile gives cwA = acc
    (Corollary 10).

    Examples
    --------
    >>> cwa([0.9, 0.6, 0.5], [1, 0, 1])  # (0.9 + 0.5) / 2.0
    0.7
    """
    c, ok, w = _conf_correct(conf, correct, sample_weight)
    den = float((w * c).sum())
    return float((w * c * ok).sum() / den) if den > 0 else math.nan


def overconfidence(conf: Any, correct: Any, *, sample_weight: Any = None) -> float:
    """Mean confidence in the predicted class minus accuracy.

    Parameters
    ----------
    conf : array-like of float, shape (N,)
        Confidence in the predicted class.
    correct : array-like of bool or 0/1, shape (N,)
    sample_weight : array-like, optional

    Returns
    -------
    float
        ``sum_i w_i (c_i - 1[correct_i]) / sum_i w_i``: > 0 overconfident, < 0
        underconfident, 0 in expectation under calibration.

    Notes
    -----
    The gap between the average confidence and the accuracy that Guo et al. (2017,
    section 2) set side by side; the top-label calibration-in-the-large.  It is the
    top-label view's signed ECE on any bins (the bins' gaps add up to it); for binary
    input the summary's signed ECE reads the positive-class view instead.

    Examples
    --------
    >>> overconfidence([0.9, 0.6, 0.5], [1, 0, 1])  # 2.0 / 3 - 2 / 3
    0.0
    >>> round(overconfidence([0.9, 0.8, 0.7], [1, 0, 1]), 12)  # 0.8 - 2 / 3
    0.133333333333
    """
    c, ok, w = _conf_correct(conf, correct, sample_weight)
    total = float(w.sum())
    return float((w * (c - ok)).sum() / total) if total > 0 else math.nan


def gain(conf: Any, correct: Any, *, sample_weight: Any = None) -> float:
    """Share of the gap to perfect accuracy closed by confidence weighting.

    ``gain = (cwA - Acc) / (1 - min(cwA, Acc))`` (Martin-Maroto et al. 2026,
    section 3.1).  NaN when the denominator is 0 (cwA or Acc equals 1).

    Examples
    --------
    >>> round(gain([0.9, 0.6, 0.5], [1, 0, 1]), 6)  # (0.7 - 2/3) / (1 - 2/3)
    0.1
    """
    a = accuracy(correct, sample_weight=sample_weight)
    b = cwa(conf, correct, sample_weight=sample_weight)
    den = 1.0 - min(a, b)
    return (b - a) / den if den > 0 else math.nan


@dataclass(frozen=True)
class ConfusionCounts:
    """Per-class one-vs-rest counts (arrays of length K).

    Attributes
    ----------
    tp, fp, fn, tn, p, n : ndarray
        True/false positives/negatives, positives ``tp + fn`` and negatives ``fp + tn``.
    weighted_by_confidence : bool
    """

    tp: np.ndarray
    fp: np.ndarray
    fn: np.ndarray
    tn: np.ndarray
    p: np.ndarray
    n: np.ndarray
    weighted_by_confidence: bool = False


def _codes(y: Any, n_classes: int, name: str) -> np.ndarray:
    return v.check_class_codes(y, n_classes, name)


def confusion_matrix(y_true: Any, y_pred: Any, *, n_classes: int,
                     weights: Any = None) -> np.ndarray:
    """``K x K`` matrix ``M[i, j]`` = total weight of rows with true class i, predicted j.

    Examples
    --------
    >>> confusion_matrix([0, 1, 1], [0, 1, 0], n_classes=2).tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    k = v.check_positive_int(n_classes, "n_classes")
    yt = _codes(y_true, k, "y_true")
    yp = _codes(y_pred, k, "y_pred")
    v.check_consistent_length(y_true=len(yt), y_pred=len(yp))
    w = np.ones(len(yt)) if weights is None else v.as_float_array(weights, "weights")
    return np.bincount(yt * k + yp, weights=w, minlength=k * k).reshape(k, k).astype(float)


def _counts(y_true: Any, y_pred: Any, row_w: np.ndarray, k: int, cw: bool) -> ConfusionCounts:
    m = confusion_matrix(y_true, y_pred, n_classes=k, weights=row_w)
    tp = np.diag(m).copy()
    p = m.sum(axis=1)
    pred = m.sum(axis=0)
    total = m.sum()
    fn = p - tp
    fp = pred - tp
    tn = total - tp - fn - fp
    return ConfusionCounts(tp, fp, fn, tn, p, total - p, cw)


def confusion_counts(y_true: Any, y_pred: Any, *, n_classes: int,
                     sample_weight: Any = None) -> ConfusionCounts:
    """Classical one-vs-rest TP, FP, FN, TN per class.

    Examples
    --------
    >>> confusion_counts([0, 1, 1], [0, 1, 0], n_classes=2).tp.tolist()
    [1.0, 1.0]
    """
    yt = _codes(y_true, v.check_positive_int(n_classes, "n_classes"), "y_true")
    return _counts(yt, y_pred, _raw_weights(sample_weight, len(yt)), n_classes, False)


def cw_confusion(y_true: Any, y_pred: Any, conf: Any, *, n_classes: int,
                 sample_weight: Any = None) -> ConfusionCounts:
    """Confidence-weighted confusion counts per class.

    Parameters
    ----------
    y_true, y_pred : array-like of int, shape (N,)
        Class codes ``0..K-1``.
    conf : array-like of float, shape (N,)
        Top-label confidence (confidence in ``y_pred``).
    n_classes : int
    sample_weight : array-like, optional
        Multiplies the confidences.

    Returns
    -------
    ConfusionCounts

    Notes
    -----
    Martin-Maroto et al. (2026), section 2.2, Definition 5, for class k:
    ``cwTP = sum c 1[correct] 1[y = k]``, ``cwFN = sum c 1[wrong] 1[y = k]``,
    ``cwFP = sum c 1[wrong] 1[y_pred = k]``, ``cwTN = sum c 1[y_pred != k] 1[y != k]``,
    ``cwP = sum c 1[y = k]``, ``cwN = sum c 1[y != k]``.  They satisfy the structural
    relations of the classical counts (Proposition 11): ``cwP = cwTP + cwFN``,
    ``cwN = cwFP + cwTN`` and ``cwP + cwN = N mean(c)``.  Passing ``sample_weight=conf``
    to any classical confusion routine (e.g. scikit-learn's) gives these counts.

    Examples
    --------
    >>> cw_confusion([0, 1, 1], [0, 1, 0], [0.9, 0.8, 0.5], n_classes=2).fn.tolist()
    [0.0, 0.5]
    """
    k = v.check_positive_int(n_classes, "n_classes")
    yt = _codes(y_true, k, "y_true")
    c = v.check_probability(conf, "conf")
    v.check_consistent_length(y_true=len(yt), conf=len(c))
    return _counts(yt, y_pred, c * _raw_weights(sample_weight, len(c)), k, True)


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b > 0, a / np.where(b > 0, b, 1.0), np.nan)


def _mcc(m: np.ndarray) -> float:
    """Gorodkin's R_K on a (weighted) K x K confusion matrix.

    ``R_K = (c s - t.p) / sqrt((s^2 - p.p)(s^2 - t.t))`` with row sums t, column sums
    p, total s and trace c.  Computed on ``m / s`` (R_K is scale-free), so no product
    overflows.  Each radicand factor is written ``sum_i t_i (s - t_i)``: when a single
    class holds every true (or every predicted) label it is exactly 0 whatever the
    rounding of ``m / s`` (``1 - t.t`` left about 1e-16 there, and R_K came out near
    1e-8 at some weight scales and 0 at others); it is clipped at 0 against rounding.
    """
    s = float(m.sum())
    if not s > 0:
        return 0.0
    f = m / s
    t = f.sum(axis=1)
    p = f.sum(axis=0)
    total = float(f.sum())
    num = float(np.trace(f) * total - t @ p)
    den = math.sqrt(max(float(p @ (total - p)), 0.0) * max(float(t @ (total - t)), 0.0))
    return num / den if den > 0 else 0.0


def classification_metrics(
    y_true: Any,
    y_pred: Any,
    conf: Any = None,
    *,
    n_classes: int,
    average: str | None = "macro",
    sample_weight: Any = None,
    class_names: Any = None,
) -> dict[str, Any]:
    """Precision, recall, specificity, F1, per-class accuracy, balanced accuracy and MCC.

    Parameters
    ----------
    y_true, y_pred : array-like of int
        Class codes ``0..K-1``.
    conf : array-like of float, optional
        Top-label confidence: when given, every metric is built on the
        confidence-weighted counts of Definition 5 (Martin-Maroto et al. 2026, section
        2.2; Proposition 11 makes every identity of the classical metrics carry over).
    n_classes : int
    average : {"macro", "micro", "weighted", None}
        How per-class values are combined, as in scikit-learn: macro = unweighted mean
        over classes; micro = from the summed counts; weighted = by support (by cwP in
        the confidence-weighted form); None = per-class arrays.
    sample_weight : array-like, optional
    class_names : sequence, optional
        The label of each class code, named in the warning of a class left out of a
        mean (default: the codes).

    Returns
    -------
    dict
        ``precision``, ``recall``, ``specificity``, ``f1``, ``class_accuracy``
        (per-class one-vs-rest accuracy), and the scalars ``accuracy``,
        ``balanced_accuracy`` (mean recall over classes with support) and ``mcc``
        (Gorodkin's R_K; binary: Matthews).

    Notes
    -----
    A ratio with a zero denominator (e.g. precision of a class never predicted) is
    NaN and is left out of macro and weighted means, with an
    :class:`~calreport._warnings.UndefinedMetricWarning` naming the metric and the
    classes (scikit-learn instead reports 0 with a warning by default).
    Proposition 14: ``sum_k cwAcc^(k) = (K - 2) + 2 cwA``.

    Examples
    --------
    >>> out = classification_metrics([0, 1, 1, 0], [0, 1, 0, 0], n_classes=2, average=None)
    >>> out["recall"].tolist()
    [1.0, 0.5]
    """
    v.check_option(average, "average", _AVERAGES)
    k = v.check_positive_int(n_classes, "n_classes")
    yt = _codes(y_true, k, "y_true")
    w = _weights(sample_weight, len(yt))
    cw = conf is not None
    if cw:
        cts = cw_confusion(yt, y_pred, conf, n_classes=k, sample_weight=w)
        row_w = v.check_probability(conf, "conf") * w
    else:
        cts = confusion_counts(yt, y_pred, n_classes=k, sample_weight=w)
        row_w = w
    m = confusion_matrix(yt, y_pred, n_classes=k, weights=row_w)
    precision = _div(cts.tp, cts.tp + cts.fp)
    recall = _div(cts.tp, cts.p)
    specificity = _div(cts.tn, cts.n)
    f1 = _div(2 * cts.tp, 2 * cts.tp + cts.fp + cts.fn)
    total = cts.p + cts.n
    class_acc = _div(cts.tp + cts.tn, total)
    out: dict[str, Any] = {}
    per = {"precision": precision, "recall": recall, "specificity": specificity, "f1": f1,
           "class_accuracy": class_acc}
    if average is None:
        out.update(per)
    elif average == "micro":
        tp, fp, fn, tn = cts.tp.sum(), cts.fp.sum(), cts.fn.sum(), cts.tn.sum()
        out.update(
            precision=float(_div(np.array(tp), np.array(tp + fp))),
            recall=float(_div(np.array(tp), np.array(tp + fn))),
            specificity=float(_div(np.array(tn), np.array(tn + fp))),
            f1=float(_div(np.array(2 * tp), np.array(2 * tp + fp + fn))),
            class_accuracy=float(_div(np.array(tp + tn), np.array(tp + tn + fp + fn))),
        )
    else:
        support = cts.p
        left_out = []
        for name, arr in per.items():
            ok = ~np.isnan(arr)
            if not ok.all():
                names = [str(c if class_names is None else class_names[c])
                         for c in np.flatnonzero(~ok)]
                left_out.append(f"{name} (class {', '.join(names)})")
            if not ok.any():
                out[name] = math.nan
            elif average == "macro":
                out[name] = float(arr[ok].mean())
            else:
                sw = support[ok]
                out[name] = float((arr[ok] * sw).sum() / sw.sum()) if sw.sum() > 0 else math.nan
        if left_out:
            _warnings.warn(
                f"Undefined for some classes, left out of the {average} mean: "
                f"{'; '.join(left_out)} (a class never predicted has no precision, one "
                "absent from the labels no recall).  scikit-learn counts them as 0 with "
                "zero_division=0; average=None gives the per-class values.",
                _warnings.UndefinedMetricWarning)
    has = cts.p > 0
    out["balanced_accuracy"] = float(recall[has].mean()) if has.any() else math.nan
    s = m.sum()
    out["accuracy"] = float(np.trace(m) / s) if s > 0 else math.nan
    out["mcc"] = _mcc(m)
    return out
