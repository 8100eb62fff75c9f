"""Proper scores and sharpness: Brier score, log loss, Murphy decomposition.

A strictly proper score rewards calibration and sharpness at once (Gneiting &
Raftery (2007), doi:10.1198/016214506000001437).  :func:`brier_score` (Brier 1950)
and :func:`log_loss` (Good 1952) follow scikit-learn's ``brier_score_loss``
(>= 1.7) and ``log_loss`` on the same inputs; :func:`top_label_brier` and
:func:`top_label_log_loss` score the top-label confidence against correctness;
:func:`murphy_decomposition` splits the binary Brier score of a (score, outcome)
pair into reliability, resolution and uncertainty (Murphy 1973) over the bins of
:mod:`calreport.metrics.binned`;
:func:`sharpness` is the variance of the confidences (Gneiting, Balabdaoui &
Raftery 2007).  Full references are in each function's docstring and in
:mod:`calreport.references`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calreport import _labels as lab
from calreport import _validate as v
from calreport.metrics._bins import STRATEGIES, Strategy, _bin_means, _bin_sums

__all__ = [
    "brier_score",
    "log_loss",
    "murphy_decomposition",
    "sharpness",
    "top_label_brier",
    "top_label_log_loss",
    "top_label_log_terms",
]

#: Probabilities are clipped to ``[LOG_LOSS_EPS, 1 - LOG_LOSS_EPS]`` in the log loss
#: (float64 machine epsilon, as scikit-learn for float64 input).
LOG_LOSS_EPS = float(np.finfo(np.float64).eps)


#: Matrix entries per block of rows of the multiclass Brier score (bounds its temporary).
_BLOCK_ENTRIES = 1 << 18


def _average(values: np.ndarray, w: np.ndarray | None) -> float:
    if w is None:
        return float(values.mean())
    # multiply and sum, not np.dot: BLAS threads stall on a busy machine
    return float((w * values).sum() / w.sum())


def _labels_and_proba(
    y_true: Any, proba: Any, sample_weight: Any, *, copy: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Validated probabilities (1-D binary or (N, K)), integer labels and weights
    (``copy=False``: integer labels in their own type, see ``check_class_codes``)."""
    p = v.check_proba_matrix(proba, "proba")
    n_classes = 2 if p.ndim == 1 else p.shape[1]
    y = v.check_class_codes(y_true, n_classes, "y_true", copy=copy)
    v.check_consistent_length(y_true=y.shape[0], proba=p.shape[0])
    w = v.check_sample_weight(sample_weight, p.shape[0])
    return y, p, w


