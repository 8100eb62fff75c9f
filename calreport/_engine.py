"""Computations behind the accessors, on a :class:`~calreport._grouping.Split`.

Every accessor call, grouped or not, goes through here: the summary with its
intervals (:func:`evaluate`) and the structured per-group tables
(:func:`per_group`).  A group that cannot define something gets NaN and a reason,
never an exception for the whole call; warnings are collected and issued once per
call with the count and the groups concerned.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from calreport import _warnings
from calreport._grouping import Group, Split
from calreport._segmented import SegmentedValues, all_groups
from calreport._warnings import UndefinedMetricWarning
from calreport.bootstrap import bootstrap_intervals, group_seed
from calreport.bootstrap import intervals as _iv
from calreport.bootstrap.intervals import refit_by_default
from calreport.metrics import risk
from calreport.metrics.multiplicity import (
    ADJUSTMENTS,
    adjust_verdicts,
    family_headline,
    resimulated,
)
from calreport.registry import COUNT_COLUMNS, REGISTRY, resolve_metrics
from calreport.result import CalibrationResult, GroupResult
from calreport.settings import Settings
from calreport.summary import SummaryResult, summarize

__all__ = ["UndefinedMetricWarning", "evaluate", "per_group"]


class Collector:
    """Collect the warnings of a call's groups and re-issue each kind once.

    Each is re-issued from the caller's line (:func:`calreport._warnings.warn`), with
    the groups it came from.  Clipped confidences are one warning with the total count
    over the groups (the pooled rows of ``overall`` repeat them and are not added).
    """

    def __init__(self) -> None:
        self.seen: dict[tuple[type, str], list[str]] = {}
        self.first: dict[tuple[type, str], str] = {}
        #: group -> (confidences of exactly 1, eps) of its ClippedConfidenceWarning
        self.clipped: dict[str, tuple[int, float]] = {}

    def run(self, group: str, fn: Callable[[], Any]) -> Any:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = fn()
        for w in caught:
            if isinstance(w.message, risk.ClippedConfidenceWarning):
                self.note_clipped(group, w.message.count, w.message.eps)
                continue
            text = str(w.message).splitlines()[0] if str(w.message) else ""
            # one warning per kind of message: counts and values differ between groups
            key = (w.category, re.sub(r"[-+]?\d[\d.,eE+-]*", "#", text))
            self.first.setdefault(key, text)
            self.seen.setdefault(key, []).append(group)
        return out

    def note_clipped(self, group: str, count: int, eps: float) -> None:
        """Record ``count`` confidences of exactly 1 in ``group`` (once per group)."""
        before = self.clipped.get(group, (0, eps))[0]
        self.clipped[group] = (max(before, int(count)), eps)

    def flush(self, n_groups: int) -> None:
        messages = [(self.first.get(key, key[1]), key[0], groups)
                    for key, groups in self.seen.items()]
        if self.clipped:
            named = {g: c for g, c in self.clipped.items() if g != "overall"} or self.clipped
            total = sum(count for count, _ in named.values())
            eps = next(iter(self.clipped.values()))[1]
            warning = risk.ClippedConfidenceWarning.of_count(total, eps)
            messages.append((str(warning), risk.ClippedConfidenceWarning, list(self.clipped)))
        for text, category, groups in messages:
            if n_groups > 1:
                text = text + _where(groups, n_groups)
            _warnings.warn(text, category)


def _where(groups: list[str], n_groups: int) -> str:
    """`` (in 2 of 3 groups: a, b)``; the pooled rows ("overall") are not a group."""
    uniq = list(dict.fromkeys(groups))
    named = [u for u in uniq if u != "overall"]
    pooled = " and the pooled rows" if len(named) < len(uniq) else ""
    shown = ", ".join(named[:5]) + (" ..." if len(named) > 5 else "")
    return f" (in {len(named)} of {n_groups} groups{pooled}: {shown})"


def _warn_undefined(results: list[GroupResult], names: list[str], split: Split,
                    requested: bool) -> None:
    """One :class:`UndefinedMetricWarning` naming the groups whose metrics are NaN, and why.

    Metrics the input cannot define in any group (no labels, no probabilities) are
    named only when ``requested`` (the caller listed them); a default summary shows
    them as NaN with the reason in ``attrs``, as the shape of the input implies.
    Undefined intervals are not warned of (their reasons are in the result).
    """
    profile = split.profile
    by_shape = {m for m in names if REGISTRY[m].missing_need(profile)}
    where: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for g in results:
        per_reason: dict[str, list[str]] = {}
        for m in names:
            if not math.isnan(g.values.get(m, math.nan)) or (m in by_shape and not requested):
                continue
            why = g.reasons.get(m, "undefined").rstrip(". ")
            if why.startswith("interval: "):
                continue
            per_reason.setdefault(why, []).append(m)
        for why, metrics in per_reason.items():
            where.setdefault((why, tuple(metrics)), []).append(g.name)
    if not where:
        return
    clauses = []
    for (why, metrics), groups in where.items():
        what = ("every metric is" if len(metrics) == len(names) > 1 else
                f"{', '.join(metrics)} {'is' if len(metrics) == 1 else 'are'}")
        if not split.grouped:
            clauses.append(f"{what} NaN: {why}")
        elif len(groups) == 1:
            clauses.append(f"{what} NaN in group {groups[0]!r}: {why}")
        else:
            shown = ", ".join(repr(g) for g in groups[:5]) + (" ..." if len(groups) > 5 else "")
            clauses.append(f"{what} NaN in {len(groups)} of {len(results)} groups "
                           f"({shown}): {why}")
    _warnings.warn("; ".join(clauses) + ".", UndefinedMetricWarning)


def _exact_ones(split: Split) -> int:
    return int(np.count_nonzero(split.profile.conf >= 1.0))


def evaluate(
    split: Split,
    metrics: Sequence[str] | str | None = None,
    *,
    settings: Settings,
    ci: float | None = None,
    n_boot: int = 1000,
    ci_method: str | None = None,
    resampling: str = "multinomial",
    seed: Any = None,
    progress: bool | None = None,
    overall: bool | None = None,
    with_risk: bool = False,
    refit: bool | None = None,
    warn_undefined: bool = True,
    group_kind: str = "subgroups",
    adjust: str | None = "holm",
) -> CalibrationResult:
    """The summary of every group of a split (and overall), with optional intervals.

    Each group is resampled within itself from a seed derived from the master seed
    and its key, so adding, removing or reordering groups never changes another
    group's interval.  One :class:`UndefinedMetricWarning` names the groups where a
    metric is NaN and why (``warn_undefined``); the reasons are in the result too.
    With the risk verdicts, the verdicts of the groups (and of the pooled rows, when
    the groups are subgroups of one population) are adjusted as one family
    (:func:`calreport.metrics.multiplicity.adjust_verdicts`).
    """
    names = resolve_metrics(metrics)
    check_family_options(group_kind, adjust)
    if overall is None:
        overall = split.grouped and group_kind == "subgroups"
    if ci is not None:
        _iv._check(ci, ci_method, resampling)
        if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 2:
            raise ValueError(f"`n_boot` must be an integer >= 2, got {n_boot!r}.")
    collector = Collector()
    # grouped: the segmented point estimates, with or without intervals (each group's
    # bootstrap then starts from them)
    fast = _segmented(split, names, settings, with_risk)
    boot = dict(n_boot=n_boot, ci_method=ci_method, resampling=resampling, seed=seed,
                progress=progress, refit=refit, sizes=[g.size for g in split.groups])
    # a group whose every number comes from the segmented values runs no metric code,
    # so it has no warnings to collect
    quiet = (fast is not None and not with_risk and ci is None
             and all(m in fast.values for m in names))
    if quiet:
        results = _quiet_results(split, names, settings, fast)
    else:
        if fast is not None:
            fast = fast.as_lists()
        results = [collector.run(g.name, lambda g=g, i=i: _one(
                       split, g, names, settings, ci, boot, with_risk,
                       fast=None if fast is None else (fast, i)))
                   for i, g in enumerate(split.groups)]
    total = whole = None
    if overall:
        rows = np.concatenate([g.rows for g in split.groups]) if split.groups else \
            np.arange(0)
        whole = Group("overall", "overall", np.sort(rows),
                      sum(g.n_dropped for g in split.groups))
        total = collector.run("overall", lambda: _one(split, whole, names, settings, ci,
                                                      boot, with_risk, force=True))
    # the metrics that clip confidences to [eps, 1 - eps] say how many they clipped
    if _exact_ones(split) and any("eps" in REGISTRY[m].settings for m in names):
        conf = split.profile.conf
        for g in split.groups:
            count = int(np.count_nonzero(conf[g.rows] >= 1.0))
            if count:
                collector.note_clipped(g.name, count, settings.eps)
    collector.flush(len(split.groups))
    if warn_undefined:
        _warn_undefined(results, names, split, requested=metrics is not None)
    ci_info = None if ci is None else {
        "level": float(ci), "method": ci_method, "n_boot": int(n_boot),
        "resampling": resampling, "seed": seed if isinstance(seed, (int, type(None))) else None,
        "refit": (refitted := bool(refit if refit is not None
                                   else refit_by_default(boot["sizes"]))),
        "not_refitted": [] if refitted else [m for m in names
                                             if REGISTRY[m].interval.kind == "refit"]}
    family = {}
    if with_risk:
        rows_of = {g.name: g for g in split.groups}
        if whole is not None:
            rows_of["overall"] = whole
        family = adjust_family(results, total, group_kind=group_kind, adjust=adjust,
                               resimulate=_resimulator(split, settings, rows_of))
    return CalibrationResult(results, total, split.index, names, settings, ci_info,
                             _data_facts(split), split.as_index, split, family=family)


#: What the groups of a GroupBy are: subgroups (sites, cohorts) of one population,
#: whose pooled rows give the overall verdict, or alternative models or calibrations
#: of the same rows, which have no pooled verdict.
GROUP_KINDS = ("subgroups", "alternatives")


def check_family_options(group_kind: str, adjust: str | None) -> None:
    """Refuse an unknown ``group_kind`` or ``adjust`` with the accepted values."""
    if group_kind not in GROUP_KINDS:
        raise ValueError(f"`group_kind` must be 'subgroups' (groups partition one "
                         f"population: a pooled verdict is the overall answer) or "
                         f"'alternatives' (alternative models of the same rows: no pooled "
                         f"verdict), got {group_kind!r}.")
    if adjust is not None and adjust not in ADJUSTMENTS:
        raise ValueError(f"`adjust` must be one of {sorted(ADJUSTMENTS)} or None (no "
                         f"multiplicity adjustment), got {adjust!r}.")


def _resimulator(split: Split, s: Settings, rows_of: dict[str, Group]
                 ) -> Callable[[GroupResult, int], Any]:
    """A member's verdict simulated with more draws (None when it cannot draw more)."""

    def again(g: GroupResult, n_sim: int) -> Any:
        grp = rows_of.get(g.name)
        if grp is None or g.risk is None:
            return None
        prof = split.profile.take(grp.rows)
        return resimulated(g.risk, prof.conf, prof.correct, eps=s.eps, seed=s.mc_seed,
                           sample_weight=prof.sample_weight,
                           weights=None if prof.sample_weight is None else prof.weights,
                           n_sim=n_sim)

    return again


