"""Debiased L2 calibration error of Kumar, Liang & Ma (2019).

The plug-in binned estimate of the squared calibration error is biased upward:
even a perfectly calibrated model shows a positive gap in every bin, because the
bin's outcome frequency is noisy.  Kumar et al. subtract, in every bin, an
unbiased estimate of that noise, ``ybar (1 - ybar) / (n_b - 1)``.  The result is
an (almost) unbiased estimate of the squared L2 calibration error of the binned
model; its square root, clamped at 0, is the reported error.

Binning follows the authors' ``calibration`` package (``uncertainty-calibration``
on PyPI, version 0.1.4) so that values agree with it:

``strategy="equal_mass"`` (default, their ``get_equal_bins``)
    The positive-weight scores are sorted and split into ``min(n_bins, n)`` parts
    of sizes differing by at most one (the larger parts first); the edge between
    two parts is the midpoint of the last score of one and the first of the next;
    the last edge is 1; repeated edges are merged.
``strategy="uniform"`` (their ``get_equal_prob_bins``)
    Edges ``m / M``.
``strategy="discrete"`` (their ``get_discrete_bins``)
    One bin per distinct score (edges at the midpoints between distinct scores).
``strategy="auto"`` (their ``get_calibration_error``)
    ``"discrete"`` when there are fewer than ``n / 4`` distinct scores (the output
    of a binned recalibrator), else ``"equal_mass"``.

Bins are right-closed, ``(lower, upper]``, with scores at or below the first edge
in the first bin.  Edges are computed from the rows of positive weight, by count.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from calreport import _labels as lab
from calreport import _validate as v
from calreport.metrics._units import unit_rows

__all__ = [
    "DEBIAS_STRATEGIES",
    "bin_errors",
    "debiased_classwise_ece",
    "debiased_ece",
    "debiased_ece_squared",
    "debiased_edges",
    "equal_mass_ends",
    "squared_from_bins",
    "upper_from",
]

#: Keys of :mod:`calreport.references` behind this module.
REFERENCE_KEYS = ("Kumar2019", "Kish1965")

#: Accepted values of ``strategy``.
DEBIAS_STRATEGIES = ("equal_mass", "uniform", "discrete", "auto")

DebiasStrategy = Literal["equal_mass", "uniform", "discrete", "auto"]


# ----------------------------------------------------------------------------- core
def equal_mass_ends(n: int, n_bins: int) -> np.ndarray:
    """0-based ranks of the first row of every part but the first, when ``n`` sorted
    rows are cut into ``min(n_bins, n)`` parts as ``np.array_split`` cuts them (the
    first ``n % parts`` parts one row longer): the edge between two parts is the
    midpoint of the scores at ranks ``ends - 1`` and ``ends``."""
    parts = min(n_bins, n)
    size, extra = divmod(n, parts)
    return np.cumsum(np.where(np.arange(parts) < extra, size + 1, size))[:-1]


def upper_from(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """Equal-mass upper edges from the scores at ranks ``ends - 1`` and ``ends`` of
    :func:`equal_mass_ends`: their midpoints, then 1, repeated edges merged."""
    return np.unique(np.append((before + after) / 2.0, 1.0))


def bin_errors(weight: np.ndarray, count: np.ndarray, weight_sq: np.ndarray,
               score: np.ndarray, outcome: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The debiased error of every bin with at least two rows: ``(ok, err)``, ``err``
    holding ``(sbar - ybar)^2 - ybar (1 - ybar) / (n_eff - 1)`` of the bins ``ok``.

    Per bin: ``weight`` the sum of ``w`` (the rows when unweighted, the units for
    frequency weights), ``count`` the rows of positive weight (units for frequency
    weights), ``weight_sq`` the sum of ``w^2`` (equal to ``weight`` when unweighted
    or for frequency weights), ``score`` and ``outcome`` the sums of ``w s`` and
    ``w y``.  ``n_eff = weight^2 / weight_sq`` is Kish's effective size.  Bins of
    fewer than two rows have no variance estimate: they add 0 (as the reference)
    but keep their weight in the total.  The squared error is
    ``sum(weight[ok] * err) / sum(weight)``.
    """
    ok = count >= 2
    wb, wsq = weight[ok], weight_sq[ok]
    conf, acc = score[ok] / wb, outcome[ok] / wb
    n_eff = wb * wb / wsq  # Kish: the row count when unweighted, sum w for counts
    return ok, (conf - acc) ** 2 - acc * (1.0 - acc) / (n_eff - 1.0)


