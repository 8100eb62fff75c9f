"""The pandas accessors ``df.calib`` and ``df.groupby(...).calib``.

``import calreport`` registers both.  The accessor holds nothing but the frame
(and, after ``df.calib(...)``, the column roles): pandas 3 rebuilds it on every
attribute access, so it does no work until a metric is asked for.  Results come
back as pandas objects: a float for a scalar metric on a DataFrame, a Series
indexed by the group keys on a GroupBy; structured results as Series/DataFrames.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from calreport import _validate as v
from calreport._roles import Roles, build_profile, resolve_roles
from calreport.metrics import binned, risk, selective, weighted
from calreport.profile import ConfidenceProfile
from calreport.summary import (
    METRICS,
    SummaryResult,
    SummarySettings,
    resolve_metrics,
    summarize,
)

__all__ = ["CalibAccessor", "GroupByCalibAccessor", "UndefinedMetricWarning"]

_STATS = ("value", "ci_low", "ci_high")


class UndefinedMetricWarning(UserWarning):
    """A metric is NaN on this data (the message says why)."""


def _settings(**kw: Any) -> SummarySettings:
    seed = kw.pop("seed", None)
    return SummarySettings(seed=seed if isinstance(seed, (int, np.integer)) else None,
                           **{k: val for k, val in kw.items() if val is not None})


class _Base:
    """Shared: role keywords, settings, the scalar-metric methods."""

    _role_kw: dict[str, Any]

    # subclasses implement _scalar(name, settings) and _summary_frame(...)
    def _scalar(self, name: str, settings: SummarySettings) -> Any:  # pragma: no cover
        raise NotImplementedError

    # ------------------------------------------------------------- scalar metrics
    def accuracy(self) -> Any:
        """Accuracy (000_efda01fc1c8d5c44.txt, Definition 1)."""
        return self._scalar("accuracy", _settings())

    def cwa(self) -> Any:
        """Confidence-weighted accuracy (000_efda01fc1c8d5c44.txt, section 2.2, Def. 4)."""
        return self._scalar("cwa", _settings())

    def gain(self) -> Any:
        """cwA gain ``(cwA - Acc) / (1 - min(cwA, Acc))`` (000_efda01fc1c8d5c44.txt, 3.1)."""
        return self._scalar("gain", _settings())

    def csr(self, *, eps: float = 1e-8) -> Any:
        """Calibrated Size Ratio (000_efda01fc1c8d5c44.txt, section 2.1, Definition 2)."""
        return self._scalar("csr", _settings(eps=eps))

    def sigma_csr(self, *, eps: float = 1e-8) -> Any:
        """Standard deviation of CSR under calibration (000, appendix A.2, Prop. 6)."""
        return self._scalar("sigma_csr", _settings(eps=eps))

    def z_csr(self, *, eps: float = 1e-8) -> Any:
        """``z = (CSR - 1) / sigma_CSR`` (000_efda01fc1c8d5c44.txt, section 2.1)."""
        return self._scalar("z_csr", _settings(eps=eps))

    def p_risk(self, *, method: str = "normal", eps: float = 1e-8,
               seed: int | None = None) -> Any:
        """P_risk = Phi(z) when CSR > 1, else 0 (000_efda01fc1c8d5c44.txt, 2.1, Table 6)."""
        return self._scalar("p_risk", _settings(p_risk_method=method, eps=eps, seed=seed))

    def ece(self, *, n_bins: int = 15, strategy: str = "uniform",
            view: str | None = None) -> Any:
        """Expected calibration error (002_848142561181ac46.txt, sections 2-4)."""
        return self._scalar("ece", _settings(n_bins=n_bins, strategy=strategy, view=view))

    def mce(self, *, n_bins: int = 15, strategy: str = "uniform", view: str | None = None,
            min_count: int = 1) -> Any:
        """Maximum calibration error over bins with >= min_count rows (002, section 4)."""
        return self._scalar("mce", _settings(n_bins=n_bins, strategy=strategy, view=view,
                                             min_count=min_count))

    def signed_ece(self, *, n_bins: int = 15, strategy: str = "uniform",
                   view: str | None = None) -> Any:
        """Signed ECE, mean confidence minus accuracy per bin (positive = overconfident)."""
        return self._scalar("signed_ece", _settings(n_bins=n_bins, strategy=strategy,
                                                    view=view))

    def brier(self) -> Any:
        """Brier score, scikit-learn >= 1.7 conventions (002_848142561181ac46.txt, 5)."""
        return self._scalar("brier", _settings())

    def log_loss(self) -> Any:
        """Log loss, scikit-learn conventions (002_848142561181ac46.txt, section 5)."""
        return self._scalar("log_loss", _settings())

    def auc(self) -> Any:
        """Macro one-vs-rest AUC (000_efda01fc1c8d5c44.txt, section 2.2)."""
        return self._scalar("auc", _settings())

    def cwauc(self) -> Any:
        """Macro confidence-weighted AUC (000_efda01fc1c8d5c44.txt, Prop. 15)."""
        return self._scalar("cwauc", _settings())

    def delta_auc(self) -> Any:
        """cwAUC - AUC (000_efda01fc1c8d5c44.txt, Prop. 16)."""
        return self._scalar("delta_auc", _settings())

    def cwsa(self, *, tau: float = 0.5) -> Any:
        """CWSA at threshold tau (001_d2625f96c7f90dfa.txt, section 3)."""
        return self._scalar("cwsa", _settings(tau=tau))

    def cwsa_plus(self, *, tau: float = 0.5) -> Any:
        """CWSA+ at threshold tau (001_d2625f96c7f90dfa.txt, section 3)."""
        return self._scalar("cwsa_plus", _settings(tau=tau))

    def aurc(self) -> Any:
        """Area under the risk-coverage curve (001_d2625f96c7f90dfa.txt, section 3)."""
        return self._scalar("aurc", _settings())

    def lcs(self, *, view: str | None = None) -> Any:
        """Local Calibration Score (003_0bfdaf07cce6c3a5.txt)."""
        return self._scalar("lcs", _settings(view=view))

    def tce_bpm(self, *, view: str | None = None) -> Any:
        """TCE_bpm (004_590dfa3be64c29d9.txt, section 3)."""
        return self._scalar("tce_bpm", _settings(view=view))


# =============================================================================
# DataFrame accessor
# =============================================================================
@pd.api.extensions.register_dataframe_accessor("calib")
class CalibAccessor(_Base):
    """Calibration metrics of the prediction columns of a DataFrame.

    Call it to name the columns, or let it infer them from conventional names
    (``y_true``/``y``/``label``/``target``; ``proba`` or ``proba_<class>``;
    ``y_pred``/``pred``; ``confidence``/``conf``; ``correct``).

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
    ) -> CalibAccessor:
        """Name the column roles; returns a bound accessor with the same methods.

        Parameters
        ----------
        y : column, optional
            True labels.
        proba : column, list of columns or mapping class -> column, optional
            Binary positive-class probability, or one column per class.
        pred, conf, correct, weight : column, optional
            Predicted label, top-label confidence, 0/1 correctness, sample weights.
        classes : list, optional
            Class of each probability column (default: the suffix after ``proba_``).
        missing : {"raise", "drop"}
            What to do with rows that have a missing value in a used column.
        threshold : float
            Decision threshold of a binary probability column.
        pos_label : optional
            Positive class of a binary probability column.
        """
        bound = CalibAccessor(self._obj)
        bound._role_kw = dict(y=y, proba=proba, pred=pred, conf=conf, correct=correct,
                              weight=weight, classes=classes, missing=missing,
                              threshold=threshold, pos_label=pos_label)
        resolve_roles(self._obj, **bound._role_kw)  # fail early on unknown columns
        return bound

    # ---------------------------------------------------------------- internals
    def roles(self) -> Roles:
        """The resolved column roles."""
        return resolve_roles(self._obj, **self._role_kw)

    def _profile(self) -> tuple[ConfidenceProfile, int, np.ndarray]:
        return build_profile(self._obj, self.roles())

    def profile(self) -> ConfidenceProfile:
        """The validated :class:`~calreport.ConfidenceProfile` of this frame."""
        return self._profile()[0]

    def _scalar(self, name: str, settings: SummarySettings) -> float:
        prof, dropped, _ = self._profile()
        res = summarize(prof, metrics=[name], settings=settings, n_dropped=dropped)
        val = res.values[name]
        if name in res.reasons:
            warnings.warn(f"{name} is NaN: {res.reasons[name]}.", UndefinedMetricWarning,
                          stacklevel=3)
        return val

    # ---------------------------------------------------------------- summary
    def summary(
        self,
        metrics: Sequence[str] | str | None = None,
        *,
        ci: float | None = None,
        n_boot: int = 1000,
        ci_method: str = "percentile",
        resampling: str = "multinomial",
        seed: Any = None,
        n_bins: int = 15,
        strategy: str = "uniform",
        tau: float = 0.5,
        view: str | None = None,
        p_risk_method: str = "normal",
        progress: bool | None = None,
    ) -> pd.Series | pd.DataFrame:
        """All headline metrics: a Series (metric -> value), like ``df.mean()``.

        With ``ci`` a DataFrame (metric x [value, ci_low, ci_high]), like ``describe()``.

        Parameters
        ----------
        metrics : list of str, optional
            Subset of the metrics (default: all; see ``calreport.summary.METRICS``).
        ci : float, optional
            Confidence level of the intervals (e.g. 0.95).
        n_boot, ci_method, resampling, seed, progress
            Bootstrap replicates, ``"percentile"``/``"basic"``/``"analytic"``,
            ``"multinomial"``/``"poisson"`` resampling, seed and progress bar (see
            :mod:`calreport.bootstrap`).
        n_bins, strategy, tau, view, p_risk_method
            See :class:`calreport.summary.SummarySettings`.

        Returns
        -------
        Series or DataFrame
            ``attrs["reasons"]`` maps each NaN metric to the reason.
        """
        settings = _settings(n_bins=n_bins, strategy=strategy, tau=tau, view=view,
                             p_risk_method=p_risk_method, seed=seed)
        prof, dropped, _ = self._profile()
        res = summarize(prof, metrics=metrics, settings=settings, n_dropped=dropped)
        if ci is None:
            out = pd.Series(res.values, name="value", dtype=np.float64)
            out.index.name = "metric"
        else:
            from calreport.bootstrap import bootstrap_intervals

            iv = bootstrap_intervals(prof, res, n_boot=n_boot, ci=ci, method=ci_method,
                                     seed=seed, progress=progress, resampling=resampling)
            out = pd.DataFrame(
                [(val, *iv.get(k, (math.nan, math.nan))) for k, val in res.values.items()],
                index=pd.Index(list(res.values), name="metric"), columns=list(_STATS),
            )
            out.attrs["ci"] = {"level": ci, "method": ci_method, "n_boot": n_boot,
                               "resampling": resampling,
                               "seed": seed if isinstance(seed, (int, type(None))) else None}
        out.attrs["reasons"] = dict(res.reasons)
        out.attrs["settings"] = settings.to_dict()
        out.attrs["p_risk_method"] = res.p_risk_method
        out.attrs["view"] = res.view
        return out

    # ------------------------------------------------------ structured results
    def risk(self, *, eps: float = 1e-8, method: str = "normal",
             seed: int | None = None) -> pd.Series:
        """CSR, sigma_CSR, z, P_risk, its method, the risk band and clipping counts.

        See 000_efda01fc1c8d5c44.txt, section 2.1 and appendix A.2.
        """
        prof = self.profile()
        r = risk.risk_summary(prof.conf, prof.correct, sample_weight=prof.sample_weight,
                              eps=eps, method=method, seed=seed)
        return pd.Series(r.to_dict(), name="risk", dtype=object)

    def reliability(self, *, n_bins: int = 15, strategy: str = "uniform",
                    view: str | None = None, alpha: float = 0.05) -> pd.DataFrame:
        """Reliability table: one row per bin (002_848142561181ac46.txt, sections 2-3).

        ``attrs`` records the view, strategy and bin count.
        """
        prof = self.profile()
        score, outcome = prof.view(view)
        t = binned.reliability_table(score, outcome, n_bins=n_bins, strategy=strategy,
                                     sample_weight=prof.sample_weight, alpha=alpha)
        return _reliability_frame(t, view or prof.default_view)

    def selective(self, *, taus: Sequence[float] | None = None) -> pd.DataFrame:
        """Selective-prediction sweep over tau (001_d2625f96c7f90dfa.txt, section 3)."""
        prof = self.profile()
        sweep = selective.selective_sweep(prof.conf, prof.correct, taus=taus,
                                          sample_weight=prof.sample_weight)
        return pd.DataFrame({k: np.asarray(val) for k, val in dict(sweep).items()}).set_index(
            "tau")

    def cw_confusion(self) -> pd.DataFrame:
        """Classical and confidence-weighted confusion counts per class (000, Def. 5)."""
        prof = self.profile()
        _need_labels(prof)
        return _confusion_frame(prof)

    def calibration_curve(self, *, view: str | None = None, **kwargs: Any) -> pd.DataFrame:
        """LOWESS calibration curve on a grid (003_0bfdaf07cce6c3a5.txt)."""
        from calreport.metrics import local

        prof = self.profile()
        score, outcome = prof.view(view)
        curve = local.lowess_curve(score, outcome, **kwargs)
        return pd.DataFrame({"score": np.asarray(curve.x), "calibrated": np.asarray(curve.y)})

    def classification_metrics(self, *, average: str = "macro") -> pd.Series:
        """Classical and confidence-weighted precision, recall, F1, MCC... (000, Def. 5).

        Returns a Series indexed by (form, metric), form in {"classical", "cw"}; the
        cw form is built on the confidence-weighted confusion counts (Prop. 11-12).
        """
        return _classification_series(self.profile(), average)

    def calibration_tests(self, *, view: str | None = None, n_groups: int = 10
                          ) -> pd.Series:
        """Hosmer-Lemeshow, Spiegelhalter's Z and Cox intercept/slope with 95 % CIs."""
        return _calibration_tests_series(self.profile(), view, n_groups)

    def calibration_error(self, *, view: str | None = None) -> pd.Series:
        """ICI, E50, E90 and Emax from the LOWESS calibration curve (Austin & Steyerberg)."""
        return _calibration_error_series(self.profile(), view)

    def scores(self, *, view: str | None = None, n_bins: int = 15,
               strategy: str = "uniform") -> pd.Series:
        """Top-label Brier, sharpness, E-AURC and the binned Murphy decomposition.

        See 002_848142561181ac46.txt, section 5 (Brier, Murphy, sharpness) and
        001_d2625f96c7f90dfa.txt (E-AURC).
        """
        return _scores_series(self.profile(), view, n_bins, strategy)

    def profiles(self) -> dict[str, ConfidenceProfile]:
        """``{"all": profile}`` (same shape as the GroupBy method)."""
        return {"all": self.profile()}

    @property
    def plot(self) -> Any:
        """Figures: ``df.calib.plot.reliability_diagram()`` etc. (see calreport.plotting)."""
        from calreport.plotting import CalibPlots

        return CalibPlots(self.profiles)

    def report(self, **kwargs: Any) -> Any:
        """Model-card audit report (see :func:`calreport.report.report_from_accessor`)."""
        from calreport.report import report_from_accessor

        return report_from_accessor(self, **kwargs)


