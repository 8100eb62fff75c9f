"""How often the recalibration advisor's recommendation changes with its seed.

The advisor's seed draws the cross-fitting folds and the paired-bootstrap counts.
Methods whose out-of-fold log losses lie within noise of each other trade places
from one seed to the next, so a rule "the lowest log loss" recommends whichever won
the draw.  The advisor recommends the simplest method it cannot tell apart from the
lowest (``calreport.recalibration.advisor.recalibrate``, Notes).  For each data set,
``recalibrate(seed=s)`` for ``s = 0 .. S - 1`` (5 folds, 200 paired replicates);
from the same tables, the method the plain rule would have named (the lowest
out-of-fold log loss among the methods that lower it without a worse risk band,
else "none").  Reported per rule: the recommendations and how many seeds agree with
the most frequent one.

Data sets: those of ``benchmarks/recalibration.py`` (scikit-learn's breast cancer,
digits and wine with out-of-sample model scores, a synthetic overconfident model),
calreport's own demo data (raw gradient-boosting scores), and a calibrated synthetic
model (``y ~ Bernoulli(s)``, s uniform; 1,000 rows), where no method should be
recommended.

Usage: ``python benchmarks/advisor_stability.py [--seeds 20] [--quick]`` (writes the
``advisor_stability`` section of RESULTS.md).
"""

from __future__ import annotations

import argparse
import collections
import time
import warnings

import numpy as np
import pandas as pd
from _common import machine, table, write_section
from recalibration import accessor, datasets

import calreport  # noqa: F401  (registers the accessors)
from calreport.datasets import load_breast_cancer
from calreport.recalibration.advisor import BAND_SEVERITY


def lowest_rule(t: pd.DataFrame) -> str:
    """The plain rule: the lowest log loss among the methods that lower it without
    a worse band, else "none"."""
    sev0 = BAND_SEVERITY[t.loc["none", "band"]]
    ok = t[(t.index != "none") & (t["log_loss_diff"] < 0)
           & (t["band"].map(BAND_SEVERITY) <= sev0)]
    return "none" if ok.empty else str(ok["log_loss_diff"].idxmin())


def frames(quick: bool) -> dict[str, tuple[pd.DataFrame, object]]:
    out = {name: (df, accessor(df)) for name, df in datasets(quick).items()}
    demo = load_breast_cancer()
    raw = demo[demo["calibration"] == "raw"].reset_index(drop=True)
    out["calreport demo data, raw scores (228 rows, binary)"] = (
        raw, raw.calib(y="y_true", proba="proba_benign", pos_label="benign"))
    rng = np.random.default_rng(3)
    s = rng.uniform(0.01, 0.99, 1000)
    cal = pd.DataFrame({"y": (rng.random(s.size) < s).astype(int), "p": s})
    out["synthetic calibrated, y ~ Bernoulli(s) (1,000 rows, binary)"] = (cal, accessor(cal))
    return out


def _summary(picks: list[str]) -> tuple[str, str]:
    counts = collections.Counter(picks)
    top = counts.most_common(1)[0][1]
    return (", ".join(f"{m} {k}" for m, k in counts.most_common()),
            f"{top}/{len(picks)}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=20, help="seeds per data set")
    ap.add_argument("--quick", action="store_true", help="4 seeds, smaller models")
    ap.add_argument("--no-write", action="store_true", help="print, leave RESULTS.md")
    args = ap.parse_args(argv)
    seeds = 4 if args.quick else args.seeds
    warnings.simplefilter("ignore")
    rows = []
    t0 = time.perf_counter()
    for name, (_, acc) in frames(args.quick).items():
        simplest, lowest = [], []
        for seed in range(seeds):
            res = acc.recalibrate(seed=seed, progress=False)
            simplest.append(str(res.recommended))
            lowest.append(lowest_rule(res.table))
        rows.append([name, *_summary(lowest), *_summary(simplest)])
        print(rows[-1], flush=True)
    text = "\n".join([
        f"Machine: {machine()}",
        "",
        f"Command: `python benchmarks/advisor_stability.py --seeds {seeds}"
        f"{' --quick' if args.quick else ''}` ({time.perf_counter() - t0:.0f} s).",
        "",
        f"`recalibrate(seed=s)`, s = 0 .. {seeds - 1}, every method, 5 folds, 200 paired "
        "replicates.  'Lowest': the method with the lowest out-of-fold log loss among "
        "those that lower it without a worse risk band (the rule before the advisor "
        "preferred the simplest); 'simplest': the advisor's recommendation, the simplest "
        "method whose log loss cannot be told apart from the lowest.  Agreement: seeds "
        "naming the most frequent method.",
        "",
        table(["data set", "lowest: recommendations", "lowest: agreement",
               "simplest: recommendations", "simplest: agreement"], rows),
    ])
    print(text)
    if not args.no_write:
        write_section("advisor_stability", text)


if __name__ == "__main__":
    main()
