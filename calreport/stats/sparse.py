"""Per-group sums over a wide grid of cells, holding only the cells a group occupies.

The fine score bins of AUC and AURC (``score_bins`` = 2^16 per group and class) and
the fine confidence bins of the risk verdict are mostly empty for a group of a few
thousand rows.  A :class:`SparseSums` keeps, per group, the sorted indices of the
cells that hold at least one row and the sums of those cells, in compressed rows:
group ``i`` owns the entries ``ptr[i]:ptr[i + 1]``.  Its size grows with what the
groups hold, not with the grid.

Two states merge by the sorted union of their cells; the exact sums
(:class:`~calreport.stats._exact.FixedSum`) of a cell in both add exactly, so the
merge stays associative and commutative, bit for bit, whatever the order: the cells
of a merged group are the cells of its rows, and their sums the exact sums of those
rows.  Finishers read each group's occupied cells in grid order
(:meth:`SparseSums.padded`, a block of groups at a time), so their work follows what
the groups hold, not the grid; the running sums they take are the dense grid's (its
empty cells add exact zeros), their totals may differ in the last bits (other zeros
in the pairwise sums).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from calreport.stats._exact import FixedSum, check_limbs

__all__ = ["SparseSums", "occupied"]

#: Cells one block of :meth:`SparseSums.padded` takes (about 32 MB of float64 per sum
#: column).
_DENSE_CELLS = 1 << 22


def occupied(cells: np.ndarray, g: int, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct cells of the rows, as compressed rows over the ``g`` groups.

    Parameters
    ----------
    cells : ndarray of int
        Per row, ``group * width + cell``.
    g, width : int
        Groups and cells per group.

    Returns
    -------
    ptr : ndarray of int64, shape (g + 1,)
    index : ndarray of int64, shape (nnz,)
        The occupied cells of each group, sorted.
    slot : ndarray of intp, shape like ``cells``
        The entry of every row (to sum the rows' values into).
    """
    cells = np.asarray(cells, dtype=np.int64)
    size = g * width
    if size <= 16 * cells.size + (1 << 22):  # a mask of the grid is cheap: no sort
        mask = np.zeros(size, dtype=bool)
        mask[cells] = True
        uniq = np.flatnonzero(mask).astype(np.int64)
        slot = np.searchsorted(uniq, cells)
    else:
        uniq, slot = np.unique(cells, return_inverse=True)
    groups = uniq // width
    ptr = np.searchsorted(groups, np.arange(g + 1)).astype(np.int64)
    return ptr, uniq - groups * width, slot.reshape(cells.shape).astype(np.intp)


