"""The report's action sections: what recalibration would do, and the paired comparison.

Both are plain data built from results computed elsewhere: a
:class:`~calreport.recalibration.RecalibrationResult` (``report(recalibrate=True)``)
and a :class:`~calreport.compare.Comparison` (``report(compare=baseline,
row_id=...)``).  Numbers stay numbers; the templates format them.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from calreport.compare import Comparison
from calreport.metrics.bands import BAND_SEVERITY, BANDS
from calreport.recalibration import RecalibrationResult
from calreport.recalibration.advisor import RECOMMENDATION_RULE
from calreport.recalibration.crossfit import METHODS
from calreport.registry import REGISTRY, shown_in

__all__ = ["COMPARE_METRICS", "RECAL_METRICS", "comparison_section",
           "recalibration_section"]

#: Metrics of the report's recalibration tables (each with its paired difference
#: where the advisor computes one; each entry's ``shown_in``); ``band`` is P_risk's
#: verdict band.
RECAL_METRICS = (*shown_in("report_recalibration"), "band")
#: Metrics of the report's comparison table, in order (those the comparison holds;
#: each entry's ``shown_in``).
COMPARE_METRICS = shown_in("comparison")


def _float(x: Any) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def _band(band: str) -> dict[str, str]:
    return {"band": band, "band_label": BANDS[band][0]}


def recalibration_section(res: RecalibrationResult, names: Mapping[Hashable, str],
                          order: list[str], max_groups: int) -> dict[str, Any]:
    """What recalibration would do, per group: the out-of-fold table and the advice.

    Parameters
    ----------
    res : RecalibrationResult
        The advisor's result for the report's groups.
    names : mapping
        Group key -> the report's display name (ungrouped: ``"all"``).
    order : list of str
        Display names in the report's order (riskiest first); groups not in it follow.
    max_groups : int
        Groups whose full method table is printed; every group is in the
        recommendation table.

    Returns
    -------
    dict
        ``groups`` (name, recommended method and label, reason, log-loss change and
        interval, bands before and after; ``rows``: one per method), ``shown``
        (groups with a printed table), ``options``, ``coverage`` and ``rule`` (how
        the recommendation is chosen).
    """
    table = res.table
    keys = list(res.recommended.index) if res.grouped else [None]
    rank = {name: i for i, name in enumerate(order)}
    keys.sort(key=lambda k: rank.get(names.get(k, str(k)), len(rank)))
    groups = []
    for key in keys:
        part = table.loc[key] if res.grouped else table
        best = str(res.recommended[key] if res.grouped else res.recommended)
        reason = str(res.reason[key] if res.grouped else res.reason)
        rows = []
        for method, r in part.iterrows():
            row = {"method": str(method), "label": METHODS[str(method)].label,
                   "recommended": str(method) == best, **_band(str(r["band"]))}
            for m in RECAL_METRICS[:-1]:
                row[m] = _float(r[m])
                if f"{m}_diff" in r.index:
                    row[f"{m}_diff"] = _float(r[f"{m}_diff"])
                    row[f"{m}_diff_ci"] = [_float(r[f"{m}_diff_low"]),
                                           _float(r[f"{m}_diff_high"])]
            rows.append(row)
        chosen = next(r for r in rows if r["method"] == best)
        none = rows[0]
        # where the recommendation leaves the verdict as it was, the method (if any)
        # that improves the verdict, with the log loss it costs
        better = [r for r in rows if BAND_SEVERITY[r["band"]] < BAND_SEVERITY[none["band"]]]
        fix = min(better, key=lambda r: r["log_loss"]) if better and \
            BAND_SEVERITY[chosen["band"]] == BAND_SEVERITY[none["band"]] else None
        groups.append({
            "name": names.get(key, str(key)), "recommended": best,
            "recommended_label": METHODS[best].label, "reason": reason,
            "log_loss_before": none["log_loss"], "log_loss_after": chosen["log_loss"],
            "log_loss_diff": chosen["log_loss_diff"],
            "log_loss_diff_ci": chosen["log_loss_diff_ci"],
            "established": best != "none" and chosen["log_loss_diff_ci"][1] < 0,
            "band_before": _band(none["band"]), "band_after": _band(chosen["band"]),
            "band_fix": None if fix is None else {
                "method": fix["method"], "label": fix["label"],
                "log_loss_diff": fix["log_loss_diff"],
                "log_loss_diff_ci": fix["log_loss_diff_ci"], **_band(fix["band"])},
            "rows": rows,
        })
    opts = res.options
    return {
        "groups": groups, "shown": groups[:max_groups],
        "n_more": max(0, len(groups) - max_groups),
        "options": {"n_splits": opts.get("n_splits"), "n_boot": opts.get("n_boot"),
                    "ci": opts.get("ci"), "seed": opts.get("seed"),
                    "multiclass": opts.get("multiclass"),
                    "methods": [METHODS[m].label for m in opts.get("methods", [])]},
        "coverage": str(opts.get("coverage") or ""), "rule": RECOMMENDATION_RULE,
    }


def comparison_section(cmp: Comparison, names: Mapping[Hashable, str],
                       row_id: Any = None,
                       metrics: Sequence[str] | None = COMPARE_METRICS) -> dict[str, Any]:
    """The paired comparison of every model against the baseline, per model.

    Parameters
    ----------
    cmp : Comparison
        ``df.groupby(model).calib.compare(baseline, row_id=...)``.
    names : mapping
        Group key -> the report's display name.
    row_id : column name, optional
        The row key column, printed in the section.
    metrics : sequence of str, optional
        Metrics listed, in order, where the comparison holds them (None: all of its
        metrics, in its order).

    Returns
    -------
    dict
        ``baseline``, ``n_rows``, ``ci``, ``n_boot``, ``seed``, ``row_id``,
        ``models`` (name, band change, ``rows``: metric, label, baseline value,
        value, difference, interval, p-value, why an interval is missing, whether
        it has a caveat), ``caveats`` (metric, label and text of each interval the
        coverage study found below its level, marked † beside it) and ``methods`` (how
        the intervals and p-values were obtained, and what was measured of them).
    """
    table = cmp.table
    models = []
    for model in dict.fromkeys(table.index.get_level_values(0)):
        part = table.loc[model]
        rows = []
        for m in part.index if metrics is None else metrics:
            if m not in part.index:
                continue
            r = part.loc[m]
            rows.append({"metric": m, "label": REGISTRY[m].label if m in REGISTRY else m,
                         "baseline": _float(r["baseline"]), "value": _float(r["value"]),
                         "difference": _float(r["difference"]),
                         "ci": [_float(r["ci_low"]), _float(r["ci_high"])],
                         "p_value": _float(r["p_value"]),
                         "reason": cmp.reasons.get((model, m), ""),
                         "caveat": bool(cmp.caveats.get(m))})
        b = cmp.bands.loc[model]
        models.append({"name": names.get(model, str(model)), "rows": rows,
                       "baseline_band": _band(str(b["baseline_band"])),
                       "band": _band(str(b["band"])), "change": str(b["change"])})
    keep = ("interval", "test", "coverage", "band")
    shown = {r["metric"] for m in models for r in m["rows"]}
    caveats = [{"metric": m, "label": REGISTRY[m].label if m in REGISTRY else m, "text": c}
               for m, c in cmp.caveats.items() if m in shown]
    return {"baseline": names.get(cmp.baseline, str(cmp.baseline)), "n_rows": cmp.n_rows,
            "caveats": caveats,
            "ci": cmp.ci, "n_boot": cmp.n_boot, "seed": cmp.seed,
            "row_id": None if row_id is None else str(row_id), "models": models,
            "methods": {k: str(cmp.methods[k]) for k in keep if k in cmp.methods}}
