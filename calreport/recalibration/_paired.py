"""Paired bootstrap replicates of the advisor's metrics: the same rows for every method.

Every metric of the table but P_risk is a function of weighted row sums (AUC of
cumulative sums in score order), so a block of replicates is a block of resampling
counts times per-row columns.  The counts are drawn once per block, in the canonical
row order, and applied to every method's profile, so a replicate of a difference is
the difference of two metrics on the same resampled rows.  The per-row columns are
:func:`calreport._finishers.row_columns` and the values the registry's finishers
(the AUC's pairs are counted here, in score order), with the counts as frequency
weights; the tests check them against the metric functions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from calreport._finishers import row_columns
from calreport.metrics.binned import assign_bins, bin_edges
from calreport.profile import ConfidenceProfile
from calreport.registry import REGISTRY, shown_in
from calreport.settings import Settings
from calreport.stats.sums import StateSums, finish_sums

__all__ = ["BOOT_METRICS", "paired_replicates"]

#: Metrics with paired bootstrap differences, in table order: the advisor's metrics
#: that have an interval (all but P_risk).
BOOT_METRICS = tuple(m for m in shown_in("recalibration")
                     if REGISTRY[m].interval.kind != "none")
#: Those finished from weighted row sums by the registry's finishers (the AUC's pairs
#: are counted here, in score order).
_SUM_METRICS = tuple(m for m in BOOT_METRICS if REGISTRY[m].interval.columns)

#: Resampling counts held at once (replicates x rows).
_BLOCK_CELLS = 1 << 22


@dataclass
class _Columns:
    """Per-row columns of one profile, every array in the canonical row order."""

    w: np.ndarray
    #: :func:`calreport._finishers.row_columns` of the table's metrics
    cols: dict[str, np.ndarray]
    #: rows x bins: each row's outcome - score in its uniform bin
    bin_gap: sparse.csr_matrix
    bin_one: sparse.csr_matrix
    unweighted: bool
    auc: list[tuple[np.ndarray, ...]]


#: The per-row columns the finishers of :data:`_SUM_METRICS` read: the weight and
#: the registry's columns (``bin_diff`` is summed per bin by the sparse matrices).
_COLUMNS = ("one", *dict.fromkeys(c for m in _SUM_METRICS
                                  for c in REGISTRY[m].interval.columns if c != "bin_diff"))


def _columns(p: ConfidenceProfile, order: np.ndarray, n_bins: int, eps: float) -> _Columns:
    w = np.ones(p.n) if p.sample_weight is None else np.asarray(p.sample_weight)
    cols = row_columns(p, Settings(eps=eps, n_bins=n_bins), set(_COLUMNS))
    score, outcome = p.view()
    bins = assign_bins(score, bin_edges(score, n_bins=n_bins))[order]
    at = (np.arange(p.n), bins)
    bin_gap = sparse.csr_matrix(((outcome - score)[order], at), shape=(p.n, n_bins))
    bin_one = sparse.csr_matrix((np.ones(p.n), at), shape=(p.n, n_bins))
    return _Columns(w[order], {k: cols[k][order] for k in _COLUMNS}, bin_gap, bin_one,
                    p.sample_weight is None, _auc_parts(p, order))


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
    per_bin = (c.bin_one.T @ V.T).T
    # the bins' occupancy is read by the MCE only, which is not in the table
    k = StateSums({name: V @ col for name, col in c.cols.items()},
                  {"one": per_bin, "bin_diff": (c.bin_gap.T @ V.T).T}, per_bin)
    out = finish_sums(k, Settings(), _SUM_METRICS)
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
