"""One grouped path: a group's numbers equal the same rows computed alone with the
same classes, for every accessor method; a group that cannot define something gets
NaN and a reason, never an exception for the whole call."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import calreport
from calreport.registry import REGISTRY


def _frame(n=600, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.02, 0.98, n)
    y = (rng.random(n) < p**1.2).astype(int)
    return pd.DataFrame({"y_true": y, "proba": p, "g": rng.choice(["a", "b", "c"], n),
                         "w": rng.uniform(0.5, 2, n)})


ROLES = dict(y="y_true", proba="proba")
STRUCTURED = {
    "risk": {}, "reliability": {"n_bins": 8}, "selective": {}, "cw_confusion": {},
    "lowess_curve": {}, "classification_metrics": {}, "calibration_tests": {},
    "calibration_error": {}, "scores": {},
}


def test_every_metric_method_grouped_equals_subset():
    df = _frame()
    gb = df.groupby("g").calib(**ROLES)
    for name in REGISTRY:
        kw = {"p_risk_method": "normal"} if name == "p_risk" else {}
        grouped = getattr(gb, name)(**kw)
        for key in grouped.index:
            alone = getattr(df[df["g"] == key].calib(**ROLES), name)(**kw)
            assert grouped[key] == pytest.approx(alone, nan_ok=True), (name, key)


@pytest.mark.parametrize("method", list(STRUCTURED))
def test_every_structured_method_grouped_equals_subset(method):
    df = _frame()
    kw = dict(STRUCTURED[method])
    if method == "risk":  # a group's own verdict; the family adjustment is tested apart
        kw["adjust"] = None
    grouped = getattr(df.groupby("g").calib(**ROLES), method)(**kw)
    for key in ("a", "b", "c"):
        alone = getattr(df[df["g"] == key].calib(**ROLES), method)(**kw)
        part = grouped.loc[key]
        if isinstance(alone, pd.Series):
            pd.testing.assert_series_equal(part.rename(None), alone.rename(None),
                                           check_names=False, check_dtype=False)
        else:
            pd.testing.assert_frame_equal(part.reset_index(drop=True),
                                          alone.reset_index(drop=True), check_dtype=False)


def test_summary_grouped_equals_subset_with_weights():
    df = _frame()
    g = df.groupby("g").calib(weight="w", **ROLES).summary(p_risk_method="normal")
    for key in g.index:
        alone = df[df["g"] == key].calib(weight="w", **ROLES).summary(p_risk_method="normal")
        np.testing.assert_allclose(g.loc[key].to_numpy(), alone.to_numpy(), rtol=1e-12,
                                   equal_nan=True)


# ------------------------------------------------------- the cases that used to differ
def test_classes_are_fixed_from_the_whole_frame():
    """Labels {1, 2}: a group holding only label 1 has the same classes as the frame."""
    df = pd.DataFrame({"y": [1, 1, 1, 2, 2, 1], "p": [0.2, 0.3, 0.1, 0.8, 0.6, 0.4],
                       "g": ["x", "x", "x", "y", "y", "y"]})
    grouped = df.groupby("g").calib(y="y", proba="p", pos_label=2).accuracy()
    alone = df[df["g"] == "x"].calib(y="y", proba="p", pos_label=2).accuracy()
    assert grouped["x"] == alone == 1.0


def test_invalid_input_raises_identically_grouped_or_not():
    """Three labels with one score column: the same error grouped and ungrouped."""
    df = pd.DataFrame({"y": list("ababbcbc"), "p": np.linspace(0.1, 0.9, 8),
                       "g": [0, 0, 0, 0, 1, 1, 1, 1]})
    with pytest.raises(ValueError) as ungrouped:
        df.calib(y="y", proba="p").accuracy()
    with pytest.raises(ValueError) as grouped:
        df.groupby("g").calib(y="y", proba="p").accuracy()
    assert str(grouped.value) == str(ungrouped.value)


def test_zero_weight_group_is_nan_with_reason():
    df = _frame()
    df.loc[df["g"] == "b", "w"] = 0.0
    out = df.groupby("g").calib(weight="w", **ROLES).summary(["accuracy", "csr", "auc"])
    assert out.loc["b"][["accuracy", "csr", "auc"]].isna().all()
    assert out.loc[["a", "c"], "accuracy"].notna().all()
    assert out.attrs["reasons"][("b", "accuracy")] == "all sample weights are zero"


def test_single_class_group_under_pos_label_is_nan_not_an_error():
    df = pd.DataFrame({"y": ["yes"] * 6 + ["no", "yes"] * 3,
                       "p": np.linspace(0.1, 0.9, 12), "g": [0] * 6 + [1] * 6})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auc = df.groupby("g").calib(y="y", proba="p", pos_label="yes").auc()
    assert np.isnan(auc[0]) and not np.isnan(auc[1])
    assert "positives and negatives" in auc.attrs["reasons"][0]


def test_small_group_in_structured_call_is_nan_with_reason():
    df = _frame()
    small = df.iloc[:10].assign(g="tiny")
    both = pd.concat([df, small], ignore_index=True)
    out = both.groupby("g").calib(**ROLES).calibration_error()
    assert out.loc[["a", "b", "c"]].notna().all().all()
    # 10 rows are too few for the LOWESS fit: NaN for that group, with the reason
    assert out.loc["tiny"].isna().all()
    assert "frac" in out.attrs["reasons"]["tiny"]


@pytest.mark.parametrize("method", ["reliability", "selective", "cw_confusion"])
def test_nan_key_with_dropna_false(method):
    df = _frame(n=300)
    df.loc[:40, "g"] = np.nan
    out = getattr(df.groupby("g", dropna=False).calib(**ROLES), method)()
    keys = out.index.get_level_values(0)
    assert keys.isna().any() and set(keys.dropna()) == {"a", "b", "c"}


def test_as_index_false_puts_keys_in_columns():
    df = _frame(n=300)
    out = df.groupby("g", as_index=False).calib(**ROLES).summary(["accuracy"])
    assert list(out.columns[:2]) == ["g", "n"] and list(out["g"]) == ["a", "b", "c"]


def test_observed_false_keeps_unobserved_categories_as_nan():
    df = _frame(n=300)
    df["g"] = pd.Categorical(df["g"], categories=["a", "b", "c", "d"])
    out = df.groupby("g", observed=False).calib(**ROLES).summary(["accuracy"])
    assert list(out.index) == ["a", "b", "c", "d"]
    assert np.isnan(out.loc["d", "accuracy"]) and out.loc["d", "n"] == 0
    assert out.attrs["reasons"][("d", "accuracy")] == "empty group"


# ------------------------------------------------------------------- determinism
def test_intervals_do_not_depend_on_group_order_or_other_groups():
    df = _frame()
    kw = dict(metrics=["accuracy", "csr", "ece"], ci=0.95, n_boot=60, seed=3,
              p_risk_method="normal")
    sorted_ = df.groupby("g", sort=True).calib(**ROLES).summary(**kw)
    unsorted = df.groupby("g", sort=False).calib(**ROLES).summary(**kw)
    pd.testing.assert_frame_equal(sorted_.sort_index(), unsorted.sort_index())
    extra = pd.concat([df, df.iloc[:50].assign(g="0first")], ignore_index=True)
    more = extra.groupby("g").calib(**ROLES).summary(**kw)
    pd.testing.assert_frame_equal(more.loc[["a", "b", "c"]], sorted_)


def test_grouped_intervals_start_from_the_segmented_values(monkeypatch):
    """With intervals, a grouped call takes its point estimates from the segmented
    path and bootstraps each group from them: the same values, intervals, methods and
    reasons as computing every group on its own rows."""
    from calreport import _engine

    df = _frame(n=900)
    df["g"] = np.arange(len(df)) % 30  # 30 groups of 30 rows: the batched kernels
    kw = dict(ci=0.9, n_boot=40, seed=5, refit=False)
    fast = df.groupby("g").calib(**ROLES).evaluate(**kw)
    monkeypatch.setattr(_engine, "_segmented", lambda *a, **k: None)
    alone = df.groupby("g").calib(**ROLES).evaluate(**kw)
    assert len(fast.groups) == len(alone.groups) == 30
    for a, b in zip(fast.groups, alone.groups, strict=True):
        assert a.values.keys() == b.values.keys()
        for m in a.values:
            assert a.values[m] == pytest.approx(b.values[m], rel=1e-9, abs=1e-12,
                                                nan_ok=True), (a.name, m)
            assert np.allclose(a.intervals.get(m, (np.nan, np.nan)),
                               b.intervals.get(m, (np.nan, np.nan)),
                               rtol=1e-9, atol=1e-12, equal_nan=True), (a.name, m)
        assert a.interval_methods == b.interval_methods
        assert a.reasons == b.reasons
        assert a.p_risk_method == b.p_risk_method


def test_colliding_display_names_stay_distinct():
    df = _frame(n=200)
    df["k"] = [1 if i % 2 else "1" for i in range(len(df))]
    split = df.groupby("k").calib(**ROLES)._split()
    names = [g.name for g in split.groups]
    assert len(set(names)) == 2


def test_warnings_once_per_call():
    df = _frame(n=900)
    df["g"] = np.arange(len(df)) % 300  # 300 groups of 3 rows
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df.groupby("g").calib(**ROLES).calibration_tests()
    assert len(caught) <= 3, [str(w.message)[:80] for w in caught]


def test_input_never_mutated():
    df = _frame()
    before = df.copy(deep=True)
    gb = df.groupby("g").calib(weight="w", **ROLES)
    gb.summary(ci=0.9, n_boot=20, seed=0)
    gb.reliability()
    df.calib(**ROLES).risk()
    pd.testing.assert_frame_equal(df, before)


def test_intervals_do_not_depend_on_row_order_with_ties():
    df = _frame(n=400)
    df["proba"] = df["proba"].round(1)  # many ties
    kw = dict(metrics=["accuracy", "auc", "ece", "aurc"], ci=0.95, n_boot=60, seed=1,
              p_risk_method="normal")
    a = df.calib(**ROLES).summary(**kw)
    b = df.sample(frac=1.0, random_state=4).calib(**ROLES).summary(**kw)
    pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-12)


def test_rare_class_keeps_the_class_set_fixed_across_replicates():
    """A class with one example drops out of some replicates: those replicates are
    degenerate (counted and warned), never averaged over fewer classes."""
    from calreport.bootstrap import DegenerateReplicateWarning

    rng = np.random.default_rng(0)
    n = 300
    y = rng.integers(0, 3, n)
    y[0] = 3  # one example of class 3
    proba = rng.dirichlet(np.ones(4), n)
    df = pd.DataFrame(proba, columns=[f"proba_{k}" for k in range(4)]).assign(y_true=y)
    with pytest.warns(DegenerateReplicateWarning, match="auc"):
        out = df.calib.summary(["auc"], ci=0.95, n_boot=100, seed=0)
    assert out.loc["auc", "ci_low"] <= out.loc["auc", "value"] <= out.loc["auc", "ci_high"]


def test_demo_isotonic_group_is_not_green():
    """154 of 228 isotonic scores are exactly 0 or 1: the verdict can no longer read
    "no evidence" (their null variance made z ~ 0 whatever the errors were)."""
    df = calreport.datasets.load_breast_cancer()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        risk = df.groupby("calibration", sort=False).calib(
            y="y_true", proba="proba_benign", pos_label="benign").risk()
    iso = risk.loc["isotonic"]
    assert iso["band"] != "no_evidence"
    assert iso["n_certain"] == 154 and iso["n_certain_wrong"] == 0
    assert 0 < iso["certain_error_upper"] < 0.05
    assert risk.loc["raw", "band"] == "risky"


@pytest.mark.parametrize(("method", "kw", "match"), [
    ("reliability", {"n_bins": 0}, "n_bins"),
    ("reliability", {"strategy": "kmeans"}, "strategy"),
    ("reliability", {"alpha": 1.5}, "alpha"),
    ("selective", {"taus": [0.2, 1.5]}, "tau"),
    ("classification_metrics", {"average": "median"}, "average"),
    ("calibration_tests", {"n_groups": 1}, "n_groups"),
    ("scores", {"view": "sideways"}, "view"),
])
def test_bad_arguments_fail_the_whole_grouped_call(method, kw, match):
    """An argument error is the caller's, not a group's: it raises, never NaN rows."""
    gb = _frame(n=300).groupby("g").calib(**ROLES)
    with pytest.raises(ValueError, match=match):
        getattr(gb, method)(**kw)


def test_rows_without_a_group_key_are_counted_and_said():
    """pandas' groupby drops rows whose key is missing: they are counted (result data,
    report) and a warning says so, never silently gone."""
    df = pd.DataFrame({"y": [0, 1, 1, 0, 1, 0], "p": [0.2, 0.8, 0.6, 0.3, 0.7, 0.4],
                       "g": ["a", "a", None, "b", "b", None]})
    with pytest.warns(UserWarning, match=r"2 row\(s\) have a missing group key"):
        res = df.groupby("g").calib(y="y", proba="p").evaluate(metrics=["accuracy"])
    assert res.data["n_no_group_key"] == 2
    assert sum(g.get("n", "value") for g in res.groups) == 4
    with pytest.warns(UserWarning, match="missing group key"):
        text = df.groupby("g").calib(y="y", proba="p").report().to_markdown()
    assert "Rows without a group key (in no group, nor in the pooled rows): 2" in text


def _zero_weight_frame():
    # group a: its most confident rows weigh 0 (a tie block of weight 0: AURC was
    # 0/0 = NaN); group b: weights 1e-300 after group a's sums of about 1 (the running
    # sums cancelled to 0); group c: 1e300 beside 1e-300 (refitted metrics and
    # calibration tests took the unscaled weights)
    return pd.DataFrame({
        "y": [1, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1, 0, 1, 1],
        "p": [.95, .9, .7, .3, .8, .6, .4, .2, .35, .9, .8, .4, .3, .6],
        "w": [0., 0., 1., 1., 1e-300, 2e-300, 1e-300, 3e-300, 1e-300,
              0., 1e300, 1., 1e-300, 2.],
        "g": list("aaaa") + list("bbbbb") + list("ccccc")})


def test_grouped_equals_subset_with_zero_and_extreme_weights():
    df = _zero_weight_frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grouped = df.groupby("g").calib(y="y", proba="p", weight="w").summary()
        for key in "abc":
            alone = df[df["g"] == key].calib(y="y", proba="p", weight="w").summary()
            for name in ("n", "n_eff", "aurc", "auc", "cwauc", "p_risk", "smece", "ece",
                         "ecce_ks_p", "tcal_p", "accuracy"):
                # atol: the 1e-151 rows' share of c's AURC (2.8e-301) is rounded away
                # by the per-subset formula's coverage steps (1 + 3e-151 == 1)
                np.testing.assert_allclose(grouped.loc[key, name], alone[name],
                                           rtol=1e-12, atol=1e-290, err_msg=f"{key} {name}")
    assert grouped.loc["a", "aurc"] == 0.0 and not np.isnan(grouped["aurc"]).any()


@pytest.mark.parametrize("method", ["ece", "risk", "summary"])
def test_as_index_false_keeps_several_keys_as_columns(method):
    df = _frame(n=300)
    df["h"] = np.arange(300) % 2
    kw = {"risk": {"p_risk_method": "normal"}, "summary": {"metrics": ["accuracy", "ece"]}
          }.get(method, {})
    out = getattr(df.groupby(["g", "h"], as_index=False).calib(**ROLES), method)(**kw)
    assert isinstance(out, pd.DataFrame) and isinstance(out.index, pd.RangeIndex)
    assert list(out.columns[:2]) == ["g", "h"]
    assert list(zip(out["g"], out["h"], strict=True)) == [
        (g, h) for g in "abc" for h in (0, 1)]
    indexed = getattr(df.groupby(["g", "h"]).calib(**ROLES), method)(**kw)
    col = "ece" if method == "ece" else out.columns[2]
    np.testing.assert_array_equal(out[col].to_numpy(dtype=float),
                                  np.asarray(indexed[col] if method != "ece" else indexed,
                                             dtype=float))
