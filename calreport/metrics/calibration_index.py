"""Calibration indices from the smoothed calibration curve: ICI, E50, E90, Emax, ECI.

Each row's gap between its score and the LOWESS (or local-constant) calibration
curve at that score, summarised by its mean (ICI), median (E50), 90th percentile
(E90) and maximum (Emax), and the Estimated Calibration Index (ECI) from the
squared gaps.

References
----------
Austin, P. C. & Steyerberg, E. W. (2019). The Integrated Calibration Index (ICI)
and Related Metrics for Quantifying the Calibration of Logistic Regression Models.
Statistics in Medicine 38(21), 4051-4065. doi:10.1002/sim.8281.

Van Hoorde, K., Van Huffel, S., Timmerman, D., Bourne, T. & Van Calster, B.
(2015). A Spline-Based Tool to Assess and Visualize the Calibration of Multiclass
Risk Predictions. Journal of Biomedical Informatics 54, 283-293.
doi:10.1016/j.jbi.2014.12.016.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from calreport import _validate as v
from calreport.metrics._chunks import row_slices
from calreport.metrics.local import (
    DEFAULT_FRAC,
    _prepare,
    _smooth,
)

__all__ = ["CalibrationErrorSummary", "calibration_error_summary", "eci", "eci_multiclass",
           "ici"]


@dataclass(frozen=True)
class CalibrationErrorSummary:
    """Integrated calibration index and the quantiles of ``|g(p_i) - p_i|``.

    Attributes
    ----------
    ici : float
        Mean absolute difference between the smoothed and the predicted probability.
    e50, e90 : float
        Median and 90th percentile of the absolute differences.
    emax : float
        Largest absolute difference.
    method : str
        Smoother used (see :data:`METHODS`).
    frac : float
        Fraction of the rows in each local fit.
    n : int
        Number of rows.
    exact : bool
        True when the smoother was evaluated at every distinct score, False when it
        was interpolated between evaluation nodes (see ``n_nodes``).
    eci : float
        Estimated Calibration Index, ``100 * mean((g(p_i) - p_i)^2)`` (see :func:`eci`).
    """

    ici: float
    e50: float
    e90: float
    emax: float
    method: str
    frac: float
    n: int
    exact: bool
    eci: float = math.nan


# ----------------------------------------------------------------------------- input


def calibration_error_summary(
    score: Any,
    outcome: Any,
    *,
    method: str = "lowess",
    frac: float | str = DEFAULT_FRAC,
    n_nodes: int | None = 500,
) -> CalibrationErrorSummary:
    """ICI, E50, E90 and Emax: the distribution of ``|g(p_i) - p_i|`` over the rows.

    Parameters
    ----------
    score : array-like of shape (n,)
        Predicted probability of the positive class (or top-label confidence), in [0, 1].
    outcome : array-like of shape (n,)
        Observed 0/1 outcome (or correctness).
    method : {"lowess", "local_constant"}, default "lowess"
        Smoother of the calibration curve (see :func:`lowess_curve`).
    frac : float in (0, 1] or "auto", default 0.15
        Fraction of the rows in each local fit; "auto" is :func:`adaptive_frac`.
    n_nodes : int or None, default 500
        LOWESS only. With more distinct scores than ``n_nodes``, the curve is fitted
        at ``n_nodes`` score quantiles plus ``n_nodes // 5`` equally spaced scores and
        linearly interpolated to every row; None evaluates it at every distinct score
        (exact, O(N k): slow for large N). The local mean is always exact.

    Returns
    -------
    CalibrationErrorSummary
        ``ici``, ``e50``, ``e90``, ``emax`` and the settings.

    Raises
    ------
    ValueError
        As :func:`lowess_curve`.
    TypeError
        Non-numeric input.

    Notes
    -----
    Austin & Steyerberg (2019), section 2 (the ICI and E50, E90, Emax): with ``ĝ``
    the calibration curve clipped to [0, 1] and ``e_i = |ĝ(p_i) - p_i|``,
    ICI = mean(e), E50 = median(e), E90 = 90th percentile (linear interpolation, R's
    type 7) and Emax = max(e). The same
    smoother as :func:`lcs` is used, evaluated at the observed scores.

    Austin & Steyerberg use R's ``loess`` defaults (local *quadratic*, span 0.75).
    A local line with span 0.15 follows the curve more closely but is noisier: on
    the D(kind, n) datasets of the module notes (R 4.2.2 ``loess`` defaults give ICI
    0.16390, 0.16712, 0.00309, 0.00087 for D(sq,500), D(sq,2000), D(id,500),
    D(id,2000)) it gives 0.16343, 0.16630, 0.01460, 0.00266. For a calibrated
    model, whose true ICI is 0, the estimate is the smoother's noise and shrinks
    with larger ``frac`` (span 0.5 gives 0.00274 and 0.00083 on D(id, .)), while on
    a miscalibrated one larger spans flatten the curve (span 0.5: 0.15737 on
    D(sq,500)). calzone's "Loess ICI" is LOWESS with ``frac=0.5``. Sample weights are
    not supported.

    References
    ----------
    Austin, P. C. & Steyerberg, E. W. (2019). The Integrated Calibration Index (ICI)
    and Related Metrics for Quantifying the Calibration of Logistic Regression Models.
    Statistics in Medicine 38(21), 4051-4065. doi:10.1002/sim.8281.

    Examples
    --------
    >>> import numpy as np
    >>> i = np.arange(1, 501)
    >>> s = (i - 0.5) / 500
    >>> y = np.modf(i * 0.6180339887498949)[0] < s ** 2
    >>> res = calibration_error_summary(s, y)
    >>> round(res.ici, 4), round(res.emax, 4)
    (0.1634, 0.2559)
    """
    s, y, frac, k = _prepare(score, outcome, method, frac)
    gap, exact = _gap_at_rows(s, y, method=method, frac=frac, k=k, n_nodes=n_nodes)
    err = np.abs(gap)
    return CalibrationErrorSummary(
        ici=float(err.mean()), e50=float(np.median(err)), e90=float(np.quantile(err, 0.9)),
        emax=float(err.max()), method=method, frac=frac, n=s.size, exact=exact,
        eci=float(100.0 * np.mean(gap * gap)),
    )


def _gap_at_rows(s: np.ndarray, y: np.ndarray, *, method: str, frac: float, k: int,
                 n_nodes: int | None, trees: dict[int, Any] | None = None
                 ) -> tuple[np.ndarray, bool]:
    """``g(s_i) - s_i`` for every (sorted) row, ``g`` clipped to [0, 1]; and exactness.

    ``trees`` keeps the LOWESS moment tree of these rows for later fits (see
    :func:`calreport.metrics.local._smooth`).
    """
    if n_nodes is not None:
        n_nodes = v.check_positive_int(n_nodes, "n_nodes", minimum=2)
    exact = method == "local_constant" or n_nodes is None or (
        1 + int(np.count_nonzero(s[1:] != s[:-1])) <= n_nodes)
    if exact:
        first = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
        distinct = s[first]
        counts = np.diff(np.r_[first, s.size])
        g = _smooth(s, y, distinct, method=method, frac=frac, k=k, trees=trees)
        return np.repeat(np.clip(g, 0.0, 1.0) - distinct, counts), True
    assert n_nodes is not None
    at_quantiles = s[np.round(np.linspace(0, s.size - 1, n_nodes)).astype(np.int64)]
    nodes = np.unique(np.concatenate(
        (at_quantiles, np.linspace(s[0], s[-1], n_nodes // 5 + 2))))
    fitted = _smooth(s, y, nodes, method=method, frac=frac, k=k, trees=trees)
    # the curve read at each row, a chunk of rows at a time: the same numbers as at the
    # distinct scores repeated, without N-row temporaries beside the result
    gap = np.empty(s.size)
    for sl in row_slices(s.size):
        part = s[sl]
        g = np.interp(part, nodes, fitted)
        np.clip(g, 0.0, 1.0, out=g)
        np.subtract(g, part, out=gap[sl])
    return gap, False


def ici(
    score: Any,
    outcome: Any,
    *,
    method: str = "lowess",
    frac: float | str = DEFAULT_FRAC,
    n_nodes: int | None = 500,
) -> float:
    """Integrated Calibration Index: mean ``|g(p_i) - p_i|`` over the rows.

    Parameters
    ----------
    score, outcome, method, frac, n_nodes
        As :func:`calibration_error_summary`.

    Returns
    -------
    float
        ICI in [0, 1].

    Raises
    ------
    ValueError
        As :func:`lowess_curve`.
    TypeError
        Non-numeric input.

    Notes
    -----
    ``calibration_error_summary(...).ici`` (Austin & Steyerberg 2019, section 2).
    Sample weights are not supported.

    References
    ----------
    Austin, P. C. & Steyerberg, E. W. (2019). The Integrated Calibration Index (ICI)
    and Related Metrics for Quantifying the Calibration of Logistic Regression Models.
    Statistics in Medicine 38(21), 4051-4065. doi:10.1002/sim.8281.

    Examples
    --------
    >>> import numpy as np
    >>> i = np.arange(1, 501)
    >>> s = (i - 0.5) / 500
    >>> y = np.modf(i * 0.6180339887498949)[0] < s
    >>> ici(s, y) < 0.02
    True
    """
    return calibration_error_summary(score, outcome, method=method, frac=frac,
                                     n_nodes=n_nodes).ici


def eci(
    score: Any,
    outcome: Any,
    *,
    method: str = "lowess",
    frac: float | str = DEFAULT_FRAC,
    n_nodes: int | None = 500,
) -> float:
    """Estimated Calibration Index: 100 times the mean squared gap ``(g(p_i) - p_i)^2``.

    Parameters
    ----------
    score, outcome, method, frac, n_nodes
        As :func:`calibration_error_summary`.

    Returns
    -------
    float
        ECI in [0, 100]; 0 for a curve on the diagonal.

    Raises
    ------
    ValueError
        As :func:`lowess_curve`.
    TypeError
        Non-numeric input.

    Notes
    -----
    Van Hoorde et al. (2015) define for ``k`` classes, with ``p_ij`` the
    predicted and ``p_hat_ij`` the smoothed observed probability (calibration curve)
    of class ``j`` for row ``i``:

    .. math::

        \\mathrm{ECI} = \\frac{\\sum_{i=1}^{n} \\sum_{j=1}^{k} (p_{ij} - \\hat p_{ij})^2}
                             {n \\, k} \\cdot \\frac{100 \\, k}{2},

    the scaling ``100 k / 2`` putting ECI in [0, 100] (two probability vectors are
    at squared distance at most 2). For a binary outcome both classes contribute the
    same squared gap, so ``ECI = 100 mean_i (g(p_i) - p_i)^2`` -- the form computed
    by the R package CalibrationCurves of the same group (``val.prob.ci.2``). The
    curve ``g`` is the smoother of :func:`calibration_error_summary` (the paper uses
    vector splines; any consistent smoother estimates the same quantity). ECI is the
    squared-error sibling of the ICI; ``calibration_error_summary(...).eci`` gives
    the same value. Frequency weights:
    :func:`calreport.metrics._local_units.eci_counts` (the summaries' ``eci``).

    References
    ----------
    Van Hoorde, K., Van Huffel, S., Timmerman, D., Bourne, T. & Van Calster, B.
    (2015). A Spline-Based Tool to Assess and Visualize the Calibration of Multiclass
    Risk Predictions. Journal of Biomedical Informatics 54, 283-293.
    doi:10.1016/j.jbi.2014.12.016.

    Examples
    --------
    >>> import numpy as np
    >>> i = np.arange(1, 501)
    >>> s = (i - 0.5) / 500
    >>> y = np.modf(i * 0.6180339887498949)[0] < s ** 2
    >>> round(eci(s, y), 3)
    3.198
    """
    s, y, frac, k = _prepare(score, outcome, method, frac)
    return _eci_sorted(s, y, method=method, frac=frac, k=k, n_nodes=n_nodes)


def _eci_sorted(s: np.ndarray, y: np.ndarray, *, method: str, frac: float, k: int,
                n_nodes: int | None = 500, trees: dict[int, Any] | None = None) -> float:
    """:func:`eci` of validated rows sorted by score (``trees``: see :func:`_gap_at_rows`)."""
    gap, _ = _gap_at_rows(s, y, method=method, frac=frac, k=k, n_nodes=n_nodes, trees=trees)
    np.multiply(gap, gap, out=gap)  # in place: the squares, summed as np.mean(gap * gap)
    return float(100.0 * np.mean(gap))


def eci_multiclass(
    proba: Any,
    y_true: Any,
    *,
    method: str = "lowess",
    frac: float | str = DEFAULT_FRAC,
    n_nodes: int | None = 500,
) -> float:
    """Estimated Calibration Index of multiclass probabilities (one curve per class).

    Parameters
    ----------
    proba : array-like of shape (n, k)
        Predicted probability of each class (rows summing to 1), ``k >= 2``.
    y_true : array-like of int, shape (n,)
        Class code ``0 .. k-1`` of each row, indexing the columns of ``proba``.
    method, frac, n_nodes
        As :func:`calibration_error_summary`, used for every class.

    Returns
    -------
    float
        ECI in [0, 100].

    Raises
    ------
    ValueError
        Invalid probabilities (outside [0, 1], rows not summing to 1), labels, a class
        column with a single distinct value, or too few rows for ``frac``.
    TypeError
        Non-numeric input.

    Notes
    -----
    The formula of :func:`eci` with ``p_hat_ij = g_j(p_ij)``, ``g_j`` the calibration
    curve of class ``j`` fitted one-vs-rest (``1[y = j]`` on ``p_ij``):
    ``ECI = 100 / (2 n) sum_i sum_j (p_ij - g_j(p_ij))^2``. Van Hoorde et al. (2015)
    estimate the ``p_hat_i`` jointly by a vector-spline multinomial recalibration, so
    that they sum to 1 per row; the one-vs-rest curves estimate the same class-wise
    conditional probabilities ``P(y = j | p_ij)`` without that constraint. With two
    classes this equals the binary :func:`eci` of the positive-class column (the
    smoothers are symmetric under ``p -> 1 - p``, ``y -> 1 - y``).

    References
    ----------
    Van Hoorde, K., Van Huffel, S., Timmerman, D., Bourne, T. & Van Calster, B.
    (2015). A Spline-Based Tool to Assess and Visualize the Calibration of Multiclass
    Risk Predictions. Journal of Biomedical Informatics 54, 283-293.
    doi:10.1016/j.jbi.2014.12.016.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = rng.dirichlet([2, 2, 2], 600)
    >>> y = (rng.random(600)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    >>> eci_multiclass(p, y) < 1.0
    True
    """
    p = v.check_proba_matrix(proba, "proba")
    if p.ndim == 1:
        raise ValueError(
            "`proba` must have one column per class (shape (n, k), k >= 2); for one "
            "positive-class column use eci(score, outcome)."
        )
    codes = v.check_class_codes(y_true, p.shape[1], "y_true")
    v.check_consistent_length(proba=p.shape[0], y_true=codes.size)
    total = 0.0
    for j in range(p.shape[1]):  # a loop over classes, each fit vectorised over rows
        s, y, frac_j, k = _prepare(p[:, j], codes == j, method, frac)
        gap, _ = _gap_at_rows(s, y, method=method, frac=frac_j, k=k, n_nodes=n_nodes)
        total += float(np.sum(gap * gap))
    return 100.0 * total / (2.0 * p.shape[0])


# ------------------------------------------------------------------ band of the curve