def brier_score(y_true: Any, proba: Any, *, sample_weight: Any = None) -> float:
    """Brier score, with the conventions of scikit-learn's ``brier_score_loss``.

    Parameters
    ----------
    y_true : array-like of int or bool, shape (N,)
        Binary input: 0/1 (1 = positive class).  Multiclass input: the class code
        ``0 .. K-1`` of each row, indexing the columns of ``proba``.
    proba : array-like of float, shape (N,) or (N, K)
        Positive-class probability, or one column of probabilities per class (rows
        summing to 1).
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights.

    Returns
    -------
    float
        Lower is better; in [0, 1] for binary input (1-D or 2 columns), in [0, 2]
        for 3 or more classes.

    Raises
    ------
    ValueError, TypeError
        On invalid labels, probabilities (outside [0, 1], rows not summing to 1)
        or weights.

    Notes
    -----
    Brier (1950): ``BS = (1/N) sum_i (p_i - y_i)^2`` for a positive-class probability
    ``p_i``.  With ``K`` probability columns,
    ``BS = (1/N) sum_i sum_k (p_ik - 1[y_i = k])^2`` -- halved when ``K = 2``, which
    gives the binary score again.  This is ``scale_by_half="auto"`` of
    scikit-learn's ``brier_score_loss`` (>= 1.7), whose range is [0, 1] for binary
    and [0, 2] for multiclass input.  Weighted: ``sum_i w_i (...) / sum_i w_i``.

    References
    ----------
    .. [1] Brier, G. W. (1950). Verification of Forecasts Expressed in Terms of
       Probability. Monthly Weather Review 78(1), 1-3.
       doi:10.1175/1520-0493(1950)078<0001:VOFEIT>2.0.CO;2.

    Examples
    --------
    >>> round(brier_score([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3]), 6)
    0.0375
    >>> round(brier_score([0, 1, 2], [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.2, 0.2, 0.6]]), 6)
    0.146667
    """
    y, p, w = _labels_and_proba(y_true, proba, sample_weight, copy=False)
    if p.ndim == 1:
        # blocks of rows: no N-row temporaries
        total = 0.0
        for start in range(0, p.shape[0], _BLOCK_ENTRIES):
            rows = slice(start, start + _BLOCK_ENTRIES)
            d = p[rows] - (y[rows] == 1)
            d *= d
            total += float(d.sum() if w is None else (w[rows] * d).sum())
        return total / (p.shape[0] if w is None else float(w.sum()))
    else:
        # a block of rows at a time: no N x K copy of the probabilities
        n, k = p.shape
        loss = np.empty(n)
        step = max(1, _BLOCK_ENTRIES // k)
        for start in range(0, n, step):
            d = np.array(p[start:start + step], order="C")
            d[np.arange(d.shape[0]), y[start:start + step]] -= 1.0
            loss[start:start + step] = np.einsum("ij,ij->i", d, d)
        if k == 2:
            loss *= 0.5
    return _average(loss, w)


def top_label_brier(conf: Any, correct: Any, *, sample_weight: Any = None) -> float:
    """Brier score of the top-label confidence against correctness.

    Parameters
    ----------
    conf : array-like of float, shape (N,)
        Confidence in the predicted class, in [0, 1].
    correct : array-like of {0, 1} or bool, shape (N,)
        Whether the predicted class is the true one.
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights.

    Returns
    -------
    float
        ``mean (conf - correct)^2`` in [0, 1].

    Raises
    ------
    ValueError, TypeError
        On invalid confidences, correctness or weights.

    Notes
    -----
    The binary Brier score (Brier 1950) applied to the confidence-calibration pair
    (``P_hat``, ``1[Y_hat = Y]``) of Guo et al. (2017, arXiv:1706.04599), section 2.
    It needs no class probabilities, so it works on a minimal (conf, correct)
    profile.

    References
    ----------
    .. [1] Brier, G. W. (1950). Verification of Forecasts Expressed in Terms of
       Probability. Monthly Weather Review 78(1), 1-3.
       doi:10.1175/1520-0493(1950)078<0001:VOFEIT>2.0.CO;2.
    .. [2] Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On Calibration of
       Modern Neural Networks. Proceedings of the 34th International Conference on
       Machine Learning (ICML), PMLR 70, 1321-1330. arXiv:1706.04599. Section 2.

    Examples
    --------
    >>> round(top_label_brier([0.9, 0.6, 0.8], [1, 0, 1]), 6)
    0.136667
    """
    c, ok, w = _top_label_pair(conf, correct, sample_weight)
    return _average((c - ok) ** 2, w)


def _top_label_pair(conf: Any, correct: Any, sample_weight: Any
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Checked confidences, correctness indicators and weights (None: unweighted)."""
    c = v.check_probability(conf, "conf")
    ok = lab.check_binary_indicator(correct, "correct")
    v.check_consistent_length(conf=c.shape[0], correct=ok.shape[0])
    return c, ok, v.check_sample_weight(sample_weight, c.shape[0])


def top_label_log_loss(conf: Any, correct: Any, *, sample_weight: Any = None) -> float:
    """Log loss of the top-label confidence against correctness.

    Parameters
    ----------
    conf, correct, sample_weight
        As :func:`top_label_brier` (which raises the same errors on invalid input).

    Returns
    -------
    float
        ``-mean [correct ln c + (1 - correct) ln(1 - c)]``, with ``c`` clipped to
        ``[LOG_LOSS_EPS, 1 - LOG_LOSS_EPS]`` as :func:`log_loss` clips; at least 0.

    Notes
    -----
    The logarithmic score (Good 1952) of the binary forecast "the predicted class is
    right, with probability c": the log-score companion of :func:`top_label_brier`,
    on the confidence-calibration pair of Guo et al. (2017), section 2.  It needs no
    class probabilities, so it works on a minimal (conf, correct) profile, and it
    punishes a confident error far more than the Brier score does (an error at
    c = 0.999 costs ln 1000 = 6.9, against 1 for the Brier score).  It equals
    scikit-learn's ``log_loss(correct, conf, labels=[0, 1])``.

    References
    ----------
    .. [1] Good, I. J. (1952). Rational Decisions. Journal of the Royal Statistical
       Society, Series B 14(1), 107-114. doi:10.1111/j.2517-6161.1952.tb00104.x.
    .. [2] Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On Calibration of
       Modern Neural Networks. Proceedings of the 34th International Conference on
       Machine Learning (ICML), PMLR 70, 1321-1330. arXiv:1706.04599. Section 2.

    Examples
    --------
    >>> round(top_label_log_loss([0.9, 0.6, 0.8], [1, 0, 1]), 6)
    0.414932
    """
    c, ok, w = _top_label_pair(conf, correct, sample_weight)
    return _average(top_label_log_terms(c, ok), w)


def top_label_log_terms(conf: np.ndarray, correct: np.ndarray) -> np.ndarray:
    """Per-row terms of :func:`top_label_log_loss`: ``-ln`` of the probability the
    confidence gave to what happened (clipped as :func:`log_loss` clips)."""
    q = np.where(correct.astype(bool), conf, 1.0 - conf)
    np.clip(q, LOG_LOSS_EPS, 1.0 - LOG_LOSS_EPS, out=q)
    return -np.log(q)


def log_loss(y_true: Any, proba: Any, *, sample_weight: Any = None) -> float:
    """Log loss (cross-entropy), with the conventions of scikit-learn's ``log_loss``.

    Parameters
    ----------
    y_true : array-like of int or bool, shape (N,)
        Binary input: 0/1 (1 = positive class).  Multiclass input: the class code
        ``0 .. K-1`` of each row, indexing the columns of ``proba``.
    proba : array-like of float, shape (N,) or (N, K)
        Positive-class probability, or one column of probabilities per class (rows
        summing to 1).
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights.

    Returns
    -------
    float
        ``-mean log p_{y_i}`` in nats; lower is better.

    Raises
    ------
    ValueError, TypeError
        On invalid labels, probabilities or weights.

    Notes
    -----
    The negative log-likelihood (Good 1952), a strictly proper score (Gneiting &
    Raftery 2007): ``LL = -(1/N) sum_i log p_i(y_i)``.  With a 1-D positive-class
    probability, ``p_i(1) = p_i`` and ``p_i(0) = 1 - p_i``.  With ``K`` columns --
    including two columns for a binary problem -- ``p_i(k)`` is read from column
    ``k``, never derived from another column: for a row ``(p0, p1)`` whose sum is
    within the tolerance of 1 but not exactly 1, ``1 - p1`` differs from ``p0``, and
    the difference is large in log terms when ``p0`` is tiny (scikit-learn's
    ``log_loss`` also reads each column).

    Clipping: as scikit-learn, the probability of the true class is clipped to
    ``[eps, 1 - eps]`` with ``eps`` = float64 machine epsilon (``LOG_LOSS_EPS``
    ~ 2.2e-16), so a probability 0 on the true class costs ``-log(eps)`` ~ 36.04
    instead of infinity and a probability 1 costs ``-log(1 - eps)`` ~ 2.2e-16 rather
    than 0.  The computation is in float64 (scikit-learn uses the epsilon of the
    input dtype, so float32 input with probabilities within 1.2e-7 of 0 or 1 gives a
    different value there).  Rows are not renormalised.

    References
    ----------
    .. [1] Good, I. J. (1952). Rational Decisions. Journal of the Royal Statistical
       Society, Series B 14(1), 107-114. doi:10.1111/j.2517-6161.1952.tb00104.x.
    .. [2] Gneiting, T. & Raftery, A. E. (2007). Strictly Proper Scoring Rules, Prediction,
       and Estimation. Journal of the American Statistical Association 102(477),
       359-378. doi:10.1198/016214506000001437.

    Examples
    --------
    >>> round(log_loss([1, 0, 0, 1], [0.9, 0.1, 0.2, 0.65]), 5)
    0.21616
    """
    # the labels in their own integer type: one temporary of N floats, p_true
    y, p, w = _labels_and_proba(y_true, proba, sample_weight, copy=False)
    if p.ndim == 2 and p.shape[1] > 2:
        p_true = np.take_along_axis(p, y.astype(np.intp)[:, None], axis=1)[:, 0]
    else:  # where(y == 1, p(1), p(0)), in place
        p_true = np.subtract(1.0, p) if p.ndim == 1 else p[:, 0].copy()
        np.copyto(p_true, p if p.ndim == 1 else p[:, 1], where=y == 1)
    # in place: p_true is a new array
    np.clip(p_true, LOG_LOSS_EPS, 1.0 - LOG_LOSS_EPS, out=p_true)
    np.log(p_true, out=p_true)
    return -_average(p_true, w)


def murphy_decomposition(
    score: Any,
    outcome: Any,
    *,
    n_bins: int = 15,
    strategy: Strategy = "uniform",
    sample_weight: Any = None,
) -> dict[str, float]:
    """Binned Murphy decomposition of the Brier score of a (score, outcome) pair.

    Parameters
    ----------
    score : array-like of float, shape (N,)
        Scores in [0, 1]: positive-class probability, or top-label confidence.
    outcome : array-like of {0, 1} or bool, shape (N,)
        ``1[y == positive class]``, or correctness.
    n_bins : int, default 15
        Number of bins grouping the scores.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width or equal-mass bins (:func:`calreport.metrics.binned.bin_edges`).
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights.

    Returns
    -------
    dict of str to float
        ``reliability`` (calibration term, lower is better), ``resolution``
        (refinement, higher is better), ``uncertainty`` (base-rate term),
        ``within_bin`` (the term that closes the identity, see Notes) and ``brier``
        (``mean (score - outcome)^2``), so that
        ``brier == reliability - resolution + uncertainty + within_bin``.

    Raises
    ------
    ValueError, TypeError
        On invalid inputs or options.

    Notes
    -----
    Murphy (1973), with the predictions grouped into the bins ``B_m`` of the
    reliability diagram (Guo et al. (2017, arXiv:1706.04599), section 2), ``n_m``
    rows (weight) each, mean score ``s_m``, mean outcome ``o_m`` and base rate
    ``o``::

        REL = sum_m n_m/N (s_m - o_m)^2
        RES = sum_m n_m/N (o_m - o)^2
        UNC = o (1 - o)

    ``REL - RES + UNC`` equals the Brier score exactly only when the scores are
    constant within each bin (the paper groups predictions by their value).
    Otherwise the difference is the within-bin term::

        WB = (1/N) sum_i [(s_i - s_m(i))^2 - 2 (s_i - s_m(i)) (y_i - o_m(i))]

    the within-bin variance of the scores minus twice their within-bin covariance
    with the outcomes, computed here from its own formula.  ``REL`` is the square of
    :func:`calreport.metrics.binned.ece` with ``p = 2`` on the same bins.

    References
    ----------
    .. [1] Murphy, A. H. (1973). A New Vector Partition of the Probability Score.
       Journal of Applied Meteorology 12(4), 595-600.
       doi:10.1175/1520-0450(1973)012<0595:ANVPOT>2.0.CO;2.
    .. [2] Brier, G. W. (1950). Verification of Forecasts Expressed in Terms of
       Probability. Monthly Weather Review 78(1), 1-3.
       doi:10.1175/1520-0493(1950)078<0001:VOFEIT>2.0.CO;2.
    .. [3] Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On Calibration of
       Modern Neural Networks. Proceedings of the 34th International Conference on
       Machine Learning (ICML), PMLR 70, 1321-1330. arXiv:1706.04599. Section 2.

    Examples
    --------
    >>> d = murphy_decomposition([0.2, 0.2, 0.8, 0.8], [0, 1, 1, 1], n_bins=2)
    >>> [round(d[k], 4) for k in ("reliability", "resolution", "uncertainty", "within_bin")]
    [0.065, 0.0625, 0.1875, 0.0]
    >>> round(d["brier"], 4)
    0.19
    """
    n_bins = v.check_n_bins(n_bins)
    v.check_option(strategy, "strategy", STRATEGIES)
    s = v.check_probability(score, "score")
    y = lab.check_binary_indicator(outcome, "outcome")
    v.check_consistent_length(score=s.shape[0], outcome=y.shape[0])
    w = v.check_sample_weight(sample_weight, s.shape[0])
    sums = _bin_sums(s, y, w, n_bins, strategy)
    conf, acc, full = _bin_means(sums)
    share = sums.weight[full] / sums.total
    base = float(sums.outcome.sum() / sums.total)
    yf = y.astype(np.float64)
    # rows of zero weight may sit in bins without weight (NaN means); they add nothing
    ds = s - np.where(full, conf, 0.0)[sums.index]
    dy = yf - np.where(full, acc, 0.0)[sums.index]
    return {
        "reliability": float(np.dot(share, (conf[full] - acc[full]) ** 2)),
        "resolution": float(np.dot(share, (acc[full] - base) ** 2)),
        "uncertainty": base * (1.0 - base),
        "within_bin": _average(ds * ds - 2.0 * ds * dy, w),
        "brier": _average((s - yf) ** 2, w),
    }


def sharpness(conf: Any, *, sample_weight: Any = None) -> float:
    """Sharpness: the (population) variance of the predicted confidences.

    Parameters
    ----------
    conf : array-like of float, shape (N,)
        Confidences or probabilities in [0, 1].
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights.

    Returns
    -------
    float
        ``Var(conf)`` in [0, 0.25]; higher = sharper forecasts.

    Raises
    ------
    ValueError, TypeError
        On invalid confidences or weights.

    Notes
    -----
    Sharpness is the concentration of the predictive distributions, a property of the
    forecasts alone (Gneiting, Balabdaoui & Raftery 2007); for probabilities of
    one event it is measured here by ``Var(P_hat)``.  Population variance (divisor
    ``N``, not ``N - 1``); weighted: ``sum w (c - c_bar)^2 / sum w`` with ``c_bar``
    the weighted mean.
    Report it next to a calibration error: the constant base-rate forecaster is
    calibrated and has sharpness 0.

    References
    ----------
    .. [1] Gneiting, T., Balabdaoui, F. & Raftery, A. E. (2007). Probabilistic Forecasts,
       Calibration and Sharpness. Journal of the Royal Statistical Society, Series B
       69(2), 243-268. doi:10.1111/j.1467-9868.2007.00587.x.

    Examples
    --------
    >>> sharpness([0.2, 0.4, 0.6, 0.8])
    0.05
    """
    c = v.check_probability(conf, "conf")
    w = v.check_sample_weight(sample_weight, c.shape[0])
    dev = c - _average(c, w)
    return _average(dev * dev, w)
