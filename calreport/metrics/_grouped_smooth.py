"""Smooth ECE of many groups at once: one batched bandwidth search over group codes.

Each group's value is that of :func:`calreport.metrics.smooth.smece` on its rows
alone (same node grid, kernel, mesh and density floor, and the bandwidth its
bisection finds), but the node masses of all groups come from one ``bincount`` over
(group, node) codes and their spectra from one batched transform (a DCT-I on the
common node grid, whose reflection is an even extension), and the bandwidth search
runs for every group at once: per-group brackets on the bisection's grid of widths,
narrowed by secant steps, with batched inverse transforms each round for the groups
still open, a cache-sized block of (group, width) pairs at a time (about four widths
per group instead of eleven).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
from scipy import fft

from calreport.metrics import smooth
from calreport.metrics._order import ranges, sort_within

__all__ = ["grouped_smece"]

#: Groups per batch of the search (bounds the spectra held at once to ~8 MB).
_CHUNK = 1024
#: (group, width) pairs transformed at once on the common grid (~1 MB: in cache).
_BLOCK = 128


def _masses(s: np.ndarray, vals: tuple[np.ndarray, ...], local: np.ndarray, n_sub: int,
            n_nodes: int) -> list[np.ndarray]:
    """Node masses (linear binning) of each value per group, each (groups, n_nodes),
    summed in the order of ``smooth._Smoother.masses``."""
    pos = s * (n_nodes - 1)
    left = np.clip(pos.astype(np.int64), 0, n_nodes - 2)
    frac = pos - left
    key = local * n_nodes + left
    out = []
    for val in vals:
        upper = val * frac
        m = np.bincount(key, weights=val - upper, minlength=n_sub * n_nodes
                        ).reshape(n_sub, n_nodes)
        up = np.bincount(key, weights=upper, minlength=n_sub * n_nodes).reshape(n_sub, n_nodes)
        m[:, 1:] += up[:, : n_nodes - 1]
        out.append(m)
    return out


def _density_functional(sigma: float, n_mesh: int, n_nodes: int, boundary: str
                        ) -> np.ndarray:
    """``u`` with ``mesh sum of the smoothed weight = Σ_n masses[n] · u[n]``.

    The smoothed weight summed over the mesh is linear in the node masses; ``u`` is
    that functional pulled back through the reflection (:func:`smooth._extend`) and
    the circular convolution of ``smooth._smece_batch`` (its transpose: a
    correlation of the mesh weights with the kernel).
    """
    length = fft.next_fast_len(2 * n_nodes - 1, real=True)
    left, right_w = smooth._mesh_weights(n_mesh, n_nodes)
    b = np.zeros(length)
    np.add.at(b, n_nodes - 1 + left, 1.0 - right_w)
    np.add.at(b, n_nodes + left, right_w)
    kern = smooth._kernel_spectrum(sigma, n_nodes, length)
    u = fft.irfft(fft.rfft(b) * np.conj(kern), length)
    src = smooth._extend(np.arange(n_nodes, dtype=np.float64)[None, :], "relplot")[0]
    node = np.rint(src).astype(np.int64)
    out = np.bincount(node, weights=u[: node.size], minlength=n_nodes)
    if boundary == "reflect":
        lpad = (n_nodes - 1) - n_nodes // 2
        out[0] += u[lpad]
        out[-1] += u[lpad + n_nodes - 1]
    return out


#: The bandwidth grid of the search: ``sigma = j / _TOP`` (the bisection's midpoints).
_TOP = 2 ** smooth.SEARCH_STEPS
#: First width tried for every group (a typical fixed point of a few dozen rows).
_GUESS = 96
#: Evaluations without the bracket halving before the search falls back to bisection.
_PATIENCE = 2


def _grid_table(fn: Callable[[float], int]) -> np.ndarray:
    """``fn(j / _TOP)`` for every grid index ``j`` in ``[0, _TOP]`` (entry 0 unused)."""
    return np.array([0] + [fn(j / _TOP) for j in range(1, _TOP + 1)], dtype=np.int64)


_NODES = _grid_table(smooth._n_nodes)
_MESH = _grid_table(smooth._n_mesh)
_COMMON = smooth._n_nodes(1.0)


@functools.lru_cache(maxsize=_TOP + 64)
def _dct_kernel(j: int) -> np.ndarray:
    """DCT-I of the sampled kernel of width ``j / _TOP`` on the common node grid,
    divided by the inverse transform's ``2 (n - 1)``.

    On an odd node grid the reflection of :func:`smooth._extend` is the even
    extension of period ``2 (n - 1)`` (the end nodes once, or twice for
    ``"reflect"``), and the kernel (``n`` taps, centred on the middle one) reaches
    half a period: the valid convolution of ``smooth._convolve`` is the circular
    one of that period, a product of DCT-I spectra.
    """
    n = _COMMON
    kernel = smooth._sampled_kernel(j / _TOP, n)
    half = np.zeros(n)
    half[: n // 2 + 1] = kernel[n // 2:]
    return fft.dct(half, type=1) / (2.0 * (n - 1))


@functools.lru_cache(maxsize=_TOP + 64)
def _density_table(j: int, n_nodes: int, boundary: str) -> np.ndarray:
    """:func:`_density_functional` of grid width ``j`` (cached over the whole grid)."""
    return _density_functional(j / _TOP, int(_MESH[j]), n_nodes, boundary)


class _Chunk:
    """Rows of a batch of groups (contiguous per group) and their node masses."""

    def __init__(self, s: np.ndarray, y: np.ndarray, w: np.ndarray, local: np.ndarray,
                 n_sub: int, boundary: str) -> None:
        self.s, self.w, self.local, self.n_sub, self.boundary = s, w, local, n_sub, boundary
        self.resid = w * (s - y)
        self.sizes = np.bincount(local, minlength=n_sub)
        self.starts = np.cumsum(self.sizes) - self.sizes
        self._dct: np.ndarray | None = None
        self._bins: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def _subset(self, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows, owner = ranges(self.starts[groups], self.sizes[groups])
        return rows, owner

    def _binning(self, n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
        if n_nodes not in self._bins:
            pos = self.s * (n_nodes - 1)
            left = np.clip(pos.astype(np.int64), 0, n_nodes - 2)
            self._bins[n_nodes] = (left, pos - left)
        return self._bins[n_nodes]

    def _spectra(self) -> np.ndarray:
        """DCT-I of every group's residual masses on the common node grid."""
        if self._dct is None:
            (masses,) = _masses(self.s, (self.resid,), self.local, self.n_sub, _COMMON)
            if self.boundary == "reflect":  # the end nodes are their own mirror images
                masses[:, [0, -1]] *= 2.0
            self._dct = fft.dct(masses, type=1, axis=1, overwrite_x=True)
        return self._dct

    def smoothed(self, n_nodes: int, g: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Smoothed residual masses at the nodes of a grid finer than the common one
        (widths below 0.01), one row per (group, width) pair: the transforms of
        ``smooth._smece_batch``."""
        uj, inv = np.unique(j, return_inverse=True)
        ug, ginv = np.unique(g, return_inverse=True)
        rows, owner = self._subset(ug)
        (masses,) = _masses(self.s[rows], (self.resid[rows],), owner, ug.size, n_nodes)
        ext = smooth._extend(masses, self.boundary)
        length = fft.next_fast_len(ext.shape[-1], real=True)
        spec = fft.rfft(ext, length)
        kernels = np.stack([smooth._kernel_spectrum(x / _TOP, n_nodes, length)
                            for x in uj.tolist()])
        return fft.irfft(spec[ginv] * kernels[inv], length)[:, n_nodes - 1: 2 * n_nodes - 1]

    def common_abs_sums(self, g: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Mesh sum of |smoothed residual| of each (group, width) pair on the common
        node grid, :data:`_BLOCK` pairs at a time (each block's spectra, transforms
        and mesh values stay in cache)."""
        spectra = self._spectra()
        uj, inv = np.unique(j, return_inverse=True)
        kernels = np.stack([_dct_kernel(x) for x in uj.tolist()])
        mesh = _MESH[j]
        out = np.empty(g.size)
        buf = np.empty((min(_BLOCK + 1, g.size), _COMMON))
        for size in np.unique(mesh).tolist():
            at = np.flatnonzero(mesh == size)
            # a last block of one row joins the one before: NumPy sums a lone row of
            # mesh values in another order (a 1-ulp change), blocks of two or more
            # as one batch of all of them
            starts = list(range(0, at.size, _BLOCK))
            if len(starts) > 1 and at.size - starts[-1] == 1:
                starts.pop()
            for b0, b1 in zip(starts, [*starts[1:], at.size], strict=True):
                blk = at[b0:b1]
                x = buf[: blk.size]
                np.take(spectra, g[blk], axis=0, out=x)
                x *= kernels[inv[blk]]
                x = fft.dct(x, type=1, axis=1, overwrite_x=True)
                out[blk] = smooth._abs_mesh_sums(x, size)
        return out

    def density(self, n_nodes: int, g: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Mesh sum of the smoothed weight of each (group, width) pair: the sum over
        the group's rows of the pulled-back functional (:func:`_density_functional`)."""
        uj, inv = np.unique(j, return_inverse=True)
        table = np.stack([_density_table(x, n_nodes, self.boundary) for x in uj.tolist()])
        left, frac = self._binning(n_nodes)
        rows, owner = self._subset(g)
        t = inv[owner]
        lf = left[rows]
        fr = frac[rows]
        u = table[t, lf] * (1.0 - fr) + table[t, lf + 1] * fr
        return np.bincount(owner, weights=self.w[rows] * u, minlength=g.size)

    def values(self, g: np.ndarray, j: np.ndarray) -> np.ndarray:
        """``smECE_sigma`` of group ``g[i]`` at ``sigma = j[i] / _TOP`` (as
        ``smooth._smece_batch`` computes it)."""
        out = np.empty(g.size)
        nodes = _NODES[j]
        for n_nodes in np.unique(nodes).tolist():
            at = np.flatnonzero(nodes == n_nodes)
            ga, ja = g[at], j[at]
            dens = self.density(n_nodes, ga, ja) + _MESH[ja] * smooth._DENSITY_FLOOR
            if n_nodes == _COMMON:
                out[at] = self.common_abs_sums(ga, ja) / dens
                continue
            resid = self.smoothed(n_nodes, ga, ja)
            mesh = _MESH[ja]
            for size in np.unique(mesh).tolist():
                rows = np.flatnonzero(mesh == size)
                part = resid if rows.size == at.size else resid[rows]
                out[at[rows]] = smooth._abs_mesh_sums(part, size) / dens[rows]
        return out


def _search(chunk: _Chunk) -> np.ndarray:
    """``smECE`` at the bandwidth ``smooth._search`` finds, for every group of the chunk.

    The bisection returns the smallest width ``j / 2^10`` that is not too small
    (``sigma >= 0.001`` and ``sigma >= smECE_sigma``), or 1, whenever that predicate
    is monotone along the grid (``smECE_sigma`` decreases in ``sigma``: Błasiok &
    Nakkiran 2024, section 5). This search finds the same width from fewer
    evaluations: a bracket ``(lo, hi]`` of grid widths (``lo`` too small, ``hi``
    not, or 1) narrowed by a fixed-point step, then secant steps on
    ``sigma - smECE_sigma`` rounded to the grid, and, once the estimate settles, the
    two grid widths around it; a bracket that does not halve within two
    evaluations is bisected. It stops when ``hi - lo = 1``, as the bisection does.
    """
    n = chunk.n_sub
    lo = np.ones(n, dtype=np.int64)  # 1 / 1024 < SIGMA_FLOOR: too small
    hi = np.full(n, _TOP, dtype=np.int64)
    val_hi = np.full(n, np.nan)
    xa = np.full(n, np.nan)
    fa = np.full(n, np.nan)
    xb = np.full(n, np.nan)
    fb = np.full(n, np.nan)
    evals = np.zeros(n, dtype=np.int64)
    stale = np.zeros(n, dtype=np.int64)  # evaluations since the bracket last halved
    width0 = hi - lo
    active = np.flatnonzero(hi - lo > 1)
    while active.size:
        a = active
        e = evals[a]
        sa, sb = xa[a] / _TOP, xb[a] / _TOP
        ga, gb = sa - fa[a], sb - fb[a]
        with np.errstate(divide="ignore", invalid="ignore"):
            secant = (sb - gb * (sb - sa) / (gb - ga)) * _TOP
        est = np.where(e == 0, _GUESS, np.where(e == 1, fb[a] * _TOP, secant))
        lo_a, hi_a = lo[a], hi[a]
        bisect = ~np.isfinite(est) | (stale[a] >= _PATIENCE)
        est = np.where(bisect, (lo_a + hi_a) / 2.0, est)
        # the two grid widths around a settled estimate, else the one nearest to it
        pair = ~bisect & (e >= 2) & (np.abs(est - xb[a]) <= 4.0)
        c1 = np.where(pair, np.floor(est), np.rint(est))
        c1 = np.clip(c1, lo_a + 1, hi_a - 1).astype(np.int64)
        c2 = np.clip(c1 + 1, lo_a + 1, hi_a - 1)
        two = pair & (c2 != c1)
        g = np.concatenate([a, a[two]])
        j = np.concatenate([c1, c2[two]])
        val = chunk.values(g, j)
        sig = j / _TOP
        ok = ~((sig < smooth.SIGMA_FLOOR) | (sig < val))  # not too small
        # brackets: the largest too-small width and the smallest other one
        new_lo = lo.copy()
        np.maximum.at(new_lo, g[~ok], j[~ok])
        new_hi = hi.copy()
        np.minimum.at(new_hi, g[ok], j[ok])
        take = ok & (j == new_hi[g])
        val_hi[g[take]] = val[take]
        # secant memory: the latest evaluation (the second of a pair) and the one before
        v1, v2 = val[: a.size], val[a.size:]
        xa[a], fa[a] = xb[a], fb[a]
        xb[a], fb[a] = c1, v1
        a2 = a[two]
        xa[a2], fa[a2] = c1[two], v1[two]
        xb[a2], fb[a2] = c2[two], v2
        evals[a] += 1
        width = new_hi - new_lo
        halved = width[a] * 2 <= width0[a]
        stale[a] = np.where(halved, 0, stale[a] + 1)
        width0[a] = np.where(halved, width[a], width0[a])
        lo, hi = new_lo, new_hi
        active = a[hi[a] - lo[a] > 1]
    # no grid width below 1 passed: the value at sigma = 1 (evaluated only now)
    top = np.flatnonzero(np.isnan(val_hi))
    if top.size:
        val_hi[top] = chunk.values(top, np.full(top.size, _TOP))
    return val_hi


def grouped_smece(score: np.ndarray, outcome: np.ndarray, sample_weight: np.ndarray | None,
                  codes: np.ndarray, n_groups: int, *, boundary: str = "relplot"
                  ) -> np.ndarray:
    """Smooth ECE (automatic bandwidth) of every group, on validated arrays.

    Parameters
    ----------
    score, outcome : ndarray of float, shape (N,)
        Scores in [0, 1] and 0/1 outcomes.
    sample_weight : ndarray of float, shape (N,), or None
        Non-negative relative weights (each group rescaled as
        :func:`calreport.metrics.smooth.smece` rescales them).
    codes : ndarray of int, shape (N,)
        Group of each row, in ``[0, n_groups)``.
    n_groups : int
    boundary : {"relplot", "reflect"}

    Returns
    -------
    ndarray of float, shape (n_groups,)
        NaN for a group without rows (or without positive weight).

    Notes
    -----
    ``smECE_sigma = ∫ |r̂_σ(t) − t| δ̂_σ(t) dt`` at the fixed point ``σ* = smECE_σ*``:
    the width the single-group bisection returns, found by secant steps on its grid
    of widths (the same width whenever "too small" is monotone along that grid, as
    ``smECE_σ`` decreases in ``σ``).

    References
    ----------
    Błasiok, J. & Nakkiran, P. (2024). Smooth ECE: Principled Reliability Diagrams via
    Kernel Smoothing. ICLR 2024. arXiv:2309.12236. Sections 3-4.

    Examples
    --------
    >>> s = np.array([0.2, 0.4, 0.9, 0.3, 0.8])
    >>> y = np.array([0.0, 1.0, 1.0, 0.0, 1.0])
    >>> out = grouped_smece(s, y, None, np.array([0, 0, 0, 1, 1]), 2)
    >>> bool(abs(out[0] - smooth.smece(s[:3], y[:3])) < 1e-12)
    True
    """
    s = np.asarray(score, dtype=np.float64)
    y = np.asarray(outcome, dtype=np.float64)
    codes = np.asarray(codes, dtype=np.int64)
    if sample_weight is None:
        w = np.ones_like(s)
    else:
        w0 = np.asarray(sample_weight, dtype=np.float64)
        keep = w0 > 0
        cnt = np.bincount(codes[keep], minlength=n_groups)
        tot = np.bincount(codes[keep], weights=w0[keep], minlength=n_groups)
        s, y, codes = s[keep], y[keep], codes[keep]
        with np.errstate(divide="ignore", invalid="ignore"):
            w = w0[keep] * (cnt / tot)[codes]
    # rows grouped, each group's rows in their given order
    order = sort_within(codes, n_groups)
    s, y, w, codes = s[order], y[order], w[order], codes[order]
    sizes = np.bincount(codes, minlength=n_groups)
    out = np.full(n_groups, np.nan)
    present = np.flatnonzero(sizes > 0)
    starts = np.r_[0, np.cumsum(sizes)]
    for lo in range(0, present.size, _CHUNK):
        groups = present[lo:lo + _CHUNK]
        a, b = starts[groups[0]], starts[groups[-1] + 1]
        remap = np.full(n_groups, -1, dtype=np.int64)
        remap[groups] = np.arange(groups.size)
        chunk = _Chunk(s[a:b], y[a:b], w[a:b], remap[codes[a:b]], groups.size, boundary)
        out[groups] = _search(chunk)
    return out
