"""LCS and ECI of many groups at once: LOWESS fits over group codes.

Each group's value is that of the summary's LCS (:func:`calreport.metrics.local.lcs`,
``frac = 0.15``) and ECI (:func:`calreport.metrics.calibration_index.eci`) on its
rows alone.  The rows are sorted once by (group, score); each query's first row at
or above it comes from the runs of distinct scores (ECI) or one ``searchsorted`` over
(group, grid cell) keys (LCS), every LOWESS window from a short vectorised bisection
after it, fitted by the same direct sums as for one group
(``local_band._lowess_direct``, one call per window size ``k``); the reflected-KDE
weights of LCS are the same exact sums, one batch per group size, taken as products
of powers along the grid where the kernel is wide enough.
Groups too large for the direct sums (more than :data:`SMALL_ROWS` rows) are
computed one by one with the single-group functions, whose cost dwarfs the loop.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from calreport.metrics import calibration_index, local, local_band
from calreport.metrics._order import sort_within
from calreport.metrics._score_density import bw_nrd0

__all__ = ["SMALL_ROWS", "grouped_lcs_eci"]

#: Groups up to this many rows use the batched direct sums (the single-group code
#: uses exact KDE sums up to 60,000 (grid point, reflected row) pairs: 200 rows).
SMALL_ROWS = 200
#: (query, reflected row) pairs per batch of the KDE sums.
_PAIRS = 1 << 16
_GRID = 100
#: Largest ``|r| / (bw sqrt 2)`` (reflected rows and grid points in kernel units)
#: for the KDE sums as products of powers (:func:`_grid_sums`).
_PRODUCT_REACH = 12.0


def _bisect(pred: Callable[[np.ndarray], np.ndarray], lo: np.ndarray, hi: np.ndarray
            ) -> np.ndarray:
    """Smallest index in ``[lo, hi]`` with ``pred`` (per query; see ``local._first_true``)."""
    return local._first_true(pred, lo, hi)


def _nn_local_mean(S: np.ndarray, csum: np.ndarray, gs: np.ndarray, ge: np.ndarray,
                   x: np.ndarray, k: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """``local._nn_local_mean`` of each query on its own group's rows (global indices;
    ``pos``: the group's first row with score ``>= x``, as for :func:`_lowess`)."""
    last = ge - k

    def window_stays(a: np.ndarray) -> np.ndarray:
        nxt = np.minimum(a + k, ge - 1)
        return (a >= last) | (np.abs(x - S[a]) <= np.abs(S[nxt] - x))

    a = _bisect(window_stays, np.clip(pos - k, gs, last), np.clip(pos, gs, last))
    h = np.maximum(np.abs(x - S[a]), np.abs(S[a + k - 1] - x))

    def inside(i: np.ndarray) -> np.ndarray:
        return np.abs(S[i] - x) <= h

    def beyond(i: np.ndarray) -> np.ndarray:
        return (i >= ge) | (np.abs(S[np.minimum(i, ge - 1)] - x) > h)

    left = _bisect(inside, gs.copy(), a)
    right = _bisect(beyond, a + k - 1, ge.copy())
    return (csum[right] - csum[left]) / (right - left)


def _lowess(S: np.ndarray, Y: np.ndarray, csum: np.ndarray, gs: np.ndarray,
            ge: np.ndarray, k: np.ndarray, x: np.ndarray, pos: np.ndarray,
            ties: np.ndarray) -> np.ndarray:
    """``local._lowess_or_tied_mean`` (no ``delta``) of each query in its group;
    ``pos`` is the group's first row with score ``>= x``, ``ties`` its rows at ``x``."""
    n = ge - gs
    # statsmodels' window: the first start whose midpoint (s[a] + s[a + k]) / 2 >= x,
    # between pos - k (both ends below x) and pos (both ends at or above x)
    top = gs + np.maximum(n - k, 0)

    def mid_at_least(a: np.ndarray) -> np.ndarray:
        j = np.minimum(a, np.maximum(top - 1, gs))
        mid = (S[j] + S[np.minimum(j + k, ge - 1)]) / 2.0
        return (a >= top) | (mid >= x)

    start = _bisect(mid_at_least, np.clip(pos - k, gs, top), np.clip(pos, gs, top))
    radius = np.maximum(x - S[start], S[start + k - 1] - x)
    fitted = np.empty(x.size)
    for kk in np.unique(k).tolist():
        at = np.flatnonzero(k == kk)
        fitted[at] = local_band._lowess_direct(S, Y, x[at], start[at], radius[at], kk)
    bad = ~np.isfinite(fitted) | (ties >= k)
    if bad.any():
        fitted[bad] = _nn_local_mean(S, csum, gs[bad], ge[bad], x[bad], k[bad],
                                     pos[bad])
    return fitted


