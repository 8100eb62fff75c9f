"""The report context: plain data (dicts, lists, strings, numbers) built from one result.

:func:`build_report` turns a :class:`~calreport.result.CalibrationResult` and the
groups' confidence profiles into the context the templates render.  Every fact
about a metric (label, formula, references, direction, percent) comes from
:data:`calreport.registry.REGISTRY`; citations from :mod:`calreport.references`.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import calreport.report.verdict as vd
from calreport import references
from calreport._version import __version__
from calreport.bootstrap.intervals import REFIT_REPLICATES, linearized_note
from calreport.compare import Comparison
from calreport.interval_rules import (
    LINEARIZED_MARK,
    base_method,
    size_caveat,
    spread_caveat,
    study_sizes,
)
from calreport.metrics import local, risk
from calreport.plotting import BAND_COLORS, BAND_FILLS, pool_profiles
from calreport.profile import ConfidenceProfile
from calreport.recalibration import RecalibrationResult
from calreport.registry import COUNT_LABELS, REGISTRY, shown_in
from calreport.report.actions import comparison_section, recalibration_section
from calreport.report.drivers import error_list
from calreport.report.exporters import SCHEMA_VERSION, Report
from calreport.report.figures import build_figures
from calreport.report.formatting import _fmt_count, _fmt_metric
from calreport.report.layout import fixed_widths
from calreport.result import CalibrationResult

__all__ = ["build_report", "short_label"]

#: Columns of the compact groups table, when computed (each entry's ``shown_in``).
_TABLE_METRICS = shown_in("report_table")
#: Key metrics printed on a verdict card, when computed (each entry's ``shown_in``).
_CARD_METRICS = shown_in("card")
#: References of the report's own methods (verdict, intervals, curves, bounds).
_METHOD_REFS = ("MartinMaroto2026", "Wilson1927", "Cleveland1979", "ClopperPearson1934")


def build_report(
    result: CalibrationResult,
    profiles: Mapping[Hashable, ConfidenceProfile],
    *,
    title: str = "Calibration audit",
    subject: str | None = None,
    model: str | None = None,
    model_version: str | None = None,
    data_description: str | None = None,
    row_labels: Mapping[Hashable, Sequence[Any]] | None = None,
    row_label_name: str = "Row",
    data_notes: Mapping[str, Any] | None = None,
    timestamp: _dt.datetime | str | None = None,
    top_errors: int = 10,
    max_cards: int = 16,
    max_driver_groups: int = 10,
    template_dir: str | Path | None = None,
    recalibration: RecalibrationResult | None = None,
    comparison: Comparison | None = None,
    row_id: Hashable | None = None,
) -> Report:
    """Build the model-card audit report of one calibration result.

    Parameters
    ----------
    result : CalibrationResult
        ``df.calib.evaluate(...)`` or ``df.groupby(key).calib.evaluate(...)``.
    profiles : mapping of group key or name -> ConfidenceProfile
        The rows of each group (``{"all": profile}`` when ungrouped), for the figures
        and the lists of the most overconfident errors.
    title, subject : str
        Heading and what is audited.
    model, model_version, data_description : str, optional
        Sign-off facts printed on the first page.
    row_labels : mapping of group -> sequence, optional
        A label per row of each profile (e.g. a patient id) naming the errors listed
        under "what drives the risk"; default: the row position in the group.
    row_label_name : str, default "Row"
        Column heading of those labels.
    data_notes : mapping, optional
        Extra lines for the data section (name -> text).
    timestamp : datetime or str, optional
        Printed time stamp (default: now, UTC); fix it for byte-identical output.
    top_errors : int, default 10
        Errors listed per flagged group.
    max_cards : int, default 16
        Most verdict cards printed (flagged groups first); all groups are in the
        compact table.
    max_driver_groups : int, default 10
        Most flagged groups whose error lists are printed in the appendix.
    template_dir : str or Path, optional
        A folder searched before the packaged templates.
    recalibration : RecalibrationResult, optional
        The advisor's result on the same groups (``df.calib.recalibrate()``): adds
        "What recalibration would do", and the next steps name each group's recommended
        method.
    comparison : Comparison, optional
        A paired comparison of the groups (``compare(baseline, row_id=...)``): adds
        the section "Paired comparison".
    row_id : column name, optional
        The comparison's row key column, printed with it.

    Returns
    -------
    Report

    Raises
    ------
    TypeError, ValueError
        A result that is not a CalibrationResult, a profile that is not a
        ConfidenceProfile, row labels of the wrong length, negative limits.

    Notes
    -----
    The verdict of each group is its risk band, from the overconfidence score
    ``z = (CSR - 1) / sigma_CSR`` and the certainty-claim rule of the result.

    References
    ----------
    Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond
    ECE: Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics.
    arXiv:2605.01796. Section 2.1.

    Examples
    --------
    >>> import pandas as pd, calreport
    >>> df = pd.DataFrame({"y": [0, 1, 1, 0] * 30, "p": [0.2, 0.7, 0.9, 0.4] * 30})
    >>> res = df.calib(y="y", proba="p").evaluate(["accuracy", "csr"])
    >>> rep = build_report(res, {"all": df.calib(y="y", proba="p").profile()},
    ...                    timestamp="2026-01-01T00:00:00Z")
    >>> rep.context["overall"]["band"]  # every prediction is right: CSR = 0
    'no_evidence'
    """
    if not isinstance(result, CalibrationResult):
        raise TypeError(f"`result` must be a CalibrationResult (df.calib.evaluate(...)), got "
                        f"{type(result).__name__}.")
    for name, val in (("top_errors", top_errors), ("max_cards", max_cards),
                      ("max_driver_groups", max_driver_groups)):
        if not isinstance(val, (int, np.integer)) or isinstance(val, bool) or val < 0:
            raise ValueError(f"`{name}` must be a non-negative integer, got {val!r}.")
    profs = _match_profiles(result, profiles)
    labels = _match_labels(result, row_labels or {}, profs)
    eps = float(result.settings.eps)
    names = vd.band_labels()
    facts = [vd.group_facts(g, profs.get(g.name), eps, names) for g in result.groups]
    facts.sort(key=vd.sort_key)
    overall = None
    if result.overall is not None:
        pooled = None
        if result.overall.risk is None and profs:
            pooled = pool_profiles(profs.values())
        overall = vd.group_facts(result.overall, pooled, eps, names)
        overall["name"] = "all groups pooled"
    story = vd.overall_story(overall, facts, names, family=result.family)
    multiclass = len(result.data.get("classes") or ()) > 2
    display = _display_names(result)
    recal = None if recalibration is None else recalibration_section(
        _checked(recalibration, RecalibrationResult, "recalibration"), display,
        [f["name"] for f in facts], max_driver_groups)
    paired = None if comparison is None else comparison_section(
        _checked(comparison, Comparison, "comparison"), display, row_id)
    ts, ts_text = _timestamp(timestamp)
    by_name = {g.name: g for g in result.groups}
    cards = _cards(facts, max_cards)
    for card in cards:
        card["key_metrics"] = _key_metrics(by_name[card["name"]], result)
    flagged = [f for f in facts if f["band"] in ("risky", "evidence")
               or (f["n_certain_wrong"] or 0) > 0]
    context: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "title": str(title),
        "subject": None if subject is None else str(subject),
        "signoff": {"model": _opt(model), "model_version": _opt(model_version),
                    "data_description": _opt(data_description)},
        "meta": {"version": __version__, "timestamp": ts_text,
                 "timestamp_iso": ts.isoformat().replace("+00:00", "Z"),
                 "generator": f"calreport {__version__}"},
        "bands": [{"band": b, "label": names[b]} for b in vd.BAND_ORDER],
        "band_colors": _band_css(),
        "overall": story,
        "next_steps": vd.next_steps(facts, story, multiclass,
                                    None if recal is None else recal["groups"]),
        "recalibration": recal,
        "comparison": paired,
        "groups": facts,
        "cards": cards,
        "n_more_flagged": max(0, len([f for f in facts if f["band"] != "no_evidence"])
                              - len([c for c in cards if c["band"] != "no_evidence"])),
        "group_table": _group_table(facts, by_name, result),
        "metric_tables": _metric_tables(result, facts, overall),
        "band_rule": risk_rule(),
        "data": _data(result, facts, profs, data_notes),
        "drivers": [error_list(f["name"], profs[f["name"]], labels.get(f["name"]), top_errors,
                             eps) for f in flagged[:max_driver_groups] if f["name"] in profs],
        "n_flagged": len(flagged),
        "row_label_name": str(row_label_name),
        "methods": _methods(result),
        "settings": _settings_rows(result),
        "bootstrap": _bootstrap_rows(result),
        "reasons": (reasons := _reasons(result)),
        "reason_lines": _reason_lines(reasons),
        "figures": [],
    }
    risks = {f["name"]: _RiskView(f) for f in facts}
    drawn: dict[str, Any] = {}
    context["figures"] = build_figures(
        profs, risks, [f["name"] for f in facts], view=result.settings.view,
        n_bins=result.settings.n_bins, strategy=result.settings.strategy, drawn=drawn)
    return Report(context, result, ts, template_dir=template_dir, figures=drawn)


class _RiskView:
    """What the risk plot reads of a group: its (adjusted) P_risk, CSR and band."""

    def __init__(self, facts: Mapping[str, Any]) -> None:
        self.csr, self.band, self.p_risk = facts["csr"], facts["band"], facts["p_risk"]
        self.p_risk_adjusted = facts["p_risk_adjusted"]
        self.adjust = facts["adjust"]


def _display_names(result: CalibrationResult) -> dict[Hashable, str]:
    """Group key -> display name (the keys the advisor and the comparison use)."""
    split = getattr(result, "split", None)
    if split is None:
        return {g.name: g.name for g in result.groups}
    names = {g.key: g.name for g in split.groups if _hashable(g.key)}
    if not split.grouped:
        names["all"] = names.get(None, "all")
    return names


def _checked(obj: Any, kind: type, name: str) -> Any:
    if not isinstance(obj, kind):
        raise TypeError(f"`{name}` must be a {kind.__name__}, got {type(obj).__name__}.")
    return obj


def _opt(x: Any) -> str | None:
    return None if x is None else str(x)


def _band_css() -> list[dict[str, str]]:
    return [{"band": b, "color": BAND_COLORS[b], "fill": BAND_FILLS[b]}
            for b in vd.BAND_ORDER]


def _match_profiles(result: CalibrationResult,
                    profiles: Mapping[Hashable, ConfidenceProfile]
                    ) -> dict[str, ConfidenceProfile]:
    if isinstance(profiles, ConfidenceProfile):
        profiles = {result.groups[0].name: profiles}
    if not isinstance(profiles, Mapping):
        raise TypeError("`profiles` must be a mapping of group -> ConfidenceProfile.")
    out = {}
    for g in result.groups:
        prof = profiles.get(g.name, profiles.get(g.key)) if _hashable(g.key) else \
            profiles.get(g.name)
        if prof is None and len(result.groups) == 1 and len(profiles) == 1:
            prof = next(iter(profiles.values()))
        if prof is None:
            continue
        if not isinstance(prof, ConfidenceProfile):
            raise TypeError(f"`profiles[{g.name!r}]` is a {type(prof).__name__}, not a "
                            "ConfidenceProfile.")
        out[g.name] = prof
    return out


def _hashable(x: Any) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


def _match_labels(result: CalibrationResult, row_labels: Mapping[Hashable, Sequence[Any]],
                  profs: Mapping[str, ConfidenceProfile]) -> dict[str, Sequence[Any]]:
    out = {}
    for g in result.groups:
        lab = row_labels.get(g.name, row_labels.get(g.key) if _hashable(g.key) else None)
        if lab is None:
            continue
        if g.name in profs and len(lab) != profs[g.name].n:
            raise ValueError(f"`row_labels[{g.name!r}]` has {len(lab)} labels but the group "
                             f"has {profs[g.name].n} rows. Pass one label per row.")
        out[g.name] = lab
    return out


def _cards(facts: list[dict[str, Any]], max_cards: int) -> list[dict[str, Any]]:
    """Cards for the groups that are not "no evidence", then the riskiest of the rest."""
    if len(facts) == 1:
        return [dict(facts[0])]
    flagged = [f for f in facts if f["band"] != "no_evidence"]
    calm = [f for f in facts if f["band"] == "no_evidence"][:3]
    return [dict(f) for f in (flagged + calm)[:max_cards]]


def _key_metrics(g: Any, result: CalibrationResult) -> list[dict[str, Any]]:
    out = []
    for m in _CARD_METRICS:
        if m in result.metrics:
            lo, hi = g.intervals.get(m, (math.nan, math.nan))
            out.append({"name": m, "label": REGISTRY[m].label, "value": g.get(m),
                        "ci_low": lo, "ci_high": hi, "note": vd._below_nominal(g, m)})
    return out


def short_label(metric: str) -> str:
    """Column heading of a metric: ``"ECE"`` for "Expected calibration error (ECE)"."""
    label = REGISTRY[metric].label
    if label.endswith(")") and " (" in label:
        inner = label[label.rindex(" (") + 2:-1]
        if " " not in inner:
            return inner
    if "=" in label:
        return label.split("=")[0].strip()
    return label.split(" (")[0]


def _group_table(facts: list[dict[str, Any]], by_name: Mapping[str, Any],
                 result: CalibrationResult) -> dict[str, Any]:
    cols = [m for m in _TABLE_METRICS if m in result.metrics]
    if any(f["adjusted"] for f in facts):
        cols.insert(cols.index("p_risk") + 1 if "p_risk" in cols else len(cols),
                    "p_risk_adjusted")
    rows = [{"group": f["name"], "band": f["band"], "band_label": f["band_label"],
             "n": f["n"], "certain_wrong": f["n_certain_wrong"],
             "cells": [{"name": m, "value": _value(by_name[f["name"]], m, f)}
                       for m in cols]}
            for f in facts]
    columns = [{"name": m, "label": "P_risk adj." if m == "p_risk_adjusted"
                else short_label(m)} for m in cols]
    text = [("Group", []), ("Verdict", [r["band_label"] for r in rows]),
            ("Rows", [_fmt_count(r["n"]) for r in rows])]
    text += [(c["label"], [_fmt_metric(r["cells"][i]["value"], c["name"]) for r in rows])
             for i, c in enumerate(columns)]
    text.append(("Wrong certainty claims", [_fmt_count(r["certain_wrong"]) for r in rows]))
    # report.css sets the table at 7.5 pt and its badges at 6 pt; A4, 16 mm margins
    size = 7.5
    widths = fixed_widths(text, badge_column=1, badge_scale=6 / size,
                          available_em=(210 - 32) / 25.4 * 72 / size)
    return {"columns": columns, "rows": rows, "show": len(facts) > 1,
            "widths_pt": None if widths is None else [round(w * size, 1) for w in widths]}


def _metric_tables(result: CalibrationResult, facts: list[dict[str, Any]],
                   overall: Mapping[str, Any] | None = None,
                   width: int = 4) -> dict[str, Any]:
    """Metric x column tables with intervals: overall and groups (riskiest 3 when many)."""
    columns: list[Any] = []
    if result.overall is not None:
        columns.append(("all groups pooled", result.overall, overall))
    by_name = {g.name: g for g in result.groups}
    many = len(facts) > 7
    for f in facts[:3] if many else facts:
        columns.append((f["name"], by_name[f["name"]], f))
    rows = []
    notes = result.interval_notes() if result.ci is not None else {}
    # out of core, the 95 % sampling error of a metric computed on a sample
    sampled = result.data.get("sampling_error") or {"by_group": {}, "notes": {}}
    for m in result.metrics:
        spec = REGISTRY[m]
        note = notes.get(m)
        cells = []
        for _, g, f in columns:
            lo, hi = g.intervals.get(m, (math.nan, math.nan))
            h = sampled["by_group"].get(g.name, {}).get(m, math.nan)
            cells.append({"value": _value(g, m, f), "ci_low": lo, "ci_high": hi,
                          "sampling_error": None if math.isnan(h) else h,
                          "caveat": spread_caveat(lo, hi)})
        rows.append({"name": m, "label": spec.label, "direction": spec.direction,
                     "target": spec.target, "cells": cells,
                     "sampling_note": sampled["notes"].get(m, ""),
                     "coverage": "" if note is None else note["text"],
                     "method": "" if note is None else base_method(note["method"]),
                     "refit": spec.interval.kind == "refit"})
    tables = []
    for start in range(0, len(columns), width):
        tables.append({"columns": [c[0] for c in columns[start:start + width]],
                       "rows": [dict(r, cells=r["cells"][start:start + width]) for r in rows]})
    # the coverage study's sizes, said once for the columns below them
    small = [f"{name} ({g.get('n'):,.0f} rows)" for name, g, _ in columns
             if notes and size_caveat(g.get("n"))]
    size_note = ("" if not small else f"Intervals of {', '.join(small)}: their coverage "
                 f"was measured on groups of {study_sizes()} rows, not at these sizes.")
    return {"tables": tables, "partial": many, "n_groups": len(facts),
            "size_note": size_note}


#: Metrics whose printed value is the verdict's own (one set of numbers per verdict):
#: the risk family's, and the multiplicity-adjusted P_risk.
_VERDICT_METRICS = (*(m for m in REGISTRY if REGISTRY[m].family == "risk"),
                    "p_risk_adjusted")


def _value(g: Any, metric: str, facts: Mapping[str, Any] | None) -> float:
    """A group's value of ``metric``; the verdict's own for CSR, σ, z and P_risk."""
    if metric in _VERDICT_METRICS and facts is not None and metric in facts:
        return float(facts[metric])
    return g.get(metric)


def risk_rule() -> dict[str, Any]:
    """The band rule as printed: one sentence and the bands' meanings."""
    return {"text": risk.BAND_RULE,
            "bands": [{"band": b, "label": risk.BANDS[b][0], "meaning": risk.BANDS[b][1]}
                      for b in risk.BANDS]}