class SparseSums:
    """Per-group sums of the occupied cells of a grid (compressed rows).

    Parameters
    ----------
    ptr : ndarray of int64, shape (G + 1,)
        Group ``i`` owns the entries ``ptr[i]:ptr[i + 1]``.
    index : ndarray of int64, shape (nnz,)
        Each entry's cell in the group's flattened grid, sorted within a group.
    values : FixedSum or ndarray of float64, leading axis nnz
        Exact sums (a :class:`~calreport.stats._exact.FixedSum`) or float sums of the
        entries; the axes after the first (``tail``) are quantities per cell.
    cells : tuple of int
        Shape of one group's dense grid (``(B,)``, or ``(R, B)`` per class).

    Examples
    --------
    >>> ptr, index, slot = occupied(np.array([3, 3, 8]), 2, 5)
    >>> ptr.tolist(), index.tolist()
    ([0, 1, 2], [3, 3])
    >>> s = SparseSums(ptr, index, np.bincount(slot, minlength=2).astype(float), (5,))
    >>> s.dense(slice(0, 2)).tolist()
    [[0.0, 0.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0]]
    """

    __slots__ = ("cells", "index", "ptr", "values")

    def __init__(self, ptr: np.ndarray, index: np.ndarray, values: FixedSum | np.ndarray,
                 cells: tuple[int, ...]) -> None:
        self.ptr = np.asarray(ptr, dtype=np.int64)
        self.index = np.asarray(index, dtype=np.int64)
        self.values = values
        self.cells = tuple(int(c) for c in cells)

    # ------------------------------------------------------------ shape
    @property
    def exact(self) -> bool:
        """True for exact sums, False for float ones."""
        return isinstance(self.values, FixedSum)

    @property
    def n_groups(self) -> int:
        return int(self.ptr.size - 1)

    @property
    def width(self) -> int:
        """Cells of one group's grid."""
        return math.prod(self.cells)

    @property
    def shape(self) -> tuple[int, ...]:
        """Shape of the dense array the sums stand for: ``(G, *cells, *tail)``."""
        return (self.n_groups, *self.cells, *self.tail)

    @property
    def tail(self) -> tuple[int, ...]:
        """Quantities per cell."""
        return tuple(self.values.shape[1:])

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays held."""
        vals = self.values.limbs if self.exact else self.values
        return int(self.ptr.nbytes + self.index.nbytes + vals.nbytes)

    def entry_groups(self) -> np.ndarray:
        """The group of every entry."""
        return np.repeat(np.arange(self.n_groups, dtype=np.int64), np.diff(self.ptr))

    def _with(self, ptr: np.ndarray, index: np.ndarray, values: FixedSum | np.ndarray
              ) -> SparseSums:
        return SparseSums(ptr, index, values, self.cells)

    def _entries(self, rows: np.ndarray) -> FixedSum | np.ndarray:
        return self.values[rows] if not self.exact else FixedSum(
            self.values.limbs[rows], self.values.frac_bits, normalised=True)

    def with_values(self, values: FixedSum | np.ndarray) -> SparseSums:
        """The same cells holding other values (one per entry)."""
        return self._with(self.ptr, self.index, values)

    # ------------------------------------------------------------ groups
    def __getitem__(self, groups: np.ndarray) -> SparseSums:
        """The groups ``groups`` (an integer array), in that order."""
        groups = np.asarray(groups, dtype=np.intp)
        starts, sizes = self.ptr[:-1][groups], np.diff(self.ptr)[groups]
        ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        rows = np.repeat(starts - ptr[:-1], sizes) + np.arange(int(ptr[-1]), dtype=np.int64)
        return self._with(ptr, self.index[rows], self._entries(rows))

    def take(self, index: np.ndarray, shape: tuple[int, ...]) -> SparseSums:
        """Group ``i`` placed at ``index[i]`` among ``shape[0]`` groups (others empty)."""
        index = np.asarray(index, dtype=np.intp)
        if int(shape[0]) == self.n_groups and np.array_equal(index, np.arange(self.n_groups)):
            return self  # the same groups in the same places (a merge of the same keys)
        order = np.argsort(index, kind="stable")
        part = self[order]
        sizes = np.zeros(int(shape[0]), dtype=np.int64)
        sizes[index[order]] = np.diff(part.ptr)
        return self._with(np.concatenate([[0], np.cumsum(sizes)]), part.index, part.values)

    def __add__(self, other: SparseSums) -> SparseSums:
        """Cell-wise sum over the sorted union of both states' cells."""
        if self.cells != other.cells or self.n_groups != other.n_groups \
                or self.exact != other.exact or self.tail != other.tail:
            raise ValueError(f"Cannot add sparse sums of {self.n_groups} groups x "
                             f"{self.cells} cells and {other.n_groups} x {other.cells}.")
        w = self.width
        keys = np.concatenate([self.entry_groups() * w + self.index,
                               other.entry_groups() * w + other.index])
        order = np.argsort(keys, kind="stable")  # two sorted runs: a linear merge
        ordered = keys[order]
        first = np.ones(ordered.size, dtype=bool)
        first[1:] = ordered[1:] != ordered[:-1]
        uniq = ordered[first]
        slot = np.empty(keys.size, dtype=np.intp)
        slot[order] = np.cumsum(first) - 1
        na = self.index.size
        if self.exact:
            n = max(self.values.limbs.shape[-1], other.values.limbs.shape[-1])
            limbs = np.zeros((uniq.size, *self.tail, n), dtype=np.int64)
            mine, theirs = self.values.limbs, other.values.limbs
            limbs[slot[:na], ..., :mine.shape[-1]] = mine  # each cell once per side
            limbs[slot[na:], ..., :theirs.shape[-1]] += theirs
            values: FixedSum | np.ndarray = FixedSum(limbs, self.values.frac_bits)
        else:
            values = np.zeros((uniq.size, *self.tail))
            values[slot[:na]] += self.values
            values[slot[na:]] += other.values
        groups = uniq // w
        ptr = np.searchsorted(groups, np.arange(self.n_groups + 1)).astype(np.int64)
        return self._with(ptr, uniq - groups * w, values)

    def pooled(self) -> SparseSums:
        """All groups added into one (their cells' union)."""
        uniq, slot = np.unique(self.index, return_inverse=True)
        if self.exact:
            limbs = np.zeros((uniq.size, *self.values.limbs.shape[1:]), dtype=np.int64)
            np.add.at(limbs, slot, self.values.limbs)  # in group order, as a dense sum
            values: FixedSum | np.ndarray = FixedSum(limbs, self.values.frac_bits)
        else:
            values = np.zeros((uniq.size, *self.tail))
            np.add.at(values, slot, self.values)
        return self._with(np.asarray([0, uniq.size], dtype=np.int64), uniq, values)

    def equals(self, other: SparseSums) -> bool:
        """Bitwise equality of the cells and their sums."""
        if not isinstance(other, SparseSums) or self.cells != other.cells \
                or self.exact != other.exact or not np.array_equal(self.ptr, other.ptr) \
                or not np.array_equal(self.index, other.index):
            return False
        if self.exact:
            return self.values.equals(other.values)
        return bool(np.array_equal(self.values, other.values))

    # ------------------------------------------------------------ reading
    def dense(self, groups: slice) -> FixedSum | np.ndarray:
        """The full grids of a block of groups, shape ``(k, *cells, *tail)``."""
        lo, hi, _ = groups.indices(self.n_groups)
        k = max(hi - lo, 0)
        a, b = int(self.ptr[lo]), int(self.ptr[max(hi, lo)])
        flat = (np.repeat(np.arange(k, dtype=np.int64), np.diff(self.ptr[lo:max(hi, lo) + 1]))
                * self.width + self.index[a:b])
        if self.exact:
            n = self.values.limbs.shape[-1]
            limbs = np.zeros((k * self.width, *self.tail, n), dtype=np.int64)
            limbs[flat] = self.values.limbs[a:b]
            return FixedSum(limbs.reshape(k, *self.cells, *self.tail, n),
                            self.values.frac_bits, normalised=True)
        out = np.zeros((k * self.width, *self.tail))
        out[flat] = self.values[a:b]
        return out.reshape(k, *self.cells, *self.tail)

    def dense_float(self, groups: slice) -> np.ndarray:
        """:meth:`dense` as float64 (``FixedSum.to_float`` of the exact sums)."""
        d = self.dense(groups)
        return d.to_float() if isinstance(d, FixedSum) else d

    def padded(self, cells: int | None = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The occupied cells of every grid row, left-aligned in zero-padded float blocks.

        A grid row is a group's grid (one axis) or one row of its leading axis (two
        axes): row ``g * R + r``.  Each block holds rows of like lengths, about
        ``cells`` cells in all (default about 4 million).  A block's length is a power
        of two, at least 8: NumPy's pairwise sum along a row padded so is the same
        whatever the power, so a row's sums do not depend on the rows beside it.

        Yields
        ------
        rows : ndarray of intp, shape (k,)
            The grid rows of the block (every row once over the blocks, empty ones too).
        block : ndarray of float64, shape (k, L, *tail)
            Row ``j``'s occupied cells in grid order (as :meth:`dense_float`), then
            zeros: what a running sum along the row reads in the dense grid, without
            its empty cells (a sum along it may differ in the last bits: other zeros).
        """
        cells = _DENSE_CELLS if cells is None else int(cells)
        per_group = self.cells[0] if len(self.cells) > 1 else 1
        n_rows = self.n_groups * per_group
        row = self.entry_groups() * per_group + self.index // (self.width // per_group)
        length = np.bincount(row, minlength=n_rows)
        start = np.cumsum(length) - length
        values = self.values.to_float() if self.exact else np.asarray(self.values, float)
        order = np.argsort(length, kind="stable")
        ordered = length[order]
        per_cell = max(math.prod(self.tail), 1)
        i = 0
        while i < n_rows:
            # rows by increasing length: the block is as long as its last row
            fits = np.arange(1, n_rows - i + 1) * np.maximum(ordered[i:], 1) * per_cell
            j = i + max(int(np.count_nonzero(fits <= cells)), 1)
            rows, size = order[i:j], ordered[i:j]
            width = max(8, 1 << (int(size[-1]) - 1).bit_length())
            block = np.zeros((j - i, width, *self.tail))
            total = int(size.sum())
            col = np.arange(total) - np.repeat(np.cumsum(size) - size, size)
            block[np.repeat(np.arange(j - i), size), col] = values[
                np.repeat(start[rows], size) + col]
            yield rows, block
            i = j

    def totals(self, column: int | None = None) -> FixedSum:
        """Exact sums per group and leading grid axis over the cells (shape ``(G, R)``
        with ``R = cells[0]`` when the grid has two axes, else ``(G, 1)``), of one
        quantity ``column`` of the tail or of all of them."""
        if not self.exact:
            raise TypeError("totals are exact: only of exact sums")
        limbs = self.values.limbs
        if column is not None:
            limbs = limbs[:, column]
        limbs = limbs.reshape(limbs.shape[0], -1, limbs.shape[-1])
        rows = self.cells[0] if len(self.cells) > 1 else 1
        seg = self.entry_groups() * rows + self.index // (self.width // rows)
        # every limb below 2^32 (split the last one), so 2^31 of them add up in int64
        top = limbs[..., -1]
        parts = np.concatenate([limbs[..., :-1], (top & 0xFFFFFFFF)[..., None],
                                (top >> 32)[..., None]], axis=-1).sum(axis=1)
        out = np.zeros((self.n_groups * rows, parts.shape[-1]), dtype=np.int64)
        np.add.at(out, seg, parts)
        return FixedSum(out.reshape(self.n_groups, rows, -1), self.values.frac_bits)

    # ------------------------------------------------------------ checking
    def check(self, name: str, keys: list) -> None:
        """Raise unless the compressed rows are well formed: ``ptr`` from 0 to the
        entries, non-decreasing; every group's cells sorted, distinct and within the
        grid; values one per entry (normalised limbs, or finite floats).

        Raises
        ------
        ValueError
            Naming ``name``, the first group concerned and the fix.
        """
        fix = ("Built states always hold them so: the state was altered or corrupted; "
               "rebuild it from its batches.")
        ptr, index, nnz = self.ptr, self.index, self.index.size
        if ptr.ndim != 1 or ptr.size != len(keys) + 1 or ptr[0] != 0 or ptr[-1] != nnz \
                or (np.diff(ptr) < 0).any():
            raise ValueError(
                f"{name}.ptr must rise from 0 to the {nnz} entries of `{name}.index` in "
                f"{len(keys) + 1} non-decreasing steps (one per group and one more); got "
                f"{ptr.size} values from {ptr[:1].tolist()} to {ptr[-1:].tolist()}. {fix}")
        lead = self.values.shape[0] if len(self.values.shape) else -1
        if lead != nnz:
            raise ValueError(f"{name} holds {lead} values for {nnz} cells in `index`; one "
                             f"per cell. {fix}")
        groups = self.entry_groups()
        bad = (index < 0) | (index >= self.width)
        step = np.ones(nnz, dtype=bool)
        step[1:] = (index[1:] > index[:-1]) | (groups[1:] != groups[:-1])
        for mask, what in ((bad, f"cells outside the grid [0, {self.width})"),
                           (~step, "cells not sorted or repeated within a group")):
            if mask.any():
                at = int(np.flatnonzero(mask)[0])
                raise ValueError(
                    f"{name}.index holds {int(mask.sum())} {what} (first: cell "
                    f"{int(index[at])} of group {keys[int(groups[at])]!r}). The cells of a "
                    f"group are sorted, distinct and within the grid. {fix}")
        if self.exact:
            check_limbs(self.values.limbs, name)
        elif not np.isfinite(self.values).all():
            at = int(np.flatnonzero(~np.isfinite(self.values).reshape(nnz, -1).any(axis=1))[0])
            raise ValueError(f"{name} holds NaN or infinite values (first in group "
                             f"{keys[int(groups[at])]!r}). {fix}")

    @classmethod
    def from_dense(cls, a: np.ndarray) -> SparseSums:
        """The non-zero cells of a dense float array of shape ``(G, *cells)``."""
        g, cells = a.shape[0], a.shape[1:]
        flat = a.reshape(g, -1)
        grp, idx = np.nonzero(flat)
        ptr = np.searchsorted(grp, np.arange(g + 1)).astype(np.int64)
        return cls(ptr, idx, flat[grp, idx], cells)
