"""Size of the paired comparison's tests and intervals under a null, and its time.

Null: two equally calibrated binary models of the same rows.  Row ``i`` has a shared
component ``c_i`` and two private ones ``u_i, v_i`` (all standard normal) and the
outcome ``y_i = 1[a c_i + s u_i + s v_i + e_i > 0]``, ``e_i`` standard normal.  Model
A sees ``x_A = a c + s u``, model B sees ``x_B = a c + s v``; each predicts its exact
conditional probability ``Phi(x / sqrt(s^2 + 1))``, so both are calibrated, they are
exchangeable (equal expected CSR, log loss and every other metric) and positively
correlated through ``c`` and the shared outcome.  Regimes: "mild" (a = 1, s = 1) and
"confident" (a = 3, s = 1.5: many confidences above 0.99, so CSR's row terms
``1 / (1 - c)`` of the wrong rows are heavy-tailed).

Every run goes through the accessor,
``df.groupby("model").calib(y="y", proba="p").compare("A", row_id="row",
metrics=["csr", "log_loss"], n_boot=B)``, and records the p-values (paired z-test on
per-row differences) and whether the 95 % paired bootstrap interval of the difference
excludes 0.  Both rates should be at most 5 % (within the Monte Carlo error, given with
a 95 % Wilson interval).  Then the time of a full comparison (every batched metric,
``refit=False``; and the refitting metrics at 2,000 rows).

Usage: ``python benchmarks/compare_size.py [--runs 500] [--boot 200] [--seed 0]
[--quick]``; writes the ``compare`` section of RESULTS.md.
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np
import pandas as pd
from _common import machine, median_time, table, write_section
from scipy import special, stats

import calreport  # noqa: F401  (registers the accessors)

REGIMES = {"mild": (1.0, 1.0), "confident": (3.0, 1.5)}


def null_frame(n: int, regime: str, rng: np.random.Generator) -> pd.DataFrame:
    """Two equally calibrated, correlated models of the same ``n`` rows (long format)."""
    a, s = REGIMES[regime]
    c, u, v, e = rng.standard_normal((4, n))
    y = (a * c + s * u + s * v + e > 0).astype(int)
    scale = math.sqrt(s * s + 1.0)
    pa = special.ndtr((a * c + s * u) / scale)
    pb = special.ndtr((a * c + s * v) / scale)
    rows = np.arange(n)
    return pd.DataFrame({"model": np.repeat(["A", "B"], n), "row": np.tile(rows, 2),
                         "y": np.tile(y, 2), "p": np.concatenate([pa, pb])})


def wilson(k: int, n: int) -> tuple[float, float]:
    z = stats.norm.ppf(0.975)
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return mid - half, mid + half


def run_cell(n: int, regime: str, runs: int, boot: int, seq: np.random.SeedSequence
             ) -> dict[str, list[int]]:
    rng = np.random.default_rng(seq)
    hits = {key: [0, 0] for key in ("csr", "log_loss")}  # [p <= 0.05, CI excludes 0]
    for r in range(runs):
        df = null_frame(n, regime, rng)
        out = df.groupby("model").calib(y="y", proba="p").compare(
            "A", row_id="row", metrics=["csr", "log_loss"], n_boot=boot, seed=r)
        for key in hits:
            row = out.table.loc[("B", key)]
            hits[key][0] += bool(row["p_value"] <= 0.05)
            hits[key][1] += bool(row["ci_low"] > 0 or row["ci_high"] < 0)
    return hits


def size_table(results: list[tuple[str, int, dict[str, list[int]]]], runs: int) -> str:
    rows = []
    for regime, n, hits in results:
        for key, (k_test, k_ci) in hits.items():
            lo, hi = wilson(k_test, runs)
            lo2, hi2 = wilson(k_ci, runs)
            rows.append((regime, f"{n:,}", key, f"{k_test / runs:.1%} [{lo:.1%}, {hi:.1%}]",
                         f"{k_ci / runs:.1%} [{lo2:.1%}, {hi2:.1%}]"))
    return table(["regime", "rows", "metric", "z-test p <= 0.05",
                  "95 % paired interval excludes 0"], rows)


def reading(results: list[tuple[str, int, dict[str, list[int]]]], runs: int) -> str:
    """The measured ranges of the two rates, per metric, in words."""
    parts = []
    for key, label in (("csr", "CSR"), ("log_loss", "log loss")):
        tests = [hits[key][0] / runs for _, _, hits in results]
        cis = [hits[key][1] / runs for _, _, hits in results]
        parts.append(f"{label}: the z-test rejected in {min(tests):.1%}-{max(tests):.1%} of "
                     f"the null runs, the paired percentile interval excluded 0 in "
                     f"{min(cis):.1%}-{max(cis):.1%}")
    return ("Reading: " + "; ".join(parts) + ".  CSR's row terms (1 - correct) / (1 - c) "
            "are heavy-tailed when the model is confident (their variance under "
            "calibration grows without bound as confidences approach 1, up to the "
            "clipping at 1 - eps): the z-test of the CSR difference is then "
            "conservative and its percentile interval too narrow, so read the p-value "
            "for a decision about CSR and the interval as a description.")


def timing_table(quick: bool) -> str:
    rng = np.random.default_rng(1)
    cells = [(10_000, 2, False), (100_000, 2, False), (100_000, 5, False), (2_000, 2, True)]
    if quick:
        cells = [(10_000, 2, False), (2_000, 2, True)]
    rows = []
    for n, models, refit in cells:
        pair = null_frame(n, "mild", rng)
        b = pair[pair.model == "B"]
        # further models: model B's scores jittered on the logit scale (same rows, labels)
        extra = [b.assign(model=f"C{i}", p=special.expit(special.logit(b.p) + rng.normal(
            0.0, 0.3, n))) for i in range(models - 2)]
        df = pd.concat([pair, *extra])
        gb = df.groupby("model").calib(y="y", proba="p")
        t, _ = median_time(lambda gb=gb, refit=refit: gb.compare(
            "A", row_id="row", seed=0, refit=refit), repeat=1 if n > 10_000 else 3)
        what = "all metrics (refitting ones: 200 replicates)" if refit else \
            "every batched metric (refit=False)"
        rows.append((f"{n:,}", models, what, f"{t:.2f}"))
    return table(["rows", "models", "metrics", "seconds (B = 1000)"], rows)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=500, help="simulated data sets per cell")
    ap.add_argument("--boot", type=int, default=200, help="paired bootstrap replicates")
    ap.add_argument("--seed", type=int, default=0, help="master seed")
    ap.add_argument("--quick", action="store_true", help="a few runs of two cells")
    args = ap.parse_args(argv)
    runs = 40 if args.quick else args.runs
    cells = [(regime, n) for regime in REGIMES for n in (200, 1000, 5000)]
    if args.quick:
        cells = [("mild", 200), ("confident", 200)]
    seqs = np.random.SeedSequence(args.seed).spawn(len(cells))
    started = time.perf_counter()
    print(f"Machine: {machine()}\n", flush=True)
    results = []
    for (regime, n), seq in zip(cells, seqs, strict=True):
        t0 = time.perf_counter()
        results.append((regime, n, run_cell(n, regime, runs, args.boot, seq)))
        print(f"<!-- {regime} n={n}: {runs} runs in {time.perf_counter() - t0:.0f} s -->",
              flush=True)
    sizes = size_table(results, runs)
    print(sizes + "\n", flush=True)  # kept in the log should the timing fail
    body = "\n\n".join([
        "## Paired model comparison: size under a null, and time",
        f"Machine: {machine()}.",
        "Null: two equally calibrated, positively correlated binary models of the same "
        "rows (each predicts its exact conditional probability from a private and a "
        "shared signal; see `benchmarks/compare_size.py`).  Each run calls "
        "`df.groupby('model').calib(...).compare('A', row_id='row', "
        f"metrics=['csr', 'log_loss'], n_boot={args.boot})`; {runs} runs per cell; rates "
        "with 95 % Wilson intervals.  Target: at most 5 %.",
        sizes,
        reading(results, runs),
        "Time of `compare()` (B = 1000 paired replicates, binary, seed 0; 1-minute load "
        f"average {os.getloadavg()[0]:.1f} on the machine's {os.cpu_count()} cores when "
        "the timing started):",
        timing_table(args.quick),
        f"`python benchmarks/compare_size.py --runs {args.runs} --boot {args.boot} "
        f"--seed {args.seed}{' --quick' if args.quick else ''}`: "
        f"{time.perf_counter() - started:.0f} s.",
    ])
    write_section("compare", body)


if __name__ == "__main__":
    main()
