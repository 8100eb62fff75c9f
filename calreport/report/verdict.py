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

from calreport.plotting import band_key
from calreport.profile import ConfidenceProfile

__all__ = ["BAND_ORDER", "band_labels", "group_facts", "next_steps", "overall_story"]

#: Bands from most to least severe (the report's sort order).
BAND_ORDER = ("risky", "evidence", "undetermined", "no_evidence")
_SEVERITY = {b: i for i, b in enumerate(BAND_ORDER)}
#: Groups below this many rows get the "more data" recommendation.
FEW_ROWS = 200


def band_labels() -> dict[str, str]:
    """Band key -> label, from :data:`calreport.metrics.risk.BANDS`.

    Examples
    --------
    >>> band_labels()["risky"]
    'risky'
    """
    from calreport.metrics import risk

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


#: Why P_risk is 0 where CSR ≤ 1 (printed beside it).
_NO_OVERCONFIDENCE = "CSR ≤ 1: no overconfidence to assess"


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
    note = str(_get(r, "p_risk_note", ""))
    if not note and not math.isnan(csr) and csr <= 1.0 and p_risk == 0.0:
        note = _NO_OVERCONFIDENCE
    band_reason = str(_get(r, "band_reason", "")) or _z_reason(z, g)
    method = str(_get(r, "p_risk_method", g.p_risk_method))
    method_reason = str(_get(r, "method_reason", ""))
    sigma = _f(_get(r, "sigma_csr", g.get("sigma_csr")))
    certain = _certainty(r, prof, eps)
    csr_ci = list(g.intervals.get("csr", (math.nan, math.nan)))
    p_risk_ci = list(g.intervals.get("p_risk", (math.nan, math.nan)))
    decided_on = ""
    rest_z = _f(_get(r, "rest_z_csr", math.nan))
    if certain["n_certain"] and not math.isnan(rest_z):
        # the band is decided on the rows below certainty (each certainty claim weighs
        # 1/eps in the all-row z): the card shows the figures that decided it
        csr, z, sigma = _f(_get(r, "rest_csr")), rest_z, _f(_get(r, "rest_sigma_csr"))
        p_risk = _f(_get(r, "rest_p_risk"))
        method = str(_get(r, "rest_p_risk_method", method))
        method_reason = str(_get(r, "rest_method_reason", method_reason))
        note = _NO_OVERCONFIDENCE if csr <= 1.0 and p_risk == 0.0 else ""
        csr_ci = p_risk_ci = [math.nan, math.nan]  # the intervals are of all rows
        decided_on = (f"z, P_risk and CSR of the {_f(_get(r, 'rest_n')):,.0f} rows below "
                      f"certainty; the {certain['n_certain']:,} certainty claim(s) are "
                      "judged on their own")
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
    return {
        "name": g.name,
        "band": band,
        "band_label": labels[band],
        "band_reason": band_reason,
        "severity": _SEVERITY[band],
        "csr": csr,
        "csr_ci": csr_ci,
        "sigma_csr": sigma,
        "z_csr": z,
        "p_risk": p_risk,
        "p_risk_ci": p_risk_ci,
        "decided_on": decided_on,
        "p_risk_note": note,
        # cards print only what a reader needs beside the value: why P_risk is 0
        "p_risk_card_note": note.split(" (")[0] if not math.isnan(csr) and csr <= 1 else "",
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
    from calreport.plotting import _base

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


def sort_key(facts: Mapping[str, Any]) -> tuple[int, float, str]:
    """Most severe band first, then highest z, then name."""
    z = facts["z_csr"]
    return (facts["severity"], -z if not math.isnan(z) else math.inf, facts["name"])


def overall_story(overall: Mapping[str, Any] | None, groups: list[dict[str, Any]],
                  labels: Mapping[str, str], worst: int = 5) -> dict[str, Any]:
    """First-page facts: pooled verdict, groups per band, worst groups, certainty claims."""
    counts = {b: sum(g["band"] == b for g in groups) for b in BAND_ORDER}
    n = len(groups)
    head = overall if overall is not None else (groups[0] if n == 1 else None)
    # the headline is the most severe of the pooled verdict and every group's: pooling
    # can hide an overconfident subgroup behind well-calibrated ones
    worst_band = next((b for b in BAND_ORDER if counts[b]), "undetermined")
    band = worst_band if head is None else min(head["band"], worst_band, key=_SEVERITY.get)
    flagged = counts["risky"] + counts["evidence"]
    if n == 1:
        sentence = f"The predictions: {labels[band]}."
        if band == "risky":
            sentence = "The predictions are risky: their confidence is not to be trusted."
    else:
        pooled = f"All {n} groups pooled: {labels[head['band']]}. " if head is not None else ""
        sentence = pooled + (
            f"{flagged} of {n} groups show overconfidence ({counts['risky']} risky, "
            f"{counts['evidence']} with evidence); {counts['undetermined']} undetermined."
            if flagged else f"None of the {n} groups shows evidence of overconfidence; "
            f"{counts['undetermined']} undetermined.")
    ranked = sorted((g for g in groups if not math.isnan(g["z_csr"])), key=lambda g: -g["z_csr"])
    n_certain = sum(g["n_certain"] or 0 for g in groups)
    n_wrong = sum(g["n_certain_wrong"] or 0 for g in groups)
    wrong_groups = [g["name"] for g in groups if (g["n_certain_wrong"] or 0) > 0]
    return {
        "band": band, "band_label": labels[band], "sentence": sentence, "n_groups": n,
        "head": head,
        "counts": [{"band": b, "label": labels[b], "count": counts[b]} for b in BAND_ORDER],
        "worst": [g for g in ranked[:worst]] if n > 1 else [],
        "certainty": {"n_certain": n_certain, "n_wrong": n_wrong,
                      "groups_wrong": wrong_groups},
    }


def next_steps(groups: list[dict[str, Any]], story: Mapping[str, Any],
               multiclass: bool) -> list[dict[str, str]]:
    """Recommended actions derived from the findings, most urgent first."""

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
        how = ("temperature scaling" if multiclass else
               "Platt scaling (or isotonic regression with enough rows)")
        steps.append({
            "action": f"Recalibrate on held-out data with {how}, then re-run this audit.",
            "why": ("Overconfident: CSR above 1 beyond its spread under calibration"
                    + (f" in {len(over)} group(s): {names(over)}." if grouped else "."))})
    few = [g for g in groups if not math.isnan(g["n"]) and g["n"] < FEW_ROWS]
    if few:
        steps.append({
            "action": "Collect more labelled rows before signing off these groups.",
            "why": f"Fewer than {FEW_ROWS} rows"
                   + (f" in {len(few)} group(s): {names(few)}" if grouped else "")
                   + ": the test has little power and the intervals are wide."})
    undetermined = [g for g in groups if g["band"] == "undetermined"]
    if undetermined:
        reasons = sorted({g["band_reason"] for g in undetermined if g["band_reason"]})
        steps.append({
            "action": "Resolve why the verdict is undetermined before relying on it.",
            "why": ("; ".join(reasons[:3]) or "the risk test cannot decide")
                   + (f" (groups {names(undetermined)})." if grouped else ".")})
    if not steps:
        steps.append({"action": "No calibration action required; keep monitoring.",
                      "why": "No group shows evidence of overconfidence and no certainty "
                             "claim is wrong."})
    return steps
