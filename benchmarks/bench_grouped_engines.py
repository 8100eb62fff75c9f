"""Each grouped kernel against the plain per-group loop, through the public call.

For every kernel of ``calreport.metrics._grouped_*`` this times
``df.groupby("g").calib(y="y", proba="p").summary(metrics=...)`` (the metrics the
kernel computes) as dispatched, and with the kernel switched off so that those
metrics go through the per-group loop (each group's rows alone).  The switch is a
monkeypatch in this script only: ``calreport._segmented.segmentable`` answers False
for the kernel's metrics.  The two variants alternate within each repeat; the
table gives the medians and the ratio loop / kernel.  (The kernels of TCE_bpm and
P_risk were timed by the first version of this script, commit d64c8d4, and
deleted: benchmarks/RESULTS.md.)

Run: ``python benchmarks/bench_grouped_engines.py [--repeat 3] [--full] [--ci]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pandas as pd

import calreport  # noqa: F401  (registers the accessor)
from calreport import _segmented

#: kernel module -> the metrics it computes for all groups at once
KERNELS: dict[str, tuple[str, ...]] = {
    "_grouped_smooth": ("smece",),
    "_grouped_binned": ("classwise_ece", "debiased_ece"),
    "_grouped_local": ("lcs", "eci"),
    "_grouped_corp": ("corp_mcb", "corp_dsc", "corp_unc"),
}

#: the subgroup audits: (groups, rows a group)
CASES: tuple[tuple[int, int], ...] = ((50, 2000), (500, 200), (5, 100_000))


def frame(n_groups: int, rows: int, seed: int = 0) -> pd.DataFrame:
    """A binary frame: slightly miscalibrated probabilities, ``n_groups`` equal groups.

    Parameters
    ----------
    n_groups, rows : int
        Number of groups and rows in each.
    seed : int
        Seed of the generator.

    Returns
    -------
    pandas.DataFrame
        Columns ``g`` (group), ``y`` (0/1 label) and ``p`` (probability of 1).
    """
    rng = np.random.default_rng(seed)
    n = n_groups * rows
    p = rng.beta(2.0, 2.0, n)
    y = (rng.random(n) < p**1.1).astype(np.int64)
    return pd.DataFrame({"g": np.repeat(np.arange(n_groups), rows), "y": y, "p": p})


@contextmanager
def plain_loop(kernel: str) -> Iterator[None]:
    """Switch ``kernel`` off for the duration: its metrics go through the group loop.

    Parameters
    ----------
    kernel : str
        A key of :data:`KERNELS`.

    Yields
    ------
    None
    """
    names = set(KERNELS[kernel])
    original = _segmented.segmentable

    def patched(name: str, s: Any, refits: bool = True) -> bool:
        return False if name in names else original(name, s, refits)

    _segmented.segmentable = patched
    try:
        yield
    finally:
        _segmented.segmentable = original


def call(df: pd.DataFrame, metrics: tuple[str, ...] | None, how: str
         ) -> Callable[[], Any]:
    """The public call timed: a grouped summary of ``metrics`` (None: every metric);
    ``how`` "ci" adds the bootstrap intervals."""
    names = None if metrics is None else list(metrics)

    def run() -> Any:
        acc = df.groupby("g").calib(y="y", proba="p")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if how == "ci":
                return acc.summary(metrics=names, ci=0.95, n_boot=200, seed=0)
            return acc.summary(metrics=names)
    return run


def alternate(kernel: str, fn: Callable[[], Any], repeat: int) -> tuple[float, float, Any,
                                                                           Any]:
    """Median times of ``fn`` with the kernel and with the loop, alternated.

    Parameters
    ----------
    kernel : str
        A key of :data:`KERNELS`.
    fn : callable
        The public call.
    repeat : int
        Timed calls of each variant (after one untimed call of each).

    Returns
    -------
    tuple
        Median seconds with the kernel, with the loop, and the last result of each.
    """
    a_out = fn()
    with plain_loop(kernel):
        b_out = fn()
    a_times, b_times = [], []
    for i in range(repeat):
        for variant in ((0, 1) if i % 2 == 0 else (1, 0)):
            t0 = time.perf_counter()
            if variant == 0:
                a_out = fn()
                a_times.append(time.perf_counter() - t0)
            else:
                with plain_loop(kernel):
                    t0 = time.perf_counter()
                    b_out = fn()
                b_times.append(time.perf_counter() - t0)
    return statistics.median(a_times), statistics.median(b_times), a_out, b_out


def main(argv: list[str] | None = None) -> None:
    """Print the table kernel, case, kernel time, loop time, ratio."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--kernels", nargs="*", default=list(KERNELS))
    ap.add_argument("--ci", action="store_true",
                    help="also time summary(ci=0.95, n_boot=200) on 50 x 2,000")
    ap.add_argument("--full", action="store_true",
                    help="also time the default summary() (every metric) on 500 x 200")
    ap.add_argument("--extra-only", action="store_true",
                    help="only the rows asked for by --ci and --full")
    args = ap.parse_args(argv)
    frames = {case: frame(*case) for case in CASES}
    print("| kernel | case | call | kernel s | loop s | loop / kernel | same numbers |")
    print("|---|---|---|---|---|---|---|")
    for kernel in args.kernels:
        metrics = KERNELS[kernel]
        jobs = [] if args.extra_only else [(case, "summary") for case in CASES]
        if args.ci:
            jobs.append(((50, 2000), "ci"))
        if args.full:
            jobs.append(((500, 200), "full"))
        for case, how in jobs:
            fn = call(frames[case], None if how == "full" else metrics, how)
            a, b, ra, rb = alternate(kernel, fn, args.repeat)
            cols = list(metrics)
            diff = float(np.nanmax(np.abs(ra[cols].to_numpy(float)
                                          - rb[cols].to_numpy(float))))
            label = f"{case[0]} x {case[1]:,}"
            what = {"summary": "summary(metrics=kernel's)", "full": "summary() every metric",
                    "ci": "summary(metrics=kernel's, ci=0.95, n_boot=200)"}[how]
            print(f"| {kernel} | {label} | {what} | {a:.3f} | {b:.3f} | {b / a:.2f}x "
                  f"| {diff:.1e} |", flush=True)


if __name__ == "__main__":
    main()