def adjust_family(groups: list[GroupResult], total: GroupResult | None, *,
                  group_kind: str, adjust: str | None,
                  resimulate: Callable[[GroupResult, int], Any] | None = None) -> dict[str, Any]:
    """Adjust the verdicts of the groups (and pooled rows) in place; the family facts."""
    members = [g for g in groups if g.risk is not None]
    # the pooled rows of one group are that group: no second test
    pooled = (total is not None and total.risk is not None and group_kind == "subgroups"
              and len(groups) > 1)
    if pooled:
        members.append(total)
    adjusted = adjust_verdicts(
        [g.risk for g in members], adjust,
        None if resimulate is None else (lambda i, n: resimulate(members[i], n)))
    for g, r in zip(members, adjusted, strict=True):
        g.risk = r
    n_tests = max((r.n_tests for r in adjusted if r is not None), default=0)
    return {"group_kind": group_kind, "adjust": adjust if n_tests > 1 else None,
            "n_tests": n_tests, "headline": family_headline(adjusted),
            "pooled_in_family": pooled}


def _segmented(split: Split, names: list[str], s: Settings, with_risk: bool = False
               ) -> SegmentedValues | None:
    """All groups' segmentable metrics at once; None for a DataFrame (one group)."""
    return all_groups(split, names, s, with_risk) if split.grouped else None


