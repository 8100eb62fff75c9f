"""Intervals out of core that are not Poisson replicates, and the reasons for the rest.

Which interval each metric has out of core is recorded in the registry
(``Metric.scaling``, read through :func:`calreport.stats.scaling.scaling_of`):

* ``"poisson"``: intervals of the Poisson bootstrap replicates the state accumulates
  (:mod:`calreport.stats.poisson`), by the registry's interval method; each replicate
  is a handful of sums per group;
* ``"delong"`` (the binary, unweighted AUC): a replicate of a bounded metric would
  need its own fine score histogram (``n_boot x score_bins`` sums per group and
  partition: 200 x 2^16 x 2 for the AUC), too large to ship, so DeLong's normal
  interval (DeLong, DeLong & Clarke-Pearson 1988) is computed from the fine
  histogram.  For the scores rounded to their fine bin, the placement value of a
  positive in bin ``f`` is ``V10_f = (N_<f + N_f / 2) / n`` (negatives below, ties
  counting one half) and that of a negative ``V01_f = (P_>f + P_f / 2) / m``;
  ``se^2 = var(V10) / m + var(V01) / n`` with the sample variances over the rows, so
  the interval is DeLong's for the binned AUC.  It is centred on the reported value
  and widened by its bound on each side, so it contains the DeLong interval of the
  exact AUC's centre;
* ``"none"``: no interval, and the registry's note is the reason the output gives.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calreport.registry import REGISTRY, SAMPLED_NO_INTERVAL
from calreport.stats.finish import resolve_view
from calreport.stats.scaling import scaling_of
from calreport.stats.state import StatsState

__all__ = ["apply", "binned_auc_delong", "withdraw"]


def binned_auc_delong(state: StatsState) -> tuple[np.ndarray, np.ndarray]:
    """Binned AUC and DeLong standard error per group (NaN where undefined).

    Parameters
    ----------
    state : StatsState
        A binary, unweighted state (otherwise every value is NaN).

    Returns
    -------
    auc, se : ndarray, shape (G,)
        The AUC of the scores rounded to their fine bin (ties count one half) and
        DeLong's standard error; NaN for fewer than two positives or negatives.

    Notes
    -----
    ``V10_f = (N_<f + N_f / 2) / n`` for a positive in fine bin ``f`` and
    ``V01_f = (P_>f + P_f / 2) / m`` for a negative; ``AUC = mean(V10)`` and
    ``se^2 = var(V10) / m + var(V01) / n`` (sample variances over the rows).

    References
    ----------
    DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Comparing the Areas
    under Two or More Correlated Receiver Operating Characteristic Curves: A
    Nonparametric Approach. Biometrics 44(3), 837-845. doi:10.2307/2531595.

    Examples
    --------
    >>> from calreport.profile import ConfidenceProfile
    >>> prof = ConfidenceProfile.from_arrays([0, 0, 1, 1, 0, 1], [.1, .4, .35, .8, .2, .9])
    >>> auc, se = binned_auc_delong(StatsState.from_profile(prof))
    >>> # positives' placements (share of negatives below) 2/3, 1, 1; negatives'
    >>> # (share of positives above) 1, 2/3, 1: AUC 8/9, both sample variances 1/27,
    >>> # se^2 = 1/27 / 3 + 1/27 / 3 = 2/81, se = sqrt(2) / 9 (scikit-learn-free check:
    >>> # the pandas path's DeLong standard error gives the same)
    >>> round(float(auc[0]), 12), round(float(se[0]), 12)
    (0.888888888889, 0.157134840264)
    """
    g = len(state.keys)
    auc, se = np.full(g, np.nan), np.full(g, np.nan)
    if not state.schema.binary or state.schema.weighted or "auc_w" not in state.sums:
        return auc, se
    sums = state.sums["auc_w"]  # binary: one class row, grid row = group
    for rows, counts in sums.padded():  # (k, L, 2): positives, negatives of occupied bins
        pos, neg = counts[..., 0], counts[..., 1]
        m, n = pos.sum(axis=-1), neg.sum(axis=-1)
        ok = (m >= 2) & (n >= 2)
        if not ok.any():
            continue
        pos, neg, m, n, rows = pos[ok], neg[ok], m[ok, None], n[ok, None], rows[ok]
        v10 = (np.cumsum(neg, axis=-1) - neg / 2.0) / n
        v01 = (m - np.cumsum(pos, axis=-1) + pos / 2.0) / m
        a = (pos * v10).sum(axis=-1, keepdims=True) / m
        var10 = (pos * (v10 - a) ** 2).sum(axis=-1, keepdims=True) / (m - 1)
        var01 = (neg * (v01 - a) ** 2).sum(axis=-1, keepdims=True) / (n - 1)
        auc[rows], se[rows] = a[:, 0], np.sqrt(var10 / m + var01 / n)[:, 0]
    return auc, se


def apply(table: Any, state: StatsState, ci: float) -> None:
    """Add the AUC's DeLong interval to a :class:`MetricTable` and record, as the
    registry says, the method of every interval (``table.settings["interval_methods"]``)
    and why each other metric has none (``table.settings["intervals"]``)."""
    from scipy import special

    reasons, methods = {}, {}
    default = resolve_view(state, None)
    for m in table.values:
        if m not in REGISTRY:
            continue
        sc = scaling_of(m)
        if table.kinds.get(m) == "sampled" and sc.kind != "sampled":
            reasons[m] = SAMPLED_NO_INTERVAL  # computed on the sample this time
        elif sc.interval == "none":
            reasons[m] = sc.interval_note
        elif sc.interval == "poisson" and m in table.intervals:
            methods[m] = f"{REGISTRY[m].interval.method}, {sc.interval_note}"
        elif sc.interval == "poisson" and "view" in REGISTRY[m].settings and \
                table.view != default:
            reasons[m] = (f"the Poisson replicates hold the bins of the default view "
                          f"({default}), not of view={table.view!r}")
        elif sc.interval == "poisson":
            reasons[m] = "no Poisson replicates were accumulated for it"
    if "auc" in table.values and scaling_of("auc").interval == "delong":
        _, se = binned_auc_delong(state)
        if np.isfinite(se).any():
            z = float(special.ndtri(0.5 + ci / 2.0))
            val = table.values["auc"]
            bound = table.bounds.get("auc", np.zeros_like(val))
            lo = np.clip(val - z * se - bound, 0.0, 1.0)
            hi = np.clip(val + z * se + bound, 0.0, 1.0)
            table.intervals["auc"] = (lo, hi)
            zeros = np.zeros_like(val)
            table.interval_se["auc"] = (zeros, zeros, zeros)
            methods["auc"] = scaling_of("auc").interval_note
        else:
            reasons["auc"] = scaling_of("auc").interval_note
    table.settings = {**table.settings, "intervals": reasons, "interval_methods": methods}


def withdraw(table: Any, names: Any, context: str) -> None:
    """Drop the intervals of ``names`` from a :class:`MetricTable` (their values were
    replaced by ones the replicates do not describe, e.g. equal-mass bins), giving as
    the reason ``context`` and the registry's interval note."""
    reasons = dict(table.settings.get("intervals") or {})
    methods = dict(table.settings.get("interval_methods") or {})
    for m in names:
        table.interval_se.pop(m, None)
        if table.intervals.pop(m, None) is not None or m in methods:
            methods.pop(m, None)
            reasons[m] = f"{context}: {scaling_of(m).interval_note}"
    table.settings = {**table.settings, "intervals": reasons, "interval_methods": methods}
