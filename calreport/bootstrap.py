"""Seeded, vectorised bootstrap confidence intervals for the summary metrics.

A bootstrap replicate of ``N`` rows drawn with replacement is represented by its
count vector ``w`` (how often each row was drawn).  Every summary metric is a
function of weighted sums over rows -- plain sums (accuracy, CSR, Brier), per-bin
sums (ECE, MCE) or cumulative sums along one fixed sort order (AUC, cwAUC, AURC) --
so a block of replicates is a ``(b, N)`` count matrix and all metrics of the block
come from a few matrix products and cumulative sums.  Nothing re-sorts the data or
rebuilds a DataFrame per replicate.  The metrics refitted from scratch on each
sample (``lcs``, ``tce_bpm``) get no interval here; their reason says so.

Intervals: ``"percentile"`` (Efron), ``"basic"``, and ``"analytic"`` (normal
intervals from influence functions: the delta method for ratio metrics, the
DeLong variance for AUC).  Seeds: one master seed spawns one child stream per
group (``numpy.random.SeedSequence.spawn``), so adding a group never changes the
replicates of another.
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special, stats

from calreport import _validate as v
from calreport.metrics import binned, risk
from calreport.profile import ConfidenceProfile
from calreport.summary import SummaryResult, SummarySettings

__all__ = ["BootstrapResult", "bootstrap_intervals", "bootstrap_replicates", "spawn_seeds"]

#: Metrics that the bootstrap cannot resample cheaply (they refit a curve).
REFIT_METRICS = frozenset({"lcs", "tce_bpm"})
_COUNTS = ("n", "n_dropped", "n_clipped")
_BLOCK_CELLS = 1 << 23  # rows x replicates per block (64 MiB of float64 counts)


class DegenerateReplicateWarning(UserWarning):
    """Some bootstrap replicates could not define a metric (e.g. a single class)."""


def spawn_seeds(seed: Any, n: int) -> list[np.random.SeedSequence]:
    """Child seed sequences of one master seed (int, SeedSequence, Generator or None)."""
    if isinstance(seed, np.random.Generator):
        ss = seed.bit_generator.seed_seq  # type: ignore[attr-defined]
    elif isinstance(seed, np.random.SeedSequence):
        ss = seed
    else:
        ss = np.random.SeedSequence(seed)
    return ss.spawn(n)


@dataclass(frozen=True)
class BootstrapResult:
    """Replicates and intervals of one profile.

    Attributes
    ----------
    replicates : dict
        Metric -> array of shape (n_boot,) (NaN where a replicate was degenerate).
    intervals : dict
        Metric -> (ci_low, ci_high).
    method, ci, n_boot
        Interval method, confidence level and number of replicates.
    reasons : dict
        Metric -> why it has no interval.
    """

    replicates: dict[str, np.ndarray]
    intervals: dict[str, tuple[float, float]]
    method: str
    ci: float
    n_boot: int
    reasons: dict[str, str]


# --------------------------------------------------------------------------- kernels
class _Kernels:
    """Precomputed per-row quantities and sort orders of one profile."""

    def __init__(self, p: ConfidenceProfile, s: SummarySettings, names: Sequence[str]):
        self.names = [n for n in names if n not in _COUNTS]
        n = p.n
        base = np.ones(n) if p.sample_weight is None else p.sample_weight.astype(np.float64)
        self.base = base
        c_clip, _ = risk.clip_confidence(p.conf, eps=s.eps, warn=False)
        corr = p.correct.astype(np.float64)
        cols: dict[str, np.ndarray] = {
            "one": np.ones(n), "correct": corr, "c_correct": p.conf * corr, "c": p.conf,
            "csr": (1.0 - corr) / (1.0 - c_clip), "csr_var": c_clip / (1.0 - c_clip),
        }
        tau = s.tau
        sel = (p.conf >= tau).astype(np.float64)
        phi = np.where(sel > 0, (p.conf - tau) / (1.0 - tau), 0.0)
        cols["sel"] = sel
        cols["cwsa"] = phi * (2.0 * corr - 1.0)
        cols["cwsa_plus"] = phi * corr
        if p.proba is not None and p.y_true is not None:
            if p.score is not None:
                y = (p.y_true == 1).astype(np.float64)
                cols["brier"] = (p.score - y) ** 2
                pt = np.where(y > 0, p.score, 1.0 - p.score)
            else:
                onehot = np.zeros_like(p.proba)
                onehot[np.arange(n), p.y_true] = 1.0
                cols["brier"] = ((p.proba - onehot) ** 2).sum(axis=1)
                pt = p.proba[np.arange(n), p.y_true]
            eps = np.finfo(np.float64).eps
            cols["log_loss"] = -np.log(np.clip(pt, eps, 1.0))
        self.col_names = list(cols)
        self.matrix = np.column_stack([cols[k] for k in self.col_names])
        self.col = {k: i for i, k in enumerate(self.col_names)}
        # binned: one fixed assignment of rows to bins (edges from the full sample)
        score, outcome = p.view(s.view)
        edges = binned.bin_edges(score, n_bins=s.n_bins, strategy=s.strategy)
        bins = binned.assign_bins(score, edges)
        self.bin_order = np.argsort(bins, kind="stable")
        sorted_bins = bins[self.bin_order]
        self.bin_starts = np.flatnonzero(np.r_[True, sorted_bins[1:] != sorted_bins[:-1]])
        self.bin_diff = (outcome - score)[self.bin_order]
        self.min_count = s.min_count
        # ranking: one sort per class
        self.auc_parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        if p.proba is not None and p.y_true is not None and {"auc", "cwauc", "delta_auc"} & set(
            self.names
        ):
            scores = [p.score] if p.score is not None else [p.proba[:, k] for k in
                                                            range(p.proba.shape[1])]
            labels = [p.y_true == 1] if p.score is not None else [p.y_true == k for k in
                                                                  range(p.proba.shape[1])]
            for sc, pos in zip(scores, labels, strict=True):
                if pos.all() or not pos.any():
                    continue
                order = np.argsort(sc, kind="stable")
                ss = sc[order]
                starts = np.flatnonzero(np.r_[True, ss[1:] != ss[:-1]])
                self.auc_parts.append((order, starts, pos[order].astype(np.float64),
                                       p.conf[order]))
        # AURC: rows by decreasing confidence, ties grouped
        order = np.argsort(-p.conf, kind="stable")
        cs = p.conf[order]
        self.aurc_order = order
        self.aurc_starts = np.flatnonzero(np.r_[True, cs[1:] != cs[:-1]])
        self.aurc_err = 1.0 - corr[order]

    def evaluate(self, w: np.ndarray) -> dict[str, np.ndarray]:
        """All metrics for a block of replicate weights ``w`` of shape (b, N)."""
        out: dict[str, np.ndarray] = {}
        sums = w @ self.matrix
        col = self.col
        tot = sums[:, col["one"]]
        with np.errstate(divide="ignore", invalid="ignore"):
            acc = sums[:, col["correct"]] / tot
            cwa = sums[:, col["c_correct"]] / sums[:, col["c"]]
            csr = sums[:, col["csr"]] / tot
            sig = np.sqrt(sums[:, col["csr_var"]]) / tot
            z = (csr - 1.0) / sig
            out.update(accuracy=acc, cwa=cwa, csr=csr, sigma_csr=sig, z_csr=z)
            out["gain"] = (cwa - acc) / (1.0 - np.minimum(cwa, acc))
            out["p_risk"] = np.where(csr > 1.0, special.ndtr(z), 0.0)
            out["p_risk"][np.isnan(z)] = np.nan
            sel = sums[:, col["sel"]]
            out["cwsa"] = sums[:, col["cwsa"]] / sel
            out["cwsa_plus"] = sums[:, col["cwsa_plus"]] / sel
            if "brier" in col:
                out["brier"] = sums[:, col["brier"]] / tot
                out["log_loss"] = sums[:, col["log_loss"]] / tot
            wb = w[:, self.bin_order]
            cnt = np.add.reduceat(wb, self.bin_starts, axis=1)
            dsum = np.add.reduceat(wb * self.bin_diff, self.bin_starts, axis=1)
            out["ece"] = np.abs(dsum).sum(axis=1) / tot
            out["signed_ece"] = -dsum.sum(axis=1) / tot
            gaps = np.where(cnt >= self.min_count, np.abs(dsum) / cnt, -np.inf)
            mce = gaps.max(axis=1)
            out["mce"] = np.where(np.isfinite(mce), mce, np.nan)
            if self.auc_parts:
                aucs, cws = [], []
                for order, starts, pos, conf in self.auc_parts:
                    wk = w[:, order]
                    aucs.append(_batched_auc(wk, starts, pos))
                    cws.append(_batched_auc(wk * conf, starts, pos))
                a = _nanmean_rows(np.column_stack(aucs))
                cw = _nanmean_rows(np.column_stack(cws))
                out.update(auc=a, cwauc=cw, delta_auc=cw - a)
            wa = w[:, self.aurc_order]
            gw = np.add.reduceat(wa, self.aurc_starts, axis=1)
            ge = np.add.reduceat(wa * self.aurc_err, self.aurc_starts, axis=1)
            cum_w = np.cumsum(gw, axis=1)
            cum_e = np.cumsum(ge, axis=1)
            risk_g = np.where(cum_w > 0, cum_e / cum_w, 0.0)
            out["aurc"] = (gw * risk_g).sum(axis=1) / tot
        return {k: out[k] for k in self.names if k in out}


def _batched_auc(w: np.ndarray, starts: np.ndarray, pos_sorted: np.ndarray) -> np.ndarray:
    """Pair-weighted AUC for each row of ``w`` (weights in score order, ties grouped)."""
    wp = np.add.reduceat(w * pos_sorted, starts, axis=1)
    wn = np.add.reduceat(w * (1.0 - pos_sorted), starts, axis=1)
    below = np.cumsum(wn, axis=1) - wn
    num = (wp * (below + 0.5 * wn)).sum(axis=1)
    den = wp.sum(axis=1) * wn.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / den, np.nan)


def _nanmean_rows(x: np.ndarray) -> np.ndarray:
    ok = ~np.isnan(x)
    cnt = ok.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(cnt > 0, np.where(ok, x, 0.0).sum(axis=1) / cnt, np.nan)


# --------------------------------------------------------------------------- driver
def _progress(total: int, enabled: bool | None):
    if enabled is None:
        enabled = sys.stderr.isatty() and total >= 20
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        return None
    return tqdm(total=total, desc="bootstrap", unit="rep", leave=False)


def bootstrap_replicates(
    profile: ConfidenceProfile,
    *,
    metrics: Sequence[str],
    settings: SummarySettings | None = None,
    n_boot: int = 1000,
    seed: Any = None,
    progress: bool | None = None,
) -> dict[str, np.ndarray]:
    """Bootstrap replicates of the summary metrics of one profile.

    Rows are resampled with replacement (``n_boot`` samples of ``N`` rows); sample
    weights multiply the resampling counts.  Quantile bin edges are taken from the
    full sample and kept fixed across replicates.

    Parameters
    ----------
    profile : ConfidenceProfile
    metrics : list of str
    settings : SummarySettings, optional
    n_boot : int
    seed : int, SeedSequence, Generator or None
    progress : bool, optional
        Show a progress bar (default: only on a terminal for long runs).

    Returns
    -------
    dict
        Metric -> array of shape ``(n_boot,)``.
    """
    s = settings or SummarySettings()
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 2:
        raise ValueError(f"`n_boot` must be an integer >= 2, got {n_boot!r}.")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    k = _Kernels(profile, s, metrics)
    n = profile.n
    block = max(1, min(n_boot, _BLOCK_CELLS // max(n, 1)))
    out: dict[str, list[np.ndarray]] = {name: [] for name in k.names}
    bar = _progress(n_boot, progress)
    done = 0
    while done < n_boot:
        b = min(block, n_boot - done)
        idx = rng.integers(0, n, size=(b, n))
        idx += (np.arange(b) * n)[:, None]
        w = np.bincount(idx.ravel(), minlength=b * n).reshape(b, n).astype(np.float64)
        if profile.sample_weight is not None:
            w *= k.base
        for name, vals in k.evaluate(w).items():
            out[name].append(vals)
        done += b
        if bar is not None:
            bar.update(b)
    if bar is not None:
        bar.close()
    return {name: np.concatenate(vals) for name, vals in out.items() if vals}


def _interval(reps: np.ndarray, value: float, ci: float, method: str) -> tuple[float, float]:
    alpha = 1.0 - ci
    ok = reps[~np.isnan(reps)]
    if ok.size < max(2, reps.size // 2):
        return math.nan, math.nan
    lo, hi = np.quantile(ok, [alpha / 2, 1 - alpha / 2])
    if method == "basic":
        lo, hi = 2 * value - hi, 2 * value - lo
    return float(lo), float(hi)


def bootstrap_intervals(
    profile: ConfidenceProfile,
    result: SummaryResult,
    *,
    n_boot: int = 1000,
    ci: float = 0.95,
    method: str = "percentile",
    seed: Any = None,
    progress: bool | None = None,
    return_replicates: bool = False,
) -> Any:
    """Confidence intervals for the metrics of a :class:`SummaryResult`.

    Parameters
    ----------
    profile : ConfidenceProfile
    result : SummaryResult
        Point estimates from :func:`calreport.summary.summarize`.
    n_boot : int, default 1000
    ci : float, default 0.95
    method : {"percentile", "basic", "analytic"}
    seed : int, SeedSequence, Generator or None
    progress : bool, optional
    return_replicates : bool
        Return a :class:`BootstrapResult` instead of the interval dict.

    Returns
    -------
    dict or BootstrapResult
        Metric -> (ci_low, ci_high).

    Notes
    -----
    Degenerate replicates (e.g. a replicate with a single class for AUC) give NaN
    and a :class:`DegenerateReplicateWarning`; an interval needs at least half of
    the replicates defined.  See 002_848142561181ac46.txt, section 6 on bootstrap
    intervals for calibration metrics.
    """
    ci = float(ci)
    if not 0.0 < ci < 1.0:
        raise ValueError(f"`ci` must be in (0, 1), e.g. 0.95; got {ci!r}.")
    v.check_option(method, "method", ("percentile", "basic", "analytic"))
    names = [k for k in result.values if k not in _COUNTS]
    reasons: dict[str, str] = {}
    intervals: dict[str, tuple[float, float]] = {}
    reps: dict[str, np.ndarray] = {}
    if method == "analytic":
        intervals, reasons = analytic_intervals(profile, result, ci=ci)
    else:
        wanted = [k for k in names if k not in REFIT_METRICS]
        reps = bootstrap_replicates(profile, metrics=wanted, settings=result.settings,
                                    n_boot=n_boot, seed=seed, progress=progress)
        degenerate = {k: int(np.isnan(r).sum()) for k, r in reps.items()
                      if not math.isnan(result.values[k]) and np.isnan(r).any()}
        if degenerate:
            desc = ", ".join(f"{k}: {c}" for k, c in degenerate.items())
            warnings.warn(
                f"Some of the {n_boot} bootstrap replicates could not define a metric "
                f"({desc}); they are left out of the interval.",
                DegenerateReplicateWarning, stacklevel=2,
            )
        for k in names:
            if k in REFIT_METRICS:
                reasons[k] = "no bootstrap interval: the metric refits a curve on each sample"
                intervals[k] = (math.nan, math.nan)
            elif k in reps:
                intervals[k] = _interval(reps[k], result.values[k], ci, method)
    for k in ("n", "n_dropped", "n_clipped"):
        intervals.setdefault(k, (math.nan, math.nan))
    if return_replicates:
        return BootstrapResult(reps, intervals, method, ci, n_boot, reasons)
    return intervals


# ----------------------------------------------------------------------- analytic
def analytic_intervals(
    profile: ConfidenceProfile, result: SummaryResult, *, ci: float = 0.95
) -> tuple[dict[str, tuple[float, float]], dict[str, str]]:
    """Normal-approximation intervals from influence functions.

    Mean-type metrics (accuracy, CSR, Brier, log loss) use the standard error of
    the row contributions; ratio metrics (cwA, CWSA, CWSA+) the delta method; AUC
    the DeLong variance (binary problems).  Other metrics get no analytic interval.
    """
    zq = float(stats.norm.ppf(0.5 + ci / 2))
    k = _Kernels(profile, result.settings, list(result.values))
    m = k.matrix
    col = k.col
    w = k.base
    W = w.sum()
    n_eff = W**2 / (w**2).sum()

    def se_mean(x: np.ndarray) -> float:
        mu = (w * x).sum() / W
        return math.sqrt((w * (x - mu) ** 2).sum() / W / n_eff)

    def se_ratio(num: np.ndarray, den: np.ndarray) -> float:
        dbar = (w * den).sum() / W
        if dbar == 0:
            return math.nan
        r = (w * num).sum() / (w * den).sum()
        return se_mean((num - r * den) / dbar)

    se: dict[str, float] = {
        "accuracy": se_mean(m[:, col["correct"]]),
        "csr": se_mean(m[:, col["csr"]]),
        "cwa": se_ratio(m[:, col["c_correct"]], m[:, col["c"]]),
        "cwsa": se_ratio(m[:, col["cwsa"]], m[:, col["sel"]]),
        "cwsa_plus": se_ratio(m[:, col["cwsa_plus"]], m[:, col["sel"]]),
    }
    if "brier" in col:
        se["brier"] = se_mean(m[:, col["brier"]])
        se["log_loss"] = se_mean(m[:, col["log_loss"]])
    if profile.score is not None and profile.sample_weight is None:
        se["auc"] = _delong_se(profile.score, profile.y_true == 1)
    out: dict[str, tuple[float, float]] = {}
    reasons: dict[str, str] = {}
    for name, val in result.values.items():
        if name in _COUNTS:
            continue
        s = se.get(name)
        if s is None or math.isnan(s) or math.isnan(val):
            out[name] = (math.nan, math.nan)
            reasons[name] = "no analytic interval; use method='percentile'"
        else:
            out[name] = (val - zq * s, val + zq * s)
    return out, reasons


def _delong_se(score: np.ndarray, pos: np.ndarray) -> float:
    """DeLong et al. (1988) standard error of the binary AUC, via midranks."""
    x, y = score[pos], score[~pos]
    m, n = len(x), len(y)
    if m < 2 or n < 2:
        return math.nan
    rz = stats.rankdata(np.r_[x, y])
    rx, ry = stats.rankdata(x), stats.rankdata(y)
    v10 = (rz[:m] - rx) / n
    v01 = 1.0 - (rz[m:] - ry) / m
    return math.sqrt(v10.var(ddof=1) / m + v01.var(ddof=1) / n)


def grouped_intervals(
    items: Mapping[Any, tuple[ConfidenceProfile, SummaryResult]],
    *,
    n_boot: int,
    ci: float,
    method: str,
    seed: Any,
    progress: bool | None = None,
) -> dict[Any, dict[str, tuple[float, float]]]:
    """Intervals for several groups, each resampled within itself from its own child seed."""
    children = spawn_seeds(seed, len(items))
    out: dict[Any, dict[str, tuple[float, float]]] = {}
    for child, (key, (prof, res)) in zip(children, items.items(), strict=True):
        if prof is None:
            out[key] = {}
            continue
        out[key] = bootstrap_intervals(prof, res, n_boot=n_boot, ci=ci, method=method,
                                       seed=np.random.default_rng(child), progress=progress)
    return out
