"""Each warning condition has one wording, is issued once per call, from the caller's line."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import calreport
from calreport.metrics import risk


def _frame(n: int = 400, ones: int = 5, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, n)
    p[:ones] = 1.0  # certainty claims, as a tree model or a rounded score gives
    y = (rng.random(n) < p).astype(int)
    return pd.DataFrame({"y": y, "p": p, "model": np.repeat(["a", "b"], n // 2)})


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return caught


_CALLS = {
    "summary": lambda acc: acc.summary(),
    "evaluate": lambda acc: acc.evaluate(),
    "evaluate with ci": lambda acc: acc.evaluate(ci=0.9, n_boot=20, seed=0),
    "csr": lambda acc: acc.csr(),
    "p_risk": lambda acc: acc.p_risk(),
    "risk": lambda acc: acc.risk(),
}


@pytest.mark.parametrize("grouped", [False, True], ids=["frame", "groupby"])
@pytest.mark.parametrize("name", list(_CALLS))
def test_clipped_confidences_warn_once_from_the_callers_line(name, grouped):
    df = _frame()
    acc = (df.groupby("model") if grouped else df).calib(y="y", proba="p")
    caught = _caught(lambda: _CALLS[name](acc))
    clipped = [w for w in caught if w.category is risk.ClippedConfidenceWarning]
    assert len(clipped) == 1, [str(w.message) for w in clipped]
    (w,) = clipped
    assert w.filename == __file__
    # one wording, with the count of every group's confidences of exactly 1 (5 rows,
    # all in group "a")
    assert str(w.message).startswith("5 confidence(s) of exactly 1 clipped to 1 - 1e-08 "
                                     "for CSR: an error there weighs 1/eps")
    if grouped:
        assert str(w.message).endswith("(in 1 of 2 groups: a)")


def test_clipped_counts_add_up_over_groups():
    df = _frame()
    df.loc[df.index[-3:], "p"] = 1.0  # 3 more, in group "b"
    with pytest.warns(risk.ClippedConfidenceWarning) as record:
        df.groupby("model").calib(y="y", proba="p").risk()
    texts = [str(w.message) for w in record if w.category is risk.ClippedConfidenceWarning]
    assert len(texts) == 1
    assert texts[0].startswith("8 confidence(s)") and "(in 2 of 2 groups: a, b)" in texts[0]
    assert record[0].filename == __file__


def test_clip_confidence_called_directly_points_at_the_caller():
    with pytest.warns(risk.ClippedConfidenceWarning, match=r"^2 confidence\(s\)") as record:
        risk.clip_confidence([0.5, 1.0, 1.0])
    assert record[0].filename == __file__
    assert record[0].message.count == 2


def test_no_clipped_warning_without_csr_metrics():
    acc = _frame().calib(y="y", proba="p")
    caught = _caught(lambda: acc.summary(["accuracy", "ece"]))
    assert not [w for w in caught if w.category is risk.ClippedConfidenceWarning]


# ------------------------------------------------------------------ undefined metrics
def _single_class_group() -> pd.DataFrame:
    df = _frame(ones=0)
    df.loc[df.model == "b", "y"] = 1  # group "b": every label positive
    return df


@pytest.mark.parametrize("call", ["summary", "evaluate", "auc"])
def test_single_class_group_warns_once_naming_group_and_reason(call):
    acc = _single_class_group().groupby("model").calib(y="y", proba="p")
    with pytest.warns(calreport.UndefinedMetricWarning) as record:
        getattr(acc, call)()
    undefined = [w for w in record if w.category is calreport.UndefinedMetricWarning]
    assert len(undefined) == 1
    (w,) = undefined
    assert w.filename == __file__
    text = str(w.message)
    assert "in group 'b'" in text and "'a'" not in text
    assert "needs both positives and negatives" in text
    assert re.match(r"^auc(, cwauc, delta_auc are| is) NaN", text)


def test_zero_weight_group_warns_with_its_reason():
    df = _frame(ones=0).assign(w=1.0)
    df.loc[df.model == "b", "w"] = 0.0
    acc = df.groupby("model").calib(y="y", proba="p", weight="w")
    with pytest.warns(calreport.UndefinedMetricWarning,
                      match=r"every metric is NaN in group 'b': all sample weights are zero"
                      ) as record:
        acc.summary(["accuracy", "csr", "ece"])
    assert len([w for w in record if w.category is calreport.UndefinedMetricWarning]) == 1
    assert record[0].filename == __file__


def test_metrics_the_input_cannot_define_warn_only_when_asked_for():
    df = pd.DataFrame({"confidence": np.linspace(0.55, 0.95, 60),
                       "correct": np.arange(60) % 3 > 0})
    caught = _caught(lambda: df.calib.summary())  # the default list: NaN by the input's shape
    assert not [w for w in caught if w.category is calreport.UndefinedMetricWarning]
    with pytest.warns(calreport.UndefinedMetricWarning,
                      match="auc is NaN: needs class probabilities and true labels") as record:
        df.calib.auc()
    assert record[0].filename == __file__


def test_a_defined_call_warns_nothing():
    df = _frame(ones=0)
    caught = _caught(lambda: df.groupby("model").calib(y="y", proba="p").summary())
    assert caught == []


# --------------------------------------------------------------- input warnings
def test_rows_without_a_group_key_warn_from_the_callers_line():
    df = _frame(ones=0)
    df.loc[df.index[:7], "model"] = None
    with pytest.warns(UserWarning, match=r"^7 row\(s\) have a missing group key") as record:
        df.groupby("model").calib(y="y", proba="p").accuracy()
    assert [w.filename for w in record] == [__file__]


def test_top_label_confidence_below_one_over_k_warns_from_the_callers_line():
    from calreport import _labels

    df = pd.DataFrame({"y": [0, 1, 2, 1] * 10, "y_pred": [0, 1, 2, 2] * 10,
                       "confidence": [0.2, 0.9, 0.8, 0.7] * 10})
    with pytest.warns(_labels.TopLabelConfidenceWarning) as record:
        df.calib(y="y", pred="y_pred", conf="confidence").accuracy()
    assert [w.filename for w in record] == [__file__]


def test_risk_plot_warns_once_naming_the_groups():
    df = _frame()
    df.loc[df.index[-3:], "p"] = 1.0  # 3 in group "b" beside the 5 in group "a"
    with pytest.warns(risk.ClippedConfidenceWarning) as record:
        df.groupby("model").calib(y="y", proba="p").plot.risk_plot()
    clipped = [w for w in record if w.category is risk.ClippedConfidenceWarning]
    assert len(clipped) == 1 and clipped[0].filename == __file__
    assert str(clipped[0].message).startswith("8 confidence(s)")
    assert str(clipped[0].message).endswith("(in 2 of 2 groups: a, b)")
