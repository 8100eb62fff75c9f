"""Coverage, selective accuracy, CWSA, CWSA+, sweeps, risk-coverage, AURC, E-AURC.

Reference values are hand-worked (arithmetic in the comments) or computed by plain
per-row loops over the definitions of Shahnazari et al. (2025, arXiv:2505.18622),
section 3, and of Geifman, Uziel & El-Yaniv (2019, arXiv:1805.08206) for AURC.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from calreport.metrics import selective

# hand-worked example: tau = 0.5 retains the first five rows (0.3 < 0.5)
CONF = np.array([0.95, 0.8, 0.7, 0.6, 0.55, 0.3])
CORRECT = np.array([1, 0, 1, 1, 0, 0])


# ------------------------------------------------------------------------ helpers
def loop_cwsa(conf, correct, tau, weight=None, plus=False):
    """Per-row loop over the paper's formula; ``weight`` counts each row w_i times."""
    w = np.ones(len(conf)) if weight is None else weight
    num = den = 0.0
    for c, ok, wi in zip(conf, correct, w, strict=True):
        if c >= tau:
            phi = (c - tau) / (1 - tau)
            num += wi * phi * (ok if plus else 2 * ok - 1)
            den += wi
    return num / den if den > 0 else math.nan


def brute_aurc(conf, correct, weight=None):
    """(1/W) sum_i w_i * risk of {j : c_j >= c_i}: O(N^2), independent of row order."""
    w = np.ones(len(conf)) if weight is None else np.asarray(weight, float)
    total = 0.0
    for i in range(len(conf)):
        sel = conf >= conf[i]
        total += w[i] * np.sum(w[sel] * (1 - correct[sel])) / np.sum(w[sel])
    return total / w.sum()


def geifman_aurc(conf, correct):
    """Mean over m = 1..N of the error rate of the m most confident rows (no ties)."""
    order = np.argsort(-conf)
    errors, risks = 0, []
    for m, i in enumerate(order, start=1):
        errors += 1 - correct[i]
        risks.append(errors / m)
    return float(np.mean(risks))


# ----------------------------------------------------------------- one threshold
def test_hand_worked_cwsa_example():
    # phi(c) = (c - 0.5) / 0.5 on the retained rows: 0.9, 0.6, 0.4, 0.2, 0.1
    # signs (2 correct - 1):                         +1,  -1,  +1,  +1,  -1
    # CWSA  = (0.9 - 0.6 + 0.4 + 0.2 - 0.1) / 5 = 0.8 / 5 = 0.16
    # CWSA+ = (0.9 + 0.4 + 0.2) / 5 = 1.5 / 5 = 0.3
    assert selective.cwsa(CONF, CORRECT) == pytest.approx(0.16, abs=1e-15)
    assert selective.cwsa_plus(CONF, CORRECT) == pytest.approx(0.3, abs=1e-15)
    # coverage 5/6, selective accuracy 3/5, risk 2/5
    assert selective.coverage(CONF) == pytest.approx(5 / 6)
    assert selective.selective_accuracy(CONF, CORRECT) == pytest.approx(0.6)
    assert selective.selective_risk(CONF, CORRECT) == pytest.approx(0.4)
    # published-code normalisation: divide by N = 6 -> 0.8 / 6 and 1.5 / 6
    assert selective.cwsa(CONF, CORRECT, normalize="all") == pytest.approx(0.8 / 6)
    assert selective.cwsa_plus(CONF, CORRECT, normalize="all") == pytest.approx(1.5 / 6)


def test_hand_worked_other_tau_and_weights():
    # tau = 0.7 retains 0.95, 0.8, 0.7 with phi = 0.25/0.3, 0.1/0.3, 0
    # CWSA = (0.25/0.3 - 0.1/0.3 + 0) / 3 = 0.5 / 3;  CWSA+ = (0.25/0.3) / 3
    assert selective.cwsa(CONF, CORRECT, tau=0.7) == pytest.approx(0.5 / 3)
    assert selective.cwsa_plus(CONF, CORRECT, tau=0.7) == pytest.approx(0.25 / 0.3 / 3)
    # weights 2,1,1,1,1,5 at tau = 0.5: retained weight 6,
    # CWSA = (2*0.9 - 0.6 + 0.4 + 0.2 - 0.1) / 6 = 1.7 / 6; coverage = 6 / 11
    w = np.array([2.0, 1, 1, 1, 1, 5])
    assert selective.cwsa(CONF, CORRECT, sample_weight=w) == pytest.approx(1.7 / 6)
    assert selective.coverage(CONF, sample_weight=w) == pytest.approx(6 / 11)
    # selective accuracy: (2 + 1 + 1) / 6
    assert selective.selective_accuracy(CONF, CORRECT, sample_weight=w) == pytest.approx(4 / 6)


