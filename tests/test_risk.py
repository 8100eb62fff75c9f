"""CSR, sigma_CSR, z, P_risk: hand-worked values, the paper's table, null simulations.

Paper: Martin-Maroto, Abderrahaman-Elena & de Polavieja (2026), "Beyond ECE",
arXiv:2605.01796.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from calreport.metrics import risk


def test_csr_hand_worked():
    # errors at c = 0.8 and 0.5: (1/(1-0.8) + 1/(1-0.5)) / 4 = (5 + 2) / 4
    assert risk.csr([0.9, 0.8, 0.5, 0.5], [1, 0, 1, 0]) == pytest.approx(1.75)
    # sigma = sqrt(sum c/(1-c)) / N = sqrt(9 + 4 + 1 + 1) / 4
    assert risk.sigma_csr([0.9, 0.8, 0.5, 0.5]) == pytest.approx(math.sqrt(15) / 4)
    z = (1.75 - 1) / (math.sqrt(15) / 4)
    assert risk.z_csr([0.9, 0.8, 0.5, 0.5], [1, 0, 1, 0]) == pytest.approx(z)
    assert risk.p_risk([0.9, 0.8, 0.5, 0.5], [1, 0, 1, 0], method="normal") == pytest.approx(
        stats.norm.cdf(z))


def test_no_errors_gives_zero():
    assert risk.csr([0.9, 0.7], [1, 1]) == 0.0
    assert risk.p_risk([0.9, 0.7], [1, 1]) == 0.0


@pytest.mark.parametrize(("csr_value", "sigma", "expected"),
                         [(0.9517, 0.1337, 0.3590), (1.1729, 2.9505, 0.5234)])
def test_paper_table6_phi_of_z(csr_value, sigma, expected):
    """The paper's P_risk = Phi(z) on both sides of CSR = 1 (section 2.1): Table 6's
    second row, and Phi(-0.361) = 0.359 for its first (the table prints 0.00 %)."""
    z = (csr_value - 1) / sigma
    assert risk.p_normal(csr_value, z) == pytest.approx(expected, abs=5e-5)


def test_risk_band_edges():
    assert risk.risk_band(1.0)[0] == "no_evidence"
    assert risk.risk_band(1.0000001)[0] == "evidence"
    assert risk.risk_band(3.0)[0] == "evidence"
    assert risk.risk_band(3.01) == ("risky", "risky")
    assert risk.risk_band(-5)[1] == "no evidence of overconfidence"


def test_clipping_counts_and_warns():
    with pytest.warns(risk.ClippedConfidenceWarning, match="2 confidence"):
        c, n = risk.clip_confidence([1.0, 1.0, 0.5, 0.0])
    assert n == 3 and c[0] == 1 - 1e-8 and c[3] == 1e-8
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        risk.clip_confidence([1.0], warn=False)
    # an error at confidence 1 is finite only thanks to the clip: 1/1e-8 / 2
    with pytest.warns(risk.ClippedConfidenceWarning):
        assert risk.csr([1.0, 0.5], [0, 1]) == pytest.approx(0.5e8, rel=1e-6)


def test_summary_fields():
    with pytest.warns(risk.ClippedConfidenceWarning):
        r = risk.risk_summary([1.0, 0.5, 0.9], [1, 0, 1], method="normal")
    assert r.n == 3 and r.n_clipped == 1 and r.n_clipped_one == 1
    assert r.p_risk_method == "normal"
    # the default is "auto": three rows are far from normal
    with pytest.warns(risk.ClippedConfidenceWarning):
        assert risk.risk_summary([1.0, 0.5, 0.9], [1, 0, 1]).p_risk_method == "monte_carlo"
    d = r.to_dict()
    assert d["csr"] == pytest.approx(2.0 / 3)  # 1/(1-0.5) / 3
    assert d["band"] == r.band


def test_contributions_sum_to_csr():
    rng = np.random.default_rng(0)
    c = rng.uniform(0.5, 0.99, 300)
    ok = rng.random(300) < c
    contrib = risk.csr_contributions(c, ok)
    assert contrib.sum() == pytest.approx(risk.csr(c, ok))
    assert (contrib[ok] == 0).all()


def test_sigma_matches_null_simulation():
    """Prop. 6: sd of CSR over Bernoulli(c) redraws equals sigma_CSR."""
    rng = np.random.default_rng(1)
    c = rng.beta(4, 2, 500)
    sims = (rng.random((20000, 500)) >= c) @ (1 / (1 - c)) / 500
    assert sims.mean() == pytest.approx(1.0, abs=3 * sims.std() / math.sqrt(20000))
    assert sims.std() == pytest.approx(risk.sigma_csr(c), rel=0.03)


def test_monte_carlo_agrees_with_normal_at_large_n():
    rng = np.random.default_rng(2)
    c = rng.uniform(0.3, 0.9, 5000)
    ok = rng.random(5000) < c * 0.985  # slightly overconfident
    normal = risk.risk_summary(c, ok, method="normal")
    assert normal.csr > 1
    mc = risk.risk_summary(c, ok, method="monte_carlo", seed=0, n_sim=20000)
    assert mc.p_risk == pytest.approx(normal.p_risk, abs=0.03)
    assert mc.p_risk_method == "monte_carlo"


def test_monte_carlo_matches_exact_enumeration():
    """Brute force over all 2^12 outcomes of the null correct_i ~ Bernoulli(c_i)."""
    c = np.array([0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.92, 0.95, 0.97, 0.99])
    ok = np.ones(12, bool)
    ok[[8, 10]] = False
    obs = risk.csr(c, ok)
    grid = ((np.arange(4096)[:, None] >> np.arange(12)) & 1).astype(bool)  # 1 = wrong
    prob = np.prod(np.where(grid, 1 - c, c), axis=1)
    null = grid @ (1 / (1 - c)) / 12
    exact = prob[null < obs].sum()
    mc = risk.p_risk(c, ok, method="monte_carlo", seed=7, n_sim=200000)
    assert obs > 1
    assert mc == pytest.approx(exact, abs=0.004)  # 4 SE of 200,000 draws


def test_monte_carlo_reproducible_and_auto():
    c = np.full(50, 0.8)
    ok = np.r_[np.zeros(15, bool), np.ones(35, bool)]
    a = risk.p_risk(c, ok, method="monte_carlo", seed=4)
    b = risk.p_risk(c, ok, method="monte_carlo", seed=4)
    assert a == b
    # exact: CSR* = 5 * Binomial(50, 0.2) / 50; P(CSR* < 1.5) = P(K < 15)
    assert a == pytest.approx(stats.binom.cdf(14, 50, 0.2), abs=0.01)
    assert risk.risk_summary(c, ok, method="auto", seed=0).p_risk_method == "monte_carlo"
    big = np.full(2000, 0.8)
    assert risk.risk_summary(big, big > 0.5, method="auto").p_risk_method == "normal"


def test_weights_invariances():
    rng = np.random.default_rng(5)
    c = rng.uniform(0.4, 0.99, 60)
    ok = rng.random(60) < c
    w = rng.integers(0, 4, 60)
    w[0] = 1
    rep_c, rep_ok = np.repeat(c, w), np.repeat(ok, w)
    assert risk.csr(c, ok, sample_weight=w) == pytest.approx(risk.csr(rep_c, rep_ok))
    # sigma_CSR equals repeated rows only for frequency weights (the default importance
    # weights give sqrt(sum w^2 c/(1-c)) / sum w, see test_risk_verdict.py)
    assert risk.sigma_csr(c, sample_weight=w, weights="frequency") == pytest.approx(
        risk.sigma_csr(rep_c))
    assert risk.csr(c, ok, sample_weight=np.ones(60)) == pytest.approx(risk.csr(c, ok))


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [({"conf": [0.5, 1.2], "correct": [1, 0]}, ValueError, r"`conf` has 1 value outside"),
     ({"conf": [0.5, 0.6], "correct": [1, 2]}, ValueError, "`correct` must hold 0/1"),
     ({"conf": [0.5, 0.6], "correct": [1]}, ValueError, "different numbers of rows"),
     ({"conf": [], "correct": []}, ValueError, "`conf` is empty"),
     ({"conf": ["a", "b"], "correct": [1, 0]}, TypeError, "`conf` must be numeric")],
)
def test_errors(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        risk.csr(kwargs["conf"], kwargs["correct"])


def test_bad_method_and_eps():
    with pytest.raises(ValueError, match="`method` must be one of"):
        risk.p_risk([0.5], [1], method="exact")
    with pytest.raises(ValueError, match=r"`eps` must be below 0\.5"):
        risk.csr([0.5], [1], eps=0.6)
