"""Ranking metrics: AUC, confidence-weighted AUC (cwAUC), ROC and cwROC curves.

All AUCs here are *pair-weighted*: a (positive ``i``, negative ``j``) pair counts
``w_i * w_j`` and a tie in score counts one half (000_efda01fc1c8d5c44.txt,
section 2.2 and appendix, Propositions 15-17).  The classical AUC uses ``w = 1``
(or the sample weights); cwAUC uses the top-label confidence ``c`` (times the
sample weight).  Every AUC is computed from one sort of the scores, tie
groups and weighted cumulative sums, so it is exact with ties and O(N log N).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from calreport import _validate as v

__all__ = [
    "auc",
    "auc_cwauc",
    "cw_roc_curve",
    "cwauc",
    "delta_auc",
    "roc_curve",
    "weighted_auc",
]

_AVERAGES = ("macro", None)


# ----------------------------------------------------------------------------- core
def _tie_groups(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Sort each row of ``scores`` (shape ``(R, N)``) once and find its tie groups.

    Returns the sort order ``(R, N)``, the flat start index of every tie group in the
    row-major flattened sorted array, and the row of each group (None when R = 1).
    A group never spans two rows because the first element of every row starts one.
    Ties are summed as whole groups, so the order of the rows inside a tie (and hence
    the stability of the sort) cannot change the result; the default introsort is
    used because it is several times faster than a stable sort on float64.
    """
    order = np.argsort(scores, axis=1)
    if scores.shape[0] == 1:
        ss = scores[0, order[0]][np.newaxis, :]  # plain gather: cheaper than take_along_axis
    else:
        ss = np.take_along_axis(scores, order, axis=1)
    new = np.empty(ss.shape, dtype=bool)
    new[:, 0] = True
    np.not_equal(ss[:, 1:], ss[:, :-1], out=new[:, 1:])
    starts = np.flatnonzero(new)
    n_rows = scores.shape[0]
    rows = None if n_rows == 1 else np.repeat(np.arange(n_rows), new.sum(axis=1))
    return order, starts, rows


def _grouped_auc(
    pos: np.ndarray, weight: np.ndarray | None, starts: np.ndarray, rows: np.ndarray | None,
    n_rows: int,
) -> np.ndarray:
    """Pair-weighted AUC of every row from the sorted positive mask and weights.

    ``pos`` and ``weight`` are flattened ``(R, N)`` arrays in sorted order.  For a tie
    group ``g`` with positive weight ``p_g`` and negative weight ``n_g``, the pairs it
    wins are ``p_g * (negative weight strictly below g + n_g / 2)``.
    """
    if weight is None:
        wp = np.add.reduceat(pos, starts, dtype=np.float64)
        wn = np.diff(starts, append=pos.size) - wp
    else:
        wp = np.add.reduceat(weight * pos, starts)
        # rounding may leave -1e-17 in a mixed group; an all-positive group gives exactly 0
        wn = np.maximum(np.add.reduceat(weight, starts) - wp, 0.0)
    cum_n = np.cumsum(wn)
    if rows is None:
        tot_p, tot_n = np.array([wp.sum()]), cum_n[-1:]
        num = np.array([np.dot(wp, cum_n - 0.5 * wn)])
    else:
        tot_p = np.bincount(rows, weights=wp, minlength=n_rows)
        tot_n = np.bincount(rows, weights=wn, minlength=n_rows)
        # cumulative negative weight restarted at each row
        offset = np.cumsum(tot_n) - tot_n
        num = np.bincount(rows, weights=wp * (cum_n - offset[rows] - 0.5 * wn),
                          minlength=n_rows)
    den = tot_p * tot_n
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / den, np.nan)


