"""Coverage of the recalibration advisor's paired-difference intervals.

``recalibrate()`` prints, per method, the out-of-fold difference of each metric against
"none" with a 95 % paired-bootstrap percentile interval (200 replicates by default).
This study simulates data with known true probabilities, runs ``recalibrate()`` as
users do (its defaults: 5 folds, ``n_boot=200``, ``ci=0.95``; ``p_risk_method="normal"``
only to save time -- P_risk does not enter the intervals) and counts how often each
interval contains the target.

Target (the quantity the printed difference estimates).  For a method ``m`` fitted by
the advisor's cross-fitting on a data set ``D`` of ``n`` rows, let ``g_1 .. g_K`` be
the calibrators fitted on the other folds (``K = 5``, each on ``4n/5`` rows) and let
the *pooled out-of-fold predictor* score a fresh row with ``g_k`` for a fold ``k``
drawn uniformly.  ``R(.)`` is a metric's population value (its expectation over fresh
rows, computed with the true probabilities instead of sampled labels).  Then

* conditional target ``T(D) = R(pooled predictor of D) - R(no recalibration)``;
* expected target ``T_n = E_D[T(D)]`` over data sets of size ``n``, the *expected
  out-of-fold difference at sample size n* -- the primary target.

For the mean-type metrics (log loss, Brier, CSR) ``R(pooled) = mean_k R(g_k)``; for
ECE (15 equal-width bins), cwA and AUC it is the metric of the mixture, the plug-in
the advisor's pooled out-of-fold table estimates.  ``T_n`` is estimated once per cell
from ``--truth-runs`` independent data sets (not those of the coverage runs); its
Monte Carlo standard error is printed beside it.

Cells (``--cells``): ``binary``: ``z ~ N(0, 1)``, true ``p = expit(z)``; calibrated
scores ``p``, overconfident scores ``expit(3 z)``; ``3-class``: logits ``1.5 N(0, I_3)``,
true ``p = softmax(logits)``; calibrated scores ``p``, overconfident
``softmax(2 logits)``; ``n = 300`` and ``3,000``.  Fresh rows: binary, 20,000 normal
grid points of ``z`` on [-8, 8] with normal-density weights; 3-class, a
121 x 121 grid of the two logit differences (whitened, on [-6, 6]^2), likewise: a
quadrature, no sampling noise.

Usage::

    python benchmarks/recalibration_coverage.py --runs 200 --save part1.json
    python benchmarks/recalibration_coverage.py --cells 3class-cal-300 --save part2.json
    python benchmarks/recalibration_coverage.py --load part1.json part2.json --write
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from scipy import special, stats

from calreport.bootstrap import group_seed
from calreport.metrics.binned import assign_bins, bin_edges
from calreport.profile import ConfidenceProfile
from calreport.recalibration.advisor import recalibrate
from calreport.recalibration.crossfit import (
    canonical_order,
    cross_fit,
    make_calibrator,
    stratified_folds,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, write_section

#: The methods measured (inductive Venn-Abers is left out: its fits cost as much as the
#: rest together; its intervals are the same paired bootstrap)
METHODS = ("platt", "temperature", "beta", "isotonic", "risk_aware_isotonic")
METRICS = ("log_loss", "brier", "ece", "csr", "cwa", "auc")
#: name -> (kind, calibration, rows)
CELLS = {f"{k.replace('-', '')}-{c[:3]}-{n}": (k, c, n)
         for k in ("binary", "3-class") for c in ("calibrated", "overconfident")
         for n in (300, 3000)}
N_SPLITS, N_BOOT, CI, N_BINS, EPS = 5, 200, 0.95, 15, 1e-8
KEY = "g"  # the group key: the advisor's fold and bootstrap seeds derive from it
LOG_EPS = float(np.finfo(np.float64).eps)


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- data
def true_and_scores(kind: str, calibration: str, z: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """True class probabilities and reported scores, both (rows, K), from latent z."""
    if kind == "binary":
        p = special.expit(z)
        s = p if calibration == "calibrated" else special.expit(3.0 * z)
        return np.column_stack([1 - p, p]), np.column_stack([1 - s, s])
    p = special.softmax(z, axis=1)
    s = p if calibration == "calibrated" else special.softmax(2.0 * z, axis=1)
    return p, s


def latent(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    return rng.standard_normal(n) if kind == "binary" else 1.5 * rng.standard_normal((n, 3))


def simulate(kind: str, calibration: str, n: int, rng: np.random.Generator
             ) -> tuple[np.ndarray, np.ndarray]:
    """Reported scores (n, K) and class codes of one data set."""
    p, s = true_and_scores(kind, calibration, latent(kind, n, rng))
    u = rng.random(n)[:, None]
    codes = (u > np.cumsum(p, axis=1)).sum(axis=1).clip(0, p.shape[1] - 1)
    return s, codes.astype(np.intp)


def fresh_rows(kind: str, calibration: str
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fresh rows for the population metrics: true probabilities, scores and weights
    (a quadrature of the latent normal law: a fine grid with normal-density weights
    summing to 1, out to 8 standard deviations, so no sampling noise)."""
    if kind == "binary":
        z = np.linspace(-8.0, 8.0, 16_001)
        w = stats.norm.pdf(z)
    else:
        # softmax ignores a common shift: logits (0, L u), u on a 2-D grid, L L' the
        # covariance of the logit differences 1.5^2 [[2, 1], [1, 2]]
        u = np.linspace(-6.0, 6.0, 121)
        u1, u2 = (a.ravel() for a in np.meshgrid(u, u))
        L = np.linalg.cholesky(1.5 ** 2 * np.array([[2.0, 1.0], [1.0, 2.0]]))
        d = np.column_stack([u1, u2]) @ L.T
        z = np.column_stack([np.zeros_like(u1), d])
        w = stats.norm.pdf(u1) * stats.norm.pdf(u2)
    p, s = true_and_scores(kind, calibration, z)
    return p, s, w / w.sum()


