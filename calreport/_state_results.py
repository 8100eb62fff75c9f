"""Results and reports of a merged statistics state (Accumulator, Dask, Polars).

:func:`evaluate_state` turns a merged :class:`~calreport.stats.StatsState` into
the :class:`~calreport.result.CalibrationResult` the pandas path returns, and
:func:`report_from_state` into the same audit report, with the out-of-core notes
of every metric (:func:`scaling_notes`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from calreport._frames import group_index
from calreport._grouping import _unique_names
from calreport._result_display import sampled_parts
from calreport.registry import REGISTRY
from calreport.result import CalibrationResult, GroupResult
from calreport.stats import StatsState
from calreport.stats import finish as _finish
from calreport.stats.config import SCALARS
from calreport.stats.sampled import (
    SAMPLING_LEVEL,
    SAMPLING_METHOD,
    full_table,
    sample_profiles,
    sampling_note,
    settings_of,
)

__all__ = ["evaluate_state", "report_from_state", "scaling_notes"]

def evaluate_state(state: StatsState, *, by: Sequence[Hashable] = (), view: str | None = None,
                   ci: float | None = None, data: dict[str, Any] | None = None,
                   n_dropped: float = 0.0) -> Any:
    """A :class:`~calreport.result.CalibrationResult` of a merged state (overall added
    when grouped), with the risk verdict of every group from the sums.

    Exact and bounded metrics come from the sums (bounded ones carry their bound in
    ``reasons``-free ``data["bounds"]``), sampled ones from the groups' samples,
    P_risk by the normal approximation.
    """
    grouped = bool(by)
    view = _finish.resolve_view(state, view)
    names = list(REGISTRY)

    def results(st: StatsState, keys: list[Any], labels: list[str]) -> list[Any]:
        table = full_table(st, view=view, ci=ci)
        verdicts = table.verdicts
        how, why = (table.settings.get(k) or {} for k in ("interval_methods", "intervals"))
        out = []
        for gi, key in enumerate(keys):
            values = {"n": float(table.values["n"][gi]), "n_dropped": n_dropped,
                      "n_clipped": float(table.values["n_clipped"][gi]),
                      "n_eff": float(table.values["n_eff"][gi])}
            values.update({m: float(table.values[m][gi]) for m in names})
            reasons = {m: r[gi] for m, r in table.reasons.items() if m in names and r[gi]}
            iv, methods, mcse, reps = {}, {}, {}, {}
            for m, (lo, hi) in table.intervals.items():
                if m in names and not np.isnan(lo[gi]):
                    iv[m] = (float(lo[gi]), float(hi[gi]))
                    methods[m] = how.get(m, "percentile (Poisson bootstrap)")
                    se_lo, se_hi, count = table.interval_se[m]
                    mcse[m], reps[m] = (float(se_lo[gi]), float(se_hi[gi])), int(count[gi])
            if ci is not None:
                for m in names:
                    if m not in iv:
                        reasons.setdefault(m, "interval: " + why.get(m, "no out-of-core "
                                           f"interval ({table.kinds.get(m, 'none')})"))
            out.append(GroupResult(key, labels[gi], values, iv, methods, mcse, reps,
                                   reasons, verdicts[gi].p_risk_method, view, verdicts[gi]))
        return out, table

    keys = list(state.keys)
    labels = _unique_names(keys) if grouped else ["all"]
    groups, table = results(state, [None] if not grouped else keys, labels)
    overall = None
    errors = _sampling_errors(table, labels)
    if grouped:
        pooled, pooled_table = results(state.pooled(), ["overall"], ["overall"])
        overall = pooled[0]
        errors.update(_sampling_errors(pooled_table, ["overall"]))
    index = group_index(keys, by) if grouped else None
    settings = settings_of(state, view)
    cfg = state.config
    ci_info = None
    if ci is not None:
        ci_info = {"level": float(ci), "method": "percentile", "n_boot": int(cfg.n_boot),
                   "resampling": "Poisson, counter-based streams (independent of the "
                                 "partitioning)", "seed": int(cfg.seed)}
    facts = dict(data or {})
    facts.setdefault("classes", None if state.schema.classes is None
                     else list(state.schema.classes))
    facts.setdefault("positive_class", state.schema.classes[1]
                     if state.schema.binary and state.schema.classes else None)
    facts.setdefault("weights", cfg.weights if state.schema.weighted else None)
    facts.setdefault("group_label", " / ".join(str(b) for b in by) or None)
    facts["scaling"] = {m: table.kinds.get(m, REGISTRY[m].scaling[0]) for m in names}
    facts["bounds"] = {m: [float(x) for x in b] for m, b in table.bounds.items()}
    facts["sample_size"] = int(cfg.sample_size) if state.sample is not None else 0
    if any(errors.values()):
        facts["sampling_error"] = {
            "level": SAMPLING_LEVEL, "method": SAMPLING_METHOD, "by_group": errors,
            "notes": {m: sampling_note(m) for m in names if facts["scaling"][m] == "sampled"}}
    return CalibrationResult(groups, overall, index, names, settings, ci_info, facts)


def _sampling_errors(table: Any, labels: list[str]) -> dict[str, dict[str, float]]:
    """Group name -> sampled metric -> half-width of its 95 % sampling error."""
    return {name: {m: float(h[gi]) for m, h in table.sampling_error.items()}
            for gi, name in enumerate(labels)}


def report_from_state(state: StatsState, *, by: Sequence[Hashable] = (),
                      view: str | None = None, ci: float | None = None,
                      data: dict[str, Any] | None = None, n_dropped: float = 0.0,
                      source: str = "merged statistics", **kwargs: Any) -> Any:
    """The model-card report of a merged state, by the pandas report builder.

    The result (:func:`evaluate_state`) and the groups' uniform samples (for the
    figures) go to :func:`calreport.report.build_report`; the report then gets the
    exact error counts and the exact lists of the largest CSR terms (``top_errors``
    kept out of core), and notes saying which numbers are bounded and which sampled.

    Parameters
    ----------
    state : StatsState
        Built with ``sample_size`` (figures) and ``top_errors`` (error lists).
    by : sequence of column names
    view, ci
        As in :func:`evaluate_state`.
    data : dict, optional
        Facts about the input (roles, columns) for the data section.
    n_dropped : float
        Rows dropped for missing values (0 with ``missing="raise"``).
    source : str
        What the statistics were merged from (printed in the data section).
    **kwargs
        Passed to :func:`calreport.report.build_report` (title, model, timestamp...).

    Returns
    -------
    calreport.report.Report
    """
    from calreport.report import build_report  # lazy: matplotlib, via the report's figures

    result = evaluate_state(state, by=by, view=view, ci=ci, data=data, n_dropped=n_dropped)
    names = {g.key if result.grouped else None: g.name for g in result.groups}
    samples = sample_profiles(state)
    profiles = {names[k if result.grouped else None]: p for k, p in samples.items()}
    notes = dict(kwargs.pop("data_notes", None) or {})
    notes.update(scaling_notes(result, state, source))
    max_driver_groups = kwargs.get("max_driver_groups", 10)
    rep = build_report(result, profiles, data_notes=notes, **kwargs)
    _exact_errors(rep.context, state, result, int(kwargs.get("top_errors", 10)),
                  int(max_driver_groups))
    return rep


def scaling_notes(result: Any, state: StatsState, source: str) -> dict[str, str]:
    """Lines for the report's data section: exact / bounded / sampled numbers."""
    kinds = result.data["scaling"]
    exact = [m for m in result.metrics if kinds[m] == "exact"]
    notes = {"Computed out of core": (
        f"from {source}: exact per-group sums merged across partitions or batches; "
        f"{len(exact)} metrics are exact ({', '.join(exact)}).")}
    bounded = [m for m in result.metrics if kinds[m] == "bounded"]
    if bounded:
        parts = []
        for m in bounded:
            b = result.data["bounds"].get(m)
            top = max(b) if b else math.nan
            parts.append(f"{m} (error at most {top:.2g})")
        notes["Bounded metrics"] = (
            f"{', '.join(parts)}: read off {state.config.score_bins} fixed score bins; "
            "the true value lies within the bound.")
    sampled = [m for m in result.metrics if kinds[m] == "sampled"]
    if sampled:
        k = result.data.get("sample_size", 0)
        notes["Sampled metrics"] = (
            f"{', '.join(sampled)} and the figures: computed on a uniform sample of "
            f"{k:,} rows per group (the whole group when smaller); the error lists and "
            "counts are exact." if k else
            f"{', '.join(sampled)}: not computed (no sample was kept).")
    if (errors := result.data.get("sampling_error")) is not None:
        notes["Sampling errors"] = _sampling_lines(result, errors)
    if result.ci is not None:
        notes["Intervals"] = ("Poisson bootstrap with counter-based streams from merged "
                              "replicate sums; DeLong's for the binned AUC, widened by its "
                              "bound; none where the reasons say why.")
    return notes


