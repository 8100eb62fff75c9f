"""The real-data finding of "Beyond ECE" in miniature, on data that ships with scikit-learn.

Martin-Maroto, Abderrahaman-Elena & de Polavieja (2026, "Beyond ECE: Calibrated Size
Ratio, Risk Assessment, and Confidence-Weighted Metrics", arXiv:2605.01796; section
3.2, Table 2 and appendix Tables 6-7) fit XGBoost on fifteen
datasets, recalibrates its probabilities with isotonic regression and Platt scaling
on a held-out split, and finds that isotonic calibration lowers ECE while it often
makes the confidence profile *risky*: its plateaus at exactly 0 or 1 put full
confidence on some errors, so CSR and P_risk explode.

Here: four small datasets (breast cancer, digits, wine and a noisy
``make_classification`` problem), a scikit-learn ``HistGradientBoostingClassifier``,
a stratified 60/20/20 train / calibration / test split, and three probability sets
on the test split -- raw, isotonic and Platt (sigmoid), the calibrators fitted on
the calibration split with ``CalibratedClassifierCV(FrozenEstimator(model))``.  One
table per dataset x method comes from ``df.groupby(["dataset", "calibration"]).calib
.summary(...)``; the run is repeated over several split seeds to see how often
isotonic calibration lowers ECE and raises CSR / P_risk; finally the same groups are
rendered as an HTML report (``--out-dir``, default a temporary folder; generated
files are not part of the repository).

Every probability table has one column per class of the largest problem (digits,
ten classes); the absent classes of the smaller problems hold probability 0, so
every group is read in the top-label view (confidence of the predicted class against
correctness) and the macro AUC / cwAUC averages the classes that occur.  Run
``python examples/real_models.py`` (about a minute) or ``--quick``.

"P_risk higher" can only count groups whose raw P_risk is below 100 %; "z higher"
compares the overconfidence z-scores, which keep growing past that.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import load_breast_cancer, load_digits, load_wine, make_classification
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import train_test_split

import calreport  # registers the df.calib accessors
from calreport.bootstrap import DegenerateReplicateWarning

DATASETS = ("breast_cancer", "digits", "wine", "make_classification")
METHODS = ("raw", "isotonic", "platt")
N_CLASSES = 10
PROBA = [f"proba_{k}" for k in range(N_CLASSES)]
METRICS = ["accuracy", "ece", "csr", "sigma_csr", "z_csr", "p_risk", "cwa", "auc", "cwauc"]


def load_dataset(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Features and integer labels of one dataset."""
    if name == "breast_cancer":
        data = load_breast_cancer()
        return data.data, data.target
    if name == "digits":
        data = load_digits()
        return data.data, data.target
    if name == "wine":
        data = load_wine()
        return data.data, data.target
    if name == "make_classification":
        # binary, 20 features of which 5 informative, 5 % of labels flipped
        x, y = make_classification(n_samples=2000, n_features=20, n_informative=5,
                                   n_redundant=5, flip_y=0.05, class_sep=1.0,
                                   random_state=0)
        return x, y
    raise ValueError(f"`name` must be one of {DATASETS}, got {name!r}.")


def predictions(name: str, seed: int = 0) -> pd.DataFrame:
    """Test-split probabilities of the raw, isotonic and Platt models of one dataset."""
    x, y = load_dataset(name)
    x_train, x_rest, y_train, y_rest = train_test_split(
        x, y, test_size=0.4, stratify=y, random_state=seed)
    x_cal, x_test, y_cal, y_test = train_test_split(
        x_rest, y_rest, test_size=0.5, stratify=y_rest, random_state=seed)
    model = HistGradientBoostingClassifier(random_state=seed).fit(x_train, y_train)
    fitted = {"raw": model}
    for method, sk_name in (("isotonic", "isotonic"), ("platt", "sigmoid")):
        fitted[method] = CalibratedClassifierCV(FrozenEstimator(model),
                                                method=sk_name).fit(x_cal, y_cal)
    frames = []
    for method in METHODS:
        p = fitted[method].predict_proba(x_test)
        full = np.zeros((p.shape[0], N_CLASSES))
        full[:, fitted[method].classes_] = p
        frame = pd.DataFrame(full, columns=PROBA)
        frame.insert(0, "y", y_test)
        frame.insert(0, "calibration", method)
        frame.insert(0, "dataset", name)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def predictions_frame(seed: int = 0, datasets: Sequence[str] = DATASETS) -> pd.DataFrame:
    """All datasets and methods for one split seed, one row per test prediction."""
    frame = pd.concat([predictions(d, seed) for d in datasets], ignore_index=True)
    order = {"dataset": list(datasets), "calibration": list(METHODS)}
    for col, cats in order.items():
        frame[col] = pd.Categorical(frame[col], categories=cats)
    return frame


def calib(frame: pd.DataFrame) -> calreport.GroupByCalibAccessor:
    """``frame.groupby(["dataset", "calibration"]).calib`` with the column roles."""
    return frame.groupby(["dataset", "calibration"], observed=True).calib(
        y="y", proba=PROBA, classes=list(range(N_CLASSES)))


