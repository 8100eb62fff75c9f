"""The pandas accessors ``df.calib`` and ``df.groupby(...).calib``.

``import calreport`` registers both.  An accessor holds nothing but the frame (and,
after ``df.calib(...)``, the column roles): pandas 3 rebuilds it on every attribute
access, so it does no work until a metric is asked for.  Both go through one path
(:mod:`calreport._grouping`, :mod:`calreport._engine`): the whole frame is
validated once, and a DataFrame is the one-group case of a GroupBy.  Results come
back as pandas objects: a float for a scalar metric on a DataFrame, a Series
indexed by the group keys on a GroupBy; structured results as Series/DataFrames.

Here: the column roles, ``evaluate()``, ``summary()``, ``report()``, recalibration
and the figures.  The one method per registry metric is generated in
:mod:`calreport._metric_methods`; the tables (``risk()``, ``reliability()``,
``selective()``...) are in :mod:`calreport._table_methods`.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from calreport._engine import UndefinedMetricWarning, evaluate
from calreport._grouping import (
    Split,
    resolve_group_roles,
    split_frame,
    split_groupby,
)
from calreport._metric_methods import MetricMethods
from calreport._roles import Roles, resolve_roles
from calreport._table_methods import TableMethods
from calreport.compare import Comparison, compare_groups, comparison_settings
from calreport.profile import ConfidenceProfile
from calreport.recalibration import RecalibrationResult, recalibrate
from calreport.result import CalibrationResult
from calreport.settings import Settings

if TYPE_CHECKING:  # the report package loads its templates: imported when a report is made
    from calreport.report import Report

__all__ = ["CalibAccessor", "GroupByCalibAccessor", "UndefinedMetricWarning"]

class _Base(MetricMethods, TableMethods):
    """What both accessors share: role keywords, the split, every method.

    The per-metric methods come from :class:`~calreport._metric_methods.MetricMethods`,
    the tables (``risk()``, ``reliability()``...) from
    :class:`~calreport._table_methods.TableMethods`.
    """

    _role_kw: dict[str, Any]

    # subclasses: _roles() and _split()
    def _roles(self) -> Roles:  # pragma: no cover - abstract
        raise NotImplementedError

    def _split(self) -> Split:  # pragma: no cover - abstract
        raise NotImplementedError

    def roles(self) -> Roles:
        """The resolved column roles."""
        return self._roles()

    # ------------------------------------------------------------------- metrics
    def _metric(self, name: str, **settings: Any) -> Any:
        # a NaN warns once, from the caller's line, naming the groups and the reason
        res = evaluate(self._split(), [name], settings=Settings.from_kwargs(**settings),
                       overall=False)
        if not res.grouped:
            return res.groups[0].values[name]
        out = pd.Series([g.values[name] for g in res.groups], index=res.index, name=name,
                        dtype=np.float64)
        out.attrs["reasons"] = {g.key: g.reasons[name] for g in res.groups
                                if name in g.reasons}
        return out if res.as_index else out.reset_index()  # keys as columns, as pandas

    def evaluate(
        self,
        metrics: Sequence[str] | str | None = None,
        *,
        ci: float | None = None,
        n_boot: int = 1000,
        ci_method: str | None = None,
        resampling: str = "multinomial",
        seed: Any = None,
        n_bins: int = 15,
        strategy: str = "uniform",
        tau: float = 0.5,
        view: str | None = None,
        p_risk_method: str = "auto",
        eps: float = 1e-8,
        min_count: int = 1,
        progress: bool | None = None,
        overall: bool | None = None,
        refit: bool | None = False,
        group_kind: str = "subgroups",
        adjust: str | None = "holm",
    ) -> CalibrationResult:
        """The typed result behind ``summary()``, the report and the gates.

        Same arguments as :meth:`summary`; ``overall`` adds the pooled rows of all
        groups (default: True for a GroupBy of ``group_kind="subgroups"``).
        ``group_kind="alternatives"`` says the groups are alternative models or
        calibrations of the same rows: no pooled verdict.  ``adjust`` ("holm",
        "bh" or None) adjusts the groups' verdicts for their number (see
        :meth:`risk`); the family facts are in ``result.family``.  ``refit`` as in
        :meth:`summary` (default False: no refitting bootstrap, the reasons say so).  The
        result carries every group's values, intervals, interval methods, NaN
        reasons and risk verdict.

        Returns
        -------
        calreport.result.CalibrationResult
        """
        return self._evaluate(metrics, ci=ci, n_boot=n_boot, ci_method=ci_method,
                              resampling=resampling, seed=seed, n_bins=n_bins,
                              strategy=strategy, tau=tau, view=view,
                              p_risk_method=p_risk_method, eps=eps, min_count=min_count,
                              progress=progress, overall=overall, refit=refit,
                              with_risk=True, group_kind=group_kind, adjust=adjust)

    def _evaluate(self, metrics: Any, *, n_bins: int, strategy: str, tau: float,
                  view: str | None, p_risk_method: str, eps: float, min_count: int,
                  seed: Any, **kw: Any) -> CalibrationResult:
        """The one place the accessor's options become settings and a computation."""
        settings = Settings.from_kwargs(n_bins=n_bins, strategy=strategy, tau=tau,
                                        view=view, p_risk_method=p_risk_method, eps=eps,
                                        min_count=min_count, seed=seed)
        return evaluate(self._split(), metrics, settings=settings, seed=seed, **kw)

    def summary(
        self,
        metrics: Sequence[str] | str | None = None,
        *,
        ci: float | None = None,
        n_boot: int = 1000,
        ci_method: str | None = None,
        resampling: str = "multinomial",
        seed: Any = None,
        n_bins: int = 15,
        strategy: str = "uniform",
        tau: float = 0.5,
        view: str | None = None,
        p_risk_method: str = "auto",
        eps: float = 1e-8,
        min_count: int = 1,
        progress: bool | None = None,
        refit: bool | None = False,
    ) -> pd.Series | pd.DataFrame:
        """Every headline metric.

        DataFrame: a Series (metric -> value) like ``df.mean()``, or with ``ci`` a
        DataFrame (metric x [value, ci_low, ci_high]) like ``describe()``.  GroupBy:
        groups x metrics, or with ``ci`` columns (metric, [value, ci_low, ci_high]).

        Parameters
        ----------
        metrics : list of str, optional
            Names of :data:`calreport.registry.REGISTRY` (default: all, in order).
        ci : float, optional
            Confidence level of the intervals (e.g. 0.95).
        n_boot, ci_method, resampling, seed, progress
            Bootstrap replicates; interval method (None: each metric's registry
            default; ``"percentile"``, ``"basic"``, ``"analytic"``);
            ``"multinomial"``/``"poisson"`` resampling; seed (each group's stream is
            derived from it and the group's key); progress bar.
        refit : bool or None, default False
            The refitting bootstrap of the metrics that refit a curve (LCS, TCE_bpm,
            smECE, ECI, CORP...): ``min(n_boot, 200)`` refits of each metric in each
            group, seconds per group where the other intervals take a fraction of a
            second, so it is opt-in: False leaves their intervals NaN, with the
            reason in ``attrs["reasons"]`` and the result's repr; True computes them;
            None applies :func:`calreport.bootstrap.intervals.refit_by_default` (at
            most 10 groups and 20,000 rows in all), the report's default.
        n_bins, strategy, tau, view, p_risk_method, eps, min_count
            See :class:`calreport.settings.Settings`.

        Returns
        -------
        Series or DataFrame
            ``attrs["reasons"]`` maps each NaN metric (grouped: (group, metric)) to
            the reason; ``attrs["settings"]`` and ``attrs["ci"]`` record the settings.
        """
        return self._evaluate(metrics, ci=ci, n_boot=n_boot, ci_method=ci_method,
                              resampling=resampling, seed=seed, n_bins=n_bins,
                              strategy=strategy, tau=tau, view=view,
                              p_risk_method=p_risk_method, eps=eps, min_count=min_count,
                              progress=progress, overall=False, refit=refit,
                              with_risk=False).summary()

    # ------------------------------------------------------------- other results
    def profiles(self) -> dict[Any, ConfidenceProfile]:
        """Group key -> validated profile (``{"all": profile}`` when ungrouped)."""
        split = self._split()
        if not split.grouped:
            return {"all": split.profile}
        return {g.key: split.group_profile(g) for g in split.groups if g.size}

    def recalibrate(self, methods: Sequence[str] | str | None = None, *, n_splits: int = 5,
                    seed: int = 0, multiclass: str = "ovr", n_boot: int = 200,
                    ci: float = 0.95, n_bins: int = 15, eps: float = 1e-8,
                    p_risk_method: str = "auto",
                    progress: bool | None = None) -> RecalibrationResult:
        """Recalibration methods compared out of fold, one recommended and fittable
        (``.fit()``); see :func:`calreport.recalibration.recalibrate`."""
        return recalibrate(self.profiles(), grouped=isinstance(self, GroupByCalibAccessor),
                           methods=methods, n_splits=n_splits, seed=seed,
                           multiclass=multiclass, n_boot=n_boot, ci=ci, n_bins=n_bins,
                           eps=eps, p_risk_method=p_risk_method, progress=progress)

    @property
    def plot(self) -> Any:
        """Figures: ``df.calib.plot.reliability_diagram()`` etc. (calreport.plotting)."""
        from calreport.plotting import CalibPlots  # lazy: matplotlib

        return CalibPlots(self.profiles)

    def report(
        self,
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
        """Model-card audit report of these predictions (HTML, PDF, JSON, Markdown).

        Evaluates the metrics once, with bootstrap intervals unless ``ci=None``, and
        lays out the verdict, the figures and the most overconfident errors of every
        group; ``.save("audit.html")`` (or ``.pdf``, ``.json``, ``.md``) writes it.
        Forwards to :func:`calreport.report.report_from_accessor`.

        Parameters
        ----------
        title : str, default "Calibration audit"
            Heading of the report.
        subject : str, optional
            What is audited (model, data set), printed under the title.
        model, model_version, data_description : str, optional
            Sign-off facts printed on the first page.
        metrics : list of str, optional
            Registry metrics to compute (default: all, in order).
        ci : float or None, default 0.95
            Level of the bootstrap intervals; None for none (faster).
        n_boot : int, default 1000
            Bootstrap replicates.
        ci_method : str, optional
            Interval method (None: each metric's registry default; "percentile",
            "basic", "analytic").
        seed : int or numpy Generator, optional
            Master seed of the bootstrap and the Monte Carlo null; each group's stream
            is derived from it and the group's key.  None uses 0 (as the CLI's
            ``--seed``), so a report is reproducible; every number of the report,
            the comparison's included, reads this one seed (printed in its methods).
        n_bins, strategy, tau, view, p_risk_method, eps
            Metric settings, see :class:`calreport.settings.Settings`.
        row_label : column name, optional
            Column naming the rows in the lists of most overconfident errors (e.g.
            ``"patient_id"``); default: the DataFrame index.
        data_notes : mapping, optional
            Extra lines for the data section (name -> text).
        timestamp : datetime or str, optional
            Printed time stamp (default: now, UTC); fix it for byte-identical output.
        top_errors : int, default 10
            Errors listed per flagged group.
        max_cards : int, default 16
            Most verdict cards printed (flagged groups first).
        max_driver_groups : int, default 10
            Most flagged groups whose error lists are printed in the appendix.
        progress : bool, optional
            Progress bars of the bootstrap, the refits and the report's figures
            (default: in a terminal or a notebook, for work of seconds).
        template_dir : str or Path, optional
            A folder searched before the packaged templates.
        refit : bool, optional
            Refitting bootstrap of the metrics that refit a curve (default:
            :func:`calreport.bootstrap.intervals.refit_by_default`, at most 10 groups
            and 20,000 rows in all).
        group_kind : {"subgroups", "alternatives"}, default "subgroups"
            What the groups of a GroupBy are: subgroups of one population, or
            alternative models or calibrations of the same rows (no pooled verdict).
        adjust : {"holm", "bh"} or None, default "holm"
            Multiplicity adjustment of the groups' verdicts; None opts out.
        recalibrate : bool or RecalibrationResult, default False
            Add "What recalibration would do" (:meth:`recalibrate`, or its result)
            and name each overconfident group's recommended method in the next steps.
        compare : group key or Comparison, optional
            Add a paired comparison of every group against this baseline group on the
            rows named by ``row_id`` (:meth:`compare`), or the given comparison.
        row_id : column name, optional
            The row key of ``compare`` (required with a group key).

        Returns
        -------
        calreport.report.Report

        Raises
        ------
        ValueError
            ``row_label`` is not a column, or an invalid setting.

        Examples
        --------
        >>> import pandas as pd, calreport
        >>> df = pd.DataFrame({"y": [0, 1, 1, 0] * 30, "p": [0.2, 0.7, 0.9, 0.4] * 30})
        >>> rep = df.calib(y="y", proba="p").report(ci=None, title="Toy model",
        ...                                         timestamp="2026-01-01T00:00:00Z")
        >>> rep.context["overall"]["band"]
        'no_evidence'
        """
        from calreport.report import report_from_accessor  # lazy: matplotlib

        return report_from_accessor(
            self, title=title, subject=subject, model=model, model_version=model_version,
            data_description=data_description, metrics=metrics, ci=ci, n_boot=n_boot,
            ci_method=ci_method, seed=seed, n_bins=n_bins, strategy=strategy, tau=tau,
            view=view, p_risk_method=p_risk_method, eps=eps, row_label=row_label,
            data_notes=data_notes, timestamp=timestamp, top_errors=top_errors,
            max_cards=max_cards, max_driver_groups=max_driver_groups, progress=progress,
            template_dir=template_dir, refit=refit, group_kind=group_kind, adjust=adjust,
            recalibrate=recalibrate, compare=compare, row_id=row_id)


# =============================================================================
# DataFrame accessor
# =============================================================================
class CalibAccessor(_Base):
    """Calibration metrics of the prediction columns of a DataFrame.

    Call it to name the columns, or let it infer them from conventional names
    (``y_true``/``y``/``label``/``target``; one probability column ``proba``/
    ``prob``/``p``/``y_proba``/``y_prob``/``y_score``/``score``, or ``proba_<class>``/
    ``prob_<class>``/``p_<class>`` per class; ``y_pred``/``pred``;
    ``confidence``/``conf``; ``correct``).  Roles named in part are completed from
    the same names (``df.calib(proba="risk")`` finds ``y``); two candidates for one
    role are an error, never a guess.  The command line infers the same way.

    Examples
    --------
    >>> import pandas as pd, calreport
    >>> df = pd.DataFrame({"y_true": [0, 1, 1, 0], "proba": [0.1, 0.8, 0.6, 0.3]})
    >>> df.calib.accuracy()
    1.0
    >>> round(df.calib(y="y_true", proba="proba").cwa(), 4)
    1.0
    """

    def __init__(self, pandas_obj: pd.DataFrame) -> None:
        self._obj = pandas_obj
        self._role_kw = {}

    def __call__(
        self,
        y: Hashable | None = None,
        proba: Hashable | Sequence[Hashable] | Mapping[Any, Hashable] | None = None,
        pred: Hashable | None = None,
        conf: Hashable | None = None,
        correct: Hashable | None = None,
        weight: Hashable | None = None,
        *,
        classes: Sequence[Any] | None = None,
        missing: str = "raise",
        threshold: float = 0.5,
        pos_label: Any = None,
        weights: str = "importance",
    ) -> CalibAccessor:
        """Name the column roles; returns a bound accessor with the same methods.

        Parameters
        ----------
        y : column, optional
            True labels.
        proba : column, list of columns or mapping class -> column, optional
            Binary positive-class probability, or one column per class (in the
            sorted order of the labels when the names do not identify classes).
        pred, conf, correct, weight : column, optional
            Predicted label, top-label confidence, 0/1 correctness, sample weights.
        classes : list, optional
            Class of each probability column.
        missing : {"raise", "drop"}
            What to do with rows that have a missing value in a used column.
        threshold : float
            Decision threshold of a binary probability column.
        pos_label : optional
            Positive class of a binary probability column (required unless the
            labels are {0, 1}, {False, True} or {-1, 1}).
        weights : {"importance", "frequency"}, default "importance"
            Meaning of ``weight``: relative importance (every value, z and interval
            invariant to scaling all weights) or integer frequency counts.
        """
        bound = CalibAccessor(self._obj)
        bound._role_kw = _role_kw(y, proba, pred, conf, correct, weight, classes, missing,
                                  threshold, pos_label, weights)
        bound._roles()  # fail early on unknown columns
        return bound

    def _roles(self) -> Roles:
        return resolve_roles(self._obj, **self._role_kw)

    def _split(self) -> Split:
        return split_frame(self._obj, self._roles())

    def profile(self) -> ConfidenceProfile:
        """The validated :class:`~calreport.ConfidenceProfile` of this frame."""
        return self._split().profile


# =============================================================================
# GroupBy accessor
# =============================================================================
class GroupByCalibAccessor(_Base):
    """``df.groupby(keys).calib``: every metric per group, indexed by the group keys.

    Classes and the positive class are fixed once from the whole frame, so a
    group's numbers equal the same rows computed alone with the same classes.
    Group semantics follow pandas (``sort``, ``dropna``, ``observed``, several keys,
    NaN keys, ``as_index``).  A group that cannot define a metric (empty, too
    small, a single class, all weights zero) gets NaN and the reason in
    ``result.attrs["reasons"]``; it never raises for the whole call.
    """

    def __init__(self, groupby: Any, role_kw: dict[str, Any] | None = None) -> None:
        self._gb = groupby
        self._role_kw = role_kw or {}

    def __call__(
        self,
        y: Hashable | None = None,
        proba: Any = None,
        pred: Hashable | None = None,
        conf: Hashable | None = None,
        correct: Hashable | None = None,
        weight: Hashable | None = None,
        *,
        classes: Sequence[Any] | None = None,
        missing: str = "raise",
        threshold: float = 0.5,
        pos_label: Any = None,
        weights: str = "importance",
    ) -> GroupByCalibAccessor:
        """Name the column roles (same arguments as ``df.calib(...)``)."""
        bound = GroupByCalibAccessor(self._gb, _role_kw(y, proba, pred, conf, correct,
                                                        weight, classes, missing, threshold,
                                                        pos_label, weights))
        bound._roles()
        return bound

    def _roles(self) -> Roles:
        return resolve_group_roles(self._gb, self._role_kw)

    def _split(self) -> Split:
        return split_groupby(self._gb, self._roles())

    def compare(self, baseline: Hashable, *, row_id: Hashable,
                metrics: Sequence[str] | str | None = None, ci: float = 0.95,
                n_boot: int = 1000, seed: Any = None, refit: bool | None = False,
                progress: bool | None = None, **settings: Any) -> Comparison:
        """Paired differences of every group (model) against ``baseline`` on the same rows.

        The groups are alternative models scored on the same rows, identified by the
        ``row_id`` column: each metric's difference (model - baseline) with a paired
        bootstrap interval, the change of risk band, and paired z-test p-values of CSR
        and log loss.  ``settings``: ``n_bins``, ``strategy``, ``tau``, ``view``,
        ``p_risk_method``, ``eps``, ``min_count`` (as in :meth:`summary`).
        ``progress``: a bar over the replicates (default: in a terminal or a notebook,
        when they are predicted to take two seconds or more).  Returns a
        :class:`calreport.compare.Comparison`; see
        :func:`calreport.compare.compare_groups` (and its example in the module).
        """
        s = comparison_settings(seed, settings)
        return compare_groups(self._split(), baseline=baseline, row_id=row_id,
                              metrics=metrics, settings=s, ci=ci, n_boot=n_boot, seed=seed,
                              refit=refit, progress=progress)


def _role_kw(y: Any, proba: Any, pred: Any, conf: Any, correct: Any, weight: Any,
             classes: Any, missing: str, threshold: float, pos_label: Any,
             weights: str) -> dict[str, Any]:
    kw = dict(y=y, proba=proba, pred=pred, conf=conf, correct=correct, weight=weight,
              classes=classes, missing=missing, threshold=threshold, pos_label=pos_label)
    if weights != "importance":
        kw["weights"] = weights
    return kw
