"""Clinical calibration tests: Hosmer-Lemeshow, Spiegelhalter's Z, Cox intercept/slope.

These are the tests medical reviewers expect (the FDA's calzone tool reports all
three). They take a predicted probability ``score`` and a binary ``outcome``
(positive-class view), or a top-label confidence and correctness. Sample weights
are frequency weights: integer weights give the same result as repeated rows.

Differences from calzone 0.1.0 (PyPI ``calzone-tool``, github.com/DIDSR/calzone,
``calzone/metrics.py``), all deliberate:

* Hosmer-Lemeshow groups are ``(lo, hi]`` with the lowest score *included* in the
  first group (R's ``cut(..., include.lowest = TRUE)`` in
  ``ResourceSelection::hoslem.test``, and scikit-learn). calzone's equal-count bins
  exclude the rows at the minimum score, and it bins top-label confidences, which
  are >= 0.5, into 10 equal-width bins of [0, 1], leaving half of them empty.
* p-values use the survival function (``chi2.sf``, ``norm.sf``) rather than
  ``1 - cdf``: identical to ~1e-16 but exact in the far tail.
* Cox calibration also reports the calibration-in-the-large intercept (slope fixed
  at 1) and Wald tests of ``intercept = 0`` and ``slope = 1``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from scipy import stats

from calreport import _labels as lab
from calreport import _validate as v

__all__ = [
    "CoxResult",
    "HosmerLemeshowResult",
    "SpiegelhalterResult",
    "cox_calibration",
    "hl_statistic",
    "hosmer_lemeshow",
    "spiegelhalter_z",
]

#: Group strategies of the Hosmer-Lemeshow test.
STRATEGIES = ("quantile", "uniform")
# calzone clips the per-group event rate and mean score to [eps, 1 - eps]
_HL_EPS = 1e-7


def _inputs(
    score: Any, outcome: Any, sample_weight: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    p = v.check_probability(score, "score")
    y = lab.check_binary_indicator(outcome, "outcome")
    v.check_consistent_length(score=p.size, outcome=y.size)
    w = v.check_sample_weight(sample_weight, p.size)
    return p, y.astype(np.float64), w


# ---------------------------------------------------------------------- Hosmer-Lemeshow


@dataclass(frozen=True, eq=False)
class HosmerLemeshowResult:
    """Result of :func:`hosmer_lemeshow`.

    Attributes
    ----------
    statistic : float
        HL chi-square statistic.
    df : int
        Degrees of freedom of the reference chi-square distribution.
    pvalue : float
        ``P(chi2_df >= statistic)``; NaN when ``df < 1``.
    table : dict of ndarray
        One entry per non-empty group: ``lower``, ``upper`` (group edges, the group
        is ``(lower, upper]``, the first one closed), ``count`` (rows or total
        weight), ``observed`` (events), ``expected`` (sum of scores),
        ``mean_score`` and ``event_rate``.
    n_groups : int
        Number of non-empty groups.
    strategy : str
        ``"quantile"`` or ``"uniform"``.
    """

    statistic: float
    df: int
    pvalue: float
    table: dict[str, np.ndarray]
    n_groups: int
    strategy: str


def _weighted_quantiles(s_sorted: np.ndarray, cumw: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Linear-interpolation quantiles (numpy's default, R type 7) of weighted data.

    With frequency weights this is ``np.quantile`` of the rows repeated ``w`` times:
    position ``h = (W - 1) q`` of the expanded sorted sample, whose element ``t``
    is the first row with cumulative weight ``> t``. Unit weights give
    ``np.quantile`` exactly; zero weights drop rows.
    """
    total = cumw[-1]
    h = np.maximum((total - 1.0) * q, 0.0)
    lo = np.floor(h)
    last = s_sorted.size - 1
    i_lo = np.minimum(np.searchsorted(cumw, lo, side="right"), last)
    i_hi = np.minimum(np.searchsorted(cumw, lo + 1.0, side="right"), last)
    return s_sorted[i_lo] + (h - lo) * (s_sorted[i_hi] - s_sorted[i_lo])



