"""The calibration tests with p-values: ECCE Kolmogorov-Smirnov / Kuiper and T-Cal.

Independent checks: the Brownian tail series against the distributions' known
moments (integrated numerically) and the exact far tail; the statistics and tails
against MAPIE 1.6.0 (values printed by ``benchmarks/mapie_ecce_reference.py``);
the cumulative path and the DPE against brute-force loops; the DPE's zero mean under
calibration by enumerating every outcome of a small data set. The tests' size on
calibrated data is measured by ``benchmarks/calibration_tests_size.py``.
"""

from __future__ import annotations

import itertools
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

from calreport.cli import main
from calreport.metrics.cumulative import (
    brownian_max_abs_sf,
    brownian_range_sf,
    cumulative_differences,
    ecce_test,
)
from calreport.metrics.tcal import FIRST_DRAWS, dpe, tcal_levels, tcal_test
from calreport.result import parse_gate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from mapie_ecce_reference import POINTS, datasets

# printed by benchmarks/mapie_ecce_reference.py with MAPIE 1.6.0 (jitter switched off)
MAPIE_STATISTICS = [
    (2.4998671668622636, 0.024847976206138545, 2.7349132902981084, 0.024958323730370324),
    (0.9116619218155506, 0.7114271478844787, 1.0308933523151276, 0.9197501103331596),
    (4.560200001262808, 1.0220985026565543e-05, 4.557712704222652, 2.068548349032362e-05),
    (3.356194150850773, 0.001580461444759429, 3.373921445342835, 0.002964220358845804),
]
MAPIE_TAILS = [  # (x, 1 - kolmogorov_smirnov_cdf(x), 1 - kuiper_cdf(x))
    (0.25, 0.9999999965937175, 1.0),
    (0.5, 0.9908430097102392, 0.9999999122222775),
    (0.8, 0.8147580927333778, 0.9940363348078943),
    (0.999, 0.6301375450086979, 0.9371445401056291),
    (1.0, 0.6292225702004761, 0.9366354120795494),
    (1.2, 0.45964225047255336, 0.7931900460921016),
    (1.7, 0.17826117172720946, 0.35113690949190113),
    (2.2414, 0.050000353009482024, 0.09994177032685758),
    (3.0, 0.005399592126516972, 0.010799168467638398),
    (4.5, 1.3590692628406842e-05, 2.7181385060637275e-05),
]


# ------------------------------------------------------------------ Brownian tails
def test_tails_have_the_known_moments():
    # E max|B| = sqrt(pi / 2); E R = 2 sqrt(2 / pi), E R^2 = 4 ln 2 (Feller 1951)
    def moment(sf, k):
        return integrate.quad(lambda x: k * x ** (k - 1) * sf(x), 0, 20, limit=400)[0]

    assert moment(brownian_max_abs_sf, 1) == pytest.approx(math.sqrt(math.pi / 2), rel=1e-9)
    assert moment(brownian_range_sf, 1) == pytest.approx(2 * math.sqrt(2 / math.pi), rel=1e-9)
    assert moment(brownian_range_sf, 2) == pytest.approx(4 * math.log(2), rel=1e-9)


def test_far_tails_are_exact_where_one_minus_cdf_cancels():
    # beyond x = 8 only the first reflection term counts: 4 Phibar(x) and 8 Phibar(x)
    for x in (8.0, 12.0, 30.0):
        assert brownian_max_abs_sf(x) == pytest.approx(4 * stats.norm.sf(x), rel=1e-12)
        assert brownian_range_sf(x) == pytest.approx(8 * stats.norm.sf(x), rel=1e-12)
    assert brownian_max_abs_sf(0.0) == brownian_range_sf(-1.0) == 1.0
    # the series switch at x = 1 is continuous
    for sf in (brownian_max_abs_sf, brownian_range_sf):
        assert sf(1.0 - 1e-12) == pytest.approx(sf(1.0), abs=1e-11)


@pytest.mark.parametrize(("x", "ks", "kuiper"), MAPIE_TAILS)
def test_tails_equal_mapie(x, ks, kuiper):
    assert x in POINTS
    assert brownian_max_abs_sf(x) == pytest.approx(ks, abs=1e-12)
    assert brownian_range_sf(x) == pytest.approx(kuiper, abs=1e-12)


