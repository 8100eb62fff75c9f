"""Bootstrap: the batched kernels equal the core metrics; resampling; seeds; intervals."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import calreport  # noqa: F401
import calreport.bootstrap._tiles as tiles
import calreport.bootstrap.kernels as bs
from calreport import ConfidenceProfile
from calreport.bootstrap import BootstrapResult, bootstrap_intervals, bootstrap_replicates
from calreport.bootstrap.kernels import Kernels
from calreport.bootstrap.resampling import Resampler, _add_hits
from calreport.registry import REGISTRY as METRICS
from calreport.settings import Settings
from calreport.summary import summarize

BATCHED = [m for m, spec in METRICS.items() if spec.interval.kind == "bootstrap"]


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


def _weighted(n=500, seed=3):
    """Binary, tied scores, real-valued sample weights (some zero).

    Three heavy rows (weight 6) sit alone above 0.8 and are all wrong: with 8 bins
    their bin has the largest gap, a weight sum of 6 per drawn row but a Kish
    effective size of only the number of rows drawn, so MCE with ``min_count=4``
    depends on which occupancy is used.
    """
    rng = np.random.default_rng(seed)
    p = np.r_[np.round(rng.beta(2, 2, n - 3) * 0.8, 2), 0.97, 0.97, 0.98]
    y = np.r_[(rng.random(n - 3) < p[:-3]).astype(int), 0, 0, 0]
    w = np.r_[rng.gamma(2.0, 0.5, n - 3), 6.0, 6.0, 6.0]
    w[::17] = 0.0
    return ConfidenceProfile.from_arrays(y, p, sample_weight=w)


def _top_label(n=600, seed=4):
    """conf + correct only: no AUC, Brier; bins and AURC in the confidence order."""
    rng = np.random.default_rng(seed)
    c = np.round(rng.uniform(0.3, 1.0, n), 3)
    return ConfidenceProfile.from_arrays(conf=c, correct=rng.random(n) < c)


PROFILES = {"binary": _binary, "ties": lambda: _binary(ties=True), "multi": _multi,
            "weighted": _weighted, "top_label": _top_label}


def _counts(n_rep, n, seed=5):
    return np.random.default_rng(seed).poisson(1.0, size=(n_rep, n))


def test_seed_reproducible_and_different():
    prof = _binary()
    a = bootstrap_replicates(prof, metrics=["accuracy", "auc"], n_boot=50, seed=7)
    b = bootstrap_replicates(prof, metrics=["accuracy", "auc"], n_boot=50, seed=7)
    c = bootstrap_replicates(prof, metrics=["accuracy", "auc"], n_boot=50, seed=8)
    np.testing.assert_array_equal(a["auc"], b["auc"])
    assert not np.array_equal(a["auc"], c["auc"])
    d = bootstrap_replicates(prof, metrics=["accuracy", "auc"], n_boot=50, seed=7,
                             resampling="poisson")
    assert not np.array_equal(a["auc"], d["auc"])
    ss = np.random.SeedSequence(7)
    e = bootstrap_replicates(prof, metrics=["auc"], n_boot=50, seed=ss)
    np.testing.assert_array_equal(a["auc"], e["auc"])  # int and its SeedSequence


def test_more_replicates_extend_the_same_sequence():
    """Replicate i depends on the seed and i only: n_boot=40 starts like n_boot=100."""
    prof = _binary()
    a = bootstrap_replicates(prof, metrics=["cwa"], n_boot=40, seed=2)
    b = bootstrap_replicates(prof, metrics=["cwa"], n_boot=100, seed=2)
    np.testing.assert_array_equal(a["cwa"][:32], b["cwa"][:32])  # whole streams of 16


@pytest.mark.parametrize("name", ["binary", "ties", "weighted"])
def test_block_size_does_not_change_replicates(monkeypatch, name):
    """Replicates 16k..16k+15 come from child stream k: at this size the same
    numbers, bit for bit, whatever the block size."""
    prof = PROFILES[name]()
    names = BATCHED
    a = bootstrap_replicates(prof, metrics=names, n_boot=70, seed=3)  # one block of 70
    assert bs.block_replicates(prof.n, 70) == 70
    monkeypatch.setattr(bs, "_BLOCK_CELLS", prof.n * 16)  # blocks of 16 replicates
    assert bs.block_replicates(prof.n, 70) == 16
    b = bootstrap_replicates(prof, metrics=names, n_boot=70, seed=3)
    for m in names:
        np.testing.assert_array_equal(a[m], b[m], err_msg=m)


def test_block_size_moves_replicates_by_rounding_only(monkeypatch):
    """On tied scores and 20,000 rows, blocks of 16 and of 32 replicates draw the
    same counts; the BLAS then groups the rows of a product by their number, so
    the values agree to rounding, not always bit for bit (as documented)."""
    prof = _binary(n=20_000, seed=4, ties=True)
    out = []
    for streams in (1, 2):
        monkeypatch.setattr(bs, "_TILE_CELLS", tiles._TILE_ROWS * 16 * streams)
        monkeypatch.setattr(bs, "_BLOCK_CELLS", prof.n * 16 * streams)
        assert bs.block_replicates(prof.n, 64) == 16 * streams
        out.append(bootstrap_replicates(prof, metrics=BATCHED, n_boot=64, seed=3))
    for m in BATCHED:
        np.testing.assert_allclose(out[0][m], out[1][m], rtol=1e-12, atol=1e-13,
                                   err_msg=m)


@pytest.mark.parametrize("name", list(PROFILES))
def test_counts_path_equals_real_weight_path(name):
    """Integer counts in the first order (gathered into the others tile by tile) and
    the same weights as reals in the original order agree bit for bit."""
    prof = PROFILES[name]()
    k = Kernels(prof, Settings(n_bins=10, tau=0.6, min_count=3), BATCHED)
    counts = _counts(6, prof.n)
    base = 1.0 if prof.sample_weight is None else prof.sample_weight
    ref = k.evaluate(counts * base)
    first = counts[:, k.first_rows]
    for dtype in (np.uint8, np.uint16):  # uint16: a block widened past 255
        got = k.evaluate_counts(first.astype(dtype))
        assert set(got) == set(ref)
        for m in ref:
            np.testing.assert_array_equal(got[m], ref[m], err_msg=m)


@pytest.mark.parametrize("name", ["binary", "ties", "weighted", "top_label"])
def test_replicate_equals_summary_of_the_materialised_resample(name):
    """A replicate = the summary of the resample written out row by row.

    Rows drawn k times are repeated k times (with their own sample weight), so the
    bin occupancy of MCE is the resample's row count (or Kish's effective size with
    sample weights), not that of the counts read as weights.
    """
    prof = PROFILES[name]()
    s = Settings(n_bins=8, tau=0.55, min_count=4, p_risk_method="normal")
    k = Kernels(prof, s, BATCHED)
    counts = _counts(4, prof.n, seed=9)
    got = k.evaluate_counts(counts[:, k.first_rows])
    names = list(got)  # without labels and probabilities: no AUC, Brier, log loss
    assert len(names) >= 12
    for r in range(4):
        rows = np.repeat(np.arange(prof.n), counts[r])
        if prof.conf is not None and prof.y_true is None:
            rep = ConfidenceProfile.from_arrays(conf=prof.conf[rows],
                                                correct=prof.correct[rows])
        else:
            scores = prof.score if prof.score is not None else prof.proba
            sw = None if prof.sample_weight is None else prof.sample_weight[rows]
            rep = ConfidenceProfile.from_arrays(prof.y_true[rows], scores[rows],
                                                sample_weight=sw)
        ref = summarize(rep, metrics=names, settings=s).values
        for m in names:
            assert got[m][r] == pytest.approx(ref[m], rel=1e-9, abs=1e-12, nan_ok=True), (m, r)


def test_tiles_split_runs_of_ties_correctly(monkeypatch):
    """Small tiles: running sums carried across tiles, tie groups never split."""
    prof = _binary(n=3000, ties=True)  # 11 distinct scores: groups longer than a tile
    prof2 = ConfidenceProfile.from_arrays(prof.y_true, np.round(_binary(n=3000).score, 3))
    for p in (prof, prof2):
        ref = Kernels(p, Settings(p_risk_method="normal"), BATCHED)
        monkeypatch.setattr(tiles, "_TILE_ROWS", 128)
        small = Kernels(p, Settings(p_risk_method="normal"), BATCHED)
        monkeypatch.undo()
        assert len(small.orders[0].tiles) > len(ref.orders[0].tiles) == 1
        counts = _counts(5, p.n)
        a = ref.evaluate_counts(counts[:, ref.first_rows])
        b = small.evaluate_counts(counts[:, small.first_rows])
        c = small.evaluate(counts.astype(float))
        for m in BATCHED:
            np.testing.assert_allclose(b[m], a[m], rtol=1e-12, err_msg=m)
            np.testing.assert_allclose(c[m], a[m], rtol=1e-12, err_msg=m)


@pytest.mark.parametrize("name", list(PROFILES))
def test_columns_formed_per_tile_equal_the_held_matrix(monkeypatch, name):
    """Above ``_MATRIX_BYTES`` the per-row columns are formed tile by tile: same sums."""
    prof = PROFILES[name]()
    s = Settings(n_bins=8, tau=0.55, min_count=4, p_risk_method="normal")
    monkeypatch.setattr(tiles, "_TILE_ROWS", 128)  # several tiles
    held = Kernels(prof, s, BATCHED)
    monkeypatch.setattr(bs, "_MATRIX_BYTES", 0)
    per_tile = Kernels(prof, s, BATCHED)
    assert held.sums.matrix is not None and per_tile.sums.matrix is None
    counts = _counts(5, prof.n, seed=11)
    a = held.evaluate_counts(counts[:, held.first_rows])
    b = per_tile.evaluate_counts(counts[:, per_tile.first_rows])
    for m in a:
        np.testing.assert_allclose(b[m], a[m], rtol=1e-13, atol=1e-15, err_msg=m)


def test_canonical_order_is_read_through_not_copied():
    """``order=`` gives the kernels of ``p.take(order)``: same sort orders, same values."""
    prof = _weighted()
    order = bs.canonical_order(prof)
    s = Settings(n_bins=8, p_risk_method="normal")
    through = Kernels(prof, s, BATCHED, order=order)
    copied = Kernels(prof.take(order), s, BATCHED)
    np.testing.assert_array_equal(through.first_rows, copied.first_rows)
    counts = _counts(4, prof.n, seed=12)[:, copied.first_rows]
    a, b = through.evaluate_counts(counts), copied.evaluate_counts(counts)
    for m in a:
        np.testing.assert_array_equal(a[m], b[m], err_msg=m)


def test_chunks_of_weighted_rows_keep_the_scale_of_the_sample(monkeypatch):
    """Per-row columns built in chunks: a chunk's weights are not rescaled to its max.

    The first 50 rows weigh at most 0.5 and the rest up to 8 (scaled to 1 by the
    profile); with chunks of 50 rows a per-chunk rescaling would double the first
    chunk's weights in the CSR variance and in the bin occupancy of MCE.
    """
    rng = np.random.default_rng(21)
    n = 300
    p = np.round(rng.beta(2, 2, n), 2)
    y = (rng.random(n) < p).astype(int)
    w = np.r_[rng.uniform(0.1, 0.5, 50), rng.uniform(0.5, 8.0, n - 50)]
    prof = ConfidenceProfile.from_arrays(y, p, sample_weight=w)
    monkeypatch.setattr(bs, "_COLUMN_CHUNK", 50)
    s = Settings(n_bins=6, min_count=3, p_risk_method="normal")
    k = Kernels(prof, s, BATCHED, order=bs.canonical_order(prof))
    canon = prof.take(bs.canonical_order(prof))
    counts = _counts(3, n, seed=13)
    got = k.evaluate_counts(counts[:, k.first_rows].astype(np.uint8))
    for r in range(3):
        rows = np.repeat(np.arange(n), counts[r])
        rep = ConfidenceProfile.from_arrays(canon.y_true[rows], canon.score[rows],
                                            sample_weight=canon.sample_weight[rows])
        ref = summarize(rep, metrics=list(got), settings=s).values
        for m in got:
            assert got[m][r] == pytest.approx(ref[m], rel=1e-9, abs=1e-12, nan_ok=True), m


# ------------------------------------------------------------------- resampling
@pytest.mark.parametrize("n", [1, 2, 7, 300, 5000])
def test_multinomial_counts_draw_exactly_n_rows(n):
    rng = np.random.default_rng(n)
    counts = Resampler(n, "multinomial").draw(rng, np.empty((40, n), np.uint8))
    np.testing.assert_array_equal(counts.sum(axis=1), n)


def test_multinomial_counts_have_the_multinomial_law():
    """Cell counts ~ Binomial(N, 1/N); two cells covary by -1/N (Efron's bootstrap).

    N = 40 keeps the top-up of uniform draws large (rate ~0.46), 50 000 replicates
    give a chi-square test of the marginal with plenty of power.
    """
    n, reps = 40, 50_000
    rng = np.random.default_rng(0)
    counts = Resampler(n, "multinomial").draw(rng, np.empty((reps, n), np.uint8))
    cell = counts[:, :10].ravel().astype(int)
    k = np.arange(6)
    expected = stats.binom.pmf(k, n, 1 / n)
    expected = np.r_[expected, 1 - expected.sum()] * cell.size
    observed = np.r_[np.bincount(np.minimum(cell, 6), minlength=7)]
    assert stats.chisquare(observed, expected).pvalue > 1e-3
    # Cov(count_i, count_j) = -N p^2 = -1/N for i != j
    cov = np.cov(counts[:, 0], counts[:, 1])[0, 1]
    assert cov == pytest.approx(-1 / n, abs=4 * 1.0 / np.sqrt(reps))


def test_poisson_counts_have_the_poisson_law():
    n, reps = 1000, 2000
    rng = np.random.default_rng(1)
    counts = Resampler(n, "poisson").draw(rng, np.empty((reps, n), np.uint8)).ravel()
    k = np.arange(7)
    expected = stats.poisson.pmf(k, 1.0)
    expected = np.r_[expected, 1 - expected.sum()] * counts.size
    observed = np.bincount(np.minimum(counts, 7), minlength=8)
    assert stats.chisquare(observed, expected).pvalue > 1e-3
    totals = counts.reshape(reps, n).sum(axis=1)
    assert totals.var() == pytest.approx(n, rel=0.1)  # Poisson(N) totals


def test_poisson_table_is_the_inverse_cdf():
    """Every non-refined 16-bit code gives the quantile of both ends of its interval."""
    sampler = Resampler(10_000, "multinomial")
    codes = np.arange(1 << 16)
    fixed = sampler.table != 255
    lo = codes * 2.0**-16
    hi = np.nextafter((codes + 1) * 2.0**-16, 0)
    for u in (lo, hi):
        quantile = np.searchsorted(sampler.cdf, u, side="right")
        np.testing.assert_array_equal(sampler.table[fixed], quantile[fixed])
    # refined codes are rare: the CDF has only ~20 jumps
    assert (~fixed).sum() <= sampler.cdf.size


def test_add_hits_widens_past_255():
    counts = np.array([[250, 1, 0]], dtype=np.uint8)
    out = _add_hits(counts, np.array([0] * 10 + [2]))
    assert out.dtype == np.uint16
    np.testing.assert_array_equal(out, [[260, 1, 1]])
    small = _add_hits(np.zeros((1, 3), np.uint8), np.array([1, 1]))
    assert small.dtype == np.uint8
    np.testing.assert_array_equal(small, [[0, 2, 0]])


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


@pytest.mark.parametrize("weighted", [False, True])
def test_analytic_ratio_interval_is_the_delta_method(weighted):
    """cwA and CWSA (ratios of sums) by the delta method, written out by hand: the
    influence of row i is (num_i - r den_i) / mean(den), its weighted SE over
    Kish's effective sample size."""
    rng = np.random.default_rng(8)
    n = 700
    p = rng.beta(2, 2, n)
    y = (rng.random(n) < p).astype(int)
    w = rng.uniform(0.2, 3.0, n) if weighted else np.ones(n)
    prof = ConfidenceProfile.from_arrays(y, p, sample_weight=w if weighted else None)
    res = summarize(prof, metrics=["cwa", "cwsa"])
    ana = bootstrap_intervals(prof, res, ci=0.9, method="analytic")
    c = np.maximum(p, 1 - p)
    k = ((p >= 0.5).astype(int) == y).astype(float)
    tau = res.settings.tau
    sel = (c >= tau).astype(float)
    phi = (c - tau) / (1 - tau) * sel
    n_eff = w.sum() ** 2 / (w**2).sum()
    z = stats.norm.ppf(0.95)
    for name, num, den in (("cwa", c * k, c), ("cwsa", phi * (2 * k - 1), sel)):
        r = (w * num).sum() / (w * den).sum()
        infl = (num - r * den) / ((w * den).sum() / w.sum())
        mu = (w * infl).sum() / w.sum()
        se = np.sqrt((w * (infl - mu) ** 2).sum() / w.sum() / n_eff)
        assert res.values[name] == pytest.approx(r, rel=1e-12), name
        assert ana[name] == pytest.approx((r - z * se, r + z * se), rel=1e-10), name


def test_refit_metrics_without_refit_have_reason():
    prof = _binary(n=600)
    res = summarize(prof, metrics=["accuracy", "lcs"])
    out = bootstrap_intervals(prof, res, n_boot=20, seed=0, return_replicates=True,
                              refit=False)
    assert math.isnan(out.intervals["lcs"][0])
    assert "refit=False" in out.reasons["lcs"]


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
    with pytest.raises(ValueError, match="`ci_method` must be one of"):
        bootstrap_intervals(prof, res, method="bca")
    with pytest.raises(ValueError, match="`resampling` must be one of"):
        bootstrap_intervals(prof, res, resampling="bayesian")


def test_result_records_the_resampling():
    prof = _binary(n=200)
    res = summarize(prof, metrics=["accuracy"])
    out = bootstrap_intervals(prof, res, n_boot=20, seed=0, return_replicates=True,
                              resampling="poisson")
    assert isinstance(out, BootstrapResult)
    assert out.resampling == "poisson"
    assert out.replicates["accuracy"].shape == (20,)


def test_accessor_ci_shapes():
    prof = _binary(n=300)
    df = pd.DataFrame({"y_true": prof.y_true, "proba": prof.score,
                       "g": np.arange(300) % 3})
    one = df.calib.summary(["accuracy", "csr"], ci=0.9, n_boot=50, seed=0)
    assert list(one.columns) == ["value", "ci_low", "ci_high", "ci_low_mcse", "ci_high_mcse",
                                 "replicates", "method", "coverage"]
    assert list(one.index) == ["n", "n_dropped", "n_clipped", "n_eff", "accuracy", "csr"]
    grp = df.groupby("g").calib.summary(["accuracy", "csr"], ci=0.9, n_boot=50, seed=0)
    assert grp.columns.names == ["metric", "stat"]
    assert ("csr", "ci_high") in grp.columns
    again = df.groupby("g").calib.summary(["accuracy", "csr"], ci=0.9, n_boot=50, seed=0)
    pd.testing.assert_frame_equal(grp, again)


@pytest.mark.slow
@pytest.mark.parametrize("resampling", ["multinomial", "poisson"])
def test_percentile_coverage_near_nominal(resampling):
    """Coverage of 95% intervals on a calibrated profile with known truth.

    conf ~ Beta(4, 2) and correct ~ Bernoulli(conf): the true accuracy is E[conf] = 2/3
    and the true CSR is exactly 1 (Martin-Maroto et al.
    2026, arXiv:2605.01796, Proposition 2, in expectation).
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
        iv = bootstrap_intervals(prof, res, n_boot=400, ci=0.95, seed=rng,
                                 resampling=resampling)
        for m in hits:
            lo, hi = iv[m]
            hits[m] += lo <= truth[m] <= hi
    for m, h in hits.items():
        assert 0.89 <= h / reps <= 0.99, (m, h / reps)


@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=300),
       st.floats(0.01, 0.99))
@settings(max_examples=300, deadline=None)
def test_interval_quantiles_equal_numpy_bit_for_bit(values, ci):
    from calreport.interval_rules import read_interval

    x = np.array(values)
    b = read_interval(x, np.nan, ci, "percentile", (-np.inf, np.inf))
    want = np.quantile(x, [(1 - ci) / 2, (1 + ci) / 2])
    assert np.array_equal([b.low[0], b.high[0]], want)
    up = read_interval(x, np.nan, ci, "upper", (-np.inf, np.inf))
    assert up.high[0] == np.quantile(x, ci) and up.low[0] == -np.inf


def test_resampler_tables_are_built_once_and_read_only():
    a = Resampler.of(1234, "multinomial")
    assert Resampler.of(1234, "multinomial") is a
    assert Resampler.of(1234, "poisson") is not a
    with pytest.raises(ValueError):
        a.table[0] = 1
    fresh = Resampler(1234, "multinomial")
    assert np.array_equal(fresh.pair_table, a.pair_table)


def test_frequency_weight_intervals_equal_those_of_the_repeated_rows():
    """Frequency weights count repeated rows: the bootstrap resamples those rows, so the
    intervals equal the repeated frame's (they were the importance-weight intervals,
    much wider here)."""
    import warnings

    import pandas as pd

    rng = np.random.default_rng(1)
    p = rng.uniform(0.5, 1.0, 400)
    y = (rng.random(400) < p).astype(int)
    w = rng.integers(1, 5, 400)
    df = pd.DataFrame({"y": y, "p": p, "w": w.astype(float)})
    rep = df.loc[df.index.repeat(w)].reset_index(drop=True)
    names = ["accuracy", "ece", "csr", "auc"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = df.calib(y="y", proba="p", weight="w", weights="frequency").summary(
            names, ci=0.95, n_boot=150, seed=3)
        want = rep.calib(y="y", proba="p").summary(names, ci=0.95, n_boot=150, seed=3)
        rel = df.calib(y="y", proba="p", weight="w").summary(names, ci=0.95, n_boot=150,
                                                              seed=3)
    np.testing.assert_allclose(got.loc[names, ["ci_low", "ci_high"]],
                               want.loc[names, ["ci_low", "ci_high"]], rtol=1e-12)
    assert (got.loc["accuracy", "ci_high"] - got.loc["accuracy", "ci_low"]
            < rel.loc["accuracy", "ci_high"] - rel.loc["accuracy", "ci_low"])


def test_a_single_row_gets_no_interval_and_the_reason():
    """Every resample of one row is that row: the card showed 'CSR 100.00 (100.00 to
    100.00)', a zero-width interval claiming certainty."""
    import warnings

    import pandas as pd

    df = pd.DataFrame({"y": [0, 1, 1, 0, 1, 0, 1], "p": [0.2, 0.8, 0.6, 0.3, 0.7, 0.4, 0.99],
                       "g": ["a"] * 6 + ["b"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = df.groupby("g").calib(y="y", proba="p").evaluate(
            metrics=["accuracy", "csr"], ci=0.9, n_boot=50)
    one = res.groups[1]
    assert one.name == "b"
    assert all(np.isnan(one.intervals[m]).all() for m in ("accuracy", "csr"))
    assert "single row" in one.reasons["csr"]
    assert not np.isnan(res.groups[0].intervals["csr"]).any()
