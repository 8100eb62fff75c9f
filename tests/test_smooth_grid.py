"""Smooth ECE out of core from its node-grid sums: the pandas value, merged in any order."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calreport  # noqa: F401
from calreport.accumulator import Accumulator
from calreport.metrics.smooth import smece
from calreport.profile import ConfidenceProfile
from calreport.stats import smooth_grid as sg
from calreport.stats.config import StatsConfig
from calreport.stats.sampled import full_table
from calreport.stats.state import StatsState
from calreport.stats.store import state_from_dict, state_to_dict


def _state(y, p, w=None, codes=None, keys=None, cfg=None):
    # raw weights, as the out-of-core paths keep them (no rescaling per partition)
    prof = ConfidenceProfile.from_arrays(y, p, sample_weight=w, normalize_weights=False)
    return StatsState.from_profile(prof, config=cfg, codes=codes, keys=keys)


def _reference(y, p, w=None):
    prof = ConfidenceProfile.from_arrays(y, p, sample_weight=w)
    s, out = prof.view()
    return smece(s, out, sample_weight=w)


@given(st.integers(1, 400), st.integers(1, 6), st.booleans(), st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_merged_partitions_give_the_pandas_smooth_ece(n, parts, weighted, seed):
    rng = np.random.default_rng(seed)
    p = rng.random(n) ** rng.uniform(0.3, 3.0)
    y = (rng.random(n) < p ** rng.uniform(0.5, 2.0)).astype(int)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    w = rng.gamma(1.0, 2.0, n) if weighted else None
    states = [_state(y[i], p[i], None if w is None else w[i])
              for i in np.array_split(rng.permutation(n), parts) if i.size]
    merged = sum(states[1:], states[0])
    table = full_table(merged)
    assert table.kinds["smece"] == "exact"
    # the finish rescales the merged weights to mean 1, as the pandas path does
    ref = _reference(y, p, w)
    assert table.values["smece"][0] == pytest.approx(ref, rel=1e-12, abs=1e-14)


def test_the_search_only_asks_for_stored_grids():
    """Every width the bisection can evaluate has its node grid in the state (a
    missing grid raises ValueError in the stored smoother)."""
    rng = np.random.default_rng(3)
    for trial in range(60):
        n = int(rng.integers(2, 3000))
        p = rng.random(n) ** rng.uniform(0.2, 4.0)
        # from perfectly calibrated (tiny bandwidth) to badly miscalibrated
        y = (rng.random(n) < np.clip(p + rng.uniform(-0.5, 0.5), 0, 1)).astype(int)
        if trial % 5 == 0:
            y = (rng.random(n) < p).astype(int)
        masses = sg.grid_masses(ConfidenceProfile.from_arrays(y, p),
                                np.zeros(n, dtype=np.intp), [()])
        s, out = ConfidenceProfile.from_arrays(y, p).view()
        got = sg.smece_from_masses(masses[()]["positive"], n, float(n))
        assert got == pytest.approx(smece(s, out), rel=1e-12, abs=1e-15)


def test_more_groups_than_the_limit_fall_back_to_the_sample_in_any_merge_order():
    rng = np.random.default_rng(5)
    n = 600
    p, y = rng.random(n), rng.integers(0, 2, n)
    cfg = StatsConfig(smooth_groups=2)
    a = _state(y[:200], p[:200], codes=np.zeros(200, np.intp), keys=["a"], cfg=cfg)
    b = _state(y[200:400], p[200:400], codes=np.zeros(200, np.intp), keys=["b"], cfg=cfg)
    c = _state(y[400:], p[400:], codes=np.zeros(200, np.intp), keys=["c"], cfg=cfg)
    assert (a + b).smooth is not None
    for total in ((a + b) + c, a + (b + c), (c + a) + b):
        assert total.smooth is None
        table = full_table(total)
        assert table.kinds["smece"] == "sampled"
        assert all("sample_size" in r for r in table.reasons["smece"])
    # a group count within the limit: exact, and the pooled state too
    ab = a + b
    assert full_table(ab).kinds["smece"] == "exact"
    pooled = full_table(ab.pooled())
    assert pooled.values["smece"][0] == pytest.approx(_reference(y[:400], p[:400]), rel=1e-12)


def test_store_round_trip_and_accumulator_batches():
    rng = np.random.default_rng(8)
    n = 5000
    p = rng.random(n)
    df = pd.DataFrame({"y": (rng.random(n) < p**1.4).astype(int), "p": p,
                       "g": rng.choice(["m1", "m2"], n)})
    acc = Accumulator(y="y", proba="p", by="g", classes=[0, 1])
    for rows in np.array_split(np.arange(n), 10):
        acc.update(df.iloc[rows])
    got = acc.summary()
    ref = df.groupby("g").calib(y="y", proba="p").summary()
    np.testing.assert_allclose(got["smece"], ref["smece"], rtol=1e-12)
    assert got.attrs["kinds"]["smece"] == "exact"
    back = state_from_dict(state_to_dict(acc.state), acc.state.config)
    assert back.smooth.keys() == acc.state.smooth.keys()
    for key, views in acc.state.smooth.items():
        for view, m in views.items():
            assert np.array_equal(back.smooth[key][view], m)
    # another view than the stored one: the sample, with the reason
    other = acc.summary(view="top_label")
    assert np.isnan(other["smece"]).all()
    assert other.attrs["kinds"]["smece"] == "sampled"
