"""Reproduce the synthetic experiments of "Beyond ECE".

Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond ECE:
Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics. arXiv
preprint. arXiv:2605.01796.  Section 3.1; appendix A.6, Tables 5 and 8-11.

Regenerates, with :func:`calreport.synthetic.beyond_ece_profile` and the metrics of
:mod:`calreport.metrics`, the paper's

* Table 5 -- perfect calibration, ten confidence distributions, N = 100, 10,000 and
  100,000, 100 repetitions each;
* Tables 8-9 -- every distribution x calibration mode at N = 1000, 100 repetitions;
* Tables 10-11 -- macro cwAUC against macro AUC (same samples as Tables 8-9),

and prints each of our cells next to the paper's value with the difference measured
in standard errors.  Run ``python examples/reproduce_beyond_ece.py`` (about ten
seconds) or add ``--quick`` (20 repetitions, no N = 100,000).

How a cell is compared
----------------------
Every printed value of the paper is a mean over 100 repetitions; ours is a mean over
``R`` repetitions of the same design.  With ``s`` the standard deviation of one
repetition's value, the standard error of our mean is ``SE = s / sqrt(R)`` and the
difference of two independent means has standard error ``s * sqrt(1/R + 1/100)``;
the paper's value is also rounded to its last printed digit ``unit``, a uniform
error of variance ``unit**2 / 12``.  ``z = (ours - paper) / sqrt(s**2 (1/R + 1/100) +
unit**2 / 12)`` and ``|z| > 3`` flags a cell.  ``s`` is estimated from our
repetitions, except for the three columns in percent of [0, 100] (">1 sigma",
">3 sigma", P_risk): there ``s = sqrt(m (100 - m))`` at the pooled mean ``m`` of both
studies, the binomial spread of the two indicator columns and the Bhatia-Davis
upper bound for P_risk (conservative, and never zero when the paper differs from
ours, as our own spread is when all our repetitions give 0 or 100).  Table 11
prints one sample (N = 1000), so there the paper's side contributes ``s`` itself:
``s * sqrt(1/R + 1)``.

CSR, and sigma_CSR, average terms ``1 / (1 - c)`` that have infinite variance (or
mean) for distributions with mass near c = 1: a repetition's value is then
heavy-tailed, the mean is carried by a few repetitions and its sample standard
error understates the noise.  The CSR table prints, for every cell, the median and
the share of the largest repetition in the sum, which show when this happens.

Choices where the paper is silent, all documented in the output: confidences are
clipped to ``[eps, 1 - eps]`` for CSR with ``eps = 2**-53``, i.e. only an exact 1 is
moved (to the largest double below 1).  The paper clips at 1e-8 for its real data
(A.4) but evidently not for the synthetic tables: with 1e-8 clipping sigma_CSR is at
most ``sqrt(N * 1e8) / N`` = 10 at N = 10,000, and Table 5 prints a mean of 16.14
(Skew High).  ``--eps 1e-8`` reruns with the library's default.  ">k sigma" counts
the repetitions with ``z = (CSR - 1) / sigma_CSR > k`` (Table 5's caption);
``P_risk = Phi(z)`` when ``CSR > 1``, else 0; the gain of a repetition is
``(cwA - Acc) / (1 - min(cwA, Acc))`` and the table averages it.

AUC needs a score per class, which the generator does not define; the
positive-class probability is ``c`` when the predicted class is 1 and ``1 - c``
otherwise ("complement"), so the top-label confidence of every row is ``c``.  The
paper's Table 11 disagrees with that score for the distributions with mass below
c = 1/2 and is close to a score under which such rows carry no ranking information:
the other class scored ``min(c, 1 - c)`` ("tied", a guess printed next to it; those
scores do not sum to 1, so they go through
:func:`calreport.metrics.ranking.weighted_auc` per class).  The guess is not exactly
the paper's score either: it gives Tight Lo a cwAUC of exactly 1/2 where the paper
prints 0.4987.

As in the paper (section 3.1: the distributions are drawn "with a fixed random
seed"), a repetition uses the same confidences under every calibration mode: the
seed depends on the distribution, N and the repetition, not on the mode.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import time
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import numpy as np

from calreport import synthetic
from calreport.metrics import ranking, risk, weighted
from calreport.references import short

HERE = Path(__file__).resolve().parent

#: Seed of the full run (any integer reproduces itself with the same NumPy).
SEED = 20260505

#: Repetitions of the paper's tables.
PAPER_REPS = 100

#: Clipping of the confidences for CSR: only an exact 1 moves (see the module docstring;
#: the library's default, and the paper's rule for real data in A.4, is 1e-8).
EPS = 2.0**-53

#: Columns of Tables 5, 8 and 9; ``gain`` and the last three are in percent.
COLUMNS = ("acc", "cwa", "gain", "csr", "sigma_csr", "gt_1_sigma", "gt_3_sigma", "p_risk")
HEADERS = ("Acc", "cwA", "gain%", "CSR", "sigma", ">1s%", ">3s%", "Prisk%")

#: Columns in percent of [0, 100]: indicator means and the P_risk mean (their spread
#: is taken at the pooled mean, see the module docstring).
PERCENT_COLUMNS = ("gt_1_sigma", "gt_3_sigma", "p_risk")

#: Last printed digit of each column in the paper (its rounding error).
PAPER_UNIT = {"acc": 1e-4, "cwa": 1e-4, "gain": 1e-2, "csr": 1e-4, "sigma_csr": 1e-4,
              "gt_1_sigma": 1e-2, "gt_3_sigma": 1e-2, "p_risk": 1e-2, "auc": 1e-4,
              "cwauc": 1e-4, "delta_auc": 1e-4}

#: Per-class scores tried for AUC (see the module docstring).
AUC_SCORES = ("complement", "tied")

#: Distributions whose CSR terms have finite variance under every mode: their
#: densities vanish fast enough at c = 1 that E[(c / (1 - c))^2] is finite
#: (Beta(0.5, 3) behaves as (1 - c)^2, Beta(5, 5) as (1 - c)^4, U(0, 0.2) stops at
#: 0.2).  U(0, 1), U(0.8, 1), the truncated normal and the log-uniform laws have a
#: positive density up to (or within 1e-6 of) 1, so the terms' tail is ~1/t
#: (infinite variance); Beta(3, 0.5) and the bimodal mixture have tail ~t^-1/2
#: (infinite mean): CSR and sigma_CSR means of those are not stable statistics.
LIGHT_TAILED = ("skew_low", "tight_low", "bell")

#: Rows of the machine-readable block at the end of the output (one per cell).
Cell = tuple[str, str, int]


def load_paper_tables() -> ModuleType:
    """Import ``examples/_paper_tables.py`` (works when this file is imported too)."""
    spec = importlib.util.spec_from_file_location("_paper_tables", HERE / "_paper_tables.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------- simulation
@dataclass
class CellResult:
    """Per-repetition values of one (distribution, mode, N) cell."""

    distribution: str
    mode: str
    n: int
    values: dict[str, np.ndarray]
    n_clipped: int = 0
    #: score name -> (macro AUC, macro cwAUC) per repetition (Tables 10-11)
    auc: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    @property
    def reps(self) -> int:
        return int(self.values["acc"].shape[0])

    def mean(self, column: str) -> float:
        return float(np.mean(self.values[column]))

    def sd(self, column: str) -> float:
        x = self.values[column]
        return float(np.std(x, ddof=1)) if x.shape[0] > 1 else math.nan


def _seed(seed: int, n: int, distribution: str, block: int) -> np.random.SeedSequence:
    # the mode is deliberately not part of the key: same confidences under every mode
    key = (n, synthetic.DISTRIBUTIONS.index(distribution), block)
    return np.random.SeedSequence(seed, spawn_key=key)


def _blocks(n: int, reps: int, max_rows: int = 2_000_000) -> list[int]:
    """Repetitions per generator call: all of them, unless that exceeds ``max_rows``."""
    per = max(1, min(reps, max_rows // n))
    sizes = [per] * (reps // per)
    if reps % per:
        sizes.append(reps % per)
    return sizes


def _tied_auc(y_true: np.ndarray, y_pred: np.ndarray, c: np.ndarray) -> tuple[float, float]:
    """Macro AUC and cwAUC when the non-predicted class is scored min(c, 1 - c)."""
    other = np.minimum(c, 1.0 - c)
    aucs, cwaucs = [], []
    for k in (0, 1):
        score = np.where(y_pred == k, c, other)
        aucs.append(ranking.weighted_auc(y_true == k, score))
        cwaucs.append(ranking.weighted_auc(y_true == k, score, weight=c))
    return float(np.mean(aucs)), float(np.mean(cwaucs))


def simulate_cell(distribution: str, mode: str, n: int, reps: int, *, seed: int = SEED,
                  eps: float = EPS, with_auc: bool = False) -> CellResult:
    """Draw ``reps`` samples of size ``n`` and compute the table's metrics on each.

    The rows of all repetitions come from one call of the generator (they are
    i.i.d., so ``reps`` consecutive slices of ``n`` rows are ``reps`` independent
    samples); the metrics are the library's, applied to each slice.
    """
    out: dict[str, list[float]] = {c: [] for c in (*COLUMNS, "z")}
    aucs: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in AUC_SCORES}
    n_clipped = 0
    for b, size in enumerate(_blocks(n, reps)):
        frame = synthetic.beyond_ece_profile(distribution, mode, n * size,
                                             seed=_seed(seed, n, distribution, b))
        conf = frame["confidence"].to_numpy().reshape(size, n)
        correct = frame["correct"].to_numpy().reshape(size, n)
        y_pred = frame["y_pred"].to_numpy().reshape(size, n)
        y_true = frame["y_true"].to_numpy().reshape(size, n)
        for r in range(size):
            c, ok = conf[r], correct[r]
            n_clipped += risk.clip_confidence(c, eps=eps, warn=False)[1]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", risk.ClippedConfidenceWarning)
                res = risk.risk_summary(c, ok, eps=eps, method="normal")
            out["acc"].append(weighted.accuracy(ok))
            out["cwa"].append(weighted.cwa(c, ok))
            out["gain"].append(100.0 * weighted.gain(c, ok))
            out["csr"].append(res.csr)
            out["sigma_csr"].append(res.sigma_csr)
            out["z"].append(res.z_csr)
            out["gt_1_sigma"].append(100.0 * (res.z_csr > 1.0))
            out["gt_3_sigma"].append(100.0 * (res.z_csr > 3.0))
            # the tables print P_risk = Phi(z) when CSR > 1 and 0 otherwise (Table 6's
            # convention; the library reads Phi(z) on both sides)
            out["p_risk"].append(100.0 * (res.p_risk if res.csr > 1.0 else 0.0))
            if with_auc:
                positive = np.where(y_pred[r] == 1, c, 1.0 - c)
                per_auc, per_cw = ranking.auc_cwauc(y_true[r], positive, c)
                aucs["complement"][0].append(float(np.mean(per_auc)))
                aucs["complement"][1].append(float(np.mean(per_cw)))
                a, cw = _tied_auc(y_true[r], y_pred[r], c)
                aucs["tied"][0].append(a)
                aucs["tied"][1].append(cw)
    values = {k: np.asarray(val, dtype=np.float64) for k, val in out.items()}
    auc = ({k: (np.asarray(a), np.asarray(cw)) for k, (a, cw) in aucs.items()}
           if with_auc else {})
    return CellResult(distribution, mode, n, values, n_clipped, auc)


# ---------------------------------------------------------------------- comparison
@dataclass
class Comparison:
    """Our mean and its standard error, the paper's value and the standardised gap."""

    ours: float
    se: float
    paper: float
    z: float
    heavy: bool = False

    @property
    def flagged(self) -> bool:
        return bool(abs(self.z) > 3.0) if not math.isnan(self.z) else False