# ------------------------------------------------------------------ structured parts
def _classification_series(prof: ConfidenceProfile, average: str) -> pd.Series:
    _need_labels(prof)
    k = prof.n_classes or 0
    out = {}
    for form, conf in (("classical", None), ("cw", prof.conf)):
        res = weighted.classification_metrics(prof.y_true, prof.y_pred, conf, n_classes=k,
                                              average=average,
                                              sample_weight=prof.sample_weight)
        for name in ("accuracy", "precision", "recall", "specificity", "f1",
                     "balanced_accuracy", "mcc"):
            out[(form, name)] = float(res[name])
    idx = pd.MultiIndex.from_tuples(list(out), names=["form", "metric"])
    return pd.Series(list(out.values()), index=idx, dtype=np.float64)


def _calibration_tests_series(prof: ConfidenceProfile, view: str | None, n_groups: int
                              ) -> pd.Series:
    from calreport.metrics import clinical

    score, outcome = prof.view(view)
    w = prof.sample_weight
    out: dict[str, float] = {}
    try:
        hl = clinical.hosmer_lemeshow(score, outcome, n_groups=n_groups, sample_weight=w)
        out.update(hl_statistic=hl.statistic, hl_df=float(hl.df), hl_pvalue=hl.pvalue)
    except ValueError:
        out.update(hl_statistic=math.nan, hl_df=math.nan, hl_pvalue=math.nan)
    try:
        sp = clinical.spiegelhalter_z(score, outcome, sample_weight=w)
        out.update(spiegelhalter_z=sp.z, spiegelhalter_pvalue=sp.pvalue)
    except ValueError:
        out.update(spiegelhalter_z=math.nan, spiegelhalter_pvalue=math.nan)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            cox = clinical.cox_calibration(score, outcome, sample_weight=w)
        out.update(cox_intercept=cox.intercept, cox_intercept_ci_low=cox.intercept_ci[0],
                   cox_intercept_ci_high=cox.intercept_ci[1], cox_slope=cox.slope,
                   cox_slope_ci_low=cox.slope_ci[0], cox_slope_ci_high=cox.slope_ci[1],
                   calibration_in_the_large=cox.calibration_in_the_large)
    except ValueError:
        for k in ("cox_intercept", "cox_intercept_ci_low", "cox_intercept_ci_high",
                  "cox_slope", "cox_slope_ci_low", "cox_slope_ci_high",
                  "calibration_in_the_large"):
            out[k] = math.nan
    return pd.Series(out, dtype=np.float64)


