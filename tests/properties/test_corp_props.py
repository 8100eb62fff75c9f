"""Properties of the CORP curve and decomposition (Dimitriadis, Gneiting & Jordan 2021).

* The decomposition closes exactly: S = MCB - DSC + UNC, for the Brier score and the
  log loss, with and without weights ("Score decomposition").
* MCB >= 0 and DSC >= 0: the PAV recalibration minimises every proper score among
  non-decreasing recalibrations, and both the forecast itself (the identity map) and
  the constant mean(y) are such recalibrations.
* The PAV curve is non-decreasing, within [min y, max y], and preserves the weighted
  mean of the outcomes (the normal equations of the isotonic fit).
* Integer weights equal repeated rows; zero weights drop rows; permuting rows changes
  nothing.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from calreport.metrics.corp import RULES, corp_curve, corp_decomposition

PROPS = settings(max_examples=80, deadline=None)

#: any score in [0, 1], the bounds included
unit_scores = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
#: scores on a coarse grid: frequent ties
grid_scores = st.integers(min_value=0, max_value=20).map(lambda i: i / 20)
#: either kind
scores = st.one_of(unit_scores, grid_scores)
#: rows of (score, outcome, integer weight >= 0), with at least one positive weight
rows = st.lists(st.tuples(scores, st.booleans(), st.integers(min_value=0, max_value=4)),
                min_size=1, max_size=60).filter(lambda r: any(w > 0 for _, _, w in r))
#: scoring rules
rules = st.sampled_from(RULES)


def arrays(data):
    s, y, w = (np.array(col) for col in zip(*data, strict=True))
    return s.astype(float), y.astype(bool), w.astype(float)


@PROPS
@given(data=rows, rule=rules, weighted=st.booleans())
def test_decomposition_closes_exactly(data, rule, weighted):
    s, y, w = arrays(data)
    d = corp_decomposition(s, y, rule=rule, sample_weight=w if weighted else None)
    assert d.mcb - d.dsc + d.unc == pytest.approx(d.score, rel=1e-12, abs=1e-12)
    assert d.mcb >= -1e-12 and d.dsc >= -1e-12 and d.unc >= 0


@PROPS
@given(data=rows)
# a zero-weight score between subnormal ones: np.interp's slope overflowed to inf
@example(data=[(0.0, False, 1), (2.2250738585e-313, False, 0), (2.225073858507e-311, True, 1)])
# a zero-weight score inside a flat block: the weighted mix of equal ends was 1 ulp off
@example(data=[(0.2, True, 1), (0.4, False, 0), (0.8, False, 2)])
def test_curve_is_monotone_bounded_and_preserves_the_mean(data):
    s, y, w = arrays(data)
    curve = corp_curve(s, y, sample_weight=w)
    assert np.all(np.diff(curve.y) >= 0)
    assert np.all(np.diff(curve.x) > 0)
    kept = w > 0
    assert curve.y.min() >= y[kept].min() - 1e-12 and curve.y.max() <= y[kept].max() + 1e-12
    # every row on the curve, zero-weight ones included: monotone in the score
    assert np.all(np.diff(curve.recalibrated[np.argsort(s, kind="stable")]) >= 0)
    assert np.dot(w, curve.recalibrated) == pytest.approx(np.dot(w, y), rel=1e-12, abs=1e-12)


@PROPS
@given(data=rows, rule=rules, seed=st.integers(0, 2**32 - 1))
def test_weights_are_repetitions_and_order_does_not_matter(data, rule, seed):
    s, y, w = arrays(data)
    counts = w.astype(int)
    weighted = corp_decomposition(s, y, rule=rule, sample_weight=w)
    repeated = corp_decomposition(np.repeat(s, counts), np.repeat(y, counts), rule=rule)
    for a, b in zip(weighted.terms, repeated.terms, strict=True):
        assert a == pytest.approx(b, rel=1e-9, abs=1e-12)
    perm = np.random.default_rng(seed).permutation(s.size)
    permuted = corp_decomposition(s[perm], y[perm], rule=rule, sample_weight=w[perm])
    for a, b in zip(weighted.terms, permuted.terms, strict=True):
        assert a == pytest.approx(b, rel=1e-9, abs=1e-12)
