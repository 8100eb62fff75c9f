"""Binned calibration: bin edges, reliability table, ECE_p, MCE and signed ECE.

Every function takes a ``score`` in [0, 1] and a binary ``outcome``: either the
top-label confidence and the 0/1 correctness (confidence calibration), or the
positive-class probability and ``1[y == positive class]`` (positive-class view).
Scores are grouped into ``n_bins`` bins (Guo et al. 2017, section 2; Naeini et al.
2015) and each bin compares its mean score ``conf(B_m)`` with its mean outcome
``acc(B_m)``.

Bin conventions
---------------
``strategy="uniform"``
    Equal-width bins ``B_m = ((m-1)/M, m/M]`` with a score of exactly 0 in the
    first bin (the convention of scikit-learn's ``calibration_curve`` and of Guo
    et al.).  Edges are computed as ``m / M`` so that a score equal to the float
    nearest ``m / M`` always lands in bin ``m`` (``np.linspace`` edges can miss it
    by one unit in the last place).
``strategy="quantile"``
    Equal-mass bins whose edges are the linear-interpolation (type 7) quantiles of
    the scores, as ``np.percentile`` and scikit-learn.  A bin holds the scores in
    ``(lower, upper]``, so tied scores always share a bin; heavy ties merge
    quantiles and leave some bins empty.

Results always have one entry per bin, ``n_bins`` in all; empty bins hold NaN
statistics.  The bin count and strategy are fields of :class:`ReliabilityTable`
and explicit arguments of the scalar functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from calreport import _validate as v
from calreport.metrics._bins import (
    STRATEGIES,
    Strategy,
    _assign,
    _bin_means,
    _bin_sums,
    _edges,
    _kish,
    _prepare,
    _scale_weights,
)

__all__ = [
    "STRATEGIES",
    "ReliabilityTable",
    "assign_bins",
    "bin_edges",
    "ece",
    "mce",
    "reliability_table",
    "signed_ece",
]



def bin_edges(
    score: Any,
    *,
    n_bins: int = 15,
    strategy: Strategy = "uniform",
    sample_weight: Any = None,
) -> np.ndarray:
    """Edges of the calibration bins, ``n_bins + 1`` non-decreasing values.

    Parameters
    ----------
    score : array-like of float, shape (N,)
        Scores in [0, 1] (top-label confidence or positive-class probability).
    n_bins : int, default 15
        Number of bins ``M``.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width bins on [0, 1] or equal-mass bins of the scores.
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights; only the quantile strategy uses them (equal
        weight per bin).  Rows of zero weight are ignored.

    Returns
    -------
    ndarray of float64, shape (n_bins + 1,)
        Bin ``m`` (0-based) holds the scores in ``(edges[m], edges[m + 1]]``; the
        first bin also holds ``edges[0]`` and anything below it, the last bin
        anything above ``edges[-1]`` (see :func:`assign_bins`).

    Raises
    ------
    ValueError, TypeError
        On invalid scores, weights, ``n_bins`` or ``strategy``.

    Notes
    -----
    Uniform: ``edges[m] = m / M`` (Guo et al. 2017, section 2,
    ``B_m = ((m-1)/M, m/M]``).  Quantile (equal-mass or adaptive binning, Nixon et al.
    2019): the
    type-7 quantiles ``x_(k) + g (x_(k+1) - x_(k))`` with ``k + g = q (N - 1)``,
    ``q = m / M`` -- the edges of ``np.percentile`` and of scikit-learn's
    ``calibration_curve(strategy="quantile")``.  With sample weights each row
    counts as ``w_i`` repeated rows (``N`` becomes the total weight); when the
    mean positive weight ``w_bar`` is below 1 the unit row weight in ``N - 1`` is
    replaced by ``w_bar`` so that normalised weights still give spread-out edges.
    The outer edges are the smallest and largest score of positive weight.  An
    interpolated edge is kept strictly below the next score, so bin membership
    follows the sorted positions exactly.  Heavy ties give repeated edges, hence
    empty bins: the number of non-empty bins can be below ``n_bins``.

    References
    ----------
    .. [1] Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On Calibration
       of Modern Neural Networks. Proceedings of the 34th International Conference
       on Machine Learning (ICML), PMLR 70, 1321-1330. arXiv:1706.04599. section 2.
    .. [2] Nixon, J., Dusenberry, M. W., Zhang, L., Jerfel, G. & Tran, D. (2019).
       Measuring Calibration in Deep Learning. CVPR Workshops. arXiv:1904.01685.

    Examples
    --------
    >>> bin_edges([0.1, 0.9], n_bins=4)
    array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    >>> bin_edges([0.1, 0.2, 0.3, 0.9, 0.9], n_bins=2, strategy="quantile")
    array([0.1, 0.3, 0.9])
    """
    n_bins = v.check_n_bins(n_bins)
    v.check_option(strategy, "strategy", STRATEGIES)
    s = v.check_probability(score, "score")
    w = v.check_sample_weight(sample_weight, s.shape[0])
    w, exponent = _scale_weights(w)
    return _edges(s, w, n_bins, strategy, exponent)


def assign_bins(score: Any, edges: Any) -> np.ndarray:
    """Bin index (0-based) of every score for the given edges.

    Parameters
    ----------
    score : array-like of float, shape (N,)
        Scores in [0, 1].
    edges : array-like of float, shape (M + 1,)
        Non-decreasing bin edges, e.g. from :func:`bin_edges`.

    Returns
    -------
    ndarray of int64, shape (N,)
        Values in ``0 .. M - 1``.

    Raises
    ------
    ValueError, TypeError
        On invalid scores or edges (fewer than two, or decreasing).

    Notes
    -----
    Bins are right-closed, ``(edges[m], edges[m + 1]]`` (Guo et al. 2017,
    section 2), found by a binary search of the interior edges
    (``searchsorted(edges[1:-1], score, side="left")``, as scikit-learn): a score
    equal to an interior edge belongs to the lower bin, and scores at or below
    ``edges[1]`` -- 0 included -- to the first bin.  Scores outside
    ``[edges[0], edges[-1]]`` (quantile edges of another sample) go to the first
    or last bin.  Equal scores always share a bin.

    References
    ----------
    .. [1] Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On Calibration
       of Modern Neural Networks. Proceedings of the 34th International Conference
       on Machine Learning (ICML), PMLR 70, 1321-1330. arXiv:1706.04599. section 2.

    Examples
    --------
    >>> assign_bins([0.0, 0.25, 0.3, 1.0], [0.0, 0.25, 0.5, 0.75, 1.0])
    array([0, 0, 1, 3])
    """
    s = v.check_probability(score, "score")
    e = v.check_bin_edges(edges)
    return _assign(s, e)


# ------------------------------------------------------------------ reliability table
@dataclass(frozen=True, eq=False)
class ReliabilityTable:
    """Per-bin statistics of a reliability diagram, one entry per bin.

    All arrays have length ``n_bins``; empty bins have ``count == 0`` and NaN
    statistics.  Arrays are read-only.

    Attributes
    ----------
    lower, upper : ndarray of float64
        Bin edges; bin ``m`` holds the scores in ``(lower[m], upper[m]]`` (the first
        bin also holds ``lower[0]``).
    count : ndarray of int64
        Number of rows in the bin (rows of zero weight are not counted).
    weight_sum : ndarray of float64
        Sum of the sample weights in the bin (``count`` when unweighted).
    n_eff : ndarray of float64
        Kish effective sample size ``(sum w)^2 / sum w^2`` (``count`` when
        unweighted); used by the interval.
    mean_score : ndarray of float64
        ``conf(B_m)``, the weighted mean score.
    mean_outcome : ndarray of float64
        ``acc(B_m)``, the weighted mean outcome (accuracy in the top-label view).
    gap : ndarray of float64
        ``mean_outcome - mean_score``: negative = overconfident (bin below the
        diagonal), positive = underconfident.
    ci_low, ci_high : ndarray of float64
        Wilson score interval for ``mean_outcome`` at level ``1 - alpha``.
    strategy : str
        ``"uniform"`` or ``"quantile"``.
    n_bins : int
        Number of bins.
    alpha : float
        One minus the confidence level of the interval.
    """

    lower: np.ndarray
    upper: np.ndarray
    count: np.ndarray
    weight_sum: np.ndarray
    n_eff: np.ndarray
    mean_score: np.ndarray
    mean_outcome: np.ndarray
    gap: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    strategy: str
    n_bins: int
    alpha: float = 0.05

    def __post_init__(self) -> None:
        for name in ("lower", "upper", "count", "weight_sum", "n_eff", "mean_score",
                     "mean_outcome", "gap", "ci_low", "ci_high"):
            getattr(self, name).flags.writeable = False


def _wilson(acc: np.ndarray, n: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for proportions ``acc`` observed on ``n`` trials."""
    z = float(special.ndtri(1.0 - alpha / 2.0))
    ok = n > 0
    nn = np.where(ok, n, 1.0)
    p = np.where(ok, acc, 0.5)
    z2n = z * z / nn
    denom = 1.0 + z2n
    center = (p + z2n / 2.0) / denom
    half = z * np.sqrt(p * (1.0 - p) / nn + z2n / (4.0 * nn)) / denom
    low = np.where(ok, np.clip(center - half, 0.0, 1.0), np.nan)
    high = np.where(ok, np.clip(center + half, 0.0, 1.0), np.nan)
    return low, high