def squared_from_bins(weight: np.ndarray, count: np.ndarray, weight_sq: np.ndarray,
                      score: np.ndarray, outcome: np.ndarray) -> float:
    """Debiased squared error (not clamped) from per-bin sums (see :func:`bin_errors`)."""
    ok, err = bin_errors(weight, count, weight_sq, score, outcome)
    return float(np.dot(weight[ok], err) / weight.sum())


def _equal_mass_upper(sorted_s: np.ndarray, n_bins: int,
                      units: np.ndarray | None = None) -> np.ndarray:
    """Equal-mass upper edges of sorted scores; ``units`` (the cumulative whole-number
    counts of the rows, frequency weights) splits the repeated rows instead."""
    n = sorted_s.size if units is None else int(units[-1])
    ends = equal_mass_ends(n, n_bins)
    if units is None:
        return upper_from(sorted_s[ends - 1], sorted_s[ends])
    # the scores of units ends - 1 and ends of the repeated rows
    return upper_from(sorted_s[unit_rows(units, ends - 1)], sorted_s[unit_rows(units, ends)])


def _discrete_upper(distinct: np.ndarray) -> np.ndarray:
    return np.append((distinct[:-1] + distinct[1:]) / 2.0, 1.0)


def _upper_edges(s: np.ndarray, n_bins: int, strategy: str,
                 is_sorted: bool = False, counts: np.ndarray | None = None) -> np.ndarray:
    """Upper bin edges (the last is 1) of the scores ``s`` (rows of positive weight);
    ``counts``: their frequency weights (the edges of the repeated rows)."""
    if strategy == "uniform":
        return np.arange(1, n_bins + 1, dtype=np.float64) / n_bins
    units = None
    if counts is None:
        sorted_s = s if is_sorted else np.sort(s)
    else:  # the repeated rows' order (ties need none: the edges read scores only)
        order = np.argsort(s, kind="stable")
        sorted_s, units = s[order], np.cumsum(counts[order].astype(np.int64))
    n = sorted_s.size if units is None else int(units[-1])
    if strategy in ("discrete", "auto"):
        distinct = np.unique(sorted_s)
        if strategy == "discrete" or distinct.size < n / 4.0:
            return _discrete_upper(distinct)
    return _equal_mass_upper(sorted_s, n_bins, units)


def _squared(
    s: np.ndarray, y: np.ndarray, w: np.ndarray | None, n_bins: int, strategy: str,
    frequency: bool = False,
) -> float:
    """Debiased squared L2 error of one score column (not clamped); ``frequency``: the
    weights are counts (equal to the repeated rows)."""
    pos = s if w is None else s[w > 0]
    upper = _upper_edges(pos, n_bins, strategy,
                         counts=w[w > 0] if frequency and w is not None else None)
    idx = np.searchsorted(upper, s, side="left")
    m = upper.size
    yf = y.astype(np.float64)
    if w is None:
        count = np.bincount(idx, minlength=m).astype(np.float64)
        weight, weight_sq = count, count
        score = np.bincount(idx, weights=s, minlength=m)
        outcome = np.bincount(idx, weights=yf, minlength=m)
    else:
        weight = np.bincount(idx, weights=w, minlength=m)
        # counts: a bin holds sum w rows; relative weights: the rows of positive weight
        count = weight if frequency else np.bincount(idx[w > 0], minlength=m).astype(
            np.float64)
        weight_sq = weight if frequency else np.bincount(idx, weights=w * w, minlength=m)
        score = np.bincount(idx, weights=w * s, minlength=m)
        outcome = np.bincount(idx, weights=w * yf, minlength=m)
    return squared_from_bins(weight, count, weight_sq, score, outcome)