def _one(split: Split, g: Group, names: list[str], s: Settings, ci: float | None,
         boot: dict[str, Any], with_risk: bool, force: bool = False,
         fast: tuple[SegmentedValues, int] | None = None) -> GroupResult:
    if g.size == 0:
        why = "empty group" if not g.n_dropped else "every row has a missing value"
        values = dict.fromkeys([*COUNT_COLUMNS, *names], math.nan)
        values.update(n=0.0, n_dropped=float(g.n_dropped), n_clipped=0.0, n_eff=0.0)
        return GroupResult(g.key, g.name, values, reasons=dict.fromkeys(names, why),
                           p_risk_method=s.p_risk_method,
                           view=s.view or split.profile.default_view)
    if fast is not None and ci is None:
        return _one_fast(split, g, names, s, with_risk, *fast)
    prof = split.profile.take(g.rows) if (split.grouped or force) else split.profile
    if fast is not None:
        out = _one_fast(split, g, names, s, with_risk, *fast, prof=prof)
        res = SummaryResult(out.values, dict(out.reasons), s, out.p_risk_method, out.view,
                            out.risk)
    else:
        res = summarize(prof, metrics=names, settings=s, n_dropped=g.n_dropped,
                        with_risk=with_risk)
        out = GroupResult(g.key, g.name, res.values, reasons=dict(res.reasons),
                          p_risk_method=res.p_risk_method, view=res.view, risk=res.risk)
    if ci is not None:
        child = group_seed(boot["seed"], ("overall",) if force and g.key == "overall"
                           else g.key)
        bres = bootstrap_intervals(prof, res, n_boot=boot["n_boot"], ci=ci,
                                   method=boot["ci_method"], seed=np.random.default_rng(child),
                                   progress=boot["progress"], resampling=boot["resampling"],
                                   return_replicates=True, refit=boot["refit"],
                                   sizes=boot["sizes"])
        out.intervals = dict(bres.intervals)
        out.interval_methods = {k: m for k, m in bres.methods.items()
                                if k in (bres.mcse or {})}
        out.interval_mcse = dict(bres.mcse or {})
        out.interval_replicates = {k: bres.replicates_of(k) for k in out.interval_mcse}
        for k, why in bres.reasons.items():
            if k not in out.reasons:
                out.reasons[k] = f"interval: {why}"
    return out


