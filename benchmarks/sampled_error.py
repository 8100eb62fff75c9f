"""Coverage of the 95 % sampling error printed beside the out-of-core sampled metrics.

Out of core (Dask, Polars, the Accumulator) the metrics that refit a curve are
computed on a uniform sample of ``sample_size`` rows per group, and every output
prints beside each one ``± h``, the half-width of a 95 % statement ``|value on the
sample - value on all rows| <= h`` (:func:`calreport.stats.sampled.sample_errors`:
the spread and the drift of the metric over random halves of the kept sample, with
the finite-population factor).  This study
measures how often the statement holds.

Populations (``--rows`` rows each, default 30,000,000; the population is the group,
fixed): binary scores ``p ~ Beta(2, 2)`` with outcomes

* ``miscal``: ``y ~ Bernoulli(p^1.3)`` (overconfident at the top, ECE about 0.08);
* ``calib``:  ``y ~ Bernoulli(p)`` (calibrated: every calibration error near 0);
* ``sharp``:  ``p ~ Beta(0.5, 0.5)``, ``y ~ Bernoulli(0.5 + 0.8 (p - 0.5))``.

The value on all rows is the pandas accessor's (the registry's point computation on
the full profile).  Each draw takes a simple random sample of ``n`` rows (what the
state's bottom-k sample is) and runs the library's computation of the value and
``h`` on it; coverage = share of draws with ``|value - all rows| <= h``, with its
binomial standard error.  One more check runs the :class:`~calreport.Accumulator`
end to end on the first population (batches of 10^6 rows) and compares the printed
``<metric>_sampling_error`` column with the all-rows values.

Usage::

    python benchmarks/sampled_error.py                          # 3e7 rows, n 20,000 and 2,000
    python benchmarks/sampled_error.py --rows 1000000 --draws 20  # quick look
"""

from __future__ import annotations

import argparse
import math
import subprocess
import time
import warnings

import numpy as np

from calreport.metrics import calibration_index
from calreport.profile import ConfidenceProfile
from calreport.registry import REGISTRY, MetricCache
from calreport.settings import Settings
from calreport.stats.sampled import (
    CALIBRATION_ERROR,
    NO_SAMPLING_ERROR,
    SAMPLING_LEVEL,
    sample_errors,
    scaling_kinds,
)

try:
    from _common import machine, table
except ImportError:  # run from the repository root
    from benchmarks._common import machine, table

#: The registry metrics out of core on the sample, with a sampling error.
REGISTRY_METRICS = [m for m, k in scaling_kinds().items()
                    if k == "sampled" and m not in NO_SAMPLING_ERROR] + ["smece"]
#: With the LOWESS calibration-error summary of ``calibration_error()``.
METRICS = REGISTRY_METRICS + list(CALIBRATION_ERROR)


def lowess_summary(profile: ConfidenceProfile) -> dict[str, float]:
    """ICI, E50, E90 and Emax, as ``calibration_error()`` computes them."""
    r = calibration_index.calibration_error_summary(*profile.view(None))
    return {"ici": r.ici, "e50": r.e50, "e90": r.e90, "emax": r.emax}


def population(name: str, rows: int, seed: int) -> ConfidenceProfile:
    """One synthetic population (the group) of ``rows`` binary predictions."""
    rng = np.random.default_rng([seed, rows, len(name)])
    if name == "sharp":
        p = rng.beta(0.5, 0.5, rows)
        truth = 0.5 + 0.8 * (p - 0.5)
    else:
        p = rng.beta(2.0, 2.0, rows)
        truth = p ** 1.3 if name == "miscal" else p
    y = (rng.random(rows) < truth).astype(np.int8)
    return ConfidenceProfile.from_arrays(y, p)


def values_of(profile: ConfidenceProfile, settings: Settings) -> dict[str, float]:
    """Every studied metric on a profile, by the registry's point computation."""
    cache = MetricCache()
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m in REGISTRY_METRICS:
            out[m] = float(REGISTRY[m].compute(profile, settings, cache))
        out.update(lowess_summary(profile))
    return out


