"""The LOWESS engine: statsmodels' ``lowess(it=0)`` evaluated at many points at once.

Explicit sums for small windows, moments over a tree of sorted rows for large ones
(equal to statsmodels to rounding).  :mod:`calreport.metrics.local` fits its curves
with it and :mod:`calreport.metrics.local_band` its bands.

References
----------
Cleveland, W. S. (1979). Robust Locally Weighted Regression and Smoothing
Scatterplots. Journal of the American Statistical Association 74(368), 829-836.
doi:10.1080/01621459.1979.10481038.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np


def _first_true(
    pred: Callable[[np.ndarray], np.ndarray], lo: np.ndarray, hi: np.ndarray
) -> np.ndarray:
    """Vectorised bisection: smallest ``i`` in ``[lo, hi]`` with ``pred(i)``.

    ``pred`` must be monotone (False then True) on each ``[lo, hi]`` and True at
    ``hi``; it is evaluated element-wise on an index array.
    """
    lo = lo.copy()
    hi = hi.copy()
    active = lo < hi
    while active.any():
        mid = (lo + hi) // 2
        t = pred(mid)
        hi = np.where(active & t, mid, hi)
        lo = np.where(active & ~t, mid + 1, lo)
        active = lo < hi
    return lo



# ------------------------------------------------- LOWESS engine (it = 0)


def _lowess_at(s: np.ndarray, y: np.ndarray, x: np.ndarray, k: int,
               trees: dict[int, Any] | None = None) -> np.ndarray:
    """statsmodels' ``lowess(y, s, it=0, xvals=x)`` (k neighbours, sorted ``s``).

    NaN where statsmodels gives NaN (fewer than two non-zero weights). Direct sums
    for windows under 4096 rows, block moments above (:func:`_lowess_blocks`); both
    agree with statsmodels to rounding (about 1e-12, checked in the tests).
    """
    if x.size == 0:
        return np.empty(0)
    start, radius = _windows(s, x, k)
    if k >= _BLOCK_MIN_K:
        leaf = _leaf_size(k)
        tree = None if trees is None else trees.get(leaf)
        if tree is None:
            tree = _MomentTree(s, y, leaf)
            if trees is not None:
                trees[leaf] = tree
        return _lowess_tree(s, y, x, start, radius, k, tree)
    return _lowess_direct(s, y, x, start, radius, k)


# ------------------------------------------------------------------ LOWESS (it = 0)

# Direct sums: at most this many (query, row) pairs per chunk of queries.
_DIRECT_CHUNK = 1 << 16
# Windows of at least this many rows use node moments (see _lowess_tree).
_BLOCK_MIN_K = 1024
# Rows per leaf of the moment tree: a power of two near sqrt(k) / 2, in [64, 512].
# Highest power of the block moments: the tricube (degree 9) times d^2.
_DEGREE = 11
# statsmodels counts a weight as non-zero above 1e-12: (1 - u^3)^3 > 1e-12.
_U_NONZERO = (1.0 - 1e-4) ** (1.0 / 3.0)


def _windows(s: np.ndarray, x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """statsmodels' LOWESS neighbourhood at each ascending ``x``: first row, radius.

    statsmodels slides the window ``[a, a + k)`` right while
    ``x > (s[a] + s[a + k]) / 2``; the midpoints are non-decreasing in ``a``, so the
    final window starts at the first midpoint ``>= x`` (or at ``n - k``).
    """
    n = s.size
    start = (np.searchsorted((s[: n - k] + s[k:]) / 2.0, x, side="left") if k < n
             else np.zeros(x.size, dtype=np.int64))
    radius = np.maximum(x - s[start], s[start + k - 1] - x)
    return start, radius


def _fit_from_sums(s0: np.ndarray, s1: np.ndarray, s2: np.ndarray, t0: np.ndarray,
                   t1: np.ndarray) -> np.ndarray:
    """Local-linear value at the centre from ``S_p = sum w d^p``, ``T_p = sum w d^p y``.

    statsmodels' projection form with ``d`` the distance to the centre:
    ``dbar = S1/S0``, ``var = max(S2/S0 - dbar^2, 1e-12)``,
    value ``T0/S0 - dbar (T1/S0 - dbar T0/S0) / var``.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        dbar = s1 / s0
        ybar = t0 / s0
        var = np.maximum(s2 / s0 - dbar * dbar, 1e-12)
        return ybar - dbar * (t1 / s0 - dbar * ybar) / var