def _squared_sorted(s: np.ndarray, y: np.ndarray, n_bins: int, strategy: str) -> float:
    """:func:`_squared` of unweighted rows sorted by score, without a search per row.

    Bin ``i`` holds the rows with ``upper[i-1] < s <= upper[i]``: a contiguous run of
    the sorted rows, so its sums are differences of cumulative sums (the same
    values as the per-row binning up to rounding, ~1e-15).
    """
    n_bins = v.check_n_bins(n_bins)
    v.check_option(strategy, "strategy", DEBIAS_STRATEGIES)
    upper = _upper_edges(s, n_bins, strategy, is_sorted=True)
    ends = np.searchsorted(s, upper, side="right")
    ends[-1] = s.size
    bounds = np.concatenate(([0], ends))
    count = np.diff(bounds).astype(np.float64)
    score = np.diff(np.concatenate(([0.0], np.cumsum(s)))[bounds])
    outcome = np.diff(np.concatenate(([0.0], np.cumsum(y, dtype=np.float64)))[bounds])
    return squared_from_bins(count, count, count, score, outcome)


def _prepare(
    score: Any, outcome: Any, sample_weight: Any, n_bins: int, strategy: str, weights: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int]:
    n_bins = v.check_n_bins(n_bins)
    v.check_option(strategy, "strategy", DEBIAS_STRATEGIES)
    s = v.check_probability(score, "score")
    y = lab.check_binary_indicator(outcome, "outcome")
    v.check_consistent_length(score=s.shape[0], outcome=y.shape[0])
    w = v.check_sample_weight(sample_weight, s.shape[0], kind=weights)
    if w is not None and weights == "importance":
        w, _ = v.normalize_weights(w)  # w^2 neither underflows nor overflows
    return s, y, w, n_bins


# ----------------------------------------------------------------------- public API
def debiased_edges(
    score: Any,
    *,
    n_bins: int = 15,
    strategy: DebiasStrategy = "equal_mass",
    sample_weight: Any = None,
    weights: str = "importance",
) -> np.ndarray:
    """Upper bin edges used by the debiased estimator (the last one is 1).

    Parameters
    ----------
    score : array-like of float, shape (N,)
        Scores in [0, 1].
    n_bins : int, default 15
        Number of bins (at most; equal-mass bins merge on ties).
    strategy : {"equal_mass", "uniform", "discrete", "auto"}, default "equal_mass"
        See the module notes.
    sample_weight : array-like of float, shape (N,), optional
        Rows of zero weight are left out of the edges.
    weights : {"importance", "frequency"}, default "importance"
        Frequency weights (whole numbers) place the equal-mass edges of the rows
        repeated ``w`` times; importance weights place them by rows.

    Returns
    -------
    ndarray of float64
        Increasing upper edges; bin ``b`` holds the scores in
        ``(edges[b - 1], edges[b]]`` and bin 0 everything at or below ``edges[0]``.

    Raises
    ------
    ValueError, TypeError
        On invalid scores, weights or options.

    Notes
    -----
    Equal-mass edges are the midpoints between consecutive parts of the sorted
    scores (Kumar, Liang & Ma 2019, section 5 and their ``calibration``
    package's ``get_equal_bins``).

    References
    ----------
    Kumar, A., Liang, P., Ma, T. (2019). Verified Uncertainty Calibration.
    NeurIPS 32. arXiv:1909.10155, section 5.

    Examples
    --------
    >>> debiased_edges([0.1, 0.2, 0.3, 0.4, 0.5], n_bins=2)
    array([0.35, 1.  ])
    """
    n_bins = v.check_n_bins(n_bins)
    v.check_option(strategy, "strategy", DEBIAS_STRATEGIES)
    s = v.check_probability(score, "score")
    w = v.check_sample_weight(sample_weight, s.shape[0], kind=weights)
    counts = w[w > 0] if w is not None and weights == "frequency" else None
    return _upper_edges(s if w is None else s[w > 0], n_bins, strategy, counts=counts)


