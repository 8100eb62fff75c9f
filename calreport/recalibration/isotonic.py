"""Isotonic calibrators: plain isotonic regression and its risk-aware variant."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from scipy import special
from scipy.optimize import isotonic_regression

from calreport.recalibration._base import BinaryReductionCalibrator

__all__ = ["IsotonicCalibrator", "RiskAwareIsotonicCalibrator", "pool_ties"]


class Pooled(NamedTuple):
    """Rows pooled by distinct score: the sorted distinct scores, the weight and the
    weighted label sum of each."""

    x: np.ndarray
    weight: np.ndarray
    label_sum: np.ndarray


def pool_ties(s: np.ndarray, y: np.ndarray, w: np.ndarray) -> Pooled:
    """Pool tied scores (their labels are averaged with their weights), rows with
    zero weight dropped."""
    keep = w > 0
    s, y, w = s[keep], y[keep], w[keep]
    x, inverse = np.unique(s, return_inverse=True)
    weight = np.bincount(inverse, weights=w, minlength=x.shape[0])
    label_sum = np.bincount(inverse, weights=w * y, minlength=x.shape[0])
    return Pooled(x, weight, label_sum)


def _pav(pooled: Pooled) -> tuple[np.ndarray, np.ndarray]:
    """Isotonic fit at the distinct scores and the block starts (PAV, Ayer et al.)."""
    res = isotonic_regression(pooled.label_sum / pooled.weight, weights=pooled.weight)
    return np.asarray(res.x, dtype=np.float64), np.asarray(res.blocks)


def _interpolate(state: tuple[np.ndarray, np.ndarray], s: np.ndarray) -> np.ndarray:
    x, fitted = state
    if x.shape[0] == 1:
        return np.full(s.shape, fitted[0])
    # linear between the distinct scores, constant beyond them (scikit-learn's
    # IsotonicRegression with out_of_bounds="clip")
    return np.interp(s, x, fitted)


class IsotonicCalibrator(BinaryReductionCalibrator):
    """Isotonic regression of the outcome on the score (pool adjacent violators).

    The fitted map is the weighted least-squares non-decreasing fit at the distinct
    calibration scores (tied scores pooled), interpolated linearly between them and
    constant beyond them, as scikit-learn's ``IsotonicRegression(out_of_bounds="clip")``.

    Parameters
    ----------
    multiclass : {"ovr", "top_label"}, default "ovr"
        Reduction of a multiclass problem.

    Notes
    -----
    Its lowest and highest plateaus often hold only one class, so it outputs exactly
    0 or 1 there: one wrong prediction at such a confidence makes CSR reach
    ``1 / eps`` (Martin-Maroto et al. 2026, Table 2).  See
    :class:`RiskAwareIsotonicCalibrator`.

    References
    ----------
    Ayer, M., Brunk, H. D., Ewing, G. M., Reid, W. T. & Silverman, E. (1955). An
    Empirical Distribution Function for Sampling with Incomplete Information. Annals
    of Mathematical Statistics 26(4), 641-647. doi:10.1214/aoms/1177728423.

    Zadrozny, B. & Elkan, C. (2002). Transforming Classifier Scores into Accurate
    Multiclass Probability Estimates. KDD, 694-699. doi:10.1145/775047.775151.

    Examples
    --------
    >>> import numpy as np
    >>> s = np.array([0.1, 0.3, 0.35, 0.6, 0.8, 0.9])
    >>> y = np.array([0, 0, 1, 0, 1, 1])
    >>> IsotonicCalibrator().fit(s, y).predict_proba(s)[:, 1].tolist()
    [0.0, 0.0, 0.5, 0.5, 1.0, 1.0]
    """

    def __init__(self, multiclass: str = "ovr") -> None:
        self.multiclass = multiclass

    def _fit_binary(self, s: np.ndarray, y: np.ndarray, w: np.ndarray) -> Any:
        pooled = pool_ties(s, y, w)
        fitted, _ = _pav(pooled)
        return pooled.x, fitted

    def _apply_binary(self, state: Any, s: np.ndarray) -> np.ndarray:
        return _interpolate(state, s)


class RiskAwareIsotonicCalibrator(BinaryReductionCalibrator):
    """Isotonic regression whose plateaus take only the confidence their rows support.

    Each plateau (PAV block) of the isotonic fit holds weight ``n_j`` (rows, weights
    scaled to mean one) of which ``k_j`` are positive.  Its rate gets the Jeffreys
    posterior ``Beta(k_j + a, n_j - k_j + b)`` (``a = b = 1/2``), and its value
    ``k_j / n_j`` is replaced by that posterior's one-sided ``level`` bound on the side
    of 1/2 (the lower bound above 1/2, the upper one below, never crossing 1/2;
    ``level=None``: the posterior mean ``(k_j + a) / (n_j + a + b)``).  The adjusted
    values are made non-decreasing again by a second PAV pass weighted by
    ``n_j + a + b`` (a pooled value is a weighted mean of values inside (0, 1), so it
    stays inside), and the map is interpolated as :class:`IsotonicCalibrator`.

    Parameters
    ----------
    prior : (float, float), default (0.5, 0.5)
        ``(a, b)`` of the Beta prior on each plateau's rate, both positive.
    level : float or None, default 0.8413
        One-sided posterior level of the plateau's value, in [0.5, 1) (default: one
        sigma, the level of calreport's "evidence" band); None: the posterior mean.
    multiclass : {"ovr", "top_label"}, default "ovr"
        Reduction of a multiclass problem.

    Notes
    -----
    Why this is risk-aware in CSR terms.  CSR (Martin-Maroto et al. 2026, section 2.1)
    is ``(1/N) sum_{i wrong} 1 / (1 - c_i)``: a wrong prediction made with confidence
    ``c`` costs ``1 / (1 - c)``, unbounded as ``c -> 1`` (calreport clips at
    ``1 - eps``, so a wrong certainty claim costs ``1 / eps = 1e8`` and makes the band
    "risky" on its own).  Plain isotonic regression sets a plateau with no errors
    among its ``n_j`` calibration rows to exactly 1, although the data only bound its
    error rate by about ``3 / n_j`` (the rule of three).  Here every plateau value is
    strictly inside (0, 1): with the posterior mean a wrong prediction on an error-free
    plateau costs at most ``(n_j + a + b) / b = 2 n_j + 2``, and its expected CSR
    contribution ``E[q] / (1 - c)`` (``q`` the plateau's error rate) is exactly one, the
    calibrated value.  The mean is not enough out of sample: PAV picks its top
    plateaus where the calibration rows happened to err least, so their rates are
    biased upwards.  The default takes instead ``1 - c`` = the posterior's
    ``level`` upper bound of the error rate, so that ``q / (1 - c) <= 1`` (a wrong
    prediction costs no more than under calibration) with posterior probability
    ``level``: the plateau claims only the confidence its own rows support at the
    one-sigma level that separates "no evidence" from "evidence" of overconfidence.
    The same holds at the bottom plateaus for the negative class.  The Jeffreys prior
    is the one whose interval Brown, Cai & DasGupta (2001) recommend for small counts.

    References
    ----------
    Jeffreys, H. (1946). An Invariant Form for the Prior Probability in Estimation
    Problems. Proceedings of the Royal Society A 186(1007), 453-461.
    doi:10.1098/rspa.1946.0056.

    Brown, L. D., Cai, T. T. & DasGupta, A. (2001). Interval Estimation for a Binomial
    Proportion. Statistical Science 16(2), 101-133. doi:10.1214/ss/1009213286.

    Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond
    ECE: Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics.
    arXiv:2605.01796. Section 2.1, Table 2.

    Examples
    --------
    >>> import numpy as np
    >>> s = np.array([0.1, 0.3, 0.35, 0.6, 0.8, 0.9])
    >>> y = np.array([0, 0, 1, 0, 1, 1])
    >>> mean = RiskAwareIsotonicCalibrator(level=None).fit(s, y)
    >>> [round(v, 4) for v in mean.predict_proba(s)[:, 1].tolist()]  # (k + 1/2) / (n + 1)
    [0.1667, 0.1667, 0.5, 0.5, 0.8333, 0.8333]
    >>> bound = RiskAwareIsotonicCalibrator().fit(s, y).predict_proba(s)[:, 1]
    >>> bool(bound[-1] < 0.8333 and bound[0] > 0.1667)
    True
    """

    def __init__(self, prior: tuple[float, float] = (0.5, 0.5),
                 level: float | None = 0.8413, multiclass: str = "ovr") -> None:
        self.prior = prior
        self.level = level
        self.multiclass = multiclass

    def _fit_binary(self, s: np.ndarray, y: np.ndarray, w: np.ndarray) -> Any:
        try:
            a, b = (float(v) for v in self.prior)
        except (TypeError, ValueError):
            raise ValueError(f"`prior` must be a pair (a, b) of positive numbers; got "
                             f"{self.prior!r}.") from None
        if not (a > 0 and b > 0 and np.isfinite(a) and np.isfinite(b)):
            raise ValueError(f"`prior` must be a pair (a, b) of positive finite numbers "
                             f"(e.g. (0.5, 0.5), Jeffreys); got {self.prior!r}.")
        pooled = pool_ties(s, y, w)
        _, starts = _pav(pooled)
        n_block = np.add.reduceat(pooled.weight, starts[:-1])
        k_block = np.add.reduceat(pooled.label_sum, starts[:-1])
        shrunk = (k_block + a) / (n_block + a + b)
        if self.level is not None:
            if not 0.5 <= self.level < 1.0:
                raise ValueError(f"`level` must be None or in [0.5, 1), e.g. 0.8413 (one "
                                 f"sigma); got {self.level!r}.")
            # the posterior's bound on the side of 1/2: a confidence the plateau's own
            # rows support at this level, never past 1/2
            lo = special.betaincinv(k_block + a, n_block - k_block + b, 1.0 - self.level)
            hi = special.betaincinv(k_block + a, n_block - k_block + b, self.level)
            shrunk = np.where(shrunk > 0.5, np.maximum(lo, 0.5),
                              np.where(shrunk < 0.5, np.minimum(hi, 0.5), 0.5))
        again = isotonic_regression(shrunk, weights=n_block + a + b)
        values = np.repeat(np.asarray(again.x), np.diff(starts))
        return pooled.x, values

    def _apply_binary(self, state: Any, s: np.ndarray) -> np.ndarray:
        return _interpolate(state, s)