def test_tau_boundary_is_inclusive_and_tau_zero_keeps_everything():
    # c = tau is retained with phi = 0: it counts in |S| but adds nothing
    assert selective.coverage([0.5, 0.4], tau=0.5) == 0.5
    assert selective.cwsa([0.5, 0.9], [0, 1], tau=0.5) == pytest.approx((0.0 + 0.8) / 2)
    # tau = 0: phi(c) = c, all rows retained
    c, ok = np.array([0.2, 0.6, 1.0]), np.array([1, 0, 1])
    assert selective.cwsa(c, ok, tau=0.0) == pytest.approx((0.2 - 0.6 + 1.0) / 3)


@pytest.mark.parametrize("seed", [0, 1])
def test_cwsa_matches_loop_over_rows(seed):
    rng = np.random.default_rng(seed)
    c = np.round(rng.uniform(0.3, 1.0, 200), 2)
    ok = rng.random(200) < c
    w = rng.uniform(0, 3, 200)
    for tau in (0.0, 0.5, 0.73, 0.9):
        assert selective.cwsa(c, ok, tau=tau) == pytest.approx(loop_cwsa(c, ok, tau))
        assert selective.cwsa_plus(c, ok, tau=tau, sample_weight=w) == pytest.approx(
            loop_cwsa(c, ok, tau, w, plus=True))


def test_empty_selection():
    c, ok = [0.55, 0.6], [1, 0]
    assert np.isnan(selective.cwsa(c, ok, tau=0.9))
    assert np.isnan(selective.cwsa_plus(c, ok, tau=0.9))
    assert np.isnan(selective.selective_accuracy(c, ok, tau=0.9))
    assert np.isnan(selective.selective_risk(c, ok, tau=0.9))
    assert selective.coverage(c, tau=0.9) == 0.0
    # the published code returns 0.0 for an empty selection; normalize="all" follows it
    assert selective.cwsa(c, ok, tau=0.9, normalize="all") == 0.0
    assert selective.cwsa_plus(c, ok, tau=0.9, normalize="all") == 0.0


def test_normalize_all_is_coverage_times_paper_value_mnist_style():
    # 10,000 predictions of which 55 fall below tau = 0.5: coverage 0.9945, as the
    # authors' MNIST run (github.com/jay-gatz/CWSA at commit c55d6fb:
    # Results/mnist_metrics.csv reports the code's CWSA 0.9394011224; the paper's formula
    # on Results/Real World Predictions/mnist_predictions.csv gives 0.9445964026,
    # ratio 0.9945)
    rng = np.random.default_rng(2024)
    c = np.concatenate([rng.uniform(0.2, 0.49, 55), rng.uniform(0.5, 1.0, 9945)])
    ok = rng.random(10_000) < c
    cov = selective.coverage(c)
    assert cov == pytest.approx(0.9945, abs=1e-15)
    paper = selective.cwsa(c, ok)
    code = selective.cwsa(c, ok, normalize="all")
    assert code == pytest.approx(cov * paper, rel=1e-12)
    assert code < paper
    assert selective.cwsa_plus(c, ok, normalize="all") == pytest.approx(
        cov * selective.cwsa_plus(c, ok), rel=1e-12)


def test_perfect_model_scores_one():
    # all conf = 1 and all correct -> CWSA = CWSA+ = 1 for tau < 1 (the "perfect" model
    # of Shahnazari et al. (2025), section 5.7; Results/synthetic_perfect.csv of the
    # authors' code)
    for tau in (0.0, 0.5, 0.99):
        assert selective.cwsa(np.ones(10), np.ones(10), tau=tau) == 1.0
        assert selective.cwsa_plus(np.ones(10), np.ones(10), tau=tau) == 1.0


# --------------------------------------------------------------------------- sweep
def test_sweep_default_grid_and_columns():
    out = selective.selective_sweep(CONF, CORRECT)
    assert list(out) == ["tau", "coverage", "selective_accuracy", "selective_risk", "cwsa",
                         "cwsa_plus", "n_selected"]
    np.testing.assert_allclose(out["tau"], np.linspace(0.5, 0.99, 20))
    assert out["n_selected"].dtype == np.int64
    assert all(len(v) == 20 for v in out.values())


