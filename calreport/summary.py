"""The summary: every headline metric of a confidence profile in one call.

This is the functional mirror of ``df.calib.summary()``: it takes a
:class:`~calreport.profile.ConfidenceProfile` (or the arrays to build one) and
returns plain Python / NumPy results, so type checkers, Dask and non-pandas
users have the same path as the accessor.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calreport import _validate as v
from calreport.metrics import binned, ranking, risk, scoring, selective, weighted
from calreport.profile import ConfidenceProfile

__all__ = [
    "METRICS",
    "MetricSpec",
    "SummaryResult",
    "SummarySettings",
    "summarize",
    "summary",
]


@dataclass(frozen=True)
class SummarySettings:
    """Options shared by the summary, the bootstrap and the report.

    Attributes
    ----------
    n_bins : int
        Number of bins of the binned metrics (ECE, MCE).
    strategy : {"uniform", "quantile"}
        Bin strategy (002_848142561181ac46.txt, sections 2-4).
    tau : float
        Selective threshold of CWSA / CWSA+ (001_d2625f96c7f90dfa.txt, section 3).
    view : {"top_label", "positive"} or None
        Calibration view of the binned and local metrics; None picks the
        profile's default (positive class for binary input with a score column).
    p_risk_method : {"normal", "monte_carlo", "auto", ...}
        Approximation of P_risk (000_efda01fc1c8d5c44.txt, section 2.1).
    eps : float
        Clipping of confidences for CSR.
    min_count : int
        Minimum rows of a bin for MCE.
    """

    n_bins: int = 15
    strategy: str = "uniform"
    tau: float = 0.5
    view: str | None = None
    p_risk_method: str = "normal"
    eps: float = 1e-8
    min_count: int = 1
    seed: int | None = None

    def __post_init__(self) -> None:
        v.check_n_bins(self.n_bins)
        v.check_option(self.strategy, "strategy", ("uniform", "quantile"))
        v.check_tau(self.tau)
        if self.view is not None:
            v.check_option(self.view, "view", ("top_label", "positive"))

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form (for reports and JSON)."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class MetricSpec:
    """One summary metric: its name, what it needs and how to compute it."""

    name: str
    label: str
    needs: frozenset[str]
    compute: Callable[[ConfidenceProfile, SummarySettings, dict], float]
    higher_is_better: bool | None
    source: str


def _view(p: ConfidenceProfile, s: SummarySettings) -> tuple[np.ndarray, np.ndarray]:
    return p.view(s.view)


def _risk(p: ConfidenceProfile, s: SummarySettings, cache: dict | None = None
          ) -> risk.RiskResult:
    """Risk result, computed once per summary (the Monte Carlo P_risk is not cheap)."""
    if cache is not None and "risk" in cache:
        return cache["risk"]
    out = risk.risk_summary(p.conf, p.correct, sample_weight=p.sample_weight, eps=s.eps,
                            method=s.p_risk_method, seed=s.seed)
    if cache is not None:
        cache["risk"] = out
    return out


def _auc_pair(p: ConfidenceProfile, cache: dict | None = None) -> tuple[float, float]:
    if cache is not None and "auc" in cache:
        return cache["auc"]
    per_auc, per_cw = ranking.auc_cwauc(p.y_true, p.proba, p.conf,
                                        sample_weight=p.sample_weight)
    out = (_nanmean(per_auc), _nanmean(per_cw))
    if cache is not None:
        cache["auc"] = out
    return out


def _nanmean(x: np.ndarray) -> float:
    x = np.asarray(x, dtype=np.float64)
    ok = ~np.isnan(x)
    return float(x[ok].mean()) if ok.any() else math.nan


def _binary_scores(p: ConfidenceProfile) -> tuple[np.ndarray, np.ndarray]:
    return (p.score if p.score is not None else p.proba), p.y_true


_PAPER_000 = "000_efda01fc1c8d5c44.txt"
_PAPER_001 = "001_d2625f96c7f90dfa.txt"
_PAPER_002 = "002_848142561181ac46.txt"
_PAPER_003 = "003_0bfdaf07cce6c3a5.txt"
_PAPER_004 = "004_590dfa3be64c29d9.txt"


def _lcs(p: ConfidenceProfile, s: SummarySettings, cache: dict) -> float:
    from calreport.metrics import local

    score, outcome = _view(p, s)
    return float(local.lcs(score, outcome))


def _tce_bpm(p: ConfidenceProfile, s: SummarySettings, cache: dict) -> float:
    from calreport.metrics import bpm

    score, outcome = _view(p, s)
    return float(bpm.tce_bpm(score, outcome))


def _specs() -> dict[str, MetricSpec]:
    w = lambda p: p.sample_weight  # noqa: E731
    specs = [
        MetricSpec("accuracy", "Accuracy", frozenset(), lambda p, s, c: weighted.accuracy(
            p.correct, sample_weight=w(p)), True, f"{_PAPER_000} Def. 1"),
        MetricSpec("cwa", "Confidence-weighted accuracy", frozenset(),
                   lambda p, s, c: weighted.cwa(p.conf, p.correct, sample_weight=w(p)), True,
                   f"{_PAPER_000} section 2.2, Def. 4"),
        MetricSpec("gain", "cwA gain", frozenset(),
                   lambda p, s, c: weighted.gain(p.conf, p.correct, sample_weight=w(p)), True,
                   f"{_PAPER_000} section 3.1"),
        MetricSpec("csr", "Calibrated Size Ratio", frozenset(),
                   lambda p, s, c: _risk(p, s, c).csr, None, f"{_PAPER_000} section 2.1, Def. 2"),
        MetricSpec("sigma_csr", "sigma_CSR", frozenset(),
                   lambda p, s, c: _risk(p, s, c).sigma_csr, None,
                   f"{_PAPER_000} appendix A.2, Prop. 6"),
        MetricSpec("z_csr", "z = (CSR - 1) / sigma_CSR", frozenset(),
                   lambda p, s, c: _risk(p, s, c).z, False, f"{_PAPER_000} section 2.1"),
        MetricSpec("p_risk", "P_risk", frozenset(), lambda p, s, c: _risk(p, s, c).p_risk, False,
                   f"{_PAPER_000} section 2.1, Table 6"),
        MetricSpec("ece", "ECE", frozenset(), lambda p, s, c: binned.ece(
            *_view(p, s), n_bins=s.n_bins, strategy=s.strategy, sample_weight=w(p)), False,
            f"{_PAPER_002} sections 2-4"),
        MetricSpec("mce", "MCE", frozenset(), lambda p, s, c: binned.mce(
            *_view(p, s), n_bins=s.n_bins, strategy=s.strategy, min_count=s.min_count,
            sample_weight=w(p)), False, f"{_PAPER_002} section 4"),
        MetricSpec("signed_ece", "Signed ECE (conf - acc)", frozenset(),
                   lambda p, s, c: binned.signed_ece(*_view(p, s), n_bins=s.n_bins,
                                                  strategy=s.strategy, sample_weight=w(p)),
                   None, f"{_PAPER_002} section 4"),
        MetricSpec("brier", "Brier score", frozenset({"proba"}),
                   lambda p, s, c: scoring.brier_score(*_brier_args(p), sample_weight=w(p)), False,
                   f"{_PAPER_002} section 5"),
        MetricSpec("log_loss", "Log loss", frozenset({"proba"}),
                   lambda p, s, c: scoring.log_loss(*_brier_args(p), sample_weight=w(p)), False,
                   f"{_PAPER_002} section 5"),
        MetricSpec("auc", "AUC (macro one-vs-rest)", frozenset({"proba"}),
                   lambda p, s, c: _auc_pair(p, c)[0], True, f"{_PAPER_000} section 2.2"),
        MetricSpec("cwauc", "cwAUC (macro)", frozenset({"proba"}),
                   lambda p, s, c: _auc_pair(p, c)[1], True, f"{_PAPER_000} Prop. 15"),
        MetricSpec("delta_auc", "cwAUC - AUC", frozenset({"proba"}),
                   lambda p, s, c: _auc_pair(p, c)[1] - _auc_pair(p, c)[0], True,
                   f"{_PAPER_000} Prop. 16"),
        MetricSpec("cwsa", "CWSA", frozenset(), lambda p, s, c: selective.cwsa(
            p.conf, p.correct, tau=s.tau, sample_weight=w(p)), True,
            f"{_PAPER_001} section 3"),
        MetricSpec("cwsa_plus", "CWSA+", frozenset(), lambda p, s, c: selective.cwsa_plus(
            p.conf, p.correct, tau=s.tau, sample_weight=w(p)), True,
            f"{_PAPER_001} section 3"),
        MetricSpec("aurc", "AURC", frozenset(), lambda p, s, c: selective.aurc(
            p.conf, p.correct, sample_weight=w(p)), False, f"{_PAPER_001} section 3"),
        MetricSpec("lcs", "Local Calibration Score", frozenset({"unweighted"}), _lcs, False,
                   f"{_PAPER_003}"),
        MetricSpec("tce_bpm", "TCE_bpm", frozenset({"unweighted"}), _tce_bpm, False,
                   f"{_PAPER_004} section 3"),
    ]
    return {m.name: m for m in specs}


def _brier_args(p: ConfidenceProfile) -> tuple[np.ndarray, np.ndarray]:
    if p.score is not None:
        return (p.y_true == 1).astype(np.float64), p.score
    return p.y_true, p.proba


METRICS: dict[str, MetricSpec] = _specs()

#: Counts reported before the metrics in every summary.
COUNT_COLUMNS = ("n", "n_dropped", "n_clipped")


@dataclass
class SummaryResult:
    """Point estimates of a summary, with the reason for every NaN.

    Attributes
    ----------
    values : dict
        Metric name -> float, in the order of the requested metrics, preceded by
        the counts ``n``, ``n_dropped``, ``n_clipped``.
    reasons : dict
        Metric name -> why it is NaN (single class, too few rows, no probabilities...).
    settings : SummarySettings
    p_risk_method : str
        The approximation actually used for P_risk.
    """

    values: dict[str, float]
    reasons: dict[str, str] = field(default_factory=dict)
    settings: SummarySettings = field(default_factory=SummarySettings)
    p_risk_method: str = "normal"
    view: str = "top_label"


def resolve_metrics(metrics: Sequence[str] | str | None) -> list[str]:
    """Validate a metric selection (None = all)."""
    if metrics is None:
        return list(METRICS)
    if isinstance(metrics, str):
        metrics = [metrics]
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise ValueError(
            f"Unknown metric(s) {unknown}. Available: {', '.join(METRICS)}."
        )
    return list(metrics)


def _missing_need(p: ConfidenceProfile, spec: MetricSpec) -> str | None:
    if "proba" in spec.needs and (p.proba is None or p.y_true is None):
        return "needs class probabilities and true labels"
    if "unweighted" in spec.needs and p.sample_weight is not None:
        return "not defined with sample weights"
    return None


def summarize(
    profile: ConfidenceProfile,
    *,
    metrics: Sequence[str] | str | None = None,
    settings: SummarySettings | None = None,
    n_dropped: int = 0,
) -> SummaryResult:
    """Compute the summary metrics of one profile.

    Each metric that cannot be defined on this profile (a single class for AUC, too
    few rows for TCE_bpm, no probabilities for the Brier score...) is NaN and its
    reason is recorded in :attr:`SummaryResult.reasons`; nothing raises for that.

    Parameters
    ----------
    profile : ConfidenceProfile
    metrics : list of str, optional
        Subset of :data:`METRICS` (default: all).
    settings : SummarySettings, optional
    n_dropped : int
        Rows dropped upstream for missing values (reported as ``n_dropped``).

    Returns
    -------
    SummaryResult
    """
    s = settings or SummarySettings()
    names = resolve_metrics(metrics)
    _, n_clipped = risk.clip_confidence(profile.conf, eps=s.eps, warn=False)
    n_eff = float(profile.n if profile.sample_weight is None
                  else np.count_nonzero(profile.sample_weight))
    values: dict[str, float] = {"n": n_eff, "n_dropped": float(n_dropped),
                                "n_clipped": float(n_clipped)}
    reasons: dict[str, str] = {}
    method = s.p_risk_method
    cache: dict[str, Any] = {}
    for name in names:
        spec = METRICS[name]
        why = _missing_need(profile, spec)
        if why is None:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    warnings.simplefilter("ignore", risk.ClippedConfidenceWarning)
                    val = float(spec.compute(profile, s, cache))
            except ValueError as exc:
                val, why = math.nan, str(exc)
            else:
                if math.isnan(val):
                    why = _nan_reason(profile, name)
        else:
            val = math.nan
        values[name] = val
        if why is not None:
            reasons[name] = why
    if "p_risk" in names and not math.isnan(values.get("p_risk", math.nan)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", risk.ClippedConfidenceWarning)
            method = _risk(profile, s, cache).p_risk_method
    view = s.view or profile.default_view
    return SummaryResult(values, reasons, s, method, view)


def _nan_reason(p: ConfidenceProfile, name: str) -> str:
    if name in ("auc", "cwauc", "delta_auc"):
        return "needs both positives and negatives of at least one class"
    if name in ("cwsa", "cwsa_plus"):
        return "no prediction has confidence >= tau"
    if name == "gain":
        return "undefined when accuracy or cwA equals 1"
    if name in ("z_csr", "p_risk"):
        return "sigma_CSR is 0 (all confidences are 0)"
    if name == "mce":
        return "no bin holds min_count rows"
    return "undefined for this profile"


def summary(
    y_true: Any = None,
    proba: Any = None,
    *,
    y_pred: Any = None,
    conf: Any = None,
    correct: Any = None,
    classes: Any = None,
    sample_weight: Any = None,
    threshold: float = 0.5,
    metrics: Sequence[str] | str | None = None,
    n_bins: int = 15,
    strategy: str = "uniform",
    tau: float = 0.5,
    view: str | None = None,
    p_risk_method: str = "normal",
    ci: float | None = None,
    n_boot: int = 1000,
    ci_method: str = "percentile",
    resampling: str = "multinomial",
    seed: int | np.random.Generator | None = None,
) -> dict[str, Any]:
    """Summary metrics of arrays of predictions (functional mirror of ``df.calib.summary``).

    Parameters
    ----------
    y_true, proba, y_pred, conf, correct, classes, sample_weight, threshold
        As in :meth:`calreport.ConfidenceProfile.from_arrays`.
    metrics : list of str, optional
        Which metrics (default: all of :data:`METRICS`).
    n_bins, strategy, tau, view, p_risk_method
        See :class:`SummarySettings`.
    ci : float, optional
        Confidence level of bootstrap intervals (e.g. 0.95).  None: point estimates.
    n_boot, ci_method, resampling, seed
        Bootstrap replicates, interval method, ``"multinomial"``/``"poisson"``
        resampling and seed (see :mod:`calreport.bootstrap`).

    Returns
    -------
    dict
        Metric -> float without ``ci``; metric -> ``(value, ci_low, ci_high)`` with it.

    Examples
    --------
    >>> out = summary([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.3], metrics=["accuracy", "csr"])
    >>> out["accuracy"], round(out["csr"], 4)
    (1.0, 0.0)
    """
    profile = ConfidenceProfile.from_arrays(
        y_true, proba, y_pred=y_pred, conf=conf, correct=correct, classes=classes,
        sample_weight=sample_weight, threshold=threshold,
    )
    settings = SummarySettings(n_bins=n_bins, strategy=strategy, tau=tau, view=view,
                               p_risk_method=p_risk_method,
                               seed=seed if isinstance(seed, (int, np.integer)) else None)
    res = summarize(profile, metrics=metrics, settings=settings)
    if ci is None:
        return dict(res.values)
    from calreport.bootstrap import bootstrap_intervals

    iv = bootstrap_intervals(profile, res, n_boot=n_boot, ci=ci, method=ci_method, seed=seed,
                             resampling=resampling)
    return {k: (val, *iv.get(k, (math.nan, math.nan))) for k, val in res.values.items()}
