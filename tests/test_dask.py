"""Dask accessor: the pandas numbers, whatever the partitioning, on a LocalCluster."""

import numpy as np
import pandas as pd
import pytest
from _profiles import labelled_frame
from sklearn.metrics import roc_auc_score

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import calreport  # noqa: E402, F401
from calreport import dask as calreport_dask  # noqa: E402
from calreport.stats import KINDS  # noqa: E402

calreport_dask.register()
pytestmark = pytest.mark.filterwarnings("ignore::calreport.metrics.risk.ClippedConfidenceWarning")

EXACT = [m for m, k in KINDS.items() if k == "exact"]


@pytest.fixture(scope="module")
def frame():
    return labelled_frame(0, 6000, 1.3, ["a", "b", "c"])


def _pandas_values(df):
    return df.calib.summary()


def _close(got, ref, names):
    for name in names:
        if name in ref.index:
            assert got[name] == pytest.approx(ref[name], rel=1e-12, abs=1e-12), name


def test_overall_equals_pandas_on_local_cluster(client, frame):
    got = dd.from_pandas(frame, npartitions=7).calib.summary()
    ref = frame.calib.summary()
    _close(got, ref, EXACT)
    auc = roc_auc_score(frame["y"], frame["proba"])
    assert abs(got["auc"] - auc) <= got["auc_bound"]
    assert got.attrs["kinds"]["auc"] == "bounded"


def test_grouped_equals_pandas(client, frame):
    got = dd.from_pandas(frame, npartitions=5).groupby("g").calib.summary()
    ref = frame.groupby("g").calib.summary()
    assert list(got.index) == list(ref.index) == ["a", "b", "c"]
    for key in ref.index:
        _close(got.loc[key], ref.loc[key], EXACT)
        sub = frame[frame["g"] == key]
        assert abs(got.loc[key, "auc"] - roc_auc_score(sub["y"], sub["proba"])) <= \
            got.loc[key, "auc_bound"]


@pytest.fixture(scope="module")
def base_ci(frame):
    return dd.from_pandas(frame, npartitions=3).groupby("g").calib.summary(ci=0.9, n_boot=30)


@pytest.mark.parametrize("nparts", [1, 7, 64])
def test_independent_of_partition_count(client, frame, base_ci, nparts):
    got = dd.from_pandas(frame, npartitions=nparts).groupby("g").calib.summary(ci=0.9,
                                                                                n_boot=30)
    values = [c for c in got.columns if c[1] == "value" and c[0] != "smece"]
    # point values: exact sums, identical to the last bit
    pd.testing.assert_frame_equal(got[values], base_ci[values], check_exact=True)
    # the smooth ECE's node masses are float64 sums: equal up to their order of addition
    np.testing.assert_allclose(got[("smece", "value")], base_ci[("smece", "value")],
                               rtol=1e-13, atol=1e-15)
    # Poisson intervals: counter-based streams, the same replicates (float sums)
    pd.testing.assert_frame_equal(got, base_ci, rtol=1e-12)


def test_independent_of_row_and_partition_order(frame):
    shuffled = frame.sample(frac=1.0, random_state=1).reset_index(drop=True)
    a = dd.from_pandas(frame, npartitions=4).groupby("g").calib.summary()
    b = dd.from_pandas(shuffled, npartitions=9).groupby("g").calib.summary()
    # exact sums are order-independent: identical up to the last bit; the smooth ECE's
    # node masses are float64 sums, equal up to their order of addition
    pd.testing.assert_frame_equal(a.drop(columns="smece"), b.drop(columns="smece"),
                                  check_exact=True)
    np.testing.assert_allclose(a["smece"], b["smece"], rtol=1e-13, atol=1e-15)


def test_intervals_cover_the_value(base_ci):
    lo, hi = base_ci[("accuracy", "ci_low")], base_ci[("accuracy", "ci_high")]
    val = base_ci[("accuracy", "value")]
    assert ((lo < val) & (val < hi)).all()