def study(name: str, rows: int, sizes: list[int], draws: int, seed: int
          ) -> tuple[list[list[object]], dict[str, float]]:
    settings = Settings()
    t0 = time.perf_counter()
    full = population(name, rows, seed)
    truth = values_of(full, settings)
    print(f"{name}: all-rows values in {time.perf_counter() - t0:.0f} s", flush=True)
    out = []
    rng = np.random.default_rng([seed, 1])
    for n in sizes:
        t0 = time.perf_counter()
        hit = {m: 0 for m in METRICS}
        width = {m: [] for m in METRICS}
        miss = {m: [] for m in METRICS}
        for d in range(draws):
            rows_kept = rng.choice(rows, size=n, replace=False)
            sample = full.take(np.sort(rows_kept))
            vals = values_of(sample, settings)
            h = sample_errors(sample, rows, {m: vals[m] for m in REGISTRY_METRICS},
                              settings, seed=(seed << 20) + d)
            h.update(sample_errors(sample, rows, {m: vals[m] for m in CALIBRATION_ERROR},
                                   settings, seed=(seed << 20) + d, compute=lowess_summary))
            for m in METRICS:
                err = abs(vals[m] - truth[m])
                hit[m] += err <= h[m]
                width[m].append(h[m])
                miss[m].append(err)
        secs = time.perf_counter() - t0
        for m in METRICS:
            cov = hit[m] / draws
            se = math.sqrt(cov * (1.0 - cov) / draws)
            out.append([name, f"{n:,}", m, f"{truth[m]:.5g}", f"{np.mean(miss[m]):.2g}",
                        f"{np.mean(width[m]):.2g}", f"{cov:.3f} ± {se:.3f}"])
        print(f"{name} n={n:,}: {draws} draws in {secs:.0f} s", flush=True)
    return out, truth


def end_to_end(rows: int, seed: int, sample_size: int, truth: dict[str, float]
               ) -> list[list[object]]:
    """The Accumulator on the ``miscal`` population in batches of 10^6 rows."""
    import pandas as pd

    from calreport.accumulator import Accumulator

    prof = population("miscal", rows, seed)
    acc = Accumulator(y="y", proba="p", sample_size=sample_size, smooth_groups=0)
    step = 1_000_000
    score, y = prof.score, prof.y_true
    for start in range(0, rows, step):
        acc.update(pd.DataFrame({"y": y[start:start + step], "p": score[start:start + step]}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = acc.summary()
        ce = acc.calibration_error()
    for m in CALIBRATION_ERROR:
        got[m], got[f"{m}_sampling_error"] = ce[m], ce[f"{m}_sampling_error"]
    out = []
    for m in METRICS:
        err, h = abs(got[m] - truth[m]), got[f"{m}_sampling_error"]
        out.append([m, f"{got[m]:.5g}", f"{truth[m]:.5g}", f"{err:.2g}", f"{h:.2g}",
                    "yes" if err <= h else "no"])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=30_000_000)
    ap.add_argument("--sizes", type=int, nargs="+", default=[20_000, 2_000])
    ap.add_argument("--draws", type=int, default=60)
    ap.add_argument("--populations", nargs="+", default=["miscal", "calib", "sharp"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-end-to-end", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    rows, truths = [], {}
    for name in args.populations:
        got, truths[name] = study(name, args.rows, args.sizes, args.draws, args.seed)
        rows += got
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False).stdout.strip()
    print(f"\n{machine()}\ncommit {commit}; {args.rows:,} rows per population, "
          f"{args.draws} draws per cell, stated rate {SAMPLING_LEVEL:.0%}\n")
    print(table(["population", "sample n", "metric", "all rows", "mean abs. error", "mean h",
                 "coverage ± SE"], rows))
    if not args.no_end_to_end and "miscal" in truths:
        print("\nAccumulator end to end (miscal, sample_size "
              f"{args.sizes[0]:,}, smooth_groups=0):\n")
        print(table(["metric", "sampled", "all rows", "abs. error", "printed h", "within"],
                    end_to_end(args.rows, args.seed, args.sizes[0], truths["miscal"])))
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
