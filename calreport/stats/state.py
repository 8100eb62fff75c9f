"""The mergeable state: per-group, per-bin exact sums of a confidence profile.

A :class:`StatsState` holds, for every group key, integer counts and exact
fixed-point sums (:mod:`calreport.stats._exact`) of the quantities from which the
summary metrics finish.  ``a + b`` is associative, commutative and bit-for-bit
reproducible, so states computed per partition, per batch or per day merge into
the state of the whole data.  Importance weights are held divided by a power of
two per group (:mod:`calreport.stats.weight_scale`), so the state of any part is
scale-free, as the pandas path is.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from calreport._finishers import AT_MOST
from calreport.profile import ConfidenceProfile
from calreport.stats._exact import FRAC_BITS, FixedSum, check_limbs
from calreport.stats.accumulate import accumulate
from calreport.stats.config import (
    AURC_SUMS,
    BIN_SUMS,
    CLASSWISE_SUMS,
    COUNTS,
    RISK_FLOAT,
    RISK_SUMS,
    SCALARS,
    TAU_SUMS,
    Schema,
    StatsConfig,
    normalise_key,
    sort_key,
)
from calreport.stats.poisson import BIN_BLOCKS, replicate_sums
from calreport.stats.sample import FINE, draw, heavy_rows, merge, top_errors
from calreport.stats.smooth_grid import grid_masses
from calreport.stats.smooth_grid import merge as merge_smooth
from calreport.stats.sparse import SparseSums
from calreport.stats.weight_scale import align, pooled_exponent, scale_profile, state_scale

__all__ = ["StatsConfig", "StatsState", "check_state", "normalise_key",
           "state_layout", "state_nbytes"]

def state_layout(config: StatsConfig, schema: Schema, g: int
                 ) -> dict[str, dict[str, tuple[tuple[int, ...], int | None]]]:
    """Shape of every array a state of ``g`` groups holds, as :meth:`from_profile` builds it.

    Returns ``{"counts" | "sums" | "fsums" | "boot": {name: (shape, frac_bits)},
    "sparse" | "fsparse": {name: ((cells, tail), frac_bits)}}``; ``shape`` of a sum
    excludes its limb axis, ``frac_bits`` is None for plain arrays.  The ``sparse``
    sums (in ``sums``) and ``fsparse`` float sums (in ``fsums``) are
    :class:`~calreport.stats.sparse.SparseSums`: per group, the occupied cells of a
    grid of shape ``cells``, each holding ``tail`` quantities.
    """

    nb, t, b = int(config.n_bins), len(config.taus), int(config.score_bins)
    real, tally = FRAC_BITS, FRAC_BITS if schema.weighted else 0
    sums = {"scalar": ((g, len(SCALARS)), real), "bins": ((g, 2, nb, len(BIN_SUMS)), real),
            "tau": ((g, t, len(TAU_SUMS)), real)}
    sparse = {"aurc_w": (((b,), (len(AURC_SUMS),)), tally)}
    r, k = schema.auc_rows, schema.n_classes
    if r:
        sparse["auc_w"], sparse["auc_wc"] = (((r, b), (2,)), tally), (((r, b), (2,)), real)
        sums["classwise"] = ((g, max(k, 2), nb, len(CLASSWISE_SUMS)), real)
    if schema.layout != "minimal" and k:
        sums["confusion"] = ((g, k, k, 2), real)
    sums["risk"] = ((g, len(RISK_SUMS)), real)
    width = len(SCALARS) + BIN_BLOCKS * nb
    return {
        "counts": {**{c: ((g,), None) for c in COUNTS}, "bin_count": ((g, 2, nb), None)},
        "sums": sums,
        "sparse": sparse,
        "fsums": {"risk": ((g, len(RISK_FLOAT)), None)},
        "fsparse": {"all": (((FINE,), ()), None), "rest": (((FINE,), ()), None)},
        "boot": {"boot": ((g, int(config.n_boot), width), None)} if config.n_boot else {},
    }


def check_state(state: StatsState, where: str = "state") -> None:
    """Raise unless the values of a state agree with each other, as built ones always do.

    Shapes and dtypes are those of :func:`state_layout` (checked where the arrays are
    decoded, :mod:`calreport.stats.store`); this checks what the values must satisfy:

    * counts non-negative, every group non-empty, ``n_positive_weight``,
      ``n_clipped`` and ``n_one`` at most ``n``; unweighted, ``n_positive_weight =
      n`` and the weight total is ``n``;
    * sums normalised and non-negative (:func:`~calreport.stats._exact.check_limbs`);
    * the same weight total at every level: the scalar sums, the calibration bins,
      the selective thresholds, the fine AURC and AUC bins and the confusion matrix;
      the occupancy of the calibration bins adds up to ``n_positive_weight``;
    * the per-row order of the columns (:data:`calreport._finishers.AT_MOST`: the
      confidence at most 1, the confidence of correct predictions at most both, ...)
      kept by the group sums; per bin, the sums of ``w s``, ``w y``, ``w ok`` and
      ``w c`` at most the sum of ``w``;
    * float sums finite, bootstrap replicate sums finite and non-negative.

    Validation catches an inconsistent state; a consistently altered one (every count
    and sum doubled) is valid-looking and only an integrity digest reveals it.

    Raises
    ------
    ValueError
        Naming the array, the first group (key) concerned and the fix.
    """
    keys, counts, sums = state.keys, state.counts, state.sums

    def fail(what: str, mask: np.ndarray) -> None:
        gi = int(np.flatnonzero(np.asarray(mask).reshape(len(keys), -1).any(axis=1))[0])
        raise ValueError(
            f"{where}: {what} ({int(np.count_nonzero(mask))} cells; first in group "
            f"{keys[gi]!r}). Built states always agree here: the state was altered or "
            "corrupted; rebuild it from its batches."
        )

    for name, a in counts.items():
        if (a < 0).any():
            fail(f"`counts.{name}` holds negative counts", a < 0)
    n = counts["n"]
    if (n < 1).any():
        fail("`counts.n` holds an empty group (stored states hold only groups with rows)",
             n < 1)
    for name in ("n_positive_weight", "n_clipped", "n_one"):
        if (counts[name] > n).any():
            fail(f"`counts.{name}` exceeds the group's row count `counts.n`", counts[name] > n)
    npw = counts["n_positive_weight"]
    if not state.schema.weighted and (npw != n).any():
        fail("`counts.n_positive_weight` differs from `counts.n` in an unweighted state",
             npw != n)
    occupancy = counts["bin_count"].sum(axis=-1)
    views = np.column_stack([npw, npw if state.schema.binary else np.zeros_like(npw)])
    if (occupancy != views).any():
        fail("`counts.bin_count` does not add up to `counts.n_positive_weight` (the "
             "positive view: 0 unless binary)", occupancy != views)

    for name, s in sums.items():
        if isinstance(s, SparseSums):
            s.check(f"{where}: `sums.{name}`", keys)
        else:
            check_limbs(s.limbs, f"{where}: `sums.{name}`")
    for name, a in [*state.fsums.items(), *(() if state.boot is None else [("boot", state.boot)])]:
        if isinstance(a, SparseSums):
            a.check(f"{where}: `fsums.{name}`", keys)
        elif not np.isfinite(a).all():
            fail(f"`{'boot' if name == 'boot' else 'fsums.' + name}` holds NaN or infinite "
                 "values", ~np.isfinite(a))
    if state.boot is not None and (state.boot < 0).any():
        fail("`boot` holds negative replicate sums", state.boot < 0)

    # one weight total, seen at every level (exact: the same truncated values added)
    def col(s: FixedSum, names: tuple[str, ...], name: str) -> FixedSum:
        """One quantity (the last axis) of an array of sums."""
        return FixedSum(s.limbs[..., names.index(name), :], s.frac_bits, normalised=True)

    scalar = sums["scalar"]
    total = col(scalar, SCALARS, "one").to_fraction()
    if not state.schema.weighted and (total != n).any():
        fail("`sums.scalar` weight total differs from the row count `counts.n` in an "
             "unweighted state", total != n)
    levels = [("bins", col(sums["bins"], BIN_SUMS, "w")[:, 0]),
              ("tau", col(sums["tau"], TAU_SUMS, "w")),
              ("aurc_w", sums["aurc_w"].totals(AURC_SUMS.index("w"))[:, 0])]
    if "auc_w" in sums:
        per_row = sums["auc_w"].totals()
        levels += [("auc_w", per_row[:, r]) for r in range(per_row.shape[1])]
    if "confusion" in sums:
        levels.append(("confusion", sums["confusion"][:, :, :, 0]))
    if state.schema.binary:
        levels.append(("bins (positive view)", col(sums["bins"], BIN_SUMS, "w")[:, 1]))
    for name, level in levels:
        got = level.group_totals().to_fraction()
        if (got != total).any():
            fail(f"`sums.{name}` adds up to another weight total than `sums.scalar`",
                 got != total)
    tau_ok = col(sums["tau"], TAU_SUMS, "w_ok").group_totals().to_fraction()
    scalar_ok = col(scalar, SCALARS, "correct").to_fraction()
    if (tau_ok != scalar_ok).any():
        fail("`sums.tau` adds up to another weight of correct predictions than "
             "`sums.scalar`", tau_ok != scalar_ok)

    # every per-row order of the columns (_finishers.AT_MOST) holds for their sums;
    # per bin and threshold, each row adds at most its weight to a value in [0, 1]
    bounded = [("scalar", scalar, SCALARS, (part,), whole)
               for part, wholes in AT_MOST.items() for whole in wholes]
    bounded += [("bins", sums["bins"], BIN_SUMS, ("w_s", "w_y"), "w"),
                ("tau", sums["tau"], TAU_SUMS, ("w_ok", "w_c"), "w")]
    for name, s, cols, parts, whole in bounded:
        for part in parts:
            over = ~col(s, cols, part).less_equal(col(s, cols, whole))
            if over.any():
                fail(f"`sums.{name}` has `{part}` above `{whole}` (rows never give that)",
                     over)


@dataclass(eq=False)
class StatsState:
    """Mergeable per-group statistics of a confidence profile.

    Build one with :meth:`from_profile`; merge with ``+``; finish with
    :func:`calreport.stats.finish`.

    Attributes
    ----------
    config : StatsConfig
    schema : Schema
    keys : list
        Group keys in a canonical order (``()`` for an ungrouped state).
    counts : dict of str -> ndarray of int64, shape (G,)
    sums : dict of str -> FixedSum or SparseSums
        Exact sums: ``scalar`` (G, len(SCALARS)) by name
        (:data:`~calreport.stats.config.SCALARS`), ``bins`` (G, 2, n_bins, 4) per view,
        ``bin_count`` (G, 2, n_bins), ``tau`` (G, T, 4), ``confusion`` (G, K, K, 2);
        per group only the occupied fine bins (:class:`~calreport.stats.sparse.SparseSums`)
        of ``aurc_w`` (score_bins cells, 2 sums) and ``auc_w``, ``auc_wc`` (R x
        score_bins cells, positives and negatives).
    boot : ndarray of float64, shape (G, n_boot, Q), or None
        Poisson-bootstrap replicate sums (see :mod:`calreport.stats.poisson`).
    ranks : dict of key -> ndarray of int64, shape (R, 2), or None
        The ranges ``[start, stop)`` of row positions each group's rows took in the
        counter-based streams (bootstrap counts, sample priorities).  States whose
        ranges overlap drew the same counts for different rows: with replicates or
        a sample they refuse to merge (see :meth:`__add__`).
    """

    config: StatsConfig
    schema: Schema
    keys: list[Any]
    counts: dict[str, np.ndarray]
    sums: dict[str, FixedSum]
    boot: np.ndarray | None = None
    notes: dict[str, Any] = field(default_factory=dict)
    maxima: dict[str, np.ndarray] = field(default_factory=dict)
    sample: dict[Any, dict[str, np.ndarray]] | None = None
    top: dict[Any, dict[str, np.ndarray]] | None = None
    heavy: dict[Any, dict[str, np.ndarray]] | None = None
    fsums: dict[str, np.ndarray] = field(default_factory=dict)
    smooth: dict[Any, dict[str, np.ndarray]] | None = None
    ranks: dict[Any, np.ndarray] | None = None
    #: Per group, the power of two ``E`` the importance weights were divided by
    #: (:mod:`calreport.stats.weight_scale`); None when every ``E`` is 0.
    scale: np.ndarray | None = None

    # ---------------------------------------------------------------- building
    @classmethod
    def from_profile(
        cls,
        profile: ConfidenceProfile,
        *,
        config: StatsConfig | None = None,
        codes: np.ndarray | None = None,
        keys: list[Any] | None = None,
        row_offsets: dict[Any, int] | None = None,
        row_labels: np.ndarray | None = None,
        row_base: int = 0,
    ) -> StatsState:
        """State of a profile whose rows fall into groups.

        Parameters
        ----------
        profile : ConfidenceProfile
        config : StatsConfig, optional
        codes : ndarray of int, shape (N,), optional
            Group code of every row, indexing ``keys`` (default: one group).
        keys : list, optional
            Group keys (default ``[()]``).
        row_offsets : dict, optional
            Key -> rows of that group seen before this profile; the bootstrap stream
            of a row is positioned by its rank within its group, so replicates do not
            depend on how the data were split.  Default: 0 for every key.
        row_labels : ndarray, optional
            A label per row (e.g. the frame index) naming the errors kept by
            ``config.top_errors``; default: none.
        row_base : int, default 0
            Added to every group's offset: states built independently of each other
            (another day, another worker) take disjoint stream positions with distinct
            bases (``Accumulator(stream=...)`` uses ``stream * 2**40``).

        Returns
        -------
        StatsState

        Examples
        --------
        >>> p = ConfidenceProfile.from_arrays([0, 1, 1, 0], [0.2, 0.9, 0.4, 0.3])
        >>> s = StatsState.from_profile(p)
        >>> s + s is not s, int(s.counts["n"][0])
        (True, 4)
        """
        cfg = config or StatsConfig()
        schema = Schema.of(profile)
        n = profile.n
        if codes is None:
            codes = np.zeros(n, dtype=np.intp)
            keys = [()]
        codes = np.asarray(codes, dtype=np.intp)
        keys = [normalise_key(k) for k in (keys or [()])]
        g = len(keys)

        profile, scale = scale_profile(profile, codes, g)
        counts, sums, floats = accumulate(profile, cfg, schema, codes, g)

        given = {normalise_key(k): int(v) for k, v in (row_offsets or {}).items()}
        row_offsets = {k: int(row_base) + given.get(k, 0) for k in keys}
        sizes = np.bincount(codes, minlength=g)
        ranks = {k: np.asarray([[row_offsets[k], row_offsets[k] + int(sizes[i])]],
                               dtype=np.int64) for i, k in enumerate(keys) if sizes[i]}
        heavy, dense = heavy_rows(profile, cfg, codes, keys, row_offsets)
        fsums: dict[str, np.ndarray | SparseSums] = {
            name: SparseSums.from_dense(a) for name, a in dense.items()}
        fsums.update(floats)
        boot = None
        if cfg.n_boot:

            boot = replicate_sums(profile, cfg, codes, keys, row_offsets or {})
        sample = None
        if cfg.sample_size:

            sample = draw(profile, cfg, codes, keys, row_offsets or {})
        top = None
        if cfg.top_errors:

            top = top_errors(profile, cfg, codes, keys, row_labels)
        smooth = None
        if 0 < int(np.count_nonzero(counts["n"])) <= cfg.smooth_groups:

            smooth = grid_masses(profile, codes, keys)
        state = cls(cfg, schema, keys, counts, sums, boot, sample=sample,
                    top=top, heavy=heavy, fsums=fsums, smooth=smooth, ranks=ranks,
                    scale=scale)
        return state._canonical()

    # ---------------------------------------------------------------- merging
    def _canonical(self) -> StatsState:
        """Drop empty groups and order the keys canonically (so ``a + b == b + a``)."""
        keep = [i for i in range(len(self.keys)) if self.counts["n"][i] > 0]
        order = sorted(keep, key=lambda i: sort_key(self.keys[i]))
        if order == list(range(len(self.keys))):
            return self
        idx = np.asarray(order, dtype=np.intp)
        return StatsState(
            self.config, self.schema, [self.keys[i] for i in order],
            {k: a[idx] for k, a in self.counts.items()},
            {k: s[idx] for k, s in self.sums.items()},
            None if self.boot is None else self.boot[idx], dict(self.notes),
            {k: a[idx] for k, a in self.maxima.items()}, self.sample, self.top,
            self.heavy, {k: a[idx] for k, a in self.fsums.items()}, self.smooth,
            self.ranks, None if self.scale is None else self.scale[idx],
        )

    def __add__(self, other: StatsState) -> StatsState:
        if not isinstance(other, StatsState):
            return NotImplemented
        if other.config != self.config:
            raise ValueError(
                "Cannot merge statistics computed with different settings: "
                f"{self.config.to_dict()} vs {other.config.to_dict()}."
            )
        if other.schema != self.schema:
            raise ValueError(
                "Cannot merge statistics of differently shaped data "
                f"({self.schema} vs {other.schema}); fix `classes`/`pos_label` and the "
                "columns up front so every batch agrees."
            )
        ranks = _merge_ranks(self.ranks, other.ranks,
                             check=self.boot is not None or self.sample is not None)
        if self.scale is not None or other.scale is not None:

            a, b = align(self, other)
            out = replace(a, scale=None) + replace(b, scale=None)
            scale = np.zeros(len(out.keys), dtype=np.int64)
            pos = {k: i for i, k in enumerate(out.keys)}
            for st in (a, b):
                scale[[pos[k] for k in st.keys]] = state_scale(st)
            return replace(out, scale=scale if scale.any() else None)
        union = sorted({*self.keys, *other.keys}, key=sort_key)
        pos = {k: i for i, k in enumerate(union)}
        ia = np.asarray([pos[k] for k in self.keys], dtype=np.intp)
        ib = np.asarray([pos[k] for k in other.keys], dtype=np.intp)
        g = len(union)
        counts = {}
        for name, a in self.counts.items():
            out = np.zeros((g, *a.shape[1:]), dtype=np.int64)
            out[ia] += a
            out[ib] += other.counts[name]
            counts[name] = out
        sums = {}
        for name, s in self.sums.items():
            shape = (g, *s.shape[1:])
            sums[name] = s.take(ia, shape) + other.sums[name].take(ib, shape)
        boot = None
        if self.boot is not None and other.boot is not None:
            boot = np.zeros((g, *self.boot.shape[1:]))
            boot[ia] += self.boot
            boot[ib] += other.boot
        maxima = {}
        for name, a in self.maxima.items():
            out_max = np.full(g, -np.inf)
            out_max[ia] = a
            out_max[ib] = np.maximum(out_max[ib], other.maxima[name])
            maxima[name] = out_max
        sample = None
        if self.sample is not None and other.sample is not None:

            sample = merge(self.sample, other.sample, self.config.sample_size)
        top = None
        if self.top is not None and other.top is not None:

            top = merge(self.top, other.top, self.config.top_errors)

        heavy = merge(self.heavy or {}, other.heavy or {}, self.config.heavy_rows)
        fsums: dict[str, np.ndarray | SparseSums] = {}
        for name, a in self.fsums.items():
            if isinstance(a, SparseSums):
                fsums[name] = a.take(ia, (g,)) + other.fsums[name].take(ib, (g,))
                continue
            out_f = np.zeros((g, *a.shape[1:]))
            out_f[ia] += a
            out_f[ib] += other.fsums[name]
            fsums[name] = out_f

        smooth = merge_smooth(self.smooth, other.smooth, self.config.smooth_groups)
        return StatsState(self.config, self.schema, union, counts, sums, boot, {}, maxima,
                          sample, top, heavy, fsums, smooth, ranks)

    def pooled(self, key: Any = "overall") -> StatsState:
        """All groups merged into one group named ``key`` (the pooled rows).

        The pooled sample keeps the ``sample_size`` smallest priorities of the groups'
        samples: a uniform sample of the pooled rows when every group holds at least
        its share (otherwise approximately uniform).
        """
        if self.scale is not None:

            one = pooled_exponent(self)  # every group on one scale
            out = replace(one, scale=None).pooled(key)
            return replace(out, scale=None if one.scale is None else one.scale[:1])
        counts = {k: a.sum(axis=0, keepdims=True) for k, a in self.counts.items()}
        sums = {k: s.pooled() if isinstance(s, SparseSums)
                else FixedSum(s.limbs.sum(axis=0, keepdims=True), s.frac_bits)
                for k, s in self.sums.items()}
        boot = None if self.boot is None else self.boot.sum(axis=0, keepdims=True)
        maxima = {k: a.max(axis=0, keepdims=True) for k, a in self.maxima.items()}
        sample = top = None
        if self.sample is not None or self.top is not None:

            if self.sample is not None:
                sample = {}
                for part in self.sample.values():
                    sample = merge(sample, {key: part}, self.config.sample_size)
            if self.top is not None:
                top = {}
                for part in self.top.values():
                    top = merge(top, {key: part}, self.config.top_errors)

        heavy: dict[Any, dict[str, np.ndarray]] = {}
        for (_, which), part in (self.heavy or {}).items():
            heavy = merge(heavy, {(key, which): part}, self.config.heavy_rows)
        fsums = {k: a.pooled() if isinstance(a, SparseSums) else a.sum(axis=0, keepdims=True)
                 for k, a in self.fsums.items()}
        smooth = None
        if self.smooth is not None and self.config.smooth_groups >= 1:

            smooth = {}
            for part in self.smooth.values():
                smooth = merge_smooth(smooth, {key: part}, self.config.smooth_groups)
        return StatsState(self.config, self.schema, [key], counts, sums, boot, {}, maxima,
                          sample, top, heavy, fsums, smooth)

    def __radd__(self, other: Any) -> StatsState:
        if other == 0:  # sum() starts at 0
            return self
        return NotImplemented

    def equals(self, other: StatsState) -> bool:
        """Bitwise equality of the exact parts (keys, counts and sums)."""
        return (self.config == other.config and self.schema == other.schema
                and self.keys == other.keys
                and all(np.array_equal(a, other.counts[k]) for k, a in self.counts.items())
                and all(s.equals(other.sums[k]) for k, s in self.sums.items()))

    def nbytes(self) -> int:
        """Bytes of the arrays of the exact and float sums, counts and replicates
        (the kept rows of samples and smooth masses aside)."""
        return state_nbytes(self)

    def row_counts(self) -> dict[Any, int]:
        """Rows seen per group key."""
        return {k: int(n) for k, n in zip(self.keys, self.counts["n"], strict=True)}


def state_nbytes(state: StatsState) -> int:
    """Bytes of a state's counts, sums, float sums and replicates in memory."""
    arrays = [*state.counts.values(), *state.maxima.values(),
              *(() if state.boot is None else [state.boot])]
    held = [*state.sums.values(), *state.fsums.values()]
    return int(sum(a.nbytes for a in arrays) + sum(
        s.nbytes if isinstance(s, SparseSums) else getattr(s, "limbs", s).nbytes for s in held))


