"""ROC and confidence-weighted ROC (cwROC) curves of a binary or one-vs-rest problem.

One point per distinct score, from one sort of the scores and weighted cumulative
sums; the trapezoid area under each curve is the matching pair-weighted AUC of
:mod:`calreport.metrics.ranking` (Martin-Maroto et al. 2026, appendix, Equation 3
and Proposition 15).  Both curves are re-exported by :mod:`calreport.metrics.ranking`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calreport import _labels as lab
from calreport import _validate as v

__all__ = ["cw_roc_curve", "roc_curve"]


def _roc_points(
    y: np.ndarray, s: np.ndarray, w: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if w is not None:
        # rows without weight cannot move the curve; drop them so they add no threshold
        keep = w > 0
        y, s, w = y[keep], s[keep], w[keep]
    order = np.argsort(s)[::-1]  # ties are grouped below: stability is irrelevant
    sd = s[order]
    ends = np.flatnonzero(np.r_[sd[1:] != sd[:-1], True]) if sd.size else np.empty(0, int)
    yd = y[order]
    wd = np.ones(sd.size) if w is None else w[order]
    tp = np.r_[0.0, np.cumsum(np.where(yd, wd, 0.0))[ends]]
    fp = np.r_[0.0, np.cumsum(np.where(yd, 0.0, wd))[ends]]
    with np.errstate(divide="ignore", invalid="ignore"):
        tpr = tp / tp[-1] if tp[-1] > 0 else np.full(tp.shape, np.nan)
        fpr = fp / fp[-1] if fp[-1] > 0 else np.full(fp.shape, np.nan)
    thresholds = np.r_[np.inf, sd[ends]]
    return fpr, tpr, thresholds


def roc_curve(
    y_binary: Any, score: Any, *, weight: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Receiver operating characteristic curve of a binary problem.

    Parameters
    ----------
    y_binary : array-like of bool or 0/1, shape (N,)
        True for the positive rows.
    score : array-like of float, shape (N,)
        Real-valued score, higher meaning "more positive".
    weight : array-like of float, shape (N,), optional
        Non-negative row weights; rows of weight 0 are ignored.

    Returns
    -------
    fpr, tpr : ndarray of float64
        False and true positive rates of the rule ``score >= threshold``, starting at
        (0, 0) and ending at (1, 1).  A rate is NaN when its class has no weight.
    thresholds : ndarray of float64
        ``inf`` followed by the distinct scores in decreasing order.

    Raises
    ------
    ValueError, TypeError
        On invalid input.

    Notes
    -----
    One point per distinct score, as scikit-learn's
    ``roc_curve(..., drop_intermediate=False)``; tied scores give a diagonal segment,
    so the trapezoid area under the curve equals
    :func:`calreport.metrics.ranking.weighted_auc` exactly
    (Martin-Maroto et al. 2026, appendix, Equation 3).

    References
    ----------
    .. [1] Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026).
       Beyond ECE: Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted
       Metrics. arXiv preprint. arXiv:2605.01796. appendix, Equation 3.

    Examples
    --------
    >>> fpr, tpr, thr = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """
    y = lab.check_binary_indicator(y_binary, "y_binary")
    s = v.as_float_array(score, "score")
    v.check_consistent_length(y_binary=y.shape[0], score=s.shape[0])
    w = v.check_sample_weight(weight, s.shape[0], "weight")
    return _roc_points(y, s, w)


def cw_roc_curve(
    y_binary: Any, score: Any, conf: Any, *, sample_weight: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Confidence-weighted ROC curve (cwROC) of a binary or one-vs-rest problem.

    Parameters
    ----------
    y_binary : array-like of bool or 0/1, shape (N,)
        True for the positive rows (``y_true == k`` for class ``k``).
    score : array-like of float, shape (N,)
        Score of the positive class (``proba[:, k]``).
    conf : array-like of float, shape (N,)
        Top-label confidence of each row.
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights, multiplied with ``conf``.

    Returns
    -------
    fpr, tpr, thresholds : ndarray of float64
        cwFPR and cwTPR at each distinct score with positive weight, as
        :func:`roc_curve`.

    Raises
    ------
    ValueError, TypeError
        On invalid input.

    Notes
    -----
    Martin-Maroto et al. (2026), appendix, Proposition 15:
    ``cwTPR(t) = sum_{i pos, s_i >= t} c_i / sum_{i pos} c_i`` and likewise cwFPR over
    the negatives; its trapezoid area is cwAUC.

    References
    ----------
    .. [1] Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026).
       Beyond ECE: Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted
       Metrics. arXiv preprint. arXiv:2605.01796. appendix, Proposition 15.

    Examples
    --------
    >>> fpr, tpr, _ = cw_roc_curve([0, 1, 1], [0.2, 0.9, 0.6], [0.8, 0.9, 0.6])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.0, 1.0], [0.0, 0.6, 1.0, 1.0])
    """
    y = lab.check_binary_indicator(y_binary, "y_binary")
    s = v.as_float_array(score, "score")
    c = v.check_probability(conf, "conf")
    v.check_consistent_length(y_binary=y.shape[0], score=s.shape[0], conf=c.shape[0])
    w = v.check_sample_weight(sample_weight, s.shape[0])
    return _roc_points(y, s, c if w is None else w * c)
