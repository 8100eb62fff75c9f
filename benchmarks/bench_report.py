"""Report rendering end to end: 3 groups x 1e5 rows, B = 200 bootstrap replicates.

Times ``df.groupby("model").calib.report(ci=0.95, n_boot=200)`` (summary, intervals,
figures, context) and each output format, and records the PDF size.  Target: at most
15 s end to end.  No peer renders a calibration audit report, so there
is nothing to time beside it.

Usage: ``python benchmarks/bench_report.py [--quick]``; writes its section of
benchmarks/RESULTS.md unless ``--quick``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, table, write_section

import calreport  # noqa: F401


def data(n_per_group: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frames = []
    for g, power in (("model_a", 1.0), ("model_b", 1.3), ("model_c", 0.8)):
        p = rng.beta(2.0, 2.0, n_per_group)
        y = (rng.random(n_per_group) < p**power).astype(np.int64)
        frames.append(pd.DataFrame({"model": g, "y_true": y, "proba": p}))
    return pd.concat(frames, ignore_index=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    n = 10_000 if args.quick else 100_000
    df = data(n)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        rep = df.groupby("model").calib.report(title="Benchmark", ci=0.95, n_boot=200,
                                               seed=0, progress=False,
                                               timestamp="2026-01-01T00:00:00")
        t_build = time.perf_counter() - t0
        t0 = time.perf_counter()
        html = rep.to_html()
        t_html = time.perf_counter() - t0
        t0 = time.perf_counter()
        pdf = rep.to_pdf()
        t_pdf = time.perf_counter() - t0
        t0 = time.perf_counter()
        js = rep.to_json()
        md = rep.to_markdown()
        t_text = time.perf_counter() - t0
    rows += [
        [f"report() build: summary + B=200 intervals + figures, 3 x {n:.0e} rows", t_build],
        ["to_html()", t_html],
        ["to_pdf() (WeasyPrint)", t_pdf],
        ["to_json() + to_markdown()", t_text],
        ["end to end (build + HTML + PDF)", t_build + t_html + t_pdf],
    ]
    sizes = [["PDF", len(pdf) / 1024], ["HTML", len(html.encode()) / 1024],
             ["JSON", len(js.encode()) / 1024], ["Markdown", len(md.encode()) / 1024]]
    body = (
        "## Report rendering\n\n"
        f"Machine: {machine(('calreport', 'numpy', 'pandas', 'matplotlib', 'weasyprint'))}"
        "\n\nCommand: `python benchmarks/bench_report.py`\n\n"
        + table(["step", "seconds"], rows)
        + "\n\n" + table(["output", "size (KiB)"], sizes)
        + "\n\nTarget: <= 15 s end to end for 3 groups x 1e5 rows with B = 200."
    )
    if args.quick:
        print(body)
    else:
        write_section("report", body)


if __name__ == "__main__":
    main()