def _prepare(
    y_true: Any, proba: Any, conf: Any, sample_weight: Any, *, with_conf: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None, int, bool]:
    """Validate the multiclass inputs.

    Returns the class codes, the one-vs-rest scores as an ``(R, N)`` array (one row per
    class, or only the positive-class row for a binary problem), the confidence (or
    None), the sample weights (or None), the number of classes and the binary flag.
    """
    p = v.check_proba_matrix(proba, "proba")
    n = p.shape[0]
    binary = p.ndim == 1 or p.shape[1] == 2
    n_classes = 2 if p.ndim == 1 else p.shape[1]
    y = v.check_class_codes(y_true, n_classes, "y_true")
    v.check_consistent_length(y_true=y.shape[0], proba=n)
    if p.ndim == 1:
        scores = p[np.newaxis, :]
    elif binary:
        # class 0 with score 1 - p is the mirror image of class 1: same AUC and cwAUC
        scores = p[np.newaxis, :, 1].copy()
    else:
        scores = np.ascontiguousarray(p.T)
    c = None
    if with_conf:
        c = v.check_probability(conf, "conf")
        v.check_consistent_length(conf=c.shape[0], proba=n)
    w = v.check_sample_weight(sample_weight, n)
    return y, scores, c, w, n_classes, binary


def _per_class(
    y_true: Any, proba: Any, conf: Any, sample_weight: Any, *, with_cw: bool
) -> tuple[np.ndarray, np.ndarray | None]:
    y, scores, c, w, n_classes, binary = _prepare(y_true, proba, conf, sample_weight,
                                                  with_conf=with_cw)
    order, starts, rows = _tie_groups(scores)
    n_rows = scores.shape[0]
    if binary:
        pos = (y == 1)[order]
    else:
        pos = y[order] == np.arange(n_classes)[:, np.newaxis]
    pos = pos.ravel()
    w_sorted = None if w is None else w[order].ravel()
    per_auc = _grouped_auc(pos, w_sorted, starts, rows, n_rows)
    per_cw = None
    if with_cw:
        assert c is not None
        cw = c if w is None else w * c
        per_cw = _grouped_auc(pos, cw[order].ravel(), starts, rows, n_rows)
    if binary:
        per_auc = np.repeat(per_auc, 2)
        per_cw = None if per_cw is None else np.repeat(per_cw, 2)
    return per_auc, per_cw


def _average(per_class: np.ndarray, average: str | None) -> float | np.ndarray:
    if average is None:
        return per_class
    ok = ~np.isnan(per_class)
    return float(per_class[ok].mean()) if ok.any() else float("nan")


# --------------------------------------------------------------------------- public
def weighted_auc(y_binary: Any, score: Any, *, weight: Any = None) -> float:
    """Pair-weighted area under the ROC curve of a binary problem.

    Parameters
    ----------
    y_binary : array-like of bool or 0/1, shape (N,)
        True for the positive rows.
    score : array-like of float, shape (N,)
        Any real-valued score, higher meaning "more positive".
    weight : array-like of float, shape (N,), optional
        Non-negative row weights.  Default: all ones (the classical AUC).

    Returns
    -------
    float
        ``sum_{i pos, j neg} w_i w_j (1[s_i > s_j] + 1/2 1[s_i = s_j]) /
        sum_{i pos, j neg} w_i w_j``; NaN when the positives or the negatives have no
        weight.

    Raises
    ------
    ValueError, TypeError
        On non-binary labels, non-finite scores, negative weights or length mismatch.

    Notes
    -----
    000_efda01fc1c8d5c44.txt, appendix, Equation 3 (``weight=None``) and Proposition 15
    (``weight`` = confidence).  Computed from one sort of ``score``: for each
    tie group the positive weight times (negative weight strictly below plus half the
    tied negative weight), so the result is exact with ties, O(N log N), and equal to
    scikit-learn's ``roc_auc_score(y, score, sample_weight=weight)``.

    Examples
    --------
    >>> weighted_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> weighted_auc([0, 1], [0.5, 0.5])
    0.5
    """
    y = v.check_binary_indicator(y_binary, "y_binary")
    s = v.as_float_array(score, "score")
    v.check_consistent_length(y_binary=y.shape[0], score=s.shape[0])
    w = v.check_sample_weight(weight, s.shape[0], "weight")
    order, starts, rows = _tie_groups(s[np.newaxis, :])
    w_sorted = None if w is None else w[order].ravel()
    return float(_grouped_auc(y[order].ravel(), w_sorted, starts, rows, 1)[0])


