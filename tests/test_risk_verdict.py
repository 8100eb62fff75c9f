"""Verdicts of risk_summary: validity of the normal null, certainty claims, power, weights.

Regression tests for three ways a verdict could be greener than its evidence: a test
that cannot fire (certainty claims), a weight scale that changes the band, and a
P_risk that contradicts z.  Paper: Martin-Maroto, Abderrahaman-Elena & de Polavieja
(2026), "Beyond ECE", arXiv:2605.01796, section 2.1 and Table 6.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats

import calreport
from calreport.metrics import risk


def _isotonic_like(seed=0):
    """228 rows, 154 with confidence exactly 1 (all correct), 74 calibrated others."""
    rng = np.random.default_rng(seed)
    rest = rng.uniform(0.55, 0.95, 74)
    conf = np.r_[np.ones(154), rest]
    ok = np.r_[np.ones(154, bool), rng.random(74) < rest]
    return conf, ok


def _summary(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", risk.ClippedConfidenceWarning)
        return risk.risk_summary(*args, **kwargs)


def test_bands_vocabulary():
    assert list(risk.BANDS) == ["risky", "evidence", "undetermined", "no_evidence"]
    assert risk.BANDS["evidence"][0] == "evidence of overconfidence"
    assert risk.band_label("no_evidence") == "no evidence of overconfidence"
    with pytest.raises(TypeError):
        risk.BANDS["new"] = ("x", "y")  # read-only: defined once, here


# --- certainty claims (a test that cannot fire) -----------------------------------------


def test_certainty_claims_are_never_no_evidence():
    conf, ok = _isotonic_like()
    for eps in (1e-8, 1e-12):
        r = _summary(conf, ok, eps=eps, seed=0)
        # the paper's z on all rows is ~0 whatever the errors: sigma = 544 at eps 1e-8
        assert abs(r.z_csr) < 0.01 and r.sigma_csr > 500
        assert r.band == "undetermined", r.band_reason
        assert r.n_certain == 154 and r.n_certain_wrong == 0
        # no error in 154 claims: one-sided 95 % bound 1 - 0.05 ** (1 / 154)
        assert r.certain_error_upper == pytest.approx(1 - 0.05 ** (1 / 154), rel=1e-12)
        assert "154 certainty claim(s)" in r.band_reason and "1.93%" in r.band_reason
    # eps does not decide the verdict nor P_risk (the claims err with probability eps)
    a, b = _summary(conf, ok, eps=1e-8, seed=0), _summary(conf, ok, eps=1e-12, seed=0)
    assert a.band == b.band and a.p_risk == pytest.approx(b.p_risk, abs=1e-3)
    assert a.n_for_power == pytest.approx(risk.rows_for_power(conf[154:]), rel=1e-12)


def test_wrong_certainty_claim_is_risky():
    conf, ok = _isotonic_like()
    ok[3] = False  # one wrong claim of certainty
    r = _summary(conf, ok, seed=0)
    assert r.band == "risky" and r.n_certain_wrong == 1
    assert "1 wrong" in r.band_reason


def test_certainty_claims_with_overconfident_rest():
    rng = np.random.default_rng(4)
    rest = np.full(400, 0.9)
    ok = np.r_[np.ones(50, bool), rng.random(400) < 0.75]  # 25 % errors at 90 % claims
    r = _summary(np.r_[np.ones(50), rest], ok, seed=0)
    assert r.band == "risky" and r.p_risk > risk.P_RISKY and r.p_risk_method == "monte_carlo"
    assert "50 certainty claim(s)" in r.band_reason


@pytest.mark.parametrize(("x", "n"), [(0, 1), (0, 10), (0, 154), (1, 20), (3, 57), (7, 200)])
def test_clopper_pearson_matches_scipy(x, n):
    # a one-sided 95 % upper bound is the upper end of the two-sided 90 % interval
    ci = stats.binomtest(x, n).proportion_ci(confidence_level=0.90, method="exact")
    assert risk.certain_error_upper(x, n) == pytest.approx(ci.high, rel=1e-10)
    assert risk.certain_error_upper(x, n) == pytest.approx(stats.beta.ppf(0.95, x + 1, n - x))
    assert risk.certain_error_upper(n, n) == 1.0
    assert math.isnan(risk.certain_error_upper(0, 0))


# --- weights with declared meaning -------------------------------------------------------


def _weighted_case():
    rng = np.random.default_rng(7)
    c = rng.uniform(0.6, 0.97, 300)
    ok = rng.random(300) < c - 0.01
    w = rng.uniform(0.5, 2.0, 300)
    return c, ok, w


def test_weight_scale_does_not_change_the_verdict():
    """Treating weights as counts moved z from 0.18 to 5.72 when weights were x1000."""
    c, ok, w = _weighted_case()
    a = risk.risk_summary(c, ok, sample_weight=w, seed=1)
    b = risk.risk_summary(c, ok, sample_weight=w * 1000, seed=1)
    assert b.z_csr == pytest.approx(a.z_csr, rel=1e-12)
    assert b.sigma_csr == pytest.approx(a.sigma_csr, rel=1e-12)
    assert b.p_risk == pytest.approx(a.p_risk, rel=1e-9)
    assert (b.band, b.n_eff) == (a.band, pytest.approx(a.n_eff))
    # importance sigma: sqrt(sum w^2 c/(1-c)) / sum w; Kish n_eff = (sum w)^2 / sum w^2
    assert a.sigma_csr == pytest.approx(np.sqrt(np.sum(w ** 2 * c / (1 - c))) / w.sum())
    assert a.n_eff == pytest.approx(w.sum() ** 2 / np.sum(w ** 2))
    # frequency semantics are scale-dependent, as repeated rows are
    f1 = risk.sigma_csr(c, sample_weight=np.rint(w * 10), weights="frequency")
    f2 = risk.sigma_csr(c, sample_weight=np.rint(w * 10) * 100, weights="frequency")
    assert f2 == pytest.approx(f1 / 10)


def test_frequency_weights_equal_repeated_rows():
    rng = np.random.default_rng(8)
    c = rng.uniform(0.5, 0.95, 80)
    ok = rng.random(80) < c
    w = rng.integers(0, 5, 80)
    w[0] = 2
    rep = risk.risk_summary(np.repeat(c, w), np.repeat(ok, w), method="normal")
    fw = risk.risk_summary(c, ok, sample_weight=w, weights="frequency", method="normal")
    for field in ("csr", "sigma_csr", "z_csr", "p_risk", "n", "n_eff", "power"):
        assert getattr(fw, field) == pytest.approx(getattr(rep, field), rel=1e-12), field
    assert fw.band == rep.band
    # the Monte Carlo nulls agree too (binomial counts vs repeated Bernoulli rows)
    mc_rep = risk.p_risk(np.repeat(c, w), np.repeat(ok, w), method="monte_carlo", seed=2)
    mc_fw = risk.p_risk(c, ok, sample_weight=w, weights="frequency", method="monte_carlo",
                        seed=3)
    assert mc_fw == pytest.approx(mc_rep, abs=0.015)


def test_frequency_weights_must_be_integers():
    with pytest.raises(ValueError, match=r"`sample_weight` has 1 non-integer value.*"
                                         r"weights='importance'"):
        risk.csr([0.5, 0.6], [1, 0], sample_weight=[1, 1.5], weights="frequency")
    with pytest.raises(ValueError, match="`weights` must be one of"):
        risk.csr([0.5, 0.6], [1, 0], weights="counts")


@pytest.mark.parametrize("scale", [1e-300, 1e-150, 1e150, 1e300])
def test_extreme_weights_no_warning(scale):
    c, ok, w = _weighted_case()
    ref = risk.risk_summary(c, ok, sample_weight=w, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = risk.risk_summary(c, ok, sample_weight=w * scale, seed=5)
        assert risk.csr(c, ok, sample_weight=w * scale) == pytest.approx(ref.csr)
    assert (r.z_csr, r.band) == (pytest.approx(ref.z_csr), ref.band)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(min_value=5, max_value=60).flatmap(lambda n: st.tuples(
        st.lists(st.floats(0.05, 0.999), min_size=n, max_size=n),
        st.lists(st.booleans(), min_size=n, max_size=n),
        st.lists(st.floats(0.1, 10.0), min_size=n, max_size=n))),
    st.floats(min_value=-200, max_value=200),
)
# weights equal but for the last bit: scaled and normalised again, the error sizes of
# the 0.25 rows differed by one bit, split a tie group and changed the Monte Carlo draws
@example(([0.5, 0.5, 0.5, 0.25, 0.25], [False] * 5, [0.1, 0.1, 0.1, 0.1, 0.10000000000000002]),
         1.0)
def test_verdict_invariant_to_weight_scale(data, log10_scale):
    """z, P_risk and the band do not change when all weights are multiplied by 10**s."""
    conf, correct, w = map(np.asarray, data)
    a = risk.risk_summary(conf, correct, sample_weight=w, seed=0, n_sim=2000)
    b = risk.risk_summary(conf, correct, sample_weight=w * 10.0 ** log10_scale, seed=0,
                          n_sim=2000)
    assert b.z_csr == pytest.approx(a.z_csr, rel=1e-9, abs=1e-12)
    assert b.p_risk == pytest.approx(a.p_risk, rel=1e-9, abs=1e-12)
    assert b.band == a.band
    assert b.p_risk_method == a.p_risk_method


# --- P_risk shown with its meaning ---------------------------------------------------------


def test_p_risk_note_when_csr_at_most_one():
    """Platt case: CSR < 1 gives the paper's P_risk = Phi(z), and the note says so."""
    rng = np.random.default_rng(9)
    c = rng.uniform(0.55, 0.95, 3000)
    ok = rng.random(3000) < c + 0.01  # slightly underconfident: CSR < 1
    r = risk.risk_summary(c, ok, seed=0)
    assert r.csr <= 1 and r.z_csr < 0 and r.p_risk_method == "normal"
    assert r.p_risk == pytest.approx(stats.norm.cdf(r.z_csr), rel=1e-12)
    assert r.p_risk_note.startswith(f"P_risk = Phi(z) = Phi({r.z_csr:.2f})")
    assert "CSR ≤ 1" in r.p_risk_note
    assert r.band in ("no_evidence", "undetermined")


