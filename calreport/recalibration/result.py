"""The advisor's result: the table, the recommendation and the calibrator to ship."""

from __future__ import annotations

import html
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from calreport._numbers import format_number
from calreport.profile import ConfidenceProfile
from calreport.recalibration._base import Calibrator
from calreport.recalibration.crossfit import METHODS, make_calibrator
from calreport.registry import REGISTRY, shown_in

__all__ = ["TABLE_METRICS", "RecalibrationResult"]

#: Metric columns of the table, in order: the registry's "recalibration" table, with
#: ``band`` (P_risk's verdict band) after P_risk.
TABLE_METRICS = tuple(c for m in shown_in("recalibration")
                      for c in ((m, "band") if m == "p_risk" else (m,)))
#: Columns printed by ``repr``: the metrics, with the paired difference of the log loss
#: (the recommendation's criterion) and its interval after it (the full table has
#: every difference and interval).
_SHORT = tuple(c for m in TABLE_METRICS for c in (
    (m, f"{m}_diff", f"{m}_diff_low", f"{m}_diff_high") if m == "log_loss" else (m,)))


def _formatters(columns: Any) -> dict[str, Any]:
    """Every number in decimals, never in scientific notation (one column's values
    alike); a probability (P_risk) below 0.00005 reads ``< 0.0001``."""
    def fmt(column: str) -> Any:
        below = column in REGISTRY and REGISTRY[column].unit_scale
        return lambda x: format_number(x, fixed=True, below=below).replace("\u2212", "-")
    return {c: fmt(c) for c in columns if c != "band"}