def _data(result: CalibrationResult, facts: list[dict[str, Any]],
          profs: Mapping[str, ConfidenceProfile],
          notes: Mapping[str, Any] | None) -> dict[str, Any]:
    d = result.data
    classes = d.get("classes")
    first = next(iter(profs.values()), None)
    views = sorted({result.settings.view or p.default_view for p in profs.values()})

    def total(key: str) -> float:
        vals = [f[key] for f in facts if not math.isnan(f[key])]
        return float(sum(vals)) if vals else math.nan

    columns = {k: str(val) for k, val in (d.get("columns") or {}).items()
               if val is not None and not isinstance(val, (list, dict))}
    return {
        "n_rows": total("n"), "n_errors": total("n_errors"), "n_dropped": total("n_dropped"),
        "n_no_group_key": int(d.get("n_no_group_key") or 0),
        "n_clipped": total("n_clipped"), "n_groups": len(facts),
        # alternative models of the same rows: the rows each one scored, when equal
        "rows_each": (facts[0]["n"] if result.family.get("group_kind") == "alternatives"
                      and len({f["n"] for f in facts}) == 1 else None),
        "group_label": d.get("group_label"), "grouped": result.grouped,
        "classes": None if classes is None else [str(c) for c in classes],
        "positive_class": None if d.get("positive_class") is None
        else str(d["positive_class"]),
        "problem": ("confidence and correctness only" if classes is None else
                    "binary" if len(classes) == 2 else f"multiclass ({len(classes)} classes)"),
        "view": ", ".join(x.replace("_", "-") for x in views),
        "weights": d.get("weights"),
        "weighted": any(p.sample_weight is not None for p in profs.values()),
        "columns": [{"role": k, "column": val} for k, val in columns.items()],
        "notes": [{"name": str(k), "text": str(val)} for k, val in (notes or {}).items()],
        "has_labels": bool(first is not None and first.has_labels),
    }