def auc_cwauc(
    y_true: Any, proba: Any, conf: Any, *, sample_weight: Any = None
) -> tuple[np.ndarray, np.ndarray]:
    """Per-class one-vs-rest AUC and cwAUC from one sort per class.

    Parameters
    ----------
    y_true : array-like of int, shape (N,)
        True class codes ``0..K-1`` (column indices of ``proba``).
    proba : array-like of float, shape (N, K) or (N,)
        Class probabilities (rows sum to 1), or for a binary problem the probability
        of class 1.
    conf : array-like of float, shape (N,)
        Top-label confidence: the probability of each row's predicted class.
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights, multiplied into both AUCs' pair weights.

    Returns
    -------
    auc, cwauc : ndarray of float64, shape (K,)
        Per-class values; NaN for a class without positives or without negatives.
        For a binary problem both entries are the positive-class value.

    Raises
    ------
    ValueError, TypeError
        On invalid probabilities, class codes, confidences or weights.

    Notes
    -----
    000_efda01fc1c8d5c44.txt, section 2.2 and appendix, Proposition 15: class ``k``
    ranks by ``proba[:, k]``; AUC^(k) weights a (positive, negative) pair by
    ``w_i w_j``, cwAUC^(k) by ``w_i c_i w_j c_j``; ties in score count one half.
    All classes are sorted in one vectorised ``argsort`` of the ``(K, N)`` score
    matrix, and both AUCs are read off the same tie groups.  For K = 2 the class-0
    scores ``1 - p`` give exactly the mirror image of class 1 (same value), so only
    ``proba[:, 1]`` is sorted, as scikit-learn does for binary input.

    Examples
    --------
    >>> a, cw = auc_cwauc([0, 1, 2, 1], [[0.6, 0.3, 0.1], [0.2, 0.7, 0.1],
    ...                                  [0.1, 0.2, 0.7], [0.5, 0.4, 0.1]],
    ...                   [0.6, 0.7, 0.7, 0.5])
    >>> a.tolist()
    [1.0, 1.0, 1.0]
    """
    per_auc, per_cw = _per_class(y_true, proba, conf, sample_weight, with_cw=True)
    assert per_cw is not None
    return per_auc, per_cw


def auc(
    y_true: Any, proba: Any, *, sample_weight: Any = None,
    average: Literal["macro"] | None = "macro",
) -> float | np.ndarray:
    """One-vs-rest area under the ROC curve, macro-averaged over classes.

    Parameters
    ----------
    y_true : array-like of int, shape (N,)
        True class codes ``0..K-1``.
    proba : array-like of float, shape (N, K) or (N,)
        Class probabilities, or the probability of class 1 of a binary problem.
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights (pair weight ``w_i w_j``).
    average : {"macro", None}, default "macro"
        ``"macro"``: unweighted mean over the classes that have both positives and
        negatives (NaN if none); ``None``: the per-class array.

    Returns
    -------
    float or ndarray of shape (K,)
        For a binary problem the macro value is the positive-class AUC, and both
        per-class entries equal it.

    Raises
    ------
    ValueError, TypeError
        On invalid input or an unknown ``average``.

    Notes
    -----
    000_efda01fc1c8d5c44.txt, appendix, Equation 3: AUC^(k) =
    P(proba_k(x+) > proba_k(x-)) + P(proba_k(x+) = proba_k(x-)) / 2 with x+ of class
    k and x- of another class.  Same value as scikit-learn's
    ``roc_auc_score(y, proba, multi_class="ovr", average="macro")``.

    Examples
    --------
    >>> auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """
    v.check_option(average, "average", _AVERAGES)
    per_auc, _ = _per_class(y_true, proba, None, sample_weight, with_cw=False)
    return _average(per_auc, average)