def reliability_table(
    score: Any,
    outcome: Any,
    *,
    n_bins: int = 15,
    strategy: Strategy = "uniform",
    sample_weight: Any = None,
    alpha: float = 0.05,
) -> ReliabilityTable:
    """Reliability table: per-bin count, mean score, mean outcome, gap and interval.

    Parameters
    ----------
    score : array-like of float, shape (N,)
        Scores in [0, 1]: top-label confidence, or positive-class probability.
    outcome : array-like of {0, 1} or bool, shape (N,)
        Correctness (top-label view) or ``1[y == positive class]``.
    n_bins : int, default 15
        Number of bins.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width or equal-mass bins (see :func:`bin_edges`).
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights.
    alpha : float, default 0.05
        The Wilson intervals have level ``1 - alpha``.

    Returns
    -------
    ReliabilityTable
        Arrays of length ``n_bins`` plus the ``strategy``, ``n_bins`` and ``alpha``
        used.

    Raises
    ------
    ValueError, TypeError
        On invalid scores, outcomes, weights or options.

    Notes
    -----
    Guo et al. (2017), section 2: ``acc(B_m) = (1/|B_m|) sum 1[y_hat = y]``,
    ``conf(B_m) = (1/|B_m|) sum p_hat``, signed gap ``acc(B_m) - conf(B_m)`` (bins
    below the diagonal, gap < 0, are overconfident).  With weights both means are
    weighted.  The Wilson score interval for ``acc`` uses
    ``z = Phi^{-1}(1 - alpha/2)``::

        (acc + z^2/(2n) -+ z sqrt(acc (1 - acc)/n + z^2/(4n^2))) / (1 + z^2/n)

    with ``n`` the bin's row count, or with weights its Kish effective sample size
    ``(sum w)^2 / sum w^2`` (Kish 1965; so rescaling the weights leaves the interval
    unchanged, and integer weights are *not* read as repeated rows here).  Show the
    bin counts next to the diagram.

    References
    ----------
    .. [1] Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On Calibration
       of Modern Neural Networks. Proceedings of the 34th International Conference
       on Machine Learning (ICML), PMLR 70, 1321-1330. arXiv:1706.04599. section 2.
    .. [2] Wilson, E. B. (1927). Probable Inference, the Law of Succession, and
       Statistical Inference. Journal of the American Statistical Association
       22(158), 209-212. doi:10.1080/01621459.1927.10502953.
    .. [3] Kish, L. (1965). Survey Sampling. John Wiley & Sons, New York.

    Examples
    --------
    >>> t = reliability_table([0.0, 0.25, 0.25, 0.5, 0.6, 0.75, 1.0, 1.0],
    ...                       [0, 1, 0, 1, 1, 0, 1, 0], n_bins=4)
    >>> t.count
    array([3, 1, 2, 2])
    >>> t.gap.round(4)
    array([ 0.1667,  0.5   , -0.175 , -0.5   ])
    """
    s, y, w, n_bins = _prepare(score, outcome, sample_weight, n_bins, strategy)
    a = v.check_fraction(alpha, "alpha", include_one=False)
    sums = _bin_sums(s, y, w, n_bins, strategy)
    conf, acc, _ = _bin_means(sums)
    n_eff = _kish(sums)
    low, high = _wilson(acc, n_eff, a)
    with np.errstate(over="ignore"):  # a weight sum beyond 1.8e308 is reported as inf
        weight_sum = np.ldexp(sums.weight, sums.exponent)
    return ReliabilityTable(
        lower=sums.edges[:-1].copy(),
        upper=sums.edges[1:].copy(),
        count=sums.count,
        weight_sum=weight_sum,
        n_eff=n_eff,
        mean_score=conf,
        mean_outcome=acc,
        gap=acc - conf,
        ci_low=low,
        ci_high=high,
        strategy=strategy,
        n_bins=n_bins,
        alpha=a,
    )


