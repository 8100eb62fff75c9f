"""The CSR null: validity of its normal approximation, Monte Carlo and power.

Martin-Maroto, Abderrahaman-Elena & de Polavieja (2026), "Beyond ECE",
arXiv:2605.01796, section 4 notes that the normal approximation is poor at small N;
here its validity is decided from the data (a Lindeberg-type ratio, the skewness of
the null and the size of tied lattice steps), the exact null is simulated where it
fails, and the power of the test is computed so that a test without power never
reads as "no evidence".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from calreport import _validate as v
from calreport.metrics._risk_rows import (
    _TILE,
    CERTAIN_LEVEL,
    EPS,
    FULL_MONTE_CARLO_ROWS,
    LATTICE_MAX,
    LINDEBERG_MAX,
    P_EVIDENCE,
    POWER_RHO,
    SKEWNESS_MAX,
    _lattice_ratio,
    _null_moments,
    _p_normal,
    _Rows,
    _rows,
    _tie_groups,
)


def normal_validity(conf: Any, *, sample_weight: Any = None, eps: float = EPS,
                    weights: str = "importance") -> tuple[bool, float, float]:
    """Whether the normal approximation of the CSR null holds for these confidences.

    Parameters
    ----------
    conf, sample_weight, eps, weights
        As in :func:`csr`.

    Returns
    -------
    valid : bool
    lindeberg_ratio : float
        Largest single-row share ``w_i^2 c_i / (1 - c_i) / sum_j w_j^2 c_j / (1 - c_j)``
        of the null variance.
    skewness : float
        Skewness of the null distribution of CSR.

    Notes
    -----
    Under calibration CSR is a weighted sum of independent Bernoulli errors with sizes
    ``w_i / (1 - c_i)``.  The normal approximation fails when a few rows carry most
    of the variance (Lindeberg's condition) or the sum is strongly skewed (a confident
    row's error is rare and large).  It is taken as valid when the Lindeberg ratio is
    at most ``LINDEBERG_MAX`` = 0.05 and ``|skewness|`` at most ``SKEWNESS_MAX`` = 0.25.

    The thresholds come from a simulation (``tests/test_risk_verdict.py`` repeats a
    small version of it): 144 profiles (N = 10, 30, 100, 300, 1000, 3000; confidences
    uniform on [0.5, 0.99], uniform on [0.3, 0.7], Beta(8, 1), Beta(30, 1), 0.9 with one
    row at 0.9999, and ties at 0.6/0.8/0.95/0.995; unit and log-normal weights), each
    null drawn 50,000 times.  On the 10 profiles passing both thresholds the normal
    approximation erred by at most 0.0048 in ``P(CSR* < 1 + sigma)`` (the "evidence"
    threshold) and by at most 0.0012 in ``P(CSR* >= 1 + 3 sigma)`` (nominal 0.00135, the
    "risky" threshold); on the 134 failing them errors reached 0.159 and 0.052.
    Relaxing the skewness limit to 0.5 let the 3-sigma tail error reach 0.0044 (three
    times the nominal tail).  The skewness limit agrees with the Edgeworth correction
    of the 3-sigma tail, ``skew (x^2 - 1) phi(x) / 6`` = 0.0059 skew at x = 3, which
    stays below the nominal tail probability for ``skew <= 0.23``; the Lindeberg limit
    catches nulls made of a few rows (4 rows at c = 0.5 err by 0.15 at 1 sigma).

    Tied confidences (isotonic calibration, rounded scores) make the null a lattice
    whose jumps the normal curve smooths over: 50 rows at c = 0.8 have
    ``P(CSR* < 1 + sigma) = P(Binomial(50, 0.2) <= 12) = 0.814`` against
    ``Phi(1) = 0.841``, although their Lindeberg ratio (0.02) and skewness (0.21) pass.
    The error is about half a jump, ``phi(z) a / (2 sd)`` for error size ``a``, so the
    approximation also requires ``a / sd <= LATTICE_MAX`` = 0.1 for every tie group
    carrying at least 10 % of the variance (error <= 0.012 at 1 sigma, <= 0.0002 at 3
    sigma).

    Examples
    --------
    >>> normal_validity([0.7] * 1000)[0], normal_validity([0.7] * 10)[0]
    (True, False)
    """
    c = v.check_probability(conf, "conf")
    r, _ = _rows(c, np.ones(len(c), bool), sample_weight, eps, weights, warn=False)
    var, k3, share = _null_moments(r)
    skew = k3 / var ** 1.5 if var > 0 else math.nan
    return _is_valid(share, skew, _lattice_ratio(r, var)), share, skew


def _is_valid(share: float, skew: float, lattice: float) -> bool:
    return bool(share <= LINDEBERG_MAX and abs(skew) <= SKEWNESS_MAX
                and lattice <= LATTICE_MAX)


def certain_error_upper(n_errors: float, n: float, *, level: float = CERTAIN_LEVEL
                        ) -> float:
    """Exact (Clopper-Pearson) one-sided upper confidence bound of an error rate.

    Parameters
    ----------
    n_errors : float
        Errors observed (non-integer values come from Kish effective counts).
    n : float
        Trials.
    level : float, default 0.95

    Returns
    -------
    float
        ``B^{-1}(level; n_errors + 1, n - n_errors)``; 1 when every trial failed, NaN
        when ``n`` is 0.  With no error: ``1 - (1 - level)^(1/n)``.

    References
    ----------
    Clopper, C. J. & Pearson, E. S. (1934). The Use of Confidence or Fiducial Limits
    Illustrated in the Case of the Binomial. Biometrika 26(4), 404-413.
    doi:10.1093/biomet/26.4.404.

    Examples
    --------
    >>> round(certain_error_upper(0, 154), 5)  # 1 - 0.05 ** (1 / 154)
    0.01926
    """
    if n <= 0:
        return math.nan
    if n_errors >= n:
        return 1.0
    return float(special.betaincinv(n_errors + 1.0, n - n_errors, level))


# --- the null distribution of S = sum_i a_i Y_i -------------------------------------------


def _draw(r: _Rows, p: np.ndarray, n_sim: int, rng: np.random.Generator) -> np.ndarray:
    """``n_sim`` draws of ``S`` with error probabilities ``p``, in memory-bounded tiles.

    Rows tied in (error size, probability) are drawn together as one binomial count,
    so isotonic-like profiles with few distinct confidences cost little.
    """
    atom, counts = r.atom, r.k
    first, inv = _tie_groups(atom, p)
    if 2 * len(first) <= len(p):
        counts = np.bincount(inv, weights=counts)
        atom, p = atom[first], p[first]
    counts = np.rint(counts).astype(np.int64)
    bernoulli = bool((counts == 1).all())
    out = np.empty(n_sim)
    block = max(1, min(n_sim, _TILE // max(len(p), 1)))
    for start in range(0, n_sim, block):  # tiles, not replicates: bounded memory
        b = min(block, n_sim - start)
        if bernoulli:
            y = (rng.random((b, len(p))) < p).astype(np.float64)
        else:
            y = rng.binomial(counts, p, size=(b, len(p))).astype(np.float64)
        out[start:start + b] = y @ atom
    return out


@dataclass(frozen=True)
class _Test:
    p_risk: float
    power: float
    method: str
    reason: str
    n_sim: int
    lindeberg_ratio: float
    skewness: float
    lattice_ratio: float


def _alt_p(p: np.ndarray) -> np.ndarray:
    return np.minimum(POWER_RHO * p, 1.0)


def _normal_power(r: _Rows, var0: float) -> float:
    p1 = _alt_p(r.p)
    mean1 = float((r.k * r.atom * p1).sum())
    var1 = float((r.k * r.atom ** 2 * p1 * (1.0 - p1)).sum())
    crit = r.denom + math.sqrt(var0)
    if var1 <= 0:
        return float(mean1 > crit)
    return float(special.ndtr((mean1 - crit) / math.sqrt(var1)))


def _heavy_split(r: _Rows) -> int:
    """Fewest rows of largest variance to simulate so the rest is normal, or -1."""
    p = r.p
    unit_var = r.atom ** 2 * p * r.c
    order = np.argsort(-unit_var, kind="stable")
    uv = unit_var[order]
    tv = (r.k * unit_var)[order]
    t3 = (r.k * r.atom ** 3 * p * r.c * (1.0 - 2.0 * p))[order]
    var_suffix = np.cumsum(tv[::-1])[::-1]
    k3_suffix = np.cumsum(t3[::-1])[::-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        share = uv / var_suffix
        skew = k3_suffix / var_suffix ** 1.5
    ok = (share <= LINDEBERG_MAX) & (np.abs(skew) <= SKEWNESS_MAX)
    hits = np.flatnonzero(ok)
    if not len(hits):
        return -1
    light = np.ones(len(p), bool)
    light[order[:hits[0]]] = False
    rest = r.subset(light)
    return int(hits[0]) if _lattice_ratio(rest, var_suffix[hits[0]]) <= LATTICE_MAX else -1


def _monte_carlo(r: _Rows, n_sim: int, rng: np.random.Generator, heavy: int
                 ) -> tuple[float, float]:
    """P(S* < S_obs) and the power, simulating all rows or only the ``heavy`` largest.

    With ``heavy`` rows simulated, the others enter through a normal law with their
    exact mean and variance (conditional Monte Carlo): ``P = mean Phi((s - H - mu) / sd)``.
    """
    s_obs = r.s_obs
    p0 = r.p
    p1 = _alt_p(p0)
    n_alt = max(n_sim // 4, 1000)
    if heavy < 0 or heavy >= len(p0):
        # a draw equal to the observed sum up to rounding is a tie, not "below": the
        # tolerance keeps P_risk invariant to the weight scale
        tol = 1e-10 * max(s_obs, r.denom)
        h0 = np.sort(_draw(r, p0, n_sim, rng))
        prob = float(np.searchsorted(h0, s_obs - tol, side="left")) / n_sim
        crit = h0[min(math.floor(P_EVIDENCE * n_sim), n_sim - 1)]
        h1 = _draw(r, p1, n_alt, rng)
        return prob, float(np.mean(h1 > crit + tol))
    unit_var = r.atom ** 2 * p0 * r.c
    order = np.argsort(-unit_var, kind="stable")
    hv = np.zeros(len(p0), bool)
    hv[order[:heavy]] = True
    top, rest = r.subset(hv), r.subset(~hv)

    def light(p: np.ndarray) -> tuple[float, float]:
        q = p[~hv]
        mean = float((rest.k * rest.atom * q).sum())
        sd = math.sqrt(float((rest.k * rest.atom ** 2 * q * (1.0 - q)).sum()))
        return mean, sd

    mu0, sd0 = light(p0)
    h0 = _draw(top, p0[hv], n_sim, rng) if heavy else np.zeros(1)

    # the few heavy rows give few distinct sums: evaluate the mixture on those
    atoms, counts = np.unique(h0, return_counts=True)
    mass = counts / h0.size

    def cdf0(x: float) -> float:
        return float(special.ndtr((x - atoms - mu0) / sd0) @ mass)

    prob = cdf0(s_obs)
    lo, hi = float(h0.min() + mu0 - 12 * sd0), float(h0.max() + mu0 + 12 * sd0)
    for _ in range(50):  # bisection for the 1-sigma critical value of the mixture
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if cdf0(mid) <= P_EVIDENCE else (lo, mid)
    mu1, sd1 = light(p1)
    h1 = _draw(top, p1[hv], n_alt, rng) if heavy else np.zeros(1)
    if sd1 > 0:
        power = float(special.ndtr((h1 + mu1 - hi) / sd1).mean())
    else:
        power = float(np.mean(h1 + mu1 > hi))
    return prob, power


def _test(r: _Rows, method: str, n_sim: int, rng: np.random.Generator) -> _Test:
    """P_risk, power and the method actually used for the rows ``r``."""
    var, k3, share = _null_moments(r)
    skew = k3 / var ** 1.5 if var > 0 else math.nan
    lattice = _lattice_ratio(r, var)
    valid = _is_valid(share, skew, lattice)
    facts = (f"the largest row carries {share:.1%} of the null variance (limit "
             f"{LINDEBERG_MAX:.0%}), the null skewness is {skew:.2f} (limit "
             f"{SKEWNESS_MAX:g}) and tied rows jump by {lattice:.2f} sd (limit "
             f"{LATTICE_MAX:g})")
    csr_value = r.s_obs / r.denom
    z = (r.s_obs - r.denom) / math.sqrt(var) if var > 0 else math.nan
    if math.isnan(z):
        return _Test(math.nan, math.nan, "normal", "no null variance: every weight is 0",
                     0, share, skew, lattice)
    if method == "normal" or (method == "auto" and valid):
        why = ("normal approximation valid: " + facts if valid else
               "normal approximation as requested, although it is not valid here: " + facts)
        return _Test(_p_normal(csr_value, z), _normal_power(r, var), "normal", why, 0,
                     share, skew, lattice)
    heavy = -1
    if method == "auto" and len(r.c) > FULL_MONTE_CARLO_ROWS:
        heavy = _heavy_split(r)
        if heavy > len(r.c) // 2:
            heavy = -1
    prob, power = _monte_carlo(r, n_sim, rng, heavy)
    if method == "monte_carlo":
        why = f"Monte Carlo null as requested ({n_sim} draws); " + facts
    elif heavy < 0:
        why = f"normal approximation invalid ({facts}): Monte Carlo null, {n_sim} draws"
    else:
        why = (f"normal approximation invalid ({facts}): Monte Carlo null, {n_sim} draws "
               f"of the {heavy} rows of largest variance, exact normal law of the other "
               f"{len(r.c) - heavy}")
    return _Test(prob if csr_value > 1.0 else 0.0, power, "monte_carlo", why, n_sim,
                 share, skew, lattice)
