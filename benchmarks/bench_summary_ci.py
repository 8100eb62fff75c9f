"""The summary with bootstrap intervals, old code against new, in fresh processes.

Cases (binary labels, Beta(2, 2) scores, as ``bench_bootstrap.py`` draws them):

* ``flat``: ``df.calib.summary(ci=0.95, n_boot=1000)`` on 1e6 rows (target <= 15 s
  on a quiet 2-core machine);
* ``grouped``: ``df.groupby("g").calib.summary(ci=0.95, n_boot=1000)``, 20 groups
  x 5e4 rows;
* ``bootstrap``: ``bootstrap_replicates`` of every batched metric alone, 1e6 rows
  x 1000 replicates.

Each timing is one call in a fresh process; the old and the new checkout alternate
(old, new, old, new, ...), so a change of the machine's load hits both.  Wall and
CPU seconds (the process's own, which move less with the load), medians, the median
of the same-round ratios, and the load average before and after.

Usage::

    python benchmarks/bench_summary_ci.py --old PATH [--rounds 3] [--cases flat grouped]
        [--write]

``PATH`` is a checkout of the code to compare against (e.g. a git worktree of the
base commit); the new code is this checkout.  ``--write`` puts the table in
benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

CASES = {
    "flat": "summary(ci=0.95, n_boot=1000), 1e6 binary rows",
    "grouped": "groupby(g).summary(ci=0.95, n_boot=1000), 20 groups x 5e4 rows",
    "bootstrap": "bootstrap_replicates(every batched metric, n_boot=1000), 1e6 rows",
}


def _data(n: int, groups: int = 0):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(1)
    p = rng.beta(2.0, 2.0, n)
    y = (rng.random(n) < p**1.2).astype(np.int64)
    df = pd.DataFrame({"y_true": y, "proba": p})
    if groups:
        df["g"] = np.repeat(np.arange(groups), n // groups)[:n]
    return df


def child(case: str) -> None:
    """Time one call of ``case`` in this process and print the seconds."""
    import calreport  # noqa: F401
    import calreport.bootstrap as bs
    from calreport.registry import REGISTRY

    warnings.simplefilter("ignore")
    if case == "flat":
        df = _data(1_000_000)
        df.iloc[:2000].calib.summary(ci=0.95, n_boot=20, seed=0, progress=False)  # imports

        def run():
            return df.calib.summary(ci=0.95, n_boot=1000, seed=0, progress=False)
    elif case == "grouped":
        df = _data(1_000_000, groups=20)
        df.iloc[:2000].calib.summary(ci=0.95, n_boot=20, seed=0, progress=False)

        def run():
            return df.groupby("g").calib.summary(ci=0.95, n_boot=1000, seed=0,
                                                 progress=False)
    else:
        prof = _data(1_000_000).calib.profile()
        names = [m for m, spec in REGISTRY.items() if spec.interval.kind == "bootstrap"]

        def run():
            return bs.bootstrap_replicates(prof, metrics=names, n_boot=1000, seed=0)
    t0, c0 = time.perf_counter(), time.process_time()
    run()
    print(time.perf_counter() - t0, time.process_time() - c0)


def _one(root: Path, case: str) -> tuple[float, float]:
    """Wall and CPU seconds of one call (CPU time moves less with the machine's load)."""
    env = dict(os.environ, PYTHONPATH=str(root))
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", case],
                         env=env, capture_output=True, text=True, check=True)
    wall, cpu = out.stdout.split()[-2:]
    return float(wall), float(cpu)


def _commit(root: Path) -> str:
    out = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True)
    return out.stdout.strip() or "?"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", type=Path, help="checkout of the code to compare against")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cases", nargs="+", default=["flat", "grouped"], choices=list(CASES))
    ap.add_argument("--write", action="store_true", help="write benchmarks/RESULTS.md")
    ap.add_argument("--child", choices=list(CASES), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child)
        return
    from _common import machine, table, write_section

    new_root = HERE.parent
    if args.old is None:
        ap.error("--old PATH (a checkout of the code to compare against) is required")
    load0 = os.getloadavg()
    rows = []
    for case in args.cases:
        old, new = [], []
        for _ in range(args.rounds):
            old.append(_one(args.old, case))
            new.append(_one(new_root, case))
            print(case, f"old {old[-1]} s, new {new[-1]} s (wall, cpu)", flush=True)
        for k, kind in enumerate(("wall", "CPU")):
            o_s, n_s = [x[k] for x in old], [x[k] for x in new]
            ratio = statistics.median(o / n for o, n in zip(o_s, n_s, strict=True))
            rows.append([f"{CASES[case]} ({kind})", statistics.median(o_s),
                         statistics.median(n_s), ratio,
                         " / ".join(f"{o:.1f}:{n:.1f}" for o, n in zip(o_s, n_s, strict=True))])
    load1 = os.getloadavg()
    body = (
        "## Summary with bootstrap intervals: old against new (`bench_summary_ci.py`)\n\n"
        f"Machine: {machine(('calreport', 'numpy', 'scipy', 'pandas'))}\n\n"
        f"Command: `python benchmarks/bench_summary_ci.py --old <checkout of "
        f"{_commit(args.old)}> --rounds {args.rounds} --cases {' '.join(args.cases)} "
        f"--write` at commit {_commit(new_root)}; load average (1, 5, 15 min) "
        f"{' '.join(f'{x:.1f}' for x in load0)} before, "
        f"{' '.join(f'{x:.1f}' for x in load1)} after.\n\n"
        + table(["case", "old s (median)", "new s (median)", "old/new (median of rounds)",
                 "rounds old:new s"], rows)
    )
    print(body)
    if args.write:
        write_section("summary_ci", body)


if __name__ == "__main__":
    main()
