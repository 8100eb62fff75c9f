"""Seeded, vectorised bootstrap confidence intervals for the summary metrics.

A bootstrap replicate of ``N`` rows drawn with replacement is represented by its
count vector ``w`` (how often each row was drawn).  Every summary metric is a
function of weighted sums over rows -- plain sums (accuracy, CSR, Brier), per-bin
sums (ECE, MCE) or running sums along one fixed sort order (AUC, cwAUC, AURC) --
so a block of replicates is a ``(b, N)`` count matrix and all metrics of the block
come from matrix products and running sums.  Nothing re-sorts the data or rebuilds
a DataFrame per replicate.  The metrics refitted from scratch on each sample
(``lcs``, ``tce_bpm``) get no interval here; their reason says so.

Evaluation
----------
Every row is placed once in each sort order the metrics need: the score order of
each AUC class (negatives before positives among tied scores), the order of
decreasing confidence (AURC) and, for the binned metrics, one of these in which
the bins are contiguous.  Count vectors are exchangeable, so the counts of a block
are drawn directly in the first of these orders (no gather for it) and copied into
the others with one row-wise ``take`` each.  Each order is walked in tiles of
``(b, 8192)`` cells that stay in the CPU cache:

* the weighted column sums of a tile are one ``float64`` matrix product per bin
  segment (the bins are contiguous, so the per-bin sums of ECE and MCE come out of
  the same product as accuracy, CSR, Brier...);
* running sums of integer counts (AUC, AURC) are integer ``cumsum``: exact and
  eight times faster than a ``float64`` ``cumsum``, which adds one value after the
  other;
* running sums of real weights (cwAUC; everything with sample weights) are a
  matrix product with an 8 x 8 triangular matrix of ones plus a short running sum
  of the chunk totals; for cwAUC the running sum is not even formed (see
  :func:`_prefix_dot`).

Sums of integer counts are exact in ``float64``, so the integer and the real paths
give the same numbers.  Blocks run on up to two threads (NumPy releases the GIL in
most of these loops); the BLAS is kept on one thread meanwhile (threadpoolctl, if
installed), because its own threads only slow these small products down.

Resampling
----------
``"multinomial"`` (default) is Efron's bootstrap: each replicate draws exactly
``N`` rows with replacement.  Its counts are generated as independent Poisson
counts of a rate ``lambda < 1`` (chosen so that their total exceeds ``N`` with
probability ~3e-7; such a draw is redrawn) topped up with ``N - total`` uniform
row draws.  Given their total, independent Poisson counts are multinomial, so the
result is exactly Multinomial(N; 1/N, ..., 1/N) whatever the total was.
``"poisson"`` is the Poisson bootstrap (Hanley & MacGibbon 2006; Chamandy et al.
2012): counts i.i.d. Poisson(1), so replicate sizes vary around ``N``; it is
asymptotically equivalent, and it is the resampling that a partitioned (e.g. Dask)
computation can reproduce partition by partition.  It is not faster here, and with
very few rows it can draw an empty replicate (probability ``exp(-N)``).

Poisson counts are drawn by inversion: a 16-bit random code indexes a table of
the Poisson quantile on each of the 65536 code intervals; the intervals that
contain a jump of the CDF (about 0.02 % of draws) are refined with a 53-bit
uniform and a binary search of the CDF.  The draws are therefore inverse-CDF
draws from the double-precision CDF (``scipy.special.pdtr``), as exact as any
sampler working in double precision.

Intervals: ``"percentile"`` (Efron), ``"basic"``, and ``"analytic"`` (normal
intervals from influence functions: the delta method for ratio metrics, the
DeLong variance for AUC).  Seeds: one master seed spawns one child stream per
group (``numpy.random.SeedSequence.spawn``), so adding a group never changes the
replicates of another; inside a group, each run of 16 consecutive replicates has
its own child stream, so the replicates depend neither on the block size nor on
the thread that computed them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import math
import os
import queue
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special, stats

from calreport import _validate as v
from calreport.metrics import binned, risk
from calreport.profile import ConfidenceProfile
from calreport.summary import SummaryResult, SummarySettings

__all__ = [
    "RESAMPLING",
    "BootstrapResult",
    "DegenerateReplicateWarning",
    "analytic_intervals",
    "bootstrap_intervals",
    "bootstrap_replicates",
    "grouped_intervals",
    "spawn_seeds",
]

#: Metrics that the bootstrap cannot resample cheaply (they refit a curve).
REFIT_METRICS = frozenset({"lcs", "tce_bpm"})
#: Resampling schemes of :func:`bootstrap_replicates`.
RESAMPLING = ("multinomial", "poisson")
_COUNTS = ("n", "n_dropped", "n_clipped")

_BLOCK_CELLS = 1 << 24  # replicates x rows of a block of uint8 counts (16 MiB per order)
_TILE_CELLS = 1 << 17  # replicates x rows of a float64 working tile (1 MiB)
_TILE_ROWS = 8192  # rows per tile; fixed, so the results do not depend on the block size
_STREAM_REPLICATES = 16  # consecutive replicates drawn from one child seed
_CODE_CHUNK = 1 << 16  # random codes per table look-up
_COLUMN_CHUNK = 1 << 16  # rows per chunk when building the per-row columns
_PREFIX = 8  # chunk width of the blocked running sums
_TRIANGLE = np.triu(np.ones((_PREFIX, _PREFIX)))  # x @ _TRIANGLE: running sums of 8
_ONES = np.ones(_PREFIX)
_TINY = np.finfo(np.float64).tiny
_THREADS = min(2, os.cpu_count() or 1)
_BLAS_CONTROLLER: list[Any] = []  # threadpoolctl's controller, created on first use


class DegenerateReplicateWarning(UserWarning):
    """Some bootstrap replicates could not define a metric (e.g. a single class)."""


def spawn_seeds(seed: Any, n: int) -> list[np.random.SeedSequence]:
    """Child seed sequences of one master seed (int, SeedSequence, Generator or None)."""
    if isinstance(seed, np.random.Generator):
        ss = seed.bit_generator.seed_seq  # type: ignore[attr-defined]
    elif isinstance(seed, np.random.SeedSequence):
        ss = seed
    else:
        ss = np.random.SeedSequence(seed)
    return ss.spawn(n)


@dataclass(frozen=True)
class BootstrapResult:
    """Replicates and intervals of one profile.

    Attributes
    ----------
    replicates : dict
        Metric -> array of shape (n_boot,) (NaN where a replicate was degenerate).
    intervals : dict
        Metric -> (ci_low, ci_high).
    method, ci, n_boot
        Interval method, confidence level and number of replicates.
    reasons : dict
        Metric -> why it has no interval.
    resampling : str
        ``"multinomial"`` or ``"poisson"`` (see :func:`bootstrap_replicates`).
    """

    replicates: dict[str, np.ndarray]
    intervals: dict[str, tuple[float, float]]
    method: str
    ci: float
    n_boot: int
    reasons: dict[str, str]
    resampling: str = "multinomial"


@contextlib.contextmanager
def _single_threaded_blas() -> Iterator[None]:
    """Keep the BLAS on one thread while the bootstrap runs.

    The products here are a tile times a few columns; measured on two cores, a
    multithreaded BLAS makes them slower, and it competes with the block threads.
    Uses threadpoolctl when it is installed, otherwise leaves the BLAS alone.
    """
    if not _BLAS_CONTROLLER:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # pragma: no cover - optional
            _BLAS_CONTROLLER.append(None)
        else:
            _BLAS_CONTROLLER.append(ThreadpoolController())
    ctl = _BLAS_CONTROLLER[0]
    if ctl is None:  # pragma: no cover - optional
        yield
        return
    with ctl.limit(limits=1, user_api="blas"):
        yield


# --------------------------------------------------------------------- resampling
def _poisson_rate(n: int) -> float:
    """Rate ``lambda`` with ``n lambda + 5 sqrt(n lambda) = n``: P(total > n) ~ 3e-7."""
    root = (math.sqrt(25.0 + 4.0 * n) - 5.0) / 2.0
    return root * root / n


class _Resampler:
    """Draws the resampling counts of runs of replicates (see the module notes)."""

    def __init__(self, n: int, resampling: str):
        self.n = n
        self.multinomial = resampling == "multinomial"
        # row totals of uint8 counts fit in uint32 below 2**24 rows
        self.total_dtype = np.uint32 if n < 2**24 else np.int64
        rate = _poisson_rate(n) if self.multinomial else 1.0
        cdf = special.pdtr(np.arange(64), rate)  # P(X <= k), reaches 1.0 near k = 20
        cdf = cdf[: int(np.argmax(cdf >= 1.0)) + 1] if (cdf >= 1.0).any() else cdf
        cdf[-1] = 1.0
        self.cdf = cdf
        # code c stands for u in [c, c + 1) / 2**16; it fixes the quantile unless a
        # CDF value lies strictly inside that interval (marked 255: refine)
        lo = np.arange(1 << 16) * 2.0**-16
        at_lo = np.searchsorted(cdf, lo, side="right")
        below_hi = np.searchsorted(cdf, lo + 2.0**-16, side="left")
        self.table = np.where(at_lo == below_hi, at_lo, 255).astype(np.uint8)

    def _poisson(self, rng: np.random.Generator, flat: np.ndarray) -> None:
        raw = rng.bit_generator.random_raw
        top = self.cdf.size - 1
        for s in range(0, flat.size, _CODE_CHUNK):
            e = min(s + _CODE_CHUNK, flat.size)
            # '<u8' then '<u2': the same 16-bit codes on every platform
            codes = raw((e - s + 3) // 4).astype("<u8", copy=False).view("<u2")[: e - s]
            np.take(self.table, codes, out=flat[s:e])
            edge = np.flatnonzero(flat[s:e] == 255)
            if edge.size:
                u = (codes[edge] + rng.random(edge.size)) * 2.0**-16
                flat[s + edge] = np.minimum(np.searchsorted(self.cdf, u, side="right"), top)

    def draw(self, rng: np.random.Generator, out: np.ndarray) -> np.ndarray:
        """Counts of ``r`` replicates in ``out`` (r, n) uint8; returns ``out`` or a
        wider copy when a count exceeds 255 (never seen, but not impossible)."""
        self._poisson(rng, out.reshape(-1))
        if not self.multinomial:
            return out
        n = self.n
        totals = out.sum(axis=1, dtype=self.total_dtype).astype(np.int64)
        while (over := np.flatnonzero(totals > n)).size:
            for r in over:  # probability ~3e-7 per replicate: redraw it
                self._poisson(rng, out[r])
                totals[r] = out[r].sum(dtype=np.int64)
        extra = n - totals
        hits = rng.integers(0, n, int(extra.sum()))
        hits += np.repeat(np.arange(out.shape[0], dtype=np.int64) * n, extra)
        return _add_hits(out, hits)


def _add_hits(counts: np.ndarray, hits: np.ndarray) -> np.ndarray:
    """Add one to ``counts.flat[h]`` for every ``h`` in ``hits``, widening if needed."""
    idx, times = np.unique(hits, return_counts=True)
    new = counts.reshape(-1)[idx] + times
    if new.size and new.max() > np.iinfo(counts.dtype).max:
        counts = counts.astype(np.uint16 if new.max() <= 0xFFFF else np.int64)
    counts.reshape(-1)[idx] = new
    return counts


# --------------------------------------------------------------------- row columns
#: Row quantities that each plain metric sums (every metric also uses "one").
_NEEDS: dict[str, tuple[str, ...]] = {
    "accuracy": ("correct",), "cwa": ("c_correct", "c"),
    "gain": ("correct", "c_correct", "c"), "csr": ("csr",), "sigma_csr": ("csr_var",),
    "z_csr": ("csr", "csr_var"), "p_risk": ("csr", "csr_var"),
    "cwsa": ("sel", "cwsa"), "cwsa_plus": ("sel", "cwsa_plus"),
    "brier": ("brier",), "log_loss": ("log_loss",),
}


def _row_columns(p: ConfidenceProfile, s: SummarySettings,
                 keep: set[str] | None = None) -> dict[str, np.ndarray]:
    """Per-row quantities whose weighted sums give the plain summary metrics.

    ``keep``: the names to compute (default all); ``"one"`` is always there.
    """

    def want(*names: str) -> bool:
        return keep is None or any(k in keep for k in names)

    n = p.n
    corr = p.correct.astype(np.float64)
    cols: dict[str, np.ndarray] = {"one": np.ones(n)}
    if want("correct"):
        cols["correct"] = corr
    if want("c_correct"):
        cols["c_correct"] = p.conf * corr
    if want("c"):
        cols["c"] = p.conf
    if want("csr", "csr_var"):
        c_clip, _ = risk.clip_confidence(p.conf, eps=s.eps, warn=False)
        if want("csr"):
            cols["csr"] = (1.0 - corr) / (1.0 - c_clip)
        if want("csr_var"):
            cols["csr_var"] = c_clip / (1.0 - c_clip)
    if want("sel", "cwsa", "cwsa_plus"):
        tau = s.tau
        sel = (p.conf >= tau).astype(np.float64)
        phi = np.where(sel > 0, (p.conf - tau) / (1.0 - tau), 0.0)
        cols["sel"] = sel
        if want("cwsa"):
            cols["cwsa"] = phi * (2.0 * corr - 1.0)
        if want("cwsa_plus"):
            cols["cwsa_plus"] = phi * corr
    if p.proba is not None and p.y_true is not None and want("brier", "log_loss"):
        if p.score is not None:
            y = (p.y_true == 1).astype(np.float64)
            brier = (p.score - y) ** 2
            pt = np.where(y > 0, p.score, 1.0 - p.score)
        else:
            onehot = np.zeros_like(p.proba)
            onehot[np.arange(n), p.y_true] = 1.0
            brier = ((p.proba - onehot) ** 2).sum(axis=1)
            pt = p.proba[np.arange(n), p.y_true]
        if want("brier"):
            cols["brier"] = brier
        if want("log_loss"):
            cols["log_loss"] = -np.log(np.clip(pt, np.finfo(np.float64).eps, 1.0))
    return cols


# ----------------------------------------------------------- tiles and running sums
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
        self._store: dict[tuple[str, Any], np.ndarray] = {}

    def get(self, name: str, b: int, m: int, dtype: Any = np.float64) -> np.ndarray:
        """A C-contiguous (b, m) scratch array (contents undefined)."""
        key = (name, np.dtype(dtype))
        arr = self._store.get(key)
        if arr is None or arr.size < b * m:
            arr = self._store[key] = np.empty(b * m, dtype=dtype)
        return arr[: b * m].reshape(b, m)


def _chunk_prefix(totals: np.ndarray, carry: np.ndarray) -> np.ndarray:
    """``carry`` plus the sum of the earlier entries, for each row of ``totals`` (b, q).

    q % 8 == 0.  Runs of 8 entries are summed by a product with the triangular
    matrix; only the totals of the runs are added one after the other.  ``carry``
    (b,) leaves increased by the row totals.
    """
    b, q = totals.shape
    before = np.matmul(totals.reshape(-1, _PREFIX), _TRIANGLE).reshape(
        b, q // _PREFIX, _PREFIX)
    top = before[:, :, -1]
    higher = np.cumsum(top, axis=1)
    carry_out = higher[:, -1] + carry
    higher -= top
    higher += carry[:, None]
    before += higher[:, :, None]
    before -= totals.reshape(b, q // _PREFIX, _PREFIX)
    carry[:] = carry_out
    return before.reshape(b, q)


def _cumsum_rows(x: np.ndarray, out: np.ndarray, carry: np.ndarray) -> None:
    """``out = carry + cumsum(x, axis=1)`` for a C-contiguous (b, m) tile, m % 64 == 0.

    ``np.cumsum`` of float64 adds one value after the other (about 3 ns a value).
    Here the running sum inside each chunk of 8 columns is one product with the
    8 x 8 upper-triangular matrix of ones, and the chunk totals are accumulated by
    :func:`_chunk_prefix`.  ``carry`` (b,) enters as the sum of the previous tiles
    and leaves updated.
    """
    b, m = x.shape
    np.matmul(x.reshape(-1, _PREFIX), _TRIANGLE, out=out.reshape(-1, _PREFIX))
    chunks = out.reshape(b, m // _PREFIX, _PREFIX)
    chunks += _chunk_prefix(np.ascontiguousarray(chunks[:, :, -1]), carry)[:, :, None]


def _prefix_dot(w: np.ndarray, left: np.ndarray, right: np.ndarray, carry: np.ndarray,
                bufs: _Buffers) -> np.ndarray:
    """``sum_i w_i left_i (carry + sum_{j <= i} w_j right_j)`` for each row of a tile.

    The running sum is never formed: over chunks of 8 columns it splits into the
    part inside the chunk (a product with the triangular matrix) and the sum of
    the earlier chunks, which multiplies the chunk's total of ``w * left``.
    ``carry`` (b,) leaves increased by the row totals of ``w * right``.
    """
    b, m = w.shape
    x, inside, y = bufs.get("x", b, m), bufs.get("y", b, m), bufs.get("z", b, m)
    np.multiply(w, right, out=x)
    np.matmul(x.reshape(-1, _PREFIX), _TRIANGLE, out=inside.reshape(-1, _PREFIX))
    np.multiply(w, left, out=y)
    dot = np.einsum("ij,ij->i", y, inside)
    left_totals = np.matmul(y.reshape(-1, _PREFIX), _ONES).reshape(b, -1)
    right_totals = np.ascontiguousarray(inside.reshape(b, -1, _PREFIX)[:, :, -1])
    dot += np.einsum("ij,ij->i", left_totals, _chunk_prefix(right_totals, carry))
    return dot


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

    ``columns`` is (C, n) in the order of the tiles; the bins are contiguous in it,
    so the per-bin sums are one matrix product per bin segment of a tile.
    """

    def __init__(self, columns: np.ndarray, bins: np.ndarray | None,
                 tiles: list[tuple[int, int]]):
        self.matrix = columns.T  # (n, C) Fortran order: row slices are BLAS blocks
        cuts = np.zeros(0, dtype=np.intp) if bins is None else _group_starts(bins)[1:]
        self.n_slots = cuts.size + 1
        self.segments: list[list[tuple[int, int, int]]] = []
        for r0, r1 in tiles:
            lo, hi = np.searchsorted(cuts, [r0, r1], side="right")
            bounds = [r0, *cuts[lo:hi].tolist(), r1]
            self.segments.append([(a - r0, b - r0, int(lo) + i) for i, (a, b) in
                                  enumerate(itertools.pairwise(bounds)) if b > a])

    def start(self, b: int, integral: bool) -> np.ndarray:
        return np.zeros((b, self.n_slots, self.matrix.shape[1]))

    def tile(self, acc: np.ndarray, w: np.ndarray, cnt: np.ndarray | None, t: int,
             r0: int, bufs: _Buffers) -> None:
        for a, b, slot in self.segments[t]:
            # np.dot, not @: for this shape NumPy's matmul kept the GIL (measured)
            acc[:, slot] += np.dot(w[:, a:b], self.matrix[r0 + a:r0 + b])