def hl_statistic(count: np.ndarray, observed: np.ndarray, expected: np.ndarray) -> float:
    """The Hosmer-Lemeshow statistic of non-empty groups' sums.

    ``count``, ``observed`` and ``expected`` are each group's weight, event weight and
    score weight (all groups non-empty).  The event rate and mean score are clipped to
    ``[1e-7, 1 - 1e-7]``, as calzone does, so a group with no events (or only events)
    adds a finite term.  One formula for :func:`hosmer_lemeshow` and the out-of-core
    statistic (:func:`calreport.stats.quantile.hosmer_lemeshow`).

    Examples
    --------
    >>> hl_statistic(np.array([5.0, 5.0]), np.array([2.0, 3.0]), np.array([1.0, 4.0]))
    2.5
    """
    rate = np.clip(observed / count, _HL_EPS, 1.0 - _HL_EPS)
    mean_score = np.clip(expected / count, _HL_EPS, 1.0 - _HL_EPS)
    o, e = rate * count, mean_score * count
    return float(np.sum((o - e) ** 2 / (e * (1.0 - mean_score))))


def hosmer_lemeshow(
    score: Any,
    outcome: Any,
    *,
    n_groups: int = 10,
    strategy: str = "quantile",
    df: int | None = None,
    sample_weight: Any = None,
) -> HosmerLemeshowResult:
    """Hosmer-Lemeshow goodness-of-fit test over groups of predicted risk.

    Parameters
    ----------
    score : array-like of shape (n,)
        Predicted probability of the event, in [0, 1].
    outcome : array-like of shape (n,)
        Observed 0/1 outcome.
    n_groups : int, default 10
        Number of groups before empty ones are dropped.
    strategy : {"quantile", "uniform"}, default "quantile"
        ``"quantile"``: "deciles of risk", edges at the score quantiles (linear
        interpolation, as R's ``quantile``/``hoslem.test`` and calzone's HL-C); ties
        stay in one group, duplicate edges leave empty groups. ``"uniform"``: edges
        ``linspace(0, 1, n_groups + 1)`` (calzone's HL-H).
    df : int, optional
        Degrees of freedom. Default: non-empty groups minus 2 (the classical
        development-sample choice); Hosmer et al. (2013) recommend the number of
        groups for external validation data.
    sample_weight : array-like of shape (n,), optional
        Frequency weights (quantile edges computed on the weighted sample).

    Returns
    -------
    HosmerLemeshowResult
        ``statistic``, ``df``, ``pvalue``, the per-group ``table``, ``n_groups``,
        ``strategy``.

    Raises
    ------
    ValueError
        Scores outside [0, 1], non-binary outcomes, different lengths, bad options.
    TypeError
        Non-numeric input.

    Notes
    -----
    Hosmer & Lemeshow (1980, doi:10.1080/03610928008827941), as computed by calzone
    0.1.0's ``hosmer_lemeshow_test``. Group ``m`` holds ``N_m`` rows (or weight),
    ``O_m`` events and expected events ``E_m = sum of scores``; with the event rate
    and mean score clipped to [1e-7, 1 - 1e-7] (so a group whose scores are all 0 or
    1 stays finite),

    .. math:: HL = \\sum_m (O_m - E_m)^2 / (E_m (1 - E_m / N_m)),

    which equals the two-column form ``sum (O1-E1)^2/E1 + (O0-E0)^2/E0``.
    ``p = P(chi2_df >= HL)``. When the default ``df`` is below 1 (two groups or
    fewer) the p-value is NaN with a RuntimeWarning. The table reports the
    unclipped counts.

    References
    ----------
    .. [1] Hosmer, D. W. & Lemeshow, S. (1980). Goodness of Fit Tests for the Multiple
       Logistic Regression Model. Communications in Statistics - Theory and Methods
       9(10), 1043-1069. doi:10.1080/03610928008827941.
    .. [2] calzone 0.1.0 (PyPI ``calzone-tool``), U.S. FDA Division of Imaging,
       Diagnostics and Software Reliability, github.com/DIDSR/calzone,
       ``calzone/metrics.py``: ``hosmer_lemeshow_test``.

    Examples
    --------
    Two groups: scores 0.2 (5 rows, 2 events) and 0.8 (5 rows, 3 events).
    E = 1 and 4, so HL = 1/(1 * 0.8) + 1/(4 * 0.2) = 2.5:

    >>> s = [0.2] * 5 + [0.8] * 5
    >>> y = [1, 1, 0, 0, 0, 1, 1, 1, 0, 0]
    >>> res = hosmer_lemeshow(s, y, n_groups=2, strategy="uniform", df=2)
    >>> round(res.statistic, 6), res.df, round(res.pvalue, 6)
    (2.5, 2, 0.286505)
    """
    p, y, w = _inputs(score, outcome, sample_weight)
    n_groups = v.check_positive_int(n_groups, "n_groups")
    v.check_option(strategy, "strategy", STRATEGIES)
    if df is not None:
        df = v.check_positive_int(df, "df")
    weights = np.ones_like(p) if w is None else w

    if strategy == "uniform":
        edges = np.linspace(0.0, 1.0, n_groups + 1)
    else:
        order = np.argsort(p, kind="stable")
        edges = _weighted_quantiles(p[order], np.cumsum(weights[order]),
                                    np.linspace(0.0, 1.0, n_groups + 1))
    # (lo, hi] groups, the lowest score in the first one
    group = np.searchsorted(edges[1:-1], p, side="left")
    count = np.bincount(group, weights=weights, minlength=n_groups)
    observed = np.bincount(group, weights=weights * y, minlength=n_groups)
    expected = np.bincount(group, weights=weights * p, minlength=n_groups)
    keep = count > 0
    count, observed, expected = count[keep], observed[keep], expected[keep]
    statistic = hl_statistic(count, observed, expected)
    m = int(keep.sum())
    dof = m - 2 if df is None else df
    if dof < 1:
        warnings.warn(
            f"Only {m} non-empty group(s): the default df = groups - 2 = {dof} leaves no "
            "reference distribution, so the p-value is NaN. Use more groups or pass df.",
            RuntimeWarning, stacklevel=2,
        )
        pvalue = math.nan
    else:
        pvalue = float(stats.chi2.sf(statistic, dof))
    table = {
        "lower": edges[:-1][keep].copy(),
        "upper": edges[1:][keep].copy(),
        "count": count,
        "observed": observed,
        "expected": expected,
        "mean_score": expected / count,
        "event_rate": observed / count,
    }
    return HosmerLemeshowResult(statistic=statistic, df=dof, pvalue=pvalue, table=table,
                                n_groups=m, strategy=strategy)


