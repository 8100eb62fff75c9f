"""The fast P_risk paths give the answers of the slow ones.

Checked against brute force: all 2^n outcomes of the null ``correct_i ~
Bernoulli(c_i)`` (Martin-Maroto, Abderrahaman-Elena & de Polavieja (2026), "Beyond
ECE", arXiv:2605.01796, section 2.1), the previous full-sort implementations of the
heavy-row split and the lattice check, and the same rows computed alone.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import calreport  # noqa: F401  (registers the accessor)
from calreport.metrics import _risk_batch, risk
from calreport.metrics import _risk_draws as draws
from calreport.metrics import _risk_null as null
from calreport.metrics import _risk_rows as rows


def _enumerate(c, w=None):
    """Exact null of S = sum_i a_i Y_i: every outcome's sum and probability."""
    n = len(c)
    a = (np.ones(n) if w is None else w / w.max()) / (1 - c)
    grid = ((np.arange(2 ** n)[:, None] >> np.arange(n)) & 1).astype(bool)  # 1 = wrong
    prob = np.prod(np.where(grid, 1 - c, c), axis=1)
    return grid @ a, prob


def _rows_of(c, ok, w=None):
    return rows._rows(c, ok, w, risk.EPS, "importance", warn=False)[0]


@pytest.mark.parametrize("seed", range(6))
def test_sequential_auto_matches_enumeration(seed):
    """``auto`` on 12 rows: within 4 reported standard errors of the exact P_risk."""
    rng = np.random.default_rng(seed)
    c = rng.uniform(0.5, 0.98, 12)
    w = rng.lognormal(0, 0.5, 12) if seed % 2 else None
    ok = rng.random(12) < c - 0.15  # mostly overconfident
    s, prob = _enumerate(c, w)
    obs = risk.csr(c, ok, sample_weight=w)
    r = risk.risk_summary(c, ok, sample_weight=w, seed=seed)
    assert r.p_risk_method == "monte_carlo"
    assert r.n_sim in (1000, 4000, 16000, 20000)
    s_obs = obs * (12.0 if w is None else (w / w.max()).sum())  # CSR x denominator
    exact = prob[s < s_obs * (1 - 1e-12)].sum()
    assert r.p_risk_se == pytest.approx(math.sqrt(r.p_risk * (1 - r.p_risk) / r.n_sim),
                                        abs=1e-3)
    assert abs(r.p_risk - exact) <= 4 * max(r.p_risk_se, 1 / r.n_sim) + 1e-12
    # the band of the estimate is that of the exact value whenever the exact value is
    # clear of the thresholds by the stopping margin
    m = null.SEQ_MARGIN * math.sqrt(0.25 / r.n_sim)
    for t in (risk.P_EVIDENCE, risk.P_RISKY):
        if abs(exact - t) > 2 * m:
            assert (r.p_risk > t) == (exact > t)


def test_sequential_stops_early_only_when_settled():
    c = np.full(40, 0.75)
    c[::3] = 0.9  # two distinct confidences: drawn as binomial counts
    ok = np.ones(40, bool)
    ok[:18] = False  # CSR far above 1
    r = risk.risk_summary(c, ok, seed=0)
    assert r.band == "risky" and r.n_sim == 1000 and r.p_risk > risk.P_RISKY
    # a profile on the 1-sigma threshold runs every look up to n_sim
    rng = np.random.default_rng(3)
    cc = rng.uniform(0.55, 0.95, 60)
    found = False
    for seed in range(40):
        okk = np.random.default_rng(seed).random(60) < cc
        rr = risk.risk_summary(cc, okk, seed=0)
        if rr.csr > 1 and abs(rr.p_risk - risk.P_EVIDENCE) < 0.01:
            assert rr.n_sim == risk.N_SIM
            found = True
    assert found


def test_reproducible_and_seed_changes_draws():
    rng = np.random.default_rng(8)
    c = rng.uniform(0.5, 0.99, 80)
    ok = rng.random(80) < c - 0.05
    a = risk.risk_summary(c, ok, seed=5)
    draws._POOL.clear()
    b = risk.risk_summary(c, ok, seed=5)
    assert a == b
    assert risk.risk_summary(c, ok, seed=6).p_risk != a.p_risk or a.p_risk in (0, 1)


