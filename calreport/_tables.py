"""Structured results of one profile as pandas objects (the accessors stack them by group)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from calreport._calibration_tests import test_columns
from calreport.metrics import binned, calibration_index, local, risk, scoring, selective, weighted
from calreport.profile import ConfidenceProfile

__all__ = [
    "calibration_error_series",
    "calibration_tests_series",
    "classification_series",
    "confusion_frame",
    "lowess_frame",
    "need_labels",
    "reliability_frame",
    "risk_frame",
    "scores_series",
    "selective_frame",
]


def need_labels(prof: ConfidenceProfile) -> None:
    """Raise when the profile has only confidence and correctness."""
    if not prof.has_labels:
        raise ValueError(
            "This needs true and predicted labels; the profile has only confidence and "
            "correctness. Pass y=..., and proba=... or pred=... to df.calib(...)."
        )


def risk_frame(result: Any) -> pd.Series | pd.DataFrame:
    """The risk verdicts of a result: a Series (ungrouped) or groups x fields.

    ``attrs`` holds the band rule (:data:`calreport.metrics.risk.BAND_RULE`), the
    family facts (groups tested, adjustment) and, grouped, why a group has no verdict.
    """
    attrs = {"band_rule": risk.BAND_RULE, "family": dict(result.family)}
    if not result.grouped:
        r = result.groups[0].risk
        if r is None:
            raise ValueError(result.groups[0].reasons.get("p_risk", "no verdict"))
        out = pd.Series(r.to_dict(), name="risk", dtype=object)
        out.attrs.update(attrs)
        return out
    fields = list(risk.RiskResult.__dataclass_fields__)
    rows = [[getattr(g.risk, f) for f in fields] if g.risk is not None
            else [math.nan] * len(fields) for g in result.groups]
    out = pd.DataFrame(rows, index=result.index, columns=fields, dtype=object)
    attrs["reasons"] = {g.key: g.reasons.get("p_risk", "empty group")
                        for g in result.groups if g.risk is None}
    out.attrs.update(attrs)
    return out if result.as_index else out.reset_index()  # keys as columns, as pandas


def reliability_frame(prof: ConfidenceProfile, n_bins: int, strategy: str,
                      view: str | None, alpha: float) -> pd.DataFrame:
    """Reliability table, one row per bin."""
    score, outcome = prof.view(view)
    t = binned.reliability_table(score, outcome, n_bins=n_bins, strategy=strategy,
                                 sample_weight=prof.sample_weight, alpha=alpha)
    cols = ["lower", "upper", "count", "mean_score", "mean_outcome", "gap", "ci_low",
            "ci_high"]
    out = pd.DataFrame({c: np.asarray(getattr(t, c)) for c in cols if hasattr(t, c)})
    out.index.name = "bin"
    out.attrs.update(view=view or prof.default_view, strategy=getattr(t, "strategy", None),
                     n_bins=getattr(t, "n_bins", len(out)))
    return out


def selective_frame(prof: ConfidenceProfile, taus: Sequence[float] | None) -> pd.DataFrame:
    """Selective sweep over τ."""
    sweep = selective.selective_sweep(prof.conf, prof.correct, taus=taus,
                                      sample_weight=prof.sample_weight)
    return pd.DataFrame({k: np.asarray(val) for k, val in dict(sweep).items()}
                        ).set_index("tau")


def confusion_frame(prof: ConfidenceProfile) -> pd.DataFrame:
    """Classical and cw confusion counts per class."""
    need_labels(prof)
    k = prof.n_classes or 0
    cls = weighted.confusion_counts(prof.y_true, prof.y_pred, n_classes=k,
                                    sample_weight=prof.sample_weight)
    cw = weighted.cw_confusion(prof.y_true, prof.y_pred, prof.conf, n_classes=k,
                               sample_weight=prof.sample_weight)
    data = {}
    for prefix, obj in (("", cls), ("cw", cw)):
        for f in ("tp", "fp", "fn", "tn"):
            data[f"{prefix}{f.upper()}" if prefix else f.upper()] = np.asarray(getattr(obj, f))
    return pd.DataFrame(data, index=pd.Index(list(prof.classes), name="class"))


def lowess_frame(prof: ConfidenceProfile, view: str | None, kwargs: dict[str, Any]
                 ) -> pd.DataFrame:
    """LOWESS calibration curve on a grid."""
    score, outcome = prof.view(view)
    curve = local.lowess_curve(score, outcome, **kwargs)
    out = pd.DataFrame({"score": np.asarray(curve.x), "calibrated": np.asarray(curve.y)})
    out.index.name = "point"
    return out


def classification_series(prof: ConfidenceProfile, average: str) -> pd.Series:
    """Classical and cw classification metrics, indexed by (form, metric)."""
    need_labels(prof)
    k = prof.n_classes or 0
    out = {}
    for form, conf in (("classical", None), ("cw", prof.conf)):
        res = weighted.classification_metrics(prof.y_true, prof.y_pred, conf, n_classes=k,
                                              average=average,
                                              sample_weight=prof.sample_weight,
                                              class_names=prof.classes)
        for name in ("accuracy", "precision", "recall", "specificity", "f1",
                     "balanced_accuracy", "mcc"):
            out[(form, name)] = float(res[name])
    idx = pd.MultiIndex.from_tuples(list(out), names=["form", "metric"])
    return pd.Series(list(out.values()), index=idx, dtype=np.float64)


_COX = ("cox_intercept", "cox_intercept_ci_low", "cox_intercept_ci_high", "cox_slope",
        "cox_slope_ci_low", "cox_slope_ci_high", "calibration_in_the_large")


def calibration_tests_series(prof: ConfidenceProfile, view: str | None, n_groups: int
                             ) -> pd.Series:
    """Hosmer-Lemeshow, Spiegelhalter, Cox, then the cumulative-difference tests (ECCE
    Kolmogorov-Smirnov and Kuiper) and T-Cal; NaN where a test is undefined."""
    from calreport.metrics import clinical  # lazy: scipy.stats (about 1 s)

    score, outcome = prof.view(view)
    w = prof.sample_weight
    out: dict[str, float] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            hl = clinical.hosmer_lemeshow(score, outcome, n_groups=n_groups, sample_weight=w)
            out.update(hl_statistic=hl.statistic, hl_df=float(hl.df), hl_pvalue=hl.pvalue)
        except ValueError:
            out.update(hl_statistic=math.nan, hl_df=math.nan, hl_pvalue=math.nan)
        try:
            sp = clinical.spiegelhalter_z(score, outcome, sample_weight=w,
                                          weights=prof.weights)
            out.update(spiegelhalter_z=sp.z, spiegelhalter_pvalue=sp.pvalue)
        except ValueError:
            out.update(spiegelhalter_z=math.nan, spiegelhalter_pvalue=math.nan)
        try:
            cox = clinical.cox_calibration(score, outcome, sample_weight=w)
            out.update(zip(_COX, (cox.intercept, *cox.intercept_ci, cox.slope, *cox.slope_ci,
                                  cox.calibration_in_the_large), strict=True))
        except ValueError:
            out.update(dict.fromkeys(_COX, math.nan))
    out.update(test_columns(prof, view))
    return pd.Series(out, dtype=np.float64)


def calibration_error_series(prof: ConfidenceProfile, view: str | None) -> pd.Series:
    """ICI, E50, E90, Emax."""
    score, outcome = prof.view(view)
    r = calibration_index.calibration_error_summary(score, outcome)
    return pd.Series({"ici": r.ici, "e50": r.e50, "e90": r.e90, "emax": r.emax},
                     dtype=np.float64)


def scores_series(prof: ConfidenceProfile, view: str | None, n_bins: int, strategy: str
                  ) -> pd.Series:
    """Top-label Brier, sharpness, E-AURC and the binned Murphy decomposition."""
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