def _calibration_error_series(prof: ConfidenceProfile, view: str | None) -> pd.Series:
    from calreport.metrics import local

    score, outcome = prof.view(view)
    r = local.calibration_error_summary(score, outcome)
    return pd.Series({"ici": r.ici, "e50": r.e50, "e90": r.e90, "emax": r.emax},
                     dtype=np.float64)


def _scores_series(prof: ConfidenceProfile, view: str | None, n_bins: int, strategy: str
                   ) -> pd.Series:
    from calreport.metrics import scoring

    w = prof.sample_weight
    score, outcome = prof.view(view)
    murphy = scoring.murphy_decomposition(score, outcome, n_bins=n_bins, strategy=strategy,
                                          sample_weight=w)
    out = {
        "top_label_brier": scoring.top_label_brier(prof.conf, prof.correct, sample_weight=w),
        "sharpness": scoring.sharpness(prof.conf, sample_weight=w),
        "e_aurc": selective.e_aurc(prof.conf, prof.correct, sample_weight=w),
        "murphy_reliability": murphy["reliability"],
        "murphy_resolution": murphy["resolution"],
        "murphy_uncertainty": murphy["uncertainty"],
        "murphy_within_bin": murphy["within_bin"],
    }
    return pd.Series(out, dtype=np.float64)