def standardised_gap(ours: float, paper: float, sd: float, reps: int, *,
                     paper_reps: int | None = PAPER_REPS, unit: float = 0.0) -> float:
    """``(ours - paper) / sqrt(sd^2 (1/reps + 1/paper_reps) + unit^2 / 12)``.

    ``paper_reps=None`` means the paper's value is a single draw (Table 11).
    """
    other = 1.0 if paper_reps is None else 1.0 / paper_reps
    var = sd * sd * (1.0 / reps + other) + unit * unit / 12.0
    diff = ours - paper
    if var > 0:
        return diff / math.sqrt(var)
    return 0.0 if diff == 0 else math.copysign(math.inf, diff)


def compare(cell: CellResult, column: str, paper: float) -> Comparison:
    """Compare one column of a cell with the paper (see the module docstring)."""
    ours, reps = cell.mean(column), cell.reps
    se = cell.sd(column) / math.sqrt(reps)
    if column in PERCENT_COLUMNS:
        pooled = (ours * reps + paper * PAPER_REPS) / (reps + PAPER_REPS)
        sd = math.sqrt(max(pooled * (100.0 - pooled), 0.0))
    else:
        sd = cell.sd(column)
    z = standardised_gap(ours, paper, sd, reps, unit=PAPER_UNIT[column])
    heavy = column in ("csr", "sigma_csr") and cell.distribution not in LIGHT_TAILED
    return Comparison(ours, se, paper, z, heavy)


