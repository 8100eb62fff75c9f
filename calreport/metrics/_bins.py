"""Bin sums shared by the binned metrics: weight scaling, edges, assignment, sums.

The conventions are those of :mod:`calreport.metrics.binned` (right-closed bins,
0 in the first bin; equal-mass edges by type-7 quantiles with ties kept together).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from calreport import _labels as lab
from calreport import _validate as v
from calreport.metrics.weighted import kish_size

#: Accepted values of ``strategy``.
STRATEGIES = ("uniform", "quantile")

Strategy = Literal["uniform", "quantile"]


def _scale_weights(w: np.ndarray | None) -> tuple[np.ndarray | None, int]:
    """Weights divided by ``2**e`` with ``max(w) = m 2**e``, ``0.5 <= m < 1``, and ``e``.

    Weighted sums and squared weights overflow for weights near 1e160 and underflow
    for weights near 1e-200.  Dividing by a power of two changes no mantissa, so every
    ratio of weighted sums (bin means, ``|B_m| / N``, Kish's effective size) is bitwise
    what it was, and the estimators are invariant to the scale of the weights over the
    whole float range.
    """
    if w is None:
        return None, 0
    _, exponent = np.frexp(np.max(w))
    return np.ldexp(w, -int(exponent)), int(exponent)


def _uniform_edges(n_bins: int) -> np.ndarray:
    # m / M is the float nearest the true edge; linspace's m * (1 / M) can be one ulp off
    return np.arange(n_bins + 1, dtype=np.float64) / n_bins


def _quantile_edges(
    s: np.ndarray, w: np.ndarray | None, n_bins: int, exponent: int = 0
) -> np.ndarray:
    """Type-7 (linear) quantiles of ``s`` at ``m / n_bins``, weighted as repeated rows.

    Row ``i`` of the sorted positive-weight scores covers the weight interval
    ``[C_{i-1}, C_i)`` (``C`` = cumulative weight).  The quantile function equals
    ``x_i`` on ``[C_{i-1}, C_i - u]`` and rises linearly to ``x_{i+1}`` on
    ``(C_i - u, C_i)``; the quantile of order ``q`` is read at ``h = q (W - u)``.
    With unit weights and ``u = 1`` this is ``np.percentile``; integer weights act
    as repeated rows.  ``u = min(1, mean positive weight)`` keeps the edges from
    collapsing when the weights are normalised (sum to 1, say).  ``w`` may be scaled
    by ``2**-exponent`` (see :func:`_scale_weights`); ``u`` is taken on the original
    scale, so the edges do not depend on the scaling.
    """
    steps = np.arange(n_bins + 1, dtype=np.float64)
    if w is None:
        # unit weights: position h = m (N - 1) / M, exact when it is an integer
        n = s.size
        h = steps * (n - 1) / n_bins
        i = np.floor(h).astype(np.int64)
        frac = h - i
        j = np.minimum(i + 1, n - 1)
        # only these order statistics are needed: a partial sort is O(N)
        part = np.partition(s, np.unique(np.concatenate([i, j])))
        lo, hi = part[i], part[j]
    else:
        order = np.argsort(s, kind="stable")
        ws = w[order]
        keep = ws > 0
        xs, ws = s[order][keep], ws[keep]
        n = xs.size
        cum_end = np.cumsum(ws)
        cum_before = cum_end - ws
        total = float(cum_end[-1])
        # u = min(1, mean weight) on the original scale, expressed on the scaled one
        with np.errstate(over="ignore"):  # 2**1074 is inf: then u is the mean weight
            unit = min(total / n, float(np.ldexp(1.0, -exponent)))
        h = steps * (total - unit) / n_bins
        i = np.clip(np.searchsorted(cum_before, h, side="right") - 1, 0, n - 1)
        frac = np.clip((h - (cum_end[i] - unit)) / unit, 0.0, 1.0)
        lo, hi = xs[i], xs[np.minimum(i + 1, n - 1)]
        lo[0], hi[-1] = xs[0], xs[-1]
    ramp = (frac > 0) & (hi > lo)
    # Rounding must never carry an interpolated edge onto the next score: that score
    # would change bin, and the bins would no longer follow the weight positions.
    edges = np.where(ramp, np.minimum(lo + frac * (hi - lo), np.nextafter(hi, -np.inf)), lo)
    edges[0], edges[-1] = lo[0], hi[-1]
    return np.maximum.accumulate(edges)


def _edges(
    s: np.ndarray, w: np.ndarray | None, n_bins: int, strategy: str, exponent: int = 0
) -> np.ndarray:
    if strategy == "uniform":
        return _uniform_edges(n_bins)
    return _quantile_edges(s, w, n_bins, exponent)


def _assign(s: np.ndarray, edges: np.ndarray) -> np.ndarray:
    # (lo, hi] bins: side="left" puts a score equal to an interior edge in the lower
    # bin; scores at or below the first interior edge (0 included) go to bin 0.
    return np.searchsorted(edges[1:-1], s, side="left").astype(np.int64)


def _assign_uniform(s: np.ndarray, n_bins: int) -> np.ndarray:
    """``_assign(s, _uniform_edges(n_bins))`` by arithmetic, for scores in [0, 1].

    ``floor(s * M)`` is the bin of ``[m/M, (m+1)/M)``; the bins are right-closed, and
    the product can round across an edge, so each index is then checked against the
    exact edges of its bin (two gathers from an ``M + 1`` array) and moved by one
    where needed: the result equals the binary search bit for bit, at a fraction of
    its cost (a binary search per row branches unpredictably).
    """
    edges = _uniform_edges(n_bins)
    idx = np.multiply(s, n_bins).astype(np.int64)
    np.minimum(idx, n_bins - 1, out=idx)  # s = 1
    # lower[m] = m / M except -inf for the first bin; upper[m] = (m + 1) / M except
    # +inf for the last: a score equal to a lower edge belongs to the bin below
    lower = np.concatenate(([-np.inf], edges[1:-1]))
    upper = np.concatenate((edges[1:-1], [np.inf]))
    down = s <= lower[idx]
    up = s > upper[idx]
    idx -= down
    idx += up
    return idx


@dataclass(frozen=True)
class _BinSums:
    """Per-bin weighted sums (float64 arrays of length ``n_bins``).

    With weights, the sums are of the weights scaled by ``2**-exponent`` (see
    :func:`_scale_weights`); ratios of sums are unaffected.
    """

    edges: np.ndarray
    index: np.ndarray
    count: np.ndarray
    weight: np.ndarray
    weight_sq: np.ndarray
    score: np.ndarray
    outcome: np.ndarray
    total: float
    exponent: int = 0


def _bin_sums(
    s: np.ndarray, y: np.ndarray, w: np.ndarray | None, n_bins: int, strategy: str
) -> _BinSums:
    """Bin the validated rows and accumulate their sums with ``np.bincount``."""
    w, exponent = _scale_weights(w)
    edges = _edges(s, w, n_bins, strategy, exponent)
    idx = _assign_uniform(s, n_bins) if strategy == "uniform" else _assign(s, edges)
    yf = y if y.dtype == np.float64 else y.astype(np.float64)
    if w is None:
        count = np.bincount(idx, minlength=n_bins)
        weight = count.astype(np.float64)
        weight_sq = weight
        score = np.bincount(idx, weights=s, minlength=n_bins)
        outcome = np.bincount(idx, weights=yf, minlength=n_bins)
        total = float(s.size)
    else:
        count = np.bincount(idx[w > 0], minlength=n_bins)
        weight = np.bincount(idx, weights=w, minlength=n_bins)
        weight_sq = np.bincount(idx, weights=w * w, minlength=n_bins)
        score = np.bincount(idx, weights=w * s, minlength=n_bins)
        outcome = np.bincount(idx, weights=w * yf, minlength=n_bins)
        total = float(w.sum())
    return _BinSums(edges, idx, count.astype(np.int64), weight, weight_sq, score, outcome,
                    total, exponent)


def _prepare(
    score: Any, outcome: Any, sample_weight: Any, n_bins: int, strategy: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int]:
    n_bins = v.check_n_bins(n_bins)
    v.check_option(strategy, "strategy", STRATEGIES)
    s = v.check_probability(score, "score")
    y = lab.binary_outcome(outcome, "outcome")
    v.check_consistent_length(score=s.shape[0], outcome=y.shape[0])
    w = v.check_sample_weight(sample_weight, s.shape[0])
    return s, y, w, n_bins


def _bin_means(sums: _BinSums) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean score, mean outcome and the mask of bins with positive weight."""
    full = sums.weight > 0
    den = np.where(full, sums.weight, 1.0)
    conf = np.where(full, sums.score / den, np.nan)
    acc = np.where(full, sums.outcome / den, np.nan)
    return conf, acc, full


def _kish(sums: _BinSums) -> np.ndarray:
    """Kish effective sample size ``(sum w)^2 / sum w^2`` per bin (0 when empty)."""
    return kish_size(sums.weight, sums.weight_sq)


# ------------------------------------------------------------------------- binning
