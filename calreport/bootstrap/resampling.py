"""Resampling counts for the bootstrap, and the seeds behind them.

A bootstrap replicate of ``N`` rows drawn with replacement is represented by its
count vector (how often each row was drawn).


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

Poisson counts are drawn by inversion, two cells at a time: a 16-bit random code
indexes a table of the quantile of the joint law of two independent counts
``(k1, k2)`` (ordered ``k1 K + k2``, ``K`` counts) on each of the 65536 code
intervals; the intervals that contain a jump of that CDF (about 0.08 % of draws)
are refined with a 53-bit uniform and a binary search of the CDF.  The draws are
therefore inverse-CDF draws from the double-precision CDF (``scipy.special.pdtr``
and its products), as exact as any sampler working in double precision; one
code and one look-up per pair of cells is about twice as fast as one per cell.


Seeds: one master seed and the group's key give each group its own stream
(:func:`group_seed`), so adding, removing or reordering groups never changes the
replicates of another; inside a group, each run of 16 consecutive replicates has
its own child stream, so the resampling counts do not depend on the block size.
"""

from __future__ import annotations

import hashlib
import math
from functools import lru_cache
from typing import Any

import numpy as np
from scipy import special

__all__ = ["RESAMPLING", "STREAM_REPLICATES", "Resampler", "group_seed", "spawn_seeds"]

#: Resampling schemes: Efron's multinomial bootstrap or the Poisson bootstrap.
RESAMPLING = ("multinomial", "poisson")
#: Consecutive replicates drawn from one child stream of the master seed
STREAM_REPLICATES = 16
_CODE_CHUNK = 1 << 16  # random codes per table look-up
_REFINE = 0xFFFF  # pair table: the code's interval holds a jump of the CDF


def spawn_seeds(seed: Any, n: int) -> list[np.random.SeedSequence]:
    """Child seed sequences of one master seed (int, SeedSequence, Generator or None)."""
    if isinstance(seed, np.random.Generator):
        ss = seed.bit_generator.seed_seq  # type: ignore[attr-defined]
    elif isinstance(seed, np.random.SeedSequence):
        ss = seed
    else:
        ss = np.random.SeedSequence(seed)
    return ss.spawn(n)




def _master(seed: Any) -> np.random.SeedSequence:
    if isinstance(seed, np.random.Generator):
        return seed.bit_generator.seed_seq  # type: ignore[attr-defined]
    if isinstance(seed, np.random.SeedSequence):
        return seed
    return np.random.SeedSequence(seed)


def group_seed(seed: Any, key: Any) -> np.random.SeedSequence:
    """Seed sequence of one group, derived from the master seed and the group's key.

    The key enters through a stable digest of its type and value, so a group's
    replicates do not depend on its position, on the other groups or on ``sort``.

    Examples
    --------
    >>> a = group_seed(0, ("north", 1)).generate_state(2)
    >>> b = group_seed(0, ("north", 1)).generate_state(2)
    >>> bool((a == b).all())
    True
    """
    master = _master(seed)
    digest = hashlib.blake2b(_key_bytes(key), digest_size=16).digest()
    words = [int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4)]
    entropy = master.entropy
    entropy = list(entropy) if isinstance(entropy, (list, tuple)) else [entropy]
    return np.random.SeedSequence([*entropy, *master.spawn_key, *words])


def _key_bytes(key: Any) -> bytes:
    if isinstance(key, tuple):
        return b"(" + b",".join(_key_bytes(k) for k in key) + b")"
    if isinstance(key, float) and math.isnan(key):
        return b"nan"
    if key is None or (not isinstance(key, (str, bytes)) and _is_na(key)):
        return b"NA"
    if isinstance(key, (np.generic,)):
        key = key.item()
    return f"{type(key).__name__}:{key!r}".encode()


def _is_na(key: Any) -> bool:
    try:
        return bool(key != key)
    except (TypeError, ValueError):
        return False


def _poisson_rate(n: int) -> float:
    """Rate ``lambda`` with ``n lambda + 5 sqrt(n lambda) = n``: P(total > n) ~ 3e-7."""
    root = (math.sqrt(25.0 + 4.0 * n) - 5.0) / 2.0
    return root * root / n


