"""summary() at 1e5 and 1e6 rows, its memory peak, and binned ECE against the peers.

One run times, on the same data:

* ``df.calib.summary()`` (every metric, incl. LCS and TCE_bpm) at 1e5 and 1e6 binary
  rows, with the peak of traced memory;
* the 15-bin ECE of calreport against scikit-learn's ``calibration_curve`` (which
  returns the bin means only; ECE then needs the bin counts: one extra histogram),
  relplot's ``binnedECE`` and calzone's ``reliability_diagram`` + ``calculate_ece_mce``.

Usage: ``python benchmarks/bench_summary.py [--quick]``; writes its section of
benchmarks/RESULTS.md unless ``--quick``.
"""

from __future__ import annotations

import argparse
import sys
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, median_time, table, version, write_section

import calreport  # noqa: F401
from calreport.metrics import binned


def data(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.beta(2.0, 2.0, n)
    return pd.DataFrame({"y_true": (rng.random(n) < p**1.2).astype(np.int64), "proba": p})


def bench_summary(sizes: list[int]) -> list[list]:
    rows = []
    for n in sizes:
        df = data(n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t, out = median_time(df.calib.summary, repeat=3, warmup=1)
            tracemalloc.start()
            df.calib.summary()
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        assert out.notna().all(), out[out.isna()]
        rows.append([f"df.calib.summary() all {len(out) - 3} metrics, N={n:.0e}", t,
                     peak / 2**20, peak / (n * 8 * 3)])
    return rows


def _sklearn_ece(y: np.ndarray, p: np.ndarray, n_bins: int) -> float:
    from sklearn.calibration import calibration_curve

    prob_true, prob_pred = calibration_curve(y, p, n_bins=n_bins, strategy="uniform")
    # calibration_curve drops empty bins and returns no counts: count with the same
    # (lo, hi] convention to weight the gaps
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    counts = np.bincount(np.searchsorted(edges[1:-1], p), minlength=n_bins)
    counts = counts[counts > 0]
    return float(np.sum(counts / len(p) * np.abs(prob_true - prob_pred)))


def bench_ece(n: int, n_bins: int = 15) -> list[list]:
    df = data(n, seed=1)
    y = df["y_true"].to_numpy()
    p = df["proba"].to_numpy()
    rows = []
    t, ours = median_time(lambda: binned.ece(p, y, n_bins=n_bins), repeat=5, warmup=1)
    rows.append([f"calreport binned.ece, {n_bins} bins, N={n:.0e}", t, ours])
    t, ref = median_time(lambda: _sklearn_ece(y, p, n_bins), repeat=5, warmup=1)
    rows.append([f"scikit-learn {version('scikit-learn')} calibration_curve + counts", t, ref])
    try:
        import relplot

        t, rp = median_time(lambda: relplot.metrics.binnedECE(p, y, nbins=n_bins)
                            if hasattr(relplot, "metrics") else np.nan, repeat=5, warmup=1)
        rows.append([f"relplot {version('relplot')} binnedECE ([lo, hi) bins)", t, float(rp)])
    except Exception as exc:  # peer missing or API changed: say so in the table
        rows.append([f"relplot: not run ({type(exc).__name__})", float("nan"), float("nan")])
    try:
        from calzone import metrics as cz

        proba2 = np.column_stack([1 - p, p])

        def calzone_ece():
            rel, conf, _, counts = cz.reliability_diagram(y, proba2, num_bins=n_bins,
                                                          class_to_plot=1)
            mask = counts > 0
            return cz.calculate_ece_mce(rel[mask], conf[mask], counts[mask])[0]

        t, czv = median_time(calzone_ece, repeat=5, warmup=1)
        rows.append([f"calzone {version('calzone-tool')} reliability_diagram + "
                     "calculate_ece_mce", t, float(czv)])
    except Exception as exc:
        rows.append([f"calzone: not run ({type(exc).__name__})", float("nan"), float("nan")])
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    sizes = [10_000, 100_000] if args.quick else [100_000, 1_000_000]
    rows = bench_summary(sizes)
    ece_rows = bench_ece(100_000 if args.quick else 1_000_000)
    body = (
        "## summary() and binned ECE\n\n"
        f"Machine: {machine(('calreport', 'numpy', 'pandas', 'scikit-learn', 'relplot', 'calzone-tool'))}\n\n"  # noqa: E501
        "Command: `python benchmarks/bench_summary.py`\n\n"
        + table(["case", "seconds (median)", "peak traced MiB", "peak / input size"], rows)
        + "\n\n"
        + table(["ECE", "seconds (median)", "value"], ece_rows)
        + "\n\nThe ECE values agree where the bin conventions agree (no score on a bin "
        "edge); relplot puts edge scores in the upper bin and calzone drops a score of "
        "exactly 0 (see tests/test_peers.py)."
    )
    if args.quick:
        print(body)
    else:
        write_section("summary", body)


if __name__ == "__main__":
    main()