def test_p_risk_note_and_band_agree_when_csr_above_one():
    c = np.full(4000, 0.8)
    ok = np.arange(4000) >= 830  # 830 errors vs 800 expected
    r = risk.risk_summary(c, ok)
    assert r.p_risk_method == "normal"
    assert r.p_risk == pytest.approx(stats.norm.cdf(r.z_csr))
    assert f"Phi({r.z_csr:.2f})" in r.p_risk_note and f"{r.p_risk:.1%}" in r.p_risk_note
    # the band is read off P_risk with the 1-sigma / 3-sigma thresholds
    expected = "evidence" if r.p_risk > stats.norm.cdf(1) else "no_evidence"
    assert r.band == (expected if r.p_risk <= stats.norm.cdf(3) else "risky")


# --- validity of the normal approximation ------------------------------------------------


@pytest.mark.parametrize("n", [20, 50, 200, 1000, 5000])
@pytest.mark.parametrize("c", [0.5, 0.8, 0.95, 0.99])
def test_validity_rule_against_exact_binomial_null(n, c):
    """n rows at one confidence: the null is CSR* = K / (n (1 - c)), K ~ Bin(n, 1 - c).

    Where ``normal_validity`` accepts, the normal approximation errs by < 0.015 at the
    1-sigma threshold and < 0.0015 in the 3-sigma tail (nominal 0.00135).
    """
    p = 1 - c
    mean, sd = n * p, math.sqrt(n * p * c)
    at1 = stats.binom.cdf(math.ceil(mean + sd) - 1, n, p)  # P(K < mean + sd)
    tail3 = stats.binom.sf(math.ceil(mean + 3 * sd) - 1, n, p)  # P(K >= mean + 3 sd)
    err1, err3 = abs(at1 - stats.norm.cdf(1)), abs(tail3 - stats.norm.sf(3))
    valid = risk.normal_validity(np.full(n, c))[0]
    if valid:
        assert err1 < 0.015 and err3 < 0.0015
    if err1 > 0.03 or err3 > 0.003:
        assert not valid


