"""The pandas side shared by the Accumulator, Dask and Polars front ends.

Column roles are resolved once (:class:`FrameSpec`) and every frame of rows --
a batch, a partition -- becomes a :class:`~calreport.stats.StatsState` with them;
finished metrics become pandas objects (:func:`summary_frame`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from calreport import _labels as lab
from calreport._roles import build_profile, resolve_roles
from calreport.interval_rules import STUDY_MIN_ROWS, interval_caveat, interval_note
from calreport.profile import ConfidenceProfile
from calreport.stats import StatsConfig, StatsState
from calreport.stats import finish as _finish
from calreport.stats.config import normalise_key
from calreport.stats.sampled import dropped_metrics

__all__ = ["FrameSpec", "add_states", "frame_profile", "frame_state", "group_counts",
           "group_index", "interval_caveats", "interval_notes", "resolve_spec", "summary_frame",
           "table_attrs"]

_ROLE_NAMES = ("y", "proba", "pred", "conf", "correct", "weight")


# =============================================================================
# roles fixed once, then every frame of rows -> state
# =============================================================================
@dataclasses.dataclass(frozen=True)
class FrameSpec:
    """How the rows of any frame become a state: resolved roles, group keys, settings."""

    roles: Any  # calreport._roles.Roles with classes fixed
    by: tuple[Hashable, ...]
    config: StatsConfig
    dropna: bool = True


def resolve_spec(frame: Any, role_kw: dict[str, Any], by: Sequence[Hashable] | None,
                 config: StatsConfig, labels: Any = None, preds: Any = None,
                 dropna: bool = True) -> FrameSpec:
    """Resolve roles on ``frame`` (a pandas frame, possibly empty) and fix the classes.

    ``labels``/``preds`` are the distinct true/predicted labels of the whole data (for
    inferring the classes and the positive class when they are not given).
    """
    by = tuple(by or ())
    # the weights' meaning is the state's: frequency weights are checked to be counts
    roles = resolve_roles(frame, exclude=by, **{**role_kw, "weights": config.weights})
    if roles.classes is None and (roles.proba or roles.pred is not None):
        roles = dataclasses.replace(roles, classes=_infer_classes(roles, labels, preds))
    return FrameSpec(roles, by, config, dropna)


def _infer_classes(roles: Any, labels: Any, preds: Any) -> tuple[Any, ...] | None:

    if labels is None:
        return None
    y = np.asarray(labels)
    y = y[~_isna(y)]
    if len(roles.proba) == 1:
        probe = ConfidenceProfile.from_arrays(y, np.full(len(y), 0.5), pos_label=roles.pos_label)
        return tuple(probe.classes.tolist())
    p = np.asarray(preds) if preds is not None else y[:0]
    return tuple(lab.infer_classes(y, p[~_isna(p)]).tolist())


def _isna(a: np.ndarray) -> np.ndarray:
    import pandas as pd

    return np.asarray(pd.isna(a), dtype=bool).reshape(-1) if a.size else np.zeros(0, bool)


def frame_profile(frame: Any, spec: FrameSpec
                  ) -> tuple[Any, np.ndarray, list[Any], Any] | None:
    """Profile, group codes, group keys and kept row positions of a frame's rows."""
    import pandas as pd

    if spec.by:
        keys_df = frame[list(spec.by)]
        if len(spec.by) == 1:
            codes, uniques = pd.factorize(keys_df.iloc[:, 0], use_na_sentinel=spec.dropna)
            keys = [normalise_key(k) for k in np.asarray(uniques, dtype=object)]
        else:
            mi = pd.MultiIndex.from_frame(keys_df)
            codes, uniques = mi.factorize(use_na_sentinel=spec.dropna)
            keys = [normalise_key(tuple(k)) for k in uniques]
        codes = np.asarray(codes, dtype=np.intp)
        if spec.dropna and (codes < 0).any():
            keep = codes >= 0
            frame, codes = frame.iloc[np.flatnonzero(keep)], codes[keep]
    else:
        codes, keys = np.zeros(len(frame), dtype=np.intp), [()]
    if len(frame) == 0:
        return None
    # raw weights, not divided by this part's maximum (the metrics are invariant to one
    # common scale, not to a scale per part): the state rescales them by a power of
    # two it records, and a part may hold only zero weights (checked once merged)
    profile, _, kept = build_profile(frame, spec.roles, normalize_weights=False, whole=False)
    return profile, codes[kept], keys, frame.index.to_numpy()[kept]


def frame_state(frame: Any, spec: FrameSpec, offsets: dict[Any, int] | None = None,
                base: int = 0) -> StatsState | None:
    """The state of a pandas frame's rows (None for no rows); ``offsets`` and ``base``
    as ``row_offsets`` and ``row_base`` of :meth:`StatsState.from_profile`."""
    got = frame_profile(frame, spec)
    if got is None:
        return None
    profile, codes, keys, labels = got
    return StatsState.from_profile(profile, config=spec.config, codes=codes, keys=keys,
                                   row_offsets=offsets, row_base=base,
                                   row_labels=labels if spec.config.top_errors else None)