def cwauc(
    y_true: Any, proba: Any, conf: Any, *, sample_weight: Any = None,
    average: Literal["macro"] | None = "macro",
) -> float | np.ndarray:
    """Confidence-weighted one-vs-rest AUC (cwAUC), macro-averaged over classes.

    Parameters
    ----------
    y_true : array-like of int, shape (N,)
        True class codes ``0..K-1``.
    proba : array-like of float, shape (N, K) or (N,)
        Class probabilities, or the probability of class 1 of a binary problem.
    conf : array-like of float, shape (N,)
        Top-label confidence of each row (probability of its predicted class).
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights; the pair weight becomes ``w_i c_i w_j c_j``.
    average : {"macro", None}, default "macro"
        ``"macro"``: mean over the classes where cwAUC is defined; ``None``: per class.

    Returns
    -------
    float or ndarray of shape (K,)

    Raises
    ------
    ValueError, TypeError
        On invalid input or an unknown ``average``.

    Notes
    -----
    000_efda01fc1c8d5c44.txt, appendix, Proposition 15: cwAUC^(k) is the area under
    the cwROC curve and equals

    ``sum_{i in D+_k} sum_{j in D-_k} c_i c_j z_ij / sum_{i in D+_k} sum_{j in D-_k} c_i c_j``,

    ``z_ij = 1[proba_ik > proba_jk] + 1/2 1[proba_ik = proba_jk]``, where ``c`` is the
    *top-label* confidence, not ``proba[:, k]``.  With ``conf`` all ones it is the
    classical AUC (Proposition 17, proof).

    Examples
    --------
    >>> round(cwauc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], [0.9, 0.6, 0.65, 0.8]), 4)
    0.8207
    """
    v.check_option(average, "average", _AVERAGES)
    _, per_cw = _per_class(y_true, proba, conf, sample_weight, with_cw=True)
    assert per_cw is not None
    return _average(per_cw, average)


def delta_auc(y_true: Any, proba: Any, conf: Any, *, sample_weight: Any = None) -> float:
    """Macro cwAUC minus macro AUC: the discriminative value added by the confidences.

    Parameters
    ----------
    y_true : array-like of int, shape (N,)
        True class codes ``0..K-1``.
    proba : array-like of float, shape (N, K) or (N,)
        Class probabilities, or the probability of class 1 of a binary problem.
    conf : array-like of float, shape (N,)
        Top-label confidence.
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights.

    Returns
    -------
    float
        Positive when the model is more confident on the pairs it ranks correctly.

    Raises
    ------
    ValueError, TypeError
        On invalid input.

    Notes
    -----
    000_efda01fc1c8d5c44.txt, appendix, Proposition 16: per class,
    ``cwAUC - AUC = Cov(w_ij, z_ij) / E[w_ij]`` over (positive, negative) pairs with
    ``w_ij = c_i c_j``.  Both macro means run over the classes where each is defined.

    Examples
    --------
    >>> round(delta_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], [0.9, 0.6, 0.65, 0.8]), 4)
    0.0707
    """
    per_auc, per_cw = auc_cwauc(y_true, proba, conf, sample_weight=sample_weight)
    return float(_average(per_cw, "macro")) - float(_average(per_auc, "macro"))


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
    so the trapezoid area under the curve equals :func:`weighted_auc` exactly
    (000_efda01fc1c8d5c44.txt, appendix, Equation 3).

    Examples
    --------
    >>> fpr, tpr, thr = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """
    y = v.check_binary_indicator(y_binary, "y_binary")
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
    000_efda01fc1c8d5c44.txt, appendix, Proposition 15:
    ``cwTPR(t) = sum_{i pos, s_i >= t} c_i / sum_{i pos} c_i`` and likewise cwFPR over
    the negatives; its trapezoid area is cwAUC.

    Examples
    --------
    >>> fpr, tpr, _ = cw_roc_curve([0, 1, 1], [0.2, 0.9, 0.6], [0.8, 0.9, 0.6])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.0, 1.0], [0.0, 0.6, 1.0, 1.0])
    """
    y = v.check_binary_indicator(y_binary, "y_binary")
    s = v.as_float_array(score, "score")
    c = v.check_probability(conf, "conf")
    v.check_consistent_length(y_binary=y.shape[0], score=s.shape[0], conf=c.shape[0])
    w = v.check_sample_weight(sample_weight, s.shape[0])
    return _roc_points(y, s, c if w is None else w * c)
