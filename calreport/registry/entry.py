"""What one registry entry is: a metric's description and the work its metrics share.

:class:`Metric` is one entry of :data:`calreport.registry.REGISTRY` (its name, label,
direction, formula, references, needs, settings, point computation, interval, where
it is shown); :class:`Reference` one of its citations.  :class:`MetricCache` holds
what several metrics of one profile share (the risk summary, one sort per class for
the AUC and the cwAUC, the sorted scores and LOWESS trees); every entry's
``compute`` receives it.  The entries themselves are in :mod:`calreport.registry`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calreport import references
from calreport.interval_rules import Interval
from calreport.metrics import local, ranking, risk
from calreport.profile import ConfidenceProfile
from calreport.settings import Settings

__all__ = ["COUNTS_ONLY", "TABLES", "Metric", "MetricCache", "Reference",
           "weights_kw"]

#: Why a metric whose fit counts rows refuses importance weights (``needs`` "counts").
COUNTS_ONLY = ("not defined with importance weights: its fit counts rows (the floor(frac "
               "* n) nearest rows of every LOWESS fit, or bins of 20-100 rows and binomial "
               "counts of hits), which relative weights do not define; pass whole-number "
               "counts with weights='frequency' (equal to repeated rows)")

#: The tables beyond the summary that list chosen metrics (``Metric.shown_in``): the
#: report's groups table, the key metrics of a verdict card, the paired comparison's
#: headline, the recalibration advisor's table, and the part of it the report prints.
TABLES = ("report_table", "card", "comparison", "recalibration", "report_recalibration")


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
    shown_in : dict of str to int
        The tables of :data:`TABLES` that list the metric, each with its position
        there (1 first), e.g. ``{"card": 2}``; a table's metrics in order:
        :func:`calreport.registry.shown_in`.
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
    shown_in: dict[str, int] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        unknown = set(self.shown_in) - set(TABLES)
        if unknown:
            raise ValueError(f"Metric {self.name!r}: shown_in names unknown tables "
                             f"{sorted(unknown)}; choose from {list(TABLES)}.")

    @property
    def unit_scale(self) -> bool:
        """Whether the metric lies within [-1, 1] (probabilities, rates, p-values): every
        output prints it in decimals, never in scientific notation."""
        return -1.0 <= self.bounds[0] and self.bounds[1] <= 1.0

    @property
    def higher_is_better(self) -> bool | None:
        """True / False, or None for a target-valued metric."""
        return {"higher": True, "lower": False}.get(self.direction)

    def citation(self) -> str:
        """Short citations, e.g. ``Martin-Maroto et al. (2026), section 2.1``."""
        return "; ".join(r.short() for r in self.references)

    def missing_need(self, p: ConfidenceProfile) -> str | None:
        """Why this profile cannot define the metric, or None."""
        return self.missing(has_proba=p.has_proba and p.y_true is not None,
                            has_labels=p.has_labels,
                            weights=None if p.sample_weight is None else p.weights)

    def missing(self, *, has_proba: bool, has_labels: bool, weights: str | None
                ) -> str | None:
        """Why data of this kind cannot define the metric, or None.

        Parameters
        ----------
        has_proba : bool
            Class probabilities (or a positive-class score) and true labels are given.
        has_labels : bool
            True and predicted labels are given.
        weights : {"importance", "frequency"} or None
            The kind of the sample weights; None when unweighted.
        """
        if "proba" in self.needs and not has_proba:
            return "needs class probabilities and true labels"
        if "labels" in self.needs and not has_labels:
            return "needs true and predicted labels"
        if "unweighted" in self.needs and weights is not None:
            return "not defined with sample weights"
        if "counts" in self.needs and weights not in (None, "frequency"):
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
                    method=s.p_risk_method, seed=s.mc_seed, **weights_kw(p))
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

    def sorted_view(self, p: ConfidenceProfile, s: Settings
                    ) -> tuple[np.ndarray, np.ndarray, dict[int, Any]]:
        """The view's scores sorted ascending, their 0/1 outcomes, and the LOWESS moment
        trees built on them: one sort and one tree shared by LCS, ECI and CORP."""
        key = ("sorted", s.view)
        if key not in self.values:
            self.values[key] = (*local._sorted_sample(*p.view(s.view)), {})
        return self.values[key]


def weights_kw(p: ConfidenceProfile) -> dict[str, Any]:
    """The declared meaning of the weights, for the core functions that take it.

    Parameters
    ----------
    p : ConfidenceProfile

    Returns
    -------
    dict
        ``{"weights": p.weights}`` when the profile has sample weights, else empty.
    """
    return {} if p.sample_weight is None else {"weights": p.weights}


def _nanmean(x: np.ndarray) -> float:
    x = np.asarray(x, dtype=np.float64)
    ok = ~np.isnan(x)
    return float(x[ok].mean()) if ok.any() else math.nan

