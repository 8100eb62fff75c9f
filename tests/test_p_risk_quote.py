"""P_risk that can be quoted: ``auto`` agrees with a full simulation of the null within
its reported standard error, does not depend on the row order, agrees out of core, and
is the paper's Phi(z) when CSR <= 1 (Martin-Maroto, Abderrahaman-Elena & de Polavieja
(2026), "Beyond ECE", arXiv:2605.01796, section 2.1)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import calreport  # noqa: F401  (registers the accessor)
from calreport.metrics import risk


def _mild_with_tail(n, over, seed):
    """Confidences ~ 0.5 + Beta(5, 2) / 2, 1 % of them at 1 - 10**-U(3, 6)."""
    rng = np.random.default_rng(seed)
    c = 0.5 + 0.5 * rng.beta(5, 2, n)
    k = max(1, n // 100)
    c[:k] = 1 - 10 ** -rng.uniform(3, 6, k)
    ok = rng.random(n) >= np.minimum((1 - c) * over, 1)
    return c, ok


def test_auto_agrees_with_a_full_simulation():
    """The profile where the former split erred by 3.4 of its reported standard errors."""
    c, ok = _mild_with_tail(1000, 1.1, 1)
    full = risk.risk_summary(c, ok, method="monte_carlo", n_sim=60000, seed=99)
    runs = [risk.risk_summary(c, ok, seed=s) for s in range(6)]
    assert all("rows of largest variance" in r.method_reason for r in runs)
    mean = float(np.mean([r.p_risk for r in runs]))
    se = math.sqrt(np.mean([r.p_risk_se ** 2 for r in runs]) / len(runs)
                   + full.p_risk_se ** 2)
    assert 0.05 < full.p_risk < 0.95
    assert abs(mean - full.p_risk) <= 3 * se


def test_permuting_rows_leaves_p_risk_identical():
    for n in (150, 1000, 2000):  # every row drawn; the conditional split
        c, ok = _mild_with_tail(n, 1.05, 2)
        perm = np.random.default_rng(n).permutation(n)
        a = risk.risk_summary(c, ok, seed=4)
        b = risk.risk_summary(c[perm], ok[perm], seed=4)
        assert a.p_risk_method == "monte_carlo"
        assert a.p_risk == b.p_risk and a.p_risk_se == b.p_risk_se and a.band == b.band
        mc = [risk.p_risk(x, y, method="monte_carlo", n_sim=2000, seed=5)
              for x, y in ((c, ok), (c[perm], ok[perm]))]
        assert mc[0] == mc[1]


def test_permuting_rows_leaves_grouped_p_risk_identical():
    c, ok = _mild_with_tail(900, 1.05, 6)
    g = np.random.default_rng(7).choice(["a", "b", "c"], c.size, p=[0.1, 0.3, 0.6])
    df = pd.DataFrame({"g": g, "y": ok.astype(int), "p": c})
    perm = np.random.default_rng(8).permutation(c.size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = df.groupby("g").calib(y="y", proba="p").summary(metrics=["p_risk"])
        b = df.iloc[perm].groupby("g").calib(y="y", proba="p").summary(metrics=["p_risk"])
    assert (a["p_risk"] == b["p_risk"].loc[a.index]).all()
    for key in a.index:  # and each group is its rows alone
        sub = df[df["g"] == key]
        alone = risk.risk_summary(sub["p"].to_numpy(), sub["y"].to_numpy() == 1, seed=0)
        assert a.loc[key, "p_risk"] == pytest.approx(alone.p_risk, abs=1e-12)


def test_dask_agrees_with_pandas():
    dd = pytest.importorskip("dask.dataframe")
    c, ok = _mild_with_tail(600, 1.05, 9)
    df = pd.DataFrame({"y": ok.astype(int), "p": c}).sample(frac=1.0, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = df.calib(y="y", proba="p").risk()
        got = dd.from_pandas(df, npartitions=3).calib(y="y", proba="p").risk()
    assert want["p_risk_method"] == got["p_risk_method"] == "monte_carlo"
    # every row is kept out of core: the same rows, the same canonical draws
    assert got["p_risk"] == pytest.approx(want["p_risk"], abs=1e-12)


def test_csr_at_most_one_gives_phi_of_z():
    rng = np.random.default_rng(10)
    c = rng.uniform(0.55, 0.9, 5000)
    ok = rng.random(5000) < c + 0.02  # underconfident: CSR < 1
    r = risk.risk_summary(c, ok, seed=0)
    assert r.csr < 1 and r.p_risk_method == "normal"
    assert r.p_risk == pytest.approx(stats.norm.cdf(r.z_csr), rel=1e-12) and r.p_risk > 0
    assert "Phi(z)" in r.p_risk_note and "CSR ≤ 1" in r.p_risk_note
    assert r.band == "no_evidence"
    # the simulated reading also keeps its value below 1
    small = risk.risk_summary(c[:40], ok[:40], seed=0)
    assert small.csr < 1 and small.p_risk_method == "monte_carlo"
    assert 0 < small.p_risk < 0.5 and small.p_risk_se > 0
    assert "Monte Carlo" in small.p_risk_note and "CSR ≤ 1" in small.p_risk_note
