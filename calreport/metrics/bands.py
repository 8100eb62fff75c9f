"""The verdict's bands and the rule that decides them, stated once.

:data:`BANDS` is calreport's one band vocabulary, :data:`BAND_RULE` the rule in one
sentence that every output prints, and :func:`decide_band` applies it to the numbers
those outputs print (P_risk, the power of the test and the certainty claims).  The
levels are the 1- and 3-sigma columns of Martin-Maroto, Abderrahaman-Elena & de
Polavieja (2026), "Beyond ECE", arXiv:2605.01796, section 2.1 and Table 6.
"""

from __future__ import annotations

import math
from types import MappingProxyType

from calreport.metrics._risk_rows import P_EVIDENCE, P_RISKY, POWER_MIN

__all__ = ["BANDS", "BAND_RULE", "BAND_SEVERITY", "band_and_reason", "band_label",
           "band_of_p", "decide_band", "risk_band"]

#: The one band vocabulary of calreport, most to least severe: key -> (label, meaning).
#: Each meaning states the rule that decides the band, in the quantity that decides it
#: (:data:`BAND_RULE` is the same rule in one sentence, printed by every output).
BANDS: MappingProxyType[str, tuple[str, str]] = MappingProxyType({
    "risky": ("risky",
              "P_risk > 99.865 % (the 3-sigma level, Phi(3)), or a wrong certainty claim"),
    "evidence": ("evidence of overconfidence",
                 "P_risk > 84.13 % (the 1-sigma level, Phi(1))"),
    "undetermined": ("undetermined",
                     "P_risk <= 84.13 % but the data cannot support 'no evidence': the "
                     "test had under 50 % power, or certainty claims that finite data "
                     "cannot confirm"),
    "no_evidence": ("no evidence of overconfidence",
                    "P_risk <= 84.13 % with a test of at least 50 % power"),
})

#: Rank of each band from least to most severe (no_evidence 0 .. risky 3): a band gate
#: compares these ranks, and a recalibration may not move a band up them.
BAND_SEVERITY: MappingProxyType[str, int] = MappingProxyType(
    {band: rank for rank, band in enumerate(reversed(BANDS))})

#: The band rule in one sentence, as every output prints it.
BAND_RULE = (
    "The band follows P_risk, the probability under calibration that CSR stays below "
    "its observed value (Phi(z) where the normal reading of z is valid, else a Monte "
    "Carlo of the null): risky above 99.865 % (3 sigma) or when a certainty claim is "
    "wrong; evidence of overconfidence above 84.13 % (1 sigma); otherwise no evidence "
    "when the test has at least 50 % power against errors twice as frequent as the "
    "confidences claim, else undetermined (also when certainty claims, all right, "
    "remain unconfirmed).")


def band_label(key: str) -> str:
    """Label of a band key of :data:`BANDS`.

    Examples
    --------
    >>> band_label("no_evidence")
    'no evidence of overconfidence'
    """
    return BANDS[key][0]




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


def band_of_p(p: float) -> str:
    """The band of a P_risk alone (no power or certainty claims): NaN is undetermined."""
    if math.isnan(p):
        return "undetermined"
    if p > P_RISKY:
        return "risky"
    if p > P_EVIDENCE:
        return "evidence"
    return "no_evidence"


def decide_band(p_risk: float, power: float, n_certain: float = 0.0,
                n_certain_wrong: float = 0.0) -> str:
    """The band of :data:`BAND_RULE` from the quantities every output prints.

    Parameters
    ----------
    p_risk : float
        P_risk of the verdict (NaN: no null variance).
    power : float
        Probability that the test reaches "evidence" when errors are twice as frequent
        as the confidences claim.
    n_certain, n_certain_wrong : float
        Certainty claims (confidence >= 1 - eps) and the wrong ones.

    Returns
    -------
    str
        A key of :data:`BANDS`.

    Examples
    --------
    >>> decide_band(0.999, 0.2), decide_band(0.5, 0.9), decide_band(0.5, 0.3)
    ('risky', 'no_evidence', 'undetermined')
    >>> decide_band(0.5, 0.9, n_certain=3), decide_band(0.1, 0.9, 3, 1)
    ('undetermined', 'risky')
    """
    if n_certain_wrong > 0:
        return "risky"
    band = band_of_p(p_risk)
    if band != "no_evidence":
        return band
    if n_certain > 0 or not power >= POWER_MIN:
        return "undetermined"
    return "no_evidence"


def band_and_reason(p: float, power: float, method: str, csr_value: float, z: float,
             n_cert: float, n_cw: float, upper: float, eps: float,
             adjusted: str = "") -> tuple[str, str]:
    """The band of :func:`decide_band` and its reason in words.

    ``adjusted`` names the multiplicity adjustment when ``p`` is an adjusted P_risk.
    The pandas path, the merged out-of-core sums and the family adjustment all decide
    here.
    """
    band = decide_band(p, power, n_cert, n_cw)
    what = f"adjusted P_risk ({adjusted})" if adjusted else "P_risk"
    z_text = f"{z:.2f}".replace("-0.00", "0.00")  # no signed zero
    facts = (f"{what} {p:.1%} ({method.replace('_', ' ')}; CSR {csr_value:.3g}, "
             f"z {z_text})" if not math.isnan(p) else "")
    cert = (f"{n_cert:g} certainty claim(s) (confidence >= 1 - {eps:g}), {n_cw:g} wrong"
            if n_cert else "")
    if n_cw > 0:
        return band, (f"{cert}: a wrong claim of certainty is a confident error of "
                      "unbounded cost")
    if math.isnan(p):
        return band, "P_risk is undefined: no null variance (every weight is 0)"
    if band in ("risky", "evidence"):
        limit = P_RISKY if band == "risky" else P_EVIDENCE
        return band, f"{facts} > {limit:.3%}" + (f"; {cert}" if cert else "")
    if n_cert:
        return band, (f"{facts} <= {P_EVIDENCE:.2%}; {cert}, error rate <= {upper:.2%} "
                      "(one-sided 95 % Clopper-Pearson): nothing contradicts them, but no "
                      "finite data can confirm a claim of certainty")
    if band == "undetermined":
        return band, (f"{facts} <= {P_EVIDENCE:.2%}, but the test had {power:.0%} power "
                      f"(needs {POWER_MIN:.0%}) to detect errors twice as frequent as the "
                      "confidences claim: more rows are needed")
    return band, f"{facts} <= {P_EVIDENCE:.2%} with {power:.0%} power"