def test_validity_rule_rejects_known_bad_cases():
    # 50 rows at 0.8: Lindeberg 0.02 and skewness 0.21 pass, the lattice does not
    ok, share, skew = risk.normal_validity(np.full(50, 0.8))
    assert not ok and share == pytest.approx(0.02) and skew == pytest.approx(0.6 / 0.4 / 50 ** 0.5)
    assert stats.binom.cdf(12, 50, 0.2) == pytest.approx(0.814, abs=1e-3)
    # one near-certain row among 2000 carries most of the variance
    assert not risk.normal_validity(np.r_[np.full(2000, 0.7), 0.99999])[0]
    assert risk.normal_validity(np.random.default_rng(0).uniform(0.3, 0.7, 5000))[0]


def test_auto_uses_monte_carlo_with_a_reason():
    c = np.r_[np.full(300, 0.7), 0.99999]
    ok = np.r_[np.arange(300) >= 100, True]
    r = risk.risk_summary(c, ok, seed=0)
    # sequential: it stops at the first look (1,000, 4,000, ... draws) that settles the band
    assert r.p_risk_method == "monte_carlo" and 1000 <= r.n_sim <= risk.N_SIM
    assert r.method_reason.startswith("normal approximation invalid")
    assert f"{r.n_sim} draws (sequential" in r.method_reason
    forced = risk.risk_summary(c, ok, method="normal")
    assert "not valid here" in forced.method_reason


