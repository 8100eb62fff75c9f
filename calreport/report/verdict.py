"""Verdict facts of the report: bands, per-group risk facts, the overall story, next steps.

Everything here reads the typed result (:class:`calreport.result.GroupResult` and its
risk verdict); the band vocabulary comes from :data:`calreport.metrics.risk.BANDS`
and the colours from :data:`calreport.plotting.BAND_COLORS`.  Attributes of the risk
verdict that an older result lacks are read with defaults, so the report shows what
the result holds and never invents a verdict.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from calreport._numbers import format_number as _num
from calreport.interval_rules import interval_note, size_caveat, spread_caveat, study_sizes
from calreport.metrics import risk
from calreport.metrics.multiplicity import ADJUSTMENTS
from calreport.plotting import _base, band_key
from calreport.profile import ConfidenceProfile

__all__ = ["BAND_ORDER", "PLAIN_BANDS", "band_labels", "group_facts", "next_steps", "overall_story"]

#: Bands from most to least severe (the report's sort order).
BAND_ORDER = ("risky", "evidence", "undetermined", "no_evidence")
_SEVERITY = {b: i for i, b in enumerate(BAND_ORDER)}

#: What each band means, in words a reviewer can act on without the statistics (the
#: rule with its thresholds is printed in the methods section).
PLAIN_BANDS = {
    "risky": "strong evidence that the model is wrong more often than its confidence "
             "claims, or a wrong prediction made with certainty: its confidence should "
             "not be relied on",
    "evidence": "evidence that the model is wrong more often than its confidence claims",
    "undetermined": "no clear sign of overconfidence, but too little data to rule it out "
                    "(or claims of certainty that no finite sample can confirm)",
    "no_evidence": "no sign that the model is wrong more often than its confidence "
                   "claims, with enough data to have seen it",
}


def band_labels() -> dict[str, str]:
    """Band key -> label, from :data:`calreport.metrics.risk.BANDS`.

    Examples
    --------
    >>> band_labels()["risky"]
    'risky'
    """
    raw = getattr(risk, "BANDS", ())
    labels: dict[str, str] = {}
    items = raw.items() if isinstance(raw, Mapping) else (
        (entry[0], entry[1:]) for entry in raw if isinstance(entry, tuple) and entry)
    for key, val in items:
        if isinstance(val, str):
            text = val
        elif hasattr(val, "label"):
            text = str(val.label)
        elif isinstance(val, Mapping) and "label" in val:
            text = str(val["label"])
        elif isinstance(val, tuple) and val and isinstance(val[0], str):
            text = val[0]
        else:
            text = str(key).replace("_", " ")
        labels[band_key(key)] = text
    # a vocabulary without the undetermined band (older core) still needs its label
    labels.setdefault("undetermined", "undetermined")
    return {b: labels.get(b, b.replace("_", " ")) for b in BAND_ORDER}


def _get(obj: Any, name: str, default: Any = None) -> Any:
    val = getattr(obj, name, None) if obj is not None else None
    return default if val is None else val


def _f(x: Any) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan




def group_facts(g: Any, prof: ConfidenceProfile | None, eps: float,
                labels: Mapping[str, str]) -> dict[str, Any]:
    """The verdict card of one group: band, why, z, P_risk with its meaning and method.

    ``g`` is a :class:`calreport.result.GroupResult`.  Badge and P_risk come from
    the same verdict object, and P_risk is printed with its meaning
    (``p_risk_note``), so they cannot contradict each other on the page.
    """
    r = g.risk
    csr = _f(_get(r, "csr", g.get("csr")))
    z = _f(_get(r, "z_csr", g.get("z_csr")))
    p_risk = _f(_get(r, "p_risk", g.get("p_risk")))
    raw_band = _get(r, "band")
    band = band_key(raw_band) if raw_band else _z_band(z)
    if band not in _SEVERITY:
        band = "undetermined"
    # the family verdict (adjusted for the number of groups) when there is one
    adjusted = bool(_get(r, "adjust", ""))
    final = band_key(_get(r, "band_adjusted", "") or band)
    if final not in _SEVERITY:
        final = band
    note = str(_get(r, "p_risk_note", ""))
    band_reason = str(_get(r, "band_reason", "")) or _z_reason(z, g)
    method = str(_get(r, "p_risk_method", g.p_risk_method))
    method_reason = str(_get(r, "method_reason", ""))
    sigma = _f(_get(r, "sigma_csr", g.get("sigma_csr")))
    certain = _certainty(r, prof, eps)
    csr_ci = list(g.intervals.get("csr", (math.nan, math.nan)))
    p_risk_ci = list(g.intervals.get("p_risk", (math.nan, math.nan)))
    n = _f(g.get("n"))
    n_errors = math.nan
    if prof is not None:
        # rows and errors in one unit: rows (importance weights are relative: a sum of
        # them counts nothing), or the units frequency weights count
        w = prof.sample_weight
        if w is not None and prof.weights == "frequency":
            n, n_errors = float(np.sum(w)), float(np.sum(w[~prof.correct]))
        else:
            wrong = ~prof.correct if w is None else ~prof.correct & (w > 0)
            n_errors = float(np.count_nonzero(wrong))
    n_power = _f(_get(r, "n_for_power", math.nan))
    return {
        "name": g.name,
        # the band a reader acts on: the family's (adjusted) band when adjusted
        "band": final,
        "band_label": labels[final],
        "band_reason": (str(_get(r, "band_adjusted_reason", "")) if adjusted
                        else band_reason),
        "severity": _SEVERITY[final],
        "own_band": band,
        "own_band_label": labels[band],
        "own_band_reason": band_reason,
        "adjusted": adjusted,
        "p_risk_adjusted": _f(_get(r, "p_risk_adjusted", math.nan)),
        "adjust": str(_get(r, "adjust", "")),
        "n_tests": int(_get(r, "n_tests", 1) or 1),
        "power": _f(_get(r, "power", math.nan)),
        "n_for_power": n_power,
        "sample_size_text": sample_size_text(final, n_power, _f(g.get("n")),
                                             _f(_get(r, "power", math.nan))),
        "interval_size_note": size_caveat(_f(g.get("n"))) if g.intervals else "",
        "normal_valid": method == "normal",
        "csr": csr,
        "csr_ci": csr_ci,
        "csr_ci_note": _below_nominal(g, "csr"),
        "sigma_csr": sigma,
        "z_csr": z,
        "p_risk": p_risk,
        "p_risk_ci": p_risk_ci,
        "p_risk_note": note,
        "p_risk_method": method,
        "p_risk_method_text": method.replace("_", " "),
        "method_reason": method_reason,
        "n": n,
        "n_eff": _f(_get(r, "n_eff", math.nan)),
        "n_errors": n_errors,
        "n_dropped": _f(g.get("n_dropped")),
        "n_clipped": _f(g.get("n_clipped")),
        **certain,
    }


def _z_band(z: float) -> str:
    return _base.z_band(z)


def _z_reason(z: float, g: Any) -> str:
    if math.isnan(z):
        why = g.reasons.get("z_csr", "")
        return f"z is undefined{': ' + why if why else ''}"
    return "z ≤ 1" if z <= 1.0 else "1 < z ≤ 3" if z <= 3.0 else "z > 3"


def _certainty(r: Any, prof: ConfidenceProfile | None, eps: float) -> dict[str, Any]:
    """Certainty claims (confidence at 1 − ε): how many, how many wrong, error bound."""
    n_certain = _get(r, "n_certain")
    n_wrong = _get(r, "n_certain_wrong")
    upper = _f(_get(r, "certain_error_upper", math.nan))
    if (n_certain is None or n_wrong is None) and prof is not None:
        claim = prof.conf >= 1.0 - eps
        n_certain = int(claim.sum())
        n_wrong = int((claim & ~prof.correct).sum())
    return {"n_certain": None if n_certain is None else int(n_certain),
            "n_certain_wrong": None if n_wrong is None else int(n_wrong),
            "certain_error_upper": upper}


def sample_size_text(band: str, n_for_power: float, n: float, power: float) -> str:
    """What would decide an undetermined verdict, in rows ("" when rows are not why).

    Rows are not why when the test already has 80 % power (its Monte Carlo power, on
    the rows below certainty): the verdict is then undetermined for another reason
    (certainty claims), and ``n_for_power``, a normal approximation that a few rows
    near certainty can inflate a thousandfold, would contradict that power.

    Examples
    --------
    >>> sample_size_text("undetermined", 811.0, 228.0, 0.47)[:60]
    'About 811 rows like these would give 80 % power to detect er'
    >>> sample_size_text("undetermined", 143_523.0, 1_005.0, 1.0)
    ''
    """
    if band != "undetermined" or not math.isfinite(n_for_power) or math.isnan(n):
        return ""
    if n_for_power <= n or power >= 0.8:
        return ""
    return (f"About {n_for_power:,.0f} rows like these would give 80 % power to detect "
            f"errors twice as frequent as the confidences claim; there are {n:,.0f} "
            f"({n_for_power / n:.1f} times fewer; power today {power:.0%}).")


def csr_reading(csr: float, p_risk: float) -> str:
    """How to read a CSR beside its P_risk, printed in parentheses after the value.

    CSR's mean under calibration is 1, but rows of confidence near 1 (whose rare error
    weighs ``1/(1 - c)``) skew its distribution: most of its values under calibration
    then lie far below 1, and a CSR below 1 can still be high against them.  Then the
    usual reading ("above 1, wrong more often") would contradict the verdict printed
    beside it, so the reading says why P_risk decides (as ``p_risk_note`` does).

    Examples
    --------
    >>> csr_reading(1.4, 0.99)
    '1 = as often wrong as claimed; above 1, wrong more often'
    >>> csr_reading(0.67, 0.999)[:44]
    'below 1, its mean under calibration, yet abo'
    """
    if csr <= 1.0 and p_risk > 0.5:
        return SKEWED_READING
    return "1 = as often wrong as claimed; above 1, wrong more often"


#: :func:`csr_reading` of a CSR below 1 that P_risk finds high (a skewed null).
SKEWED_READING = ("below 1, its mean under calibration, yet above most of its values "
                  "under calibration: rows of confidence near 1 skew that distribution, "
                  "so P_risk decides")


def _size_note(groups: list[dict[str, Any]]) -> str:
    """Page 1's word on groups below the coverage study's sizes ("" when none)."""
    small = [g for g in groups if g.get("interval_size_note")]
    if not small:
        return ""
    which = ", ".join(f"{g['name']}: {g['n']:,.0f}" for g in small[:6])
    more = f" and {len(small) - 6} more" if len(small) > 6 else ""
    return (f"The intervals' coverage was measured on groups of {study_sizes()} rows; "
            + (f"{len(small)} of {len(groups)} groups have fewer rows ({which}{more})"
               if len(groups) > 1 else f"these {small[0]['n']:,.0f} rows are fewer")
            + ", where it is not known.")


def sort_key(facts: Mapping[str, Any]) -> tuple[int, float, str]:
    """Most severe band first, then highest P_risk, then name."""
    p = facts["p_risk"]
    return (facts["severity"], -p if not math.isnan(p) else math.inf, facts["name"])


def overall_story(overall: Mapping[str, Any] | None, groups: list[dict[str, Any]],
                  labels: Mapping[str, str], worst: int = 5,
                  family: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """First-page facts: the headline, groups per band, worst groups, certainty claims.

    The headline is the most severe band of the family: every group's band (adjusted
    for the number of groups when ``family["adjust"]`` is set) and, when the groups are
    subgroups of one population, the pooled rows' — pooling can hide an overconfident
    subgroup behind well-calibrated ones.  Alternative models of the same rows have no
    pooled verdict.
    """
    family = dict(family or {})
    counts = {b: sum(g["band"] == b for g in groups) for b in BAND_ORDER}
    n = len(groups)
    head = overall if overall is not None else (groups[0] if n == 1 else None)
    worst_band = next((b for b in BAND_ORDER if counts[b]), "undetermined")
    band = worst_band if head is None else min(head["band"], worst_band, key=_SEVERITY.get)
    flagged = counts["risky"] + counts["evidence"]
    n_tests = int(family.get("n_tests") or 0)
    adjust = family.get("adjust")
    plain = PLAIN_BANDS[band][0].upper() + PLAIN_BANDS[band][1:] + "."
    if n == 1:
        sentence = f"The predictions: {labels[band]}."
        if band == "risky":
            sentence = "The predictions are risky: their confidence is not to be trusted."
        family_text = plain_family = ""
    else:
        pooled = (f"All {n} groups pooled: {labels[head['band']]}. "
                  if head is not None else "")
        sentence = pooled + (
            f"{flagged} of {n} groups show overconfidence ({counts['risky']} risky, "
            f"{counts['evidence']} with evidence); {counts['undetermined']} undetermined."
            if flagged else f"None of the {n} groups shows evidence of overconfidence; "
            f"{counts['undetermined']} undetermined.")
        what = ("subgroups of one population, so the pooled rows are one more test"
                if family.get("pooled_in_family") else
                "alternative models or calibrations of the same rows, so no pooled "
                "verdict is given" if family.get("group_kind") == "alternatives" else "")
        if n > 1:
            plain = f"The most severe verdict: {PLAIN_BANDS[band]}."
        plain_family = (
            f"The {n_tests} verdicts are adjusted for being checked together: if every "
            "group were well calibrated, the chance that any of them is flagged would "
            "be at most about 1 in 6 for 'evidence' and 1 in 740 for 'risky', as for a "
            "single model." if adjust else
            f"The {n} groups' verdicts are not adjusted for their number: with many "
            "groups, some well-calibrated ones are flagged by chance.")
        if adjust:
            family_text = (
                f"{n_tests} verdicts were tested as one family ({what}); each P_risk is "
                f"adjusted by {ADJUSTMENTS[adjust]}, so the chance that any calibrated "
                "group is flagged is at most the single-model rate: 15.9 % for "
                "'evidence', 0.135 % for 'risky'. The bands below are the adjusted "
                "ones; each group's own unadjusted band is in the appendix.")
        else:
            family_text = (f"The {n} groups ({what}) were not adjusted for their number: "
                           "each band is at its single-model level, so a family of "
                           "calibrated groups is flagged more often than one model.")
    ranked = sorted((g for g in groups if not math.isnan(g["p_risk"])),
                    key=lambda g: -g["p_risk"])
    n_certain = sum(g["n_certain"] or 0 for g in groups)
    n_wrong = sum(g["n_certain_wrong"] or 0 for g in groups)
    wrong_groups = [g["name"] for g in groups if (g["n_certain_wrong"] or 0) > 0]
    return {
        "band": band, "band_label": labels[band], "sentence": sentence, "n_groups": n,
        "head": head, "family_text": family_text, "n_tests": n_tests, "adjust": adjust,
        "plain": plain, "plain_family": plain_family,
        "csr_reading": "" if head is None else csr_reading(head["csr"], head["p_risk"]),
        "interval_size_note": _size_note(groups),
        "counts": [{"band": b, "label": labels[b], "count": counts[b]} for b in BAND_ORDER],
        "worst": [g for g in ranked[:worst]] if n > 1 else [],
        "certainty": {"n_certain": n_certain, "n_wrong": n_wrong,
                      "groups_wrong": wrong_groups},
    }


def next_steps(groups: list[dict[str, Any]], story: Mapping[str, Any],
               multiclass: bool, recalibration: list[dict[str, Any]] | None = None
               ) -> list[dict[str, str]]:
    """Recommended actions derived from the findings, most urgent first.

    ``recalibration``: the advisor's per-group advice (the report's "What
    recalibration would do"); with it, the recalibration step names each
    overconfident group's recommended method instead of a generic one.
    """

    def names(gs: list[dict[str, Any]]) -> str:
        shown = ", ".join(g["name"] for g in gs[:6])
        return shown + (f" and {len(gs) - 6} more" if len(gs) > 6 else "")

    grouped = len(groups) > 1
    steps: list[dict[str, str]] = []
    wrong = [g for g in groups if (g["n_certain_wrong"] or 0) > 0]
    if wrong:
        k = sum(g["n_certain_wrong"] for g in wrong)
        steps.append({
            "action": "Cap the confidences below 1 (for example at 1 − 10⁻³) and re-audit.",
            "why": f"{k} prediction(s) claim certainty and are wrong"
                   + (f" (groups {names(wrong)})" if grouped else "")
                   + ": a model that is certain and wrong cannot be calibrated by any "
                     "smooth map."})
    over = [g for g in groups if g["band"] in ("risky", "evidence")]
    if over:
        # a CSR below 1 can be high against a skewed null (csr_reading): say so, not
        # "above 1"
        skewed = any(g.get("csr", math.inf) <= 1.0 for g in over)
        why = ("Wrong more often than the confidence claims (CSR high against its spread "
               "under calibration" + (f"; where CSR is {SKEWED_READING}" if skewed else "")
               + ")")
        advice = {a["name"]: a for a in recalibration or ()}
        if advice and all(g["name"] in advice for g in over):
            steps.extend(_measured_steps(over, advice, why, grouped, names))
        else:
            why += (f" in {len(over)} group(s): {names(over)}." if grouped else ".")
            how = ("temperature scaling" if multiclass else
                   "Platt scaling (or isotonic regression with enough rows)")
            steps.append({
                "action": f"Recalibrate on held-out data with {how}, then re-run this "
                          "audit.",
                "why": why + " Which method helps on these rows is measured by "
                             "report(recalibrate=True) or df.calib.recalibrate()."})
    undetermined = [g for g in groups if g["band"] == "undetermined"]
    # too few rows first: it is the usual reason, and the one more rows fix
    short = [g for g in undetermined if g["sample_size_text"]]
    if short:
        need = sum(max(g["n_for_power"] - g["n"], 0.0) for g in short)
        steps.append({
            "action": (f"Collect about {need:,.0f} more labelled rows"
                       + (f" across {len(short)} group(s)" if grouped else "")
                       + " before signing off."),
            "why": ("The test cannot yet tell a calibrated model from one whose errors are "
                    "twice as frequent as claimed. "
                    + " ".join((f"{g['name']}: " if grouped else "")
                               + g["sample_size_text"] for g in short[:3]))})
    # certainty claims keep a verdict undetermined whatever the rows: their step too
    claims = [g for g in undetermined
              if (g["n_certain"] or 0) > 0 and not (g["n_certain_wrong"] or 0)]
    if claims:
        k = sum(g["n_certain"] for g in claims)
        steps.append({
            "action": ("Decide whether predictions that claim certainty are acceptable; "
                       "if not, have the model cap them below 1 and re-audit."),
            "why": (f"{k:,} prediction(s) have probability 1 or within ε of it (often a "
                    "probability rounded to 1 by the model's floating point) and none of "
                    "them is wrong"
                    + (f" (groups {names(claims)})" if grouped else "")
                    + ", so nothing contradicts them; but no finite sample can confirm a "
                      "claim of certainty, so the verdict cannot be 'no evidence'.")})
    other = [g for g in undetermined if g not in short and g not in claims]
    if other:
        reasons = sorted({g["band_reason"] for g in other if g["band_reason"]})
        steps.append({
            "action": "Resolve why the verdict is undetermined before relying on it.",
            "why": ("; ".join(reasons[:3]) or "the risk test cannot decide")
                   + (f" (groups {names(other)})." if grouped else ".")})
    if not steps:
        steps.append({"action": "No calibration action required; keep monitoring.",
                      "why": "No group shows evidence of overconfidence and no certainty "
                             "claim is wrong."})
    return steps


def _measured_steps(over: list[dict[str, Any]], advice: Mapping[str, Any], why: str,
                    grouped: bool, names: Any) -> list[dict[str, str]]:
    """The recalibration steps of overconfident groups, one per recommended method."""
    by_method: dict[str, list[dict[str, Any]]] = {}
    for g in over:
        by_method.setdefault(advice[g["name"]]["recommended"], []).append(g)
    steps = []
    for method, gs in by_method.items():
        which = f"{'group' if len(gs) == 1 else 'groups'} {names(gs)}" if grouped else ""
        where = f" in {which}" if grouped else ""
        found = why + where + "."
        if method == "none":
            fixes = "; ".join(_fix_text(advice[g["name"]]["band_fix"],
                                        g["name"] if len(gs) > 1 else "")
                              for g in gs[:3] if advice[g["name"]].get("band_fix"))
            steps.append({
                "action": f"Review the model itself{where}: no recalibration method tried "
                          "lowers the log loss beyond noise.",
                "why": found + " Out of fold, no method lowered the log loss beyond the "
                               "noise of its interval without making the verdict worse "
                               "(see 'What recalibration would do')"
                               + (f"; {fixes}." if fixes else ".")})
            continue
        measured = "; ".join(_measured_text(advice[g["name"]],
                                            g["name"] if len(gs) > 1 else "")
                             for g in gs[:3])
        steps.append({
            "action": f"Recalibrate{' ' + which if grouped else ''} on held-out data with "
                      f"{advice[gs[0]['name']]['recommended_label']}, then re-run this "
                      "audit.",
            "why": f"{found} It is the advisor's recommendation, the simplest method "
                   f"whose out-of-fold log loss cannot be told apart from the lowest (see "
                   f"'What recalibration would do'): {measured}."})
    return steps


def _measured_text(a: Mapping[str, Any], name: str) -> str:
    """What the advisor measured of a group's recommended method, in words."""
    low, high = a["log_loss_diff_ci"]
    text = ((f"{name}: " if name else "")
            + f"out of fold it lowers the log loss by {_num(-a['log_loss_diff'])} "
            f"(paired interval of the change {_num(low)} to {_num(high)}"
            + ("" if a["established"] else ", so the gain is not established")
            + f") and the verdict becomes '{a['band_after']['band_label']}'")
    fix = a.get("band_fix")
    if a["band_after"]["band"] == a["band_before"]["band"] and fix:
        text += "; " + _fix_text(fix)
    return text


def _fix_text(fix: Mapping[str, Any], name: str = "") -> str:
    """The method that would improve a group's verdict, and what it costs in log loss."""
    low, high = fix["log_loss_diff_ci"]
    return ((f"{name}: " if name else "")
            + f"{fix['label']} would make the verdict '{fix['band_label']}' at a log-loss "
            f"change of {_num(fix['log_loss_diff'])} (paired interval {_num(low)} to "
            f"{_num(high)})")


def _below_nominal(g: Any, metric: str) -> str:
    """What the report prints beside one of a group's intervals: the measured coverage
    where it fell below nominal, and no spread (:func:`spread_caveat`); empty where it
    covers.  The group's size caveat is printed once, not beside each interval."""
    facts = g.interval_facts(metric)
    if not facts:
        return ""
    note = interval_note(metric, facts["method"])
    parts = [] if note["meets_target"] else ["interval " + note["coverage"].lower()]
    return "; ".join([*parts, *filter(None, [spread_caveat(*g.intervals[metric])])])
