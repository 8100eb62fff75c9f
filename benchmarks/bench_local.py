"""Local calibration metrics: LCS and the ICI family at 1e5 and 1e6 rows.

Times (median of 3 runs, shuffled input so the internal sort is included):

* ``lcs`` with the default LOWESS smoother and with the original local mean;
* ``calibration_error_summary`` (ICI, E50, E90, Emax) with both smoothers;
* ``lcs`` + ``calibration_error_summary`` together (what a summary computes);
* for scale, calzone's Loess-ICI recipe: statsmodels ``lowess`` at every row with
  ``frac=0.5, delta=0.001, it=0``.

Usage: ``python benchmarks/bench_local.py [--quick] [--no-write]``; writes its section
of benchmarks/RESULTS.md unless ``--quick`` or ``--no-write``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from statsmodels.nonparametric.smoothers_lowess import lowess

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, median_time, table, write_section

from calreport.metrics.calibration_index import calibration_error_summary
from calreport.metrics.local import lcs


def make_data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Beta(2, 3) scores, outcomes from a mildly over-confident true curve."""
    rng = np.random.default_rng(seed)
    p = rng.beta(2.0, 3.0, n)
    truth = 1.0 / (1.0 + np.exp(-0.7 * (np.log(p) - np.log1p(-p))))
    return p, (rng.random(n) < truth).astype(np.int64)


def calzone_loess_ici(p: np.ndarray, y: np.ndarray) -> float:
    fit = lowess(y, p, frac=0.5, delta=0.001, it=0, return_sorted=True)
    return float(np.mean(np.abs(fit[:, 0] - fit[:, 1])))


def bench(n: int, repeat: int) -> list[list[object]]:
    p, y = make_data(n)
    cases = [
        ("lcs (lowess, frac 0.15)", lambda: lcs(p, y)),
        ("lcs (local_constant, frac 0.15)", lambda: lcs(p, y, method="local_constant")),
        ("ICI/E50/E90/Emax (lowess, 500 nodes)", lambda: calibration_error_summary(p, y)),
        ("ICI/E50/E90/Emax (local_constant, exact)",
         lambda: calibration_error_summary(p, y, method="local_constant")),
        ("lcs + ICI family (lowess)",
         lambda: (lcs(p, y), calibration_error_summary(p, y))),
        ("lcs + ICI family (local_constant)",
         lambda: (lcs(p, y, method="local_constant"),
                  calibration_error_summary(p, y, method="local_constant"))),
        ("calzone Loess ICI recipe (statsmodels, frac 0.5, delta 0.001)",
         lambda: calzone_loess_ici(p, y)),
    ]
    rows: list[list[object]] = []
    for label, fn in cases:
        seconds, _ = median_time(fn, repeat=repeat)
        rows.append([f"{n:,}", label, seconds])
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="1e4 and 1e5 rows, one run each")
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args()
    sizes = (10_000, 100_000) if args.quick else (100_000, 1_000_000)
    repeat = 1 if args.quick else 3
    rows = [row for n in sizes for row in bench(n, repeat)]
    body = (
        "## Local calibration (LCS, ICI)\n\n"
        f"Machine: {machine()}\n\n"
        "Command: `python benchmarks/bench_local.py`\n\n"
        + table(["rows", "case", "seconds (median of 3)"], rows)
        + "\n\nThe curve is fitted only at the 100 grid points (LCS) or at ~600 score "
        "nodes interpolated to every row (ICI with LOWESS); the local mean is exact at "
        "every distinct score by bisection on the sorted scores. The reflected-KDE "
        "weights come from linear binning and one FFT convolution."
    )
    if args.quick or args.no_write:
        print(body)
    else:
        write_section("local", body)


if __name__ == "__main__":
    main()
