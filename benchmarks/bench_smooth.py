"""Smooth ECE at 1e6 rows: calreport against the authors' package relplot.

Times (median of 3 runs in one process, the same arrays for both) of the automatic
bandwidth smECE (bandwidth search included) and of smECE at a fixed sigma = 0.05,
on a calibrated and on an over-confident profile, with the largest difference of the
values.  The table is written to stdout.

Usage: ``PYTHONPATH=. python benchmarks/bench_smooth.py [--n N] [--write]`` (``--write``
replaces the ``smooth`` section of benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import relplot

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, median_time, table, write_section

from calreport.metrics.smooth import smece


def make_data(n: int, calibrated: bool, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Beta(2, 3) scores; outcomes calibrated, or from the over-confident curve 0.2 + 0.6 s."""
    rng = np.random.default_rng(seed)
    s = rng.beta(2.0, 3.0, n)
    truth = s if calibrated else 0.2 + 0.6 * s
    return s, (rng.uniform(size=n) < truth).astype(np.float64)


def bench(n: int) -> list[list[object]]:
    rows: list[list[object]] = []
    for calibrated in (True, False):
        s, y = make_data(n, calibrated)
        label = "calibrated" if calibrated else "over-confident"
        cases = [
            ("smECE (auto sigma)", lambda s=s, y=y: smece(s, y),
             lambda s=s, y=y: relplot.smECE(s, y)),
            ("smECE_sigma (0.05)", lambda s=s, y=y: smece(s, y, sigma=0.05),
             lambda s=s, y=y: relplot.smECE_sigma(s, y, 0.05)),
        ]
        for what, ours, theirs in cases:
            t_ours, v_ours = median_time(ours)
            t_theirs, v_theirs = median_time(theirs)
            rows.append([f"{label}, {what}", n, t_ours, t_theirs, t_theirs / t_ours,
                         v_ours, f"{abs(v_ours - v_theirs):.1e}"])
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    body = (
        f"## Smooth ECE vs relplot ({args.n:,} rows)\n\n"
        f"Machine: {machine(('calreport', 'numpy', 'scipy', 'relplot'))}\n\n"
        f"Command: `PYTHONPATH=. python benchmarks/bench_smooth.py --n {args.n}`\n\n"
        + table(["case", "rows", "calreport (s)", "relplot (s)", "speed-up (relplot / ours)",
                 "smECE", "|diff|"], bench(args.n))
        + "\n\nMedians of 3 runs of each in one process (calreport first, then relplot, "
        "same arrays); the machine is shared, so read the ratios. Target: at least as fast "
        "as relplot (speed-up >= 1) and |diff| <= 1e-6."
    )
    if args.write:
        write_section("smooth", body)
    else:
        print(body)


if __name__ == "__main__":
    main()