def test_monte_carlo_with_weights_matches_exact_enumeration():
    """All 2^11 outcomes of the null correct_i ~ Bernoulli(c_i), importance weights."""
    c = np.array([0.55, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.92, 0.95, 0.97, 0.99])
    w = np.array([1.0, 2.0, 0.5, 1.5, 1.0, 3.0, 0.7, 1.2, 2.5, 0.4, 1.0])
    ok = np.ones(11, bool)
    ok[[1, 8]] = False
    obs = risk.csr(c, ok, sample_weight=w)
    grid = ((np.arange(2 ** 11)[:, None] >> np.arange(11)) & 1).astype(bool)  # 1 = wrong
    prob = np.prod(np.where(grid, 1 - c, c), axis=1)
    null = grid @ (w / (1 - c)) / w.sum()
    exact = prob[null < obs * (1 - 1e-12)].sum()
    r = risk.risk_summary(c, ok, sample_weight=w, seed=11, n_sim=200000,
                          method="monte_carlo")
    assert r.p_risk_method == "monte_carlo" and obs > 1 and r.n_sim == 200000
    assert r.p_risk == pytest.approx(exact, abs=0.0045)  # 4 SE of 200,000 draws
    # "auto" simulates sequentially: within 4 of its reported standard errors
    auto = risk.risk_summary(c, ok, sample_weight=w, seed=11)
    assert auto.p_risk_method == "monte_carlo" and auto.p_risk_se > 0
    assert abs(auto.p_risk - exact) <= 4 * auto.p_risk_se


def test_partial_monte_carlo_matches_full_monte_carlo():
    """Above 200 rows, auto simulates only the rows that break normality."""
    rng = np.random.default_rng(12)
    c = rng.uniform(0.5, 0.99, 1500)
    ok = rng.random(1500) < 1 - (1 - c) * 1.08
    auto = risk.risk_summary(c, ok, seed=0)
    assert "rows of largest variance" in auto.method_reason
    full = risk.risk_summary(c, ok, method="monte_carlo", seed=1, n_sim=60000)
    assert 0.05 < full.p_risk < 0.99
    assert auto.p_risk == pytest.approx(full.p_risk, abs=0.015)
    assert auto.power == pytest.approx(full.power, abs=0.03)


# --- power -------------------------------------------------------------------------------


def test_no_power_is_undetermined():
    # 30 rows at 0.99, all correct: 0.3 errors expected, doubled 0.6 -- cannot tell
    r = risk.risk_summary(np.full(30, 0.99), np.ones(30, bool), seed=0)
    assert r.csr == 0 and r.band == "undetermined"
    assert r.power < risk.POWER_MIN and "power (needs 50%)" in r.band_reason
    # 0.3 errors expected: 80 % power needs many more such rows
    assert r.n_for_power > 10 * 30
    big = risk.risk_summary(np.full(3000, 0.99), np.arange(3000) >= 25, seed=0)
    assert big.band == "no_evidence" and big.power > 0.9


def test_rows_for_power_agree_with_the_power():
    """A few rows near certainty inflate the normal approximation of the rows needed
    (23,888 here) while the simulated power is already 100 %: the verdict states at
    most the rows there are, never a count that contradicts its own power."""
    rng = np.random.default_rng(0)
    conf = np.r_[np.full(5, 1 - 1e-6), rng.uniform(0.6, 0.95, 1000)]
    ok = rng.random(conf.size) < conf
    r = risk.risk_summary(conf, ok, seed=0)
    assert r.p_risk_method == "monte_carlo" and r.power >= 0.8
    assert risk.rows_for_power(conf) > 20 * conf.size  # the approximation alone
    assert r.n_for_power == conf.size
    # the out-of-core verdict (merged sums) states the same
    acc = calreport.Accumulator(y="y", proba="p")
    acc.update(pd.DataFrame({"y": ok.astype(int), "p": conf}))
    assert acc.risk()["n_for_power"] == conf.size


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(20, 400), st.integers(0, 5))
def test_power_and_rows_for_power_never_contradict(seed, n, near):
    rng = np.random.default_rng(seed)
    conf = np.r_[np.full(near, 1 - 1e-7), rng.uniform(0.5, 0.99, n)]
    ok = rng.random(conf.size) < conf
    r = risk.risk_summary(conf, ok, seed=0)
    below = r.n - r.n_certain
    if r.power >= 0.8:
        assert r.n_for_power <= below
    elif not math.isnan(r.power):
        assert math.isnan(r.n_for_power) or r.n_for_power > below