def _need_labels(prof: ConfidenceProfile) -> None:
    if not prof.has_labels:
        raise ValueError(
            "This needs true and predicted labels; the profile has only confidence and "
            "correctness. Pass y=..., and proba=... or pred=... to df.calib(...)."
        )


def _reliability_frame(t: Any, view: str) -> pd.DataFrame:
    cols = ["lower", "upper", "count", "mean_score", "mean_outcome", "gap", "ci_low",
            "ci_high"]
    data = {c: np.asarray(getattr(t, c)) for c in cols if hasattr(t, c)}
    out = pd.DataFrame(data)
    out.index.name = "bin"
    out.attrs.update(view=view, strategy=getattr(t, "strategy", None),
                     n_bins=getattr(t, "n_bins", len(out)))
    return out


def _confusion_frame(prof: ConfidenceProfile) -> pd.DataFrame:
    k = prof.n_classes or 0
    cls = weighted.confusion_counts(prof.y_true, prof.y_pred, n_classes=k,
                                    sample_weight=prof.sample_weight)
    cw = weighted.cw_confusion(prof.y_true, prof.y_pred, prof.conf, n_classes=k,
                               sample_weight=prof.sample_weight)
    data = {}
    for prefix, obj in (("", cls), ("cw", cw)):
        for f in ("tp", "fp", "fn", "tn"):
            data[f"{prefix}{f.upper()}" if prefix else f.upper()] = np.asarray(getattr(obj, f))
    out = pd.DataFrame(data, index=pd.Index(list(prof.classes), name="class"))
    return out


