"""Partition invariance as a law: however the rows are split into partitions or
batches, Dask, Polars and the Accumulator give the pandas answer or the pandas error.

The property draws small frames (``tests/properties/partition_cases.py``: binary and
multiclass, no weights or importance weights with zeros on a common scale from
1e-300 to 1e300, or frequency weights, group keys) and cuts them at random points.
``PARTITION_PROFILE=partition-long`` runs many more examples than the CI profile.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent / "properties"))

import partition_cases as pc

import calreport
from calreport.profile import ConfidenceProfile
from calreport.stats import StatsState
from calreport.stats._exact import exact_bincount
from calreport.stats.state import check_state
from calreport.stats.store import state_from_dict, state_to_dict
from calreport.stats.weight_scale import MAX_RANGE, _shift, exponents

settings.register_profile("partition-ci", max_examples=12, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("partition-long", max_examples=400, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
LAW = settings.get_profile(os.environ.get("PARTITION_PROFILE", "partition-ci"))
ROLES = {"y": "y", "proba": "p", "weight": "w"}


def _check(case: pc.Case) -> None:
    bad = {path: detail for path, (kind, detail) in pc.run_case(case).items()
           if kind == "unexpected"}
    assert not bad, f"seed {case.seed}, cuts {case.cuts}: {bad}"


@LAW
@given(seed=st.integers(0, 2**32 - 1), cuts=st.lists(st.integers(0, 12), max_size=4))
def test_any_split_gives_the_pandas_answer(seed: int, cuts: list[int]) -> None:
    _check(pc.make_case(seed, cuts))


@LAW
@given(seed=st.integers(0, 2**32 - 1), cuts=st.lists(st.integers(0, 12), max_size=3),
       scale=st.sampled_from([1e-300, 2.0**-1000, 1e-20, 1e20, 1e300, 1.7e308]))
def test_extreme_weight_scales(seed: int, cuts: list[int], scale: float) -> None:
    _check(pc.make_case(seed, cuts, scale))


def _frame(w: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"y": [0, 1, 1, 0], "p": [0.2, 0.7, 0.6, 0.4], "w": w})


def _paths(df: pd.DataFrame, cuts: list[int]) -> dict[str, pd.Series]:
    case = pc.Case(0, df, dict(ROLES), None, cuts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {name: run(case).iloc[0] for name, run in pc.RUNNERS.items()}


@pytest.mark.parametrize("w", [[0.0, 0.0, 1.0, 1.0], [1e-300] * 4, [1e300, 2e300, 0.0, 1e300],
                               [5e-324, 0.0, 1e-320, 5e-324]])
@pytest.mark.parametrize("cuts", [[2], [0, 0, 4], [1, 3]])
def test_issue_reproducers(w: list[float], cuts: list[int]) -> None:
    # a batch of zero weights, tiny and huge weights: the pandas numbers on every path
    df = _frame(w)
    want = df.calib(**ROLES).summary()
    for path, got in _paths(df, cuts).items():
        for metric in ("n", "accuracy", "ece", "mce", "brier", "sigma_csr", "cwsa"):
            assert got[metric] == pytest.approx(want[metric], rel=1e-10, nan_ok=True), \
                (path, metric)


def test_zero_weights_everywhere_is_the_pandas_error() -> None:
    df = _frame([0.0] * 4)
    with pytest.raises(ValueError, match="`w` is zero everywhere") as want:
        df.calib(**ROLES).summary()
    for cuts in ([2], [0, 4]):
        case = pc.Case(0, df, dict(ROLES), None, cuts)
        for run in pc.RUNNERS.values():
            with pytest.raises(ValueError) as got:
                run(case)
            assert "`w` is zero everywhere (all 4 rows)" in str(got.value)
            assert str(want.value) in str(got.value)


def test_a_batch_of_zero_weights_waits_for_the_rest() -> None:
    acc = calreport.Accumulator(**ROLES)
    acc.update(_frame([0.0] * 4))
    with pytest.raises(ValueError, match="zero everywhere"):
        acc.summary()
    acc.update(_frame([1.0] * 4).iloc[:0])  # an empty batch adds nothing
    acc.update(_frame([1.0, 0.0, 2.0, 1.0]))
    assert acc.summary()["n"] == 3


def test_frequency_counts_above_2_62_are_refused_like_pandas() -> None:
    df = _frame([1.0, 2.0, 2.0**63, 1.0])
    with pytest.raises(ValueError, match="above 2\\*\\*62"):
        df.calib(**ROLES, weights="frequency").summary()
    acc = calreport.Accumulator(**ROLES, weights="frequency")
    with pytest.raises(ValueError, match="above 2\\*\\*62"):
        acc.update(df)


# ------------------------------------------------------------ the mechanism
def test_exponents_and_exact_shifts() -> None:
    w = np.array([1e-300, 3.0, 0.5, 5e-324, 1e300, 1e7])
    assert exponents(w, np.arange(6), 6).tolist() == [-996, 0, 0, -1073, 997, 24]
    rng = np.random.default_rng(0)
    s = exact_bincount(rng.integers(0, 4, 40), rng.random(40) * 2.0**30, 4)
    bits = np.array([0, 5, 32, 77])
    up = _shift(s, bits).to_fraction()
    assert all(up[i] == s.to_fraction()[i] * 2 ** int(bits[i]) for i in range(4))


def _state(w: list[float], rows: slice) -> StatsState:
    """The state of some rows, built on the raw weights (as a partition's)."""
    y, p = np.array([0, 1, 1, 0, 1, 0]), np.array([0.2, 0.7, 0.6, 0.4, 0.9, 0.1])
    prof = ConfidenceProfile.from_arrays(y[rows], p[rows], sample_weight=np.asarray(w)[rows],
                                         normalize_weights=False)
    return StatsState.from_profile(prof)


def test_merges_of_different_scales_are_exact_and_associative() -> None:
    w = [1e-40, 3e-40, 1.0, 2.0, 1e40, 0.0]  # 2^265 apart: within MAX_RANGE
    a, b, c = (_state(w, sl) for sl in (slice(0, 2), slice(2, 4), slice(4, 6)))
    left, right = (a + b) + c, a + (b + c)
    assert left.equals(right) and (b + a).equals(a + b)
    assert left.scale.tolist() == [int(np.frexp(3e-40)[1])]
    check_state(left)  # every level still adds up exactly after the shifts


def test_scale_survives_the_round_trip_and_is_checked() -> None:
    df = _frame([1e-300, 2e-300, 1e-300, 0.0])
    acc = calreport.Accumulator(**ROLES).update(df)
    again = calreport.Accumulator.from_json(acc.to_json())
    e = int(np.frexp(2e-300)[1])
    assert again.state.equals(acc.state) and again.state.scale.tolist() == [e]
    assert again.summary()["ece"] == pytest.approx(df.calib(**ROLES).summary()["ece"])
    altered = dataclasses.replace(acc.state, scale=np.array([4000]))
    with pytest.raises(ValueError, match=r"`state\.scale` holds 1 invalid exponents"):
        state_from_dict(state_to_dict(altered), acc.state.config)


def test_parts_too_far_apart_are_refused_with_the_reason() -> None:
    small = calreport.Accumulator(**ROLES).update(_frame([1e-300] * 4))
    large = calreport.Accumulator(**ROLES).update(_frame([1e300] * 4))
    assert MAX_RANGE < 1993
    with pytest.raises(ValueError, match="differ by 2\\^"):
        small + large


@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_second_passes_share_the_first_pass_scale(scale: float) -> None:
    # quantile bins and exact AUC read the rows again: in the units of the merged sums
    import dask.dataframe as dd
    import polars as pl

    rng = np.random.default_rng(3)
    df = pd.DataFrame({"y": rng.integers(0, 2, 40), "p": rng.random(40),
                       "w": rng.random(40) * scale})
    df.loc[:9, "w"] *= 1e-3  # parts with different largest weights
    want = df.calib(**ROLES).summary(strategy="quantile")
    auc = df.calib(**ROLES).summary()["auc"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ddf = dd.from_pandas(df, npartitions=3).calib(**ROLES)
        pdf = pl.from_pandas(df).calib(**ROLES)
        for got in (ddf.summary(strategy="quantile"),
                    pdf.summary(strategy="quantile").to_pandas().iloc[0]):
            assert got["ece"] == pytest.approx(want["ece"], rel=1e-10)
        for got in (ddf.summary(exact_auc=True),
                    pdf.summary(exact_auc=True).to_pandas().iloc[0]):
            assert got["auc"] == pytest.approx(auc, rel=1e-10)
        tests = ddf.calibration_tests()
    assert tests["hl_statistic"] == pytest.approx(
        df.calib(**ROLES).calibration_tests()["hl_statistic"], rel=1e-10)
