"""``df.calib.report()`` and ``df.groupby(key).calib.report()``."""

from __future__ import annotations

import datetime as _dt
import time
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from calreport._progress import progress_bar
from calreport.compare import Comparison
from calreport.recalibration import RecalibrationResult
from calreport.report.actions import COMPARE_METRICS
from calreport.report.context import build_report
from calreport.report.exporters import Report
from calreport.report.formatting import environment

__all__ = ["report_from_accessor"]


def report_from_accessor(
    accessor: Any,
    *,
    title: str = "Calibration audit",
    subject: str | None = None,
    model: str | None = None,
    model_version: str | None = None,
    data_description: str | None = None,
    metrics: Sequence[str] | None = None,
    ci: float | None = 0.95,
    n_boot: int = 1000,
    ci_method: str | None = None,
    seed: Any = None,
    n_bins: int = 15,
    strategy: str = "uniform",
    tau: float = 0.5,
    view: str | None = None,
    p_risk_method: str = "auto",
    eps: float = 1e-8,
    row_label: Hashable | None = None,
    data_notes: Mapping[str, Any] | None = None,
    timestamp: _dt.datetime | str | None = None,
    top_errors: int = 10,
    max_cards: int = 16,
    max_driver_groups: int = 10,
    progress: bool | None = None,
    template_dir: str | Path | None = None,
    refit: bool | None = None,
    group_kind: str = "subgroups",
    adjust: str | None = "holm",
    recalibrate: bool | RecalibrationResult = False,
    compare: Hashable | Comparison | None = None,
    row_id: Hashable | None = None,
) -> Report:
    """The report of ``df.calib`` or ``df.groupby(key).calib`` (their ``report()``).

    Evaluates the metrics once (``accessor.evaluate``, with bootstrap intervals
    unless ``ci=None``) and passes the result and the groups' rows to
    :func:`~calreport.report.build_report`.

    Parameters
    ----------
    accessor : CalibAccessor or GroupByCalibAccessor
    title, subject, model, model_version, data_description, data_notes, timestamp, \
top_errors, max_cards, max_driver_groups, template_dir
        See :func:`~calreport.report.build_report`.
    metrics, ci, n_boot, ci_method, seed, n_bins, strategy, tau, view, p_risk_method, \
eps, progress
        See ``df.calib.evaluate``.
    row_label : column name, optional
        Column naming the rows in the lists of most overconfident errors (e.g.
        ``"patient_id"``); default: the DataFrame index.
    group_kind : {"subgroups", "alternatives"}, default "subgroups"
        What the groups of a GroupBy are: subgroups of one population (the pooled rows
        give the overall verdict and join the family of tests) or alternative models
        or calibrations of the same rows (no pooled verdict).
    adjust : {"holm", "bh"} or None, default "holm"
        Multiplicity adjustment of the groups' verdicts: the headline, the attention
        list, the next steps and the gates read the adjusted bands; None opts out.
    refit : bool, optional
        Refitting bootstrap of the metrics that refit a curve; default:
        :func:`calreport.bootstrap.intervals.refit_by_default` (at most 10 groups and
        20,000 rows in all; their intervals are otherwise NaN, with the reason in the
        report).
    recalibrate : bool or RecalibrationResult, default False
        True: run the recalibration advisor on the same groups
        (``accessor.recalibrate(seed=seed, n_bins=n_bins, eps=eps,
        p_risk_method=p_risk_method)``, every method) and add "What recalibration
        would do"; the next steps then name each overconfident group's recommended
        method.  A result of ``recalibrate()`` is used as given.
    compare : group key or Comparison, optional
        A group key: the baseline of a paired comparison of every group on the rows
        named by ``row_id`` (``accessor.compare(compare, row_id=row_id, ci=ci or
        0.95, n_boot=n_boot, seed=seed, metrics=...)`` on the metrics the section prints); a
        result of ``compare()`` is used as given.  Adds "Paired comparison".
        ``n_boot`` replicates.
    row_id : column name, optional
        The row key of the comparison (required when ``compare`` is a group key).

    Returns
    -------
    Report

    Raises
    ------
    ValueError
        ``row_label`` is not a column; ``compare`` given without ``row_id``, or on
        an ungrouped frame.

    Examples
    --------
    >>> import pandas as pd, calreport
    >>> df = pd.DataFrame({"y": [0, 1, 1, 0] * 30, "p": [0.2, 0.7, 0.9, 0.4] * 30})
    >>> rep = df.calib(y="y", proba="p").report(ci=None, timestamp="2026-01-01T00:00:00Z")
    >>> rep.context["overall"]["band"]  # every prediction is right: CSR = 0
    'no_evidence'
    """
    tic = time.perf_counter()
    # one seed for every number the report prints, 0 when not given (as the CLI's
    # --seed): a report is reproducible, and a group's P_risk in the comparison is its
    # verdict's
    seed = 0 if seed is None else seed
    # arguments that would otherwise fail only after every number is computed
    if template_dir is not None:
        environment(False, template_dir)
    if row_label is not None:
        split = accessor._split()
        _row_names(split.frame, split.row_labels, row_label)
    recalibration, comparison = _actions(accessor, recalibrate, compare, row_id,
                                         seed=seed, ci=ci, n_boot=n_boot, n_bins=n_bins,
                                         eps=eps, p_risk_method=p_risk_method,
                                         progress=progress)
    result = accessor.evaluate(metrics, ci=ci, n_boot=n_boot, ci_method=ci_method, seed=seed,
                               n_bins=n_bins, strategy=strategy, tau=tau, view=view,
                               p_risk_method=p_risk_method, eps=eps, progress=progress,
                               refit=refit, group_kind=group_kind, adjust=adjust)
    split = result.split
    frame = split.frame
    names = _row_names(frame, split.row_labels, row_label)
    profiles, labels = {}, {}
    for g in split.groups:
        if g.size == 0:
            continue
        profiles[g.name] = split.group_profile(g)
        labels[g.name] = names if not split.grouped else names[g.rows]
    heading = row_label if row_label is not None else frame.index.name
    # the figures take about as long as the numbers: a bar when those took seconds
    bar = progress_bar(1, "report figures", "step", progress, time.perf_counter() - tic)
    try:
        return build_report(
            result, profiles, title=title, subject=subject, model=model,
            model_version=model_version, data_description=data_description,
            row_labels=labels, row_label_name="Row" if heading is None else str(heading),
            data_notes=data_notes, timestamp=timestamp, top_errors=top_errors,
            max_cards=max_cards, max_driver_groups=max_driver_groups,
            template_dir=template_dir, recalibration=recalibration, comparison=comparison,
            row_id=row_id)
    finally:
        if bar is not None:
            bar.update(1)
            bar.close()


