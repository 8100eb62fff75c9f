"""Smooth ECE out of core, exactly: the node-grid sums of its kernel smoothing.

The smooth ECE (:func:`calreport.metrics.smooth.smece`) spreads every row linearly
onto a node grid and smooths the node masses; its bandwidth search visits the dyadic
widths ``j / 2^10`` only, which use ten node grids (5121 down to 1001 nodes, 20,762
nodes in all).  The masses of the weights and of the weighted residuals on those
grids are sums over rows, so they merge across partitions, batches and days, and the
search run on the merged masses gives the value of the whole data (equal to the pandas
value up to the order of the float64 additions, about 1e-15).

A group costs 2 x 20,762 float64 (about 0.33 MB) for the profile's default
calibration view (the positive class for binary input, else the top label); another
view falls back to the sample.  The masses are float64 sums: merged in another order
they may differ in the last bits (about 1e-16 relative), unlike the integer sums of
the other exact metrics.  The masses are kept while a state holds at most
``StatsConfig.smooth_groups`` groups (default 64, about 21 MB); a merge whose groups exceed it
drops them in every order of merging, and the smooth ECE then falls back to the
uniform sample, saying so.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calreport.metrics import smooth as _smooth
from calreport.profile import ConfidenceProfile

__all__ = ["GRID_SIZES", "grid_masses", "merge", "smece_from_masses"]

_STEPS = 2 ** _smooth.SEARCH_STEPS
#: Node grids the bandwidth search can use (the widths ``j / 2^10`` it can evaluate).
GRID_SIZES: tuple[int, ...] = tuple(sorted(
    {_smooth._n_nodes(j / _STEPS) for j in range(1, _STEPS + 1)
     if j / _STEPS >= _smooth.SIGMA_FLOOR}, reverse=True))
_STARTS = np.concatenate([[0], np.cumsum(GRID_SIZES)])
_TOTAL = int(_STARTS[-1])


def grid_masses(profile: ConfidenceProfile, codes: np.ndarray, keys: list[Any]
                ) -> dict[Any, dict[str, np.ndarray]]:
    """Per group key, the node masses ``(2, 20762)`` of the profile's default view:
    weights, then weighted residuals ``w (s - y)``, on every grid of
    :data:`GRID_SIZES` one after the other.

    Rows are split between the two nodes around their score as in
    :class:`calreport.metrics.smooth._Smoother` (the same float operations, summed in
    row order); weights are the raw sample weights (rescaled at the finish).
    """
    g = len(keys)
    w = profile.sample_weight
    out: dict[str, np.ndarray] = {}
    # the default view only (positive class for binary input): another view asked at
    # the finish falls back to the sample, saying so
    for view in (profile.default_view,):
        s, y = profile.view(view)
        weight = np.ones(profile.n) if w is None else w
        resid = weight * (s - y.astype(np.float64))
        masses = np.zeros((g, 2, _TOTAL))
        for size, start in zip(GRID_SIZES, _STARTS[:-1], strict=True):
            pos = s * (size - 1)
            left = np.clip(pos.astype(np.int64), 0, size - 2)
            frac = pos - left
            cell = codes * size + left
            for row, val in enumerate((weight, resid)):
                upper = val * frac
                block = np.bincount(cell, weights=val - upper, minlength=g * size)
                block += np.bincount(cell + 1, weights=upper, minlength=g * size)
                masses[:, row, start:start + size] = block.reshape(g, size)
        out[view] = masses
    n = np.bincount(codes, minlength=g)
    return {keys[i]: {v: m[i] for v, m in out.items()} for i in range(g) if n[i]}


def merge(a: dict[Any, dict[str, np.ndarray]] | None, b: dict[Any, dict[str, np.ndarray]] | None,
          limit: int) -> dict[Any, dict[str, np.ndarray]] | None:
    """Sum of two groups' masses; None (dropped) when either is, or above ``limit`` groups.

    The union of the keys exceeds ``limit`` in one order of merging exactly when it
    does in every order, so dropping is associative and commutative too.
    """
    if a is None or b is None or len({*a, *b}) > limit:
        return None
    out = {k: dict(v) for k, v in a.items()}
    for key, views in b.items():
        if key in out:
            out[key] = {v: out[key][v] + m for v, m in views.items()}
        else:
            out[key] = dict(views)
    return out


class _Stored(_smooth._Smoother):
    """A smoother reading stored node masses instead of rows."""

    def __init__(self, masses: np.ndarray):
        super().__init__(np.empty(0), np.empty(0), ())
        self._stored = masses

    def masses(self, n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
        if n_nodes not in self._cache:
            i = GRID_SIZES.index(n_nodes)  # ValueError: a grid the state does not hold
            block = self._stored[:, _STARTS[i]:_STARTS[i + 1]]
            self._cache = {n_nodes: (block[0], block[1:])}
            self._spectra = {}
        return self._cache[n_nodes]


def smece_from_masses(masses: np.ndarray, n_positive: int, weight_sum: float) -> float:
    """Smooth ECE (automatic bandwidth, ``boundary="relplot"``) of one group's masses.

    ``n_positive`` rows with positive weight and their ``weight_sum``: the weights are
    rescaled to mean 1 over those rows, as :func:`calreport.metrics.smooth.smece` does.
    """
    if n_positive == 0 or not weight_sum > 0.0:
        return float("nan")
    scale = n_positive / weight_sum
    scaled = masses if scale == 1.0 else masses * scale
    return float(_smooth._search(_Stored(scaled), "relplot")[1])