def profile(s: np.ndarray, codes: np.ndarray) -> ConfidenceProfile:
    if s.shape[1] == 2:
        return ConfidenceProfile.from_arrays(codes, s[:, 1])
    return ConfidenceProfile.from_arrays(codes, s, classes=np.arange(s.shape[1]))


# ---------------------------------------------------------------- population metrics
def _weighted_auc(score: np.ndarray, wpos: np.ndarray, wneg: np.ndarray) -> float:
    """P(score of a positive > score of a negative) + half the ties, with weights."""
    uniq, inv = np.unique(score, return_inverse=True)
    pos = np.bincount(inv, wpos, uniq.shape[0])
    neg = np.bincount(inv, wneg, uniq.shape[0])
    below = np.cumsum(neg) - neg
    return float((pos * (below + 0.5 * neg)).sum() / (pos.sum() * neg.sum()))


def population(G: np.ndarray, p: np.ndarray, w: np.ndarray) -> dict[str, float]:
    """Population metrics of a predictor giving G (rows, K) where the truth is p, the
    rows weighted by w (summing to 1).

    Rows stacked from several fold calibrators (each copy's weights divided by their
    number) give the pooled predictor's metrics."""
    K = p.shape[1]
    if K == 2:
        s, q = G[:, 1], p[:, 1]
        ll = -(q * np.log(np.clip(s, LOG_EPS, 1 - LOG_EPS))
               + (1 - q) * np.log(np.clip(1 - s, LOG_EPS, 1 - LOG_EPS)))
        brier = q * (1 - s) ** 2 + (1 - q) * s ** 2
        pred = s >= 0.5
        conf = np.where(pred, s, 1 - s)
        p_correct = np.where(pred, q, 1 - q)
        score, outcome = s, q  # the positive-class view
        aucs = [_weighted_auc(s, w * q, w * (1 - q))]
    else:
        ll = -(p * np.log(np.clip(G, LOG_EPS, 1 - LOG_EPS))).sum(axis=1)
        brier = (G ** 2).sum(axis=1) - 2 * (G * p).sum(axis=1) + 1.0
        pred = np.argmax(G, axis=1)
        rows = np.arange(G.shape[0])
        conf = G[rows, pred]
        p_correct = p[rows, pred]
        score, outcome = conf, p_correct  # the top-label view
        aucs = [_weighted_auc(G[:, k], w * p[:, k], w * (1 - p[:, k])) for k in range(K)]
    csr = (1 - p_correct) / (1 - np.clip(conf, EPS, 1 - EPS))
    bins = assign_bins(score, bin_edges(score, n_bins=N_BINS))
    gap = np.bincount(bins, w * (outcome - score), N_BINS)
    return {"log_loss": float(w @ ll), "brier": float(w @ brier),
            "ece": float(np.abs(gap).sum()), "csr": float(w @ csr),
            "cwa": float((w @ (conf * p_correct)) / (w @ conf)),
            "auc": float(np.mean(aucs))}


