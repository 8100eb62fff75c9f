"""Confidence intervals of the summary metrics, by the method the registry names.

The bootstrap replicates are read by :func:`calreport.interval_rules.read_interval`
(``"percentile"``, ``"basic"``, the one-sided ``"upper"`` and ``"lower"`` bounds;
each bound with its Monte Carlo standard error, the estimate always inside);
``"analytic"`` gives normal intervals from influence functions (the delta method for
ratio metrics, DeLong et al. 1988 for the binary AUC, truncated to [0, 1]).  Each
metric's default method is the ``method`` of its registry entry; a metric without an
interval gets NaN and the reason.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from calreport import _validate as v
from calreport import references
from calreport._finishers import Ratio, row_columns
from calreport._progress import Steps
from calreport.bootstrap._linear import LINEAR_ROWS, LINEAR_SIDE
from calreport.bootstrap.kernels import bootstrap_replicates, canonical_order
from calreport.bootstrap.resampling import RESAMPLING, _master
from calreport.interval_rules import (
    INTERVAL_METHODS,
    LINEARIZED,
    LINEARIZED_MARK,
    base_method,
    read_interval,
)
from calreport.profile import ConfidenceProfile
from calreport.registry import COUNT_COLUMNS, REGISTRY, MetricCache
from calreport.summary import SummaryResult

__all__ = [
    "CI_METHODS",
    "LINEAR_ROWS",
    "LINEAR_SIDE",
    "REFIT_GROUPS",
    "REFIT_REPLICATES",
    "REFIT_ROWS",
    "BootstrapResult",
    "DegenerateReplicateWarning",
    "analytic_intervals",
    "bootstrap_intervals",
    "linearized_note",
    "refit_by_default",
]

#: Interval methods; None means each metric's registry default.
CI_METHODS = INTERVAL_METHODS

#: Replicates of the refitting bootstrap (each one refits the metric on a resample).
REFIT_REPLICATES = 200
#: ``refit=None`` runs the refitting bootstrap (200 refits per metric and group) for
#: calls of at most this many groups and rows in all (:func:`refit_by_default`): the
#: one rule of summaries, evaluations, comparisons and reports.
REFIT_GROUPS = 10
REFIT_ROWS = 20_000


def refit_by_default(sizes: Sequence[int]) -> bool:
    """Whether ``refit=None`` refits, for a call on groups of these sizes (rows).

    At most :data:`REFIT_GROUPS` groups and :data:`REFIT_ROWS` rows in all; above,
    each skipped interval's reason says so and how to ask for it (``refit=True``).

    Examples
    --------
    >>> refit_by_default([228, 228, 228]), refit_by_default([1000] * 20)
    (True, False)
    """
    return len(sizes) <= REFIT_GROUPS and sum(int(n) for n in sizes) <= REFIT_ROWS


def _refit_skipped(sizes: Sequence[int]) -> str:
    """The reason of an interval that ``refit=None`` skipped."""
    return (f"refitting bootstrap skipped by default above {REFIT_GROUPS} groups or "
            f"{REFIT_ROWS:,} rows in all ({len(sizes)} group{'' if len(sizes) == 1 else 's'}, "
            f"{sum(int(n) for n in sizes):,} rows here; it refits the metric "
            f"{REFIT_REPLICATES} times per group): pass refit=True to compute it")


def linearized_note() -> str:
    """What every output says of linearized replicates (their method reads e.g.
    ``"percentile, linearized"``).

    Examples
    --------
    >>> linearized_note().startswith("The AUC, cwAUC and AURC of a group of at least 20,000")
    True
    """
    sizes = " and ".join(f"{n:,}" for n in LINEARIZED["study"].get("sizes", [])) or "no"
    moved = max((max(v) for v in LINEARIZED.get("agreement", {}).values()), default=math.nan)
    return (f"The AUC, cwAUC and AURC of a group of at least {LINEAR_ROWS:,} rows, with "
            f"at least {LINEAR_SIDE:,} on each side (each class's positives and "
            "negatives; the correct and wrong predictions) and up to about 2 million "
            "(binary, every metric; above, the bootstrap bounds its memory and keeps "
            "the exact replicates), are resampled to first "
            "order: each replicate adds its counts times each row's derivative of the "
            f"metric (the infinitesimal jackknife, {references.short('Efron1982')}; for "
            f"the AUC, the placement values of {references.short('DeLong1988')}). "
            "Against the exact replicates, on the same resampling counts, an interval's "
            f"ends moved by at most {100 * moved:.1f} % of its width; the coverage, "
            f"measured on {sizes} rows, is printed beside each interval.")


class DegenerateReplicateWarning(UserWarning):
    """Some bootstrap replicates could not define a metric (e.g. a single class)."""


@dataclass(frozen=True)
class BootstrapResult:
    """Replicates and intervals of one profile.

    Attributes
    ----------
    replicates : dict
        Metric -> array of shape (n_boot,) (NaN where a replicate was degenerate).
    intervals : dict
        Metric -> (ci_low, ci_high).
    methods : dict
        Metric -> interval method used (``"percentile, linearized"`` etc. for
        linearized replicates: :func:`linearized_note`).
    ci, n_boot
        Confidence level and number of replicates.
    reasons : dict
        Metric -> why it has no interval.
    resampling : str
        ``"multinomial"`` or ``"poisson"``.
    degenerate : dict
        Metric -> number of replicates that could not define it.
    mcse : dict
        Metric -> Monte Carlo standard errors of (ci_low, ci_high) (0 for an
        analytic interval or a fixed end of a one-sided bound).
    """

    replicates: dict[str, np.ndarray]
    intervals: dict[str, tuple[float, float]]
    methods: dict[str, str]
    ci: float
    n_boot: int
    reasons: dict[str, str]
    resampling: str = "multinomial"
    degenerate: dict[str, int] | None = None
    mcse: dict[str, tuple[float, float]] | None = None

    def replicates_of(self, metric: str) -> int:
        """Replicates behind ``metric``'s interval (the refitting bootstrap draws at
        most 200; 0 for an analytic interval)."""
        r = self.replicates.get(metric)
        return 0 if r is None else int(np.count_nonzero(~np.isnan(r)))


def _interval(reps: np.ndarray, value: float, ci: float, method: str, name: str
              ) -> tuple[tuple[float, float], tuple[float, float]]:
    """The interval of one metric and the Monte Carlo standard errors of its bounds
    (:func:`calreport.interval_rules.read_interval`)."""
    b = read_interval(reps, value, ci, method, REGISTRY[name].bounds)
    return ((float(b.low[0]), float(b.high[0])), (float(b.se_low[0]), float(b.se_high[0])))


def _clip(name: str, iv: tuple[float, float]) -> tuple[float, float]:
    """An interval clipped to the metric's range (e.g. DeLong's to [0, 1])."""
    lo, hi = iv
    a, b = REGISTRY[name].bounds
    if math.isnan(lo) or math.isnan(hi):
        return lo, hi
    return min(max(lo, a), b), max(min(hi, b), a)


def _check(ci: float, method: str | None, resampling: str) -> float:
    ci = float(ci)
    if not 0.0 < ci < 1.0:
        raise ValueError(f"`ci` must be in (0, 1), e.g. 0.95; got {ci!r}.")
    if method is not None:
        v.check_option(method, "ci_method", CI_METHODS)
    v.check_option(resampling, "resampling", RESAMPLING)
    return ci


def bootstrap_intervals(
    profile: ConfidenceProfile,
    result: SummaryResult,
    *,
    n_boot: int = 1000,
    ci: float = 0.95,
    method: str | None = None,
    seed: Any = None,
    progress: bool | None = None,
    return_replicates: bool = False,
    resampling: str = "multinomial",
    warn: bool = True,
    refit: bool | None = False,
    sizes: Sequence[int] | None = None,
    linearize: bool | None = None,
) -> Any:
    """Confidence intervals for the metrics of a :class:`SummaryResult`.

    Parameters
    ----------
    profile : ConfidenceProfile
    result : SummaryResult
        Point estimates from :func:`calreport.summary.summarize`.
    n_boot : int, default 1000
    ci : float, default 0.95
        Confidence level.
    method : {"percentile", "basic", "analytic"} or None
        None: each metric's registry default.
    seed : int, SeedSequence, Generator or None
    progress : bool, optional
    return_replicates : bool
        Return a :class:`BootstrapResult` instead of the interval dict.
    resampling : {"multinomial", "poisson"}, default "multinomial"
    warn : bool
        Warn about degenerate replicates (grouped calls warn once for all groups).
    refit : bool or None, default False
        Compute the refitting bootstrap of the metrics whose registry interval is
        ``"refit"`` (``min(n_boot, 200)`` refits each); False gives them NaN and a
        reason; None applies :func:`refit_by_default` to ``sizes`` (above its limits,
        the reason says so and how to ask for it).
    sizes : sequence of int, optional
        Rows of every group of the call, which ``refit=None`` reads (default: this
        profile's).
    linearize : bool or None, default None
        First-order replicates of the AUC, cwAUC and AURC
        (:func:`~calreport.bootstrap.kernels.bootstrap_replicates`); their method
        then reads e.g. ``"percentile, linearized"``, with its own measured coverage.

    Returns
    -------
    dict or BootstrapResult
        Metric -> (ci_low, ci_high).

    Notes
    -----
    Degenerate replicates (e.g. one with a single class for AUC) are left out and
    counted; an interval needs at least half of the replicates defined.  A P_risk
    computed from the Monte Carlo null has no bootstrap interval (each replicate
    would need its own Monte Carlo null): its reason says so.

    References
    ----------
    Efron, B. (1979). Bootstrap Methods: Another Look at the Jackknife. Annals of
    Statistics 7(1), 1-26. doi:10.1214/aos/1176344552.

    Examples
    --------
    >>> from calreport.summary import summarize
    >>> p = ConfidenceProfile.from_arrays(conf=[0.9, 0.8, 0.6, 0.7], correct=[1, 0, 1, 1])
    >>> iv = bootstrap_intervals(p, summarize(p, metrics=["accuracy"]), n_boot=50, seed=0)
    >>> 0.0 <= iv["accuracy"][0] <= iv["accuracy"][1] <= 1.0
    True
    """
    ci = _check(ci, method, resampling)
    names = [k for k in result.values if k not in COUNT_COLUMNS]
    sizes = [profile.n] if sizes is None else list(sizes)
    profile, too_many = _as_repeated_rows(profile)
    if profile is not None and _rows_with_weight(profile) < 2:
        # every resample of one row is that row: a zero-width interval would claim
        # certainty where there is none
        profile, too_many = None, ("a bootstrap of a single row only ever draws that row: "
                                   "no interval")
    if profile is None:  # no resampling to do (see the reason)
        res = dict.fromkeys([*COUNT_COLUMNS, *names], (math.nan, math.nan))
        if return_replicates:
            return BootstrapResult({}, res, {k: method or REGISTRY[k].interval.method
                                             for k in names}, ci, n_boot,
                                   dict.fromkeys(names, too_many), resampling, {})
        return res
    reasons: dict[str, str] = {}
    methods = {k: method or REGISTRY[k].interval.method for k in names}
    intervals: dict[str, tuple[float, float]] = dict.fromkeys(
        [*COUNT_COLUMNS, *names], (math.nan, math.nan))
    analytic = [k for k in names if methods[k] == "analytic"]
    if analytic:
        iv, why = analytic_intervals(profile, result, ci=ci, metrics=analytic)
        intervals.update(iv)
        reasons.update(why)
    wanted: list[str] = []
    refits: list[str] = []
    for k in names:
        spec = REGISTRY[k].interval
        if methods[k] == "analytic":
            continue
        if math.isnan(result.values[k]):
            reasons[k] = "the point estimate is undefined"
        elif spec.kind == "refit":
            if refit or (refit is None and refit_by_default(sizes)):
                refits.append(k)
            elif refit is None:
                reasons[k] = _refit_skipped(sizes)
            else:
                reasons[k] = ("not computed (refit=False): the metric refits a curve or "
                              "re-bins on every sample, so its bootstrap is opt-in; "
                              f"refit=True refits it {REFIT_REPLICATES} times per group")
        elif spec.kind != "bootstrap":
            reasons[k] = spec.reason
        else:
            wanted.append(k)
    reps: dict[str, np.ndarray] = {}
    degenerate: dict[str, int] = {}
    mcse = {k: (0.0, 0.0) for k in analytic}
    if wanted:
        reps = bootstrap_replicates(profile, metrics=wanted, settings=result.settings,
                                    n_boot=n_boot, seed=seed, progress=progress,
                                    resampling=resampling, linearize=linearize)
        for k in reps.linearized:  # every output names them (interval_rules)
            methods[k] += LINEARIZED_MARK
        degenerate = {k: int(np.isnan(r).sum()) for k, r in reps.items() if np.isnan(r).any()}
    if refits:
        reps.update(_refit_replicates(profile, result, refits, min(n_boot, REFIT_REPLICATES),
                                      seed, resampling, progress))
        degenerate.update({k: int(np.isnan(reps[k]).sum()) for k in refits
                           if np.isnan(reps[k]).any()})
    if degenerate and warn:
        desc = ", ".join(f"{k}: {c}" for k, c in degenerate.items())
        warnings.warn(
            f"Some bootstrap replicates could not define a metric ({desc} of "
            f"{n_boot}); they are left out of the interval.",
            DegenerateReplicateWarning, stacklevel=2,
        )
    for k in [*wanted, *refits]:
        intervals[k], mcse[k] = _interval(reps[k], result.values[k], ci,
                                          base_method(methods[k]), k)
        if math.isnan(intervals[k][0]):
            reasons[k] = (f"fewer than half of the {reps[k].size} replicates define the "
                          "metric")
    if return_replicates:
        return BootstrapResult(reps, intervals, methods, ci, n_boot, reasons, resampling,
                               degenerate, mcse)
    return intervals


def _rows_with_weight(profile: ConfidenceProfile) -> int:
    w = profile.sample_weight
    return int(profile.n if w is None else np.count_nonzero(w > 0))


#: Most rows a frequency-weighted profile is expanded to for its bootstrap.
MAX_REPEATED_ROWS = 50_000_000


def _as_repeated_rows(profile: ConfidenceProfile) -> tuple[ConfidenceProfile | None, str]:
    """Frequency weights count repeated rows, so the bootstrap resamples those rows:
    the intervals are then those of the frame with each row repeated (resampling the
    weighted rows instead would describe another, coarser data set).  None, with the
    reason, above :data:`MAX_REPEATED_ROWS`."""
    w = profile.sample_weight
    if w is None or profile.weights != "frequency":
        return profile, ""
    total = float(w.sum())
    if total > MAX_REPEATED_ROWS:
        return None, (f"the frequency weights count {total:,.0f} rows, more than the "
                      f"{MAX_REPEATED_ROWS:,} the bootstrap of the repeated rows holds")
    rows = np.repeat(np.arange(profile.n), w.astype(np.int64))
    return profile.take(rows).replace(sample_weight=None, weights="importance"), ""


def _refit_replicates(profile: ConfidenceProfile, result: SummaryResult, names: list[str],
                      n_rep: int, seed: Any, resampling: str,
                      progress: bool | None = None) -> dict[str, np.ndarray]:
    """The refitting bootstrap: each metric recomputed on ``n_rep`` resampled data sets.

    These metrics refit a curve (LOWESS, binomial process, isotonic regression,
    kernel bandwidth) or re-bin on every sample, so each replicate is one call of
    the core computation on the resampled rows; the loop runs over replicates,
    never over rows.  Its stream is a fixed child of the seed, so it changes neither
    the batched replicates nor another group's.
    """
    master = _master(seed)
    rng = np.random.default_rng(np.random.SeedSequence(
        master.entropy, spawn_key=(*master.spawn_key, 0x7EF17)))
    prof = profile.take(canonical_order(profile))
    out = {m: np.full(n_rep, np.nan) for m in names}
    # the first refit predicts the rest: a bar for seconds of work
    with warnings.catch_warnings(), Steps(n_rep, "refits", "rep", progress) as steps:
        warnings.simplefilter("ignore", RuntimeWarning)
        for b in range(n_rep):
            _refit_one(prof, result, names, b, rng, resampling, out)
            steps.done()
    return out


def _refit_one(prof: ConfidenceProfile, result: SummaryResult, names: list[str], b: int,
               rng: np.random.Generator, resampling: str, out: dict[str, np.ndarray]) -> None:
    n = prof.n
    if resampling == "poisson":
        rows = np.repeat(np.arange(n), rng.poisson(1.0, n))
    else:
        rows = np.sort(rng.integers(0, n, n))
    if rows.size == 0:
        return
    rep = prof.take(rows)
    cache = MetricCache()
    for m in names:
        try:
            out[m][b] = REGISTRY[m].compute(rep, result.settings, cache)
        except ValueError:
            pass  # a degenerate replicate: NaN, counted and warned


def analytic_intervals(
    profile: ConfidenceProfile, result: SummaryResult, *, ci: float = 0.95,
    metrics: list[str] | None = None,
) -> tuple[dict[str, tuple[float, float]], dict[str, str]]:
    """Normal-approximation intervals from influence functions.

    Mean-type metrics (accuracy, CSR, Brier, log loss) use the standard error of the
    row contributions; ratio metrics (cwA, CWSA, CWSA+) the delta method; the binary
    AUC the DeLong variance, truncated to [0, 1].  With sample weights the effective
    sample size is Kish's ``(Σw)² / Σw²``.  Metrics whose registry entry names no
    analytic standard error get NaN and a reason.

    References
    ----------
    DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Comparing the Areas
    under Two or More Correlated Receiver Operating Characteristic Curves: A
    Nonparametric Approach. Biometrics 44(3), 837-845. doi:10.2307/2531595.
    """
    names = metrics or [k for k in result.values if k not in COUNT_COLUMNS]
    zq = float(special.ndtri(0.5 + ci / 2))  # the standard normal quantile
    cols = row_columns(profile, result.settings)
    w = (np.ones(profile.n) if profile.sample_weight is None
         else profile.sample_weight.astype(np.float64))
    total = w.sum()
    n_eff = total**2 / (w**2).sum() if total > 0 else 0.0

    def se_mean(x: np.ndarray) -> float:
        mu = (w * x).sum() / total
        return math.sqrt((w * (x - mu) ** 2).sum() / total / n_eff)

    def se_ratio(num: np.ndarray, den: np.ndarray) -> float:
        dbar = (w * den).sum() / total
        if dbar == 0:
            return math.nan
        r = (w * num).sum() / (w * den).sum()
        return se_mean((num - r * den) / dbar)

    out: dict[str, tuple[float, float]] = {}
    reasons: dict[str, str] = {}
    for name in names:
        val = result.values[name]
        spec = REGISTRY[name].interval
        kind = spec.analytic
        s = math.nan
        if total > 0 and not math.isnan(val):
            f = spec.finish  # a mean or a ratio names its columns
            if kind == "mean" and isinstance(f, Ratio) and f.num in cols:
                s = se_mean(cols[f.num])
            elif kind == "ratio" and isinstance(f, Ratio) and {f.num, f.den} <= cols.keys():
                s = se_ratio(cols[f.num], cols[f.den])
            elif kind == "delong" and profile.score is not None and (
                    profile.sample_weight is None):
                s = _delong_se(profile.score, profile.y_true == 1)
        if math.isnan(s):
            out[name] = (math.nan, math.nan)
            reasons[name] = ("no analytic interval for this metric here; use "
                             "ci_method='percentile'")
        else:
            out[name] = _clip(name, (val - zq * s, val + zq * s))
    return out, reasons


def _delong_se(score: np.ndarray, pos: np.ndarray) -> float:
    """DeLong et al. (1988) standard error of the binary AUC, via midranks."""
    from scipy import stats  # only here: importing scipy.stats costs about a second

    x, y = score[pos], score[~pos]
    m, n = len(x), len(y)
    if m < 2 or n < 2:
        return math.nan
    rz = stats.rankdata(np.r_[x, y])
    rx, ry = stats.rankdata(x), stats.rankdata(y)
    v10 = (rz[:m] - rx) / n
    v01 = 1.0 - (rz[m:] - ry) / m
    return math.sqrt(v10.var(ddof=1) / m + v01.var(ddof=1) / n)