@dataclass
class _AucState:
    carry: np.ndarray  # running total of the negatives' weights
    carry_c: np.ndarray  # ... of their confidence-weighted weights
    num: np.ndarray  # pair weights of (positive above negative) + tied pairs
    num_c: np.ndarray
    tie: np.ndarray  # pair weights of tied (positive, negative) pairs
    tie_c: np.ndarray


class _Auc:
    """Pair-weighted AUC and cwAUC of one class, in its score order.

    Rows are sorted by score with the negatives first among tied scores, so the
    running sum of negative weights at a positive row counts every negative below
    it plus every negative tied with it; half of the tied pairs (the product of
    the positive and negative weight of each mixed tie group) is then taken off.
    """

    def __init__(self, pos: np.ndarray, conf: np.ndarray, starts: np.ndarray,
                 tiles: list[tuple[int, int]], col_pos: int, col_cpos: int):
        self.neg, self.pos = _pad(~pos), _pad(pos)
        self.neg_count = _pad(~pos, np.uint8)
        self.cneg, self.cpos = _pad(conf * ~pos), _pad(conf * pos)
        self.col_pos, self.col_cpos = col_pos, col_cpos
        n = pos.size
        self.int_dtype = _running_dtype(n)
        self.ties: list[tuple[np.ndarray, np.ndarray, np.ndarray] | None] = [None] * len(tiles)
        if starts.size == n:
            return
        group = np.zeros(n, dtype=np.intp)
        group[starts[1:]] = 1
        group = np.cumsum(group)
        n_pos = np.bincount(group, weights=pos, minlength=starts.size)
        mixed = (n_pos > 0) & (n_pos < np.diff(np.r_[starts, n]))
        rows = np.flatnonzero(mixed[group])
        for t, (r0, r1) in enumerate(tiles):
            lo, hi = np.searchsorted(rows, [r0, r1])
            if hi > lo:
                local = rows[lo:hi]
                # runs alternate: negatives then positives of each mixed tie group
                runs = _group_starts(group[local] * 2 + pos[local])
                self.ties[t] = (local - r0, runs, conf[local])

    def start(self, b: int, integral: bool) -> _AucState:
        return _AucState(*(np.zeros(b) for _ in range(6)))

    def tile(self, st: _AucState, w: np.ndarray, cnt: np.ndarray | None, t: int, r0: int,
             bufs: _Buffers) -> None:
        b, mp = w.shape
        cols = slice(r0, r0 + mp)
        if cnt is not None:  # integer counts: exact integer running sums
            m = cnt.shape[1]
            ints = _running_counts(cnt, self.neg_count[r0:r0 + m],
                                   np.zeros(b, self.int_dtype), bufs, "run0")
            run = bufs.get("y", b, mp)
            np.add(ints, st.carry[:, None], out=run[:, :m])
            run[:, m:] = 0.0
            st.carry[:] = run[:, m - 1]
            st.num += np.einsum("ij,ij,j->i", w, run, self.pos[cols])
        else:
            st.num += _prefix_dot(w, self.pos[cols], self.neg[cols], st.carry, bufs)
        st.num_c += _prefix_dot(w, self.cpos[cols], self.cneg[cols], st.carry_c, bufs)
        ties = self.ties[t]
        if ties is not None:
            local, runs, conf = ties
            wm = w[:, local]
            part = np.add.reduceat(wm, runs, axis=1)
            st.tie += np.einsum("ij,ij->i", part[:, 0::2], part[:, 1::2])
            wm *= conf
            part = np.add.reduceat(wm, runs, axis=1)
            st.tie_c += np.einsum("ij,ij->i", part[:, 0::2], part[:, 1::2])

    def finish(self, st: _AucState, sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out = []
        for num, tie, neg, pos in ((st.num, st.tie, st.carry, sums[:, self.col_pos]),
                                   (st.num_c, st.tie_c, st.carry_c, sums[:, self.col_cpos])):
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

    def __init__(self, err: np.ndarray, starts: np.ndarray, tiles: list[tuple[int, int]]):
        self.err = _pad(err)
        self.err_count = _pad(err, np.uint8)
        self.int_dtype = _running_dtype(err.size)
        n = err.size
        self.ends: list[np.ndarray | None] = [None] * len(tiles)
        if starts.size == n:
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
            np.multiply(w, self.err[r0:r0 + mp], out=x)
            _cumsum_rows(x, ratio, st.carry_err)
            _cumsum_rows(w, cum_w, st.carry_w)
            cum_err = ratio
            if ends is not None:
                cum_err, cum_w = ratio[:, ends], cum_w[:, ends]
            if not (cum_w[:, 0] > 0).all():
                np.maximum(cum_w, _TINY, out=cum_w)
            np.divide(cum_err, cum_w, out=ratio)
        st.num += np.einsum("ij,ij->i", w, ratio)


class _Order:
    """One sort order of the rows, its tiles and what its tiles feed."""

    def __init__(self, rows: np.ndarray, starts: np.ndarray | None = None):
        self.rows = rows  # original row at each position
        self.starts = starts  # starts of the runs of tied sort keys
        self.tiles = _tile_bounds(rows.size, starts)
        self.parts: list[Any] = []
        self.perm: np.ndarray | None = None  # positions in the first order
        self.base: np.ndarray | None = None  # sample weights in this order


def _score_order(score: np.ndarray, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows by increasing score, negatives before positives among tied scores."""
    order = np.argsort(score)
    starts = _group_starts(score[order])
    if starts.size < score.size:
        group = np.zeros(score.size, dtype=np.intp)
        group[starts[1:]] = 1
        key = np.cumsum(group) * 2 + pos[order]
        order = order[np.argsort(key, kind="stable")]
    return order, starts


def _permuted(p: ConfidenceProfile, rows: np.ndarray) -> ConfidenceProfile:
    """The profile restricted to ``rows``, in that order."""
    fields = ("conf", "correct", "y_true", "y_pred", "proba", "score", "sample_weight")
    return dataclasses.replace(p, **{f: None if getattr(p, f) is None else getattr(p, f)[rows]
                                     for f in fields})


# --------------------------------------------------------------------------- kernels
class _Kernels:
    """Precomputed per-row quantities and sort orders of one profile."""

    def __init__(self, p: ConfidenceProfile, s: SummarySettings, names: Sequence[str]):
        self.names = [n for n in names if n not in _COUNTS]
        wanted = set(self.names)
        n = p.n
        base = None if p.sample_weight is None else p.sample_weight.astype(np.float64)
        self.weighted = base is not None
        self.min_count = s.min_count
        orders: list[_Order] = []
        # ranking: one order per class, negatives first among tied scores
        auc_specs = []
        if p.proba is not None and p.y_true is not None and {"auc", "cwauc",
                                                            "delta_auc"} & wanted:
            if p.score is not None:
                classes = [(1, p.score)]
            else:
                classes = [(k, p.proba[:, k]) for k in range(p.proba.shape[1])]
            for k, sc in classes:
                pos = p.y_true == k
                if pos.all() or not pos.any():
                    continue
                o = _Order(*_score_order(sc, pos))
                orders.append(o)
                auc_specs.append((o, k, pos))
        # AURC: rows by decreasing confidence, ties grouped
        aurc_order = None
        if "aurc" in wanted:
            order = np.argsort(-p.conf)
            aurc_order = _Order(order, _group_starts(p.conf[order]))
            orders.append(aurc_order)
        # binned: one fixed assignment of rows to bins (edges of the full sample,
        # computed as the point estimate computes them)
        bins = None
        if {"ece", "mce", "signed_ece"} & wanted:
            score, _ = p.view(s.view)
            edges = binned.bin_edges(score, n_bins=s.n_bins, strategy=s.strategy,
                                     sample_weight=base)
            bins = binned.assign_bins(score, edges)
        # the order that carries the column sums: one where the bins are contiguous
        host = None
        if bins is not None:
            for o in orders:
                d = np.diff(bins[o.rows])
                if (d >= 0).all() or (d <= 0).all():
                    host = o
                    break
            if host is None:
                host = _Order(np.argsort(bins, kind="stable"))
                orders.append(host)
        elif orders:
            host = orders[0]
        else:
            host = _Order(np.arange(n))
            orders.append(host)
        orders.remove(host)
        orders.insert(0, host)  # the counts are drawn in this order
        # per-row columns in the host order, built in chunks of rows (bounded memory)
        keep = {c for m in self.names for c in _NEEDS.get(m, ())}
        matrix = np.empty((0, n))
        self.col_names: list[str] = []
        for a in range(0, n, _COLUMN_CHUNK):
            part = _permuted(p, host.rows[a:a + _COLUMN_CHUNK])
            cols = _row_columns(part, s, keep)
            for _, k, _ in auc_specs:
                pos = part.y_true == k
                cols[f"pos{k}"] = pos.astype(np.float64)
                cols[f"cpos{k}"] = part.conf * pos
            if bins is not None:
                score, outcome = part.view(s.view)
                cols["bin_diff"] = outcome - score
                if base is not None:
                    cols["base"] = part.sample_weight  # sum w * base = sum count base^2
            if a == 0:
                self.col_names = list(cols)
                matrix = np.empty((len(cols), n))
            for i, name in enumerate(self.col_names):
                matrix[i, a:a + part.n] = cols[name]
        self.col = {k: i for i, k in enumerate(self.col_names)}
        self.sums = _Sums(matrix, None if bins is None else bins[host.rows], host.tiles)
        host.parts.append(self.sums)
        self.aucs: list[_Auc] = []
        for o, k, pos in auc_specs:
            auc = _Auc(pos[o.rows], p.conf[o.rows], o.starts, o.tiles,
                       self.col[f"pos{k}"], self.col[f"cpos{k}"])
            o.parts.append(auc)
            self.aucs.append(auc)
        self.aurc = None
        if aurc_order is not None:
            self.aurc = _Aurc(~p.correct[aurc_order.rows], aurc_order.starts,
                              aurc_order.tiles)
            aurc_order.parts.append(self.aurc)
        position = np.empty(n, dtype=np.intp)
        position[host.rows] = np.arange(n)
        for o in orders:
            if o is not host:
                o.perm = position[o.rows]
            if base is not None:
                o.base = base[o.rows]
        self.orders = orders
        self.first_rows = host.rows

    # ---------------------------------------------------------------- evaluation
    def evaluate(self, w: np.ndarray) -> dict[str, np.ndarray]:
        """All metrics for a block of replicate weights ``w`` of shape (b, N).

        ``w`` is in the original row order and includes the sample weights.
        """
        w = np.asarray(w, dtype=np.float64)
        return self._evaluate(w.shape[0], lambda o: w[:, o.rows], _Buffers(), counts=False)

    def evaluate_counts(self, counts: np.ndarray, bufs: _Buffers | None = None
                        ) -> dict[str, np.ndarray]:
        """All metrics for integer resampling counts (b, N), rows in the first order
        (``first_rows``); the sample weights are applied here."""
        bufs = _Buffers() if bufs is None else bufs

        def source(o: _Order) -> np.ndarray:
            if o.perm is None:
                return counts
            out = bufs.get("gathered", counts.shape[0], counts.shape[1], counts.dtype)
            for r in range(counts.shape[0]):
                np.take(counts[r], o.perm, out=out[r])
            return out

        return self._evaluate(counts.shape[0], source, bufs, counts=True)

    def _evaluate(self, b: int, source: Callable[[_Order], np.ndarray], bufs: _Buffers, *,
                  counts: bool) -> dict[str, np.ndarray]:
        # unweighted integer counts take the exact integer running-sum path
        integral = counts and not self.weighted
        states = {id(part): part.start(b, integral) for o in self.orders for part in o.parts}
        for o in self.orders:
            src = source(o)
            for t, (r0, r1) in enumerate(o.tiles):
                m = r1 - r0
                w = bufs.get("w", b, _padded(m))
                if counts and o.base is not None:
                    np.multiply(src[:, r0:r1], o.base[r0:r1], out=w[:, :m])
                else:
                    w[:, :m] = src[:, r0:r1]
                w[:, m:] = 0.0
                cnt = src[:, r0:r1] if integral else None
                for part in o.parts:
                    part.tile(states[id(part)], w, cnt, t, r0, bufs)
        return self._finish(states)

    def _finish(self, states: dict[int, Any]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        per_bin = states[id(self.sums)]
        sums = per_bin.sum(axis=1)
        col = self.col
        tot = sums[:, col["one"]]
        with np.errstate(divide="ignore", invalid="ignore"):
            if "correct" in col:
                out["accuracy"] = sums[:, col["correct"]] / tot
            if "c" in col:
                out["cwa"] = sums[:, col["c_correct"]] / sums[:, col["c"]]
            if "correct" in col and "c" in col:
                acc, cwa = out["accuracy"], out["cwa"]
                out["gain"] = (cwa - acc) / (1.0 - np.minimum(cwa, acc))
            if "csr" in col:
                out["csr"] = sums[:, col["csr"]] / tot
            if "csr_var" in col:
                out["sigma_csr"] = np.sqrt(sums[:, col["csr_var"]]) / tot
            if "csr" in col and "csr_var" in col:
                csr = out["csr"]
                z = out["z_csr"] = (csr - 1.0) / out["sigma_csr"]
                out["p_risk"] = np.where(csr > 1.0, special.ndtr(z), 0.0)
                out["p_risk"][np.isnan(z)] = np.nan
            for name in ("cwsa", "cwsa_plus"):
                if name in col:
                    out[name] = sums[:, col[name]] / sums[:, col["sel"]]
            for name in ("brier", "log_loss"):
                if name in col:
                    out[name] = sums[:, col[name]] / tot
            if "bin_diff" in col:
                cnt = per_bin[:, :, col["one"]]
                dsum = per_bin[:, :, col["bin_diff"]]
                out["ece"] = np.abs(dsum).sum(axis=1) / tot
                out["signed_ece"] = -dsum.sum(axis=1) / tot
                # occupancy of a bin in the resampled data: its row count, or with
                # sample weights Kish's (sum w)^2 / sum w^2 over the drawn rows
                occ = cnt if not self.weighted else cnt**2 / per_bin[:, :, col["base"]]
                ok = (cnt > 0) & (occ >= self.min_count * (1.0 - 1e-12))
                gaps = np.where(ok, np.abs(dsum) / cnt, -np.inf)
                mce = gaps.max(axis=1)
                out["mce"] = np.where(np.isfinite(mce), mce, np.nan)
            if self.aucs:
                pairs = [a.finish(states[id(a)], sums) for a in self.aucs]
                auc = _nanmean_rows(np.column_stack([x for x, _ in pairs]))
                cwauc = _nanmean_rows(np.column_stack([x for _, x in pairs]))
                out.update(auc=auc, cwauc=cwauc, delta_auc=cwauc - auc)
            if self.aurc is not None:
                out["aurc"] = states[id(self.aurc)].num / tot
        return {k: out[k] for k in self.names if k in out}


def _nanmean_rows(x: np.ndarray) -> np.ndarray:
    ok = ~np.isnan(x)
    cnt = ok.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(cnt > 0, np.where(ok, x, 0.0).sum(axis=1) / cnt, np.nan)


# --------------------------------------------------------------------------- driver
def _progress(total: int, enabled: bool | None):
    if enabled is None:
        enabled = sys.stderr.isatty() and total >= 20
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        return None
    return tqdm(total=total, desc="bootstrap", unit="rep", leave=False)


def _block_replicates(n: int, n_boot: int) -> int:
    """Replicates per block: whole streams, at most ``_BLOCK_CELLS`` counts and a
    float64 tile of about ``_TILE_CELLS`` cells."""
    per = _STREAM_REPLICATES
    streams = min(_BLOCK_CELLS // (n * per), _TILE_CELLS // (min(n, _TILE_ROWS) * per))
    return min(n_boot, per * max(1, streams))


def bootstrap_replicates(
    profile: ConfidenceProfile,
    *,
    metrics: Sequence[str],
    settings: SummarySettings | None = None,
    n_boot: int = 1000,
    seed: Any = None,
    progress: bool | None = None,
    resampling: str = "multinomial",
) -> dict[str, np.ndarray]:
    """Bootstrap replicates of the summary metrics of one profile.

    Rows are resampled with replacement (``n_boot`` samples of ``N`` rows); sample
    weights multiply the resampling counts.  Quantile bin edges are taken from the
    full sample and kept fixed across replicates.

    Parameters
    ----------
    profile : ConfidenceProfile
    metrics : list of str
    settings : SummarySettings, optional
    n_boot : int
    seed : int, SeedSequence, Generator or None
        Master seed.  Replicates ``16 k .. 16 k + 15`` come from its child stream
        ``k``, so they do not depend on the block size or on the threads.
    progress : bool, optional
        Show a progress bar (default: only on a terminal for long runs).
    resampling : {"multinomial", "poisson"}, default "multinomial"
        ``"multinomial"``: every replicate draws exactly ``N`` rows (Efron's
        bootstrap).  ``"poisson"``: i.i.d. Poisson(1) counts, so replicate sizes
        vary (the Poisson bootstrap, asymptotically equivalent; meant for large N).
        Both cost the same here; see the module notes.

    Returns
    -------
    dict
        Metric -> array of shape ``(n_boot,)``.

    Raises
    ------
    ValueError
        On ``n_boot < 2`` or an unknown ``resampling``.

    Notes
    -----
    A replicate's metrics equal the core metrics computed with its counts as
    sample weights (times the profile's own weights).  Blocks of replicates run on
    up to two threads; the output is the same with one thread or two.

    Examples
    --------
    >>> prof = ConfidenceProfile.from_arrays([0, 1, 1, 0, 1], [0.2, 0.9, 0.6, 0.4, 0.3])
    >>> reps = bootstrap_replicates(prof, metrics=["accuracy"], n_boot=4, seed=0)
    >>> reps["accuracy"].shape
    (4,)
    """
    s = settings or SummarySettings()
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 2:
        raise ValueError(f"`n_boot` must be an integer >= 2, got {n_boot!r}.")
    v.check_option(resampling, "resampling", RESAMPLING)
    n_boot = int(n_boot)
    k = _Kernels(profile, s, metrics)
    n = profile.n
    sampler = _Resampler(n, resampling)
    streams = spawn_seeds(seed, -(-n_boot // _STREAM_REPLICATES))
    block = _block_replicates(n, n_boot)
    starts = range(0, n_boot, block)
    out = {name: np.empty(n_boot) for name in k.names}
    workers = min(_THREADS, len(starts))
    spare: queue.SimpleQueue[_Buffers] = queue.SimpleQueue()
    for _ in range(workers):
        spare.put(_Buffers())

    def run(start: int) -> int:
        bufs = spare.get()  # one scratch set per worker, whatever thread runs it
        try:
            return evaluate_block(start, bufs)
        finally:
            spare.put(bufs)

    def evaluate_block(start: int, bufs: _Buffers) -> int:
        stop = min(start + block, n_boot)
        counts = bufs.get("counts", stop - start, n, np.uint8)
        for g in range(start, stop, _STREAM_REPLICATES):
            rng = np.random.Generator(np.random.PCG64(streams[g // _STREAM_REPLICATES]))
            rows = slice(g - start, min(g + _STREAM_REPLICATES, stop) - start)
            direct = counts.dtype == np.uint8
            target = (counts[rows] if direct else
                      bufs.get("draw", rows.stop - rows.start, n, np.uint8))
            drawn = sampler.draw(rng, target)
            if drawn.dtype != counts.dtype:  # a count above 255: widen the block
                counts = counts.astype(np.promote_types(counts.dtype, drawn.dtype))
                direct = False
            if not direct or drawn is not target:
                counts[rows] = drawn
        for name, vals in k.evaluate_counts(counts, bufs).items():
            out[name][start:stop] = vals
        return stop - start

    bar = _progress(n_boot, progress)
    try:
        with _single_threaded_blas():
            if workers > 1:
                with ThreadPoolExecutor(workers) as pool:
                    for done in pool.map(run, starts):
                        if bar is not None:
                            bar.update(done)
            else:
                for start in starts:
                    done = run(start)
                    if bar is not None:
                        bar.update(done)
    finally:
        if bar is not None:
            bar.close()
    return out


def _interval(reps: np.ndarray, value: float, ci: float, method: str) -> tuple[float, float]:
    alpha = 1.0 - ci
    ok = reps[~np.isnan(reps)]
    if ok.size < max(2, reps.size // 2):
        return math.nan, math.nan
    lo, hi = np.quantile(ok, [alpha / 2, 1 - alpha / 2])
    if method == "basic":
        lo, hi = 2 * value - hi, 2 * value - lo
    return float(lo), float(hi)


def bootstrap_intervals(
    profile: ConfidenceProfile,
    result: SummaryResult,
    *,
    n_boot: int = 1000,
    ci: float = 0.95,
    method: str = "percentile",
    seed: Any = None,
    progress: bool | None = None,
    return_replicates: bool = False,
    resampling: str = "multinomial",
) -> Any:
    """Confidence intervals for the metrics of a :class:`SummaryResult`.

    Parameters
    ----------
    profile : ConfidenceProfile
    result : SummaryResult
        Point estimates from :func:`calreport.summary.summarize`.
    n_boot : int, default 1000
    ci : float, default 0.95
    method : {"percentile", "basic", "analytic"}
    seed : int, SeedSequence, Generator or None
    progress : bool, optional
    return_replicates : bool
        Return a :class:`BootstrapResult` instead of the interval dict.
    resampling : {"multinomial", "poisson"}, default "multinomial"
        See :func:`bootstrap_replicates`.

    Returns
    -------
    dict or BootstrapResult
        Metric -> (ci_low, ci_high).

    Notes
    -----
    Degenerate replicates (e.g. a replicate with a single class for AUC) give NaN
    and a :class:`DegenerateReplicateWarning`; an interval needs at least half of
    the replicates defined.  See 002_848142561181ac46.txt, section 6 on bootstrap
    intervals for calibration metrics.
    """
    ci = float(ci)
    if not 0.0 < ci < 1.0:
        raise ValueError(f"`ci` must be in (0, 1), e.g. 0.95; got {ci!r}.")
    v.check_option(method, "method", ("percentile", "basic", "analytic"))
    v.check_option(resampling, "resampling", RESAMPLING)
    names = [k for k in result.values if k not in _COUNTS]
    reasons: dict[str, str] = {}
    intervals: dict[str, tuple[float, float]] = {}
    reps: dict[str, np.ndarray] = {}
    if method == "analytic":
        intervals, reasons = analytic_intervals(profile, result, ci=ci)
    else:
        wanted = [k for k in names if k not in REFIT_METRICS]
        reps = bootstrap_replicates(profile, metrics=wanted, settings=result.settings,
                                    n_boot=n_boot, seed=seed, progress=progress,
                                    resampling=resampling)
        degenerate = {k: int(np.isnan(r).sum()) for k, r in reps.items()
                      if not math.isnan(result.values[k]) and np.isnan(r).any()}
        if degenerate:
            desc = ", ".join(f"{k}: {c}" for k, c in degenerate.items())
            warnings.warn(
                f"Some of the {n_boot} bootstrap replicates could not define a metric "
                f"({desc}); they are left out of the interval.",
                DegenerateReplicateWarning, stacklevel=2,
            )
        for k in names:
            if k in REFIT_METRICS:
                reasons[k] = "no bootstrap interval: the metric refits a curve on each sample"
                intervals[k] = (math.nan, math.nan)
            elif k in reps:
                intervals[k] = _interval(reps[k], result.values[k], ci, method)
    for k in ("n", "n_dropped", "n_clipped"):
        intervals.setdefault(k, (math.nan, math.nan))
    if return_replicates:
        return BootstrapResult(reps, intervals, method, ci, n_boot, reasons, resampling)
    return intervals


# ----------------------------------------------------------------------- analytic
def analytic_intervals(
    profile: ConfidenceProfile, result: SummaryResult, *, ci: float = 0.95
) -> tuple[dict[str, tuple[float, float]], dict[str, str]]:
    """Normal-approximation intervals from influence functions.

    Mean-type metrics (accuracy, CSR, Brier, log loss) use the standard error of
    the row contributions; ratio metrics (cwA, CWSA, CWSA+) the delta method; AUC
    the DeLong variance (binary problems).  Other metrics get no analytic interval.
    """
    zq = float(stats.norm.ppf(0.5 + ci / 2))
    cols = _row_columns(profile, result.settings)
    w = (np.ones(profile.n) if profile.sample_weight is None
         else profile.sample_weight.astype(np.float64))
    W = w.sum()
    n_eff = W**2 / (w**2).sum()

    def se_mean(x: np.ndarray) -> float:
        mu = (w * x).sum() / W
        return math.sqrt((w * (x - mu) ** 2).sum() / W / n_eff)

    def se_ratio(num: np.ndarray, den: np.ndarray) -> float:
        dbar = (w * den).sum() / W
        if dbar == 0:
            return math.nan
        r = (w * num).sum() / (w * den).sum()
        return se_mean((num - r * den) / dbar)

    se: dict[str, float] = {
        "accuracy": se_mean(cols["correct"]),
        "csr": se_mean(cols["csr"]),
        "cwa": se_ratio(cols["c_correct"], cols["c"]),
        "cwsa": se_ratio(cols["cwsa"], cols["sel"]),
        "cwsa_plus": se_ratio(cols["cwsa_plus"], cols["sel"]),
    }
    if "brier" in cols:
        se["brier"] = se_mean(cols["brier"])
        se["log_loss"] = se_mean(cols["log_loss"])
    if profile.score is not None and profile.sample_weight is None:
        se["auc"] = _delong_se(profile.score, profile.y_true == 1)
    out: dict[str, tuple[float, float]] = {}
    reasons: dict[str, str] = {}
    for name, val in result.values.items():
        if name in _COUNTS:
            continue
        s = se.get(name)
        if s is None or math.isnan(s) or math.isnan(val):
            out[name] = (math.nan, math.nan)
            reasons[name] = "no analytic interval; use method='percentile'"
        else:
            out[name] = (val - zq * s, val + zq * s)
    return out, reasons


def _delong_se(score: np.ndarray, pos: np.ndarray) -> float:
    """DeLong et al. (1988) standard error of the binary AUC, via midranks."""
    x, y = score[pos], score[~pos]
    m, n = len(x), len(y)
    if m < 2 or n < 2:
        return math.nan
    rz = stats.rankdata(np.r_[x, y])
    rx, ry = stats.rankdata(x), stats.rankdata(y)
    v10 = (rz[:m] - rx) / n
    v01 = 1.0 - (rz[m:] - ry) / m
    return math.sqrt(v10.var(ddof=1) / m + v01.var(ddof=1) / n)


def grouped_intervals(
    items: Mapping[Any, tuple[ConfidenceProfile, SummaryResult]],
    *,
    n_boot: int,
    ci: float,
    method: str,
    seed: Any,
    progress: bool | None = None,
    resampling: str = "multinomial",
) -> dict[Any, dict[str, tuple[float, float]]]:
    """Intervals for several groups, each resampled within itself from its own child seed."""
    children = spawn_seeds(seed, len(items))
    out: dict[Any, dict[str, tuple[float, float]]] = {}
    for child, (key, (prof, res)) in zip(children, items.items(), strict=True):
        if prof is None:
            out[key] = {}
            continue
        out[key] = bootstrap_intervals(prof, res, n_boot=n_boot, ci=ci, method=method,
                                       seed=np.random.default_rng(child), progress=progress,
                                       resampling=resampling)
    return out
