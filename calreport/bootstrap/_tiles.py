"""Batched evaluation of the summary metrics on many bootstrap replicates.

Every row is placed once in each sort order the metrics need: the score order of
each AUC class (negatives before positives among tied scores), the order of
decreasing confidence (AURC) and, for the binned metrics, one of these in which
the bins are contiguous.  Count vectors are exchangeable, so the counts of a block
are drawn directly in the first of these orders (no gather for it) and gathered
into the others one tile at a time (no second copy of the block).  Each order is
walked in tiles of ``(b, 8192)`` cells (``b`` replicates: 32 from 8192 to 2**20
rows, 16 above, where a block of counts is one stream) that stay in the CPU cache:

* the weighted column sums of a tile are one ``float64`` matrix product per bin
  segment (the bins are contiguous, so the per-bin sums of ECE and MCE come out of
  the same product as accuracy, CSR, Brier...);
* running sums of integer counts (AUC, AURC) are integer ``cumsum``: exact and
  eight times faster than a ``float64`` ``cumsum``, which adds one value after the
  other; the AUC's pair count needs only the running total of all the counts
  (summation by parts, :func:`_count_pairs`);
* running sums of real weights (AURC with sample weights) are a matrix product
  with an 8 x 8 triangular matrix of ones plus a short running sum of the chunk
  totals; the pair sums of cwAUC (and of the AUC with sample weights) form no
  running sum at all: one batched matrix product per tile sums the pairs inside
  chunks of 8 columns (see :func:`_prefix_dot`).

Classes whose positives take few distinct scores (one-vs-rest AUC of many
classes: each class's positives are rare) get no sort order at all: see
:class:`_SparseAuc`, which sums the replicate weights by segment of the class's
score axis with one sparse product per batch of classes and chunk of rows
(:mod:`calreport.bootstrap._sparse`).

Sums of integer counts are exact in ``float64``, so the integer and the real paths
give the same numbers.  Blocks run on up to two threads; the BLAS is kept on one
thread meanwhile (threadpoolctl, if installed), because its own threads only slow
these small products down.  NumPy releases the GIL in most of these loops, but not
in an ``accumulate`` (the integer running sums), a two-dimensional ``matmul`` or
``vecdot``, nor between calls: on two threads the GIL, not the cores, bounds a
block (two threads running ``np.cumsum`` on a tile take 2.0-2.3x the time of one
alone, against 1.02x for ``np.multiply``).  Hence the stacked products
of :func:`_triangle_product`, and tiles of 32 replicates, which halve the calls
per replicate.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

_TILE_ROWS = 8192  # rows per tile; fixed, whatever the number of replicates in a block
_PREFIX = 8  # chunk width of the blocked running sums
_SUM_ROWS = 2048  # rows per matrix product of the column sums
_TRIANGLE = np.triu(np.ones((_PREFIX, _PREFIX)))  # x @ _TRIANGLE: running sums of 8
_ONES = np.ones(_PREFIX)
_LOWER = np.tril(np.ones((_PREFIX, _PREFIX))).ravel()  # pairs (a, a') with a' <= a
_TINY = np.finfo(np.float64).tiny


def _rowdot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise dot products of two (r, m) arrays: ``sum_j a_ij b_ij`` for each row.

    ``np.vecdot`` (NumPy 2) runs a BLAS dot per row, about three times faster here
    than ``einsum("ij,ij->i")``, which older NumPy falls back to.
    """
    if _VECDOT is not None:
        return _VECDOT(a, b)
    return np.einsum("ij,ij->i", a, b)  # pragma: no cover - NumPy < 2


_VECDOT = getattr(np, "vecdot", None)


