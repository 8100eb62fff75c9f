"""Scaling out: Dask on a 2-worker LocalCluster vs pandas, and Accumulator throughput.

Writes ``--rows`` binary predictions with ``--groups`` groups as ``--files`` Parquet
files in a temporary folder (deleted at the end), then measures in one run:

* ``ddf.groupby("g").calib.summary()`` on a LocalCluster (wall time, peak RSS of the
  whole process tree sampled every 50 ms);
* the same with ``ci=0.95, n_boot=200`` (Poisson bootstrap);
* pandas ``df.groupby("g").calib.summary(metrics=...)`` on the first ``--pandas-rows``
  rows (read included), for the per-row cost ratio and its peak memory, and Dask on
  those same rows, for the differences;
* ``Accumulator.update`` throughput on ``--batch``-row batches.

Usage: ``python benchmarks/bench_scale.py --rows 1e8 --files 64 --pandas-rows 1e7``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import psutil

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine, table, write_section

METRICS = ["accuracy", "cwa", "gain", "csr", "sigma_csr", "z_csr", "p_risk", "ece", "mce",
           "signed_ece", "brier", "log_loss", "auc", "cwauc", "cwsa", "cwsa_plus", "aurc"]


class PeakRSS:
    """Peak resident memory of this process and all its children, sampled."""

    def __init__(self, interval: float = 0.05) -> None:
        self.interval, self.peak, self._stop = interval, 0, threading.Event()

    def _tree_rss(self) -> int:
        me = psutil.Process()
        total = 0
        for p in [me, *me.children(recursive=True)]:
            try:
                total += p.memory_info().rss
            except psutil.Error:
                pass
        return total

    def __enter__(self) -> PeakRSS:
        self.peak = self._tree_rss()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.peak = max(self.peak, self._tree_rss())

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def write_data(folder: str, rows: int, files: int, groups: int, seed: int = 0,
               row_group: int = 1 << 18) -> None:
    """``files`` Parquet files of ``rows // files`` rows, row groups of ``row_group`` rows.

    Skipped when the folder already holds these files (``--data`` reuses a folder).
    """
    per = rows // files
    stamp = os.path.join(folder, f"_written_{rows}_{files}_{groups}_{seed}_{row_group}")
    if os.path.exists(stamp):
        return
    for i in range(files):
        rng = np.random.default_rng([seed, i])
        p = rng.random(per)
        y = (rng.random(per) < p**1.2).astype(np.int8)
        g = rng.integers(0, groups, per).astype(np.int16)
        pd.DataFrame({"y": y, "proba": p, "g": g}).to_parquet(
            os.path.join(folder, f"part-{i:03d}.parquet"), index=False,
            row_group_size=row_group)
    open(stamp, "w").close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=float, default=1e7)
    ap.add_argument("--files", type=int, default=16)
    ap.add_argument("--groups", type=int, default=10)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--n-boot", type=int, default=200)
    ap.add_argument("--batch", type=float, default=1e6)
    ap.add_argument("--pandas-rows", type=float, default=None,
                    help="rows of the pandas comparison (default: all); whole files")
    ap.add_argument("--row-group", type=float, default=2**18,
                    help="rows per Parquet row group; each row group is one Dask partition")
    ap.add_argument("--data", default=None,
                    help="folder for the Parquet files, kept and reused (default: temporary)")
    ap.add_argument("--json", default=None, help="append each step's numbers to this file")
    ap.add_argument("--skip-summary", action="store_true",
                    help="skip the point-estimate summary, the pandas step and the "
                         "Accumulator (e.g. to run the intervals on their own)")
    ap.add_argument("--skip-pandas", action="store_true")
    ap.add_argument("--skip-ci", action="store_true")
    ap.add_argument("--write", action="store_true",
                    help="replace the 'scale' section of benchmarks/RESULTS.md")
    ap.add_argument("--render", default=None,
                    help="write the RESULTS.md section from a --json file of a finished "
                         "run (its steps may come from several runs on the same data)")
    args = ap.parse_args()
    argv = " ".join(sys.argv[1:])
    rows = int(args.rows)
    if args.render:
        render(ap, args.render)
        return

    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import calreport
    from calreport import dask as calreport_dask

    calreport_dask.register()
    out: dict[str, float] = {}

    def record(**kw: float) -> None:
        out.update(kw)
        if args.json:
            with open(args.json, "a") as fh:
                fh.write(json.dumps({"argv": argv, **kw}) + "\n")

    keep = args.data is not None
    if keep:
        os.makedirs(args.data, exist_ok=True)
    with (contextlib.nullcontext(args.data) if keep
          else tempfile.TemporaryDirectory()) as folder:
        t0 = time.perf_counter()
        write_data(folder, rows, args.files, args.groups, row_group=int(args.row_group))
        rows = (rows // args.files) * args.files
        print(f"wrote {rows:,} rows in {args.files} files: {time.perf_counter() - t0:.1f} s",
              flush=True)

        per = rows // args.files
        n_sub = args.files if args.pandas_rows is None else max(
            1, min(args.files, int(args.pandas_rows) // per))
        sub_files = sorted(os.path.join(folder, f) for f in os.listdir(folder)
                           if f.endswith(".parquet"))[:n_sub]
        files = sorted(os.path.join(folder, f) for f in os.listdir(folder)
                       if f.endswith(".parquet"))
        record(pandas_rows=float(n_sub * per))
        res = None
        with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster):
            # one partition per row group: memory follows --row-group, not the file size
            ddf = dd.read_parquet(files, split_row_groups=True)
            print(f"{ddf.npartitions} partitions", flush=True)
            if not args.skip_summary:
                with PeakRSS() as mem:
                    t0 = time.perf_counter()
                    res = ddf.groupby("g").calib(y="y", proba="proba").summary()
                    dt = time.perf_counter() - t0
                record(dask_s=dt, dask_peak_gib=mem.peak / 2**30,
                       partitions=float(ddf.npartitions))
                print(f"dask summary: {out['dask_s']:.2f} s, peak RSS "
                      f"{out['dask_peak_gib']:.2f} GiB", flush=True)
                print(res[["n", "accuracy", "csr", "ece", "auc", "auc_bound", "aurc",
                           "aurc_bound"]].head(3).to_string(), flush=True)
            if not args.skip_summary and n_sub < args.files:  # Dask on the pandas rows
                t0 = time.perf_counter()
                res = dd.read_parquet(sub_files, split_row_groups=True).groupby("g").calib(
                    y="y", proba="proba").summary()
                record(dask_sub_s=time.perf_counter() - t0)
                print(f"dask summary on the pandas rows: {out['dask_sub_s']:.2f} s",
                      flush=True)
            if not args.skip_summary:
                pandas_and_accumulator(args, sub_files, res, rows, record, out)
            if not args.skip_ci:
                with PeakRSS() as mem:
                    t0 = time.perf_counter()
                    ddf.groupby("g").calib(y="y", proba="proba").summary(
                        ci=0.95, n_boot=args.n_boot)
                    dt = time.perf_counter() - t0
                record(dask_ci_s=dt, dask_ci_peak_gib=mem.peak / 2**30)
                print(f"dask summary ci n_boot={args.n_boot}: {out['dask_ci_s']:.2f} s, "
                      f"peak RSS {out['dask_ci_peak_gib']:.2f} GiB", flush=True)
    print({k: round(v, 3) for k, v in out.items()}, "calreport", calreport.__version__)
    if args.write:
        write_section("scale", report(out, rows, args, [clean_argv(argv)]))



def pandas_and_accumulator(args: argparse.Namespace, sub_files: list[str], res: Any,
                           rows: int, record: Callable[..., None],
                           out: dict[str, float]) -> None:
    """pandas on the first files (while the idle cluster's workers stay alive, so their
    memory is counted too), the differences to Dask, and the Accumulator throughput."""
    from calreport.accumulator import Accumulator

    if not args.skip_pandas:
        with PeakRSS() as mem:
            t0 = time.perf_counter()
            df = pd.read_parquet(sub_files)
            ref = df.groupby("g").calib(y="y", proba="proba").summary(metrics=METRICS)
            dt = time.perf_counter() - t0
        diff = (res[METRICS] - ref[METRICS]).abs()
        exact = [m for m in METRICS if m not in ("auc", "cwauc", "aurc")]
        record(pandas_s=dt, pandas_peak_gib=mem.peak / 2**30,
               max_diff_exact=float(diff[exact].max().max()),
               max_diff_auc=float(diff["auc"].max()), auc_bound=float(res["auc_bound"].max()),
               max_diff_aurc=float(diff["aurc"].max()),
               aurc_bound=float(res["aurc_bound"].max()))
        if "dask_s" in out:
            record(ratio_per_row=(out["dask_s"] / rows) / (dt / out["pandas_rows"]))
            print(f"per-row ratio dask/pandas {out['ratio_per_row']:.2f}")
        print(f"pandas summary (read included): {dt:.2f} s, peak RSS "
              f"{out['pandas_peak_gib']:.2f} GiB")
        print(f"max |dask - pandas| exact metrics {out['max_diff_exact']:.2e}; "
              f"auc {out['max_diff_auc']:.2e} (bound {out['auc_bound']:.2e}); "
              f"aurc {out['max_diff_aurc']:.2e} (bound {out['aurc_bound']:.2e})", flush=True)
    else:
        df = pd.read_parquet(sub_files)
    batch = int(args.batch)
    acc = Accumulator(y="y", proba="proba", by="g", classes=[0, 1])
    n_batches = max(1, min(len(df) // batch, 10))
    done = 0
    t0 = time.perf_counter()
    for i in range(n_batches):
        part = df.iloc[i * batch:(i + 1) * batch]
        acc.update(part)
        done += len(part)
    record(acc_rows_per_s=done / (time.perf_counter() - t0))
    print(f"Accumulator: {n_batches} batches of {batch:,} rows, "
          f"{out['acc_rows_per_s']:,.0f} rows/s", flush=True)

def render(ap: argparse.ArgumentParser, path: str) -> None:
    """Replace the "scale" section of RESULTS.md from the records of ``--json``."""
    out: dict[str, float] = {}
    commands: list[str] = []
    with open(path) as fh:
        for line in fh:
            rec = json.loads(line)
            cmd = clean_argv(rec.pop("argv"))
            if cmd not in commands:
                commands.append(cmd)
            out.update(rec)
    args = ap.parse_args(commands[0].split())
    rows = (int(args.rows) // args.files) * args.files
    write_section("scale", report(out, rows, args, commands))


def clean_argv(argv: str) -> str:
    """The command without the local folders (--data, --json)."""
    parts, skip = [], False
    for tok in argv.split():
        if skip:
            skip = False
            continue
        if tok in ("--data", "--json"):
            skip = True
            continue
        parts.append(tok)
    return " ".join(parts)


def report(out: dict[str, float], rows: int, args: argparse.Namespace,
           commands: list[str]) -> str:
    """The RESULTS.md section of a run (or of runs on the same data)."""
    def get(key: str, fmt: str = "{:.2f}") -> str:
        return fmt.format(out[key]) if key in out else "not run"

    def ns(key: str, n: float) -> str:
        return f"{out[key] / n * 1e9:.0f}" if key in out else "-"

    sub = out.get("pandas_rows", float("nan"))
    body_rows = [
        [f'Dask `ddf.groupby("g").calib.summary()`, {rows:,} rows, {args.workers}-worker '
         "LocalCluster", get("dask_s", "{:.1f}"), ns("dask_s", rows),
         get("dask_peak_gib")],
        [f"Dask, `ci=0.95, n_boot={args.n_boot}` (Poisson bootstrap), {rows:,} rows",
         get("dask_ci_s", "{:.1f}"), ns("dask_ci_s", rows), get("dask_ci_peak_gib")],
        [f"Dask on the {int(sub):,} rows pandas reads", get("dask_sub_s", "{:.1f}"),
         ns("dask_sub_s", sub), "-"],
        [f'pandas `read_parquet` + `df.groupby("g").calib.summary()` (17 metrics), '
         f"{int(sub):,} rows", get("pandas_s", "{:.1f}"), ns("pandas_s", sub),
         get("pandas_peak_gib")],
    ]
    ratio = out.get("ratio_per_row")
    same = (out["dask_sub_s"] / out["pandas_s"]) if {"dask_sub_s", "pandas_s"} <= set(out) \
        else None
    cmds = "\n".join(f"`PYTHONPATH=. python benchmarks/bench_scale.py {c}`" for c in commands)
    return (
        f"## Scaling out: Dask and the Accumulator ({rows:,} rows, {args.files} Parquet "
        f"files, {args.groups} groups)\n\n"
        f"Machine: {machine(('calreport', 'numpy', 'pandas', 'dask', 'distributed', 'pyarrow'))}"
        f"\n\nCommand (the Parquet files are written to a folder outside the repository; "
        f"row groups of {int(args.row_group):,} rows, one Dask partition each, "
        f"{int(out.get('partitions', 0))} partitions):\n{cmds}\n\n"
        + table(["case", "seconds", "ns per row", "peak RSS of the process tree (GiB)"],
                body_rows)
        + "\n\n"
        f"- Per-row cost, Dask at {rows:,} rows against pandas at {int(sub):,} rows in the "
        f"same run: {'-' if ratio is None else f'{ratio:.2f}x'} (target <= 1.5x); on the "
        f"same rows Dask takes {'-' if same is None else f'{same:.2f}x'} the pandas time.\n"
        f"- Agreement with pandas on those rows: at most {get('max_diff_exact', '{:.1e}')} "
        f"over the exact metrics; AUC {get('max_diff_auc', '{:.1e}')} off (reported bound "
        f"{get('auc_bound', '{:.1e}')}), AURC {get('max_diff_aurc', '{:.1e}')} (bound "
        f"{get('aurc_bound', '{:.1e}')}).\n"
        f"- `Accumulator.update` on {int(args.batch):,}-row batches: "
        f"{get('acc_rows_per_s', '{:,.0f}')} rows/s.\n"
        "- Peak RSS sampled every 50 ms over this process and all its children (the "
        "LocalCluster's two worker processes, alive during every step). One run each on a "
        "shared, loaded machine: the ratios matter more than the absolute times."
    )


if __name__ == "__main__":
    main()
