"""Overconfidence risk: the Calibrated Size Ratio (CSR), its spread, z, P_risk and verdict.

The definitions follow Martin-Maroto, Abderrahaman-Elena & de Polavieja (2026),
"Beyond ECE", arXiv:2605.01796: section 2.1 (Definition 2), appendix A.2
(Propositions 2-8) and section 4 (limitations of the normal approximation at small N).
On top of them this module decides a verdict a reviewer can sign: the normal
approximation is used only where the data make it valid, certainty claims are judged
on their own, and a test without power says "undetermined".
"""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
from scipy import special

from calreport import _validate as v

__all__ = [
    "BANDS",
    "ClippedConfidenceWarning",
    "RiskResult",
    "band_label",
    "certain_error_upper",
    "clip_confidence",
    "csr",
    "csr_contributions",
    "normal_validity",
    "p_risk",
    "risk_band",
    "risk_summary",
    "sigma_csr",
    "z_csr",
]

#: Default clipping of confidences away from 0 and 1.
EPS = 1e-8
#: Default number of Monte Carlo draws of the null (standard error of P_risk <= 0.0036).
N_SIM = 20000
#: Normal approximation of the CSR null is valid when no single row carries more than
#: this share of the null variance (Lindeberg-type ratio) ...
LINDEBERG_MAX = 0.05
#: ... and the absolute skewness of the null is at most this ...
SKEWNESS_MAX = 0.25
#: ... and no group of tied rows carrying >= 10 % of the variance has an error size
#: above this fraction of the null standard deviation (lattice nulls; see
#: ``normal_validity``).
LATTICE_MAX = 0.1
#: Power is computed against errors RHO times as frequent as the confidences claim.
POWER_RHO = 2.0
#: Below this power a "no evidence" verdict becomes "undetermined".
POWER_MIN = 0.5
#: One-sided level of the Clopper-Pearson bound on the error rate of certainty claims.
CERTAIN_LEVEL = 0.95
#: ``method="auto"`` simulates every row below this many rows; above, only the rows
#: that break the normal approximation (the others enter through their exact moments).
FULL_MONTE_CARLO_ROWS = 200
#: Elements of one simulation tile (bounds memory at about 32 MiB of float64).
_TILE = 1 << 22
_METHODS = ("auto", "normal", "monte_carlo")
_WEIGHTS = ("importance", "frequency")

#: The one band vocabulary of calreport, most to least severe: key -> (label, meaning).
BANDS: MappingProxyType[str, tuple[str, str]] = MappingProxyType({
    "risky": ("risky",
              "overconfidence beyond 3 sigma (P_risk > 99.87 %), or a wrong certainty "
              "claim"),
    "evidence": ("evidence of overconfidence",
                 "overconfidence beyond 1 sigma (P_risk > 84.13 %)"),
    "undetermined": ("undetermined",
                     "the data cannot support a verdict: certainty claims that finite "
                     "data cannot confirm, too few rows or no power"),
    "no_evidence": ("no evidence of overconfidence",
                    "P_risk <= 84.13 % (z <= 1) with a test that had power"),
})
#: P_risk thresholds of the bands: the normal probabilities of 1 and 3 sigma.
P_EVIDENCE = float(special.ndtr(1.0))
P_RISKY = float(special.ndtr(3.0))


class ClippedConfidenceWarning(UserWarning):
    """A confidence of exactly 1 was clipped to ``1 - eps`` for CSR."""


def band_label(key: str) -> str:
    """Label of a band key of :data:`BANDS`.

    Examples
    --------
    >>> band_label("no_evidence")
    'no evidence of overconfidence'
    """
    return BANDS[key][0]


