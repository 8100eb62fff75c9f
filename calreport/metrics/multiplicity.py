"""Verdicts of a family of groups: P_risk adjusted for the number of groups tested.

Each group's band keeps the paper's single-test levels (P_risk > Phi(1) "evidence",
> Phi(3) "risky").  A headline over G groups asks a different question — is *any*
group overconfident? — and, tested at those levels group by group, a family of 20
calibrated groups is flagged 1 - 0.84^20 = 97 % of the time.  Here each P_risk is
turned into its one-sided p-value ``1 - P_risk``, adjusted across the family, and
turned back: ``P_risk_adjusted = 1 - p_adjusted``.  The same band rule applied to the
adjusted values gives the family-wise verdicts that headlines, attention lists, next
steps and gates read.

Holm's step-down method (the default) bounds the probability that *any* calibrated
group of the family is flagged by the band's own single-test rate (15.9 % for
"evidence", 0.135 % for "risky") under any dependence between the tests — the pooled
rows overlap the groups — so "evidence" on a group of a family means what it means
for a single model.  Benjamini-Hochberg (``"bh"``) bounds instead the expected share
of false flags among the flags (and the family-wise rate when every group is
calibrated), with more power when many groups are overconfident; it assumes
independent or positively dependent tests.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable, Sequence

import numpy as np

from calreport.metrics._risk_null import _edgeworth_cdf as edgeworth_cdf
from calreport.metrics.risk import (
    BANDS,
    P_EVIDENCE,
    P_RISKY,
    RiskResult,
    band_and_reason,
    risk_summary,
)

__all__ = ["ADJUSTMENTS", "RESIM_CELLS", "RESIM_DRAWS", "RESIM_FIRST", "adjust_p_values",
           "adjust_verdicts", "family_headline", "p_value", "resimulated"]

#: Adjustment methods: key -> description printed with the verdicts.
ADJUSTMENTS = {
    "holm": "Holm's step-down adjustment (family-wise error rate)",
    "bh": "Benjamini-Hochberg adjustment (false discovery rate)",
}


def p_value(r: RiskResult) -> float:
    """One-sided p-value of overconfidence of a verdict, as a family adjustment reads it.

    A simulated P_risk from ``m`` draws gives ``(1 + m (1 - P_risk)) / (m + 1)``, the
    Monte Carlo p-value that is never 0 (Phipson & Smyth 2010): an adjustment
    multiplies p-values, and a 0 would stay 0 whatever the family size.  The normal
    reading gives ``1 - F(z)`` with ``F`` the one-term Edgeworth law of the null's
    skewness: an adjustment moves the levels into the far tail (3.2 sigma for
    "evidence" over 200 groups), where ``1 - Phi(z)`` of a right-skewed null is too
    thin — by about half of the 3-sigma tail at the skewness the normal reading admits
    (0.25).  For a single verdict this is ``1 - P_risk`` up to that correction.

    Examples
    --------
    >>> from calreport.metrics.risk import risk_summary
    >>> r = risk_summary([0.5] * 4, [0, 0, 0, 1], method="normal")  # z = 1, no skew
    >>> round(p_value(r), 6)  # 1 - Phi(1)
    0.158655

    References
    ----------
    Phipson, B. & Smyth, G. K. (2010). Permutation p-values should never be zero.
    Statistical Applications in Genetics and Molecular Biology 9(1), article 39.
    doi:10.2202/1544-6115.1585.

    Hall, P. (1992). The Bootstrap and Edgeworth Expansion. Springer, New York.
    Section 2.2.
    """
    p = 1.0 - float(r.p_risk)
    if math.isnan(p):
        return math.nan
    m = int(r.n_sim)
    if r.p_risk_method == "monte_carlo" and m > 0:
        return (1.0 + m * p) / (m + 1.0)
    skew = float(r.null_skewness)
    if r.p_risk_method == "normal" and math.isfinite(r.z_csr) and math.isfinite(skew):
        p = 1.0 - float(edgeworth_cdf(np.array([r.z_csr]), skew)[0])
    return min(max(p, 0.0), 1.0)


def adjust_p_values(p: Sequence[float], method: str = "holm") -> np.ndarray:
    """Holm or Benjamini-Hochberg adjusted p-values (NaN entries are not tested).

    Parameters
    ----------
    p : sequence of float
        One-sided p-values; NaN marks a member without a test.
    method : {"holm", "bh"}

    Returns
    -------
    ndarray
        Adjusted p-values, NaN where ``p`` is NaN.

    Notes
    -----
    With the ``m`` defined p-values sorted, ``p_(1) <= ... <= p_(m)``: Holm gives
    ``max_{j <= i} min(1, (m - j + 1) p_(j))``; Benjamini-Hochberg gives
    ``min_{j >= i} min(1, m p_(j) / j)``.

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure.
    Scandinavian Journal of Statistics 6(2), 65-70.

    Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate: a
    practical and powerful approach to multiple testing. Journal of the Royal
    Statistical Society B 57(1), 289-300. doi:10.1111/j.2517-6161.1995.tb02031.x.

    Examples
    --------
    >>> adjust_p_values([0.01, 0.04, 0.03], "holm").round(4).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_p_values([0.01, 0.04, 0.03], "bh").round(4).tolist()
    [0.03, 0.04, 0.04]
    """
    if method not in ADJUSTMENTS:
        raise ValueError(f"`adjust` must be one of {sorted(ADJUSTMENTS)} or None, got "
                         f"{method!r}.")
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    m = int(ok.sum())
    if not m:
        return out
    q = p[ok]
    order = np.argsort(q, kind="stable")
    s = q[order]
    rank = np.arange(1, m + 1)
    if method == "holm":
        adj = np.maximum.accumulate(np.minimum(1.0, (m - rank + 1) * s))
    else:
        adj = np.minimum.accumulate(np.minimum(1.0, m * s / rank)[::-1])[::-1]
    back = np.empty(m)
    back[order] = adj
    out[ok] = back
    return out


def adjust_verdicts(verdicts: Sequence[RiskResult | None], method: str | None = "holm",
                    resimulate: Callable[[int, int], RiskResult | None] | None = None
                    ) -> list[RiskResult | None]:
    """The verdicts of a family with P_risk adjusted for its size, and their bands.

    Each defined verdict gets ``p_risk_adjusted``, ``band_adjusted`` (the band by the
    same rule on the adjusted P_risk: a wrong certainty claim stays "risky", and a
    group that loses its flag reads "no evidence" only with power), ``adjust`` and
    ``n_tests``.  A family of one, or ``method=None``, is returned unadjusted
    (``band_adjusted`` equal to ``band``).

    A simulated P_risk stops drawing once its *unadjusted* band is settled, so its
    adjusted value can lie within Monte Carlo error of a level.  ``resimulate(i,
    n_sim)``, when given, returns member ``i``'s verdict simulated with ``n_sim`` draws
    (fewer at its cap; None when it can draw no more).  Such a member is drawn again
    with :data:`RESIM_FIRST` draws (or four times its own), then four times more each
    time, until its adjusted value is no longer within 2 standard errors of a level or
    the cap is reached; its p-value then enters the adjustment (the member's printed
    P_risk stays its own, and the reason says how many draws the adjusted value rests
    on).  An adjusted value still within 2 standard errors of a level says so.

    Examples
    --------
    >>> from calreport.metrics.risk import risk_summary
    >>> one = risk_summary([0.6] * 50, [1] * 20 + [0] * 30, method="normal")
    >>> one.band, round(one.p_risk, 4)  # CSR 1.5, sigma 0.1732, z 2.887
    ('evidence', 0.9981)
    >>> fam = adjust_verdicts([one] + [risk_summary([0.6] * 50, [1] * 30 + [0] * 20,
    ...                                             method="normal")] * 19)
    >>> # p = 1 - Phi(2.887) + 0.0577 / 6 * (2.887^2 - 1) phi(2.887) = 0.002378; x 20
    >>> fam[0].band_adjusted, round(fam[0].p_risk_adjusted, 4)
    ('evidence', 0.9523)
    """
    tested = [v for v in verdicts if v is not None]
    if method is None or len(tested) <= 1:
        return [None if v is None else dataclasses.replace(
            v, p_risk_adjusted=v.p_risk, band_adjusted=v.band,
            band_adjusted_reason=v.band_reason, adjust="", n_tests=1) for v in verdicts]
    p = [math.nan if v is None else p_value(v) for v in verdicts]
    basis: list[RiskResult | None] = list(verdicts)  # what each p-value rests on
    adj = adjust_p_values(p, method)
    if resimulate is not None:
        near = [i for i, (v, q) in enumerate(zip(verdicts, adj, strict=True))
                if v is not None and _near_threshold(v, 1.0 - float(q))]
        for i in near:
            # four times the draws each time, until the adjusted band is settled or
            # resimulate() can draw no more
            n_sim = max(RESIM_FIRST, 4 * verdicts[i].n_sim)
            while (again := resimulate(i, n_sim)) is not None \
                    and again.n_sim > basis[i].n_sim:
                basis[i], p[i] = again, p_value(again)
                capped = again.n_sim < n_sim or again.n_sim >= RESIM_DRAWS
                if capped or not _near_threshold(again,
                                                 1.0 - float(adjust_p_values(p, method)[i])):
                    break
                n_sim *= 4
        if near:
            adj = adjust_p_values(p, method)
    m = int(np.count_nonzero(~np.isnan(adj)))
    name = f"{method.upper() if method == 'bh' else 'Holm'}, {m} tests"
    out: list[RiskResult | None] = []
    for v, b, q in zip(verdicts, basis, adj, strict=True):
        if v is None:
            out.append(None)
            continue
        p_adj = 1.0 - float(q) if not math.isnan(q) else math.nan
        band, reason = band_and_reason(
            p_adj, v.power, v.p_risk_method, v.csr, v.z_csr, v.n_certain,
            v.n_certain_wrong, v.certain_error_upper, v.eps, adjusted=name)
        if b is not v:
            reason += f" (its p-value re-simulated with {b.n_sim:,} draws)"
        reason += _near_threshold(b, p_adj)
        out.append(dataclasses.replace(
            v, p_risk_adjusted=p_adj, band_adjusted=band, band_adjusted_reason=reason,
            adjust=method, n_tests=m))
    return out


#: A verdict re-simulated for the family adjustment draws at most this many times, and
#: at most this many Bernoulli draws in all (rows x draws): about a second.
RESIM_DRAWS = 200_000
RESIM_CELLS = 200_000_000
#: Its first re-simulation draws this many times (four times more each next one).
RESIM_FIRST = 12_500


def resimulated(v: RiskResult, conf: np.ndarray, correct: np.ndarray, *, eps: float,
                seed: int, sample_weight: np.ndarray | None = None,
                weights: str | None = None, n_sim: int | None = None) -> RiskResult | None:
    """Verdict ``v`` of these rows simulated with more draws, for :func:`adjust_verdicts`.

    Draws ``n_sim`` times, at most ``min(RESIM_DRAWS, RESIM_CELLS // rows)`` (the cap,
    also when ``n_sim`` is None); None when that is no more than ``v`` already drew.
    This is the ``resimulate`` rule of every grouped evaluation (``evaluate``,
    ``summary``, reports and gates).

    Examples
    --------
    >>> conf, correct = np.full(400, 0.9), np.r_[np.ones(340), np.zeros(60)]
    >>> v = risk_summary(conf, correct, method="monte_carlo", n_sim=1000, seed=0)
    >>> resimulated(v, conf, correct, eps=1e-8, seed=0).n_sim
    200000
    """
    cap = int(min(RESIM_DRAWS, RESIM_CELLS // max(len(conf), 1)))
    n_sim = cap if n_sim is None else min(int(n_sim), cap)
    if n_sim <= v.n_sim:
        return None
    kw = {} if weights is None else {"weights": weights}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the first simulation said it already
        return risk_summary(conf, correct, sample_weight=sample_weight, eps=eps,
                            method="monte_carlo", n_sim=n_sim, seed=seed, **kw)


def _near_threshold(v: RiskResult, p_adj: float) -> str:
    """A caution when a simulated adjusted P_risk is within Monte Carlo error of a level.

    The sequential simulation stops once the *unadjusted* band is settled; the
    adjusted value scales its error by the adjustment's factor.
    """
    p = 1.0 - float(v.p_risk)
    if v.p_risk_method != "monte_carlo" or not v.p_risk_se > 0 or not p > 0:
        return ""
    se = float(v.p_risk_se) * (1.0 - p_adj) / p
    for level in (P_EVIDENCE, P_RISKY):
        if abs(p_adj - level) < 2.0 * se:
            return (f" (within 2 Monte Carlo standard errors, {2 * se:.1%}, of the "
                    f"{level:.2%} level: the band could go either way)")
    return ""


def family_headline(verdicts: Sequence[RiskResult | None]) -> str:
    """The headline band of a family: the most severe of its (adjusted) bands."""
    order = list(BANDS)
    bands = [v.final_band for v in verdicts if v is not None]
    return min(bands, key=order.index) if bands else "undetermined"