def _lowess_direct(s: np.ndarray, y: np.ndarray, x: np.ndarray, start: np.ndarray,
                   radius: np.ndarray, k: int) -> np.ndarray:
    """LOWESS at ``x`` by explicit sums over each window, as statsmodels computes them.

    The weights, the non-zero count and the two-pass weighted variance repeat
    statsmodels' arithmetic; only the order of the sums differs. NaN where statsmodels
    returns NaN (fewer than two weights above 1e-12).
    """
    out = np.empty(x.size)
    step = max(1, _DIRECT_CHUNK // k)
    offsets = np.arange(k)[:, None]
    for j0 in range(0, x.size, step):
        sl = slice(j0, j0 + step)
        # one column per query: the sums over a window run along the rows
        idx = start[sl] + offsets
        xs = s[idx]
        xv = x[sl]
        with np.errstate(invalid="ignore", divide="ignore"):
            w = np.abs(xs - xv)
            w /= radius[sl]
            t = w * w
            t *= w
            np.subtract(1.0, t, out=t)
            w = t * t
            w *= t
            ok = np.count_nonzero(w > 1e-12, axis=0) >= 2
            w /= w.sum(axis=0)
            xbar = np.sum(w * xs, axis=0)
            dev = xs - xbar
            t = w * dev
            t *= dev
            var = np.maximum(t.sum(axis=0), 1e-12)
            proj = dev * (xv - xbar)
            proj /= var
            proj += 1.0
            proj *= w
            proj *= y[idx]
            fit = proj.sum(axis=0)
        out[sl] = np.where(ok, fit, np.nan)
    return out


def _shift_matrix() -> np.ndarray:
    """``G[t, p, l]`` with ``sum_i P(u_i) u_i^p = sum_{t,l} G[t, p, l] e^t V_l``.

    ``P(u) = (1 - u^3)^3`` is the tricube right of the centre; over rows with
    ``u = v + e`` (``v`` the offset from a node centre, ``e`` the node centre's
    offset from the query point, both in units of the radius), ``V_l = sum v^l``.
    """
    from math import comb

    tri = np.zeros(_DEGREE + 1)
    tri[[0, 3, 6, 9]] = [1.0, -3.0, 3.0, -1.0]
    g = np.zeros((_DEGREE + 1, 3, _DEGREE + 1))
    for p in range(3):
        for m in range(p, p + 10):
            for ell in range(m + 1):
                g[m - ell, p, ell] += tri[m - p] * comb(m, ell)
    return g.reshape(_DEGREE + 1, 3 * (_DEGREE + 1))


_SHIFT_G = _shift_matrix()
_POWERS = np.arange(_DEGREE + 1)
_PASCAL = np.array([[math.comb(m, ell) for ell in range(_DEGREE + 1)]
                    for m in range(_DEGREE + 1)], dtype=np.float64)
_EXPONENT = np.clip(_POWERS[:, None] - _POWERS[None, :], 0, _DEGREE)
_PASCAL_LOWER = np.tril(_PASCAL)


def _powers(v: np.ndarray) -> np.ndarray:
    """``v[..., None] ** (0, 1, ..., 11)`` by repeated products."""
    out = np.empty((*v.shape, _DEGREE + 1))
    out[..., 0] = 1.0
    for ell in range(1, _DEGREE + 1):
        np.multiply(out[..., ell - 1], v, out=out[..., ell])
    return out


def _leaf_size(k: int) -> int:
    """Rows per leaf: balances the direct sums at the window ends with the tree."""
    return int(min(512, max(64, 2 ** round(math.log2(math.sqrt(k) / 2.0)))))


class _MomentTree:
    """Moments of the outcome-weighted powers of sorted scores over a tree of row ranges.

    Level 0 holds leaves of ``leaf`` consecutive sorted rows; node ``i`` of level
    ``h + 1`` joins nodes ``2i`` and ``2i + 1`` of level ``h``. Each node stores its
    centre ``c`` (the midpoint of its scores) and ``M[l, q] = sum (s - c)^l y^q`` for
    ``l <= 11``, ``q in {0, 1}``; a parent's moments are its children's, moved to its
    centre by the binomial theorem.
    """

    def __init__(self, s: np.ndarray, y: np.ndarray, leaf: int) -> None:
        self.leaf = leaf
        n_leaves = s.size // leaf
        rows = n_leaves * leaf
        sb = s[:rows].reshape(n_leaves, leaf)
        yb = y[:rows].reshape(n_leaves, leaf)
        centre = (sb[:, 0] + sb[:, -1]) / 2.0
        moments = np.empty((n_leaves, _DEGREE + 1, 2))
        v = sb - centre[:, None]
        power = np.ones_like(v)
        for ell in range(_DEGREE + 1):
            moments[:, ell, 0] = power.sum(axis=1)
            moments[:, ell, 1] = np.einsum("bl,bl->b", power, yb)
            power *= v
        self.levels = [(centre, moments)]
        first = np.arange(n_leaves) * leaf
        last = first + leaf - 1
        while centre.size >= 2:
            half = centre.size // 2
            first, last = first[0: 2 * half: 2], last[1: 2 * half: 2]
            parent = (s[first] + s[last]) / 2.0
            moments = (self._moved(moments[0: 2 * half: 2], centre[0: 2 * half: 2] - parent)
                       + self._moved(moments[1: 2 * half: 2], centre[1: 2 * half: 2] - parent))
            centre = parent
            self.levels.append((centre, moments))

    @staticmethod
    def _moved(moments: np.ndarray, delta: np.ndarray) -> np.ndarray:
        """Moments about ``c`` -> about ``c - delta``: ``sum_l C(m, l) delta^(m-l) M_l``."""
        shift = _powers(delta)[:, _EXPONENT]
        shift *= _PASCAL_LOWER
        return shift @ moments

    def add(self, sums: np.ndarray, x: np.ndarray, inv_h: np.ndarray, lo: np.ndarray,
            hi: np.ndarray, mirror: np.ndarray) -> None:
        """Add ``sum P(|u|) |u|^p y^q`` over whole nodes inside rows ``[lo, hi)``.

        ``mirror`` marks ranges left of the query point, where ``|u| = -u``: they
        are reflected (``v -> -v``, ``e -> -e``) so that one polynomial serves both
        sides; ``sums`` rows are ``sum P |u|^p`` (p = 0, 1, 2) and ``sum P |u|^p y``
        (p = 0, 1).
        """
        sign = np.where(mirror, -1.0, 1.0)
        flip = sign[:, None] ** _POWERS  # (-1)^l for mirrored ranges
        h_pow = inv_h[:, None] ** _POWERS
        lo = -(-lo // self.leaf)
        hi = hi // self.leaf
        for centre, moments in self.levels:
            active = lo < hi
            if not active.any():
                break
            take_lo = active & (lo % 2 == 1)
            take_hi = active & (hi % 2 == 1) & (hi - 1 >= lo + take_lo)
            for take, node in ((take_lo, lo), (take_hi, hi - 1)):
                j = np.flatnonzero(take)
                if j.size:
                    self._accumulate(sums, j, centre[node[j]], moments[node[j]], x[j],
                                     inv_h[j], h_pow[j], flip[j], sign[j])
            lo = (lo + take_lo) // 2
            hi = (hi - take_hi) // 2

    @staticmethod
    def _accumulate(sums: np.ndarray, j: np.ndarray, centre: np.ndarray,
                    moments: np.ndarray, x: np.ndarray, inv_h: np.ndarray,
                    h_pow: np.ndarray, flip: np.ndarray, sign: np.ndarray) -> None:
        e = sign * (centre - x) * inv_h
        coef = (_powers(e) @ _SHIFT_G).reshape(j.size, 3, _DEGREE + 1)
        coef *= (h_pow * flip)[:, None, :]
        for row, (p, q) in enumerate(((0, 0), (1, 0), (2, 0), (0, 1), (1, 1))):
            sums[row, j] += np.einsum("nl,nl->n", coef[:, p, :], moments[:, :, q])


def _lowess_tree(s: np.ndarray, y: np.ndarray, x: np.ndarray, start: np.ndarray,
                 radius: np.ndarray, k: int, tree: _MomentTree | None = None) -> np.ndarray:
    """LOWESS at ``x`` from node moments: O(N + J (leaf + log N)) instead of O(J k).

    Each window ``[a, a + k)`` is split at the query point into its left and right
    rows. Each side is the union of at most two nodes per level of a
    :class:`_MomentTree` and fewer than ``2 * leaf`` single rows at its ends; a node's
    contribution is its moments moved to the query point by the binomial theorem
    (the tricube is a polynomial of degree 9 on each side). A node inside a window
    lies within one radius of the query point, so every offset in the expansion is
    at most 2 radii: the sums lose at most a factor ``3^11`` of precision (relative
    error below ~1e-10 of the weight sum; ~1e-13 measured). Where the weighted
    variance cancels (``var < 1e-6 E[d^2]``) the value is recomputed by direct sums.
    """
    if tree is None:
        tree = _MomentTree(s, y, _leaf_size(k))
    leaf = tree.leaf
    n_q = x.size
    split = np.clip(np.searchsorted(s, x, side="left"), start, start + k)
    lo = np.concatenate((start, split))
    hi = np.concatenate((split, start + k))
    x2 = np.concatenate((x, x))
    mirror = np.r_[np.ones(n_q, dtype=bool), np.zeros(n_q, dtype=bool)]
    sums = np.zeros((5, 2 * n_q))  # sum P |u|^p (p = 0, 1, 2), sum P |u|^p y (p = 0, 1)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        inv_h = np.concatenate((1.0 / radius, 1.0 / radius))
        first = np.minimum(hi, -(-lo // leaf) * leaf)
        last = np.maximum(first, hi // leaf * leaf)
        _add_rows(sums, s, y, x2, inv_h, ((lo, first), (last, hi)), leaf)
        tree.add(sums, x2, inv_h, lo, hi, mirror)
        left, right = sums[:, :n_q], sums[:, n_q:]
        s0, s2, t0 = (left[i] + right[i] for i in (0, 2, 3))
        s1, t1 = (right[i] - left[i] for i in (1, 4))
        fit = _fit_from_sums(s0, s1 * radius, s2 * radius * radius, t0, t1 * radius)
        # cancellation in S2/S0 - dbar^2, or a degenerate window: redo exactly
        dbar = s1 / s0
        redo = ~(s2 / s0 - dbar * dbar > 1e-6 * (s2 / s0))
    inner = radius * _U_NONZERO
    nonzero = (np.searchsorted(s, x + inner, side="left")
               - np.searchsorted(s, x - inner, side="right"))
    fit[nonzero < 2] = np.nan
    redo &= nonzero >= 2
    if redo.any():
        fit[redo] = _lowess_direct(s, y, x[redo], start[redo], radius[redo], k)
    return fit


def _add_rows(sums: np.ndarray, s: np.ndarray, y: np.ndarray, x: np.ndarray,
              inv_h: np.ndarray, segments: tuple, leaf: int) -> None:
    """Add ``sum P(|u|) |u|^p y^q`` over row ranges ``[lo, hi)`` shorter than a leaf."""
    offsets = np.arange(leaf)
    step = max(1, _DIRECT_CHUNK // leaf)
    for lo, hi in segments:
        for j0 in range(0, x.size, step):
            sl = slice(j0, j0 + step)
            idx = lo[sl, None] + offsets
            inside = idx < hi[sl, None]
            idx = np.where(inside, idx, 0)
            u = np.abs(s[idx] - x[sl, None]) * inv_h[sl, None]
            w = 1.0 - u * u * u
            w = np.where(inside, w * w * w, 0.0)
            wy = w * y[idx]
            sums[0, sl] += w.sum(axis=1)
            sums[1, sl] += (w * u).sum(axis=1)
            sums[2, sl] += (w * u * u).sum(axis=1)
            sums[3, sl] += wy.sum(axis=1)
            sums[4, sl] += (wy * u).sum(axis=1)


# ------------------------------------------------------------------------ band

def _lowess_windows(s: np.ndarray, x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """statsmodels' LOWESS neighbourhoods at ascending ``x``: rows ``[L, L + k)``, radius.

    statsmodels slides the window right while ``x > (s[L] + s[L + k]) / 2``; the
    condition is monotone in ``L``, so the final window is the first ``L`` where it
    fails (or ``n - k``), found by a vectorised bisection.
    """
    n = s.size
    last = n - k

    def stays(a: np.ndarray) -> np.ndarray:
        return (a >= last) | (x <= (s[a] + s[np.minimum(a + k, n - 1)]) / 2.0)

    left = _first_true(stays, np.zeros(x.size, dtype=np.int64),
                       np.full(x.size, last, dtype=np.int64))
    radius = np.maximum(x - s[left], s[left + k - 1] - x)
    return left, radius


def _local_linear(sums: np.ndarray) -> np.ndarray:
    """LOWESS value at the centre from weighted sums ``(W0, W1, W2, T0, T1)`` (last axis).

    With centred scores ``d`` and weights ``w``: ``W_p = sum w d^p``, ``T_p = sum w d^p y``.
    statsmodels' projection form: mean ``dbar = W1/W0``, variance
    ``var = max(W2/W0 - dbar^2, 1e-12)``, value ``T0/W0 - dbar (T1/W0 - dbar T0/W0) / var``.
    """
    w0, w1, w2, t0, t1 = np.moveaxis(sums, -1, 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        dbar = w1 / w0
        ybar = t0 / w0
        var = np.maximum(w2 / w0 - dbar * dbar, 1e-12)
        return ybar - dbar * (t1 / w0 - dbar * ybar) / var


def _linearised_se(d: np.ndarray, kern: np.ndarray, yy: np.ndarray) -> np.ndarray:
    """First-order (infinitesimal-jackknife) standard error of each local line's value.

    The fit at a grid point is ``sum_i l_i y_i`` with the projection weights ``l_i`` of
    the local line; under independent unit-variance row weights its derivative with
    respect to row i's weight is ``l_i r_i`` (``r_i`` the residual from the local
    line), so the bootstrap variance is ``sum_i (l_i r_i)^2`` to first order.
    """
    w0 = kern.sum(axis=1)
    dbar = (kern * d).sum(axis=1) / w0
    ybar = (kern * yy).sum(axis=1) / w0
    var = np.maximum((kern * d * d).sum(axis=1) / w0 - dbar * dbar, 1e-12)
    slope = ((kern * d * yy).sum(axis=1) / w0 - dbar * ybar) / var
    proj = kern * (1.0 - dbar[:, None] * (d - dbar[:, None]) / var[:, None]) / w0[:, None]
    resid = yy - (ybar - dbar * slope)[:, None] - slope[:, None] * d
    return np.sqrt(np.sum((proj * resid) ** 2, axis=1))
