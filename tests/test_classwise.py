"""Class-wise ECE: hand-worked, against the binned ECE per column and Kumar et al.'s code."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from calreport.metrics import binned, classwise
from calreport.metrics.classwise import classwise_calibration_errors, classwise_ece

calibration_utils = pytest.importorskip("calibration.utils")

# 6 rows x 3 classes; every row sums to 1; row 3 has p_0 = 0.5, exactly on the edge
P6 = np.array([
    [0.6, 0.3, 0.1],
    [0.2, 0.7, 0.1],
    [0.1, 0.2, 0.7],
    [0.5, 0.25, 0.25],
    [0.3, 0.3, 0.4],
    [0.8, 0.1, 0.1],
])
Y6 = np.array([0, 1, 1, 2, 0, 0])


def test_hand_worked_six_rows_three_classes():
    # M = 2 bins: B_1 = [0, 0.5], B_2 = (0.5, 1]  (0.5 is right-closed into B_1)
    # class 0: p = .6 .2 .1 .5 .3 .8, 1[y=0] = 1 0 0 0 1 1
    #   B_1 = rows 1,2,3,4: sum p = .2+.1+.5+.3 = 1.1, hits = 1 -> |1 - 1.1| = 0.1
    #   B_2 = rows 0,5:     sum p = .6+.8 = 1.4,       hits = 2 -> |2 - 1.4| = 0.6
    #   ECE_0 = (0.1 + 0.6) / 6 = 0.7 / 6
    # class 1: p = .3 .7 .2 .25 .3 .1, 1[y=1] = 0 1 1 0 0 0
    #   B_1 = rows 0,2,3,4,5: sum p = .3+.2+.25+.3+.1 = 1.15, hits = 1 -> 0.15
    #   B_2 = row 1: p = .7, hits = 1 -> 0.3
    #   ECE_1 = 0.45 / 6
    # class 2: p = .1 .1 .7 .25 .4 .1, 1[y=2] = 0 0 0 1 0 0
    #   B_1 = rows 0,1,3,4,5: sum p = .1+.1+.25+.4+.1 = 0.95, hits = 1 -> 0.05
    #   B_2 = row 2: p = .7, hits = 0 -> 0.7
    #   ECE_2 = 0.75 / 6
    # class-wise ECE = (0.7 + 0.45 + 0.75) / 18 = 1.9 / 18
    per_class = classwise_calibration_errors(Y6, P6, n_bins=2)
    np.testing.assert_allclose(per_class, [0.7 / 6, 0.45 / 6, 0.75 / 6], atol=1e-15)
    assert classwise_ece(Y6, P6, n_bins=2) == pytest.approx(1.9 / 18, abs=1e-15)


def test_hand_worked_with_weights():
    # weight 2 on row 0 and 0 on row 5 (as if row 0 were repeated and row 5 dropped):
    # class 0: B_1 = rows 1-4: |1 - 1.1| = 0.1; B_2 = row 0 (w 2): |2 - 1.2| = 0.8
    #   ECE_0 = 0.9 / 6 (total weight 2+1+1+1+1+0 = 6)
    w = np.array([2.0, 1, 1, 1, 1, 0])
    rep = np.array([0, 0, 1, 2, 3, 4])
    got = classwise_calibration_errors(Y6, P6, n_bins=2, sample_weight=w)
    assert got[0] == pytest.approx(0.9 / 6, abs=1e-15)
    np.testing.assert_allclose(got, classwise_calibration_errors(Y6[rep], P6[rep], n_bins=2),
                               atol=1e-15)


def _random(n, k, seed, edges=False):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(k, 0.7), size=n)
    if edges:
        # many entries exactly on uniform edges m / M and at 0 / 1
        p = np.round(p * 10) / 10
        p[:, -1] = 0.0
        p[:, -1] = 1.0 - p.sum(axis=1)
        p = np.clip(p, 0, 1)
        p /= p.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=row) for row in p[: min(n, 200)]] +
                 list(rng.integers(0, k, max(0, n - 200))))
    return p, y


@pytest.mark.parametrize("n_bins", [1, 2, 10, 15, 40])
@pytest.mark.parametrize("edges", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_equals_mean_of_binned_ece_over_columns(n_bins, edges, weighted):
    p, y = _random(1500, 4, seed=n_bins, edges=edges)
    w = np.random.default_rng(0).exponential(size=y.size) if weighted else None
    ref = [binned.ece(p[:, k], y == k, n_bins=n_bins, sample_weight=w)
           for k in range(p.shape[1])]
    np.testing.assert_allclose(classwise_calibration_errors(y, p, n_bins=n_bins,
                                                            sample_weight=w), ref, atol=1e-13)
    assert classwise_ece(y, p, n_bins=n_bins, sample_weight=w) == pytest.approx(
        np.mean(ref), abs=1e-13)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equals_kumar_marginal_ece(seed):
    # the calibration package's get_ece(mode="marginal") with p = 1 and equal-width bins
    # averages the per-class ECE_1: the same estimator, independent code
    p, y = _random(2000, 5, seed)
    ref = calibration_utils.get_ece(p, y, num_bins=15, mode="marginal")
    assert classwise_ece(y, p) == pytest.approx(ref, abs=1e-12)


def test_blocks_do_not_change_the_result(monkeypatch):
    p, y = _random(997, 3, seed=4)
    whole = classwise_calibration_errors(y, p, sample_weight=np.arange(997.0))
    monkeypatch.setattr(classwise, "_BLOCK_ENTRIES", 10)  # 3 rows per block
    np.testing.assert_allclose(
        classwise_calibration_errors(y, p, sample_weight=np.arange(997.0)), whole, atol=1e-14)


def test_no_n_by_k_temporaries():
    n, k = 100_000, 20
    p, _ = _random(n, k, seed=5)
    p = np.ascontiguousarray(p)
    y = np.random.default_rng(6).integers(0, k, n)
    w = np.ones(n)
    tracemalloc.start()
    classwise._cell_sums(y, p, w, 15)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # the input is n * k * 8 = 16 MB: one N x K float64 or int64 temporary alone would
    # exceed half of it; the blocks keep the peak near 6 MB
    assert peak < n * k * 8 / 2


def test_binary_one_column_is_the_two_columns():
    rng = np.random.default_rng(7)
    s = rng.uniform(size=300)
    y = (rng.uniform(size=300) < s).astype(int)
    two = np.column_stack([1 - s, s])
    assert classwise_ece(y, s) == classwise_ece(y, two)
    assert classwise_calibration_errors(y, s)[1] == pytest.approx(binned.ece(s, y), abs=1e-15)


def test_absent_class_still_counts():
    # class 2 never occurs: its column is compared with 0, ECE_2 = mean p_2
    p = np.array([[0.7, 0.2, 0.1], [0.1, 0.6, 0.3]])
    got = classwise_calibration_errors([0, 1], p, n_bins=1)
    assert got[2] == pytest.approx((0.1 + 0.3) / 2, abs=1e-15)


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match=r"`y_true` has 1 value that is not a class code 0..2"):
        classwise_ece([0, 3], [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
    with pytest.raises(ValueError, match=r"`proba`: 1 row of 2 do not sum to 1"):
        classwise_ece([0, 1], [[0.2, 0.3, 0.6], [0.1, 0.1, 0.8]])
    with pytest.raises(ValueError, match=r"`y_true` has 3, `proba` has 2"):
        classwise_ece([0, 1, 1], [[0.2, 0.8], [0.1, 0.9]])
    with pytest.raises(ValueError, match=r"`n_bins` must be a positive integer"):
        classwise_ece([0, 1], [[0.2, 0.8], [0.1, 0.9]], n_bins=0)
    with pytest.raises(ValueError, match=r"`sample_weight` has 1 negative value"):
        classwise_ece([0, 1], [[0.2, 0.8], [0.1, 0.9]], sample_weight=[1, -1])
