"""Poisson bootstrap accumulated with the state, independent of the partitioning.

Every row gets ``n_boot`` independent Poisson(1) counts, one per replicate
(Hanley & MacGibbon 2006; Chamandy et al. 2012: with a Poisson count per row the
replicates of a sum are sums over partitions, so they merge with ``+``).  The counts
of a row come from a counter-based generator (Philox, Salmon et al. 2011): the key
is derived from the master seed and the row's *group key*, the counter from the
row's rank within its group.  A row therefore draws the same counts however the
data are split into partitions or batches, and a group's replicates do not depend
on which other groups exist.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from calreport.interval_rules import Bounds, read_interval
from calreport.profile import ConfidenceProfile
from calreport.registry import REGISTRY
from calreport.stats.accumulate import scalar_terms
from calreport.stats.sums import EXTRAS, SUM_FORM, StateSums, finish_sums, missing_needs

if TYPE_CHECKING:
    from calreport.stats.state import StatsState
from calreport.stats.config import SCALARS, StatsConfig, column_sums, key_seed

__all__ = ["BIN_BLOCKS", "intervals", "poisson_counts", "replicate_metrics", "replicate_sums"]

#: Per-bin sums of a replicate: weight, weighted score, weighted outcome, squared weight.
BIN_BLOCKS = 4
_ROWS_PER_BLOCK = 1 << 22


def _poisson_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    k = np.arange(40)
    pmf = np.exp(-1.0 - np.asarray([math.lgamma(i + 1.0) for i in k]))
    cdf = np.cumsum(pmf)
    cdf = cdf[cdf < 1.0]
    cells = np.arange(1 << 16, dtype=np.float64) / (1 << 16)
    lo = np.searchsorted(cdf, cells, side="right")
    hi = np.searchsorted(cdf, cells + 1.0 / (1 << 16), side="left")
    return cdf, lo.astype(np.uint8), lo != hi


_CDF, _TABLE, _AMBIGUOUS = _poisson_tables()


def poisson_counts(key: int, start: int, n: int) -> np.ndarray:
    """Poisson(1) counts at positions ``start .. start + n - 1`` of the stream ``key``.

    Inverse-CDF sampling of the 53-bit uniform ``raw >> 11``; a 2^16-entry table on
    the top 16 bits decides all but the few cells that straddle a CDF step.

    Examples
    --------
    >>> a = poisson_counts(7, 0, 10)
    >>> bool((poisson_counts(7, 4, 6) == a[4:]).all())
    True
    """
    counter, skip = divmod(int(start), 4)
    gen = np.random.Philox(key=int(key), counter=counter)
    raw = gen.random_raw(skip + n)[skip:]
    k = _TABLE[raw >> np.uint64(48)]
    amb = _AMBIGUOUS[raw >> np.uint64(48)]
    if amb.any():
        u = (raw[amb] >> np.uint64(11)).astype(np.float64) * 2.0**-53
        k[amb] = np.searchsorted(_CDF, u, side="right")
    return k


def _columns(p: ConfidenceProfile, cfg: StatsConfig, rows: np.ndarray) -> np.ndarray:
    """Per-row quantities of ``rows`` whose replicate sums give the metrics: the
    weighted terms of the state's scalar sums (:data:`SCALARS`, from
    :func:`~calreport.stats.accumulate.scalar_terms`), then the bins; built per block
    of rows, so memory stays at a block."""
    n = rows.size
    part = p.take(rows)
    w = np.ones(n) if part.sample_weight is None else part.sample_weight
    lin = [w if t is None else w * t for t in scalar_terms(part, cfg)]
    s, y = part.view(None)
    nb = cfg.n_bins
    idx = np.searchsorted(np.arange(1, nb, dtype=np.float64) / nb, s, side="left")
    onehot = np.zeros((n, BIN_BLOCKS * nb))
    at = np.arange(n)
    onehot[at, idx] = w
    onehot[at, nb + idx] = w * s
    onehot[at, 2 * nb + idx] = w * y
    onehot[at, 3 * nb + idx] = w * w  # Kish's occupancy of the bin (MCE's min_count)
    return np.column_stack([*lin, onehot])


def replicate_sums(p: ConfidenceProfile, cfg: StatsConfig, codes: np.ndarray,
                   keys: list[Any], offsets: dict[Any, int]) -> np.ndarray:
    """Replicate sums ``sum_i k_ib q_i`` of the scalar sums' terms and the bins.

    The sums of squared weights are linear in the counts too: a row drawn k times is
    k rows of the replicate (``sum_i k_ib w_i^2 ...``), as in the pandas bootstrap.
    Returns an array of shape (G, n_boot, Q): the :data:`SCALARS` by name, then
    :data:`BIN_BLOCKS` blocks of ``n_bins`` per-bin sums.  The rows of each group, in their
    order, occupy stream positions ``(offset + rank) * n_boot + b``.
    """
    b = int(cfg.n_boot)
    out = np.zeros((len(keys), b, len(SCALARS) + BIN_BLOCKS * cfg.n_bins))
    block = max(1, _ROWS_PER_BLOCK // b)
    for gi, key in enumerate(keys):
        rows = np.flatnonzero(codes == gi)
        stream = key_seed(cfg.seed, key)
        first = int(offsets.get(key, 0))
        for s in range(0, rows.size, block):
            r = rows[s:s + block]
            k = poisson_counts(stream, (first + s) * b, r.size * b).reshape(r.size, b)
            out[gi] += k.astype(np.float64).T @ _columns(p, cfg, r)
    return out


def replicate_metrics(state: StatsState) -> dict[str, np.ndarray]:
    """Metric values of every replicate, shape (G, n_boot) per metric."""
    cfg = state.config
    if state.boot is None:
        raise ValueError(
            "This state holds no bootstrap replicates: build it with "
            "StatsConfig(n_boot=200) (or pass n_boot= to the accessor)."
        )
    nb = cfg.n_bins
    width = len(SCALARS) + BIN_BLOCKS * nb
    if state.boot.shape[-1] != width:
        raise ValueError(
            f"This state's bootstrap replicates hold {state.boot.shape[-1]} sums each, not "
            f"the {width} of this version (a state stored by an older calreport): rebuild "
            "it from the rows, or drop its replicates (n_boot=0) to keep the point values.")
    q = column_sums(lambda name: state.boot[..., SCALARS.index(name)])
    off = len(SCALARS)
    bw, bs, by, bw2 = (state.boot[..., off + i * nb:off + (i + 1) * nb]
                       for i in range(BIN_BLOCKS))
    # Kish's occupancy of a bin with sample weights (MCE's min_count), as the point's
    occ = (np.where(bw2 > 0, bw * bw / np.where(bw2 > 0, bw2, 1.0), 0.0)
           if state.schema.weighted else bw)
    k = StateSums(q, {"one": bw, "bin_diff": by - bs}, occ)
    v = finish_sums(k, cfg, tuple(m for m in SUM_FORM if m != "p_risk"))
    v.update(finish_sums(k, cfg, tuple(EXTRAS)))
    with np.errstate(divide="ignore", invalid="ignore"):
        base = by.sum(axis=-1) / np.where(bw.sum(axis=-1) > 0, bw.sum(axis=-1), np.nan)
        v["corp_unc"] = base * (1.0 - base)
    for name in missing_needs(state, v):
        v[name] = np.full(base.shape, np.nan)
    return v


def intervals(state: StatsState, ci: float = 0.95,
              values: dict[str, np.ndarray] | None = None) -> dict[str, Bounds]:
    """Intervals of level ``ci`` from the accumulated Poisson replicates, by each
    metric's interval method in the registry (``Interval.method``), read as the pandas
    path reads its replicates (:func:`calreport.interval_rules.read_interval`: clipped
    to the metric's range, widened to contain ``values``, the point estimates, with
    the Monte Carlo standard error of each bound).  A group where fewer than half the
    replicates define the metric gets NaN, as in the pandas path.

    Examples
    --------
    >>> from calreport.stats import StatsConfig, StatsState
    >>> p = ConfidenceProfile.from_arrays(conf=[0.6, 0.7, 0.8, 0.9] * 25,
    ...                                   correct=[1, 0, 1, 1] * 25)
    >>> from calreport.stats.finish import summary
    >>> st = StatsState.from_profile(p, config=StatsConfig(n_boot=200, seed=1))
    >>> b = intervals(st, 0.95, summary(st).values)["accuracy"]
    >>> bool(b.low[0] < 0.75 < b.high[0])
    True
    """
    if not 0.0 < ci < 1.0:
        raise ValueError(f"`ci` must be in (0, 1), got {ci!r}.")
    out = {}
    for name, reps in replicate_metrics(state).items():
        spec = REGISTRY.get(name)
        if spec is not None and spec.interval.kind == "none":
            continue
        method = "percentile" if spec is None else spec.interval.method
        bounds = (-np.inf, np.inf) if spec is None else spec.bounds
        value = np.nan if values is None or name not in values else values[name]
        out[name] = read_interval(reps, value, ci, method, bounds)
    return out