def clip_confidence(conf: Any, *, eps: float = EPS, warn: bool = True
                    ) -> tuple[np.ndarray, int]:
    """Clip confidences to ``[eps, 1 - eps]`` and count how many were changed.

    Parameters
    ----------
    conf : array-like of float, shape (N,)
        Top-label confidences in [0, 1].
    eps : float, default 1e-8
        Clipping margin, in (0, 0.5).
    warn : bool, default True
        Emit one :class:`ClippedConfidenceWarning` with the count when confidences of
        exactly 1 were clipped (without clipping, an error at confidence 1 makes CSR
        infinite).

    Returns
    -------
    clipped : ndarray of float64
    n_clipped : int

    Raises
    ------
    ValueError
        When ``eps`` is not in (0, 0.5) or a confidence is outside [0, 1].

    Notes
    -----
    Clipping ``c -> 1 - max(1 - c, delta)`` with ``N delta << 1`` leaves P_risk
    essentially unaltered (Martin-Maroto et al. 2026, section 4).  The verdict of
    :func:`risk_summary` does not depend on ``eps``: clipped rows are certainty claims
    and are judged on their own.

    References
    ----------
    Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond ECE:
    Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics. arXiv
    preprint. arXiv:2605.01796. Section 4.

    Examples
    --------
    >>> c, n = clip_confidence([0.5, 0.999999999], warn=False)
    >>> n, float(c[1])
    (1, 0.99999999)
    """
    c = v.check_probability(conf, "conf")
    eps = _check_eps(eps)
    clipped = np.clip(c, eps, 1.0 - eps)
    n_one = int(np.count_nonzero(c == 1.0))
    if warn and n_one:
        warnings.warn(
            f"{n_one} confidence(s) of exactly 1 were clipped to 1 - {eps:g} for CSR; an "
            "error at confidence 1 would make CSR infinite. They count as certainty "
            "claims in risk_summary().",
            ClippedConfidenceWarning, stacklevel=3,
        )
    return clipped, int(np.count_nonzero(clipped != c))


def _check_eps(eps: Any) -> float:
    eps = v.check_positive_number(eps, "eps")
    if eps >= 0.5:
        raise ValueError(f"`eps` must be below 0.5, got {eps!r}.")
    return eps


def _check_weights(sample_weight: Any, n: int, kind: str) -> np.ndarray:
    """Weights as float64 (ones when absent); frequency weights must be integers."""
    v.check_option(kind, "weights", _WEIGHTS)
    w = v.check_sample_weight(sample_weight, n)
    if w is None:
        return np.ones(n)
    if kind == "frequency":
        bad = w != np.floor(w)
        if bad.any():
            pos = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"`sample_weight` has {int(bad.sum())} non-integer value(s) (first "
                f"{w[pos]!r} at row {pos}) but weights='frequency' means repeat counts. "
                "Pass integer counts, or weights='importance' for relative weights.")
        if w.max() > 2.0 ** 62:
            raise ValueError("`sample_weight` holds frequency counts above 2**62; pass "
                             "weights='importance' for relative weights.")
    return w


@dataclass(frozen=True)
class _Rows:
    """Rows with positive weight, in the sum form ``S = sum_i a_i Y_i``.

    ``Y_i`` is the number of errors among the ``k_i`` copies of row i (``k_i = 1`` for
    importance weights, the count for frequency weights), ``a_i`` its size in CSR
    numerator units and ``denom`` the CSR denominator, so ``CSR = S / denom`` and,
    under calibration, ``E[S] = denom``.  Importance weights are divided by their
    maximum first, so no sum overflows or underflows.
    """

    c: np.ndarray
    raw: np.ndarray
    wrong: np.ndarray
    atom: np.ndarray
    k: np.ndarray
    w: np.ndarray
    denom: float
    kind: str

    @property
    def p(self) -> np.ndarray:
        return 1.0 - self.c

    def subset(self, mask: np.ndarray) -> _Rows:
        w = self.w[mask]
        return _Rows(self.c[mask], self.raw[mask], self.wrong[mask], self.atom[mask],
                     self.k[mask], w, float(w.sum()), self.kind)

    @property
    def s_obs(self) -> float:
        return float((self.atom * self.k * self.wrong).sum())

    @property
    def count(self) -> float:
        return float(self.k.sum())


