"""The single-frame accessor path after its speed and memory work: every fast path
equals the computation it replaces (bit for bit, or to 1e-12 where the order of a
sum changes), and the memory of a summary stays within its bounds."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

import calreport  # noqa: F401  (registers the accessor)
from calreport._roles import _float_matrix, build_profile, resolve_roles
from calreport.metrics import _auc_kernels, bpm, classwise, corp, local, ranking, scoring, selective
from calreport.profile import ConfidenceProfile
from calreport.summary import summarize


def _scores(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    s = rng.beta(2, 2, n)
    if kind == "ties":
        s = np.round(s, 2)
    elif kind == "sorted":
        s = np.sort(s)
    elif kind == "sorted ties":
        s = np.sort(np.round(s, 1))
    return s


KINDS = ["random", "ties", "sorted", "sorted ties"]


# ------------------------------------------------------------------ sorting kernels
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", [1, 2, 7, 5000])
def test_sort_by_score_is_the_lexsort_order(kind, n):
    rng = np.random.default_rng(n)
    s = _scores(kind, n, rng)
    y = rng.random(n) < 0.4
    before = s.copy()
    order = np.lexsort((y, s))
    for outcome in (y, y.astype(np.float64), y.astype(np.int64)):
        got_s, got_y = local._sorted_sample(s, outcome)
        np.testing.assert_array_equal(got_s, s[order])
        np.testing.assert_array_equal(got_y, y[order].astype(np.float64))
        assert got_y.dtype == np.float64
        # TCE_bpm sorts through the same kernel
        bs, bh = bpm._sorted_inputs(s, outcome)
        np.testing.assert_array_equal(bs, s[order])
        np.testing.assert_array_equal(bh, y[order].astype(np.float64))
    np.testing.assert_array_equal(s, before)  # the input is untouched


@pytest.mark.parametrize("shape", ["V", "random", "ties", "sorted", "descending"])
def test_sort_in_place_sorts_like_np_sort(shape):
    rng = np.random.default_rng(2)
    p = np.sort(rng.random(20_000))
    if shape == "ties":
        p = np.round(p, 2)
    conf = np.where(p >= 0.5, p, 1.0 - p)
    keys = {"V": conf, "random": rng.permutation(conf), "ties": conf, "sorted": p,
            "descending": p[::-1].copy()}[shape]
    key = keys.view(np.uint64) << np.uint64(1)
    key |= (rng.random(key.size) < 0.3).astype(np.uint64)
    expected = np.sort(key)
    _auc_kernels.sort_in_place(key)
    np.testing.assert_array_equal(key, expected)
    for tiny in (np.zeros(0, np.uint64), np.array([3], np.uint64), np.array([2, 1], np.uint64)):
        out = tiny.copy()
        _auc_kernels.sort_in_place(out)
        np.testing.assert_array_equal(out, np.sort(tiny))


@pytest.mark.parametrize("kind", KINDS)
def test_auc_of_any_score_order_agrees_with_sklearn(kind):
    rng = np.random.default_rng(3)
    s = _scores(kind, 3000, rng)
    y = (rng.random(3000) < s).astype(np.int64)
    conf = np.where(s >= 0.5, s, 1.0 - s)
    per_auc, per_cw = ranking.auc_cwauc(y, s, conf)
    assert per_auc[1] == pytest.approx(roc_auc_score(y, s), rel=1e-12)
    assert per_cw[1] == pytest.approx(roc_auc_score(y, s, sample_weight=conf), rel=1e-12)
    ss, negative = _auc_kernels._packed_sort(s, y == 1)  # scores sorted, labels kept
    np.testing.assert_array_equal(ss, np.sort(s))
    values, first = np.unique(ss, return_index=True)
    ref = np.unique(s, return_counts=False)
    np.testing.assert_array_equal(values, ref)
    per_score = np.add.reduceat(negative.astype(int), first)
    np.testing.assert_array_equal(per_score, [np.sum((s == v) & (y == 0)) for v in values])


# ------------------------------------------------------------------------- metrics
def test_bpm_warm_start_reaches_the_same_optimum(monkeypatch):
    rng = np.random.default_rng(4)
    s = rng.beta(2, 2, 200_000)
    hit = rng.random(s.size) < s**1.3
    warm = bpm.fit_bpm_curve(s, hit)
    monkeypatch.setattr(bpm, "_WARM_START_BINS", 10**12)  # from the identity
    cold = bpm.fit_bpm_curve(s, hit)
    np.testing.assert_allclose(warm.coef, cold.coef, rtol=1e-12, atol=1e-14)
    assert warm.converged and cold.converged
    assert bpm.tce_bpm(s, hit) == pytest.approx(
        bpm.tce_integral(cold, bpm._moment_beta(np.sort(s))), rel=1e-12)


@pytest.mark.parametrize("kind", ["random", "ties"])
def test_aurc_and_corp_without_ties_equal_the_tie_group_paths(kind):
    rng = np.random.default_rng(5)
    c = _scores(kind, 4000, rng)
    ok = (rng.random(c.size) < c).astype(np.float64)
    # the weighted path (unit weights) groups ties explicitly
    assert selective._aurc_unweighted(c, ok) == pytest.approx(
        selective._aurc(c, ok, np.ones(c.size)), rel=1e-12)
    s, y = local.sort_by_score(c, ok)
    a = corp._decomposition_sorted(s, y, None, "brier")
    b = corp._decomposition_sorted(s, y, np.ones(c.size), "brier")
    for term in ("score", "mcb", "dsc", "unc"):
        assert getattr(a, term) == pytest.approx(getattr(b, term), rel=1e-12, abs=1e-15)


def test_classwise_ece_of_a_column_major_matrix_equals_the_row_major_path():
    rng = np.random.default_rng(6)
    for k in (2, 5):
        p = rng.dirichlet(np.ones(k), 300_000)
        p[:3, :2] = [[0.0, 1.0], [2 / 15, 13 / 15], [1.0, 0.0]]  # bin edges, 0 and 1
        p[:3, 2:] = 0.0
        y = np.minimum((np.cumsum(p, 1) < rng.random(p.shape[0])[:, None]).sum(1), k - 1)
        w = rng.random(p.shape[0])
        for weights in (None, w):
            by_row = classwise.classwise_calibration_errors(y, np.ascontiguousarray(p),
                                                            sample_weight=weights)
            by_col = classwise.classwise_calibration_errors(y, np.asfortranarray(p),
                                                            sample_weight=weights)
            np.testing.assert_allclose(by_col, by_row, rtol=1e-12, atol=1e-16)


def test_multiclass_brier_by_blocks_equals_the_direct_formula():
    rng = np.random.default_rng(7)
    n, k = 10_000, 100  # four blocks of rows
    p = rng.dirichlet(np.ones(k), n)
    y = rng.integers(0, k, n)
    onehot = np.zeros((n, k))
    onehot[np.arange(n), y] = 1.0
    expected = float(((p - onehot) ** 2).sum(axis=1).mean())
    assert scoring.brier_score(y, p) == pytest.approx(expected, rel=1e-13)


# ------------------------------------------------------------------------- profile
def test_class_codes_take_the_smallest_signed_type():
    rng = np.random.default_rng(8)
    for k, dtype in ((2, np.int8), (128, np.int8), (129, np.int16)):
        p = rng.dirichlet(np.ones(k), 500)
        y = rng.integers(0, k, 500)
        prof = ConfidenceProfile.from_arrays(y, p, classes=np.arange(k))
        assert prof.y_true.dtype == dtype and prof.y_pred.dtype == dtype
        np.testing.assert_array_equal(prof.y_true, y)
        np.testing.assert_array_equal(prof.y_pred, p.argmax(1))
        # metrics that compute with the codes (cell = code * bins + bin) do not overflow
        assert summarize(prof, metrics=["classwise_ece", "log_loss"]).values[
            "log_loss"] == pytest.approx(-np.log(np.clip(p[np.arange(500), y], 1e-15,
                                                         1 - 1e-15)).mean(), rel=1e-12)


def test_probability_columns_are_copied_once_and_owned():
    rng = np.random.default_rng(9)
    p = rng.dirichlet(np.ones(6), 1000)
    df = pd.DataFrame(p, columns=[f"proba_{j}" for j in range(6)])
    df.insert(0, "y_true", rng.integers(0, 6, 1000))
    cols = [f"proba_{j}" for j in range(6)]
    m = _float_matrix(df, cols, None)
    assert m.flags.c_contiguous and not np.shares_memory(m, df["proba_0"].to_numpy())
    prof, _, _ = build_profile(df, resolve_roles(df))
    kept = prof.proba.copy()
    df.loc[0, "proba_0"] = 0.5  # the profile does not follow later changes of the frame
    np.testing.assert_array_equal(prof.proba, kept)
    # a fresh matrix handed over is not copied again
    fresh = np.ascontiguousarray(p)
    own = ConfidenceProfile._build(df["y_true"], fresh, handed_over=fresh)
    assert np.shares_memory(own.proba, fresh)
    assert not np.shares_memory(ConfidenceProfile.from_arrays(df["y_true"], fresh).proba,
                                fresh)


def test_take_keeps_the_score_column_and_the_derived_probabilities():
    pm = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6], [0.5, 0.3, 0.2]])
    sub = ConfidenceProfile.from_arrays([0, 1, 1, 0], pm).take(np.array([2, 0]))
    np.testing.assert_array_equal(sub.y_true, [1, 0])
    np.testing.assert_array_equal(sub.conf, [0.6, 0.7])
    np.testing.assert_array_equal(sub.proba, pm[[2, 0]])
    # a two-column binary matrix: the score stays the second column when taken
    two = ConfidenceProfile.from_arrays([0, 1, 1], [[0.8, 0.2], [0.1, 0.9], [0.6, 0.4]])
    assert np.shares_memory(two.score, two.proba)
    full = two.take(np.array([2, 0]))
    assert np.shares_memory(full.score, full.proba) and not full.proba_from_score
    # one score column: the taken profile holds its score and reads [1 - p, p] from it
    binary = ConfidenceProfile.from_arrays([0, 1, 1, 0], [0.2, 0.9, 0.4, 0.3])
    bsub = binary.take(np.array([2, 0]))
    assert bsub.proba_from_score and bsub.proba_width == 2
    np.testing.assert_array_equal(bsub.score, [0.4, 0.2])
    np.testing.assert_array_equal(bsub.proba, [[0.6, 0.4], [0.8, 0.2]])


def test_multiclass_summary_memory_is_about_one_copy_of_the_input():
    rng = np.random.default_rng(11)
    n, k = 40_000, 50
    p = rng.dirichlet(np.ones(k), n)
    df = pd.DataFrame(p, columns=[f"proba_{j}" for j in range(k)], copy=False)
    df.insert(0, "y_true", rng.integers(0, k, n))
    df.iloc[:2000].calib.summary()  # imports and caches outside the measurement
    tracemalloc.start()
    try:
        df.calib.summary()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # one copy of the probabilities (the profile's) plus row-sized temporaries: it
    # was 3.1 copies before (a pandas copy, a C-ordered copy, a sorted copy)
    assert peak < 1.6 * p.nbytes, peak / p.nbytes