def test_shared_blocks_do_not_depend_on_other_profiles():
    """A profile's draws are the first rows of the seed's block: same alone or after."""
    rng = np.random.default_rng(9)
    c_small, c_big = rng.uniform(0.5, 0.99, 30), rng.uniform(0.5, 0.99, 180)
    ok_small = rng.random(30) < c_small - 0.1
    ok_big = rng.random(180) < c_big
    draws._POOL.clear()
    alone = risk.risk_summary(c_small, ok_small, seed=0)
    draws._POOL.clear()
    risk.risk_summary(c_big, ok_big, seed=0)  # grows the shared blocks to 180 rows
    after = risk.risk_summary(c_small, ok_small, seed=0)
    assert after == alone


def test_sorted_draws_equal_direct_comparison():
    rng = np.random.default_rng(10)
    c = rng.uniform(0.3, 0.999, 70)
    r = _rows_of(c, np.ones(70, bool), rng.lognormal(0, 1, 70))
    for base, look, kind, b in [(0, 0, 0, 1000), (3, 1, 1, 3000), (-5, 0, 0, 500)]:
        got = draws.look_draws(r, r.p, b, base, look, kind)
        u = draws.stream(base, look, kind).random((70, b))
        o = r.canonical  # block rows go to the rows in (confidence, size) order
        want = r.atom[o] @ (u < r.p[o][:, None])
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


def test_chernoff_bound_holds_against_enumeration():
    rng = np.random.default_rng(11)
    for _ in range(5):
        c = rng.uniform(0.5, 0.99, 12)
        r = _rows_of(c, np.ones(12, bool))
        s, prob = _enumerate(c)
        for level in np.quantile(s, [0.5, 0.9, 0.99, 0.999]) + 1e-9:
            tail = prob[s >= level].sum()
            assert null.chernoff_upper_tail(r, level) >= tail - 1e-12
    # far in the tail it certifies "risky" on its own
    r = _rows_of(np.full(50, 0.9), np.ones(50, bool))
    assert null.chernoff_upper_tail(r, 30 / 0.1) < 1 - risk.P_RISKY  # 30 of 50 wrong


