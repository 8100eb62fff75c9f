"""Report rendering end to end: 3 groups x 1e5 rows and 200 groups x 1000 rows, B = 200.

Times ``df.groupby(key).calib.report(ci=0.95, n_boot=200)`` (evaluation with
intervals, figures, context), ``to_html()`` and ``to_pdf()``, and counts the PDF's
pages.  Targets (200 groups): at most 15 s end to end and 30 pages.  No peer renders
a calibration audit report, so there is nothing to time beside it.

``to_pdf()`` includes drawing the figures as PNG for the PDF (once per report);
its WeasyPrint part is also shown alone.

Usage: ``python benchmarks/bench_report.py [--quick] [--no-write] [--keep DIR]``;
writes its section of benchmarks/RESULTS.md unless ``--quick`` or ``--no-write``;
``--keep`` writes the PDFs there (render them with ``pdftoppm -r 60 -png`` to look
at the pages).
"""

from __future__ import annotations

import argparse
import io
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
        # what the report computes: no refitting bootstrap above 10 groups or 50,000
        # rows (calreport.report.accessor.REFIT_GROUPS / REFIT_ROWS)
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
    return [[label, "evaluate(ci=0.95, B=200, no refitting) alone", t_eval, ""],
            [label, "report() build (evaluate + figures + context)", t_build, ""],
            [label, "to_html()", t_html, f"{len(html.encode()) / 1024:.0f} KiB"],
            [label, "to_pdf()", t_pdf, f"{len(pdf) / 1024:.0f} KiB, {pages} pages"],
            [label, "  of which WeasyPrint (second to_pdf())", t_weasy, ""],
            [label, "end to end (build + HTML + PDF)", t_build + t_html + t_pdf, ""]]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--keep", type=Path, default=None)
    args = ap.parse_args()
    cases = [(3, 10_000), (20, 500)] if args.quick else [(3, 100_000), (200, 1000)]
    rows = []
    for g, n in cases:
        rows += run(g, n, args.keep)
        print(table(["groups x rows", "step", "seconds", "output"], rows[-6:]), flush=True)
    body = (
        "## Report rendering\n\n"
        f"Machine: {machine(('calreport', 'numpy', 'pandas', 'matplotlib', 'weasyprint'))}"
        "\n\nCommand: `python benchmarks/bench_report.py`\n\n"
        + table(["groups x rows", "step", "seconds", "output"], rows)
        + "\n\nTargets: 200 groups x 1000 rows <= 15 s end to end and <= 30 pages."
    )
    if args.quick or args.no_write:
        print(body)
    else:
        write_section("report", body)


if __name__ == "__main__":
    main()
