"""Per-row columns and finishers: the sum form of the registry's metrics.

:func:`row_columns` gives the per-row terms whose weighted sums hold a metric.
Each finisher takes those sums -- the bootstrap's replicate sums
(:class:`calreport.bootstrap.kernels.ReplicateSums`), the grouped sums of
:mod:`calreport._segmented`, or a merged out-of-core state's sums
(:class:`calreport.stats.finish.StateSums`) -- and the settings (only ``min_count``
is read) and returns one value per replicate (or group) with the point
computation's formula.  The registry entries name them in ``Interval.finish``; the
out-of-core finisher calls them through the registry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from calreport.metrics import risk, scoring
from calreport.profile import ConfidenceProfile
from calreport.settings import Settings

__all__ = [
    "AT_MOST",
    "COLUMNS",
    "PAIRWISE",
    "SIGNED",
    "WEIGHT_DEGREE",
    "Ratio",
    "auc",
    "aurc",
    "cwauc",
    "delta_auc",
    "ece",
    "gain",
    "mce",
    "p_risk",
    "ratio",
    "row_columns",
    "sigma",
    "signed_ece",
    "z",
]


#: Every per-row column :func:`row_columns` gives, in a fixed order.  The out-of-core
#: state and its Poisson replicates sum each of them by name
#: (:mod:`calreport.stats`), so a metric whose finisher reads these columns is
#: merged and bootstrapped out of core with no code there: a new column added
#: here (and to :func:`row_columns`) is summed everywhere.
COLUMNS = ("one", "correct", "c_correct", "c", "c2", "top_brier", "top_log_loss", "csr", "odds",
           "csr_var2", "sel", "sel_correct", "cwsa", "cwsa_plus", "brier", "log_loss")
#: Columns whose row terms can be negative: exact sums hold non-negative values, so
#: the state sums their positive and negative parts apart (``name`` and
#: ``name + "_neg"``, :data:`calreport.stats.config.SCALARS`).
SIGNED = frozenset({"cwsa"})
#: Columns whose row term carries the sample weight itself, with the degree in the
#: weights of their weighted sum (every other column sums to degree 1): with
#: importance weights ``csr_var2`` is ``w c/(1-c)``, so ``Σ w csr_var2`` is of degree 2.
WEIGHT_DEGREE = {"csr_var2": 2}
#: Row by row, the term of a column is at most that of each column listed (``cwsa``
#: and ``cwsa_neg`` are the positive and negative parts of the signed column), so the
#: weighted sums keep the same order: a stored state that breaks it was altered
#: (:func:`calreport.stats.state.check_state`).  Columns absent here (log losses,
#: CSR, odds, Brier) have no per-row ceiling among the columns.
AT_MOST = {"correct": ("one",), "c": ("one",), "c2": ("c",), "c_correct": ("c", "correct"),
           "top_brier": ("one",), "sel": ("one",), "sel_correct": ("sel", "correct"),
           "cwsa_plus": ("sel_correct",), "cwsa": ("cwsa_plus",), "cwsa_neg": ("sel",)}


def row_columns(p: ConfidenceProfile, s: Settings,
                keep: set[str] | None = None) -> dict[str, np.ndarray]:
    """Per-row quantities whose weighted sums give the plain summary metrics.

    The registry names the columns each metric needs
    (:attr:`calreport.registry.Interval.columns`); ``keep`` restricts the
    computation to those (default: all of :data:`COLUMNS`; ``"brier"`` and
    ``"log_loss"`` only with class probabilities and labels); ``"one"`` is always
    there.  The grouped sums, the bootstrap's replicates and the out-of-core state
    all sum these columns (``"odds"`` is c/(1 - c), unweighted).  Each column is
    the per-row term of the core computation with the same clipping, so a
    replicate's value equals the core metric on the resampled rows.
    """

    def want(*names: str) -> bool:
        return keep is None or any(k in keep for k in names)

    n = p.n
    corr = p.correct.astype(np.float64)
    cols: dict[str, np.ndarray] = {"one": np.ones(n)}
    if want("correct"):
        cols["correct"] = corr
    if want("c_correct"):
        cols["c_correct"] = p.conf * corr
    if want("c"):
        cols["c"] = p.conf
    if want("c2"):  # sharpness, the variance of the confidences
        cols["c2"] = p.conf * p.conf
    if want("top_brier"):  # the top-label Brier score
        cols["top_brier"] = (p.conf - corr) ** 2
    if want("top_log_loss"):
        cols["top_log_loss"] = scoring.top_label_log_terms(p.conf, corr)
    if want("csr", "csr_var2", "odds"):
        c_clip, _ = risk.clip_confidence(p.conf, eps=s.eps, warn=False)
        if want("csr"):
            cols["csr"] = (1.0 - corr) / (1.0 - c_clip)
        if want("csr_var2", "odds"):
            # summed with weight w: sum w * (w c/(1-c)) = sum w^2 c/(1-c) for
            # importance weights; frequency weights count rows: sum w c/(1-c)
            var = c_clip / (1.0 - c_clip)
            cols["odds"] = var
            importance = p.sample_weight is not None and p.weights == "importance"
            cols["csr_var2"] = var * p.sample_weight if importance else var
    if want("sel", "sel_correct", "cwsa", "cwsa_plus"):
        tau = s.tau
        sel = (p.conf >= tau).astype(np.float64)
        phi = np.where(sel > 0, (p.conf - tau) / (1.0 - tau), 0.0)
        cols["sel"] = sel
        if want("sel_correct"):  # coverage and selective accuracy at tau
            cols["sel_correct"] = sel * corr
        if want("cwsa"):
            cols["cwsa"] = phi * (2.0 * corr - 1.0)
        if want("cwsa_plus"):
            cols["cwsa_plus"] = phi * corr
    if p.has_proba and p.y_true is not None and want("brier", "log_loss"):
        pt = p.true_class_proba()  # the true class's probability, gathered once
        if want("brier"):
            if p.score is not None:
                cols["brier"] = (p.score - (p.y_true == 1)) ** 2
            else:
                cols["brier"] = np.square(p.proba).sum(axis=1) - 2.0 * pt + 1.0
        if want("log_loss"):
            np.clip(pt, scoring.LOG_LOSS_EPS, 1.0 - scoring.LOG_LOSS_EPS, out=pt)
            cols["log_loss"] = -np.log(pt)
    return cols


@dataclass(frozen=True)
class Ratio:
    """Finisher of a ratio of two weighted column sums, ``Σ w num / Σ w den``.

    Its two column names are read by the analytic interval (the delta method of a
    ratio, or the standard error of a mean when ``den`` is ``"one"``).
    """

    num: str
    den: str = "one"

    def __call__(self, k: Any, s: Settings) -> np.ndarray:
        return k.ratio(self.num, self.den)


def ratio(num: str, den: str = "one") -> Ratio:
    """The finisher ``Σ w num / Σ w den`` (a weighted mean when ``den`` is ``"one"``)."""
    return Ratio(num, den)


def gain(k: Any, s: Settings) -> np.ndarray:
    acc, cwa = k.ratio("correct"), k.ratio("c_correct", "c")
    return (cwa - acc) / (1.0 - np.minimum(cwa, acc))


def sigma(k: Any, s: Settings) -> np.ndarray:
    return np.sqrt(k.sum("csr_var2")) / k.sum("one")


def z(k: Any, s: Settings) -> np.ndarray:
    return (k.ratio("csr") - 1.0) / sigma(k, s)


def p_risk(k: Any, s: Settings) -> np.ndarray:
    # the paper's Phi(z) on both sides of CSR = 1 (arXiv:2605.01796, section 2.1)
    return np.asarray(special.ndtr(z(k, s)), dtype=np.float64)


def ece(k: Any, s: Settings) -> np.ndarray:
    return np.abs(k.per_bin("bin_diff")).sum(axis=1) / k.sum("one")


def signed_ece(k: Any, s: Settings) -> np.ndarray:
    return -k.per_bin("bin_diff").sum(axis=1) / k.sum("one")


def mce(k: Any, s: Settings) -> np.ndarray:
    cnt, dsum = k.per_bin("one"), k.per_bin("bin_diff")
    occ = k.bin_occupancy()
    ok = (cnt > 0) & (occ >= s.min_count * (1.0 - 1e-12))
    gaps = np.where(ok, np.abs(dsum) / np.where(cnt > 0, cnt, 1.0), -np.inf)
    mce = gaps.max(axis=1)
    return np.where(np.isfinite(mce), mce, np.nan)


def auc(k: Any, s: Settings) -> np.ndarray:
    return k.auc()[0]


def cwauc(k: Any, s: Settings) -> np.ndarray:
    return k.auc()[1]


def delta_auc(k: Any, s: Settings) -> np.ndarray:
    auc, cw = k.auc()
    return cw - auc


#: Finishers that read the pair sums of the ranking (``k.auc()``): the sums must
#: hold the AUC's per-class pair sums for them
PAIRWISE = (auc, cwauc, delta_auc)


def aurc(k: Any, s: Settings) -> np.ndarray:
    return k.aurc()
