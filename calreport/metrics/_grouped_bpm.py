"""TCE_bpm of many groups: the row-count check for all groups at once.

A group below the fit's minimum of rows (``3 * min_bin = 60``) gets NaN and the
single-group message (one per distinct group size, not one per group); each larger
group is fitted by :func:`calreport.metrics.bpm.tce_bpm` on its own rows, whose
likelihood fit and quadrature dwarf the loop.
"""

from __future__ import annotations

import numpy as np

from calreport.metrics import bpm
from calreport.metrics._order import sort_within

__all__ = ["grouped_tce_bpm"]


def grouped_tce_bpm(score: np.ndarray, outcome: np.ndarray, codes: np.ndarray,
                    n_groups: int) -> tuple[np.ndarray, dict[int, str]]:
    """TCE_bpm (defaults of :func:`calreport.metrics.bpm.tce_bpm`) of every group.

    Parameters
    ----------
    score, outcome : ndarray of float, shape (N,)
        Validated scores in [0, 1] and 0/1 outcomes (unweighted).
    codes : ndarray of int, shape (N,)
        Group of each row, in ``[0, n_groups)``.
    n_groups : int

    Returns
    -------
    values : ndarray of float, shape (n_groups,)
        NaN for a group without rows or one the single-group function rejects.
    reasons : dict of int to str
        The single-group error message of each rejected group.

    Notes
    -----
    ``TCE = ∫ |g(x) − x| f(x) dx`` with ``g`` the binomial-process curve
    ``logit g = c + a ln s − b ln(1 − s)`` fitted by maximum likelihood on equal-mass
    bins and ``f`` the method-of-moments Beta density of the scores.

    References
    ----------
    Dong, J., Jiang, Z., Pan, D. & Yu, Z. (2025). Combining Priors with Experience:
    Confidence Calibration Based on Binomial Process Modeling. Proceedings of the AAAI
    Conference on Artificial Intelligence 39. arXiv:2412.10658. Section 3.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> s = rng.beta(4, 1, 130)
    >>> y = (rng.random(130) < s).astype(float)
    >>> values, why = grouped_tce_bpm(s, y, np.r_[np.zeros(100), np.ones(30)].astype(int), 2)
    >>> bool(values[0] == bpm.tce_bpm(s[:100], y[:100])), sorted(why)
    (True, [1])
    """
    codes = np.asarray(codes, dtype=np.int64)
    n_g = np.bincount(codes, minlength=n_groups)
    values = np.full(n_groups, np.nan)
    reasons: dict[int, str] = {}
    too_few: dict[int, str | None] = {}
    for n in np.unique(n_g[n_g > 0]).tolist():
        try:
            bpm.bpm_bin_counts(n)
            too_few[n] = None
        except ValueError as exc:
            too_few[n] = str(exc)
    fit = np.array([n > 0 and too_few[n] is None for n in n_g.tolist()])
    for g in np.flatnonzero((n_g > 0) & ~fit).tolist():
        reasons[g] = str(too_few[int(n_g[g])])
    if fit.any():
        order = sort_within(codes, n_groups)
        ends = np.cumsum(n_g)
        for g in np.flatnonzero(fit).tolist():
            rows = order[ends[g] - n_g[g]:ends[g]]
            try:
                values[g] = float(bpm.tce_bpm(score[rows], outcome[rows]))
            except ValueError as exc:
                reasons[g] = str(exc)
    return values, reasons
