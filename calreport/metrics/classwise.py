"""Class-wise ECE: the binned ECE of every class column, averaged over classes.

Top-label ECE only looks at the predicted class.  Class-wise ECE checks every
column ``p_k`` of a multiclass probability matrix against ``1[y = k]`` with the
binned estimator of :func:`calreport.metrics.binned.ece` (uniform bins
``((m-1)/M, m/M]``, a score of 0 in the first bin) and averages the K values.

This is the *static calibration error* (SCE) of Nixon et al. (2019, section 4)
and the marginal calibration error of Kumar, Liang & Ma (2019, section 3) with
``p = 1``: every class is binned over all N rows and a bin weighs ``|B_km| / N``.

All K columns are binned at once: each entry ``p_ik`` gets the code
``k * M + bin(p_ik)`` and one ``np.bincount`` per block of rows accumulates the
score sums of all (class, bin) cells; the outcome sums need one code per row,
that of its true class.  Blocks bound the temporaries whatever N and K.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calreport import _validate as v
from calreport.metrics._bins import _assign_uniform

__all__ = ["classwise_calibration_errors", "classwise_ece", "errors_from_cell_sums"]

#: Keys of :mod:`calreport.references` behind this module.
REFERENCE_KEYS = ("Nixon2019", "Kumar2019")

#: Number of matrix entries binned per block (bounds the temporaries).
_BLOCK_ENTRIES = 1 << 18


def _prepare(
    y_true: Any, proba: Any, sample_weight: Any, n_bins: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int]:
    n_bins = v.check_n_bins(n_bins)
    p = v.check_proba_matrix(proba, "proba")
    # binary input stays 1-D: its columns (1 - p, p) are formed block by block
    y = v.check_class_codes(y_true, 2 if p.ndim == 1 else p.shape[1], "y_true", copy=False)
    v.check_consistent_length(y_true=y.shape[0], proba=p.shape[0])
    w = v.check_sample_weight(sample_weight, p.shape[0])
    return y, p, w, n_bins


def _cell_sums(
    y: np.ndarray, p: np.ndarray, w: np.ndarray | None, n_bins: int
) -> tuple[np.ndarray, np.ndarray, float]:
    """Weighted score and outcome sums per (class, bin) cell, shape (K, M), and the total."""
    if p.ndim == 1 or (p.flags.f_contiguous and not p.flags.c_contiguous):
        return _cell_sums_by_column(y, p, w, n_bins)
    n, k = p.shape
    inner = np.arange(1, n_bins, dtype=np.float64) / n_bins  # interior edges m / M
    offset = np.arange(k, dtype=np.int64) * n_bins
    cells = k * n_bins
    score = np.zeros(cells)
    step = max(1, _BLOCK_ENTRIES // k)
    for start in range(0, n, step):
        block = p[start:start + step]
        # (lo, hi] bins as binned.assign_bins: a score on an edge goes to the lower bin
        codes = np.searchsorted(inner, block, side="left")
        codes += offset
        vals = block if w is None else block * w[start:start + step, None]
        score += np.bincount(codes.ravel(), weights=vals.ravel(), minlength=cells)
    y = y.astype(np.int64, copy=False)
    true_score = p[np.arange(n), y]
    true_codes = y * n_bins + np.searchsorted(inner, true_score, side="left")
    outcome = np.bincount(true_codes, weights=w, minlength=cells).astype(np.float64)
    total = float(n if w is None else w.sum())
    return score.reshape(k, n_bins), outcome.reshape(k, n_bins), total


def _cell_sums_by_column(
    y: np.ndarray, p: np.ndarray, w: np.ndarray | None, n_bins: int
) -> tuple[np.ndarray, np.ndarray, float]:
    """:func:`_cell_sums` of a column-major ``p``, or of a binary ``p`` given as the
    positive-class column alone (read as ``[1 - p, p]``): each column is binned by
    arithmetic (the same bins as the binary search,
    :func:`calreport.metrics._bins._assign_uniform`) and summed on its own."""
    n, k = (p.shape[0], 2) if p.ndim == 1 else p.shape
    score = np.zeros((k, n_bins))
    outcome = np.zeros((k, n_bins))
    for lo in range(0, n, _BLOCK_ENTRIES):  # blocks of rows: no N-row temporaries
        rows = slice(lo, lo + _BLOCK_ENTRIES)
        yb, wb = y[rows], (None if w is None else w[rows])
        for j in range(k):  # a few columns (binary: two)
            col = p[rows, j] if p.ndim == 2 else (p[rows] if j else 1.0 - p[rows])
            idx = _assign_uniform(col, n_bins)
            score[j] += np.bincount(idx, weights=col if wb is None else col * wb,
                                    minlength=n_bins)
            hit = yb == j
            if wb is None:
                # rows of class j counted in bins n_bins..2 n_bins - 1: one integer pass
                idx += hit * n_bins
                outcome[j] += np.bincount(idx, minlength=2 * n_bins)[n_bins:]
            else:
                outcome[j] += np.bincount(idx, weights=np.where(hit, wb, 0.0),
                                          minlength=n_bins)
    total = float(n if w is None else w.sum())
    return score, outcome, total


def classwise_calibration_errors(
    y_true: Any,
    proba: Any,
    *,
    n_bins: int = 15,
    sample_weight: Any = None,
) -> np.ndarray:
    """Binned ECE of each class column against ``1[y = k]`` (one value per class).

    Parameters
    ----------
    y_true : array-like of int or bool, shape (N,)
        Class code ``0 .. K-1`` of each row, indexing the columns of ``proba``
        (binary 1-D input: 0/1).
    proba : array-like of float, shape (N, K) or (N,)
        One column of probabilities per class, rows summing to 1; a 1-D array is
        the positive-class probability of a binary problem and is read as the
        two columns ``(1 - p, p)``.
    n_bins : int, default 15
        Number of uniform bins ``M`` per class.
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights; bin weights and ``N`` become weight sums.

    Returns
    -------
    ndarray of float64, shape (K,)
        ``ECE_k`` in [0, 1] for every class ``k``.

    Raises
    ------
    ValueError, TypeError
        On invalid labels, probabilities, weights or ``n_bins``.

    Notes
    -----
    ``ECE_k = sum_m |B_km|/N |mean_{B_km} 1[y = k] - mean_{B_km} p_k|
    = (1/N) sum_m |sum_{i in B_km} (1[y_i = k] - p_ik)|`` with
    ``B_km = {i : p_ik in ((m-1)/M, m/M]}`` (0 in the first bin), the bins of
    :func:`calreport.metrics.binned.ece`; weighted, every sum is weighted and
    ``N = sum_i w_i``.

    References
    ----------
    Nixon, J., Dusenberry, M. W., Zhang, L., Jerfel, G., Tran, D. (2019).
    Measuring Calibration in Deep Learning. CVPR Workshops. arXiv:1904.01685,
    section 4 (static calibration error).

    Kumar, A., Liang, P., Ma, T. (2019). Verified Uncertainty Calibration.
    NeurIPS 32. arXiv:1909.10155, section 3 (marginal calibration error).

    Examples
    --------
    >>> classwise_calibration_errors([0, 1], [[0.8, 0.2], [0.4, 0.6]], n_bins=2)
    array([0.3, 0.3])
    """
    y, p, w, n_bins = _prepare(y_true, proba, sample_weight, n_bins)
    return errors_from_cell_sums(*_cell_sums(y, p, w, n_bins))


def errors_from_cell_sums(score: np.ndarray, outcome: np.ndarray, total: Any) -> np.ndarray:
    """``ECE_k`` of every class from its (class, bin) sums: the finisher that the row
    computation and the merged out-of-core sums share.

    Parameters
    ----------
    score, outcome : ndarray, shape (..., K, M)
        Weighted sums of ``p_k`` and of ``1[y = k]`` per class ``k`` and uniform bin.
    total : float or ndarray, shape (...)
        Weight total ``N`` (row count unweighted).

    Returns
    -------
    ndarray, shape (..., K)
        ``(1/N) sum_m |outcome_km - score_km|`` (NaN where ``N`` is 0).

    Examples
    --------
    >>> errors_from_cell_sums(np.array([[1.0, 0.5]]), np.array([[1.0, 1.0]]), 2.0)
    array([0.25])
    """
    gap = np.abs(np.asarray(outcome) - np.asarray(score)).sum(axis=-1)
    total = np.asarray(total, dtype=np.float64)[..., np.newaxis]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total > 0, gap / np.where(total > 0, total, 1.0), np.nan)


def classwise_ece(
    y_true: Any,
    proba: Any,
    *,
    n_bins: int = 15,
    sample_weight: Any = None,
) -> float:
    """Class-wise ECE: mean over classes of the binned ECE of ``p_k`` vs ``1[y = k]``.

    Parameters
    ----------
    y_true : array-like of int or bool, shape (N,)
        Class code ``0 .. K-1`` of each row (binary 1-D input: 0/1).
    proba : array-like of float, shape (N, K) or (N,)
        One column of probabilities per class (rows summing to 1), or the
        positive-class probability of a binary problem (read as ``(1 - p, p)``).
    n_bins : int, default 15
        Number of uniform bins per class.
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights.

    Returns
    -------
    float
        Class-wise ECE in [0, 1]; lower is better.

    Raises
    ------
    ValueError, TypeError
        On invalid labels, probabilities, weights or ``n_bins``.

    Notes
    -----
    ``cwECE = (1/K) sum_k sum_m |B_km|/N |acc(B_km) - conf(B_km)|`` with
    ``acc(B_km)`` the (weighted) frequency of class ``k`` and ``conf(B_km)`` the
    mean of ``p_k`` in bin ``m`` of column ``k`` (uniform right-closed bins, as
    :func:`calreport.metrics.binned.ece`).  This is the static calibration error
    of Nixon et al. (2019, section 4) and the marginal calibration error of
    Kumar et al. (2019, section 3) with ``p = 1`` and equal-width bins.  It
    equals the mean of ``binned.ece(proba[:, k], y_true == k)`` over ``k``.  A
    class absent from ``y_true`` still counts: its column is compared with zero.

    References
    ----------
    Nixon, J., Dusenberry, M. W., Zhang, L., Jerfel, G., Tran, D. (2019).
    Measuring Calibration in Deep Learning. CVPR Workshops. arXiv:1904.01685,
    section 4.

    Kumar, A., Liang, P., Ma, T. (2019). Verified Uncertainty Calibration.
    NeurIPS 32. arXiv:1909.10155, section 3.

    Examples
    --------
    >>> round(classwise_ece([0, 1, 2], [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1],
    ...                                 [0.2, 0.2, 0.6]], n_bins=2), 12)
    0.2
    """
    return float(np.mean(classwise_calibration_errors(
        y_true, proba, n_bins=n_bins, sample_weight=sample_weight)))