def _padded(m: int) -> int:
    """Width of a tile of ``m`` rows: a multiple of ``_PREFIX**2`` (two chunk levels)."""
    step = _PREFIX * _PREFIX
    return -(-m // step) * step


def _pad(x: np.ndarray, dtype: Any = np.float64) -> np.ndarray:
    """``x`` followed by zeros, so that the padded last tile can be sliced from it."""
    out = np.zeros(x.size + _PREFIX * _PREFIX, dtype=dtype)
    out[: x.size] = x
    return out


def _group_starts(sorted_values: np.ndarray) -> np.ndarray:
    """Start positions of the runs of equal values of a sorted array."""
    if sorted_values.size == 0:
        return np.zeros(0, dtype=np.intp)
    return np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])


def _tie_starts(sorted_values: np.ndarray) -> np.ndarray | None:
    """Starts of the runs of tied values of a sorted array; None when none is tied
    (then a start per row would cost eight bytes a row for nothing)."""
    n = sorted_values.size
    if n < 2:
        return None
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(sorted_values[1:], sorted_values[:-1], out=new[1:])
    return None if new.all() else np.flatnonzero(new)


def _monotone(x: np.ndarray) -> bool:
    """True when ``x`` never decreases or never increases."""
    d = np.diff(x)
    return bool((d >= 0).all() or (d <= 0).all())


def _tile_bounds(n: int, starts: np.ndarray | None) -> list[tuple[int, int]]:
    """Tiles of about ``_TILE_ROWS`` rows that never split a run of tied values."""
    if starts is None or starts.size == n:
        edges = [*range(0, n, _TILE_ROWS), n]
    else:
        edges = [0]
        while edges[-1] < n:
            target = edges[-1] + _TILE_ROWS
            if target >= n:
                edges.append(n)
                break
            nxt = int(starts[np.searchsorted(starts, target, side="right") - 1])
            if nxt <= edges[-1]:  # one tie group longer than a tile: take it whole
                j = int(np.searchsorted(starts, edges[-1], side="right"))
                nxt = int(starts[j]) if j < starts.size else n
            edges.append(nxt)
    return [(a, b) for a, b in itertools.pairwise(edges) if b > a]


class _Buffers:
    """Scratch arrays of one worker, reused across tiles, sort orders and blocks.

    Reusing them matters: first touching freshly mapped memory costs more than
    most of the arithmetic done on it.
    """

    def __init__(self) -> None:
        self._store: dict[tuple[Any, ...], Any] = {}

    def get(self, name: str, b: int, m: int, dtype: Any = np.float64) -> np.ndarray:
        """A C-contiguous (b, m) scratch array (contents undefined)."""
        key = (name, np.dtype(dtype))
        arr = self._store.get(key)
        if arr is None or arr.size < b * m:
            arr = self._store[key] = np.empty(b * m, dtype=dtype)
        return arr[: b * m].reshape(b, m)

    def keep(self, key: tuple[Any, ...], make: Any) -> Any:
        """The object stored under ``key``, made by ``make()`` on first use."""
        obj = self._store.get(key)
        if obj is None:
            obj = self._store[key] = make()
        return obj