def _merge_ranks(a: dict[Any, np.ndarray] | None, b: dict[Any, np.ndarray] | None,
                 check: bool) -> dict[Any, np.ndarray] | None:
    """Union of two states' stream ranges per group (None if either is unknown).

    With ``check`` (the states hold bootstrap replicates or a sample), overlapping
    ranges of a group mean different rows drew the same counter-based numbers, so the
    merged replicates would repeat draws: refused, with the fix.
    """
    if a is None or b is None:
        return None
    out = dict(a)
    for key, rb in b.items():
        if key not in out:
            out[key] = rb
            continue
        both = np.concatenate([out[key], rb])
        both = both[np.argsort(both[:, 0], kind="stable")]
        if check and (both[1:, 0] < both[:-1, 1]).any():
            raise ValueError(
                f"Cannot merge: both states took stream positions {int(rb[0, 0]):,}.. of "
                f"group {key!r} for different rows, so their bootstrap counts and sample "
                "priorities would repeat. Continue one accumulator with .update(batch) "
                "(e.g. Accumulator.from_bytes(stored).update(today)), or give each "
                "independently built one its own stream (Accumulator(..., stream=<day "
                "number>))."
            )
        # coalesce touching ranges
        keep = np.r_[True, both[1:, 0] > both[:-1, 1]]
        starts = both[keep, 0]
        stops = np.maximum.reduceat(both[:, 1], np.flatnonzero(keep))
        out[key] = np.column_stack([starts, stops])
    return out
