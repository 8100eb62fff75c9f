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

from calreport._finishers import row_columns
from calreport.interval_rules import Bounds, read_interval
from calreport.profile import ConfidenceProfile
from calreport.registry import REGISTRY
from calreport.settings import Settings
from calreport.stats.sums import SUM_FORM, StateSums, finish_sums

if TYPE_CHECKING:
    from calreport.stats.state import StatsState
from calreport.stats.config import ROW_TERMS, StatsConfig, key_seed

__all__ = ["LINEAR", "QUADRATIC", "intervals", "poisson_counts", "replicate_sums"]

LINEAR = ("w", "w_ok", "w_c", "w_c_ok", "csr_num", "sig_freq", "top_brier", "brier",
          "log_loss", "w_c2", "sel_w", "sel_ok", "sel_c", "sel_c_ok")
#: Sums of squared weights.  A row drawn k times is k rows of the replicate, so these
#: are linear in the counts too (``sum_i k_ib w_i^2 ...``), as the pandas bootstrap's.
QUADRATIC = ("w2", "sig_imp")
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


def _columns(p: ConfidenceProfile, cfg: StatsConfig, rows: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """Per-row quantities of ``rows`` whose replicate sums give the metrics (the
    :data:`LINEAR` ones with the bins, the :data:`QUADRATIC` ones); built per block
    of rows, so memory stays at a block."""
    n = rows.size
    c = p.conf[rows]
    ok = p.correct[rows].astype(np.float64)
    w = np.ones(n) if p.sample_weight is None else p.sample_weight[rows]
    # the per-row terms of the metrics' sums, as the state's and the pandas path's
    rc = row_columns(p.take(rows), Settings(eps=cfg.eps, tau=cfg.tau), set(ROW_TERMS))
    zeros = np.zeros(n)
    odds = rc["odds"]
    sel = (c >= cfg.tau).astype(np.float64)
    lin = [w, w * rc["correct"], w * rc["c"], w * rc["c_correct"], w * rc["csr"], w * odds,
           w * (c - ok) ** 2, w * rc.get("brier", zeros), w * rc.get("log_loss", zeros),
           w * c * c, w * sel, w * sel * ok, w * sel * c, w * sel * c * ok]
    s, y = p.view(None)
    s, y = s[rows], y[rows]
    nb = cfg.n_bins
    idx = np.searchsorted(np.arange(1, nb, dtype=np.float64) / nb, s, side="left")
    onehot = np.zeros((n, BIN_BLOCKS * nb))
    at = np.arange(n)
    onehot[at, idx] = w
    onehot[at, nb + idx] = w * s
    onehot[at, 2 * nb + idx] = w * y
    onehot[at, 3 * nb + idx] = w * w  # Kish's occupancy of the bin (MCE's min_count)
    return np.column_stack([*lin, onehot]), np.column_stack([w * w, w * w * odds])


def replicate_sums(p: ConfidenceProfile, cfg: StatsConfig, codes: np.ndarray,
                   keys: list[Any], offsets: dict[Any, int]) -> np.ndarray:
    """Replicate sums ``sum_i k_ib q_i`` of the linear and the squared-weight terms.

    Returns an array of shape (G, n_boot, Q).  The rows of each group, in their
    order, occupy stream positions ``(offset + rank) * n_boot + b``.
    """
    b = int(cfg.n_boot)
    n_lin = len(LINEAR) + BIN_BLOCKS * cfg.n_bins
    out = np.zeros((len(keys), b, n_lin + len(QUADRATIC)))
    block = max(1, _ROWS_PER_BLOCK // b)
    for gi, key in enumerate(keys):
        rows = np.flatnonzero(codes == gi)
        stream = key_seed(cfg.seed, key)
        first = int(offsets.get(key, 0))
        for s in range(0, rows.size, block):
            r = rows[s:s + block]
            k = poisson_counts(stream, (first + s) * b, r.size * b).reshape(r.size, b)
            kf = k.astype(np.float64)
            lin, quad = _columns(p, cfg, r)
            out[gi, :, :n_lin] += kf.T @ lin
            out[gi, :, n_lin:] += kf.T @ quad
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
    width = len(LINEAR) + BIN_BLOCKS * nb + len(QUADRATIC)
    if state.boot.shape[-1] != width:
        raise ValueError(
            f"This state's bootstrap replicates hold {state.boot.shape[-1]} sums each, not "
            f"the {width} of this version (a state stored by an older calreport): rebuild "
            "it from the rows, or drop its replicates (n_boot=0) to keep the point values.")
    q = {name: state.boot[..., i] for i, name in enumerate(LINEAR)}
    off = len(LINEAR)
    bw = state.boot[..., off:off + nb]
    bs = state.boot[..., off + nb:off + 2 * nb]
    by = state.boot[..., off + 2 * nb:off + 3 * nb]
    bw2 = state.boot[..., off + 3 * nb:off + 4 * nb]
    q.update({name: state.boot[..., off + BIN_BLOCKS * nb + i]
              for i, name in enumerate(QUADRATIC)})
    t = float(cfg.tau)
    # Kish's occupancy of a bin with sample weights (MCE's min_count), as the point's
    occ = (np.where(bw2 > 0, bw * bw / np.where(bw2 > 0, bw2, 1.0), 0.0)
           if state.schema.weighted else bw)
    k = StateSums(
        {"one": q["w"], "correct": q["w_ok"], "c": q["w_c"], "c_correct": q["w_c_ok"],
         "csr": q["csr_num"],
         "csr_var2": q["sig_imp"] if cfg.weights == "importance" else q["sig_freq"],
         "brier": q["brier"], "log_loss": q["log_loss"], "sel": q["sel_w"],
         # sum_S w phi (2 ok - 1) and sum_S w phi ok, phi = (c - tau) / (1 - tau)
         "cwsa": (2 * q["sel_c_ok"] - q["sel_c"] - t * (2 * q["sel_ok"] - q["sel_w"])) / (1 - t),
         "cwsa_plus": (q["sel_c_ok"] - t * q["sel_ok"]) / (1 - t)},
        {"one": bw, "bin_diff": by - bs}, occ)
    v = finish_sums(k, cfg, tuple(m for m in SUM_FORM if m != "p_risk"))
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(q["w"] > 0, q["w"], np.nan)
        base = by.sum(axis=-1) / np.where(bw.sum(axis=-1) > 0, bw.sum(axis=-1), np.nan)
        v["corp_unc"] = base * (1.0 - base)
        if state.schema.layout != "proba":
            v["brier"] = v["log_loss"] = np.full(w.shape, np.nan)
        v["top_label_brier"] = q["top_brier"] / w
        v["sharpness"] = q["w_c2"] / w - (q["w_c"] / w) ** 2
        sw = np.where(q["sel_w"] > 0, q["sel_w"], np.nan)
        v["coverage"] = q["sel_w"] / w
        v["selective_accuracy"] = q["sel_ok"] / sw
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
