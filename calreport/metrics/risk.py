"""Overconfidence risk: the Calibrated Size Ratio (CSR), its spread, z and P_risk.

Source: 000_efda01fc1c8d5c44.txt ("Beyond ECE"), section 2.1 (Definition 2),
appendix A.2 (Propositions 2-8) and section 4 (limitations of the normal
approximation at small N).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import special

from calreport import _validate as v

__all__ = [
    "BANDS",
    "ClippedConfidenceWarning",
    "RiskResult",
    "clip_confidence",
    "csr",
    "csr_contributions",
    "p_risk",
    "risk_band",
    "risk_summary",
    "sigma_csr",
    "z_csr",
]

#: Default clipping of confidences away from 1 (000, section 4).
EPS = 1e-8
#: Below this many rows ``method="auto"`` uses the exact (Monte Carlo) P_risk.
AUTO_EXACT_BELOW = 1000
#: Risk bands of the reports: (code, label, upper bound of z).
BANDS = (
    ("no_evidence", "no evidence of overconfidence", 1.0),
    ("evidence", "evidence of overconfidence", 3.0),
    ("risky", "risky", math.inf),
)
_METHODS = ("normal", "monte_carlo", "auto")


class ClippedConfidenceWarning(UserWarning):
    """A confidence of exactly 1 was clipped to ``1 - eps`` for CSR."""


def clip_confidence(conf: Any, *, eps: float = EPS, warn: bool = True
                    ) -> tuple[np.ndarray, int]:
    """Clip confidences to ``[eps, 1 - eps]`` and count how many were changed.

    Parameters
    ----------
    conf : array-like of float, shape (N,)
        Top-label confidences in [0, 1].
    eps : float, default 1e-8
        Clipping margin.
    warn : bool, default True
        Emit a :class:`ClippedConfidenceWarning` when a confidence of exactly 1 was
        clipped (without clipping an error at confidence 1 makes CSR infinite).

    Returns
    -------
    clipped : ndarray of float64
    n_clipped : int

    Notes
    -----
    000_efda01fc1c8d5c44.txt, section 4: clipping ``c -> 1 - max(1 - c, delta)``
    with ``N delta << 1`` leaves P_risk essentially unaltered.

    Examples
    --------
    >>> c, n = clip_confidence([0.5, 0.999999999], warn=False)
    >>> n, float(c[1])
    (1, 0.99999999)
    """
    c = v.check_probability(conf, "conf")
    eps = v.check_positive_number(eps, "eps")
    if eps >= 0.5:
        raise ValueError(f"`eps` must be below 0.5, got {eps!r}.")
    clipped = np.clip(c, eps, 1.0 - eps)
    changed = clipped != c
    n_one = int(np.count_nonzero(c == 1.0))
    if warn and n_one:
        warnings.warn(
            f"{n_one} confidence(s) of exactly 1 were clipped to 1 - {eps:g} for CSR; an "
            "error at confidence 1 would make CSR infinite (000_efda01fc1c8d5c44.txt, A.2).",
            ClippedConfidenceWarning, stacklevel=3,
        )
    return clipped, int(np.count_nonzero(changed))


def _prepare(conf: Any, correct: Any, sample_weight: Any, eps: float, warn: bool = True
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    c, n_clipped = clip_confidence(conf, eps=eps, warn=warn)
    ok = v.check_binary_indicator(correct, "correct")
    v.check_consistent_length(conf=len(c), correct=len(ok))
    w = v.check_sample_weight(sample_weight, len(c))
    return c, ok, (np.ones(len(c)) if w is None else w), n_clipped


def csr_contributions(conf: Any, correct: Any, *, sample_weight: Any = None,
                      eps: float = EPS) -> np.ndarray:
    """Each row's share of CSR: ``w_i (1 - correct_i) / (1 - c_i) / sum(w)``.

    The contributions sum to :func:`csr`; reports list the largest ones as the
    errors that drive the risk.

    Examples
    --------
    >>> csr_contributions([0.9, 0.5], [0, 1]).tolist()
    [5.000000000000001, 0.0]
    """
    c, ok, w, _ = _prepare(conf, correct, sample_weight, eps, warn=False)
    return w * (~ok) / (1.0 - c) / w.sum()


def csr(conf: Any, correct: Any, *, sample_weight: Any = None, eps: float = EPS) -> float:
    """Calibrated Size Ratio.

    Parameters
    ----------
    conf : array-like of float, shape (N,)
        Confidence in the predicted class, in [0, 1].
    correct : array-like of bool or 0/1, shape (N,)
        Whether each prediction is correct.
    sample_weight : array-like, optional
        Non-negative row weights (integer weights = repeated rows).
    eps : float, default 1e-8
        Confidences are clipped to ``[eps, 1 - eps]`` (see :func:`clip_confidence`).

    Returns
    -------
    float
        1 for a pointwise-calibrated profile; above 1 signals overconfidence.

    Notes
    -----
    000_efda01fc1c8d5c44.txt, section 2.1, Definition 2:

    ``CSR = (1/N) sum_i (1 - 1[correct_i]) / (1 - c_i) = (1/N) sum_{i wrong} 1 / (1 - c_i)``.

    Weighted: ``sum_i w_i (1 - correct_i) / (1 - c_i) / sum_i w_i``.

    Examples
    --------
    >>> round(csr([0.9, 0.8, 0.5, 0.5], [1, 0, 1, 0]), 12)  # (1/0.2 + 1/0.5) / 4
    1.75
    """
    c, ok, w, _ = _prepare(conf, correct, sample_weight, eps)
    return float((w * (~ok) / (1.0 - c)).sum() / w.sum())


def sigma_csr(conf: Any, *, sample_weight: Any = None, eps: float = EPS) -> float:
    """Standard deviation of CSR under calibration.

    Notes
    -----
    000_efda01fc1c8d5c44.txt, appendix A.2, Proposition 6: if ``correct_i ~
    Bernoulli(c_i)``, ``Var(CSR) = (1/N^2) sum_i c_i / (1 - c_i)``, so
    ``sigma_CSR = sqrt(sum_i c_i / (1 - c_i)) / N``.  Weighted:
    ``sqrt(sum_i w_i c_i / (1 - c_i)) / sum_i w_i`` (integer weights = repeated rows).

    Examples
    --------
    >>> round(sigma_csr([0.5, 0.5, 0.5, 0.5]), 6)  # sqrt(4 * 1) / 4
    0.5
    """
    c = clip_confidence(conf, eps=eps, warn=False)[0]
    w = v.check_sample_weight(sample_weight, len(c))
    w = np.ones(len(c)) if w is None else w
    return float(math.sqrt(float((w * c / (1.0 - c)).sum())) / w.sum())


def z_csr(conf: Any, correct: Any, *, sample_weight: Any = None, eps: float = EPS) -> float:
    """``z = (CSR - 1) / sigma_CSR`` (000_efda01fc1c8d5c44.txt, section 2.1).

    NaN when sigma_CSR is 0 (every confidence is 0).

    Examples
    --------
    >>> z_csr([0.5, 0.5, 0.5, 0.5], [0, 0, 0, 1])  # CSR = 1.5, sigma = 0.5
    1.0
    """
    val = csr(conf, correct, sample_weight=sample_weight, eps=eps)
    sig = sigma_csr(conf, sample_weight=sample_weight, eps=eps)
    return (val - 1.0) / sig if sig > 0 else math.nan


def _p_normal(csr_value: float, z: float) -> float:
    if math.isnan(z):
        return math.nan
    return float(special.ndtr(z)) if csr_value > 1.0 else 0.0


def _p_monte_carlo(c: np.ndarray, w: np.ndarray, csr_value: float, n_sim: int,
                   rng: np.random.Generator) -> float:
    """``P_null(CSR* < CSR_obs)`` with ``correct* ~ Bernoulli(c)``, drawn in blocks."""
    scale = w / (1.0 - c) / w.sum()
    block = max(1, min(n_sim, (1 << 22) // max(len(c), 1)))
    below = 0
    done = 0
    while done < n_sim:
        b = min(block, n_sim - done)
        wrong = rng.random((b, len(c))) >= c
        sims = wrong.astype(np.float64) @ scale
        below += int(np.count_nonzero(sims < csr_value))
        done += b
    return below / n_sim


def p_risk(conf: Any, correct: Any, *, method: str = "normal", sample_weight: Any = None,
           eps: float = EPS, n_sim: int = 20000, seed: Any = None) -> float:
    """Probability that the observed overconfidence is not due to chance.

    Parameters
    ----------
    conf, correct, sample_weight, eps
        As in :func:`csr`.
    method : {"normal", "monte_carlo", "auto"}
        ``"normal"`` (the paper's): ``Phi(z)`` when CSR > 1, else 0.  ``"monte_carlo"``:
        the exact null distribution of CSR under ``correct_i ~ Bernoulli(c_i)`` by
        simulation, ``P(CSR* < CSR_obs)`` when CSR > 1, else 0.  ``"auto"``: Monte Carlo
        below 1000 rows, else normal.
    n_sim : int, default 20000
        Simulations of ``"monte_carlo"`` (standard error <= 0.0036).
    seed : int, Generator or None
        Random stream of ``"monte_carlo"``.

    Returns
    -------
    float

    Notes
    -----
    000_efda01fc1c8d5c44.txt, section 2.1 and Table 6 (CSR 0.9517, sigma 0.1337 ->
    0.00 %; CSR 1.1729, sigma 2.9505 -> 52.34 %).  Section 4 notes that the normal
    approximation is poor at small N: CSR is a weighted sum of Bernoulli errors whose
    weights ``1/(1 - c_i)`` are heavy-tailed, so the simulated exact null is
    preferable there.  (A Lugannani-Rice saddlepoint approximation of the same null
    was tried and rejected: the null is a lattice-like sum dominated by a few large
    atoms, and on 40-row profiles it erred by up to 0.15 against the simulation.)

    Examples
    --------
    >>> round(p_risk([0.5] * 4, [0, 0, 0, 1]), 4)  # z = 1
    0.8413
    """
    return risk_summary(conf, correct, method=method, sample_weight=sample_weight, eps=eps,
                        n_sim=n_sim, seed=seed).p_risk


def risk_band(z: float) -> tuple[str, str]:
    """Risk band of a z-score: (code, label).

    z <= 1: no evidence of overconfidence; 1 < z <= 3: evidence of overconfidence;
    z > 3: risky (the 1-sigma / 3-sigma columns of 000_efda01fc1c8d5c44.txt, Table 5).

    Examples
    --------
    >>> risk_band(0.2), risk_band(2.0)[0], risk_band(float("nan"))[0]
    (('no_evidence', 'no evidence of overconfidence'), 'evidence', 'undefined')
    """
    if z is None or math.isnan(z):
        return "undefined", "undefined"
    for code, label, upper in BANDS:
        if z <= upper:
            return code, label
    return BANDS[-1][0], BANDS[-1][1]  # pragma: no cover


@dataclass(frozen=True)
class RiskResult:
    """CSR and its significance for one profile.

    Attributes
    ----------
    csr, sigma_csr, z, p_risk : float
    p_risk_method : str
        Approximation used for P_risk.
    band, band_label : str
        Risk band code and label (see :func:`risk_band`).
    n : int
        Rows.
    n_clipped : int
        Confidences moved by clipping.
    n_clipped_one : int
        Confidences of exactly 1.
    eps : float
    """

    csr: float
    sigma_csr: float
    z: float
    p_risk: float
    p_risk_method: str
    band: str
    band_label: str
    n: int
    n_clipped: int
    n_clipped_one: int
    eps: float

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the fields."""
        return asdict(self)


def risk_summary(conf: Any, correct: Any, *, sample_weight: Any = None, eps: float = EPS,
                 method: str = "normal", n_sim: int = 20000, seed: Any = None) -> RiskResult:
    """CSR, sigma_CSR, z, P_risk and the risk band in one pass.

    See :func:`csr`, :func:`sigma_csr` and :func:`p_risk` for the definitions
    (000_efda01fc1c8d5c44.txt, section 2.1, appendix A.2).

    Examples
    --------
    >>> r = risk_summary([0.5] * 4, [0, 0, 0, 1])
    >>> r.csr, r.sigma_csr, r.z, r.band
    (1.5, 0.5, 1.0, 'no_evidence')
    """
    v.check_option(method, "method", _METHODS)
    n_sim = v.check_positive_int(n_sim, "n_sim", minimum=100)
    raw = v.check_probability(conf, "conf")
    c, ok, w, n_clipped = _prepare(raw, correct, sample_weight, eps)
    total = w.sum()
    value = float((w * (~ok) / (1.0 - c)).sum() / total)
    sig = float(math.sqrt(float((w * c / (1.0 - c)).sum())) / total)
    z = (value - 1.0) / sig if sig > 0 else math.nan
    used = method
    if method == "auto":
        used = "monte_carlo" if len(c) < AUTO_EXACT_BELOW else "normal"
    if math.isnan(z):
        p = math.nan
    elif value <= 1.0:
        p = 0.0
    elif used == "normal":
        p = _p_normal(value, z)
    else:
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        p = _p_monte_carlo(c, w, value, n_sim, rng)
    code, label = risk_band(z)
    return RiskResult(value, sig, z, p, used, code, label, len(c), n_clipped,
                      int(np.count_nonzero(raw == 1.0)), float(eps))
