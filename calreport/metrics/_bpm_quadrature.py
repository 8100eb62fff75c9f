"""Numerical pieces of the TCE_bpm integral: diagonal crossings, quantiles, quadrature.

:func:`calreport.metrics.bpm.tce_integral` integrates ``|g(x) - x|^p`` in quantile
space; this module holds what it is built from: the points where a calibration curve
crosses the diagonal (exactly for the beta-calibration family, on a logit grid for any
other curve), the quantile and distribution functions of the confidence density
(a Beta pair with safe tail quantiles, or a distribution object) and the tanh-sinh
quadrature rule applied between the crossings.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from scipy import optimize, special

from calreport import _validate as v
from calreport.metrics._bpm_fit import CLIP


def _family_crossings(a: float, b: float, c: float) -> list[float]:
    """Points of ``[CLIP, 1 - CLIP]`` where ``g(x) = x`` for the beta-calibration family.

    On the logit scale ``g(x) = x`` is ``d(x) = c + (a - 1) ln x - (b - 1) ln(1 - x) = 0``;
    ``d'`` vanishes at most once, at ``x = (a - 1) / (a - b)``, so there are at most two
    roots, one on each monotone piece.
    """
    def d(t: float) -> float:  # t = logit x
        return (c + a * -np.logaddexp(0.0, -t) + b * np.logaddexp(0.0, t) - t).item()

    t_lo, t_hi = float(special.logit(CLIP)), float(special.logit(1.0 - CLIP))
    knots = [t_lo, t_hi]
    if a != b:
        xc = (a - 1.0) / (a - b)
        if CLIP < xc < 1.0 - CLIP:
            knots.insert(1, float(special.logit(xc)))
    return _roots_between(d, knots)


def _roots_between(d: Callable[[float], float], knots: list[float]) -> list[float]:
    """Roots (as x = expit(t)) of ``d`` on each interval of ``knots`` with a sign change."""
    roots = []
    for lo, hi in itertools.pairwise(knots):
        d_lo, d_hi = d(lo), d(hi)
        if d_lo == 0.0:
            roots.append(lo)
        elif d_lo * d_hi < 0.0:
            roots.append(optimize.brentq(d, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps))
    if d(knots[-1]) == 0.0:
        roots.append(knots[-1])
    return sorted({float(special.expit(t)) for t in roots})


def _grid_crossings(curve: Callable[[np.ndarray], np.ndarray]) -> list[float]:
    """Crossings of an arbitrary curve with the diagonal, from a logit-spaced grid."""
    t = np.linspace(special.logit(CLIP), special.logit(1.0 - CLIP), 4001)
    x = special.expit(t)
    gap = np.asarray(curve(x), dtype=np.float64) - x
    change = np.flatnonzero(np.sign(gap[:-1]) * np.sign(gap[1:]) < 0)

    def d(tt: float) -> float:
        xx = float(special.expit(tt))
        return float(np.asarray(curve(np.array([xx])), dtype=np.float64)[0]) - xx

    roots = [optimize.brentq(d, float(t[i]), float(t[i + 1]), xtol=1e-14) for i in change]
    return sorted({float(special.expit(r)) for r in roots})


class _Quantiles(NamedTuple):
    ppf: Callable[[np.ndarray], np.ndarray]
    cdf: Callable[[np.ndarray], np.ndarray]


def _beta_ppf(alpha: float, beta: float, u: np.ndarray) -> np.ndarray:
    """Beta quantile function, with the tail asymptotes where ``betaincinv`` fails.

    ``scipy.special.betaincinv`` returns NaN for some tiny tail probabilities (seen
    for ``1e-124 < u < 1e-16`` with alpha near 1).  There the leading term
    ``I_x(alpha, beta) ~ x^alpha / (alpha B(alpha, beta))`` (and its mirror at 1) is
    used; the quadrature weights of such nodes are below 1e-16, so it only has to be
    a point of [0, 1] near the true quantile.
    """
    u = np.asarray(u, dtype=np.float64)
    x = special.betaincinv(alpha, beta, u)
    bad = np.isnan(x)
    if bad.any():
        log_b = special.betaln(alpha, beta)
        with np.errstate(divide="ignore"):
            low = np.exp((np.log(u) + np.log(alpha) + log_b) / alpha)
            high = -np.expm1((np.log1p(-u) + np.log(beta) + log_b) / beta)
        x = np.where(bad, np.where(u < 0.5, low, high), x)
    return x


#: Quantiles below this are taken from the tail asymptote (``x`` would lose digits or underflow).
_TAIL_X = 1e-300


def _beta_log_quantile(alpha: float, beta: float, u: np.ndarray) -> np.ndarray:
    """``ln x`` of the Beta(alpha, beta) quantile ``x`` of ``u``, for ``x <= 1/2``.

    Used for both halves of [0, 1]: for the upper half, ``ln(1 - x)`` is this function
    of the mirror pair ``(beta, alpha)`` at ``1 - u``, computed directly (never as
    ``1 - x``, which rounds to a step of 1.1e-16 or to 0 where U-shaped densities with
    tiny shapes put most of their mass).  Where ``betaincinv`` underflows, fails (NaN,
    see :func:`_beta_ppf`) or returns less than 1e-300, the leading tail term
    ``I_x(alpha, beta) ~ x^alpha / (alpha B(alpha, beta))`` gives ``ln x`` (relative
    error O(x)), so mass at quantiles below the smallest double is kept.
    """
    u = np.asarray(u, dtype=np.float64)
    x = special.betaincinv(alpha, beta, u)
    tail = np.isnan(x) | (x < _TAIL_X)
    with np.errstate(divide="ignore"):
        log_x = np.log(np.where(tail, 1.0, x))
        if tail.any():
            asym = (np.log(u) + np.log(alpha) + special.betaln(alpha, beta)) / alpha
            log_x = np.where(tail, asym, log_x)
    return log_x


def _family_gap(a: float, b: float, c: float, log_x: np.ndarray, log_t: np.ndarray,
                upper: bool) -> np.ndarray:
    """``g(x) - x`` of the family from ``ln x`` and ``ln(1 - x)`` without cancellation:
    ``sigma(eta) - x`` below 1/2, ``(1 - x) - sigma(-eta)`` above (``eta = logit g``)."""
    with np.errstate(invalid="ignore", over="ignore"):
        # a = 0 (or b = 0) means no ln x (ln(1 - x)) term, also at x = 0 (x = 1)
        eta = (c + (a * log_x if a != 0.0 else 0.0)) - (b * log_t if b != 0.0 else 0.0)
    if upper:
        return np.exp(log_t) - special.expit(-eta)
    return special.expit(eta) - np.exp(log_x)


def _density(density: Any) -> tuple[_Quantiles, Any]:
    """Quantile and distribution functions of a Beta pair or a distribution object."""
    if isinstance(density, tuple | list | np.ndarray) and len(density) == 2:
        al, be = v.check_beta_shape(density[0], density[1], "`density`")
        return _Quantiles(lambda u: _beta_ppf(al, be, u),
                          lambda x: special.betainc(al, be, x)), (al, be)
    dist = v.check_unit_distribution(density, "density")
    return _Quantiles(lambda u: np.asarray(dist.ppf(u), dtype=np.float64),
                      lambda x: np.asarray(dist.cdf(x), dtype=np.float64)), dist


#: Beta densities with alpha + beta above this (sd < 1e-6) are treated as point masses.
_POINT_MASS = 1e12

# tanh-sinh (double exponential) rule on [-T, T]: exact to double precision for
# integrands analytic inside the interval, whatever their endpoint singularities.
_TS_T = 4.0
_TS_LEVELS = 9
_TS_TOL = 1e-12


def _tanh_sinh(fun: Callable[[np.ndarray], np.ndarray], lo: float, hi: float) -> float:
    """Integral of ``fun`` over ``[lo, hi]`` by the tanh-sinh rule, halving the step
    until two successive levels agree to ``_TS_TOL``."""
    width = hi - lo
    if width <= 0.0:
        return 0.0

    def rule(t: np.ndarray) -> float:
        s = 0.5 * np.pi * np.sinh(t)
        left, right = special.expit(2.0 * s), special.expit(-2.0 * s)
        # distance to the nearer endpoint is computed directly (no cancellation)
        x = np.where(t < 0.0, lo + width * left, hi - width * right)
        w = width * np.pi * np.cosh(t) * left * right
        return float(np.sum(w * fun(x)))

    h = 0.5
    total = rule(np.arange(-_TS_T, _TS_T + h / 2, h))
    estimate = h * total
    for _ in range(_TS_LEVELS):
        h /= 2.0
        total += rule(np.arange(-_TS_T + h, _TS_T, 2.0 * h))  # the new, odd nodes
        new = h * total
        if abs(new - estimate) <= _TS_TOL * max(1.0, abs(new)):
            return new
        estimate = new
    return estimate


def _beta_integral(curve: Callable[[np.ndarray], Any],
                   family: tuple[float, float, float] | None, shapes: tuple[float, float],
                   crossings: list[float], p: float) -> float:
    """The TCE integral under a Beta density, each half of [0, 1] from its own end
    (:func:`calreport.metrics.bpm.tce_integral`).

    Below ``x = 1/2`` the quantile space is ``u = I_x(alpha, beta)`` and ``ln x`` comes from
    ``u``; above, it is ``v = I_{1-x}(beta, alpha) = 1 - u`` and ``ln(1 - x)`` comes from ``v``
    (the mirror), so neither end loses the distance to it in rounding: U-shaped densities
    with shapes near 0.01 keep most of their mass within 1e-16 of 0 or 1, where ``x``
    itself is 0, 1 or a step of 1.1e-16.  The family's gap is computed from
    ``(ln x, ln(1 - x))`` (:func:`_family_gap`) when ``family`` gives its coefficients
    ``(a, b, c)``; otherwise ``curve`` is evaluated at ``x``.
    """
    al, be = shapes
    halves = ((al, be, False, [x for x in crossings if x <= 0.5]),
              (be, al, True, [1.0 - x for x in crossings if x > 0.5]))
    value = 0.0
    for first, second, upper, near in halves:
        def integrand(u: np.ndarray, first: float = first, second: float = second,
                      upper: bool = upper) -> np.ndarray:
            log_near = _beta_log_quantile(first, second, u)  # ln of the distance to this end
            with np.errstate(divide="ignore"):
                log_far = np.log1p(-np.exp(log_near))
            log_x, log_t = (log_far, log_near) if upper else (log_near, log_far)
            if family is not None:
                gap = _family_gap(*family, log_x, log_t, upper)
            else:
                x = -np.expm1(log_t) if upper else np.exp(log_x)
                gap = np.asarray(curve(x), dtype=np.float64) - x
            return np.abs(gap) ** p

        mass = float(special.betainc(first, second, 0.5))
        cuts = np.clip(special.betainc(first, second, np.asarray(near, dtype=np.float64)),
                       0.0, mass)
        knots = np.unique(np.concatenate([[0.0], cuts, [mass]]))
        value += sum(_tanh_sinh(integrand, float(lo), float(hi))
                     for lo, hi in itertools.pairwise(knots))
    return float(max(value, 0.0) ** (1.0 / p))
