"""Row orders within groups: the grouped kernels' sorts by (group, key ...) and the
rows of group ranges."""

from __future__ import annotations

import numpy as np

__all__ = ["ranges", "sort_within"]

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


def ranges(starts: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row indices of several row ranges laid end to end, and the range of each.

    Range ``i`` is ``starts[i] .. starts[i] + sizes[i] - 1``.

    Examples
    --------
    >>> rows, owner = ranges(np.array([5, 0]), np.array([2, 3]))
    >>> rows.tolist(), owner.tolist()
    ([5, 6, 0, 1, 2], [0, 0, 1, 1, 1])
    """
    total = int(sizes.sum())
    owner = np.repeat(np.arange(sizes.size), sizes)
    first = np.cumsum(sizes) - sizes
    return np.arange(total) - first[owner] + starts[owner], owner
