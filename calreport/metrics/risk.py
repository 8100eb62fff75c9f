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
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from calreport import _labels as lab
from calreport import _validate as v

__all__ = [
    "BANDS", "BAND_RULE", "EPS", "N_SIM", "POWER_MIN", "P_EVIDENCE", "P_RISKY",
    "ClippedConfidenceWarning", "RiskResult", "band_label", "certain_error_upper",
    "clip_confidence", "csr", "csr_contributions", "decide_band", "normal_validity",
    "p_risk", "risk_band", "risk_summary", "rows_for_power", "rows_for_power_from_sums",
    "sigma_csr", "z_csr",
]

from calreport.metrics._risk_null import (
    NullTest,
    _seed_base,
    certain_error_upper,
    normal_validity,
    null_test,
)
from calreport.metrics._risk_rows import (
    _METHODS,
    EPS,
    N_SIM,
    P_EVIDENCE,
    P_RISKY,
    POWER_MIN,
    ClippedConfidenceWarning,
    _check_eps,
    _check_weights,
    _null_moments,
    _rows,
    _z,
    clip_confidence,
    p_normal,  # noqa: F401  (re-exported for tests)
)
from calreport.metrics.bands import (
    BAND_RULE,
    BANDS,
    band_and_reason,
    band_label,
    decide_band,
    risk_band,
)
from calreport.metrics.bands import band_of_p as _band_of_p  # noqa: F401
from calreport.metrics.risk_power import (
    _rows_for_power,
    agreeing_rows_for_power,
    rows_for_power,
    rows_for_power_from_sums,
)


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
    ok = lab.check_binary_indicator(correct, "correct")
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




@dataclass(frozen=True)
class RiskResult:
    """CSR, its significance and the verdict for one profile.

    One set of numbers: ``csr``, ``sigma_csr``, ``z_csr`` and ``p_risk`` are the
    paper's statistics on all rows (confidences clipped to [eps, 1 - eps]), and the band
    follows from ``p_risk`` (and ``power`` and the certainty claims) by
    :data:`BAND_RULE`.  Certainty claims, which never err under calibration, enter
    P_risk through its Monte Carlo null.

    Attributes
    ----------
    csr, sigma_csr, z_csr, p_risk : float
        The statistics that decide the band.
    p_risk_method : str
        ``"normal"`` (P_risk = Phi(z)) or ``"monte_carlo"`` (simulated null; z is then
        only a normal reading, not the rule).
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
        What ``p_risk`` means here, printable next to it.
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
    power : float
        Probability that the test reaches "evidence" when errors are ``POWER_RHO`` = 2
        times as frequent as the confidences claim (of the rows below certainty).
    n_for_power : float
        Rows like the ones below certainty needed for 80 % of that power
        (:func:`rows_for_power`), agreeing with ``power`` (:func:`agreeing_rows_for_power`).
    lindeberg_ratio, null_skewness, lattice_ratio : float
        Validity statistics of the normal approximation (see :func:`normal_validity`).
    n_sim : int
        Monte Carlo draws used (0 for the normal approximation).  ``method="auto"``
        simulates sequentially and stops as soon as the band is settled.
    p_risk_se : float
        Monte Carlo standard error of ``p_risk`` (0 for the normal approximation).
    p_risk_adjusted : float
        P_risk adjusted for the number of verdicts of a family of groups
        (:func:`calreport.metrics.multiplicity.adjust_verdicts`); NaN when not adjusted.
    band_adjusted, band_adjusted_reason : str
        The band by the same rule on ``p_risk_adjusted`` and why ("" when not adjusted).
    adjust : str
        The adjustment (``"holm"``, ``"bh"``) and ``n_tests`` the family size.
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
    power: float = math.nan
    n_for_power: float = math.nan
    lindeberg_ratio: float = math.nan
    null_skewness: float = math.nan
    lattice_ratio: float = math.nan
    n_sim: int = 0
    p_risk_se: float = 0.0
    p_risk_adjusted: float = math.nan
    band_adjusted: str = ""
    band_adjusted_reason: str = ""
    adjust: str = ""
    n_tests: int = 1

    @property
    def final_band(self) -> str:
        """The band that headlines and gates read: adjusted when adjusted."""
        return self.band_adjusted or self.band

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the fields."""
        return asdict(self)