# ------------------------------------------------------------------------- ECCE
@pytest.mark.parametrize("i", range(4))
def test_statistics_equal_mapie(i):
    s, y = datasets()[i]
    r = ecce_test(s, y)
    ks, ks_p, ku, ku_p = MAPIE_STATISTICS[i]
    assert r.ks_statistic == pytest.approx(ks, rel=1e-12)
    assert r.ks_pvalue == pytest.approx(ks_p, abs=1e-12)
    c = cumulative_differences(s, y)[1]
    if c[1:].min() < 0 < c[1:].max():  # both signs: the ranges agree
        assert r.kuiper_statistic == pytest.approx(ku, rel=1e-12)
        assert r.kuiper_pvalue == pytest.approx(ku_p, abs=1e-12)
    else:  # MAPIE omits C_0 = 0: its range is smaller; ours is then the KS statistic
        assert i == 2
        assert r.kuiper_statistic == pytest.approx(r.ks_statistic, rel=1e-15)
        assert r.kuiper_statistic > ku


def test_hand_worked_example():
    # sorted scores 0.3, 0.6, 0.7 with outcomes 0, 0, 1: steps -0.3, -0.6, +0.3, so
    # C = 0, -0.3, -0.9, -0.6; sigma^2 = 0.21 + 0.24 + 0.21 = 0.66
    r = ecce_test([0.7, 0.3, 0.6], [1, 0, 0])
    assert r.ks_statistic == pytest.approx(0.9 / math.sqrt(0.66), rel=1e-14)
    assert r.kuiper_statistic == pytest.approx(0.9 / math.sqrt(0.66), rel=1e-14)
    assert r.ecce_mad == pytest.approx(0.3) and r.ecce_range == pytest.approx(0.3)
    assert r.sigma == pytest.approx(math.sqrt(0.66) / 3) and r.n_steps == 3


def _brute_path(s, y, w):
    """Loop over the distinct scores in order, adding every tied row's w (y - s)."""
    c, path = 0.0, [0.0]
    for value in sorted(set(s)):
        c += sum(wi * (yi - si) for si, yi, wi in zip(s, y, w, strict=True)
                 if si == value)
        path.append(c)
    return np.array(path)


@pytest.mark.parametrize("weights", ["frequency", "importance"])
def test_path_with_ties_and_weights_equals_a_loop(weights):
    rng = np.random.default_rng(5)
    s = np.round(rng.uniform(size=300), 2)  # heavy ties
    y = (rng.uniform(size=300) < s).astype(float)
    w = rng.integers(0, 4, 300).astype(float)
    grid, c, sigma = cumulative_differences(s, y, sample_weight=w, weights=weights)
    keep = w > 0
    np.testing.assert_allclose(c, _brute_path(s[keep], y[keep], w[keep]), atol=1e-12)
    assert grid.tolist() == sorted(set(s[keep]))
    power = 2 if weights == "importance" else 1
    assert sigma ** 2 == pytest.approx(np.sum(w ** power * s * (1 - s)), rel=1e-12)


def test_invariances():
    rng = np.random.default_rng(6)
    s = np.round(rng.uniform(size=400), 2)
    y = (rng.uniform(size=400) < s ** 1.2).astype(float)
    k = rng.integers(0, 4, 400).astype(float)
    base = ecce_test(s, y)
    # row order (ties included) changes nothing
    perm = rng.permutation(400)
    assert ecce_test(s[perm], y[perm]) == base
    # integer frequency weights = repeated rows; zero weights drop rows
    rep = ecce_test(np.repeat(s, k.astype(int)), np.repeat(y, k.astype(int)))
    got = ecce_test(s, y, sample_weight=k, weights="frequency")
    assert got.ks_pvalue == pytest.approx(rep.ks_pvalue, rel=1e-12)
    assert got.kuiper_statistic == pytest.approx(rep.kuiper_statistic, rel=1e-12)
    # importance weights: the scale does not matter, all-ones = none
    wi = rng.uniform(0.1, 3, 400)
    a = ecce_test(s, y, sample_weight=wi, weights="importance")
    b = ecce_test(s, y, sample_weight=wi * 1e6, weights="importance")
    assert a.ks_statistic == pytest.approx(b.ks_statistic, rel=1e-12)
    ones = ecce_test(s, y, sample_weight=np.ones(400), weights="importance")
    assert ones.ks_statistic == pytest.approx(base.ks_statistic, rel=1e-14)


def test_degenerate_and_invalid_input():
    r = ecce_test([0.0, 1.0, 1.0], [0, 1, 1])  # no variance under calibration
    assert math.isnan(r.ks_pvalue) and math.isnan(r.kuiper_statistic) and r.ecce_mad == 0.0
    with pytest.raises(ValueError, match="weights"):
        ecce_test([0.2, 0.4], [0, 1], sample_weight=[1, 1], weights="counts")
    with pytest.raises(ValueError, match="whole number"):
        ecce_test([0.2, 0.4], [0, 1], sample_weight=[1.5, 1], weights="frequency")


