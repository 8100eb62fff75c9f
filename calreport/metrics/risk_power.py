"""How many rows a risk test needs: the sample size behind an "undetermined" verdict.

Power is against errors twice as frequent as the confidences claim (the alternative of
:func:`calreport.metrics.risk.risk_summary`), by the normal approximation of CSR's
numerator ``S = sum_i a_i Y_i`` (Martin-Maroto, Abderrahaman-Elena & de Polavieja
(2026), "Beyond ECE", arXiv:2605.01796, section 2.1 and appendix A.2).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from calreport.metrics._risk_rows import EPS, POWER_RHO, _null_moments, _rows

__all__ = ["agreeing_rows_for_power", "rows_for_power", "rows_for_power_from_sums"]


def rows_for_power(conf: Any, correct: Any = None, *, sample_weight: Any = None,
                   eps: float = EPS, weights: str = "importance",
                   power: float = 0.8) -> float:
    """Rows like these needed for the test to detect errors twice as frequent as claimed.

    The profile is replicated ``k`` times until the normal approximation of the test
    reaches "evidence" (P_risk > Phi(1)) with probability ``power`` when every error
    probability ``1 - c_i`` is doubled (capped at 1); the result is ``k`` times the
    rows (frequency weights: units).  Rows at certainty (confidence >= 1 - eps) are
    left out: they are judged by their own rule.

    Parameters
    ----------
    conf, correct, sample_weight, eps, weights
        As in :func:`csr` (``correct`` is not used: the answer depends on the
        confidences only; it may be None).
    power : float, default 0.8

    Returns
    -------
    float
        inf when no row lies below certainty.

    Notes
    -----
    With ``S = sum_i a_i Y_i``, null mean ``m0`` and variance ``v0``, alternative mean
    ``m1`` and variance ``v1`` of the profile, ``k`` copies reach the power when
    ``sqrt(k) (m1 - m0) = sqrt(v0) + Phi^{-1}(power) sqrt(v1)``.

    Examples
    --------
    Confidence 0.9 claims 10 % errors; n rows count Binomial(n, 0.1) errors under
    calibration (mean 0.1 n, sd 0.3 sqrt(n)) and Binomial(n, 0.2) under the
    alternative (mean 0.2 n, sd 0.4 sqrt(n)): ``0.1 n = 0.3 sqrt(n) + 0.8416 * 0.4
    sqrt(n)`` gives ``sqrt(n) = 6.366``, n = 40.5.

    >>> round(rows_for_power([0.9] * 100), 1)
    40.5
    """
    if not 0.0 < power < 1.0:
        raise ValueError(f"`power` must be in (0, 1), got {power!r}.")
    dummy = np.ones(np.shape(conf), bool) if correct is None else correct
    r, _ = _rows(conf, dummy, sample_weight, eps, weights)
    return _rows_for_power(r.subset(r.raw < 1.0 - eps), power)


def _rows_for_power(r: Any, power: float = 0.8) -> float:
    if not len(r.c):
        return math.inf
    p1 = np.minimum(POWER_RHO * r.p, 1.0)
    return rows_for_power_from_sums(
        denom=r.denom, var0=_null_moments(r)[0], mean1=float(r.ka @ p1),
        var1=float((r.ka * r.atom) @ (p1 * (1.0 - p1))), count=r.count, power=power)


def rows_for_power_from_sums(*, denom: float, var0: float, mean1: float, var1: float,
                             count: float, power: float = 0.8) -> float:
    """:func:`rows_for_power` from the sums of a profile (the out-of-core states hold them).

    ``denom`` is the null mean of ``S`` (the CSR denominator), ``var0`` its null
    variance, ``mean1``/``var1`` its mean and variance when errors are twice as
    frequent as claimed, ``count`` the rows (units) they sum over.
    """
    gap = mean1 - denom
    if not (gap > 0 and count > 0):
        return math.inf
    k = ((math.sqrt(var0) + float(special.ndtri(power)) * math.sqrt(var1)) / gap) ** 2
    return k * count


def agreeing_rows_for_power(approx: float, power: float, rows: float,
                            target: float = 0.8) -> float:
    """The rows for ``target`` power as a verdict states them: the normal approximation
    ``approx`` made to agree with the test's own ``power`` at the ``rows`` there are.

    The test's power is computed as its P_risk is (by simulation where the normal
    approximation of the null fails), so the two can disagree: a few rows near
    certainty inflate ``approx`` a thousandfold while the simulated power is already
    100 %.  Where the power reaches ``target``, the rows there are suffice: at most
    ``rows``.  Where it does not but ``approx`` says fewer rows suffice, the
    approximation is wrong for these rows and no count is given (NaN).

    Examples
    --------
    >>> agreeing_rows_for_power(143_523.0, 1.0, 1_005.0)
    1005.0
    >>> agreeing_rows_for_power(811.0, 0.47, 228.0)
    811.0
    >>> agreeing_rows_for_power(150.0, 0.6, 228.0)
    nan
    """
    if math.isnan(power) or math.isnan(approx):
        return approx
    if power >= target:
        return min(approx, rows)
    return approx if approx > rows else math.nan