# ------------------------------------------------------------------- scalar metrics
def ece(
    score: Any,
    outcome: Any,
    *,
    n_bins: int = 15,
    strategy: Strategy = "uniform",
    p: float = 1,
    sample_weight: Any = None,
) -> float:
    """Expected calibration error ``ECE_p`` of the binned estimator.

    Parameters
    ----------
    score : array-like of float, shape (N,)
        Scores in [0, 1]: top-label confidence, or positive-class probability.
    outcome : array-like of {0, 1} or bool, shape (N,)
        Correctness, or ``1[y == positive class]``.
    n_bins : int, default 15
        Number of bins.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width or equal-mass bins (see :func:`bin_edges`).
    p : float, default 1
        Order of the norm, ``p >= 1`` (``p = 2`` is the root of the binned
        reliability term of the Brier score).
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights: ``|B_m|`` and ``N`` become weight sums.

    Returns
    -------
    float
        ``ECE_p`` in [0, 1].

    Raises
    ------
    ValueError, TypeError
        On invalid inputs or options.

    Notes
    -----
    Naeini et al. (2015); Guo et al. (2017), section 2; the ``l_p`` form as in
    Kumar et al. (2019):
    ``ECE_p = (sum_m |B_m|/N |acc(B_m) - conf(B_m)|^p)^(1/p)``; empty bins add
    nothing.  The value depends on the bin count and strategy (Nixon et al. 2019;
    Kumar et al. 2019): report them with it.  ``ECE_p`` is not monotone in ``p`` in
    general.  When every bin is overconfident (or every bin underconfident), ``ECE_1`` equals
    ``|mean(score) - mean(outcome)|`` whatever the binning.

    References
    ----------
    .. [1] Naeini, M. P., Cooper, G. F. & Hauskrecht, M. (2015). Obtaining Well
       Calibrated Probabilities Using Bayesian Binning. Proceedings of the AAAI
       Conference on Artificial Intelligence 29, 2901-2907.
       doi:10.1609/aaai.v29i1.9602.
    .. [2] Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On Calibration
       of Modern Neural Networks. Proceedings of the 34th International Conference
       on Machine Learning (ICML), PMLR 70, 1321-1330. arXiv:1706.04599. section 2.
    .. [3] Kumar, A., Liang, P. & Ma, T. (2019). Verified Uncertainty Calibration.
       Advances in Neural Information Processing Systems 32 (NeurIPS).
       arXiv:1909.10155.

    Examples
    --------
    >>> ece([0.0, 0.25, 0.25, 0.5, 0.6, 0.75, 1.0, 1.0], [0, 1, 0, 1, 1, 0, 1, 0],
    ...     n_bins=4)
    0.29375
    """
    s, y, w, n_bins = _prepare(score, outcome, sample_weight, n_bins, strategy)
    order = v.check_positive_number(p, "p", minimum=1.0, inclusive=True)
    sums = _bin_sums(s, y, w, n_bins, strategy)
    diff = np.abs(sums.outcome - sums.score)
    if order == 1.0:
        return float(diff.sum() / sums.total)
    full = sums.weight > 0
    gap = diff[full] / sums.weight[full]
    return float((np.dot(sums.weight[full], gap**order) / sums.total) ** (1.0 / order))


