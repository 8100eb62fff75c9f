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


@pytest.fixture(scope="module")
def frames():
    rng = np.random.default_rng(11)
    n = 5000
    p = rng.random(n)
    y = (rng.random(n) < p**1.2).astype(int)
    df = pl.DataFrame({"y": y, "proba": p, "model": rng.choice(["a", "b", "c"], n),
                       "site": rng.integers(0, 2, n), "w": rng.gamma(2.0, 1.5, n)})
    return df, df.to_pandas()


def _assert_frame_equal(got, ref, cols, by=()):
    """Polars result (group keys as columns) against the pandas one (keys as index)."""
    if by:
        keys = [tuple(r) if len(by) > 1 else r[0] for r in got.select(list(by)).rows()]
        assert keys == list(ref.index)
    for c in cols:
        np.testing.assert_allclose(got[c].to_numpy().astype(float),
                                   np.asarray(ref[c], dtype=float), rtol=1e-12, atol=1e-14,
                                   err_msg=c)


def test_polars_risk_scores_reliability_equal_pandas(frames):
    df, pdf = frames
    risk = df.calib.risk(by="model")
    ref = pdf.drop(columns=["site", "w"]).groupby("model").calib.risk()
    _assert_frame_equal(risk, ref, ["n", "csr", "sigma_csr", "z_csr"], ("model",))
    assert risk["band"].to_list() == list(ref["band"])
    sc = df.calib(y="y", proba="proba").scores(by=["model", "site"])
    ref = pdf.groupby(["model", "site"]).calib(y="y", proba="proba").scores()
    _assert_frame_equal(sc, ref, ["top_label_brier", "sharpness", "murphy_reliability",
                                  "murphy_resolution", "murphy_uncertainty"],
                        ("model", "site"))
    rel = df.calib(y="y", proba="proba").reliability(n_bins=10)
    ref = pdf.calib(y="y", proba="proba").reliability(n_bins=10)
    assert rel.height == 10
    _assert_frame_equal(rel, ref, ["count", "mean_score", "mean_outcome", "gap"])


def test_polars_calibration_tests_and_error_equal_pandas(frames):
    df, pdf = frames
    got = df.calib(y="y", proba="proba").calibration_tests(by="model")
    ref = pdf.groupby("model").calib(y="y", proba="proba").calibration_tests()
    _assert_frame_equal(got, ref, ["hl_statistic", "hl_df", "hl_pvalue", "spiegelhalter_z",
                                   "spiegelhalter_pvalue"], ("model",))
    # every group (about 1,700 rows) fits in the sample: the pandas LOWESS values
    got = df.calib(y="y", proba="proba").calibration_error(by="model", sample_size=5000)
    ref = pdf.groupby("model").calib(y="y", proba="proba").calibration_error()
    _assert_frame_equal(got, ref, ["ici", "e50", "e90", "emax"], ("model",))


def test_polars_quantile_bins_exact_auc_and_weights_equal_pandas(frames):
    from sklearn.metrics import roc_auc_score

    df, pdf = frames
    got = df.calib(y="y", proba="proba").summary(by="model", strategy="quantile",
                                                 exact_auc=True)
    ref = pdf.groupby("model").calib(y="y", proba="proba").summary(strategy="quantile")
    _assert_frame_equal(got, ref, ["ece", "mce", "signed_ece", "accuracy", "brier"],
                        ("model",))
    for key, part in pdf.groupby("model"):
        auc = got.filter(pl.col("model") == key)["auc"][0]
        assert auc == pytest.approx(roc_auc_score(part["y"], part["proba"]), rel=1e-12)
    got = df.calib(y="y", proba="proba", weight="w").summary(by="model")
    ref = pdf.groupby("model").calib(y="y", proba="proba", weight="w").summary()
    _assert_frame_equal(got, ref, ["accuracy", "cwa", "csr", "z_csr", "ece", "brier",
                                   "log_loss"], ("model",))
    with pytest.raises(ValueError, match="strategy"):
        df.calib(y="y", proba="proba").summary(strategy="equal")


def test_polars_report_matches_the_pandas_verdicts(frames):
    df, pdf = frames
    rep = df.calib(y="y", proba="proba").report(by="model", sample_size=5000)
    # without intervals, as the Polars report by default: the verdicts come from the
    # risk statistics, not the bootstrap (whose 1,000 replicates cost the pandas
    # report 15 of its 18 CPU seconds here)
    ref = pdf.groupby("model").calib(y="y", proba="proba").report(ci=None)
    got = {g["name"]: g["band"] for g in rep.context["groups"]}
    want = {g["name"]: g["band"] for g in ref.context["groups"]}
    assert got == want and set(got) == {"a", "b", "c"}
    assert "Polars" in rep.to_html()


def test_polars_unknown_group_column_names_it(frames):
    df, _ = frames
    with pytest.raises(ValueError, match=r"`by` names column\(s\) \['nope'\]"):
        df.calib(y="y", proba="proba").summary(by="nope")


def test_polars_weighted_quantile_bins_and_hosmer_lemeshow(frames):
    df, pdf = frames
    got = df.calib(y="y", proba="proba", weight="w")
    ref = pdf.groupby("model").calib(y="y", proba="proba", weight="w")
    _assert_frame_equal(got.summary(by="model", strategy="quantile"),
                        ref.summary(strategy="quantile"), ["ece", "mce", "signed_ece"],
                        ("model",))
    t, want = got.calibration_tests(by="model"), ref.calibration_tests()
    np.testing.assert_allclose(t["hl_statistic"].to_numpy(), want["hl_statistic"],
                               rtol=1e-11)


