"""Column roles: inference from names, column checks, and the class of each column."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from calreport._roles import build_profile, resolve_roles


def _frame(n=30, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    return pd.DataFrame({"y_true": (rng.random(n) < p).astype(int), "proba": p})


def test_conventional_names_are_inferred_and_nothing_is_read():
    df = _frame()
    roles = resolve_roles(df)
    assert (roles.y, roles.proba) == ("y_true", ("proba",))
    assert roles.inferred == {"y": "y_true", "proba": "proba"}
    assert roles.classes is None and roles.class_source is None


def test_prefixed_columns_inferred_in_frame_order():
    df = pd.DataFrame({"label": ["b", "a"], "proba_b": [0.6, 0.3], "proba_a": [0.4, 0.7]})
    roles = resolve_roles(df)
    assert roles.proba == ("proba_b", "proba_a")
    prof = build_profile(df, roles)[0]
    # the names say which class each column holds, whatever their order
    assert prof.notes["class_columns"] == {"proba_b": "b", "proba_a": "a"}
    assert prof.y_true.tolist() == [0, 1] and prof.correct.tolist() == [True, True]


def test_suffix_takes_the_labels_type():
    df = pd.DataFrame({"y": [0, 2, 1], "p_0": [0.8, 0.1, 0.2], "p_1": [0.1, 0.1, 0.5],
                       "p_2": [0.1, 0.8, 0.3]})
    prof = build_profile(df, resolve_roles(df, y="y", proba=["p_0", "p_1", "p_2"]))[0]
    assert prof.notes["class_columns"] == {"p_0": 0, "p_1": 1, "p_2": 2}
    assert prof.classes.dtype.kind == "i"


def test_named_columns_keep_an_absent_class():
    # class "c" has a column but no row: names still identify the classes
    df = pd.DataFrame({"y": ["a", "b"], "proba_a": [0.7, 0.2], "proba_b": [0.2, 0.7],
                       "proba_c": [0.1, 0.1]})
    prof = build_profile(df, resolve_roles(df, y="y", proba=["proba_a", "proba_b",
                                                             "proba_c"]))[0]
    assert prof.classes.tolist() == ["a", "b", "c"]


def test_integer_column_names_are_classes():
    df = pd.DataFrame({"y": [2, 0], 0: [0.1, 0.6], 1: [0.2, 0.3], 2: [0.7, 0.1]})
    prof = build_profile(df, resolve_roles(df, y="y", proba=[2, 1, 0]))[0]
    assert prof.notes["class_columns"] == {2: 2, 1: 1, 0: 0}
    assert prof.y_true.tolist() == [0, 2]  # codes into classes [2, 1, 0]


def test_mapping_is_given():
    df = pd.DataFrame({"y": ["x", "z"], "a": [0.9, 0.3], "b": [0.1, 0.7]})
    roles = resolve_roles(df, y="y", proba={"x": "a", "z": "b"})
    assert roles.class_source == "mapping"
    prof = build_profile(df, roles)[0]
    assert prof.notes["class_columns"] == {"a": "x", "b": "z"}
    assert prof.notes["class_rule"].startswith("given")


def test_partly_named_columns_show_classes_in_the_error():
    df = pd.DataFrame({"y": ["a", "b", "c"], "a": [0.8, 0.1, 0.1], "other": [0.1, 0.8, 0.1],
                       "x": [0.1, 0.1, 0.8]})
    with pytest.raises(ValueError, match=r"`y` has 2 labels not among the classes.*"
                                         r"classes=\['a', 'b', 'c'\]"):
        build_profile(df, resolve_roles(df, y="y", proba=["a", "other", "x"]))


def test_group_keys_are_never_candidates():
    df = _frame().assign(model="m")
    with pytest.raises(ValueError, match="group key and cannot be the `y` column"):
        resolve_roles(df, y="model", proba="proba", exclude=["model"])
    with pytest.raises(ValueError, match="group key and cannot be the `proba` column"):
        resolve_roles(df, y="y_true", proba="model", exclude=["model"])


def test_unknown_and_repeated_columns():
    df = _frame()
    with pytest.raises(ValueError, match=r"Unknown column 'nope' for `pred`"):
        resolve_roles(df, y="y_true", proba="proba", pred="nope")
    with pytest.raises(ValueError, match=r"`proba` lists the column 'proba' more than once"):
        resolve_roles(df, y="y_true", proba=["proba", "proba"])
    with pytest.raises(ValueError, match=r"`proba` is an empty list"):
        resolve_roles(df, y="y_true", proba=[])


def test_data_instead_of_names_is_a_type_error():
    df = _frame()
    with pytest.raises(TypeError, match=r"`proba` expects a column name.*ndarray"):
        resolve_roles(df, y="y_true", proba=df["proba"].to_numpy())
    with pytest.raises(TypeError, match=r"`weight` expects a column name.*list"):
        resolve_roles(df, y="y_true", proba="proba", weight=[1.0] * len(df))
    with pytest.raises(TypeError, match=r"`y` expects a column name.*unhashable dict"):
        resolve_roles(df, y={"a": 1}, proba="proba")


def test_tuple_proba_that_is_not_a_column_is_a_list():
    df = pd.DataFrame({"y": ["a", "b"], "pa": [0.7, 0.4], "pb": [0.3, 0.6]})
    roles = resolve_roles(df, y="y", proba=("pa", "pb"))
    assert roles.proba == ("pa", "pb")
    prof = build_profile(df, roles)[0]
    assert prof.notes["class_columns"] == {"pa": "a", "pb": "b"}


def test_weights_option_is_checked():
    with pytest.raises(ValueError, match="`weights` must be one of 'importance', 'frequency'"):
        resolve_roles(_frame(), weights="counts")


def test_missing_drop_returns_frame_positions():
    df = _frame(8)
    df.loc[[2, 5], "proba"] = np.nan
    prof, dropped, keep = build_profile(df, resolve_roles(df, missing="drop"))
    assert dropped == 2 and keep.tolist() == [0, 1, 3, 4, 6, 7]
    np.testing.assert_array_equal(prof.score, df["proba"].to_numpy()[keep])


def test_take_keeps_the_whole_frame_classes():
    # groups cut from one profile share classes and the positive class
    df = pd.DataFrame({"y": ["neg", "pos", "pos", "neg"], "s": [0.2, 0.9, 0.6, 0.4]})
    prof = build_profile(df, resolve_roles(df, y="y", proba="s", pos_label="pos"))[0]
    part = prof.take(np.array([1, 2]))
    assert part.classes.tolist() == ["neg", "pos"]
    assert part.notes["class_columns"] == {"s": "pos"}
    assert part.y_true.tolist() == [1, 1]


def test_frame_classes_widen_a_group_missing_a_class():
    # a group whose rows lack class "c": the frame's classes keep the column order
    from dataclasses import replace

    df = pd.DataFrame({"y": ["a", "b", "a"], "s0": [.6, .2, .7], "s1": [.3, .7, .2],
                       "s2": [.1, .1, .1]})
    roles = resolve_roles(df, y="y", proba=["s0", "s1", "s2"])
    with pytest.raises(ValueError, match=r"3 probability columns but the labels hold 2"):
        build_profile(df, roles)
    prof = build_profile(df, replace(roles, classes=("a", "b", "c")))[0]
    assert prof.notes["class_columns"] == {"s0": "a", "s1": "b", "s2": "c"}