def verdict_note(csr_value: float, p: float, z: float, test: NullTest) -> str:
    """What P_risk means for this test, printable next to it (``p_risk_note``)."""
    if math.isnan(p):
        return "P_risk undefined: no null variance"
    if test.method == "normal":
        what = (f"P_risk = Phi(z) = Phi({z:.2f}) = {p:.1%}: normal approximation of the "
                "probability that CSR under calibration stays below the observed value")
    else:
        what = (f"P_risk = {p:.1%} (Monte Carlo standard error {test.se:.1%}): share of "
                f"{test.n_sim} Monte Carlo draws of CSR under calibration (correct_i ~ "
                "Bernoulli(c_i)) below the observed value")
    if csr_value <= 1.0 and p > 0.5:
        # the mean of CSR under calibration is 1, but a skewed null (rows of confidence
        # near 1, whose rare error weighs 1/(1 - c)) puts most of its draws far below it
        what += ("; CSR ≤ 1, its mean under calibration, yet above most of its values "
                 "under calibration: rows of confidence near 1 make the null skewed, so "
                 "P_risk, not CSR ≤ 1, decides")
    elif csr_value <= 1.0:
        what += "; CSR ≤ 1: the errors weigh no more than calibration predicts"
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
        Monte Carlo draws; with ``method="auto"`` the most drawn: the simulation
        looks at 1,000, 4,000, 16,000 ... draws and stops once the band cannot change
        (P_risk 4 standard errors from the 1- and 3-sigma thresholds, the power 4
        standard errors from 50 % when it decides the band), reporting the standard
        error in ``p_risk_se``.
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
    ``csr``, ``sigma_csr``, ``z_csr`` and ``p_risk`` are the paper's definitions on all
    rows, and they are the numbers that decide the band (:data:`BAND_RULE`):

    1. P_risk is the probability under calibration (``correct_i ~ Bernoulli(c_i)``)
       that CSR stays below its observed value: ``Phi(z)`` where the normal
       approximation is valid (no row carries more than 5 % of the null variance, null
       skewness <= 0.25), else the Monte Carlo null.  ``P_risk > Phi(3)`` ->
       ``"risky"``, ``> Phi(1)`` -> ``"evidence"`` (the paper's 3-sigma / 1-sigma
       columns).
    2. Certainty claims, rows with confidence >= 1 - eps, never err under calibration
       (their error probability is eps): one wrong claim makes the band ``"risky"``.
       With none wrong the exact Clopper-Pearson bound of their error rate is reported;
       finite data cannot confirm a claim of certainty, so the band is then at best
       ``"undetermined"``.  They make the normal reading invalid (each carries a null
       variance near 1/eps), so P_risk is then simulated, and CSR can be below 1 while
       P_risk is high: the claims count in CSR's denominator and, under calibration,
       contribute nothing to its numerator except with probability eps.
    3. A "no evidence" result of a test whose power is below 50 % against errors twice
       as frequent as claimed (``p_i = min(2 (1 - c_i), 1)``, rows below certainty)
       becomes ``"undetermined"``; ``n_for_power`` says how many such rows would give
       80 % power.

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
    n_one = r.ksum_where(r.raw == 1.0)

    var_all = _null_moments(r)[0]
    csr_all = r.s_obs / r.denom
    sig_all = math.sqrt(var_all) / r.denom
    z_all = _z(r)
    certain = r.raw >= 1.0 - eps
    # streams of the sequential null: the int seed itself, so that the draws of
    # method="monte_carlo" stay those of default_rng(seed)
    base = int(seed) if isinstance(seed, (int, np.integer)) else _seed_base(rng)
    test = null_test(r, method, n_sim, rng, base)
    rest = r
    n_cert = n_cw = 0.0
    upper = math.nan
    power = test.power
    if certain.any():
        cr, rest = r.subset(certain), r.subset(~certain)
        n_cert = cr.count
        if weights == "frequency":
            n_cw = float((cr.k * cr.wrong).sum())
            upper = certain_upper(n_cw, n_cert)
        else:
            n_cw = float(cr.wrong.sum())
            upper = certain_upper(float((cr.w * cr.wrong).sum()), cr.denom,
                                  cr.sq_weight_sum)
        # the power is that of the rows below certainty: a certainty claim has no
        # alternative to detect (twice an error rate of 0 is 0)
        power = (null_test(rest, method, n_sim, rng, base).power if len(rest.c)
                 else math.nan)
    kish = (r.denom ** 2 / r.sq_weight_sum if weights == "importance"
            else r.denom)
    return verdict(
        csr_value=csr_all, sigma=sig_all, z=z_all, test=test, power=power,
        n_for_power=_rows_for_power(rest), n=r.count, n_eff=float(kish),
        n_certain=n_cert, n_certain_wrong=n_cw, upper=upper, n_clipped=n_clipped,
        n_clipped_one=int(n_one), eps=float(eps), weights=weights)


def certain_upper(wrong: float, total: float, total_sq: float | None = None) -> float:
    """The Clopper-Pearson bound of the certainty claims' error rate, from their sums.

    ``wrong`` and ``total`` are the weights of the wrong claims and of all claims;
    ``total_sq`` the sum of their squared importance weights (None for frequency
    weights, which count claims).  Importance weights enter through Kish's effective
    count ``n_e = total^2 / total_sq`` with ``n_e wrong / total`` errors.

    Examples
    --------
    >>> round(certain_upper(0.0, 154.0), 5), round(certain_upper(0.0, 2.0, 2.0), 4)
    (0.01926, 0.7764)
    """
    if total_sq is None:
        return certain_error_upper(wrong, total)
    ne = total ** 2 / total_sq
    return certain_error_upper(ne * (wrong / total), ne)


