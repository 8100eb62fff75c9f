"""The debiased ECE out of core: exact by a second pass, or sampled with its error.

Times, on the default (threaded) Dask scheduler, ``ddf.calib(...).summary()`` (one
pass), ``summary(exact_debiased=True)`` (a second pass collecting the rows of the
fine score bins that hold an equal-mass edge; a third with importance weights) and
``summary(sample_size=20_000)`` (the value on a uniform sample, with its 95 %
sampling error), and compares each debiased ECE with the pandas accessor's on the
same rows.  Binary rows, ``p ~ Beta(2, 2)``, ``y ~ Bernoulli(p^1.3)``, partitions of
10^6 rows; ``--weighted`` adds importance weights ``Gamma(0.7, 2)``.  Each timing is
the median of ``--repeat`` runs in this process (the machine is shared: ratios
within one run are what to read).

Usage::

    python benchmarks/bench_exact_debiased.py --rows 1e6 1e7 [--weighted] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np
import pandas as pd

try:
    from _common import machine, table
except ImportError:  # run from the repository root
    from benchmarks._common import machine, table


def frame(rows: int, weighted: bool, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.beta(2.0, 2.0, rows)
    df = pd.DataFrame({"y": (rng.random(rows) < p**1.3).astype(np.int8), "p": p})
    if weighted:
        df["w"] = rng.gamma(0.7, 2.0, rows)
    return df


def timed(fn, repeat: int) -> tuple[float, object]:
    secs, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        secs.append(time.perf_counter() - t0)
    return statistics.median(secs), out


def main() -> None:
    import dask.dataframe as dd

    import calreport  # noqa: F401  (registers ddf.calib)

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=float, nargs="+", default=[1e6, 1e7])
    ap.add_argument("--weighted", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    out = []
    for rows in (int(r) for r in args.rows):
        df = frame(rows, args.weighted)
        roles = {"y": "y", "proba": "p", **({"weight": "w"} if args.weighted else {})}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            truth = float(df.calib(**roles).debiased_ece())
            ddf = dd.from_pandas(df, npartitions=max(1, rows // 1_000_000)).persist()
            acc = ddf.calib(**roles)
            base, _ = timed(lambda a=acc: a.summary(), args.repeat)
            exact_s, exact = timed(lambda a=acc: a.summary(exact_debiased=True), args.repeat)
            samp_s, samp = timed(lambda a=acc: a.summary(sample_size=20_000), args.repeat)
        for name, secs, got in (("one pass (no debiased ECE)", base, None),
                                ("exact_debiased=True", exact_s, exact),
                                ("sample_size=20,000", samp_s, samp)):
            val = "" if got is None else f"{got['debiased_ece']:.6f}"
            err = "" if got is None else f"{abs(got['debiased_ece'] - truth):.1e}"
            h = ("" if got is None or "debiased_ece_sampling_error" not in got
                 else f"{got['debiased_ece_sampling_error']:.1e}")
            out.append([f"{rows:,}", name, f"{secs:.2f}", f"{secs / base:.2f}", val, err, h])
        print(f"{rows:,} rows: pandas debiased ECE {truth:.6f}", flush=True)
    print(f"\n{machine()}\n{'importance weights' if args.weighted else 'unweighted'}; "
          f"median of {args.repeat} runs\n")
    print(table(["rows", "call", "seconds", "x one pass", "debiased ECE", "|error| vs pandas",
                 "printed 95 % error"], out))


if __name__ == "__main__":
    main()