# ------------------------------------------------------------------------- T-Cal
def _brute_dpe(s, y, m, w=None):
    """Σ_b (W_b / W) Σ_{i≠j in b} w_i w_j e_i e_j / Σ_{i≠j in b} w_i w_j by a double loop."""
    w = np.ones_like(s) if w is None else w
    e = y - s
    bins = np.floor(s * m)
    total = 0.0
    for b in np.unique(bins):
        idx = np.flatnonzero(bins == b)
        num = den = 0.0
        for i, j in itertools.permutations(idx, 2):
            num += w[i] * w[j] * e[i] * e[j]
            den += w[i] * w[j]
        if den > 0:
            total += w[idx].sum() / w.sum() * num / den
    return total


@pytest.mark.parametrize("m", [1, 2, 4, 16, 64])
def test_dpe_equals_the_pairs(m):
    rng = np.random.default_rng(m)
    s = np.round(rng.uniform(size=60), 2)
    y = (rng.uniform(size=60) < s).astype(float)
    wi = rng.uniform(0.2, 2.0, 60)
    assert dpe(s, y, n_bins=m) == pytest.approx(_brute_dpe(s, y, m), rel=1e-10, abs=1e-15)
    assert dpe(s, y, n_bins=m, sample_weight=wi, weights="importance") == pytest.approx(
        _brute_dpe(s, y, m, wi), rel=1e-10, abs=1e-15)


def test_dpe_is_unbiased_under_calibration_exactly():
    # every outcome of 5 rows, weighted by its probability: E[DPE] = 0 in each bin count
    s = np.array([0.1, 0.15, 0.3, 0.35, 0.8])
    for m in (1, 2, 4):
        mean = 0.0
        for y in itertools.product([0.0, 1.0], repeat=5):
            prob = np.prod(np.where(np.array(y) == 1, s, 1 - s))
            mean += prob * dpe(s, np.array(y), n_bins=m)
        assert mean == pytest.approx(0.0, abs=1e-15), m


def test_frequency_weights_equal_repeated_rows():
    rng = np.random.default_rng(8)
    s = rng.uniform(size=80)
    y = (rng.uniform(size=80) < s).astype(float)
    k = rng.integers(1, 4, 80)
    for m in (2, 8):
        assert dpe(s, y, n_bins=m, sample_weight=k.astype(float)) == pytest.approx(
            dpe(np.repeat(s, k), np.repeat(y, k), n_bins=m), rel=1e-12)
    # the levels count the copies
    r = tcal_test(s, y, sample_weight=k.astype(float), n_draws=20)
    assert set(r.levels) <= set(tcal_levels(int(k.sum())))


def test_levels_follow_the_authors_rule():
    for n in (10, 100, 1000, 10_000):
        top = int(2 * math.log2(n / math.sqrt(math.log(n))))
        assert tcal_levels(n) == [2 ** b for b in range(1, top + 1)]


def test_tcal_is_seeded_order_free_and_powerful():
    rng = np.random.default_rng(9)
    s = np.round(rng.uniform(size=400), 3)
    y = (rng.uniform(size=400) < s).astype(float)
    a = tcal_test(s, y, n_draws=99, seed=3)
    perm = rng.permutation(400)
    assert tcal_test(s[perm], y[perm], n_draws=99, seed=3) == a
    assert 0.0 < a.pvalue <= 1.0 and a.n_rows == 400 and a.n_draws == 99
    # a p-value is a count over n_draws + 1
    assert (a.pvalue * 100) == pytest.approx(round(a.pvalue * 100))
    bad = (rng.uniform(size=400) < s ** 2.5).astype(float)
    assert tcal_test(s, bad, n_draws=99).pvalue == pytest.approx(0.01)
    assert tcal_test(s, bad, n_draws=99, combine="bonferroni").pvalue < 0.5
    # importance weights: the scale changes no p-value (rounding never decides a tie:
    # the finest levels' statistics take few values, many replicates tie with the data)
    wi = rng.uniform(0.5, 2, 400)
    one = tcal_test(s, y, n_draws=199, sample_weight=wi, weights="importance")
    for scale in (1024.0, 3.7, 1e-3):
        other = tcal_test(s, y, n_draws=199, sample_weight=wi * scale, weights="importance")
        assert other.pvalue == one.pvalue and other.level_pvalues == one.level_pvalues
        assert other.statistic == pytest.approx(one.statistic, rel=1e-12)
    # above max_rows: a seeded subsample
    sub = tcal_test(s, y, n_draws=19, max_rows=100)
    assert sub.n_rows == 100


