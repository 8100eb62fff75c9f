"""Exact AUC and cwAUC out of core: sorted distinct scores, cut into score buckets.

Per partition, group and class, the distinct scores are listed (sorted) with exact
sums of the weights of positive and negative rows and of their confidence weights
(:func:`calreport.stats._exact.exact_bincount`); two tables merge by the union of
their scores.  The AUC counts every pair exactly, ties as 1/2 (as scikit-learn's
``roc_auc_score``): no binning error.

A table grows with the number of distinct scores (16 bytes per score and class plus
four sums), so out of core it is never gathered in one place.  Each group's and
class's score axis is cut into contiguous *buckets* (:func:`bucket_edges`: ranges of
the first pass's score bins holding equal shares of its rows); each partition's table
is split by bucket (:func:`split_tables`) and every bucket's pieces merge where that
bucket lives, into its within-bucket pair sums and its exact totals
(:func:`bucket_pairs`).  A pair of scores in different buckets is ordered by the
buckets, so the totals count it: :func:`auc_from_buckets` adds the within-bucket sums
and the pairs across buckets, both by the one pair sum :func:`ordered_pairs`.
Only ``groups x classes x buckets`` small results come back.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calreport.profile import ConfidenceProfile
from calreport.stats._exact import FixedSum, exact_bincount

__all__ = ["ROWS_PER_BUCKET", "apply_bucketed_auc", "apply_exact_auc", "auc_from_buckets",
           "auc_from_tables", "bucket_count", "bucket_edges", "bucket_pairs",
           "merge_tables", "ordered_pairs", "score_bin_mass", "score_tables", "split_tables"]

Table = dict[Any, tuple[np.ndarray, FixedSum]]
#: ``{(group key, class row): (pair sums (2,) for w and w c, exact totals (4,))}``
Pairs = dict[Any, tuple[np.ndarray, FixedSum]]
#: Rows (times classes) per bucket the bucket count aims at: a bucket's table is at
#: most 72 bytes per row, about 75 MB.
ROWS_PER_BUCKET = 1 << 20


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


def ordered_pairs(pos: np.ndarray, neg: np.ndarray, tie: float) -> float:
    """``sum_j pos_j (sum_{i<j} neg_i + tie neg_j)`` over scores sorted ascending.

    With ``tie = 1/2`` over distinct scores, the AUC's numerator (pairs of a positive
    above a negative, ties as 1/2); with ``tie = 0`` over buckets of scores, the pairs
    across buckets.

    Examples
    --------
    >>> ordered_pairs(np.array([0.0, 1.0, 1.0]), np.array([1.0, 1.0, 0.0]), 0.5)  # 1.5 + 2
    3.5
    """
    below = np.cumsum(neg) - neg
    return float((pos * (below + tie * neg)).sum())


def bucket_pairs(table: Table | None) -> Pairs:
    """Within-table pair sums (w, w c) and exact totals (4,) per group and class."""
    out: Pairs = {}
    for kr, (_, sums) in (table or {}).items():
        s = sums.to_float()
        pairs = np.array([ordered_pairs(s[:, 0], s[:, 1], 0.5),
                          ordered_pairs(s[:, 2], s[:, 3], 0.5)])
        out[kr] = (pairs, _totals(sums))
    return out


def _totals(sums: FixedSum) -> FixedSum:
    """Exact sums over the first axis of an (n, 4) array of sums."""
    return FixedSum(sums.limbs.transpose(1, 0, 2), sums.frac_bits,
                    normalised=True).group_totals()


def _stack(sums: list[FixedSum]) -> FixedSum:
    """Same-grid arrays of sums stacked on a new first axis."""
    n = max(s.limbs.shape[-1] for s in sums)
    limbs = [np.concatenate([s.limbs, np.zeros((*s.shape, n - s.limbs.shape[-1]), np.int64)],
                            axis=-1) for s in sums]
    return FixedSum(np.stack(limbs), sums[0].frac_bits, normalised=True)


def auc_from_buckets(buckets: list[Pairs], keys: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Macro AUC and cwAUC per group from the pair sums of ascending score buckets.

    ``AUC = (sum_b W_b + sum_b P_b sum_{a<b} N_a) / (P N)``: ``W_b`` the pairs within
    bucket ``b`` (:func:`bucket_pairs`), ``P_b``, ``N_b`` its positive and negative
    totals (:func:`ordered_pairs` with ``tie = 0``); ``P``, ``N`` the exact totals.
    One bucket gives :func:`auc_from_tables`.  Classes without positives or negatives
    are left out of the macro mean.
    """
    cells: dict[Any, dict[int, list[tuple[np.ndarray, FixedSum]]]] = {}
    for bucket in buckets:
        for (key, r), got in bucket.items():
            cells.setdefault(key, {}).setdefault(r, []).append(got)
    auc, cw = np.full(len(keys), np.nan), np.full(len(keys), np.nan)
    for gi, key in enumerate(keys):
        per: list[list[float]] = [[], []]
        for r in sorted(cells.get(key, {})):
            got = cells[key][r]
            totals = _stack([t for _, t in got])  # (buckets, 4)
            each, whole = totals.to_float(), _totals(totals).to_float()
            for j, (pcol, ncol) in enumerate(((0, 1), (2, 3))):
                den = whole[pcol] * whole[ncol]
                if den > 0:
                    within = sum(float(p[j]) for p, _ in got)
                    across = ordered_pairs(each[:, pcol], each[:, ncol], 0.0)
                    per[j].append((within + across) / den)
        if per[0]:
            auc[gi] = float(np.mean(per[0]))
        if per[1]:
            cw[gi] = float(np.mean(per[1]))
    return auc, cw