def test_sweep_matches_scalar_functions():
    rng = np.random.default_rng(5)
    c = np.round(rng.uniform(0.0, 1.0, 500), 2)  # many rows exactly on a threshold
    ok = rng.random(500) < c
    w = rng.uniform(0, 2, 500)
    taus = [0.9, 0.0, 0.5, 0.37, 0.5, 0.99, 0.25]  # unsorted, repeated
    for normalize in ("selected", "all"):
        out = selective.selective_sweep(c, ok, taus=taus, sample_weight=w, normalize=normalize)
        np.testing.assert_array_equal(out["tau"], taus)
        for j, tau in enumerate(taus):
            kw = {"tau": tau, "sample_weight": w}
            assert out["coverage"][j] == pytest.approx(selective.coverage(c, **kw))
            assert out["selective_accuracy"][j] == pytest.approx(
                selective.selective_accuracy(c, ok, **kw))
            assert out["selective_risk"][j] == pytest.approx(
                selective.selective_risk(c, ok, **kw))
            assert out["cwsa"][j] == pytest.approx(
                selective.cwsa(c, ok, normalize=normalize, **kw), rel=1e-10, abs=1e-13)
            assert out["cwsa_plus"][j] == pytest.approx(
                selective.cwsa_plus(c, ok, normalize=normalize, **kw), rel=1e-10, abs=1e-13)
            assert out["n_selected"][j] == np.sum(c >= tau)


def test_sweep_empty_selection():
    out = selective.selective_sweep([0.6, 0.7], [1, 0], taus=[0.5, 0.8])
    assert out["n_selected"].tolist() == [2, 0]
    assert out["coverage"].tolist() == [1.0, 0.0]
    assert np.isnan(out["cwsa"][1]) and np.isnan(out["selective_accuracy"][1])
    out = selective.selective_sweep([0.6, 0.7], [1, 0], taus=[0.5, 0.8], normalize="all")
    assert out["cwsa"][1] == 0.0 and out["cwsa_plus"][1] == 0.0


# ------------------------------------------------------------ risk-coverage, AURC
def test_risk_coverage_curve_hand_worked():
    # confidences 0.9 | 0.8 0.8 | 0.6, correct 1 | 1 0 | 0
    # accept 0.9: 1 row, 0 errors; accept >= 0.8: 3 rows, 1 error; all: 4 rows, 2 errors
    cov, risk, thr = selective.risk_coverage_curve([0.9, 0.8, 0.8, 0.6], [1, 1, 0, 0])
    np.testing.assert_allclose(cov, [0.25, 0.75, 1.0])
    np.testing.assert_allclose(risk, [0.0, 1 / 3, 0.5])
    np.testing.assert_array_equal(thr, [0.9, 0.8, 0.6])
    # AURC = (1 * 0 + 2 * 1/3 + 1 * 1/2) / 4
    assert selective.aurc([0.9, 0.8, 0.8, 0.6], [1, 1, 0, 0]) == pytest.approx(
        (2 / 3 + 0.5) / 4)