def add_states(*states: StatsState | None) -> StatsState | None:
    """Sum of states, skipping empty ones (None)."""
    out = None
    for s in states:
        if s is not None:
            out = s if out is None else out + s
    return out


def group_counts(frame: Any, spec: FrameSpec) -> dict[Any, int]:
    """Rows per group key that :func:`frame_state` would use (for bootstrap offsets)."""
    import pandas as pd

    cols = spec.roles.columns
    if spec.roles.missing == "drop" and cols:
        frame = frame[~frame[cols].isna().any(axis=1)]
    if not spec.by:
        return {(): len(frame)} if len(frame) else {}
    counts = frame.groupby(list(spec.by), dropna=spec.dropna, sort=False).size()
    if isinstance(counts.index, pd.MultiIndex):
        return {normalise_key(tuple(k)): int(n) for k, n in counts.items()}
    return {normalise_key(k): int(n) for k, n in counts.items()}


# =============================================================================
# finished metrics -> pandas
# =============================================================================
def interval_notes(table: _finish.MetricTable) -> dict[str, dict[str, Any]]:
    """Per metric with an interval: its method, whether one-sided and its measured
    coverage, as ``CalibrationResult.interval_notes`` gives them for the pandas path."""
    how = table.settings.get("interval_methods") or {}
    return {m: interval_note(m, how.get(m, "percentile")) for m in table.intervals}

def group_index(keys: list[Any], by: Sequence[Hashable]) -> Any:
    import pandas as pd

    if len(by) > 1:
        return pd.MultiIndex.from_tuples(keys, names=list(by))
    return pd.Index(keys, name=by[0], tupleize_cols=False)


def summary_frame(table: _finish.MetricTable, by: Sequence[Hashable]) -> Any:
    """Series (ungrouped) or DataFrame (groups x metrics); bounds as ``<metric>_bound``,
    the 95 % sampling errors of sampled metrics as ``<metric>_sampling_error``."""
    import pandas as pd

    cols: dict[str, np.ndarray] = dict(table.values)
    for name, b in table.bounds.items():
        cols[f"{name}_bound"] = b
    for name, h in table.sampling_error.items():
        cols[f"{name}_sampling_error"] = h
    if table.intervals:
        data = {}
        for name, val in cols.items():
            nan = np.full(len(val), np.nan)
            lo, hi = table.intervals.get(name, (nan, nan))
            se_lo, se_hi, _ = table.interval_se.get(name, (nan, nan, nan))
            data[(name, "value")], data[(name, "ci_low")], data[(name, "ci_high")] = val, lo, hi
            data[(name, "ci_low_mcse")], data[(name, "ci_high_mcse")] = se_lo, se_hi
        out = pd.DataFrame(data, index=group_index(table.keys, by) if by else None)
        if not by:
            out = out.iloc[0].unstack()
    else:
        out = pd.DataFrame(cols, index=group_index(table.keys, by) if by else None)
        if not by:
            out = out.iloc[0].rename("value")
    out.attrs.update(table_attrs(table, by))
    return out


def table_attrs(table: _finish.MetricTable, by: Sequence[Hashable]) -> dict[str, Any]:
    """What a summary says beside its numbers (``attrs`` of the pandas result, and of
    the Polars one): each metric's kind (exact, bounded, sampled), the metrics without
    a value and why, the reasons per group, the view, the interval notes and P_risk's
    method."""
    out: dict[str, Any] = {}
    methods = table.settings.get("p_risk_methods")
    if methods is not None:
        out["p_risk_method"] = dict(zip(table.keys, methods, strict=True)) if by \
            else methods[0]
    out["kinds"] = dict(table.kinds)
    out["dropped"] = dropped_metrics(table)
    out["view"], out["no_interval"] = table.view, table.settings.get("intervals")
    if table.intervals:
        out["intervals"] = interval_notes(table)
        out["interval_caveats"] = interval_caveats(table)
    out["reasons"] = {k: r for k, r in table.reasons.items()}
    return out


def interval_caveats(table: _finish.MetricTable) -> dict[Any, dict[str, str]]:
    """Group key -> metric -> what that group's interval cannot claim, as
    ``CalibrationResult.interval_caveats`` gives them for the pandas path
    (:func:`calreport.interval_rules.interval_caveat`)."""
    n = table.values.get("n", np.full(len(table.keys), np.nan))
    lows = np.column_stack([lo for lo, _ in table.intervals.values()])
    highs = np.column_stack([hi for _, hi in table.intervals.values()])
    # screen every group and metric at once; words only for the few flagged
    flagged = ((np.isfinite(lows) & (lows == highs)) | (n < STUDY_MIN_ROWS)[:, None])
    names = list(table.intervals)
    out: dict[Any, dict[str, str]] = {}
    for gi in np.flatnonzero(flagged.any(axis=1)).tolist():
        out[table.keys[gi]] = {
            names[j]: interval_caveat(float(lows[gi, j]), float(highs[gi, j]), float(n[gi]))
            for j in np.flatnonzero(flagged[gi]).tolist()}
    return out


# =============================================================================
# the accumulator
# =============================================================================
