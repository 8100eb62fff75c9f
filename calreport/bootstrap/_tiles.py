"""Batched evaluation of the summary metrics on many bootstrap replicates.

Every row is placed once in each sort order the metrics need: the score order of
each AUC class (negatives before positives among tied scores), the order of
decreasing confidence (AURC) and, for the binned metrics, one of these in which
the bins are contiguous.  Count vectors are exchangeable, so the counts of a block
are drawn directly in the first of these orders (no gather for it) and gathered
into the others one tile at a time (no second copy of the block).  Each order is
walked in tiles of about 8192 rows that never split a run of tied values:

* the weighted column sums of a tile are one matrix product per bin segment (the
  bins are contiguous, so the per-bin sums of ECE and MCE come out of the same
  product as accuracy, CSR, Brier...);
* the AUC, cwAUC and AURC need running sums along their order: ``np.cumsum`` of
  the tile, the total carried from the tiles before it entering as part of the
  first column.  The AUC sums its negatives only (gathered apart, about half the
  tile) and reads that sum at each positive, instead of summing the whole tile
  masked by class: on 1e6 binary rows it halved the AUC tiles' time (see
  :meth:`_Auc.tile`).

Counts are integers, so every running sum of counts is exact in ``float64`` below
``2**53``.  Classes whose positives take few distinct scores (one-vs-rest AUC of
many classes) get no sort order at all: see :mod:`calreport.bootstrap._sparse`.

Simpler than it was: exact integer running sums, blocked prefix products over
chunks of 8 columns, a second thread and a one-thread BLAS each bought at most
1.24x on 1e6 binary rows x 200 replicates (same run, alternated, medians of 3),
so they are gone.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

_TILE_ROWS = 8192  # rows per tile; fixed, whatever the number of replicates in a block
_TINY = np.finfo(np.float64).tiny


def _rowdot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise dot products of two (r, m) arrays: ``sum_j a_ij b_ij`` for each row."""
    return np.einsum("ij,ij->i", a, b)


def _running(x: np.ndarray, carry: np.ndarray, bufs: _Buffers | None = None,
             whole: bool = False) -> np.ndarray:
    """``carry + cumsum(x, axis=1)`` for a (b, m) tile, in place in ``x``; ``carry``
    (b,) leaves as the running total at the tile's end.

    The carry enters as part of the first column (``carry + x_0 + x_1 ...``): no pass
    over the tile to add it.  ``whole``: ``x`` holds resampling counts without sample
    weights, summed as integers in a scratch array of ``bufs`` (required then) -- the
    same numbers (integers sum exactly in float64 below 2**53).  Every addition of a float64
    running sum waits for the one before it; integer ones do not: 3.3 against 0.7
    ns an element on (32, 4096) tiles, conversions included, and
    ``summary(ci=0.95, n_boot=1000)`` of 1e6 binary rows spent half its time in
    float64 running sums (``benchmarks/bench_summary_ci.py``, section summary_ci of
    RESULTS.md).  int32 holds a carry below 2**30 plus at most 16,384 counts below
    2**16.
    """
    if whole:
        b, m = x.shape
        small = m <= 16_384 and (b == 0 or carry.max() < 2**30)
        xi = bufs.get("running", b, m, np.int32 if small else np.int64)
        np.copyto(xi, x, casting="unsafe")
        xi[:, 0] += carry.astype(xi.dtype)
        np.cumsum(xi, axis=1, out=xi)
        np.copyto(x, xi)
    else:
        x[:, 0] += carry
        np.cumsum(x, axis=1, out=x)
    carry[:] = x[:, -1]
    return x


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

    def split(self, name: str, b: int, m1: int, m2: int) -> tuple[np.ndarray, np.ndarray]:
        """Two C-contiguous float64 scratch arrays (b, m1) and (b, m2) in one store."""
        flat = self.get(name, 1, b * (m1 + m2))[0]
        return flat[:b * m1].reshape(b, m1), flat[b * m1:].reshape(b, m2)

    def keep(self, key: tuple[Any, ...], make: Any) -> Any:
        """The object stored under ``key``, made by ``make()`` on first use."""
        obj = self._store.get(key)
        if obj is None:
            obj = self._store[key] = make()
        return obj


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

    def start(self, b: int) -> np.ndarray:
        return np.zeros((b, self.n_slots, self.n_cols))

    def tile(self, acc: np.ndarray, w: np.ndarray, t: int, r0: int, bufs: _Buffers,
             whole: bool = False) -> None:
        if self.matrix is not None:
            mat, at = self.matrix, r0
        else:
            mat, at = self.rows(r0, self.tiles[t][1]), 0
        for a, b, slot in self.segments[t]:
            acc[:, slot] += np.dot(w[:, a:b], mat[at + a:at + b])


