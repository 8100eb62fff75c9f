"""The sparse bootstrap AUC of classes with rare positives.

Classes with few distinct positive scores are not put in their own score order:
each row gets, per class, the segment of the class's score axis it falls in, and a
replicate's AUC and cwAUC come from its weights summed by segment.  Checked here
against the dense (sorted, tiled) path, against scikit-learn's ``roc_auc_score``
and a brute-force pair count on the resampled rows written out with ``np.repeat``,
with tied scores, sample weights, classes that lose all their positives in a
replicate, several batches of classes and several chunks of rows.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

import calreport.bootstrap._sparse as sparse_mod
import calreport.bootstrap.kernels as bs
from calreport import ConfidenceProfile
from calreport.bootstrap import bootstrap_replicates
from calreport.bootstrap._sparse import _segment_labels
from calreport.bootstrap._tiles import _Buffers
from calreport.bootstrap.kernels import Kernels
from calreport.registry import REGISTRY
from calreport.settings import Settings

BATCHED = [m for m, spec in REGISTRY.items() if spec.interval.kind == "bootstrap"]
AUCS = ["auc", "cwauc", "delta_auc"]


@pytest.fixture(autouse=True)
def _sparse_for_small_samples(monkeypatch):
    """These samples are small: let every class with few positives take the sparse
    path (by default only classes with at most N / 32 distinct positive scores)."""
    monkeypatch.setattr(bs, "_SPARSE_RATIO", 1)


def test_default_choice_of_path(monkeypatch):
    """Binary data (positives frequent) stays sorted; 100 rare classes go sparse."""
    monkeypatch.undo()  # the default ratio
    rng = np.random.default_rng(0)
    p = rng.random(600)  # about 300 distinct positive scores: <= 1024, > 600 / 32
    binary = ConfidenceProfile.from_arrays((rng.random(600) < p).astype(int), p)
    z = rng.normal(size=(3000, 100))
    proba = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    many = ConfidenceProfile.from_arrays(np.arange(3000) % 100, proba)  # 30 each
    b = Kernels(binary, Settings(), ["auc"])
    m = Kernels(many, Settings(), ["auc"])
    assert b.sparse is None and len(b.aucs) == 1
    assert m.sparse is not None and not m.aucs and m.sparse.n_classes == 100


def _multi(n=400, k=12, seed=0, ties=False, weights=False):
    """Softmax scores of ``k`` classes; the last class has three rows only."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, k)) * 2.0
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    if ties:  # many scores tied within a class, between positives and negatives
        p = np.round(p, 2)
        p[:, -1] = 1.0 - p[:, :-1].sum(axis=1)
        p = np.clip(p, 0.0, 1.0)
        p /= p.sum(axis=1, keepdims=True)
    y = (p.cumsum(axis=1) > rng.random((n, 1))).argmax(axis=1)
    y[y == k - 1] = 0
    y[:3] = k - 1  # a rare class: often absent from a replicate
    w = rng.gamma(2.0, 0.5, n) if weights else None
    return ConfidenceProfile.from_arrays(y, p, sample_weight=w)


def _counts(n_rep, n, seed=5, lost=None):
    """Poisson counts; replicate 1 draws none of the rows ``lost``."""
    c = np.random.default_rng(seed).poisson(1.0, size=(n_rep, n)).astype(np.uint8)
    if lost is not None:
        c[1, lost] = 0
    return c


def _kernels(prof, monkeypatch=None, dense=False):
    if dense:
        monkeypatch.setattr(bs, "_SPARSE_GROUPS", 0)
    k = Kernels(prof, Settings(p_risk_method="normal"), BATCHED)
    if dense:
        monkeypatch.undo()
    return k


def _per_class(k: Kernels, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, list]:
    """Per-class AUC and cwAUC of the sparse path for counts in the original order."""
    host = counts[:, k.first_rows].astype(np.float64)
    if k.weighted:
        host = host * k.orders[0].base
    auc, cw = k.sparse.evaluate(counts.shape[0], lambda: [(0, host)], _Buffers())
    return auc, cw, k.auc_classes[len(k.aucs):]


def _pairs(score, pos, weight):
    """Brute force: sum over (positive, negative) pairs of w_i w_j ([s_i > s_j] +
    [s_i = s_j] / 2) divided by (sum of positive w)(sum of negative w)."""
    sp, sn = score[pos], score[~pos]
    wp, wn = weight[pos], weight[~pos]
    if not wp.sum() > 0 or not wn.sum() > 0:
        return np.nan
    above = (sp[:, None] > sn[None, :]) + 0.5 * (sp[:, None] == sn[None, :])
    return float(wp @ above @ wn / (wp.sum() * wn.sum()))


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weights", [False, True])
def test_sparse_class_auc_equals_sklearn_and_pairs_on_repeated_rows(ties, weights):
    prof = _multi(ties=ties, weights=weights)
    k = _kernels(prof)
    assert k.sparse is not None and not k.aucs  # every class on the sparse path
    counts = _counts(6, prof.n, lost=prof.y_true == 11)
    auc, cw, classes = _per_class(k, counts)
    seen_nan = False
    for r in range(counts.shape[0]):
        rows = np.repeat(np.arange(prof.n), counts[r])
        y, p, conf = prof.y_true[rows], prof.proba[rows], prof.conf[rows]
        w = np.ones(rows.size) if prof.sample_weight is None else prof.sample_weight[rows]
        for j, c in enumerate(classes):
            pos = y == c
            if not pos.any():  # the class lost its positives: NaN, as the dense path
                assert np.isnan(auc[r, j]) and np.isnan(cw[r, j])
                seen_nan = True
                continue
            ref = roc_auc_score(pos, p[:, c], sample_weight=w)
            assert auc[r, j] == pytest.approx(ref, rel=1e-12), (r, c)
            assert auc[r, j] == pytest.approx(_pairs(p[:, c], pos, w), rel=1e-12)
            assert cw[r, j] == pytest.approx(_pairs(p[:, c], pos, w * conf), rel=1e-12)
    assert seen_nan  # the rare class is absent from some replicate