def test_threaded_scheduler_by_default_and_risk_reliability(frame):
    ddf = dd.from_pandas(frame, npartitions=4)
    r = ddf.calib.risk()
    ref = frame.calib.risk()
    assert r["csr"] == pytest.approx(ref["csr"], rel=1e-12)
    rel = ddf.groupby("g").calib.reliability()
    ref_rel = frame.groupby("g").calib.reliability()
    np.testing.assert_array_equal(rel["count"].to_numpy(), ref_rel["count"].to_numpy())


def test_multiclass_explicit_roles(client):
    rng = np.random.default_rng(2)
    proba = rng.dirichlet(np.ones(3), 900)
    y = np.array([rng.choice(3, p=row) for row in proba])
    df = pd.DataFrame(proba, columns=["p_0", "p_1", "p_2"]).assign(label=y)
    got = dd.from_pandas(df, npartitions=4).calib(y="label", proba=["p_0", "p_1", "p_2"])
    ref = df.calib(y="label", proba=["p_0", "p_1", "p_2"]).summary()
    _close(got.summary(), ref, EXACT)


def test_groupby_on_series_key_raises(frame):
    ddf = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(TypeError, match="group keys as column names"):
        ddf.groupby(ddf["g"].str.upper()).calib.summary()


def test_weighted_equals_pandas_across_partitions(client, frame):
    # importance weights of very different scales in different partitions
    w = np.where(np.arange(len(frame)) < 3000, 1e-3, 50.0) * (1 + np.arange(len(frame)) % 3)
    df = frame.assign(w=w)
    got = dd.from_pandas(df, npartitions=6).calib(y="y", proba="proba", weight="w").summary()
    ref = df.calib(y="y", proba="proba", weight="w").summary()
    _close(got, ref, EXACT)


def test_grouped_report_exact_auc_and_sample_on_local_cluster(client, frame):
    ddf = dd.from_pandas(frame, npartitions=7)
    one = dd.from_pandas(frame, npartitions=1).groupby("g").calib.summary(
        exact_auc=True, sample_size=300)
    got = ddf.groupby("g").calib.summary(exact_auc=True, sample_size=300)
    pd.testing.assert_frame_equal(got, one, rtol=1e-12)  # sample independent of partitions
    for key in got.index:
        sub = frame[frame["g"] == key]
        assert got.loc[key, "auc"] == pytest.approx(roc_auc_score(sub["y"], sub["proba"]),
                                                    rel=1e-12)
        assert got.loc[key, "auc_bound"] == 0.0
    assert got.attrs["kinds"]["lcs"] == "sampled" and not got.attrs["dropped"]
    rep = ddf.groupby("g").calib.report(sample_size=300, timestamp="2026-01-01T00:00:00Z")
    ref = frame.groupby("g").calib.evaluate()
    bands = {g.name: g.band for g in ref.groups}
    assert {f["name"]: f["band"] for f in rep.context["groups"]} == bands
    notes = {n["name"]: n["text"] for n in rep.context["data"]["notes"]}
    assert "7 Dask partitions" in notes["Computed out of core"]


def test_scores_and_calibration_tests(frame):
    ddf = dd.from_pandas(frame, npartitions=3)
    s = ddf.calib.scores()
    ref = frame.calib.scores()
    assert s["murphy_reliability"] == pytest.approx(ref["murphy_reliability"], rel=1e-12)
    t = ddf.groupby("g").calib.calibration_tests()
    ref = frame.groupby("g").calib.calibration_tests()
    np.testing.assert_allclose(t["spiegelhalter_z"], ref["spiegelhalter_z"], rtol=1e-12)


