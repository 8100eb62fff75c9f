"""Exact AUC and cwAUC out of core: a merge of the distinct scores of every partition.

Per partition, group and class, the distinct scores are listed (sorted) with exact
sums of the weights of positive and negative rows and of their confidence weights
(:func:`calreport.stats._exact.exact_bincount`); two tables merge by the union of
their scores, so the tables of all partitions merge into the sorted distinct scores
of the whole data -- the distributed sort the AUC needs, reduced to one entry per
distinct score.  The AUC then counts every pair exactly, ties as 1/2 (as
scikit-learn's ``roc_auc_score``): no binning error.  Memory grows with the number of
distinct scores (16 bytes per score and class plus four sums).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calreport.profile import ConfidenceProfile
from calreport.stats._exact import FixedSum, exact_bincount

__all__ = ["apply_exact_auc", "auc_from_tables", "merge_tables", "score_tables"]

Table = dict[Any, tuple[np.ndarray, FixedSum]]


def score_tables(p: ConfidenceProfile, codes: np.ndarray, keys: list[Any]) -> Table:
    """``{(group key, class row): (distinct scores, sums (U, 4))}`` of one profile.

    The four sums are ``w`` of positives, ``w`` of negatives, ``w c`` of positives and
    ``w c`` of negatives (``c`` the top-label confidence).
    """
    if not p.has_proba or p.y_true is None:
        return {}
    if p.score is not None:
        scores, pos = p.score[:, None], (p.y_true == 1)[:, None]
    else:
        scores = p.proba
        pos = p.y_true[:, None] == np.arange(p.proba.shape[1])[None, :]
    w = np.ones(p.n) if p.sample_weight is None else p.sample_weight
    out: Table = {}
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(keys) + 1))
    for gi, key in enumerate(keys):
        rows = order[bounds[gi]:bounds[gi + 1]]
        if not rows.size:
            continue
        for r in range(scores.shape[1]):
            uniq, inv = np.unique(scores[rows, r], return_inverse=True)
            cell = inv * 4 + np.where(pos[rows, r], 0, 1)
            out[(key, r)] = (uniq, _four(cell, w[rows], p.conf[rows], uniq.size))
    return out


def _four(cell: np.ndarray, w: np.ndarray, c: np.ndarray, u: int) -> FixedSum:
    a = exact_bincount(cell, w, 4 * u)
    b = exact_bincount(cell + 2, w * c, 4 * u)
    return (_pad(a, b) + _pad(b, a)).reshape((u, 4))


def _pad(a: FixedSum, b: FixedSum) -> FixedSum:
    n = max(a.limbs.shape[-1], b.limbs.shape[-1])
    extra = n - a.limbs.shape[-1]
    if not extra:
        return a
    return FixedSum(np.concatenate([a.limbs, np.zeros((*a.shape, extra), np.int64)], axis=-1),
                    a.frac_bits, normalised=True)


def merge_tables(a: Table | None, b: Table | None) -> Table | None:
    """Union of two tables (scores merged, sums added)."""
    if a is None:
        return b
    if b is None:
        return a
    out = dict(a)
    for key, (sb, tb) in b.items():
        if key not in out:
            out[key] = (sb, tb)
            continue
        sa, ta = out[key]
        uniq = np.union1d(sa, sb)
        ia, ib = np.searchsorted(uniq, sa), np.searchsorted(uniq, sb)
        out[key] = (uniq, ta.take(ia, (uniq.size, 4)) + tb.take(ib, (uniq.size, 4)))
    return out


def auc_from_tables(table: Table, keys: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Macro AUC and cwAUC per group over the classes with positives and negatives.

    ``AUC = sum_j P_j (sum_{i<j} N_i + N_j / 2) / (P N)`` over the distinct scores.

    Examples
    --------
    >>> p = ConfidenceProfile.from_arrays([0, 1, 1, 0], [0.2, 0.9, 0.4, 0.4])
    >>> t = score_tables(p, np.zeros(4, dtype=int), [()])
    >>> float(auc_from_tables(t, [()])[0][0])  # pairs: 1 + 1 + 1/2 + 1 (of 4)
    0.875
    """
    auc, cw = np.full(len(keys), np.nan), np.full(len(keys), np.nan)
    for gi, key in enumerate(keys):
        per = [[], []]
        for (k, _), (_, sums) in table.items():
            if k != key:
                continue
            s = sums.to_float()
            for j, (pcol, ncol) in enumerate(((0, 1), (2, 3))):
                pos, neg = s[:, pcol], s[:, ncol]
                den = pos.sum() * neg.sum()
                if den > 0:
                    below = np.cumsum(neg) - neg
                    per[j].append(float((pos * (below + 0.5 * neg)).sum() / den))
        if per[0]:
            auc[gi] = float(np.mean(per[0]))
        if per[1]:
            cw[gi] = float(np.mean(per[1]))
    return auc, cw


def apply_exact_auc(table: Any, scores: Table) -> None:
    """Replace the binned AUC, cwAUC and their difference of a MetricTable by exact ones."""
    auc, cw = auc_from_tables(scores, table.keys)
    table.values["auc"], table.values["cwauc"] = auc, cw
    table.values["delta_auc"] = cw - auc
    for m in ("auc", "cwauc", "delta_auc"):
        table.bounds[m] = np.zeros(len(table.keys))
        table.kinds[m] = "exact"
