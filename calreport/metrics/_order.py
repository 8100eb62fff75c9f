"""Row orders within groups: the grouped kernels' sorts by (group, key ...) and the
rows of group ranges."""

from __future__ import annotations

import numpy as np

__all__ = ["range_rows", "ranges", "sort_within"]

#: Groups up to this many take the two-pass sort (their codes fit 16 bits).
_SMALL_CODES = 1 << 16


def sort_within(codes: np.ndarray, n_groups: int, *keys: np.ndarray) -> np.ndarray:
    """``np.lexsort((*keys, codes))``: rows by group, then by the last key, ... first
    (without keys: ``np.argsort(codes, kind="stable")``).

    The same permutation (both are stable): the keys are sorted first without the
    codes, then the codes by a stable sort of their 16-bit copy, which NumPy does by
    radix sort, in one linear pass instead of one more comparison sort of the rows.

    Examples
    --------
    >>> codes = np.array([1, 0, 1, 0, 1])
    >>> score = np.array([0.3, 0.9, 0.1, 0.2, 0.3])
    >>> sort_within(codes, 2, score).tolist()
    [3, 1, 2, 0, 4]
    """
    if n_groups > _SMALL_CODES or codes.size < 2:
        return np.lexsort((*keys, codes)) if keys else np.argsort(codes, kind="stable")
    if not keys:
        return np.argsort(codes.astype(np.uint16), kind="stable")
    order = np.lexsort(keys) if len(keys) > 1 else np.argsort(keys[0], kind="stable")
    small = codes[order].astype(np.uint16)
    return order[np.argsort(small, kind="stable")]


def _runs(first: np.ndarray, n: np.ndarray, step: int) -> np.ndarray:
    """``first[i], first[i] + step, ...`` (``n[i] > 0`` entries) for every run, laid
    end to end, by a cumulative sum of the steps and of the jumps between runs."""
    ends = np.cumsum(n)
    out = np.full(int(ends[-1]) if ends.size else 0, step, dtype=np.int64)
    if n.size:
        out[0] = first[0]
        out[ends[:-1]] = first[1:] - (first[:-1] + (n[:-1] - 1) * step)
        np.cumsum(out, out=out)
    return out


def range_rows(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``starts[i] .. starts[i] + sizes[i] - 1`` for every range, laid end to end.

    Built by cumulated steps rather than ``np.repeat`` of the starts.

    Examples
    --------
    >>> range_rows(np.array([5, 9, 0]), np.array([2, 0, 3])).tolist()
    [5, 6, 0, 1, 2]
    """
    nz = np.asarray(sizes) > 0
    return _runs(np.asarray(starts, dtype=np.int64)[nz],
                 np.asarray(sizes, dtype=np.int64)[nz], 1)


def ranges(starts: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row indices of several row ranges laid end to end (:func:`range_rows`), and
    the range of each.

    Examples
    --------
    >>> rows, owner = ranges(np.array([5, 0]), np.array([2, 3]))
    >>> rows.tolist(), owner.tolist()
    ([5, 6, 0, 1, 2], [0, 0, 1, 1, 1])
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    nz = np.flatnonzero(sizes > 0)
    return (_runs(np.asarray(starts, dtype=np.int64)[nz], sizes[nz], 1),
            _runs(nz, sizes[nz], 0))