def _methods(result: CalibrationResult) -> dict[str, Any]:
    """Definitions of the metrics computed, citing numbered references."""
    keys: list[str] = list(_METHOD_REFS)
    for m in result.metrics:
        keys += [r.key for r in REGISTRY[m].references]
    if result.ci is not None:
        keys.append("Efron1979")
    if result.data.get("weights"):
        keys.append("Kish1965")
    keys = [k for k in dict.fromkeys(keys) if k in references.REFERENCES]
    number = {k: i + 1 for i, k in enumerate(keys)}
    rows = []
    for m in result.metrics:
        spec = REGISTRY[m]
        rows.append({"name": m, "label": spec.label, "formula": spec.formula,
                     "direction": spec.direction,
                     "sources": [{"ref": number[r.key], "where": r.where}
                                 for r in spec.references if r.key in number]})
    refs = [{"number": number[k], "key": k, "text": references.cite(k)} for k in keys]
    return {"rows": rows, "references": refs, "risk_ref": number["MartinMaroto2026"],
            "wilson_ref": number["Wilson1927"], "cp_ref": number["ClopperPearson1934"]}


def _settings_rows(result: CalibrationResult) -> list[dict[str, str]]:
    s = result.settings
    view = s.view or "default (positive class for binary input, else top-label)"
    rows = [
        ("Calibration view", str(view).replace("_", "-")),
        ("Bins (ECE, MCE, reliability diagram)",
         f"{s.n_bins} {s.strategy} bins" + (" ((m−1)/M, m/M], 0 in the first bin"
                                             if s.strategy == "uniform"
                                             else ", equal mass, ties kept together")),
        ("Minimum rows per bin for MCE", str(s.min_count)),
        ("Per-bin intervals", "Wilson score interval, 95 %"),
        ("Smoothing (calibration curve, LCS)",
         f"LOWESS, local linear, tricube weights, span {float(local.DEFAULT_FRAC):g} of the "
         "rows, no robustness iterations; 100 grid points within the observed score range"),
        ("Selective threshold τ (CWSA, CWSA+)", f"{s.tau:g}"),
        ("Confidence clipping for CSR", f"[ε, 1 − ε], ε = {s.eps:g}; confidences at 1 − ε "
                                         "are certainty claims"),
        ("P_risk method requested", str(s.p_risk_method).replace("_", " ")),
    ]
    return [{"name": a, "value": b} for a, b in rows]


