"""The functional API: every summary metric of arrays, with intervals.

:func:`summary` mirrors ``df.calib.summary()`` for NumPy arrays, so type checkers,
Dask and non-pandas users have the same path: :func:`calreport.summary.summarize`
for the values and :func:`calreport.bootstrap.bootstrap_intervals` for ``ci``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from calreport.bootstrap import bootstrap_intervals
from calreport.profile import ConfidenceProfile
from calreport.settings import Settings
from calreport.summary import summarize

__all__ = ["summary"]


def summary(
    y_true: Any = None,
    proba: Any = None,
    *,
    y_pred: Any = None,
    conf: Any = None,
    correct: Any = None,
    classes: Any = None,
    pos_label: Any = None,
    sample_weight: Any = None,
    weights: str = "importance",
    threshold: float = 0.5,
    metrics: Sequence[str] | str | None = None,
    n_bins: int = 15,
    strategy: str = "uniform",
    tau: float = 0.5,
    view: str | None = None,
    p_risk_method: str = "auto",
    eps: float = 1e-8,
    ci: float | None = None,
    n_boot: int = 1000,
    ci_method: str | None = None,
    resampling: str = "multinomial",
    seed: int | np.random.Generator | None = None,
    refit: bool | None = False,
) -> dict[str, Any]:
    """Summary metrics of arrays of predictions (functional mirror of ``df.calib.summary``).

    Parameters
    ----------
    y_true, proba, y_pred, conf, correct, classes, pos_label, sample_weight, weights, \
threshold
        As in :meth:`calreport.ConfidenceProfile.from_arrays` (``weights``:
        ``"importance"`` or ``"frequency"``, the meaning of ``sample_weight``).
    metrics : list of str, optional
        Which metrics (default: all of :data:`calreport.registry.REGISTRY`).
    n_bins, strategy, tau, view, p_risk_method, eps
        See :class:`calreport.settings.Settings`.
    ci : float, optional
        Confidence level of the intervals (e.g. 0.95).  None: point estimates.
    n_boot, ci_method, resampling, seed
        Bootstrap replicates, interval method (default: each metric's own),
        ``"multinomial"``/``"poisson"`` resampling and seed.
    refit : bool or None, default False
        The refitting bootstrap of the metrics that refit a curve, opt-in as in
        ``df.calib.summary()`` (False: their intervals are NaN).

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
        pos_label=pos_label, sample_weight=sample_weight, threshold=threshold,
        weights=weights,
    )
    settings = Settings.from_kwargs(n_bins=n_bins, strategy=strategy, tau=tau, view=view,
                                    p_risk_method=p_risk_method, eps=eps, seed=seed)
    res = summarize(profile, metrics=metrics, settings=settings)
    if ci is None:
        return dict(res.values)
    iv = bootstrap_intervals(profile, res, n_boot=n_boot, ci=ci, method=ci_method,
                             seed=seed, resampling=resampling, refit=refit)
    return {k: (val, *iv.get(k, (math.nan, math.nan))) for k, val in res.values.items()}
