"""Poisson counts drawn two cells at a time from the joint inverse-CDF table."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from calreport.bootstrap.resampling import _REFINE, Resampler, spawn_seeds


@pytest.mark.parametrize("resampling", ["multinomial", "poisson"])
def test_pair_table_is_the_inverse_cdf_of_the_joint_law(resampling):
    """Every non-refined code gives the pair quantile at both ends of its interval."""
    sampler = Resampler(10_000, resampling)
    k = sampler.cdf.size
    # the joint CDF in the order k1 * K + k2, from the marginal pmf
    pmf = np.diff(sampler.cdf, prepend=0.0)
    ref_cdf = np.cumsum([pmf[i] * pmf[j] for i in range(k) for j in range(k)])
    np.testing.assert_allclose(sampler.pair_cdf[:-1], ref_cdf[:-1], rtol=0, atol=1e-15)
    codes = np.arange(1 << 16)
    fixed = sampler.pair_table != _REFINE
    for u in (codes * 2.0**-16, np.nextafter((codes + 1) * 2.0**-16, 0)):
        index = np.minimum(np.searchsorted(sampler.pair_cdf, u, side="right"), k * k - 1)
        first, second = index // k, index % k
        table = sampler.pair_table[fixed]
        np.testing.assert_array_equal(table & 0xFF, first[fixed])
        np.testing.assert_array_equal(table >> 8, second[fixed])
    # the joint CDF has at most K^2 jumps, each refines one code interval
    assert 0 < (~fixed).sum() <= k * k


def test_adjacent_cells_are_independent_poisson():
    """The two cells of a pair: joint chi-square against Poisson(1) x Poisson(1)."""
    n, reps = 1000, 400
    rng = np.random.default_rng(8)
    counts = Resampler(n, "poisson").draw(rng, np.empty((reps, n), np.uint8))
    first = np.minimum(counts[:, 0::2].ravel(), 3).astype(int)
    second = np.minimum(counts[:, 1::2].ravel(), 3).astype(int)
    observed = np.bincount(first * 4 + second, minlength=16)
    pmf = stats.poisson.pmf(np.arange(3), 1.0)
    marginal = np.r_[pmf, 1 - pmf.sum()]
    expected = np.outer(marginal, marginal).ravel() * first.size
    assert stats.chisquare(observed, expected).pvalue > 1e-3
    # refined pairs (about 0.08 % of codes) come out of the refinement, not the marker
    assert counts.max() < 64


@pytest.mark.parametrize("offset, size", [(0, 1), (0, 999), (1, 1000), (1, 999)])
def test_odd_and_unaligned_buffers(offset, size):
    """An odd last cell comes from the single-cell table; an unaligned buffer takes
    that table throughout: both give Poisson(1) counts, nothing is left unset."""
    sampler = Resampler(size, "poisson")
    rng = np.random.default_rng(offset * 7 + size)
    reps = 200_000 // size + 1
    buf = np.full(reps * size + offset, 250, dtype=np.uint8)
    flat = buf[offset:]
    sampler._poisson(rng, flat)
    assert (flat < 64).all()
    k = np.arange(4)
    expected = stats.poisson.pmf(k, 1.0)
    expected = np.r_[expected, 1 - expected.sum()] * flat.size
    observed = np.bincount(np.minimum(flat, 4), minlength=5)
    assert stats.chisquare(observed, expected).pvalue > 1e-3


def test_a_block_widened_past_255_draws_its_later_streams_aside(monkeypatch):
    """A count above 255 widens the block; the streams drawn after it go through a
    uint8 scratch array and land unchanged in the wider block."""
    sampler = Resampler(50, "poisson")
    streams = spawn_seeds(3, 3)
    ref = sampler.draw_block(streams, 0, 40)
    calls = []
    draw = Resampler.draw

    def widen_first(self, rng, out):
        got = draw(self, rng, out)
        calls.append(out.dtype)
        if len(calls) == 1:  # as if the first stream had drawn a count of 300
            got = got.astype(np.uint16)
        return got

    monkeypatch.setattr(Resampler, "draw", widen_first)
    wide = sampler.draw_block(streams, 0, 40)
    assert wide.dtype == np.uint16 and calls == [np.uint8] * 3
    np.testing.assert_array_equal(wide, ref)
