"""Tile kernels of the bootstrap against brute-force sums, replicate by replicate.

Each kernel that replaced a direct computation (running sums formed and multiplied)
is compared with that computation on small data, with several tiles so that the
carries between tiles are exercised.
"""

from __future__ import annotations

import numpy as np
import pytest
from _profiles import beta_profile

import calreport.bootstrap._tiles as tiles
import calreport.bootstrap.kernels as bs
from calreport import ConfidenceProfile
from calreport.bootstrap._tiles import _Buffers, _count_pairs, _padded, _prefix_dot
from calreport.bootstrap.kernels import _Kernels, bootstrap_replicates, canonical_order
from calreport.registry import REGISTRY
from calreport.settings import Settings

BATCHED = [m for m, spec in REGISTRY.items() if spec.interval.kind == "bootstrap"]


def _brute_prefix_dot(w, left, right, carry):
    """sum_i w_i left_i (carry + sum_{j <= i} w_j right_j), in exact fractions."""
    from fractions import Fraction

    out = []
    for r in range(w.shape[0]):
        run, tot = Fraction(carry[r]), Fraction(0)
        for i in range(w.shape[1]):
            run += Fraction(w[r, i]) * Fraction(right[i])
            tot += Fraction(w[r, i]) * Fraction(left[i]) * run
        out.append(float(tot))
    return np.array(out)


@pytest.mark.parametrize("disjoint", [True, False])
def test_prefix_dot_equals_the_running_sum(disjoint):
    """Chunks of 8 columns, a carry from earlier tiles, real weights."""
    rng = np.random.default_rng(0)
    b, m = 3, _padded(200)
    w = rng.gamma(1.0, 1.0, (b, m))
    w[:, 190:] = 0.0  # a padded tail
    flag = rng.random(m) < 0.5
    conf = rng.uniform(0.5, 1.0, m)
    if disjoint:  # the AUC's use: a row is positive or negative
        left, right = conf * flag, conf * ~flag
    else:
        left, right = rng.random(m), rng.random(m)
    carry = rng.random(b) * 10
    ref = _brute_prefix_dot(w, left, right, carry)
    carry_in = carry.copy()
    got, total = _prefix_dot(w, left, right, carry, _Buffers())
    np.testing.assert_allclose(got, ref, rtol=1e-13)
    np.testing.assert_allclose(total, w @ left, rtol=1e-13)
    np.testing.assert_allclose(carry, carry_in + w @ right, rtol=1e-13)


def test_prefix_dot_is_exact_on_integer_weights():
    rng = np.random.default_rng(1)
    b, m = 4, _padded(300)
    w = rng.poisson(1.0, (b, m)).astype(np.float64)
    flag = (rng.random(m) < 0.4).astype(np.float64)
    carry = rng.integers(0, 50, b).astype(np.float64)
    ref = [sum(w[r, i] * flag[i] * (carry[r] + (w[r, :i + 1] * (1 - flag[:i + 1])).sum())
               for i in range(m)) for r in range(b)]
    got, total = _prefix_dot(w, flag, 1.0 - flag, carry.copy(), _Buffers())
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(total, w @ flag)


@pytest.mark.parametrize("big", [False, True])
def test_count_pairs_equals_the_direct_sum(big):
    """Summation by parts on the counts (and, for totals too large for exact
    squares, the direct sum): the exact number of (positive, negative) pairs."""
    rng = np.random.default_rng(2)
    if big:  # totals whose squares times the width pass 2**53: the direct branch
        b, m = 2, 60_000
        cnt = np.full((b, m), 255, dtype=np.uint8)
        cnt[:, ::7] = rng.integers(0, 256, (b, cnt[:, ::7].shape[1]))
    else:
        b, m = 5, 777
        cnt = rng.poisson(1.2, (b, m)).astype(np.uint8)
    flag = rng.random(m) < 0.55
    pos = np.zeros(_padded(m) + 1)
    pos[:m] = flag
    pos[m:] = 1.0  # whatever follows the tile must not count
    c = cnt.astype(np.int64)
    neg_run = np.cumsum(c * ~flag, axis=1)
    ref = (c * flag * neg_run).sum(axis=1)
    tile_pos = (c * flag).sum(axis=1).astype(np.float64)
    got, total = _count_pairs(cnt, pos, tile_pos, np.int64 if big else np.int32,
                              _Buffers())
    np.testing.assert_array_equal(total, c.sum(axis=1))
    if big:
        np.testing.assert_allclose(got, ref, rtol=1e-15)
    else:
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("ties", [False, True])
def test_small_tiles_give_the_replicates_of_one_tile(monkeypatch, ties):
    """Tiles of 128 rows (carries across 24 tiles) against a single tile: the AUC
    (integer pair counts) exactly, the rest to rounding."""
    n = 3000
    rng, prof = beta_profile(3, n, ties)
    s = Settings(p_risk_method="normal")
    order = canonical_order(prof)
    one = _Kernels(prof, s, BATCHED, order=order)
    monkeypatch.setattr(tiles, "_TILE_ROWS", 128)
    many = _Kernels(prof, s, BATCHED, order=order)
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
    k = _Kernels(prof, Settings(), ["auc", "cwauc"])
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
