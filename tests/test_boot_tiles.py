"""Tile kernels of the bootstrap against brute-force sums, replicate by replicate.

The running sums are carried from tile to tile: small tiles must give the numbers
of one tile, and every replicate the pair sums of its resample.
"""

from __future__ import annotations

import numpy as np
import pytest
from _profiles import beta_profile

import calreport.bootstrap._tiles as tiles
import calreport.bootstrap.kernels as bs
from calreport import ConfidenceProfile
from calreport.bootstrap.kernels import Kernels, bootstrap_replicates, canonical_order
from calreport.registry import REGISTRY
from calreport.settings import Settings

BATCHED = [m for m, spec in REGISTRY.items() if spec.interval.kind == "bootstrap"]


@pytest.mark.parametrize("ties", [False, True])
def test_small_tiles_give_the_replicates_of_one_tile(monkeypatch, ties):
    """Tiles of 128 rows (carries across 24 tiles) against a single tile: the AUC
    (integer pair counts) exactly, the rest to rounding."""
    n = 3000
    rng, prof = beta_profile(3, n, ties)
    s = Settings(p_risk_method="normal")
    order = canonical_order(prof)
    one = Kernels(prof, s, BATCHED, order=order)
    monkeypatch.setattr(tiles, "_TILE_ROWS", 128)
    many = Kernels(prof, s, BATCHED, order=order)
    assert len(many.orders[0].tiles) > 20 and len(one.orders[0].tiles) == 1
    counts = rng.poisson(1.0, (7, n)).astype(np.uint8)
    a = one.evaluate_counts(counts[:, one.first_rows])
    b = many.evaluate_counts(counts[:, many.first_rows])
    for m in a:
        np.testing.assert_allclose(b[m], a[m], rtol=1e-12, atol=1e-15, err_msg=m)
    np.testing.assert_array_equal(b["auc"], a["auc"])


def test_replicate_auc_equals_the_pair_count_of_the_resample():
    """Every replicate's AUC and cwAUC against the pair sums of its resample."""
    rng = np.random.default_rng(4)
    n = 400
    p = np.round(rng.beta(2, 2, n), 2)
    y = (rng.random(n) < p).astype(int)
    prof = ConfidenceProfile.from_arrays(y, p)
    k = Kernels(prof, Settings(), ["auc", "cwauc"])
    counts = rng.poisson(1.0, (5, n))
    got = k.evaluate_counts(counts[:, k.first_rows].astype(np.uint8))
    conf = prof.conf
    for r in range(5):
        c = counts[r]
        pos, neg = (y == 1), (y == 0)
        above = (p[:, None] > p[None, :]) + 0.5 * (p[:, None] == p[None, :])
        pair = np.outer(c * pos, c * neg) * above
        pw = np.outer(c * pos * conf, c * neg * conf) * above
        assert got["auc"][r] == pytest.approx(
            pair.sum() / ((c * pos).sum() * (c * neg).sum()), rel=1e-13)
        assert got["cwauc"][r] == pytest.approx(
            pw.sum() / ((c * pos * conf).sum() * (c * neg * conf).sum()), rel=1e-13)


def test_bootstrap_replicates_independent_of_the_tile_size(monkeypatch):
    """End to end through the drawn counts: 128-row tiles give the replicates of the
    default tiles (the AUC bit for bit)."""
    _, prof = beta_profile(5, 2500, ties=False)
    names = [m for m in BATCHED if m != "p_risk"]
    a = bootstrap_replicates(prof, metrics=names, n_boot=32, seed=4)
    monkeypatch.setattr(tiles, "_TILE_ROWS", 128)
    monkeypatch.setattr(bs, "_TILE_ROWS", 128)
    b = bootstrap_replicates(prof, metrics=names, n_boot=32, seed=4)
    for m in a:
        np.testing.assert_allclose(b[m], a[m], rtol=1e-12, atol=1e-15, err_msg=m)
    np.testing.assert_array_equal(b["auc"], a["auc"])


