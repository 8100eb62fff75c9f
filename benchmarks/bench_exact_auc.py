"""``summary(exact_auc=True)`` on a 2-worker LocalCluster: client memory and wall time.

Each measurement runs in a fresh process (so the peak RSS is its own) that starts a
``LocalCluster(n_workers=2, threads_per_worker=1, memory_limit=--memory-limit)``,
builds a Dask frame whose partitions are generated on the workers (continuous
scores: every score distinct), and times ``ddf.calib.summary(exact_auc=True)``
while a thread samples the client process's RSS every 10 ms.  The peak minus the
RSS just before the call is the client's peak (the client process also holds the
scheduler).  ``--roots A B`` compares two checkouts of calreport (e.g. the previous
commit and this one), alternating them in fresh processes, ``--repeat`` times per
case; the table gives medians and the same-run ratios B / A.

Usage::

    python benchmarks/bench_exact_auc.py --roots OLD_CHECKOUT NEW_CHECKOUT \\
        --rows 1e6 1e7 3e7 --classes 2 5 --repeat 2

``--classes 5`` runs only at the rows given by ``--multiclass-rows`` (default 1e6);
``--no-exact-auc`` times ``summary()`` (the first pass alone) for reference.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROWS_PER_PARTITION = 1_000_000


def _part(i: int, rows: int, classes: int) -> object:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(1000 + i)
    if classes == 2:
        p = rng.random(rows)
        return pd.DataFrame({"y": (rng.random(rows) < p).astype(np.int64), "proba": p})
    proba = rng.dirichlet(np.ones(classes), rows)
    y = (proba.cumsum(axis=1) < rng.random(rows)[:, None]).sum(axis=1).clip(0, classes - 1)
    return pd.DataFrame({"y": y, **{f"p{k}": proba[:, k] for k in range(classes)}})


def measure(rows: int, classes: int, memory_limit: str, exact_auc: bool = True) -> dict:
    """One measurement in this process (the child side)."""
    import dask.dataframe as dd
    import psutil
    from distributed import Client, LocalCluster

    import calreport  # noqa: F401  (registers ``ddf.calib``)

    n_parts = max(4, -(-rows // ROWS_PER_PARTITION))
    sizes = [rows // n_parts + (k < rows % n_parts) for k in range(n_parts)]
    with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit=memory_limit,
                      dashboard_address=None) as cluster, Client(cluster):
        ddf = dd.from_map(_part, list(range(n_parts)), sizes, [classes] * n_parts,
                          meta=_part(0, 1, classes).iloc[:0])
        roles = ({"y": "y", "proba": "proba"} if classes == 2
                 else {"y": "y", "proba": [f"p{k}" for k in range(classes)]})
        proc = psutil.Process()
        base = proc.memory_info().rss
        peak = [base]
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], proc.memory_info().rss)
                time.sleep(0.01)

        thread = threading.Thread(target=sample, daemon=True)
        thread.start()
        t0 = time.perf_counter()
        out = ddf.calib(**roles).summary(exact_auc=exact_auc)
        wall = time.perf_counter() - t0
        done.set()
        thread.join()
    return {"wall_s": wall, "client_peak_mb": (peak[0] - base) / 2**20,
            "auc": float(out["auc"]), "cwauc": float(out["cwauc"])}


def _run(root: str, rows: int, classes: int, memory_limit: str, exact_auc: bool) -> dict:
    env = {**os.environ, "PYTHONPATH": root}
    cmd = [sys.executable, __file__, "--child", str(rows), str(classes), memory_limit,
           str(int(exact_auc))]
    got = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=3600)
    if got.returncode:
        return {"error": (got.stderr.strip().splitlines() or ["?"])[-1][:120]}
    return json.loads(got.stdout.strip().splitlines()[-1])


def _commit(root: str) -> str:
    got = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True)
    return got.stdout.strip() or Path(root).name


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--roots", nargs=2, metavar=("A", "B"), required=True)
    ap.add_argument("--rows", nargs="+", type=float, default=[1e6, 1e7])
    ap.add_argument("--classes", nargs="+", type=int, default=[2, 5])
    ap.add_argument("--multiclass-rows", nargs="+", type=float, default=[1e6])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--memory-limit", default="4GB")
    ap.add_argument("--no-exact-auc", action="store_true",
                    help="time summary() without exact_auc (the first pass alone)")
    args = ap.parse_args()
    names = [_commit(r) for r in args.roots]
    print(f"load before: {os.getloadavg()}", flush=True)
    print("| rows | classes | code | wall s (median) | client peak MB (median) | AUC |")
    print("| ---: | ---: | --- | ---: | ---: | --- |")
    for classes in args.classes:
        for rows in (args.rows if classes == 2 else args.multiclass_rows):
            got: dict[int, list[dict]] = {0: [], 1: []}
            for _ in range(args.repeat):
                for k, root in enumerate(args.roots):
                    got[k].append(_run(root, int(rows), classes, args.memory_limit,
                                        not args.no_exact_auc))
            for k in (0, 1):
                ok = [g for g in got[k] if "wall_s" in g]
                if not ok:
                    print(f"| {rows:.0e} | {classes} | {names[k]} | failed: "
                          f"{got[k][0]['error']} | | |", flush=True)
                    continue
                wall = statistics.median(g["wall_s"] for g in ok)
                mem = statistics.median(g["client_peak_mb"] for g in ok)
                print(f"| {rows:.0e} | {classes} | {names[k]} | {wall:.1f} | {mem:.0f} | "
                      f"{ok[0]['auc']!r} |", flush=True)
            pairs = [(a, b) for a, b in zip(got[0], got[1], strict=True)
                     if "wall_s" in a and "wall_s" in b]
            if pairs:
                ratio = statistics.median(b["wall_s"] / a["wall_s"] for a, b in pairs)
                print(f"| | | {names[1]} / {names[0]} wall (same run, median) | {ratio:.2f} "
                      "| | |", flush=True)
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    if len(sys.argv) in (5, 6) and sys.argv[1] == "--child":
        print(json.dumps(measure(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4],
                                 sys.argv[5:] != ["0"])))
    else:
        main()