def _actions(accessor: Any, recalibrate: Any, compare: Any, row_id: Any, *, seed: Any,
             ci: float | None, n_boot: int, n_bins: int, eps: float, p_risk_method: str,
             progress: bool | None
             ) -> tuple[RecalibrationResult | None, Comparison | None]:
    """The advisor's and the comparison's results the report prints (or None)."""
    recalibration = None
    if isinstance(recalibrate, RecalibrationResult):
        recalibration = recalibrate
    elif recalibrate is True:
        recalibration = accessor.recalibrate(
            seed=0 if seed is None else seed, n_bins=n_bins, eps=eps,
            p_risk_method=p_risk_method, progress=progress)
    elif recalibrate is not False:
        raise TypeError("`recalibrate` must be True, False or the result of "
                        f"recalibrate(); got {type(recalibrate).__name__}.")
    if compare is None or isinstance(compare, Comparison):
        return recalibration, compare
    if not hasattr(accessor, "compare"):
        raise ValueError("`compare` needs groups of alternative models: call "
                         "df.groupby('model').calib.report(compare='baseline', "
                         "row_id='row').")
    if row_id is None:
        raise ValueError(f"`compare={compare!r}` needs `row_id`, the column naming a row "
                         "across models (e.g. row_id='patient_id').")
    return recalibration, accessor.compare(compare, row_id=row_id,
                                           metrics=list(COMPARE_METRICS),
                                           ci=ci or 0.95, n_boot=n_boot, seed=seed,
                                           n_bins=n_bins,
                                           eps=eps, p_risk_method=p_risk_method)


def _row_names(frame: Any, row_labels: Any, row_label: Hashable | None) -> np.ndarray:
    """A name per profile row: the frame index, or the ``row_label`` column."""
    if row_label is None:
        return np.asarray(row_labels, dtype=object)
    if row_label not in frame.columns:
        raise ValueError(f"`row_label` {row_label!r} is not a column; columns: "
                         f"{list(frame.columns)[:20]}. Pass the column naming each row "
                         "(e.g. row_label='patient_id').")
    column = frame[row_label]
    if len(row_labels) == len(frame):
        return column.to_numpy(dtype=object)
    if not frame.index.is_unique:
        raise ValueError(f"`row_label` needs a unique index when rows are dropped: "
                         f"{int(frame.index.duplicated().sum())} duplicated index labels. "
                         "Call df.reset_index(drop=True) first.")
    return column.to_numpy(dtype=object)[frame.index.get_indexer(row_labels)]