def top_share(x: np.ndarray) -> float:
    """Share of the largest |value| in the sum of |values| (1/R when all are equal)."""
    a = np.abs(x)
    total = float(a.sum())
    return float(a.max() / total) if total > 0 else math.nan


# ---------------------------------------------------------------------- printing
def _fmt(column: str, value: float) -> str:
    if not math.isfinite(value):
        return f"{value:>10}"
    if column in ("csr", "sigma_csr") and abs(value) >= 1e4:
        return f"{value:>10.4g}"
    if column in ("gain", "gt_1_sigma", "gt_3_sigma", "p_risk", "auc_gain"):
        return f"{value:>10.2f}"
    return f"{value:>10.4f}"


def _fmt_z(c: Comparison) -> str:
    if not math.isfinite(c.z):
        text = "inf"
    else:
        text = f"{c.z:+.1f}"
    mark = "!" if c.flagged else " "
    mark = "h" if c.flagged and c.heavy else mark
    return f"{text + mark:>10}"


def print_cells(title: str, cells: Sequence[CellResult], paper: dict[Cell, Sequence[float]],
                columns: Sequence[str] = COLUMNS, headers: Sequence[str] = HEADERS,
                ) -> list[tuple[Cell, str, Comparison]]:
    """Print ours / SE / paper / z for every cell; return every comparison."""
    print(f"\n{title}")
    print(f"{'':27}" + "".join(f"{h:>10}" for h in headers))
    results = []
    for cell in cells:
        key = (cell.distribution, cell.mode, cell.n)
        ref = paper[key]
        comps = [compare(cell, col, ref[i]) for i, col in enumerate(columns)]
        label = synthetic.PAPER_LABELS[cell.distribution]
        mode = synthetic.PAPER_LABELS[cell.mode]
        pairs = list(zip(columns, comps, strict=True))
        print(f"{label:<17}{'ours':>10}" + "".join(_fmt(col, c.ours) for col, c in pairs))
        print(f"  {mode[:15]:<15}{'SE':>10}" + "".join(_fmt(col, c.se) for col, c in pairs))
        print(f"{'':17}{'paper':>10}" + "".join(_fmt(col, c.paper) for col, c in pairs))
        print(f"{'':17}{'z':>10}" + "".join(_fmt_z(c) for c in comps))
        results.extend((key, col, c) for col, c in pairs)
    return results


