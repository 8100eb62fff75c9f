"""Murphy diagrams: elementary scores over thresholds.

References: a brute-force evaluation of the elementary score over all (row, theta)
pairs, the ``model-diagnostics`` package's ``ElementaryScore`` (functional "mean"),
a hand-worked example, and the mixture identity of Ehm et al. (2016): the integral of
the elementary scores over theta is half the Brier score (a hypothesis property).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from model_diagnostics.scoring import ElementaryScore

from calreport.metrics.murphy import murphy_diagram
from calreport.metrics.scoring import brier_score


def brute_force(p, y, theta, w=None):
    p, y, theta = np.asarray(p, float), np.asarray(y, bool), np.asarray(theta, float)
    w = np.ones(p.size) if w is None else np.asarray(w, float)
    t = theta[:, None]
    s = t * (~y & (p > t)) + (1 - t) * (y & (p <= t))
    return (s * w).sum(axis=1) / w.sum()


def test_hand_worked_example():
    p, y = [0.2, 0.7, 0.9], [0, 1, 0]
    d = murphy_diagram(p, y, theta=[0.1, 0.5, 0.8, 0.9])
    # theta 0.1: false alarms at 0.2 and 0.9 cost 0.1 each -> 0.2 / 3
    # theta 0.5: false alarm at 0.9 costs 0.5 -> 0.5 / 3
    # theta 0.8: false alarm at 0.9 (0.8) + miss at 0.7 (1 - 0.8) -> 1.0 / 3
    # theta 0.9: p = 0.9 is not above theta (no alarm); miss at 0.7 costs 0.1 -> 0.1 / 3
    np.testing.assert_allclose(d.score, [0.2 / 3, 0.5 / 3, 1.0 / 3, 0.1 / 3], atol=1e-15)
    assert d.n == 3


@pytest.mark.parametrize("weighted", [False, True])
def test_matches_brute_force_with_ties(weighted):
    rng = np.random.default_rng(0)
    p = np.round(rng.uniform(0, 1, 700), 2)
    y = rng.random(p.size) < p
    w = rng.uniform(0, 2, p.size) if weighted else None
    theta = np.r_[np.linspace(0, 1, 101), p[:20]]  # thresholds on the ties too
    np.testing.assert_allclose(murphy_diagram(p, y, theta=theta, sample_weight=w).score,
                               brute_force(p, y, theta, w), atol=1e-14)


def test_matches_model_diagnostics_elementary_score():
    rng = np.random.default_rng(1)
    p = rng.uniform(0, 1, 500)
    y = (rng.random(p.size) < p).astype(float)
    w = rng.uniform(0.1, 1, p.size)
    theta = np.linspace(0.0013, 0.9987, 57)  # no threshold equals a score
    expected = [ElementaryScore(eta=t, functional="mean")(y, p, w) for t in theta]
    np.testing.assert_allclose(murphy_diagram(p, y, theta=theta, sample_weight=w).score,
                               expected, atol=1e-14)


def test_default_grid_and_dominance():
    rng = np.random.default_rng(2)
    truth = rng.uniform(0, 1, 5000)
    y = rng.random(truth.size) < truth
    good = murphy_diagram(truth, y)
    assert good.theta.size == 199
    np.testing.assert_allclose(good.theta[[0, -1]], [0.005, 0.995])
    # the true probability dominates a noisy version of it at (almost) every threshold
    noisy = np.clip(truth + rng.normal(0, 0.2, truth.size), 0, 1)
    assert np.mean(good.score <= murphy_diagram(noisy, y).score) > 0.95


def test_errors():
    with pytest.raises(ValueError, match=r"`theta` has 1 value outside \[0, 1\]"):
        murphy_diagram([0.2, 0.4], [0, 1], theta=[0.5, 1.5])
    with pytest.raises(ValueError, match="`outcome` must hold 0/1"):
        murphy_diagram([0.2, 0.4], [0, 3])
    with pytest.raises(ValueError, match="`n_theta` must be an integer >= 1"):
        murphy_diagram([0.2, 0.4], [0, 1], n_theta=0)


#: forecasts on a 1/50 grid (ties), outcomes, optional positive weights
forecast_data = st.integers(min_value=1, max_value=60).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 50), min_size=n, max_size=n).map(lambda v: np.array(v) / 50),
        st.lists(st.booleans(), min_size=n, max_size=n).map(np.array),
        st.lists(st.floats(0.01, 10), min_size=n, max_size=n).map(np.array),
    )
)


@settings(max_examples=80, deadline=None)
@given(data=forecast_data)
def test_area_under_murphy_diagram_is_half_the_brier_score(data):
    # between consecutive distinct forecasts the mean elementary score is linear in
    # theta, so the midpoint rule on those intervals integrates it exactly
    p, y, w = data
    knots = np.unique(np.r_[0.0, p, 1.0])
    mids = (knots[:-1] + knots[1:]) / 2
    area = np.sum(np.diff(knots) * murphy_diagram(p, y, theta=mids, sample_weight=w).score)
    assert area == pytest.approx(brier_score(y.astype(int), p, sample_weight=w) / 2,
                                 rel=1e-12, abs=1e-15)
