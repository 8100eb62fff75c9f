"""Importance weights on a power-of-two scale per group, so states are scale-free.

The pandas path divides importance weights by their maximum: every value is the
same for weights of 1e-300 and of 1e300.  A state cannot divide by the maximum of
the whole data (a partition sees its own rows only), and the exact sums
(:mod:`calreport.stats._exact`) keep values on a fixed grid of ``2^-63``: raw
weights of 1e-300 would truncate to zero and squares of 1e300 overflow.  So every
state multiplies a group's importance weights by ``2^-E``, one integer exponent per
group that brings the group's largest weight in the partition to [0.5, 1), and
carries ``E`` beside its sums.  A power of two, not the maximum itself: dividing by
it is exact, and so is a later change of scale.

Weights whose maximum lies in [2^-8, 2^20) keep ``E = 0``: their sums are bit for
bit those of the raw weights (as before scaling existed), they keep at least 47
bits below the largest squared weight, and every partition of such data shares
one grid.  Two states of one group with different exponents are merged at the
smaller one: the integer sums of the other are shifted up by the difference
(exact, so integer addition stays associative), and its float sums and kept rows
multiplied by the same power of two (exact).  The largest weights of one group in
two parts may differ by up to ``2^MAX_RANGE`` (:data:`MAX_RANGE`); past that, cubes
of the shifted weights would overflow float64, and the merge is refused.  A group
without a positive weight holds zero sums, the same on every scale.  Groups pooled
into one row (only ever finished) meet on the coarsest scale among them, as pandas
divides all weights by the largest of all.

Frequency weights count rows and are never rescaled (``E = 0``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calreport._validate import zero_weights_message
from calreport.stats._exact import FixedSum
from calreport.stats.config import BIN_SUMS, RISK_FLOAT, RISK_SUMS, SCALAR_DEGREES, SCALARS
from calreport.stats.sparse import SparseSums

__all__ = ["MAX_RANGE", "align", "check_frequency", "check_positive", "check_scale",
           "exponents", "exponents_of", "on_scale", "pooled_exponent", "rescale",
           "scale_profile", "state_scale"]

#: Largest weights with exponents in this range (frexp: ``m = f 2^e``, f in [0.5, 1))
#: are not rescaled.
_KEEP = (-7, 20)
#: Widest ratio (in bits) between the largest weights of one group in two merged
#: states: cubes of the shifted weights stay below 2^1023 for the float sums.
MAX_RANGE = 300
#: Bits of a limb of an exact sum.
_LIMB = 32
#: Largest frequency weight (as the pandas path: counts above it are refused).
MAX_COUNT = 2.0 ** 62

# Degree in the weights of every quantity a state holds (importance weights: ``w``,
# ``a = w / (1 - c)``); a quantity of degree d scales by 2^(d E).  Columns not named
# are of degree 1; the scalar sums' degrees are :data:`SCALAR_DEGREES`.
_BINS = {"w2": 2}
_RISK = {"sp_var": 2, "c_w2": 2, "c_var": 2, "c_count": 0, "c_wrong": 0}
_RISK_FLOAT = {"a_k3": 3, "a_var1": 2, "r_k3": 3, "r_var1": 2}
_KEPT = {"sample": {"sample_weight": 1}, "top": {"sample_weight": 1, "size": 1, "u": 1},
         "heavy": {"u": 2, "atom": 1, "w": 1}}


def exponents(w: np.ndarray, codes: np.ndarray, g: int) -> np.ndarray:
    """Per group, the exponent ``E`` that brings its largest weight into [0.5, 1) when
    divided by ``2^E``; 0 for a group whose largest weight lies in [2^-8, 2^20) or
    that has no positive weight.

    Examples
    --------
    >>> exponents(np.array([1e-300, 2.0, 0.5]), np.array([0, 1, 1]), 2).tolist()
    [-996, 0]
    """
    top = np.zeros(g)
    if g == 1:
        top[0] = w.max(initial=0.0)
    else:
        np.maximum.at(top, codes, w)
    e = np.frexp(top)[1].astype(np.int64)
    e[(top <= 0) | ((e >= _KEEP[0]) & (e <= _KEEP[1]))] = 0
    return e


def check_frequency(w: np.ndarray, name: str = "sample_weight") -> None:
    """Refuse frequency counts whose squares the exact sums cannot hold, as pandas does.

    Raises
    ------
    ValueError
        Naming ``name`` when a count exceeds 2^62.
    """
    if w.size and float(w.max()) > MAX_COUNT:
        raise ValueError(f"`{name}` holds frequency counts above 2**62; pass "
                         "weights='importance' for relative weights.")


def scale_profile(profile: Any, codes: np.ndarray, g: int) -> tuple[Any, np.ndarray | None]:
    """The profile with every group's importance weights divided by ``2^E``, and ``E``
    (None when every exponent is 0: the profile is returned as it is)."""
    w = profile.sample_weight
    if w is None:
        return profile, None
    if profile.weights != "importance":
        check_frequency(w, str(profile.notes.get("weight_name", "sample_weight")))
        return profile, None
    e = exponents(w, codes, g)
    if not e.any():
        return profile, None
    with np.errstate(under="ignore"):  # 2^-600 of a group's top is 0, as w / max is
        scaled = np.ldexp(w, -e[codes])
    return profile.replace(sample_weight=scaled), e


def _degrees(names: tuple[str, ...], table: dict[str, int]) -> np.ndarray:
    return np.asarray([table.get(n, 1) for n in names], dtype=np.int64)


def _sum_degrees(name: str) -> np.ndarray | None:
    """Degrees along the last axis of the exact sums ``name`` (None: all 1)."""
    return {"scalar": lambda: _degrees(SCALARS, SCALAR_DEGREES),
            "bins": lambda: _degrees(BIN_SUMS, _BINS),
            "risk": lambda: _degrees(RISK_SUMS, _RISK)}.get(name, lambda: None)()


def _boot_degrees(n_bins: int) -> np.ndarray:
    bins = [1] * (3 * n_bins) + [2] * n_bins  # weight, w s, w y, then w^2 per bin
    return np.asarray([*_degrees(SCALARS, SCALAR_DEGREES), *bins])


def _shift(s: FixedSum, bits: np.ndarray) -> FixedSum:
    """The sums times ``2^bits`` (``bits`` broadcasts to ``s.shape``): whole limbs move,
    the rest of a shift moves bits across neighbouring limbs.  Exact for ``bits >=
    0``; a negative shift rounds down (used only to finish a pooled state)."""
    shift = np.broadcast_to(bits, s.shape)
    if not shift.any():
        return s
    most = max(int(shift.max()), 0)
    # every limb below 2^32 first (the last may reach 2^40), so x << r fits in int64
    x = np.concatenate([s.limbs, np.zeros((*s.shape, 1), np.int64)], axis=-1)
    x[..., -1] = x[..., -2] >> _LIMB
    x[..., -2] &= (1 << _LIMB) - 1
    n = x.shape[-1]
    out = np.zeros((*s.shape, n + most // _LIMB + 1), dtype=np.int64)
    mask = (1 << _LIMB) - 1
    for v in np.unique(shift).tolist():
        at = shift == v
        q, r = divmod(abs(v), _LIMB)
        rows = x[at]
        if v >= 0:
            out[at, q:q + n] += (rows << r) & mask
            out[at, q + 1:q + n + 1] += rows >> (_LIMB - r)
        elif q < n:
            kept = rows[:, q:]
            out[at, :n - q] += kept >> r
            out[at, :n - q - 1] += (kept[:, 1:] << (_LIMB - r)) & mask
    return FixedSum(out, s.frac_bits)


def rescale(state: Any, target: np.ndarray, *, coarser: bool = False) -> Any:
    """The state with group ``i`` on the scale ``2^target[i]`` (any value for a group
    without positive weight: its sums are zero).

    ``target <= scale`` (a finer grid: exact) unless ``coarser``: then the exact sums
    round down to the coarser grid, which only a state about to be finished may do
    (its levels no longer add up exactly).
    """
    import dataclasses

    have = state_scale(state)
    up = np.where(state.counts["n_positive_weight"] > 0, have - target, 0)
    if (up < 0).any() and not coarser:
        raise ValueError("a state moves only to a finer scale (a smaller exponent).")
    if not up.any():
        return dataclasses.replace(state, scale=_or_none(target))

    def per_group(deg: np.ndarray | int, ndim: int) -> np.ndarray:
        """Bits of the shift of each cell: the group's, times the quantity's degree."""
        return up.reshape((-1,) + (1,) * (ndim - 1)) * deg

    def per_entry(s: SparseSums, deg: int) -> np.ndarray:
        """Bits of the shift of each occupied cell of a sparse sum (all degree ``deg``)."""
        return (up[s.entry_groups()] * deg).reshape((-1,) + (1,) * (len(s.values.shape) - 1))

    sums = {}
    for name, s in state.sums.items():
        deg = _sum_degrees(name)
        sums[name] = s.with_values(_shift(s.values, per_entry(s, 1))) \
            if isinstance(s, SparseSums) else \
            _shift(s, per_group(1 if deg is None else deg, len(s.shape)))

    def ldexp(a: np.ndarray, deg: np.ndarray | int) -> np.ndarray:
        with np.errstate(over="ignore"):
            return np.ldexp(a, per_group(deg, a.ndim))

    def fine(a: SparseSums) -> SparseSums:
        with np.errstate(over="ignore"):
            return a.with_values(np.ldexp(a.values, per_entry(a, 2)))

    fsums = {name: fine(a) if isinstance(a, SparseSums) else
             ldexp(a, _degrees(RISK_FLOAT, _RISK_FLOAT) if name == "risk" else 2)
             for name, a in state.fsums.items()}
    boot = None if state.boot is None else ldexp(state.boot,
                                                  _boot_degrees(state.config.n_bins))
    bits = dict(zip(state.keys, (up).tolist(), strict=True))
    kept = {}
    for name, table in _KEPT.items():
        groups = getattr(state, name)
        kept[name] = None if groups is None else {
            key: _scale_rows(rows, table, bits[key[0] if name == "heavy" else key])
            for key, rows in groups.items()}
    smooth = None if state.smooth is None else {
        key: {v: np.ldexp(m, bits[key]) for v, m in views.items()}
        for key, views in state.smooth.items()}
    return dataclasses.replace(state, sums=sums, fsums=fsums, boot=boot, smooth=smooth,
                               scale=_or_none(target), **kept)


def _scale_rows(rows: dict[str, np.ndarray], table: dict[str, int], bits: int
                ) -> dict[str, np.ndarray]:
    if not bits:
        return rows
    return {f: np.ldexp(a, bits * table[f]) if f in table else a for f, a in rows.items()}


def _or_none(e: np.ndarray) -> np.ndarray | None:
    return np.asarray(e, dtype=np.int64) if np.any(e) else None


def state_scale(state: Any) -> np.ndarray:
    """Per group, the exponent ``E`` of a state (zeros when it holds none)."""
    if state.scale is None:
        return np.zeros(len(state.keys), dtype=np.int64)
    return np.asarray(state.scale, dtype=np.int64)


def align(a: Any, b: Any) -> tuple[Any, Any]:
    """Two states with every shared group on one scale (the finer of the two)."""
    if a.scale is None and b.scale is None:
        return a, b
    finest: dict[Any, int] = {}
    coarsest: dict[Any, int] = {}
    for st in (a, b):
        for key, e, npw in zip(st.keys, state_scale(st).tolist(),
                               st.counts["n_positive_weight"].tolist(), strict=True):
            if npw:
                finest[key] = min(e, finest.get(key, e))
                coarsest[key] = max(e, coarsest.get(key, e))
    _check_range(finest, coarsest)
    return tuple(rescale(st, np.asarray([finest.get(k, 0) for k in st.keys],
                                        dtype=np.int64)) for st in (a, b))


def _check_range(finest: dict[Any, int], coarsest: dict[Any, int]) -> None:
    for key, low in finest.items():
        if coarsest[key] - low > MAX_RANGE:
            raise ValueError(
                f"The weights of group {key!r} differ by 2^{coarsest[key] - low} between "
                f"two parts of the data (largest weights near 2^{coarsest[key]} and "
                f"2^{low}); out of core a group's parts may differ by up to 2^{MAX_RANGE}. "
                "Rows 2^-300 of the largest weight change no metric by more than 1e-90: "
                "drop them, or give such rows a group of their own.")


def pooled_exponent(state: Any) -> Any:
    """The state with all its groups on the coarsest scale among them, to pool them.

    Pooled rows are only finished (never stored or merged again): the sums of groups
    of smaller weights round down to the grid of the largest ones, as the pandas path
    divides every weight by the largest of all groups.
    """
    if state.scale is None:
        return state
    e = state_scale(state)
    weighted = state.counts["n_positive_weight"] > 0
    top = int(e[weighted].max()) if weighted.any() else 0
    return rescale(state, np.full(len(state.keys), top, dtype=np.int64), coarser=True)


def check_positive(state: Any, name: Any) -> Any:
    """The state, unless its weights are zero on every row of the whole data.

    A partition or batch may hold only zero weights; the data as a whole may not
    (the pandas path's rule and message).

    Raises
    ------
    ValueError
        Naming the weight column ``name``.
    """

    if state.schema.weighted and not state.counts["n_positive_weight"].any():
        raise ValueError(zero_weights_message(str(name or "sample_weight"),
                                              int(state.counts["n"].sum())))
    return state


#: Range of the exponents: those of the positive float64 values.
_LOWEST, _HIGHEST = -1073, 1024


def check_scale(scale: np.ndarray, config: Any, schema: Any, where: str) -> np.ndarray:
    """A stored state's exponents, checked: importance weights only, within the range
    of float64.

    Raises
    ------
    ValueError
        Naming ``where`` and the first bad value.
    """
    if not schema.weighted or config.weights != "importance":
        raise ValueError(f"`{where}` is present, but only a state of importance weights is "
                         "rescaled. The state was altered: rebuild it from its batches.")
    bad = (scale < _LOWEST) | (scale > _HIGHEST)
    if bad.any():
        raise ValueError(
            f"`{where}` holds {int(bad.sum())} invalid exponents (first "
            f"{int(scale[bad][0])}); each lies in [{_LOWEST}, {_HIGHEST}]. The state was "
            "altered: rebuild it from its batches.")
    return scale


def exponents_of(state: Any) -> dict[Any, int]:
    """Group key -> exponent ``E`` of a state's sums (empty when every ``E`` is 0)."""
    if state.scale is None:
        return {}
    return dict(zip(state.keys, state_scale(state).tolist(), strict=True))


def on_scale(profile: Any, codes: np.ndarray, keys: list[Any], exps: dict[Any, int]) -> Any:
    """The profile with its weights divided by ``2^E`` of their group (``exps`` from
    :func:`exponents_of`): a second pass over the rows whose sums meet a merged
    state's is then in that state's units, and so is every part of it."""
    if not exps or profile.sample_weight is None:
        return profile
    per_code = np.asarray([exps.get(k, 0) for k in keys], dtype=np.int64)
    with np.errstate(under="ignore", over="ignore"):
        scaled = np.ldexp(profile.sample_weight, -per_code[codes])
    return profile.replace(sample_weight=scaled)
