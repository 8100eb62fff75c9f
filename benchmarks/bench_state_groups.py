"""State size, save, load and merge time of an Accumulator as the groups grow.

For each number of groups (``--groups``), groups of ``--rows-per-group`` rows (binary
scores, or ``--classes`` probability columns), default settings: the in-memory size
of the state (the arrays' bytes: counts, exact sums, float sums), the length of
``to_bytes``, and the median wall time of ``to_bytes``, ``from_bytes`` and ``a + b``
(two accumulators of the same groups, disjoint rows, distinct streams), and of
loading and summing ``--saved`` states saved with ``to_bytes``.  Each configuration
runs in a fresh process, so the code measured is the ``calreport`` the environment
imports (``PYTHONPATH``): run it once per commit to compare them.

With ``--dask G``: one ``dd.from_pandas(...).groupby("g").calib(y=..., proba=...).summary()``
of G groups on a ``LocalCluster(n_workers=2, threads_per_worker=1)``, with the peak
resident memory of each worker and of the client process, and the seconds of the
client's finish (``full_table`` and ``summary_frame`` on the merged state).

Usage::

    python benchmarks/bench_state_groups.py --groups 10 100 1000
    python benchmarks/bench_state_groups.py --groups 10 100 --classes 5
    python benchmarks/bench_state_groups.py --dask 1000
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine, median_time

from calreport import Accumulator

#: ``max_bytes`` of the loads: the largest states measured pass the 1 GiB default.
BIG = 1 << 36


def frame(groups: int, rows_per_group: int, classes: int, seed: int) -> tuple[pd.DataFrame,
                                                                            dict]:
    """Rows of ``groups`` groups (about ``rows_per_group`` each), calibrated scores."""
    rng = np.random.default_rng(seed)
    n = groups * rows_per_group
    g = rng.integers(0, groups, n)
    if classes == 2:
        p = rng.random(n)
        return (pd.DataFrame({"y": (rng.random(n) < p).astype(int), "p": p, "g": g}),
                {"proba": "p", "classes": [0, 1]})
    probs = rng.dirichlet(np.ones(classes), n)
    y = (probs.cumsum(axis=1) < rng.random((n, 1))).sum(axis=1).clip(0, classes - 1)
    cols = [f"p{j}" for j in range(classes)]
    return (pd.DataFrame({"y": y, **dict(zip(cols, probs.T, strict=True)), "g": g}),
            {"proba": cols, "classes": list(range(classes))})


def state_bytes(state) -> int:
    """Bytes of the state's counts, exact sums, float sums and replicates (any layout)."""
    total = sum(a.nbytes for a in state.counts.values())
    total += sum(a.nbytes for a in state.maxima.values())
    total += 0 if state.boot is None else state.boot.nbytes
    for s in [*state.sums.values(), *state.fsums.values()]:
        total += s.limbs.nbytes if hasattr(s, "limbs") else s.nbytes
    return int(total)


def one(groups: int, rows_per_group: int, classes: int, repeat: int, saved: int) -> dict:
    df, roles = frame(groups, rows_per_group, classes, 0)
    t0 = time.perf_counter()
    a = Accumulator(y="y", by="g", **roles).update(df)
    build = time.perf_counter() - t0
    df2, _ = frame(groups, rows_per_group, classes, 1)
    b = Accumulator(y="y", by="g", stream=1, **roles).update(df2)
    del df, df2
    t_save, blob = median_time(a.to_bytes, repeat=repeat)
    t_load, back = median_time(lambda: Accumulator.from_bytes(blob, max_bytes=BIG),
                               repeat=repeat)
    assert back.state.equals(a.state)
    t_merge, merged = median_time(lambda: a + b, repeat=repeat)
    out = {"groups": groups, "classes": classes, "rows": int(a.state.counts["n"].sum()),
           "build_s": build, "state_bytes": state_bytes(a.state), "to_bytes": len(blob),
           "save_s": t_save, "load_s": t_load, "merge_s": t_merge,
           "merged_bytes": state_bytes(merged.state)}
    if saved:
        blobs = [Accumulator(y="y", by="g", stream=s, **roles).update(
            frame(groups, rows_per_group, classes, 10 + s)[0]).to_bytes() for s in range(saved)]
        t0 = time.perf_counter()
        total = None
        for x in blobs:
            acc = Accumulator.from_bytes(x, max_bytes=BIG)
            total = acc if total is None else total + acc
        out[f"load_and_merge_{saved}_s"] = time.perf_counter() - t0
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def dask_run(groups: int, rows_per_group: int) -> dict:
    import dask.dataframe as dd  # lazy: dask
    from dask.distributed import Client, LocalCluster  # lazy: dask

    import calreport.dask  # registers the accessor; its finish is timed below

    df, _ = frame(groups, rows_per_group, 2, 0)
    finish = [0.0]  # seconds in the client's finish: full_table, then summary_frame

    def timed(fn):
        def run(*args, **kwargs):
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                finish[0] += time.perf_counter() - t
        return run

    calreport.dask.full_table = timed(calreport.dask.full_table)
    calreport.dask.summary_frame = timed(calreport.dask.summary_frame)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        ddf = dd.from_pandas(df, npartitions=8)
        t0 = time.perf_counter()
        summary = ddf.groupby("g").calib(y="y", proba="p").summary()
        secs = time.perf_counter() - t0
        peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return {"dask_groups": groups, "rows": len(df), "partitions": 8, "seconds": secs,
            "finish_s": finish[0], "groups_out": len(summary),
            "worker_peak_rss_mb": sorted(peaks.values()),
            "client_peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, nargs="*", default=[10, 100, 1000])
    parser.add_argument("--rows-per-group", type=int, default=1000)
    parser.add_argument("--classes", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--saved", type=int, default=0,
                        help="also load and sum this many saved states of each size")
    parser.add_argument("--dask", type=int, default=0, help="groups of one Dask run")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        res = (dask_run(args.dask, args.rows_per_group) if args.dask else
               one(args.groups[0], args.rows_per_group, args.classes, args.repeat, args.saved))
        print(json.dumps(res))
        return
    print(machine())
    print("load:", os.getloadavg())
    runs = [["--dask", str(args.dask)]] if args.dask else [["--groups", str(g)]
                                                           for g in args.groups]
    for run in runs:
        cmd = [sys.executable, os.path.abspath(__file__), "--one", *run,
               "--rows-per-group", str(args.rows_per_group), "--classes", str(args.classes),
               "--repeat", str(args.repeat), "--saved", str(args.saved)]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        print(done.stdout.strip() or done.stderr.strip().splitlines()[-1], flush=True)


if __name__ == "__main__":
    main()