# ------------------------------------------------------------------------ Spiegelhalter


class SpiegelhalterResult(NamedTuple):
    """Result of :func:`spiegelhalter_z`: the statistic and its two-sided p-value."""

    z: float
    pvalue: float


def spiegelhalter_z(
    score: Any, outcome: Any, *, sample_weight: Any = None, weights: str = "frequency"
) -> SpiegelhalterResult:
    """Spiegelhalter's Z test of calibration, two-sided.

    Parameters
    ----------
    score : array-like of shape (n,)
        Predicted probability of the event, in [0, 1].
    outcome : array-like of shape (n,)
        Observed 0/1 outcome.
    sample_weight : array-like of shape (n,), optional
        Row weights.
    weights : {"frequency", "importance"}, default "frequency"
        Meaning of ``sample_weight``: counts (the variance sums ``w v``, equal to
        repeating rows) or relative importance weights (the variance of the weighted
        numerator, ``w^2 v``: Z is then the same for any scale of the weights).

    Returns
    -------
    SpiegelhalterResult
        ``(z, pvalue)``; both NaN (with a RuntimeWarning) when every score is 0, 0.5
        or 1, where the variance of the numerator is 0.

    Raises
    ------
    ValueError
        Scores outside [0, 1], non-binary outcomes, different lengths.
    TypeError
        Non-numeric input.

    Notes
    -----
    Spiegelhalter (1986, doi:10.1002/sim.4780050506), as computed by calzone 0.1.0's
    ``spiegelhalter_z_test``. Under calibration the Brier score's deviation from its
    expectation is approximately normal:

    .. math:: Z = \\frac{\\sum_i (y_i - p_i)(1 - 2p_i)}
                       {\\sqrt{\\sum_i (1 - 2p_i)^2 p_i (1 - p_i)}},
              \\quad p = 2 (1 - \\Phi(|Z|)).

    No clipping. MAPIE's ``spiegelhalter_statistic`` has the same Z with a
    one-sided p-value.

    References
    ----------
    .. [1] Spiegelhalter, D. J. (1986). Probabilistic Prediction in Patient Management and
       Clinical Trials. Statistics in Medicine 5(5), 421-433.
       doi:10.1002/sim.4780050506.
    .. [2] calzone 0.1.0 (PyPI ``calzone-tool``), U.S. FDA Division of Imaging,
       Diagnostics and Software Reliability, github.com/DIDSR/calzone,
       ``calzone/metrics.py``: ``spiegelhalter_z_test``.

    Examples
    --------
    Scores 0.25 and 0.75 with outcomes 1 and 1: the numerator is
    0.75 * 0.5 + 0.25 * (-0.5) = 0.25 and the variance 2 * 0.25 * 0.1875 = 0.09375:

    >>> z, p = spiegelhalter_z([0.25, 0.75], [1, 1])
    >>> round(z, 6), round(p, 6)
    (0.816497, 0.414216)
    """
    if weights not in ("frequency", "importance"):
        raise ValueError(f"`weights` must be 'frequency' or 'importance', got {weights!r}.")
    p, y, w = _inputs(score, outcome, sample_weight)
    wt = np.ones_like(p) if w is None else w
    num = float(np.sum(wt * (y - p) * (1.0 - 2.0 * p)))
    # the variance of sum w (y - p)(1 - 2p) under calibration: w^2 v for importance
    # weights (each row once), w v for counts (w copies)
    wv = wt * wt if weights == "importance" else wt
    var = float(np.sum(wv * (1.0 - 2.0 * p) ** 2 * p * (1.0 - p)))
    if not var > 0:
        warnings.warn(
            "Spiegelhalter's Z is undefined (NaN): every score is 0, 0.5 or 1, so the "
            "statistic has zero variance under calibration.",
            RuntimeWarning, stacklevel=2,
        )
        return SpiegelhalterResult(math.nan, math.nan)
    z = num / math.sqrt(var)
    return SpiegelhalterResult(float(z), float(2.0 * stats.norm.sf(abs(z))))


