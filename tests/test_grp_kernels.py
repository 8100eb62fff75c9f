"""Grouped kernels of the refitted metrics: every group's value equals the metric
computed on that group's rows alone (the per-group loop they replace)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from calreport.metrics import (
    _risk_batch,
    calibration_index,
    classwise,
    corp,
    debiased,
    local,
    smooth,
)
from calreport.metrics._grouped_binned import grouped_classwise_ece, grouped_debiased_ece
from calreport.metrics._grouped_corp import grouped_corp, grouped_pav
from calreport.metrics._grouped_local import grouped_lcs_eci
from calreport.metrics._grouped_smooth import grouped_smece


def _groups(seed: int, weighted: bool = False):
    """Rows of awkward groups in shuffled order: 1-3 rows, constant scores, one class
    only, scores exactly 0 or 1, and ordinary groups of varied size."""
    rng = np.random.default_rng(seed)
    parts = [
        (np.array([0.7]), np.array([1.0])),
        (np.array([0.2, 0.9]), np.array([0.0, 1.0])),
        (np.array([0.5, 0.5, 0.5]), np.array([1.0, 0.0, 1.0])),
        (np.full(20, 0.8), np.ones(20)),                       # constant, one class
        (rng.uniform(size=30), np.zeros(30)),                  # one class only
        (np.r_[np.zeros(5), np.ones(5), rng.uniform(size=10)], rng.integers(0, 2, 20) * 1.0),
        (np.full(12, 0.0), np.zeros(12)),                      # every score 0
    ]
    for n in rng.integers(4, 90, 25):
        s = rng.beta(2, 2, n)
        parts.append((s, (rng.random(n) < s**1.3).astype(float)))
    codes = np.concatenate([np.full(len(s), i) for i, (s, _) in enumerate(parts)])
    s = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    perm = rng.permutation(s.size)
    w = None
    if weighted:
        w = rng.uniform(0.1, 3.0, s.size)
        w[rng.random(s.size) < 0.1] = 0.0
        w[codes == 1] = [0.0, 2.0]  # a group left with one row of positive weight
    return s[perm], y[perm], (None if w is None else w[perm]), codes[perm], len(parts)


def _alone(fn, s, y, w, codes, n_groups, **kw):
    out = []
    for g in range(n_groups):
        m = codes == g
        out.append(fn(s[m], y[m], **({} if w is None else {"sample_weight": w[m]}), **kw))
    return np.array(out)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("boundary", ["relplot", "reflect"])
def test_grouped_smece_equals_each_group_alone(weighted, boundary):
    s, y, w, codes, n = _groups(3, weighted)
    got = grouped_smece(s, y, w, codes, n, boundary=boundary)
    ref = _alone(smooth.smece, s, y, w, codes, n, boundary=boundary)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-13)


def test_grouped_smece_bandwidths_below_the_common_grid():
    # near-perfectly calibrated large groups: sigma* < 0.01 uses a finer node grid
    rng = np.random.default_rng(5)
    sizes = [50_000, 20_000, 300]
    s = rng.uniform(size=sum(sizes))
    y = (rng.random(s.size) < s).astype(float)
    codes = np.repeat([0, 1, 2], sizes)
    got = grouped_smece(s, y, None, codes, 4)  # group 3 has no rows
    ref = _alone(smooth.smece, s, y, None, codes, 3)
    # the search of group 0 ends below sigma = 0.01, on a finer node grid
    assert smooth.smece_bandwidth(s[codes == 0], y[codes == 0]) < 0.01
    np.testing.assert_allclose(got[:3], ref, rtol=1e-12, atol=1e-13)
    assert np.isnan(got[3])


def test_grouped_smece_through_the_accessor_matches_subsets():
    s, y, _, codes, n = _groups(11)
    df = pd.DataFrame({"y_true": y.astype(int), "proba": s, "g": codes})
    grouped = df.groupby("g").calib(y="y_true", proba="proba").summary(
        metrics=["accuracy", "smece"])
    for g in range(n):
        alone = df[df["g"] == g].calib(y="y_true", proba="proba").smece()
        assert grouped.loc[g, "smece"] == pytest.approx(alone, rel=1e-12, abs=1e-13), g


@pytest.mark.parametrize("n_bins", [1, 3, 15])
def test_grouped_debiased_ece_equals_each_group_alone(n_bins):
    s, y, _, codes, n = _groups(4)
    s = np.round(s, 2)  # ties inside and across the equal-mass edges
    got = grouped_debiased_ece(s, y, codes, n + 1, n_bins)  # the last group is empty
    ref = _alone(debiased.debiased_ece, s, y, None, codes, n, n_bins=n_bins)
    np.testing.assert_allclose(got[:n], ref, rtol=1e-12, atol=1e-14)
    assert np.isnan(got[n])


@pytest.mark.parametrize("k", [2, 4])
@pytest.mark.parametrize("weighted", [False, True])
def test_grouped_classwise_ece_equals_each_group_alone(k, weighted):
    rng = np.random.default_rng(k)
    n = 400
    logits = rng.normal(size=(n, k)) * 2
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    p[:5] = np.eye(k)[0]  # probabilities exactly on the bin edges 0 and 1
    y = rng.integers(0, k, n)
    codes = np.minimum(rng.geometric(0.15, n) - 1, 30)  # groups of 1 to ~60 rows
    w = rng.uniform(0.0, 2.0, n) if weighted else None
    got = grouped_classwise_ece(y, p, w, codes, 31, 15)
    for g in np.unique(codes):
        m = codes == g
        ref = classwise.classwise_ece(y[m], p[m], n_bins=15,
                                      sample_weight=None if w is None else w[m])
        assert got[g] == pytest.approx(ref, rel=1e-12, abs=1e-15), g


def _lcs_eci_alone(s, y):
    ss, yy = local._sorted_sample(s, y)
    try:
        frac, k = local._check_sorted(ss, "lowess", local.DEFAULT_FRAC)
    except ValueError as exc:
        return np.nan, np.nan, str(exc)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # no grid point in range: NaN
        lcs = local._lcs_sorted(ss, yy, method="lowess", frac=frac, k=k)
    return lcs, calibration_index._eci_sorted(ss, yy, method="lowess", frac=frac, k=k), None


@pytest.mark.parametrize("seed", [0, 1])
def test_grouped_lcs_eci_equal_each_group_alone(seed):
    s, y, _, codes, n = _groups(seed)
    rng = np.random.default_rng(seed)
    # a large group (single-group path), ties on the LCS grid, a narrow score range
    big = rng.uniform(size=700)
    extra = [(big, (rng.random(700) < big).astype(float)),
             (np.r_[np.full(10, 1 / 3), np.full(10, 2 / 3), rng.uniform(size=20)],
              rng.integers(0, 2, 40) * 1.0),
             (0.5 + rng.uniform(size=30) * 0.005, rng.integers(0, 2, 30) * 1.0),
             (np.r_[np.full(15, 99 / 99), np.linspace(0, 1, 15)], np.ones(30))]
    for xs, ys in extra:
        s, y, codes = np.r_[s, xs], np.r_[y, ys], np.r_[codes, np.full(xs.size, n)]
        n += 1
    s = np.where(rng.random(s.size) < 0.2, np.round(s, 2), s)
    lcs, eci, why = grouped_lcs_eci(s, y, codes, n + 1)  # the last group has no rows
    for g in range(n):
        m = codes == g
        ref_lcs, ref_eci, ref_why = _lcs_eci_alone(s[m], y[m])
        assert lcs[g] == pytest.approx(ref_lcs, rel=1e-11, abs=1e-15, nan_ok=True), g
        assert eci[g] == pytest.approx(ref_eci, rel=1e-11, abs=1e-13, nan_ok=True), g
        assert why.get(g) == ref_why, g
    assert np.isnan(lcs[n]) and np.isnan(eci[n]) and n not in why
    assert sum(r is not None for r in why.values()) >= 3  # 1-3 rows, constant scores


@pytest.mark.parametrize("weighted", [False, True])
def test_grouped_corp_equals_each_group_alone(weighted):
    s, y, w, codes, n = _groups(7, weighted)
    s = np.where(np.arange(s.size) % 3 == 0, np.round(s, 1), s)  # tied scores
    mcb, dsc, unc = grouped_corp(s, y, w, codes, n + 1)
    for g in range(n):
        m = codes == g
        if w is not None and not np.any(w[m] > 0):
            continue
        ref = corp.corp_decomposition(s[m], y[m], rule="brier",
                                      sample_weight=None if w is None else w[m])
        for got, want in ((mcb, ref.mcb), (dsc, ref.dsc), (unc, ref.unc)):
            assert got[g] == pytest.approx(want, rel=1e-12, abs=1e-14), g
    assert np.isnan(mcb[n]) and np.isnan(unc[n])


def test_grouped_pav_matches_scipy_per_group():
    from scipy.optimize import isotonic_regression

    rng = np.random.default_rng(2)
    sizes = rng.integers(1, 40, 60)
    group = np.repeat(np.arange(60), sizes)
    vals = rng.normal(size=group.size)
    wts = rng.uniform(0.1, 2.0, group.size)
    got = grouped_pav(vals, wts, group)
    for g in range(60):
        m = group == g
        ref = isotonic_regression(vals[m], weights=wts[m]).x
        np.testing.assert_allclose(got[m], ref, rtol=1e-12, atol=1e-14)


def test_grouped_pav_large_groups_use_the_single_group_fit():
    rng = np.random.default_rng(4)
    group = np.repeat([0, 1, 2], [5000, 30, 2500])
    vals = rng.normal(size=group.size) + np.linspace(0, 3, group.size)
    wts = rng.uniform(0.1, 2.0, group.size)
    got = grouped_pav(vals, wts, group)
    for g in range(3):
        m = group == g
        np.testing.assert_allclose(got[m], corp._pav_pooled(vals[m], wts[m]),
                                   rtol=1e-12, atol=1e-14)


def _assorted(seed: int, n_groups: int, weighted: bool):
    """Groups of 1 to ~400 rows with assorted calibration: the search starts far
    from some fixed points (widths from below 0.01 to 1)."""
    rng = np.random.default_rng(seed)
    sizes = np.r_[1, 2, 3, rng.integers(1, 400, n_groups - 3)]
    parts = []
    for i, n in enumerate(sizes):
        s = rng.beta(*rng.uniform(0.3, 4.0, 2), n)
        if i % 7 == 0:
            s = np.round(s, 1)  # ties
        if i % 11 == 0:
            y = np.ones(n)  # all correct
        else:
            y = (rng.random(n) < s ** rng.uniform(0.2, 5.0)).astype(float)
        parts.append((s, y))
    codes = np.repeat(np.arange(n_groups), sizes)
    s = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    w = rng.uniform(0.0, 3.0, s.size) if weighted else None
    perm = rng.permutation(s.size)
    return s[perm], y[perm], None if w is None else w[perm], codes[perm]


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("boundary", ["relplot", "reflect"])
def test_grouped_smece_search_finds_the_bisection_width(weighted, boundary):
    # the grouped search (secant steps on the grid of widths) ends where the
    # single-group bisection does: same value, group by group
    s, y, w, codes = _assorted(21 + weighted, 120, weighted)
    got = grouped_smece(s, y, w, codes, 120, boundary=boundary)
    ref = _alone(smooth.smece, s, y, w, codes, 120, boundary=boundary)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-13)


def test_grouped_smece_wide_and_narrow_widths():
    # a fixed point at sigma = 1 (the widest width), one near 0.5 and one below 0.01
    rng = np.random.default_rng(8)
    big = rng.uniform(size=40_000)
    parts = [(np.zeros(3), np.ones(3)), (np.array([0.05, 0.9]), np.array([1.0, 0.0])),
             (big, (rng.random(big.size) < big).astype(float))]
    codes = np.concatenate([np.full(p[0].size, i) for i, p in enumerate(parts)])
    s = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    got = grouped_smece(s, y, None, codes, 3)
    ref = _alone(smooth.smece, s, y, None, codes, 3)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-13)
    widths = [smooth.smece_bandwidth(s[codes == g], y[codes == g]) for g in range(3)]
    assert widths[0] == 1.0 and widths[1] > 0.4 and widths[2] < 0.01


@pytest.mark.parametrize("reach", [None, 0.0])
def test_grouped_lcs_eci_scores_on_the_grid_and_kernel_widths(reach, monkeypatch):
    # scores exactly on the LCS grid (ties at the queries), groups of 2 to 201 rows
    # (the last on the single-group path); the KDE weights as products of powers,
    # or (reach 0) by the direct sums every group would take with a narrow kernel
    if reach is not None:
        monkeypatch.setattr("calreport.metrics._grouped_local._PRODUCT_REACH", reach)
    rng = np.random.default_rng(17)
    grid = np.linspace(0.0, 1.0, 100)
    parts = []
    for i, n in enumerate([2, 5, 7, 13, 14, 40, 66, 120, 199, 200, 201]):
        s = rng.beta(2, 2, n)
        if i % 2 == 0:
            s = grid[rng.integers(0, 100, n)]
        if i % 3 == 0:
            s = 0.3 + 0.02 * s  # narrow range: small bandwidth
        parts.append((s, (rng.random(n) < s).astype(float)))
    codes = np.concatenate([np.full(p[0].size, i) for i, p in enumerate(parts)])
    s = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    perm = rng.permutation(s.size)
    s, y, codes = s[perm], y[perm], codes[perm]
    lcs, eci, why = grouped_lcs_eci(s, y, codes, len(parts))
    for g in range(len(parts)):
        m = codes == g
        ref_lcs, ref_eci, ref_why = _lcs_eci_alone(s[m], y[m])
        assert lcs[g] == pytest.approx(ref_lcs, rel=1e-11, abs=1e-15, nan_ok=True), g
        assert eci[g] == pytest.approx(ref_eci, rel=1e-11, abs=1e-13, nan_ok=True), g
        assert why.get(g) == ref_why, g


def test_scatter_of_segments_equals_bincount_bit_for_bit():
    # the GIL-releasing scatter of the Monte Carlo null adds the same terms in the
    # same order as bincount of the repeated values: equal to the last bit
    from calreport.metrics import _risk_draws

    rng = np.random.default_rng(11)
    counts = rng.integers(0, 6, 400)
    counts[:3] = 0  # empty segments at the start, as after a tile's filter
    ends = np.cumsum(counts).astype(np.int32)
    keys = rng.integers(0, 300, int(ends[-1])).astype(np.int32)
    value = rng.normal(size=counts.size) * 10.0 ** rng.integers(-8, 8, counts.size)
    got = _risk_draws._segment_scatter(keys, ends, value, 300)
    want = np.bincount(keys, weights=np.repeat(value, counts), minlength=300)
    np.testing.assert_array_equal(got, want)
    empty = _risk_draws._segment_scatter(np.zeros(0, np.int32), np.zeros(0, np.int32),
                                         np.zeros(0), 5)
    np.testing.assert_array_equal(empty, np.zeros(5))


@pytest.mark.parametrize("per_tile", ["one", "a few", "all"])
def test_pooled_null_draws_do_not_depend_on_the_tile_size(per_tile, monkeypatch):
    # one group per tile, a few, or all at once: the same draws to the last bit.  A
    # tile holds _PAIRS // (draws x largest group) groups and its key table about
    # 2 x _PAIRS int32 entries, so "all" is the least _PAIRS that puts the 30 groups
    # in one tile at the full 20,000 draws (about 0.3 GB), not 2**30 (8 GB)
    from calreport.metrics import _risk_draws
    from calreport.metrics._risk_rows import N_SIM

    rng = np.random.default_rng(12)
    codes = np.repeat(np.arange(30), rng.integers(5, 60, 30))
    c = rng.beta(5, 2, codes.size)
    ok = rng.random(c.size) < c ** 3.0  # overconfident: most groups are simulated
    groups = [(c[codes == g], ok[codes == g], None) for g in range(30)]
    want = _risk_batch.p_risk_many(groups, eps=1e-8, method="auto", seed=2)
    n_max = int(np.bincount(codes).max())
    # "a few": 4 groups a tile at the first look's 1,000 draws, 1 at 20,000
    pairs = {"one": 1, "a few": 4 * n_max * 1000, "all": 30 * n_max * N_SIM}[per_tile]
    monkeypatch.setattr(_risk_draws, "_PAIRS", pairs)
    got = _risk_batch.p_risk_many(groups, eps=1e-8, method="auto", seed=2)
    assert sum(m == "monte_carlo" for _, m in want) >= 10
    assert got == want


@pytest.mark.parametrize("block", [2, 5, 4096])
def test_grouped_smece_blocks_of_pairs_do_not_change_values(block, monkeypatch):
    # transformed a few pairs at a time or all at once: the same values to the last
    # bit (a lone last row joins the block before it)
    from calreport.metrics import _grouped_smooth

    rng = np.random.default_rng(27)
    codes = np.repeat(np.arange(131), 50)
    s = rng.beta(2, 2, codes.size)
    y = (rng.random(codes.size) < s**1.2).astype(float)
    want = grouped_smece(s, y, None, codes, 131)
    monkeypatch.setattr(_grouped_smooth, "_BLOCK", block)
    np.testing.assert_array_equal(grouped_smece(s, y, None, codes, 131), want)
    s, y, w, codes, n = _groups(5, weighted=True)
    got = grouped_smece(s, y, w, codes, n)
    monkeypatch.setattr(_grouped_smooth, "_BLOCK", 128)
    np.testing.assert_array_equal(got, grouped_smece(s, y, w, codes, n))


@pytest.mark.parametrize("rows", [0, 1, 500])
@pytest.mark.parametrize("n_keys", [7, 50, 3000])
def test_rows_up_to_equals_searchsorted(n_keys, rows):
    # the cumulated key counts (taken where n_keys <= 4 rows + 1024; 0 or 1 row with
    # 3000 keys takes searchsorted itself) equal searchsorted
    from calreport.metrics._grouped_local import _rows_up_to

    rng = np.random.default_rng(n_keys + rows)
    keys = np.sort(rng.integers(0, n_keys, rows))
    query = np.r_[rng.integers(0, n_keys, 300), 0, n_keys - 1]
    np.testing.assert_array_equal(_rows_up_to(keys, query, n_keys),
                                  np.searchsorted(keys, query, side="right"))
