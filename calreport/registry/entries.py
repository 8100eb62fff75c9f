"""The registry's entries: one :class:`~calreport.registry.entry.Metric` per summary
metric, in summary order, and the point computations they name.

:data:`calreport.registry.REGISTRY` is built from :data:`ENTRIES`; add a metric here
(with its core function in :mod:`calreport.metrics` and its tests).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from calreport import _finishers as fin
from calreport._calibration_tests import (
    ECCE_KS_FORMULA,
    ECCE_KUIPER_FORMULA,
    ECCE_NAN,
    P_VALUE_NO_INTERVAL,
    SAMPLED_TEST_NOTE,
    TCAL_FORMULA,
    ecce_compute,
    tcal_compute,
)
from calreport.interval_rules import Interval
from calreport.metrics import (
    _local_units,
    binned,
    bpm,
    calibration_index,
    classwise,
    corp,
    debiased,
    local,
    scoring,
    selective,
    smooth,
    weighted,
)
from calreport.profile import ConfidenceProfile
from calreport.registry.entry import Metric, MetricCache, Reference, weights_kw
from calreport.settings import Settings

__all__ = ["ENTRIES", "P_RISK_NO_INTERVAL", "SAMPLED_NO_INTERVAL"]


# ------------------------------------------------------------- point computations
def _w(p: ConfidenceProfile) -> np.ndarray | None:
    return p.sample_weight


def _view(p: ConfidenceProfile, s: Settings) -> tuple[np.ndarray, np.ndarray]:
    return p.view(s.view)


def _scoring_args(p: ConfidenceProfile) -> tuple[np.ndarray, np.ndarray]:
    # a binary profile's label codes are 0/1 (classes[1] the positive class)
    return p.y_true, (p.score if p.score is not None else p.proba)


def _lcs(p: ConfidenceProfile, s: Settings, cache: MetricCache) -> float:
    if p.sample_weight is not None:  # frequency weights (the "counts" need)
        return _local_units.lcs_counts(*_view(p, s), p.sample_weight)
    score, outcome, trees = cache.sorted_view(p, s)
    frac, k = local._check_sorted(score, "lowess", local.DEFAULT_FRAC)
    return local._lcs_sorted(score, outcome, method="lowess", frac=frac, k=k, trees=trees)


def _tce_bpm(p: ConfidenceProfile, s: Settings, cache: MetricCache) -> float:
    return float(bpm.tce_bpm(*_view(p, s), sample_weight=_w(p), **weights_kw(p)))


def _smece(p: ConfidenceProfile, s: Settings, cache: MetricCache) -> float:
    return float(smooth.smece(*_view(p, s), sample_weight=_w(p)))


def _classwise_ece(p: ConfidenceProfile, s: Settings, cache: MetricCache) -> float:
    return float(classwise.classwise_ece(p.y_true, p.proba_or_score, n_bins=s.n_bins,
                                         sample_weight=_w(p)))


def _debiased_ece(p: ConfidenceProfile, s: Settings, cache: MetricCache) -> float:
    if p.sample_weight is not None:
        return float(debiased.debiased_ece(*_view(p, s), n_bins=s.n_bins,
                                           sample_weight=_w(p), **weights_kw(p)))
    score, outcome, _ = cache.sorted_view(p, s)
    return math.sqrt(max(debiased._squared_sorted(score, outcome, s.n_bins, "equal_mass"),
                         0.0))


def _eci(p: ConfidenceProfile, s: Settings, cache: MetricCache) -> float:
    if p.sample_weight is not None:  # frequency weights (the "counts" need)
        return _local_units.eci_counts(*_view(p, s), p.sample_weight)
    score, outcome, trees = cache.sorted_view(p, s)
    frac, k = local._check_sorted(score, "lowess", local.DEFAULT_FRAC)
    return calibration_index._eci_sorted(score, outcome, method="lowess", frac=frac, k=k,
                                         trees=trees)


def _corp(term: str) -> Callable[[ConfidenceProfile, Settings, MetricCache], float]:
    def compute(p: ConfidenceProfile, s: Settings, cache: MetricCache) -> float:
        key = ("corp", s.view)
        if key not in cache.values:
            cache.values[key] = (
                corp.corp_decomposition(*_view(p, s), rule="brier", sample_weight=_w(p))
                if p.sample_weight is not None else
                corp._decomposition_sorted(*cache.sorted_view(p, s)[:2], None, "brier"))
        return float(getattr(cache.values[key], term))
    return compute


# ------------------------------------------------------------------------ entries
_M26 = "MartinMaroto2026"
_S25 = "Shahnazari2025"
#: Out-of-core intervals (the last two items of ``Metric.scaling``).
_MERGED = "exact sums merged across partitions"
_CI_POISSON = ("poisson", "from the Poisson bootstrap replicates, accumulated and merged "
               "with the sums")
_CI_POISSON_UNIFORM = ("poisson", "from the Poisson bootstrap replicates of the uniform-bin "
                       "sums (default view); equal-mass bins have none: no replicate holds "
                       "their edges, run the pandas accessor with ci on the rows")
#: Why a metric computed on the uniform sample has no interval out of core.
SAMPLED_NO_INTERVAL = ("computed on a uniform sample of sample_size rows per group: a "
                       "bootstrap of it would give the (wider) uncertainty of that sample, "
                       "not of the metric on all rows; run the pandas accessor with ci on "
                       "the rows")
_CI_SAMPLED = ("none", SAMPLED_NO_INTERVAL)
#: Refitting bootstrap: the metric is recomputed on each resampled data set.  A
#: calibration error's estimate is biased upward and its true value can be 0, so it
#: gets a one-sided upper bound (see :mod:`calreport.interval_rules`).
_REFIT_WHY = "refitting bootstrap (the metric refits a curve or re-bins on every sample)"
_REFIT = Interval("refit", reason=_REFIT_WHY)
_REFIT_UPPER = Interval("refit", method="upper", reason=_REFIT_WHY)
#: Why P_risk prints no interval.
P_RISK_NO_INTERVAL = ("P_risk is itself a probability about these rows (how surprising "
                      "their CSR is under calibration), not an estimate of a fixed "
                      "quantity; read z_csr's interval for its uncertainty")


#: Every summary metric, in summary order.
ENTRIES: tuple[Metric, ...] = (
    Metric(
        "accuracy", "Accuracy", "accuracy", "higher",
        "Acc = Σ wᵢ·1[ŷᵢ = yᵢ] / Σ wᵢ",
        (Reference(_M26, "Definition 1"),),
        lambda p, s, c: weighted.accuracy(p.correct, sample_weight=_w(p)),
        Interval(columns=("correct",), finish=fin.ratio("correct"), analytic="mean"),
        nan_reason="all sample weights are zero", bounds=(0.0, 1.0),
        scaling=("exact", _MERGED, *_CI_POISSON),
        shown_in={"report_table": 1, "card": 1, "comparison": 6}),
    Metric(
        "cwa", "Confidence-weighted accuracy (cwA)", "accuracy", "higher",
        "cwA = Σ cᵢ·1[ŷᵢ = yᵢ] / Σ cᵢ, c = confidence in the predicted class",
        (Reference(_M26, "section 2.2, Definition 4"),),
        lambda p, s, c: weighted.cwa(p.conf, p.correct, sample_weight=_w(p)),
        Interval(columns=("c_correct", "c"), finish=fin.ratio("c_correct", "c"),
                 analytic="ratio"),
        nan_reason="every confidence is 0", bounds=(0.0, 1.0),
        scaling=("exact", _MERGED, *_CI_POISSON),
        shown_in={"recalibration": 6}),
    Metric(
        "gain", "cwA gain over accuracy", "accuracy", "higher",
        "gain = (cwA − Acc) / (1 − min(cwA, Acc))",
        (Reference(_M26, "section 3.1"),),
        lambda p, s, c: weighted.gain(p.conf, p.correct, sample_weight=_w(p)),
        Interval(columns=("correct", "c_correct", "c"), finish=fin.gain),
        nan_reason="undefined when accuracy or cwA equals 1", bounds=(-math.inf, 1.0),
        scaling=("exact", _MERGED, *_CI_POISSON)),
    Metric(
        "csr", "Calibrated Size Ratio (CSR)", "risk", "target",
        "CSR = (1/N) Σ_{i wrong} 1/(1 − cᵢ), confidences clipped to [ε, 1 − ε]; "
        "1 under calibration",
        (Reference(_M26, "section 2.1, Definition 2"),),
        lambda p, s, c: c.risk(p, s).csr,
        Interval(columns=("csr",), finish=fin.ratio("csr"), analytic="mean"),
        target=1.0, settings=("eps",), nan_reason="all sample weights are zero",
        bounds=(0.0, math.inf),
        scaling=("exact", _MERGED, *_CI_POISSON),
        shown_in={"report_table": 2, "comparison": 1, "recalibration": 4,
                  "report_recalibration": 4}),
    Metric(
        "sigma_csr", "σ_CSR (spread of CSR under calibration)", "risk", "lower",
        "σ_CSR = √(Σ wᵢ² cᵢ/(1 − cᵢ)) / Σ wᵢ, the standard deviation of CSR when "
        "correctᵢ ~ Bernoulli(cᵢ)",
        (Reference(_M26, "appendix A.2, Proposition 6"),),
        lambda p, s, c: c.risk(p, s).sigma_csr,
        Interval(columns=("csr_var2",), finish=fin.sigma),
        settings=("eps",), nan_reason="all sample weights are zero", bounds=(0.0, math.inf),
        scaling=("exact", _MERGED, *_CI_POISSON)),
    Metric(
        "z_csr", "z = (CSR − 1) / σ_CSR", "risk", "lower",
        "z = (CSR − 1) / σ_CSR; where the normal reading is valid P_risk = Φ(z), so "
        "z > 1 and z > 3 are the P_risk levels of 'evidence' and 'risky'",
        (Reference(_M26, "section 2.1"),),
        lambda p, s, c: c.risk(p, s).z_csr,
        Interval(columns=("csr", "csr_var2"), finish=fin.z),
        settings=("eps",), nan_reason="σ_CSR is 0 (all confidences are 0)",
        scaling=("exact", _MERGED, *_CI_POISSON),
        shown_in={"report_table": 3}),
    Metric(
        "p_risk", "P_risk", "risk", "lower",
        "P_risk = P(CSR under calibration < observed CSR), the null correctᵢ ~ "
        "Bernoulli(cᵢ): Φ(z) where the normal approximation is valid, else by Monte "
        "Carlo; evidence above 84.13 %, risky above 99.865 % or a wrong certainty claim",
        (Reference(_M26, "section 2.1 and Table 6; section 4 on small N"),),
        lambda p, s, c: c.risk(p, s).p_risk,
        Interval("none", reason=P_RISK_NO_INTERVAL),
        settings=("eps", "p_risk_method", "seed"), percent=True,
        nan_reason="σ_CSR is 0 (all confidences are 0)", bounds=(0.0, 1.0),
        scaling=("exact",
                 "the risk verdict's: Φ(z) from exact sums where the normal approximation "
                 "is valid, else the Monte Carlo null of the rows of largest variance "
                 "(kept exactly, StatsConfig.heavy_rows per group), as the pandas path",
                 "none", P_RISK_NO_INTERVAL),
        shown_in={"report_table": 4, "comparison": 2, "recalibration": 5,
                  "report_recalibration": 5}),
    Metric(
        "ece", "Expected calibration error (ECE)", "calibration", "lower",
        "ECE = Σ_b (|B_b| / N) · |acc(B_b) − conf(B_b)| over n_bins bins of the score",
        (Reference("Naeini2015", "section 3"), Reference("Guo2017", "section 2")),
        lambda p, s, c: binned.ece(*_view(p, s), n_bins=s.n_bins, strategy=s.strategy,
                                   sample_weight=_w(p)),
        Interval(columns=("bin_diff",), finish=fin.ece, method="upper"),
        settings=("view", "n_bins", "strategy"), bounds=(0.0, 1.0),
        scaling=("exact",
                 "exact per-bin sums; equal-mass bins (weighted too) by a second pass "
                 "for the exact quantile edges; Accumulator: bounded from the fine "
                 "histogram", *_CI_POISSON_UNIFORM),
        shown_in={"report_table": 5, "card": 2, "comparison": 5,
                  "recalibration": 3, "report_recalibration": 3}),
    Metric(
        "mce", "Maximum calibration error (MCE)", "calibration", "lower",
        "MCE = max_b |acc(B_b) − conf(B_b)| over bins with at least min_count rows",
        (Reference("Naeini2015", "section 3"),),
        lambda p, s, c: binned.mce(*_view(p, s), n_bins=s.n_bins, strategy=s.strategy,
                                   min_count=s.min_count, sample_weight=_w(p)),
        Interval(columns=("bin_diff",), finish=fin.mce, method="upper"),
        settings=("view", "n_bins", "strategy", "min_count"),
        nan_reason="no bin holds min_count rows", bounds=(0.0, 1.0),
        scaling=("exact",
                 "exact per-bin sums; equal-mass bins (weighted too) by a second pass "
                 "for the exact quantile edges; Accumulator: bounded from the fine "
                 "histogram", *_CI_POISSON_UNIFORM)),
    Metric(
        "signed_ece", "Signed ECE (confidence − accuracy)", "calibration", "target",
        "Σ_b (|B_b| / N) · (conf(B_b) − acc(B_b)); > 0 overconfident, < 0 underconfident",
        (Reference("Guo2017", "section 2"),),
        lambda p, s, c: binned.signed_ece(*_view(p, s), n_bins=s.n_bins,
                                          strategy=s.strategy, sample_weight=_w(p)),
        Interval(columns=("bin_diff",), finish=fin.signed_ece),
        target=0.0, settings=("view", "n_bins", "strategy"), bounds=(-1.0, 1.0),
        scaling=("exact",
                 "exact per-bin sums; equal-mass bins (weighted too) by a second pass "
                 "for the exact quantile edges; Accumulator: bounded from the fine "
                 "histogram", *_CI_POISSON_UNIFORM)),
    Metric(
        "brier", "Brier score", "scores", "lower",
        "mean of Σ_k (p_k − 1[y = k])² (binary: mean of (p − y)²), as scikit-learn",
        (Reference("Brier1950"),),
        lambda p, s, c: scoring.brier_score(*_scoring_args(p), sample_weight=_w(p)),
        Interval(columns=("brier",), finish=fin.ratio("brier"), analytic="mean"),
        needs=frozenset({"proba"}), bounds=(0.0, 2.0),
        scaling=("exact", _MERGED, *_CI_POISSON),
        shown_in={"report_table": 6, "card": 3, "comparison": 4,
                  "recalibration": 2, "report_recalibration": 2}),
    Metric(
        "log_loss", "Log loss", "scores", "lower",
        "−mean of log p_y, p clipped to [ε, 1 − ε] with ε the float64 machine epsilon, "
        "as scikit-learn",
        (Reference("Good1952"),),
        lambda p, s, c: scoring.log_loss(p.y_true, p.proba_or_score, sample_weight=_w(p)),
        Interval(columns=("log_loss",), finish=fin.ratio("log_loss"), analytic="mean"),
        needs=frozenset({"proba"}), bounds=(0.0, math.inf),
        scaling=("exact", _MERGED, *_CI_POISSON),
        shown_in={"comparison": 3, "recalibration": 1, "report_recalibration": 1}),
    Metric(
        "top_label_log_loss", "Top-label log loss", "scores", "lower",
        "−mean of ln c if right, ln(1 − c) if wrong, c the confidence clipped to "
        "[ε, 1 − ε] with ε the float64 machine epsilon",
        (Reference("Good1952"), Reference("Guo2017", "section 2")),
        lambda p, s, c: scoring.top_label_log_loss(p.conf, p.correct, sample_weight=_w(p)),
        Interval(columns=("top_log_loss",), finish=fin.ratio("top_log_loss"),
                 analytic="mean"),
        nan_reason="all sample weights are zero", bounds=(0.0, math.inf),
        scaling=("exact", _MERGED, *_CI_POISSON)),
    Metric(
        "auc", "AUC (macro one-vs-rest)", "ranking", "higher",
        "one-vs-rest AUC of each class on its probability, ties count ½; macro average "
        "over the classes with positives and negatives",
        (Reference("HanleyMcNeil1982"), Reference(_M26, "section 2.2")),
        lambda p, s, c: c.ranking(p, "auc"),
        Interval(finish=fin.auc, analytic="delong"),
        needs=frozenset({"proba"}),
        nan_reason="needs both positives and negatives of at least one class", bounds=(0.0, 1.0),
        scaling=("bounded",
                 "2^16 fixed score bins, ties within a bin count 1/2; error bound "
                 "reported (exact_auc=True: exact)",
                 "delong", "DeLong normal interval of the binned AUC, widened by its bound "
                 "on each side (binary labels, no sample weights; otherwise none)"),
        shown_in={"report_table": 7, "card": 4, "comparison": 7, "recalibration": 7}),
    Metric(
        "cwauc", "Confidence-weighted AUC (cwAUC)", "ranking", "higher",
        "pairs (i positive, j negative) weighted by cᵢ·cⱼ, ties count ½; macro average",
        (Reference(_M26, "appendix A.3, Proposition 15"),),
        lambda p, s, c: c.ranking(p, "cwauc"),
        Interval(finish=fin.cwauc),
        needs=frozenset({"proba"}),
        nan_reason="needs both positives and negatives of at least one class", bounds=(0.0, 1.0),
        scaling=("bounded",
                 "2^16 fixed score bins, ties within a bin count 1/2; error bound "
                 "reported (exact_auc=True: exact)",
                 "none", "the Poisson replicates would each need the fine score histogram "
                 "(n_boot x score_bins sums per group); no variance formula for cwAUC")),
    Metric(
        "delta_auc", "cwAUC − AUC", "ranking", "higher",
        "ΔAUC = cwAUC − AUC; > 0 when confidence helps ranking",
        (Reference(_M26, "appendix A.3, Proposition 16"),),
        lambda p, s, c: c.ranking(p, "cwauc") - c.ranking(p, "auc"),
        Interval(finish=fin.delta_auc),
        needs=frozenset({"proba"}),
        nan_reason="needs both positives and negatives of at least one class", bounds=(-1.0, 1.0),
        scaling=("bounded",
                 "difference of the binned cwAUC and AUC; bound = sum of their bounds",
                 "none", "needs the joint replicates of cwAUC and AUC (none for cwAUC)")),
    Metric(
        "cwsa", "CWSA (confidence-weighted selective accuracy)", "selective", "higher",
        "mean over S_τ = {c ≥ τ} of φ(c)·(2·correct − 1), φ(c) = (c − τ)/(1 − τ)",
        (Reference(_S25, "section 3.2"),),
        lambda p, s, c: selective.cwsa(p.conf, p.correct, tau=s.tau, sample_weight=_w(p)),
        Interval(columns=("sel", "cwsa"), finish=fin.ratio("cwsa", "sel"), analytic="ratio"),
        settings=("tau",), nan_reason="no prediction has confidence ≥ τ", bounds=(-1.0, 1.0),
        scaling=("exact", "exact sums on the threshold grid (tau must be on the grid)",
                 *_CI_POISSON)),
    Metric(
        "cwsa_plus", "CWSA+", "selective", "higher",
        "mean over S_τ = {c ≥ τ} of φ(c)·correct, φ(c) = (c − τ)/(1 − τ)",
        (Reference(_S25, "section 3.3"),),
        lambda p, s, c: selective.cwsa_plus(p.conf, p.correct, tau=s.tau,
                                            sample_weight=_w(p)),
        Interval(columns=("sel", "cwsa_plus"), finish=fin.ratio("cwsa_plus", "sel"),
                 analytic="ratio"),
        settings=("tau",), nan_reason="no prediction has confidence ≥ τ", bounds=(0.0, 1.0),
        scaling=("exact", "exact sums on the threshold grid (tau must be on the grid)",
                 *_CI_POISSON)),
    Metric(
        "aurc", "Area under the risk-coverage curve (AURC)", "selective", "lower",
        "mean over coverage levels of the selective risk when predictions are kept in "
        "order of decreasing confidence (ties kept together)",
        (Reference("GeifmanElYaniv2017", "section 2"), Reference("Geifman2019", "section 3")),
        lambda p, s, c: selective.aurc(p.conf, p.correct, sample_weight=_w(p)),
        Interval(finish=fin.aurc), bounds=(0.0, 1.0),
        scaling=("bounded",
                 "2^16 fixed confidence bins as tie groups; error bound reported",
                 "none", "the Poisson replicates would each need the fine confidence "
                 "histogram (n_boot x score_bins sums per group)")),
    Metric(
        "lcs", "Local Calibration Score (LCS)", "calibration", "lower",
        "LCS = Σⱼ wⱼ (ĝ(lⱼ) − lⱼ)² / Σⱼ wⱼ, ĝ a LOWESS calibration curve on 100 grid "
        "points, wⱼ the reflected kernel density of the scores",
        (Reference("FernandesMachado2024", "Local Calibration Score"),
         Reference("Cleveland1979")),
        _lcs, _REFIT_UPPER, needs=frozenset({"counts"}), settings=("view",),
        bounds=(0.0, 1.0),
        scaling=("sampled", "LOWESS on a fixed-size uniform sample per group",
                 *_CI_SAMPLED)),
    Metric(
        "tce_bpm", "TCE_bpm (true calibration error, binomial process)", "calibration",
        "lower",
        "TCE = ∫ |g(x) − x| f(x) dx, g fitted by binomial maximum likelihood in the "
        "family logit g = c + a ln s − b ln(1 − s), f the Beta density of the scores",
        (Reference("Dong2025", "section 3"),),
        _tce_bpm, _REFIT_UPPER, needs=frozenset({"counts"}), settings=("view",),
        nan_reason="too few rows to fit the binomial-process curve", bounds=(0.0, 1.0),
        scaling=("sampled",
                 "binomial-process fit on a fixed-size uniform sample per group",
                 *_CI_SAMPLED)),
    Metric(
        "smece", "Smooth ECE (smECE)", "calibration", "lower",
        "smECE_σ = ∫ |r̂_σ(t) − t| δ̂_σ(t) dt, the calibration gap of the Gaussian-kernel "
        "smoothed outcome r̂_σ (reflected at 0 and 1) under the smoothed score density "
        "δ̂_σ, at the bandwidth σ* with smECE_σ* = σ*",
        (Reference("Blasiok2024", "sections 3-4"),),
        _smece, _REFIT_UPPER, settings=("view",), bounds=(0.0, 1.0),
        scaling=("exact", "kernel smoothing on its 10 node grids (20,762 float64 node "
                          "sums per group, default view) while a state holds at most 64 "
                          "groups (StatsConfig.smooth_groups); else on the uniform sample",
                 "none", "each Poisson replicate would need its own node masses (n_boot x "
                 "20,762 sums per group); run the pandas accessor with ci on the rows")),
    Metric(
        "classwise_ece", "Class-wise ECE", "calibration", "lower",
        "mean over classes k of the binned ECE of p_k against 1[y = k], n_bins "
        "equal-width bins over all rows",
        (Reference("Nixon2019", "section 3"), Reference("Kumar2019", "section 3")),
        _classwise_ece, _REFIT_UPPER, needs=frozenset({"proba"}), settings=("n_bins",),
        bounds=(0.0, 1.0),
        scaling=("exact", "exact sums of p_k and 1[y = k] per class and uniform bin",
                 "none", "no Poisson replicate holds the class-wise bins; run the pandas "
                 "accessor with ci on the rows")),
    Metric(
        "debiased_ece", "Debiased ECE (L2)", "calibration", "lower",
        "√max(0, Σ_b (|B_b|/N)·[(ȳ_b − s̄_b)² − ȳ_b(1 − ȳ_b)/(|B_b| − 1)]) over n_bins "
        "equal-mass bins: the squared plug-in gap minus its sampling variance",
        (Reference("Kumar2019", "section 5, Definition 5.2"),),
        _debiased_ece, _REFIT_UPPER, settings=("view", "n_bins"), bounds=(0.0, 1.0),
        scaling=("sampled", "equal-mass bins on a fixed-size uniform sample per group; "
                 "exact by a second pass with exact_debiased=True (Dask, Polars)",
                 *_CI_SAMPLED)),
    Metric(
        "eci", "Estimated calibration index (ECI)", "calibration", "lower",
        "ECI = 100 · mean over rows of (ĝ(sᵢ) − sᵢ)², ĝ the LOWESS calibration curve",
        (Reference("VanHoorde2015", "section 2"),),
        _eci, _REFIT_UPPER, needs=frozenset({"counts"}), settings=("view",),
        bounds=(0.0, 100.0),
        scaling=("sampled", "LOWESS on a fixed-size uniform sample per group",
                 *_CI_SAMPLED)),
    Metric(
        "corp_mcb", "CORP miscalibration (MCB)", "calibration", "lower",
        "MCB = S(p) − S(p̂_PAV): Brier score of the scores minus that of their isotonic "
        "(PAV) recalibration; S = MCB − DSC + UNC",
        (Reference("Dimitriadis2021", "Eq. 3 and section 3"),),
        _corp("mcb"), _REFIT_UPPER, settings=("view",), bounds=(0.0, 1.0),
        scaling=("sampled", "isotonic (PAV) fit on a fixed-size uniform sample per group",
                 *_CI_SAMPLED)),
    Metric(
        "corp_dsc", "CORP discrimination (DSC)", "calibration", "higher",
        "DSC = S(ȳ) − S(p̂_PAV): Brier score of the base rate minus that of the PAV "
        "recalibration",
        (Reference("Dimitriadis2021", "Eq. 3 and section 3"),),
        _corp("dsc"), Interval("refit", method="basic", reason=_REFIT_WHY),
        settings=("view",), bounds=(0.0, 1.0),
        scaling=("sampled", "isotonic (PAV) fit on a fixed-size uniform sample per group",
                 *_CI_SAMPLED)),
    Metric(
        "corp_unc", "CORP uncertainty (UNC)", "calibration", "target",
        "UNC = S(ȳ) = ȳ(1 − ȳ): Brier score of the base rate (a property of the data)",
        (Reference("Dimitriadis2021", "Eq. 3 and section 3"),),
        _corp("unc"), Interval("refit", method="lower", reason=_REFIT_WHY),
        settings=("view",), target=0.0, bounds=(0.0, 0.25),
        scaling=("exact", "base rate from exact sums", *_CI_POISSON)),
    # --- calibration tests: p-values, higher is less evidence of miscalibration ---
    Metric(
        "ecce_ks_p", "ECCE Kolmogorov-Smirnov p-value", "calibration", "higher",
        ECCE_KS_FORMULA, (Reference("ArrietaIbarra2022", "section 2"),
                          Reference("Tygert2022", "section 2")),
        ecce_compute("ks_pvalue"), Interval("none", reason=P_VALUE_NO_INTERVAL),
        settings=("view",), nan_reason=ECCE_NAN, bounds=(0.0, 1.0),
        scaling=("sampled", SAMPLED_TEST_NOTE, *_CI_SAMPLED)),
    Metric(
        "ecce_kuiper_p", "ECCE Kuiper p-value", "calibration", "higher",
        ECCE_KUIPER_FORMULA, (Reference("ArrietaIbarra2022", "section 2"),
                              Reference("Feller1951")),
        ecce_compute("kuiper_pvalue"), Interval("none", reason=P_VALUE_NO_INTERVAL),
        settings=("view",), nan_reason=ECCE_NAN, bounds=(0.0, 1.0),
        scaling=("sampled", SAMPLED_TEST_NOTE, *_CI_SAMPLED)),
    Metric(
        "tcal_p", "T-Cal p-value (adaptive debiased ℓ2-ECE test)", "calibration", "higher",
        TCAL_FORMULA, (Reference("Lee2023", "sections 3.1-3.3"),),
        tcal_compute, Interval("none", reason=P_VALUE_NO_INTERVAL),
        settings=("view", "seed"), bounds=(0.0, 1.0),
        scaling=("sampled", SAMPLED_TEST_NOTE, *_CI_SAMPLED)),
)