def fold_calibrators(method: str, s: np.ndarray, codes: np.ndarray, seed: int
                     ) -> tuple[list, np.ndarray]:
    """The advisor's fold calibrators for ``recalibrate(..., seed=seed)`` on one group
    (the same folds, the same training rows in the same order)."""
    order = canonical_order(s, codes, None)
    fold_seed, _ = group_seed(seed, KEY).spawn(2)
    folds = stratified_folds(codes, N_SPLITS, fold_seed, order)
    cals = []
    for f in range(N_SPLITS):
        train = order[folds[order] != f]
        cal = make_calibrator(method, "ovr")
        cal.fit(s[train], codes[train], None, classes=np.arange(s.shape[1]))
        cals.append(cal)
    return cals, folds


def conditional_target(s: np.ndarray, codes: np.ndarray, seed: int,
                       fresh: tuple[np.ndarray, np.ndarray, np.ndarray],
                       base: dict[str, float], check: bool = False
                       ) -> dict[str, dict[str, float]]:
    """T(D): population metric of each method's pooled out-of-fold predictor minus
    that of the scores as they are."""
    out = {}
    for m in METHODS:
        cals, folds = fold_calibrators(m, s, codes, seed)
        if check:  # the refitted calibrators are the advisor's: same out-of-fold scores
            oof = np.empty_like(s)
            for f, cal in enumerate(cals):
                oof[folds == f] = cal.predict_proba(s[folds == f])
            ref = cross_fit(m, s, codes, None, folds, order=canonical_order(s, codes, None))
            assert np.allclose(oof, ref, rtol=0, atol=1e-12), m
        fresh_p, fresh_s, fresh_w = fresh
        G = np.vstack([cal.predict_proba(fresh_s) for cal in cals])
        pop = population(G, np.vstack([fresh_p] * len(cals)),
                         np.tile(fresh_w / len(cals), len(cals)))
        out[m] = {k: pop[k] - base[k] for k in METRICS}
    return out


