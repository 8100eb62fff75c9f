"""Rows in chunks: sums over a large sample without temporaries of N rows.

Every metric that reads its rows a chunk at a time takes the chunk size from
:data:`ROWS` (read when it runs, so a test may make it small).
"""

from __future__ import annotations

__all__ = ["ROWS", "row_slices"]

#: Rows per chunk: 64 Ki rows keep each float64 temporary at 512 KiB.
ROWS = 1 << 16


def row_slices(n: int) -> list[slice]:
    """``n`` rows as consecutive slices of at most :data:`ROWS` rows (one slice, maybe
    empty, when ``n <= ROWS``).

    Examples
    --------
    >>> row_slices(3)
    [slice(0, 3, None)]
    """
    step = ROWS
    return [slice(lo, min(n, lo + step)) for lo in range(0, max(n, 1), step)]