def mce(
    score: Any,
    outcome: Any,
    *,
    n_bins: int = 15,
    strategy: Strategy = "uniform",
    min_count: int = 1,
    sample_weight: Any = None,
) -> float:
    """Maximum calibration error over the bins holding at least ``min_count`` rows.

    Parameters
    ----------
    score : array-like of float, shape (N,)
        Scores in [0, 1]: top-label confidence, or positive-class probability.
    outcome : array-like of {0, 1} or bool, shape (N,)
        Correctness, or ``1[y == positive class]``.
    n_bins : int, default 15
        Number of bins.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width or equal-mass bins (see :func:`bin_edges`).
    min_count : int, default 1
        Minimum occupancy of a bin to enter the maximum (1 = every non-empty bin).
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights.

    Returns
    -------
    float
        ``max_m |acc(B_m) - conf(B_m)|`` over the qualifying bins; NaN when no bin
        qualifies.

    Raises
    ------
    ValueError, TypeError
        On invalid inputs or options.

    Notes
    -----
    Naeini et al. (2015); Guo et al. (2017), section 2:
    ``MCE = max_m |acc(B_m) - conf(B_m)|``.  The maximum can be restricted to bins
    above a minimum occupancy because sparse bins give noisy accuracies.  The occupancy of a bin is
    its row count, or with weights its Kish effective sample size
    ``(sum w)^2 / sum w^2``, the same ``n`` as the Wilson interval of
    :func:`reliability_table` (so with ``min_count > 1`` integer weights are not
    read as repeated rows).

    References
    ----------
    .. [1] Naeini, M. P., Cooper, G. F. & Hauskrecht, M. (2015). Obtaining Well
       Calibrated Probabilities Using Bayesian Binning. Proceedings of the AAAI
       Conference on Artificial Intelligence 29, 2901-2907.
       doi:10.1609/aaai.v29i1.9602.
    .. [2] Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On Calibration
       of Modern Neural Networks. Proceedings of the 34th International Conference
       on Machine Learning (ICML), PMLR 70, 1321-1330. arXiv:1706.04599. section 2.
    .. [3] Kish, L. (1965). Survey Sampling. John Wiley & Sons, New York.

    Examples
    --------
    >>> p = [0.0, 0.25, 0.25, 0.5, 0.6, 0.75, 1.0, 1.0]
    >>> y = [0, 1, 0, 1, 1, 0, 1, 0]
    >>> mce(p, y, n_bins=4)
    0.5
    >>> round(mce(p, y, n_bins=4, min_count=3), 6)
    0.166667
    """
    s, y, w, n_bins = _prepare(score, outcome, sample_weight, n_bins, strategy)
    k = v.check_positive_int(min_count, "min_count", minimum=1)
    sums = _bin_sums(s, y, w, n_bins, strategy)
    conf, acc, full = _bin_means(sums)
    # a tiny tolerance: Kish's ratio of float sums can land one ulp below an integer
    ok = full & (_kish(sums) >= k * (1.0 - 1e-12))
    if not ok.any():
        return float("nan")
    return float(np.max(np.abs(acc[ok] - conf[ok])))