def _undefined_reason(m: str, profile: Any, fast: SegmentedValues, i: int) -> str:
    """Why metric ``m`` of group ``i`` is NaN in the segmented values: the profile's
    missing column, else the grouped computation's reason for that group, else the
    metric's own."""
    spec = REGISTRY[m]
    return spec.missing_need(profile) or fast.reason(m, i) or spec.nan_reason


def _quiet_results(split: Split, names: list[str], s: Settings,
                   fast: SegmentedValues) -> list[GroupResult]:
    """Every group's result from the segmented values alone, as :func:`_one_fast`
    builds them, with the undefined values found column-wise."""
    groups = split.groups
    values = np.column_stack([fast.values[m] for m in names]) if names else \
        np.empty((len(groups), 0))
    zero = np.zeros(len(groups), dtype=bool)
    w = split.profile.sample_weight
    if w is not None and groups:
        sizes = np.array([g.size for g in groups])
        rows = np.concatenate([g.rows for g in groups])
        pos = np.bincount(np.repeat(np.arange(len(groups)), sizes),
                          weights=w[rows] > 0, minlength=len(groups))
        zero = (pos == 0) & (sizes > 0)
        values[zero] = math.nan
    dropped = np.array([float(g.n_dropped) for g in groups])
    count = fast.values
    table = np.column_stack([count["n"], dropped, count["n_clipped"], count["n_eff"],
                             values]).tolist()
    keys = [*COUNT_COLUMNS, *names]
    reasons: dict[int, dict[str, str]] = {}
    for i, j in zip(*np.nonzero(np.isnan(values)), strict=True):
        reasons.setdefault(int(i), {})[names[j]] = (
            "all sample weights are zero" if zero[i] else
            _undefined_reason(names[j], split.profile, fast, int(i)))
    view = s.view or split.profile.default_view
    return [GroupResult(g.key, g.name, dict(zip(keys, row, strict=True)),
                        reasons=reasons.get(i, {}),
                        p_risk_method=fast.p_risk_method_of(i, s.p_risk_method), view=view)
            if g.size else
            _one(split, g, names, s, None, {}, False)
            for i, (g, row) in enumerate(zip(groups, table, strict=True))]


def _one_fast(split: Split, g: Group, names: list[str], s: Settings, with_risk: bool,
              fast: SegmentedValues, i: int, prof: Any = None) -> GroupResult:
    """One group's result from the segmented values; the rest computed on its rows."""
    values = fast.values
    rest = [m for m in names if m not in values]
    need_profile = bool(rest) or with_risk
    if need_profile and prof is None:
        prof = split.profile.take(g.rows)
    if need_profile:
        res = summarize(prof, metrics=rest, settings=s, n_dropped=g.n_dropped,
                        with_risk=with_risk)
        out_values, reasons, method, view, rr = (res.values, dict(res.reasons),
                                                 res.p_risk_method, res.view, res.risk)
    else:
        out_values, reasons = {}, {}
        method, view, rr = s.p_risk_method, s.view or split.profile.default_view, None
    merged = {"n": float(values["n"][i]), "n_dropped": float(g.n_dropped),
              "n_clipped": float(values["n_clipped"][i]), "n_eff": float(values["n_eff"][i])}
    w = split.profile.sample_weight
    zero = w is not None and not np.any(w[g.rows] > 0)
    for m in names:
        if m in values:
            val = values[m][i]
            merged[m] = val
            if zero:
                merged[m] = math.nan
                reasons[m] = "all sample weights are zero"
            elif math.isnan(val):
                reasons[m] = _undefined_reason(m, split.profile, fast, i)
        else:
            merged[m] = out_values[m]
    method = fast.p_risk_method_of(i, method)
    return GroupResult(g.key, g.name, merged, reasons=reasons, p_risk_method=method,
                       view=view, risk=rr)


