"""The summary of one confidence profile: every registry metric in one call.

:func:`summarize` is the engine behind ``df.calib.summary()`` and every grouped
call (a DataFrame is the one-group case); :func:`calreport.functional.summary` is
its functional mirror for arrays, with intervals.

The profile arrives validated (once per accessor call); the metrics that read the
rows sorted by the view's score share one sort through
:meth:`calreport.registry.MetricCache.sorted_view`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calreport.metrics import risk
from calreport.metrics.weighted import sample_sizes as sizes
from calreport.profile import ConfidenceProfile
from calreport.registry import REGISTRY, MetricCache, resolve_metrics
from calreport.settings import Settings

__all__ = ["SummaryResult", "summarize"]


@dataclass
class SummaryResult:
    """Point estimates of one profile, with the reason for every NaN.

    Attributes
    ----------
    values : dict
        ``n``, ``n_dropped``, ``n_clipped``, ``n_eff`` (see
        :data:`calreport.registry.COUNT_COLUMNS`), then metric -> float in the
        requested order.
    reasons : dict
        Metric -> why it is NaN (a single class, too few rows, no probabilities...).
    settings : Settings
    p_risk_method : str
        Null distribution actually used for P_risk (``"normal"`` or ``"monte_carlo"``).
    view : str
        Calibration view of the binned and local metrics.
    risk : RiskResult or None
        The full risk assessment (verdict band and its reason), when computed.
    """

    values: dict[str, float]
    reasons: dict[str, str] = field(default_factory=dict)
    settings: Settings = field(default_factory=Settings)
    p_risk_method: str = "normal"
    view: str = "top_label"
    risk: Any = None


def summarize(
    profile: ConfidenceProfile,
    *,
    metrics: Sequence[str] | str | None = None,
    settings: Settings | None = None,
    n_dropped: int = 0,
    with_risk: bool = False,
) -> SummaryResult:
    """Compute the summary metrics of one profile.

    A metric that this profile cannot define (a single class for AUC, too few rows
    for TCE_bpm, no probabilities for the Brier score, all weights zero...) is NaN
    and its reason is recorded in :attr:`SummaryResult.reasons`; nothing raises.

    Parameters
    ----------
    profile : ConfidenceProfile
    metrics : list of str, optional
        Names of :data:`calreport.registry.REGISTRY` (default: all).
    settings : Settings, optional
    n_dropped : int
        Rows dropped upstream for missing values (reported as ``n_dropped``).
    with_risk : bool
        Also compute the risk verdict (:attr:`SummaryResult.risk`).

    Returns
    -------
    SummaryResult

    Examples
    --------
    >>> p = ConfidenceProfile.from_arrays(conf=[0.9, 0.8, 0.6], correct=[1, 0, 1])
    >>> res = summarize(p, metrics=["accuracy", "csr"])
    >>> res.values["accuracy"], round(res.values["csr"], 4)
    (0.6666666666666666, 1.6667)
    """
    s = settings or Settings()
    names = resolve_metrics(metrics)
    n_clipped = _count_clipped(profile.conf, s.eps)
    w = profile.sample_weight
    n, n_eff = (sizes(None, None, profile.n, None) if w is None else
                sizes(w.sum(), np.dot(w, w), np.count_nonzero(w), profile.weights))
    values: dict[str, float] = {"n": float(n), "n_dropped": float(n_dropped),
                                "n_clipped": float(n_clipped), "n_eff": float(n_eff)}
    reasons: dict[str, str] = {}
    cache = MetricCache(metrics=frozenset(names))
    zero_weight = w is not None and not np.any(w > 0)
    for name in names:
        spec = REGISTRY[name]
        why = "all sample weights are zero" if zero_weight else spec.missing_need(profile)
        val = math.nan
        if why is None and profile.n == 0:
            why = "no rows"
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
                    why = spec.nan_reason
        values[name] = val
        if why is not None:
            reasons[name] = why
    method = s.p_risk_method
    rr = None
    if (with_risk or "p_risk" in names) and not zero_weight and profile.n > 0:
        rr = cache.risk(profile, s)
        method = rr.p_risk_method
    view = s.view or profile.default_view
    return SummaryResult(values, reasons, s, method, view, rr if with_risk else None)


def _count_clipped(conf: np.ndarray, eps: float) -> int:
    """Confidences that clipping to ``[eps, 1 - eps]`` changes (as
    :func:`calreport.metrics.risk.clip_confidence` counts them), without a clipped copy.
    """
    if conf.size == 0 or (conf.min() >= eps and conf.max() <= 1.0 - eps):
        return 0
    return int(np.count_nonzero((conf < eps) | (conf > 1.0 - eps)))

