"""The metric registry: the one place where each summary metric is described.

One :class:`Metric` entry per metric holds its name (the summary column), label,
direction, formula (plain text, shown in the report), references, what it needs,
which settings change it, its point computation, how its interval is obtained and
why it can be NaN.  The summary's columns and order, the report's methods section
and tables, the JSON ``metrics`` entries and the bootstrap's kernel list all come
from :data:`REGISTRY`; nothing else restates these facts.

Adding a metric means one entry here, its core function in
:mod:`calreport.metrics`, and its tests (the registry-driven tests then check the
bootstrap kernel against the core computation and grouped against per-subset
results automatically).

Examples
--------
>>> REGISTRY["csr"].label
'Calibrated Size Ratio (CSR)'
>>> REGISTRY["ece"].direction
'lower'
>>> [m for m in REGISTRY][:3]
['accuracy', 'cwa', 'gain']
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calreport import _finishers as fin
from calreport import references
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
from calreport.metrics import binned, ranking, risk, scoring, selective, weighted
from calreport.profile import ConfidenceProfile
from calreport.settings import Settings

__all__ = [
    "COUNT_COLUMNS",
    "REGISTRY",
    "Interval",
    "Metric",
    "MetricCache",
    "Reference",
    "resolve_metrics",
]

#: Counts that lead every summary, before the metrics (``n`` and ``n_eff``:
#: :func:`calreport.metrics.weighted.sample_sizes`).
COUNT_COLUMNS = ("n", "n_dropped", "n_clipped", "n_eff")

#: Why a metric whose fit counts rows refuses importance weights (``needs`` "counts").
COUNTS_ONLY = ("not defined with importance weights: its fit counts rows (the floor(frac "
               "* n) nearest rows of every LOWESS fit, or bins of 20-100 rows and binomial "
               "counts of hits), which relative weights do not define; pass whole-number "
               "counts with weights='frequency' (equal to repeated rows)")

#: Labels of the count columns (report, JSON).
COUNT_LABELS = {"n": "Rows", "n_dropped": "Rows dropped (missing values)",
                "n_clipped": "Confidences clipped for CSR",
                "n_eff": "Effective size (Kish)"}


@dataclass(frozen=True)
class Reference:
    """A citation of a metric: a key of :data:`calreport.references.REFERENCES` and
    the section, definition or equation that defines it."""

    key: str
    where: str = ""

    def text(self) -> str:
        """Full citation with the section."""
        return references.cite(self.key, self.where or None)

    def short(self) -> str:
        """Author-year form with the section, e.g. ``Guo et al. (2017), section 5``."""
        s = references.short(self.key)
        return f"{s}, {self.where}" if self.where else s


@dataclass(frozen=True)
class Metric:
    """One summary metric.

    Attributes
    ----------
    name : str
        Summary column, accessor method and JSON key.
    label : str
        Human-readable name (report).
    family : str
        Group of metrics in the report (risk, accuracy, calibration, scores,
        ranking, selective).
    direction : {"higher", "lower", "target"}
        Higher is better, lower is better, or closer to ``target`` is better.
    target : float or None
        The ideal value when ``direction == "target"`` (e.g. CSR = 1).
    formula : str
        Plain-text definition (Unicode, no LaTeX), printed in the report.
    references : tuple of Reference
    needs : frozenset of str
        ``"labels"`` (true and predicted labels), ``"proba"`` (class
        probabilities), ``"unweighted"`` (no sample weights), ``"counts"`` (no
        weights or frequency weights: the fit counts rows, :data:`COUNTS_ONLY`).
    settings : tuple of str
        Fields of :class:`~calreport.settings.Settings` that change the value.
    compute : callable
        ``compute(profile, settings, cache) -> float``: the point estimate.
    interval : Interval
    nan_reason : str
        Why the metric can be NaN on a valid profile.
    percent : bool
        Shown as a percentage in reports.
    bounds : tuple of float
        The range of the metric; interval bounds are clipped to it (a basic or
        normal interval can otherwise leave it, e.g. a negative ECE).
    scaling : tuple of (str, str, str, str)
        How the Dask accessor and the streaming accumulator compute it and its
        interval: ``(kind, note, interval, interval_note)`` with kind ``"exact"``
        (merged sums), ``"bounded"``, ``"sampled"`` or ``"none"``, interval
        ``"poisson"`` (Poisson bootstrap replicates merged with the sums),
        ``"delong"`` or ``"none"``, and one-line notes saying how, or why there is no
        interval (:mod:`calreport.stats.scaling`).
    """

    name: str
    label: str
    family: str
    direction: str
    formula: str
    references: tuple[Reference, ...]
    compute: Callable[[ConfidenceProfile, Settings, MetricCache], float]
    interval: Interval
    nan_reason: str = "undefined for this profile"
    needs: frozenset[str] = frozenset()
    settings: tuple[str, ...] = ()
    target: float | None = None
    percent: bool = False
    bounds: tuple[float, float] = (-math.inf, math.inf)
    scaling: tuple[str, str, str, str] = ("none", "not available out of core", "none",
                                          "not available out of core")

    @property
    def higher_is_better(self) -> bool | None:
        """True / False, or None for a target-valued metric."""
        return {"higher": True, "lower": False}.get(self.direction)

    def citation(self) -> str:
        """Short citations, e.g. ``Martin-Maroto et al. (2026), section 2.1``."""
        return "; ".join(r.short() for r in self.references)

    def missing_need(self, p: ConfidenceProfile) -> str | None:
        """Why this profile cannot define the metric, or None."""
        if "proba" in self.needs and (not p.has_proba or p.y_true is None):
            return "needs class probabilities and true labels"
        if "labels" in self.needs and not p.has_labels:
            return "needs true and predicted labels"
        if "unweighted" in self.needs and p.sample_weight is not None:
            return "not defined with sample weights"
        if "counts" in self.needs and p.sample_weight is not None and p.weights != "frequency":
            return COUNTS_ONLY
        return None


# ---------------------------------------------------------------------- shared work
@dataclass
class MetricCache:
    """Results shared by several metrics of one profile (computed once per summary).

    ``metrics`` names the metrics the cache serves, when the caller knows them: the
    AUC and the cwAUC share one sort per class, so both are computed together unless
    ``metrics`` shows that only one of them is wanted (a scalar ``auc()`` call then
    skips the cwAUC's pass, and ``cwauc()`` the AUC's).  None: computed together.
    """

    values: dict[str, Any] = field(default_factory=dict)
    metrics: frozenset[str] | None = None

    def risk(self, p: ConfidenceProfile, s: Settings) -> risk.RiskResult:
        """CSR, sigma, z and P_risk of the profile (the Monte Carlo null is not cheap)."""
        if "risk" not in self.values:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", risk.ClippedConfidenceWarning)
                self.values["risk"] = risk.risk_summary(
                    p.conf, p.correct, sample_weight=p.sample_weight, eps=s.eps,
                    method=s.p_risk_method, seed=s.mc_seed, **_weights_kw(p))
        return self.values["risk"]

    def auc_pair(self, p: ConfidenceProfile) -> tuple[float, float]:
        """Macro AUC and cwAUC over the classes with positives and negatives."""
        return self.ranking(p, "auc"), self.ranking(p, "cwauc")

    def ranking(self, p: ConfidenceProfile, which: str) -> float:
        """Macro ``"auc"`` or ``"cwauc"``; the other one too unless :attr:`metrics`
        shows it is not wanted (both come from the same sort of each class)."""
        key = ("ranking", which)
        if key not in self.values:
            wanted = {"auc", "cwauc"}
            if self.metrics is not None and "delta_auc" not in self.metrics:
                wanted = (wanted & set(self.metrics)) | {which}
            todo = {m for m in wanted if ("ranking", m) not in self.values}
            # binary: the positive class's AUC (the other class's is the same pairs
            # counted the other way), as scikit-learn; validated rows, a bool mask
            if p.score is not None:
                a, cw = ranking._binary_auc(
                    p.score, p.y_true == 1, p.conf if "cwauc" in todo else None,
                    p.sample_weight, want_auc="auc" in todo, threshold=p.threshold)
                per_auc, per_cw = np.array([a]), np.array([cw])
            else:
                per_auc, per_cw = ranking._per_class(
                    p.y_true, p.proba, p.conf, p.sample_weight, with_cw="cwauc" in todo,
                    want_auc="auc" in todo, threshold=p.threshold)
            if "auc" in todo:
                self.values[("ranking", "auc")] = _nanmean(per_auc)
            if "cwauc" in todo:
                self.values[("ranking", "cwauc")] = _nanmean(per_cw)
        return self.values[key]

    def drop_trees(self) -> None:
        """Free the LOWESS moment trees of :meth:`sorted_view` (its last user is done)."""
        for key, val in self.values.items():
            if isinstance(key, tuple) and key[0] == "sorted":
                val[2].clear()

    def sorted_view(self, p: ConfidenceProfile, s: Settings
                    ) -> tuple[np.ndarray, np.ndarray, dict[int, Any]]:
        """The view's scores sorted ascending, their 0/1 outcomes, and the LOWESS moment
        trees built on them: one sort and one tree shared by LCS, ECI and CORP."""
        key = ("sorted", s.view)
        if key not in self.values:
            from calreport.metrics import local

            self.values[key] = (*local._sorted_sample(*_view(p, s)), {})
        return self.values[key]


def _weights_kw(p: ConfidenceProfile) -> dict[str, Any]:
    """The declared meaning of the weights, for the core functions that take it."""
    return {} if p.sample_weight is None else {"weights": p.weights}


def _nanmean(x: np.ndarray) -> float:
    x = np.asarray(x, dtype=np.float64)
    ok = ~np.isnan(x)
    return float(x[ok].mean()) if ok.any() else math.nan


def _w(p: ConfidenceProfile) -> np.ndarray | None:
    return p.sample_weight


def _view(p: ConfidenceProfile, s: Settings) -> tuple[np.ndarray, np.ndarray]:
    return p.view(s.view)


def _scoring_args(p: ConfidenceProfile) -> tuple[np.ndarray, np.ndarray]:
    # a binary profile's label codes are 0/1 (classes[1] the positive class)
    return p.y_true, (p.score if p.score is not None else p.proba)


def _lcs(p: ConfidenceProfile, s: Settings, cache: MetricCache) -> float:
    from calreport.metrics import _local_units, local

    if p.sample_weight is not None:  # frequency weights (the "counts" need)
        return _local_units.lcs_counts(*_view(p, s), p.sample_weight)
    score, outcome, trees = cache.sorted_view(p, s)
    frac, k = local._check_sorted(score, "lowess", local.DEFAULT_FRAC)
    return local._lcs_sorted(score, outcome, method="lowess", frac=frac, k=k, trees=trees)


def _tce_bpm(p: ConfidenceProfile, s: Settings, cache: MetricCache) -> float:
    from calreport.metrics import bpm

    return float(bpm.tce_bpm(*_view(p, s), sample_weight=_w(p), **_weights_kw(p)))


def _smece(p: ConfidenceProfile, s: Settings, cache: MetricCache) -> float:
    from calreport.metrics import smooth

    return float(smooth.smece(*_view(p, s), sample_weight=_w(p)))


def _classwise_ece(p: ConfidenceProfile, s: Settings, cache: MetricCache) -> float:
    from calreport.metrics import classwise

    return float(classwise.classwise_ece(p.y_true, p.proba_or_score, n_bins=s.n_bins,
                                         sample_weight=_w(p)))


def _debiased_ece(p: ConfidenceProfile, s: Settings, cache: MetricCache) -> float:
    from calreport.metrics import debiased

    if p.sample_weight is not None:
        return float(debiased.debiased_ece(*_view(p, s), n_bins=s.n_bins,
                                           sample_weight=_w(p), **_weights_kw(p)))
    score, outcome, _ = cache.sorted_view(p, s)
    return math.sqrt(max(debiased._squared_sorted(score, outcome, s.n_bins, "equal_mass"),
                         0.0))


def _eci(p: ConfidenceProfile, s: Settings, cache: MetricCache) -> float:
    from calreport.metrics import _local_units, calibration_index, local

    if p.sample_weight is not None:  # frequency weights (the "counts" need)
        return _local_units.eci_counts(*_view(p, s), p.sample_weight)
    score, outcome, trees = cache.sorted_view(p, s)
    frac, k = local._check_sorted(score, "lowess", local.DEFAULT_FRAC)
    return calibration_index._eci_sorted(score, outcome, method="lowess", frac=frac, k=k,
                                         trees=trees)


def _corp(term: str) -> Callable[[ConfidenceProfile, Settings, MetricCache], float]:
    def compute(p: ConfidenceProfile, s: Settings, cache: MetricCache) -> float:
        from calreport.metrics import corp

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


_ENTRIES: tuple[Metric, ...] = (
    Metric(
        "accuracy", "Accuracy", "accuracy", "higher",
        "Acc = Σ wᵢ·1[ŷᵢ = yᵢ] / Σ wᵢ",
        (Reference(_M26, "Definition 1"),),
        lambda p, s, c: weighted.accuracy(p.correct, sample_weight=_w(p)),
        Interval(columns=("correct",), finish=fin.ratio("correct"), analytic="mean"),
        nan_reason="all sample weights are zero", bounds=(0.0, 1.0),
        scaling=("exact", _MERGED, *_CI_POISSON)),
    Metric(
        "cwa", "Confidence-weighted accuracy (cwA)", "accuracy", "higher",
        "cwA = Σ cᵢ·1[ŷᵢ = yᵢ] / Σ cᵢ, c = confidence in the predicted class",
        (Reference(_M26, "section 2.2, Definition 4"),),
        lambda p, s, c: weighted.cwa(p.conf, p.correct, sample_weight=_w(p)),
        Interval(columns=("c_correct", "c"), finish=fin.ratio("c_correct", "c"),
                 analytic="ratio"),
        nan_reason="every confidence is 0", bounds=(0.0, 1.0),
        scaling=("exact", _MERGED, *_CI_POISSON)),
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
        scaling=("exact", _MERGED, *_CI_POISSON)),
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
        "z = (CSR − 1) / σ_CSR; bands z ≤ 1 no evidence, 1 < z ≤ 3 evidence, z > 3 risky",
        (Reference(_M26, "section 2.1"),),
        lambda p, s, c: c.risk(p, s).z_csr,
        Interval(columns=("csr", "csr_var2"), finish=fin.z),
        settings=("eps",), nan_reason="σ_CSR is 0 (all confidences are 0)",
        scaling=("exact", _MERGED, *_CI_POISSON)),
    Metric(
        "p_risk", "P_risk", "risk", "lower",
        "P_risk = P(CSR under calibration < observed CSR) when CSR > 1, else 0; by the "
        "normal approximation Φ(z) where it is valid, else by Monte Carlo of the null "
        "correctᵢ ~ Bernoulli(cᵢ)",
        (Reference(_M26, "section 2.1 and Table 6; section 4 on small N"),),
        lambda p, s, c: c.risk(p, s).p_risk,
        Interval("none", reason=P_RISK_NO_INTERVAL),
        settings=("eps", "p_risk_method", "seed"), percent=True,
        nan_reason="σ_CSR is 0 (all confidences are 0)", bounds=(0.0, 1.0),
        scaling=("exact",
                 "the risk verdict's: Φ(z) from exact sums where the normal approximation "
                 "is valid, else the Monte Carlo null of the rows of largest variance "
                 "(kept exactly, StatsConfig.heavy_rows per group), as the pandas path",
                 "none", P_RISK_NO_INTERVAL)),
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
                 "histogram", *_CI_POISSON_UNIFORM)),
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
        scaling=("exact", _MERGED, *_CI_POISSON)),
    Metric(
        "log_loss", "Log loss", "scores", "lower",
        "−mean of log p_y, p clipped to [ε, 1 − ε] with ε the float64 machine epsilon, "
        "as scikit-learn",
        (Reference("Good1952"),),
        lambda p, s, c: scoring.log_loss(p.y_true, p.proba_or_score, sample_weight=_w(p)),
        Interval(columns=("log_loss",), finish=fin.ratio("log_loss"), analytic="mean"),
        needs=frozenset({"proba"}), bounds=(0.0, math.inf),
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
                 "on each side (binary labels, no sample weights; otherwise none)")),
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
        scaling=("sampled", "class-wise bins on a fixed-size uniform sample per group",
                 *_CI_SAMPLED)),
    Metric(
        "debiased_ece", "Debiased ECE (L2)", "calibration", "lower",
        "√max(0, Σ_b (|B_b|/N)·[(ȳ_b − s̄_b)² − ȳ_b(1 − ȳ_b)/(|B_b| − 1)]) over n_bins "
        "equal-mass bins: the squared plug-in gap minus its sampling variance",
        (Reference("Kumar2019", "section 5, Definition 5.2"),),
        _debiased_ece, _REFIT_UPPER, settings=("view", "n_bins"), bounds=(0.0, 1.0),
        scaling=("sampled", "equal-mass bins on a fixed-size uniform sample per group",
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

#: Every summary metric, in summary order.
REGISTRY: dict[str, Metric] = {m.name: m for m in _ENTRIES}


def resolve_metrics(metrics: Sequence[str] | str | None) -> list[str]:
    """Validate a metric selection (None = all, in registry order).

    Raises
    ------
    ValueError
        Naming the unknown metrics and listing the available ones.
    """
    if metrics is None:
        return list(REGISTRY)
    if isinstance(metrics, str):
        metrics = [metrics]
    metrics = list(metrics)
    unknown = [m for m in metrics if m not in REGISTRY]
    if unknown:
        raise ValueError(
            f"Unknown metric(s) {unknown}. Available: {', '.join(REGISTRY)}."
        )
    return list(dict.fromkeys(metrics))