def signed_ece(
    score: Any,
    outcome: Any,
    *,
    n_bins: int = 15,
    strategy: Strategy = "uniform",
    sample_weight: Any = None,
) -> float:
    """Signed ECE ``sum_m |B_m|/N (conf(B_m) - acc(B_m))``: positive = overconfident.

    Parameters
    ----------
    score : array-like of float, shape (N,)
        Scores in [0, 1]: top-label confidence, or positive-class probability.
    outcome : array-like of {0, 1} or bool, shape (N,)
        Correctness, or ``1[y == positive class]``.
    n_bins : int, default 15
        Number of bins.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width or equal-mass bins (see :func:`bin_edges`).
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights.

    Returns
    -------
    float
        In [-1, 1]; > 0 when the scores overstate the outcomes on average
        (overconfidence), < 0 for underconfidence.

    Raises
    ------
    ValueError, TypeError
        On invalid inputs or options.

    Notes
    -----
    The signed counterpart of the ECE of Guo et al. (2017), section 2: the bin gaps
    ``conf(B_m) - acc(B_m)`` (the negative of the table's ``gap``)
    averaged with weights ``|B_m|/N``.  Because the weights are the bin sizes the
    sum telescopes to ``mean(score) - mean(outcome)`` for *every* binning; the
    binning arguments are validated and kept for a signature common with
    :func:`ece`.  ``|signed_ece| <= ece``, with equality exactly when all bins err in
    the same direction.

    References
    ----------
    .. [1] Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On Calibration
       of Modern Neural Networks. Proceedings of the 34th International Conference
       on Machine Learning (ICML), PMLR 70, 1321-1330. arXiv:1706.04599. section 2.

    Examples
    --------
    >>> round(signed_ece([0.0, 0.25, 0.25, 0.5, 0.6, 0.75, 1.0, 1.0],
    ...                  [0, 1, 0, 1, 1, 0, 1, 0], n_bins=4), 6)
    0.04375
    """
    s, y, w, n_bins = _prepare(score, outcome, sample_weight, n_bins, strategy)
    sums = _bin_sums(s, y, w, n_bins, strategy)
    return float((sums.score - sums.outcome).sum() / sums.total)