def _bootstrap_rows(result: CalibrationResult) -> dict[str, Any]:
    ci = result.ci
    if ci is None:
        return {"used": False, "rows": [], "level": None}
    methods = sorted({m for g in result.groups for m in g.interval_methods.values()})
    rows = [
        ("Confidence level", f"{100 * float(ci['level']):g} %"),
        ("Interval method", str(ci.get("method") or "per metric: " + "; ".join(methods))),
        ("Replicates", f"{int(ci['n_boot']):,} " + (
            f"(refitted metrics: at most {REFIT_REPLICATES})" if ci.get("refit", True)
            else "(refitted metrics: not refitted, no interval; refit=True computes them)")),
        ("One-sided bounds", "a calibration error's estimate is biased upward and its true "
         "value can be 0, where no interval around the estimate covers; it gets a "
         "one-sided upper bound, printed as ≤ u (CORP UNC: a lower bound, ≥ l)"),
        ("Coverage", "each metric's measured coverage (the project's coverage study: "
         "calibrated and miscalibrated models, binary, weighted and 10-class, 300 and "
         "3,000 rows) is printed beside it in the metric tables; every interval contains "
         "its estimate; the JSON gives the Monte Carlo standard error of each bound"),
        ("Resampling", f"{ci.get('resampling', 'rows with replacement')}, within each group"),
        ("Seed", "not fixed" if ci.get("seed") is None else str(ci["seed"])),
    ]
    if any(m.endswith(LINEARIZED_MARK) for m in methods):
        rows.insert(2, ("Linearized replicates", linearized_note()))
    return {"used": True, "level": float(ci["level"]),
            "rows": [{"name": a, "value": b} for a, b in rows]}