def _kde_weights(S: np.ndarray, gs: np.ndarray, n: int, q_group: np.ndarray,
                 x: np.ndarray) -> np.ndarray:
    """``_score_density.reflected_kde`` (exact sums) at each query, for groups of ``n`` rows;
    ``gs`` holds the groups' starts, ``q_group`` indexes it."""
    rows = gs[:, None] + np.arange(n)
    s = S[rows]
    rev = s[:, ::-1]
    r = np.concatenate((-rev, s, 2.0 - rev), axis=1)
    m = 3 * n
    bw = bw_nrd0(r)
    # exp(-t^2 / 2) with t = (x - r) / bw, as exp(-(x' - r')^2), x' = x / (bw sqrt 2)
    inv = 1.0 / (bw * math.sqrt(2.0))
    r *= inv[:, None]
    norm = 1.0 / (3.0 * n * math.sqrt(2.0 * math.pi) * bw[q_group])
    out = np.empty(x.size)
    # wide kernels: the grid's sums as products, without an exponential per pair
    wide = np.abs(r).max(axis=1) <= _PRODUCT_REACH if m > 0 else np.zeros(0, dtype=bool)
    on_grid = wide[q_group]
    if wide.any():
        table = _grid_sums(r[wide], inv[wide] / (_GRID - 1))
        pick = np.full(wide.size, -1, dtype=np.int64)
        pick[wide] = np.arange(int(wide.sum()))
        j = np.rint(x[on_grid] * (_GRID - 1)).astype(np.int64)
        out[on_grid] = table[pick[q_group[on_grid]], j] * norm[on_grid]
    rest = np.flatnonzero(~on_grid)
    step = max(1, _PAIRS // m)
    buf = np.empty((min(step, rest.size), m))
    for j0 in range(0, rest.size, step):
        at = rest[j0: j0 + step]
        u = buf[: at.size]
        np.take(r, q_group[at], axis=0, out=u)
        np.subtract((x[at] * inv[q_group[at]])[:, None], u, out=u)
        np.square(u, out=u)
        np.negative(u, out=u)
        np.exp(u, out=u)
        out[at] = u.sum(axis=1) * norm[at]
    return out


def _grid_sums(r: np.ndarray, step: np.ndarray) -> np.ndarray:
    """``Σ_i exp(-(j step_g - r_gi)^2)`` for every grid index ``j`` (columns), per group.

    ``exp(-(x_j - r_i)^2) = exp(-x_j^2) · exp(-r_i^2) · z_i^j`` with
    ``z_i = exp(2 step r_i)``: the powers come from a running product along the grid,
    so the exponentials are per row and per grid point, not per pair.  With
    ``|r|, |x| <= _PRODUCT_REACH`` no factor leaves the floating-point range and
    each term keeps a relative error of about ``1e-13`` (the exact sums: ``1e-16``).
    """
    g, m = r.shape
    out = np.empty((g, _GRID))
    per = max(1, _PAIRS // m)
    x = np.arange(_GRID) * step[:, None]
    head = np.exp(-x * x)
    for g0 in range(0, g, per):
        sl = slice(g0, g0 + per)
        rr = r[sl]
        z = np.exp(2.0 * step[sl, None] * rr)
        cur = np.exp(-rr * rr)
        col = out[sl]
        col[:, 0] = cur.sum(axis=1)
        for j in range(1, _GRID):
            cur *= z
            col[:, j] = cur.sum(axis=1)
        col *= head[sl]
    return out


def _rows_up_to(keys: np.ndarray, query: np.ndarray, n_keys: int) -> np.ndarray:
    """Number of entries of the sorted ``keys`` (in ``[0, n_keys)``) at or below each
    query key: ``np.searchsorted(keys, query, side="right")``, read from the
    cumulated counts of the keys when there are not many more keys than rows."""
    if n_keys > 4 * keys.size + 1024:
        return np.searchsorted(keys, query, side="right")
    return np.cumsum(np.bincount(keys, minlength=n_keys))[query]


def _reasons(S: np.ndarray, gs: np.ndarray, ge: np.ndarray, groups: np.ndarray
             ) -> dict[int, str]:
    """The single-group validation message of each failing group (few: a loop)."""
    out: dict[int, str] = {}
    for g in groups.tolist():
        try:
            local._check_sorted(S[gs[g]:ge[g]], "lowess", local.DEFAULT_FRAC)
        except ValueError as exc:
            out[g] = str(exc)
    return out


def grouped_lcs_eci(score: np.ndarray, outcome: np.ndarray, codes: np.ndarray,
                    n_groups: int, order: np.ndarray | None = None
                    ) -> tuple[np.ndarray, np.ndarray, dict[int, str]]:
    """LCS and ECI (LOWESS, ``frac = 0.15``) of every group, and why a group has none.

    Parameters
    ----------
    score, outcome : ndarray of float, shape (N,)
        Validated scores in [0, 1] and 0/1 outcomes (unweighted).
    codes : ndarray of int, shape (N,)
        Group of each row, in ``[0, n_groups)``.
    n_groups : int
    order : ndarray of int, optional
        The rows in (group, score, outcome) order, when already known.

    Returns
    -------
    lcs, eci : ndarray of float, shape (n_groups,)
        NaN for a group without rows or one the single-group functions reject.
    reasons : dict of int to str
        The single-group error message of each rejected group.

    Notes
    -----
    ``LCS = Σ_j w_j (ĝ(l_j) − l_j)² / Σ_j w_j`` over the points ``l_j`` of a
    100-point grid inside the group's score range, ``w`` the reflected Gaussian KDE
    of the scores; ``ECI = 100 · mean_i (ĝ(s_i) − s_i)²``; ``ĝ`` the LOWESS fit
    (``it = 0``, ``k = ⌊0.15 n⌋`` neighbours) clipped to [0, 1].

    References
    ----------
    Fernandes Machado, A., Charpentier, A., Flachaire, E., Gallic, E. & Hu, F. (2024).
    From Uncertainty to Precision: Enhancing Binary Classifier Performance through
    Calibration. arXiv:2402.07790. Section on the Local Calibration Score.

    Van Hoorde, K., Van Huffel, S., Timmerman, D., Bourne, T. & Van Calster, B. (2015).
    A spline-based tool to assess and visualize the calibration of multiclass risk
    predictions. Journal of Biomedical Informatics 54, 283-293.
    doi:10.1016/j.jbi.2014.12.016. Section 2.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=60)
    >>> y = (rng.random(60) < s).astype(float)
    >>> lcs, eci, why = grouped_lcs_eci(s, y, np.repeat([0, 1], 30), 2)
    >>> bool(abs(lcs[0] - local.lcs(s[:30], y[:30])) < 1e-12)
    True
    """
    codes = np.asarray(codes, dtype=np.int64)
    if order is None:  # by (group, score, outcome)
        order = sort_within(codes, n_groups, outcome, score)
    S = np.ascontiguousarray(score[order], dtype=np.float64)
    Y = np.ascontiguousarray(outcome[order], dtype=np.float64)
    G = codes[order]
    n_g = np.bincount(G, minlength=n_groups)
    ge = np.cumsum(n_g)
    gs = ge - n_g
    lcs = np.full(n_groups, np.nan)
    eci = np.full(n_groups, np.nan)
    has = n_g > 0
    k_g = np.minimum(np.floor(local.DEFAULT_FRAC * n_g + 1e-10).astype(np.int64), n_g)
    const = np.zeros(n_groups, dtype=bool)
    const[has] = S[gs[has]] == S[ge[has] - 1]
    failing = np.flatnonzero(has & (const | (k_g < 2)))
    reasons = _reasons(S, gs, ge, failing)
    ok = has & ~const & (k_g >= 2)
    small = np.flatnonzero(ok & (n_g <= SMALL_ROWS))
    for g in np.flatnonzero(ok & (n_g > SMALL_ROWS)).tolist():
        s, y = S[gs[g]:ge[g]], Y[gs[g]:ge[g]]
        frac, k = local._check_sorted(s, "lowess", local.DEFAULT_FRAC)
        trees: dict = {}
        lcs[g] = local._lcs_sorted(s, y, method="lowess", frac=frac, k=k, trees=trees)
        eci[g] = calibration_index._eci_sorted(s, y, method="lowess", frac=frac, k=k,
                                               trees=trees)
    if small.size == 0:
        return lcs, eci, reasons
    csum = np.concatenate(([0.0], np.cumsum(Y)))  # 0/1 outcomes: exact partial sums
    # ECI: the fit at each distinct score of the group, each row its gap
    in_small = np.zeros(n_groups, dtype=bool)
    in_small[small] = True
    rows = np.flatnonzero(in_small[G])
    first = rows[np.r_[True, (S[rows[1:]] != S[rows[:-1]]) | (G[rows[1:]] != G[rows[:-1]])]]
    qg = G[first]
    # the run of each distinct score ends where the next starts (or its group ends)
    nxt = np.r_[first[1:], 0]
    end_of_group = np.r_[qg[1:] != qg[:-1], True]
    counts = np.where(end_of_group, ge[qg] - first, nxt - first)
    fit = np.clip(_lowess(S, Y, csum, gs[qg], ge[qg], k_g[qg], S[first], first, counts),
                  0.0, 1.0)
    gap = fit - S[first]
    sq = np.bincount(qg, weights=counts * gap * gap, minlength=n_groups)
    eci[small] = 100.0 * sq[small] / n_g[small]
    # LCS: the fit on the grid points inside the group's score range
    grid = np.linspace(0.0, 1.0, _GRID)
    lo = np.searchsorted(grid, S[gs[small]], side="left")
    hi = np.searchsorted(grid, S[ge[small] - 1], side="right")
    cnt = np.maximum(hi - lo, 0)
    qg = np.repeat(small, cnt)
    qx = grid[np.repeat(lo, cnt) + np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt)]
    # each grid point's first row at or above it, and above it, in its group: a row's
    # key (group, grid points <= its score) is sorted, and >= grid[j] iff it exceeds
    # (group, j); likewise with the grid points below the score for the strict bound
    qkey = qg * (_GRID + 1) + np.searchsorted(grid, qx)  # qx are grid points
    at_least = _rows_up_to(G * (_GRID + 1) + np.searchsorted(grid, S, side="right"),
                           qkey, n_groups * (_GRID + 1))
    above = _rows_up_to(G * (_GRID + 1) + np.searchsorted(grid, S, side="left"),
                        qkey, n_groups * (_GRID + 1))
    fit = np.clip(_lowess(S, Y, csum, gs[qg], ge[qg], k_g[qg], qx, at_least,
                          above - at_least), 0.0, 1.0)
    w = np.empty(qx.size)
    for n in np.unique(n_g[small]).tolist():
        grp = small[n_g[small] == n]
        local_idx = np.full(n_groups, -1, dtype=np.int64)
        local_idx[grp] = np.arange(grp.size)
        at = np.flatnonzero(n_g[qg] == n)
        w[at] = _kde_weights(S, gs[grp], n, local_idx[qg[at]], qx[at])
    num = np.bincount(qg, weights=w * (fit - qx) ** 2, minlength=n_groups)
    den = np.bincount(qg, weights=w, minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        val = num / den
    lcs[small] = np.where(cnt > 0, val[small], np.nan)
    return lcs, eci, reasons
