"""risk() and the summary's P_risk out of core are the pandas accessor's: the same band,
certainty claims, Monte Carlo P_risk and methods, and no interval for a Monte Carlo
P_risk (Dask on the threaded scheduler, the Accumulator, Polars)."""

import math
import warnings

import dask.dataframe as dd
import numpy as np
import pandas as pd
import polars as pl
import pytest

import calreport
from calreport.registry import P_RISK_NO_INTERVAL

pytestmark = pytest.mark.filterwarnings("ignore::calreport.metrics.risk.ClippedConfidenceWarning")


def _frame(n, seed, lo=0.0, hi=1.0, ones=0, groups=None):
    rng = np.random.default_rng(seed)
    p = rng.uniform(lo, hi, n)
    y = (rng.random(n) < p).astype(int)
    p[:ones], y[:ones] = 1.0, 1  # correct certainty claims
    df = pd.DataFrame({"y": y, "p": p})
    if groups:
        df["g"] = rng.choice(groups, n)
    return df


FRAMES = {
    # five correct certainty claims among 40 rows: pandas says "undetermined"
    "certain": dict(n=40, seed=0, lo=0.5, ones=5),
    # a small confident sample: the Monte Carlo null
    "small": dict(n=60, seed=3, lo=0.6),
    # the normal approximation holds (no confidence near 1)
    "large": dict(n=4000, seed=1, lo=0.2, hi=0.8),
}


def _same(a, b, field):
    if isinstance(a, str) or isinstance(b, str):
        assert a == b, field
    elif a is None or b is None:
        assert a is b, field
    else:
        a, b = float(a), float(b)
        assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-9,
                                                                       abs=1e-12), field


@pytest.mark.parametrize("case", list(FRAMES))
def test_risk_equals_pandas_on_every_path(case):
    df = _frame(**FRAMES[case])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = df.calib(y="y", proba="p").risk()
    got = {
        "dask": dd.from_pandas(df, npartitions=3).calib(y="y", proba="p").risk(),
        "accumulator": calreport.Accumulator(y="y", proba="p").update(df.iloc[:17])
                                                              .update(df.iloc[17:]).risk(),
        "polars": pl.from_pandas(df).calib(y="y", proba="p").risk().to_pandas().iloc[0],
    }
    for path, out in got.items():
        assert set(out.index) == set(want.index), path
        for field in want.index:
            _same(out[field], want[field], f"{path}: {field}")


def test_grouped_risk_and_summary_p_risk_equal_pandas():
    df = _frame(300, 4, lo=0.55, groups=["a", "b", "c"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want_risk = df.groupby("g").calib(y="y", proba="p").risk()
        want = df.groupby("g").calib(y="y", proba="p").summary(metrics=["p_risk", "z_csr"])
    ddf = dd.from_pandas(df, npartitions=4).groupby("g").calib(y="y", proba="p")
    got_risk = ddf.risk()
    assert list(got_risk["band"]) == list(want_risk["band"])
    got = ddf.summary()
    assert "monte_carlo" in want.attrs["p_risk_method"].values()
    np.testing.assert_allclose(got["p_risk"], want["p_risk"], rtol=1e-9, atol=1e-12)
    assert got.attrs["p_risk_method"] == want.attrs["p_risk_method"]
    assert got.attrs["kinds"]["p_risk"] == "exact"


def test_p_risk_has_no_interval_in_any_path():
    df = _frame(**FRAMES["small"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = df.calib(y="y", proba="p").summary(ci=0.95, n_boot=100, metrics=["p_risk"])
    assert want.attrs["p_risk_method"] == "monte_carlo"
    assert math.isnan(want.loc["p_risk", "ci_low"])
    acc = calreport.Accumulator(y="y", proba="p", n_boot=100).update(df)
    got = acc.summary(ci=0.95)
    assert got.attrs["p_risk_method"] == "monte_carlo"
    assert got.loc["p_risk", "value"] == pytest.approx(want.loc["p_risk", "value"])
    assert math.isnan(got.loc["p_risk", "ci_low"]) and math.isnan(got.loc["p_risk", "ci_high"])
    assert got.attrs["no_interval"]["p_risk"] == P_RISK_NO_INTERVAL
    # the typed result behind the report says the same
    res = dd.from_pandas(df, npartitions=2).calib(y="y", proba="p").report(
        ci=0.95, n_boot=100).result
    g = res.groups[0]
    assert g.p_risk_method == "monte_carlo" and "p_risk" not in g.intervals
    assert P_RISK_NO_INTERVAL in g.reasons["p_risk"]
    # nor where the normal approximation holds: P_risk is a probability, not an estimate
    big = calreport.Accumulator(y="y", proba="p", n_boot=100).update(
        _frame(**FRAMES["large"])).summary(ci=0.95)
    assert big.attrs["p_risk_method"] == "normal"
    assert big.attrs["no_interval"]["p_risk"] == P_RISK_NO_INTERVAL
    assert math.isnan(big.loc["p_risk", "ci_low"])
