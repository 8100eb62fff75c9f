"""Sort orders and per-tile class vectors of the bootstrap kernels.

Each helper that replaced a full sort or an N-row array is checked against the
computation it replaced (a stable ``argsort``, the sorted copy, the held vectors).
"""

from __future__ import annotations

import numpy as np
import pytest
from _profiles import beta_profile

import calreport.bootstrap._tiles as tiles
import calreport.bootstrap.kernels as bs
from calreport import ConfidenceProfile
from calreport.bootstrap._rows import _canonical_keys
from calreport.bootstrap._tiles import (
    _descending_order,
    _rowdot,
    _score_order,
    _tie_starts,
    _tie_starts_of,
)
from calreport.bootstrap.kernels import Kernels, bootstrap_replicates, canonical_order
from calreport.registry import REGISTRY
from calreport.settings import Settings

BATCHED = [m for m, spec in REGISTRY.items() if spec.interval.kind == "bootstrap"]


def _values(n: int, distinct: int | None, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if distinct is None:
        return rng.random(n)
    return rng.integers(0, distinct, n) / max(distinct - 1, 1)


@pytest.mark.parametrize("n", [0, 1, 2, 9, 1000])
@pytest.mark.parametrize("distinct", [None, 1, 3, 50])
def test_descending_order_is_the_stable_argsort(n, distinct):
    """Sorted input: runs of ties taken last to first equal argsort(-x, stable)."""
    x = np.sort(_values(n, distinct, seed=n))
    ordered, starts = _descending_order(x)
    ref = np.argsort(-x, kind="stable")
    np.testing.assert_array_equal(ordered, ref)
    ref_starts = _tie_starts(x[ref])
    if ref_starts is None:
        assert starts is None
    else:
        np.testing.assert_array_equal(starts, ref_starts)


def test_descending_order_of_unsorted_input_falls_back_to_the_sort():
    x = _values(500, 7, seed=1)
    ordered, starts = _descending_order(x)
    np.testing.assert_array_equal(ordered, np.argsort(-x, kind="stable"))
    np.testing.assert_array_equal(starts, _tie_starts(x[ordered]))


@pytest.mark.parametrize("distinct", [None, 2, 40])
def test_tie_starts_of_equals_the_sorted_copy(monkeypatch, distinct):
    x = _values(70_000, distinct, seed=2)  # more than one chunk of 65536
    order = np.argsort(x, kind="stable")
    got, ref = _tie_starts_of(x, order), _tie_starts(x[order])
    if ref is None:
        assert got is None
    else:
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("distinct", [None, 5])
def test_score_order_puts_negatives_first_among_ties(distinct):
    """Same permutation as the former int64 key: (tie group, class) stably sorted."""
    x = _values(3000, distinct, seed=3)
    pos = np.random.default_rng(4).random(3000) < 0.4
    order, starts = _score_order(x, pos)
    first = np.argsort(x, kind="stable")
    group = np.cumsum(np.r_[False, x[first][1:] != x[first][:-1]])
    ref = first[np.argsort(group * 2 + pos[first], kind="stable")]
    np.testing.assert_array_equal(order, ref)
    assert (starts is None) == (distinct is None)


def test_rowdot_equals_the_row_sums_of_products():
    rng = np.random.default_rng(5)
    a, b = rng.random((4, 100)), rng.random((4, 100))
    np.testing.assert_allclose(_rowdot(a, b), (a * b).sum(axis=1), rtol=1e-14)


@pytest.mark.parametrize("ties", [False, True])
def test_per_tile_class_vectors_give_the_held_values(monkeypatch, ties):
    """Large-N mode keeps no flag or confidence per row; same replicates, bit for bit."""
    n = 3000
    rng, prof = beta_profile(6, n, ties)
    s = Settings(p_risk_method="normal")
    monkeypatch.setattr(tiles, "_TILE_ROWS", 256)
    order = canonical_order(prof)
    held = Kernels(prof, s, BATCHED, order=order)
    monkeypatch.setattr(bs, "_MATRIX_BYTES", 0)
    per_tile = Kernels(prof, s, BATCHED, order=order, keep_rows=False)
    assert held.aucs[0].splits is not None  # per tile: negatives, positives apart
    assert per_tile.aucs[0].splits is None
    assert per_tile.first_rows is None
    counts = rng.poisson(1.0, (6, n)).astype(np.uint8)
    a, b = held.evaluate_counts(counts), per_tile.evaluate_counts(counts)
    for m in a:
        np.testing.assert_allclose(b[m], a[m], rtol=1e-13, atol=1e-15, err_msg=m)
    for m in ("auc", "cwauc", "aurc"):
        np.testing.assert_array_equal(b[m], a[m], err_msg=m)


def test_counts_only_kernels_refuse_real_weights():
    prof = ConfidenceProfile.from_arrays([0, 1, 1, 0, 1], [0.2, 0.9, 0.6, 0.4, 0.3])
    k = Kernels(prof, Settings(), ["auc", "aurc"], order=canonical_order(prof),
                 keep_rows=False)
    with pytest.raises(ValueError, match="keep_rows=True"):
        k.evaluate(np.ones((2, 5)))


def test_bootstrap_replicates_the_same_with_columns_per_tile(monkeypatch):
    """End to end: the large-N mode (no held columns, no class vectors, no row map)
    gives the replicates of the held mode."""
    _, prof = beta_profile(7, 2000, ties=False)
    names = [m for m in BATCHED if m != "p_risk"]
    monkeypatch.setattr(tiles, "_TILE_ROWS", 256)
    a = bootstrap_replicates(prof, metrics=names, n_boot=32, seed=1)
    monkeypatch.setattr(bs, "_MATRIX_BYTES", 0)
    b = bootstrap_replicates(prof, metrics=names, n_boot=32, seed=1)
    assert set(a) == set(b) and {"auc", "cwauc", "aurc", "ece"} <= set(a)
    for m in a:
        np.testing.assert_allclose(b[m], a[m], rtol=1e-13, atol=1e-15, err_msg=m)


def _full_lexsort(p: ConfidenceProfile) -> np.ndarray:
    """The former canonical order: one stable lexsort of every key of all rows."""
    return np.lexsort(_canonical_keys(p, None)[::-1])


@pytest.mark.parametrize("kind", ["continuous", "few_ties", "many_ties", "multi",
                                  "weighted"])
def test_canonical_order_equals_the_stable_lexsort(kind):
    """One sort of the confidences, other keys only inside tied runs: the same order."""
    rng = np.random.default_rng(9)
    n = 4000
    if kind == "multi":
        z = rng.normal(size=(n, 4))
        z[::7] = z[1::7][: z[::7].shape[0]]  # duplicated probability rows: tied conf
        proba = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
        y = rng.integers(0, 4, n)
        prof = ConfidenceProfile.from_arrays(y, proba)
    else:
        p = rng.beta(2, 2, n)
        if kind == "few_ties":
            p[:300] = np.round(p[:300], 2)  # under a quarter of the rows tied
        elif kind == "many_ties":
            p = np.round(p, 1)  # nearly every row tied: the full lexsort path
        y = (rng.random(n) < p).astype(int)
        w = rng.integers(1, 4, n).astype(float) if kind == "weighted" else None
        if w is not None:
            p = np.round(p, 2)
        prof = ConfidenceProfile.from_arrays(y, p, sample_weight=w)
    got = canonical_order(prof)
    np.testing.assert_array_equal(got, _full_lexsort(prof))
    assert got.dtype == np.int32
