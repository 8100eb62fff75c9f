"""Core metrics: AUC + cwAUC together against scikit-learn's AUC alone, in one run.

ECE: calreport's 15-bin ``ece`` against scikit-learn's ``calibration_curve`` on the
same data (binary positive-class view; top-label view of the 10-class data).

1. Binary, 1e6 rows: ``calreport.metrics.ranking.auc_cwauc`` (both AUC and cwAUC,
   one sort) against ``sklearn.metrics.roc_auc_score`` (AUC only) and against two
   ``roc_auc_score`` calls (AUC, then cwAUC as ``sample_weight=conf``).
2. Multiclass, 2e5 rows x 10 classes: ``auc_cwauc`` (per-class AUC and cwAUC) against
   ``roc_auc_score(multi_class="ovr", average="macro")``.

Target: AUC + cwAUC together no slower than scikit-learn's AUC alone.  Every pair of
timings checks that both libraries give the same AUC.

Usage: ``python benchmarks/bench_core.py [--quick] [--no-write]``; writes its section
of benchmarks/RESULTS.md unless ``--quick`` or ``--no-write``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from sklearn.calibration import calibration_curve
from sklearn.metrics import roc_auc_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, median_time, table, write_section

from calreport.metrics.binned import ece
from calreport.metrics.ranking import auc_cwauc


def binary_data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.beta(2.0, 2.0, n)
    y = (rng.random(n) < p).astype(np.int64)
    return y, p, np.maximum(p, 1.0 - p)


def multiclass_data(n: int, k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, k)) * 2.0
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    # labels drawn from the probabilities (inverse CDF, vectorised)
    y = np.minimum((p.cumsum(axis=1) < rng.random(n)[:, None]).sum(axis=1), k - 1)
    return y, p, p.max(axis=1)


def bench_binary(n: int, repeat: int) -> list[list]:
    y, p, c = binary_data(n)
    t_ours, (a, cw) = median_time(lambda: auc_cwauc(y, p, c), repeat=repeat, warmup=1)
    t_sk, a_sk = median_time(lambda: roc_auc_score(y, p), repeat=repeat, warmup=1)
    t_sk2, cw_sk = median_time(lambda: roc_auc_score(y, p, sample_weight=c), repeat=repeat)
    assert np.isclose(a[1], a_sk, rtol=1e-10) and np.isclose(cw[1], cw_sk, rtol=1e-10)
    return [
        [f"binary N={n:.0e}: calreport auc_cwauc (AUC + cwAUC)", t_ours, 1.0],
        [f"binary N={n:.0e}: sklearn roc_auc_score (AUC only)", t_sk, t_sk / t_ours],
        [f"binary N={n:.0e}: sklearn AUC + cwAUC (two calls)", t_sk + t_sk2,
         (t_sk + t_sk2) / t_ours],
    ]


def bench_multiclass(n: int, k: int, repeat: int) -> list[list]:
    y, p, c = multiclass_data(n, k)
    t_ours, (a, _) = median_time(lambda: auc_cwauc(y, p, c), repeat=repeat, warmup=1)
    t_sk, a_sk = median_time(
        lambda: roc_auc_score(y, p, multi_class="ovr", average="macro"), repeat=repeat,
        warmup=1)
    assert np.isclose(np.nanmean(a), a_sk, rtol=1e-10)
    return [
        [f"{k} classes N={n:.0e}: calreport auc_cwauc (per-class AUC + cwAUC)", t_ours, 1.0],
        [f"{k} classes N={n:.0e}: sklearn roc_auc_score ovr macro (AUC only)", t_sk,
         t_sk / t_ours],
    ]


def _sklearn_ece(outcome: np.ndarray, score: np.ndarray, n_bins: int) -> float:
    """ECE from scikit-learn's calibration_curve (bin means) plus the bin counts it
    does not return, with the same (lo, hi] bins."""
    prob_true, prob_pred = calibration_curve(outcome, score, n_bins=n_bins)
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    counts = np.bincount(np.searchsorted(edges[1:-1], score), minlength=n_bins)
    counts = counts[counts > 0]
    return float(np.sum(counts / len(score) * np.abs(prob_true - prob_pred)))


def bench_ece(n_bin: int, n_mc: int, k: int, repeat: int, n_bins: int = 15) -> list[list]:
    """15-bin ECE: binary positive-class view at n_bin rows, top-label view of a
    k-class problem at n_mc rows (calibration_curve needs a binary outcome, so the
    top-label view passes confidence and correctness to both)."""
    rows = []
    y, p, _ = binary_data(n_bin, seed=3)
    ym, pm, cm = multiclass_data(n_mc, k, seed=4)
    ok = (pm.argmax(axis=1) == ym).astype(np.int64)
    for label, outcome, score in ((f"binary N={n_bin:.0e}", y, p),
                                  (f"{k} classes N={n_mc:.0e}, top-label", ok, cm)):
        t_ours, ours = median_time(lambda o=outcome, s=score: ece(s, o, n_bins=n_bins),
                                   repeat=repeat, warmup=1)
        t_sk, ref = median_time(lambda o=outcome, s=score: _sklearn_ece(o, s, n_bins),
                                repeat=repeat, warmup=1)
        assert np.isclose(ours, ref, rtol=1e-9), (ours, ref)
        rows += [[f"{label}: calreport ece (15 bins)", t_ours, 1.0],
                 [f"{label}: sklearn calibration_curve (+ counts)", t_sk, t_sk / t_ours]]
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller sizes (smoke run)")
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args()
    n_bin, n_mc, repeat = (100_000, 20_000, 3) if args.quick else (1_000_000, 200_000, 7)
    rows = bench_binary(n_bin, repeat) + bench_multiclass(n_mc, 10, repeat)
    rows += bench_ece(n_bin, n_mc, 10, repeat)
    body = (
        "## AUC, cwAUC and ECE\n\n"
        f"Machine: {machine()}\n\n"
        "Command: `python benchmarks/bench_core.py`\n\n"
        + table(["case", "seconds (median)", "time / calreport"], rows)
        + "\n\nTarget: AUC + cwAUC together no slower than scikit-learn's AUC alone. "
        "calreport sorts every class's scores once (one vectorised argsort of the "
        "K x N matrix), groups ties, and reads both AUCs off the same groups with "
        "weighted cumulative sums. ECE: calreport bins with searchsorted on exact m/M "
        "edges and bincount; scikit-learn's calibration_curve returns only the bin "
        "means, so its ECE needs one more histogram (included in its time)."
    )
    if args.quick or args.no_write:
        print(body)
    else:
        write_section("core", body)


if __name__ == "__main__":
    main()
