"""Properties of CWSA, CWSA+, the tau sweep and AURC.

Definitions: Shahnazari et al. (2025, arXiv:2505.18622), section 3; AURC: Geifman,
Uziel & El-Yaniv (2019, arXiv:1805.08206).

Confidences come from a coarse grid (frequent ties, and rows exactly on a threshold);
weights are small integers so that "integer weights = repeated rows" can be checked.
"""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from calreport.metrics import selective

PROPS = settings(max_examples=60, deadline=None)

#: confidences on a 1/20 grid including 0 and 1
grid_conf = st.integers(min_value=0, max_value=20).map(lambda i: i / 20)
#: thresholds on the same grid, in [0, 1)
taus = st.integers(min_value=0, max_value=19).map(lambda i: i / 20)
#: integer sample weights including zeros
int_weights = st.integers(min_value=0, max_value=3)


@st.composite
def profiles(draw, min_size=1, max_size=30):
    """(conf, correct, integer weights with a positive sum)."""
    n = draw(st.integers(min_value=min_size, max_value=max_size))
    c = np.array(draw(st.lists(grid_conf, min_size=n, max_size=n)))
    ok = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    w = np.array(draw(st.lists(int_weights, min_size=n, max_size=n)), dtype=float)
    assume(w.sum() > 0)
    return c, ok, w


def _same(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, equal_nan=True)


@PROPS
@given(profiles(), taus)
def test_bounds(data, tau):
    c, ok, w = data
    for weight in (None, w):
        cw = selective.cwsa(c, ok, tau=tau, sample_weight=weight)
        cwp = selective.cwsa_plus(c, ok, tau=tau, sample_weight=weight)
        if np.isnan(cw):
            assert np.isnan(cwp)
            continue
        assert -1.0 - 1e-12 <= cw <= 1.0 + 1e-12
        assert -1e-12 <= cwp <= 1.0 + 1e-12
        assert cw <= cwp + 1e-12  # errors only subtract


@PROPS
@given(profiles(), taus)
def test_cwsa_is_twice_cwsa_plus_minus_mean_phi(data, tau):
    c, ok, w = data
    sel = c >= tau
    assume(w[sel].sum() > 0)
    phi = (c[sel] - tau) / (1 - tau)
    mean_phi = np.sum(w[sel] * phi) / w[sel].sum()
    cw = selective.cwsa(c, ok, tau=tau, sample_weight=w)
    cwp = selective.cwsa_plus(c, ok, tau=tau, sample_weight=w)
    assert np.isclose(cw, 2 * cwp - mean_phi, rtol=1e-12, atol=1e-14)


@PROPS
@given(profiles(), taus)
def test_normalize_all_is_coverage_times_selected(data, tau):
    c, ok, w = data
    cov = selective.coverage(c, tau=tau, sample_weight=w)
    assume(cov > 0)
    for fn in (selective.cwsa, selective.cwsa_plus):
        assert np.isclose(fn(c, ok, tau=tau, sample_weight=w, normalize="all"),
                          cov * fn(c, ok, tau=tau, sample_weight=w), rtol=1e-12, atol=1e-14)


@PROPS
@given(profiles(), st.lists(taus, min_size=1, max_size=6), st.sampled_from(["selected", "all"]))
def test_sweep_equals_pointwise(data, tau_list, normalize):
    c, ok, w = data
    out = selective.selective_sweep(c, ok, taus=tau_list, sample_weight=w, normalize=normalize)
    for j, tau in enumerate(tau_list):
        kw = {"tau": tau, "sample_weight": w}
        _same(out["coverage"][j], selective.coverage(c, **kw))
        _same(out["selective_accuracy"][j], selective.selective_accuracy(c, ok, **kw))
        _same(out["cwsa"][j], selective.cwsa(c, ok, normalize=normalize, **kw))
        _same(out["cwsa_plus"][j], selective.cwsa_plus(c, ok, normalize=normalize, **kw))
        assert out["n_selected"][j] == np.count_nonzero(c >= tau)