def _data_facts(split: Split) -> dict[str, Any]:
    p = split.profile
    roles = split.roles
    facts: dict[str, Any] = {
        "n_rows": int(p.n),
        "classes": None if p.classes is None else [_plain_label(c) for c in p.classes],
        "positive_class": (None if p.score is None or p.classes is None
                           else _plain_label(p.classes[1])),
        "weights": None if p.sample_weight is None else p.weights,
        "group_label": split.group_label,
        "columns": {role: _col(getattr(roles, role, None))
                    for role in ("y", "proba", "pred", "conf", "correct", "weight")},
    }
    for k in ("class_columns", "class_rule"):
        if k in p.notes:
            facts[k] = p.notes[k]
    if split.n_no_key:
        facts["n_no_group_key"] = split.n_no_key
    return facts


def _plain_label(c: Any) -> Any:
    if isinstance(c, np.generic):
        return c.item()
    return c if isinstance(c, (bool, int, float, str)) else str(c)


def _col(c: Any) -> Any:
    if c is None:
        return None
    if isinstance(c, (list, tuple)) and not (isinstance(c, tuple) and len(c) == 0):
        return [str(x) for x in c] if isinstance(c, list) or len(c) != 1 else str(c[0])
    return str(c)


# ------------------------------------------------------------------ structured tables
def per_group(split: Split, fn: Callable[[Any], Any], *, kind: str) -> Any:
    """Apply ``fn(profile)`` to every group; one call path for DataFrame and GroupBy.

    ``kind``: ``"series"`` (fn returns a Series: groups x fields), ``"frame"`` (fn
    returns a DataFrame: rows stacked under the group keys).  A group where ``fn``
    raises ValueError gets NaN (series) or no rows (frame), with the reason in
    ``attrs["reasons"]``.  Ungrouped, the single result is returned as is and a
    ValueError propagates.
    """
    collector = Collector()
    if not split.grouped:
        out = collector.run("all", lambda: fn(split.profile))
        collector.flush(1)
        return out
    results: list[Any] = []
    reasons: dict[Any, str] = {}
    for g in split.groups:
        if g.size == 0:
            results.append(None)
            reasons[g.key] = "empty group"
            continue
        prof = split.profile.take(g.rows)
        try:
            results.append(collector.run(g.name, lambda p=prof: fn(p)))
        except ValueError as exc:
            results.append(None)
            reasons[g.key] = str(exc)
    collector.flush(len(split.groups))
    index = split.index
    if kind == "series":
        template = next((r for r in results if r is not None), None)
        if template is None:
            out = pd.DataFrame(index=index)
        else:
            data = [r.reindex(template.index).to_numpy() if r is not None else
                    np.full(len(template), np.nan, dtype=object if template.dtype == object
                            else np.float64) for r in results]
            out = pd.DataFrame(data, index=index, columns=template.index)
            if template.dtype != object:
                out = out.astype(np.float64)
    else:
        frames = [(i, r) for i, r in enumerate(results) if r is not None]
        if not frames:
            out = pd.DataFrame()
        else:
            inner = frames[0][1].index
            positions = np.concatenate([np.full(len(r), i) for i, r in frames])
            outer = index.take(positions)
            inner_values = np.concatenate([r.index.to_numpy() for _, r in frames])
            arrays = ([outer.get_level_values(k) for k in range(outer.nlevels)]
                      + [inner_values])
            names = [*index.names, inner.name]
            body = pd.concat([r.reset_index(drop=True) for _, r in frames],
                             ignore_index=True)
            body.index = pd.MultiIndex.from_arrays(arrays, names=names)
            out = body
            out.attrs = dict(frames[0][1].attrs)
    out.attrs["reasons"] = reasons
    if not split.as_index:
        out = out.reset_index()
    return out
