"""Monte Carlo draws of the CSR null ``S = sum_i a_i Y_i``.

Under calibration row ``i`` is wrong (``Y_i = 1``) with probability ``p_i = 1 - c_i``
and adds its error size ``a_i``; :mod:`calreport.metrics._risk_null` reads P_risk and
the power from draws of ``S``.  Two kinds of draws live here:

* :func:`draw` takes a generator and draws in memory-bounded tiles (the
  ``method="monte_carlo"`` null and the heavy rows of the conditional Monte Carlo);
* :func:`look_draws` draws one look of the sequential null from a stream derived
  from a seed base (:func:`stream`).  Small profiles of a non-negative base
  (:func:`reads_pool`) read blocks of sorted uniforms kept for the whole process and
  shared by every profile of that base (:func:`pooled_sums`): a grouped summary
  draws and sorts each block once for all its groups, and a group's draws do not
  depend on the others.

In every case the draws depend on the multiset of rows, not on their order.
"""

from __future__ import annotations

import threading

import numpy as np
from scipy import sparse

from calreport.metrics._order import range_rows
from calreport.metrics._risk_rows import _TILE, FULL_MONTE_CARLO_ROWS, Rows

__all__ = ["draw", "look_draws", "pooled_sums", "reads_pool", "stream"]


