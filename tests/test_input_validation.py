"""Input validation: vectorised label encoding, positive class, weights, messages.

Every error is checked with ``match=``: the message names the column or argument,
counts the offending rows and shows the fix.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import log_loss, roc_auc_score

import calreport  # noqa: F401  (registers the accessors)
from calreport import ConfidenceProfile
from calreport import _labels as lab
from calreport import _validate as v
from calreport._roles import build_profile, resolve_roles
from calreport.summary import summarize


def _profile(df: pd.DataFrame, **kw: Any) -> ConfidenceProfile:
    return build_profile(df, resolve_roles(df, **kw))[0]


# ----------------------------------------------------- the previous per-row encoder
# The implementation calreport used before vectorisation, kept here as the oracle:
# one Python key per row, dictionary lookup.
def _old_key(val: Any) -> Any:
    if isinstance(val, (bool, np.bool_)):
        return int(val)
    if isinstance(val, (float, np.floating)) and float(val).is_integer():
        return int(val)
    if isinstance(val, np.generic):
        return val.item()
    return val


def _old_values(y: Any) -> list[Any]:
    if hasattr(y, "to_numpy"):
        return y.to_numpy(dtype=object).tolist()
    return np.asarray(y).tolist()


def _old_infer_classes(*ys: Any) -> list[Any]:
    seen: dict[Any, Any] = {}
    for y in ys:
        for val in _old_values(y):
            seen.setdefault(_old_key(val), val)
    return sorted(seen.values(), key=_old_key)


def _old_encode(y: Any, classes: list[Any]) -> np.ndarray:
    lookup = {_old_key(c): i for i, c in enumerate(classes)}
    return np.array([lookup.get(_old_key(val), -1) for val in _old_values(y)])


LABEL_INPUTS = {
    "int": lambda: np.array([3, 1, 2, 3, 1]),
    "negative int": lambda: np.array([-1, 1, 1, -1, 1]),
    "uint8": lambda: np.array([0, 7, 7, 0, 1], dtype=np.uint8),
    "int list": lambda: [2, 0, 2, 1, 0],
    "integer floats": lambda: np.array([0.0, 1.0, 1.0, 2.0, 0.0]),
    "fractional floats": lambda: np.array([0.5, 1.5, 0.5, 2.0, 1.5]),
    "strings": lambda: np.array(["b", "a", "c", "a", "b"]),
    "string list": lambda: ["cat", "dog", "cat", "emu", "dog"],
    "bools": lambda: np.array([True, False, True, True, False]),
    "object ints and floats": lambda: np.array([1, 2.0, 1.0, 2, 1], dtype=object),
    "object bools and ints": lambda: np.array([True, 0, 1, False, True], dtype=object),
    "categorical": lambda: pd.Series(pd.Categorical(["lo", "hi", "lo", "mid", "hi"],
                                                    categories=["lo", "mid", "hi", "x"])),
    "nullable Int64": lambda: pd.Series([4, 5, 4, 6, 5], dtype="Int64"),
    "nullable boolean": lambda: pd.Series([True, False, False, True, True], dtype="boolean"),
    "string dtype": lambda: pd.Series(["x", "y", "x", "z", "y"], dtype="string"),
    "object series": lambda: pd.Series(["q", "p", "q", "p", "r"], dtype=object),
    "large int": lambda: np.array([10**15, 3, 10**15, 3, 7]),
    "uint64 above int64": lambda: np.array([2**63 + 5, 1, 2**63 + 5, 1, 1], dtype=np.uint64),
}


@pytest.mark.parametrize("kind", sorted(LABEL_INPUTS))
def test_vectorised_encoding_equals_previous_encoder(kind):
    y = LABEL_INPUTS[kind]()
    old_classes = _old_infer_classes(y)
    new_classes = lab.infer_classes(y)
    assert [_old_key(c) for c in new_classes.tolist()] == [_old_key(c) for c in old_classes]
    assert lab.encode_labels(y, new_classes, "y").tolist() == _old_encode(y, old_classes).tolist()


def test_encoding_mixes_dtypes_across_columns_like_the_previous_encoder():
    y = pd.Series([1, 0, 1, 1], dtype="Int64")
    pred = np.array([True, False, False, True])
    old = _old_infer_classes(y, pred)
    new = lab.infer_classes(y, pred)
    assert [_old_key(c) for c in new.tolist()] == [_old_key(c) for c in old]
    assert lab.encode_labels(pred, new, "pred").tolist() == _old_encode(pred, old).tolist()


def test_encoding_runs_no_python_per_row(monkeypatch):
    # _key is the per-label Python function: it may run once per distinct label,
    # never once per row
    calls = []
    real = lab._key
    monkeypatch.setattr(lab, "_key", lambda val: calls.append(1) or real(val))
    rng = np.random.default_rng(0)
    n = 200_000
    for y in (pd.Series(rng.choice(["a", "b", "c"], n)), rng.choice(["a", "b", "c"], n),
              rng.integers(0, 3, n), pd.Series(rng.integers(0, 3, n), dtype="Int64"),
              rng.integers(0, 3, n).astype(float), np.array(rng.choice(["a", "b"], n),
                                                            dtype=object)):
        calls.clear()
        classes = lab.infer_classes(y)
        codes = lab.encode_labels(y, classes, "y")
        assert codes.shape == (n,)
        assert len(calls) < 50, type(y)


def test_unknown_labels_counted_with_the_fix():
    with pytest.raises(ValueError, match=r"`y` has 2 labels not among the classes.*'z'.*"
                                         r"classes=\["):
        lab.encode_labels(np.array(["a", "z", "b", "z"]), np.array(["a", "b"]), "y")


# ------------------------------------------------------------------ positive class
def _diagnosis_frame(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, n)
    sick = rng.random(n) < p
    return pd.DataFrame({"diagnosis": np.where(sick, "disease", "healthy"), "score": p})


def test_string_labels_without_pos_label_raise():
    df = _diagnosis_frame()
    with pytest.raises(ValueError, match=r"`diagnosis` has the labels \['disease', "
                                         r"'healthy'\].*pos_label='disease'"):
        _profile(df, y="diagnosis", proba="score")
    with pytest.raises(ValueError, match="pos_label="):
        df.calib(y="diagnosis", proba="score").accuracy()


def test_pos_label_gives_the_scikit_learn_numbers():
    df = _diagnosis_frame()
    prof = _profile(df, y="diagnosis", proba="score", pos_label="disease")
    outcome = (df["diagnosis"] == "disease").to_numpy()
    vals = summarize(prof, metrics=["accuracy", "auc"]).values
    assert vals["accuracy"] == pytest.approx(np.mean((df["score"] >= 0.5) == outcome))
    assert vals["auc"] == pytest.approx(roc_auc_score(outcome, df["score"]))
    assert prof.notes["class_columns"] == {"score": "disease"}


@pytest.mark.parametrize("labels", [
    np.array([0, 1]), np.array([False, True]), np.array([-1, 1]), np.array([0.0, 1.0]),
    pd.Series([0, 1], dtype="Int64"), pd.Series([False, True], dtype="boolean"),
    np.array([0, 1], dtype=object), pd.Series(pd.Categorical([0, 1])),
])
def test_conventional_binary_labels_need_no_pos_label(labels):
    y = np.tile(np.asarray(labels, dtype=object), 3)
    y = pd.Series(y).astype(labels.dtype) if isinstance(labels, pd.Series) else y.astype(
        labels.dtype)
    p = np.linspace(0.1, 0.9, 6)
    prof = ConfidenceProfile.from_arrays(y, p)
    assert lab._key(prof.classes[1]) == 1
    positive = np.array([lab._key(val) == 1 for val in np.asarray(y, dtype=object)])
    assert (prof.y_true == 1).tolist() == positive.tolist()


@pytest.mark.parametrize("labels", [["0", "1"], ["no", "yes"], [1, 2], [0, 2]])
def test_other_binary_labels_require_pos_label(labels):
    y = np.array(labels * 3)
    with pytest.raises(ValueError, match=r"has the labels .*\{0, 1\}, \{False, True\} "
                                         r"and \{-1, 1\}.*pos_label="):
        ConfidenceProfile.from_arrays(y, np.linspace(0.1, 0.9, 6))


def test_pos_label_not_among_labels():
    with pytest.raises(ValueError, match=r"`pos_label`='maybe' is not among the labels"):
        ConfidenceProfile.from_arrays(["no", "yes"], [0.2, 0.7], pos_label="maybe")


def test_frame_classes_do_not_bypass_the_positive_class_rule():
    # classes fixed from a larger frame (not given by the user) still need pos_label
    df = _diagnosis_frame(50)
    roles = resolve_roles(df, y="diagnosis", proba="score")
    from dataclasses import replace

    with pytest.raises(ValueError, match="pos_label="):
        build_profile(df, replace(roles, classes=("disease", "healthy")))


# --------------------------------------------------------------- multiclass columns
def _multiclass(n=600, k=4, seed=3):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, k)) * 1.5
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    y = (p.cumsum(axis=1) > rng.random((n, 1))).argmax(axis=1)
    return y, p


def test_predict_proba_column_order():
    y, p = _multiclass()
    df = pd.DataFrame(p, columns=["p0", "p1", "p2", "p3"]).assign(y=y)
    prof = _profile(df, y="y", proba=["p0", "p1", "p2", "p3"])
    assert prof.notes["class_columns"] == {"p0": 0, "p1": 1, "p2": 2, "p3": 3}
    assert "predict_proba" in prof.notes["class_rule"]
    vals = summarize(prof, metrics=["log_loss", "auc"]).values
    assert vals["log_loss"] == pytest.approx(log_loss(y, p))
    assert vals["auc"] == pytest.approx(roc_auc_score(y, p, multi_class="ovr"))


def test_predict_proba_order_with_string_labels():
    y, p = _multiclass(k=3)
    labels = np.array(["ant", "bee", "cat"])[y]
    df = pd.DataFrame(p, columns=["s1", "s2", "s3"]).assign(y=labels)
    prof = _profile(df, y="y", proba=["s1", "s2", "s3"])
    assert prof.notes["class_columns"] == {"s1": "ant", "s2": "bee", "s3": "cat"}


def test_classes_override_the_sorted_rule():
    y, p = _multiclass()
    df = pd.DataFrame(p, columns=["p0", "p1", "p2", "p3"]).assign(y=y)
    prof = _profile(df, y="y", proba=["p0", "p1", "p2", "p3"], classes=[3, 2, 1, 0])
    assert prof.notes["class_columns"] == {"p0": 3, "p1": 2, "p2": 1, "p3": 0}
    assert prof.y_true.tolist() == (3 - y).tolist()


def test_column_class_mismatch_shows_classes():
    y, p = _multiclass()
    df = pd.DataFrame(p, columns=["p0", "p1", "p2", "p3"]).assign(
        y=np.array(["a", "b", "c", "c"])[y])
    with pytest.raises(ValueError, match=r"4 probability columns but the labels hold 3 "
                                         r"distinct classes.*classes=\['a', 'b', 'c', "):
        _profile(df, y="y", proba=["p0", "p1", "p2", "p3"])
    with pytest.raises(ValueError, match=r"`classes` has 3 labels.*classes=\["):
        _profile(df, y="y", proba=["p0", "p1", "p2", "p3"], classes=["a", "b", "c"])


def test_array_api_follows_the_same_column_rule():
    y, p = _multiclass()
    prof = ConfidenceProfile.from_arrays(np.array(["w", "x", "y", "z"])[y], p)
    assert prof.classes.tolist() == ["w", "x", "y", "z"]
    # integer codes with a class absent keep codes 0..K-1
    keep = y != 2
    prof = ConfidenceProfile.from_arrays(y[keep], p[keep])
    assert prof.classes.tolist() == [0, 1, 2, 3] and "codes" in prof.notes["class_rule"]


# ------------------------------------------------------- duplicate and tuple columns
def _binary_frame(n=40, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    return pd.DataFrame({"y": (rng.random(n) < p).astype(int), "score": p,
                         "pred": (p >= 0.5).astype(int)})


@pytest.mark.parametrize("col", ["y", "score", "pred"])
def test_duplicated_columns_are_named(col):
    df = _binary_frame()
    dup = pd.concat([df, df[[col]]], axis=1)
    with pytest.raises(ValueError, match=rf"Column '{col}' \(for `\w+`\) occurs 2 times"):
        _profile(dup, y="y", proba="score", pred="pred")


def test_duplicated_inferred_columns_are_named():
    df = _binary_frame()
    dup = pd.concat([df, df[["pred"]]], axis=1)
    with pytest.raises(ValueError, match=r"Column 'pred' \(for `pred`\) occurs 2 times"):
        dup.calib.accuracy()


def test_tuple_column_is_one_column():
    df = _binary_frame()
    mi = pd.DataFrame({("t", "y"): df["y"], ("t", "score"): df["score"]})
    prof = _profile(mi, y=("t", "y"), proba=("t", "score"))
    assert prof.is_binary and prof.n == len(df)
    np.testing.assert_array_equal(prof.score, df["score"].to_numpy())


def test_list_of_tuple_columns_without_classes():
    y, p = _multiclass(k=3)
    mi = pd.DataFrame({("m", "s0"): p[:, 0], ("m", "s1"): p[:, 1], ("m", "s2"): p[:, 2],
                       ("m", "y"): y})
    cols = [("m", "s0"), ("m", "s1"), ("m", "s2")]
    prof = _profile(mi, y=("m", "y"), proba=cols)
    assert prof.notes["class_columns"] == {("m", "s0"): 0, ("m", "s1"): 1, ("m", "s2"): 2}
    assert prof.y_true.tolist() == y.tolist()


def test_partial_multiindex_key_is_refused():
    mi = pd.DataFrame({("t", "y"): [0, 1], ("t", "score"): [0.2, 0.8]})
    with pytest.raises(ValueError, match=r"'t' for `y` selects 2 columns.*full tuple"):
        resolve_roles(mi, y="t", proba=("t", "score"))


# ---------------------------------------------------------------- mixed label types
def test_mixed_types_in_one_column():
    df = pd.DataFrame({"y": pd.Series([2, "z", 2, "z"], dtype=object),
                       "score": [0.1, 0.8, 0.3, 0.9]})
    with pytest.raises(TypeError, match=r"`y` mixes label types: 2 rows of `y` hold "
                                        r"numbers \(first: 2\); 2 rows of `y` hold strings"
                                        r".*astype\(str\)") as info:
        _profile(df, y="y", proba="score")
    assert "not supported" not in str(info.value)


def test_mixed_types_across_label_columns():
    with pytest.raises(TypeError, match=r"`y_true`, `y_pred` have different types.*"
                                        r"\(first: 'a'\).*\(first: 7\)"):
        ConfidenceProfile.from_arrays(["a"], y_pred=[7], conf=[0.9])
    df = pd.DataFrame({"y": ["a", "b"], "pred": [7, 7], "conf": [0.9, 0.8]})
    with pytest.raises(TypeError, match=r"`y`, `pred` have different types"):
        _profile(df, y="y", pred="pred", conf="conf")


# ------------------------------------------------------------------ sample weights
@pytest.mark.parametrize(("bad", "match"), [
    (-1.0, r"`w` has 2 negative values \(first at position 1: -1.0\)"),
    (np.nan, r"`w` has 2 missing values \(NaN/None at index labels 1, 3; row positions 1, 3\)"),
    (np.inf, r"`w` has 2 infinite values \(first at position 1: inf\)"),
])
def test_bad_weights_named_and_counted(bad, match):
    df = _binary_frame(6).assign(w=[1.0, bad, 2.0, bad, 1.0, 1.0])
    with pytest.raises(ValueError, match=match):
        _profile(df, y="y", proba="score", weight="w")


def test_frequency_weights_must_be_integers():
    df = _binary_frame(4).assign(w=[1.0, 2.5, 1.0, 3.0])
    with pytest.raises(ValueError, match=r"`w` holds frequency weights .* 1 value is not a "
                                         r"whole number \(first at position 1: 2.5\)"):
        _profile(df, y="y", proba="score", weight="w", weights="frequency")


def test_all_zero_weights():
    df = _binary_frame(4).assign(w=0.0)
    with pytest.raises(ValueError, match=r"`w` is zero everywhere \(all 4 rows\)"):
        _profile(df, y="y", proba="score", weight="w")


def test_weight_kind_recorded_and_frequency_equals_repetition():
    df = _binary_frame(30).assign(w=np.tile([1, 2, 3], 10))
    prof = _profile(df, y="y", proba="score", weight="w", weights="frequency")
    assert prof.weights == "frequency"
    np.testing.assert_array_equal(prof.sample_weight, df["w"].to_numpy(float))
    rep = df.loc[df.index.repeat(df["w"])]
    metrics = ["accuracy", "csr", "sigma_csr", "z_csr", "brier", "auc"]
    a = summarize(prof, metrics=metrics).values
    b = summarize(_profile(rep, y="y", proba="score"), metrics=metrics).values
    for m in metrics:
        assert a[m] == pytest.approx(b[m], rel=1e-12), m
    assert _profile(df, y="y", proba="score", weight="w").weights == "importance"


@pytest.mark.parametrize("scale", [1e-300, 1e-100, 1.0, 1e80, 1e160, 1e300])
def test_importance_weights_invariant_to_scale(scale):
    rng = np.random.default_rng(4)
    df = _binary_frame(400, seed=2).assign(w=rng.uniform(0.5, 2.0, 400))
    metrics = ["accuracy", "cwa", "csr", "sigma_csr", "ece", "mce", "brier", "auc", "cwauc"]
    ref = summarize(_profile(df, y="y", proba="score", weight="w"), metrics=metrics).values
    scaled = df.assign(w=df["w"] * scale)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow / underflow warnings
        prof = _profile(scaled, y="y", proba="score", weight="w")
        got = summarize(prof, metrics=metrics).values
    assert prof.sample_weight.max() == 1.0
    assert prof.notes["weight_scale"] == pytest.approx(df["w"].max() * scale)
    for m in metrics:
        assert got[m] == pytest.approx(ref[m], rel=1e-9), m


def test_check_sample_weight_kind_option():
    with pytest.raises(ValueError, match="`weights` must be one of 'importance', 'frequency'"):
        v.check_sample_weight([1.0], 1, kind="counts")


# ---------------------------------------------------- top-label confidence below 1/K
def test_top_label_confidence_below_one_over_k_warns():
    df = pd.DataFrame({"y": [0, 1, 1, 0], "y_pred": [0, 1, 0, 0],
                       "confidence": [0.9, 0.3, 0.8, 0.45]})
    with pytest.warns(lab.TopLabelConfidenceWarning,
                      match=r"`confidence` is below 1/K = 0.5 on 2 rows \(first at "
                            r"position 1: 0.3\)"):
        _profile(df, y="y", pred="y_pred", conf="confidence")


def test_valid_top_label_confidence_is_silent():
    df = pd.DataFrame({"y": [0, 1, 2], "y_pred": [0, 1, 1], "conf": [0.34, 0.5, 0.9]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _profile(df, y="y", pred="y_pred", conf="conf")


# ----------------------------------------------------------------- clear messages
def test_series_instead_of_column_name():
    df = pd.DataFrame({"label": [0, 1, 1], "score": [0.2, 0.7, 0.6]})
    with pytest.raises(TypeError, match=r"`y` expects a column name.*got a Series named "
                                        r"'label'.*y='label'"):
        df.calib(y=df["label"], proba=df["score"])
    with pytest.raises(TypeError, match=r"`proba` expects a column name.*proba='score'"):
        resolve_roles(df, y="label", proba=df["score"])
    with pytest.raises(TypeError, match=r"`y` expects a column name.*df\.assign"):
        resolve_roles(df, y=pd.Series([0, 1, 1], name="other"), proba="score")


def test_missing_value_reports_the_index_label():
    df = pd.DataFrame({"y": [0, 1, 1, 0, 1, 0], "score": [0.2, 0.7, np.nan, 0.4, 0.9, 0.1]},
                      index=[f"r{i}" for i in range(6)])
    with pytest.raises(ValueError, match=r"`score` has 1 missing value .*index label 'r2'"):
        _profile(df, y="y", proba="score")
    # a slice keeps the frame's labels, never positions within the slice
    with pytest.raises(ValueError, match=r"index label 'r2'"):
        _profile(df.iloc[1:], y="y", proba="score")


def test_text_correctness_suggests_a_mapping():
    df = pd.DataFrame({"conf": [0.9, 0.6, 0.7], "correct": ["yes", "no", "yes"]})
    with pytest.raises(TypeError, match=r"`correct` must hold 0/1.*3 rows hold text "
                                        r"\['no', 'yes'\].*\.map\(\{'no': 0, 'yes': 1\}\)") \
            as info:
        _profile(df, conf="conf", correct="correct")
    assert "to_numeric" not in str(info.value)


def test_non_numeric_proba_column_is_named():
    df = pd.DataFrame({"y": ["a", "b"], "proba_a": [0.3, 0.6], "proba_b": ["x", "0.4"]})
    with pytest.raises(TypeError, match=r"`proba_b` must be numeric; 1 value"):
        _profile(df, y="y", proba=["proba_a", "proba_b"])


def test_rows_not_summing_to_one_name_the_rows():
    df = pd.DataFrame({"y": ["a", "b"], "proba_a": [0.3, 0.6], "proba_b": [0.7, 0.6]})
    with pytest.raises(ValueError, match=r"1 row of 2 do not sum to 1.*first at row 1"):
        _profile(df, y="y", proba=["proba_a", "proba_b"])


# --------------------------------------------------------------- never mutate input
def _snapshot(df: pd.DataFrame) -> tuple:
    return df.copy(deep=True), df.dtypes.copy(), df.index.copy(), df.columns.copy()


def _assert_unchanged(df: pd.DataFrame, snap: tuple) -> None:
    before, dtypes, index, columns = snap
    pd.testing.assert_frame_equal(df, before)
    pd.testing.assert_series_equal(df.dtypes, dtypes)
    pd.testing.assert_index_equal(df.index, index)
    pd.testing.assert_index_equal(df.columns, columns)


@pytest.mark.parametrize("case", ["binary", "nullable", "drop", "multiclass", "tuple",
                                  "weights", "categorical"])
def test_input_frame_never_mutated(case):
    rng = np.random.default_rng(8)
    n = 60
    p = rng.random(n)
    y = (rng.random(n) < p).astype(int)
    if case == "binary":
        df, kw = pd.DataFrame({"y": y, "score": p}), dict(y="y", proba="score")
    elif case == "nullable":
        df = pd.DataFrame({"y": pd.array(y, dtype="Int64"),
                           "score": pd.array(p, dtype="Float64")})
        kw = dict(y="y", proba="score")
    elif case == "drop":
        df = pd.DataFrame({"y": y.astype(float), "score": p})
        df.loc[[3, 7], "score"] = np.nan
        df.loc[5, "y"] = np.nan
        kw = dict(y="y", proba="score", missing="drop")
    elif case == "multiclass":
        yy, pp = _multiclass(n, 3)
        df = pd.DataFrame(pp, columns=["p0", "p1", "p2"]).assign(y=yy)
        kw = dict(y="y", proba=["p0", "p1", "p2"])
    elif case == "tuple":
        df = pd.DataFrame({("a", "y"): y, ("a", "s"): p})
        kw = dict(y=("a", "y"), proba=("a", "s"))
    elif case == "weights":
        df = pd.DataFrame({"y": y, "score": p, "w": rng.uniform(1, 1e200, n)})
        kw = dict(y="y", proba="score", weight="w")
    else:
        df = pd.DataFrame({"y": pd.Categorical(np.where(y == 1, "pos", "neg")), "score": p},
                          index=pd.Index(rng.permutation(n) * 3, name="id"))
        kw = dict(y="y", proba="score", pos_label="pos")
    snap = _snapshot(df)
    prof, dropped, keep = build_profile(df, resolve_roles(df, **kw))
    _assert_unchanged(df, snap)
    assert prof.n == len(keep) == len(df) - dropped
    if case == "drop":
        assert dropped == 3 and 3 not in keep and 5 not in keep
    # the profile owns its arrays: they are read-only and not views of the frame
    for arr in (prof.conf, prof.score, prof.proba, prof.y_true, prof.sample_weight):
        if arr is not None:
            assert not arr.flags.writeable
            for col in df.columns:
                if df[col].dtype.kind in "biuf":
                    assert not np.shares_memory(arr, df[col].to_numpy())


# ------------------------------------------------ held-out seeds of the last campaign
@pytest.mark.parametrize("grouped", [False, True])
def test_tiny_positive_weights_stay_rows(grouped):
    # 1e-300 / 1e300 underflowed to 0 when the weights were divided by their maximum:
    # the rows left n (n = 2 of 4 rows of positive weight)
    df = pd.DataFrame({"y": [0, 1, 1, 0], "p": [.2, .7, .6, .4],
                       "w": [1e300, 1e-300, 1e-150, 2e300], "g": ["a"] * 4})
    acc = (df.groupby("g") if grouped else df).calib(y="y", proba="p", weight="w")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = acc.summary(["accuracy", "ece"])
    row = out.loc["a"] if grouped else out
    assert row["n"] == 4
    assert row["n_eff"] == pytest.approx(9 / 5)  # (1 + 2)^2 / (1 + 4): the tiny rows weigh 0
    w = v.normalize_weights(np.array([1e300, 1e-300, 0.0]))[0]
    assert w[1] == v.WEIGHT_FLOOR and w[2] == 0.0


def test_float32_extreme_weights_no_zero_division():
    # float32 weights at both ends of their range once raised a raw ZeroDivisionError
    df = pd.DataFrame({"y": [0, 1, 1, 0, 1], "p": np.float32([.2, .7, .6, .4, .9]),
                       "w": np.float32([1e-45, 3.4e38, 1e-40, 3e38, 0.0]),
                       "g": list("aabba")})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for acc in (df.calib(y="y", proba="p", weight="w"),
                    df.groupby("g").calib(y="y", proba="p", weight="w")):
            acc.summary(["accuracy", "csr", "ece", "auc"], ci=0.9, n_boot=20, seed=1)
            acc.risk(p_risk_method="normal")
            assert np.isfinite(acc.accuracy()).all()
    assert df.calib(y="y", proba="p", weight="w").summary(["accuracy"])["n"] == 4


@pytest.mark.parametrize("kind", ["object_floats", "multiindex"])
def test_labels_not_among_classes_refused(kind):
    y = pd.Series([0.0, 1.0, 5.0, 0.0], dtype=object if kind == "object_floats" else float)
    df = pd.DataFrame({"y": y, "proba_0": [.2, .7, .6, .1], "proba_1": [.8, .3, .4, .9]})
    ycol, cols = "y", ["proba_0", "proba_1"]
    if kind == "multiindex":
        df.columns = pd.MultiIndex.from_tuples([("l", "y"), ("p", "proba_0"),
                                                ("p", "proba_1")])
        ycol, cols = ("l", "y"), [("p", "proba_0"), ("p", "proba_1")]
    name = "`y`" if kind == "object_floats" else r"`\('l', 'y'\)`"
    with pytest.raises(ValueError, match=name + r" has 1 label not among the classes of the "
                       r"proba columns \[0, 1\] \(e.g. 5.0; first at position 2\)"):
        df.calib(y=ycol, proba=cols).summary(["accuracy"])
    with pytest.raises(ValueError, match="not among the classes"):
        df.groupby(np.array([0, 0, 1, 1])).calib(y=ycol, proba=cols).summary(["accuracy"])


def test_probabilities_written_as_text_refused():
    df = pd.DataFrame({"y": [0, 1, 1, 0], "p": ["0.1", "0.8", "0.6", "0.4"]},
                      index=list("abcd"))
    before = df.copy()
    msg = (r"`p` holds numbers written as text \(4 values of 4; first at row 'a': '0.1'\)"
           r".*df\['p'\] = pd.to_numeric\(df\['p'\]\)")
    with pytest.raises(ValueError, match=msg):
        df.calib(y="y", proba="p").summary(["accuracy"])
    with pytest.raises(ValueError, match=msg):
        df.astype({"p": "string"}).calib(y="y", proba="p").ece()
    with pytest.raises(ValueError, match=msg):
        df.assign(g=[0, 0, 1, 1]).groupby("g").calib(y="y", proba="p").ece()
    pd.testing.assert_frame_equal(df, before)  # nothing converted in place
    multi = pd.DataFrame({"y": [0, 1, 2], "proba_0": [.2, .1, .1], "proba_1": [.3, .8, .1],
                          "proba_2": [.5, .1, "0.8"]})
    with pytest.raises(ValueError, match=r"`proba_2` holds numbers written as text \(1 value"
                       r" of 3; first at row 2: '0.8'\)"):
        multi.calib(y="y", proba=["proba_0", "proba_1", "proba_2"]).summary(["accuracy"])
    with pytest.raises(ValueError, match=r"`w` holds numbers written as text"):
        df.assign(p=[.1, .8, .6, .4], w=["1", "2", "1", "1"]).calib(
            y="y", proba="p", weight="w").summary(["accuracy"])
    # numbers in an object column are numbers; text that is no number keeps its TypeError
    ok = df.assign(p=pd.Series([.1, .8, .6, .4], dtype=object, index=df.index))
    assert ok.calib(y="y", proba="p").summary(["accuracy"])["n"] == 4
    with pytest.raises(TypeError, match=r"`p` must be numeric; 1 value could not be read"):
        df.assign(p=["0.1", "x", "0.6", "0.4"]).calib(y="y", proba="p").ece()