def test_quantile_bins_and_hosmer_lemeshow_by_a_second_pass(frame):
    ddf = dd.from_pandas(frame, npartitions=5)
    got = ddf.groupby("g").calib.summary(strategy="quantile")
    ref = frame.groupby("g").calib.summary(strategy="quantile")
    for m in ("ece", "mce", "signed_ece"):
        np.testing.assert_allclose(got[m], ref[m], rtol=1e-12, atol=1e-15, err_msg=m)
    t = ddf.groupby("g").calib.calibration_tests()
    ref = frame.groupby("g").calib.calibration_tests()
    np.testing.assert_allclose(t["hl_statistic"], ref["hl_statistic"], rtol=1e-12)
    np.testing.assert_allclose(t["hl_pvalue"], ref["hl_pvalue"], rtol=1e-9)


@pytest.mark.parametrize("decimals", [None, 2])  # continuous scores, and heavy ties
def test_weighted_quantile_bins_and_hosmer_lemeshow(frame, decimals):
    # importance weights of different scales in different partitions, some zero
    rng = np.random.default_rng(21)
    df = frame.copy()
    if decimals is not None:
        df["proba"] = df["proba"].round(decimals)
    df["w"] = rng.gamma(2.0, 2.0, len(df)) * np.where(np.arange(len(df)) < 3000, 1e3, 1.0)
    df.loc[rng.random(len(df)) < 0.03, "w"] = 0.0
    ddf = dd.from_pandas(df, npartitions=6).groupby("g").calib(y="y", proba="proba",
                                                               weight="w")
    ref = df.groupby("g").calib(y="y", proba="proba", weight="w")
    got, want = ddf.summary(strategy="quantile"), ref.summary(strategy="quantile")
    for m in ("ece", "mce", "signed_ece"):
        np.testing.assert_allclose(got[m], want[m], rtol=1e-12, atol=1e-15, err_msg=m)
    assert not np.allclose(got["ece"], ddf.summary()["ece"])  # not the uniform bins
    t, want = ddf.calibration_tests(), ref.calibration_tests()
    assert np.isfinite(t["hl_statistic"]).all()
    np.testing.assert_allclose(t["hl_statistic"], want["hl_statistic"], rtol=1e-11)
    np.testing.assert_allclose(t["hl_df"], want["hl_df"])


def test_auc_delong_interval_and_reasons_for_the_others(client, frame):
    got = dd.from_pandas(frame, npartitions=4).groupby("g").calib.summary(ci=0.95, n_boot=40)
    ref = frame.groupby("g").calib.summary(ci=0.95, ci_method="analytic", metrics=["auc"])
    bound = got[("auc_bound", "value")]
    for side in ("ci_low", "ci_high"):
        # the pandas DeLong interval, up to the binning (bound) and its effect on the se
        diff = (got[("auc", side)] - ref[("auc", side)]).abs()
        assert (diff <= bound + 2e-5).all(), side
    assert (got[("auc", "ci_high")] - got[("auc", "ci_low")] > 0.02).all()
    why = got.attrs["no_interval"]
    assert "auc" not in why and set(why) >= {"cwauc", "aurc", "lcs", "smece"}
    assert got[("cwauc", "ci_low")].isna().all()
    from calreport._state_results import evaluate_state

    st = dd.from_pandas(frame, npartitions=3).calib.state(n_boot=20)
    result = evaluate_state(st, ci=0.9)
    g = result.groups[0]
    assert g.interval_methods["auc"].startswith("DeLong")
    assert "fine confidence histogram" in g.reasons["aurc"]


def test_bad_rows_name_their_partition_and_frequency_weights_are_counts(frame):
    bad = frame.copy()
    bad.loc[bad.index[[3, 500]], "proba"] = 1.5
    with pytest.raises(ValueError, match=r"Dask partition \d of 2 .*outside \[0, 1\]"):
        dd.from_pandas(bad, npartitions=2).calib(y="y", proba="proba").summary()
    w = frame.assign(w=np.linspace(0.5, 3.0, len(frame)))
    with pytest.raises(ValueError, match="not a whole number"):
        dd.from_pandas(w, npartitions=2).calib(y="y", proba="proba", weight="w").summary(
            weights="frequency")