def _reasons(result: CalibrationResult) -> list[dict[str, Any]]:
    """Why values are undefined: one line per (metric, reason), naming the groups."""
    seen: dict[tuple[str, str], list[str]] = {}
    for g in result.groups:
        for m, why in g.reasons.items():
            seen.setdefault((m, str(why)), []).append(g.name)
    n = len(result.groups)
    out = []
    for (m, why), groups in seen.items():
        where = ("" if n == 1 else "all groups" if len(groups) == n else
                 ", ".join(groups[:5]) + (f" and {len(groups) - 5} more"
                                          if len(groups) > 5 else ""))
        label = REGISTRY[m].label if m in REGISTRY else COUNT_LABELS.get(m, m)
        out.append({"metric": m, "label": label, "reason": why, "groups": where})
    return out


def _reason_lines(reasons: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The printed form of :func:`_reasons`: metrics that share a reason and groups
    share a line (the ten metrics without a refitted interval read as one)."""
    lines: dict[tuple[str, str], list[str]] = {}
    for r in reasons:
        lines.setdefault((r["reason"], r["groups"]), []).append(r["label"])
    return [{"label": ", ".join(labels), "reason": why, "groups": where}
            for (why, where), labels in lines.items()]


def _timestamp(ts: _dt.datetime | str | None) -> tuple[_dt.datetime, str]:
    if ts is None:
        ts = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
    elif isinstance(ts, str):
        try:
            ts = _dt.datetime.fromisoformat(ts.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"`timestamp` {ts!r} is not an ISO 8601 date-time, e.g. "
                             "'2026-01-31T12:00:00Z'.") from None
    elif not isinstance(ts, _dt.datetime):
        raise TypeError(f"`timestamp` must be a datetime or an ISO string, got "
                        f"{type(ts).__name__}.")
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=_dt.timezone.utc)
    ts = ts.astimezone(_dt.timezone.utc)
    return ts, ts.strftime("%Y-%m-%d %H:%M:%S UTC")
