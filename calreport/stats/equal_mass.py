"""Equal-mass ECE and MCE in one pass, from the fine score histogram, with a bound.

A one-pass state (the :class:`~calreport.accumulator.Accumulator`) cannot know the
exact quantile edges: they are order statistics, and a second pass over the rows
(:mod:`calreport.stats.quantile`) is what finds them.  What the state does hold per
group is the weight and the outcome sum of every one of ``score_bins`` fine score
bins.  The quantile edges sit at known cumulative-weight positions
``h_m = m (W - u) / M`` (``u`` = one row's weight, as in
:func:`calreport.metrics.binned.bin_edges`), so each edge is located in one fine
bin; every other fine bin lies wholly in one equal-mass bin.  The rows of an
edge's fine bin are split at the position pro rata (their order inside the bin is
unknown), and every row's score is taken as its fine bin's midpoint.

Error bound (reported beside the value).  Write ``A_m = sum_{i in B_m} w_i (y_i -
s_i)``, so ``ECE = sum_m |A_m| / W``.  The midpoints move each ``A_m`` by at most
``W_m / (2 B)``: at most ``1 / (2 B)`` on the ECE.  Splitting an edge's fine bin
``f`` wrongly moves some rows between the two neighbouring bins; the change ``d`` of
``A`` below the edge (and ``-d`` above) satisfies ``|d| <= D_f = sum_{i in f} w_i
|y_i - s_i| <= Y_f (1 - a_f) + (W_f - Y_f) b_f`` for the bin ``[a_f, b_f)`` with
weight ``W_f`` and outcome sum ``Y_f``, so the ECE moves by at most ``2 D_f / W``:

    |ECE - ECE~| <= 1 / (2 B) + (2 / W) sum_edges D_f.

For the MCE, ``|A/V - A'/V'| <= (|V - V'| + |A - A'|) / V'`` (using ``|A| <= V``)
per bin of true and approximate weight ``V``, ``V'``; ``|V - V'|`` is at most one
row's weight per edge (1 unweighted, ``W_f`` weighted).  The signed ECE does not
depend on the bins (it is ``(sum w s - sum w y) / W``) and is exact.  With
``min_count > 1`` a bin whose approximate count is near ``min_count`` may be kept
or dropped differently from the exact bins; the bound does not cover that.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calreport.stats.intervals import withdraw
from calreport.stats.quantile import _fine_counts, _unit
from calreport.stats.state import StatsState

__all__ = ["ece_quantile_bounded"]


def ece_quantile_bounded(state: StatsState, *, view: str, n_bins: int = 15,
                         min_count: int = 1) -> tuple[dict[str, np.ndarray],
                                                      dict[str, np.ndarray]]:
    """Equal-mass ECE and MCE per group from one pass, and their error bounds.

    Parameters
    ----------
    state : StatsState
    view : {"top_label", "positive"}
    n_bins : int
        Equal-mass bins ``M``.
    min_count : int
        Bins with fewer rows are left out of the MCE.

    Returns
    -------
    values, bounds : dict of str -> ndarray, shape (G,)
        ``ece`` and ``mce``; the bound is the largest possible absolute error.

    Notes
    -----
    ``|ECE - ECE~| <= 1 / (2 B) + (2 / W) sum_edges D_f`` with ``D_f = Y_f (1 - a_f)
    + (W_f - Y_f) b_f`` for the fine bin ``[a_f, b_f)`` holding an edge; the MCE bound
    is ``max_m (dV_m + dA_m + (V'_m + dV_m) / (2 B)) / V'_m`` (derivation in the
    module docstring).

    References
    ----------
    Nixon, J., Dusenberry, M. W., Zhang, L., Jerfel, G. & Tran, D. (2019). Measuring
    Calibration in Deep Learning. CVPR Workshops. arXiv:1904.01685 (equal-mass bins).

    Examples
    --------
    >>> from calreport.profile import ConfidenceProfile
    >>> from calreport.metrics import binned
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(20000)
    >>> y = (rng.random(20000) < p).astype(int)
    >>> st = StatsState.from_profile(ConfidenceProfile.from_arrays(y, p))
    >>> val, bnd = ece_quantile_bounded(st, view="positive")
    >>> exact = binned.ece(p, y, strategy="quantile")
    >>> bool(abs(val["ece"][0] - exact) <= bnd["ece"][0] < 0.01)
    True
    """
    g, b = len(state.keys), state.config.score_bins
    out = {k: np.full(g, np.nan) for k in ("ece", "mce")}
    bounds = {k: np.full(g, np.nan) for k in ("ece", "mce")}
    lower = np.arange(b) / b
    upper = (np.arange(b) + 1.0) / b
    mid = (np.arange(b) + 0.5) / b
    for gi in range(g):
        w, y = _fine_counts(state, view, gi)
        total = float(w.sum())
        if not total > 0:
            continue
        weighted = state.schema.weighted
        unit = _unit(state, gi, total) if weighted else 1.0
        keep = np.flatnonzero(w > 0)
        cum = np.cumsum(w[keep])
        a_fine = y[keep] - mid[keep] * w[keep]  # approximate A of each fine bin
        knots = np.concatenate(([0.0], cum))
        a_cum = np.concatenate(([0.0], np.cumsum(a_fine)))
        h = np.arange(n_bins + 1) * (total - unit) / n_bins
        h[0], h[-1] = 0.0, total
        a_m = np.diff(np.interp(h, knots, a_cum))
        v_m = np.diff(h)
        # fine bin of each interior edge, and its bound D_f
        inner = h[1:-1]
        f = keep[np.minimum(np.searchsorted(cum, inner, side="right"), keep.size - 1)]
        d_f = y[f] * (1.0 - lower[f]) + (w[f] - y[f]) * upper[f]
        out["ece"][gi] = float(np.abs(a_m).sum() / total)
        bounds["ece"][gi] = 0.5 / b + 2.0 * float(d_f.sum()) / total
        dv = w[f] if weighted else np.ones_like(inner)
        edge_a = np.concatenate(([0.0], d_f)) + np.concatenate((d_f, [0.0]))
        edge_v = np.concatenate(([0.0], dv)) + np.concatenate((dv, [0.0]))
        rows = (v_m if not weighted
                else v_m * float(state.counts["n_positive_weight"][gi]) / total)
        ok = (v_m > 0) & (rows >= min_count)
        if ok.any():
            gap = np.abs(a_m[ok]) / v_m[ok]
            out["mce"][gi] = float(gap.max())
            err = (edge_v[ok] + edge_a[ok] + (v_m[ok] + edge_v[ok]) * 0.5 / b) / v_m[ok]
            bounds["mce"][gi] = float(err.max())
    return out, bounds


def apply(table: Any, state: StatsState, *, n_bins: int, min_count: int) -> None:
    """Put the bounded equal-mass ECE and MCE into a :class:`MetricTable` (in place);
    the signed ECE is the same for any bins and stays exact."""
    val, bnd = ece_quantile_bounded(state, view=table.view, n_bins=n_bins,
                                    min_count=min_count)
    for m in ("ece", "mce"):
        table.values[m] = val[m]
        table.bounds[m] = bnd[m]
        table.kinds[m] = "bounded"

    withdraw(table, list(val), "strategy='quantile'")
    table.settings = {**table.settings, "strategy": "quantile"}
