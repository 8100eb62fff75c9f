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
from calreport.metrics._risk_draws import draw, look_draws, pooled_sums, reads_pool, stream
from calreport.metrics._risk_rows import (
    CERTAIN_LEVEL,
    EPS,
    FULL_MONTE_CARLO_ROWS,
    LATTICE_MAX,
    LIGHT_SHARE_MAX,
    LIGHT_SKEW_MAX,
    LINDEBERG_MAX,
    P_EVIDENCE,
    P_RISKY,
    POWER_MIN,
    POWER_RHO,
    SKEWNESS_MAX,
    TAIL_SKEWNESS_MAX,
    TAIL_Z,
    Rows,
    _dot,
    _lattice_ratio,
    _null_moments,
    _rows,
    p_normal,
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

    Where the observed z exceeds ``TAIL_Z`` = 2, P_risk may near the 3-sigma level,
    whose tail the skewness limit above lets the normal reading double; there
    ``|skewness|`` must also be at most ``TAIL_SKEWNESS_MAX`` = 0.05 (a relative
    error of about 22 % at 3 sigma), else P_risk is simulated.  This function, which
    sees no outcomes, leaves that condition out.  Measured by
    ``benchmarks/family_false_alarms.py``: each calibrated group's own "risky" rate
    at 2,000 mild rows was 0.22-0.28 % without it (nominal 0.135 %).

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
    skew = _skew(k3, var)
    return is_valid(share, skew, _lattice_ratio(r, var)), share, skew


def is_valid(share: Any, skew: Any, lattice: Any, z: Any = 0.0) -> Any:
    """Whether the normal reading holds: one rule for one profile or arrays of groups.

    NaN fails every limit (no variance: not valid); a z beyond ``TAIL_Z`` also needs
    ``|skew| <= TAIL_SKEWNESS_MAX`` (see :func:`normal_validity`).
    """
    skew = np.abs(np.asarray(skew, dtype=float))
    ok = ((np.asarray(share, dtype=float) <= LINDEBERG_MAX) & (skew <= SKEWNESS_MAX)
          & (np.asarray(lattice, dtype=float) <= LATTICE_MAX)
          & ~((np.asarray(z, dtype=float) > TAIL_Z) & (skew > TAIL_SKEWNESS_MAX)))
    return bool(ok) if ok.ndim == 0 else ok


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


@dataclass(frozen=True)
class NullTest:
    """P_risk and the power of one profile, how they were computed and why.

    ``n_sim`` counts the Monte Carlo draws (0 for the normal reading), ``se`` is the
    Monte Carlo standard error of P_risk; the three ratios are those of
    :func:`normal_validity` and the lattice check.
    """

    p_risk: float
    power: float
    method: str
    reason: str
    n_sim: int
    lindeberg_ratio: float
    skewness: float
    lattice_ratio: float
    se: float = 0.0


def alt_p(p: np.ndarray) -> np.ndarray:
    """Error probabilities of the alternative of the power: ``POWER_RHO`` times as high."""
    return np.minimum(POWER_RHO * p, 1.0)


def _normal_power(r: Rows, var0: float) -> float:
    mean1 = var1 = 0.0
    for sl in r.chunks():  # no N-row temporaries
        p1 = alt_p(1.0 - r.c[sl])
        ka = r.ka[sl]
        mean1 += _dot(ka, p1)
        var1 += _dot(ka * r.atom[sl], p1 * (1.0 - p1))
    return normal_power(r.denom, var0, mean1, var1)


def normal_power(denom: float, var0: float, mean1: float, var1: float) -> float:
    """Power of the normal reading from sums: ``P(S > denom + sqrt(var0))`` for ``S`` of
    mean ``mean1`` and variance ``var1`` (errors ``POWER_RHO`` times as frequent)."""
    crit = denom + math.sqrt(var0)
    if var1 <= 0:
        return float(mean1 > crit)
    return float(special.ndtr((mean1 - crit) / math.sqrt(var1)))


#: Candidates of the first look of :func:`_heavy_split` (doubled until a split is found).
_HEAVY_FIRST = 64


def _heavy_split(r: Rows) -> np.ndarray | None:
    """Mask of the fewest rows of largest variance to simulate so the rest is near normal.

    The rest must pass the limits of the light part (no row above ``LIGHT_SHARE_MAX``
    of its variance, ``|skewness| <= LIGHT_SKEW_MAX``, no lattice) so that its
    one-term Edgeworth law (:func:`_edgeworth_cdf`) errs far below the Monte Carlo
    standard error.  None when no split of at most half the rows does it.  The rows
    are taken in decreasing unit variance (ties by confidence, then error size: the
    split does not depend on the row order); only the largest candidates are sorted
    (``argpartition``), never all rows.
    """
    uv_all = r.unit_var
    n = uv_all.size
    tv_all = r.k * uv_all
    t3_all = r.k * r.atom * uv_all * (1.0 - 2.0 * r.p)
    limit = n // 2
    k = min(_HEAVY_FIRST, n)
    while True:
        if k < n:
            kth = np.partition(uv_all, n - k)[n - k]  # the k-th largest unit variance
            cand = np.flatnonzero(uv_all >= kth)
        else:
            cand = np.arange(n)
        # ties in variance by (confidence, error size): an order free of the input's
        order = cand[np.lexsort((r.atom[cand], r.c[cand], -uv_all[cand]))]
        outside = np.ones(n, bool)
        outside[cand] = False
        # variance and third moment of the rows left after removing the j largest
        # (suffix sums, so that the light rows keep their precision next to huge ones)
        var_rest = np.cumsum(tv_all[order][::-1])[::-1] + float(tv_all[outside].sum())
        k3_rest = np.cumsum(t3_all[order][::-1])[::-1] + float(t3_all[outside].sum())
        j = first_light(uv_all[order], var_rest, k3_rest, limit)
        if j >= 0 or order.size > limit or k >= n:
            break
        k *= 4
    if j < 0:
        return None
    heavy = np.zeros(n, bool)
    heavy[order[:j]] = True
    if _lattice_ratio(r, float(var_rest[j]), mask=~heavy) > LATTICE_MAX:
        return None
    return heavy


def first_light(uv: np.ndarray, var_rest: np.ndarray, k3_rest: np.ndarray, limit: int
                ) -> int:
    """The heavy split's rule: how many rows of largest variance to simulate, or -1.

    Rows in decreasing unit variance ``uv``; ``var_rest[j]``, ``k3_rest[j]``: variance
    and third cumulant of the rows from ``j`` on.  The first ``j <= limit`` where none
    of them carries over ``LIGHT_SHARE_MAX`` of it and ``|skewness| <= LIGHT_SKEW_MAX``.
    """
    m = min(uv.size, limit + 1)
    var_rest = var_rest[:m]
    with np.errstate(divide="ignore", invalid="ignore"):
        share = uv[:m] / var_rest
        skew = k3_rest[:m] / var_rest ** 1.5
    hits = np.flatnonzero((share <= LIGHT_SHARE_MAX) & (np.abs(skew) <= LIGHT_SKEW_MAX))
    return int(hits[0]) if hits.size else -1


def _monte_carlo(r: Rows, n_sim: int, rng: np.random.Generator) -> tuple[float, float]:
    """P(S* < S_obs) and the power from ``n_sim`` draws of every row."""
    s_obs = r.s_obs
    p0 = r.p
    p1 = alt_p(p0)
    n_alt = max(n_sim // 4, 1000)
    # a draw equal to the observed sum up to rounding is a tie, not "below": the
    # tolerance keeps P_risk invariant to the weight scale
    tol = 1e-10 * max(s_obs, r.denom)
    h0 = np.sort(draw(r, p0, n_sim, rng))
    prob = float(np.searchsorted(h0, s_obs - tol, side="left")) / n_sim
    crit = h0[min(math.floor(P_EVIDENCE * n_sim), n_sim - 1)]
    h1 = draw(r, p1, n_alt, rng)
    return prob, float(np.mean(h1 > crit + tol))


@dataclass(frozen=True)
class LightRows:
    """Exact cumulants of the rows left out of a conditional Monte Carlo.

    Null mean, variance and third cumulant, and mean and variance under the
    alternative of the power (errors ``POWER_RHO`` times as frequent).
    """

    mean0: float
    var0: float
    k3: float
    mean1: float
    var1: float


def _light_of(r: Rows, heavy: np.ndarray) -> tuple[LightRows, float]:
    """The cumulants of the rows of ``r`` outside ``heavy`` and the observed sum.

    Summed in the canonical order of the rows, so that they do not change in the last
    bit when the rows are permuted (the conditional probabilities are continuous in
    them).
    """
    o = r.canonical
    atom, c = r.atom[o], r.c[o]
    p0 = 1.0 - c
    p1 = alt_p(p0)
    ka_all = r.ka[o]
    ka = np.where(heavy[o], 0.0, ka_all)
    ua = ka * atom
    light = LightRows(_dot(ka, p0), _dot(ua, p0 * c), _dot(ua * atom, p0 * c * (c - p0)),
                   _dot(ka, p1), _dot(ua, p1 * (1.0 - p1)))
    return light, float(ka_all[r.wrong[o]].sum())


_SQRT_2PI = math.sqrt(2.0 * math.pi)


def _edgeworth_cdf(x: np.ndarray, skew: float) -> np.ndarray:
    """One-term Edgeworth CDF of a standardised sum of skewness ``skew``.

    ``F(x) = Phi(x) - skew / 6 (x^2 - 1) phi(x)``, clipped to [0, 1]; its error is of
    the order of the squared skewness and the excess kurtosis, where the normal law's
    is of the order of the skewness.
    """
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(under="ignore"):  # phi(x) of |x| > 38 is 0
        f = special.ndtr(x) - skew / 6.0 * (x * x - 1.0) * np.exp(-0.5 * x * x) / _SQRT_2PI
    return np.clip(f, 0.0, 1.0)


def conditional_p_risk(top: Rows, light: LightRows, s_obs: float, n_sim: int, base: int,
                 above: bool) -> tuple[float, float, int, float]:
    """Sequential conditional Monte Carlo: the ``top`` rows drawn, the rest exact in law.

    Each draw ``H`` of the heavy rows gives the probability ``F((s_obs - H - mu) / sd)``
    that the light rows keep the sum below the observed one (``F``: the Edgeworth law
    of their exact cumulants); P_risk is the mean of these probabilities and its
    standard error their standard deviation over the square root of the draws (not
    the binomial bound: averaging probabilities varies far less than counting hits).
    Looks, streams and stopping rule as :func:`_sequential`.

    Returns P_risk, the power, the draws used and the standard error.
    """
    sd0 = math.sqrt(light.var0)
    skew0 = _skew(light.k3, light.var0) if light.var0 > 0 else 0.0
    sd1 = math.sqrt(max(light.var1, 0.0))
    p1 = alt_p(top.p)
    vals: list[np.ndarray] = []
    h0: list[np.ndarray] = []
    h1: list[np.ndarray] = []
    m = m_alt = look = 0

    def below(x: np.ndarray | float, h: np.ndarray) -> np.ndarray:
        if sd0 > 0:
            return _edgeworth_cdf((x - h - light.mean0) / sd0, skew0)
        return (h + light.mean0 < x).astype(np.float64)

    while True:
        b = min(SEQ_FIRST if not m else (SEQ_GROWTH - 1) * m, n_sim - m)
        h = draw(top, top.p, b, stream(base, look, 0))
        h0.append(h)
        vals.append(below(s_obs, h))
        m += b
        v = np.concatenate(vals)
        prob = float(v.mean())
        if not (above and look and prob > P_EVIDENCE):
            b_alt = max(b // 4, min(b, SEQ_FIRST))
            h1.append(draw(top, p1, b_alt, stream(base, look, 1)))
            m_alt += b_alt
        # the 1-sigma critical value of the mixture (few distinct heavy sums)
        atoms, counts = np.unique(np.concatenate(h0), return_counts=True)
        mass = counts / m
        lo = float(atoms[0] + light.mean0 - 12.0 * sd0 - 1.0)
        hi = float(atoms[-1] + light.mean0 + 12.0 * sd0 + 1.0)
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if float(below(mid, atoms) @ mass) <= P_EVIDENCE else (lo, mid)
        alt = np.concatenate(h1)
        if sd1 > 0:
            power = float(special.ndtr((alt + light.mean1 - hi) / sd1).mean())
        else:
            power = float(np.mean(alt + light.mean1 > hi))
        look += 1
        if m >= n_sim or _settled(prob, m, power, m_alt, above, False):
            break
    se = float(v.std(ddof=1)) / math.sqrt(m) if m > 1 else 0.0
    return prob, power, m, se


# --- sequential Monte Carlo of method="auto" -----------------------------------------------

#: Draws of the first look of the sequential null of ``method="auto"``; each further
#: look draws ``SEQ_GROWTH - 1`` times the draws so far, up to ``n_sim``.
SEQ_FIRST = 1000
SEQ_GROWTH = 4
#: A look stops the simulation when P_risk is more than this many binomial standard
#: errors from each band threshold it could cross (and the power from ``POWER_MIN``).
SEQ_MARGIN = 4.0


_CHERNOFF_GRID = np.geomspace(0.02, 50.0, 48)[:, None]


def chernoff_upper_tail(r: Rows, s: float) -> float:
    """Chernoff bound ``P(S* >= s) <= min_t exp(K(t) - t s)`` under calibration.

    ``K(t) = sum_i k_i ln(1 - p_i + p_i e^{t a_i})`` is the cumulant generating
    function of ``S``; every ``t > 0`` gives a valid bound, so a grid of ``t`` suffices.
    Returns 1 when ``s`` is not above the null mean.
    """
    var, mean = r.moments[0], _dot(r.ka, r.p)
    if not (var > 0 and s > mean):
        return 1.0
    t = (s - mean) / var * _CHERNOFF_GRID
    p = r.p
    # under: exp of a term far below the other is 0 in logaddexp, as it should be
    with np.errstate(divide="ignore", over="ignore", under="ignore"):
        log_mgf = np.logaddexp(np.log1p(-p), np.log(p) + t * r.atom)
    expo = np.einsum("ij,j->i", log_mgf, r.k) - t[:, 0] * s
    return float(min(1.0, math.exp(min(0.0, float(expo.min())))))


def _settled(prob: float, m: int, power: float, m_alt: int, csr_above_one: bool,
             certified_risky: bool) -> bool:
    """Whether another look could still move the band (see ``SEQ_MARGIN``)."""
    def far(x: float, t: float, n: int) -> bool:
        return abs(x - t) > SEQ_MARGIN * math.sqrt(t * (1.0 - t) / n)

    if csr_above_one:
        if certified_risky:
            return True
        if not (far(prob, P_EVIDENCE, m) and far(prob, P_RISKY, m)):
            return False
        if prob > P_EVIDENCE:
            return True  # power does not enter the band
    return far(power, POWER_MIN, m_alt)


def _sequential(r: Rows, n_sim: int, base: int,
                first: tuple[np.ndarray, np.ndarray] | None = None
                ) -> tuple[float, float, int, float]:
    """P(S* < S_obs), the power, the draws used and the standard error of P.

    Looks of 1,000, then 4,000, 16,000 ... draws (up to ``n_sim``) from streams
    derived from ``base``; the simulation stops at the first look where the band can
    no longer change (P_risk ``SEQ_MARGIN`` standard errors away from the 1- and
    3-sigma thresholds; the power away from ``POWER_MIN`` when it matters).  A
    Chernoff bound on ``P(S* >= S_obs)`` below ``1 - P_RISKY`` settles "risky" at once
    and bounds P_risk from below.
    """
    s_obs = r.s_obs
    tol = 1e-10 * max(s_obs, r.denom)
    above = s_obs / r.denom > 1.0
    p0, p1 = r.p, alt_p(r.p)
    floor, certified = 0.0, False
    h0: list[np.ndarray] = []
    h1: list[np.ndarray] = []
    m = m_alt = look = 0
    while True:
        b = min(SEQ_FIRST if not m else (SEQ_GROWTH - 1) * m, n_sim - m)
        h0.append(first[0] if first is not None and not look
                  else look_draws(r, p0, b, base, look, 0))
        null = np.concatenate(h0) if look else h0[0]
        m += b
        prob = float(np.count_nonzero(null < s_obs - tol)) / m
        if above and prob > P_EVIDENCE and not certified and look == 0:
            # a rigorous lower bound of P_risk: settles "risky" without 20,000 draws
            floor = 1.0 - chernoff_upper_tail(r, s_obs - tol)
            certified = floor > P_RISKY
        if not (above and look and prob > P_EVIDENCE):
            # the power decides the band only below the 1-sigma threshold; it is
            # simulated at every look there, once otherwise
            b_alt = max(b // 4, min(b, SEQ_FIRST))
            h1.append(first[1] if first is not None and not look
                      else look_draws(r, p1, b_alt, base, look, 1))
            m_alt += b_alt
        kth = min(math.floor(P_EVIDENCE * m), m - 1)
        crit = float(np.partition(null, kth)[kth])
        power = float(np.count_nonzero(np.concatenate(h1) > crit + tol)) / m_alt
        look += 1
        if m >= n_sim or _settled(max(prob, floor), m, power, m_alt, above, certified):
            break
    se = math.sqrt(prob * (1.0 - prob) / m)
    return max(prob, floor), power, m, se


def _skew(k3: float, var: float) -> float:
    """The skewness ``k3 / var**1.5``, divided in steps: rows weighing 2**-500 of the
    largest give var about 1e-300, whose power 1.5 underflows to 0."""
    return k3 / var / math.sqrt(var) if var > 0 else math.nan


def _seed_base(rng: np.random.Generator) -> int:
    """A stream base from a generator: negative, so its blocks are not kept."""
    return -1 - int(rng.integers(2 ** 62))


def null_test(r: Rows, method: str, n_sim: int, rng: np.random.Generator,
          base: int | None = None, first: tuple[np.ndarray, np.ndarray] | None = None
          ) -> NullTest:
    """P_risk, power and the method actually used for the rows ``r``."""
    var, k3, share = _null_moments(r)
    skew = _skew(k3, var)
    lattice = r.lattice
    csr_value = r.s_obs / r.denom
    z = (r.s_obs - r.denom) / math.sqrt(var) if var > 0 else math.nan
    valid = is_valid(share, skew, lattice, z)
    facts = validity_facts(share, skew, lattice)
    if math.isnan(z):
        return NullTest(math.nan, math.nan, "normal", "no null variance: every weight is 0",
                     0, share, skew, lattice)
    if method == "normal" or (method == "auto" and valid):
        why = ("normal approximation valid: " + facts if valid else
               "normal approximation as requested, although it is not valid here: " + facts)
        return NullTest(p_normal(csr_value, z), _normal_power(r, var), "normal", why, 0,
                     share, skew, lattice)
    heavy = None
    if method == "auto" and len(r.c) > FULL_MONTE_CARLO_ROWS:
        heavy = _heavy_split(r)
    above = csr_value > 1.0
    if method == "auto" and heavy is None:
        prob, power, used, se = _sequential(
            r, n_sim, _seed_base(rng) if base is None else base, first)
        why = (f"normal approximation invalid ({facts}): Monte Carlo null, {used} draws "
               f"(sequential: stopped when the band was settled, at most {n_sim}), "
               f"Monte Carlo standard error of P_risk {se:.4f}")
        return NullTest(prob, power, "monte_carlo", why, used, share, skew, lattice, se)
    if method == "auto":
        assert heavy is not None
        light, s_obs = _light_of(r, heavy)
        return conditional_null(
            r.subset(heavy), light, s_obs, n_sim, _seed_base(rng) if base is None else base,
            above, len(r.c) - int(heavy.sum()), facts, (share, skew, lattice))
    prob, power = _monte_carlo(r, n_sim, rng)
    se = math.sqrt(prob * (1.0 - prob) / n_sim)
    why = f"Monte Carlo null as requested ({n_sim} draws); " + facts
    return NullTest(prob, power, "monte_carlo", why, n_sim, share, skew, lattice, se)


def validity_facts(share: float, skew: float, lattice: float) -> str:
    """The validity statistics and their limits in words, as :func:`is_valid` applies
    them (the skewness limit is tighter beyond ``TAIL_Z``)."""
    skew_limit = f"{SKEWNESS_MAX:g}, {TAIL_SKEWNESS_MAX:g} where z > {TAIL_Z:g}"
    return (f"the largest row carries {share:.1%} of the null variance (limit "
            f"{LINDEBERG_MAX:.0%}), the null skewness is {skew:.2f} (limit "
            f"{skew_limit}) and tied rows jump by {lattice:.2f} sd (limit {LATTICE_MAX:g})")


def conditional_null(top: Rows, light: LightRows, s_obs: float, n_sim: int, base: int,
                     above: bool, n_light: float, facts: str,
                     validity: tuple[float, float, float]) -> NullTest:
    """The test by :func:`conditional_p_risk` (``top`` rows drawn, ``n_light`` others in
    law), with its reason; ``validity``: share, skewness and lattice ratio, ``facts``."""
    prob, power, used, se = conditional_p_risk(top, light, s_obs, n_sim, base, above)
    why = (f"normal approximation invalid ({facts}): Monte Carlo null, {used} draws "
           f"(sequential, at most {n_sim}) of the {len(top.c)} rows of largest variance, "
           f"exact cumulants (Edgeworth law) of the other {n_light:.0f}, "
           f"Monte Carlo standard error of P_risk {se:.4f}")
    return NullTest(prob, power, "monte_carlo", why, used, *validity, se)


def batched_first(r: Rows, method: str, n_sim: int, base: int) -> bool:
    """Whether ``null_test`` would start the sequential null on pooled Bernoulli draws."""
    if method != "auto" or len(r.c) > FULL_MONTE_CARLO_ROWS or not r.moments[0] > 0:
        return False
    var, k3, share = r.moments
    if is_valid(share, _skew(k3, var), r.lattice, (r.s_obs - r.denom) / math.sqrt(var)):
        return False
    return reads_pool(r, base, min(SEQ_FIRST, n_sim))


def first_looks(profiles: list[Rows], n_sim: int, base: int
                ) -> list[tuple[np.ndarray, np.ndarray]]:
    """The first look of :func:`_sequential` for many profiles in one pass.

    Exactly the draws of :func:`~calreport.metrics._risk_draws.look_draws` for each
    profile (the same block rows, the same order of the sums), from one
    :func:`~calreport.metrics._risk_draws.pooled_sums` over all profiles
    instead of one each.
    """
    b = min(SEQ_FIRST, n_sim)
    b_alt = max(b // 4, min(b, SEQ_FIRST))
    sizes = np.array([len(r.c) for r in profiles])
    rows = np.arange(sizes.sum()) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    group = np.repeat(np.arange(len(profiles)), sizes)
    atom = np.concatenate([r.atom[r.canonical] for r in profiles])
    p0 = np.concatenate([r.p[r.canonical] for r in profiles])
    null_draws, alt_draws = (
        pooled_sums(group, rows, atom, p, len(profiles), bb, base, 0, kind)
        for kind, p, bb in ((0, p0, b), (1, alt_p(p0), b_alt)))
    return list(zip(null_draws, alt_draws, strict=True))