def print_csr_detail(cells: Sequence[CellResult], paper: dict[Cell, Sequence[float]]) -> None:
    """Median CSR and the weight of the largest repetition: is the mean trustworthy?"""
    print("\nCSR means in detail (ours: mean, SE, median, share of the largest repetition "
          "in the sum; light = finite-variance CSR terms):")
    print(f"{'distribution':<17}{'mode':<16}{'N':>7}{'paper':>12}{'ours':>12}{'SE':>11}"
          f"{'median':>11}{'top share':>10}  tail")
    for cell in cells:
        x = cell.values["csr"]
        ref = paper[(cell.distribution, cell.mode, cell.n)][COLUMNS.index("csr")]
        tail = "light" if cell.distribution in LIGHT_TAILED else "heavy"
        print(f"{synthetic.PAPER_LABELS[cell.distribution]:<17}"
              f"{synthetic.PAPER_LABELS[cell.mode][:15]:<16}{cell.n:>7}{ref:>12.4g}"
              f"{np.mean(x):>12.4g}{np.std(x, ddof=1) / math.sqrt(x.size):>11.3g}"
              f"{np.median(x):>11.4g}{top_share(x):>10.2f}  {tail}")


def agreement_summary(results: Iterable[tuple[Cell, str, Comparison]], label: str) -> None:
    """Count cells within 3 standard errors, per column, and list the others."""
    results = list(results)
    print(f"\nAgreement, {label}: cells with |z| <= 3 per column")
    for col in COLUMNS:
        sel = [(k, c) for k, cc, c in results if cc == col]
        if not sel:
            continue
        ok = sum(not c.flagged for _, c in sel)
        heavy = sum(c.flagged and c.heavy for _, c in sel)
        extra = f"  ({heavy} of the others heavy-tailed CSR/sigma cells)" if heavy else ""
        print(f"  {col:<11}{ok:>4} / {len(sel)}{extra}")
    flagged = [(k, col, c) for k, col, c in results if c.flagged]
    if flagged:
        print("  outside 3 SE:")
        for (d, m, n), col, c in flagged:
            tail = "heavy-tailed" if c.heavy else ""
            print(f"    {d:<17}{m:<17}N={n:<7}{col:<11} ours {c.ours:.6g} paper "
                  f"{c.paper:.6g} z {c.z:+.1f} {tail}")