# ---------------------------------------------------------------------------------- Cox


@dataclass(frozen=True)
class CoxResult:
    """Result of :func:`cox_calibration` (Wald intervals and tests).

    Attributes
    ----------
    intercept, slope : float
        ``a`` and ``b`` of ``logit P(y = 1) = a + b logit(p)``; perfect calibration
        is ``a = 0, b = 1``. ``b < 1``: predictions too extreme (overfitting).
    intercept_ci, slope_ci : tuple of float
        Wald ``1 - alpha`` confidence intervals.
    intercept_pvalue : float
        Wald test of ``a = 0`` in the two-parameter model.
    slope_pvalue : float
        Wald test of ``b = 1``.
    calibration_in_the_large : float
        Intercept with the slope fixed at 1 (``logit(p)`` as offset): > 0 means the
        predictions are too low on average, < 0 too high.
    calibration_in_the_large_ci : tuple of float
        Its Wald interval.
    calibration_in_the_large_pvalue : float
        Wald test of it being 0.
    ici : float
        Cox-ICI, the mean ``|sigmoid(a + b logit p_i) - p_i|`` (weighted mean with
        sample weights).
    alpha : float
        1 - confidence level.
    n : int
        Number of rows.
    """

    intercept: float
    slope: float
    intercept_ci: tuple[float, float]
    slope_ci: tuple[float, float]
    intercept_pvalue: float
    slope_pvalue: float
    calibration_in_the_large: float
    calibration_in_the_large_ci: tuple[float, float]
    calibration_in_the_large_pvalue: float
    ici: float
    alpha: float
    n: int