@pytest.mark.parametrize("pattern", ["random", "first_positive", "all_positive",
                                     "all_negative", "alternating"])
def test_auc_tiles_equal_the_class_masked_running_sum(pattern):
    """The AUC tile gathers the negatives apart and reads their running sum at each
    positive: against the plain computation (one running sum of every row masked by
    class, the carry added), over two tiles, from a non-zero carry."""
    rng = np.random.default_rng(8)
    m = 301
    pos = {"random": rng.random(m) < 0.4, "first_positive": np.r_[True, rng.random(m - 1) < 0.5],
           "all_positive": np.ones(m, bool), "all_negative": np.zeros(m, bool),
           "alternating": np.arange(m) % 2 == 1}[pattern]
    conf = rng.uniform(0.5, 1.0, m)
    tile_bounds = [(0, 120), (120, m)]
    auc = tiles._Auc(pos, conf, None, tile_bounds)
    w = rng.poisson(1.0, (4, m)).astype(np.float64)
    st = auc.start(4)
    st.carry[:], st.carry_c[:] = [3.0, 0.0, 7.0, 1.0], [1.5, 0.0, 2.25, 0.75]
    carry, carry_c = st.carry.copy(), st.carry_c.copy()
    bufs = tiles._Buffers()
    for t, (r0, r1) in enumerate(tile_bounds):
        auc.tile(st, np.ascontiguousarray(w[:, r0:r1]), t, r0, bufs)
    for ww, c0, num, total, end in ((w, carry, st.num, st.pos, st.carry),
                                    (w * conf, carry_c, st.num_c, st.pos_c, st.carry_c)):
        wpos = ww * pos
        run = c0[:, None] + np.cumsum(ww - wpos, axis=1)
        np.testing.assert_allclose(num, (wpos * run).sum(axis=1), rtol=1e-14)
        np.testing.assert_allclose(total, wpos.sum(axis=1), rtol=1e-14)
        np.testing.assert_allclose(end, run[:, -1], rtol=1e-14)
    wpos = w * pos  # integer counts: exact
    np.testing.assert_array_equal(st.num, (wpos * (carry[:, None] + np.cumsum(
        w - wpos, axis=1))).sum(axis=1))


@pytest.mark.parametrize(("m", "carry_top", "wide"), [(4096, 1e6, False),
                                                     (20_000, 10.0, True),
                                                     (100, 2.0**31, True)])
def test_integer_running_sums_equal_the_float64_ones(m, carry_top, wide):
    """Counts without sample weights are summed as integers (int32, or int64 for a
    tile longer than 16,384 rows or a carry from 2**30): the same numbers as the
    float64 running sum, bit for bit, and the same carry out."""
    rng = np.random.default_rng(5)
    x = rng.poisson(1.0, (9, m)).astype(np.float64)
    x[:, ::97] = 255.0  # the largest uint8 count
    carry = np.floor(rng.random(9) * carry_top)
    plain, c_plain = x.copy(), carry.copy()
    tiles._running(plain, c_plain)
    bufs = tiles._Buffers()
    fast, c_fast = x.copy(), carry.copy()
    tiles._running(fast, c_fast, bufs, whole=True)
    np.testing.assert_array_equal(fast, plain)
    np.testing.assert_array_equal(c_fast, c_plain)
    used = {key[1] for key in bufs._store if key[0] == "running"}
    assert used == {np.dtype(np.int64 if wide else np.int32)}


def test_replicates_of_counts_equal_those_of_the_same_counts_as_weights():
    """The counts path (integer running sums) gives the replicates the real-weight
    path gives for the same numbers as float64 weights (float64 running sums)."""
    n = 5000
    rng, prof = beta_profile(11, n, True)
    k = Kernels(prof, Settings(p_risk_method="normal"), BATCHED)
    counts = rng.poisson(1.0, (6, n)).astype(np.uint8)
    a = k.evaluate_counts(counts[:, k.first_rows])
    b = k.evaluate(counts.astype(np.float64))
    for m in a:
        np.testing.assert_array_equal(a[m], b[m], err_msg=m)
