"""One typed result behind ``summary()``, the report, the JSON export and the CLI gates.

:class:`CalibrationResult` holds, per group and overall, the numbers, their
intervals and interval methods, the reasons for every NaN, the risk verdict, and
the settings they were computed with.  ``summary()`` turns it into pandas objects
for notebooks; the report and :func:`check` read it directly, so they never parse
``DataFrame.attrs`` or restate a default.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from calreport._result_display import result_html, result_repr
from calreport.interval_rules import (
    LINEARIZED_MARK,
    base_method,
    coverage_text,
    interval_caveat,
    interval_note,
)
from calreport.metrics.bands import BAND_SEVERITY
from calreport.metrics.risk import BAND_RULE
from calreport.registry import COUNT_COLUMNS, REGISTRY
from calreport.settings import Settings

__all__ = [
    "BAND_SEVERITY",
    "CalibrationResult",
    "Gate",
    "GateResult",
    "GroupResult",
    "UndefinedGateError",
    "check",
    "parse_gate",
]

_STATS = ("value", "ci_low", "ci_high", "ci_low_mcse", "ci_high_mcse")
#: Facts about each interval in the ungrouped summary (text and counts).
_FACTS = ("replicates", "method", "coverage")


@dataclass
class GroupResult:
    """The numbers of one group (or of the whole frame).

    Attributes
    ----------
    key : hashable
        pandas group key (None for an ungrouped frame or the overall row).
    name : str
        Display name, unique within the result.
    values : dict
        Counts and metric values (float, NaN when undefined).
    intervals : dict
        Metric -> (ci_low, ci_high); empty without intervals.
    interval_methods : dict
        Metric -> interval method used (metrics with an interval only).
    interval_mcse : dict
        Metric -> Monte Carlo standard errors of (ci_low, ci_high).
    interval_replicates : dict
        Metric -> bootstrap replicates behind the interval (0: analytic).
    reasons : dict
        Metric -> why its value (or interval) is undefined.
    p_risk_method : str
        Null distribution used for P_risk.
    view : str
        Calibration view of the binned and local metrics.
    risk : RiskResult or None
        The verdict: band, reason, certainty claims, method.
    """

    key: Any
    name: str
    values: dict[str, float]
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)
    interval_methods: dict[str, str] = field(default_factory=dict)
    interval_mcse: dict[str, tuple[float, float]] = field(default_factory=dict)
    interval_replicates: dict[str, int] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    p_risk_method: str = "normal"
    view: str = "top_label"
    risk: Any = None

    def get(self, metric: str, stat: str = "value") -> float:
        """A value, an interval bound or a bound's Monte Carlo standard error (``stat``
        in value / ci_low / ci_high / ci_low_mcse / ci_high_mcse)."""
        if stat == "value":
            return float(self.values.get(metric, math.nan))
        if stat.endswith("_mcse"):
            lo, hi = self.interval_mcse.get(metric, (math.nan, math.nan))
        else:
            lo, hi = self.intervals.get(metric, (math.nan, math.nan))
        return float(lo if stat.startswith("ci_low") else hi)

    def interval_facts(self, metric: str) -> dict[str, Any]:
        """How ``metric``'s interval was read and what it covers: ``method``,
        ``one_sided``, ``coverage`` (the measured coverage, as printed),
        ``meets_target``, ``text`` (:func:`calreport.interval_rules.interval_note`),
        ``replicates`` and the bounds' Monte Carlo standard errors; empty without an
        interval."""
        if metric not in self.intervals or metric not in self.interval_methods:
            return {}
        lo, hi = self.interval_mcse.get(metric, (math.nan, math.nan))
        note = interval_note(metric, self.interval_methods[metric])
        caveat = interval_caveat(*self.intervals[metric], self.get("n"))
        if caveat:  # this group's interval claims less than the measured coverage
            note = {**note, "meets_target": False,
                    "coverage": f"{note['coverage']}; {caveat}",
                    "text": f"{note['text']}; {caveat}"}
        return {**note, "caveat": caveat,
                "replicates": int(self.interval_replicates.get(metric, 0)),
                "ci_low_mcse": lo, "ci_high_mcse": hi}

    @property
    def band(self) -> str:
        """Risk band of the verdict ("undetermined" when not assessed)."""
        return "undetermined" if self.risk is None else str(self.risk.band)


@dataclass
class CalibrationResult:
    """Everything one accessor call computed, per group and overall.

    Attributes
    ----------
    groups : list of GroupResult
        One per group (one, named "all", for an ungrouped frame).
    overall : GroupResult or None
        All rows of all groups together (grouped calls).
    index : pandas.Index or None
        Group keys as pandas indexes a grouped result; None when ungrouped.
    metrics : list of str
        The registry metrics computed, in order.
    settings : Settings
    ci : dict or None
        ``level``, ``method`` (None = each metric's default), ``n_boot``,
        ``resampling``, ``seed``; None without intervals.
    data : dict
        Facts about the input: roles, classes, positive class, class-column mapping,
        weight meaning, group label.
    as_index : bool
        pandas' ``as_index`` of the GroupBy.
    split : Split or None
        The validated rows and groups the result was computed from (profiles and
        row labels for the report's figures and error lists); not serialised.
    family : dict
        The family of verdicts: ``group_kind`` ("subgroups" or "alternatives"),
        ``adjust`` (the multiplicity adjustment, None for a family of one or when
        opted out), ``n_tests``, ``headline`` (the most severe adjusted band) and
        ``pooled_in_family``; empty without verdicts.
    """

    groups: list[GroupResult]
    overall: GroupResult | None
    index: pd.Index | None
    metrics: list[str]
    settings: Settings
    ci: dict[str, Any] | None = None
    data: dict[str, Any] = field(default_factory=dict)
    as_index: bool = True
    split: Any = field(default=None, repr=False, compare=False)
    family: dict[str, Any] = field(default_factory=dict)

    @property
    def grouped(self) -> bool:
        """True for a GroupBy result."""
        return self.index is not None

    @property
    def columns(self) -> list[str]:
        """Count columns then metrics, as in ``summary()``."""
        return [*COUNT_COLUMNS, *self.metrics]

    # ------------------------------------------------------------------- pandas
    def summary(self) -> pd.Series | pd.DataFrame:
        """The pandas form of ``df.calib.summary()`` / ``groupby().calib.summary()``.

        Ungrouped: a Series (metric -> value), or with intervals a DataFrame (metric x
        [value, ci_low, ci_high, ci_low_mcse, ci_high_mcse, replicates, method,
        coverage]).  Grouped: groups x metrics, or with intervals columns (metric,
        stat) with the stats value, ci_low, ci_high, ci_low_mcse, ci_high_mcse.
        ``attrs`` holds the reasons, settings, P_risk methods, view, interval settings
        and ``attrs["intervals"]``: each metric's interval method, whether it is a
        one-sided bound and its measured coverage (the ``coverage`` column).
        """
        cols = self.columns
        if not self.grouped:
            g = self.groups[0]
            if self.ci is None:
                out: Any = pd.Series([g.get(c) for c in cols], index=pd.Index(cols, name="metric"),
                                     name="value", dtype=np.float64)
            else:
                out = pd.DataFrame([[g.get(c, s) for s in _STATS] for c in cols],
                                   index=pd.Index(cols, name="metric"), columns=list(_STATS))
                facts = {c: g.interval_facts(c) for c in cols}
                for f in _FACTS:
                    out[f] = [facts[c].get(f, 0 if f == "replicates" else "") for c in cols]
            out.attrs["reasons"] = dict(g.reasons)
            out.attrs["p_risk_method"] = g.p_risk_method
            out.attrs["view"] = g.view
        else:
            index = self.index
            if self.ci is None:
                nan = math.nan  # the values' own lookups: one row of floats a group
                out = pd.DataFrame([[v.get(c, nan) for c in cols]
                                    for v in (g.values for g in self.groups)],
                                   index=index, columns=pd.Index(cols, name="metric"),
                                   dtype=np.float64)
            else:
                data = [[g.get(c, s) for c in cols for s in _STATS] for g in self.groups]
                mi = pd.MultiIndex.from_tuples([(c, s) for c in cols for s in _STATS],
                                               names=["metric", "stat"])
                out = pd.DataFrame(data, index=index, columns=mi, dtype=np.float64)
            out.attrs["reasons"] = {(g.key, m): why for g in self.groups
                                    for m, why in g.reasons.items()}
            out.attrs["p_risk_method"] = {g.key: g.p_risk_method for g in self.groups}
            if not self.as_index:
                out = out.reset_index()
        out.attrs["settings"] = self.settings.to_dict()
        if self.ci is not None:
            out.attrs["ci"] = dict(self.ci)
            out.attrs["intervals"] = self.interval_notes()
            if self.grouped:  # one column a metric: what each group's interval lacks
                out.attrs["interval_caveats"] = self.interval_caveats()
        return out

    def interval_caveats(self) -> dict[Any, dict[str, str]]:
        """Group key -> metric -> what that group's interval cannot claim (no spread,
        fewer rows than the coverage study's; :func:`calreport.interval_rules.
        interval_caveat`), for the groups and metrics that have one."""
        out: dict[Any, dict[str, str]] = {}
        for g in self.groups:
            got = {m: c for m in self.metrics
                   if (c := g.interval_facts(m).get("caveat", ""))}
            if got:
                out[g.key] = got
        return out

    def interval_notes(self) -> dict[str, dict[str, Any]]:
        """Per metric with an interval: its method, whether it is one-sided, its
        measured coverage (as every output prints it) and its replicates."""
        notes: dict[str, dict[str, Any]] = {}
        for g in [*self.groups, *([self.overall] if self.overall else [])]:
            for m in self.metrics:
                f = g.interval_facts(m)
                if f and m not in notes:  # the metric's, not one group's caveat
                    notes[m] = {**{k: v for k, v in f.items() if not k.endswith("_mcse")},
                                **interval_note(m, f["method"]), "caveat": ""}
                elif f and (other := interval_note(m, f["method"]))["text"] not in (
                        notes[m]["text"]):
                    # groups read by another method (linearized replicates of large
                    # groups): both said, the plain one first; ``method`` stays the
                    # first group's
                    plain, lin = ((other["text"], notes[m]["text"])
                                  if notes[m]["method"].endswith(LINEARIZED_MARK)
                                  else (notes[m]["text"], other["text"]))
                    notes[m] = {**notes[m], "text": f"{plain}; in the groups large enough to "
                                                    f"be linearized, {lin}",
                                "meets_target": notes[m]["meets_target"]
                                and other["meets_target"]}
        return notes

    # --------------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        """Plain numbers for JSON (NaN as None); never pre-formatted strings."""

        def group(g: GroupResult) -> dict[str, Any]:
            metrics = {}
            for m in self.columns:
                entry: dict[str, Any] = {"value": _num(g.get(m))}
                if self.ci is not None and m in g.intervals:
                    entry["ci_low"] = _num(g.get(m, "ci_low"))
                    entry["ci_high"] = _num(g.get(m, "ci_high"))
                    facts = g.interval_facts(m)
                    if facts:
                        entry["ci_method"] = facts["method"]
                        entry["ci_one_sided"] = facts["one_sided"]
                        entry["ci_coverage"] = facts["coverage"]
                        entry["ci_caveat"] = facts["caveat"]
                        entry["ci_replicates"] = facts["replicates"]
                        entry["ci_low_mcse"] = _num(facts["ci_low_mcse"])
                        entry["ci_high_mcse"] = _num(facts["ci_high_mcse"])
                if m in g.reasons:
                    entry["reason"] = g.reasons[m]
                metrics[m] = entry
            out: dict[str, Any] = {"name": g.name, "key": _key(g.key), "metrics": metrics,
                                   "p_risk_method": g.p_risk_method, "view": g.view}
            if g.risk is not None:
                out["risk"] = _plain(g.risk.to_dict())
            return out

        return {
            "grouped": self.grouped,
            "settings": self.settings.to_dict(),
            "ci": None if self.ci is None else dict(self.ci),
            "data": _plain(self.data),
            "definitions": {m: {"label": REGISTRY[m].label,
                                "direction": REGISTRY[m].direction,
                                "target": REGISTRY[m].target,
                                "formula": REGISTRY[m].formula,
                                "references": [r.text() for r in REGISTRY[m].references]}
                            for m in self.metrics},
            "groups": [group(g) for g in self.groups],
            "overall": None if self.overall is None else group(self.overall),
            "family": _plain(self.family),
            "band_rule": _band_rule(),
        }

    # -------------------------------------------------------------------- gates
    def check(self, gates: Iterable[str | Gate], *, allow_undefined: bool = False
              ) -> list[GateResult]:
        """Evaluate release gates such as ``"p_risk>0.99"`` or ``"ece.ci_high>0.05"``.

        See :func:`check`.
        """
        return check(self, gates, allow_undefined=allow_undefined)

    # ------------------------------------------------------------------ display
    def __repr__(self) -> str:
        """A few lines: groups, metrics, interval settings, risk bands."""
        return result_repr(self)

    def _repr_html_(self) -> str:
        """The notebook's view: a table of metrics by group (NaN cells say why)."""
        return result_html(self)


def _band_rule() -> str:
    return BAND_RULE


def _num(x: Any) -> float | None:
    x = float(x)
    return None if math.isnan(x) or math.isinf(x) else x


def _key(k: Any) -> Any:
    if isinstance(k, tuple):
        return [_key(x) for x in k]
    if k is None or isinstance(k, (bool, int, str)):
        return k
    if isinstance(k, (float, np.floating)):
        return _num(k)
    if isinstance(k, np.integer):
        return int(k)
    return str(k)


def _plain(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, (float, np.floating)):
        return _num(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.ndarray):
        return _plain(obj.tolist())
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    return str(obj)


# ----------------------------------------------------------------------------- gates
_GATE = re.compile(r"^\s*([a-z_][a-z0-9_]*)(?:\.(value|ci_low|ci_high))?\s*"
                   r"(<=|>=|==|!=|<|>)\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$")
_BAND_GATE = re.compile(r"^\s*band\s*(<=|>=|==|!=|<|>)\s*([a-z_]+)\s*$")
_OPS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne}


class UndefinedGateError(ValueError):
    """A gated metric is undefined (NaN) in some group, so the gate cannot decide."""


@dataclass(frozen=True)
class Gate:
    """A release gate: fail when ``metric.stat op threshold`` holds.

    Examples
    --------
    >>> parse_gate("ece.ci_high > 0.05")
    Gate(metric='ece', stat='ci_high', op='>', threshold=0.05)
    """

    metric: str
    stat: str
    op: str
    threshold: float

    @property
    def needs_interval(self) -> bool:
        """True when the gate reads an interval bound."""
        return self.stat != "value"

    def __str__(self) -> str:
        if self.metric == "band":
            name = next(k for k, v in BAND_SEVERITY.items() if v == self.threshold)
            return f"band{self.op}{name}"
        target = self.metric if self.stat == "value" else f"{self.metric}.{self.stat}"
        return f"{target}{self.op}{self.threshold:g}"


@dataclass(frozen=True)
class GateResult:
    """The outcome of one gate in one group: ``failed`` is True when the condition holds."""

    gate: Gate
    group: str
    value: float
    failed: bool
    #: False for a group skipped with ``allow_undefined`` (its value is NaN); ``reason``
    #: says why the value is undefined there
    decided: bool = True
    reason: str = ""
    #: what the value is when it is not the plain metric (e.g. an adjusted P_risk)
    note: str = ""


def parse_gate(expr: str | Gate) -> Gate:
    """Parse ``"metric[.stat] op number"``, e.g. ``"p_risk>0.99"``, ``"auc.ci_low<0.8"``.

    Raises
    ------
    ValueError
        On a malformed expression or an unknown metric (the message lists them).
    """
    if isinstance(expr, Gate):
        return expr
    band = _BAND_GATE.match(str(expr))
    if band:
        op, key = band.groups()
        if key not in BAND_SEVERITY:
            raise ValueError(f"Unknown band {key!r} in the gate {expr!r}; bands from least "
                             f"to most severe: {', '.join(BAND_SEVERITY)}.")
        return Gate("band", "value", op, float(BAND_SEVERITY[key]))
    m = _GATE.match(str(expr))
    if not m:
        raise ValueError(
            f"Cannot read the gate {expr!r}: write METRIC[.STAT] OP NUMBER, e.g. "
            "'p_risk>0.99' or 'ece.ci_high>0.05' (STAT: value, ci_low, ci_high; "
            "OP: < <= > >= == !=)."
        )
    metric, stat, op, num = m.groups()
    if metric not in REGISTRY and metric not in COUNT_COLUMNS:
        raise ValueError(f"Unknown metric {metric!r} in the gate {expr!r}. Available: "
                         f"{', '.join([*COUNT_COLUMNS, *REGISTRY])}.")
    return Gate(metric, stat or "value", op, float(num))


def check(result: CalibrationResult, gates: Iterable[str | Gate], *,
          allow_undefined: bool = False) -> list[GateResult]:
    """Evaluate release gates on a result, in every group (and overall).

    A gate *fails* when its condition holds (``"p_risk>0.99"`` fails where P_risk
    exceeds 0.99).  A gated metric or bound that is undefined in a group raises
    :class:`UndefinedGateError` naming the group and the reason, unless
    ``allow_undefined``; a gate can therefore never pass on a metric that was not
    computed.

    Over a family of groups, a gate on ``p_risk`` and a band gate (``"band>=evidence"``)
    read the verdicts adjusted for the number of groups (``result.family``), as the
    report's headline does; ``GateResult.note`` says so.  ``evaluate(adjust=None)``
    opts out.

    Parameters
    ----------
    result : CalibrationResult
    gates : iterable of str or Gate
    allow_undefined : bool, default False
        Skip groups where the gated value is undefined instead of raising; they are
        returned with ``decided=False`` and the reason.  A gate undefined in every
        group still raises: it would pass without having been evaluated.

    Returns
    -------
    list of GateResult
        One per gate and group; ``any(r.failed for r in out)`` decides a release.

    Raises
    ------
    ValueError
        A malformed gate, a metric the result did not compute, or an interval bound
        of a result computed without intervals.
    UndefinedGateError
        A gated value is NaN in some group.
    """
    parsed = [parse_gate(g) for g in gates]
    out: list[GateResult] = []
    groups = list(result.groups)
    if result.overall is not None:
        groups.append(result.overall)
    for gate in parsed:
        if gate.metric == "band":
            if any(g.risk is None for g in groups):
                raise ValueError(f"The gate {gate} reads the risk verdict; compute it with "
                                 "evaluate() (summary() has none).")
        elif gate.metric not in result.columns:
            raise ValueError(f"The gate {gate} reads {gate.metric!r}, which this result "
                             "did not compute; include it in `metrics`.")
        if gate.needs_interval and result.ci is None:
            raise ValueError(f"The gate {gate} reads an interval bound; compute intervals "
                             "(ci=0.95).")
        trivial = _trivial_bound(result, gate) if gate.metric != "band" else ""
        if trivial:
            raise ValueError(trivial)
        decided = 0
        for g in groups:
            value, note = _gate_value(g, gate)
            if math.isnan(value):
                why = g.reasons.get(gate.metric, "undefined")
                if allow_undefined:
                    out.append(GateResult(gate, g.name, value, False, False, why))
                    continue
                raise UndefinedGateError(
                    f"The gate {gate} cannot be decided in group {g.name!r}: "
                    f"{gate.metric} {'' if gate.stat == 'value' else gate.stat + ' '}is "
                    f"undefined ({why})."
                )
            decided += 1
            out.append(GateResult(gate, g.name, value,
                                  bool(_OPS[gate.op](value, gate.threshold)), note=note))
        if groups and not decided:
            raise UndefinedGateError(
                f"The gate {gate} is undefined in every group "
                f"({groups[0].reasons.get(gate.metric, 'undefined')}): it would pass "
                "without having been evaluated, allow_undefined or not.")
    return out


def _gate_value(g: GroupResult, gate: Gate) -> tuple[float, str]:
    """The value a gate compares in one group, and what it is when not the plain metric."""
    r = g.risk
    if gate.metric == "band":
        band = "undetermined" if r is None else r.final_band
        return float(BAND_SEVERITY[band]), f"band {band}" + (
            f" (adjusted: {r.adjust}, {r.n_tests} tests)" if r is not None and r.adjust
            else "")
    if (gate.metric == "p_risk" and gate.stat == "value" and r is not None and r.adjust):
        return float(r.p_risk_adjusted), f"adjusted P_risk ({r.adjust}, {r.n_tests} tests)"
    if gate.needs_interval:
        facts = g.interval_facts(gate.metric)
        if facts:
            se = facts[f"{gate.stat}_mcse"]
            return g.get(gate.metric, gate.stat), (
                facts["text"]
                + ("" if math.isnan(se) or se == 0 else f"; Monte Carlo s.e. {se:.2g}"))
    return g.get(gate.metric, gate.stat), ""


def _trivial_bound(result: CalibrationResult, gate: Gate) -> str:
    """Why a gate reads the fixed end of a one-sided bound (empty when it does not)."""
    if gate.stat not in ("ci_low", "ci_high"):
        return ""
    for g in [*result.groups, *([result.overall] if result.overall else [])]:
        how = base_method(g.interval_methods.get(gate.metric, ""))
        fixed = {"upper": "ci_low", "lower": "ci_high"}.get(how)
        if fixed == gate.stat:
            other = "ci_high" if fixed == "ci_low" else "ci_low"
            return (f"The gate {gate} reads {gate.metric}'s {fixed}, the fixed end of its "
                    f"one-sided {how} bound (the metric's range, never informative): gate "
                    f"on {gate.metric}.{other} or on the value, or ask for a two-sided "
                    f"interval with ci_method='percentile' (its measured coverage: "
                    f"{coverage_text(gate.metric, 'percentile')}).")
    return ""