# =============================================================================
# GroupBy accessor
# =============================================================================
def _group_key_columns(gb: Any) -> list[Hashable]:
    keys = gb.keys
    if keys is None:
        return []
    keys = keys if isinstance(keys, list) else [keys]
    cols = gb.obj.columns
    out = []
    for k in keys:
        if isinstance(k, pd.Series):
            if k.name in cols and k is cols:
                out.append(k.name)
        elif isinstance(k, Hashable) and not callable(k) and k in cols:
            out.append(k)
    return out


class GroupByCalibAccessor(_Base):
    """``df.groupby(keys).calib``: every metric per group, indexed by the group keys.

    Group semantics follow pandas (``sort``, ``dropna``, ``observed``, several keys).
    A group that cannot define a metric (empty, too small, a single class) gets NaN
    and the reason in ``result.attrs["reasons"]``; it never raises.
    """

    def __init__(self, groupby: Any, role_kw: dict[str, Any] | None = None) -> None:
        self._gb = groupby
        self._role_kw = role_kw or {}

    def __call__(self, y: Hashable | None = None, proba: Any = None,
                 pred: Hashable | None = None, conf: Hashable | None = None,
                 correct: Hashable | None = None, weight: Hashable | None = None, *,
                 classes: Sequence[Any] | None = None, missing: str = "raise",
                 threshold: float = 0.5, pos_label: Any = None) -> GroupByCalibAccessor:
        """Name the column roles (same arguments as ``df.calib(...)``)."""
        kw = dict(y=y, proba=proba, pred=pred, conf=conf, correct=correct, weight=weight,
                  classes=classes, missing=missing, threshold=threshold, pos_label=pos_label)
        bound = GroupByCalibAccessor(self._gb, kw)
        bound.roles()
        return bound

    def roles(self) -> Roles:
        """Column roles resolved on the whole frame, group keys excluded."""
        return resolve_roles(self._gb.obj, exclude=_group_key_columns(self._gb),
                             **self._role_kw)

    def _frame_roles(self) -> Roles:
        """Roles with the classes fixed from the whole frame, so groups agree."""
        roles = self.roles()
        if roles.classes is None:
            obj = self._gb.obj
            cols = [c for c in (roles.y, roles.pred) if c is not None]
            if cols:
                cls = v.infer_classes(*[obj[c] for c in cols])
                if roles.proba and len(roles.proba) == 1 and roles.pos_label is not None:
                    return roles  # the profile puts pos_label second
                if not roles.proba or len(cls) == 2:
                    roles = _replace(roles, classes=tuple(cls.tolist()))
        return roles

    def _groups(self) -> tuple[pd.Index, list[tuple[Any, pd.DataFrame | None]]]:
        index = self._gb.size().index
        try:
            subs = [sub for _, sub in self._gb]
        except ValueError:
            # pandas 2.2 cannot iterate groups whose key is NaN (dropna=False); number
            # the rows by group instead (same order as size() for such keys)
            subs = self._split_by_ngroup(len(index))
        if len(subs) != len(index):  # pragma: no cover - defensive
            raise RuntimeError("pandas returned groups inconsistent with size()")
        return index, [(key, sub if len(sub) else None) for key, sub in
                       zip(index, subs, strict=True)]

    def _split_by_ngroup(self, n_groups: int) -> list[pd.DataFrame]:
        obj = self._gb.obj
        codes = self._gb.ngroup().to_numpy(dtype=np.float64, na_value=np.nan)
        ok = ~np.isnan(codes)
        pos = np.flatnonzero(ok)
        order = pos[np.argsort(codes[ok], kind="stable")]
        bounds = np.searchsorted(codes[order], np.arange(n_groups + 1))
        return [obj.iloc[order[bounds[g]:bounds[g + 1]]] for g in range(n_groups)]

    def _profiles(self) -> tuple[pd.Index, list[tuple[Any, ConfidenceProfile | None, int,
                                                       str | None, pd.Index | None]]]:
        roles = self._frame_roles()
        index, groups = self._groups()
        out = []
        for key, sub in groups:
            if sub is None:
                out.append((key, None, 0, "empty group", None))
                continue
            try:
                prof, dropped, keep = build_profile(sub, roles)
            except ValueError as exc:
                if roles.missing == "drop" and "empty" in str(exc):
                    out.append((key, None, len(sub), "every row has a missing value", None))
                    continue
                raise
            out.append((key, prof, dropped, None, sub.index[keep]))
        return index, out

    def profiles(self) -> dict[Any, ConfidenceProfile]:
        """Group key -> :class:`~calreport.ConfidenceProfile` (non-empty groups)."""
        _, items = self._profiles()
        return {key: prof for key, prof, *_ in items if prof is not None}

    def _scalar(self, name: str, settings: SummarySettings) -> pd.Series:
        frame = self.summary([name], **_settings_kwargs(settings))
        out = frame[name].rename(name)
        out.attrs["reasons"] = {k[0]: why for k, why in frame.attrs["reasons"].items()
                                if k[1] == name}
        return out

    def summary(
        self,
        metrics: Sequence[str] | str | None = None,
        *,
        ci: float | None = None,
        n_boot: int = 1000,
        ci_method: str = "percentile",
        resampling: str = "multinomial",
        seed: Any = None,
        n_bins: int = 15,
        strategy: str = "uniform",
        tau: float = 0.5,
        view: str | None = None,
        p_risk_method: str = "normal",
        progress: bool | None = None,
    ) -> pd.DataFrame:
        """Groups x metrics; with ``ci`` columns (metric, [value, ci_low, ci_high]).

        Each group is resampled within itself, from its own child seed of ``seed``.
        ``attrs["reasons"]`` maps (group, metric) to why a value is NaN.
        """
        names = resolve_metrics(metrics)
        settings = _settings(n_bins=n_bins, strategy=strategy, tau=tau, view=view,
                             p_risk_method=p_risk_method, seed=seed)
        index, items = self._profiles()
        results: dict[Any, tuple[ConfidenceProfile | None, SummaryResult]] = {}
        reasons: dict[tuple[Any, str], str] = {}
        columns = ["n", "n_dropped", "n_clipped", *names]
        for key, prof, dropped, why, _ in items:
            if prof is None:
                vals = dict.fromkeys(columns, math.nan)
                vals.update(n=0.0, n_dropped=float(dropped), n_clipped=0.0)
                res = SummaryResult(vals, dict.fromkeys(names, why or "empty"), settings)
            else:
                res = summarize(prof, metrics=names, settings=settings, n_dropped=dropped)
            results[key] = (prof, res)
            for m, r in res.reasons.items():
                reasons[(key, m)] = r
        values = pd.DataFrame([results[k][1].values for k, *_ in items], index=index,
                              columns=columns, dtype=np.float64)
        if ci is not None:
            from calreport.bootstrap import grouped_intervals

            todo = {k: (p, r) for k, (p, r) in results.items()}
            iv = grouped_intervals(todo, n_boot=n_boot, ci=ci, method=ci_method, seed=seed,
                                   progress=progress, resampling=resampling)
            parts = {}
            for m in columns:
                lo = [iv[k].get(m, (math.nan, math.nan))[0] for k, *_ in items]
                hi = [iv[k].get(m, (math.nan, math.nan))[1] for k, *_ in items]
                parts[(m, "value")] = values[m].to_numpy()
                parts[(m, "ci_low")] = np.asarray(lo, dtype=np.float64)
                parts[(m, "ci_high")] = np.asarray(hi, dtype=np.float64)
            out = pd.DataFrame(parts, index=index)
            out.columns = pd.MultiIndex.from_tuples(out.columns, names=["metric", "stat"])
            out.attrs["ci"] = {"level": ci, "method": ci_method, "n_boot": n_boot,
                               "resampling": resampling,
                               "seed": seed if isinstance(seed, (int, type(None))) else None}
        else:
            out = values
            out.columns.name = "metric"
        out.attrs["reasons"] = reasons
        out.attrs["settings"] = settings.to_dict()
        out.attrs["p_risk_method"] = {k: r.p_risk_method for k, (_, r) in results.items()}
        return out

    def risk(self, *, eps: float = 1e-8, method: str = "normal",
             seed: int | None = None) -> pd.DataFrame:
        """Risk table per group (CSR, sigma, z, P_risk, method, band, clipping)."""
        index, items = self._profiles()
        rows = []
        for _, prof, _, _, _ in items:
            if prof is None:
                rows.append({})
                continue
            rows.append(risk.risk_summary(prof.conf, prof.correct,
                                          sample_weight=prof.sample_weight, eps=eps,
                                          method=method, seed=seed).to_dict())
        return pd.DataFrame(rows, index=index)

    def reliability(self, *, n_bins: int = 15, strategy: str = "uniform",
                    view: str | None = None, alpha: float = 0.05) -> pd.DataFrame:
        """Reliability tables of all groups, stacked (group keys, bin) x columns."""
        index, items = self._profiles()
        frames, keys = [], []
        for key, prof, *_ in items:
            if prof is None:
                continue
            score, outcome = prof.view(view)
            t = binned.reliability_table(score, outcome, n_bins=n_bins, strategy=strategy,
                                         sample_weight=prof.sample_weight, alpha=alpha)
            frames.append(_reliability_frame(t, view or prof.default_view))
            keys.append(key)
        return _stack(frames, keys, index)

    def selective(self, *, taus: Sequence[float] | None = None) -> pd.DataFrame:
        """Selective sweeps of all groups, stacked (group keys, tau) x columns."""
        index, items = self._profiles()
        frames, keys = [], []
        for key, prof, *_ in items:
            if prof is None:
                continue
            sweep = selective.selective_sweep(prof.conf, prof.correct, taus=taus,
                                              sample_weight=prof.sample_weight)
            frames.append(pd.DataFrame({k: np.asarray(val) for k, val in dict(sweep).items()}
                                       ).set_index("tau"))
            keys.append(key)
        return _stack(frames, keys, index)

    def cw_confusion(self) -> pd.DataFrame:
        """Confusion counts of all groups, stacked (group keys, class) x columns."""
        index, items = self._profiles()
        frames, keys = [], []
        for key, prof, *_ in items:
            if prof is None:
                continue
            _need_labels(prof)
            frames.append(_confusion_frame(prof))
            keys.append(key)
        return _stack(frames, keys, index)

    def _per_group(self, fn: Any) -> pd.DataFrame:
        """Apply ``fn(profile) -> Series`` to every non-empty group: groups x fields."""
        index, items = self._profiles()
        rows = [fn(prof) if prof is not None else None for _, prof, *_ in items]
        template = next((r for r in rows if r is not None), None)
        if template is None:
            return pd.DataFrame(index=index)
        data = [r.to_numpy() if r is not None else np.full(len(template), np.nan)
                for r in rows]
        return pd.DataFrame(data, index=index, columns=template.index)

    def classification_metrics(self, *, average: str = "macro") -> pd.DataFrame:
        """Classical and cw classification metrics per group: groups x (form, metric)."""
        return self._per_group(lambda p: _classification_series(p, average))

    def calibration_tests(self, *, view: str | None = None, n_groups: int = 10
                          ) -> pd.DataFrame:
        """Hosmer-Lemeshow, Spiegelhalter and Cox per group."""
        return self._per_group(lambda p: _calibration_tests_series(p, view, n_groups))

    def calibration_error(self, *, view: str | None = None) -> pd.DataFrame:
        """ICI, E50, E90, Emax per group."""
        return self._per_group(lambda p: _calibration_error_series(p, view))

    def scores(self, *, view: str | None = None, n_bins: int = 15,
               strategy: str = "uniform") -> pd.DataFrame:
        """Top-label Brier, sharpness, E-AURC and the Murphy decomposition per group."""
        return self._per_group(lambda p: _scores_series(p, view, n_bins, strategy))

    @property
    def plot(self) -> Any:
        """Figures with one series per group (see calreport.plotting)."""
        from calreport.plotting import CalibPlots

        return CalibPlots(self.profiles)

    def report(self, **kwargs: Any) -> Any:
        """Model-card audit report with a verdict per group."""
        from calreport.report import report_from_accessor

        return report_from_accessor(self, **kwargs)


