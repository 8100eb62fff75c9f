"""CORP (isotonic / PAV) reliability curve and decomposition at 1e6 rows against peers.

Times, in one process on the same arrays (median of ``--repeat`` alternating runs),

* ``calreport.metrics.corp.corp_curve`` against scikit-learn's
  ``IsotonicRegression().fit_transform`` and against SciPy's
  ``scipy.optimize.isotonic_regression`` -- the latter both as the bare PAV kernel on
  outcomes already sorted by score, and as the full pipeline a user would write (sort,
  pool ties by score, weighted PAV, map back to the rows);
* ``corp_decomposition`` (Brier rule) against the same decomposition computed from
  scikit-learn's isotonic fit (MCB, DSC, UNC from three Brier means).

Two score profiles: continuous Beta(2, 3) scores (all distinct) and the same scores
rounded to 2 decimals (heavy ties).  The largest difference of the recalibrated values
is reported beside the times.

Usage: ``PYTHONPATH=. python benchmarks/bench_corp.py [--n N] [--repeat R] [--write]``
(``--write`` replaces the ``corp`` section of benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import isotonic_regression
from sklearn.isotonic import IsotonicRegression

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, table, write_section

from calreport.metrics.corp import corp_curve, corp_decomposition


def make_data(n: int, ties: bool, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Beta(2, 3) scores, outcomes from the over-confident truth 0.2 + 0.6 s."""
    rng = np.random.default_rng(seed)
    s = rng.beta(2.0, 3.0, n)
    y = (rng.uniform(size=n) < 0.2 + 0.6 * s).astype(np.float64)
    if ties:
        s = np.round(s, 2)
    return s, y


def side_by_side(fns: list[Callable[[], Any]], repeat: int) -> list[float]:
    """Median wall time of each function, runs alternating, after one warm-up each."""
    for fn in fns:
        fn()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            gc.collect()
            t0 = time.perf_counter()
            fn()
            times[i].append(time.perf_counter() - t0)
    return [statistics.median(t) for t in times]


def scipy_pipeline(s: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Row-wise isotonic fit with SciPy: sort, pool ties, weighted PAV, map back."""
    order = np.argsort(s, kind="stable")
    ss = s[order]
    first = np.concatenate(([True], ss[1:] != ss[:-1]))
    starts = np.flatnonzero(first)
    w = np.diff(np.append(starts, len(ss))).astype(np.float64)
    ysum = np.add.reduceat(y[order], starts)
    fit = isotonic_regression(ysum / w, weights=w).x
    out = np.empty_like(y)
    out[order] = np.repeat(fit, w.astype(np.int64))
    return out


def sklearn_decomposition(s: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """MCB, DSC, UNC of the Brier score from scikit-learn's isotonic fit."""
    phat = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit_transform(s, y)
    r = y.mean()
    s_p, s_hat, s_r = np.mean((s - y) ** 2), np.mean((phat - y) ** 2), np.mean((r - y) ** 2)
    return s_p - s_hat, s_r - s_hat, s_r


def bench(n: int, repeat: int) -> list[list[object]]:
    rows: list[list[object]] = []
    for ties in (False, True):
        s, y = make_data(n, ties)
        label = "scores rounded to 0.01" if ties else "continuous scores"
        order = np.argsort(s, kind="stable")
        ys = y[order]
        ours = corp_curve(s, y).recalibrated
        sk = IsotonicRegression(out_of_bounds="clip").fit_transform(s, y)
        sp = scipy_pipeline(s, y)
        t_ours, t_sk, t_sp, t_kernel = side_by_side([
            lambda s=s, y=y: corp_curve(s, y),
            lambda s=s, y=y: IsotonicRegression(out_of_bounds="clip").fit_transform(s, y),
            lambda s=s, y=y: scipy_pipeline(s, y),
            lambda ys=ys: isotonic_regression(ys),
        ], repeat)
        rows.append([label, "calreport corp_curve", t_ours, 1.0, "-"])
        rows.append([label, "scikit-learn IsotonicRegression.fit_transform", t_sk, t_sk / t_ours,
                     f"{np.max(np.abs(ours - sk)):.1e}"])
        rows.append([label, "SciPy isotonic_regression, sort + tie pooling + map back", t_sp,
                     t_sp / t_ours, f"{np.max(np.abs(ours - sp)):.1e}"])
        rows.append([label, "SciPy isotonic_regression kernel alone (pre-sorted, no pooling)",
                     t_kernel, t_kernel / t_ours, "(not tie-pooled)" if ties else "-"])
        dec = corp_decomposition(s, y, rule="brier")
        ref = sklearn_decomposition(s, y)
        t_dec, t_ref = side_by_side([
            lambda s=s, y=y: corp_decomposition(s, y, rule="brier"),
            lambda s=s, y=y: sklearn_decomposition(s, y),
        ], repeat)
        diff = max(abs(a - b) for a, b in zip(dec.terms, ref, strict=True))
        rows.append([label, "calreport corp_decomposition (Brier)", t_dec, 1.0, "-"])
        rows.append([label, "scikit-learn isotonic fit + 3 Brier means", t_ref, t_ref / t_dec,
                     f"{diff:.1e}"])
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e6)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args(argv)
    n = int(a.n)
    header = ["profile", "case", "seconds (median)", "time / calreport", "max |diff|"]
    body = (
        f"## CORP curve and decomposition vs isotonic peers ({n:,} rows)\n\n"
        f"Machine: {machine(('calreport', 'numpy', 'scipy', 'scikit-learn'))}\n\n"
        f"Command: `PYTHONPATH=. python benchmarks/bench_corp.py --n {a.n:g} "
        f"--repeat {a.repeat}`\n\n"
        + table(header, bench(n, a.repeat))
        + f"\n\nMedians of {a.repeat} alternating runs in one process after a warm-up; "
        "the machine is shared, so read the same-run ratios rather than the absolute times. "
        "max |diff| compares each row's recalibrated probability (curve rows) or the three "
        "terms MCB, DSC, UNC (decomposition rows) with calreport's."
    )
    if a.write:
        write_section("corp", body)
    else:
        print(body)


if __name__ == "__main__":
    main()
