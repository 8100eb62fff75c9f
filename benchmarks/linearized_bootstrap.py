"""Coverage and agreement of the linearized AUC, cwAUC and AURC replicates.

Above 20,000 rows with at least 1,000 on each side, ``bootstrap_replicates``
replaces the exact replicates of the AUC, cwAUC (and their difference) and AURC by
their first-order expansion (``calreport.bootstrap._linear``).  This measures, at
the smallest sample where that happens:

* **coverage**: the setups of ``benchmarks/coverage.py`` (binary, weighted and
  10-class; calibrated and miscalibrated) at n = 20,000, plus ``rare``: a
  calibrated binary model whose scores are Beta(0.5, 9) (about 1,050 positives and
  as many errors at 20,000 rows: the boundary of the rule).  Each run's intervals
  are read from linearized replicates (``linearize=True``), and in the same runs
  from the exact ones, by every method (percentile, basic, upper, lower) and
  checked against the truth on 10,000,000 rows (its own error is then about 4 % of
  the estimate's at 20,000 rows, as 2,000,000 rows are at the coverage study's
  3,000);
* **agreement**: on the same replicate weights, the exact and the linearized
  percentile intervals of each metric (1,000 replicates), as the largest
  difference of an end over the exact interval's width.

Usage: ``python benchmarks/linearized_bootstrap.py [--runs R] [--boot B] [--write]``;
``--write`` replaces its section of RESULTS.md and ``calreport/coverage_linearized.json``
(read by every output that prints such an interval).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, table, write_section
from coverage import SETTINGS, simulate, truth

from calreport.bootstrap import bootstrap_intervals
from calreport.bootstrap.kernels import Kernels
from calreport.interval_rules import read_interval
from calreport.profile import ConfidenceProfile
from calreport.registry import REGISTRY
from calreport.summary import summarize

ROOT = Path(__file__).resolve().parents[1]
METRICS = ("auc", "cwauc", "delta_auc", "aurc")
METHODS = ("percentile", "basic", "upper", "lower")
CELLS = [(k, c) for k in ("binary", "weighted", "10-class")
         for c in ("calibrated", "miscalibrated")] + [("rare", "calibrated")]
N = 20_000


def data(kind: str, calibration: str, n: int, rng: np.random.Generator
         ) -> ConfidenceProfile:
    """The coverage study's setups, and ``rare`` (Beta(0.5, 9) scores, calibrated)."""
    if kind != "rare":
        return simulate(kind, calibration, n, rng)
    p = rng.beta(0.5, 9.0, n)
    return ConfidenceProfile.from_arrays((rng.random(n) < p).astype(int), p)


def cell_truth(kind: str, calibration: str, truth_n: int) -> dict[str, float]:
    if kind != "rare":
        return truth(kind, calibration, N, truth_n, only=METRICS)
    big = data(kind, calibration, truth_n, np.random.default_rng(12345))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dict(summarize(big, metrics=list(METRICS), settings=SETTINGS).values)


