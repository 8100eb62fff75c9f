"""Regenerate the embedded demo predictions in ``calreport/datasets/``.

Real models on real data that ship with scikit-learn:

* ``breast_cancer.csv.gz`` -- Wisconsin breast-cancer data (569 patients, binary).
  A gradient-boosting model is fitted on a training split; its scores are then
  recalibrated on a separate calibration split with isotonic regression and with
  Platt scaling.  The held-out test split is scored by all three versions, so the
  file has one row per (test patient, calibration method).
* ``digits.csv.gz`` -- the 8x8 handwritten digits (1,797 images, ten classes), a
  gradient-boosting model and a logistic regression, raw probabilities on the
  held-out split.

Run ``python examples/make_demo_data.py`` (needs scikit-learn).  The output is
deterministic for a fixed scikit-learn version.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

OUT = Path(__file__).resolve().parents[1] / "calreport" / "datasets"
SEED = 20261122


def breast_cancer() -> pd.DataFrame:
    data = load_breast_cancer(as_frame=True)
    x, y = data.data, data.target.to_numpy()  # 1 = benign, 0 = malignant
    x_fit, x_test, y_fit, y_test = train_test_split(
        x, y, test_size=0.4, stratify=y, random_state=SEED
    )
    x_train, x_cal, y_train, y_cal = train_test_split(
        x_fit, y_fit, test_size=0.35, stratify=y_fit, random_state=SEED
    )
    model = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.1, random_state=SEED)
    model.fit(x_train, y_train)
    raw_cal = model.predict_proba(x_cal)[:, 1]
    raw_test = model.predict_proba(x_test)[:, 1]

    iso = IsotonicRegression(out_of_bounds="clip", y_min=0.0, y_max=1.0).fit(raw_cal, y_cal)

    def logit(p: np.ndarray) -> np.ndarray:
        p = np.clip(p, 1e-12, 1 - 1e-12)
        return np.log(p / (1 - p))

    platt = LogisticRegression(C=1e6).fit(logit(raw_cal)[:, None], y_cal)
    versions = {
        "raw": raw_test,
        "isotonic": iso.predict(raw_test),
        "platt": platt.predict_proba(logit(raw_test)[:, None])[:, 1],
    }
    size = np.where(x_test["mean radius"].to_numpy() >= np.median(x["mean radius"]),
                    "large", "small")
    frames = [
        pd.DataFrame({
            "patient": x_test.index.to_numpy(),
            "calibration": name,
            "tumour_size": size,
            "y_true": np.where(y_test == 1, "benign", "malignant"),
            "proba_benign": p,
        })
        for name, p in versions.items()
    ]
    return pd.concat(frames, ignore_index=True)


def digits() -> pd.DataFrame:
    data = load_digits(as_frame=True)
    x, y = data.data, data.target.to_numpy()
    x_train, x_test, y_train, y_test = train_test_split(
        x, y, test_size=0.4, stratify=y, random_state=SEED
    )
    models = {
        "gradient_boosting": HistGradientBoostingClassifier(max_iter=100, random_state=SEED),
        "logistic": make_pipeline(StandardScaler(), LogisticRegression(C=0.05, max_iter=2000)),
    }
    frames = []
    for name, model in models.items():
        proba = model.fit(x_train, y_train).predict_proba(x_test)
        proba = np.round(proba, 6)
        proba /= proba.sum(axis=1, keepdims=True)
        frame = pd.DataFrame(proba, columns=[f"proba_{k}" for k in range(10)])
        frame.insert(0, "y_true", y_test)
        frame.insert(0, "model", name)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    bc = breast_cancer()
    bc.to_csv(OUT / "breast_cancer.csv.gz", index=False, float_format="%.12g",
              compression={"method": "gzip", "mtime": 0})
    dg = digits()
    dg.to_csv(OUT / "digits.csv.gz", index=False, float_format="%.6g",
              compression={"method": "gzip", "mtime": 0})
    print(f"breast_cancer: {len(bc)} rows; digits: {len(dg)} rows -> {OUT}")


if __name__ == "__main__":
    main()
