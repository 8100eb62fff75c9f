"""Out-of-core values of the metrics that refit a curve, and the full metric table.

The registry's ``"sampled"`` metrics are computed by their own point computation
(the pandas code) on each group's uniform sample (:mod:`calreport.stats.sample`);
:func:`full_table` joins them to the exact and bounded metrics finished from the sums,
with every metric's kind from the registry's ``scaling`` field.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from calreport.profile import ConfidenceProfile
from calreport.registry import REGISTRY, MetricCache
from calreport.settings import Settings
from calreport.stats import finish as _finish
from calreport.stats import intervals
from calreport.stats.config import SCALARS
from calreport.stats.sample import profile_of
from calreport.stats.smooth_grid import smece_from_masses
from calreport.stats.state import StatsState
from calreport.stats.verdict import risk_verdicts

__all__ = ["dropped_metrics", "full_table", "sample_profiles", "sampled_values",
           "scaling_kinds", "settings_of"]


#: Exact from node-grid sums when the state kept them (at most
#: ``StatsConfig.smooth_groups`` groups), otherwise computed on the sample.
_GRID_OR_SAMPLE = ("smece",)


def scaling_kinds() -> dict[str, str]:
    """Registry metric -> its out-of-core kind (exact / bounded / sampled / none)."""
    return {m: spec.scaling[0] for m, spec in REGISTRY.items()}


def settings_of(state: StatsState, view: str | None) -> Any:
    cfg = state.config
    return Settings(n_bins=cfg.n_bins, strategy="uniform", tau=cfg.tau, view=view,
                    p_risk_method="auto", eps=cfg.eps, min_count=cfg.min_count,
                    seed=int(cfg.seed))


def sample_profiles(state: StatsState) -> dict[Any, ConfidenceProfile]:
    """Group key -> profile of its uniform sample (empty without ``sample_size``)."""
    if state.sample is None:
        return {}
    return {k: profile_of(state.sample[k], state.schema.classes, state.config.weights)
            for k in state.keys if k in state.sample}


def sampled_values(state: StatsState, view: str | None = None
                   ) -> tuple[dict[str, np.ndarray], dict[str, list[str | None]]]:
    """The registry's sampled metrics of every group, on the groups' uniform samples.

    Computed by the registry's own point computation (the pandas code) on the sample
    profile, so a group with at most ``sample_size`` rows gets the pandas value.
    Without a sample every sampled metric is NaN with the reason.
    """
    names = [m for m, k in scaling_kinds().items() if k == "sampled"] + list(_GRID_OR_SAMPLE)
    g = len(state.keys)
    values = {m: np.full(g, np.nan) for m in names}
    reasons: dict[str, list[str | None]] = {m: [None] * g for m in names}
    if state.sample is None:
        why = ("sampled metric: not computed out of core without a sample; pass "
               "sample_size=20000 (rows per group) to compute it on a uniform sample")
        return values, {m: [why] * g for m in names}
    settings = settings_of(state, view)
    profiles = sample_profiles(state)
    for gi, key in enumerate(state.keys):
        prof = profiles.get(key)
        cache = MetricCache()
        for m in names:
            spec = REGISTRY[m]
            need = spec.missing_need(prof) if prof is not None else "no rows"
            if need:
                reasons[m][gi] = need
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    values[m][gi] = float(spec.compute(prof, settings, cache))
                except ValueError as exc:
                    reasons[m][gi] = str(exc)
                    continue
            if np.isnan(values[m][gi]):
                reasons[m][gi] = spec.nan_reason
    return values, reasons


def full_table(state: StatsState, *, view: str | None = None, ci: float | None = None
               ) -> _finish.MetricTable:
    """Exact and bounded metrics from the sums, plus the sampled ones (NaN + reason
    without a sample): every registry metric, with its kind from the registry."""
    table = _finish.summary(state, view=view, ci=ci)
    sv, sr = sampled_values(state, table.view)
    kinds = scaling_kinds()
    kinds.update(dict.fromkeys(_GRID_OR_SAMPLE, "sampled"))
    kinds.update(_exact_smece(state, table.view, sv, sr))
    table.values.update(sv)
    table.kinds.update({m: kinds[m] for m in sv})
    for m, r in sr.items():
        if any(x is not None for x in r):
            table.reasons[m] = r
    table.settings = {**table.settings, "sampled": state.sample is not None}
    _verdict_p_risk(table, state)
    if ci is not None:
        intervals.apply(table, state, ci)
    return table


def _verdict_p_risk(table: _finish.MetricTable, state: StatsState) -> None:
    """P_risk of every group as ``df.calib.summary()`` computes it (``method="auto"``:
    the Monte Carlo null where the normal approximation is invalid, seeded with the
    state's seed), from the risk verdict; its method per group goes to
    ``table.settings["p_risk_methods"]`` (P_risk has no interval in any path)."""
    verdicts = risk_verdicts(state, seed=int(state.config.seed))
    table.verdicts = verdicts
    table.values["p_risk"] = np.asarray([r.p_risk for r in verdicts], dtype=np.float64)
    table.settings = {**table.settings,
                      "p_risk_methods": [r.p_risk_method for r in verdicts]}


def _exact_smece(state: StatsState, view: str, values: dict[str, np.ndarray],
                 reasons: dict[str, list[str | None]]) -> dict[str, str]:
    """The smooth ECE of every group from its merged node masses, in place of the
    sample's value, when the state kept them for every group (see
    :mod:`calreport.stats.smooth_grid`); returns the kind it then has."""
    masses = state.smooth
    if "smece" not in values or masses is None or any(
            view not in masses.get(k, {}) for k in state.keys):
        return {}
    weight = state.sums["scalar"].to_float()[:, SCALARS.index("w")]
    n_pos = state.counts["n_positive_weight"]
    for gi, key in enumerate(state.keys):
        values["smece"][gi] = smece_from_masses(masses[key][view], int(n_pos[gi]),
                                                float(weight[gi]))
        reasons["smece"][gi] = (None if np.isfinite(values["smece"][gi])
                                else "all sample weights are zero")
    return {"smece": "exact"}


def dropped_metrics(table: _finish.MetricTable) -> dict[str, str]:
    """Registry metrics without a value in any group, with the reason."""
    out = {}
    for m, val in table.values.items():
        if np.isnan(val).all() and m in table.reasons:
            out[m] = next((r for r in table.reasons[m] if r), "undefined")
    return out
