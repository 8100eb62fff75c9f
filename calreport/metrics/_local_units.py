"""LCS and ECI under frequency weights: the LOWESS of the repeated rows, not repeated.

A row of whole-number weight ``w`` stands for ``w`` identical rows (units).  The
LOWESS fit of the repeated rows (statsmodels' ``lowess(it=0)``, as
:mod:`calreport.metrics.local_band` evaluates it) keeps the ``k = floor(frac * N)``
nearest *units* of every evaluation point, ``N = sum w``; statsmodels' window
``[a, a + k)`` of the sorted units is found by bisection on unit indices
(:mod:`calreport.metrics._units`), and every row inside it enters the local sums
with the number of its units inside (its count, or fewer for a row the window
cuts).  The tricube weights, the non-zero count (of units) and the projection form
are those of :func:`calreport.metrics.local_band._lowess_direct`; the reflected KDE
and its bandwidth are those of the repeated rows
(:func:`calreport.metrics._score_density.reflected_kde` with ``units``).  So LCS and ECI
equal their values on the repeated rows to rounding (about 1e-12), at the cost of
explicit sums over each window (no moment tree): O(J x rows in a window).  While
the repeated rows are few (:data:`REPEAT_MAX`) they are built and fitted by the
unweighted engine instead: the same numbers, faster.

One case agrees only to about 1e-6: a window whose positive tricube weights all sit
on one score (the other rows at the radius), which takes heavy ties (a handful of
distinct scores).  The local line is then undefined, and statsmodels' projection
form, with the variance floored at 1e-12, returns the tied mean plus rounding
amplified by that floor; the repeated rows' own value moves by as much with the
order of the sums.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calreport import _labels as lab
from calreport import _validate as v
from calreport.metrics._score_density import reflected_kde
from calreport.metrics._units import sorted_units, unit_rows
from calreport.metrics.calibration_index import _eci_sorted
from calreport.metrics.local import (
    DEFAULT_FRAC,
    _default_grid,
    _first_true,
    _lcs_sorted,
    _resolve_frac,
)

__all__ = ["eci_counts", "lcs_counts"]

# At most this many (query, row) pairs per chunk of queries.
_CHUNK = 1 << 18
#: Up to this many units (and at most ``REPEAT_RATIO`` units a row) the rows are
#: repeated and fitted by the unweighted engine (its moment tree): the same numbers,
#: 4-15x faster than the window sums here (ECI on 2e5 rows of counts 1-3: 0.26 s
#: against 3.9 s), for 16 bytes a unit.
REPEAT_MAX = 4_000_000
REPEAT_RATIO = 8


def _prepared(score: Any, outcome: Any, sample_weight: Any, frac: float | str
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, int]:
    """Rows of positive count sorted by (score, outcome), their cumulative counts,
    ``frac`` and the neighbours ``k`` of every LOWESS fit of the repeated rows."""
    s = v.check_probability(score, "score")
    y = lab.binary_outcome(outcome, "outcome")
    v.check_consistent_length(score=s.size, outcome=y.size)
    w = v.check_sample_weight(sample_weight, s.size, kind="frequency")
    s, y, units = sorted_units(s, y, w)
    n = int(units[-1])
    frac = _resolve_frac(frac, n)
    v.check_distinct_values(s, "score", why="a calibration curve")
    k = v.check_neighbours(n, frac, 2, why="the lowess fit")
    return s, y, units, frac, k


def _repeat(s: np.ndarray, units: np.ndarray) -> bool:
    """Whether the repeated rows are small enough to build (see :data:`REPEAT_MAX`)."""
    return int(units[-1]) <= min(REPEAT_MAX, REPEAT_RATIO * s.size)


def _repeated(s: np.ndarray, y: np.ndarray, units: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """The rows repeated by their counts (already in the repeated rows' order)."""
    counts = np.diff(np.concatenate(([0], units)))
    return np.repeat(s, counts), np.repeat(y, counts)


def _windows(s: np.ndarray, units: np.ndarray, x: np.ndarray, k: int
             ) -> tuple[np.ndarray, np.ndarray]:
    """statsmodels' neighbourhood of the repeated rows at each ``x``: first unit, radius
    (as :func:`calreport.metrics.local_band._windows`, the midpoints read by unit)."""
    n = int(units[-1])
    last = n - k

    def at(u: np.ndarray) -> np.ndarray:
        return s[unit_rows(units, u)]

    def stays(a: np.ndarray) -> np.ndarray:
        return (a >= last) | (x <= (at(a) + at(np.minimum(a + k, n - 1))) / 2.0)

    start = _first_true(stays, np.zeros(x.size, dtype=np.int64),
                        np.full(x.size, last, dtype=np.int64))
    radius = np.maximum(x - at(start), at(start + k - 1) - x)
    return start, radius


def _lowess(s: np.ndarray, y: np.ndarray, units: np.ndarray, x: np.ndarray, k: int
            ) -> np.ndarray:
    """LOWESS (``it=0``) of the repeated rows at ``x``; the tied-mean fallback of
    :func:`calreport.metrics.local._lowess_or_tied_mean` where the line is undefined."""
    out = np.empty(x.size)
    if x.size == 0:
        return out
    start, radius = _windows(s, units, x, k)
    end = start + k
    before = np.concatenate(([0], units))
    r0, r1 = unit_rows(units, start), unit_rows(units, end - 1)
    width = int((r1 - r0).max()) + 1
    offsets = np.arange(width)[:, None]
    step = max(1, _CHUNK // width)
    for j0 in range(0, x.size, step):
        sl = slice(j0, j0 + step)
        # one column per query; rows past the window count 0
        idx = np.minimum(r0[sl] + offsets, s.size - 1)
        inside = offsets <= (r1[sl] - r0[sl])
        c = (np.minimum(units[idx], end[sl]) - np.maximum(before[idx], start[sl]))
        c = np.where(inside, c, 0).astype(np.float64)
        xs, xv = s[idx], x[sl]
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.abs(xs - xv) / radius[sl]
            t = 1.0 - t * t * t
            tri = t * t * t
            ok = np.sum(c * (tri > 1e-12), axis=0) >= 2
            w = c * tri
            w /= w.sum(axis=0)
            xbar = np.sum(w * xs, axis=0)
            dev = xs - xbar
            var = np.maximum(np.sum(w * dev * dev, axis=0), 1e-12)
            fit = np.sum(w * (1.0 + dev * (xv - xbar) / var) * y[idx], axis=0)
        out[sl] = np.where(ok, fit, np.nan)
    tied = (before[np.searchsorted(s, x, side="right")]
            - before[np.searchsorted(s, x, side="left")])
    bad = ~np.isfinite(out) | (tied >= k)
    if bad.any():
        out[bad] = _nn_mean(s, y, units, x[bad], k)
    return out


def _nn_mean(s: np.ndarray, y: np.ndarray, units: np.ndarray, x: np.ndarray, k: int
             ) -> np.ndarray:
    """:func:`calreport.metrics.local._nn_local_mean` of the repeated rows: the mean
    outcome of the units within the k-th nearest unit distance of ``x``."""
    n = int(units[-1])
    before = np.concatenate(([0], units))
    last = n - k

    def at(u: np.ndarray) -> np.ndarray:
        return s[unit_rows(units, u)]

    pos = before[np.searchsorted(s, x, side="left")]

    def window_stays(a: np.ndarray) -> np.ndarray:
        nxt = np.minimum(a + k, n - 1)
        return (a >= last) | (np.abs(x - at(a)) <= np.abs(at(nxt) - x))

    a = _first_true(window_stays, np.clip(pos - k, 0, last), np.clip(pos, 0, last))
    h = np.maximum(np.abs(x - at(a)), np.abs(at(a + k - 1) - x))
    rows = s.size

    def inside(i: np.ndarray) -> np.ndarray:
        return np.abs(s[i] - x) <= h

    def beyond(i: np.ndarray) -> np.ndarray:
        return (i >= rows) | (np.abs(s[np.minimum(i, rows - 1)] - x) > h)

    left = _first_true(inside, np.zeros_like(a), unit_rows(units, a))
    right = _first_true(beyond, unit_rows(units, a + k - 1), np.full_like(a, rows))
    cy = np.concatenate(([0.0], np.cumsum(np.diff(before) * y)))
    return (cy[right] - cy[left]) / (before[right] - before[left])


def lcs_counts(score: Any, outcome: Any, sample_weight: Any, *,
               frac: float | str = DEFAULT_FRAC, n_grid: int = 100) -> float:
    """LCS (LOWESS, :func:`calreport.metrics.local.lcs`) of the rows repeated
    ``sample_weight`` times (whole numbers), without repeating them.

    Examples
    --------
    >>> import numpy as np
    >>> from calreport.metrics.local import lcs
    >>> s = np.linspace(0.01, 0.99, 60)
    >>> y = np.sin(40 * s) > 0.5 - s
    >>> w = np.arange(60) % 3
    >>> bool(abs(lcs_counts(s, y, w) - lcs(np.repeat(s, w), np.repeat(y, w))) < 1e-12)
    True
    """
    s, y, units, frac, k = _prepared(score, outcome, sample_weight, frac)
    if _repeat(s, units):
        rs, ry = _repeated(s, y, units)
        return _lcs_sorted(rs, ry, method="lowess", frac=frac, k=k, n_grid=n_grid)
    x = _default_grid(s, v.check_positive_int(n_grid, "n_grid"))
    if x.size == 0:
        return float("nan")
    g = np.clip(_lowess(s, y, units, x, k), 0.0, 1.0)
    dens, _ = reflected_kde(s, x, units)
    return float(np.sum(dens * (g - x) ** 2) / np.sum(dens))


def eci_counts(score: Any, outcome: Any, sample_weight: Any, *,
               frac: float | str = DEFAULT_FRAC, n_nodes: int | None = 500) -> float:
    """ECI (LOWESS, :func:`calreport.metrics.calibration_index.eci`) of the rows
    repeated ``sample_weight`` times (whole numbers), without repeating them.

    The curve is read at every distinct score when there are at most ``n_nodes`` of
    them, else interpolated between nodes at the quantiles of the repeated rows, as
    :func:`calreport.metrics.calibration_index.eci` places them.

    Examples
    --------
    >>> import numpy as np
    >>> from calreport.metrics.calibration_index import eci
    >>> s = np.linspace(0.01, 0.99, 60)
    >>> y = np.sin(40 * s) > 0.5 - s
    >>> w = np.arange(60) % 3
    >>> bool(abs(eci_counts(s, y, w) - eci(np.repeat(s, w), np.repeat(y, w))) < 1e-10)
    True
    """
    s, y, units, frac, k = _prepared(score, outcome, sample_weight, frac)
    if _repeat(s, units):
        rs, ry = _repeated(s, y, units)
        return _eci_sorted(rs, ry, method="lowess", frac=frac, k=k, n_nodes=n_nodes)
    n = int(units[-1])
    counts = np.diff(np.concatenate(([0], units))).astype(np.float64)
    first = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    if n_nodes is not None:
        n_nodes = v.check_positive_int(n_nodes, "n_nodes", minimum=2)
    if n_nodes is None or first.size <= n_nodes:
        g = _lowess(s, y, units, s[first], k)
        gap = np.repeat(np.clip(g, 0.0, 1.0) - s[first], np.diff(np.r_[first, s.size]))
    else:
        at_quantiles = s[unit_rows(units, np.round(np.linspace(0, n - 1, n_nodes))
                                   .astype(np.int64))]
        nodes = np.unique(np.concatenate(
            (at_quantiles, np.linspace(s[0], s[-1], n_nodes // 5 + 2))))
        fitted = _lowess(s, y, units, nodes, k)
        gap = np.clip(np.interp(s, nodes, fitted), 0.0, 1.0) - s
    return float(100.0 * np.dot(counts, gap * gap) / n)
