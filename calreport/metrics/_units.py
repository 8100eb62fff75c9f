"""Frequency weights as repeated rows, without repeating them.

A row of whole-number weight ``w`` stands for ``w`` identical rows ("units").  The
metrics whose fits count rows (equal-mass bins, nearest-neighbour spans, binnings
of so many rows) read the repeated rows through the cumulative counts ``units``
of rows sorted by score: unit ``u`` (0-based) of the repeated rows is a copy of row
``unit_rows(units, u)``, and sums over the first ``u`` units are
:func:`unit_prefix`.  Everything here is exact integer arithmetic on the counts,
so the repeated rows' bins and windows are found exactly.

Examples
--------
>>> import numpy as np
>>> units = np.cumsum([2, 1, 3])          # rows repeated 2, 1 and 3 times
>>> unit_rows(units, np.arange(6)).tolist()
[0, 0, 1, 2, 2, 2]
>>> unit_prefix(np.array([1.0, 10.0, 100.0]), units, np.array([0, 1, 3, 6])).tolist()
[0.0, 1.0, 12.0, 312.0]
"""

from __future__ import annotations

import numpy as np

__all__ = ["sorted_units", "unit_prefix", "unit_rows"]


def sorted_units(s: np.ndarray, y: np.ndarray, w: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of positive count sorted by (score, outcome), as the repeated rows sort
    (ties by outcome, zeros first), and the cumulative counts (int64)."""
    keep = w > 0
    s, y, w = s[keep], y[keep], w[keep]
    order = np.lexsort((y, s))
    return (np.ascontiguousarray(s[order], dtype=np.float64),
            np.ascontiguousarray(y[order], dtype=np.float64),
            np.cumsum(w[order].astype(np.int64)))


def unit_rows(units: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The row of which unit ``u`` (0-based, below ``units[-1]``) is a copy."""
    return np.searchsorted(units, u, side="right")


def unit_prefix(x: np.ndarray, units: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Sum of ``x`` over the first ``u`` units of the repeated rows (``0 <= u <= N``).

    The rows wholly inside come from a cumulative sum of ``count * x``; the row cut
    by ``u`` adds its units below ``u``.
    """
    before = np.concatenate(([0], units))
    counts = np.diff(before)
    csum = np.concatenate(([0.0], np.cumsum(counts * x)))
    full = np.searchsorted(units, u, side="right")
    return csum[full] + (u - before[full]) * x[np.minimum(full, x.size - 1)]