class Resampler:
    """Draws the resampling counts of runs of replicates (see the module notes).

    Parameters
    ----------
    n : int
        Rows of a replicate.
    resampling : {"multinomial", "poisson"}
        Exactly ``n`` draws, or i.i.d. Poisson(1) counts.
    """

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
        # pairs of cells: the same inversion for the joint law of two counts; the
        # pair is stored as one little-endian 16-bit value (first cell: low byte)
        pmf = np.diff(cdf, prepend=0.0)
        pair_cdf = np.cumsum(np.outer(pmf, pmf).ravel())
        pair_cdf[-1] = 1.0
        self.pair_cdf = pair_cdf
        at_lo = np.searchsorted(pair_cdf, lo, side="right")
        below_hi = np.searchsorted(pair_cdf, lo + 2.0**-16, side="left")
        self.pair_table = np.where(at_lo == below_hi, self._pair_value(at_lo),
                                   _REFINE).astype("<u2")

    def _pair_value(self, index: np.ndarray) -> np.ndarray:
        """16-bit value of the pairs at ``index`` of the joint CDF (clipped to the top)."""
        k = self.cdf.size
        index = np.minimum(index, k * k - 1)
        return (index // k) | ((index % k) << 8)

    def _poisson(self, rng: np.random.Generator, flat: np.ndarray) -> None:
        raw = rng.bit_generator.random_raw
        # whole pairs of cells from the joint table (the buffer read as 16-bit values
        # when it is 2-byte aligned), then a last odd cell from the single table
        half = flat.size // 2 if flat.ctypes.data % 2 == 0 else 0
        pairs = flat[:2 * half].view("<u2")
        for s in range(0, half, _CODE_CHUNK):
            e = min(s + _CODE_CHUNK, half)
            codes = raw((e - s + 3) // 4).astype("<u8", copy=False).view("<u2")[: e - s]
            # every 16-bit code indexes the table (mode='raise' would buffer)
            np.take(self.pair_table, codes, out=pairs[s:e], mode="clip")
            edge = np.flatnonzero(pairs[s:e] == _REFINE)
            if edge.size:
                u = (codes[edge] + rng.random(edge.size)) * 2.0**-16
                pairs[s + edge] = self._pair_value(
                    np.searchsorted(self.pair_cdf, u, side="right"))
        flat = flat[2 * half:]
        top = self.cdf.size - 1
        for s in range(0, flat.size, _CODE_CHUNK):
            e = min(s + _CODE_CHUNK, flat.size)
            # '<u8' then '<u2': the same 16-bit codes on every platform
            codes = raw((e - s + 3) // 4).astype("<u8", copy=False).view("<u2")[: e - s]
            np.take(self.table, codes, out=flat[s:e], mode="clip")
            edge = np.flatnonzero(flat[s:e] == 255)
            if edge.size:
                u = (codes[edge] + rng.random(edge.size)) * 2.0**-16
                flat[s + edge] = np.minimum(np.searchsorted(self.cdf, u, side="right"), top)

    @staticmethod
    @lru_cache(maxsize=32)
    def of(n: int, resampling: str) -> Resampler:
        """The resampler of ``n`` rows, built once: its tables (about 3 ms) depend on
        ``n`` and the scheme only, and drawing never changes them."""
        sampler = Resampler(n, resampling)
        for table in (sampler.cdf, sampler.table, sampler.pair_cdf, sampler.pair_table):
            table.flags.writeable = False  # shared by every caller from now on
        return sampler

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


    def draw_block(self, streams: list[np.random.SeedSequence], start: int, stop: int,
                   out: np.ndarray | None = None) -> np.ndarray:
        """Counts of replicates ``start:stop`` (a multiple of 16 from ``start``).

        Replicates ``16 k .. 16 k + 15`` come from child stream ``streams[k]``, so a
        replicate's counts do not depend on the size of the block it is drawn in.

        Parameters
        ----------
        streams : list of SeedSequence
            One child seed per run of :data:`STREAM_REPLICATES` replicates.
        start, stop : int
            Replicates to draw.
        out : ndarray of uint8, shape (stop - start, n), optional
            Where to draw them (a new array if omitted).

        Returns
        -------
        ndarray, shape (stop - start, n)
            ``out``, or a wider copy when a count exceeded 255.
        """
        counts = np.empty((stop - start, self.n), np.uint8) if out is None else out
        for g in range(start, stop, STREAM_REPLICATES):
            rng = np.random.Generator(np.random.PCG64(streams[g // STREAM_REPLICATES]))
            rows = slice(g - start, min(g + STREAM_REPLICATES, stop) - start)
            direct = counts.dtype == np.uint8  # else a widened block: draw aside
            target = (counts[rows] if direct else
                      np.empty((rows.stop - rows.start, self.n), np.uint8))
            drawn = self.draw(rng, target)
            if drawn.dtype != counts.dtype:  # a count above 255: widen the block
                counts = counts.astype(np.promote_types(counts.dtype, drawn.dtype))
                direct = False
            if not direct or drawn is not target:
                counts[rows] = drawn
        return counts


def _add_hits(counts: np.ndarray, hits: np.ndarray) -> np.ndarray:
    """Add one to ``counts.flat[h]`` for every ``h`` in ``hits``, widening if needed."""
    if counts.size < 2**31:  # sorted as 4-byte integers: about 1.6x faster
        hits = hits.astype(np.int32)
    idx, times = np.unique(hits, return_counts=True)
    new = counts.reshape(-1)[idx] + times
    if new.size and new.max() > np.iinfo(counts.dtype).max:
        counts = counts.astype(np.uint16 if new.max() <= 0xFFFF else np.int64)
    counts.reshape(-1)[idx] = new
    return counts


# --------------------------------------------------------------------- row columns
#: Row quantities that each plain metric sums (every metric also uses "one").
