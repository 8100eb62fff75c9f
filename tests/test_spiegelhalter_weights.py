"""Spiegelhalter's Z with declared weights: importance weights give a Z free of their
scale (variance of the weighted numerator, w^2), counts equal repeated rows; the
out-of-core sums give the pandas value."""

import numpy as np
import pandas as pd
import pytest

import calreport
from calreport.metrics.clinical import spiegelhalter_z


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(8)
    p = rng.beta(2, 2, 800)
    y = (rng.random(800) < p**1.2).astype(int)
    return p, y, rng.gamma(2.0, 1.0, 800), rng.integers(1, 4, 800)


def test_importance_weights_are_scale_free_and_unit_weights_are_unweighted(data):
    p, y, w, _ = data
    z1 = spiegelhalter_z(p, y, sample_weight=w, weights="importance").z
    assert spiegelhalter_z(p, y, sample_weight=w * 1000, weights="importance").z == \
        pytest.approx(z1, rel=1e-12)
    # by hand: sum w r / sqrt(sum w^2 v)
    r, v = (y - p) * (1 - 2 * p), (1 - 2 * p) ** 2 * p * (1 - p)
    assert z1 == pytest.approx((w * r).sum() / np.sqrt((w * w * v).sum()), rel=1e-12)
    ones = np.ones_like(p)
    assert spiegelhalter_z(p, y, sample_weight=ones, weights="importance").z == \
        pytest.approx(spiegelhalter_z(p, y).z, rel=1e-12)


def test_frequency_weights_equal_repeated_rows(data):
    p, y, _, k = data
    z = spiegelhalter_z(p, y, sample_weight=k.astype(float), weights="frequency").z
    assert z == pytest.approx(spiegelhalter_z(np.repeat(p, k), np.repeat(y, k)).z, rel=1e-12)


@pytest.mark.parametrize("kind", ["importance", "frequency"])
def test_out_of_core_equals_pandas(data, kind):
    p, y, w, k = data
    weight = w if kind == "importance" else k.astype(float)
    df = pd.DataFrame({"y": y, "p": p, "w": weight})
    want = df.calib(y="y", proba="p", weight="w", weights=kind).calibration_tests()
    acc = calreport.Accumulator(y="y", proba="p", weight="w", weights=kind)
    got = acc.update(df.iloc[:300]).update(df.iloc[300:]).calibration_tests()
    assert got["spiegelhalter_z"] == pytest.approx(want["spiegelhalter_z"], rel=1e-10)
    if kind == "importance":
        scaled = calreport.Accumulator(y="y", proba="p", weight="w").update(
            df.assign(w=df["w"] * 50)).calibration_tests()
        assert scaled["spiegelhalter_z"] == pytest.approx(want["spiegelhalter_z"], rel=1e-10)


def test_unknown_weight_meaning_is_refused(data):
    p, y, w, _ = data
    with pytest.raises(ValueError, match="`weights` must be"):
        spiegelhalter_z(p, y, sample_weight=w, weights="relative")
