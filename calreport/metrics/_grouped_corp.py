"""CORP decomposition of the Brier score for many groups at once.

Each group's ``MCB``, ``DSC`` and ``UNC`` are those of
:func:`calreport.metrics.corp.corp_decomposition` (``rule="brier"``) on its rows
alone.  The rows are sorted once by (group, score); the isotonic (PAV)
recalibration of every group runs at once by pooling adjacent violators in
vectorised rounds that never pool across a group boundary (pooling adjacent
violators in any order reaches the same unique solution).
"""

from __future__ import annotations

import numpy as np

from calreport.metrics import corp
from calreport.metrics._order import sort_within

__all__ = ["grouped_corp", "grouped_pav"]

#: Groups with more tie blocks than this are fitted one by one by the compiled PAVA.
_ROUNDS_MAX = 2000


def grouped_pav(values: np.ndarray, weights: np.ndarray, block_group: np.ndarray
                ) -> np.ndarray:
    """Weighted non-decreasing isotonic regression of ``values`` within each group.

    Parameters
    ----------
    values, weights : ndarray of float, shape (M,)
        Values in the order of the fit, positive weights.
    block_group : ndarray of int, shape (M,)
        Group of each value, non-decreasing (each group's values contiguous).

    Returns
    -------
    ndarray of float, shape (M,)
        The fitted values (each group fitted on its own values).

    Examples
    --------
    >>> grouped_pav(np.array([3.0, 1.0, 2.0, 0.0]), np.ones(4), np.array([0, 0, 1, 1]))
    array([2., 2., 1., 1.])
    """
    sizes = np.bincount(block_group) if block_group.size else np.zeros(0, np.int64)
    if sizes.size and sizes.max() > _ROUNDS_MAX:
        # large groups: the compiled single-group PAVA (rounds would be many and long)
        out = np.empty(values.size)
        ends = np.cumsum(sizes)
        big = sizes > _ROUNDS_MAX
        for g in np.flatnonzero(big).tolist():
            sl = slice(ends[g] - sizes[g], ends[g])
            out[sl] = corp._pav_pooled(values[sl], weights[sl])
        small = ~big[block_group]
        if small.any():
            out[small] = grouped_pav(values[small], weights[small], block_group[small])
        return out
    sum_wy = values * weights
    sum_w = weights.astype(np.float64, copy=True)
    start = np.arange(values.size)
    group = block_group
    while True:
        means = sum_wy / sum_w
        violated = (means[:-1] > means[1:]) & (group[:-1] == group[1:])
        if not violated.any():
            break
        heads = np.flatnonzero(np.r_[True, ~violated])
        sum_wy = np.add.reduceat(sum_wy, heads)
        sum_w = np.add.reduceat(sum_w, heads)
        start, group = start[heads], group[heads]
    lengths = np.diff(np.r_[start, values.size])
    return np.repeat(sum_wy / sum_w, lengths)


def grouped_corp(score: np.ndarray, outcome: np.ndarray, sample_weight: np.ndarray | None,
                 codes: np.ndarray, n_groups: int, order: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CORP ``MCB``, ``DSC`` and ``UNC`` (Brier score) of every group.

    Parameters
    ----------
    score, outcome : ndarray of float, shape (N,)
        Validated scores in [0, 1] and 0/1 outcomes.
    sample_weight : ndarray of float, shape (N,), or None
    codes : ndarray of int, shape (N,)
        Group of each row, in ``[0, n_groups)``.
    n_groups : int
    order : ndarray of int, optional
        Unweighted: the rows in (group, score, outcome) order, when already known.

    Returns
    -------
    mcb, dsc, unc : ndarray of float, shape (n_groups,)
        NaN for a group without rows of positive weight.

    Notes
    -----
    ``MCB = S̄(p) − S̄(p̂)``, ``DSC = S̄(r) − S̄(p̂)``, ``UNC = S̄(r) = r(1 − r)`` with
    ``p̂`` the PAV recalibration of the scores (constant on tied scores), ``r`` the
    (weighted) event rate and ``S̄`` the mean Brier score.

    References
    ----------
    Dimitriadis, T., Gneiting, T. & Jordan, A. I. (2021). Stable Reliability Diagrams
    for Probabilistic Classifiers. Proceedings of the National Academy of Sciences
    118(8), e2016191118. doi:10.1073/pnas.2016191118. Eq. 3 and section 3.

    Examples
    --------
    >>> s = np.array([0.1, 0.3, 0.3, 0.6, 0.8, 0.5])
    >>> y = np.array([0.0, 1.0, 0.0, 0.0, 1.0, 1.0])
    >>> mcb, dsc, unc = grouped_corp(s, y, None, np.array([0, 0, 0, 0, 0, 1]), 2)
    >>> round(float(mcb[0]), 6), round(float(dsc[0]), 6), round(float(unc[0]), 6)
    (0.064667, 0.106667, 0.24)
    """
    codes = np.asarray(codes, dtype=np.int64)
    y = np.asarray(outcome, dtype=np.float64)
    s = np.asarray(score, dtype=np.float64)
    if sample_weight is not None:
        # stable: tied scores in their given order
        order = sort_within(codes, n_groups, s)
    elif order is None:
        order = sort_within(codes, n_groups, y, s)
    g, s, y = codes[order], s[order], y[order]
    w = None if sample_weight is None else np.asarray(sample_weight, np.float64)[order]
    n = s.size
    first = np.flatnonzero(np.r_[True, (s[1:] != s[:-1]) | (g[1:] != g[:-1])]) if n else \
        np.zeros(0, dtype=np.int64)
    bg = g[first]
    if w is None:
        weight = np.diff(np.append(first, n)).astype(np.float64)
        events = np.add.reduceat(y, first) if n else np.zeros(0)
    else:
        weight = np.add.reduceat(w, first) if n else np.zeros(0)
        events = np.add.reduceat(w * y, first) if n else np.zeros(0)
    fitted = weight > 0
    weight, events, bg = weight[fitted], events[fitted], bg[fitted]
    total = np.bincount(bg, weights=weight, minlength=n_groups)
    recal = grouped_pav(events / weight, weight, bg)
    n_events = np.bincount(bg, weights=events, minlength=n_groups)
    s_recal = np.bincount(bg, weights=events * (1.0 - recal) ** 2
                          + (weight - events) * recal ** 2, minlength=n_groups)
    loss = (s - y) ** 2
    if w is None:
        forecast = np.bincount(g, weights=loss, minlength=n_groups)
        rows = np.bincount(g, minlength=n_groups)
    else:
        forecast = np.bincount(g, weights=w * loss, minlength=n_groups)
        rows = np.bincount(g, weights=w, minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        s_recal = s_recal / total
        s_forecast = forecast / rows
        rate = n_events / total
    unc = rate * (1.0 - rate)
    bad = ~(total > 0)
    mcb, dsc = s_forecast - s_recal, unc - s_recal
    for arr in (mcb, dsc, unc):
        arr[bad] = np.nan
    return mcb, dsc, unc
