"""Linearized bootstrap replicates of the ranking metrics of large samples.

The AUC, cwAUC and AURC of a replicate need running sums along a sort order of
every row, per replicate: about a dozen passes over each ``(replicates, rows)``
tile, the largest share of a bootstrap of many rows.  Each of them is a smooth,
scale-free function ``T(w)`` of the row weights, so a replicate with weights
``c_i w_i`` (``c_i`` its resampling counts) is, to first order,

    ``T(c w) ≈ T(w) + Σ_i c_i w_i ∂T/∂w_i``

(``Σ_i w_i ∂T/∂w_i = 0`` for a function of degree 0: Euler's theorem).  The
derivatives are one more per-row column of the sums every replicate already forms
(one matrix product), so these metrics cost almost nothing more than accuracy.
The neglected term is of relative order ``1/√m`` (``m``: the rows of the smaller
side of the comparison); the replicates are used where every class has at least
:data:`LINEAR_SIDE` rows on each side and the sample :data:`LINEAR_ROWS` rows (and,
so that the memory stays bounded by a tile above that, where the per-row columns are
held as one matrix: see :mod:`calreport.bootstrap.kernels`), and the coverage of the
intervals read from them is measured at those sizes
(``benchmarks/linearized_bootstrap.py``; ``"linearized"`` in the coverage table).
For the AUC this is the bootstrap image of DeLong et al.'s (1988) placement
values; in general the infinitesimal jackknife (Efron 1982, chapter 6).

Kept because it buys more than 2x where users meet it (``benchmarks/bench_summary_ci.py``,
same run, alternated, medians of 3, with the columns of 1e6 rows held):
``summary(ci=0.95, n_boot=1000)`` of 1e6 binary rows 14.5 -> 5.7 s (2.6x), the
replicates of every batched metric on 1e6 rows 11.8 -> 3.6 s (3.2x); a report of 20
groups x 5e4 rows, which also draws figures and a PDF, 37.7 -> 20.2 s (1.9x).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calreport.bootstrap._tiles import _tie_starts

__all__ = ["LINEAR_ROWS", "LINEAR_SIDE", "auc_influence", "aurc_influence",
           "linear_columns", "smaller_side"]

#: Fewest rows of a sample whose AUC, cwAUC and AURC replicates are linearized.
LINEAR_ROWS = 20_000
#: ... and fewest rows on each side: the positives and negatives of every AUC class,
#: the correct and wrong predictions of the AURC.
LINEAR_SIDE = 1_000


def smaller_side(flag: np.ndarray, w: np.ndarray | None) -> int:
    """Rows with positive weight on the smaller side of a boolean split."""
    keep = flag if w is None else flag & (w > 0)
    rest = ~flag if w is None else ~flag & (w > 0)
    return int(min(np.count_nonzero(keep), np.count_nonzero(rest)))


def _positions(order: np.ndarray) -> np.ndarray:
    """Sort positions in 4 bytes below 2**31 rows."""
    return order.astype(np.int32) if order.size < 2**31 else order


def _ties(sorted_values: np.ndarray) -> np.ndarray | None:
    """Tie group of every position of a sorted array (0, 1, ...); None when no two
    values are tied (:func:`~calreport.bootstrap._tiles._tie_starts`)."""
    starts = _tie_starts(sorted_values)
    if starts is None:
        return None
    group = np.zeros(sorted_values.size, dtype=np.int32 if sorted_values.size < 2**31
                     else np.intp)
    group[starts[1:]] = 1
    np.cumsum(group, out=group)
    return group


def auc_influence(score: np.ndarray, pos: np.ndarray, conf: np.ndarray,
                  w: np.ndarray | None) -> tuple[float, float, np.ndarray, np.ndarray]:
    """AUC and cwAUC of one class and their derivatives by each row's weight.

    The AUC is ``A = Σ_{i pos, j neg} w_i w_j K_ij / (P N)`` with ``K_ij`` 1 when
    ``s_i > s_j`` and 1/2 when tied, ``P`` and ``N`` the positives' and negatives'
    weights; the cwAUC is the same with the weights ``w c`` (``c``: confidence).
    A positive's derivative is ``(V_i - A) / P`` with ``V_i = Σ_j w_j K_ij / N`` its
    placement value, a negative's ``(U_j - A) / N`` with ``U_j = Σ_i w_i K_ij / P``
    (the cwAUC's, with the confidence-weighted sums, times ``c``).

    Returns
    -------
    auc, cwauc : float
    d_auc, d_cwauc : ndarray
        Derivatives in the rows' order.

    Examples
    --------
    >>> a, _, d, _ = auc_influence(np.array([0.1, 0.4, 0.35, 0.8]),
    ...                            np.array([False, False, True, True]),
    ...                            np.ones(4), None)
    >>> a, [round(float(x), 3) for x in d]
    (0.75, [0.125, -0.125, -0.125, 0.125])
    """
    n = score.size
    order = _positions(np.argsort(score, kind="stable"))
    group = _ties(score[order])  # None: no ties, every row its own group
    p_sorted = pos[order]
    base = None if w is None else np.asarray(w, dtype=np.float64)[order]
    out: list[tuple[float, np.ndarray]] = []
    for mult in (None, conf):
        u = np.ones(n) if base is None else base.copy()
        if mult is not None:
            u *= mult[order]
        up = np.where(p_sorted, u, 0.0)
        u -= up  # the negatives' weights
        if group is not None:
            up, u = np.bincount(group, weights=up), np.bincount(group, weights=u)
        tot_p, tot_n = float(up.sum()), float(u.sum())
        win = np.cumsum(u)  # a positive's wins: the negatives' weight below, half tied
        win -= 0.5 * u
        del u
        value = float(np.dot(up, win) / (tot_p * tot_n))
        lose = np.cumsum(up)  # a negative's: the positives' weight above, half tied
        lose -= tot_p
        np.negative(lose, out=lose)
        lose += 0.5 * up
        del up
        win /= tot_n
        win -= value
        win /= tot_p
        lose /= tot_p
        lose -= value
        lose /= tot_n
        if group is not None:
            win, lose = win[group], lose[group]
        d = np.empty(n)
        d[order] = np.where(p_sorted, win, lose)
        del win, lose
        if mult is not None:
            d *= mult
        out.append((value, d))
    return out[0][0], out[1][0], out[0][1], out[1][1]


def aurc_influence(conf: np.ndarray, err: np.ndarray, w: np.ndarray | None
                   ) -> tuple[float, np.ndarray]:
    """AURC and its derivative by each row's weight.

    Rows by decreasing confidence, tied ones in one group ``g``: with ``W_g`` and
    ``E_g`` the weight and the wrong predictions' weight of the groups up to ``g``,
    ``R_g = E_g / W_g`` and ``w_g`` the group's weight, AURC ``= Σ_g w_g R_g / W``.
    A row of group ``h`` moves it by ``(R_h + e Σ_{g≥h} w_g / W_g - Σ_{g≥h} w_g R_g /
    W_g - AURC) / W`` (``e``: 1 when the row is wrong).

    Examples
    --------
    >>> a, d = aurc_influence(np.array([0.9, 0.8, 0.7]), np.array([False, True, False]),
    ...                       None)
    >>> round(a, 6), [round(float(x), 4) for x in d]
    (0.277778, [-0.213, 0.2315, -0.0185])
    """
    n = conf.size
    order = _positions(np.argsort(-conf, kind="stable"))
    group = _ties(-conf[order])
    es = err[order]
    gw = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)[order]
    ge = np.where(es, gw, 0.0)
    if group is not None:
        gw, ge = np.bincount(group, weights=gw), np.bincount(group, weights=ge)
    cw = np.cumsum(gw)  # W_g
    risk = np.cumsum(ge)  # E_g, then R_g
    del ge
    seen = cw > 0  # leading groups of zero weight: no risk yet
    np.divide(risk, cw, out=risk, where=seen)
    risk[~seen] = 0.0
    total = float(cw[-1])
    value = float(np.dot(gw, risk) / total)
    np.divide(gw, cw, out=cw, where=seen)  # w_g / W_g
    cw[~seen] = 0.0
    del gw, seen
    s2 = cw * risk  # w_g R_g / W_g, then its sum over the groups from g on
    s1 = np.cumsum(cw[::-1])[::-1]  # Σ_{g≥h} w_g / W_g
    del cw
    s2 = np.cumsum(s2[::-1])[::-1]
    risk -= s2
    del s2
    if group is not None:
        risk, s1 = risk[group], s1[group]
    d_sorted = np.where(es, s1, 0.0)
    d_sorted += risk
    d_sorted -= value
    d_sorted /= total
    d = np.empty(n)
    d[order] = d_sorted
    return value, d


def linear_columns(p: Any, classes: list[int], want_auc: bool, want_aurc: bool,
                   w: np.ndarray | None, force: bool | None
                   ) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """The derivative columns (original row order) and the values they linearize.

    ``classes``: the AUC classes with both outcomes (the sample's); ``w``: the
    sample weights as the kernels scale them.  ``force`` None applies the rule of
    :data:`LINEAR_ROWS` and :data:`LINEAR_SIDE` to each family (AUC and cwAUC;
    AURC), True linearizes both, False neither.  Empty dicts: nothing linearized.
    """
    cols: dict[str, np.ndarray] = {}
    values: dict[str, float] = {}
    if force is False or (force is None and p.n < LINEAR_ROWS):
        return cols, values
    y = p.y_true
    if want_auc and classes and (force or all(
            smaller_side(y == k, w) >= LINEAR_SIDE for k in classes)):
        # the macro average of the classes' values and derivatives, summed class by
        # class (no K x N array)
        sums: list[Any] = []
        for k in classes:
            score = p.score if p.score is not None else p.proba[:, k]
            parts = auc_influence(score, y == k, p.conf, w)
            if not sums:
                sums = list(parts)
                continue
            for i, part in enumerate(parts):
                sums[i] += part
        values["auc"], values["cwauc"] = sums[0] / len(classes), sums[1] / len(classes)
        cols["lin_auc"], cols["lin_cwauc"] = sums[2], sums[3]
        if len(classes) > 1:
            cols["lin_auc"] /= len(classes)
            cols["lin_cwauc"] /= len(classes)
    if want_aurc and (force or smaller_side(p.correct, w) >= LINEAR_SIDE):
        values["aurc"], cols["lin_aurc"] = aurc_influence(p.conf, ~p.correct, w)
    return cols, values