def _fit_logistic(
    y: np.ndarray, exog: np.ndarray, offset: np.ndarray | None, w: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, bool]:
    """Maximum-likelihood logistic fit: coefficients, standard errors, converged."""
    import statsmodels.api as sm
    from statsmodels.tools.sm_exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        # separation / overflow warnings are summarised by the caller
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.filterwarnings("ignore", message=".*[Ss]eparation.*")
        if w is None:
            res = sm.Logit(y, exog, offset=offset).fit(disp=0, maxiter=100)
            converged = bool(res.mle_retvals.get("converged", False))
        else:
            res = sm.GLM(y, exog, family=sm.families.Binomial(), offset=offset,
                         freq_weights=w).fit(maxiter=100)
            converged = bool(getattr(res, "converged", True))
        params = np.asarray(res.params, dtype=np.float64)
        bse = np.asarray(res.bse, dtype=np.float64)
    converged = converged and bool(np.all(np.isfinite(params)) and np.all(np.isfinite(bse)))
    return params, bse, converged


def cox_calibration(
    score: Any,
    outcome: Any,
    *,
    clip: float = 1e-7,
    alpha: float = 0.05,
    sample_weight: Any = None,
) -> CoxResult:
    """Cox calibration intercept and slope: logistic recalibration of the log-odds.

    Parameters
    ----------
    score : array-like of shape (n,)
        Predicted probability of the event, in [0, 1].
    outcome : array-like of shape (n,)
        Observed 0/1 outcome; both classes must occur.
    clip : float in (0, 0.5), default 1e-7
        Scores are clipped to ``[clip, 1 - clip]`` before the logit (calzone's value).
    alpha : float in (0, 1), default 0.05
        1 - confidence level of the Wald intervals.
    sample_weight : array-like of shape (n,), optional
        Frequency weights (fitted by a binomial GLM with ``freq_weights``; without
        weights statsmodels' ``Logit`` is used; both give the same maximum-likelihood
        fit and Wald intervals).

    Returns
    -------
    CoxResult
        All estimates NaN, with a RuntimeWarning, when the score separates the
        outcomes (every event scored at least as high as every non-event, or the
        reverse: no finite maximum-likelihood estimate) or the fit does not converge.

    Raises
    ------
    ValueError
        Scores outside [0, 1], non-binary outcomes, different lengths, a single
        outcome class or a single distinct score.
    TypeError
        Non-numeric input.

    Notes
    -----
    Cox (1958, doi:10.2307/2333203), as computed by calzone 0.1.0's
    ``cox_regression_analysis``. With ``x_i = logit(clip(p_i))``, maximum likelihood
    fits

    .. math:: \\operatorname{logit} P(y_i = 1) = a + b x_i

    and reports Wald ``1 - alpha`` intervals ``estimate ± z_{1-alpha/2} se``. The
    calibration-in-the-large intercept refits ``a`` with ``b`` fixed at 1 (``x`` as
    an offset). Cox-ICI = mean ``|sigmoid(a + b x_i) - p_i|`` with clipped ``p``, the
    integrated calibration index of Austin & Steyerberg (2019,
    doi:10.1002/sim.8281) with the logistic recalibration curve as the smoother.

    References
    ----------
    .. [1] Cox, D. R. (1958). Two Further Applications of a Model for Binary Regression.
       Biometrika 45(3/4), 562-565. doi:10.2307/2333203.
    .. [2] Austin, P. C. & Steyerberg, E. W. (2019). The Integrated Calibration Index
       (ICI) and Related Metrics for Quantifying the Calibration of Logistic
       Regression Models. Statistics in Medicine 38(21), 4051-4065.
       doi:10.1002/sim.8281.
    .. [3] calzone 0.1.0 (PyPI ``calzone-tool``), U.S. FDA Division of Imaging,
       Diagnostics and Software Reliability, github.com/DIDSR/calzone,
       ``calzone/metrics.py``: ``cox_regression_analysis``.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9])
    >>> y = np.array([0, 1, 0, 1, 1, 0, 1, 1])
    >>> res = cox_calibration(p, y)
    >>> round(res.intercept, 4), round(res.slope, 4)
    (0.6212, 0.7002)
    >>> round(res.calibration_in_the_large, 4)
    0.7245
    """
    p, y, w = _inputs(score, outcome, sample_weight)
    clip = v.check_fraction(clip, "clip", include_one=False, high=0.5)
    alpha = v.check_fraction(alpha, "alpha", include_one=False)
    used = slice(None) if w is None else w > 0
    v.check_both_classes(y[used] > 0, "outcome", why="a logistic recalibration fit")
    pc = np.clip(p, clip, 1.0 - clip)
    x = np.log(pc) - np.log1p(-pc)
    v.check_distinct_values(x[used], "score", why="a calibration slope")

    n = p.size
    quantile = float(stats.norm.ppf(1.0 - alpha / 2.0))
    # with one covariate the MLE exists iff the classes overlap on the logit scale
    x_used, events = x[used], y[used] > 0
    separated = (x_used[~events].max() <= x_used[events].min()
                 or x_used[events].max() <= x_used[~events].min())
    if not separated:
        params, bse, ok_full = _fit_logistic(y, np.column_stack((np.ones(n), x)), None, w)
        citl, citl_se, ok_citl = _fit_logistic(y, np.ones((n, 1)), x, w)
    if separated or not (ok_full and ok_citl):
        warnings.warn(
            "The logistic recalibration fit has no finite maximum (the score separates "
            "the outcomes perfectly) or did not converge: the Cox intercept and slope "
            "are NaN.",
            RuntimeWarning, stacklevel=2,
        )
        nan2 = (math.nan, math.nan)
        return CoxResult(math.nan, math.nan, nan2, nan2, math.nan, math.nan, math.nan, nan2,
                         math.nan, math.nan, alpha, n)

    a, b = float(params[0]), float(params[1])
    se_a, se_b = float(bse[0]), float(bse[1])
    c, se_c = float(citl[0]), float(citl_se[0])
    recal = 1.0 / (1.0 + np.exp(-(a + b * x)))
    gap = np.abs(recal - pc)
    cox_ici = float(gap.mean() if w is None else np.sum(w * gap) / np.sum(w))
    return CoxResult(
        intercept=a,
        slope=b,
        intercept_ci=(a - quantile * se_a, a + quantile * se_a),
        slope_ci=(b - quantile * se_b, b + quantile * se_b),
        intercept_pvalue=float(2.0 * stats.norm.sf(abs(a) / se_a)),
        slope_pvalue=float(2.0 * stats.norm.sf(abs(b - 1.0) / se_b)),
        calibration_in_the_large=c,
        calibration_in_the_large_ci=(c - quantile * se_c, c + quantile * se_c),
        calibration_in_the_large_pvalue=float(2.0 * stats.norm.sf(abs(c) / se_c)),
        ici=cox_ici,
        alpha=alpha,
        n=n,
    )
