"""Class-wise ECE and debiased ECE of many groups at once, over group codes.

Each group's value is that of :func:`calreport.metrics.classwise.classwise_ece` /
the unweighted equal-mass :func:`calreport.metrics.debiased.debiased_ece` on its
rows alone: the cells and bins are the same, only their sums come from one
``bincount`` / ``np.add.reduceat`` over (group, cell) instead of one call per group.
"""

from __future__ import annotations

import numpy as np

from calreport.metrics import debiased, local
from calreport.metrics._order import sort_within

__all__ = ["group_sort", "grouped_classwise_ece", "grouped_debiased_ece",
           "rows_at_or_below"]


def group_sort(codes: np.ndarray, score: np.ndarray, outcome: np.ndarray
               ) -> np.ndarray:
    """Row order by (group, score, outcome): every group's rows sorted by score as
    ``calreport.metrics.local._sorted_sample`` sorts them."""
    return sort_within(codes, int(codes.max(initial=-1)) + 1, outcome, score)


def rows_at_or_below(g_sorted: np.ndarray, s_sorted: np.ndarray, q_group: np.ndarray,
                     q_value: np.ndarray) -> np.ndarray:
    """For each query (group, value): the number of rows before the first row of that
    group with a score above the value, counted from the start of the array
    (``searchsorted(group's scores, value, side="right")`` plus the group's start).
    A bisection inside each group's rows (all queries at once)."""
    lo = np.searchsorted(g_sorted, q_group, side="left")
    hi = np.searchsorted(g_sorted, q_group, side="right")
    last = np.maximum(hi - 1, 0)

    def above(i: np.ndarray) -> np.ndarray:
        return (i >= hi) | (s_sorted[np.minimum(i, last)] > q_value)

    return local._first_true(above, lo, hi)


def grouped_debiased_ece(score: np.ndarray, outcome: np.ndarray, codes: np.ndarray,
                         n_groups: int, n_bins: int, order: np.ndarray | None = None
                         ) -> np.ndarray:
    """Debiased L2 ECE (equal-mass bins, unweighted) of every group.

    Notes
    -----
    Per group, as ``debiased._squared_sorted``: ``m = min(n_bins, n)`` parts of the
    sorted scores as ``np.array_split``, upper edges at the midpoints between parts
    (duplicates merged, last edge 1), bins ``(edge_{b-1}, edge_b]``; bins of at
    least two rows add ``|B|·[(ȳ − s̄)² − ȳ(1 − ȳ)/(|B| − 1)]``; the value is
    ``√max(0, Σ / n)``.

    References
    ----------
    Kumar, A., Liang, P. & Ma, T. (2019). Verified Uncertainty Calibration. NeurIPS
    32. arXiv:1909.10155. Section 5, Definition 5.2.

    Examples
    --------
    >>> s = np.array([0.1, 0.3, 0.35, 0.8, 0.9, 0.2, 0.6, 0.7])
    >>> y = np.array([0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0])
    >>> got = grouped_debiased_ece(s, y, np.array([0] * 5 + [1] * 3), 2, 2)
    >>> bool(abs(got[0] - debiased.debiased_ece(s[:5], y[:5], n_bins=2)) < 1e-15)
    True
    """
    if order is None:
        order = group_sort(codes, score, outcome)
    g, s, y = codes[order], score[order].astype(np.float64), outcome[order].astype(np.float64)
    n_g = np.bincount(g, minlength=n_groups)
    start = np.r_[0, np.cumsum(n_g)[:-1]]
    parts = np.minimum(n_bins, n_g)
    size, extra = np.divmod(n_g, np.maximum(parts, 1))
    # interior ends j = 1 .. parts-1 of each group's parts (np.array_split sizes)
    n_ends = np.maximum(parts - 1, 0)
    eg = np.repeat(np.arange(n_groups), n_ends)
    j = np.arange(eg.size) - np.repeat(np.cumsum(n_ends) - n_ends, n_ends) + 1
    end = start[eg] + j * size[eg] + np.minimum(j, extra[eg])
    mids = (s[end - 1] + s[end]) / 2.0
    # the edges of each group: its midpoints then 1.0, consecutive duplicates merged
    ug = np.concatenate([eg, np.arange(n_groups)])
    uv = np.concatenate([mids, np.ones(n_groups)])
    o = np.lexsort((uv, ug))
    ug, uv = ug[o], uv[o]
    keep = np.r_[True, (ug[1:] != ug[:-1]) | (uv[1:] != uv[:-1])]
    ug, uv = ug[keep], uv[keep]
    ends = rows_at_or_below(g, s, ug, uv)
    last = np.r_[ug[1:] != ug[:-1], True]
    ends[last] = (start + n_g)[ug[last]]  # the last bin takes every remaining row
    begins = np.r_[start[ug[0]] if ug.size else 0, ends[:-1]]
    first = np.r_[True, ug[1:] != ug[:-1]]
    begins[first] = start[ug[first]]
    count = (ends - begins).astype(np.float64)
    nonempty = count > 0
    idx = begins[nonempty]
    score_sum = np.zeros(ug.size)
    outcome_sum = np.zeros(ug.size)
    if idx.size:
        score_sum[nonempty] = np.add.reduceat(s, idx)
        outcome_sum[nonempty] = np.add.reduceat(y, idx)
    # reduceat runs to the next index: empty bins are skipped, so the runs are the bins
    ok, err = debiased.bin_errors(count, count, count, score_sum, outcome_sum)
    part = np.zeros(ug.size)
    part[ok] = count[ok] * err
    total = np.bincount(ug, weights=part, minlength=n_groups)
    with np.errstate(divide="ignore", invalid="ignore"):
        sq = total / n_g
    return np.where(n_g > 0, np.sqrt(np.maximum(sq, 0.0)), np.nan)


