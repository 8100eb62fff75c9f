"""What a binary profile holds, and the metrics that read a chunk of rows at a time.

A binary profile read from one score column holds the score and derives ``[1 - p, p]``
from it on each read: the bits ``from_arrays`` computed when it stored them.  The
CORP and TCE_bpm fits read their bins or rows in chunks
(``calreport.metrics._chunks.ROWS``, set small here).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import isotonic_regression

from calreport import ConfidenceProfile
from calreport._grouping import split_frame
from calreport._roles import resolve_roles
from calreport.metrics import _chunks, bpm, corp, scoring
from calreport.metrics.classwise import classwise_ece


def _binary(n: int = 2_000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, n)
    p[::11] = 0.5  # on the threshold
    return (rng.random(n) < p).astype(int), p


def _held(prof: ConfidenceProfile) -> int:
    return sum(a.nbytes for a in vars(prof).values() if isinstance(a, np.ndarray))


@pytest.mark.parametrize("threshold", [0.5, 0.3])
def test_binary_profile_derives_the_stored_arrays_bit_for_bit(threshold):
    y, p = _binary()
    prof = ConfidenceProfile.from_arrays(y, p, threshold=threshold)
    predicted = p >= threshold
    # the arrays from_arrays stored before: [1 - p, p] and where(predicted, p, 1 - p)
    full = np.column_stack([1.0 - p, p])
    assert prof.proba_from_score and prof.has_proba and prof.proba_width == 2
    assert np.array_equal(prof.proba, full) and prof.proba.flags.f_contiguous
    assert np.array_equal(prof.conf, np.where(predicted, p, 1.0 - p))
    assert np.array_equal(prof.correct, (y == 1) == predicted)
    assert np.array_equal(prof.y_pred, predicted.astype(np.int8))
    assert not prof.proba.flags.writeable
    # conf, score and the three 1-byte code arrays: no N x 2 matrix
    assert _held(prof) <= 19 * y.size + 64
    # a replaced field leaves the others derived
    weighted = prof.replace(sample_weight=np.ones(y.size))
    assert weighted.proba_from_score and _held(weighted) <= 27 * y.size + 64
    assert np.array_equal(weighted.proba, full)


def test_a_two_column_matrix_is_held_and_read_column_by_column():
    # p0 + p1 within the tolerance of 1 but not 1: log loss reads column 0 itself
    m = np.array([[0.7 + 1e-9, 0.3], [0.2, 0.8], [1e-12, 1.0 - 1e-9]])
    prof = ConfidenceProfile.from_arrays([0, 1, 0], m)
    assert not prof.proba_from_score and np.array_equal(prof.proba, m)
    from calreport.registry import REGISTRY
    from calreport.settings import Settings
    value = REGISTRY["log_loss"].compute(prof, Settings(), None)
    assert value == scoring.log_loss([0, 1, 0], m)
    assert value != scoring.log_loss([0, 1, 0], m[:, 1])


def test_log_loss_and_classwise_ece_of_one_column_equal_the_two_columns():
    from sklearn.metrics import log_loss

    y, p = _binary(5_000, seed=2)
    assert scoring.log_loss(y, p) == pytest.approx(log_loss(y, np.column_stack([1 - p, p])),
                                                   rel=1e-12)
    assert scoring.log_loss(y.astype(bool), p) == scoring.log_loss(y, p)
    assert classwise_ece(y, p, n_bins=10) == pytest.approx(
        classwise_ece(y, np.column_stack([1.0 - p, p]), n_bins=10), rel=1e-12, abs=1e-15)


def test_the_score_never_shares_the_callers_memory():
    import array

    buf = array.array("d", [0.2, 0.7, 0.4, 0.3])
    prof = ConfidenceProfile.from_arrays([0, 1, 1, 0], buf)
    buf[1] = 0.1  # the caller's buffer changes; the profile does not
    np.testing.assert_array_equal(prof.score, [0.2, 0.7, 0.4, 0.3])
    np.testing.assert_array_equal(prof.y_pred, [0, 1, 0, 0])
    raw = np.array([0.2, 0.7, 0.4])
    view = ConfidenceProfile.from_arrays([0, 1, 1], memoryview(raw))
    assert not np.shares_memory(view.score, raw)


def test_an_ungrouped_split_holds_no_row_positions():
    y, p = _binary(1_000)
    df = pd.DataFrame({"y_true": y, "proba": p})
    split = split_frame(df, resolve_roles(df))
    (group,) = split.groups
    assert group.size == 1_000 and isinstance(vars(group)["_rows"], int)
    assert np.array_equal(group.rows, np.arange(1_000))
    df.loc[3, "proba"] = np.nan
    split = split_frame(df, resolve_roles(df, missing="drop"))
    assert split.groups[0].size == 999 and split.groups[0].n_dropped == 1
    assert np.array_equal(split.groups[0].rows, np.arange(999))


# --- CORP: the isotonic fit's blocks, a chunk at a time -------------------------------


def _blocks_by_brute_force(e: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sums of events and weights over the runs of equal value of one whole fit."""
    fit = isotonic_regression(e / w, weights=w).x
    key = np.cumsum(np.r_[True, np.abs(np.diff(fit)) > 1e-12])
    return np.bincount(key, weights=e)[1:], np.bincount(key, weights=w)[1:]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(1, 3)), min_size=1, max_size=80),
       st.integers(1, 9))