def _settings_kwargs(s: SummarySettings) -> dict[str, Any]:
    return dict(n_bins=s.n_bins, strategy=s.strategy, tau=s.tau, view=s.view,
                p_risk_method=s.p_risk_method, seed=s.seed)


def _replace(roles: Roles, **kw: Any) -> Roles:
    from dataclasses import replace

    return replace(roles, **kw)


def _stack(frames: list[pd.DataFrame], keys: list[Any], index: pd.Index) -> pd.DataFrame:
    if not frames:
        return pd.DataFrame()
    names = list(index.names)
    inner = frames[0].index.name
    out = pd.concat(frames, keys=keys, names=[*names, inner])
    return out


class _GroupByDescriptor:
    """Attach ``.calib`` to ``DataFrameGroupBy`` (pandas has no GroupBy accessor API)."""

    def __get__(self, gb: Any, owner: type | None = None) -> Any:
        if gb is None:
            return GroupByCalibAccessor
        return GroupByCalibAccessor(gb)


def _register_groupby() -> None:
    try:
        from pandas.api.typing import DataFrameGroupBy
    except ImportError:  # pragma: no cover - pandas < 2.1
        from pandas.core.groupby import DataFrameGroupBy
    DataFrameGroupBy.calib = _GroupByDescriptor()  # type: ignore[attr-defined]


_register_groupby()

# names exported for the summary's metric list (documentation)
SUMMARY_METRICS = tuple(METRICS)