# ---------------------------------------------------------------- the study
def run_cell(name: str, runs: int, truth_runs: int, seed: int) -> dict[str, Any]:
    kind, calibration, n = CELLS[name]
    cell_seed = [seed, list(CELLS).index(name)]
    fresh = fresh_rows(kind, calibration)
    base = population(fresh[1], fresh[0], fresh[2])
    t0 = time.perf_counter()
    truth_rng = np.random.default_rng([*cell_seed, 1])
    truths = []
    for r in range(truth_runs):
        s, codes = simulate(kind, calibration, n, truth_rng)
        truths.append(conditional_target(s, codes, 10_000 + r, fresh, base,
                                         check=r == 0))
        if (r + 1) % 50 == 0:
            _log(f"{name}: truth {r + 1}/{truth_runs} ({time.perf_counter() - t0:.0f} s)")
    rng = np.random.default_rng([*cell_seed, 2])
    out_runs = []
    for r in range(runs):
        s, codes = simulate(kind, calibration, n, rng)
        res = recalibrate({KEY: profile(s, codes)}, methods=list(METHODS), seed=r,
                          n_boot=N_BOOT, ci=CI, n_bins=N_BINS, eps=EPS,
                          p_risk_method="normal")
        t = res.table
        cond = conditional_target(s, codes, r, fresh, base)
        out_runs.append({m: {k: [float(t.loc[m, f"{k}_diff"]), float(t.loc[m, f"{k}_diff_low"]),
                                 float(t.loc[m, f"{k}_diff_high"]), cond[m][k]]
                             for k in METRICS} for m in METHODS})
        if (r + 1) % 25 == 0:
            _log(f"{name}: run {r + 1}/{runs} ({time.perf_counter() - t0:.0f} s)")
    return {"truths": truths, "runs": out_runs, "seconds": time.perf_counter() - t0}


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Cells of several saved studies together (runs and truth data sets appended)."""
    out: dict[str, Any] = {}
    for part in parts:
        for name, cell in part.items():
            acc = out.setdefault(name, {"truths": [], "runs": [], "seconds": 0.0})
            acc["truths"] += cell["truths"]
            acc["runs"] += cell["runs"]
            acc["seconds"] += cell["seconds"]
    return out


def tabulate(cells: dict[str, Any]) -> dict[str, Any]:
    """Per cell, method and metric: truth, its standard error, coverage of the
    expected and the conditional target, and diagnostics."""
    out: dict[str, Any] = {}
    for name, cell in cells.items():
        for m in METHODS:
            for k in METRICS:
                tr = np.array([t[m][k] for t in cell["truths"]])
                est, lo, hi, cond = np.array([r[m][k] for r in cell["runs"]]).T
                ok = np.isfinite(lo) & np.isfinite(hi)
                truth = float(tr.mean())
                out[name, m, k] = {
                    "runs": int(ok.sum()), "truth": truth,
                    "truth_se": float(tr.std(ddof=1) / math.sqrt(tr.size)),
                    "cover": float(np.mean((lo <= truth) & (truth <= hi))),
                    "cover_cond": float(np.mean((lo <= cond) & (cond <= hi))),
                    "miss_low": float(np.mean(hi < truth)),
                    "bias": float(np.mean(est) - truth),
                    "sd_est": float(np.std(est, ddof=1)),
                    "half_width": float(np.median(hi - lo) / 2),
                }
    return out


def _pct(c: float) -> int:
    """A coverage in whole percent, as printed and as judged against 92-98 %."""
    return math.floor(100 * c + 0.5)


def _mark(c: float) -> str:
    pct = _pct(c)
    return f"{pct}" + ("" if 92 <= pct <= 98 else " ✗")


def report(cells: dict[str, Any], command: str, seconds: float) -> str:
    tab = tabulate(cells)
    names = [c for c in CELLS if c in cells]
    runs = [min(tab[c, m, k]["runs"] for m in METHODS for k in METRICS) for c in names]
    head = "| metric | method | " + " | ".join(names) + " |"
    sep = "|" + "---|" * (len(names) + 2)
    lines = [
        "## Recalibration advisor: coverage of the paired-difference intervals",
        "",
        f"Command: `{command}` ({seconds / 60:.0f} min in one process on a shared "
        f"machine: {machine()}).",
        "",
        "Each run calls `recalibrate()` (5 stratified folds, 200 paired-bootstrap "
        "replicates, 95 % percentile intervals; the defaults) on a simulated data set and "
        "checks whether each method's interval of `<metric>_diff` contains the target. "
        "Target: the expected out-of-fold difference at sample size n, "
        "`T_n = E_D[R(pooled out-of-fold predictor fitted on D) - R(no recalibration)]`, "
        "R the metric's population value on fresh rows (true probabilities), the pooled "
        "predictor scoring each fresh row with one of the 5 fold calibrators at random; "
        "T_n from "
        + ", ".join(f"{len(cells[c]['truths'])}" for c in names)
        + " independent data sets (cells in table order) "
        "(see the script's docstring). Cells: binary `z ~ N(0,1)`, true `expit(z)`, "
        "scores calibrated (`cal`) or `expit(3z)` (`ove`); 3-class logits "
        "`1.5 N(0, I)`, scores calibrated or `softmax(2 logits)`.",
        "",
        "Runs a cell: " + ", ".join(f"{c} {r}" for c, r in zip(names, runs, strict=True))
        + ". Monte Carlo standard error of a 95 % coverage: "
        + ", ".join(f"{100 * math.sqrt(0.95 * 0.05 / r):.1f} points at {r} runs"
                    for r in sorted(set(runs), reverse=True))
        + "; ✗ marks a cell outside 92-98 %.",
        "",
        "### Coverage (%) of the expected out-of-fold difference T_n",
        "",
        head, sep,
    ]
    for k in METRICS:
        for m in METHODS:
            lines.append(f"| {k} | {m} | " + " | ".join(_mark(tab[c, m, k]["cover"])
                                                      for c in names) + " |")
    lines += ["", "### Coverage (%) of the data set's own difference T(D) "
              "(the conditional target)", "", head, sep]
    for k in METRICS:
        for m in METHODS:
            lines.append(f"| {k} | {m} | " + " | ".join(
                _mark(tab[c, m, k]["cover_cond"]) for c in names) + " |")
    lines += ["", "### Truth T_n (its Monte Carlo s.e.), mean estimate - T_n, s.d. of the "
              "estimate, median interval half-width", "",
              "| metric | method | cell | T_n | s.e. | bias | s.d. | half-width |",
              "|---|---|---|---|---|---|---|---|"]
    for k in METRICS:
        for m in METHODS:
            for c in names:
                t = tab[c, m, k]
                lines.append(f"| {k} | {m} | {c} | {t['truth']:.4g} | {t['truth_se']:.2g} "
                             f"| {t['bias']:.3g} | {t['sd_est']:.3g} | "
                             f"{t['half_width']:.3g} |")
    lines += ["", "### Reading", "", reading(tab, names), "",
              "### The statement the library prints (`INTERVAL_COVERAGE`)", "",
              statement(tab, names, runs)]
    return "\n".join(lines)


def reading(tab: dict[str, Any], names: list[str]) -> str:
    """The diagnostics behind the statement, read off the tables (binary n = 300)."""
    cal, ove = "binary-cal-300", "binary-ove-300"
    if cal not in names or ove not in names:
        return "(the binary n = 300 cells are needed for this paragraph)"

    def g(c: str, m: str, k: str, f: str) -> str:
        return f"{tab[c, m, k][f]:.2g}"

    def ratio(c: str, m: str, k: str) -> str:
        return f"{tab[c, m, k]['half_width'] / 1.96 / tab[c, m, k]['sd_est']:.2f}"

    return (
        "Log loss and Brier: the intervals cover T_n near the nominal rate with "
        "calibrated scores; with overconfident scores they are too narrow (Platt, "
        f"n = 300: half-width / 1.96 = {ratio(ove, 'platt', 'log_loss')} of the s.d. of "
        "the estimate): the row bootstrap holds each fold's calibrator fixed, but a row "
        "also trains the calibrators of the other folds, so the cross-fitted estimate "
        "varies more than a mean of independent rows (the known shortfall of naive "
        "cross-validation intervals; Bates, Hastie & Tibshirani 2024, JASA, "
        "arXiv:2104.00673). Isotonic's Brier is also below. The out-of-fold "
        "difference is biased for T_n at "
        f"n = 300 in the calibrated cell (Platt: mean estimate - T_n = "
        f"{g(cal, 'platt', 'log_loss', 'bias')} against T_n = "
        f"{g(cal, 'platt', 'log_loss', 'truth')}): the stratified folds share the data "
        "set's class frequency, so a calibrator's intercept error partly fits its own "
        "test fold. The intervals are wide enough for T_n but miss the data set's own "
        "T(D) more often (second table). ECE: the plug-in ECE is biased upward, most "
        f"for the scores as they are (Platt, calibrated: bias "
        f"{g(cal, 'platt', 'ece', 'bias')} against T_n = "
        f"{g(cal, 'platt', 'ece', 'truth')}). CSR: with calibrated scores the fitted "
        "calibrator's variability dominates and the bootstrap does not see it "
        f"(temperature: s.d. of the estimate {g(cal, 'temperature', 'csr', 'sd_est')}, "
        f"bootstrap half-width {g(cal, 'temperature', 'csr', 'half_width')}); with "
        "overconfident scores the row terms 1/(1 - c) of wrong confident rows are "
        f"heavy-tailed (Platt: s.d. {g(ove, 'platt', 'csr', 'sd_est')}, half-width "
        f"{g(ove, 'platt', 'csr', 'half_width')}). Isotonic's CSR is dominated by "
        "1/eps terms (T_n of order 1e5) and its intervals are as wide. AUC: a monotone "
        "calibrator leaves each fold's ranking unchanged, but the pooled out-of-fold "
        "AUC mixes folds scored by calibrators fitted on each other's rows and is "
        f"biased low (Platt: bias {g(cal, 'platt', 'auc', 'bias')} against T_n = "
        f"{g(cal, 'platt', 'auc', 'truth')}). cwA: fit variability again (temperature, "
        f"calibrated: s.d. {g(cal, 'temperature', 'cwa', 'sd_est')}, half-width "
        f"{g(cal, 'temperature', 'cwa', 'half_width')}).")


LABELS = {"log_loss": "log loss", "brier": "Brier", "ece": "ECE", "csr": "CSR",
          "cwa": "cwA", "auc": "AUC"}


def _cell_text(c: str) -> str:
    kind, calibration, n = CELLS[c]
    return f"{kind} {calibration} n = {n:,}"


def statement(tab: dict[str, Any], names: list[str], runs: list[int]) -> str:
    """The measured coverage in a few sentences: per metric the range over methods and
    cells, "BELOW NOMINAL" where a cell is below 92 % (two Monte Carlo standard errors
    under 95 % at 200 runs), naming the methods when not all are below."""
    parts = []
    for k in METRICS:
        covs = {(c, m): _pct(tab[c, m, k]["cover"]) for c in names for m in METHODS}
        lo, hi = min(covs.values()), max(covs.values())
        span = f"{lo}-{hi} %"
        below = [m for m in METHODS if any(covs[c, m] < 92 for c in names)]
        if not below:
            parts.append(f"{LABELS[k]} {span}")
        elif len(below) == len(METHODS):
            parts.append(f"{LABELS[k]} BELOW NOMINAL: measured {span} (target 92-98 %)")
        else:
            where = {CELLS[c][1] for (c, m), v in covs.items() if v < 92}
            when = f" with {where.pop()} scores" if len(where) == 1 else ""
            parts.append(f"{LABELS[k]} {span}, BELOW NOMINAL for "
                         + ", ".join(f"{m} ({min(covs[c, m] for c in names)} %)"
                                     for m in below) + f"{when} (target 92-98 %)")
    cond = {k: [_pct(tab[c, m, k]["cover_cond"]) for c in names for m in METHODS]
            for k in ("log_loss", "brier")}
    conditional = ("For the difference made by the calibrators fitted on the data set "
                   "itself the coverage is lower: " + ", ".join(
                       f"{LABELS[k]} {min(v)}-{max(v)} %" for k, v in cond.items())
                   + ". ")
    design = []
    for kind in sorted({CELLS[c][0] for c in names}, reverse=True):
        mine = [(c, r) for c, r in zip(names, runs, strict=True) if CELLS[c][0] == kind]
        sizes = " and ".join(f"{n:,}" for n in sorted({CELLS[c][2] for c, _ in mine}))
        least = min(r for _, r in mine)
        design.append(f"{kind} n = {sizes} ({least} runs a cell)")
    return ("Measured coverage of these 95 % intervals (200 paired replicates) of the "
            "expected out-of-fold difference (benchmarks/recalibration_coverage.py: "
            f"calibrated and overconfident scores, {', '.join(design)}; "
            f"{', '.join(METHODS)}; Venn-Abers not measured): "
            + "; ".join(parts) + ". " + conditional + EXPLANATION)


#: Why, in the statement (from the diagnostics of the tables above it).
EXPLANATION = ("The bootstrap resamples rows with the fitted calibrators held fixed and "
               "misses their variability; read the ECE, CSR, cwA and AUC intervals as "
               "too narrow (causes and tables: benchmarks/RESULTS.md).")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=200, help="coverage runs a cell")
    ap.add_argument("--truth-runs", type=int, default=200,
                    help="independent data sets for the truth T_n of a cell")
    ap.add_argument("--cells", nargs="+", default=list(CELLS), choices=list(CELLS))
    ap.add_argument("--seed", type=int, default=20261128)
    ap.add_argument("--save", help="write the raw results of this invocation (JSON)")
    ap.add_argument("--load", nargs="+", default=[],
                    help="saved results to tabulate (with --runs 0: only these)")
    ap.add_argument("--write", action="store_true", help="write the RESULTS.md section")
    ap.add_argument("--command", help="the command line to print in RESULTS.md")
    ap.add_argument("--note", help="a paragraph about the runs, printed in RESULTS.md")
    args = ap.parse_args(argv)
    parts = [json.loads(Path(f).read_text()) for f in args.load]
    if args.runs > 0:
        new = {}
        for name in args.cells:
            _log(f"cell {name}: {args.runs} runs, {args.truth_runs} truth data sets")
            new[name] = run_cell(name, args.runs, args.truth_runs, args.seed)
            if args.save:  # after every cell: a long study can stop and resume
                Path(args.save).write_text(json.dumps(new))
        parts.append(new)
    cells = merge(parts)
    seconds = sum(c["seconds"] for c in cells.values())
    command = args.command or "python benchmarks/recalibration_coverage.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    body = report(cells, command, seconds)
    if args.note:
        body = body.replace("\n\nEach run calls", f"\n\n{args.note}\n\nEach run calls", 1)
    if args.write:
        write_section("recalibration_coverage", body)
    else:
        print(body)


if __name__ == "__main__":
    main()
