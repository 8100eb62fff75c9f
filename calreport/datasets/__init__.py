"""Small embedded demo predictions of real models on real data.

Made by ``examples/make_demo_data.py`` from data sets that ship with scikit-learn;
see that script for the models and splits.
"""

from __future__ import annotations

from importlib import resources

import pandas as pd

__all__ = ["load_breast_cancer", "load_digits"]


def _read(name: str) -> pd.DataFrame:
    with resources.files(__name__).joinpath(name).open("rb") as fh:
        return pd.read_csv(fh, compression="gzip")


def load_breast_cancer() -> pd.DataFrame:
    """Breast-cancer test predictions: raw, isotonic and Platt versions of one model.

    Columns: ``patient``, ``calibration`` (raw / isotonic / platt), ``tumour_size``
    (large / small, a subgroup), ``y_true`` (benign / malignant) and
    ``proba_benign``.  228 held-out patients x 3 calibration methods.

    Examples
    --------
    >>> df = load_breast_cancer()
    >>> sorted(df["calibration"].unique())
    ['isotonic', 'platt', 'raw']
    """
    return _read("breast_cancer.csv.gz")


def load_digits() -> pd.DataFrame:
    """Handwritten-digit test predictions of two models (ten classes).

    Columns: ``model`` (gradient_boosting / logistic), ``y_true`` (0-9) and
    ``proba_0`` ... ``proba_9``.  719 held-out images x 2 models.
    """
    return _read("digits.csv.gz")