def _old_heavy_split(r):
    """The previous implementation: one full sort."""
    p = r.p
    unit_var = r.atom ** 2 * p * r.c
    order = np.lexsort((r.atom, r.c, -unit_var))  # ties by (confidence, error size)
    uv = unit_var[order]
    tv = (r.k * unit_var)[order]
    t3 = (r.k * r.atom ** 3 * p * r.c * (1.0 - 2.0 * p))[order]
    var_suffix = np.cumsum(tv[::-1])[::-1]
    k3_suffix = np.cumsum(t3[::-1])[::-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        share = uv / var_suffix
        skew = k3_suffix / var_suffix ** 1.5
    ok = (share <= rows.LIGHT_SHARE_MAX) & (np.abs(skew) <= rows.LIGHT_SKEW_MAX)
    hits = np.flatnonzero(ok)
    if not len(hits) or hits[0] > len(p) // 2:
        return None
    light = np.ones(len(p), bool)
    light[order[:hits[0]]] = False
    rest = r.subset(light)
    if _old_lattice(rest, var_suffix[hits[0]]) > rows.LATTICE_MAX:
        return None
    return ~light


def _old_lattice(r, var):
    _, first, inv = np.unique(r.atom + 1j * r.c, return_index=True, return_inverse=True)
    group_var = np.bincount(inv.ravel(), weights=r.k * r.atom ** 2 * r.p * r.c)
    big = group_var >= 0.1 * var
    return float(r.atom[first][big].max() / math.sqrt(var)) if big.any() else 0.0


@pytest.mark.parametrize("case", range(8))
def test_heavy_split_and_lattice_equal_full_sort_versions(case):
    rng = np.random.default_rng(100 + case)
    n = [300, 1500, 6000, 20000][case % 4]
    c = rng.uniform(0.5, 0.99, n)
    if case % 2:
        c[: n // 3] = rng.choice([0.6, 0.8, 0.95], n // 3)  # isotonic-like ties
    c[rng.choice(n, 1 + case, replace=False)] = 1 - 10.0 ** -rng.uniform(3, 7, 1 + case)
    w = rng.lognormal(0, 1, n) if case >= 4 else None
    r = _rows_of(c, rng.random(n) < c, w)
    new, old = null._heavy_split(r), _old_heavy_split(r)
    assert (new is None) == (old is None)
    if new is not None:
        assert (new == old).all()
    var = r.moments[0]
    assert rows._lattice_ratio(r, var) == pytest.approx(_old_lattice(r, var), rel=1e-12)


def test_lattice_ratio_of_a_few_heavy_ties_at_scale():
    """The hash screen finds a tie group carrying the variance among 200,000 rows."""
    rng = np.random.default_rng(12)
    c = np.r_[rng.uniform(0.3, 0.7, 200_000), np.full(5000, 0.999)]
    r = _rows_of(c, np.ones(c.size, bool))
    var = r.moments[0]
    got = rows._lattice_ratio(r, var)
    assert got == pytest.approx(_old_lattice(r, var), rel=1e-12) and got > 0


def test_null_moments_match_their_formulas():
    rng = np.random.default_rng(13)
    c, w = rng.uniform(0.4, 0.99, 500), rng.lognormal(0, 1, 500)
    r = _rows_of(c, np.ones(500, bool), w)
    a = (w / w.max()) / (1 - c)
    var, k3, share = risk._null_moments(r)
    assert var == pytest.approx(np.sum(a ** 2 * c * (1 - c)), rel=1e-12)
    assert k3 == pytest.approx(np.sum(a ** 3 * c * (1 - c) * (2 * c - 1)), rel=1e-12)
    assert share == pytest.approx(np.max(a ** 2 * c * (1 - c)) / var, rel=1e-12)


def test_grouped_auto_p_risk_equals_each_group_alone():
    rng = np.random.default_rng(14)
    sizes = [12, 50, 50, 200, 400, 75]
    g = np.repeat(np.arange(len(sizes)), sizes)
    p = rng.beta(2, 2, g.size)
    y = (rng.random(g.size) < np.where(g % 2, p ** 1.5, p)).astype(int)
    df = pd.DataFrame({"g": g, "y": y, "p": p})
    got = df.groupby("g").calib(y="y", proba="p").summary(metrics=["p_risk", "csr"])
    # groups in another order, rows within each group reversed too
    rev = df.iloc[::-1].groupby("g", sort=False).calib(y="y", proba="p").summary(
        metrics=["p_risk"])
    for key in range(len(sizes)):
        sub = df[df["g"] == key]
        conf = np.maximum(sub["p"], 1 - sub["p"]).to_numpy()
        correct = ((sub["p"] >= 0.5).astype(int) == sub["y"]).to_numpy()
        alone = risk.risk_summary(conf, correct, seed=0)
        assert got.loc[key, "p_risk"] == alone.p_risk
        assert got.loc[key, "csr"] == pytest.approx(alone.csr, rel=1e-12)
        assert rev.loc[key, "p_risk"] == pytest.approx(alone.p_risk, abs=1e-12)


def test_p_risk_does_not_depend_on_row_order():
    rng = np.random.default_rng(15)
    c = rng.uniform(0.5, 0.99, 90)
    ok = rng.random(90) < c - 0.08
    perm = rng.permutation(90)
    a, b = risk.risk_summary(c, ok, seed=0), risk.risk_summary(c[perm], ok[perm], seed=0)
    assert a.p_risk == pytest.approx(b.p_risk, abs=1e-12)
    assert a.power == pytest.approx(b.power, abs=1e-12) and a.band == b.band


def test_batched_first_look_equals_each_profile_alone():
    rng = np.random.default_rng(16)
    profiles = [_rows_of(rng.uniform(0.5, 0.99, n), np.ones(n, bool),
                         rng.lognormal(0, 1, n) if n % 2 else None)
                for n in (5, 40, 199, 60, 1)]
    got = null.first_looks(profiles, risk.N_SIM, 3)
    for r, (h0, h1) in zip(profiles, got, strict=True):
        assert (h0 == draws.look_draws(r, r.p, 1000, 3, 0, 0)).all()
        assert (h1 == draws.look_draws(r, null.alt_p(r.p), 1000, 3, 0, 1)).all()
    # and the batch gives each group's p_risk exactly
    data = [(rng.uniform(0.5, 0.99, n), rng.random(n) < 0.7, None) for n in (30, 80, 150)]
    batch = _risk_batch.p_risk_many(data, eps=risk.EPS, method="auto", seed=0)
    for (c, ok, _), res in zip(data, batch, strict=True):
        alone = risk.risk_summary(c, ok, seed=0)
        assert res == (alone.p_risk, alone.p_risk_method)


def test_heavy_split_with_certainty_like_rows_reports_a_valid_error():
    """Conditional Monte Carlo whose P_risk rounds to 1 (a mixture of normal laws)."""
    rng = np.random.default_rng(17)
    c = np.r_[rng.uniform(0.5, 0.999, 400), np.full(100, 1 - 1e-8)]
    ok = np.r_[rng.random(400) < 0.5, np.ones(100, bool)]  # far overconfident
    r = risk.risk_summary(c, ok, seed=0)
    assert "rows of largest variance" in r.method_reason  # the conditional path
    assert r.p_risk == pytest.approx(1.0) and 0.0 <= r.p_risk_se <= 0.01
    assert r.band == "risky"