def _chunk_prefix(totals: np.ndarray, carry: np.ndarray) -> np.ndarray:
    """``carry`` plus the sum of the earlier entries, for each row of ``totals`` (b, q).

    q % 8 == 0.  Runs of 8 entries are summed by a product with the triangular
    matrix; only the totals of the runs are added one after the other.  ``carry``
    (b,) leaves increased by the row totals.
    """
    b, q = totals.shape
    runs = totals.reshape(b, q // _PREFIX, _PREFIX)
    before = np.empty_like(runs)
    _triangle_product(runs, before)
    top = before[:, :, -1]
    higher = np.cumsum(top, axis=1)
    carry_out = higher[:, -1] + carry
    higher -= top
    higher += carry[:, None]
    before += higher[:, :, None]
    before -= runs
    carry[:] = carry_out
    return before.reshape(b, q)


def _triangle_product(x: np.ndarray, out: np.ndarray) -> None:
    """``out = x @ _TRIANGLE`` for a (b, q, 8) stack: the running sums inside each
    run of 8 entries.

    A stacked product: NumPy releases the GIL for it and it is faster, where a
    two-dimensional ``matmul`` (or ``np.dot`` with ``out``) of the same rows holds
    the GIL; every entry is the same 8-term product either way.
    """
    np.matmul(x, _TRIANGLE, out=out)


def _cumsum_rows(x: np.ndarray, out: np.ndarray, carry: np.ndarray) -> None:
    """``out = carry + cumsum(x, axis=1)`` for a C-contiguous (b, m) tile, m % 64 == 0.

    ``np.cumsum`` of float64 adds one value after the other (about 3 ns a value).
    Here the running sum inside each chunk of 8 columns is one stacked product
    with the 8 x 8 upper-triangular matrix of ones, and the chunk totals are
    accumulated by :func:`_chunk_prefix`.  ``carry`` (b,) enters as the sum of the
    previous tiles and leaves updated.
    """
    b, m = x.shape
    chunks = out.reshape(b, m // _PREFIX, _PREFIX)
    _triangle_product(x.reshape(b, m // _PREFIX, _PREFIX), chunks)
    chunks += _chunk_prefix(np.ascontiguousarray(chunks[:, :, -1]), carry)[:, :, None]


def _prefix_dot(w: np.ndarray, left: np.ndarray, right: np.ndarray, carry: np.ndarray,
                bufs: _Buffers) -> tuple[np.ndarray, np.ndarray]:
    """``sum_i w_i left_i (carry + sum_{j <= i} w_j right_j)`` for each row of a tile,
    and ``sum_i w_i left_i`` (the sum of the chunk totals it needs anyway).

    The running sum is never formed.  Over chunks of 8 columns the double sum
    splits into the pairs inside a chunk and the sum of the earlier chunks, which
    multiplies the chunk's total of ``w * left``.  The pairs inside the chunks are
    one batched matrix product per tile: with ``y = w * left`` and ``x = w *
    right`` seen as (chunks, 8) matrices per row, ``G = y^T x`` (8 x 8) sums
    ``y[c, a] x[c, a']`` over the chunks ``c`` for every pair of columns, and
    the pairs with ``a' <= a`` are its lower triangle: about 4x faster than
    forming the running sums inside the chunks (a product with the 8 x 8
    triangular matrix) and multiplying them by ``y``.  ``carry`` (b,) leaves
    increased by the row totals of ``w * right``.
    """
    b, m = w.shape
    q = m // _PREFIX
    x, y = bufs.get("x", b, m), bufs.get("y", b, m)
    np.multiply(w, right, out=x)
    np.multiply(w, left, out=y)
    pairs = bufs.get("pairs", b, _PREFIX * _PREFIX)
    np.matmul(y.reshape(b, q, _PREFIX).transpose(0, 2, 1), x.reshape(b, q, _PREFIX),
              out=pairs.reshape(b, _PREFIX, _PREFIX))
    dot = np.dot(pairs, _LOWER)
    left_totals = np.dot(y.reshape(-1, _PREFIX), _ONES).reshape(b, q)
    right_totals = np.dot(x.reshape(-1, _PREFIX), _ONES).reshape(b, q)
    dot += _rowdot(left_totals, _chunk_prefix(right_totals, carry))
    return dot, left_totals.sum(axis=1)


def _count_pairs(cnt: np.ndarray, pos: np.ndarray, tile_pos: np.ndarray, int_dtype: Any,
                 bufs: _Buffers) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (positive, negative at or below it) inside a tile of integer counts,
    and the tile's total count, per row.

    With ``S_i`` the running total of all the counts of the tile and ``P`` that of
    its positives (``tile_pos``), summation by parts gives
    ``sum_i c_i pos_i (negatives up to i) = (sum_i S_i^2 d_i - P^2) / 2`` with
    ``d_i = pos_i - pos_{i+1}`` (``pos_{m+1} = 0``): one integer running sum of the
    counts themselves and one product with a fixed vector, where the direct sum
    needs the running sum of the negatives' counts and a product with the
    positives' counts.  Every partial sum is an integer below ``2**53`` (checked;
    otherwise the direct sum), so the result is exact: the same number.
    """
    b, m = cnt.shape
    run = bufs.get("run0", b, m, int_dtype)
    np.cumsum(cnt, axis=1, dtype=int_dtype, out=run)
    total = run[:, m - 1]
    top = int(total.max(initial=0))
    if top * top * m < 2**53:
        d = bufs.get("pos_steps", 1, m)[0]
        np.subtract(pos[:m - 1], pos[1:m], out=d[:m - 1])
        d[m - 1] = pos[m - 1]
        square = bufs.get("y", b, m)
        np.square(run, out=square, dtype=np.float64)
        return 0.5 * (np.dot(square, d) - tile_pos * tile_pos), total
    # direct: sum_i c_i pos_i (running total of the negatives' counts at i)
    neg_run = bufs.get("run1", b, m, int_dtype)
    np.cumsum(cnt * (pos[:m] == 0), axis=1, dtype=int_dtype, out=neg_run)
    vals, wpos = bufs.get("y", b, m), bufs.get("x", b, m)
    np.copyto(vals, neg_run)
    np.multiply(cnt, pos[:m], out=wpos)
    return _rowdot(wpos, vals), total


def _running_dtype(n: int) -> Any:
    """Integer type of running sums of counts: a replicate's total is about ``n``."""
    return np.int32 if n < 2**30 else np.int64


def _running_counts(cnt: np.ndarray, factor: np.ndarray | None, carry: np.ndarray,
                    bufs: _Buffers, name: str) -> np.ndarray:
    """Exact integer ``carry + cumsum(cnt * factor, axis=1)`` for a tile of counts."""
    b, m = cnt.shape
    if factor is not None:
        prod = bufs.get("count_product", b, m, cnt.dtype)
        np.multiply(cnt, factor, out=prod)
        cnt = prod
    run = bufs.get(name, b, m, carry.dtype)
    np.cumsum(cnt, axis=1, dtype=carry.dtype, out=run)
    run += carry[:, None]
    carry[:] = run[:, -1]
    return run


# ---------------------------------------------------------------- what a tile feeds
class _Sums:
    """Weighted column sums, split by bin when the binned metrics are requested.

    The per-row columns are in the order of the tiles, where the bins are
    contiguous, so the per-bin sums are one matrix product per bin segment of a
    tile.  They are either held as one C-contiguous ``(n, C)`` matrix
    (``columns``) or, when that would be large, computed again for each tile by
    ``rows(r0, r1)`` (a C-contiguous ``(r1 - r0, C)`` array, the same numbers): the
    memory then stays bounded by a tile whatever the number of rows.
    """

    def __init__(self, columns: np.ndarray | None, bins: np.ndarray | None,
                 tiles: list[tuple[int, int]], n_cols: int,
                 rows: Any = None):
        self.matrix = columns  # (n, C), C order
        self.rows = rows
        self.n_cols = n_cols
        self.tiles = tiles
        cuts = np.zeros(0, dtype=np.intp) if bins is None else _group_starts(bins)[1:]
        self.n_slots = cuts.size + 1
        self.segments: list[list[tuple[int, int, int]]] = []
        for r0, r1 in tiles:
            lo, hi = np.searchsorted(cuts, [r0, r1], side="right")
            bounds = [r0, *cuts[lo:hi].tolist(), r1]
            self.segments.append([(a - r0, b - r0, int(lo) + i) for i, (a, b) in
                                  enumerate(itertools.pairwise(bounds)) if b > a])

    def start(self, b: int, integral: bool) -> np.ndarray:
        return np.zeros((b, self.n_slots, self.n_cols))

    def tile(self, acc: np.ndarray, w: np.ndarray, cnt: np.ndarray | None, t: int,
             r0: int, bufs: _Buffers) -> None:
        if self.matrix is not None:
            mat, at = self.matrix, r0
        else:
            mat, at = self.rows(r0, self.tiles[t][1]), 0
        for a, b, slot in self.segments[t]:
            # np.dot, not @: for this shape NumPy's matmul kept the GIL (measured);
            # products of at most _SUM_ROWS rows: about 20 % faster than one long
            # product (measured, OpenBLAS on 2 cores)
            for c in range(a, b, _SUM_ROWS):
                d = min(c + _SUM_ROWS, b)
                acc[:, slot] += np.dot(w[:, c:d], mat[at + c:at + d])


@dataclass
class _AucState:
    carry: np.ndarray  # running total of the negatives' weights
    carry_c: np.ndarray  # ... of their confidence-weighted weights
    num: np.ndarray  # pair weights of (positive above negative) + tied pairs
    num_c: np.ndarray
    tie: np.ndarray  # pair weights of tied (positive, negative) pairs
    tie_c: np.ndarray
    pos: np.ndarray  # total weight of the positives
    pos_c: np.ndarray  # ... of their confidence-weighted weights


class _Auc:
    """Pair-weighted AUC and cwAUC of one class, in its score order.

    Rows are sorted by score with the negatives first among tied scores, so the
    running sum of negative weights at a positive row counts every negative below
    it plus every negative tied with it; half of the tied pairs (the product of
    the positive and negative weight of each mixed tie group) is then taken off.
    """

    def __init__(self, pos: np.ndarray, conf: Any, starts: np.ndarray | None,
                 tiles: list[tuple[int, int]], vectors: Any = None):
        # one byte and one float per row, or, with ``vectors`` (a function of the
        # tile's bounds giving its flags and confidences), nothing per row; the 0/1
        # and confidence-weighted vectors of a tile are formed when it is reached.
        # ``conf``: the confidences, or with ``vectors`` a function of positions
        self.vectors = vectors
        self.tiles = tiles
        self.pos_flag = None if vectors is not None else _pad(pos, np.bool_)
        self.conf = None if vectors is not None else _pad(conf)
        n = pos.size
        self.int_dtype = _running_dtype(n)
        self.ties: list[tuple[np.ndarray, np.ndarray, np.ndarray] | None] = [None] * len(tiles)
        if starts is None or starts.size == n:
            return
        group = np.zeros(n, dtype=np.int32 if n < 2**31 else np.intp)
        group[starts[1:]] = 1
        np.cumsum(group, out=group)
        n_pos = np.bincount(group, weights=pos, minlength=starts.size)
        mixed = (n_pos > 0) & (n_pos < np.diff(np.r_[starts, n]))
        rows = np.flatnonzero(mixed[group])
        for t, (r0, r1) in enumerate(tiles):
            lo, hi = np.searchsorted(rows, [r0, r1])
            if hi > lo:
                local = rows[lo:hi]
                # runs alternate: negatives then positives of each mixed tie group
                runs = _group_starts(group[local] * 2 + pos[local])
                self.ties[t] = (local - r0, runs, conf(local) if callable(conf) else
                                conf[local])

    def start(self, b: int, integral: bool) -> _AucState:
        return _AucState(*(np.zeros(b) for _ in range(8)))

    def tile(self, st: _AucState, w: np.ndarray, cnt: np.ndarray | None, t: int, r0: int,
             bufs: _Buffers) -> None:
        mp = w.shape[1]
        if self.vectors is None:
            flag = self.pos_flag[r0:r0 + mp]
            conf = self.conf[r0:r0 + mp]
        else:
            r1 = self.tiles[t][1]
            flag = bufs.get("class_flag", 1, mp, np.bool_)[0]
            conf = bufs.get("class_conf", 1, mp)[0]
            flag[:r1 - r0], conf[:r1 - r0] = self.vectors(r0, r1)
            flag[r1 - r0:] = False
            conf[r1 - r0:] = 0.0
        vec = bufs.get("class_vectors", 4, mp)
        pos, neg, cpos, cneg = vec
        np.copyto(pos, flag)
        np.multiply(conf, pos, out=cpos)
        np.subtract(conf, cpos, out=cneg)  # conf * (1 - pos), exactly
        # class totals here, not as columns of the sums: K classes would add 2 K
        # columns to every product of the host order
        if cnt is not None:  # integer counts: exact integer sums
            tile_pos = np.dot(w, pos)
            pairs, total = _count_pairs(cnt, pos, tile_pos, self.int_dtype, bufs)
            st.num += pairs + st.carry * tile_pos
            st.carry += total - tile_pos  # the tile's negatives
        else:
            np.subtract(1.0, pos, out=neg)
            pairs, tile_pos = _prefix_dot(w, pos, neg, st.carry, bufs)
            st.num += pairs
        st.pos += tile_pos
        pairs, tile_pos_c = _prefix_dot(w, cpos, cneg, st.carry_c, bufs)
        st.num_c += pairs
        st.pos_c += tile_pos_c
        ties = self.ties[t]
        if ties is not None:
            local, runs, conf = ties
            wm = w[:, local]
            part = np.add.reduceat(wm, runs, axis=1)
            st.tie += np.einsum("ij,ij->i", part[:, 0::2], part[:, 1::2])
            wm *= conf
            part = np.add.reduceat(wm, runs, axis=1)
            st.tie_c += np.einsum("ij,ij->i", part[:, 0::2], part[:, 1::2])

    def finish(self, st: _AucState) -> tuple[np.ndarray, np.ndarray]:
        out = []
        for num, tie, neg, pos in ((st.num, st.tie, st.carry, st.pos),
                                   (st.num_c, st.tie_c, st.carry_c, st.pos_c)):
            den = pos * neg
            with np.errstate(divide="ignore", invalid="ignore"):
                out.append(np.where(den > 0, (num - 0.5 * tie) / den, np.nan))
        return out[0], out[1]


@dataclass
class _AurcState:
    carry_err: np.ndarray  # running totals (integer on the integer path)
    carry_w: np.ndarray
    num: np.ndarray


class _Aurc:
    """AURC in the order of decreasing confidence: each row charged its group's risk."""

    def __init__(self, err: np.ndarray, starts: np.ndarray | None,
                 tiles: list[tuple[int, int]]):
        self.err_count = _pad(err, np.uint8)  # the float 0/1 vector is formed per tile
        self.int_dtype = _running_dtype(err.size)
        n = err.size
        self.ends: list[np.ndarray | None] = [None] * len(tiles)
        if starts is None or starts.size == n:
            return
        last = np.r_[starts[1:], n] - 1  # last row of each tie group
        group_end = np.repeat(last, np.diff(np.r_[starts, n]))
        for t, (r0, r1) in enumerate(tiles):
            ends = group_end[r0:r1] - r0
            if not np.array_equal(ends, np.arange(r1 - r0)):
                self.ends[t] = np.r_[ends, np.arange(r1 - r0, _padded(r1 - r0))]

    def start(self, b: int, integral: bool) -> _AurcState:
        dtype = self.int_dtype if integral else np.float64
        return _AurcState(np.zeros(b, dtype), np.zeros(b, dtype), np.zeros(b))

    def tile(self, st: _AurcState, w: np.ndarray, cnt: np.ndarray | None, t: int, r0: int,
             bufs: _Buffers) -> None:
        b, mp = w.shape
        ratio = bufs.get("x", b, mp)
        ends = self.ends[t]
        if cnt is not None:  # integer counts: exact integer running sums
            m = cnt.shape[1]
            cum_err = _running_counts(cnt, self.err_count[r0:r0 + m], st.carry_err, bufs,
                                      "run0")
            cum_w = _running_counts(cnt, None, st.carry_w, bufs, "run1")
            if ends is not None:
                cum_err, cum_w = cum_err[:, ends[:m]], cum_w[:, ends[:m]]
            # cum_w == 0 only before the first drawn row, where cum_err == 0 too
            if not (cum_w[:, 0] > 0).all():
                np.maximum(cum_w, 1, out=cum_w)
            np.divide(cum_err, cum_w, out=ratio[:, :m])
            ratio[:, m:] = 0.0
        else:
            x, cum_w = bufs.get("y", b, mp), bufs.get("z", b, mp)
            np.multiply(w, self.err_count[r0:r0 + mp], out=x)
            _cumsum_rows(x, ratio, st.carry_err)
            _cumsum_rows(w, cum_w, st.carry_w)
            cum_err = ratio
            if ends is not None:
                cum_err, cum_w = ratio[:, ends], cum_w[:, ends]
            if not (cum_w[:, 0] > 0).all():
                np.maximum(cum_w, _TINY, out=cum_w)
            np.divide(cum_err, cum_w, out=ratio)
        st.num += _rowdot(w, ratio)


class _Order:
    """One sort order of the rows, its tiles and what its tiles feed."""

    def __init__(self, rows: np.ndarray, starts: np.ndarray | None = None):
        # original row at each position, in 4 bytes below 2**31 rows
        self.rows = rows.astype(np.int32, copy=False) if rows.size < 2**31 else rows
        self.starts = starts  # starts of the runs of tied sort keys
        self.tiles = _tile_bounds(rows.size, starts)
        self.parts: list[Any] = []
        self.perm: np.ndarray | None = None  # positions in the first order
        self.base: np.ndarray | None = None  # sample weights in this order


def _score_order(score: np.ndarray, pos: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray | None]:
    """Rows by increasing score, negatives before positives among tied scores."""
    order = np.argsort(score, kind="stable")
    starts = _tie_starts_of(score, order)
    if starts is not None:
        group = np.zeros(score.size, dtype=np.uint32 if score.size < 2**31 else np.intp)
        group[starts[1:]] = 1
        np.cumsum(group, out=group)
        group <<= 1
        group |= pos[order]
        order = order[np.argsort(group, kind="stable")]
    return order, starts


def _tie_starts_of(values: np.ndarray, order: np.ndarray) -> np.ndarray | None:
    """:func:`_tie_starts` of ``values[order]``, without that sorted copy."""
    n = order.size
    if n < 2:
        return None
    new = np.empty(n, dtype=bool)
    new[0] = True
    step = 1 << 16
    for a in range(0, n - 1, step):
        v = values[order[a:a + step + 1]]
        np.not_equal(v[1:], v[:-1], out=new[a + 1:a + v.size])
    return None if new.all() else np.flatnonzero(new)


def _descending_order(conf: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Rows by decreasing ``conf``, tied rows in their own order (a stable sort),
    and the starts of the runs of ties.

    When ``conf`` is already non-decreasing (the canonical row order sorts by
    confidence first) the order is the runs of ties taken from the last to the
    first: no sort, and positions in 4 bytes.
    """
    n = conf.size
    index = np.int32 if n < 2**31 else np.intp
    if n < 2 or not (conf[1:] >= conf[:-1]).all():
        ordered = np.argsort(-conf, kind="stable")
        return ordered, _tie_starts_of(conf, ordered)
    up = _tie_starts(conf)
    if up is None:
        return np.arange(n - 1, -1, -1, dtype=index), None
    length = np.diff(np.r_[up, n])[::-1]  # run lengths, last run first
    starts = np.r_[0, np.cumsum(length)[:-1]]
    ordered = np.arange(n, dtype=index)
    ordered += np.repeat((up[::-1] - starts).astype(index), length)
    return ordered, starts