def debiased_ece_squared(
    score: Any,
    outcome: Any,
    *,
    n_bins: int = 15,
    strategy: DebiasStrategy = "equal_mass",
    sample_weight: Any = None,
    weights: str = "importance",
) -> float:
    """Debiased estimate of the squared L2 calibration error (may be negative).

    Parameters
    ----------
    score : array-like of float, shape (N,)
        Scores in [0, 1]: top-label confidence, or positive-class probability.
    outcome : array-like of {0, 1} or bool, shape (N,)
        Correctness, or ``1[y == positive class]``.
    n_bins : int, default 15
        Number of bins.
    strategy : {"equal_mass", "uniform", "discrete", "auto"}, default "equal_mass"
        Binning (see the module notes).
    sample_weight : array-like of float, shape (N,), optional
        Non-negative weights.
    weights : {"importance", "frequency"}, default "importance"
        Meaning of ``sample_weight``: relative importance weights (the value is
        invariant to their scale) or whole-number counts of repeated rows (the
        value of the repeated rows).

    Returns
    -------
    float
        The unclamped estimate: negative values are possible (and expected about
        half of the time for a calibrated model); use it for intervals, and
        :func:`debiased_ece` for the reported error.

    Raises
    ------
    ValueError, TypeError
        On invalid inputs or options.

    Notes
    -----
    ``CE^2 = sum_b (n_b / n) [ (sbar_b - ybar_b)^2 - ybar_b (1 - ybar_b) / (n_b - 1) ]``,
    summed over the bins with ``n_b >= 2`` rows; smaller bins add nothing but keep
    their ``n_b`` in ``n``, so tiny bins never give NaN (Kumar, Liang & Ma 2019,
    section 5, Definition 5.2; their ``unbiased_square_ce``).  The subtracted term
    is the unbiased estimate of the variance of ``ybar_b``.

    Frequency weights are the rows repeated ``w`` times: the equal-mass edges split
    the repeated rows, ``n_b`` is the bin's weight sum, and the value equals that of
    the repeated rows (to rounding).

    Importance weights: ``n_b`` and ``n`` become weight sums, the means are
    weighted, and the variance term uses the Kish effective size
    ``n_eff = (sum w)^2 / sum w^2`` of the bin in place of ``n_b`` (Kish 1965).
    With ``V1 = sum w``, ``V2 = sum w^2`` the unbiased estimate of the outcome
    variance under fixed relative weights is
    ``sum w (y - ybar)^2 / (V1 - V2 / V1)`` and ``Var(ybar) = sigma^2 V2 / V1^2``;
    their product is ``ybar (1 - ybar) / (n_eff - 1)``, so the subtracted term stays
    the unbiased estimate of the variance of the weighted ``ybar_b`` and the value
    is invariant to the scale of the weights (equal weights give the unweighted
    value).  The edges come from the positive-weight rows by count (a bin's
    variance estimate needs rows, not weight).

    References
    ----------
    Kumar, A., Liang, P., Ma, T. (2019). Verified Uncertainty Calibration.
    NeurIPS 32. arXiv:1909.10155, section 5.

    Kish, L. (1965). Survey Sampling. John Wiley & Sons, New York.

    Examples
    --------
    >>> round(debiased_ece_squared([0.2, 0.2, 0.8, 0.8], [0, 1, 1, 1], n_bins=2), 6)
    -0.06
    """
    s, y, w, n_bins = _prepare(score, outcome, sample_weight, n_bins, strategy, weights)
    return _squared(s, y, w, n_bins, strategy, weights == "frequency")


