"""Polars namespace: the same numbers as the pandas accessor."""

import numpy as np
import pytest

pl = pytest.importorskip("polars")

import calreport  # noqa: E402, F401
from calreport import polars as calreport_polars  # noqa: E402

calreport_polars.register()


def test_polars_equals_pandas_grouped_and_overall():
    rng = np.random.default_rng(5)
    n = 4000
    p = rng.random(n)
    y = (rng.random(n) < p).astype(int)
    df = pl.DataFrame({"y": y, "proba": p, "model": rng.choice(["a", "b", "c"], n),
                       "unused": rng.random(n)})
    pdf = df.to_pandas()
    got = df.calib.summary(by="model")
    ref = pdf.drop(columns="unused").groupby("model").calib.summary()
    assert got["model"].to_list() == list(ref.index)
    for name in ("accuracy", "cwa", "csr", "z_csr", "ece", "mce", "brier", "log_loss",
                 "cwsa", "cwsa_plus"):
        np.testing.assert_allclose(got[name].to_numpy(), ref[name].to_numpy(), rtol=1e-12)
    one = df.calib(y="y", proba="proba").summary()
    assert one.height == 1
    assert one["accuracy"][0] == pytest.approx(
        pdf.calib(y="y", proba="proba").summary()["accuracy"], rel=1e-12)


def test_polars_intervals_columns():
    df = pl.DataFrame({"y": [0, 1] * 50, "proba": [0.3, 0.8] * 50})
    out = df.calib.summary(ci=0.9, n_boot=30)
    assert {"accuracy_ci_low", "accuracy_ci_high"} <= set(out.columns)
