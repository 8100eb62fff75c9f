"""Report rendering end to end: 3 groups x 1e5 rows and 200 groups x 1000 rows, B = 200.

Times ``df.groupby(key).calib.report(ci=0.95, n_boot=200)`` (evaluation with
intervals, figures, context), ``to_html()`` and ``to_pdf()``, and counts the PDF's
pages.  Targets (200 groups): at most 15 s end to end and 30 pages.  No peer renders
a calibration audit report, so there is nothing to time beside it.

``to_pdf()`` includes drawing the figures as PNG for the PDF (once per report);
its WeasyPrint part is also shown alone.

Each case runs ``--repeat`` times (default 3), each time in a fresh Python process
that has imported calreport but not yet WeasyPrint (as a user's script would); the
table gives the median of each step and the range of the end-to-end time, with the
load average before and after (the machine is shared).

Usage: ``python benchmarks/bench_report.py [--quick] [--no-write] [--keep DIR]
[--repeat R]``; writes its section of benchmarks/RESULTS.md unless ``--quick`` or
``--no-write``; ``--keep`` writes the PDFs there (render them with
``pdftoppm -r 60 -png`` to look at the pages).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, table, write_section

import calreport  # noqa: F401


def data(n_groups: int, n_per_group: int, seed: int = 0) -> pd.DataFrame:
    """Beta(2, 2) scores; each group's truth is p**power, power in [0.8, 1.4]."""
    rng = np.random.default_rng(seed)
    n = n_groups * n_per_group
    p = rng.beta(2.0, 2.0, n)
    power = np.linspace(0.8, 1.4, n_groups).repeat(n_per_group)
    y = (rng.random(n) < p**power).astype(np.int64)
    width = len(str(n_groups - 1))
    return pd.DataFrame({"group": np.repeat([f"g{i:0{width}d}" for i in range(n_groups)],
                                            n_per_group),
                         "y_true": y, "proba": p,
                         "row_id": [f"R{i:07d}" for i in range(n)]})


def run(n_groups: int, n_per_group: int, keep: Path | None) -> list[list]:
    import pypdf

    df = data(n_groups, n_per_group)
    acc = df.groupby("group").calib(y="y_true", proba="proba")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        # what the report computes: no refitting bootstrap above 10 groups or 20,000
        # rows (calreport.bootstrap.intervals.refit_by_default)
        result = acc.evaluate(ci=0.95, n_boot=200, seed=0, refit=False)
        t_eval = time.perf_counter() - t0
        t0 = time.perf_counter()
        rep = acc.report(title="Benchmark", ci=0.95, n_boot=200, seed=0, progress=False,
                         row_label="row_id", timestamp="2026-01-01T00:00:00Z")
        t_build = time.perf_counter() - t0
        t0 = time.perf_counter()
        html = rep.to_html()
        t_html = time.perf_counter() - t0
        t0 = time.perf_counter()
        pdf = rep.to_pdf()
        t_pdf = time.perf_counter() - t0
        t0 = time.perf_counter()
        rep.to_pdf()  # figures already drawn: WeasyPrint (and the JSON attachment) alone
        t_weasy = time.perf_counter() - t0
    del result
    pages = len(pypdf.PdfReader(io.BytesIO(pdf)).pages)
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        (keep / f"report_{n_groups}x{n_per_group}.pdf").write_bytes(pdf)
    label = f"{n_groups} x {n_per_group:g}"
    notes = ["", "", f"{len(html.encode()) / 1024:.0f} KiB",
             f"{len(pdf) / 1024:.0f} KiB, {pages} pages", "", ""]
    times = [t_eval, t_build, t_html, t_pdf, t_weasy, t_build + t_html + t_pdf]
    return [[label, step, t, note] for step, t, note in zip(STEPS, times, notes, strict=True)]


STEPS = ["evaluate(ci=0.95, B=200, no refitting) alone",
         "report() build (evaluate + figures + context)", "to_html()", "to_pdf()",
         "  of which WeasyPrint (second to_pdf())", "end to end (build + HTML + PDF)"]


def _child(n_groups: int, n_per_group: int, keep: Path | None) -> None:
    """One run in this process; its rows go to stdout as JSON."""
    print(json.dumps(run(n_groups, n_per_group, keep)))


def _fresh(n_groups: int, n_per_group: int, keep: Path | None) -> list[list]:
    cmd = [sys.executable, __file__, "--child", str(n_groups), str(n_per_group)]
    if keep is not None:
        cmd += ["--keep", str(keep)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def measure(n_groups: int, n_per_group: int, keep: Path | None, repeat: int) -> list[list]:
    """Median of each step over ``repeat`` fresh processes."""
    load = [_load()]
    runs = [_fresh(n_groups, n_per_group, keep) for _ in range(repeat)]
    load.append(_load())
    rows = []
    for i, step in enumerate(STEPS):
        vals = [r[i][2] for r in runs]
        note = runs[-1][i][3]
        if step.startswith("end to end"):
            note = (f"{repeat} runs: {min(vals):.2f} - {max(vals):.2f} s; "
                    f"load {load[0]} -> {load[1]}")
        rows.append([runs[0][i][0], step, statistics.median(vals), note])
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--keep", type=Path, default=None)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--child", nargs=2, type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(*args.child, args.keep)
        return
    cases = [(3, 10_000), (20, 500)] if args.quick else [(3, 100_000), (200, 1000)]
    repeat = 1 if args.quick else args.repeat
    rows = []
    for g, n in cases:
        rows += measure(g, n, args.keep, repeat)
        print(table(["groups x rows", "step", "seconds (median)", "output"], rows[-6:]),
              flush=True)
    body = (
        "## Report rendering\n\n"
        f"Machine: {machine(('calreport', 'numpy', 'pandas', 'matplotlib', 'weasyprint'))}"
        f"\n\nCommand: `python benchmarks/bench_report.py --repeat {repeat}` (each run in "
        "a fresh process)\n\n"
        + table(["groups x rows", "step", "seconds (median)", "output"], rows)
        + "\n\nTargets: 200 groups x 1000 rows <= 15 s end to end and <= 30 pages."
    )
    if args.quick or args.no_write:
        print(body)
    else:
        write_section("report", body)


if __name__ == "__main__":
    main()