def summary_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Groups x metrics (top-label view, 15 equal-width bins, normal P_risk)."""
    return calib(frame).summary(METRICS)


def isotonic_effect(table: pd.DataFrame) -> pd.DataFrame:
    """Per dataset: does isotonic (and Platt) lower ECE and raise CSR / P_risk vs raw?"""
    rows = []
    for dataset in table.index.get_level_values("dataset").unique():
        raw = table.loc[(dataset, "raw")]
        for method in ("isotonic", "platt"):
            cal = table.loc[(dataset, method)]
            rows.append({"dataset": dataset, "method": method,
                         "ece_lower": bool(cal["ece"] < raw["ece"]),
                         "csr_higher": bool(cal["csr"] > raw["csr"]),
                         "p_risk_higher": bool(cal["p_risk"] > raw["p_risk"]),
                         "risky": bool(cal["z_csr"] > 3), "raw_risky": bool(raw["z_csr"] > 3)})
    return pd.DataFrame(rows)


def repeated(seeds: Sequence[int]) -> pd.DataFrame:
    """Summary tables of several split seeds, stacked with a ``seed`` level."""
    return pd.concat({s: summary_table(predictions_frame(s)) for s in seeds}, names=["seed"])


def _print_table(table: pd.DataFrame) -> None:
    show = table[["n", "n_clipped", *METRICS]].copy()
    show["p_risk"] = 100.0 * show["p_risk"]
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(show.to_string(float_format=lambda x: f"{x:.4g}"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 split seeds instead of 10")
    parser.add_argument("--seeds", type=int, default=None, help="number of split seeds")
    parser.add_argument("--out-dir", type=Path, default=None,
                        help="where to write real_models_report.html (default: a temp dir)")
    parser.add_argument("--n-boot", type=int, default=200,
                        help="bootstrap replicates of the report's intervals")
    args = parser.parse_args(argv)
    n_seeds = args.seeds or (2 if args.quick else 10)
    start = time.perf_counter()
    warnings.simplefilter("ignore", calreport.UndefinedMetricWarning)
    # the bootstrap of the report leaves out resamples where gain is undefined (accuracy
    # 1) and says so in the report; no need to repeat it on the console
    warnings.simplefilter("ignore", DegenerateReplicateWarning)

    print("Raw, isotonic and Platt probabilities of a HistGradientBoostingClassifier, "
          "test split (60/20/20, split seed 0)")
    frame = predictions_frame(0)
    table = summary_table(frame)
    print("top-label view; ECE with 15 equal-width bins; P_risk in percent (normal "
          "approximation); n_clipped = confidences moved to 1 - 1e-8\n")
    _print_table(table)

    effect = isotonic_effect(table)
    print("\nAgainst the raw probabilities (split seed 0):")
    print(effect.to_string(index=False))

    print(f"\nOver {n_seeds} split seeds (model seed = split seed): how often, per dataset")
    many = repeated(range(n_seeds))
    counts = []
    for dataset in DATASETS:
        for method in ("isotonic", "platt"):
            raw = many.xs((dataset, "raw"), level=("dataset", "calibration"))
            cal = many.xs((dataset, method), level=("dataset", "calibration"))
            counts.append({
                "dataset": dataset, "method": method,
                "ECE lower": int((cal["ece"] < raw["ece"]).sum()),
                "CSR higher": int((cal["csr"] > raw["csr"]).sum()),
                "P_risk higher": int((cal["p_risk"] > raw["p_risk"]).sum()),
                "z higher": int((cal["z_csr"] > raw["z_csr"]).sum()),
                "z > 3": int((cal["z_csr"] > 3).sum()),
                "raw z > 3": int((raw["z_csr"] > 3).sum()),
                "clipped rows": int(cal["n_clipped"].sum()),
                "median CSR": float(cal["csr"].median()),
                "raw median CSR": float(raw["csr"].median()),
            })
    with pd.option_context("display.width", 160):
        print(pd.DataFrame(counts).to_string(index=False,
                                             float_format=lambda x: f"{x:.3g}"))
    print(f"(counts out of {n_seeds})")

    mean = many.groupby(level="calibration", observed=True)[
        ["accuracy", "ece", "cwa", "auc", "cwauc", "p_risk"]].mean()
    mean["p_risk"] *= 100.0
    mean = mean.rename(columns={"p_risk": "p_risk %"})
    risky = (many["z_csr"] > 3).groupby(level="calibration", observed=True).sum()
    mean["groups with z > 3"] = risky
    print(f"\nMeans over datasets and seeds ({len(DATASETS)} x {n_seeds} groups per method):")
    print(mean.to_string(float_format=lambda x: f"{x:.4f}"))

    total = len(DATASETS) * n_seeds
    raw = many.xs("raw", level="calibration")
    for method in ("isotonic", "platt"):
        cal = many.xs(method, level="calibration")
        lower, risky_cal = cal["ece"] < raw["ece"], cal["z_csr"] > 3
        print(f"{method}: ECE below raw in {int(lower.sum())} of {total} (dataset, seed) "
              f"groups, z above raw in {int((cal['z_csr'] > raw['z_csr']).sum())}, ECE lower "
              f"and z > 3 together in {int((lower & risky_cal).sum())}; risky (z > 3) "
              f"{int(risky_cal.sum())} vs raw {int((raw['z_csr'] > 3).sum())}")

    out_dir = args.out_dir or Path(tempfile.mkdtemp(prefix="calreport-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    report = calib(frame).report(
        title="Real models: raw, isotonic and Platt probabilities",
        subject="HistGradientBoostingClassifier on four scikit-learn datasets, test split",
        ci=0.95, n_boot=args.n_boot, seed=0, timestamp="2026-01-01T00:00:00",
        data_notes={"split": "stratified 60/20/20 train / calibration / test, seed 0",
                    "calibrators": "CalibratedClassifierCV(FrozenEstimator(model)) on the "
                                   "calibration split"})
    path = report.save(out_dir / "real_models_report.html")
    print(f"\nreport written to {path.name} in the output folder "
          f"({path.stat().st_size // 1024} kB)")
    print(f"\nelapsed {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
