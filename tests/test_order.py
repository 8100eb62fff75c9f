"""The grouped kernels' sort by (group, key ...) is ``np.lexsort`` exactly; their row
ranges are the concatenated aranges."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from calreport.metrics._order import range_rows, ranges, sort_within


@pytest.mark.parametrize("n_groups", [1, 3, 5_000, 70_000])
@pytest.mark.parametrize("n", [0, 1, 2, 1_000])
def test_sort_within_is_lexsort(n_groups, n):
    rng = np.random.default_rng(n + n_groups)
    codes = rng.integers(0, n_groups, n)
    score = np.round(rng.random(n), 1)  # ties, broken by the outcome, then by row
    outcome = (rng.random(n) < 0.5).astype(float)
    assert (sort_within(codes, n_groups, outcome, score)
            == np.lexsort((outcome, score, codes))).all()
    assert (sort_within(codes, n_groups, score) == np.lexsort((score, codes))).all()
    assert (sort_within(codes, n_groups) == np.argsort(codes, kind="stable")).all()


@given(st.lists(st.tuples(st.integers(0, 70_000), st.sampled_from([0.0, 0.5, 1.0, -0.0])),
                max_size=60))
def test_sort_within_is_lexsort_on_any_rows(rows):
    codes = np.array([r[0] for r in rows], dtype=np.int64)
    key = np.array([r[1] for r in rows])
    for n_groups in (int(codes.max(initial=-1)) + 1, 70_001):
        assert (sort_within(codes, max(n_groups, 1), key)
                == np.lexsort((key, codes))).all()


@given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 6)), max_size=30))
def test_ranges_are_concatenated_aranges(spans):
    # empty ranges anywhere (first, last, in a row), ranges overlapping or not
    starts = np.array([a for a, _ in spans], dtype=np.int64)
    sizes = np.array([n for _, n in spans], dtype=np.int64)
    want = [x for a, n in spans for x in range(a, a + n)]
    owner = [i for i, (_, n) in enumerate(spans) for _ in range(n)]
    assert range_rows(starts, sizes).tolist() == want
    rows, own = ranges(starts, sizes)
    assert rows.tolist() == want and own.tolist() == owner
