"""Properties of the binned estimators (Naeini et al. 2015; Guo et al. 2017, section 2).

* ECE_p lies in [0, 1] and below the MCE; |signed ECE| <= ECE_1.
* Binning is by value: a score never sits in two bins, bins are monotone in the
  score, and equal-mass bins without ties differ by at most one row.
* Signed ECE telescopes to mean(score) - mean(outcome) for every binning; when
  every bin is overconfident ECE_1 equals it.
* The binned Murphy decomposition closes with its within-bin term
  (Murphy 1973).
* Permutation and sample-weight invariances (all-ones = none, integer weights =
  repeated rows, zero weight = dropped rows).

ECE_p is *not* monotone in p in general, so no such property is asserted.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from calreport.metrics import binned, scoring

PROPS = settings(max_examples=60, deadline=None)

#: any score in [0, 1], the bounds included
unit_scores = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
#: scores on a coarse grid: frequent ties and scores exactly on uniform edges
grid_scores = st.integers(min_value=0, max_value=20).map(lambda i: i / 20)
#: either kind
scores = st.one_of(unit_scores, grid_scores)
#: integer sample weights, zeros included
int_weights = st.integers(min_value=0, max_value=4)
#: bin counts
bin_counts = st.integers(min_value=1, max_value=20)
#: binning strategies
strategies = st.sampled_from(binned.STRATEGIES)
#: ECE orders (p >= 1)
orders = st.sampled_from([1.0, 1.5, 2.0, 3.0])

TABLE_FIELDS = ("lower", "upper", "count", "weight_sum", "n_eff", "mean_score",
                "mean_outcome", "gap", "ci_low", "ci_high")


@st.composite
def rows(draw, min_size=1, max_size=40, score=scores):
    """Scores, 0/1 outcomes and integer weights with at least one positive weight."""
    n = draw(st.integers(min_value=min_size, max_value=max_size))
    s = np.array(draw(st.lists(score, min_size=n, max_size=n)), dtype=float)
    y = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    w = np.array(draw(st.lists(int_weights, min_size=n, max_size=n)), dtype=float)
    if not (w > 0).any():
        w[draw(st.integers(min_value=0, max_value=n - 1))] = 1.0
    return s, y, w


@st.composite
def overconfident_groups(draw):
    """Groups of tied scores s >= 1/2, each with at most floor(s * size) successes.

    Every group has accuracy <= its score; a bin is a union of whole groups (ties
    are never split), so every bin is overconfident whatever the binning.
    """
    n_groups = draw(st.integers(min_value=1, max_value=8))
    s_parts, y_parts = [], []
    for value in draw(st.lists(st.integers(min_value=10, max_value=20), min_size=n_groups,
                               max_size=n_groups, unique=True)):
        score = value / 20
        size = draw(st.integers(min_value=1, max_value=6))
        hits = draw(st.integers(min_value=0, max_value=math.floor(score * size)))
        s_parts.append(np.full(size, score))
        y_parts.append(np.r_[np.ones(hits), np.zeros(size - hits)])
    s, y = np.concatenate(s_parts), np.concatenate(y_parts)
    perm = np.random.default_rng(draw(st.integers(0, 2**32 - 1))).permutation(s.size)
    return s[perm], y[perm].astype(int)


def assert_tables_equal(a, b, fields=TABLE_FIELDS):
    for f in fields:
        np.testing.assert_allclose(getattr(a, f), getattr(b, f), rtol=1e-12, atol=1e-15,
                                   err_msg=f)


# --------------------------------------------------------------------------- ranges
@PROPS
@given(rows(), bin_counts, strategies, orders)
def test_ece_in_unit_interval_and_below_mce(data, n_bins, strategy, p):
    s, y, w = data
    for sw in (None, w):
        e = binned.ece(s, y, n_bins=n_bins, strategy=strategy, p=p, sample_weight=sw)
        m = binned.mce(s, y, n_bins=n_bins, strategy=strategy, sample_weight=sw)
        e1 = binned.ece(s, y, n_bins=n_bins, strategy=strategy, sample_weight=sw)
        signed = binned.signed_ece(s, y, n_bins=n_bins, strategy=strategy, sample_weight=sw)
        assert 0.0 <= e <= 1.0
        assert e <= m + 1e-12  # a weighted power mean never exceeds the maximum
        assert abs(signed) <= e1 + 1e-12


# ------------------------------------------------------------------ binning by value
@PROPS
@given(rows(score=grid_scores), bin_counts, strategies)
def test_no_value_in_two_bins_and_bins_monotone(data, n_bins, strategy):
    s, _, w = data
    for sw in (None, w):
        edges = binned.bin_edges(s, n_bins=n_bins, strategy=strategy, sample_weight=sw)
        assert edges.shape == (n_bins + 1,)
        assert (np.diff(edges) >= 0).all()
        b = binned.assign_bins(s, edges)
        assert ((b >= 0) & (b < n_bins)).all()
        for value in np.unique(s):
            assert np.unique(b[s == value]).size == 1
        order = np.argsort(s, kind="stable")
        assert (np.diff(b[order]) >= 0).all()


@PROPS
@given(st.lists(unit_scores, min_size=1, max_size=60, unique=True), bin_counts)
def test_quantile_bins_equal_mass_without_ties(values, n_bins):
    s = np.array(values)
    t = binned.reliability_table(s, s > 0.5, n_bins=n_bins, strategy="quantile")
    # type-7 positions: the lower part of edge m holds floor(m (N-1)/M) + 1 rows, so
    # every bin holds f or f + 1 rows, f = floor((N-1)/M) (the first bin f + 1)
    n = s.size
    lower_rows = np.array([(m * (n - 1)) // n_bins + 1 for m in range(1, n_bins)])
    expected = np.diff(np.r_[0, lower_rows, n])
    np.testing.assert_array_equal(t.count, expected)
    f = (n - 1) // n_bins
    assert set(t.count.tolist()) <= {f, f + 1}


# ------------------------------------------------------------- telescoping identities
@PROPS
@given(rows(), bin_counts, strategies)
def test_signed_ece_is_mean_gap_for_every_binning(data, n_bins, strategy):
    s, y, w = data
    assert binned.signed_ece(s, y, n_bins=n_bins, strategy=strategy) == (
        _approx(s.mean() - y.mean()))
    wm = np.average(s, weights=w) - np.average(y, weights=w)
    assert binned.signed_ece(s, y, n_bins=n_bins, strategy=strategy,
                             sample_weight=w) == _approx(wm)


@PROPS
@given(overconfident_groups(), bin_counts, strategies)
def test_all_bins_overconfident_ece_is_mean_conf_minus_accuracy(data, n_bins, strategy):
    s, y = data
    t = binned.reliability_table(s, y, n_bins=n_bins, strategy=strategy)
    assert (t.gap[t.count > 0] <= 1e-12).all()
    expected = s.mean() - y.mean()
    assert binned.ece(s, y, n_bins=n_bins, strategy=strategy) == _approx(expected)
    assert binned.signed_ece(s, y, n_bins=n_bins, strategy=strategy) == _approx(expected)


@PROPS
@given(rows(), bin_counts, strategies)
def test_murphy_decomposition_closes(data, n_bins, strategy):
    s, y, w = data
    for sw in (None, w):
        d = scoring.murphy_decomposition(s, y, n_bins=n_bins, strategy=strategy,
                                         sample_weight=sw)
        total = d["reliability"] - d["resolution"] + d["uncertainty"] + d["within_bin"]
        assert total == _approx(d["brier"])
        assert d["brier"] == _approx(scoring.top_label_brier(s, y, sample_weight=sw))
        # the reliability term is the squared binned ECE_2 on the same bins
        e2 = binned.ece(s, y, n_bins=n_bins, strategy=strategy, p=2, sample_weight=sw)
        assert d["reliability"] == _approx(e2**2)
        assert d["resolution"] >= 0 and 0 <= d["uncertainty"] <= 0.25


@PROPS
@given(st.lists(st.tuples(st.integers(0, 9), st.booleans()), min_size=1, max_size=40),
       st.integers(min_value=1, max_value=4))
def test_murphy_exact_when_scores_constant_within_bins(pairs, scale):
    # 10 uniform bins, one score per bin (its midpoint): the within-bin term vanishes
    s = np.array([(b + 0.5) / 10 for b, _ in pairs])
    y = np.array([o for _, o in pairs])
    w = np.full(s.size, float(scale))
    d = scoring.murphy_decomposition(s, y, n_bins=10, sample_weight=w)
    assert d["within_bin"] == _approx(0.0)
    assert d["reliability"] - d["resolution"] + d["uncertainty"] == _approx(d["brier"])


# ------------------------------------------------------------------------ invariances
@PROPS
@given(rows(), bin_counts, strategies, st.integers(0, 2**32 - 1))
def test_permutation_invariance(data, n_bins, strategy, seed):
    s, y, w = data
    perm = np.random.default_rng(seed).permutation(s.size)
    a = binned.reliability_table(s, y, n_bins=n_bins, strategy=strategy, sample_weight=w)
    b = binned.reliability_table(s[perm], y[perm], n_bins=n_bins, strategy=strategy,
                                 sample_weight=w[perm])
    assert_tables_equal(a, b)
    assert binned.ece(s, y, n_bins=n_bins, strategy=strategy, p=2) == _approx(
        binned.ece(s[perm], y[perm], n_bins=n_bins, strategy=strategy, p=2))


@PROPS
@given(rows(), bin_counts, strategies)
def test_all_ones_weights_equal_no_weights(data, n_bins, strategy):
    s, y, _ = data
    ones = np.ones(s.size)
    a = binned.reliability_table(s, y, n_bins=n_bins, strategy=strategy)
    b = binned.reliability_table(s, y, n_bins=n_bins, strategy=strategy, sample_weight=ones)
    assert_tables_equal(a, b)
    for fn in (binned.ece, binned.mce, binned.signed_ece):
        assert fn(s, y, n_bins=n_bins, strategy=strategy) == _approx(
            fn(s, y, n_bins=n_bins, strategy=strategy, sample_weight=ones))


@PROPS
@given(rows(), bin_counts, strategies, orders)
def test_integer_weights_equal_repeated_rows(data, n_bins, strategy, p):
    s, y, w = data
    reps = w.astype(int)
    sr, yr = np.repeat(s, reps), np.repeat(y, reps)
    a = binned.reliability_table(s, y, n_bins=n_bins, strategy=strategy, sample_weight=w)
    b = binned.reliability_table(sr, yr, n_bins=n_bins, strategy=strategy)
    # the Wilson interval and n_eff use the Kish size, which is not a row count
    assert_tables_equal(a, b, ("lower", "upper", "mean_score", "mean_outcome", "gap"))
    np.testing.assert_allclose(a.weight_sum, b.count)
    kw = {"n_bins": n_bins, "strategy": strategy}
    assert binned.ece(s, y, p=p, sample_weight=w, **kw) == _approx(
        binned.ece(sr, yr, p=p, **kw))
    assert binned.mce(s, y, sample_weight=w, **kw) == _approx(binned.mce(sr, yr, **kw))
    assert binned.signed_ece(s, y, sample_weight=w, **kw) == _approx(
        binned.signed_ece(sr, yr, **kw))


@PROPS
@given(rows(min_size=2), bin_counts, strategies)
def test_zero_weights_equal_dropped_rows(data, n_bins, strategy):
    s, y, w = data
    keep = w > 0
    kw = {"n_bins": n_bins, "strategy": strategy}
    a = binned.reliability_table(s, y, sample_weight=w, **kw)
    b = binned.reliability_table(s[keep], y[keep], sample_weight=w[keep], **kw)
    assert_tables_equal(a, b)
    for fn in (binned.ece, binned.mce, binned.signed_ece):
        assert fn(s, y, sample_weight=w, **kw) == _approx(
            fn(s[keep], y[keep], sample_weight=w[keep], **kw))


@PROPS
@given(rows(), bin_counts, strategies, orders, st.integers(min_value=0, max_value=1000))
def test_power_of_two_weight_scale_changes_nothing(data, n_bins, strategy, p, k):
    # weights at most 1/2 (mean below 1: the quantile edges are scale-free there) and
    # the same weights 2**-k smaller, down to the subnormal range: dividing by a power
    # of two changes no mantissa, and the estimators rescale internally, so every
    # value is identical bit for bit; nothing underflows to a NaN
    s, y, w = data
    w = np.ldexp(w, -3)
    small = np.ldexp(w, -k)
    assume((small[w > 0] > 0).all() and np.ldexp(small.max(), k) == w.max())
    kw = {"n_bins": n_bins, "strategy": strategy}
    a = binned.reliability_table(s, y, sample_weight=w, **kw)
    b = binned.reliability_table(s, y, sample_weight=small, **kw)
    for f in TABLE_FIELDS:
        if f != "weight_sum":
            np.testing.assert_array_equal(getattr(a, f), getattr(b, f), err_msg=f)
    np.testing.assert_array_equal(np.ldexp(b.weight_sum, k), a.weight_sum)
    assert binned.ece(s, y, p=p, sample_weight=w, **kw) == binned.ece(
        s, y, p=p, sample_weight=small, **kw)
    for fn in (binned.mce, binned.signed_ece):
        assert fn(s, y, sample_weight=w, **kw) == fn(s, y, sample_weight=small, **kw)


def _approx(x: float):
    return pytest.approx(x, rel=1e-12, abs=1e-13)