def debiased_ece(
    score: Any,
    outcome: Any,
    *,
    n_bins: int = 15,
    strategy: DebiasStrategy = "equal_mass",
    sample_weight: Any = None,
    weights: str = "importance",
) -> float:
    """Debiased L2 calibration error of Kumar, Liang & Ma (2019).

    Parameters
    ----------
    score : array-like of float, shape (N,)
        Scores in [0, 1]: top-label confidence (top-label form), or
        positive-class probability.
    outcome : array-like of {0, 1} or bool, shape (N,)
        Correctness, or ``1[y == positive class]``.
    n_bins : int, default 15
        Number of bins.
    strategy : {"equal_mass", "uniform", "discrete", "auto"}, default "equal_mass"
        Binning (see the module notes); ``"auto"`` is the choice of their
        ``get_calibration_error``.
    sample_weight : array-like of float, shape (N,), optional
        Non-negative weights.
    weights : {"importance", "frequency"}, default "importance"
        Meaning of ``sample_weight`` (see :func:`debiased_ece_squared`).

    Returns
    -------
    float
        ``sqrt(max(CE^2, 0))`` in [0, 1], with ``CE^2`` from
        :func:`debiased_ece_squared`; lower is better.

    Raises
    ------
    ValueError, TypeError
        On invalid inputs or options.

    Notes
    -----
    Equals ``calibration.get_calibration_error(score, outcome, p=2, debias=True)``
    with the same binning (``lower_bound_scaling_ce`` with ``get_equal_bins`` for
    ``"equal_mass"``), and, on (confidence, correctness) pairs, their
    ``mode="top-label"``.  The clamp at 0 makes the reported value biased upward
    for (nearly) calibrated models; intervals should be built on the unclamped
    square.

    References
    ----------
    Kumar, A., Liang, P., Ma, T. (2019). Verified Uncertainty Calibration.
    NeurIPS 32. arXiv:1909.10155, section 5.

    Examples
    --------
    >>> round(debiased_ece([0.2, 0.2, 0.2, 0.8, 0.8, 0.8], [1, 1, 1, 1, 1, 0], n_bins=2), 6)
    0.522813
    """
    s, y, w, n_bins = _prepare(score, outcome, sample_weight, n_bins, strategy, weights)
    return float(np.sqrt(max(_squared(s, y, w, n_bins, strategy, weights == "frequency"),
                             0.0)))


def debiased_classwise_ece(
    y_true: Any,
    proba: Any,
    *,
    n_bins: int = 15,
    strategy: DebiasStrategy = "equal_mass",
    sample_weight: Any = None,
    weights: str = "importance",
) -> float:
    """Debiased marginal (class-wise) L2 calibration error of Kumar et al. (2019).

    Parameters
    ----------
    y_true : array-like of int or bool, shape (N,)
        Class code ``0 .. K-1`` of each row (binary 1-D input: 0/1).
    proba : array-like of float, shape (N, K) or (N,)
        One column of probabilities per class (rows summing to 1), or the
        positive-class probability of a binary problem (read as ``(1 - p, p)``).
    n_bins : int, default 15
        Number of bins per class.
    strategy : {"equal_mass", "uniform", "discrete", "auto"}, default "equal_mass"
        Binning of every column (its own edges; see the module notes).
    sample_weight : array-like of float, shape (N,), optional
        Non-negative weights.
    weights : {"importance", "frequency"}, default "importance"
        Meaning of ``sample_weight`` (see :func:`debiased_ece_squared`).

    Returns
    -------
    float
        ``sqrt(mean_k max(CE_k^2, 0))``; lower is better.

    Raises
    ------
    ValueError, TypeError
        On invalid inputs or options.

    Notes
    -----
    ``CE_k^2`` is :func:`debiased_ece_squared` of column ``k`` against
    ``1[y = k]``; each is clamped at 0 before the mean, as
    ``calibration.get_calibration_error(proba, y, p=2, debias=True,
    mode="marginal")`` does (Kumar, Liang & Ma 2019, section 3, marginal
    calibration error).

    References
    ----------
    Kumar, A., Liang, P., Ma, T. (2019). Verified Uncertainty Calibration.
    NeurIPS 32. arXiv:1909.10155, sections 3 and 5.

    Examples
    --------
    >>> p = [[0.7, 0.3], [0.7, 0.3], [0.7, 0.3], [0.2, 0.8], [0.2, 0.8], [0.2, 0.8]]
    >>> round(debiased_classwise_ece([0, 1, 1, 1, 1, 1], p, n_bins=2), 6)
    0.177951
    """
    n_bins = v.check_n_bins(n_bins)
    v.check_option(strategy, "strategy", DEBIAS_STRATEGIES)
    p = v.check_proba_matrix(proba, "proba")
    if p.ndim == 1:
        p = np.column_stack([1.0 - p, p])
    y = v.check_class_codes(y_true, p.shape[1], "y_true")
    v.check_consistent_length(y_true=y.shape[0], proba=p.shape[0])
    w = v.check_sample_weight(sample_weight, p.shape[0], kind=weights)
    if w is not None and weights == "importance":
        w, _ = v.normalize_weights(w)
    sq = [max(_squared(np.ascontiguousarray(p[:, k]), y == k, w, n_bins, strategy,
                       weights == "frequency"), 0.0)
          for k in range(p.shape[1])]
    return float(np.sqrt(np.mean(sq)))