def grouped_classwise_ece(y: np.ndarray, proba: np.ndarray, sample_weight: np.ndarray | None,
                          codes: np.ndarray, n_groups: int, n_bins: int) -> np.ndarray:
    """Class-wise ECE of every group (uniform right-closed bins per class column).

    Notes
    -----
    ``cwECE = (1/K) Σ_k Σ_m |Σ_{i∈B_km} w_i (1[y_i = k] − p_ik)| / Σ_i w_i`` per
    group, the cells of :func:`calreport.metrics.classwise.classwise_ece`.

    References
    ----------
    Nixon, J., Dusenberry, M. W., Zhang, L., Jerfel, G. & Tran, D. (2019). Measuring
    Calibration in Deep Learning. CVPR Workshops. arXiv:1904.01685. Section 4.

    Examples
    --------
    >>> from calreport.metrics import classwise
    >>> p = np.array([[0.8, 0.2], [0.4, 0.6], [0.3, 0.7]])
    >>> got = grouped_classwise_ece(np.array([0, 1, 1]), p, None, np.array([0, 0, 1]), 2, 2)
    >>> bool(got[0] == classwise.classwise_ece([0, 1], p[:2], n_bins=2))
    True
    """
    p = np.asarray(proba, dtype=np.float64)
    if p.ndim == 1:
        p = np.column_stack([1.0 - p, p])
    n, k = p.shape
    cells = k * n_bins
    inner = np.arange(1, n_bins, dtype=np.float64) / n_bins
    bins = np.searchsorted(inner, p, side="left")
    key = codes[:, None] * cells + np.arange(k, dtype=np.int64) * n_bins + bins
    vals = p if sample_weight is None else p * sample_weight[:, None]
    score = np.bincount(key.ravel(), weights=vals.ravel(), minlength=n_groups * cells)
    yk = np.asarray(y, dtype=np.int64)
    true_key = codes * cells + yk * n_bins + bins[np.arange(n), yk]
    outcome = np.bincount(true_key, weights=sample_weight, minlength=n_groups * cells)
    total = (np.bincount(codes, minlength=n_groups).astype(np.float64)
             if sample_weight is None
             else np.bincount(codes, weights=sample_weight, minlength=n_groups))
    gap = np.abs(outcome - score).reshape(n_groups, k, n_bins).sum(axis=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.mean(gap / total[:, None], axis=1)