def _rows(conf: Any, correct: Any, sample_weight: Any, eps: float, kind: str,
          warn: bool = True) -> tuple[_Rows, int]:
    raw = v.check_probability(conf, "conf")
    c, n_clipped = clip_confidence(raw, eps=eps, warn=warn)
    ok = v.check_binary_indicator(correct, "correct")
    v.check_consistent_length(conf=len(c), correct=len(ok))
    w = _check_weights(sample_weight, len(c), kind)
    keep = w > 0
    c, raw, ok, w = c[keep], raw[keep], ok[keep], w[keep]
    if kind == "frequency":
        k = w
        atom = 1.0 / (1.0 - c)
    else:
        w = w / w.max()
        k = np.ones(len(c))
        atom = w / (1.0 - c)
    return _Rows(c, raw, ~ok, atom, k, w, float(w.sum()), kind), n_clipped


def _null_moments(r: _Rows) -> tuple[float, float, float]:
    """Variance, third central moment and largest single-unit share of ``S``'s null."""
    p = r.p
    unit_var = r.atom ** 2 * p * r.c
    var = float((r.k * unit_var).sum())
    k3 = float((r.k * r.atom ** 3 * p * r.c * (1.0 - 2.0 * p)).sum())
    share = float(unit_var.max() / var) if var > 0 else math.nan
    return var, k3, share