def _assert_same(got, ref):
    """Same columns, group labels, values and reasons, exactly."""
    from polars.testing import assert_frame_equal

    assert_frame_equal(got, ref, check_exact=True)


def test_polars_lazyframe_equals_dataframe_by(frames):
    df, _ = frames
    lf = df.lazy()
    for roles in ({}, {"y": "y", "proba": "proba", "weight": "w"}):
        got, ref = lf.calib(**roles), df.calib(**roles)
        _assert_same(got.summary(by="model"), ref.summary(by="model"))
        _assert_same(got.risk(by=["model", "site"]), ref.risk(by=["model", "site"]))
        _assert_same(got.reliability(by="model", n_bins=5),
                     ref.reliability(by="model", n_bins=5))
    _assert_same(lf.calib.scores(), df.calib.scores())
    _assert_same(lf.calib.calibration_tests(by="site"), df.calib.calibration_tests(by="site"))


def test_polars_group_by_equals_dataframe_by(frames):
    df, _ = frames
    gb = df.group_by("model").calib(y="y", proba="proba")
    ref = df.calib(y="y", proba="proba")
    _assert_same(gb.summary(), ref.summary(by="model"))
    _assert_same(gb.risk(), ref.risk(by="model"))
    _assert_same(gb.reliability(n_bins=5), ref.reliability(by="model", n_bins=5))
    # several keys, as names, a list or column expressions; roles inferred
    two = df.calib.summary(by=["model", "site"])
    _assert_same(df.group_by("model", "site").calib.summary(), two)
    _assert_same(df.group_by(["model", pl.col("site")]).calib.summary(), two)
    _assert_same(df.group_by("model").calib(y="y", proba="proba", weight="w").risk(),
                 df.calib(y="y", proba="proba", weight="w").risk(by="model"))


def test_polars_group_by_refuses_by_and_computed_keys(frames):
    df, _ = frames
    with pytest.raises(TypeError, match=r"takes no `by=`.*df\.calib\.summary\(by="):
        df.group_by("model").calib.summary(by="site")
    with pytest.raises(ValueError, match="column names"):
        df.group_by(pl.col("site") + 1).calib.summary()
    with pytest.raises(ValueError, match="named keys"):
        df.group_by(m="model").calib.summary()


def test_polars_scan_parquet_reads_only_the_used_columns(frames, tmp_path):
    df, _ = frames
    small = df.head(600)
    wide = small.with_columns([pl.lit(float(i)).alias(f"f{i}") for i in range(40)],
                              text=pl.lit("not a number"))
    wide.write_parquet(tmp_path / "wide.parquet")
    # an unused column that fails as soon as it is collected: collecting every column
    # raises, so the calls below work only if just the used columns are read
    lf = pl.scan_parquet(tmp_path / "wide.parquet").with_columns(
        bad=pl.col("text").cast(pl.Int64, strict=True))
    with pytest.raises(pl.exceptions.InvalidOperationError):
        lf.collect()
    _assert_same(lf.calib.summary(by="model"), small.calib.summary(by="model"))
    _assert_same(lf.calib(y="y", proba="proba", weight="w").risk(by="site"),
                 small.calib(y="y", proba="proba", weight="w").risk(by="site"))


def test_polars_lazyframe_bad_column_names_it(frames):
    lf = frames[0].lazy()
    with pytest.raises(ValueError, match="Unknown column 'nope' for `proba`"):
        lf.calib(y="y", proba="nope").summary()
    with pytest.raises(ValueError, match=r"`by` names column\(s\) \['nope'\].*LazyFrame"):
        lf.calib(y="y", proba="proba").risk(by="nope")
    with pytest.raises(ValueError, match="Name the columns explicitly"):
        pl.LazyFrame({"a": [1.0], "b": [0]}).calib.summary()


def test_polars_results_carry_kinds_and_reasons(frames):
    # what the result says beside its numbers: the same attrs as the Dask result
    dd = pytest.importorskip("dask.dataframe")
    from calreport import dask as calreport_dask

    calreport_dask.register()
    df, pdf = frames
    got = df.calib(y="y", proba="proba").summary(by="model")
    ref = dd.from_pandas(pdf, npartitions=3).groupby("model").calib(
        y="y", proba="proba").summary()
    assert got.attrs["kinds"] == ref.attrs["kinds"]
    assert got.attrs["kinds"]["auc"] == "bounded" and got.attrs["kinds"]["lcs"] == "sampled"
    assert got.attrs["dropped"] == ref.attrs["dropped"]
    assert "sample_size=20000" in got.attrs["dropped"]["lcs"]  # no sample: NaN, and why
    assert got.attrs["reasons"]["lcs"] == ref.attrs["reasons"]["lcs"]
    # the other tables too, and through LazyFrame and group_by
    assert "sampled" in df.calib(y="y", proba="proba").calibration_error(
        by="model", sample_size=500).attrs
    assert df.lazy().calib(y="y", proba="proba").summary(by="model").attrs["kinds"] \
        == got.attrs["kinds"]
    assert df.group_by("model").calib(y="y", proba="proba").summary().attrs["dropped"] \
        == got.attrs["dropped"]
