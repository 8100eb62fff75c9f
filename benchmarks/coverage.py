"""Coverage study of every interval calreport prints.

Simulates profiles with a known truth, computes the intervals of every summary
metric by each method (percentile, basic, analytic where defined) and counts how
often they contain the true value.  A cell is within Monte Carlo error of nominal
95 % when it lies in 95 % ± 3.8 % (about ±3 standard errors at 300 repetitions).

Setups (scores s, outcome probability g(s), top-label view of a binary problem):

* ``miscalibrated``: s ~ Beta(2, 2), P(y = 1 | s) = σ(0.6·logit(s) + 0.4)
  (smoothly under-/overconfident);
* ``calibrated``: s ~ Beta(2, 2), P(y = 1 | s) = s;
* ``heavy_tailed``: true probability q ~ Beta(2, 2), reported s = σ(1.5·logit(q)),
  y ~ Bernoulli(q) (overconfident, heavy tail of confident errors).

Truth: each metric on a sample of ``--truth-n`` rows (default 2e6); for the
n-dependent risk statistics (σ_CSR, z, P_risk) the population formula at size n.

Usage::

    python benchmarks/coverage.py                  # 300 repetitions, n = 500 and 5000
    python benchmarks/coverage.py --quick          # a smoke run
    python benchmarks/coverage.py --out benchmarks/RESULTS.md   # replace its section
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import special

from calreport.bootstrap import bootstrap_intervals
from calreport.bootstrap.intervals import _interval, analytic_intervals
from calreport.profile import ConfidenceProfile
from calreport.registry import REGISTRY
from calreport.settings import Settings
from calreport.summary import summarize

SETUPS = ("miscalibrated", "calibrated", "heavy_tailed")
METRICS = [m for m, spec in REGISTRY.items() if spec.interval.kind == "bootstrap"]
SETTINGS = Settings(p_risk_method="normal")
N_DEPENDENT = ("sigma_csr", "z_csr", "p_risk")


def simulate(setup: str, n: int, rng: np.random.Generator) -> ConfidenceProfile:
    """Binary labels and positive-class scores of one setup."""
    if setup == "heavy_tailed":
        q = rng.beta(2.0, 2.0, n)
        s = special.expit(1.5 * special.logit(q))
        y = rng.random(n) < q
    else:
        s = rng.beta(2.0, 2.0, n)
        g = s if setup == "calibrated" else special.expit(0.6 * special.logit(s) + 0.4)
        y = rng.random(n) < g
    return ConfidenceProfile.from_arrays(y.astype(int), s)


def truth(setup: str, n: int, truth_n: int) -> dict[str, float]:
    """Population values: metrics of a large sample; risk statistics at size n."""
    big = simulate(setup, truth_n, np.random.default_rng(12345))
    vals = summarize(big, metrics=METRICS, settings=SETTINGS).values
    c = np.clip(big.conf, SETTINGS.eps, 1 - SETTINGS.eps)
    var = float(np.mean(c / (1 - c)))
    sigma = math.sqrt(var / n)
    vals["sigma_csr"] = sigma
    vals["z_csr"] = (vals["csr"] - 1.0) / sigma
    vals["p_risk"] = float(special.ndtr(vals["z_csr"])) if vals["csr"] > 1 else 0.0
    return vals


def run(reps: int, sizes: list[int], n_boot: int, truth_n: int, seed: int) -> list[dict]:
    rows = []
    for setup in SETUPS:
        for n in sizes:
            t0 = time.perf_counter()
            true = truth(setup, n, truth_n)
            hits = {(m, k): 0 for m in METRICS for k in ("percentile", "basic", "analytic")}
            defined = dict.fromkeys(hits, 0)
            width = dict.fromkeys(hits, 0.0)
            rng = np.random.default_rng([seed, n, SETUPS.index(setup)])
            for r in range(reps):
                prof = simulate(setup, n, rng)
                res = summarize(prof, metrics=METRICS, settings=SETTINGS)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    boot = bootstrap_intervals(prof, res, n_boot=n_boot, ci=0.95,
                                               method="percentile", seed=[seed, r, n],
                                               return_replicates=True)
                    ana, _ = analytic_intervals(prof, res, ci=0.95, metrics=METRICS)
                for m in METRICS:
                    val = res.values[m]
                    for k in ("percentile", "basic", "analytic"):
                        if k == "analytic":
                            lo, hi = ana[m]
                        elif m in boot.replicates:
                            lo, hi = _interval(boot.replicates[m], val, 0.95, k)
                        else:
                            lo = hi = math.nan
                        if math.isnan(lo) or math.isnan(true[m]):
                            continue
                        defined[(m, k)] += 1
                        width[(m, k)] += hi - lo
                        hits[(m, k)] += lo <= true[m] <= hi
            for (m, k), d in defined.items():
                if d:
                    rows.append({"metric": m, "setup": setup, "n": n, "method": k,
                                 "coverage": hits[(m, k)] / d, "width": width[(m, k)] / d,
                                 "defined": d, "truth": true[m]})
            print(f"{setup} n={n}: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return rows


def table(rows: list[dict], reps: int) -> str:
    """Markdown table: metric x (setup, n) x method, coverage in %."""
    cells: dict[tuple[str, str], dict[tuple[str, int], str]] = {}
    cols = sorted({(r["setup"], r["n"]) for r in rows}, key=lambda x: (SETUPS.index(x[0]), x[1]))
    for r in rows:
        mark = "" if abs(r["coverage"] - 0.95) <= 0.038 else " ✗"
        cells.setdefault((r["metric"], r["method"]), {})[(r["setup"], r["n"])] = (
            f"{100 * r['coverage']:.0f}{mark}")
    head = "| metric | method | " + " | ".join(f"{s} n={n}" for s, n in cols) + " |"
    lines = [head, "|" + " --- |" * (2 + len(cols))]
    for (m, k), vals in sorted(cells.items(), key=lambda x: (METRICS.index(x[0][0]), x[0][1])):
        lines.append(f"| {m} | {k} | " + " | ".join(vals.get(c, "–") for c in cols) + " |")
    return (f"Coverage (%) of 95 % intervals, {reps} repetitions per cell; ✗ marks a cell "
            "outside 95 ± 3.8 %.\n\n" + "\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--sizes", type=int, nargs="+", default=[500, 5000])
    ap.add_argument("--n-boot", type=int, default=400)
    ap.add_argument("--truth-n", type=int, default=2_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="20 repetitions, n = 500")
    ap.add_argument("--out", type=Path, help="replace the coverage section of this file")
    args = ap.parse_args(argv)
    if args.quick:
        args.reps, args.sizes, args.n_boot, args.truth_n = 20, [500], 200, 200_000
    t0 = time.perf_counter()
    rows = run(args.reps, args.sizes, args.n_boot, args.truth_n, args.seed)
    text = (f"## Interval coverage (`python benchmarks/coverage.py`)\n\n"
            f"B = {args.n_boot} replicates, truth from {args.truth_n:,} rows; "
            f"{time.perf_counter() - t0:.0f} s.\n\n" + table(rows, args.reps))
    print(text)
    if args.out:
        old = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        pattern = re.compile(r"## Interval coverage.*?(?=\n## |\Z)", re.S)
        new = pattern.sub(text.rstrip() + "\n", old) if pattern.search(old) else (
            old.rstrip() + "\n\n" + text)
        args.out.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
