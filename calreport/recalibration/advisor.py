"""The recalibration advisor: cross-fitted methods compared on the same rows.

:func:`recalibrate` is the engine behind ``df.calib.recalibrate()`` and
``df.groupby(g).calib.recalibrate()``: for every group it recalibrates the scores
out of fold with each method, computes calreport's metrics of each (log loss, Brier,
ECE, CSR, P_risk and its band, cwA, AUC), the paired differences against no
recalibration with paired-bootstrap intervals, and recommends a method.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from calreport._progress import Steps
from calreport.bootstrap import group_seed
from calreport.bootstrap.paired import paired_interval, paired_replicates
from calreport.metrics.bands import BAND_SEVERITY, BANDS
from calreport.profile import ConfidenceProfile
from calreport.recalibration.crossfit import (
    METHODS,
    canonical_order,
    cross_fit,
    stratified_folds,
)
from calreport.recalibration.result import TABLE_METRICS, RecalibrationResult
from calreport.registry import REGISTRY, shown_in
from calreport.settings import Settings
from calreport.summary import summarize

__all__ = ["DEFAULT_METHODS", "INTERVAL_COVERAGE", "RECOMMENDATION_RULE", "TABLE_METRICS",
           "coverage_note", "recalibrate"]

#: Every method, "none" (no recalibration) first.
DEFAULT_METHODS = tuple(METHODS)
#: The metrics computed for every method (:data:`TABLE_METRICS` but the band).
_SUMMARY_METRICS = [m for m in TABLE_METRICS if m != "band"]
#: Metrics with paired bootstrap differences, in table order: the advisor's metrics
#: that have an interval (all but P_risk).
BOOT_METRICS = tuple(m for m in shown_in("recalibration")
                     if REGISTRY[m].interval.kind == "bootstrap")
#: Level and replicates at which the coverage study measured the intervals.
MEASURED_CI, MEASURED_N_BOOT = 0.95, 200
#: What the coverage study (benchmarks/recalibration_coverage.py) measured of the
#: paired-difference intervals; every result carries it in ``options["coverage"]``
#: and prints it beside the table.
INTERVAL_COVERAGE = (
    "Measured coverage of these 95 % intervals (200 paired replicates) of the expected "
    "out-of-fold difference (benchmarks/recalibration_coverage.py: calibrated and "
    "overconfident scores, binary n = 300 and 3,000 (200 runs a cell), 3-class n = 300 (60 "
    "runs a cell); platt, temperature, beta, isotonic, risk_aware_isotonic; Venn-Abers not "
    "measured): log loss 87-100 %, BELOW NOMINAL for platt (90 %), temperature (87 %), beta "
    "(88 %), risk_aware_isotonic (90 %) (target 92-98 %); Brier 85-99 %, BELOW NOMINAL for "
    "temperature (88 %), isotonic (85 %) (target 92-98 %); ECE BELOW NOMINAL: measured 6-100 "
    "% (target 92-98 %); CSR BELOW NOMINAL: measured 5-100 % (target 92-98 %); cwA BELOW "
    "NOMINAL: measured 18-95 % (target 92-98 %); AUC BELOW NOMINAL: measured 13-90 % (target "
    "92-98 %). For the difference made by the calibrators fitted on the data set itself the "
    "coverage is lower: log loss 83-94 %, Brier 78-95 %. The bootstrap resamples rows with "
    "the fitted calibrators held fixed and misses their variability; read the ECE, CSR, cwA "
    "and AUC intervals as too narrow (causes and tables: benchmarks/RESULTS.md)."
)


#: How the recommendation is chosen, in the words every output uses.
RECOMMENDATION_RULE = (
    "The recommended method is the simplest (fewest fitted parameters) of those whose "
    "out-of-fold log loss (a strictly proper score) cannot be told apart from the lowest "
    "by its paired interval, among the methods that lower it without making the verdict "
    "worse; no recalibration when no method's gain is established and none improves the "
    "verdict.")


def coverage_note(ci: float, n_boot: int) -> str:
    """The measured coverage of the paired-difference intervals, as every output states
    it (``options["coverage"]``).

    Parameters
    ----------
    ci : float
        Level of the intervals.
    n_boot : int
        Paired bootstrap replicates.

    Returns
    -------
    str
        :data:`INTERVAL_COVERAGE`, prefixed by what differs from the measured setting
        (a level other than 95 % was not measured; fewer than 200 replicates add
        Monte Carlo error to the bounds).

    Examples
    --------
    >>> coverage_note(0.95, 200) == INTERVAL_COVERAGE
    True
    >>> coverage_note(0.9, 200).startswith("Coverage not measured at the 90 % level")
    True
    """
    if not math.isclose(ci, MEASURED_CI):
        return (f"Coverage not measured at the {100 * ci:g} % level; at 95 %: "
                + INTERVAL_COVERAGE)
    if n_boot < MEASURED_N_BOOT:
        return (f"Measured with {MEASURED_N_BOOT} replicates; {n_boot} add Monte Carlo "
                f"error to the bounds. " + INTERVAL_COVERAGE)
    return INTERVAL_COVERAGE


def _check(methods: Any, n_splits: Any, n_boot: Any, ci: Any, multiclass: Any
           ) -> list[str]:
    if isinstance(methods, str):
        methods = [methods]
    methods = list(DEFAULT_METHODS if methods is None else methods)
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ValueError(f"`methods` names unknown methods {unknown}; choose from "
                         f"{list(METHODS)}.")
    methods = ["none", *[m for m in dict.fromkeys(methods) if m != "none"]]
    if isinstance(n_splits, bool) or not isinstance(n_splits, (int, np.integer)) \
            or n_splits < 2:
        raise ValueError(f"`n_splits` must be an integer >= 2 (the folds of the "
                         f"cross-fitting), got {n_splits!r}.")
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 2:
        raise ValueError(f"`n_boot` must be an integer >= 2 (paired bootstrap "
                         f"replicates), got {n_boot!r}.")
    if not isinstance(ci, (float, int)) or isinstance(ci, bool) or not 0 < ci < 1:
        raise ValueError(f"`ci` must be a level in (0, 1), e.g. 0.95; got {ci!r}.")
    if multiclass not in ("ovr", "top_label"):
        raise ValueError(f"`multiclass` must be 'ovr' or 'top_label'; got {multiclass!r}.")
    return methods


def _arrays(profile: ConfidenceProfile, key: Hashable
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    if not profile.has_proba or profile.y_true is None:
        raise ValueError(f"recalibrate() needs true labels and class probabilities (group "
                         f"{key!r} has none): name them, e.g. df.calib(y='y', "
                         "proba='p') or proba=['p_a', 'p_b', 'p_c'].")
    P = np.array(profile.proba, dtype=np.float64)
    # rows of a multiclass matrix summing to 1 within the input tolerance: exactly 1
    if P.shape[1] > 2:
        P /= P.sum(axis=1, keepdims=True)
    codes = np.asarray(profile.y_true, dtype=np.intp)
    w = None if profile.sample_weight is None else np.asarray(profile.sample_weight)
    return P, codes, w


def _profile_of(P: np.ndarray, codes: np.ndarray, w: np.ndarray | None,
                base: ConfidenceProfile) -> ConfidenceProfile:
    """The profile of recalibrated probabilities (binary: the positive-class column)."""
    K = P.shape[1]
    proba = P[:, 1] if K == 2 else P
    return ConfidenceProfile.from_arrays(codes, proba, classes=np.arange(K),
                                         sample_weight=w, weights=base.weights,
                                         threshold=base.threshold if K == 2 else 0.5,
                                         pos_label=1 if K == 2 else None)


def _group_table(profile: ConfidenceProfile, key: Hashable, methods: list[str], *,
                 n_splits: int, seed: Any, multiclass: str, n_boot: int, ci: float,
                 settings: Settings, steps: Steps
                 ) -> tuple[pd.DataFrame, str, str, dict[tuple[str, str], str]]:
    P, codes, w = _arrays(profile, key)
    if profile.n < n_splits:
        raise ValueError(f"group {key!r} has {profile.n} rows, fewer than n_splits="
                         f"{n_splits}; lower n_splits or drop the group.")
    order = canonical_order(P, codes, w)
    fold_seed, boot_seed = group_seed(seed, key).spawn(2)
    folds = stratified_folds(codes, n_splits, fold_seed, order)
    profiles, rows = {}, {}
    undefined_values: dict[str, dict[str, str]] = {}  # method -> metric -> why NaN
    for m in methods:
        profiles[m] = prof = _profile_of(
            P if m == "none" else cross_fit(m, P, codes, w, folds, multiclass=multiclass,
                                            order=order), codes, w, profile)
        res = summarize(prof, metrics=_SUMMARY_METRICS, settings=settings, with_risk=True)
        rows[m] = {**{k: res.values[k] for k in _SUMMARY_METRICS},
                   "band": res.risk.band if res.risk is not None else "undetermined"}
        undefined_values[m] = {k: res.reasons.get(k) or "undefined on these rows"
                               for k in BOOT_METRICS if math.isnan(res.values[k])}
        steps.done()
    reps = paired_replicates(profiles, settings, BOOT_METRICS, n_boot=n_boot,
                             seed=boot_seed, order=order, progress=False)
    steps.done()
    undefined = {}  # (method, metric) -> why its interval is NaN
    for m in methods:
        for k in BOOT_METRICS:
            rows[m][f"{k}_diff"] = rows[m][k] - rows["none"][k]
            rows[m][f"{k}_diff_low"], rows[m][f"{k}_diff_high"], why = paired_interval(
                reps[m][k], reps["none"][k], ci)
            # an undefined value (either side) says why; else the replicates' reason
            value_why = undefined_values[m].get(k) or undefined_values["none"].get(k)
            if value_why:
                undefined[(m, k)] = f"{k} is undefined: {value_why}"
            elif why:
                undefined[(m, k)] = why
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "method"
    recommended, reason = _recommend(table, ci, reps)
    return table, recommended, reason, undefined


def _recommend(table: pd.DataFrame, ci: float,
               reps: Mapping[str, Mapping[str, np.ndarray]]) -> tuple[str, str]:
    """The simplest method whose log loss cannot be told apart from the lowest, among
    those whose band is not worse than none's (see :func:`recalibrate`)."""
    base = table.loc["none"]
    sev0 = BAND_SEVERITY[base["band"]]
    worse = [m for m in table.index if BAND_SEVERITY[table.loc[m, "band"]] > sev0]
    ok = table.drop(index=["none", *worse])
    ok = ok[ok["log_loss_diff"] < 0]
    excluded = ""
    if worse:
        excluded = (" Excluded for a worse risk band: "
                    + ", ".join(f"{METHODS[m].label} ({BANDS[table.loc[m, 'band']][0]})"
                                for m in worse) + ".")
    if ok.empty:
        return "none", ("No method lowers the out-of-fold log loss "
                        f"({base['log_loss']:.4g}) without making the risk band worse "
                        f"than '{BANDS[base['band']][0]}': keep the scores as they are."
                        + excluded)
    best = str(ok["log_loss_diff"].idxmin())
    b = table.loc[best]
    level = f"{ci:.0%} paired-bootstrap interval"
    # the methods the intervals cannot tell from the best; no recalibration among them
    # when no method's gain is established and none improves the scores' band
    excess = {m: paired_interval(reps[m]["log_loss"], reps[best]["log_loss"], ci)
              for m in ok.index if m != best}
    tied = [m for m in ok.index if m == best or excess[m][0] <= 0]
    if not (ok["log_loss_diff_high"] < 0).any() and \
            sev0 <= min(BAND_SEVERITY[band] for band in ok["band"]):
        tied.append("none")
    pick = min(tied, key=lambda m: (METHODS[m].parameters, table.loc[m, "log_loss_diff"]))
    others = [METHODS[m].label for m in tied if m not in (pick, best)]
    alike = (f" Also not told apart from the lowest: {', '.join(others)}." if others else "")
    if pick == "none":
        return "none", (
            f"Keep the scores as they are: the largest out-of-fold gain, "
            f"{METHODS[best].label}'s {-b['log_loss_diff']:.4g} of log loss "
            f"({base['log_loss']:.4g} -> {b['log_loss']:.4g}; {level} of the change "
            f"[{b['log_loss_diff_low']:.3g}, {b['log_loss_diff_high']:.3g}]), is not "
            f"established (the interval includes 0), no other method's is, and none "
            f"improves the risk band ('{BANDS[base['band']][0]}'): no recalibration is the "
            f"simplest choice." + alike + excluded)
    r = table.loc[pick]
    sure = ("" if r["log_loss_diff_high"] < 0 else
            "; the interval includes 0, so the gain is not established")
    gain = (f"{METHODS[pick].label} lowers the out-of-fold log loss by "
            f"{-r['log_loss_diff']:.4g} ({base['log_loss']:.4g} -> {r['log_loss']:.4g}; "
            f"{level} of the change "
            f"[{r['log_loss_diff_low']:.3g}, {r['log_loss_diff_high']:.3g}]{sure})")
    keep = (f"among the methods that keep the risk band at or below "
            f"'{BANDS[base['band']][0]}' (it gives '{BANDS[r['band']][0]}', CSR "
            f"{base['csr']:.3g} -> {r['csr']:.3g})")
    if pick == best:
        return best, (f"{gain}, the largest gain {keep}." + alike + excluded)
    lo, hi, _ = excess[pick]
    return pick, (
        f"{gain}: the simplest method whose log loss cannot be told apart from the "
        f"lowest, {METHODS[best].label}'s {b['log_loss']:.4g} ({level} of the "
        f"excess [{lo:.3g}, {hi:.3g}] includes 0), {keep}." + alike + excluded)