@PROPS
@given(profiles(), st.randoms(use_true_random=False))
def test_permutation_invariance_with_ties(data, rnd):
    c, ok, w = data
    perm = np.arange(len(c))
    rnd.shuffle(perm)
    for fn in (selective.aurc, selective.e_aurc):
        _same(fn(c, ok, sample_weight=w), fn(c[perm], ok[perm], sample_weight=w[perm]))
    for a, b in zip(selective.risk_coverage_curve(c, ok, sample_weight=w),
                    selective.risk_coverage_curve(c[perm], ok[perm], sample_weight=w[perm]),
                    strict=True):
        _same(a, b)
    s1 = selective.selective_sweep(c, ok, sample_weight=w)
    s2 = selective.selective_sweep(c[perm], ok[perm], sample_weight=w[perm])
    for key in s1:
        _same(s1[key], s2[key])


@PROPS
@given(profiles(), taus)
def test_sample_weight_invariances(data, tau):
    c, ok, w = data
    ones = np.ones(len(c))
    rep = np.repeat(np.arange(len(c)), w.astype(int))  # zero weights drop rows
    scalar = [
        lambda c_, ok_, sw: selective.coverage(c_, tau=tau, sample_weight=sw),
        lambda c_, ok_, sw: selective.selective_accuracy(c_, ok_, tau=tau, sample_weight=sw),
        lambda c_, ok_, sw: selective.cwsa(c_, ok_, tau=tau, sample_weight=sw),
        lambda c_, ok_, sw: selective.cwsa_plus(c_, ok_, tau=tau, sample_weight=sw),
        lambda c_, ok_, sw: selective.cwsa(c_, ok_, tau=tau, sample_weight=sw,
                                           normalize="all"),
        lambda c_, ok_, sw: selective.aurc(c_, ok_, sample_weight=sw),
        lambda c_, ok_, sw: selective.e_aurc(c_, ok_, sample_weight=sw),
    ]
    for fn in scalar:
        _same(fn(c, ok, ones), fn(c, ok, None))
        _same(fn(c, ok, w), fn(c[rep], ok[rep], None))
    for a, b in zip(selective.risk_coverage_curve(c, ok, sample_weight=w),
                    selective.risk_coverage_curve(c[rep], ok[rep]), strict=True):
        _same(a, b)


@PROPS
@given(profiles())
def test_aurc_is_order_free_brute_force_and_bounded(data):
    c, ok, w = data
    err = 1.0 - ok
    # every row (with weight) is charged the error rate of the rows at least as
    # confident as itself
    pos = w > 0
    at_least = c[None, :] >= c[pos][:, None]
    risk_i = (at_least * (w * err)[None, :]).sum(axis=1) / (at_least * w[None, :]).sum(axis=1)
    expected = np.sum(w[pos] * risk_i) / w.sum()
    got = selective.aurc(c, ok, sample_weight=w)
    assert np.isclose(got, expected, rtol=1e-12, atol=1e-14)
    assert -1e-14 <= got <= 1.0 + 1e-14
    assert selective.e_aurc(c, ok, sample_weight=w) >= -1e-12


@PROPS
@given(st.integers(0, 15), st.integers(0, 15), st.randoms(use_true_random=False))
def test_e_aurc_zero_when_every_correct_outranks_every_error(n_ok, n_err, rnd):
    assume(n_ok + n_err > 0)
    # correct rows may tie among themselves; errors get distinct lower confidences
    c = np.r_[np.full(n_ok, 0.9), np.linspace(0.5, 0.8, n_err)]
    ok = np.r_[np.ones(n_ok, bool), np.zeros(n_err, bool)]
    perm = np.arange(len(c))
    rnd.shuffle(perm)
    assert abs(selective.e_aurc(c[perm], ok[perm])) < 1e-12