# ---------------------------------------------------------------------- the tables
def table_5(ns: Sequence[int], reps: int, *, seed: int = SEED, eps: float = EPS,
            distributions: Sequence[str] = synthetic.DISTRIBUTIONS) -> list[CellResult]:
    """Perfect calibration at each N (Martin-Maroto et al. (2026), Table 5)."""
    return [simulate_cell(d, "perfect", n, reps, seed=seed, eps=eps)
            for n in ns for d in distributions]


def tables_8_9(reps: int, *, n: int = 1000, seed: int = SEED, eps: float = EPS,
               distributions: Sequence[str] = synthetic.DISTRIBUTIONS,
               modes: Sequence[str] = synthetic.CALIBRATION_MODES) -> list[CellResult]:
    """Every mode x distribution at N = 1000, with AUC and cwAUC (Tables 8-11)."""
    return [simulate_cell(d, m, n, reps, seed=seed, eps=eps, with_auc=True)
            for m in modes for d in distributions]


def paper_cells(tables: ModuleType) -> dict[Cell, Sequence[float]]:
    """The paper's Tables 5, 8 and 9 keyed by (distribution, mode, N)."""
    out: dict[Cell, Sequence[float]] = {}
    for n, rows in tables.TABLE_5.items():
        for d, vals in rows.items():
            out[(d, "perfect", n)] = vals
    for m, rows in tables.TABLES_8_9.items():
        for d, vals in rows.items():
            out[(d, m, 1000)] = vals
    return out


def auc_counts(cells: Sequence[CellResult], score: str) -> dict[str, tuple[int, int, int]]:
    """Per mode: distributions with mean cwAUC > mean AUC, <, and how many of those
    mean differences are more than 3 standard errors (paired) away from 0."""
    out: dict[str, list[int]] = {}
    for cell in cells:
        auc, cwauc = cell.auc[score]
        d = cwauc - auc
        row = out.setdefault(cell.mode, [0, 0, 0])
        row[0 if d.mean() > 0 else 1] += 1
        se = np.std(d, ddof=1) / math.sqrt(d.size) if d.size > 1 else math.nan
        row[2] += bool(abs(d.mean()) > 3 * se)
    return {k: (a, b, c) for k, (a, b, c) in out.items()}


def table_11(cells: Sequence[CellResult], tables: ModuleType, score: str
             ) -> list[tuple[str, str, Comparison]]:
    """Our perfect-calibration AUC / cwAUC against Table 11 (a single sample there)."""
    out = []
    for cell in cells:
        if cell.mode != "perfect":
            continue
        auc, cwauc = cell.auc[score]
        per = {"acc": cell.values["acc"], "cwa": cell.values["cwa"], "auc": auc,
               "cwauc": cwauc, "delta_auc": cwauc - auc}
        ref = dict(zip(tables.TABLE_11_COLUMNS, tables.TABLE_11[cell.distribution],
                       strict=True))
        for col, x in per.items():
            sd = float(np.std(x, ddof=1))
            z = standardised_gap(float(x.mean()), ref[col], sd, x.size, paper_reps=None,
                                 unit=PAPER_UNIT[col])
            out.append((cell.distribution, col,
                        Comparison(float(x.mean()), sd / math.sqrt(x.size), ref[col], z)))
    return out