def test_pav_blocks_in_chunks_equal_one_fit(rows, chunk):
    """Property: pooling adjacent violators chunk by chunk, then across the chunks'
    blocks, gives the blocks of one fit of all rows (events ``k`` of ``m`` trials)."""
    e = np.array([min(k, m) for k, m in rows], dtype=float)
    w = np.array([m for _, m in rows], dtype=float)
    old, _chunks.ROWS = _chunks.ROWS, chunk
    try:
        got = corp._pav_blocks(e, w)
        unit = corp._pav_blocks((e > 0).astype(float), None)
    finally:
        _chunks.ROWS = old
    for (got_e, got_w), (ee, ww) in ((got, (e, w)), (unit, ((e > 0) * 1.0, np.ones(e.size)))):
        want_e, want_w = _blocks_by_brute_force(ee, ww)
        np.testing.assert_allclose(got_e, want_e, rtol=1e-12)
        np.testing.assert_allclose(got_w, want_w, rtol=1e-12)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_corp_decomposition_does_not_depend_on_the_chunk_size(monkeypatch, ties, weighted):
    rng = np.random.default_rng(5)
    s = rng.beta(2, 3, 4_001)
    if ties:
        s = np.round(s, 2)
    y = rng.random(s.size) < s ** 1.4
    w = rng.uniform(0.2, 2.0, s.size) if weighted else None
    whole = corp.corp_decomposition(s, y, sample_weight=w).terms
    monkeypatch.setattr(_chunks, "ROWS", 37)
    np.testing.assert_allclose(corp.corp_decomposition(s, y, sample_weight=w).terms, whole,
                               rtol=1e-12, atol=1e-15)


# --- TCE_bpm: the Newton fit's sums over bins, a chunk at a time -----------------------


@pytest.mark.parametrize("power", [1.0, 0.5, 2.0])
def test_bpm_fit_does_not_depend_on_the_chunk_size(monkeypatch, power):
    rng = np.random.default_rng(6)
    s = rng.beta(2, 2, 30_000)
    y = rng.random(s.size) < s ** power
    _no_fallback(monkeypatch)  # both fits end at a Newton optimum
    fit = bpm.fit_bpm_curve(s, y)
    tce = bpm.tce_bpm(s, y)
    monkeypatch.setattr(_chunks, "ROWS", 53)  # the fit has about 10,000 bins
    chunked = bpm.fit_bpm_curve(s, y)
    # the same optimum to the fit's own tolerance: the likelihood is flat to rounding
    # within about 1e-7 of the coefficients (sums in another order move the point the
    # Newton steps stop at by that much; TCE moves by about 1e-10)
    assert chunked.converged and chunked.log_likelihood == pytest.approx(
        fit.log_likelihood, rel=1e-13)
    np.testing.assert_allclose([chunked.a, chunked.b, chunked.c], [fit.a, fit.b, fit.c],
                               rtol=1e-6, atol=1e-9)
    assert bpm.tce_bpm(s, y) == pytest.approx(tce, abs=1e-9)


def test_bpm_newton_fit_stops_at_the_rounding_floor(monkeypatch):
    """Steps that cannot lower the loss by more than its rounding end the fit (they
    used to repeat, each with its backtracking, until the 60-step limit)."""
    from calreport.metrics import _bpm_fit

    rng = np.random.default_rng(0)
    s = rng.beta(2, 2, 500_000)
    y = rng.random(s.size) < s ** 1.2
    calls = []
    loss = _bpm_fit._loss
    monkeypatch.setattr(_bpm_fit, "_loss", lambda *a: calls.append(1) or loss(*a))
    _no_fallback(monkeypatch)
    fit = bpm.fit_bpm_curve(s, y)
    assert fit.converged and len(calls) < 40


def _no_fallback(monkeypatch):
    """Fail if the Newton fit gives up and L-BFGS-B takes over."""
    def minimize(*args, **kw):
        raise AssertionError("the Newton fit fell back to L-BFGS-B")
    monkeypatch.setattr(bpm.optimize, "minimize", minimize)


@pytest.mark.parametrize("kind", ["score", "two columns", "multiclass"])
def test_true_class_proba_reads_the_true_column(kind):
    rng = np.random.default_rng(8)
    if kind == "multiclass":
        y, m = rng.integers(0, 4, 500), rng.dirichlet(np.ones(4), 500)
        prof = ConfidenceProfile.from_arrays(y, m)
    else:
        y, p = _binary(500, seed=8)
        # two columns that do not sum to 1 exactly: column 0 is read, not 1 - p1
        m = np.column_stack([1.0 - p + 1e-9, p]) if kind == "two columns" else None
        prof = ConfidenceProfile.from_arrays(y, p if m is None else m)
        m = np.column_stack([1.0 - p, p]) if m is None else m
    want = m[np.arange(y.size), y]
    assert np.array_equal(prof.true_class_proba(), want)
    rows = np.array([5, 1, 1, 499])
    assert np.array_equal(prof.true_class_proba(rows), want[rows])
