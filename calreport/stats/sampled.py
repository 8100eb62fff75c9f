"""Out-of-core values of the metrics that refit a curve, and the full metric table.

The registry's ``"sampled"`` metrics are computed by their own point computation
(the pandas code) on each group's uniform sample (:mod:`calreport.stats.sample`);
:func:`full_table` joins them to the exact and bounded metrics finished from the sums,
with every metric's kind from the registry's ``scaling`` field.

Sampling error.  A sampled value differs from the value on all rows of its group by
the sampling of the ``n`` kept rows out of the group's ``N``.  :func:`sampling_errors`
gives, beside every sampled value, the half-width ``h`` of a 95 % statement
``|value - value on all rows| <= h``.  ``B`` = :data:`SAMPLING_REPLICATES` random
halves of the kept sample (``n/2`` rows each, without replacement, seeded by the group
key) give the spread ``S`` of the metric at ``n/2`` rows, which is its standard error
at ``n`` rows (a half of a sample varies about the sample's value as much as the
sample about the population's), and the drift ``d`` = their mean minus the value.
A refitted calibration error is biased by ``c n^-r`` (upward near 0); with
``r = 1/3`` (:data:`BIAS_RATE`, slow enough for the smoothers, the isotonic fit and
the bandwidth choice near 0), ``d = c n^-r (2^r - 1)`` and

    h = t_{0.975, B-1} sqrt(1 - n/N) S + |d| (1 - (n/N)^r) / (2^r - 1),

which is 0 when the sample is the whole group (its value is then the pandas one).
The rate is measured per metric by ``benchmarks/sampled_error.py``
(:data:`SAMPLING_COVERAGE`); every output prints the measured coverage beside a
metric whose statement falls short of 95 %.  The p-values of the calibration tests
get none: a test on the sample is a valid (less powerful) test, not an estimate of
the p-value on all rows.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from scipy import special

from calreport.profile import ConfidenceProfile
from calreport.registry import REGISTRY, MetricCache
from calreport.settings import Settings
from calreport.stats import finish as _finish
from calreport.stats import intervals
from calreport.stats.config import SCALARS, key_seed
from calreport.stats.sample import profile_of
from calreport.stats.smooth_grid import smece_from_masses
from calreport.stats.state import StatsState
from calreport.stats.verdict import risk_verdicts

__all__ = ["BIAS_RATE", "CALIBRATION_ERROR", "NO_SAMPLING_ERROR", "SAMPLING_COVERAGE",
           "SAMPLING_LEVEL", "SAMPLING_METHOD", "SAMPLING_REPLICATES", "dropped_metrics",
           "full_table", "sample_errors", "sample_profiles", "sampled_values", "sampling_errors",
           "sampling_note", "scaling_kinds", "settings_of"]


#: Exact from node-grid sums when the state kept them (at most
#: ``StatsConfig.smooth_groups`` groups), otherwise computed on the sample.
_GRID_OR_SAMPLE = ("smece",)

#: Keys of :mod:`calreport.references` behind the sampling errors.
REFERENCE_KEYS = ("Cochran1977", "Politis1999")
#: Random halves of a group's kept sample behind its sampling errors.
SAMPLING_REPLICATES = 30
#: Stated rate of the sampling error: ``|value - value on all rows| <= h``.
SAMPLING_LEVEL = 0.95
#: Assumed rate ``r`` of the bias ``c n^-r`` of a sampled metric (see the module notes).
BIAS_RATE = 1.0 / 3.0
#: How the sampling error is computed (printed with it).
SAMPLING_METHOD = (f"{SAMPLING_REPLICATES} random halves of the kept sample: "
                   "h = t(0.975, B-1) sqrt(1 - n/N) S + |d| (1 - (n/N)^(1/3)) / (2^(1/3) - 1), "
                   "S the halves' spread, d their mean minus the value, n kept of N rows; "
                   "0 when the sample is the whole group")
#: Sampled p-values: valid tests on the sample, not estimates of the all-rows p-value.
NO_SAMPLING_ERROR = ("ecce_ks_p", "ecce_kuiper_p", "tcal_p")
#: Measured coverage of the 95 % sampling error per metric: the least over the six
#: cells of ``benchmarks/sampled_error.py`` (3 populations of 3e7 rows x samples of
#: 20,000 and 2,000 rows, 40 draws a cell: Monte Carlo SE 2.5-4.7 points; see
#: benchmarks/RESULTS.md).
#: The LOWESS calibration-error summary (``calibration_error()`` out of core): sampled,
#: with a sampling error, outside the registry.
CALIBRATION_ERROR = ("ici", "e50", "e90", "emax")
SAMPLING_COVERAGE: dict[str, float] = {
    "lcs": 0.925, "tce_bpm": 0.90, "debiased_ece": 0.975, "eci": 0.975, "corp_mcb": 1.0,
    "corp_dsc": 0.95, "smece": 0.925, "ici": 0.975, "e50": 0.925, "e90": 0.925,
    "emax": 0.875}


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


def sampling_errors(state: StatsState, values: dict[str, np.ndarray],
                    view: str | None = None) -> dict[str, np.ndarray]:
    """Half-width of the 95 % sampling error of every sampled metric, per group.

    Parameters
    ----------
    state : StatsState
    values : dict of str -> ndarray, shape (G,)
        The sampled metrics' values on the samples (:func:`sampled_values`); the
        metrics named here (but :data:`NO_SAMPLING_ERROR`) get an error.
    view : str, optional
        Calibration view, as for the values.

    Returns
    -------
    dict of str -> ndarray, shape (G,)
        ``h`` per metric and group: 0 where the sample holds the whole group, NaN
        where the value is NaN or fewer than two replicates have one.

    Notes
    -----
    ``h = t_{0.975, B-1} sqrt(1 - n/N) S + |d| (1 - (n/N)^r) / (2^r - 1)``, ``r = 1/3``:
    ``S`` the standard deviation and ``d`` the mean minus the value of the metric
    over ``B`` random halves of the ``n`` kept rows (without replacement, seeded by
    the master seed and the group key), ``N`` the group's rows.  A half of ``n/2``
    rows drawn from the ``n`` varies by ``Var = (s^2/(n/2)) (1 - 1/2) = s^2/n``, the
    variance of the sample's value, which the finite-population factor
    ``1 - n/N`` turns into that of its distance to the value on all rows (Cochran
    1977, section 2.5); a bias ``c m^-r`` at ``m`` rows makes ``d = c n^-r (2^r - 1)``
    and the sample's excess over all rows ``c n^-r (1 - (n/N)^r)`` (subsampling and
    its extrapolation of rates: Politis, Romano & Wolf 1999, chapters 2 and 8).

    References
    ----------
    Cochran, W. G. (1977). Sampling Techniques. 3rd ed., John Wiley & Sons, New York.

    Politis, D. N., Romano, J. P. & Wolf, M. (1999). Subsampling. Springer Series in
    Statistics, Springer, New York. doi:10.1007/978-1-4612-1554-7.

    Examples
    --------
    >>> from calreport.stats import StatsConfig
    >>> p = ConfidenceProfile.from_arrays([0, 1, 1, 0] * 50, [0.2, 0.9, 0.4, 0.3] * 50)
    >>> st = StatsState.from_profile(p, config=StatsConfig(sample_size=500))
    >>> values, _ = sampled_values(st)
    >>> float(sampling_errors(st, values)["corp_mcb"][0])  # the sample is the group
    0.0
    """
    names = [m for m in values if m not in NO_SAMPLING_ERROR]
    out = {m: np.where(np.isnan(values[m]), np.nan, 0.0) for m in names}
    if state.sample is None or not names:
        return out
    settings = settings_of(state, view)
    profiles = sample_profiles(state)
    for gi, key in enumerate(state.keys):
        prof = profiles.get(key)
        if prof is None:
            continue
        seed = key_seed(state.config.seed, ("sampling error", key))
        got = sample_errors(prof, int(state.counts["n"][gi]),
                            {m: float(values[m][gi]) for m in names}, settings, seed)
        for m, h in got.items():
            out[m][gi] = h
    return out


def sample_errors(sample: ConfidenceProfile, total: int, values: dict[str, float],
                  settings: Any, seed: int, compute: Any = None) -> dict[str, float]:
    """The sampling errors of :func:`sampling_errors` for one group's sample.

    Parameters
    ----------
    sample : ConfidenceProfile
        The ``n`` rows kept, a simple random sample of the group.
    total : int
        Rows ``N`` of the group.
    values : dict of str -> float
        Registry metric -> its value on ``sample``.
    settings : Settings
    seed : int
        Key of the counter-based stream of the bootstrap draws.
    compute : callable, optional
        ``compute(profile) -> {metric: value}`` for metrics outside the registry
        (the LOWESS calibration-error summary); default: each registry metric's own
        point computation.

    Returns
    -------
    dict of str -> float
        Half-width ``h`` per metric (0 when ``n >= N``; NaN for a NaN value or fewer
        than two replicates with a value).
    """
    n = sample.n
    todo = [m for m, v in values.items() if math.isfinite(v)]
    out = {m: (0.0 if m in todo else math.nan) for m in values}
    if n >= total or not todo:
        return out
    t = float(special.stdtrit(SAMPLING_REPLICATES - 1, 0.5 + SAMPLING_LEVEL / 2.0))
    rng = np.random.Generator(np.random.Philox(key=seed))
    # B random halves, all drawn in one call: the n/2 smallest of n uniforms per row
    halves = np.sort(np.argpartition(rng.random((SAMPLING_REPLICATES, n)), n // 2 - 1,
                                     axis=1)[:, :n // 2], axis=1)
    if compute is None:
        def compute(rep: ConfidenceProfile) -> dict[str, float]:
            cache = MetricCache()
            return {m: _value(REGISTRY[m], rep, settings, cache) for m in todo}

    reps = {m: np.full(SAMPLING_REPLICATES, np.nan) for m in todo}
    for b in range(SAMPLING_REPLICATES):  # a loop over replicates of the sample
        got = compute(sample.take(halves[b]))
        for m in todo:
            reps[m][b] = got.get(m, math.nan)
    fraction = n / total
    spread = t * math.sqrt(1.0 - fraction)
    drift = (1.0 - fraction**BIAS_RATE) / (2.0**BIAS_RATE - 1.0)
    for m in todo:
        r = reps[m][np.isfinite(reps[m])]
        if r.size < 2:
            out[m] = math.nan
            continue
        d = float(r.mean()) - values[m]
        out[m] = spread * float(r.std(ddof=1)) + drift * abs(d)
    return out


def _value(spec: Any, prof: ConfidenceProfile, settings: Any, cache: MetricCache) -> float:
    """A registry metric on a profile; NaN where it is undefined or refuses the rows."""
    if spec.missing_need(prof):
        return math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return float(spec.compute(prof, settings, cache))
        except ValueError:
            return math.nan


def sampling_note(metric: str) -> str:
    """How a sampled metric's error reads: its level and, where the simulation of
    ``benchmarks/sampled_error.py`` measured less, the measured coverage.

    Examples
    --------
    >>> sampling_note("tcal_p")
    'no sampling error: a valid test on the sample, not an estimate of the p-value on all rows'
    """
    if metric in NO_SAMPLING_ERROR:
        return ("no sampling error: a valid test on the sample, not an estimate of the "
                "p-value on all rows")
    text = f"{SAMPLING_LEVEL:.0%} sampling error"
    measured = SAMPLING_COVERAGE.get(metric)
    if measured is None:
        return text + " (coverage not measured)"
    below = f": below {SAMPLING_LEVEL:.0%}" if measured < SAMPLING_LEVEL else ""
    return text + f" (measured coverage {measured:.1%} in the worst simulated case{below})"


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
    table.sampling_error = sampling_errors(
        state, {m: v for m, v in sv.items() if kinds[m] == "sampled"}, table.view)
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
    weight = state.sums["scalar"].to_float()[:, SCALARS.index("one")]
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
