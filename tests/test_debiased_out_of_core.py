"""Out of core: the debiased ECE exact by the second pass of the equal-mass edges."""

import numpy as np
import pandas as pd
import pytest

import calreport  # noqa: F401
from calreport.metrics import debiased
from calreport.profile import ConfidenceProfile
from calreport.stats import StatsConfig, StatsState, quantile

pytestmark = [pytest.mark.filterwarnings("ignore::calreport.UndefinedMetricWarning"),
              pytest.mark.filterwarnings("ignore::calreport.metrics.risk.ClippedConfidenceWarning")]


def _frame(seed, n, *, ties=False, weights=None):
    """Binary rows in groups of very different sizes (1, 2, 7 rows and larger)."""
    rng = np.random.default_rng(seed)
    p = rng.beta(2.0, 3.0, n)
    if ties:  # scores on a coarse grid: part boundaries fall inside runs of ties
        p = np.round(p, 2)
    sizes = {"one": 1, "two": 2, "seven": 7}
    g = np.array(["big"] * n, dtype=object)
    g[:10] = ["one"] + ["two"] * 2 + ["seven"] * 7
    g[10:][np.arange(n - 10) % 3 == 0] = "mid"
    df = pd.DataFrame({"y": (rng.random(n) < p**1.2).astype(int), "p": p, "g": g})
    if weights == "frequency":
        df["w"] = rng.integers(0, 4, n).astype(float)
        df.loc[df["g"].isin(list(sizes)), "w"] = 1.0
    elif weights == "importance":
        df["w"] = rng.gamma(0.7, 2.0, n)
        df.loc[rng.random(n) < 0.1, "w"] = 0.0  # rows of zero weight count nowhere
        df.loc[df["g"].isin(list(sizes)), "w"] = 1.0
    return df


def _setup(seed, n, ties, weights):
    """The frame, its roles, the summary options and the pandas debiased ECE per group."""
    df = _frame(seed, n, ties=ties, weights=weights)
    kw = {} if weights is None else {"weight": "w"}
    opts = {} if weights is None else {"weights": weights}
    ref = df.groupby("g").calib(y="y", proba="p", **kw, **opts).summary()["debiased_ece"]
    return df, kw, opts, ref


CASES = [(None, False), (None, True), ("frequency", False), ("frequency", True),
         ("importance", False), ("importance", True)]


@pytest.mark.parametrize(("weights", "ties"), CASES)
def test_dask_equals_pandas(weights, ties):
    dd = pytest.importorskip("dask.dataframe")
    from calreport import dask as calreport_dask

    calreport_dask.register()
    df, kw, opts, ref = _setup(1, 4000, ties, weights)
    got = [dd.from_pandas(df, npartitions=k).groupby("g").calib(y="y", proba="p", **kw)
           .summary(exact_debiased=True, **opts) for k in (1, 3, 7)]
    for out in got:
        np.testing.assert_allclose(out["debiased_ece"].to_numpy(),
                                   ref.loc[out.index].to_numpy(), rtol=1e-12, atol=1e-15)
        assert out.attrs["kinds"]["debiased_ece"] == "exact"
        assert "debiased_ece_sampling_error" not in out.columns
    # the same value whatever the partitioning, bit for bit
    for out in got[1:]:
        assert np.array_equal(out["debiased_ece"].to_numpy(), got[0]["debiased_ece"].to_numpy(),
                              equal_nan=True)


@pytest.mark.parametrize(("weights", "ties"), [*CASES[::2], ("importance", True)])
def test_polars_equals_pandas(weights, ties):
    pl = pytest.importorskip("polars")
    from calreport import polars as calreport_polars

    calreport_polars.register()
    df, kw, opts, ref = _setup(2, 3000, ties, weights)
    got = pl.from_pandas(df).calib(y="y", proba="p", **kw).summary(
        by="g", exact_debiased=True, **opts)
    got = dict(zip(got["g"].to_list(), got["debiased_ece"].to_list(), strict=True))
    assert set(got) == set(ref.index)
    for key, want in ref.items():
        assert got[key] == pytest.approx(want, rel=1e-12, abs=1e-15)
    # strategy="quantile" runs that pass anyway and replaces the sampled value too
    q = pl.from_pandas(df).calib(y="y", proba="p", **kw).summary(
        by="g", strategy="quantile", **opts)
    assert "debiased_ece_sampling_error" not in q.columns
    assert dict(zip(q["g"].to_list(), q["debiased_ece"].to_list(), strict=True)) == got


def test_multiclass_top_label_on_dask():
    dd = pytest.importorskip("dask.dataframe")
    from calreport import dask as calreport_dask

    calreport_dask.register()
    rng = np.random.default_rng(3)
    proba = rng.dirichlet([0.5, 1.0, 2.0], 3000)
    df = pd.DataFrame(proba, columns=["a", "b", "c"])
    df["y"] = np.array(["a", "b", "c"])[(rng.random(3000)[:, None]
                                         > proba.cumsum(axis=1)).sum(axis=1).clip(0, 2)]
    df["g"] = rng.choice(["x", "z"], 3000)
    ref = df.groupby("g").calib(y="y", proba=["a", "b", "c"]).summary()["debiased_ece"]
    got = dd.from_pandas(df, npartitions=4).groupby("g").calib(
        y="y", proba=["a", "b", "c"]).summary(exact_debiased=True)
    np.testing.assert_allclose(got["debiased_ece"].to_numpy(), ref.loc[got.index].to_numpy(),
                               rtol=1e-12)


@pytest.mark.parametrize("score_bins", [4, 64, 1 << 16])
def test_coarse_fine_bins_hold_the_order_statistics(score_bins):
    # a few fine bins holding thousands of rows each: the ranks are found inside them
    rng = np.random.default_rng(4)
    s = rng.random(5000)
    y = (rng.random(5000) < s).astype(float)
    prof = ConfidenceProfile.from_arrays(y, s)
    st = StatsState.from_profile(prof, config=StatsConfig(score_bins=score_bins))
    pl = quantile.plan(st, view="positive", n_bins=15)
    second = quantile.collect(prof, np.zeros(s.size, np.intp), [()], pl)
    got = float(quantile.debiased_ece(st, second, pl, n_bins=15)[0])
    assert got == pytest.approx(debiased.debiased_ece(s, y, n_bins=15), rel=1e-12)


def test_plan_keeps_few_rows():
    # the second pass keeps the rows of the fine bins holding an edge, not the group
    rng = np.random.default_rng(5)
    s = rng.random(200_000)
    prof = ConfidenceProfile.from_arrays((rng.random(s.size) < s).astype(float), s)
    st = StatsState.from_profile(prof)
    pl = quantile.plan(st, view="positive", n_bins=15)
    second = quantile.collect(prof, np.zeros(s.size, np.intp), [()], pl)
    assert second["rows"][()][0].size < s.size / 100


def test_a_group_without_rows_of_positive_weight_says_why():
    dd = pytest.importorskip("dask.dataframe")
    from calreport import dask as calreport_dask

    calreport_dask.register()
    df = _frame(6, 600, weights="importance")
    df.loc[df["g"] == "mid", "w"] = 0.0
    got = dd.from_pandas(df, npartitions=2).groupby("g").calib(
        y="y", proba="p", weight="w").summary(exact_debiased=True)
    assert np.isnan(got.loc["mid", "debiased_ece"])
    assert got.attrs["reasons"]["debiased_ece"][list(got.index).index("mid")] \
        == "no rows of positive weight"