@dataclass
class RecalibrationResult:
    """Out-of-fold comparison of recalibration methods, per group.

    Attributes
    ----------
    table : DataFrame
        One row per method (grouped: per (group, method)); columns: each metric
        (``log_loss``, ``brier``, ``ece``, ``csr``, ``p_risk``, ``band``, ``cwa``,
        ``auc``) and, except for P_risk and the band, its paired difference against
        "none" (``<metric>_diff``) with the paired-bootstrap interval
        (``<metric>_diff_low``, ``<metric>_diff_high``).
    recommended : str or Series
        The recommended method (grouped: per group).
    reason : str or Series
        Why, in words.
    options : dict
        The settings of the comparison; ``options["coverage"]`` is the measured
        coverage of the intervals (a plain string, printed with the table).
    interval_reasons : dict
        Why an interval of the table is NaN: ``(method, metric)`` (grouped:
        ``(group, method, metric)``) -> the reason (the metric is undefined on the
        rows, or fewer than half of the paired replicates define the difference);
        every NaN interval has one, "none" included; printed with the table.
    """

    table: pd.DataFrame
    recommended: str | pd.Series
    reason: str | pd.Series
    options: dict[str, Any] = field(default_factory=dict)
    grouped: bool = False
    _profiles: dict[Hashable, ConfidenceProfile] = field(default_factory=dict, repr=False)
    interval_reasons: dict[tuple[Any, ...], str] = field(default_factory=dict)

    @classmethod
    def build(cls, tables: Mapping[Hashable, pd.DataFrame], recommended: Mapping[Hashable, str],
              reasons: Mapping[Hashable, str], profiles: dict[Hashable, ConfidenceProfile],
              *, grouped: bool, options: dict[str, Any],
              undefined: Mapping[Hashable, Mapping[tuple[str, str], str]] | None = None
              ) -> RecalibrationResult:
        """Assemble the per-group tables (the one place results become pandas);
        ``undefined``: group -> (method, metric) -> why that interval is NaN."""
        undefined = undefined or {}
        if not grouped:
            (key,) = tables
            return cls(tables[key], recommended[key], reasons[key], options, False, profiles,
                       dict(undefined.get(key, {})))
        keys = list(tables)
        table = pd.concat([tables[k] for k in keys], keys=keys,
                          names=["group", "method"])
        index = pd.Index(keys, name="group", tupleize_cols=False)
        return cls(table, pd.Series([recommended[k] for k in keys], index=index,
                                    name="recommended", dtype=object),
                   pd.Series([reasons[k] for k in keys], index=index, name="reason",
                             dtype=object), options, True, profiles,
                   {(k, *mk): why for k in keys for mk, why in undefined.get(k, {}).items()})

    def fit(self, method: str | None = None, group: Hashable | None = None
            ) -> Calibrator | dict[Hashable, Calibrator]:
        """The calibrator fitted on all rows of a group, ready to ship.

        Parameters
        ----------
        method : str, optional
            A method of the table (default: the group's recommended method; "none"
            gives :class:`~calreport.recalibration.IdentityCalibrator`).
        group : hashable, optional
            Grouped results: one group's key (default: every group, as a dict).

        Returns
        -------
        Calibrator or dict
            Fitted on the group's class probabilities and labels (with its weights);
            ``classes_`` are the group's class labels.
        """
        if self.grouped and group is None:
            return {k: self.fit(method, k) for k in self._profiles}
        key = group if self.grouped else next(iter(self._profiles))
        if key not in self._profiles:
            raise KeyError(f"unknown group {key!r}; groups: {list(self._profiles)}.")
        chosen = method or (self.recommended[key] if self.grouped else self.recommended)
        if chosen not in METHODS:
            raise ValueError(f"Unknown recalibration method {chosen!r}; choose from "
                             f"{list(METHODS)}.")
        prof = self._profiles[key]
        P = np.array(prof.proba, dtype=np.float64)
        if P.shape[1] > 2:
            P /= P.sum(axis=1, keepdims=True)
        classes = np.arange(P.shape[1]) if prof.classes is None else np.asarray(prof.classes)
        cal = make_calibrator(chosen, self.options.get("multiclass", "ovr"))
        return cal.fit(P if P.shape[1] > 2 else P[:, 1], classes[prof.y_true],
                       prof.sample_weight, classes=classes)

    def _recommendations(self) -> list[tuple[str, str, str]]:
        if not self.grouped:
            return [("", str(self.recommended), str(self.reason))]
        return [(str(k), str(self.recommended[k]), str(self.reason[k]))
                for k in self.recommended.index]

    def _undefined_lines(self) -> list[str]:
        """One line per metric and reason: the rows whose interval of the difference
        is NaN, and why."""
        by: dict[tuple[str, str], list[str]] = {}
        for key, why in self.interval_reasons.items():
            *where, metric = key
            by.setdefault((f"{metric}_diff", why), []).append(
                " / ".join(str(x) for x in where))
        return [f"No interval for {col} ({', '.join(rows)}): {why}."
                for (col, why), rows in by.items()]

    def __repr__(self) -> str:
        cols = [c for c in _SHORT if c in self.table.columns]
        with pd.option_context("display.width", 200, "display.max_columns", 20,
                               "display.precision", 4):
            text = self.table[cols].to_string(formatters=_formatters(cols))
        lines = ["Recalibration advisor (out-of-fold, "
                 f"{self.options.get('n_splits', '?')} folds; differences against 'none' "
                 f"with {self.options.get('ci', 0.95):.0%} paired-bootstrap intervals)",
                 text, ""]
        coverage = self.options.get("coverage")
        if coverage:
            lines += [f"Interval coverage: {coverage}", ""]
        if self.interval_reasons:
            lines += [*self._undefined_lines(), ""]
        for group, best, why in self._recommendations():
            lines.append(f"recommended{' for ' + group if group else ''}: {best}. {why}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        cols = [c for c in _SHORT if c in self.table.columns]
        parts = ["<div><p><b>Recalibration advisor</b> (out-of-fold; differences against "
                 "'none' with paired-bootstrap intervals)</p>",
                 self.table[cols].to_html(formatters=_formatters(cols))]
        coverage = self.options.get("coverage")
        if coverage:
            parts.append(f"<p><i>Interval coverage:</i> {html.escape(str(coverage))}</p>")
        parts += [f"<p>{html.escape(line)}</p>" for line in self._undefined_lines()]
        for group, best, why in self._recommendations():
            who = f" for {html.escape(group)}" if group else ""
            parts.append(f"<p>Recommended{who}: <b>{html.escape(best)}</b>. "
                         f"{html.escape(why)}</p>")
        parts.append("</div>")
        return "\n".join(parts)