def auc_from_tables(table: Table, keys: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Macro AUC and cwAUC per group over the classes with positives and negatives.

    ``AUC = sum_j P_j (sum_{i<j} N_i + N_j / 2) / (P N)`` over the distinct scores
    (one bucket of :func:`auc_from_buckets`).

    Examples
    --------
    >>> p = ConfidenceProfile.from_arrays([0, 1, 1, 0], [0.2, 0.9, 0.4, 0.4])
    >>> t = score_tables(p, np.zeros(4, dtype=int), [()])
    >>> float(auc_from_tables(t, [()])[0][0])  # pairs: 1 + 1 + 1/2 + 1 (of 4)
    0.875
    """
    return auc_from_buckets([bucket_pairs(table)], keys)


def score_bin_mass(state: Any) -> dict[Any, np.ndarray]:
    """``{(group key, class row): mass (score_bins,)}`` of a first-pass state.

    The weight (the count, unweighted) of each group's rows per score bin of class
    row ``r`` (positives and negatives together): the only place that reads the
    state's score-bin sums.
    """
    if "auc_w" not in state.sums:
        return {}
    sums = state.sums["auc_w"]  # sparse (G, R, B, 2): the bins each group occupies
    out = {}
    for gi, key in enumerate(state.keys):
        mass = sums.dense_float(slice(gi, gi + 1))[0].sum(axis=-1)  # one group: (R, B)
        for r in range(mass.shape[0]):
            out[(key, r)] = mass[r]
    return out


def bucket_count(state: Any, rows_per_bucket: int = ROWS_PER_BUCKET) -> int:
    """Buckets per group and class: ``ceil(rows x classes / rows_per_bucket)``.

    At least 1, at most ``score_bins`` (a bucket is a range of whole score bins).
    """
    if rows_per_bucket < 1:
        raise ValueError(f"`rows_per_bucket` must be a positive integer, got {rows_per_bucket}.")
    rows = int(np.sum(state.counts["n"])) * max(int(state.schema.auc_rows), 1)
    return int(min(max(1, -(-rows // int(rows_per_bucket))), int(state.config.score_bins)))


def bucket_edges(state: Any, n_buckets: int) -> dict[Any, np.ndarray]:
    """``{(group key, class row): lower score edges (n_buckets - 1,)}`` of the buckets.

    Bucket ``k > 0`` starts at the first score bin before which a share ``k / n`` of
    the cell's first-pass mass lies, so buckets hold about equal shares; a bin is
    never cut, so a bin of many tied scores lies in one bucket (its table holds one
    entry per distinct score).  Any edges give the exact AUC: the balance only sets
    the memory of a bucket.
    """
    out = {}
    for kr, mass in score_bin_mass(state).items():
        before = np.cumsum(mass) - mass
        targets = before[-1] + mass[-1]
        first = np.searchsorted(before, targets * np.arange(1, n_buckets) / n_buckets)
        out[kr] = first / mass.size
    return out


def split_tables(table: Table | None, edges: dict[Any, np.ndarray],
                 n_buckets: int) -> tuple[Table, ...]:
    """One table per bucket: the scores ``s`` with ``edges[k-1] <= s < edges[k]``."""
    out: tuple[Table, ...] = tuple({} for _ in range(n_buckets))
    for kr, (scores, sums) in (table or {}).items():
        cut = edges.get(kr)
        which = (np.zeros(scores.size, np.intp) if cut is None
                 else np.searchsorted(cut, scores, side="right"))
        bounds = np.searchsorted(which, np.arange(n_buckets + 1))  # scores are sorted
        for k in range(n_buckets):
            lo, hi = int(bounds[k]), int(bounds[k + 1])
            if hi > lo:
                out[k][kr] = (scores[lo:hi], sums[lo:hi])
    return out


def apply_exact_auc(table: Any, scores: Table) -> None:
    """Replace the binned AUC, cwAUC and their difference of a MetricTable by exact ones."""
    apply_bucketed_auc(table, [bucket_pairs(scores)])


def apply_bucketed_auc(table: Any, buckets: list[Pairs]) -> None:
    """As :func:`apply_exact_auc`, from the pair sums of ascending score buckets."""
    auc, cw = auc_from_buckets(buckets, table.keys)
    table.values["auc"], table.values["cwauc"] = auc, cw
    table.values["delta_auc"] = cw - auc
    for m in ("auc", "cwauc", "delta_auc"):
        table.bounds[m] = np.zeros(len(table.keys))
        table.kinds[m] = "exact"
