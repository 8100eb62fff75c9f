"""Properties of the smooth ECE (Błasiok & Nakkiran 2024, arXiv:2309.12236, sections 4-5).

* ``0 <= smECE <= 1``, and at the automatic bandwidth ``smECE <= sigma*`` (the
  bisection keeps the smallest tested ``sigma`` with ``smECE_sigma <= sigma``).
  ``smECE <= 1/2`` does *not* hold in general: scores 0.1 with outcome 1 and 0.9
  with outcome 0 give about 0.739 (as in ``relplot``), so it is not asserted.
* Data calibrated within every group of equal scores (the mean outcome at each
  score value equals the score) has a smoothed residual of 0 at every point:
  ``smECE = 0`` up to rounding, for every bandwidth and both boundary conventions.
* Relative weights: multiplying all weights by a constant changes nothing; all
  ones = no weights; zero weight = dropped row.  Permuting rows changes nothing.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from calreport.metrics.smooth import BOUNDARIES, smece, smece_bandwidth

PROPS = settings(max_examples=40, deadline=None)

#: any score in [0, 1], the bounds included
unit_scores = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
#: scores on a coarse grid, 0 and 1 included
grid_scores = st.integers(min_value=0, max_value=20).map(lambda i: i / 20)
scores = st.one_of(unit_scores, grid_scores)
#: boundary conventions
boundaries = st.sampled_from(BOUNDARIES)
#: positive weight scales
scales = st.floats(min_value=1e-3, max_value=1e3)


@st.composite
def rows(draw, min_size=1, max_size=40):
    """Scores, 0/1 outcomes and integer weights with at least one positive weight."""
    n = draw(st.integers(min_value=min_size, max_value=max_size))
    s = np.array(draw(st.lists(scores, min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    w = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), dtype=float)
    if not (w > 0).any():
        w[0] = 1.0
    return s, y, w


@st.composite
def calibrated_atoms(draw):
    """Rows grouped by score a / c, each group with exactly a / c of its rows positive."""
    s_parts, y_parts = [], []
    for _ in range(draw(st.integers(1, 6))):
        c = draw(st.integers(1, 8))
        a = draw(st.integers(0, c))
        reps = draw(st.integers(1, 5))
        s_parts.append(np.full(c * reps, a / c))
        y_parts.append(np.r_[np.ones(a * reps), np.zeros((c - a) * reps)])
    return np.concatenate(s_parts), np.concatenate(y_parts)


@PROPS
@given(data=rows(), boundary=boundaries)
def test_range_and_fixed_point(data, boundary):
    s, y, w = data
    value = smece(s, y, sample_weight=w, boundary=boundary)
    sigma = smece_bandwidth(s, y, sample_weight=w, boundary=boundary)
    assert 0.0 <= value <= 1.0
    assert sigma == 1.0 or value <= sigma
    assert 0.0 <= smece(s, y, sigma=0.05, boundary=boundary) <= 1.0


@PROPS
@given(data=calibrated_atoms(), sigma=st.sampled_from([None, 0.01, 0.1, 0.5]),
       boundary=boundaries)
def test_calibrated_within_each_score_is_zero(data, sigma, boundary):
    s, y = data
    assert smece(s, y, sigma=sigma, boundary=boundary) < 1e-9


@PROPS
@given(seed=st.integers(0, 2**32 - 1), a=st.floats(0.5, 5), b=st.floats(0.5, 5))
def test_calibrated_in_expectation_is_small(seed, a, b):
    # 20000 rows with y ~ Bernoulli(s): the noise-only smECE is of order n^(-1/3)
    rng = np.random.default_rng(seed)
    s = rng.beta(a, b, 20_000)
    y = (rng.uniform(size=s.size) < s).astype(int)
    assert smece(s, y) < 0.03


@PROPS
@given(data=rows(), scale=scales, boundary=boundaries)
def test_weight_scale_ones_and_zero(data, scale, boundary):
    s, y, w = data
    base = smece(s, y, sample_weight=w, sigma=0.1, boundary=boundary)
    assert np.isclose(smece(s, y, sample_weight=w * scale, sigma=0.1, boundary=boundary),
                      base, rtol=1e-9, atol=1e-12)
    keep = w > 0
    assert np.isclose(smece(s[keep], y[keep], sample_weight=w[keep], sigma=0.1,
                            boundary=boundary), base, rtol=1e-12, atol=1e-14)
    assert smece(s, y, sample_weight=np.ones_like(s), boundary=boundary) == smece(
        s, y, boundary=boundary)


@PROPS
@given(data=rows(min_size=2), seed=st.integers(0, 1000))
def test_permutation(data, seed):
    s, y, w = data
    perm = np.random.default_rng(seed).permutation(s.size)
    assert np.isclose(smece(s[perm], y[perm], sample_weight=w[perm], sigma=0.1),
                      smece(s, y, sample_weight=w, sigma=0.1), rtol=1e-9, atol=1e-12)