def verdict(*, csr_value: float, sigma: float, z: float, test: NullTest, power: float,
            n_for_power: float, n: float, n_eff: float, n_certain: float,
            n_certain_wrong: float, upper: float, n_clipped: int, n_clipped_one: int,
            eps: float, weights: str) -> RiskResult:
    """The verdict from the quantities that decide it: one rule for every path.

    :func:`risk_summary` calls it with the statistics of the rows,
    :func:`calreport.stats.verdict.risk_verdicts` with those of merged sums.

    Parameters
    ----------
    csr_value, sigma, z : float
        CSR of all rows, its spread under calibration and ``(CSR - 1) / sigma``.
    test : NullTest
        The null test of all rows (P_risk, its method and why, validity statistics).
    power, n_for_power : float
        Power of the test on the rows below certainty, and the rows it needs for 80 %.
    n, n_eff : float
        Rows (frequency weights: units) and Kish's effective count.
    n_certain, n_certain_wrong, upper : float
        Certainty claims, the wrong ones and their bound (:func:`certain_upper`).
    n_clipped, n_clipped_one, eps, weights
        As the fields of :class:`RiskResult`.

    Returns
    -------
    RiskResult
        With the band and its reason by :data:`BAND_RULE` (:func:`band_and_reason`).
    """
    band, reason = band_and_reason(test.p_risk, power, test.method, csr_value, z, n_certain,
                                   n_certain_wrong, upper, eps)
    return RiskResult(
        csr=csr_value, sigma_csr=sigma, z_csr=z, p_risk=test.p_risk,
        p_risk_method=test.method, band=band, band_label=BANDS[band][0],
        n=n, n_clipped=n_clipped, n_clipped_one=n_clipped_one, eps=eps,
        p_risk_note=verdict_note(csr_value, test.p_risk, z, test),
        method_reason=test.reason, band_reason=reason, weights=weights,
        n_eff=n_eff, n_certain=n_certain, n_certain_wrong=n_certain_wrong,
        certain_error_upper=upper, power=power,
        n_for_power=agreeing_rows_for_power(n_for_power, power, n - n_certain),
        lindeberg_ratio=test.lindeberg_ratio, null_skewness=test.skewness,
        lattice_ratio=test.lattice_ratio, n_sim=test.n_sim, p_risk_se=test.se,
    )


def p_risk(conf: Any, correct: Any, *, method: str = "auto", sample_weight: Any = None,
           eps: float = EPS, n_sim: int = N_SIM, seed: Any = None,
           weights: str = "importance") -> float:
    """Probability that the observed overconfidence is not due to chance.

    Parameters
    ----------
    conf, correct, sample_weight, eps, weights
        As in :func:`csr`.
    method : {"auto", "normal", "monte_carlo"}, default "auto"
        ``"normal"`` (the paper's): ``Phi(z)``.
        ``"monte_carlo"``: the null distribution of CSR under ``correct_i ~
        Bernoulli(c_i)`` by simulation, ``P(CSR* < CSR_obs)``.
        ``"auto"``: normal where :func:`normal_validity` holds, else Monte Carlo
        (sequential; above 200 rows the rows of largest variance drawn and the others
        through the Edgeworth law of their exact cumulants, when they are near normal).
        Both readings hold on either side of CSR = 1.
    n_sim : int, default 20000
        Monte Carlo draws (standard error <= 0.0036); the most drawn by ``"auto"``,
        which stops once the verdict is settled (see :func:`risk_summary`).
    seed : int, Generator or None
        Random stream of the Monte Carlo null.

    Returns
    -------
    float

    Notes
    -----
    The paper defines ``P_risk = Phi(z)``, the probability under calibration that CSR
    stays below the observed value (section 2.1), on either side of CSR = 1; with
    CSR <= 1 it is about 1/2 or less (more only for a strongly right-skewed null).
    (Table 6 prints 0.00 % for CSR < 1: CSR 0.9517, sigma 0.1337 -> 0.00 %, where
    ``Phi(z)`` is 35.9 %; CSR 1.1729, sigma 2.9505 -> 52.34 %.)  Section 4 notes that
    the normal approximation is poor at small N: CSR is a weighted sum of Bernoulli
    errors whose sizes ``1/(1 - c_i)`` are heavy-tailed.  The Monte Carlo draws take
    the rows in a canonical order (confidence, then error size) from streams derived
    from ``seed``, so permuting the rows leaves P_risk unchanged.  (A Lugannani-Rice
    saddlepoint approximation was tried and rejected: on 40-row profiles it erred by
    up to 0.15.)

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
