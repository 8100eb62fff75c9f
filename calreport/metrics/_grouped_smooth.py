"""Smooth ECE of many groups at once: one batched bandwidth search over group codes.

Each group's value is that of :func:`calreport.metrics.smooth.smece` on its rows
alone (same node grid, kernel spectra, mesh and bisection), but the node masses of
all groups come from one ``bincount`` over (group, node) codes, their spectra from
one batched real FFT, and the bisection of the bandwidth runs for every group at
once: a vector of per-group brackets, one batched inverse FFT per step.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import fft

from calreport.metrics import smooth

__all__ = ["grouped_smece"]

#: Groups per batch of the search (bounds the spectra held at once to ~35 MB).
_CHUNK = 1024


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


@functools.lru_cache(maxsize=256)
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


class _Chunk:
    """Rows of a batch of groups and their spectra per node grid."""

    def __init__(self, s: np.ndarray, y: np.ndarray, w: np.ndarray, local: np.ndarray,
                 n_sub: int, boundary: str) -> None:
        self.s, self.w, self.local, self.n_sub, self.boundary = s, w, local, n_sub, boundary
        self.resid = w * (s - y)
        self._spectra: dict[int, tuple[np.ndarray, int]] = {}

    def spectrum(self, n_nodes: int, groups: np.ndarray | None) -> tuple[np.ndarray, int]:
        """Spectra (groups, L) of the reflected residual masses (None: every group)."""
        if groups is None:
            if n_nodes not in self._spectra:
                self._spectra[n_nodes] = self._transform(n_nodes, np.arange(self.n_sub))
            return self._spectra[n_nodes]
        return self._transform(n_nodes, groups)

    def _transform(self, n_nodes: int, groups: np.ndarray) -> tuple[np.ndarray, int]:
        pick = np.zeros(self.n_sub, dtype=bool)
        pick[groups] = True
        rows = pick[self.local]
        renum = np.cumsum(pick) - 1
        (masses,) = _masses(self.s[rows], (self.resid[rows],), renum[self.local[rows]],
                            groups.size, n_nodes)
        ext = smooth._extend(masses, self.boundary)
        length = fft.next_fast_len(ext.shape[-1], real=True)
        return fft.rfft(ext, length), length

    def density(self, n_nodes: int, sigma: np.ndarray, n_mesh: np.ndarray) -> np.ndarray:
        """Mesh sum of each group's smoothed weight at its own (sigma, mesh).

        Small groups: a sum over their rows of the pulled-back functional; large
        groups (more rows than nodes): from the spectrum of their weight masses, as
        ``smooth._smece_batch`` reads it.
        """
        if self.s.size > self.n_sub * n_nodes:
            return self._spectral_density(n_nodes, sigma, n_mesh)
        pos = self.s * (n_nodes - 1)
        left = np.clip(pos.astype(np.int64), 0, n_nodes - 2)
        frac = pos - left
        pairs = np.stack([sigma, n_mesh.astype(np.float64)], axis=1)
        uniq, inv = np.unique(pairs, axis=0, return_inverse=True)
        table = np.stack([_density_functional(float(sg), int(m), n_nodes, self.boundary)
                          for sg, m in uniq.tolist()])
        row = inv.reshape(-1)[self.local]
        u = table[row, left] * (1.0 - frac) + table[row, left + 1] * frac
        return np.bincount(self.local, weights=self.w * u, minlength=self.n_sub)

    def _spectral_density(self, n_nodes: int, sigma: np.ndarray, n_mesh: np.ndarray
                          ) -> np.ndarray:
        key = -n_nodes  # the weight masses' spectrum, beside the residuals' ones
        if key not in self._spectra:
            (masses,) = _masses(self.s, (self.w,), self.local, self.n_sub, n_nodes)
            ext = smooth._extend(masses, self.boundary)
            length = fft.next_fast_len(ext.shape[-1], real=True)
            self._spectra[key] = (fft.rfft(ext, length), length)
        spec, length = self._spectra[key]
        out = np.empty(self.n_sub)
        for i in range(self.n_sub):  # groups larger than the node grid: a few
            kern = smooth._kernel_spectrum(float(sigma[i]), n_nodes, length)
            c = smooth._mesh_sum_spectrum(int(n_mesh[i]), n_nodes, length)
            out[i] = ((spec[i] * kern) @ c).real
        return out


def _values_at(chunk: _Chunk, sigma: np.ndarray, todo: np.ndarray) -> np.ndarray:
    """``smECE_sigma`` of each group of the chunk at its own ``sigma`` (as
    ``smooth._smece_batch``); NaN where ``todo`` is False."""
    out = np.full(chunk.n_sub, np.nan)
    nodes = np.where(todo, np.array([smooth._n_nodes(x) for x in sigma.tolist()]), 0)
    common = smooth._n_nodes(1.0)
    for n_nodes in np.unique(nodes[todo]).tolist():
        at = np.flatnonzero(nodes == n_nodes)
        if n_nodes == common:
            spec, length = chunk.spectrum(n_nodes, None)
            sig = np.where(nodes == n_nodes, sigma, 1.0)
            at = np.arange(chunk.n_sub)
        else:
            spec, length = chunk.spectrum(n_nodes, at)
            sig = sigma[at]
        uniq, inv = np.unique(sig, return_inverse=True)
        kernels = np.stack([smooth._kernel_spectrum(x, n_nodes, length)
                            for x in uniq.tolist()])
        resid = fft.irfft(spec * kernels[inv], length)
        mesh = np.array([smooth._n_mesh(x) for x in uniq.tolist()])[inv]
        dens_sigma = np.ones(chunk.n_sub)
        dens_sigma[at] = sig
        dens_mesh = np.full(chunk.n_sub, smooth._MIN_MESH)
        dens_mesh[at] = mesh
        dens = chunk.density(n_nodes, dens_sigma, dens_mesh)[at]
        for size in np.unique(mesh).tolist():
            rows = np.flatnonzero(mesh == size)
            left, right_w = smooth._mesh_weights(size, n_nodes)
            part = resid if rows.size == at.size else resid[rows]
            on_mesh = (part[:, n_nodes - 1 + left] * (1.0 - right_w)
                       + part[:, n_nodes + left] * right_w)
            val = np.abs(on_mesh).sum(axis=1) / (dens[rows] + size * smooth._DENSITY_FLOOR)
            keep = nodes[at[rows]] == n_nodes
            out[at[rows][keep]] = val[keep]
    return out


def _search(chunk: _Chunk) -> np.ndarray:
    """The bisection of ``smooth._search`` for every group of the chunk at once."""
    n = chunk.n_sub
    v_one = _values_at(chunk, np.ones(n), np.ones(n, dtype=bool))
    active = ~(v_one > 1.0)  # sigma = 1 already too small: smECE_1 is the value
    hi, lo = np.ones(n), np.zeros(n)
    val_hi = v_one.copy()
    for _ in range(smooth.SEARCH_STEPS):
        mid = (hi + lo) / 2.0
        small = mid < smooth.SIGMA_FLOOR
        val = _values_at(chunk, mid, active & ~small)
        too_small = small | (mid < val)
        lo = np.where(too_small, mid, lo)
        keep = active & ~too_small
        hi = np.where(keep, mid, hi)
        val_hi = np.where(keep, val, val_hi)
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
    ``smECE_sigma = ∫ |r̂_σ(t) − t| δ̂_σ(t) dt`` at the fixed point ``σ* = smECE_σ*``
    found by bisection, exactly as for one group.

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
    order = np.argsort(codes, kind="stable")
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
