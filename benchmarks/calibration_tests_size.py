"""Size and power of the calibration tests with p-values (ECCE KS/Kuiper, T-Cal).

Size: the rejection rate at α = 5 % on exactly calibrated data, which must stay at
most α + 1 % (6 %), for n = 100, 1,000 and 10,000 rows, a binary model and a 10-class
model (its top label: confidence against correctness), without and with importance
weights. Power: the rejection rate on miscalibrated models, beside Hosmer-Lemeshow
and Spiegelhalter's Z.

Data
----
* binary, calibrated: score ``s ~ Beta(2, 2)``, ``y ~ Bernoulli(s)``;
* 10-class, calibrated: logits ``N(0, 1.5^2)`` per class, ``p = softmax``, the label
  drawn from ``p``; the top-label confidence ``max p`` is then exactly calibrated;
* weights: importance weights ``LogNormal(0, 1)`` independent of the data (the
  weighted model is calibrated too);
* miscalibrated: the binary model overconfident, ``score = expit(1.3 logit p + 0.3)``
  with ``y ~ Bernoulli(p)``, ``p ~ Beta(2, 2)`` (the setup of issue 28); the 10-class
  model overconfident (its logits divided by 0.7); and a binary model with a local
  wiggle that leaves the overall and the per-half means calibrated,
  ``P(y = 1 | s) = s + 0.08 sin(4 pi s)``.

T-Cal's p-value is exact by construction (a conditional Monte Carlo test); it is run
here with fewer null draws (``--draws``, 199 by default) than the library default
(1,000), which changes its resolution, not its size. Everything is seeded from
``--seed``.

Usage::

    python benchmarks/calibration_tests_size.py            # 1,000 runs a size cell
    python benchmarks/calibration_tests_size.py --quick    # a fast check
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _common import machine, table, write_section
from scipy.special import expit, logit, softmax

from calreport.metrics.clinical import hosmer_lemeshow, spiegelhalter_z
from calreport.metrics.cumulative import ecce_test
from calreport.metrics.tcal import tcal_test

ALPHA = 0.05
TOLERANCE = 0.01
TESTS = ("ECCE KS", "ECCE Kuiper", "T-Cal")


# ------------------------------------------------------------------------- data
def binary(rng: np.random.Generator, n: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    p = rng.beta(2.0, 2.0, n)
    if kind == "calibrated":
        return p, (rng.random(n) < p).astype(float)
    if kind == "overconfident":
        return expit(1.3 * logit(p) + 0.3), (rng.random(n) < p).astype(float)
    # local wiggle: P(y | s) = s + 0.08 sin(4 pi s), inside [0, 1] for s ~ Beta(2, 2)
    truth = np.clip(p + 0.08 * np.sin(4.0 * np.pi * p), 0.0, 1.0)
    return p, (rng.random(n) < truth).astype(float)


def multiclass(rng: np.random.Generator, n: int, kind: str, k: int = 10
               ) -> tuple[np.ndarray, np.ndarray]:
    """Top-label confidence and correctness of a k-class model."""
    z = rng.normal(0.0, 1.5, (n, k))
    truth = softmax(z, axis=1)
    model = truth if kind == "calibrated" else softmax(z / 0.7, axis=1)
    # the label drawn from the true probabilities, by inverting their cumulative sum
    label = (rng.random((n, 1)) > np.cumsum(truth, axis=1)).sum(axis=1)
    label = np.minimum(label, k - 1)
    return model.max(axis=1), (model.argmax(axis=1) == label).astype(float)


def draw(rng: np.random.Generator, setup: str, n: int, kind: str
         ) -> tuple[np.ndarray, np.ndarray]:
    return binary(rng, n, kind) if setup == "binary" else multiclass(rng, n, kind)


# ------------------------------------------------------------------------ tests
def pvalues(rng: np.random.Generator, s: np.ndarray, y: np.ndarray, w: np.ndarray | None,
            draws: int, classical: bool) -> dict[str, float]:
    kw = {"sample_weight": w, "weights": "importance"}
    e = ecce_test(s, y, **kw)
    out = {"ECCE KS": e.ks_pvalue, "ECCE Kuiper": e.kuiper_pvalue,
           "T-Cal": tcal_test(s, y, n_draws=draws, seed=rng, **kw).pvalue}
    if classical:
        out["Hosmer-Lemeshow"] = hosmer_lemeshow(s, y, sample_weight=w).pvalue
        out["Spiegelhalter"] = spiegelhalter_z(s, y, sample_weight=w,
                                               weights="importance").pvalue
    return out


def rejection_rates(seed: np.random.SeedSequence, setup: str, n: int, kind: str,
                    weighted: bool, runs: int, draws: int, classical: bool
                    ) -> tuple[dict[str, float], float]:
    rng = np.random.default_rng(seed)
    hits: dict[str, int] = {}
    t0 = time.perf_counter()
    for _ in range(runs):
        s, y = draw(rng, setup, n, kind)
        w = rng.lognormal(0.0, 1.0, n) if weighted else None
        for name, p in pvalues(rng, s, y, w, draws, classical).items():
            hits[name] = hits.get(name, 0) + int(p <= ALPHA)
    return {k: v / runs for k, v in hits.items()}, time.perf_counter() - t0


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="100 runs a size cell, n = 100 and 1,000 only, 50 power runs")
    ap.add_argument("--runs", type=int, default=1000, help="runs a size cell")
    ap.add_argument("--power-runs", type=int, default=200, help="runs a power cell")
    ap.add_argument("--draws", type=int, default=199, help="T-Cal null draws a run")
    ap.add_argument("--seed", type=int, default=20261127)
    ap.add_argument("--no-write", action="store_true",
                    help="print the section without writing RESULTS.md")
    args = ap.parse_args()
    sizes = (100, 1000) if args.quick else (100, 1000, 10_000)
    runs = 100 if args.quick else args.runs
    power_runs = 50 if args.quick else args.power_runs
    master = np.random.SeedSequence(args.seed)
    cells = [(setup, n, weighted) for setup in ("binary", "10-class") for weighted in
             (False, True) for n in sizes]
    power_cells = [("binary", "overconfident", 300), ("binary", "overconfident", 1000),
                   ("binary", "wiggle", 1000), ("binary", "wiggle", 3000),
                   ("10-class", "overconfident", 300), ("10-class", "overconfident", 1000)]
    seeds = master.spawn(len(cells) + len(power_cells))
    limit = ALPHA + TOLERANCE
    # above the target by more than two Monte Carlo standard errors: not reached; by
    # less: not distinguishable from the target with this many runs
    margin = 2.0 * np.sqrt(ALPHA * (1 - ALPHA) / runs)
    rows, failures, unclear, seconds = [], [], [], 0.0
    for (setup, n, weighted), sd in zip(cells, seeds, strict=False):
        rates, dt = rejection_rates(sd, setup, n, "calibrated", weighted, runs, args.draws,
                                    classical=False)
        seconds += dt
        where = f"at n = {n:,} ({setup}, {'weighted' if weighted else 'unweighted'})"
        over = [t for t in TESTS if rates[t] > limit + margin]
        near = [t for t in TESTS if limit < rates[t] <= limit + margin]
        failures += [f"{t} {where}: {_pct(rates[t])} %" for t in over]
        unclear += [f"{t} {where}: {_pct(rates[t])} %" for t in near]
        verdict = ("no: " + ", ".join(over) if over else
                   "within Monte Carlo error: " + ", ".join(near) if near else "yes")
        rows.append([setup, "importance (lognormal)" if weighted else "none", f"{n:,}",
                     *(_pct(rates[t]) for t in TESTS), verdict])
        print(rows[-1], f"{dt:.1f} s", flush=True)
    prow = []
    names = (*TESTS, "Hosmer-Lemeshow", "Spiegelhalter")
    for (setup, kind, n), sd in zip(power_cells, seeds[len(cells):], strict=True):
        rates, dt = rejection_rates(sd, setup, n, kind, False, power_runs, args.draws,
                                    classical=True)
        seconds += dt
        prow.append([setup, kind, f"{n:,}", *(_pct(rates[t]) for t in names)])
        print(prow[-1], f"{dt:.1f} s", flush=True)
    se = 100 * np.sqrt(ALPHA * (1 - ALPHA) / runs)
    body = "\n".join([
        "## Calibration tests: size and power",
        "",
        f"`python benchmarks/calibration_tests_size.py{' --quick' if args.quick else ''}`"
        f" (seed {args.seed}; {seconds / 60:.1f} CPU minutes on {machine()}).",
        "",
        f"Size: rejections at α = 5 % on calibrated data, in %, {runs:,} runs a cell "
        f"(Monte Carlo standard error {se:.1f} points); the target is at most "
        f"{100 * limit:.0f} %. T-Cal with {args.draws} null draws a run, stopping after "
        "the first 99 when their p-value is above 0.2, as the library does (exact at any "
        "draw count; the library default is 1,000). The 10-class rows test the top "
        "label (confidence against correctness): top-label calibration only.",
        "",
        table(["model", "weights", "n", *(f"{t} %" for t in TESTS), "size ≤ 6 %"], rows),
        "",
        ("Not reached (above 6 % by more than two standard errors): "
         + ("; ".join(failures) if failures else "none") + ". Above 6 % by less (not "
         "distinguishable from 6 % at this many runs; T-Cal's size is at most 5 % by "
         "construction, so any such T-Cal cell is Monte Carlo noise): "
         + ("; ".join(unclear) if unclear else "none") + "."),
        "",
        f"Power: rejections at α = 5 % in %, {power_runs} runs a cell, unweighted. "
        "overconfident binary: score = expit(1.3 logit p + 0.3); overconfident 10-class: "
        "logits / 0.7; wiggle: P(y = 1 | s) = s + 0.08 sin(4πs), calibrated on average.",
        "",
        table(["model", "miscalibration", "n", *(f"{t} %" for t in names)], prow),
    ])
    if args.no_write:
        print(body)
    else:
        write_section("calibration_tests", body)


if __name__ == "__main__":
    main()