def runs(task: tuple) -> dict:
    """Hits by metric and method over some runs of one cell."""
    kind, calibration, first, last, n_boot, true, linearize = task
    hits = {(m, k): 0 for m in METRICS for k in METHODS}
    for r in range(first, last):
        rng = np.random.default_rng([7, CELLS.index((kind, calibration)), r])
        prof = data(kind, calibration, N, rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = summarize(prof, metrics=list(METRICS), settings=SETTINGS)
            boot = bootstrap_intervals(prof, res, n_boot=n_boot, seed=[7, r],
                                       return_replicates=True, warn=False,
                                       linearize=linearize)
        for m in METRICS:
            for k in METHODS:
                b = read_interval(boot.replicates[m], res.values[m], 0.95, k,
                                  REGISTRY[m].bounds)
                hits[(m, k)] += bool(b.low[0] <= true[m] <= b.high[0])
    return hits


def agreement(kind: str, calibration: str, sets: int, n_boot: int) -> dict[str, float]:
    """Largest |exact end - linearized end| / exact width, per metric, over ``sets``
    data sets, both read from the same replicate weights."""
    worst = dict.fromkeys(METRICS, 0.0)
    for r in range(sets):
        rng = np.random.default_rng([11, CELLS.index((kind, calibration)), r])
        prof = data(kind, calibration, N, rng)
        exact = Kernels(prof, SETTINGS, list(METRICS))
        lin = Kernels(prof, SETTINGS, list(METRICS), linearize=True)
        ex = {m: [] for m in METRICS}
        li = {m: [] for m in METRICS}
        for _ in range(0, n_boot, 100):
            w = rng.poisson(1.0, (100, N)).astype(np.float64)
            if prof.sample_weight is not None:
                w *= prof.sample_weight
            for m, vals in exact.evaluate(w).items():
                ex[m].append(vals)
            for m, vals in lin.evaluate(w).items():
                li[m].append(vals)
        for m in METRICS:
            e, x = np.concatenate(ex[m]), np.concatenate(li[m])
            qe, qx = np.quantile(e, [0.025, 0.975]), np.quantile(x, [0.025, 0.975])
            worst[m] = max(worst[m], float(np.abs(qe - qx).max() / (qe[1] - qe[0])))
    return worst


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=400)
    ap.add_argument("--boot", type=int, default=200)
    ap.add_argument("--sets", type=int, default=10, help="data sets a cell (agreement)")
    ap.add_argument("--truth-n", type=int, default=10_000_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    truths = {c: cell_truth(*c, args.truth_n) for c in CELLS}
    step = max(1, args.runs // (4 * args.workers))
    # the same runs with linearized and with exact replicates
    tasks = [(*c, a, min(a + step, args.runs), args.boot, truths[c], lin)
             for lin in (True, False) for c in CELLS for a in range(0, args.runs, step)]
    with mp.get_context("spawn").Pool(args.workers) as pool:
        parts = pool.map(runs, tasks)
        agree = dict(zip(CELLS, pool.starmap(agreement, [(*c, args.sets, 1000)
                                                          for c in CELLS]), strict=True))
    cov: dict = {lin: {m: {k: [] for k in METHODS} for m in METRICS} for lin in (True, False)}
    for lin in (True, False):
        for c in CELLS:
            hits = {key: sum(p[key] for t, p in zip(tasks, parts, strict=True)
                             if t[:2] == c and t[-1] == lin) for key in parts[0]}
            for m in METRICS:
                for k in METHODS:
                    cov[lin][m][k].append(round(hits[(m, k)] / args.runs, 3))
    seconds = time.perf_counter() - t0
    names = [f"{k} {'cal' if c == 'calibrated' else 'mis'} n={N}" for k, c in CELLS]
    rows = [[m, k, *(f"{x:.3f} / {y:.3f}" for x, y in zip(cov[True][m][k], cov[False][m][k],
                                                          strict=True))]
            for m in METRICS for k in METHODS]
    text = table(["metric", "method", *names], rows)
    agree_rows = [[m, *(f"{agree[c][m]:.3f}" for c in CELLS)] for m in METRICS]
    text2 = table(["metric", *names], agree_rows)
    print(text + "\n" + text2)
    print(f"{seconds:.0f} s")
    if args.write:
        cov = cov[True]
        study = {"runs": args.runs, "n_boot": args.boot, "sizes": [N],
                 "truth_n": args.truth_n, "seed": 7,
                 "command": "python benchmarks/linearized_bootstrap.py --write"}
        lines = ["{", f'  "study": {json.dumps(study)},', f'  "cells": {json.dumps(names)},',
                 '  "coverage": {',
                 ",\n".join(f'    "{m}": {{' + ", ".join(f'"{k}": {json.dumps(cov[m][k])}'
                                                       for k in METHODS) + "}"
                            for m in METRICS), "  },",
                 '  "agreement": {' + ", ".join(
                     f'"{m}": {json.dumps([round(agree[c][m], 4) for c in CELLS])}'
                     for m in METRICS) + "}", "}"]
        (ROOT / "calreport" / "coverage_linearized.json").write_text(
            "\n".join(lines) + "\n", encoding="utf-8")
        body = (f"Command: `python benchmarks/linearized_bootstrap.py --write` "
                f"({args.runs} runs a cell, B = {args.boot}, truth from {args.truth_n:,} "
                f"rows; {seconds:.0f} s on {args.workers} processes). {machine()}\n\n"
                "Coverage of the 95 % intervals read from linearized replicates "
                f"(`linearize=True`) / from the exact replicates in the same runs, "
                f"n = {N:,} rows (the smallest sample the rule linearizes; `rare`: about "
                "1,050 positives and errors, the smallest side it linearizes):\n\n"
                + text + "\n\nAgreement with the exact replicates on the same weights "
                f"({args.sets} data sets a cell, 1,000 replicates): the largest difference "
                "of a percentile interval's end, over the exact interval's width:\n\n"
                + text2 + "\n")
        write_section("linearized_bootstrap",
                      "## Linearized AUC, cwAUC and AURC replicates\n\n" + body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
