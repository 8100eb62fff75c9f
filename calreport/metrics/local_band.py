"""A LOWESS calibration curve with its uncertainty band, and the LOWESS engine.

The engine (``_lowess_at``) evaluates statsmodels' ``lowess(it=0)`` at many points at
once: explicit sums for small windows, moments over a tree of sorted rows for large
ones (equal to statsmodels to rounding). :mod:`calreport.metrics.local` calls it.

The band of :func:`lowess_band` is a bootstrap (Poisson row counts, neighbourhoods
fixed, all replicates one batched fit) or, for large samples, a normal band from the
linearised variance of the local-linear fit; grid points with too few scores nearby
are marked ``sparse`` so figures can fade or cut them.

References
----------
Cleveland, W. S. (1979). Robust Locally Weighted Regression and Smoothing
Scatterplots. Journal of the American Statistical Association 74(368), 829-836.
doi:10.1080/01621459.1979.10481038.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from calreport import _validate as v
from calreport.metrics.local import (
    _default_grid,
    _first_true,
    _prepare,
    _smooth,
)

__all__ = ["BAND_INTERVALS", "CalibrationBand", "lowess_band"]


@dataclass(frozen=True, eq=False)
class CalibrationBand:
    """LOWESS calibration curve with a pointwise bootstrap band and local row counts.

    Attributes
    ----------
    x : ndarray
        Grid of scores (ascending).
    y : ndarray
        Fitted curve at ``x`` (as :func:`lowess_curve`), clipped to [0, 1].
    low, high : ndarray
        Pointwise percentile band of the resampled curves, clipped to [0, 1].
    count : ndarray of int
        Rows whose score lies within ``frac / 2`` of each grid point (a uniform design
        would put ``floor(frac * n)`` rows there).
    sparse : ndarray of bool
        ``count < min_count``: the curve there rests on few scores and on rows far
        away; figures should fade or cut it.
    radius : ndarray
        Half-width of each local fit (distance to the farthest of its neighbours).
    level : float
        Pointwise coverage of the band.
    n_boot : int
        Number of bootstrap replicates (0 for the normal band).
    interval : str
        ``"bootstrap"`` or ``"normal"``: how the band was built.
    frac : float
        Fraction of the rows in each local fit.
    n_neighbors : int
        Rows in each local fit.
    n : int
        Number of rows.
    """

    x: np.ndarray
    y: np.ndarray
    low: np.ndarray
    high: np.ndarray
    count: np.ndarray
    sparse: np.ndarray
    radius: np.ndarray
    level: float
    n_boot: int
    interval: str
    frac: float
    n_neighbors: int
    n: int


#: Gathered (replicate x grid point x neighbour) values per tile of the band bootstrap.
_BAND_TILE_VALUES = 4_000_000
#: ``interval="auto"`` resamples while ``n_boot * J * k`` stays below this, else "normal".
_BAND_BOOTSTRAP_MAX = 20_000_000
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

#: Band constructions of :func:`lowess_band`.
BAND_INTERVALS = ("auto", "bootstrap", "normal")


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


def lowess_band(
    score: Any,
    outcome: Any,
    *,
    frac: float | str = "auto",
    level: float = 0.95,
    n_boot: int = 200,
    interval: str = "auto",
    grid: Any = None,
    n_grid: int = 100,
    min_count: int = 10,
    seed: int | np.random.SeedSequence | np.random.Generator | None = None,
) -> CalibrationBand:
    """LOWESS calibration curve with a bootstrap band and a flag for sparse regions.

    Parameters
    ----------
    score : array-like of shape (n,)
        Predicted probability of the positive class (or top-label confidence), in [0, 1].
    outcome : array-like of shape (n,)
        Observed 0/1 outcome (or correctness).
    frac : float in (0, 1] or "auto", default "auto"
        Fraction of the rows in each local fit; "auto" is :func:`adaptive_frac`.
    level : float in (0, 1), default 0.95
        Pointwise coverage of the percentile band.
    n_boot : int, default 200
        Bootstrap replicates.
    interval : {"auto", "bootstrap", "normal"}, default "auto"
        "bootstrap": percentile band of resampled curves; "normal": the curve
        ``+- z`` times the first-order (linearised) bootstrap standard error; "auto":
        the bootstrap unless ``n_boot * J * k`` exceeds 2e7 (about n > 6,000 with the
        default grid and span), where the normal band is as accurate and far cheaper.
    grid : array-like, optional
        Scores at which to evaluate (values in [0, 1]). Default: as :func:`lowess_curve`.
    n_grid : int, default 100
        Size of the default grid before its restriction to the score range.
    min_count : int, default 10
        Grid points with fewer rows within ``frac / 2`` are flagged ``sparse``.
    seed : int, SeedSequence or Generator, optional
        Randomness (``numpy.random.default_rng(seed)``); never the global state.

    Returns
    -------
    CalibrationBand
        Grid, curve, band, local row counts, sparse flags and the settings.

    Raises
    ------
    ValueError
        As :func:`lowess_curve`, or invalid ``level``, ``n_boot``, ``min_count``.
    TypeError
        Non-numeric input.

    Notes
    -----
    The curve ``y`` is :func:`lowess_curve` with the same ``frac``. The band is a
    Poisson bootstrap (Hanley & MacGibbon 2006): each replicate gives every row an
    independent ``Poisson(1)`` count ``c_i`` and refits the local line at each grid
    point with weights ``c_i K_ij``, where ``K_ij`` are the tricube weights of the
    original fit (its ``floor(frac * n)`` nearest rows and radius, as statsmodels
    computes them). Holding the neighbourhoods fixed is what makes the replicates a
    batched matrix product -- replicates x grid points x neighbours, in tiles -- and
    changes the band only at second order. With all counts 1 the batched fit equals
    statsmodels' LOWESS. The band is the ``(1 - level)/2`` and ``(1 + level)/2``
    quantiles of the replicate curves at each grid point (a replicate whose counts
    are all zero in a window is skipped there). Cost O(B J k) for B replicates, J grid
    points and k rows per fit: at n = 1000 a few milliseconds per replicate.

    The normal band linearises the same resampling: the fit at a grid point is
    ``sum_i l_i y_i`` (``l_i`` the local line's projection weights); the derivative
    with respect to row i's count is ``l_i r_i``, ``r_i`` the residual from the local
    line, so the bootstrap variance is ``sum_i (l_i r_i)^2`` to first order (the
    infinitesimal jackknife of Efron & Tibshirani 1993). Cost O(J k), no
    replicates; with thousands of rows per fit it matches the bootstrap band.

    A nearest-neighbour fit always uses ``k`` rows, so where scores are scarce it
    reaches far away and the band can look narrow although the curve there says
    little about that score: ``count`` (rows within ``frac / 2``, what a uniform
    design would put in one fit) and ``sparse`` (``count < min_count``) mark those
    grid points.

    References
    ----------
    Cleveland, W. S. (1979). Robust Locally Weighted Regression and Smoothing
    Scatterplots. Journal of the American Statistical Association 74(368), 829-836.
    doi:10.1080/01621459.1979.10481038.

    Hanley, J. A. & MacGibbon, B. (2006). Creating Non-Parametric Bootstrap Samples
    Using Poisson Frequencies. Computer Methods and Programs in Biomedicine 83(1),
    57-62. doi:10.1016/j.cmpb.2006.04.006.

    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman &
    Hall, New York. doi:10.1201/9780429246593.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(0, 1, 400)
    >>> y = rng.random(400) < s ** 2
    >>> band = lowess_band(s, y, seed=1)
    >>> bool(np.all((band.low <= band.y + 1e-12) & (band.y <= band.high + 1e-12)))
    True
    >>> round(band.frac, 4), band.n_neighbors
    (0.3017, 120)
    """
    s, y, frac, k = _prepare(score, outcome, "lowess", frac)
    level = v.check_fraction(level, "level", include_one=False)
    n_boot = v.check_positive_int(n_boot, "n_boot")
    v.check_option(interval, "interval", BAND_INTERVALS)
    min_count = v.check_positive_int(min_count, "min_count", minimum=0)
    rng = np.random.default_rng(seed)
    if grid is None:
        x = _default_grid(s, v.check_positive_int(n_grid, "n_grid"))
    else:
        x = v.check_probability(grid, "grid").copy()
    order = np.argsort(x, kind="stable")
    xs = x[order]
    fitted = np.clip(_smooth(s, y, xs, method="lowess", frac=frac, k=k), 0.0, 1.0)
    curve_y = np.empty_like(x)
    curve_y[order] = fitted
    left, radius = _lowess_windows(s, xs, k)
    idx = left[:, None] + np.arange(k)  # (J, k) rows of each local fit
    d = s[idx] - xs[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        u = np.abs(d) / radius[:, None]
    kern = np.where(radius[:, None] > 0, (1.0 - np.minimum(u, 1.0) ** 3) ** 3, 1.0)
    yy = y[idx]
    alpha = (1.0 - level) / 2.0
    if interval == "auto":
        interval = "bootstrap" if n_boot * idx.size <= _BAND_BOOTSTRAP_MAX else "normal"
    if interval == "normal":
        half_width = special.ndtri(1.0 - alpha) * _linearised_se(d, kern, yy)
        low_s, high_s = fitted - half_width, fitted + half_width
        n_boot = 0
    else:
        feats = np.stack((kern, kern * d, kern * d * d, kern * yy, kern * d * yy), axis=-1)
        rows, pos = np.unique(idx, return_inverse=True)
        pos = pos.reshape(idx.shape)
        tile = max(1, min(n_boot, _BAND_TILE_VALUES // max(idx.size, 1)))
        reps = np.empty((n_boot, xs.size))
        for b0 in range(0, n_boot, tile):  # tiles of replicates: one batched product each
            bt = min(tile, n_boot - b0)
            counts = rng.poisson(1.0, size=(bt, rows.size)).astype(np.float64)
            gathered = np.moveaxis(counts[:, pos], 0, 1)  # (J, bt, k)
            reps[b0:b0 + bt] = _local_linear(gathered @ feats).T
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns stay NaN
            low_s, high_s = np.nanquantile(reps, [alpha, 1.0 - alpha], axis=0)
    half = frac / 2.0
    count_s = (np.searchsorted(s, xs + half, side="right")
               - np.searchsorted(s, xs - half, side="left"))
    low, high = np.empty_like(x), np.empty_like(x)
    count, rad = np.empty(x.size, dtype=np.int64), np.empty_like(x)
    low[order], high[order], count[order], rad[order] = low_s, high_s, count_s, radius
    return CalibrationBand(
        x=x, y=curve_y, low=np.clip(low, 0.0, 1.0), high=np.clip(high, 0.0, 1.0),
        count=count, sparse=count < min_count, radius=rad, level=level, n_boot=n_boot,
        interval=interval, frac=frac, n_neighbors=k, n=s.size,
    )
