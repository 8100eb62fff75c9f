"""Coverage study of every interval calreport prints.

Simulates data with a known truth, computes every summary metric's interval by each
method from the same bootstrap replicates (percentile, basic, the one-sided upper and
lower bounds, and the analytic interval where one is defined) and counts how often
each contains the true value.  Its table goes into ``benchmarks/RESULTS.md`` and the
per-cell coverages into ``calreport/coverage.json``, from which every output
states the measured coverage beside the interval.

Setups (12 cells: 3 kinds x calibrated/miscalibrated x n = 300 and 3,000):

* ``binary``: true probability p ~ Beta(2, 2), y ~ Bernoulli(p); calibrated: score
  s = p; miscalibrated: s = expit(1.3·logit(p) + 0.3) (overconfident and shifted);
* ``weighted``: ``binary`` with importance weights w ~ Exponential(1), independent of
  the rest (the weighted truth is the unweighted one);
* ``10-class``: logits ~ N(0, 1.5²) i.i.d., p = softmax, y ~ Categorical(p);
  calibrated: scores p; miscalibrated: softmax(1.3·logits + 0.3·e₁).  LCS, TCE_bpm,
  ECI and smooth ECE (seconds a run) are left out of the first run's 10-class cells
  and measured there by a second one (``--kinds 10-class --metrics lcs tce_bpm eci
  smece``); ``--load`` tabulates the runs together.

Truth: 0 for every calibration error of a calibrated model (ECE, MCE, signed ECE,
smooth ECE, LCS, TCE_bpm, class-wise and debiased ECE, ECI, CORP MCB); otherwise the
metric on ``--truth-n`` rows (default 2,000,000); σ_CSR and z at size n from the
population formula (unweighted cells only).  P_risk prints no interval.

Usage::

    python benchmarks/coverage.py                    # 200 runs a cell, B = 200
    python benchmarks/coverage.py --quick            # a smoke run
    python benchmarks/coverage.py --write            # also RESULTS.md and the data file
    python benchmarks/coverage.py --metrics NAME --add   # a new metric, in the same setup

``--add`` measures only ``--metrics`` with the study's stored settings and adds their
rows to the data file (the other metrics' rows stay as measured) and their table to
RESULTS.md under "Interval coverage, added metrics".
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import re
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from scipy import special

from calreport.bootstrap import bootstrap_intervals
from calreport.bootstrap.intervals import analytic_intervals
from calreport.interval_rules import CELLS, COVERAGE, STUDY, read_interval
from calreport.profile import ConfidenceProfile
from calreport.registry import REGISTRY
from calreport.settings import Settings
from calreport.summary import summarize

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("binary", "weighted", "10-class")
CALIBRATIONS = ("calibrated", "miscalibrated")
METHODS = ("percentile", "basic", "upper", "lower", "analytic")
INTERVAL_METRICS = [m for m, s in REGISTRY.items() if s.interval.kind in ("bootstrap", "refit")
                    and m != "p_risk"]
SETTINGS = Settings(p_risk_method="normal")
ZERO_WHEN_CALIBRATED = ("ece", "mce", "signed_ece", "smece", "lcs", "tce_bpm",
                        "classwise_ece", "debiased_ece", "eci", "corp_mcb")
N_DEPENDENT = ("sigma_csr", "z_csr")
#: Metrics that refit a curve on every replicate, seconds a run at 3,000 rows: left out of
#: the 10-class cells unless asked for by name (``--metrics``), as a second run does
SLOW_REFITS = ("lcs", "tce_bpm", "eci", "smece")


def simulate(kind: str, calibration: str, n: int, rng: np.random.Generator
             ) -> ConfidenceProfile:
    """One simulated data set."""
    if kind == "10-class":
        logits = 1.5 * rng.standard_normal((n, 10))
        p = special.softmax(logits, axis=1)
        y = (rng.random(n)[:, None] > np.cumsum(p, axis=1)).sum(axis=1).clip(0, 9)
        if calibration == "miscalibrated":
            shift = np.zeros(10)
            shift[0] = 0.3
            p = special.softmax(1.3 * logits + shift, axis=1)
        return ConfidenceProfile.from_arrays(y, p, classes=list(range(10)))
    p = rng.beta(2.0, 2.0, n)
    y = (rng.random(n) < p).astype(int)
    s = p if calibration == "calibrated" else special.expit(1.3 * special.logit(p) + 0.3)
    w = rng.exponential(1.0, n) if kind == "weighted" else None
    return ConfidenceProfile.from_arrays(y, s, sample_weight=w)


def metrics_of(kind: str, only: tuple[str, ...] | None = None) -> list[str]:
    """The metrics a setup can define (weights exclude the unweighted-only ones)."""
    out = []
    for m in only or INTERVAL_METRICS:
        needs = REGISTRY[m].needs
        if kind == "weighted" and ("unweighted" in needs or m in N_DEPENDENT):
            continue
        if kind == "10-class" and m in SLOW_REFITS and not only:
            continue
        out.append(m)
    return out


def truth(kind: str, calibration: str, n: int, truth_n: int,
          only: tuple[str, ...] | None = None) -> dict[str, float]:
    """Population values of one cell."""
    big = simulate(kind, calibration, truth_n, np.random.default_rng(12345))
    names = metrics_of(kind, only)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vals = dict(summarize(big, metrics=names, settings=SETTINGS).values)
    if calibration == "calibrated":
        vals.update(dict.fromkeys([m for m in ZERO_WHEN_CALIBRATED if m in names], 0.0))
    if "sigma_csr" in names:
        c = np.clip(big.conf, SETTINGS.eps, 1 - SETTINGS.eps)
        sigma = math.sqrt(float(np.mean(c / (1 - c))) / n)
        vals["sigma_csr"], vals["z_csr"] = sigma, (vals["csr"] - 1.0) / sigma
    return vals


def cell_runs(task: tuple) -> dict:
    """Hits, defined runs, widths and raw exclusions of one chunk of runs."""
    kind, calibration, n, runs, n_boot, seed, true, only = task
    names = metrics_of(kind, only)
    out: dict = {}
    for r in runs:
        rng = np.random.default_rng([seed, n, KINDS.index(kind), CALIBRATIONS.index(calibration),
                                     r])
        prof = simulate(kind, calibration, n, rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = summarize(prof, metrics=names, settings=SETTINGS)
            boot = bootstrap_intervals(prof, res, n_boot=n_boot, ci=0.95, seed=[seed, r, n],
                                       return_replicates=True, refit=True, warn=False)
            ana, _ = analytic_intervals(prof, res, ci=0.95, metrics=names)
        for m in names:
            val, t = res.values[m], true.get(m, math.nan)
            if math.isnan(t) or math.isnan(val):
                continue
            for k in METHODS:
                if k == "analytic":
                    if REGISTRY[m].interval.analytic is None:
                        continue
                    lo, hi = ana[m]
                    raw_out = False
                elif m in boot.replicates:
                    reps = boot.replicates[m]
                    b = read_interval(reps, val, 0.95, k, REGISTRY[m].bounds)
                    lo, hi = float(b.low[0]), float(b.high[0])
                    raw = read_interval(reps, math.nan, 0.95, k, REGISTRY[m].bounds)
                    raw_out = not (raw.low[0] <= val <= raw.high[0])
                else:
                    continue
                if math.isnan(lo):
                    continue
                acc = out.setdefault((m, k), [0, 0, 0.0, 0])
                acc[0] += lo <= t <= hi
                acc[1] += 1
                acc[2] += hi - lo
                acc[3] += raw_out
    return {"cell": (kind, calibration, n), "acc": out}


def run(reps: int, sizes: list[int], n_boot: int, truth_n: int, seed: int, kinds: tuple,
        workers: int, only: tuple[str, ...] | None = None,
        partial: Path | None = None, skip: Any = None) -> list[dict]:
    """Every cell (``only``: these metrics; ``skip``: these (kind, calibration, n)
    cells); one row per (metric, method, cell), with the runs that defined it."""
    tasks, truths = [], {}
    cells = [(k, c, n) for k in kinds for c in CALIBRATIONS for n in sizes
             if (k, c, n) not in (skip or ())]
    for cell in cells:
        truths[cell] = truth(*cell, truth_n, only)
    # round robin over the cells, 10 runs a task: every cell advances together
    for start in range(0, reps, 10):
        for kind, cal, n in cells:
            tasks.append((kind, cal, n, range(start, min(reps, start + 10)), n_boot, seed,
                          truths[(kind, cal, n)], only))
    print(f"{len(tasks)} tasks", file=sys.stderr)
    acc: dict = {}

    def collect(parts: Any) -> None:
        for i, part in enumerate(parts):
            for key, a in part["acc"].items():
                tot = acc.setdefault((*part["cell"], *key), [0, 0, 0.0, 0])
                for j in range(4):
                    tot[j] += a[j]
            print(f"{i + 1}/{len(tasks)} tasks", file=sys.stderr)
            if partial is not None:
                partial.write_text(json.dumps(_rows(acc, truths)), encoding="utf-8")

    if workers > 1:
        with mp.get_context("fork").Pool(workers) as pool:
            collect(pool.imap_unordered(cell_runs, tasks))
    else:
        collect(map(cell_runs, tasks))
    return _rows(acc, truths)


def _rows(acc: dict, truths: dict) -> list[dict]:
    rows = []
    for (kind, cal, n, m, k), (hit, d, width, raw_out) in acc.items():
        rows.append({"kind": kind, "calibration": cal, "n": n, "metric": m, "method": k,
                     "coverage": hit / d, "defined": d, "width": width / d,
                     "excludes_estimate": raw_out / d, "truth": truths[(kind, cal, n)][m]})
    return rows


#: How the registry's defaults were chosen from this table.
DEFAULTS = (
    "Defaults (the registry's `Interval.method`, marked **yes**): the percentile interval "
    "where it covers; for every calibration error (truth 0 when calibrated, estimate "
    "biased upward) the one-sided upper bound, which no two-sided method matched "
    "(percentile 0 %, basic 30-56 % under calibration); for CORP UNC (at its maximum "
    "at a base rate of 0.5) the lower bound; for CORP DSC (the isotonic refit biases it "
    "upward) the basic interval, the closest to nominal. CSR, σ_CSR and z keep the "
    "percentile interval, below nominal where confident errors are few (300 rows, "
    "miscalibrated): every output prints that coverage beside them. P_risk prints no "
    "interval.\n")


def _cell(r: dict) -> str:
    short = {"calibrated": "cal", "miscalibrated": "mis"}[r["calibration"]]
    return f"{r['kind']} {short} n={r['n']}"


def table(rows: list[dict], reps: int) -> str:
    """Markdown: metric x method rows, one coverage column a cell."""
    from calreport.interval_rules import TOLERANCE

    order = {m: i for i, m in enumerate(INTERVAL_METRICS)}
    cols = sorted({(r["kind"], r["calibration"], r["n"]) for r in rows},
                  key=lambda c: (KINDS.index(c[0]), CALIBRATIONS.index(c[1]), c[2]))
    names = [_cell({"kind": k, "calibration": c, "n": n}) for k, c, n in cols]
    cells: dict = {}
    for r in rows:
        cov = r["coverage"]
        one = r["method"] in ("upper", "lower")
        bad = cov < 0.95 - TOLERANCE or (not one and cov > 0.95 + TOLERANCE)
        cells.setdefault((r["metric"], r["method"]), {})[_cell(r)] = (
            f"{100 * cov:.0f}{' ✗' if bad else ''}")
    runs = _runs(rows)
    lines = ["| metric | method | default | " + " | ".join(names) + " |",
             "|" + " --- |" * (3 + len(names)),
             "| runs | | | " + " | ".join(str(runs.get(c, 0)) for c in names) + " |"]
    for (m, k), vals in sorted(cells.items(), key=lambda x: (order[x[0][0]],
                                                            METHODS.index(x[0][1]))):
        mark = "**yes**" if REGISTRY[m].interval.method == k else ""
        lines.append(f"| {m} | {k} | {mark} | " + " | ".join(vals.get(c, "–") for c in names)
                     + " |")
    return (f"Coverage (%) of 95 % intervals (one-sided 95 % bounds for `upper`/`lower`), "
            f"{min(runs.values())}-{max(runs.values())} runs a cell; ✗ marks a cell outside "
            "95 ± 3 % (a one-sided bound: below 92 %). Cells: kind, calibrated (cal) or "
            "miscalibrated (mis), rows.\n\n"
            + "\n".join(lines) + "\n")


def _runs(rows: list[dict]) -> dict[str, int]:
    """Simulated data sets of each cell (the most any metric there was defined on)."""
    out: dict[str, int] = {}
    for r in rows:
        out[_cell(r)] = max(out.get(_cell(r), 0), int(r["defined"]))
    return out


def exclusions(rows: list[dict]) -> str:
    """How often each default two-sided interval, before widening, excluded its own
    estimate (the printed interval is widened to contain it)."""
    worst: dict = {}
    for r in rows:
        if REGISTRY[r["metric"]].interval.method == r["method"]:
            worst[r["metric"]] = max(worst.get(r["metric"], 0.0), r["excludes_estimate"])
    bad = {m: v for m, v in worst.items() if v > 0}
    if not bad:
        return "No default interval excluded its own estimate before widening.\n"
    return ("Before widening, the default interval excluded its own estimate in at most "
            + ", ".join(f"{m} {100 * v:.0f} %" for m, v in bad.items())
            + " of runs (worst cell); every printed interval is widened to contain it.\n")


def add_rows(rows: list[dict], args: argparse.Namespace, seconds: float) -> None:
    """``--add``: the measured metrics' rows into the data file beside the stored
    ones, and their table into RESULTS.md's "Interval coverage, added metrics"."""
    runs = _runs(rows)
    if set(runs) != set(CELLS) or min(runs.values()) < STUDY["runs"]:
        raise SystemExit(f"--add measured the cells {sorted(runs)} with at least "
                         f"{min(runs.values())} runs, not the study's {CELLS}")
    stored = {m: {k: {c: x for c, x in zip(CELLS, vals, strict=True)
                      if x is not None} for k, vals in by.items()}
              for m, by in COVERAGE.items()}
    added = sorted({r["metric"] for r in rows})
    for m in added:
        stored.pop(m, None)
    write_data(rows, args, stored)
    path = ROOT / "benchmarks" / "RESULTS.md"
    old = path.read_text(encoding="utf-8")
    title = "## Interval coverage, added metrics"
    pattern = re.compile(re.escape(title) + r".*?(?=\n## |\n<!-- begin|\Z)", re.S)
    body = pattern.search(old).group(0) if pattern.search(old) else title + "\n"
    kept = [b for b in re.split(r"(?=\n### )", body)[1:]
            if not any(f"### {m}" in b.splitlines()[1] for m in added)]
    text = (f"{title}\n" + "".join(kept) + f"\n### {', '.join(added)}\n\n"
            f"`python benchmarks/coverage.py --metrics {' '.join(added)} --add`: the setup "
            f"of the study above ({args.reps} runs a cell, B = {args.n_boot}, truth from "
            f"{args.truth_n:,} rows, seed {args.seed}); {seconds:.0f} s on {args.workers} "
            "processes.\n\n" + table(rows, args.reps) + "\n" + exclusions(rows))
    new = pattern.sub(lambda _: text.rstrip() + "\n", old) if pattern.search(old) else (
        old.rstrip() + "\n\n" + text)
    path.write_text(new, encoding="utf-8")