def recalibrate(
    profiles: Mapping[Hashable, ConfidenceProfile],
    *,
    grouped: bool = False,
    methods: Sequence[str] | str | None = None,
    n_splits: int = 5,
    seed: int = 0,
    multiclass: str = "ovr",
    n_boot: int = 200,
    ci: float = 0.95,
    n_bins: int = 15,
    eps: float = 1e-8,
    p_risk_method: str = "auto",
    progress: bool | None = None,
) -> RecalibrationResult:
    """Compare recalibration methods out of fold, per group, and recommend one.

    Parameters
    ----------
    profiles : mapping
        Group key -> profile with labels and class probabilities (ungrouped: one
        entry).
    grouped : bool
        Whether the keys are groups (the table is indexed by (group, method)).
    methods : list of str, optional
        Keys of :data:`~calreport.recalibration.crossfit.METHODS` (default: all);
        "none" is always included, as the baseline.
    n_splits : int, default 5
        Folds of the cross-fitting, stratified by class.
    seed : int, default 0
        Master seed; each group's folds and bootstrap counts come from it and the
        group's key.
    multiclass : {"ovr", "top_label"}, default "ovr"
        Multiclass reduction of the one-probability methods (temperature scaling is
        always full-vector).
    n_boot : int, default 200
        Paired bootstrap replicates of the differences.
    ci : float, default 0.95
        Level of the intervals.
    n_bins, eps, p_risk_method
        Metric settings (:class:`calreport.settings.Settings`).
    progress : bool, optional
        A progress bar over groups and methods (default: in a terminal or a notebook,
        when the first method predicts seconds of work).

    Returns
    -------
    RecalibrationResult

    Notes
    -----
    Row ``i``'s recalibrated probabilities come from a calibrator fitted on the other
    folds.  A difference is ``metric(method) - metric(none)`` on the same rows; its
    interval is the percentile interval of the same difference over ``n_boot``
    resamples of the rows, the same resampled rows for both methods
    (:func:`~calreport.bootstrap.paired.paired_interval`, as in ``compare()``: NaN
    when fewer than half of the resamples define it).  The
    recommendation considers the methods that lower the out-of-fold log loss (a
    strictly proper score; Gneiting & Raftery 2007) and whose risk band is no more
    severe than that of the scores as they are (no evidence < undetermined < evidence
    < risky).  Of these, the one with the lowest log loss and every method whose
    paired interval of the excess over it includes 0 cannot be told apart on these
    rows, and neither can no recalibration when no method's gain is established (every
    interval of the change includes 0) and none improves the scores' band.
    The simplest of them is recommended (fewest fitted parameters,
    :attr:`~calreport.recalibration.crossfit.Method.parameters`; then the lower log
    loss), as the one-standard-error rule prefers the simplest model within noise of
    the best (Hastie, Tibshirani & Friedman 2009, Section 7.10): which of several
    equally good methods has the lowest point estimate changes with the folds (the
    seed), the simplest of them seldom does (``benchmarks/advisor_stability.py``).  The
    intervals' coverage is below nominal (:data:`INTERVAL_COVERAGE`), so the set of
    methods told apart is, if anything, too large.

    The intervals' measured coverage (:data:`INTERVAL_COVERAGE`) is in
    ``options["coverage"]`` and printed with the table.

    References
    ----------
    Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond
    ECE: Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics.
    arXiv:2605.01796. Sections 2.1 and 5.

    Gneiting, T. & Raftery, A. E. (2007). Strictly Proper Scoring Rules, Prediction,
    and Estimation. Journal of the American Statistical Association 102(477),
    359-378. doi:10.1198/016214506000001437.

    Hastie, T., Tibshirani, R. & Friedman, J. (2009). The Elements of Statistical
    Learning, 2nd ed. Springer. doi:10.1007/978-0-387-84858-7. Section 7.10.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(0.01, 0.99, 400)
    >>> y = (rng.random(400) < s ** 2).astype(int)
    >>> prof = ConfidenceProfile.from_arrays(y, s)
    >>> res = recalibrate({"all": prof}, methods=["platt"], n_boot=50)
    >>> res.recommended
    'platt'
    """
    methods = _check(methods, n_splits, n_boot, ci, multiclass)
    settings = Settings.from_kwargs(n_bins=n_bins, eps=eps, p_risk_method=p_risk_method,
                                    seed=seed)
    tables, recommended, reasons, undefined = {}, {}, {}, {}
    with Steps(len(profiles) * (len(methods) + 1), "recalibration", "fit",
               progress) as steps:
        for key, prof in profiles.items():
            tables[key], recommended[key], reasons[key], undefined[key] = _group_table(
                prof, key, methods, n_splits=n_splits, seed=seed, multiclass=multiclass,
                n_boot=n_boot, ci=ci, settings=settings, steps=steps)
    options = dict(methods=methods, n_splits=n_splits, seed=seed, multiclass=multiclass,
                   n_boot=n_boot, ci=ci, n_bins=n_bins, eps=eps,
                   coverage=coverage_note(ci, n_boot))
    return RecalibrationResult.build(tables, recommended, reasons, dict(profiles),
                                     grouped=grouped, options=options, undefined=undefined)
