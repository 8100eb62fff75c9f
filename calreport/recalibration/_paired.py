"""Paired bootstrap replicates of the advisor's metrics: the same rows for every method.

Every metric of the table but P_risk is a function of weighted row sums (AUC of
cumulative sums in score order), so a block of replicates is a block of resampling
counts times per-row columns.  The counts are drawn once per block, in the canonical
row order, and applied to every method's profile, so a replicate of a difference is
the difference of two metrics on the same resampled rows.  The columns reproduce
calreport's metric functions (``log_loss``, ``brier_score``, ``ece``, ``csr``, ``cwa``,
``auc``) with the counts as frequency weights; the tests check them against those
functions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from calreport.metrics.binned import assign_bins, bin_edges
from calreport.profile import ConfidenceProfile

__all__ = ["BOOT_METRICS", "paired_replicates"]

#: Metrics with paired bootstrap differences, in table order.
BOOT_METRICS = ("log_loss", "brier", "ece", "csr", "cwa", "auc")

_LOG_EPS = float(np.finfo(np.float64).eps)
#: Resampling counts held at once (replicates x rows).
_BLOCK_CELLS = 1 << 22


@dataclass
class _Columns:
    """Per-row columns of one profile, every array in the canonical row order."""

    w: np.ndarray
    log_loss: np.ndarray
    brier: np.ndarray
    csr: np.ndarray
    conf: np.ndarray
    conf_correct: np.ndarray
    bin_gap: sparse.csr_matrix
    unweighted: bool
    auc: list[tuple[np.ndarray, ...]]


def _columns(p: ConfidenceProfile, order: np.ndarray, n_bins: int, eps: float) -> _Columns:
    w = np.ones(p.n) if p.sample_weight is None else np.asarray(p.sample_weight)
    y = p.y_true.astype(np.intp)
    ll = -np.log(np.clip(p.true_class_proba(), _LOG_EPS, 1.0 - _LOG_EPS))
    if p.proba_from_score:
        brier = (p.score - (y == 1)) ** 2
    else:
        onehot = np.zeros_like(p.proba)
        onehot[np.arange(p.n), y] = 1.0
        brier = ((p.proba - onehot) ** 2).sum(axis=1)
    conf = np.asarray(p.conf, dtype=np.float64)
    correct = np.asarray(p.correct, dtype=bool)
    clipped = np.clip(conf, eps, 1.0 - eps)
    csr = np.where(correct, 0.0, 1.0 / (1.0 - clipped))
    score, outcome = p.view()
    bins = assign_bins(score, bin_edges(score, n_bins=n_bins))[order]
    bin_gap = sparse.csr_matrix(((outcome - score)[order], (np.arange(p.n), bins)),
                                shape=(p.n, n_bins))
    return _Columns(w[order], ll[order], brier[order], csr[order], conf[order],
                    (conf * correct)[order], bin_gap, p.sample_weight is None,
                    _auc_parts(p, order))


def _auc_parts(p: ConfidenceProfile, order: np.ndarray) -> list[tuple[np.ndarray, ...]]:
    """Per class with positives and negatives: the negative rows in score order, the
    positive rows, and per positive row the number of negatives scored below it
    (``lo``) and at most at its score (``hi``)."""
    y = p.y_true[order]
    if p.proba_from_score:
        cols = [(1, p.score[order])]
    else:
        P = p.proba
        cols = [(k, P[order, k]) for k in range(P.shape[1])]
    parts = []
    for k, s in cols:
        pos = y == k
        if pos.all() or not pos.any():
            continue
        neg_rows = np.flatnonzero(~pos)
        neg_rows = neg_rows[np.argsort(s[neg_rows], kind="stable")]
        pos_rows = np.flatnonzero(pos)
        neg_scores = s[neg_rows]
        lo = np.searchsorted(neg_scores, s[pos_rows], side="left")
        hi = np.searchsorted(neg_scores, s[pos_rows], side="right")
        parts.append((neg_rows, pos_rows, lo, hi))
    return parts


def _block_metrics(c: _Columns, counts: np.ndarray) -> dict[str, np.ndarray]:
    # replicates x rows: frequency weights times the row weights
    V = counts if c.unweighted else counts * c.w
    total = V.sum(axis=1)
    out = {
        "log_loss": V @ c.log_loss / total,
        "brier": V @ c.brier / total,
        "csr": V @ c.csr / total,
        "cwa": (V @ c.conf_correct) / (V @ c.conf),
    }
    gap = (c.bin_gap.T @ V.T).T  # per bin, the weighted sum of outcome - score
    out["ece"] = np.abs(gap).sum(axis=1) / total
    aucs = []
    for neg_rows, pos_rows, lo, hi in c.auc:
        # C[:, m]: weight of the m lowest-scored negatives; a positive row wins over
        # the negatives below it and ties (counted half) with those at its score
        Vn = V[:, neg_rows]
        C = np.zeros((V.shape[0], neg_rows.shape[0] + 1))
        np.cumsum(Vn, axis=1, out=C[:, 1:])
        Vp = V[:, pos_rows]
        below = C[:, lo]
        below += C[:, hi]
        num = 0.5 * np.einsum("ij,ij->i", Vp, below)
        aucs.append(num / (Vp.sum(axis=1) * C[:, -1]))
    out["auc"] = np.mean(aucs, axis=0) if aucs else np.full(V.shape[0], np.nan)
    return out


def paired_replicates(profiles: dict[str, ConfidenceProfile], order: np.ndarray, *,
                      n_boot: int, seed: np.random.SeedSequence, n_bins: int = 15,
                      eps: float = 1e-8) -> dict[str, dict[str, np.ndarray]]:
    """Bootstrap replicates of :data:`BOOT_METRICS` for every method's profile, each
    replicate on the same resampled rows for all methods.

    Parameters
    ----------
    profiles : dict
        Method -> profile of the same rows (same order).
    order : ndarray of int
        Canonical row order; the counts are drawn for the rows in this order, so the
        replicates do not depend on the input order.
    n_boot : int
        Replicates.
    seed : SeedSequence
        Stream of the counts.
    n_bins, eps
        ECE bins and the CSR clipping.

    Returns
    -------
    dict
        Method -> metric -> array of shape ``(n_boot,)``.
    """
    n = order.shape[0]
    cols = {m: _columns(p, order, n_bins, eps) for m, p in profiles.items()}
    out = {m: {k: np.empty(n_boot) for k in BOOT_METRICS} for m in profiles}
    rng = np.random.default_rng(seed)
    block = max(1, min(n_boot, _BLOCK_CELLS // max(n, 1)))
    uniform = np.full(n, 1.0 / n)
    with np.errstate(invalid="ignore", divide="ignore"):
        for start in range(0, n_boot, block):
            stop = min(n_boot, start + block)
            counts = rng.multinomial(n, uniform, size=stop - start).astype(np.float64)
            for m, c in cols.items():
                for k, val in _block_metrics(c, counts).items():
                    out[m][k][start:stop] = val
    return out