def _tie_groups(atom: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of the distinct (error size, confidence) pairs and the inverse map."""
    _, first, inv = np.unique(atom + 1j * c, return_index=True, return_inverse=True)
    return first, inv.ravel()


def _lattice_ratio(r: _Rows, var: float) -> float:
    """Largest error size / null sd among tie groups with >= 10 % of the variance."""
    if not var > 0:
        return math.nan
    first, inv = _tie_groups(r.atom, r.c)
    group_var = np.bincount(inv, weights=r.k * r.atom ** 2 * r.p * r.c)
    big = group_var >= 0.1 * var
    return float(r.atom[first][big].max() / math.sqrt(var)) if big.any() else 0.0


def csr_contributions(conf: Any, correct: Any, *, sample_weight: Any = None,
                      eps: float = EPS, weights: str = "importance") -> np.ndarray:
    """Each row's share of CSR: ``w_i (1 - correct_i) / (1 - c_i) / sum(w)``.

    The contributions sum to :func:`csr`; reports list the largest ones as the
    errors that drive the risk.  Rows of weight 0 contribute 0.

    Parameters
    ----------
    conf, correct, sample_weight, eps, weights
        As in :func:`csr`.

    Returns
    -------
    ndarray of float64, shape (N,)

    Examples
    --------
    >>> csr_contributions([0.9, 0.5], [0, 1]).tolist()
    [5.000000000000001, 0.0]
    """
    c, _ = clip_confidence(conf, eps=eps, warn=False)
    ok = v.check_binary_indicator(correct, "correct")
    v.check_consistent_length(conf=len(c), correct=len(ok))
    w = _check_weights(sample_weight, len(c), weights)
    w = w / w.max()
    return w * (~ok) / (1.0 - c) / w.sum()


def csr(conf: Any, correct: Any, *, sample_weight: Any = None, eps: float = EPS,
        weights: str = "importance") -> float:
    """Calibrated Size Ratio.

    Parameters
    ----------
    conf : array-like of float, shape (N,)
        Confidence in the predicted class, in [0, 1].
    correct : array-like of bool or 0/1, shape (N,)
        Whether each prediction is correct.
    sample_weight : array-like, optional
        Non-negative row weights.
    eps : float, default 1e-8
        Confidences are clipped to ``[eps, 1 - eps]`` (see :func:`clip_confidence`).
    weights : {"importance", "frequency"}, default "importance"
        Meaning of ``sample_weight``: relative weights (the value is invariant to
        multiplying all weights by a constant) or integer repeat counts (equal to
        repeating rows).  CSR itself is the same under both.

    Returns
    -------
    float
        1 for a pointwise-calibrated profile; above 1 signals overconfidence.

    Raises
    ------
    ValueError
        Confidences outside [0, 1], non-0/1 ``correct``, lengths that differ, negative
        weights or non-integer frequency weights.

    Notes
    -----
    ``CSR = (1/N) sum_i (1 - 1[correct_i]) / (1 - c_i) = (1/N) sum_{i wrong} 1/(1 - c_i)``.
    Weighted: ``sum_i w_i (1 - correct_i) / (1 - c_i) / sum_i w_i``.

    References
    ----------
    Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond ECE:
    Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics. arXiv
    preprint. arXiv:2605.01796. Section 2.1, Definition 2.

    Examples
    --------
    >>> round(csr([0.9, 0.8, 0.5, 0.5], [1, 0, 1, 0]), 12)  # (1/0.2 + 1/0.5) / 4
    1.75
    """
    r, _ = _rows(conf, correct, sample_weight, eps, weights)
    return r.s_obs / r.denom


def sigma_csr(conf: Any, *, sample_weight: Any = None, eps: float = EPS,
              weights: str = "importance") -> float:
    """Standard deviation of CSR under calibration.

    Parameters
    ----------
    conf, sample_weight, eps, weights
        As in :func:`csr`.

    Returns
    -------
    float

    Notes
    -----
    If ``correct_i ~ Bernoulli(c_i)``, ``Var(CSR) = (1/N^2) sum_i c_i / (1 - c_i)``,
    so ``sigma_CSR = sqrt(sum_i c_i / (1 - c_i)) / N`` (Proposition 6).  Importance
    weights: ``sqrt(sum_i w_i^2 c_i / (1 - c_i)) / sum_i w_i``, invariant to the weight
    scale.  Frequency weights: ``sqrt(sum_i w_i c_i / (1 - c_i)) / sum_i w_i``, equal to
    repeating row i ``w_i`` times.

    References
    ----------
    Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond ECE:
    Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics. arXiv
    preprint. arXiv:2605.01796. Appendix A.2, Proposition 6.

    Examples
    --------
    >>> round(sigma_csr([0.5, 0.5, 0.5, 0.5]), 6)  # sqrt(4 * 1) / 4
    0.5
    """
    c = v.check_probability(conf, "conf")
    r, _ = _rows(c, np.ones(len(c), bool), sample_weight, eps, weights, warn=False)
    return math.sqrt(_null_moments(r)[0]) / r.denom


def z_csr(conf: Any, correct: Any, *, sample_weight: Any = None, eps: float = EPS,
          weights: str = "importance") -> float:
    """``z = (CSR - 1) / sigma_CSR`` on all rows.

    Parameters
    ----------
    conf, correct, sample_weight, eps, weights
        As in :func:`csr`.

    Returns
    -------
    float

    References
    ----------
    Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond ECE:
    Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics. arXiv
    preprint. arXiv:2605.01796. Section 2.1.

    Examples
    --------
    >>> z_csr([0.5, 0.5, 0.5, 0.5], [0, 0, 0, 1])  # CSR = 1.5, sigma = 0.5
    1.0
    """
    r, _ = _rows(conf, correct, sample_weight, eps, weights)
    return _z(r)


def _z(r: _Rows) -> float:
    var = _null_moments(r)[0]
    return (r.s_obs - r.denom) / math.sqrt(var) if var > 0 else math.nan


def _p_normal(csr_value: float, z: float) -> float:
    """The paper's P_risk: ``Phi(z)`` when CSR > 1, else 0."""
    if math.isnan(z):
        return math.nan
    return float(special.ndtr(z)) if csr_value > 1.0 else 0.0


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

    def cdf0(x: float) -> float:
        return float(special.ndtr((x - h0 - mu0) / sd0).mean())

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


def p_risk(conf: Any, correct: Any, *, method: str = "auto", sample_weight: Any = None,
           eps: float = EPS, n_sim: int = N_SIM, seed: Any = None,
           weights: str = "importance") -> float:
    """Probability that the observed overconfidence is not due to chance.

    Parameters
    ----------
    conf, correct, sample_weight, eps, weights
        As in :func:`csr`.
    method : {"auto", "normal", "monte_carlo"}, default "auto"
        ``"normal"`` (the paper's): ``Phi(z)`` when CSR > 1, else 0.
        ``"monte_carlo"``: the null distribution of CSR under ``correct_i ~
        Bernoulli(c_i)`` by simulation, ``P(CSR* < CSR_obs)`` when CSR > 1, else 0.
        ``"auto"``: normal where :func:`normal_validity` holds, else Monte Carlo.
    n_sim : int, default 20000
        Monte Carlo draws (standard error <= 0.0036).
    seed : int, Generator or None
        Random stream of the Monte Carlo null.

    Returns
    -------
    float

    Notes
    -----
    Table 6 of the paper uses ``Phi(z)`` when CSR > 1 and 0 otherwise (CSR 0.9517,
    sigma 0.1337 -> 0.00 %; CSR 1.1729, sigma 2.9505 -> 52.34 %).  Section 4 notes that
    the normal approximation is poor at small N: CSR is a weighted sum of Bernoulli
    errors whose sizes ``1/(1 - c_i)`` are heavy-tailed.  (A Lugannani-Rice saddlepoint
    approximation was tried and rejected: on 40-row profiles it erred by up to 0.15.)

    References
    ----------
    Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond ECE:
    Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics. arXiv
    preprint. arXiv:2605.01796. Section 2.1, section 4 and Table 6.

    Examples
    --------
    >>> round(p_risk([0.5] * 4, [0, 0, 0, 1], method="normal"), 4)  # z = 1
    0.8413
    """
    return risk_summary(conf, correct, method=method, sample_weight=sample_weight, eps=eps,
                        n_sim=n_sim, seed=seed, weights=weights).p_risk


def risk_band(z: float) -> tuple[str, str]:
    """Band of a z-score by the paper's 1-sigma / 3-sigma columns: (key, label).

    z <= 1: ``"no_evidence"``; 1 < z <= 3: ``"evidence"``; z > 3: ``"risky"``; NaN:
    ``"undetermined"``.  This is the rule on z alone; the verdict of
    :func:`risk_summary` also checks validity, power and certainty claims.

    Examples
    --------
    >>> risk_band(0.2), risk_band(2.0)[0], risk_band(float("nan"))[0]
    (('no_evidence', 'no evidence of overconfidence'), 'evidence', 'undetermined')
    """
    if z is None or math.isnan(z):
        key = "undetermined"
    elif z > 3.0:
        key = "risky"
    elif z > 1.0:
        key = "evidence"
    else:
        key = "no_evidence"
    return key, BANDS[key][0]


def _band_of_p(p: float) -> str:
    if math.isnan(p):
        return "undetermined"
    if p > P_RISKY:
        return "risky"
    if p > P_EVIDENCE:
        return "evidence"
    return "no_evidence"


@dataclass(frozen=True)
class RiskResult:
    """CSR, its significance and the verdict for one profile.

    Attributes
    ----------
    csr, sigma_csr, z_csr, p_risk : float
        The paper's statistics on all rows (confidences clipped to [eps, 1 - eps]).
    p_risk_method : str
        ``"normal"`` or ``"monte_carlo"``: the method actually used for ``p_risk``.
    band : str
        Verdict, a key of :data:`BANDS`.
    band_label : str
        Its label.
    n : float
        Rows with positive weight (frequency weights: their sum).
    n_clipped : int
        Confidences moved by clipping.
    n_clipped_one : int
        Confidences of exactly 1.
    eps : float
    p_risk_note : str
        What ``p_risk`` means here, printable next to z.
    method_reason : str
        Why ``p_risk_method`` was used.
    band_reason : str
        Plain-English reason of the verdict.
    weights : str
        ``"importance"`` or ``"frequency"``.
    n_eff : float
        Kish effective sample size ``(sum w)^2 / sum w^2`` (frequency: ``sum w``).
    n_certain, n_certain_wrong : float
        Certainty claims (confidence >= 1 - eps) and the wrong ones.
    certain_error_upper : float
        Clopper-Pearson one-sided 95 % upper bound of their error rate (NaN if none).
    rest_n : float
        Rows below certainty, on which the band rests.
    rest_csr, rest_sigma_csr, rest_z_csr, rest_p_risk : float
        The statistics on those rows.
    rest_p_risk_method, rest_method_reason : str
        Method of ``rest_p_risk`` and why.
    rest_power : float
        Probability that the rest-of-rows test reaches "evidence" (z > 1 or its Monte
        Carlo equivalent) when errors are ``POWER_RHO`` = 2 times as frequent as the
        confidences claim.
    lindeberg_ratio, null_skewness, lattice_ratio : float
        Validity statistics of the normal approximation on the rows below certainty
        (see :func:`normal_validity`).
    n_sim : int
        Monte Carlo draws used (0 for the normal approximation).
    """

    csr: float
    sigma_csr: float
    z_csr: float
    p_risk: float
    p_risk_method: str
    band: str
    band_label: str
    n: float
    n_clipped: int
    n_clipped_one: int
    eps: float
    p_risk_note: str = ""
    method_reason: str = ""
    band_reason: str = ""
    weights: str = "importance"
    n_eff: float = math.nan
    n_certain: float = 0.0
    n_certain_wrong: float = 0.0
    certain_error_upper: float = math.nan
    rest_n: float = math.nan
    rest_csr: float = math.nan
    rest_sigma_csr: float = math.nan
    rest_z_csr: float = math.nan
    rest_p_risk: float = math.nan
    rest_p_risk_method: str = ""
    rest_method_reason: str = ""
    rest_power: float = math.nan
    lindeberg_ratio: float = math.nan
    null_skewness: float = math.nan
    lattice_ratio: float = math.nan
    n_sim: int = 0

    @property
    def z(self) -> float:
        """Deprecated name of :attr:`z_csr`."""
        warnings.warn("RiskResult.z is deprecated; use RiskResult.z_csr.", FutureWarning,
                      stacklevel=2)
        return self.z_csr

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the fields."""
        return asdict(self)


def _note(csr_value: float, p: float, z: float, test: _Test) -> str:
    if math.isnan(p):
        return "P_risk undefined: no null variance"
    if csr_value <= 1.0:
        return ("CSR <= 1: no overconfidence to assess (P_risk = 0 by convention, "
                "Martin-Maroto et al. (2026), Table 6)")
    if test.method == "normal":
        what = (f"P_risk = Phi(z) = Phi({z:.2f}) = {p:.1%}: normal approximation of the "
                "probability that CSR under calibration stays below the observed value")
    else:
        what = (f"P_risk = {p:.1%}: share of {test.n_sim} Monte Carlo draws of CSR under "
                "calibration (correct_i ~ Bernoulli(c_i)) below the observed value")
    return (what + f"; evidence needs > {P_EVIDENCE:.2%} (z > 1), risky > {P_RISKY:.2%} "
            "(z > 3)")


def risk_summary(conf: Any, correct: Any, *, sample_weight: Any = None, eps: float = EPS,
                 method: str = "auto", n_sim: int = N_SIM, seed: Any = None,
                 weights: str = "importance") -> RiskResult:
    """CSR, sigma_CSR, z, P_risk and a verdict a reviewer can sign.

    Parameters
    ----------
    conf, correct, sample_weight, eps, weights
        As in :func:`csr`.
    method : {"auto", "normal", "monte_carlo"}, default "auto"
        How P_risk is computed (see :func:`p_risk`); ``"auto"`` uses the normal
        approximation only where :func:`normal_validity` holds.
    n_sim : int, default 20000
        Monte Carlo draws.
    seed : int, Generator or None
        Random stream of the Monte Carlo null (results are reproducible with an int).

    Returns
    -------
    RiskResult

    Raises
    ------
    ValueError
        Invalid confidences, correctness, weights or options.

    Notes
    -----
    ``csr``, ``sigma_csr``, ``z`` and ``p_risk`` are the paper's definitions on all rows.
    The verdict (``band``) is decided as follows.

    1. Certainty claims, rows with confidence >= 1 - eps, are judged on their own:
       one wrong claim makes the band ``"risky"``.  With none wrong the exact
       Clopper-Pearson bound of their error rate is reported; finite data cannot
       confirm a claim of certainty, so the band is then at best ``"undetermined"``.
    2. The other rows are tested: P_risk by the normal approximation where it is valid
       (no row carries more than 5 % of the null variance, null skewness <= 0.25),
       else by the Monte Carlo null.  ``P_risk > Phi(3)`` -> ``"risky"``,
       ``> Phi(1)`` -> ``"evidence"`` (the paper's 3-sigma / 1-sigma columns).
    3. A "no evidence" result of a test whose power is below 50 % against errors twice
       as frequent as claimed (``p_i = min(2 (1 - c_i), 1)``) becomes
       ``"undetermined"``.

    So ``eps`` never decides the verdict: rows it moves are claims of certainty, judged
    by their errors.  Weights are importance weights by default (every value, z,
    P_risk and band is invariant to multiplying them by a constant; Kish ``n_eff``
    reported) or, with ``weights="frequency"``, integer counts equal to repeated rows.

    References
    ----------
    Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond ECE:
    Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics. arXiv
    preprint. arXiv:2605.01796. Section 2.1, appendix A.2, section 4.

    Clopper, C. J. & Pearson, E. S. (1934). The Use of Confidence or Fiducial Limits
    Illustrated in the Case of the Binomial. Biometrika 26(4), 404-413.
    doi:10.1093/biomet/26.4.404.

    Kish, L. (1965). Survey Sampling. John Wiley & Sons, New York. Section 11.7.

    Examples
    --------
    >>> r = risk_summary([0.5] * 4, [0, 0, 0, 1], method="normal")
    >>> r.csr, r.sigma_csr, r.z_csr, r.band
    (1.5, 0.5, 1.0, 'no_evidence')
    >>> risk_summary([1.0] * 50, [1] * 50, eps=1e-8).band  # doctest: +SKIP
    'undetermined'
    """
    v.check_option(method, "method", _METHODS)
    n_sim = v.check_positive_int(n_sim, "n_sim", minimum=100)
    eps = _check_eps(eps)
    r, n_clipped = _rows(conf, correct, sample_weight, eps, weights)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    n_one = float((r.k * (r.raw == 1.0)).sum())

    var_all = _null_moments(r)[0]
    csr_all = r.s_obs / r.denom
    sig_all = math.sqrt(var_all) / r.denom
    z_all = _z(r)
    certain = r.raw >= 1.0 - eps
    all_test = _test(r, method, n_sim, rng)

    if certain.any():
        cr, rest = r.subset(certain), r.subset(~certain)
        n_cert = cr.count
        wrong_share = float((cr.w * cr.wrong).sum() / cr.denom)
        if weights == "frequency":
            n_cw = float((cr.k * cr.wrong).sum())
            upper = certain_error_upper(n_cw, n_cert)
        else:
            n_cw = float(cr.wrong.sum())
            ne = cr.denom ** 2 / float((cr.w ** 2).sum())
            upper = certain_error_upper(ne * wrong_share, ne)
        rest_test = _test(rest, method, n_sim, rng) if len(rest.c) else None
    else:
        rest, n_cert, n_cw, upper, rest_test = r, 0.0, 0.0, math.nan, all_test

    if rest_test is not None:
        rest_csr = rest.s_obs / rest.denom
        rest_var = _null_moments(rest)[0]
        rest_sig = math.sqrt(rest_var) / rest.denom
        rest_z = _z(rest)
        rest_band = _band_of_p(rest_test.p_risk)
        rest_n = rest.count
    else:
        rest_csr = rest_sig = rest_z = math.nan
        rest_band, rest_n = "undetermined", 0.0

    rest_facts = (f"CSR {rest_csr:.3g}, z {rest_z:.2f}, P_risk {rest_test.p_risk:.1%} "
                  f"({rest_test.method.replace('_', ' ')})" if rest_test else "")
    if rest_band == "no_evidence" and not rest_test.power >= POWER_MIN:
        rest_band = "undetermined"
        rest_why = (f"the test had no power: errors twice as frequent as the confidences "
                    f"claim would reach 'evidence' with probability {rest_test.power:.0%} "
                    f"only (needs {POWER_MIN:.0%}); more rows are needed")
    elif rest_band == "undetermined":
        rest_why = "no rows below certainty to test"
    else:
        rest_why = f"{BANDS[rest_band][0]}: {rest_facts}"
        if rest_band == "no_evidence":
            rest_why += f", power {rest_test.power:.0%}"
    tag = "rows below certainty" if n_cert else "all rows"
    cert_facts = (f"{n_cert:g} certainty claim(s) (confidence >= 1 - {eps:g}), "
                  f"{n_cw:g} wrong")
    if n_cw > 0:
        band = "risky"
        reason = (f"{cert_facts}: a wrong claim of certainty is a confident error of "
                  "unbounded cost")
    elif n_cert and rest_band in ("evidence", "risky"):
        band = rest_band
        reason = f"{tag}: {rest_why}; {cert_facts}"
    elif n_cert:
        band = "undetermined"
        reason = (f"{cert_facts}, error rate <= {upper:.2%} (one-sided 95 % "
                  f"Clopper-Pearson); finite data cannot confirm certainty; {tag}: "
                  f"{rest_why}")
    else:
        band = rest_band
        reason = rest_why
    kish = (r.denom ** 2 / float((r.w ** 2).sum()) if weights == "importance"
            else r.denom)
    test_for_fields = rest_test or all_test
    return RiskResult(
        csr=csr_all, sigma_csr=sig_all, z_csr=z_all, p_risk=all_test.p_risk,
        p_risk_method=all_test.method, band=band, band_label=BANDS[band][0],
        n=r.count, n_clipped=n_clipped, n_clipped_one=int(n_one), eps=float(eps),
        p_risk_note=_note(csr_all, all_test.p_risk, z_all, all_test),
        method_reason=all_test.reason, band_reason=reason, weights=weights,
        n_eff=float(kish), n_certain=n_cert, n_certain_wrong=n_cw,
        certain_error_upper=upper, rest_n=rest_n, rest_csr=rest_csr,
        rest_sigma_csr=rest_sig, rest_z_csr=rest_z,
        rest_p_risk=rest_test.p_risk if rest_test else math.nan,
        rest_p_risk_method=rest_test.method if rest_test else "",
        rest_method_reason=rest_test.reason if rest_test else "no rows below certainty",
        rest_power=rest_test.power if rest_test else math.nan,
        lindeberg_ratio=test_for_fields.lindeberg_ratio,
        null_skewness=test_for_fields.skewness,
        lattice_ratio=test_for_fields.lattice_ratio,
        n_sim=max(all_test.n_sim, rest_test.n_sim if rest_test else 0),
    )
