"""Out of core: exact class-wise ECE, and the sampling error beside every sampled metric."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import calreport  # noqa: F401
from calreport.accumulator import Accumulator
from calreport.metrics import classwise, debiased
from calreport.profile import ConfidenceProfile
from calreport.registry import REGISTRY, MetricCache
from calreport.settings import Settings
from calreport.stats import StatsConfig, StatsState
from calreport.stats.sampled import (
    NO_SAMPLING_ERROR,
    SAMPLING_COVERAGE,
    SAMPLING_LEVEL,
    full_table,
    sample_errors,
    sampled_values,
    sampling_errors,
    sampling_note,
    scaling_kinds,
)

pytestmark = [pytest.mark.filterwarnings("ignore::calreport.UndefinedMetricWarning"),
              pytest.mark.filterwarnings("ignore::calreport.metrics.risk.ClippedConfidenceWarning")]

#: The sampled metrics that carry a sampling error.
WITH_ERROR = [m for m, k in scaling_kinds().items()
              if k == "sampled" and m not in NO_SAMPLING_ERROR]


def _multiclass(seed, n, weighted=True):
    rng = np.random.default_rng(seed)
    proba = rng.dirichlet([0.6, 1.0, 2.0], n)
    # labels from a sharpened copy of the probabilities: miscalibrated per class
    sharp = proba**1.5 / (proba**1.5).sum(axis=1, keepdims=True)
    y = (rng.random(n)[:, None] > sharp.cumsum(axis=1)).sum(axis=1)
    df = pd.DataFrame(proba, columns=["a", "b", "c"])
    df["y"] = np.array(["a", "b", "c"])[np.minimum(y, 2)]
    df["g"] = rng.choice(["x", "y", "z"], n)
    if weighted:
        df["w"] = rng.gamma(0.7, 2.0, n)
        df.loc[rng.random(n) < 0.05, "w"] = 0.0  # rows of zero weight count nowhere
    return df


def _binary(seed, n):
    rng = np.random.default_rng(seed)
    p = rng.beta(2.0, 2.0, n)
    return pd.DataFrame({"y": (rng.random(n) < p**1.3).astype(int), "p": p,
                         "w": rng.gamma(0.7, 2.0, n), "g": rng.choice(["u", "v"], n)})


# ----------------------------------------------------------- class-wise ECE is exact
def test_classwise_is_exact_in_the_registry_and_debiased_stays_sampled():
    assert REGISTRY["classwise_ece"].scaling[0] == "exact"
    # equal-mass edges are order statistics: no one-pass sum holds them
    assert REGISTRY["debiased_ece"].scaling[0] == "sampled"


@pytest.mark.parametrize("weighted", [False, True])
def test_classwise_accumulator_equals_pandas_grouped_in_batches(weighted):
    df = _multiclass(1, 3000, weighted)
    kw = {"weight": "w"} if weighted else {}
    ref = df.groupby("g").calib(y="y", proba=["a", "b", "c"], **kw).summary()
    acc = Accumulator(y="y", proba=["a", "b", "c"], by="g", **kw)
    for part in np.array_split(np.arange(len(df)), 7):
        acc.update(df.iloc[part])
    got = acc.summary()
    assert got.attrs["kinds"]["classwise_ece"] == "exact"
    np.testing.assert_allclose(got["classwise_ece"].to_numpy(),
                               ref["classwise_ece"].to_numpy(), rtol=1e-12, atol=1e-14)
    # the overall (pooled) value: the pandas value of all rows
    whole = df.calib(y="y", proba=["a", "b", "c"], **kw).summary()["classwise_ece"]
    pooled = acc.evaluate().overall.get("classwise_ece")
    assert pooled == pytest.approx(whole, rel=1e-12)


def test_classwise_binary_equals_the_two_column_definition():
    # a binary score is the two columns (1 - p, p); the state bins both
    df = _binary(2, 5000)
    acc = Accumulator(y="y", proba="p", weight="w")
    acc.update(df.iloc[:1234])
    acc.update(df.iloc[1234:])
    want = classwise.classwise_ece(df["y"], np.column_stack([1 - df["p"], df["p"]]),
                                   sample_weight=df["w"])
    assert acc.summary()["classwise_ece"] == pytest.approx(want, rel=1e-12)


def test_classwise_does_not_depend_on_the_batches():
    df = _multiclass(3, 3000)
    states = []
    for cuts in ([1500], [10, 400, 2999]):
        acc = Accumulator(y="y", proba=["a", "b", "c"], weight="w", by="g")
        for lo, hi in zip([0, *cuts], [*cuts, len(df)], strict=True):
            part = df.iloc[lo:hi]
            acc.update(part)
        states.append(acc.summary()["classwise_ece"].to_numpy())
    assert np.array_equal(states[0], states[1])


def test_classwise_dask_equals_pandas_with_weights_and_groups():
    dd = pytest.importorskip("dask.dataframe")
    from calreport import dask as calreport_dask

    calreport_dask.register()
    df = _multiclass(4, 6000)
    got = dd.from_pandas(df, npartitions=5).groupby("g").calib(
        y="y", proba=["a", "b", "c"], weight="w").summary()
    ref = df.groupby("g").calib(y="y", proba=["a", "b", "c"], weight="w").summary()
    np.testing.assert_allclose(got["classwise_ece"].to_numpy(),
                               ref["classwise_ece"].to_numpy(), rtol=1e-12)


def test_classwise_polars_equals_pandas_with_weights_and_groups():
    pl = pytest.importorskip("polars")
    from calreport import polars as calreport_polars

    calreport_polars.register()
    df = _multiclass(5, 6000)
    got = pl.from_pandas(df).calib(y="y", proba=["a", "b", "c"], weight="w").summary(by="g")
    ref = df.groupby("g").calib(y="y", proba=["a", "b", "c"], weight="w").summary()
    got = dict(zip(got["g"].to_list(), got["classwise_ece"].to_list(), strict=True))
    for key in ref.index:
        assert got[key] == pytest.approx(ref.loc[key, "classwise_ece"], rel=1e-12)


def test_classwise_finisher_is_the_row_computations():
    # the merged sums and the rows share one finisher; a hand-worked example
    score = np.array([[0.8, 0.0], [0.0, 0.6]])  # (class, bin) sums of w p_k
    outcome = np.array([[0.0, 1.0], [1.0, 0.0]])  # (class, bin) sums of w 1[y = k]
    got = classwise.errors_from_cell_sums(score, outcome, 2.0)
    # class 0: (|0 - 0.8| + |1 - 0|) / 2 = 0.9; class 1: (|1 - 0| + |0 - 0.6|) / 2 = 0.8
    np.testing.assert_allclose(got, [0.9, 0.8])
    assert np.isnan(classwise.errors_from_cell_sums(score, outcome, 0.0)).all()


# ------------------------------------------------------------------ sampling errors
def test_sampling_error_is_zero_when_the_sample_is_the_whole_group():
    df = _binary(6, 3000)
    acc = Accumulator(y="y", proba="p", by="g", sample_size=5000)
    acc.update(df)
    got = acc.summary()
    ref = df.groupby("g").calib(y="y", proba="p").summary()
    for m in WITH_ERROR:
        assert (got[f"{m}_sampling_error"] == 0.0).all(), m
        np.testing.assert_allclose(got[m].to_numpy(), ref[m].to_numpy(), rtol=1e-9,
                                   err_msg=m)
    for m in NO_SAMPLING_ERROR:
        assert f"{m}_sampling_error" not in got.columns


def test_sampling_error_is_present_and_shrinks_with_the_sample_size():
    df = _binary(7, 40_000)
    widths = []
    for k in (1_000, 10_000):
        acc = Accumulator(y="y", proba="p", sample_size=k)
        acc.update(df)
        got = acc.summary()
        widths.append({m: got[f"{m}_sampling_error"] for m in WITH_ERROR})
    for m in WITH_ERROR:
        assert 0.0 < widths[1][m] < widths[0][m], (m, widths[0][m], widths[1][m])


def test_sampling_error_shrinks_to_zero_as_the_sample_nears_the_group():
    rng = np.random.default_rng(8)
    p = rng.beta(2, 2, 3000)
    prof = ConfidenceProfile.from_arrays((rng.random(3000) < p).astype(int), p)
    st = StatsState.from_profile(prof, config=StatsConfig(sample_size=5000))
    values, _ = sampled_values(st)
    one = {m: float(values[m][0]) for m in WITH_ERROR}
    small = sample_errors(prof, 3001, one, Settings(), seed=1)  # n/N near 1
    large = sample_errors(prof, 300_000, one, Settings(), seed=1)
    for m in WITH_ERROR:
        assert 0.0 <= small[m] < 0.1 * large[m], m
    assert sampling_errors(st, values)["lcs"][0] == 0.0


def test_sampling_error_does_not_depend_on_the_batches():
    df = _binary(9, 8000)
    out = []
    for cuts in ([4000], [100, 2500, 7000]):
        acc = Accumulator(y="y", proba="p", sample_size=1000)
        for lo, hi in zip([0, *cuts], [*cuts, len(df)], strict=True):
            part = df.iloc[lo:hi]
            acc.update(part)
        out.append(acc.summary())
    for m in WITH_ERROR:
        assert out[0][f"{m}_sampling_error"] == out[1][f"{m}_sampling_error"], m


def test_every_output_prints_the_sampling_error():
    df = _binary(10, 6000)
    acc = Accumulator(y="y", proba="p", by="g", sample_size=1000)
    acc.update(df)
    res = acc.evaluate()
    errors = res.data["sampling_error"]
    assert errors["level"] == SAMPLING_LEVEL and "halves" in errors["method"]
    assert set(errors["by_group"]) == {"u", "v", "overall"}
    assert set(errors["by_group"]["u"]) == set(WITH_ERROR)
    # JSON
    data = json.loads(json.dumps(res.to_dict(), allow_nan=False))["data"]["sampling_error"]
    assert data["by_group"]["v"]["lcs"] == pytest.approx(errors["by_group"]["v"]["lcs"])
    # the text repr and the HTML table: value ± h
    assert "sampled:   lcs ±" in repr(res) and "tcal_p" in repr(res)
    h = errors["by_group"]["u"]["corp_mcb"]
    value = res.groups[0].get("corp_mcb")
    html = res._repr_html_()
    # a probability-scale metric in four decimals, as the report prints it
    assert f"{value:.4f} ± {h:.4f}" in html and "sampling error" in html
    # the report's data notes
    from calreport._state_results import scaling_notes

    notes = scaling_notes(res, acc._state(), "batches")
    assert "tcal_p: no sampling error" in notes["Sampling errors"]
    assert "corp_mcb ±" in notes["Sampling errors"]
    # a metric whose measured coverage falls short of the stated rate says so
    short = [m for m in WITH_ERROR if SAMPLING_COVERAGE.get(m, 0.0) < SAMPLING_LEVEL]
    for m in short:
        assert "below 95%" in sampling_note(m) and f"{m} ±" in repr(res)
        assert "below 95%" in repr(res).split(f"{m} ±", 1)[1].split(",", 1)[0]
        assert "below 95%" in errors["notes"][m]
    # the summary frame of the table
    table = full_table(acc._state())
    assert set(table.sampling_error) == set(WITH_ERROR)


def test_pandas_results_have_no_sampling_error():
    res = _binary(11, 500).calib(y="y", proba="p").evaluate()
    assert "sampling_error" not in res.data and "±" not in res._repr_html_()


def test_debiased_ece_on_the_sample_equals_pandas_when_the_sample_is_the_group():
    df = _binary(12, 2500)
    acc = Accumulator(y="y", proba="p", sample_size=2500)
    acc.update(df)
    want = debiased.debiased_ece(df["p"], df["y"])
    assert acc.summary()["debiased_ece"] == pytest.approx(want, rel=1e-12)


def test_small_coverage_check():
    # 20 simple random samples of 1,000 rows from 200,000: the 95 % statement holds
    # in most of them (fixed seeds; the measured rates are in benchmarks/RESULTS.md)
    rng = np.random.default_rng(13)
    n_all = 200_000
    p = rng.beta(2.0, 2.0, n_all)
    full = ConfidenceProfile.from_arrays((rng.random(n_all) < p**1.3).astype(int), p)
    names = ["debiased_ece", "tce_bpm"]
    settings = Settings()

    def values(prof):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return {m: float(REGISTRY[m].compute(prof, settings, MetricCache())) for m in names}

    truth = values(full)
    hits = dict.fromkeys(names, 0)
    for d in range(20):
        sample = full.take(np.sort(rng.choice(n_all, 1000, replace=False)))
        got = values(sample)
        h = sample_errors(sample, n_all, got, settings, seed=d)
        for m in names:
            hits[m] += abs(got[m] - truth[m]) <= h[m]
    assert all(hits[m] >= 16 for m in names), hits


def test_report_prints_the_sampling_error_beside_the_value():
    df = _binary(14, 6000)
    acc = Accumulator(y="y", proba="p", sample_size=1000, top_errors=5)
    acc.update(df)
    rep = acc.report()
    h = acc.evaluate().data["sampling_error"]["by_group"]["all"]["corp_mcb"]
    md = rep.to_markdown()
    line = next(x for x in md.splitlines() if x.startswith("| CORP miscalibration"))
    assert "on a sample; 95% sampling error" in line and "±" in line.split("|")[2]
    assert h > 0 and "Sampling errors" in md


def test_calibration_error_out_of_core_prints_its_sampling_error():
    # ICI, E50, E90 and Emax come from the sample's LOWESS curve: each gets the same
    # 95 % sampling error as the registry's sampled metrics, 0 when the group fits
    df = _binary(11, 6000)
    acc = Accumulator(y="y", proba="p", by="g", sample_size=1500).update(df)
    got = acc.calibration_error()
    for m in ("ici", "e50", "e90", "emax"):
        h = got[f"{m}_sampling_error"].to_numpy()
        assert np.isfinite(h).all() and (h > 0).all(), m
        assert got.attrs["sampling_error"][m].startswith("95% sampling error")
    assert "below 95%" in got.attrs["sampling_error"]["emax"]  # measured 87.5 %
    whole = Accumulator(y="y", proba="p", by="g", sample_size=10_000).update(df)
    fits = whole.calibration_error()
    assert (fits[[f"{m}_sampling_error" for m in ("ici", "e50", "e90", "emax")]] == 0).all().all()
    ref = df.groupby("g").calib(y="y", proba="p").calibration_error()
    np.testing.assert_allclose(fits["ici"], ref["ici"], rtol=1e-9)
    # the half-width is the one sample_errors gives for these values (one definition)
    from calreport.metrics import calibration_index
    from calreport.stats.config import key_seed
    from calreport.stats.frames import calibration_error_frame
    from calreport.stats.sampled import sample_profiles

    st = StatsState.from_profile(ConfidenceProfile.from_arrays(df["y"], df["p"]),
                                 config=StatsConfig(sample_size=1500))
    one = calibration_error_frame(st, ())
    prof = sample_profiles(st)[st.keys[0]]

    def compute(p):
        r = calibration_index.calibration_error_summary(*p.view(None))
        return {"ici": r.ici, "emax": r.emax}

    want = sample_errors(prof, len(df), compute(prof), None,
                         key_seed(st.config.seed, ("sampling error", st.keys[0])),
                         compute=compute)
    assert one["ici_sampling_error"] == pytest.approx(want["ici"], rel=1e-12)
    assert one["emax_sampling_error"] == pytest.approx(want["emax"], rel=1e-12)
