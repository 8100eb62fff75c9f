"""The bootstrap engine: all registry metrics of many replicates at once.

A replicate is a vector of resampling counts; a block of replicates is a
``(b, N)`` count matrix, and every metric whose registry entry has a bootstrap
kernel is evaluated on the whole block from weighted sums (see
:mod:`calreport.bootstrap._tiles` for how the sums are formed).  The registry's
``finish`` functions turn the sums into metric values, with the same formulas as
the point computation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from calreport import _finishers as fin
from calreport import _validate as v
from calreport._finishers import row_columns
from calreport._progress import Steps
from calreport.bootstrap._linear import linear_columns
from calreport.bootstrap._rows import (
    _index_dtype,
    _subset,
    _weight_scale,
    canonical_order,
)
from calreport.bootstrap._sparse import (
    _SPARSE_CELLS,
    _SPARSE_GROUPS,
    _positive_groups,
    build_sparse_auc,
)
from calreport.bootstrap._tiles import (
    _TILE_ROWS,
    ReplicateSums,
    _Auc,
    _Aurc,
    _Buffers,
    _descending_order,
    _monotone,
    _Order,
    _score_order,
    _Sums,
)
from calreport.bootstrap.resampling import (
    RESAMPLING,
    STREAM_REPLICATES,
    Resampler,
    spawn_seeds,
)
from calreport.metrics import binned
from calreport.profile import ConfidenceProfile
from calreport.registry import REGISTRY
from calreport.settings import Settings

__all__ = ["Kernels", "ReplicateSums", "Replicates", "block_replicates",
           "bootstrap_replicates", "row_columns"]

_BLOCK_CELLS = 1 << 25  # replicates x rows of a block of uint8 counts (32 MiB)
# replicates x rows of a float64 working tile (2 MiB: 32 x 8192)
_TILE_CELLS = 1 << 18
_COLUMN_CHUNK = 1 << 16  # rows (or probabilities) per chunk of per-row columns
#: Largest per-row column matrix kept for a whole profile (above, formed per tile, and
#: no linearized replicates).  256 MiB (it was 128): with the three derivative columns
#: of the linearized replicates, 1e6 binary rows with every metric need 136 MB; formed
#: per tile, their columns took 6 of the 11.5 s of 1,000 replicates
#: (``benchmarks/bench_summary_ci.py``, case bootstrap)
_MATRIX_BYTES = 1 << 28
#: Sparse AUC for a class whose positives take at most N / _SPARSE_RATIO distinct
#: scores (and at most _SPARSE_GROUPS): measured, a class with more (binary data,
#: a few classes) is cheaper on the sorted path, whose cost does not grow with them
_SPARSE_RATIO = 32
_SPARSE_MIN_ROWS = 1024  # fewest rows of a chunk of the sparse AUC
def _chunk_rows(p: ConfidenceProfile) -> int:
    """Rows per chunk when per-row quantities are formed from the probabilities: at
    most ``_COLUMN_CHUNK`` rows and ``_COLUMN_CHUNK`` probabilities (a chunk's
    temporaries of shape (rows, K) stay a few MiB whatever K)."""
    width = max(1, p.proba_width)
    return max(64, _COLUMN_CHUNK // width) if width > 1 else _COLUMN_CHUNK


class Kernels:
    """Precomputed per-row quantities and sort orders of one profile.

    ``order`` (optional) is the row order the replicates are defined in (the
    canonical order of :func:`canonical_order`): the kernels then behave as on
    ``p.take(order)`` without that copy of the profile being made.  Beyond the
    profile, the memory held is a few bytes per row and sort order: the per-row
    columns are kept as one matrix only up to ``_MATRIX_BYTES`` and otherwise
    formed again tile by tile, together with the class vectors of an AUC order
    (else, per tile, the positions of its negatives and positives and their
    confidences: about 20 bytes a row).  ``keep_rows=False`` drops the
    host order's row positions (4 bytes a row), which only the real-weight entry
    point :meth:`evaluate` reads.

    Parameters
    ----------
    p : ConfidenceProfile
        The rows.
    s : Settings
        Bins, view, ``tau`` and ``min_count`` of the metrics.
    names : sequence of str
        Metrics wanted; those without a bootstrap interval or whose inputs the
        profile lacks are left out (``self.names`` holds the rest).
    order : ndarray of int, optional
        Row order the replicates' counts refer to.
    keep_rows : bool, default True
        Keep what :meth:`evaluate` (real weights) needs.
    linearize : bool or None, default False
        First-order AUC, cwAUC and AURC (:mod:`calreport.bootstrap._linear`; None:
        by its rule); ``linear`` holds the values linearized.
    """

    def __init__(self, p: ConfidenceProfile, s: Settings, names: Sequence[str],
                 order: np.ndarray | None = None, *, keep_rows: bool = True,
                 linearize: bool | None = False):
        self.names = [n for n in names
                      if n in REGISTRY and REGISTRY[n].interval.kind == "bootstrap"
                      and REGISTRY[n].missing_need(p) is None]
        self.settings = s
        n = p.n
        scale = _weight_scale(p) if order is not None else None
        index = _index_dtype(n)

        def at(a: np.ndarray) -> np.ndarray:
            """``a`` in the replicates' row order."""
            return a if order is None else a[order]

        base = None
        if p.sample_weight is not None:
            base = at(p.sample_weight).astype(np.float64)
            if scale is not None:
                with np.errstate(under="ignore"):
                    base /= scale
        self.weighted = base is not None
        self.min_count = s.min_count
        self._profile, self._scale = p, scale
        self._keep = {c for m in self.names for c in REGISTRY[m].interval.columns}
        specs = [REGISTRY[m].interval for m in self.names]
        self._with_bins = any("bin_diff" in spec.columns for spec in specs)
        # ranking metrics wanted, and the AUC classes with both outcomes
        y_code, groups, n_classes = None, None, 2
        if p.has_proba and p.y_true is not None and any(
                spec.finish in fin.PAIRWISE for spec in specs):
            n_classes = 2 if p.score is not None else p.proba.shape[1]
            y_code = p.y_true.astype(np.min_scalar_type(max(n_classes - 1, 1)))
            groups = _positive_groups(p, y_code, n_classes)
        want_aurc = any(spec.finish is fin.aurc for spec in specs)
        both = [] if groups is None else [k for k in ([1] if p.score is not None else
                                                      range(n_classes))
                                          if 0 < groups[k, 0] < n]
        # linearized only where the per-row columns are held as one matrix (with the
        # derivatives' three): the tile-by-tile mode keeps its memory bound
        self._lin = {}
        plain = list(self._columns(np.arange(min(n, 1))))
        if linearize is None and (len(plain) + 3) * n * 8 > _MATRIX_BYTES:
            linearize = False
        self._lin, self.linear = linear_columns(
            p, both, groups is not None, want_aurc, None if p.sample_weight is None else
            p.sample_weight / (scale or 1.0), linearize)
        self.col_names = plain + list(self._lin)  # ``_fill`` places columns by name
        self.col = {k: i for i, k in enumerate(self.col_names)}
        n_cols = len(self.col_names)
        # above _MATRIX_BYTES every per-row quantity of the host order (columns, AUC
        # class vectors) is formed again tile by tile: memory bounded by a tile
        per_tile = n_cols * n * 8 > _MATRIX_BYTES
        orders: list[_Order] = []
        # ranking: one order per class, negatives first among tied scores
        auc_specs = []
        sparse_classes: list[int] = []  # classes with few distinct positive scores
        sparse_groups: list[int] = []
        self.auc_classes: list[int] = []  # dense classes, then the sparse ones
        if groups is not None and "auc" not in self.linear:
            y = at(y_code)
            for k in both:
                if groups[k, 1] <= min(_SPARSE_GROUPS, n // _SPARSE_RATIO):
                    sparse_classes.append(k)
                    sparse_groups.append(int(groups[k, 1]))
                    continue
                pos = y == k
                sc = at(p.score) if p.score is not None else (
                    p.proba[:, k] if order is None else p.proba[order, k])
                o = _Order(*_score_order(sc, pos))
                del sc
                orders.append(o)
                auc_specs.append((o, pos, k))
                self.auc_classes.append(k)
            del y
        # AURC: rows by decreasing confidence, ties grouped
        aurc_order = None
        if want_aurc and "aurc" not in self.linear:
            conf = at(p.conf)
            aurc_order = _Order(*_descending_order(conf))
            del conf
            err = ~at(p.correct)[aurc_order.rows]
            orders.append(aurc_order)
        # binned: one fixed assignment of rows to bins (edges of the full sample,
        # computed as the point estimate computes them)
        bins = None
        if self._with_bins:
            bins = self._bins(p, s, order, base)
        # the order that carries the column sums: one where the bins are contiguous
        host = None
        if bins is not None:
            host = next((o for o in orders if _monotone(bins[o.rows])), None)
            if host is None:
                host = _Order(np.argsort(bins, kind="stable"))
                orders.append(host)
        elif orders:
            host = orders[0]
        else:
            host = _Order(np.arange(n, dtype=index))
            orders.append(host)
        orders.remove(host)
        orders.insert(0, host)  # the counts are drawn in this order
        # original row of each host position (the host rows themselves without an
        # order: no copy)
        self._source = (host.rows if order is None else order[host.rows]).astype(
            index, copy=False)
        for key in list(self._lin):  # the derivatives in the host order: read by slices
            self._lin[key] = self._lin[key][self._source]
        host_bins = None if bins is None else bins[host.rows]
        del bins
        # per-row columns in the host order: one C-ordered (N, C) matrix when it is
        # small (faster products than (C, N)), else formed again per tile (bounded memory)
        if not per_tile:
            matrix = np.empty((n, n_cols))
            step = _chunk_rows(p)

            def fill(a: int) -> None:
                self._fill(matrix[a:a + step], a, a + step)

            for a in range(0, n, step):
                fill(a)
            self.sums = _Sums(matrix, host_bins, host.tiles, n_cols)
        else:
            self.sums = _Sums(None, host_bins, host.tiles, n_cols, rows=self._rows)
        del host_bins
        host.parts.append(self.sums)
        self.aucs: list[_Auc] = []
        for o, pos, k in auc_specs:

            def conf_at(i: Any, o: _Order = o) -> np.ndarray:
                """Confidences of the rows at positions ``i`` of the order."""
                rows = o.rows[i]
                return p.conf[rows if order is None else order[rows]]

            if per_tile:  # only the rows of mixed tie groups are read here
                auc = _Auc(pos[o.rows], conf_at, o.starts, o.tiles,
                           vectors=self._auc_vectors(o, y_code, k))
            else:
                auc = _Auc(pos[o.rows], conf_at(slice(None)), o.starts, o.tiles)
            o.parts.append(auc)
            self.aucs.append(auc)
        del auc_specs
        self.sparse = None
        if sparse_classes:
            self.sparse = build_sparse_auc(p, self._source, sparse_classes,
                                           np.array(sparse_groups), p.conf[self._source])
            self.auc_classes.extend(sparse_classes)
        self.aurc = None
        if aurc_order is not None:
            self.aurc = _Aurc(err, aurc_order.starts, aurc_order.tiles)
            del err
            aurc_order.parts.append(self.aurc)
        for o in orders:
            if base is not None:
                o.base = base[o.rows]
            o.starts = None  # only needed to place the tiles and the ties
        del base
        position = np.empty(n, dtype=index)
        for a in range(0, n, _COLUMN_CHUNK):  # no n-row temporary
            position[host.rows[a:a + _COLUMN_CHUNK]] = np.arange(
                a, min(a + _COLUMN_CHUNK, n), dtype=index)
        # positions of the host order (in the replicate order), for the real weight
        # entry point; the counts path needs them only when they are the source rows
        self.first_rows = host.rows if keep_rows or order is None else None
        host.rows = self.first_rows
        for o in orders:
            if o is not host:
                o.perm = position[o.rows]
                o.rows = None  # host.rows[o.perm] when needed
        del position
        self.orders = orders

    def _bins(self, p: ConfidenceProfile, s: Settings, order: np.ndarray | None,
              base: np.ndarray | None) -> np.ndarray:
        """Bin of every row (replicate order) in the smallest integer type, assigned
        chunk by chunk (no 8-byte temporary per row)."""
        view = p.default_view if s.view is None else s.view
        if view == "top_label":
            score = p.conf
        elif p.score is not None and p.y_true is not None:
            score = p.score  # the view's score, without caching its outcome column
        else:
            score, _ = p.view(view)  # raises the view's own error
        if s.strategy == "uniform":  # data-free edges
            edges = binned.bin_edges(score[:1], n_bins=s.n_bins, strategy=s.strategy)
        else:
            edges = binned.bin_edges(score if order is None else score[order],
                                     n_bins=s.n_bins, strategy=s.strategy,
                                     sample_weight=base)
        top = max(edges.size - 2, 0)  # largest bin index
        small = next(t for t in (np.int8, np.int16, np.int32, np.int64)
                     if top <= np.iinfo(t).max)
        bins = np.empty(p.n, dtype=small)
        step = _COLUMN_CHUNK
        for a in range(0, p.n, step):
            rows = slice(a, a + step) if order is None else order[a:a + step]
            bins[a:a + step] = binned.assign_bins(score[rows], edges)
        return bins

    def _auc_vectors(self, o: _Order, y_code: np.ndarray, k: int) -> Callable[..., Any]:
        """The class flag and the confidence of the rows of one tile of ``o``."""
        p = self._profile

        def vectors(r0: int, r1: int) -> tuple[np.ndarray, np.ndarray]:
            rows = self._source[r0:r1] if o.perm is None else self._source[o.perm[r0:r1]]
            return y_code[rows] == k, p.conf[rows]

        return vectors

    # ---------------------------------------------------------- per-row columns
    def _columns(self, rows: np.ndarray, at: slice | None = None
                 ) -> dict[str, np.ndarray]:
        """The per-row columns of the profile's ``rows`` (original positions), which
        are the host positions ``at`` (None: before the host order is known)."""
        part = _subset(self._profile, rows, self._scale)
        cols = row_columns(part, self.settings, self._keep)
        cols.update({k: c[rows] if at is None else c[at] for k, c in self._lin.items()})
        if self._with_bins:
            score, outcome = part.view(self.settings.view)
            cols["bin_diff"] = outcome - score
            if part.sample_weight is not None:
                cols["base"] = part.sample_weight  # sum w * base = sum count base^2
        return cols

    def _fill(self, out: np.ndarray, r0: int, r1: int) -> None:
        """The columns of host positions ``r0:r1`` into ``out``."""
        cols = self._columns(self._source[r0:r1], slice(r0, r1))
        for i, name in enumerate(self.col_names):
            out[:, i] = cols[name]

    def _rows(self, r0: int, r1: int) -> np.ndarray:
        """The columns of host positions ``r0:r1`` as a C-contiguous (m, C) array."""
        out = np.empty((r1 - r0, len(self.col_names)))
        self._fill(out, r0, r1)
        return out

    def _order_rows(self, o: _Order) -> np.ndarray:
        if self.first_rows is None:
            raise ValueError("kernels built with keep_rows=False take resampling "
                             "counts only (evaluate_counts); build them with "
                             "keep_rows=True to evaluate real weights.")
        return o.rows if o.rows is not None else self.first_rows[o.perm]

    # ---------------------------------------------------------------- evaluation
    def evaluate(self, w: np.ndarray) -> dict[str, np.ndarray]:
        """All metrics for a block of replicate weights ``w`` of shape (b, N).

        ``w`` is in the original row order and includes the sample weights.
        """
        w = np.asarray(w, dtype=np.float64)

        def source(o: _Order, r0: int, r1: int, bufs: _Buffers) -> np.ndarray:
            return w[:, self._order_rows(o)[r0:r1]]

        return self._evaluate(w.shape[0], source, _Buffers(), counts=False)

    def evaluate_counts(self, counts: np.ndarray, bufs: _Buffers | None = None
                        ) -> dict[str, np.ndarray]:
        """All metrics for integer resampling counts (b, N), rows in the first order
        (``first_rows``); the sample weights are applied here."""
        bufs = _Buffers() if bufs is None else bufs

        def source(o: _Order, r0: int, r1: int, bufs: _Buffers) -> np.ndarray:
            if o.perm is None:
                return counts[:, r0:r1]
            # gathered tile by tile: no (b, N) copy; mode="raise" would buffer the output
            out = bufs.get("gathered", counts.shape[0], r1 - r0, counts.dtype)
            np.take(counts, o.perm[r0:r1], axis=1, out=out, mode="clip")
            return out

        return self._evaluate(counts.shape[0], source, bufs, counts=True)

    def _evaluate(self, b: int, source: Callable[..., np.ndarray], bufs: _Buffers, *,
                  counts: bool) -> dict[str, np.ndarray]:
        states = {id(part): part.start(b) for o in self.orders for part in o.parts}
        for o in self.orders:
            for t, (r0, r1) in enumerate(o.tiles):
                src = source(o, r0, r1, bufs)
                # C order: the row sums then add in the same order on every path; a
                # reused buffer (no freshly mapped pages per tile)
                w = bufs.get("weights", b, r1 - r0)
                np.copyto(w, src)
                if counts and o.base is not None:
                    w *= o.base[r0:r1]
                # counts of at most 2 bytes and no sample weights: whole numbers that
                # the running sums add as integers (see _tiles._running)
                whole = counts and o.base is None and src.dtype.itemsize <= 2
                for part in o.parts:
                    part.tile(states[id(part)], w, t, r0, bufs, whole)
        if self.sparse is not None:
            states[id(self.sparse)] = self.sparse.evaluate(
                b, lambda: self._host_chunks(b, source, bufs, counts), bufs)
        return self._finish(states)

    def _host_chunks(self, b: int, source: Callable[..., np.ndarray], bufs: _Buffers,
                     counts: bool) -> Iterator[tuple[int, np.ndarray]]:
        """Replicate weights (sample weights included) of the host order in chunks of
        rows, for the sparse AUC; counts are multiplied by the sample weights here."""
        host = self.orders[0]
        n = self._source.size
        step = max(_SPARSE_MIN_ROWS, _SPARSE_CELLS // (2 * b))
        for r0 in range(0, n, step):
            r1 = min(n, r0 + step)
            src = source(host, r0, r1, bufs)
            if counts and host.base is not None:
                w = bufs.get("sparse_w", b, r1 - r0)
                np.multiply(src, host.base[r0:r1], out=w)
                src = w
            yield r0, src

    def _finish(self, states: dict[int, Any]) -> dict[str, np.ndarray]:
        sums = ReplicateSums(self, states)
        out: dict[str, np.ndarray] = {}
        with np.errstate(divide="ignore", invalid="ignore"):
            for name in self.names:
                out[name] = np.asarray(REGISTRY[name].interval.finish(sums, self.settings),
                                       dtype=np.float64)
        return out


class Replicates(dict):
    """Metric -> bootstrap replicates, and ``linearized``: the metrics whose
    replicates are first order (:mod:`calreport.bootstrap._linear`)."""

    linearized: tuple[str, ...] = ()


def block_replicates(n: int, n_boot: int) -> int:
    """Replicates per block: whole streams, at most ``_BLOCK_CELLS`` counts and a
    float64 tile of about ``_TILE_CELLS`` cells.

    Parameters
    ----------
    n : int
        Rows.
    n_boot : int
        Replicates wanted.

    Returns
    -------
    int
        A multiple of 16 (one stream) or ``n_boot`` itself.
    """
    per = STREAM_REPLICATES
    streams = min(_BLOCK_CELLS // (n * per), _TILE_CELLS // (min(n, _TILE_ROWS) * per))
    return min(n_boot, per * max(1, streams))


def bootstrap_replicates(
    profile: ConfidenceProfile,
    *,
    metrics: Sequence[str],
    settings: Settings | None = None,
    n_boot: int = 1000,
    seed: Any = None,
    progress: bool | None = None,
    resampling: str = "multinomial",
    linearize: bool | None = None,
) -> Replicates:
    """Bootstrap replicates of the summary metrics of one profile.

    Rows are resampled with replacement (``n_boot`` samples of ``N`` rows); sample
    weights multiply the resampling counts.  Quantile bin edges are taken from the
    full sample and kept fixed across replicates.

    Parameters
    ----------
    profile : ConfidenceProfile
    metrics : list of str
    settings : Settings, optional
    n_boot : int
    seed : int, SeedSequence, Generator or None
        Master seed.  Replicates ``16 k .. 16 k + 15`` come from its child stream
        ``k``: their counts do not depend on the block size, and a block of another
        size (blocks follow ``N`` and ``n_boot``) moves them by rounding only
        (3e5 rows: blocks of 16 and 32 differ by <= 2e-15 on tied scores' AUCs,
        blocks of 64 by <= 2.3e-13, 2e-12 on z_CSR).
    progress : bool, optional
        Show a progress bar (default: in a terminal or a notebook, when the first
        block of replicates predicts at least two seconds).
    resampling : {"multinomial", "poisson"}, default "multinomial"
        ``"multinomial"``: every replicate draws exactly ``N`` rows (Efron's
        bootstrap).  ``"poisson"``: i.i.d. Poisson(1) counts, so replicate sizes
        vary (the Poisson bootstrap, asymptotically equivalent; meant for large N).
        Both cost the same here; see the module notes.
    linearize : bool or None, default None
        First-order replicates of the AUC, cwAUC and AURC (see
        :mod:`calreport.bootstrap._linear`): None where the sample has at least
        20,000 rows, each side at least 1,000, and its per-row columns fit in 256 MiB
        (about 2 million binary rows with every metric; above, the exact replicates
        keep the memory bound of the tiles), True always, False never.

    Returns
    -------
    Replicates
        Metric -> array of shape ``(n_boot,)``; its ``linearized`` names the
        metrics whose replicates are first order.

    Raises
    ------
    ValueError
        On ``n_boot < 2`` or an unknown ``resampling``.

    Notes
    -----
    A replicate's metrics equal the core metrics computed with its counts as
    sample weights (times the profile's own weights), the linearized ones to first
    order.

    Memory beyond the profile: the uint8 counts of one block (at least one stream
    of 16 replicates, ``16 N`` bytes), 4 bytes a row for the host order's source rows
    and 4 more per further sort order, one error flag a row for AURC, and the
    per-row columns, held as one matrix (with, per AUC order, the positions of each
    tile's negatives and positives and their confidences, about 20 bytes a row, or
    the linearized metrics' derivatives, 8 bytes a row each) up to 256 MiB and
    above that formed again tile by tile together with the AUC class vectors.
    Measured on 1e7 binary rows with every batched metric: about 30 bytes a row at
    the peak (1.9x the int64 labels and float64 scores), whatever ``n_boot``.
    A class whose positives take at most ``min(1024, N / 32)`` distinct scores
    (each class of a many-class problem) has no sort order but a 2-byte segment
    label per row.  Nothing of size ``N x n_boot``.

    Examples
    --------
    >>> prof = ConfidenceProfile.from_arrays([0, 1, 1, 0, 1], [0.2, 0.9, 0.6, 0.4, 0.3])
    >>> reps = bootstrap_replicates(prof, metrics=["accuracy"], n_boot=4, seed=0)
    >>> reps["accuracy"].shape
    (4,)
    """
    s = settings or Settings()
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 2:
        raise ValueError(f"`n_boot` must be an integer >= 2, got {n_boot!r}.")
    v.check_option(resampling, "resampling", RESAMPLING)
    n_boot = int(n_boot)
    # a canonical row order, so the replicates do not depend on the input's row order
    # (rows tied on every key are interchangeable)
    # (the kernels read the profile through this order: no reordered copy of it)
    k = Kernels(profile, s, metrics, order=canonical_order(profile), keep_rows=False,
                linearize=linearize)
    n = profile.n
    sampler = Resampler.of(n, resampling)
    streams = spawn_seeds(seed, -(-n_boot // STREAM_REPLICATES))
    block = block_replicates(n, n_boot)
    out = Replicates({name: np.empty(n_boot) for name in k.names})
    out.linearized = tuple(
        m for m in k.names if ("auc" in k.linear and REGISTRY[m].interval.finish in
                               fin.PAIRWISE) or ("aurc" in k.linear and
                                                 REGISTRY[m].interval.finish is fin.aurc))
    bufs = _Buffers()  # scratch arrays reused from block to block

    def evaluate_block(start: int, bufs: _Buffers) -> int:
        stop = min(start + block, n_boot)
        counts = sampler.draw_block(streams, start, stop,
                                    bufs.get("counts", stop - start, n, np.uint8))
        for name, vals in k.evaluate_counts(counts, bufs).items():
            out[name][start:stop] = vals
        return stop - start

    # the first block is timed: a bar only for work expected to take seconds
    with Steps(n_boot, "bootstrap", "rep", progress) as steps:
        for start in range(0, n_boot, block):
            steps.done(evaluate_block(start, bufs))
    return out