def test_aurc_without_ties_is_geifman_mean_of_risks():
    rng = np.random.default_rng(3)
    c = rng.permutation(np.linspace(0.3, 1.0, 150))
    ok = rng.random(150) < c
    assert selective.aurc(c, ok) == pytest.approx(geifman_aurc(c, ok), rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_aurc_with_ties_and_weights_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    c = np.round(rng.uniform(0.4, 1.0, 120), 1)
    ok = (rng.random(120) < c).astype(int)
    w = rng.uniform(0, 2, 120)
    assert selective.aurc(c, ok) == pytest.approx(brute_aurc(c, ok), rel=1e-12)
    assert selective.aurc(c, ok, sample_weight=w) == pytest.approx(brute_aurc(c, ok, w),
                                                                   rel=1e-12)
    cov, risk, _ = selective.risk_coverage_curve(c, ok, sample_weight=w)
    # AURC is the right-endpoint sum over the curve's points
    assert selective.aurc(c, ok, sample_weight=w) == pytest.approx(
        np.sum(np.diff(cov, prepend=0.0) * risk), rel=1e-12)


def test_e_aurc_against_perfect_ranking_loop():
    rng = np.random.default_rng(4)
    c = rng.permutation(np.linspace(0.3, 1.0, 200))
    ok = rng.random(200) < c
    # perfect ranking: every correct row above every error, no ties
    perfect_conf = np.where(ok, 2.0, 1.0) + rng.random(200) * 0.5
    optimal = geifman_aurc(perfect_conf, ok)
    assert selective.e_aurc(c, ok) == pytest.approx(geifman_aurc(c, ok) - optimal, rel=1e-10)
    assert selective.e_aurc(c, ok) > 0


def test_e_aurc_zero_for_perfect_ranking_and_extremes():
    c = np.array([0.99, 0.95, 0.9, 0.7, 0.6, 0.55])
    assert selective.e_aurc(c, [1, 1, 1, 0, 0, 0]) == pytest.approx(0.0, abs=1e-14)
    assert selective.e_aurc(c, np.ones(6)) == 0.0  # no errors: AURC = AURC* = 0
    assert selective.e_aurc(c, np.zeros(6)) == pytest.approx(0.0, abs=1e-14)  # both 1


def test_optimal_aurc_tends_to_continuous_limit():
    # large N, error rate r: AURC* -> r + (1 - r) ln(1 - r), with an O(log N / N) gap
    n, r = 200_000, 0.2
    ok = np.arange(n) >= r * n
    c = np.where(ok, 0.9, 0.6) + np.arange(n) * 1e-7  # errors distinct, below corrects
    optimal = selective.aurc(c, ok) - selective.e_aurc(c, ok)
    limit = r + (1 - r) * math.log(1 - r)
    assert optimal == pytest.approx(limit, abs=5e-5)
    assert optimal > limit


def test_e_aurc_integer_weights_are_repeated_rows():
    c = np.array([0.9, 0.8, 0.8, 0.7, 0.65, 0.6])
    ok = np.array([1, 0, 1, 1, 0, 0])
    w = np.array([2, 1, 3, 0, 1, 2])
    rep = np.repeat(np.arange(6), w)
    assert selective.e_aurc(c, ok, sample_weight=w) == pytest.approx(
        selective.e_aurc(c[rep], ok[rep]), rel=1e-12)


# -------------------------------------------------------------------------- errors
def test_error_messages():
    with pytest.raises(ValueError, match=r"`tau` must be in \[0, 1\), got 1\.0"):
        selective.cwsa(CONF, CORRECT, tau=1.0)
    with pytest.raises(ValueError, match=r"`tau` must be in \[0, 1\), got -0\.1"):
        selective.coverage(CONF, tau=-0.1)
    with pytest.raises(TypeError, match=r"`tau` must be a number in \[0, 1\)"):
        selective.cwsa_plus(CONF, CORRECT, tau="high")
    with pytest.raises(ValueError, match=r"`tau` must be in \[0, 1\), got 1\.2"):
        selective.selective_sweep(CONF, CORRECT, taus=[0.5, 1.2])
    with pytest.raises(ValueError, match=r"`taus` has 1 missing value"):
        selective.selective_sweep(CONF, CORRECT, taus=[0.5, np.nan])
    with pytest.raises(ValueError, match=r"`normalize` must be one of 'selected', 'all'"):
        selective.cwsa(CONF, CORRECT, normalize="n")
    with pytest.raises(ValueError, match=r"`normalize` must be one of"):
        selective.selective_sweep(CONF, CORRECT, normalize="N")
    with pytest.raises(ValueError, match=r"`conf` has 1 value outside \[0, 1\]"):
        selective.aurc([0.5, 1.5], [1, 0])
    with pytest.raises(ValueError, match=r"`correct` must hold 0/1 or True/False"):
        selective.e_aurc([0.5, 0.7], [1, 2])
    with pytest.raises(ValueError, match=r"`conf` has 2, `correct` has 3"):
        selective.selective_accuracy([0.5, 0.7], [1, 0, 1])
    with pytest.raises(ValueError, match=r"`sample_weight` has 1 negative value"):
        selective.risk_coverage_curve([0.5, 0.7], [1, 0], sample_weight=[1, -1])


def test_inputs_not_mutated():
    c, ok, w = CONF.copy(), CORRECT.copy(), np.arange(6.0)
    selective.selective_sweep(c, ok, sample_weight=w)
    selective.e_aurc(c, ok, sample_weight=w)
    np.testing.assert_array_equal(c, CONF)
    np.testing.assert_array_equal(ok, CORRECT)
    np.testing.assert_array_equal(w, np.arange(6.0))
    assert not selective.DEFAULT_TAUS.flags.writeable
