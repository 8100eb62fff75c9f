"""TCE_bpm: speed, and error against the exact true TCE on simulated data.

TCE_bpm and the simulation are those of Dong, Jiang, Pan & Yu (2025), "Combining Priors
with Experience: Confidence Calibration Based on Binomial Process Modeling", AAAI,
arXiv:2412.10658 (section 3.3 and Algorithm 3).

1. Time ``calreport.metrics.bpm.tce_bpm`` at 1e4 and 5e4 rows (median of 3, shuffled
   input so the internal sort is included), next to the re-implementation of the
   authors' published objective (``_published_objective_tce``: Gaussian similarity,
   Nelder-Mead, float64).  The published code itself (mpmath scalars) is not run
   here: the authors' code (github.com/NeuroDong/TCEbpm at commit a05322d,
   ``metrics/TCE_BPM.py``; Python 3.11.7, NumPy 2.4.6, SciPy 1.17.1, mpmath 1.3.0)
   took about 16 s at 1e4 rows, and 112 s were reported at 5e4 rows.
2. Error of both estimators against the exact true TCE of the simulation presets
   (``calreport.synthetic.bpm_simulation`` / ``true_tce``), over many seeds: the
   paper's own simulation (curve sigmoid(-0.88 + 0.49 logit s), confidences
   Beta(1.1233, 0.1147), true TCE 0.130714) and a few other presets.

Usage: ``python benchmarks/bench_bpm.py [--quick] [--no-write]``; writes its section
of benchmarks/RESULTS.md unless ``--quick`` or ``--no-write``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, median_time, table, write_section

from calreport.metrics._bpm_published import _published_objective_tce
from calreport.metrics.bpm import tce_bpm
from calreport.synthetic import bpm_simulation, true_tce

#: (label, curve, Beta parameters) of the accuracy study.
SCENARIOS = [
    ("paper: sigmoid(-0.88 + 0.49 logit s), Beta(1.1233, 0.1147)", "tcebpm",
     (1.1233, 0.1147)),
    ("calibrated g(s) = s, Beta(4, 1)", "calibrated", (4.0, 1.0)),
    ("overconfident (a, b, c) = (0.5, 0.5, 0), Beta(5, 1)", (0.5, 0.5, 0.0), (5.0, 1.0)),
    ("outside the family: g(s) = s^2, Beta(5, 1)", "square", (5.0, 1.0)),
]


def _arrays(n: int, seed: int, curve="tcebpm", beta=(1.1233, 0.1147)):
    df = bpm_simulation(n, curve=curve, beta=beta, seed=seed)
    perm = np.random.default_rng(seed + 10_000).permutation(n)
    return df["confidence"].to_numpy()[perm], df["correct"].to_numpy()[perm]


def bench_speed(sizes: list[int]) -> list[list]:
    rows = []
    truth = true_tce()
    for n in sizes:
        s, c = _arrays(n, seed=1)
        t_ours, ours = median_time(lambda s=s, c=c: tce_bpm(s, c), repeat=3,
                                   warmup=1)
        t_pub, pub = median_time(lambda s=s, c=c: _published_objective_tce(s, c).tce,
                                 repeat=3, warmup=1)
        rows.append([f"{n:,}", f"{t_ours * 1e3:.1f}", f"{t_pub * 1e3:.1f}",
                     f"{ours - truth:+.5f}", f"{pub - truth:+.5f}"])
    return rows


def bench_accuracy(sizes: list[int], n_seeds: int) -> list[list]:
    rows = []
    for label, curve, beta in SCENARIOS:
        truth = true_tce(curve, beta)
        for n in sizes:
            ours, pub = np.empty(n_seeds), np.empty(n_seeds)
            for seed in range(n_seeds):
                s, c = _arrays(n, seed, curve, beta)
                ours[seed] = tce_bpm(s, c) - truth
                pub[seed] = _published_objective_tce(s, c).tce - truth
            rows.append([label, f"{truth:.6f}", f"{n:,}",
                         f"{np.abs(ours).mean():.4f}", f"{ours.mean():+.4f}",
                         f"{ours.std(ddof=1):.4f}",
                         f"{np.abs(pub).mean():.4f}", f"{pub.mean():+.4f}",
                         f"{pub.std(ddof=1):.4f}"])
    return rows


def bench_small_samples(sizes: list[int], n_seeds: int) -> list[list]:
    """Below 240 rows the published code cannot run; this estimator can from 60."""
    truth = true_tce()
    rows = []
    for n in sizes:
        err = np.array([tce_bpm(*_arrays(n, seed)) - truth for seed in range(n_seeds)])
        rows.append([f"{n:,}", f"{np.abs(err).mean():.4f}", f"{err.mean():+.4f}",
                     f"{err.std(ddof=1):.4f}"])
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer seeds (smoke run)")
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args()
    n_seeds = 10 if args.quick else 200
    speed = bench_speed([10_000, 50_000])
    accuracy = bench_accuracy([1_000, 5_000], n_seeds)
    small = bench_small_samples([60, 120, 240], n_seeds)
    body = (
        "## TCE_bpm (Dong et al. 2025, arXiv:2412.10658)\n\n"
        f"Machine: {machine(('calreport', 'numpy', 'scipy'))}\n\n"
        "Command: `python benchmarks/bench_bpm.py`\n\n"
        "Speed (median of 3; shuffled input; paper simulation, error against its true "
        "TCE 0.130714). The published code itself (github.com/NeuroDong/TCEbpm, commit "
        "a05322d) takes about 16 s at 1e4 rows (measured with Python 3.11.7, mpmath 1.3.0) "
        "and 112 s at 5e4 rows (reported); not re-run here.\n\n"
        + table(["rows", "tce_bpm (ms)", "published objective, float64 re-implementation "
                 "(ms)", "tce_bpm error", "published objective error"], speed)
        + f"\n\nError against the exact true TCE over {n_seeds} seeds "
        "(Dong et al. (2025) Algorithm 3 data; MAE = mean absolute error, bias = mean error, "
        "sd = standard deviation of the error):\n\n"
        + table(["scenario", "true TCE", "rows", "tce_bpm MAE", "bias", "sd",
                 "published MAE", "bias", "sd"], accuracy)
        + f"\n\nSmall samples (paper simulation, {n_seeds} seeds; the published code needs "
        ">= 240 rows):\n\n"
        + table(["rows", "tce_bpm MAE", "bias", "sd"], small)
    )
    if args.quick or args.no_write:
        print(body)
    else:
        write_section("bpm", body)


if __name__ == "__main__":
    main()
