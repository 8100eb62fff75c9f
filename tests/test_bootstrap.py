"""Bootstrap: the batched kernels equal the core metrics; seeds; intervals; coverage."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import calreport  # noqa: F401
from calreport import ConfidenceProfile
from calreport.bootstrap import (
    _Kernels,
    bootstrap_intervals,
    bootstrap_replicates,
)
from calreport.summary import METRICS, SummarySettings, summarize

BATCHED = [m for m in METRICS if m not in ("lcs", "tce_bpm")]


def _binary(n=500, seed=0, ties=False):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, n)
    if ties:
        p = np.round(p, 1)
    y = (rng.random(n) < p).astype(int)
    return ConfidenceProfile.from_arrays(y, p)


def _multi(n=400, k=3, seed=2):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, k)) * 1.5
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    y = (p.cumsum(axis=1) > rng.random((n, 1))).argmax(axis=1)
    return ConfidenceProfile.from_arrays(y, p)


@pytest.mark.parametrize("make", [_binary, lambda: _binary(ties=True), _multi])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_kernels_with_count_weights_equal_core_with_sample_weight(make, strategy):
    """A replicate's counts used as sample weights must give the core's values."""
    prof = make()
    s = SummarySettings(n_bins=10, strategy=strategy, tau=0.6)
    k = _Kernels(prof, s, BATCHED)
    rng = np.random.default_rng(5)
    counts = rng.poisson(1.0, size=(3, prof.n)).astype(float)
    counts[0] = 1.0  # the identity replicate
    batched = k.evaluate(counts)
    for r in range(3):
        w = counts[r]
        keep = w > 0
        weighted = ConfidenceProfile.from_arrays(
            prof.y_true[keep], prof.proba[keep] if prof.score is None else prof.score[keep],
            sample_weight=w[keep])
        if strategy == "quantile":
            # the bootstrap keeps the full-sample edges: compare the binned metrics on
            # the identity replicate only
            names = BATCHED if r == 0 else [m for m in BATCHED if m not in
                                            ("ece", "mce", "signed_ece")]
        else:
            names = BATCHED
        ref = summarize(weighted if r else prof, metrics=names, settings=s).values
        for name in names:
            assert batched[name][r] == pytest.approx(ref[name], rel=1e-9, abs=1e-12,
                                                     nan_ok=True), (name, r)


def test_seed_reproducible_and_different():
    prof = _binary()
    a = bootstrap_replicates(prof, metrics=["accuracy", "auc"], n_boot=50, seed=7)
    b = bootstrap_replicates(prof, metrics=["accuracy", "auc"], n_boot=50, seed=7)
    c = bootstrap_replicates(prof, metrics=["accuracy", "auc"], n_boot=50, seed=8)
    np.testing.assert_array_equal(a["auc"], b["auc"])
    assert not np.array_equal(a["auc"], c["auc"])


def test_block_size_does_not_change_replicates(monkeypatch):
    import calreport.bootstrap as bs

    prof = _binary(n=300)
    a = bootstrap_replicates(prof, metrics=["csr"], n_boot=40, seed=3)
    monkeypatch.setattr(bs, "_BLOCK_CELLS", 300 * 7)  # blocks of 7 replicates
    b = bootstrap_replicates(prof, metrics=["csr"], n_boot=40, seed=3)
    # the same integer stream is consumed block by block in order
    np.testing.assert_allclose(a["csr"], b["csr"])


def test_intervals_bracket_estimate():
    prof = _binary(n=2000)
    res = summarize(prof, metrics=BATCHED)
    iv = bootstrap_intervals(prof, res, n_boot=300, ci=0.95, seed=1)
    for name in ("accuracy", "cwa", "csr", "ece", "brier", "auc", "cwauc", "cwsa", "aurc"):
        lo, hi = iv[name]
        assert lo <= res.values[name] <= hi, name
        assert hi - lo > 0


def test_analytic_close_to_percentile():
    prof = _binary(n=3000, seed=4)
    res = summarize(prof, metrics=["accuracy", "cwa", "csr", "auc", "brier"])
    perc = bootstrap_intervals(prof, res, n_boot=1000, ci=0.95, seed=2)
    ana = bootstrap_intervals(prof, res, ci=0.95, method="analytic")
    for name in ("accuracy", "cwa", "csr", "auc", "brier"):
        w_p = perc[name][1] - perc[name][0]
        w_a = ana[name][1] - ana[name][0]
        assert w_a == pytest.approx(w_p, rel=0.15), name


def test_refit_metrics_have_reason():
    prof = _binary(n=600)
    res = summarize(prof, metrics=["accuracy", "lcs"])
    out = bootstrap_intervals(prof, res, n_boot=20, seed=0, return_replicates=True)
    assert math.isnan(out.intervals["lcs"][0])
    assert "refits" in out.reasons["lcs"]


def test_degenerate_replicates_warn():
    y = np.r_[np.ones(40, int), 0]
    p = np.r_[np.full(40, 0.9), 0.2]
    prof = ConfidenceProfile.from_arrays(y, p)
    res = summarize(prof, metrics=["auc"])
    with pytest.warns(UserWarning, match="could not define"):
        bootstrap_intervals(prof, res, n_boot=200, seed=0)


def test_bad_arguments():
    prof = _binary(n=50)
    res = summarize(prof, metrics=["accuracy"])
    with pytest.raises(ValueError, match="`ci` must be in"):
        bootstrap_intervals(prof, res, ci=95)
    with pytest.raises(ValueError, match="`n_boot` must be an integer"):
        bootstrap_intervals(prof, res, n_boot=1)
    with pytest.raises(ValueError, match="`method` must be one of"):
        bootstrap_intervals(prof, res, method="bca")


def test_accessor_ci_shapes():
    prof = _binary(n=300)
    df = pd.DataFrame({"y_true": prof.y_true, "proba": prof.score,
                       "g": np.arange(300) % 3})
    one = df.calib.summary(["accuracy", "csr"], ci=0.9, n_boot=50, seed=0)
    assert list(one.columns) == ["value", "ci_low", "ci_high"]
    assert list(one.index) == ["n", "n_dropped", "n_clipped", "accuracy", "csr"]
    grp = df.groupby("g").calib.summary(["accuracy", "csr"], ci=0.9, n_boot=50, seed=0)
    assert grp.columns.names == ["metric", "stat"]
    assert ("csr", "ci_high") in grp.columns
    again = df.groupby("g").calib.summary(["accuracy", "csr"], ci=0.9, n_boot=50, seed=0)
    pd.testing.assert_frame_equal(grp, again)


@pytest.mark.slow
def test_percentile_coverage_near_nominal():
    """Coverage of 95% intervals on a calibrated profile with known truth.

    conf ~ Beta(4, 2) and correct ~ Bernoulli(conf): the true accuracy is E[conf] = 2/3
    and the true CSR is exactly 1 (000_efda01fc1c8d5c44.txt, Prop. 2 in expectation).
    With 200 simulated data sets the coverage estimate has a standard error of about
    0.015, so [0.89, 0.99] is a +-4 SE band around 0.95.
    """
    rng = np.random.default_rng(11)
    hits = {"accuracy": 0, "csr": 0, "cwa": 0}
    truth = {"accuracy": 4 / 6, "csr": 1.0,
             # cwA = E[c^2] / E[c] for Beta(4, 2): E[c^2] = (4*5)/(6*7)
             "cwa": (20 / 42) / (4 / 6)}
    reps = 200
    for _ in range(reps):
        c = rng.beta(4, 2, 400)
        ok = rng.random(400) < c
        prof = ConfidenceProfile.from_arrays(conf=c, correct=ok)
        res = summarize(prof, metrics=list(hits))
        iv = bootstrap_intervals(prof, res, n_boot=400, ci=0.95, seed=rng)
        for m in hits:
            lo, hi = iv[m]
            hits[m] += lo <= truth[m] <= hi
    for m, h in hits.items():
        assert 0.89 <= h / reps <= 0.99, (m, h / reps)
