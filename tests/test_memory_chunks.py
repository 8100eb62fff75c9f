"""Row-chunked point estimates equal the one-pass computation, bit for bit.

The chunk size is one constant (``calreport.metrics._chunks.ROWS``, or a module's own
block size); set small here so a few thousand rows cross many chunk boundaries (and
end in a partial chunk).
"""

from __future__ import annotations

import numpy as np
import pytest

from calreport.metrics import _chunks, _score_density, calibration_index, smooth


def _data(n: int = 5_003, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    s = rng.beta(2, 3, n)
    s[::7] = 0.25  # ties
    return s, rng.random(n) < s ** 1.3


@pytest.mark.parametrize("weighted", [False, True])
def test_smece_chunked_masses_equal_one_pass(monkeypatch, weighted):
    s, y = _data()
    w = np.random.default_rng(1).uniform(0.1, 2.0, s.size) if weighted else None
    whole = (smooth.smece(s, y, sample_weight=w), smooth.smece(s, y, sigma=0.07,
                                                               sample_weight=w))
    monkeypatch.setattr(_chunks, "ROWS", 97)
    assert (smooth.smece(s, y, sample_weight=w),
            smooth.smece(s, y, sigma=0.07, sample_weight=w)) == whole


def test_smece_unweighted_equals_unit_weights():
    s, y = _data()
    assert smooth.smece(s, y) == smooth.smece(s, y, sample_weight=np.ones(s.size))


def test_eci_chunked_gap_equals_one_pass(monkeypatch):
    s, y = _data()
    whole = calibration_index.eci(s, y)
    summary = calibration_index.calibration_error_summary(s, y)
    monkeypatch.setattr(_chunks, "ROWS", 61)
    assert calibration_index.eci(s, y) == whole
    assert calibration_index.calibration_error_summary(s, y) == summary
    # the rows' gaps are the curve at the distinct scores, repeated
    order = np.argsort(s, kind="stable")
    gap, exact = calibration_index._gap_at_rows(s[order], y[order].astype(float),
                                                method="lowess", frac=0.75, k=1000,
                                                n_nodes=50)
    assert not exact and gap.shape == s.shape


# --- AUC pair sums and the CSR null's moments, chunk by chunk ----------------------


def _brute_auc(s: np.ndarray, pos: np.ndarray, w: np.ndarray) -> float:
    """Pair-weighted AUC over every (positive, negative) pair, ties counted 1/2."""
    sp, sn = s[pos][:, None], s[~pos][None, :]
    pair = w[pos][:, None] * w[~pos][None, :]
    wins = (pair * ((sp > sn) + 0.5 * (sp == sn))).sum()
    return float(wins / pair.sum())


@pytest.mark.parametrize("chunk", [1, 3, 7, 64])
@pytest.mark.parametrize("weighted", [False, True])
def test_pair_sums_in_chunks_equal_brute_force(monkeypatch, chunk, weighted):
    from calreport.metrics import _auc_kernels as k

    rng = np.random.default_rng(chunk)
    s = np.sort(np.round(rng.beta(2, 2, 600), 2))  # long tie groups across chunk ends
    pos = rng.random(s.size) < s
    w = rng.uniform(0.1, 2.0, s.size) if weighted else np.ones(s.size)
    monkeypatch.setattr(_chunks, "ROWS", chunk)
    got = k._pair_auc(s, ~pos, [w if weighted else None, lambda sl: w[sl]])
    assert got[0] == pytest.approx(_brute_auc(s, pos, w), rel=1e-12)
    assert got[1] == pytest.approx(got[0], rel=1e-12)  # a weight function: same sums


def test_packed_sort_sorts_a_copy_and_keeps_each_scores_labels():
    from calreport.metrics._auc_kernels import _packed_sort

    s = np.array([0.0, 0.0, 0.2, 0.5, 0.5, 0.9])
    pos = np.array([True, False, True, False, True, True])
    ss, neg = _packed_sort(s, pos)
    assert ss is not s and ss.tolist() == s.tolist()
    # inside a tie group the negatives come first: the pair sums take the group whole
    assert neg.tolist() == [True, False, False, True, False, False]
    signed = s.copy()
    signed[1] = -0.0  # a -0.0 is made +0.0 in a copy, never in the caller's array
    ss, _ = _packed_sort(signed, pos)
    assert ss is not signed and not np.signbit(ss).any() and np.signbit(signed[1])


def test_binary_summary_auc_equals_scikit_learn_in_chunks(monkeypatch):
    import pandas as pd
    from sklearn.metrics import roc_auc_score


    s, y = _data(30_011)
    df = pd.DataFrame({"y_true": y.astype(int), "proba": s})
    names = ["auc", "cwauc", "accuracy"]
    whole = df.calib.summary(metrics=names)  # one chunk of pairs
    monkeypatch.setattr(_chunks, "ROWS", 1000)
    got = df.calib.summary(metrics=names)
    assert got["auc"] == pytest.approx(roc_auc_score(y, s), rel=1e-12)
    assert got["auc"] == pytest.approx(whole["auc"], rel=1e-13)
    assert got["cwauc"] == pytest.approx(whole["cwauc"], rel=1e-13)


@pytest.mark.parametrize("weighted", [False, True])
def test_risk_moments_in_chunks_equal_one_pass(monkeypatch, weighted):
    from calreport.metrics import _risk_rows, risk

    rng = np.random.default_rng(5)
    c = rng.uniform(0.5, 0.97, 5_000)
    c[::3] = 0.8  # a heavy tie group: the hashed lattice screen (> 4096 rows) finds it
    ok = rng.random(c.size) < c ** 1.03
    w = rng.uniform(0.2, 3.0, c.size) if weighted else None
    whole = risk.risk_summary(c, ok, sample_weight=w, method="normal", seed=0)
    r, _ = _risk_rows._rows(c, ok, w, 1e-8, "importance", warn=False)
    var, k3, share = r.moments
    uv = r.atom ** 2 * (1.0 - r.c) * r.c  # independent: the definition, in one pass
    assert var == pytest.approx(float(uv.sum()), rel=1e-13)
    assert k3 == pytest.approx(float((r.atom * uv * (2.0 * r.c - 1.0)).sum()), rel=1e-12)
    assert share == pytest.approx(float(uv.max() / uv.sum()), rel=1e-13)
    monkeypatch.setattr(_chunks, "ROWS", 97)
    part = risk.risk_summary(c, ok, sample_weight=w, method="normal", seed=0)
    for f in ("csr", "sigma_csr", "z_csr", "p_risk", "power", "lattice_ratio",
              "lindeberg_ratio", "null_skewness", "n_eff", "n_clipped_one"):
        a, b = getattr(whole, f), getattr(part, f)
        assert a == pytest.approx(b, rel=1e-12, abs=1e-15), f
    assert part.band == whole.band
    chunked, _ = _risk_rows._rows(c, ok, w, 1e-8, "importance", warn=False)
    assert (r.lattice > 0) != weighted  # weights make every (size, confidence) distinct
    assert chunked.lattice == pytest.approx(r.lattice, rel=1e-12)


@pytest.mark.parametrize("chunk", [1, 4, 50])
def test_aurc_in_chunks_equals_its_definition(monkeypatch, chunk):
    from calreport.metrics import selective

    rng = np.random.default_rng(chunk)
    c = np.round(rng.uniform(0.3, 1.0, 400), 2)  # tie groups across chunk ends
    ok = rng.random(c.size) < c
    # every row is charged the error rate of the rows at least as confident
    kept = c[None, :] >= c[:, None]
    ref = float(np.mean((kept & ~ok[None, :]).sum(axis=1) / kept.sum(axis=1)))
    monkeypatch.setattr(_chunks, "ROWS", chunk)
    assert selective.aurc(c, ok) == pytest.approx(ref, rel=1e-12)
    assert selective.aurc(c, ok.astype(float)) == pytest.approx(ref, rel=1e-12)


def test_corp_without_ties_in_chunks_equals_isotonic_regression(monkeypatch):
    from sklearn.isotonic import IsotonicRegression

    from calreport.metrics import corp

    s, y = _data(3_001)
    s = np.sort(s + np.arange(s.size) * 1e-9)  # distinct scores: the path without ties
    yf = y.astype(float)
    monkeypatch.setattr(_chunks, "ROWS", 64)
    got = corp._decomposition_sorted(s, yf, None, "brier")
    recal = IsotonicRegression().fit_transform(s, yf)
    score = float(np.mean((s - yf) ** 2))
    s_recal = float(np.mean((recal - yf) ** 2))
    rate = float(yf.mean())
    assert got.score == pytest.approx(score, rel=1e-12)
    assert got.mcb == pytest.approx(score - s_recal, rel=1e-10)
    assert got.dsc == pytest.approx(rate * (1 - rate) - s_recal, rel=1e-10)


def test_brier_and_cwsa_in_blocks_equal_direct_sums(monkeypatch):
    from sklearn.metrics import brier_score_loss

    from calreport.metrics import scoring, selective

    s, y = _data(5_003)
    w = np.random.default_rng(2).uniform(0.1, 2.0, s.size)
    monkeypatch.setattr(scoring, "_BLOCK_ENTRIES", 100)
    monkeypatch.setattr(_chunks, "ROWS", 100)
    assert scoring.brier_score(y.astype(np.int8), s) == pytest.approx(
        brier_score_loss(y, s), rel=1e-12)
    assert scoring.brier_score(y, s, sample_weight=w) == pytest.approx(
        brier_score_loss(y, s, sample_weight=w), rel=1e-12)
    conf = np.where(s >= 0.5, s, 1 - s)
    ok = (s >= 0.5) == y
    tau = 0.6
    phi = np.where(conf >= tau, (conf - tau) / (1 - tau), 0.0)
    ref = float((2 * phi * ok - phi).sum() / np.count_nonzero(conf >= tau))
    assert selective.cwsa(conf, ok, tau=tau) == pytest.approx(ref, rel=1e-12)


def test_classwise_ece_in_blocks_equals_one_pass(monkeypatch):
    from calreport.metrics import classwise

    s, y = _data(5_003)
    full = np.asfortranarray(np.column_stack([1 - s, s]))
    whole = classwise.classwise_ece(y.astype(np.int8), full)
    monkeypatch.setattr(classwise, "_BLOCK_ENTRIES", 77)
    assert classwise.classwise_ece(y.astype(np.int8), full) == pytest.approx(whole,
                                                                            rel=1e-12)
    # the (K, M) cells by hand: |sum outcome - sum score| per uniform bin, both classes
    ref = 0.0
    for p_col, hit in ((1 - s, ~y), (s, y)):
        # (lo, hi] bins: a score on an edge goes to the lower bin
        b = np.where(p_col * 15 == np.floor(p_col * 15),
                     np.maximum(np.minimum((p_col * 15).astype(int), 15) - 1, 0),
                     np.minimum((p_col * 15).astype(int), 14))
        ref += np.abs(np.bincount(b, weights=hit.astype(float), minlength=15)
                      - np.bincount(b, weights=p_col, minlength=15)).sum() / s.size
    assert whole == pytest.approx(ref / 2, rel=1e-12)


def test_reflected_kde_in_chunks_equals_one_pass(monkeypatch):
    s, _ = _data(200_003)
    s = np.sort(s)
    x = np.linspace(0.05, 0.95, 19)
    whole, bw = _score_density.reflected_kde(s, x)
    monkeypatch.setattr(_chunks, "ROWS", 999)
    part, bw2 = _score_density.reflected_kde(s, x)
    assert bw2 == bw
    np.testing.assert_allclose(part, whole, rtol=1e-12)
