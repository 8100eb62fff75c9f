"""The whole grouped summary (every registry metric, P_risk by its automatic method)
equals each group's summary computed alone, on awkward groups: 1-3 rows, constant
scores, one class only, ties, a large group, zero weights."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from calreport.registry import REGISTRY

pytestmark = pytest.mark.filterwarnings("ignore:.*exactly 1. they are clipped")


def _frame(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    parts = []

    def add(p, y):
        parts.append(pd.DataFrame({"proba": p, "y_true": y, "g": len(parts)}))

    add([0.7], [1])
    add([0.2, 0.9], [0, 1])
    add([0.5, 0.5, 0.5], [1, 0, 1])
    add(np.full(20, 0.8), np.ones(20, int))            # constant scores, one class
    add(rng.uniform(size=30), np.zeros(30, int))        # one class only
    p = rng.uniform(size=400)
    add(p, (rng.random(400) < p).astype(int))           # large: single-group fits
    p = np.round(rng.uniform(size=80), 1)
    add(p, (rng.random(80) < p).astype(int))            # heavy ties
    for n in rng.integers(10, 120, 14):
        p = rng.beta(2, 2, n)
        add(p, (rng.random(n) < p ** 1.3).astype(int))
    df = pd.concat(parts, ignore_index=True)
    df["w"] = rng.uniform(0.2, 2.0, len(df))
    df.loc[df["g"] == 1, "w"] = [0.0, 1.0]
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
def test_grouped_summary_equals_each_group_alone(weighted, seed):
    df = _frame(seed)
    roles = dict(y="y_true", proba="proba", **({"weight": "w"} if weighted else {}))
    grouped = df.groupby("g").calib(**roles).summary()
    assert list(grouped.columns)[:3] == ["n", "n_dropped", "n_clipped"]
    for key in grouped.index:
        alone = df[df["g"] == key].calib(**roles).summary()
        row = alone.iloc[0] if isinstance(alone, pd.DataFrame) else alone
        for m in ["n", *REGISTRY]:
            assert grouped.loc[key, m] == pytest.approx(row[m], rel=1e-11, abs=1e-13,
                                                        nan_ok=True), (key, m)


def test_grouped_reasons_and_p_risk_method_equal_each_group_alone():
    df = _frame(2)
    gb = df.groupby("g").calib(y="y_true", proba="proba")
    res = gb.evaluate()
    for gr in res.groups:
        alone = df[df["g"] == gr.key].calib(y="y_true", proba="proba").evaluate()
        one = alone.groups[0]
        assert gr.p_risk_method == one.p_risk_method, gr.key
        for m in REGISTRY:
            assert gr.reasons.get(m, "") == one.reasons.get(m, ""), (gr.key, m)


def test_few_large_groups_take_the_single_group_path_with_equal_results():
    rng = np.random.default_rng(3)
    n = 2 * 5_500  # more than 5,000 rows per group: each group computed alone
    p = rng.uniform(size=n)
    df = pd.DataFrame({"proba": p, "y_true": (rng.random(n) < p).astype(int),
                       "g": np.repeat([0, 1], n // 2)})
    names = ["smece", "lcs", "eci", "debiased_ece", "corp_mcb", "p_risk"]
    grouped = df.groupby("g").calib(y="y_true", proba="proba").summary(metrics=names)
    for key in (0, 1):
        alone = df[df["g"] == key].calib(y="y_true", proba="proba").summary(metrics=names)
        row = alone.iloc[0] if isinstance(alone, pd.DataFrame) else alone
        for m in names:
            assert grouped.loc[key, m] == pytest.approx(row[m], rel=1e-12), (key, m)


def test_grouped_p_risk_reports_its_error(monkeypatch):
    """An error in the grouped P_risk reaches the caller, and the next call runs
    normally."""
    from calreport import _segmented

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"g": np.repeat(np.arange(20), 30), "y_true": rng.integers(0, 2, 600),
                       "proba": rng.uniform(size=600)})

    def boom(*args, **kwargs):
        raise RuntimeError("p_risk failed")

    monkeypatch.setattr(_segmented, "grouped_p_risk", boom)
    with pytest.raises(RuntimeError, match="p_risk failed"):
        df.groupby("g").calib.summary(metrics=["accuracy", "p_risk"])
    assert df.groupby("g").calib.summary(metrics=["accuracy"]).shape == (20, 5)


def test_empty_aurc_kernel_is_nan():
    from calreport.metrics._auc_kernels import aurc_unweighted

    assert np.isnan(aurc_unweighted(np.array([]), np.array([], dtype=bool)))


@pytest.mark.parametrize("weighted", [False, True])
def test_results_built_column_wise_equal_the_per_group_builder(weighted, monkeypatch):
    # a summary whose every value is segmented builds its group results column-wise
    # (_quiet_results); each must equal what the per-group builder (_one_fast) gives,
    # reasons and P_risk method included: zero-weight, empty and undefined groups
    from calreport import _engine

    df = _frame(4)
    df["g"] = pd.Categorical(df["g"], categories=[*range(int(df["g"].max()) + 1), 99])
    roles = dict(y="y_true", proba="proba", **({"weight": "w"} if weighted else {}))
    seen = []
    real = _engine._quiet_results

    def spy(split, names, s, fast):
        got = real(split, names, s, fast)
        lists = fast.as_lists()
        want = [_engine._one(split, g, names, s, None, {}, False, fast=(lists, i))
                for i, g in enumerate(split.groups)]
        seen.append((got, want))
        return got

    monkeypatch.setattr(_engine, "_quiet_results", spy)
    # with weights, only some metrics are segmented; these are (unweighted: all but
    # the BPM fit, computed per group)
    names = (["accuracy", "brier", "ece", "auc", "csr", "p_risk"] if weighted
             else [m for m in REGISTRY if m != "tce_bpm"])
    if weighted:
        df.loc[df["g"] == 0, "w"] = 0.0  # a group without positive weight
    df.groupby("g", observed=False).calib(**roles).summary(metrics=names)
    (got, want), = seen
    assert len(got) == len(want) == df["g"].cat.categories.size
    for a, b in zip(got, want, strict=True):
        assert (a.key, a.name, a.p_risk_method, a.view) == (b.key, b.name, b.p_risk_method,
                                                             b.view)
        assert a.reasons == b.reasons, a.key
        assert list(a.values) == list(b.values)
        np.testing.assert_array_equal(np.array(list(a.values.values())),
                                      np.array(list(b.values.values())))
    assert any(r.reasons for r in got)  # undefined values were there to explain
