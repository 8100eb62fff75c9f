"""Exact, order-independent sums of non-negative float64 values.

Why integer fixed point rather than compensated (Kahan/Neumaier) sums: a
compensated sum is accurate but not *associative* -- merging partial sums in
another order can change the last bit, so results would depend on how a frame is
partitioned.  Here each value ``x >= 0`` is truncated once to the grid
``2^-frac_bits`` (``frac_bits = 63`` for real values: an absolute error below
1.1e-19 per row) and the integers are added exactly.  Integer addition is
associative and commutative, so a sum is bit-for-bit the same whatever the
partitioning, the row order or the order in which partial states are merged.

An integer is held as base-2^32 limbs in an int64 array whose last axis indexes
the limb (least significant first).  Limbs are kept normalised: every limb but
the last lies in ``[0, 2^32)`` and the last stays far below ``2^62``, so two
normalised arrays can be added limb by limb without overflow.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

__all__ = ["FixedSum", "check_limbs", "exact_bincount"]

_BASE_BITS = 32
_MASK = (1 << _BASE_BITS) - 1
#: A float64 bincount of values below 2^32 is exact for up to 2^21 rows.
_BLOCK = 1 << 21
#: Real values are truncated to multiples of 2^-FRAC_BITS.
FRAC_BITS = 63
#: :func:`_normalise` keeps the last limb below this.
_TOP = 1 << 40
#: Most limbs a sum can need: float64 values below 2^1024 on the 2^-63 grid, summed
#: over fewer than 2^64 rows.
MAX_LIMBS = -(-(FRAC_BITS + 1024 + 64) // _BASE_BITS)


class FixedSum:
    """An array of exact non-negative sums, in fixed point with ``frac_bits`` bits.

    Parameters
    ----------
    limbs : ndarray of int64, shape (..., L)
        Base-2^32 digits of the integer ``sum * 2^frac_bits``.
    frac_bits : int
        0 for counts, 63 for real-valued sums.
    """

    __slots__ = ("frac_bits", "limbs")

    def __init__(self, limbs: np.ndarray, frac_bits: int, *, normalised: bool = False) -> None:
        limbs = np.asarray(limbs, dtype=np.int64)
        self.limbs = limbs if normalised else _normalise(limbs)
        self.frac_bits = int(frac_bits)

    @property
    def shape(self) -> tuple[int, ...]:
        """Shape of the array of sums (without the limb axis)."""
        return self.limbs.shape[:-1]

    @classmethod
    def zeros(cls, shape: tuple[int, ...], frac_bits: int) -> FixedSum:
        """An all-zero array of sums."""
        return cls(np.zeros((*shape, 1), dtype=np.int64), frac_bits)

    def __add__(self, other: FixedSum) -> FixedSum:
        if self.frac_bits != other.frac_bits or self.shape != other.shape:
            raise ValueError(
                f"Cannot add sums of shape {self.shape} (2^-{self.frac_bits} grid) and "
                f"{other.shape} (2^-{other.frac_bits} grid)."
            )
        a, b = _pad(self.limbs, other.limbs.shape[-1]), _pad(other.limbs, self.limbs.shape[-1])
        return FixedSum(a + b, self.frac_bits)

    def take(self, index: np.ndarray, shape: tuple[int, ...]) -> FixedSum:
        """Scatter the leading axis into a zero array of leading size ``shape[0]``."""
        out = np.zeros((*shape, self.limbs.shape[-1]), dtype=np.int64)
        out[index] = self.limbs
        return FixedSum(out, self.frac_bits, normalised=True)

    def __getitem__(self, item: object) -> FixedSum:
        if not isinstance(item, tuple):
            item = (item,)
        return FixedSum(self.limbs[(*item, Ellipsis, slice(None))], self.frac_bits,
                        normalised=True)

    def reshape(self, shape: tuple[int, ...]) -> FixedSum:
        """The same sums with another array shape."""
        return FixedSum(self.limbs.reshape(*shape, self.limbs.shape[-1]), self.frac_bits,
                        normalised=True)

    def to_float(self) -> np.ndarray:
        """The sums as float64 (a few ulps of rounding; exact for counts below 2^53)."""
        out = np.zeros(self.shape, dtype=np.float64)
        for k in range(self.limbs.shape[-1] - 1, -1, -1):
            out += np.ldexp(self.limbs[..., k].astype(np.float64), _BASE_BITS * k - self.frac_bits)
        return out

    def group_totals(self) -> FixedSum:
        """Exact sums over every axis but the first (shape ``(G,)``).

        Added in blocks of 2^21 cells, normalised between blocks, so no limb
        overflows whatever the number of cells.
        """
        g, n = self.limbs.shape[0], self.limbs.shape[-1]
        flat = self.limbs.reshape(g, -1, n)
        out = np.zeros((g, 1), dtype=np.int64)
        for start in range(0, flat.shape[1], _BLOCK):
            block = _normalise(flat[:, start:start + _BLOCK].sum(axis=1))
            m = max(out.shape[-1], block.shape[-1])
            out = _normalise(_pad(out, m) + _pad(block, m))
        return FixedSum(out, self.frac_bits, normalised=True)

    def less_equal(self, other: FixedSum) -> np.ndarray:
        """Elementwise ``self <= other`` of two same-grid arrays of sums (exact)."""
        n = max(self.limbs.shape[-1], other.limbs.shape[-1])
        a, b = _pad(self.limbs, n), _pad(other.limbs, n)
        out = np.ones(self.shape, dtype=bool)
        decided = np.zeros(self.shape, dtype=bool)
        for k in range(n - 1, -1, -1):  # most significant limb first
            lt, gt = a[..., k] < b[..., k], a[..., k] > b[..., k]
            out &= ~(gt & ~decided)
            decided |= lt | gt
        return out

    def to_fraction(self) -> np.ndarray:
        """The sums as exact :class:`fractions.Fraction` objects (object array)."""
        flat = self.limbs.reshape(-1, self.limbs.shape[-1])
        den = 1 << self.frac_bits
        vals = [Fraction(sum(int(d) << (_BASE_BITS * k) for k, d in enumerate(row)), den)
                for row in flat]
        out = np.empty(len(vals), dtype=object)
        out[:] = vals
        return out.reshape(self.shape)

    def equals(self, other: FixedSum) -> bool:
        """Bitwise equality of the represented sums."""
        n = max(self.limbs.shape[-1], other.limbs.shape[-1])
        return (self.frac_bits == other.frac_bits and self.shape == other.shape
                and bool(np.array_equal(_pad(self.limbs, n), _pad(other.limbs, n))))


def check_limbs(limbs: np.ndarray, name: str) -> None:
    """Raise unless ``limbs`` are the normalised digits of non-negative integers.

    Every sum is built normalised (:func:`_normalise`): each limb but the last in
    ``[0, 2^32)``, the last in ``[0, 2^40)``, and at most :data:`MAX_LIMBS` limbs.
    Anything else was not produced by this module (a negated or overflowing sum).

    Raises
    ------
    ValueError
        Naming ``name``, the first offending cell and the range expected.
    """
    if limbs.ndim < 1 or not 1 <= limbs.shape[-1] <= MAX_LIMBS:
        raise ValueError(
            f"{name} has {limbs.shape[-1] if limbs.ndim else 0} limbs per sum; a stored "
            f"sum has 1 to {MAX_LIMBS}. The state was not written by calreport: rebuild "
            "it from its batches."
        )
    low, top = limbs[..., :-1], limbs[..., -1]
    for part, hi, what in ((low, 1 << _BASE_BITS, "lower limbs"), (top, _TOP, "last limb")):
        bad = (part < 0) | (part >= hi)
        if bad.any():
            pos = np.unravel_index(int(np.flatnonzero(bad.ravel())[0]), part.shape)
            val = int(part[pos])
            raise ValueError(
                f"{name} holds {int(bad.sum())} invalid fixed-point digits ({what} must "
                f"lie in [0, 2^{int(hi).bit_length() - 1}); first at {tuple(map(int, pos))}: "
                f"{val}{', negative: a negated sum' if val < 0 else ', an overflowing sum'}). "
                "Exact sums are never negative or denormalised: the state was altered; "
                "rebuild it from its batches."
            )


def _pad(limbs: np.ndarray, n: int) -> np.ndarray:
    extra = n - limbs.shape[-1]
    if extra <= 0:
        return limbs
    return np.concatenate([limbs, np.zeros((*limbs.shape[:-1], extra), np.int64)], axis=-1)


def _normalise(limbs: np.ndarray) -> np.ndarray:
    """Propagate carries so every limb but the last is in [0, 2^32)."""
    limbs = limbs.copy()
    for k in range(limbs.shape[-1] - 1):
        carry = limbs[..., k] >> _BASE_BITS
        limbs[..., k] &= _MASK
        limbs[..., k + 1] += carry
    if limbs.size and int(limbs[..., -1].max(initial=0)) >= (1 << 40):
        top = limbs[..., -1].copy()
        limbs[..., -1] = top & _MASK
        limbs = np.concatenate([limbs, (top >> _BASE_BITS)[..., np.newaxis]], axis=-1)
    return limbs


def _digits(x: np.ndarray, frac_bits: int, n_limbs: int) -> list[np.ndarray]:
    """Base-2^32 digits (as exact float64 integers) of ``floor(x * 2^frac_bits)``.

    Most significant digit first: ``t = x 2^(frac_bits - 32 (L-1))``; its integer
    part is the top digit, and the fractional part times 2^32 carries on.  Every
    step is exact in float64 (scaling by powers of 2, taking fractional parts).
    """
    t = x * float(2.0 ** (frac_bits - _BASE_BITS * (n_limbs - 1)))
    out = [np.empty(0)] * n_limbs
    scale = float(1 << _BASE_BITS)
    for k in range(n_limbs - 1, 0, -1):
        d = np.floor(t)
        t -= d
        t *= scale
        out[k] = d
    out[0] = np.floor(t, out=t)
    return out


def exact_bincount(
    index: np.ndarray, values: np.ndarray | None, size: int, frac_bits: int = FRAC_BITS
) -> FixedSum:
    """Exact per-cell sums ``sum_{i: index_i = j} values_i`` for ``j < size``.

    ``values=None`` counts rows (on the grid ``2^-frac_bits``; pass 0 for plain
    counts).  Values must be finite and non-negative.
    """
    index = np.asarray(index, dtype=np.intp)
    if values is None:
        counts = np.bincount(index, minlength=size).astype(np.int64)
        if frac_bits == 0 or counts.max(initial=0) >= (1 << 31):
            limbs = counts[:, np.newaxis]
            if frac_bits:
                return exact_bincount(index, np.ones(index.shape), size, frac_bits)
            return FixedSum(limbs, 0)
        whole, part = divmod(frac_bits, _BASE_BITS)
        limbs = np.zeros((size, whole + 2), dtype=np.int64)
        limbs[:, whole] = counts << part  # count * 2^frac_bits, below 2^62
        return FixedSum(limbs, frac_bits)
    x = np.asarray(values, dtype=np.float64)
    top = float(x.max(initial=0.0))
    if not np.isfinite(top) or (x.size and float(x.min()) < 0.0):
        raise ValueError("exact sums need finite, non-negative values.")
    bits = frac_bits + (int(np.frexp(top)[1]) if top > 0 else 0)
    n_limbs = max(1, -(-max(bits, 1) // _BASE_BITS))
    total = np.zeros((size, n_limbs), dtype=np.int64)
    for start in range(0, x.size, _BLOCK):
        sl = slice(start, start + _BLOCK)
        idx = index[sl]
        for k, d in enumerate(_digits(x[sl], frac_bits, n_limbs)):
            total[:, k] += np.bincount(idx, weights=d, minlength=size).astype(np.int64)
        total = _normalise(total)
    return FixedSum(total, frac_bits)