def _sampling_lines(result: Any, errors: dict[str, Any]) -> str:
    """The report's line on the sampled values: each metric's largest sampling error
    over the groups, the method, and the tests without one."""
    parts, tests = sampled_parts(result)
    text = (f"{', '.join(parts)} (the largest over the groups): the value on all rows "
            f"lies within ± h of the sampled value at a stated {errors['level']:.0%} rate; "
            f"{errors['method']}.")
    if tests:
        text += (f" {', '.join(tests)}: no sampling error (tests on the sample: valid, "
                 "not estimates of the p-values on all rows).")
    return text


def _exact_errors(context: dict[str, Any], state: StatsState, result: Any, k: int,
                  max_groups: int) -> None:
    """Replace sample-based error counts and lists of the context by exact ones."""
    from calreport.report.drivers import error_row  # lazy: matplotlib, as build_report

    i_w, i_ok = SCALARS.index("one"), SCALARS.index("correct")
    states = {None if not result.grouped else key: state for key in state.keys}
    by_name: dict[str, tuple[StatsState, int]] = {}
    for g in result.groups:
        st = states[g.key]
        by_name[g.name] = (st, st.keys.index(g.key) if result.grouped else 0)
    pooled = state.pooled() if result.grouped else None
    if pooled is not None:
        by_name["all groups pooled"] = (pooled, 0)
    errors = {}
    for name, (st, gi) in by_name.items():
        sc = st.sums["scalar"].to_float()[gi]
        errors[name] = float(sc[i_w] - sc[i_ok])
    for f in [*context["groups"], *context["cards"]]:
        if f["name"] in errors:
            f["n_errors"] = errors[f["name"]]
    flagged = [f for f in context["groups"] if f["band"] in ("risky", "evidence")
               or (f["n_certain_wrong"] or 0) > 0]
    drivers = []
    classes = state.schema.classes
    for f in flagged[:max_groups]:
        st, gi = by_name[f["name"]]
        key = st.keys[gi]
        top = (st.top or {}).get(key)
        sc = st.sums["scalar"].to_float()[gi]
        total = float(sc[SCALARS.index("csr")]) / float(sc[i_w])
        rows = []
        if top is not None:
            order = np.lexsort((top["conf"], top["u"]))[:k]
            for i in order.tolist():
                rows.append(error_row(
                    str(top["row"][i]), float(top["conf"][i]),
                    None if classes is None or "y_true" not in top
                    else str(classes[int(top["y_true"][i])]),
                    None if classes is None or "y_pred" not in top
                    else str(classes[int(top["y_pred"][i])]),
                    float(top["size"][i]) / float(sc[i_w]), total, st.config.eps))
        drivers.append({"group": f["name"], "rows": rows, "n_errors": errors[f["name"]],
                        "csr": total, "share_top": (sum(r["contribution"] for r in rows) / total
                                                    if total > 0 else math.nan),
                        "k": len(rows), "has_labels": state.schema.layout != "minimal"})
    context["drivers"] = drivers
    context["n_flagged"] = len(flagged)