def test_tcal_invalid_input():
    with pytest.raises(ValueError, match="combine"):
        tcal_test([0.2, 0.4], [0, 1], combine="fisher")
    with pytest.raises(ValueError, match="n_draws"):
        tcal_test([0.2, 0.4], [0, 1], n_draws=0)
    with pytest.raises(ValueError, match="stop_above"):
        tcal_test([0.2, 0.4], [0, 1], stop_above=1.5)


def test_tcal_stops_early_only_above_its_threshold():
    # the first 99 replicates of the stream decide whether to go on: a calibrated model
    # stops there with the p-value of those 99, a miscalibrated one gets the full test
    rng = np.random.default_rng(4)
    s = rng.uniform(size=600)
    calibrated = (rng.uniform(size=600) < s).astype(float)
    early = tcal_test(s, calibrated, seed=1)
    first = tcal_test(s, calibrated, n_draws=FIRST_DRAWS, stop_above=None, seed=1)
    assert early.n_draws == FIRST_DRAWS and early.pvalue == first.pvalue > 0.2
    assert tcal_test(s, calibrated, seed=1, stop_above=None).n_draws == 1000
    bad = (rng.uniform(size=600) < s ** 1.6).astype(float)
    full = tcal_test(s, bad, seed=1, stop_above=None)
    assert tcal_test(s, bad, seed=1) == full and full.n_draws == 1000
    assert tcal_test(s, bad, seed=1, n_draws=FIRST_DRAWS, stop_above=None).pvalue <= 0.2


# ------------------------------------------------------------------- integration
@pytest.fixture(scope="module")
def frames():
    rng = np.random.default_rng(10)
    n = 1500
    p = rng.beta(2, 2, n)
    binary = pd.DataFrame({"y_true": (rng.uniform(size=n) < p).astype(int), "proba": p})
    q = rng.dirichlet(np.ones(10) * 0.5, n)
    y = np.array([rng.choice(10, p=row) for row in q])
    multi = pd.DataFrame(q, columns=[f"p{j}" for j in range(10)]).assign(y_true=y)
    return binary, multi


def test_calibration_tests_and_summary_carry_the_tests(frames):
    binary, multi = frames
    t = binary.calib.calibration_tests()
    r = ecce_test(binary["proba"], binary["y_true"])
    assert t["ecce_ks_p"] == pytest.approx(r.ks_pvalue, rel=1e-14)
    assert t["ecce_kuiper"] == pytest.approx(r.kuiper_statistic, rel=1e-14)
    assert t["tcal_p"] == tcal_test(binary["proba"], binary["y_true"]).pvalue
    summ = binary.calib.summary(metrics=["ecce_ks_p", "ecce_kuiper_p", "tcal_p"])
    assert summ["ecce_ks_p"] == pytest.approx(t["ecce_ks_p"], rel=1e-14)
    assert summ["tcal_p"] == t["tcal_p"]
    # 10 classes: the top label (confidence against correctness) is tested
    roles = dict(y="y_true", proba=[f"p{j}" for j in range(10)])
    conf = multi[roles["proba"]].to_numpy().max(axis=1)
    correct = multi[roles["proba"]].to_numpy().argmax(axis=1) == multi["y_true"]
    got = multi.calib(**roles).ecce_ks_p()
    assert got == pytest.approx(ecce_test(conf, correct).ks_pvalue, rel=1e-14)


def test_gates_read_the_p_values(frames, tmp_path):
    binary, _ = frames
    g = parse_gate("ecce_ks_p<0.01")
    assert (g.metric, g.op, g.threshold) == ("ecce_ks_p", "<", 0.01)
    bad = binary.assign(proba=binary["proba"] ** 3)  # far too low scores
    path = tmp_path / "bad.csv"
    bad.to_csv(path, index=False)
    assert main(["summary", str(path), "--metrics", "accuracy", "--fail-on",
                 "ecce_ks_p<0.01", "--fail-on", "tcal_p<0.01"]) == 1
    good = tmp_path / "good.csv"
    binary.to_csv(good, index=False)
    assert main(["summary", str(good), "--metrics", "accuracy", "--fail-on",
                 "ecce_kuiper_p<0.001"]) == 0