@pytest.mark.parametrize("ties", [False, True])
def test_sparse_equals_dense_path_bit_for_bit_on_counts(monkeypatch, ties):
    """Integer counts: every sum of the sparse AUC is an exact integer."""
    prof = _multi(ties=ties)
    sparse, dense = _kernels(prof), _kernels(prof, monkeypatch, dense=True)
    assert dense.sparse is None and len(dense.aucs) == 12
    counts = _counts(8, prof.n, lost=prof.y_true == 11)
    a = sparse.evaluate_counts(counts[:, sparse.first_rows])
    b = dense.evaluate_counts(counts[:, dense.first_rows])
    assert np.isnan(a["auc"]).any()  # the rare class was lost somewhere: macro NaN
    np.testing.assert_array_equal(a["auc"], b["auc"])
    np.testing.assert_allclose(a["cwauc"], b["cwauc"], rtol=1e-13)
    np.testing.assert_allclose(a["delta_auc"], b["delta_auc"], rtol=1e-11, atol=1e-14)
    for m in set(a) - set(AUCS):
        np.testing.assert_array_equal(a[m], b[m], err_msg=m)


def test_sparse_equals_dense_path_with_sample_weights(monkeypatch):
    prof = _multi(ties=True, weights=True)
    sparse, dense = _kernels(prof), _kernels(prof, monkeypatch, dense=True)
    counts = _counts(8, prof.n, seed=3)
    a = sparse.evaluate_counts(counts[:, sparse.first_rows])
    b = dense.evaluate_counts(counts[:, dense.first_rows])
    c = sparse.evaluate(counts * prof.sample_weight)  # the real-weight entry point
    for m in ("auc", "cwauc"):
        np.testing.assert_allclose(a[m], b[m], rtol=1e-12, err_msg=m)
        np.testing.assert_array_equal(c[m], a[m], err_msg=m)


def test_mixed_dense_and_sparse_classes_average_in_class_order(monkeypatch):
    """Classes with many distinct positive scores stay on the dense path."""
    prof = _multi(n=600, k=5, seed=1)
    n_pos = np.bincount(prof.y_true, minlength=5)
    monkeypatch.setattr(bs, "_SPARSE_GROUPS", int(np.sort(n_pos)[2]))
    mixed = Kernels(prof, Settings(p_risk_method="normal"), AUCS)
    monkeypatch.undo()
    assert mixed.aucs and mixed.sparse is not None
    assert sorted(mixed.auc_classes) == list(range(5))
    dense = _kernels(prof, monkeypatch, dense=True)
    counts = _counts(5, prof.n, seed=8)
    a = mixed.evaluate_counts(counts[:, mixed.first_rows])
    b = dense.evaluate_counts(counts[:, dense.first_rows])
    np.testing.assert_array_equal(a["auc"], b["auc"])
    np.testing.assert_allclose(a["cwauc"], b["cwauc"], rtol=1e-13)


def test_batches_and_row_chunks_do_not_change_the_numbers(monkeypatch):
    prof = _multi(n=900, k=9, seed=4, ties=True)
    ref = _kernels(prof)
    counts = _counts(6, prof.n, seed=2)
    a = ref.evaluate_counts(counts[:, ref.first_rows])
    monkeypatch.setattr(sparse_mod, "_SPARSE_ROWS", 1)  # one class per batch
    monkeypatch.setattr(sparse_mod, "_SPARSE_SUMS", 1)  # one batch per round
    monkeypatch.setattr(bs, "_SPARSE_CELLS", 1)  # chunks of 1024 rows
    monkeypatch.setattr(bs, "_SPARSE_MIN_ROWS", 100)  # ... of 100 rows
    small = _kernels(prof)
    assert len(small.sparse.labels) == 9 > len(ref.sparse.labels)
    b = small.evaluate_counts(counts[:, small.first_rows])
    np.testing.assert_array_equal(a["auc"], b["auc"])
    np.testing.assert_allclose(a["cwauc"], b["cwauc"], rtol=1e-13)


def test_replicates_do_not_depend_on_blocks(monkeypatch):
    prof = _multi(n=700, k=20, seed=6)
    a = bootstrap_replicates(prof, metrics=AUCS, n_boot=48, seed=1)
    monkeypatch.setattr(bs, "_BLOCK_CELLS", prof.n * 16)
    b = bootstrap_replicates(prof, metrics=AUCS, n_boot=48, seed=1)
    for m in AUCS:
        np.testing.assert_array_equal(a[m], b[m], err_msg=m)


def test_segment_labels_hand_worked():
    # positives at 0.2, 0.5, 0.5 -> distinct positive scores u = [0.2, 0.5], padded
    # to width 3: negatives below 0.2 -> 0, tied with 0.2 -> 1, between -> 2, tied
    # with 0.5 -> 3, above 0.5 -> 4; positives: 2 * 3 + 1 + group = 7 or 8
    score = np.array([0.1, 0.2, 0.2, 0.3, 0.5, 0.5, 0.5, 0.9])
    pos = np.array([0, 0, 1, 0, 0, 1, 1, 0], dtype=bool)
    np.testing.assert_array_equal(_segment_labels(score, pos, 3),
                                  [0, 1, 7, 2, 3, 8, 8, 4])