def _split(pos: np.ndarray, conf: np.ndarray) -> tuple[np.ndarray, ...]:
    """The negatives and positives of a tile of an AUC order apart, for
    :meth:`_Auc.tile`: positions of the negatives (after a first column for the
    carry), of the positives, the running-sum column each positive reads, and the
    confidences of both."""
    # intp positions: np.take converts any other index type on every call
    pos = pos.astype(bool, copy=False)
    pos_at = np.flatnonzero(pos)
    # column 0 of the negatives' running sums is the carry and the j-th negative is
    # column j, so the i-th positive (0-based) reads column pos_at[i] - i: the carry
    # plus every negative before it (tied negatives included: they come first)
    neg_at = np.flatnonzero(np.r_[True, ~pos])
    neg_at[1:] -= 1
    below = pos_at - np.arange(pos_at.size)
    conf_neg = conf[neg_at]
    return neg_at, pos_at, below, conf_neg, conf[pos_at]


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
        # the negatives and positives of each tile apart (about 20 bytes a row), or,
        # with ``vectors`` (a function of the tile's bounds giving its flags and
        # confidences), nothing per row: a tile's split is formed when it is reached.
        # ``conf``: the confidences, or with ``vectors`` a function of positions
        self.vectors = vectors
        self.tiles = tiles
        self.splits = None if vectors is not None else [
            _split(pos[r0:r1], conf[r0:r1]) for r0, r1 in tiles]
        n = pos.size
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

    def start(self, b: int) -> _AucState:
        return _AucState(*(np.zeros(b) for _ in range(8)))

    def tile(self, st: _AucState, w: np.ndarray, t: int, r0: int, bufs: _Buffers,
             whole: bool = False) -> None:
        # The negatives' weights are gathered apart (after a column for the carry)
        # and summed in one running sum, which each positive reads at the column
        # ``below`` of its negatives; the positives' weights times those reads are the
        # pairs.  Against a running sum of every row of the tile masked by class:
        # half as many rows summed and no masking passes (1e6 binary rows x 128
        # replicates, CPU seconds of the AUC and cwAUC tiles, two alternated runs
        # each: 2.6-3.1 s before, 1.4-1.6 s).  Two scratch arrays of about a tile each.
        b, m = w.shape
        if self.splits is not None:
            neg_at, pos_at, below, conf_neg, conf_pos = self.splits[t]
        else:
            neg_at, pos_at, below, conf_neg, conf_pos = _split(*self.vectors(r0, r0 + m))
        wn, wp = bufs.split("scratch_a", b, neg_at.size, pos_at.size)
        wnc, at = bufs.split("scratch_b", b, neg_at.size, pos_at.size)
        np.take(w, neg_at, axis=1, out=wn, mode="clip")
        np.multiply(wn, conf_neg, out=wnc)
        np.take(w, pos_at, axis=1, out=wp, mode="clip")
        # negatives at or below each positive (tied ones come first): half of the
        # tied pairs is taken off in finish
        wn[:, 0] = 0.0
        _running(wn, st.carry, bufs, whole)
        st.num += _rowdot(wp, np.take(wn, below, axis=1, out=at, mode="clip"))
        st.pos += wp.sum(axis=1)
        wpc = np.multiply(wp, conf_pos, out=at)
        wnc[:, 0] = 0.0
        _running(wnc, st.carry_c)
        st.num_c += _rowdot(wpc, np.take(wnc, below, axis=1, out=wp, mode="clip"))
        st.pos_c += wpc.sum(axis=1)
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
    carry_err: np.ndarray  # running totals
    carry_w: np.ndarray
    num: np.ndarray