def draw(r: Rows, p: np.ndarray, n_sim: int, rng: np.random.Generator) -> np.ndarray:
    """``n_sim`` draws of ``S`` with error probabilities ``p``, in memory-bounded tiles.

    Rows enter in their canonical order (increasing confidence, then error size), so
    the draws depend on the multiset of rows, not on their order.  Rows tied in
    (error size, probability) are drawn together as one binomial count, so
    isotonic-like profiles with few distinct confidences cost little.
    """
    atom, counts = r.atom, r.k
    first, inv = r.ties
    if 2 * len(first) <= len(p):
        counts = np.bincount(inv, weights=counts)
        atom, p = atom[first], p[first]
    else:
        order = r.canonical
        atom, p, counts = atom[order], p[order], counts[order]
    counts = np.rint(counts).astype(np.int64)
    bernoulli = bool((counts == 1).all())
    out = np.empty(n_sim)
    block = max(1, min(n_sim, _TILE // max(len(p), 1)))
    for start in range(0, n_sim, block):  # tiles, not replicates: bounded memory
        b = min(block, n_sim - start)
        if bernoulli:
            y = (rng.random((b, len(p))) < p).astype(np.float64)
        else:
            y = rng.binomial(counts, p, size=(b, len(p))).astype(np.float64)
        out[start:start + b] = np.einsum("ij,j->i", y, atom)  # no BLAS threads
    return out


#: Blocks of shared uniforms are kept for profiles of at most this many rows (a
#: grouped summary draws and sorts each block once for all its groups) ...
_POOL_ROWS = FULL_MONTE_CARLO_ROWS
#: ... up to this many bytes in all.
_POOL_BYTES = 1 << 26
_POOL: dict[tuple[int, int, int, int], tuple[np.ndarray, np.ndarray]] = {}
_POOL_LOCK = threading.Lock()


def stream(base: int, look: int, kind: int) -> np.random.Generator:
    """The generator of one look (``kind`` 0: null, 1: alternative) of a seed base."""
    return np.random.default_rng([abs(base), look, kind, int(base < 0)])


def _is_pooled(base: int, n_rows: int, b: int) -> bool:
    """Whether the blocks of this seed base and size are kept and shared."""
    return base >= 0 and n_rows <= _POOL_ROWS and n_rows * b <= _TILE


def _sorted_uniforms(base: int, look: int, kind: int, n_rows: int, b: int
                     ) -> tuple[np.ndarray, np.ndarray]:
    """``U = stream(base, look, kind).random((n_rows, b))``, each row sorted.

    Returns ``i + sort(U[i])`` for rows ``i`` flattened (increasing as a whole) and
    the draw index of each entry.  The stream fills ``U`` row by row, so the first
    ``n_rows`` rows of a larger block are exactly these: a profile draws the same
    numbers whether it is computed alone or after other groups, and a grouped
    summary generates and sorts each block once.
    """
    def make(rows: int) -> tuple[np.ndarray, np.ndarray]:
        u = stream(base, look, kind).random((rows, b))
        idx = np.argsort(u, axis=1).astype(np.int32)
        u = np.take_along_axis(u, idx, axis=1) + np.arange(rows)[:, None]
        return u.ravel(), idx.ravel()

    key = (base, look, kind, b)
    with _POOL_LOCK:
        block = _POOL.get(key)
    if block is None or block[0].size < n_rows * b:
        block = make(n_rows)
        with _POOL_LOCK:
            _POOL.pop(key, None)
            while _POOL and (sum(u.nbytes + i.nbytes for u, i in _POOL.values())
                             + block[0].nbytes + block[1].nbytes > _POOL_BYTES):
                _POOL.pop(next(iter(_POOL)))
            _POOL[key] = block
    return block[0][:n_rows * b], block[1][:n_rows * b]


#: (row, draw) pairs per tile of :func:`pooled_sums`: a tile's sums stay in cache,
#: and its Python steps, which hold the GIL while the grouped P_risk runs beside the
#: other metrics, come once per ~20 groups of 50 rows (a summary 8 % faster than
#: tiles of 1 << 18).
_PAIRS = 1 << 20


class _Ones:
    """Read-only float ones for one caller, grown by doubling: filled once per size,
    not once per tile, and released with the caller."""

    def __init__(self) -> None:
        self._buf = np.ones(0)

    def __call__(self, n: int) -> np.ndarray:
        if self._buf.size < n:
            self._buf = np.ones(max(n, 2 * self._buf.size))
            self._buf.flags.writeable = False
        return self._buf[:n]


def _segment_scatter(keys: np.ndarray, ends: np.ndarray, value: np.ndarray, size: int,
                     ones: _Ones | None = None) -> np.ndarray:
    """``np.bincount(keys, weights=np.repeat(value, counts), minlength=size)``: segment
    ``s`` (entries up to ``ends[s]``) adds ``value[s]`` at each of its keys.

    Computed as the product of a compressed-column matrix (a column per segment, a
    one at each of its keys) with ``value``: the same additions in the same order
    as ``bincount`` (each output starts at 0 and adds ``1.0 * value[s]``, entry after
    entry), so the same sums to the last bit, without the repeated copy of the
    values that ``np.repeat`` would make.
    """
    wide = keys.size >= np.iinfo(np.int32).max or size >= np.iinfo(np.int32).max
    index = np.int64 if wide else np.int32
    indptr = np.concatenate(([0], ends)).astype(index, copy=False)
    keys = keys.astype(index, copy=False)
    data = (ones or _Ones())(keys.size)
    matrix = sparse.csc_array((data, keys, indptr), shape=(size, value.size))
    return matrix @ value


def pooled_sums(group: np.ndarray, rows: np.ndarray, atom: np.ndarray, p: np.ndarray,
                n_groups: int, b: int, base: int, look: int, kind: int) -> np.ndarray:
    """``b`` draws of ``S`` for each of ``n_groups`` profiles from the pooled blocks.

    Parameters
    ----------
    group : ndarray of int, shape (n,)
        Profile of each row, non-decreasing.
    rows : ndarray of int, shape (n,)
        Rank of each row in its profile's canonical order (0, 1, ...): the block row
        it takes.
    atom, p : ndarray of float, shape (n,)
        Error size and error probability of each row.
    n_groups, b, base, look, kind : int
        Profiles, draws, and the stream of the block (:func:`_sorted_uniforms`).

    Returns
    -------
    ndarray of float, shape (n_groups, b)

    Notes
    -----
    Row ``i`` is wrong in draw ``j`` when ``U[i, j] < p_i``.  With each row of ``U``
    sorted, those draws are the first ``count_i`` entries of the row (one
    ``searchsorted`` for all rows), so a draw touches only the wrong rows.  A row with
    ``p_i > 1/2`` enters through its right draws instead, the last ``b - count_i``
    entries: ``S = sum_wrong a_i = sum_{p > 1/2} a_i - sum_{p > 1/2, right} a_i +
    sum_{p <= 1/2, wrong} a_i``, so a draw touches at most half of the entries.  The
    sums run over each profile's entries in row order, whatever the other profiles
    of the call: a profile's draws do not depend on what it is computed with.
    """
    sizes = np.bincount(group, minlength=n_groups)
    n_max = max(1, int(sizes.max()))
    us, idx = _sorted_uniforms(base, look, kind, n_max, b)
    per_tile = max(1, _PAIRS // (b * n_max))
    span = n_max * b
    # a block per profile of the tile, each entry shifted to its profile's draws; the
    # second half holds the right draws' keys (shifted past the wrong draws' sums)
    # int32 (half the bytes): every key is below 2 * per_tile * b, far below 2**31
    table = (idx.reshape(1, 1, span)
             + ((np.arange(2)[:, None, None] * per_tile
                 + np.arange(per_tile)[None, :, None]) * b).astype(np.int32)).ravel()
    flip = p > 0.5
    size = atom * flip
    total = np.bincount(group, weights=size, minlength=n_groups)  # row order, as below
    starts = np.r_[0, np.cumsum(sizes)]
    out = np.empty((n_groups, b))
    ones = _Ones()  # the scatter's data, filled once per call
    for g0 in range(0, n_groups, per_tile):
        g1 = min(n_groups, g0 + per_tile)
        sl = slice(starts[g0], starts[g1])
        r, t, fl = rows[sl], group[sl] - g0, flip[sl]
        wrong = np.searchsorted(us, r + p[sl]) - r * b
        at = np.where(fl, per_tile * span + wrong, 0) + t * span + r * b
        count = np.where(fl, b - wrong, wrong)
        keep = count > 0
        at, count, a = at[keep], count[keep], np.where(fl, -atom[sl], atom[sl])[keep]
        # the table positions at[s], at[s] + 1, ... of every segment
        n_t = g1 - g0
        sums = _segment_scatter(table[range_rows(at, count)], np.cumsum(count), a,
                                (per_tile + n_t) * b, ones)
        wrong_sums = sums[:n_t * b].reshape(n_t, b)
        right_sums = sums[per_tile * b:(per_tile + n_t) * b].reshape(n_t, b)
        out[g0:g1] = wrong_sums + (total[g0:g1, None] + right_sums)
    return out


def _binomial(r: Rows) -> bool:
    """Whether :func:`look_draws` draws binomial counts of tied rows: when that halves
    the rows, or when rows carry frequency counts."""
    first, _ = r.ties
    return 2 * len(first) <= len(r.c) or not bool((r.k == 1).all())


def reads_pool(r: Rows, base: int, b: int) -> bool:
    """Whether :func:`look_draws` of ``b`` draws reads these rows from the shared
    blocks (:func:`pooled_sums`), so that many profiles can be drawn in one pass."""
    return not _binomial(r) and _is_pooled(base, len(r.c), b)


def look_draws(r: Rows, p: np.ndarray, b: int, base: int, look: int, kind: int
               ) -> np.ndarray:
    """``b`` draws of ``S`` with error probabilities ``p`` for one look.

    Rows take the block's rows in increasing (confidence, error size)
    (:func:`pooled_sums`), so the draws do not depend on the order of the input
    rows.  Rows tied in (error size, probability) are drawn as one binomial count
    when that halves the rows.
    """
    first, inv = r.ties
    n = p.size
    if _binomial(r):
        counts = np.rint(np.bincount(inv, weights=r.k)).astype(np.int64)
        rng = stream(base, look, kind)
        return np.einsum("i,ij->j", r.atom[first],
                         rng.binomial(counts[:, None], p[first][:, None],
                                      size=(first.size, b)).astype(np.float64))
    order = r.canonical  # row i of the block goes to the i-th row in (c, a) order
    if not _is_pooled(base, n, b):  # drawn for this profile only: no sort is worth it
        # the rows of U = random((n, b)) in slices: the same numbers, bounded memory
        rng = stream(base, look, kind)
        atom, po = r.atom[order], p[order]
        out = np.zeros(b)
        step = max(1, _TILE // b)
        for lo in range(0, n, step):
            u = rng.random((min(step, n - lo), b))
            out += np.einsum("i,ij->j", atom[lo:lo + step],
                             (u < po[lo:lo + step, None]).astype(np.float64))
        return out
    return pooled_sums(np.zeros(n, dtype=np.int64), np.arange(n), r.atom[order],
                       p[order], 1, b, base, look, kind)[0]