def data_json(study: dict, cells: list[str], cov: dict) -> str:
    """The text of ``calreport/coverage.json``: valid JSON with one line a metric and
    method, so that a re-measured coverage shows in a diff as the line that changed."""
    dump = json.dumps
    metrics = []
    for m in sorted(cov):
        methods = [f"      {dump(k)}: [{', '.join(dump(cov[m][k].get(c)) for c in cells)}]"
                   for k in METHODS if k in cov[m]]
        metrics.append(f"    {dump(m)}: {{\n" + ",\n".join(methods) + "\n    }")
    lines = ["{", '  "study": {',
             ",\n".join(f"    {dump(k)}: {dump(study[k])}" for k in sorted(study)),
             "  },", '  "cells": [', ",\n".join(f"    {dump(c)}" for c in cells), "  ],",
             '  "coverage": {', ",\n".join(metrics), "  }", "}"]
    return "\n".join(lines) + "\n"


def write_data(rows: list[dict], args: argparse.Namespace,
               stored: dict | None = None) -> None:
    """``calreport/coverage.json``: the per-cell coverages the outputs quote, as
    ``coverage[metric][method]`` = one value a cell of ``cells`` (null: not measured),
    with the ``study`` settings; ``stored``: rows kept from the stored data (``--add``),
    with its study."""
    runs = _runs(rows)
    cells = sorted(runs, key=lambda c: (KINDS.index(c.split()[0]), c))
    cov: dict = dict(stored or {})
    for r in rows:
        cov.setdefault(r["metric"], {}).setdefault(r["method"], {})[_cell(r)] = round(
            r["coverage"], 3)
    study = {"runs": min(runs.values()), "n_boot": args.n_boot, "sizes": list(args.sizes),
             "kinds": list(args.kinds), "truth_n": args.truth_n, "seed": args.seed,
             "command": "python benchmarks/coverage.py --write"}
    if stored is not None:
        study = dict(STUDY)
    (ROOT / "calreport" / "coverage.json").write_text(data_json(study, cells, cov),
                                                      encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--sizes", type=int, nargs="+", default=[300, 3000])
    ap.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS)
    ap.add_argument("--n-boot", type=int, default=200)
    ap.add_argument("--truth-n", type=int, default=2_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="20 runs, n = 300, binary")
    ap.add_argument("--save", type=Path, help="also save the raw rows (JSON) here")
    ap.add_argument("--load", type=Path, nargs="+",
                    help="tabulate saved rows (several files: their cells together) "
                         "instead of simulating")
    ap.add_argument("--metrics", nargs="+", help="only these metrics (e.g. the slow "
                    "refitted ones in the 10-class cells, measured by a second run)")
    ap.add_argument("--skip", nargs="+", default=[],
                    help="cells to leave out, as kind:calibration:n (e.g. measured earlier)")
    ap.add_argument("--write", action="store_true",
                    help="replace the RESULTS.md section and calreport/coverage.json")
    ap.add_argument("--add", action="store_true",
                    help="measure only --metrics in the stored study's setup and add them to "
                         "the data file and RESULTS.md (the other rows stay)")
    args = ap.parse_args(argv)
    if args.add:
        if not args.metrics:
            ap.error("--add needs --metrics: the metrics to measure and add")
        study = STUDY
        vars(args).update(reps=int(study["runs"]), sizes=list(study["sizes"]),
                          kinds=list(study["kinds"]), n_boot=int(study["n_boot"]),
                          truth_n=int(study["truth_n"]), seed=int(study["seed"]))
    if args.quick:
        args.reps, args.sizes, args.truth_n, args.kinds = 20, [300], 200_000, ["binary"]
    t0 = time.perf_counter()
    if args.load:
        rows, seconds = [], 0.0
        for path in args.load:
            saved = json.loads(path.read_text(encoding="utf-8"))
            rows += saved["rows"]
            seconds += saved["seconds"]
            vars(args).update({k: v for k, v in saved["args"].items() if k != "kinds"})
        args.kinds = [k for k in KINDS if any(r["kind"] == k for r in rows)]
    else:
        skip = [(k, c, int(n)) for k, c, n in (x.split(":") for x in args.skip)]
        rows = run(args.reps, args.sizes, args.n_boot, args.truth_n, args.seed,
                   tuple(args.kinds), args.workers, skip=skip,
                   only=tuple(args.metrics) if args.metrics else None,
                   partial=None if args.save is None else args.save.with_suffix(".partial"))
        seconds = time.perf_counter() - t0
    if args.save:
        keep = {k: getattr(args, k) for k in ("reps", "sizes", "kinds", "n_boot", "truth_n",
                                               "seed", "workers")}
        args.save.write_text(json.dumps({"rows": rows, "seconds": seconds, "args": keep}),
                             encoding="utf-8")
    command = (f"--metrics {' '.join(args.metrics)} --add" if args.add else "--write")
    text = (f"## Interval coverage (`python benchmarks/coverage.py {command}`)\n\n"
            f"B = {args.n_boot} replicates (the refitting bootstrap: the same), truth from "
            f"{args.truth_n:,} rows; {seconds:.0f} s on {args.workers} "
            "processes (three runs: the binary calibrated n = 300 cell; the other cells; "
            "LCS, TCE_bpm, ECI and smooth ECE in the 10-class cells; a shared, loaded "
            "machine).\n\n" + table(rows, args.reps) + "\n" + exclusions(rows)
            + "\n" + DEFAULTS)
    print(text)
    if args.add:
        add_rows(rows, args, seconds)
        return 0
    if args.write:
        path = ROOT / "benchmarks" / "RESULTS.md"
        old = path.read_text(encoding="utf-8")
        pattern = re.compile(r"## Interval coverage.*?(?=\n## |\n<!-- begin|\Z)", re.S)
        new = pattern.sub(lambda _: text.rstrip() + "\n", old) if pattern.search(old) else (
            old.rstrip() + "\n\n" + text)
        path.write_text(new, encoding="utf-8")
        write_data(rows, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