def test_normal_power_matches_simulation():
    """Power = P(z > 1) when errors are twice as frequent as claimed, by simulation."""
    rng = np.random.default_rng(13)
    c = rng.uniform(0.9, 0.99, 400)
    r = risk.risk_summary(c, np.ones(400, bool), method="normal")
    wrong = rng.random((20000, 400)) < 2 * (1 - c)
    z = (wrong @ (1 / (1 - c)) / 400 - 1) / risk.sigma_csr(c)
    assert r.power == pytest.approx(np.mean(z > 1), abs=0.03)


def test_one_set_of_numbers_when_there_are_certainty_claims():
    """Certainty claims weigh 1/eps in the all-row sigma (z about 0 whatever the errors);
    P_risk, simulated, still sees the overconfident rows below certainty.  risk() and
    the report card print the same CSR, z and P_risk, and the band follows from them
    (the demo's isotonic group once read "evidence" beside z 0.00 and P_risk 0.00 % in
    one table and z 1.61, P_risk 92.3 % in another)."""
    import pandas as pd

    rng = np.random.default_rng(7)
    p = rng.uniform(0.7, 0.95, 400)
    y = (rng.random(400) < p - 0.15).astype(int)  # overconfident below certainty
    p = np.r_[p, np.ones(60)]
    y = np.r_[y, np.ones(60, dtype=int)]  # 60 correct certainty claims
    df = pd.DataFrame({"y": y, "p": p})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = df.calib(y="y", proba="p").risk()
        card = df.calib(y="y", proba="p").report(ci=None).context["groups"][0]
    assert r["band"] in ("evidence", "risky") and abs(r["z_csr"]) < 0.5  # all rows: ~0
    assert r["p_risk_method"] == "monte_carlo"
    assert card["band"] == r["band"]
    for k in ("csr", "z_csr", "p_risk", "sigma_csr"):
        assert card[k] == r[k], k
    assert risk.decide_band(card["p_risk"], r["power"], r["n_certain"],
                            r["n_certain_wrong"]) == card["band"]
    assert "60 certainty" in r["band_reason"]


@pytest.mark.parametrize("kind", ["importance", "frequency"])
def test_card_counts_rows_and_errors_in_one_unit(kind):
    """Importance weights: rows and wrong rows (a sum of relative weights counts
    nothing); frequency weights: the units they count, both."""
    import pandas as pd

    rng = np.random.default_rng(2)
    p = rng.uniform(0.5, 1.0, 300)
    y = (rng.random(300) < p).astype(int)
    w = rng.integers(1, 5, 300).astype(float)
    df = pd.DataFrame({"y": y, "p": p, "w": w})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        card = df.calib(y="y", proba="p", weight="w", weights=kind).report().context[
            "groups"][0]
    wrong = (p >= 0.5) != (y == 1)
    if kind == "frequency":
        assert (card["n"], card["n_errors"]) == (w.sum(), w[wrong].sum())
    else:
        assert (card["n"], card["n_errors"]) == (300, wrong.sum())


def test_note_never_reads_csr_below_one_as_reassurance_beside_a_high_p_risk():
    """The demo's isotonic group: 154 of 228 confidences are 1, so the null of CSR is
    skewed (its mean 1 comes from their rare errors) and the observed CSR 0.60 lies
    above most of its draws: P_risk 92 % says evidence, and the note must not say the
    errors weigh no more than calibration predicts."""
    df = calreport.datasets.load_breast_cancer()
    rows = df[df["calibration"] == "isotonic"]
    r = rows.calib(y="y_true", proba="proba_benign", pos_label="benign").risk(seed=0)
    assert r["csr"] < 1 and r["p_risk"] > 0.84 and r["band"] == "evidence"
    assert "P_risk, not CSR ≤ 1, decides" in r["p_risk_note"]
    assert "weigh no more" not in r["p_risk_note"]
    calm = risk.risk_summary([0.6] * 50, [1] * 32 + [0] * 18, method="normal")
    assert calm.csr < 1 and calm.p_risk < 0.5
    assert "weigh no more than calibration predicts" in calm.p_risk_note


def test_a_reason_prints_no_signed_zero():
    from calreport.metrics.bands import band_and_reason

    _, why = band_and_reason(0.3, 0.9, "normal", 0.99, -0.004, 0.0, 0.0, math.nan, 1e-8)
    assert "z 0.00)" in why and "-0.00" not in why
    _, why = band_and_reason(0.3, 0.9, "normal", 0.9, -0.5, 0.0, 0.0, math.nan, 1e-8)
    assert "z -0.50)" in why
