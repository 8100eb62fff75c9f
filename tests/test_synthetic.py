"""Synthetic generators: the distributions and calibration modes of Martin-Maroto et al.
(2026, arXiv:2605.01796), appendix Table 4; the distorted logistic model of Fernandes
Machado et al. (2024, arXiv:2402.07790); the binomial-process simulation of Dong et al.
(2025, arXiv:2412.10658), Algorithm 3.

Expected values are computed here by numerical integration of the distributions as
the papers state them (QUADPACK, with the Beta kernels as algebraic weights and the
log-uniform laws integrated in log space), independently of the generators.  Sample
means are compared with them within z standard errors, z chosen by Bonferroni so that
a whole test fails by chance with probability 0.001.  The same expected values are
checked against the published tables (Martin-Maroto et al. 2026, appendix Tables 5, 8
and 9), which validates
the transcription of Table 4.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, special, stats

from calreport.synthetic import (
    BPM_CURVES,
    CALIBRATION_MODES,
    DISTRIBUTIONS,
    PAPER_LABELS,
    beyond_ece_profile,
    bpm_simulation,
    distorted_binary,
    true_tce,
)


def bonferroni_z(n_comparisons: int, family_error: float = 0.001) -> float:
    return float(stats.norm.isf(family_error / (2 * n_comparisons)))


# ---------------------------- Martin-Maroto et al. (2026), Table 4, by integration
def _beta_expect(a: float, b: float, h) -> float:
    kw = {"epsabs": 1e-13, "epsrel": 1e-12, "limit": 200}
    left = integrate.quad(lambda x: h(x) * (1 - x) ** (b - 1), 0, 0.5, weight="alg",
                          wvar=(a - 1, 0), **kw)[0]
    right = integrate.quad(lambda x: h(x) * x ** (a - 1), 0.5, 1, weight="alg",
                           wvar=(0, b - 1), **kw)[0]
    return (left + right) / math.exp(special.betaln(a, b))


def _log_uniform_expect(lo: float, hi: float, h) -> float:
    # c = exp(u), u ~ U(ln lo, ln hi)
    return integrate.quad(lambda u: h(math.exp(u)), math.log(lo), math.log(hi),
                          epsabs=1e-13, limit=200)[0] / (math.log(hi) - math.log(lo))


_TRUNC_NORMAL = stats.truncnorm((0 - 0.7) / 0.1, (1 - 0.7) / 0.1, loc=0.7, scale=0.1)

EXPECT = {  # E[h(c)] for each confidence distribution of Table 4
    "uniform": lambda h: integrate.quad(h, 0, 1, epsabs=1e-13)[0],
    "skew_high": lambda h: _beta_expect(3.0, 0.5, h),
    "skew_low": lambda h: _beta_expect(0.5, 3.0, h),
    "bimodal": lambda h: 0.5 * _beta_expect(0.5, 3.0, h) + 0.5 * _beta_expect(3.0, 0.5, h),
    "tight_high": lambda h: integrate.quad(h, 0.8, 1.0, epsabs=1e-13)[0] / 0.2,
    "tight_low": lambda h: integrate.quad(h, 0.0, 0.2, epsabs=1e-13)[0] / 0.2,
    "normal": lambda h: integrate.quad(lambda x: h(x) * _TRUNC_NORMAL.pdf(x), 0, 1,
                                       points=[0.7], epsabs=1e-13)[0],
    "log_uniform_low": lambda h: _log_uniform_expect(1e-4, 1 - 1e-6, h),
    "log_uniform_high": lambda h: _log_uniform_expect(1e-6, 0.9, lambda z: h(1 - z)),
    "bell": lambda h: _beta_expect(5.0, 5.0, h),
}

MODE_MEAN = {  # E[p_true | c] (the random modes averaged over their uniform draw)
    "random": lambda c: 0.5,
    "perfect": lambda c: c,
    "underconf_linear": lambda c: 0.2 + 0.8 * c,
    "underconf_sqrt": math.sqrt,
    "random_over": lambda c: (1 + c) / 2,  # mean of U(c, 1)
    "overconf_sqrt": lambda c: 1 - math.sqrt(1 - c),
    "overconf_half": lambda c: 0.5 * c,
    "random_under": lambda c: 0.5 * c,  # mean of U(0, c)
}


def test_names_cover_table_4():
    assert len(DISTRIBUTIONS) == 10 and len(CALIBRATION_MODES) == 8
    assert set(EXPECT) == set(DISTRIBUTIONS) and set(MODE_MEAN) == set(CALIBRATION_MODES)
    assert set(PAPER_LABELS) == set(DISTRIBUTIONS) | set(CALIBRATION_MODES)


N_GEN = 20_000
Z_GEN = bonferroni_z(len(DISTRIBUTIONS) * len(CALIBRATION_MODES) * 2)  # 160 comparisons


@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
def test_generator_accuracy_and_mean_confidence_match_expectations(distribution):
    mean_c = EXPECT[distribution](lambda c: c)
    var_c = EXPECT[distribution](lambda c: c * c) - mean_c**2
    for k, mode in enumerate(CALIBRATION_MODES):
        df = beyond_ece_profile(distribution, mode, N_GEN, seed=1000 + k)
        acc = EXPECT[distribution](MODE_MEAN[mode])
        se_acc = math.sqrt(acc * (1 - acc) / N_GEN)
        assert abs(df["correct"].mean() - acc) <= Z_GEN * se_acc, (mode, acc)
        se_c = math.sqrt(var_c / N_GEN)
        assert abs(df["confidence"].mean() - mean_c) <= Z_GEN * se_c, (mode, mean_c)


# Martin-Maroto et al. (2026), appendix Tables 8-9 (N = 1000, 100 repetitions): average
# accuracy, rows in the order of CALIBRATION_MODES, columns in the order of DISTRIBUTIONS.
TABLE_8_9_ACC = """
.5007 .5032 .5027 .5000 .5010 .4987 .4982 .4997 .5029 .4978
.4977 .8571 .1405 .5000 .9006 .0999 .6999 .1068 .9333 .4987
.6019 .8850 .3122 .5994 .9199 .2824 .7580 .2824 .9480 .5982
.6670 .9202 .3137 .6169 .9487 .2970 .8350 .2135 .9615 .6949
.7503 .9278 .5727 .7491 .9493 .5496 .8488 .5523 .9665 .7486
.3345 .6860 .0804 .3849 .7014 .0517 .4622 .0655 .8614 .2993
.2510 .4277 .0713 .2511 .4516 .0500 .3524 .0545 .4683 .2478
.2487 .4293 .0711 .2505 .4502 .0508 .3500 .0550 .4664 .2495
"""

# Martin-Maroto et al. (2026), appendix Table 5, N = 100,000 (100 repetitions), perfect
# calibration: (Acc, cwA)
TABLE_5_LARGE = {
    "uniform": (0.5002, 0.6668), "skew_high": (0.8571, 0.8888),
    "skew_low": (0.1428, 0.3330), "bimodal": (0.5000, 0.8094),
    "tight_high": (0.8999, 0.9036), "tight_low": (0.1001, 0.1335),
    "normal": (0.6997, 0.7139), "log_uniform_low": (0.1085, 0.4998),
    "log_uniform_high": (0.9344, 0.9613), "bell": (0.5000, 0.5454),
}
Z_TABLES = bonferroni_z(80 + 20)
ROUNDING = 5e-5  # the tables print four decimals


def test_expected_accuracies_match_tables_8_and_9():
    # standard error of an average over 100 independent repetitions of 1000 rows
    rows = [r.split() for r in TABLE_8_9_ACC.strip().splitlines()]
    for i, mode in enumerate(CALIBRATION_MODES):
        for j, dist in enumerate(DISTRIBUTIONS):
            acc = EXPECT[dist](MODE_MEAN[mode])
            se = math.sqrt(acc * (1 - acc) / 100_000)
            assert abs(float(rows[i][j]) - acc) <= Z_TABLES * se + ROUNDING, (mode, dist)


def test_expected_accuracy_and_cwa_match_table_5():
    # perfect calibration: Acc = E[c], cwA = E[c^2] / E[c]; averages of 10^7 rows.
    # Delta method: Var(cwA) ~ E[c^2 (k - R)^2] / (N E[c]^2), k ~ Bernoulli(c), R = cwA,
    # and E[c^2 (k - R)^2] = E[c^3] (1 - 2R) + R^2 E[c^2].
    n = 100 * 100_000
    for dist, (acc_table, cwa_table) in TABLE_5_LARGE.items():
        m1, m2, m3 = (EXPECT[dist](lambda c, k=k: c**k) for k in (1, 2, 3))
        r = m2 / m1
        se_acc = math.sqrt(m1 * (1 - m1) / n)
        se_cwa = math.sqrt((m3 * (1 - 2 * r) + r * r * m2) / (n * m1 * m1))
        assert abs(acc_table - m1) <= Z_TABLES * se_acc + ROUNDING, dist
        assert abs(cwa_table - r) <= Z_TABLES * se_cwa + ROUNDING, dist


def test_normal_distribution_has_standard_deviation_0_1_not_0_12():
    # Table 4 prints N(0.7, 0.1^2) (extracted as "0.12"); Table 5's cwA tells them apart
    wide = stats.truncnorm(-0.7 / 0.12, 0.3 / 0.12, loc=0.7, scale=0.12)
    cwa_wide = wide.expect(lambda c: c * c) / wide.mean()
    cwa = EXPECT["normal"](lambda c: c * c) / EXPECT["normal"](lambda c: c)
    assert abs(cwa - 0.7139) < 5e-4 < abs(cwa_wide - 0.7139)


def test_profile_columns_and_consistency():
    df = beyond_ece_profile("bimodal", "random_over", 5000, seed=3)
    assert list(df.columns) == ["y_true", "y_pred", "confidence", "correct", "true_proba"]
    assert df["y_true"].dtype == np.int64 and df["correct"].dtype == bool
    assert set(df["y_pred"].unique()) <= {0, 1} and set(df["y_true"].unique()) <= {0, 1}
    np.testing.assert_array_equal(df["correct"], df["y_true"] == df["y_pred"])
    # random over c: p_true ~ U(c, 1)
    assert (df["true_proba"] >= df["confidence"]).all() and (df["true_proba"] <= 1).all()
    # predicted class uniform on {0, 1}
    assert abs(df["y_pred"].mean() - 0.5) <= 4.5 * math.sqrt(0.25 / 5000)


@pytest.mark.parametrize("mode", ["perfect", "underconf_linear", "underconf_sqrt",
                                  "overconf_sqrt", "overconf_half", "random"])
def test_deterministic_modes_store_p_true_of_c(mode):
    df = beyond_ece_profile("uniform", mode, 1000, seed=0)
    c = df["confidence"].to_numpy()
    np.testing.assert_allclose(df["true_proba"], [MODE_MEAN[mode](x) for x in c], rtol=1e-12)


def test_random_under_mode_bounds():
    df = beyond_ece_profile("tight_high", "random_under", 2000, seed=1)
    assert (df["true_proba"] >= 0).all() and (df["true_proba"] <= df["confidence"]).all()


@pytest.mark.parametrize(("distribution", "lo", "hi"), [
    ("normal", 0.0, 1.0), ("log_uniform_low", 1e-4, 1 - 1e-6),
    ("log_uniform_high", 0.1, 1 - 1e-6), ("tight_high", 0.8, 1.0), ("tight_low", 0.0, 0.2)])
def test_supports(distribution, lo, hi):
    c = beyond_ece_profile(distribution, "perfect", 50_000, seed=2)["confidence"]
    assert c.min() >= lo * (1 - 1e-12) and c.max() <= hi * (1 + 1e-12)
    if distribution == "normal":
        assert c.max() < 1.0  # support [0, 1)


def test_seeds_are_reproducible_and_generators_accepted():
    a = beyond_ece_profile("bell", "perfect", 500, seed=11)
    pd.testing.assert_frame_equal(a, beyond_ece_profile("bell", "perfect", 500, seed=11))
    rng = np.random.default_rng(11)
    pd.testing.assert_frame_equal(a, beyond_ece_profile("bell", "perfect", 500, seed=rng))
    b = beyond_ece_profile("bell", "perfect", 500, seed=12)
    assert not a["confidence"].equals(b["confidence"])


# ------------------------------------------------------ Fernandes Machado et al. (2024)
COEF = np.array([0.1, 0.05, 0.2, -0.05])


def test_distorted_binary_identities():
    base = distorted_binary(3000, seed=5)
    np.testing.assert_array_equal(base["proba"], base["true_proba"])
    alpha = distorted_binary(3000, alpha=3.0, seed=5)
    np.testing.assert_array_equal(alpha["true_proba"], base["true_proba"])
    np.testing.assert_allclose(alpha["proba"], base["true_proba"] ** 3.0, rtol=1e-12)
    gamma = distorted_binary(3000, gamma=1 / 3, seed=5)
    np.testing.assert_allclose(special.logit(gamma["proba"]),
                               special.logit(base["true_proba"]) / 3, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(gamma["y_true"], base["y_true"])


def test_distorted_binary_linear_predictor_moments():
    # eta = a.x + eps, x ~ U(0,1)^4, eps ~ N(0, 0.25): E = sum(a) / 2,
    # Var = sum(a^2) / 12 + 0.25; fourth central moment from independent parts
    n = 200_000
    eta = special.logit(distorted_binary(n, seed=6)["true_proba"].to_numpy())
    mean = COEF.sum() / 2
    var_u = np.sum(COEF**2) / 12
    var = var_u + 0.25
    m4_u = np.sum(COEF**4) / 80 + 6 * sum(
        COEF[i] ** 2 * COEF[j] ** 2 / 144 for i in range(4) for j in range(i + 1, 4))
    m4 = m4_u + 6 * var_u * 0.25 + 3 * 0.25**2
    z = bonferroni_z(2)
    assert abs(eta.mean() - mean) <= z * math.sqrt(var / n)
    assert abs(eta.var() - var) <= z * math.sqrt((m4 - var**2) / n)


def test_distorted_binary_outcomes_follow_true_probability():
    df = distorted_binary(100_000, alpha=1 / 3, seed=7)
    p = df["true_proba"].to_numpy()
    se = math.sqrt(np.mean(p * (1 - p)) / len(p))
    assert abs(df["y_true"].mean() - p.mean()) <= bonferroni_z(1) * se
    assert list(df.columns) == ["y_true", "proba", "true_proba"]


# ------------------------------------------------------------------ Dong et al. (2025)
def test_bpm_simulation_reproduces_the_reference_simulation():
    # the default preset written out independently: sorted Beta(1.1233, 0.1147)
    # confidences, then hits with probability sigmoid(-0.88 + 0.49 logit c), c clipped
    # to [1e-10, 1 - 1e-10]
    for seed, n in [(0, 5000), (2, 1000)]:
        rng = np.random.default_rng(seed)
        conf = np.sort(rng.beta(1.1233, 0.1147, n))
        c = np.clip(conf, 1e-10, 1 - 1e-10)
        y = rng.random(n) < special.expit(-0.88 + 0.49 * special.logit(c))
        df = bpm_simulation(n, seed=seed)
        np.testing.assert_array_equal(df["confidence"], conf)
        np.testing.assert_array_equal(df["correct"], y)


def test_bpm_simulation_hit_rate_matches_the_curve():
    n = 50_000
    df = bpm_simulation(n, curve=(1.5, 0.6, 0.4), beta=(3.0, 1.0), seed=9)
    g = special.expit(0.4 + 1.5 * np.log(df["confidence"]) - 0.6 * np.log1p(-df["confidence"]))
    np.testing.assert_allclose(df["true_proba"], g, rtol=1e-12)
    expected = _beta_expect(3.0, 1.0, lambda x: float(
        special.expit(0.4 + 1.5 * math.log(max(x, 1e-300)) - 0.6 * math.log1p(-min(x, 1 - 1e-16)))))
    se = math.sqrt(expected * (1 - expected) / n)
    assert abs(df["correct"].mean() - expected) <= bonferroni_z(1) * se
    assert df["confidence"].is_monotonic_increasing


def test_bpm_simulation_accepts_callables_and_presets():
    df = bpm_simulation(1000, curve=np.square, beta=(2.0, 2.0), seed=0)
    np.testing.assert_allclose(df["true_proba"], df["confidence"] ** 2)
    assert set(BPM_CURVES) == {"tcebpm", "calibrated", "square"}
    cal = bpm_simulation(1000, curve="calibrated", beta=(2.0, 2.0), seed=0)
    np.testing.assert_allclose(cal["true_proba"], cal["confidence"], rtol=1e-12)


def test_true_tce_values():
    # int |sigmoid(-0.88 + 0.49 logit x) - x| Beta(1.1233, 0.1147)(x) dx = 0.130714, by
    # scipy.integrate.quad and mpmath.quad (mp.dps = 15; SciPy 1.17.1, mpmath 1.3.0)
    assert true_tce() == pytest.approx(0.130714, abs=5e-7)
    assert true_tce("square", (1.0, 1.0)) == pytest.approx(1 / 6, abs=1e-12)
    assert true_tce("calibrated", (2.0, 5.0)) == pytest.approx(0.0, abs=1e-15)
    # g = 1/2, uniform confidences: (int (1/2 - x)^2 dx)^(1/2) = sqrt(1/12)
    assert true_tce((0.0, 0.0, 0.0), (1.0, 1.0), p=2) == pytest.approx(
        math.sqrt(1 / 12), abs=1e-12)
    # s^2 under Beta(5, 1): E[s] - E[s^2] = 5/6 - 5/7
    assert true_tce(np.square, (5.0, 1.0)) == pytest.approx(5 / 6 - 5 / 7, abs=1e-12)


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [(lambda: beyond_ece_profile("gaussian", "perfect", 10), ValueError,
      "`distribution` must be one of"),
     (lambda: beyond_ece_profile("uniform", "Perfect", 10), ValueError,
      "`mode` must be one of"),
     (lambda: beyond_ece_profile("uniform", "perfect", 0), ValueError,
      "`n` must be an integer >= 1"),
     (lambda: distorted_binary(10, alpha=0.0), ValueError, "`alpha` must be a finite number > 0"),
     (lambda: distorted_binary(10, gamma=-1.0), ValueError, "`gamma` must be a finite number > 0"),
     (lambda: distorted_binary(2.5), ValueError, "`n` must be an integer >= 1"),
     (lambda: bpm_simulation(10, curve="platt"), ValueError, "`curve` must be one of"),
     (lambda: bpm_simulation(10, curve=3), TypeError, "`curve` must be a preset name"),
     (lambda: bpm_simulation(10, beta=(0.0, 1.0)), ValueError, "not a valid Beta density"),
     (lambda: true_tce(p=0.5), ValueError, "`p` must be a finite number >= 1")],
)
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_frames_are_ready_for_the_accessor():
    import calreport  # noqa: F401  (registers df.calib)

    prof = beyond_ece_profile("uniform", "perfect", 300, seed=0)
    assert prof.calib.accuracy() == pytest.approx(prof["correct"].mean())
    binary = distorted_binary(300, seed=0)
    assert binary.calib.accuracy() == pytest.approx(
        ((binary["proba"] >= 0.5) == binary["y_true"]).mean())
    sim = bpm_simulation(300, seed=0)
    assert sim.calib.accuracy() == pytest.approx(sim["correct"].mean())
