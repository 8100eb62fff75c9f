"""The pandas accessors: results equal the core, pandas group semantics, no mutation."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import calreport  # noqa: F401  (registers the accessors)
from calreport import ConfidenceProfile
from calreport.registry import REGISTRY as METRICS
from calreport.summary import summarize

SCALARS = [m for m in METRICS if m not in ("lcs", "tce_bpm")]


def binary_frame(n=400, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, n)
    y = (rng.random(n) < p ** 1.3).astype(int)
    return pd.DataFrame({
        "y_true": y,
        "proba": p,
        "model": rng.choice(["m1", "m2", "m3"], n),
        "site": rng.choice(["north", "south"], n),
    })


def multiclass_frame(n=300, k=4, seed=1):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, k)) * 2
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=row) for row in p])
    df = pd.DataFrame(p, columns=[f"proba_{c}" for c in "abcd"[:k]])
    df.insert(0, "label", np.array(list("abcd"))[y])
    df["model"] = rng.choice(["x", "y"], n)
    return df


# --------------------------------------------------------------------------- equality
@pytest.mark.parametrize("name", SCALARS)
def test_binary_scalar_equals_core(name):
    df = binary_frame()
    prof = ConfidenceProfile.from_arrays(df["y_true"].to_numpy(), df["proba"].to_numpy())
    expected = summarize(prof, metrics=[name]).values[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = getattr(df.calib, name)()
    assert isinstance(got, float)
    assert got == pytest.approx(expected, nan_ok=True, rel=1e-12, abs=1e-15)


def test_core_functions_directly():
    from calreport.metrics import binned, ranking, risk, selective, weighted

    df = binary_frame()
    y = df["y_true"].to_numpy()
    p = df["proba"].to_numpy()
    conf = np.maximum(p, 1 - p)
    correct = (p >= 0.5).astype(int) == y
    assert df.calib.csr() == pytest.approx(risk.csr(conf, correct))
    assert df.calib.cwa() == pytest.approx(weighted.cwa(conf, correct))
    assert df.calib.ece() == pytest.approx(binned.ece(p, y, n_bins=15))
    assert df.calib.ece(view="top_label") == pytest.approx(binned.ece(conf, correct))
    assert df.calib.cwsa(tau=0.7) == pytest.approx(selective.cwsa(conf, correct, tau=0.7))
    assert df.calib.auc() == pytest.approx(ranking.weighted_auc(y, p))


def test_multiclass_scalars_and_inference():
    df = multiclass_frame()
    cols = [c for c in df.columns if c.startswith("proba_")]
    prof = ConfidenceProfile.from_arrays(df["label"], df[cols].to_numpy(),
                                         classes=["a", "b", "c", "d"])
    ref = summarize(prof).values
    got = df.calib.summary()
    for name in ("accuracy", "cwa", "csr", "auc", "cwauc", "brier", "log_loss", "ece"):
        assert got[name] == pytest.approx(ref[name], rel=1e-12), name
    explicit = df.calib(y="label", proba={"a": "proba_a", "b": "proba_b", "c": "proba_c",
                                          "d": "proba_d"}).summary()
    pd.testing.assert_series_equal(explicit.drop(["lcs", "tce_bpm"]),
                                   got.drop(["lcs", "tce_bpm"]))


def test_conf_correct_profile():
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"confidence": rng.uniform(0.5, 1, 200)})
    df["correct"] = rng.random(200) < df["confidence"]
    s = df.calib.summary()
    assert s["accuracy"] == pytest.approx(df["correct"].mean())
    assert math.isnan(s["auc"]) and "probabilities" in s.attrs["reasons"]["auc"]


# --------------------------------------------------------------------------- groupby
def test_groupby_equals_subsets():
    df = binary_frame(n=600)
    g = df.groupby("model").calib.summary()
    assert list(g.index) == ["m1", "m2", "m3"]
    assert g.index.name == "model"
    for key in g.index:
        sub = df[df["model"] == key].calib.summary()
        pd.testing.assert_series_equal(g.loc[key].rename(None), sub.rename(None),
                                       check_names=False)


def test_groupby_scalar_series():
    df = binary_frame(n=600)
    s = df.groupby("model").calib.csr()
    assert isinstance(s, pd.Series) and list(s.index) == ["m1", "m2", "m3"]
    for key, val in s.items():
        assert val == pytest.approx(df[df["model"] == key].calib.csr())


def test_groupby_several_keys_and_sort():
    df = binary_frame(n=600)
    g = df.groupby(["site", "model"]).calib.accuracy()
    assert g.index.names == ["site", "model"]
    exp = df.assign(ok=(df["proba"] >= 0.5).astype(int) == df["y_true"]).groupby(
        ["site", "model"])["ok"].mean()
    pd.testing.assert_series_equal(g, exp, check_names=False)
    unsorted = df.groupby("model", sort=False).calib.accuracy()
    assert list(unsorted.index) == list(pd.unique(df["model"]))


@pytest.mark.parametrize("observed", [True, False])
def test_groupby_categorical_observed(observed):
    df = binary_frame(n=300)
    df["model"] = pd.Categorical(df["model"], categories=["m1", "m2", "m3", "unused"])
    out = df.groupby("model", observed=observed).calib.summary(["accuracy", "csr"])
    if observed:
        assert list(out.index) == ["m1", "m2", "m3"]
    else:
        assert list(out.index) == ["m1", "m2", "m3", "unused"]
        assert out.loc["unused", "n"] == 0
        assert math.isnan(out.loc["unused", "csr"])
        assert out.attrs["reasons"][("unused", "csr")] == "empty group"


def test_groupby_dropna_false_keeps_nan_group():
    df = binary_frame(n=300)
    df.loc[:20, "site"] = None
    kept = df.groupby("site", dropna=False).calib.accuracy()
    assert len(kept) == 3 and kept.index.isna().sum() == 1
    dropped = df.groupby("site").calib.accuracy()
    assert len(dropped) == 2


def test_small_and_single_class_groups_give_nan_with_reason():
    df = binary_frame(n=300)
    df.loc[df["model"] == "m3", "y_true"] = 1
    out = df.groupby("model").calib.summary()
    assert math.isnan(out.loc["m3", "auc"])
    assert ("m3", "auc") in out.attrs["reasons"]
    assert not math.isnan(out.loc["m1", "auc"])


def test_group_keys_are_never_role_candidates():
    df = binary_frame(n=200).rename(columns={"model": "label"})
    # "label" would be a y candidate besides y_true; as a group key it is excluded
    out = df.groupby("label").calib.accuracy()
    assert len(out) == 3
    with pytest.raises(ValueError, match="Ambiguous `y` column"):
        df.calib.accuracy()


# --------------------------------------------------------------------------- inference
@pytest.mark.parametrize("y_name", ["y_true", "y", "label", "target"])
def test_y_conventions(y_name):
    df = binary_frame(n=100)[["y_true", "proba"]].rename(columns={"y_true": y_name})
    assert df.calib.roles().y == y_name


def test_pred_conf_convention():
    df = pd.DataFrame({"y_true": [0, 1, 1, 2], "y_pred": [0, 1, 2, 2],
                       "confidence": [0.9, 0.8, 0.6, 0.7]})
    assert df.calib.accuracy() == 0.75
    assert df.calib.cwa() == pytest.approx((0.9 + 0.8 + 0.7) / 3.0)


def test_absence_lists_found_and_shows_call():
    df = pd.DataFrame({"a": [1, 2], "b": [0.1, 0.2]})
    with pytest.raises(ValueError, match=r"Could not infer.*df\.calib\(y="):
        df.calib.accuracy()


def test_ambiguous_proba():
    df = pd.DataFrame({"y": [0, 1], "proba": [0.2, 0.7], "proba_1": [0.7, 0.2]})
    with pytest.raises(ValueError, match="Ambiguous probability columns"):
        df.calib.accuracy()


def test_unknown_column_error():
    df = binary_frame(n=50)
    with pytest.raises(ValueError, match="Unknown column 'nope' for `y`"):
        df.calib(y="nope", proba="proba")


def test_bad_values_name_column_and_count():
    df = binary_frame(n=50)
    df.loc[[3, 7, 9], "proba"] = 1.5
    with pytest.raises(ValueError, match=r"`proba` has 3 values outside \[0, 1\]"):
        df.calib.csr()


def test_missing_raise_and_drop():
    df = binary_frame(n=100)
    df.loc[[1, 2], "proba"] = np.nan
    with pytest.raises(ValueError, match=r"`proba` has 2 missing values.*missing='drop'"):
        df.calib.accuracy()
    s = df.calib(y="y_true", proba="proba", missing="drop").summary(["accuracy"])
    assert s["n"] == 98 and s["n_dropped"] == 2
    g = df.groupby("model").calib(y="y_true", proba="proba", missing="drop").summary(
        ["accuracy"])
    assert g["n_dropped"].sum() == 2 and g["n"].sum() == 98


# --------------------------------------------------------------------------- no mutation
def _snapshot(df):
    return df.copy(deep=True), df.dtypes.copy(), df.index.copy(), list(df.columns)


def _assert_unchanged(df, snap):
    copy, dtypes, index, cols = snap
    pd.testing.assert_frame_equal(df, copy)
    pd.testing.assert_series_equal(df.dtypes, dtypes)
    pd.testing.assert_index_equal(df.index, index)
    assert list(df.columns) == cols


def test_frame_never_mutated():
    df = binary_frame(n=300)
    df.index = pd.Index(np.arange(300)[::-1] * 3, name="row")
    snap = _snapshot(df)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df.calib.summary(ci=0.9, n_boot=20, seed=1)
        df.calib.risk()
        df.calib.reliability()
        df.calib.selective()
        df.calib.cw_confusion()
        df.groupby("model").calib.summary(ci=0.9, n_boot=20, seed=1)
        df.groupby("model").calib.reliability()
        df.calib(y="y_true", proba="proba", missing="drop").accuracy()
    _assert_unchanged(df, snap)


def test_nullable_dtypes():
    base = binary_frame(n=200)
    df = pd.DataFrame({
        "y_true": base["y_true"].astype("Int64"),
        "proba": base["proba"].astype("Float64"),
        "model": base["model"].astype("string"),
    })
    ref = base.calib.summary(["accuracy", "csr", "ece", "auc"])
    got = df.calib.summary(["accuracy", "csr", "ece", "auc"])
    pd.testing.assert_series_equal(got, ref)
    snap = _snapshot(df)
    df.groupby("model").calib.accuracy()
    _assert_unchanged(df, snap)
    # category and string labels, boolean correctness
    cat = pd.DataFrame({"y_true": pd.Categorical(np.where(base["y_true"] == 1, "pos", "neg")),
                        "proba": base["proba"]})
    got = cat.calib(pos_label="pos").summary(["accuracy", "auc"])
    assert got["accuracy"] == pytest.approx(ref["accuracy"])
    assert got["auc"] == pytest.approx(ref["auc"])
    conf = pd.DataFrame({"conf": pd.array(np.maximum(base["proba"], 1 - base["proba"]),
                                          dtype="Float64"),
                         "correct": pd.array((base["proba"] >= 0.5) == (base["y_true"] == 1),
                                             dtype="boolean")})
    assert conf.calib.csr() == pytest.approx(base.calib.csr())
    with_na = df.copy()
    with_na.loc[5, "y_true"] = pd.NA
    with pytest.raises(ValueError, match="`y_true` has 1 missing label"):
        with_na.calib.accuracy()


def test_structured_results():
    df = binary_frame(n=300)
    r = df.calib.risk()
    assert r["csr"] == pytest.approx(df.calib.csr())
    rel = df.calib.reliability(n_bins=10)
    assert len(rel) == 10 and rel.attrs["view"] == "positive"
    assert rel["count"].sum() == 300
    sel = df.calib.selective()
    assert sel.index.name == "tau"
    conf = df.calib.cw_confusion()
    assert list(conf.index) == [0, 1]
    grel = df.groupby("model").calib.reliability(n_bins=5)
    assert grel.index.names == ["model", "bin"]
    gr = df.groupby("model").calib.risk()
    assert list(gr.index) == ["m1", "m2", "m3"]


def test_accessor_is_cheap_and_stateless():
    df = binary_frame(n=50)
    a = df.calib
    assert a._role_kw == {}
    b = df.calib(y="y_true", proba="proba")
    assert b is not a and df.calib._role_kw == {}


@pytest.mark.parametrize("sort", [True, False])
def test_group_rows_match_pandas_iteration(sort):
    """Groups are cut from the one validated profile exactly as pandas forms them."""
    from calreport.accessor import GroupByCalibAccessor

    df = binary_frame(n=200)
    df.loc[:10, "site"] = None
    gb = df.groupby(["site", "model"], sort=sort, dropna=False)
    split = GroupByCalibAccessor(gb)._split()
    assert list(split.index) == list(gb.size().index)
    codes = gb.ngroup().to_numpy()
    for i, g in enumerate(split.groups):
        np.testing.assert_array_equal(split.row_labels[g.rows],
                                      df.index[codes == i])


def test_classification_metrics_match_core():
    from calreport.metrics import weighted

    df = multiclass_frame()
    out = df.calib.classification_metrics(average="weighted")
    prof = df.calib.profile()
    ref = weighted.classification_metrics(prof.y_true, prof.y_pred, prof.conf, n_classes=4,
                                          average="weighted")
    assert out[("cw", "f1")] == pytest.approx(ref["f1"])
    assert out[("classical", "accuracy")] == pytest.approx(df.calib.accuracy())
    g = df.groupby("model").calib.classification_metrics()
    sub = df[df["model"] == "x"].calib.classification_metrics()
    pd.testing.assert_series_equal(g.loc["x"], sub, check_names=False)


def test_calibration_tests_and_error_match_core():
    from calreport.metrics import calibration_index, clinical

    df = binary_frame(n=600)
    out = df.calib.calibration_tests()
    y, p = df["y_true"].to_numpy(), df["proba"].to_numpy()
    assert out["hl_statistic"] == pytest.approx(clinical.hosmer_lemeshow(p, y).statistic)
    assert out["spiegelhalter_z"] == pytest.approx(clinical.spiegelhalter_z(p, y).z)
    assert out["cox_slope"] == pytest.approx(clinical.cox_calibration(p, y).slope)
    err = df.calib.calibration_error()
    assert err["ici"] == pytest.approx(calibration_index.calibration_error_summary(p, y).ici)
    g = df.groupby("model").calib.calibration_tests()
    assert list(g.index) == ["m1", "m2", "m3"]
    assert g.loc["m2", "cox_slope"] == pytest.approx(
        df[df["model"] == "m2"].calib.calibration_tests()["cox_slope"])


def test_summary_resampling_option_is_passed_through():
    df = binary_frame(n=300)
    a = df.calib.summary(["accuracy"], ci=0.9, n_boot=50, seed=0)
    b = df.calib.summary(["accuracy"], ci=0.9, n_boot=50, seed=0, resampling="poisson")
    assert a.attrs["ci"]["resampling"] == "multinomial"
    assert b.attrs["ci"]["resampling"] == "poisson"
    assert a.loc["accuracy", "value"] == b.loc["accuracy", "value"]
    assert a.loc["accuracy", "ci_low"] != b.loc["accuracy", "ci_low"]
    g = df.groupby("model").calib.summary(["accuracy"], ci=0.9, n_boot=50, seed=0,
                                          resampling="poisson")
    assert g.attrs["ci"]["resampling"] == "poisson"
    with pytest.raises(ValueError, match="`resampling` must be one of"):
        df.calib.summary(["accuracy"], ci=0.9, n_boot=50, resampling="jackknife")


def test_scores_match_core():
    from calreport.metrics import scoring, selective

    df = binary_frame(n=500)
    prof = df.calib.profile()
    out = df.calib.scores(n_bins=10)
    assert out["top_label_brier"] == pytest.approx(
        scoring.top_label_brier(prof.conf, prof.correct))
    assert out["sharpness"] == pytest.approx(np.var(prof.conf))
    assert out["e_aurc"] == pytest.approx(selective.e_aurc(prof.conf, prof.correct))
    m = scoring.murphy_decomposition(prof.score, prof.y_true, n_bins=10)
    assert out["murphy_resolution"] == pytest.approx(m["resolution"])
    g = df.groupby("model").calib.scores()
    assert g.loc["m1", "sharpness"] == pytest.approx(
        df[df["model"] == "m1"].calib.scores()["sharpness"])


def test_classes_and_pos_label_that_disagree_raise():
    """classes=[0, 1] makes 1 positive; pos_label=0 says otherwise: it was ignored."""
    df = pd.DataFrame({"y": [0, 1, 1, 0], "p": [0.2, 0.8, 0.6, 0.3]})
    with pytest.raises(ValueError, match=r"classes=\[0, 1\] makes 1 the positive class .* "
                                         r"pos_label=0"):
        df.calib(y="y", proba="p", classes=[0, 1], pos_label=0).accuracy()
    assert df.calib(y="y", proba="p", classes=[0, 1], pos_label=1).accuracy() == 1.0
    assert df.calib(y="y", proba="p", classes=[1, 0], pos_label=0).accuracy() == 0.0


def test_classes_that_contradict_the_column_names_raise():
    """proba_cat/proba_dog/proba_emu with classes=['dog', 'cat', 'emu']: the classes
    silently overrode the names (accuracy 0.74 -> 0.32); unnamed columns keep classes."""
    rng = np.random.default_rng(0)
    probs = rng.dirichlet([1, 1, 1], 60)
    y = np.array(["cat", "dog", "emu"])[probs.argmax(1)]
    cols = ["proba_cat", "proba_dog", "proba_emu"]
    df = pd.DataFrame({"y": y, **dict(zip(cols, probs.T, strict=True))})
    with pytest.raises(ValueError, match=r"maps the column 'proba_cat' to 'dog'.*"
                                         r"classes=\['cat', 'dog', 'emu'\]"):
        df.calib(y="y", proba=cols, classes=["dog", "cat", "emu"]).accuracy()
    assert df.calib(y="y", proba=cols, classes=["cat", "dog", "emu"]).accuracy() == 1.0
    plain = df.rename(columns=dict(zip(cols, ["s1", "s2", "s3"], strict=True)))
    got = plain.calib(y="y", proba=["s1", "s2", "s3"], classes=["dog", "cat", "emu"])
    assert got.accuracy() < 1.0  # unnamed columns: classes= is the only declaration