def print_auc_tables(cells: Sequence[CellResult], tables: ModuleType
                     ) -> dict[str, list[tuple[str, str, Comparison]]]:
    """Table 10 (counts) and Table 11 for both per-class scores."""
    print("\nTable 10: distributions with macro cwAUC above / below macro AUC, N = 1000 (ours:"
          " sign of the mean over repetitions; '3SE': how many of the ten mean differences"
          " are more than 3 paired standard errors from 0)")
    counts = {score: auc_counts(cells, score) for score in AUC_SCORES}
    print(f"{'':24}{'paper':>12}" + "".join(f"{s:>18}" for s in AUC_SCORES))
    print(f"{'mode':<24}{'>   <':>12}" + "".join(f"{'>   <  3SE':>18}" for _ in AUC_SCORES))
    for m in synthetic.CALIBRATION_MODES:
        if m not in counts[AUC_SCORES[0]]:
            continue
        pg, pl = tables.TABLE_10[m]
        row = f"{synthetic.PAPER_LABELS[m]:<24}{pg:>8}{pl:>4}"
        for score in AUC_SCORES:
            gt, lt, sig = counts[score][m]
            row += f"{gt:>12}{lt:>4}{sig:>5}"
        print(row)
    out = {}
    cols = ("acc", "cwa", "auc", "cwauc", "delta_auc")
    for score in AUC_SCORES:
        rows = table_11(cells, tables, score)
        out[score] = rows
        if not rows:
            continue
        print(f"\nTable 11 ({score} score): perfect calibration, N = 1000 (paper: one sample;"
              " ours: mean of the repetitions; z against the spread of one sample)")
        print(f"{'':27}" + "".join(f"{c:>10}" for c in cols))
        by_dist: dict[str, dict[str, Comparison]] = {}
        for d, col, comp in rows:
            by_dist.setdefault(d, {})[col] = comp
        for d, comps in by_dist.items():
            label = synthetic.PAPER_LABELS[d]
            print(f"{label:<17}{'ours':>10}" + "".join(f"{comps[c].ours:>10.4f}" for c in cols))
            print(f"{'':17}{'paper':>10}" + "".join(f"{comps[c].paper:>10.4f}" for c in cols))
            print(f"{'':17}{'z':>10}" + "".join(_fmt_z(comps[c]) for c in cols))
    return out


# ---------------------------------------------------------------------- main
def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="20 repetitions, Table 5 at N = 100 and 10,000 only")
    parser.add_argument("--reps", type=int, default=None, help="repetitions per cell")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--eps", type=float, default=EPS,
                        help="clipping of the confidences for CSR (default 2**-53)")
    args = parser.parse_args(argv)
    reps = args.reps or (20 if args.quick else PAPER_REPS)
    ns = (100, 10_000) if args.quick else (100, 10_000, 100_000)
    tables = load_paper_tables()
    paper = paper_cells(tables)
    start = time.perf_counter()

    print(f"Reproduction of {short('MartinMaroto2026')}, arXiv:2605.01796, Tables 5 and 8-11, "
          "with calreport")
    print(f"repetitions per cell: {reps} (paper: {PAPER_REPS}); seed {args.seed}; "
          f"clipping eps {args.eps:.3g}; numpy {np.__version__}")
    print("SE: standard error of our mean over the repetitions.  z = (ours - paper) / "
          "sqrt(s^2 (1/R + 1/100) + unit^2/12),")
    print("s the spread of one repetition (percent columns: sqrt(m (100 - m)) at the "
          "pooled mean m), unit the paper's last digit.")
    print("'!' marks |z| > 3; 'h' marks it on CSR / sigma of a heavy-tailed distribution "
          f"(all but {', '.join(LIGHT_TAILED)}).")

    t5 = table_5(ns, reps, seed=args.seed, eps=args.eps)
    r5 = print_cells("Table 5: perfect calibration", t5, paper)
    t89 = tables_8_9(reps, seed=args.seed, eps=args.eps)
    r89 = print_cells("Tables 8-9: all calibration modes, N = 1000", t89, paper)
    print_csr_detail([*t5, *t89], paper)
    r11 = print_auc_tables(t89, tables)

    clipped = sum(c.n_clipped for c in (*t5, *t89))
    print(f"\nconfidences moved by the clipping to [eps, 1 - eps]: {clipped} rows in all")
    agreement_summary(r5, "Table 5")
    agreement_summary(r89, "Tables 8-9")
    for score, rows in r11.items():
        print(f"\nAgreement, Table 11 ({score} score): values with |z| <= 3 per column")
        for col in ("acc", "cwa", "auc", "cwauc", "delta_auc"):
            sel = [c for _, cc, c in rows if cc == col]
            print(f"  {col:<11}{sum(not c.flagged for c in sel):>4} / {len(sel)}")
    print(f"\nelapsed {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