class _Aurc:
    """AURC in the order of decreasing confidence: each row charged its group's risk."""

    def __init__(self, err: np.ndarray, starts: np.ndarray | None,
                 tiles: list[tuple[int, int]]):
        self.err = err.astype(np.uint8)  # one byte a row; a tile's weights times it
        n = err.size
        self.ends: list[np.ndarray | None] = [None] * len(tiles)
        if starts is None or starts.size == n:
            return
        last = np.r_[starts[1:], n] - 1  # last row of each tie group
        group_end = np.repeat(last, np.diff(np.r_[starts, n]))
        for t, (r0, r1) in enumerate(tiles):
            ends = group_end[r0:r1] - r0
            if not np.array_equal(ends, np.arange(r1 - r0)):
                self.ends[t] = ends

    def start(self, b: int) -> _AurcState:
        return _AurcState(np.zeros(b), np.zeros(b), np.zeros(b))

    def tile(self, st: _AurcState, w: np.ndarray, t: int, r0: int, bufs: _Buffers,
             whole: bool = False) -> None:
        b, m = w.shape
        cum_err, cum_w = bufs.split("scratch_a", b, m, 0)[0], bufs.split("scratch_b", b, m, 0)[0]
        np.multiply(w, self.err[r0:r0 + m], out=cum_err)
        _running(cum_err, st.carry_err, bufs, whole)
        np.copyto(cum_w, w)
        _running(cum_w, st.carry_w, bufs, whole)
        ends = self.ends[t]
        if ends is not None:  # a tied row takes the risk at the end of its group
            cum_err, cum_w = cum_err[:, ends], cum_w[:, ends]
        # cum_w == 0 only before the first drawn row, where cum_err == 0 too
        if not (cum_w[:, 0] > 0).all():
            np.maximum(cum_w, _TINY, out=cum_w)
        st.num += _rowdot(w, np.divide(cum_err, cum_w, out=cum_err))


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


class ReplicateSums:
    """The sums of a block of replicates, as the registry's finishers read them.

    ``sum(col)`` and ``ratio(num, den)`` are weighted column sums (one value per
    replicate), ``per_bin(col)`` the same split by bin (replicates x bins),
    ``auc()`` the macro AUC and cwAUC and ``aurc()`` the AURC of every replicate.
    ``kernels``: the :class:`calreport.bootstrap.kernels.Kernels` whose parts
    summed ``states``.
    """

    def __init__(self, kernels: Any, states: dict[int, Any]) -> None:
        self._k = kernels
        self._states = states
        self._per_bin = states[id(kernels.sums)]
        self._sums = self._per_bin.sum(axis=1)

    def sum(self, col: str) -> np.ndarray:
        """Weighted sum of a per-row column, per replicate."""
        return self._sums[:, self._k.col[col]]

    def ratio(self, num: str, den: str = "one") -> np.ndarray:
        """Ratio of two weighted sums, per replicate."""
        return self.sum(num) / self.sum(den)

    def per_bin(self, col: str) -> np.ndarray:
        """Weighted sums of a column per bin, shape (replicates, bins)."""
        return self._per_bin[:, :, self._k.col[col]]

    def bin_occupancy(self) -> np.ndarray:
        """Rows per bin, or with sample weights Kish's (sum w)^2 / sum w^2."""
        cnt = self.per_bin("one")
        if not self._k.weighted:
            return cnt
        return cnt**2 / self.per_bin("base")

    def auc(self) -> tuple[np.ndarray, np.ndarray]:
        """Macro AUC and cwAUC per replicate over the classes with both outcomes."""
        k = self._k
        if "auc" in k.linear:  # first order (see _linear)
            return (k.linear["auc"] + self.sum("lin_auc"),
                    k.linear["cwauc"] + self.sum("lin_cwauc"))
        if not k.auc_classes:
            nan = np.full(self._sums.shape[0], np.nan)
            return nan, nan
        pairs = [a.finish(self._states[id(a)]) for a in k.aucs]
        auc = [x for x, _ in pairs]
        cw = [x for _, x in pairs]
        if k.sparse is not None:
            sp_auc, sp_cw = self._states[id(k.sparse)]
            auc.extend(sp_auc.T)
            cw.extend(sp_cw.T)
        # columns in class order (the mean then adds them in the same order whichever
        # path computed a class)
        at = np.argsort(k.auc_classes, kind="stable")
        # the class set is the full sample's: a replicate that loses a class's
        # positives or negatives is degenerate (NaN), not averaged over fewer classes
        return (np.column_stack([auc[i] for i in at]).mean(axis=1),
                np.column_stack([cw[i] for i in at]).mean(axis=1))

    def aurc(self) -> np.ndarray:
        """AURC per replicate."""
        if "aurc" in self._k.linear:
            return self._k.linear["aurc"] + self.sum("lin_aurc")
        return self._states[id(self._k.aurc)].num / self.sum("one")
