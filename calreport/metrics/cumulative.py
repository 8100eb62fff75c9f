"""Binning-free calibration tests on cumulative differences (ECCE, Kolmogorov-Smirnov, Kuiper).

Order the rows by score and accumulate the differences ``outcome - score``. Under
calibration (``outcome ~ Bernoulli(score)`` independently) the accumulated sum is a
martingale; divided by its standard deviation at the end it behaves, for many rows
without dominating ones, like a standard Brownian motion ``B`` on [0, 1]. Two
statistics read its path:

* Kolmogorov-Smirnov: ``max_k |C_k| / sigma``, compared with ``max |B|``;
* Kuiper: ``(max_k C_k - min_k C_k) / sigma`` with ``C_0 = 0``, compared with the
  range of ``B``.

Their tail probabilities are computed from the exact series of the two Brownian
distributions (no Monte Carlo). The tests need no bins and no bandwidth.

Ties and weights
----------------
Rows with the same score are one step of the path: their differences are added
together before accumulating, so the statistic does not depend on the order of
tied rows (MAPIE jitters tied scores with seeded noise instead). A coarser path
can only lower the maximum and the range, so ties make the tests more conservative,
never liberal.

With sample weights each row adds ``w_i (y_i - s_i)``. The variance of the final sum
under calibration is ``sum w_i^2 s_i (1 - s_i)`` for importance weights (each row
observed once, weighted) and ``sum w_i s_i (1 - s_i)`` for frequency weights (``w_i``
copies of the row, the same as repeating it). A few heavy rows make the path jump;
the maximum over fewer, larger steps is again smaller than the Brownian maximum, so
the reference distribution stays conservative.

Measured size at α = 5 % (``benchmarks/calibration_tests_size.py``, 1,000 runs a
cell, binary and 10-class top label, n = 100, 1,000 and 10,000, unweighted and
with lognormal importance weights): Kolmogorov-Smirnov 2.9-5.6 %, Kuiper 1.9-5.5 %,
within the target of 6 % in every cell; weighted samples of 100 to 1,000 rows are
conservative (2-4 %).

Multiclass models are tested through their top-label view (confidence of the
predicted class against correctness): this tests top-label calibration only, not
the calibration of every class probability.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from calreport import _labels as lab
from calreport import _validate as v

__all__ = [
    "CumulativeTestResult",
    "brownian_max_abs_sf",
    "brownian_range_sf",
    "cumulative_differences",
    "ecce_test",
]

# series terms: the k-th term of either series is below 1e-300 long before k = 60
_TERMS = np.arange(1, 61, dtype=np.float64)


def _inputs(score: Any, outcome: Any, sample_weight: Any, weights: str
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    v.check_option(weights, "weights", v.WEIGHT_KINDS)
    p = v.check_probability(score, "score")
    y = lab.check_binary_indicator(outcome, "outcome")
    v.check_consistent_length(score=p.size, outcome=y.size)
    v.check_nonempty(p.size, "score")
    w = v.check_sample_weight(sample_weight, p.size, kind=weights)
    return p, y.astype(np.float64), w


# ------------------------------------------------------------- Brownian tail series


def brownian_max_abs_sf(x: float) -> float:
    """``P(max_{0<=t<=1} |B(t)| >= x)`` for a standard Brownian motion ``B``.

    Parameters
    ----------
    x : float
        Threshold (the Kolmogorov-Smirnov statistic of :func:`ecce_test`).

    Returns
    -------
    float
        The tail probability, 1 for ``x <= 0``.

    Notes
    -----
    For ``x >= 1`` the reflection series (Feller 1971, section X.5)

    .. math:: P(\\max|B| \\ge x) = 4 \\sum_{k \\ge 1} (-1)^{k-1} \\bar\\Phi((2k - 1) x),

    evaluated with the normal survival function, exact in the far tail; below 1 the
    theta series of the distribution function (Darling & Siegert 1953, as in Tygert
    2022, section 2)

    .. math:: P(\\max|B| < x) = \\frac{4}{\\pi} \\sum_{k \\ge 0} \\frac{(-1)^k}{2k + 1}
              \\exp\\left(-\\frac{(2k + 1)^2 \\pi^2}{8 x^2}\\right),

    whose terms then decay fastest. Both are truncated at 60 terms, far past double
    precision on either side of the switch.

    References
    ----------
    .. [1] Tygert, M. (2022). Calibration of P-values for calibration and for deviation
       of a subpopulation from the full population. arXiv:2202.00100.

    Examples
    --------
    The 5 % critical value of ``max |B|`` is about 2.2414:

    >>> round(brownian_max_abs_sf(2.2414), 4)
    0.05
    """
    x = float(x)
    if not x > 0:
        return 1.0
    if x >= 1.0:
        odd = 2.0 * _TERMS - 1.0
        signs = np.where(_TERMS % 2 == 1, 1.0, -1.0)
        return float(min(1.0, 4.0 * np.sum(signs * special.ndtr(-odd * x))))
    odd = 2.0 * _TERMS - 1.0  # 1, 3, 5...
    signs = np.where(_TERMS % 2 == 1, 1.0, -1.0)
    cdf = 4.0 / math.pi * np.sum(signs / odd * np.exp(-(odd * math.pi) ** 2 / (8.0 * x * x)))
    return float(min(1.0, max(0.0, 1.0 - cdf)))


def brownian_range_sf(x: float) -> float:
    """``P(max B - min B >= x)`` over [0, 1] for a standard Brownian motion ``B``.

    Parameters
    ----------
    x : float
        Threshold (the Kuiper statistic of :func:`ecce_test`).

    Returns
    -------
    float
        The tail probability, 1 for ``x <= 0``.

    Notes
    -----
    Feller's (1951) density of the range, ``8 sum_k (-1)^(k-1) k^2 phi(k r)``,
    integrated term by term gives, for ``x >= 1``,

    .. math:: P(R \\ge x) = 8 \\sum_{k \\ge 1} (-1)^{k-1} k \\bar\\Phi(k x);

    below 1 the theta series of the distribution function (Tygert 2022, section 2)

    .. math:: P(R < x) = \\sum_{k \\ge 0} \\left(\\frac{8}{x^2}
              + \\frac{2}{(k + 1/2)^2 \\pi^2}\\right)
              \\exp\\left(-\\frac{2 (k + 1/2)^2 \\pi^2}{x^2}\\right).

    References
    ----------
    .. [1] Feller, W. (1951). The asymptotic distribution of the range of sums of
       independent random variables. Annals of Mathematical Statistics 22(3), 427-432.
       doi:10.1214/aoms/1177729589.
    .. [2] Tygert, M. (2022). arXiv:2202.00100.

    Examples
    --------
    ``E R = 2 sqrt(2 / pi)``; at ``x = 1`` the two series agree:

    >>> round(brownian_range_sf(1.0), 4)
    0.9366
    """
    x = float(x)
    if not x > 0:
        return 1.0
    if x >= 1.0:
        signs = np.where(_TERMS % 2 == 1, 1.0, -1.0)
        return float(min(1.0, 8.0 * np.sum(signs * _TERMS * special.ndtr(-_TERMS * x))))
    half = _TERMS - 0.5  # k + 1/2 for k = 0, 1, ...
    cdf = np.sum((8.0 / (x * x) + 2.0 / (half * math.pi) ** 2)
                 * np.exp(-2.0 * (half * math.pi) ** 2 / (x * x)))
    return float(min(1.0, max(0.0, 1.0 - cdf)))


# ------------------------------------------------------------------- the statistics


def _path(p: np.ndarray, y: np.ndarray, w: np.ndarray | None, weights: str
          ) -> tuple[np.ndarray, np.ndarray, float]:
    """:func:`cumulative_differences` on validated arrays."""
    if w is not None:
        keep = w > 0
        p, y, w = p[keep], y[keep], w[keep]
    wt = np.ones_like(p) if w is None else w
    order = np.argsort(p, kind="stable")
    p, y, wt = p[order], y[order], wt[order]
    first = np.flatnonzero(np.r_[True, p[1:] != p[:-1]])
    steps = np.add.reduceat(wt * (y - p), first)
    var_w = wt * wt if weights == "importance" else wt
    sigma = math.sqrt(float(np.sum(var_w * p * (1.0 - p))))
    return p[first], np.concatenate(([0.0], np.cumsum(steps))), sigma


def cumulative_differences(score: Any, outcome: Any, *, sample_weight: Any = None,
                           weights: str = "frequency"
                           ) -> tuple[np.ndarray, np.ndarray, float]:
    """Cumulative weighted differences ``outcome - score`` in order of score.

    Parameters
    ----------
    score : array-like of shape (n,)
        Predicted probability of the event, in [0, 1].
    outcome : array-like of shape (n,)
        Observed 0/1 outcome.
    sample_weight : array-like of shape (n,), optional
        Row weights.
    weights : {"frequency", "importance"}, default "frequency"
        Meaning of ``sample_weight`` (see the module docstring); it changes only
        the variance.

    Returns
    -------
    scores : ndarray of shape (k,)
        The distinct scores, ascending (rows of zero weight dropped).
    cumulative : ndarray of shape (k + 1,)
        ``C_0 = 0`` and ``C_j``, the sum of ``w (y - s)`` over the rows whose score
        is at most ``scores[j - 1]``: tied scores make one step.
    sigma : float
        The standard deviation of ``C_k`` under calibration.

    Examples
    --------
    Scores 0.3, 0.6, 0.7 with outcomes 0, 0, 1 give steps -0.3, -0.6, +0.3:

    >>> s, c, sigma = cumulative_differences([0.7, 0.3, 0.6], [1, 0, 0])
    >>> [round(float(t), 6) for t in c]
    [0.0, -0.3, -0.9, -0.6]
    >>> round(sigma ** 2, 6)  # 0.21 + 0.24 + 0.21
    0.66
    """
    p, y, w = _inputs(score, outcome, sample_weight, weights)
    return _path(p, y, w, weights)


@dataclass(frozen=True)
class CumulativeTestResult:
    """Result of :func:`ecce_test`.

    Attributes
    ----------
    ks_statistic : float
        ``max_k |C_k| / sigma`` (MAPIE's ``kolmogorov_smirnov_statistic``).
    ks_pvalue : float
        ``P(max |B| >= ks_statistic)``.
    kuiper_statistic : float
        ``(max_k C_k - min_k C_k) / sigma``, ``C_0 = 0`` included.
    kuiper_pvalue : float
        ``P(range of B >= kuiper_statistic)``.
    ecce_mad : float
        ``max_k |C_k| / W`` (``W`` the total weight; the number of rows unweighted):
        the paper's ECCE-MAD, in units of probability.
    ecce_range : float
        ``(max_k C_k - min_k C_k) / W``: ECCE-R.
    sigma : float
        ``sigma / W``, the standard deviation of ``C_k / W`` under calibration: an
        ECCE well above a few of these is significant.
    n_steps : int
        Number of distinct scores (steps of the path).
    """

    ks_statistic: float
    ks_pvalue: float
    kuiper_statistic: float
    kuiper_pvalue: float
    ecce_mad: float
    ecce_range: float
    sigma: float
    n_steps: int


def ecce_test(score: Any, outcome: Any, *, sample_weight: Any = None,
              weights: str = "frequency") -> CumulativeTestResult:
    """Kolmogorov-Smirnov and Kuiper tests of calibration on cumulative differences.

    Parameters
    ----------
    score : array-like of shape (n,)
        Predicted probability of the event, in [0, 1] (a top-label confidence for a
        multiclass model: the test is then of top-label calibration only).
    outcome : array-like of shape (n,)
        Observed 0/1 outcome (correctness for the top-label view).
    sample_weight : array-like of shape (n,), optional
        Row weights; zero weights drop rows.
    weights : {"frequency", "importance"}, default "frequency"
        Meaning of ``sample_weight``: counts (equal to repeating rows) or relative
        importance weights (the statistics are then invariant to their scale).

    Returns
    -------
    CumulativeTestResult
        Statistics, p-values, ECCE-MAD and ECCE-R; the statistics and p-values are
        NaN (the ECCEs stay defined) when every score is 0 or 1, where the sum has
        no variance.

    Raises
    ------
    ValueError
        Scores outside [0, 1], non-binary outcomes, different lengths, bad weights.

    Notes
    -----
    With rows sorted by score ``s``, tied scores merged, and
    ``C_k = sum_{j <= k} w_j (y_j - s_j)``, ``C_0 = 0``:

    .. math:: KS = \\frac{\\max_k |C_k|}{\\sigma}, \\quad
              Kuiper = \\frac{\\max_k C_k - \\min_k C_k}{\\sigma}, \\quad
              \\sigma^2 = \\sum_j w_j^2 s_j (1 - s_j)

    (``w_j`` instead of ``w_j^2`` for frequency weights). The p-values are the tails
    of ``max |B|`` and of the range of ``B`` (:func:`brownian_max_abs_sf`,
    :func:`brownian_range_sf`): asymptotic, and conservative for a coarse path.
    With distinct scores the KS statistic equals MAPIE's (``mapie.metrics.calibration``)
    up to its jitter; MAPIE's Kuiper range omits ``C_0 = 0`` and so differs when
    every ``C_k`` has the same sign.

    References
    ----------
    .. [1] Arrieta-Ibarra, I., Gujral, P., Tannen, J., Tygert, M. & Xu, C. (2022).
       Metrics of calibration for probabilistic predictions. Journal of Machine
       Learning Research 23(351), 1-54. arXiv:2205.09680. Section 2.
    .. [2] Tygert, M. (2022). Calibration of P-values for calibration and for
       deviation of a subpopulation from the full population. arXiv:2202.00100.

    Examples
    --------
    >>> r = ecce_test([0.7, 0.3, 0.6], [1, 0, 0])
    >>> round(r.ks_statistic, 6)  # 0.9 / sqrt(0.66)
    1.107823
    >>> round(r.ecce_mad, 6)  # 0.9 / 3
    0.3
    """
    p, y, w = _inputs(score, outcome, sample_weight, weights)
    _, c, sigma = _path(p, y, w, weights)
    total = float(p.size if w is None else np.sum(w))
    mad = float(np.max(np.abs(c)))
    rng = float(np.max(c) - np.min(c))
    if not sigma > 0:
        nan = math.nan
        return CumulativeTestResult(nan, nan, nan, nan, mad / total, rng / total, 0.0,
                                    c.size - 1)
    ks, ku = mad / sigma, rng / sigma
    return CumulativeTestResult(ks, brownian_max_abs_sf(ks), ku, brownian_range_sf(ku),
                                mad / total, rng / total, sigma / total, c.size - 1)
