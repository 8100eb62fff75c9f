"""Equal-mass bins and Hosmer-Lemeshow deciles by one more pass over the data.

The first pass (:class:`~calreport.stats.StatsState`) holds, per group, the counts of
the scores in ``score_bins`` fine bins.  From them every order statistic the
quantile edges need (type-7 quantiles ``x_(k) + g (x_(k+1) - x_(k))``) is located in
one fine bin, at a known rank.  The second pass (:func:`collect`) keeps the scores
and outcomes of the rows in those few fine bins and the exact score sums of every
fine bin; merged (:func:`merge`), they give the exact order statistics, hence the
exact edges of :func:`calreport.metrics.binned.bin_edges` and of
:func:`calreport.metrics.clinical.hosmer_lemeshow`, and the exact per-bin sums: a
fine bin holding no edge lies wholly in one quantile bin, and the rows of the fine
bins holding an edge are at hand.  Unweighted data only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np

from calreport.metrics.clinical import hl_statistic
from calreport.metrics.debiased import equal_mass_ends, squared_from_bins, upper_from
from calreport.profile import ConfidenceProfile
from calreport.stats._exact import exact_bincount
from calreport.stats.state import StatsState
from calreport.stats.sums import StateSums, finish_sums

__all__ = ["Plan", "apply_debiased", "collect", "debiased_ece", "ece_quantile",
           "hosmer_lemeshow", "merge", "plan", "plan_positive", "weight_max"]


@dataclass(frozen=True)
class Plan:
    """What the second pass collects: the view and, per group, the fine bins."""

    view: str
    score_bins: int
    keys: list[Any]
    bins: dict[Any, np.ndarray]  # group key -> fine bins whose rows are kept
    weighted: bool = False
    w_max: dict[Any, float] | None = None  # group key -> largest weight (HL scale)


def _fine_counts(state: StatsState, view: str, gi: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows (weight sums when weighted) and outcome sums per fine score bin of group
    ``gi``, (B,) each (its occupied bins densified)."""
    one = slice(gi, gi + 1)
    if view == "positive":
        s = state.sums["auc_w"].dense_float(one)[:, 0]  # (1, B, 2): positives, negatives
        return (s[..., 0] + s[..., 1])[0], s[0, :, 0]
    s = state.sums["aurc_w"].dense_float(one)  # (1, B, 2): rows, errors
    return s[0, :, 0], (s[..., 0] - s[..., 1])[0]


def _unit(state: StatsState, gi: int, total: float) -> float:
    """The weight of one row in the quantile positions of ``bin_edges``: the mean
    positive weight for importance weights (their scale cancels), ``min(1, mean)``
    for frequency weights."""
    mean = total / float(state.counts["n_positive_weight"][gi])
    return mean if state.config.weights == "importance" else min(1.0, mean)


def _ranks(n: int, n_bins: int, n_groups: int) -> np.ndarray:
    """Order statistics (0-based) the ECE bins and the HL groups need."""
    steps = np.arange(n_bins + 1, dtype=np.float64)
    i = np.floor(steps * (n - 1) / n_bins).astype(np.int64)
    h = (n - 1) * np.linspace(0.0, 1.0, n_groups + 1)
    lo = np.floor(h).astype(np.int64)
    ends = equal_mass_ends(n, n_bins)  # the debiased ECE's parts
    return np.unique(np.minimum(np.concatenate([i, i + 1, lo, lo + 1, ends - 1, ends]),
                                n - 1))


def plan(state: StatsState, *, view: str, n_bins: int = 15, n_groups: int = 10,
         w_max: dict[Any, float] | None = None) -> Plan:
    """The fine bins holding the order statistics of every group.

    ``w_max`` (group key -> largest weight) is needed for Hosmer-Lemeshow with
    importance weights (:func:`weight_max`); without it those groups get NaN.
    """
    bins = {}
    weighted = state.schema.weighted
    for gi, key in enumerate(state.keys):
        counts, _ = _fine_counts(state, view, gi)
        if not weighted:
            n = round(float(counts.sum()))
            if n == 0:
                continue
            cum = np.cumsum(counts)
            bins[key] = np.unique(np.searchsorted(cum, _ranks(n, n_bins, n_groups),
                                                  side="right"))
            continue
        cum = np.cumsum(counts)
        total = float(cum[-1])
        nonempty = np.flatnonzero(counts > 0)
        if total <= 0 or nonempty.size == 0:
            continue
        unit = _unit(state, gi, total)
        h = np.arange(n_bins + 1) * (total - unit) / n_bins
        ranges = [(t, t) for t in h]
        if state.config.weights == "frequency":  # the debiased ECE's units
            ends = equal_mass_ends(round(total), n_bins).astype(np.float64)
            ranges += [(t, t) for t in np.concatenate([ends - 1.0, ends])]
        scale = _hl_scale(state, key, w_max)
        if scale is not None:
            q = np.linspace(0.0, 1.0, n_groups + 1)
            lo = np.floor(np.maximum((total / scale - 1.0) * q, 0.0))
            ranges += [(a * scale, (a + 1.0) * scale) for a in lo]
        want = [nonempty[:1], nonempty[-1:]]
        for a, b in ranges:
            fa, fb = np.searchsorted(cum, [a, b], side="right")
            # the bins of both positions, all between, and one non-empty bin either
            # side (cumulative sums rounded differently by the pandas code)
            i0 = max(np.searchsorted(nonempty, fa) - 1, 0)
            i1 = min(np.searchsorted(nonempty, fb) + 1, nonempty.size - 1)
            want.append(nonempty[i0:i1 + 1])
        bins[key] = np.unique(np.concatenate(want))
    return Plan(view, state.config.score_bins, list(state.keys), bins, weighted,
                dict(w_max) if w_max is not None else None)


def _hl_scale(state: StatsState, key: Any, w_max: dict[Any, float] | None) -> float | None:
    """Divisor of the weights in Hosmer-Lemeshow (None: unknown)."""
    if state.config.weights != "importance":
        return 1.0
    if w_max is None or key not in w_max or not w_max[key] > 0:
        return None
    return float(w_max[key])


def weight_max(profile: ConfidenceProfile, codes: np.ndarray, keys: list[Any]
               ) -> dict[Any, float]:
    """Largest sample weight per group key (merge with :func:`merge_max`).

    Examples
    --------
    >>> prof = ConfidenceProfile.from_arrays([0, 1, 1], [0.2, 0.7, 0.9],
    ...                                      sample_weight=[3.0, 1.0, 5.0],
    ...                                      normalize_weights=False)
    >>> weight_max(prof, np.array([0, 0, 1]), ["a", "b"])
    {'a': 3.0, 'b': 5.0}
    """
    w = profile.sample_weight
    if w is None or not len(keys):
        return {}
    out = np.full(len(keys), -np.inf)
    np.maximum.at(out, codes, w)
    return {k: float(out[i]) for i, k in enumerate(keys) if np.isfinite(out[i])}


def merge_max(*parts: dict[Any, float] | None) -> dict[Any, float]:
    """Group-wise maximum of :func:`weight_max` results."""
    out: dict[Any, float] = {}
    for d in parts:
        for k, v in (d or {}).items():
            out[k] = max(out.get(k, -math.inf), v)
    return out


def collect(profile: ConfidenceProfile, codes: np.ndarray, keys: list[Any], p: Plan
            ) -> dict[str, Any]:
    """Second-pass state of one profile: rows of the planned fine bins, fine score sums
    (weighted: of ``w * s``, and the rows of positive weight per fine bin)."""
    s, y = profile.view(p.view)
    w = profile.sample_weight if p.weighted else None
    b = p.score_bins
    fine = np.minimum((s * b).astype(np.intp), b - 1)
    index = {k: i for i, k in enumerate(p.keys)}
    gidx = np.asarray([index.get(k, 0) for k in keys], dtype=np.intp)[codes]
    cell = gidx * b + fine
    size = len(p.keys) * b
    out: dict[str, Any] = {}
    if w is None:
        out["sums"] = exact_bincount(cell, s, size).reshape((len(p.keys), b))
    else:
        out["sums"] = exact_bincount(cell, w * s, size).reshape((len(p.keys), b))
        out["npos"] = np.bincount(cell[w > 0], minlength=size).reshape((len(p.keys), b))
        out["sq"] = exact_bincount(cell, w * w, size).reshape((len(p.keys), b))
    rows = {}
    for gi, key in enumerate(keys):
        want = p.bins.get(key)
        if want is None:
            continue
        sel = (codes == gi) & np.isin(fine, want)
        rows[key] = (s[sel].copy(), y[sel].astype(np.float64)) + (
            () if w is None else (w[sel].astype(np.float64),))
    out["rows"] = rows
    return out


def merge(a: dict[str, Any] | None, b: dict[str, Any] | None) -> dict[str, Any] | None:
    """Sum of two second-pass states."""
    if a is None:
        return b
    if b is None:
        return a
    rows = dict(a["rows"])
    for k, arrays in b["rows"].items():
        if k in rows:
            rows[k] = tuple(np.concatenate([x, z]) for x, z in zip(rows[k], arrays,
                                                                   strict=True))
        else:
            rows[k] = arrays
    out = {"sums": a["sums"] + b["sums"], "rows": rows}
    if "npos" in a:
        out["npos"], out["sq"] = a["npos"] + b["npos"], a["sq"] + b["sq"]
    return out


def _group_bins(state: StatsState, second: dict[str, Any], p: Plan, gi: int,
                edges_of: Any) -> tuple[np.ndarray, ...] | None:
    """Count, score sum and outcome sum per quantile bin of group ``gi``."""
    key = p.keys[gi]
    counts, ysum = _fine_counts(state, p.view, gi)
    n = round(float(counts.sum()))
    if n == 0 or key not in second["rows"]:
        return None
    s_rows, y_rows = second["rows"][key]
    order = np.argsort(s_rows, kind="stable")
    s_rows, y_rows = s_rows[order], y_rows[order]
    b = p.score_bins
    fine_rows = np.minimum((s_rows * b).astype(np.intp), b - 1)
    cum = np.cumsum(counts)

    def stat(k: np.ndarray) -> np.ndarray:
        """Exact order statistics x_(k) (all in the collected fine bins)."""
        f = np.searchsorted(cum, k, side="right")
        within = k - (cum[f] - counts[f]).astype(np.int64)
        start = np.searchsorted(fine_rows, f, side="left")
        return s_rows[start + within]

    edges = edges_of(n, stat)
    ssum = second["sums"][gi].to_float()
    return (edges, *_bin_sums(edges[1:-1], fine_rows, s_rows, [counts, ssum, ysum],
                              [np.ones(s_rows.size), s_rows, y_rows]))


def _bin_sums(inner: np.ndarray, fine_rows: np.ndarray, s_rows: np.ndarray,
              fine: list[np.ndarray], rows: list[np.ndarray]) -> list[np.ndarray]:
    """Sums per quantile bin (inner edges ``inner``, right-closed): of every per-fine-bin
    array of ``fine`` over the fine bins holding no kept row (each lies wholly in the
    bin of its midpoint), plus the matching per-row array of ``rows`` over the kept
    rows (scores ``s_rows`` in fine bins ``fine_rows``)."""
    b = fine[0].size
    m = inner.size + 1
    whole = np.ones(b, bool)
    whole[np.unique(fine_rows)] = False
    fb = np.searchsorted(inner, ((np.arange(b) + 0.5) / b)[whole], side="left")
    rb = np.searchsorted(inner, s_rows, side="left")
    return [np.bincount(fb, weights=f[whole], minlength=m)
            + np.bincount(rb, weights=r, minlength=m) for f, r in zip(fine, rows, strict=True)]


def _weighted_bins(state: StatsState, second: dict[str, Any], p: Plan, gi: int,
                   edges_of: Any) -> tuple[np.ndarray, ...] | None:
    """Weight, ``w s`` and ``w y`` sums and positive-weight rows per quantile bin.

    ``edges_of(s, cum_before, cum_end, total)`` gets the kept rows of positive weight
    sorted by score with their exact cumulative weights in the whole group.
    """
    key = p.keys[gi]
    counts, ysum = _fine_counts(state, p.view, gi)
    total = float(counts.sum())
    if not total > 0 or key not in second["rows"]:
        return None
    s_rows, y_rows, w_rows = second["rows"][key]
    order = np.argsort(s_rows, kind="stable")
    s_rows, y_rows, w_rows = s_rows[order], y_rows[order], w_rows[order]
    b = p.score_bins
    fine_rows = np.minimum((s_rows * b).astype(np.intp), b - 1)
    below = np.cumsum(counts) - counts  # weight of the fine bins below each fine bin
    pos = w_rows > 0
    sp, wp, fp = s_rows[pos], w_rows[pos], fine_rows[pos]
    cs = np.cumsum(wp) - wp
    run = np.searchsorted(fp, fp, side="left")
    cum_before = below[fp] + (cs - cs[run])
    edges = edges_of(sp, cum_before, cum_before + wp, total)
    ssum = second["sums"][gi].to_float()
    return (edges, *_bin_sums(edges[1:-1], fine_rows, s_rows,
                              [counts, ssum, ysum, second["npos"][gi].astype(np.float64)],
                              [w_rows, w_rows * s_rows, w_rows * y_rows,
                               pos.astype(np.float64)]))


def _ece_edges_weighted(n_bins: int, unit: float) -> Any:
    """``_quantile_edges`` of :mod:`calreport.metrics._bins` on weight positions."""
    def edges_of(xs: np.ndarray, cum_before: np.ndarray, cum_end: np.ndarray,
                 total: float) -> np.ndarray:
        n = xs.size
        steps = np.arange(n_bins + 1, dtype=np.float64)
        h = steps * (total - unit) / n_bins
        i = np.clip(np.searchsorted(cum_before, h, side="right") - 1, 0, n - 1)
        frac = np.clip((h - (cum_end[i] - unit)) / unit, 0.0, 1.0)
        lo, hi = xs[i], xs[np.minimum(i + 1, n - 1)]
        lo[0], hi[-1] = xs[0], xs[-1]
        return _ramp(lo, hi, frac)
    return edges_of


def _ramp(lo: np.ndarray, hi: np.ndarray, frac: np.ndarray) -> np.ndarray:
    ramp = (frac > 0) & (hi > lo)
    e = np.where(ramp, np.minimum(lo + frac * (hi - lo), np.nextafter(hi, -np.inf)), lo)
    e[0], e[-1] = lo[0], hi[-1]
    return np.maximum.accumulate(e)


def _ece_edges(n_bins: int) -> Any:
    def edges_of(n: int, stat: Any) -> np.ndarray:
        steps = np.arange(n_bins + 1, dtype=np.float64)
        h = steps * (n - 1) / n_bins
        i = np.floor(h).astype(np.int64)
        frac = h - i
        j = np.minimum(i + 1, n - 1)
        lo, hi = stat(i), stat(j)
        ramp = (frac > 0) & (hi > lo)
        e = np.where(ramp, np.minimum(lo + frac * (hi - lo), np.nextafter(hi, -np.inf)), lo)
        e[0], e[-1] = lo[0], hi[-1]
        return np.maximum.accumulate(e)
    return edges_of


def ece_quantile(state: StatsState, second: dict[str, Any], p: Plan, *, n_bins: int = 15,
                 min_count: int = 1) -> dict[str, np.ndarray]:
    """ECE, MCE and signed ECE on equal-mass bins, per group (as ``strategy="quantile"``).

    Examples
    --------
    >>> prof = ConfidenceProfile.from_arrays([0, 1, 1, 0, 1], [0.1, 0.8, 0.6, 0.3, 0.9])
    >>> st = StatsState.from_profile(prof)
    >>> pl = plan(st, view="positive", n_bins=2, n_groups=2)
    >>> codes = np.zeros(5, dtype=np.intp)
    >>> out = ece_quantile(st, collect(prof, codes, [()], pl), pl, n_bins=2)
    >>> # edges x_(0), x_(2), x_(4) = 0.1, 0.6, 0.9: bins {0.1, 0.3, 0.6} (outcomes 1,
    >>> # scores 1.0: gap 0) and {0.8, 0.9} (outcomes 2, scores 1.7): ECE = 0.3 / 5
    >>> round(float(out["ece"][0]), 12)
    0.06
    """
    g = len(p.keys)
    out = {k: np.full(g, np.nan) for k in ("ece", "mce", "signed_ece")}
    for gi in range(g):
        if p.weighted:
            total = float(_fine_counts(state, p.view, gi)[0].sum())
            got = (None if not total > 0 else _weighted_bins(
                state, second, p, gi, _ece_edges_weighted(n_bins, _unit(state, gi, total))))
        else:
            got = _group_bins(state, second, p, gi, _ece_edges(n_bins))
        if got is None:
            continue
        _, cnt, sv, yv = got[:4]
        k = StateSums({"one": np.array([cnt.sum()])},
                      {"one": cnt[None], "bin_diff": (yv - sv)[None]},
                      (got[4] if p.weighted else cnt)[None])
        for name, val in finish_sums(k, SimpleNamespace(min_count=min_count),
                                     ("ece", "mce", "signed_ece")).items():
            out[name][gi] = val[0]
    return out


def hosmer_lemeshow(state: StatsState, second: dict[str, Any], p: Plan, *,
                    n_groups: int = 10) -> dict[str, np.ndarray]:
    """Hosmer-Lemeshow statistic, df and p-value per group ("deciles of risk").

    As :func:`calreport.metrics.clinical.hosmer_lemeshow` with ``strategy="quantile"``.
    """
    from scipy import stats

    def edges_of(n: int, stat: Any) -> np.ndarray:
        h = np.maximum((n - 1.0) * np.linspace(0.0, 1.0, n_groups + 1), 0.0)
        lo = np.floor(h)
        i_lo = np.minimum(lo.astype(np.int64), n - 1)
        i_hi = np.minimum(lo.astype(np.int64) + 1, n - 1)
        a, b = stat(i_lo), stat(i_hi)
        return a + (h - lo) * (b - a)

    def edges_weighted(xs: np.ndarray, cum_before: np.ndarray, cum_end: np.ndarray,
                       total: float) -> np.ndarray:
        # weights divided by ``scale`` (the group's largest importance weight, as the
        # pandas accessor normalises them; 1 for frequency weights)
        cumw = cum_end / scale
        h = np.maximum((total / scale - 1.0) * np.linspace(0.0, 1.0, n_groups + 1), 0.0)
        lo = np.floor(h)
        last = xs.size - 1
        i_lo = np.minimum(np.searchsorted(cumw, lo, side="right"), last)
        i_hi = np.minimum(np.searchsorted(cumw, lo + 1.0, side="right"), last)
        return xs[i_lo] + (h - lo) * (xs[i_hi] - xs[i_lo])

    g = len(p.keys)
    out = {k: np.full(g, np.nan) for k in ("hl_statistic", "hl_df", "hl_pvalue")}
    for gi in range(g):
        scale = 1.0
        if p.weighted:
            scale = _hl_scale(state, p.keys[gi], p.w_max)
            got = None if scale is None else _weighted_bins(state, second, p, gi,
                                                            edges_weighted)
        else:
            got = _group_bins(state, second, p, gi, edges_of)
        if got is None:
            continue
        _, count, expected, observed = (x / scale for x in got[:4])
        keep = count > 0
        statistic = hl_statistic(count[keep], observed[keep], expected[keep])
        dof = int(keep.sum()) - 2
        out["hl_statistic"][gi] = statistic
        out["hl_df"][gi] = float(dof)
        out["hl_pvalue"][gi] = float(stats.chi2.sf(statistic, dof)) if dof >= 1 else math.nan
    return out




def plan_positive(state: StatsState, second: dict[str, Any], p: Plan, *,
                  n_bins: int = 15) -> Plan:
    """The fine bins holding the debiased ECE's equal-mass ranks of the rows of positive
    weight, with importance weights (a third pass collects their rows).

    Those ranks count rows, not weight, and only the second pass knows how many rows
    of positive weight each fine bin holds (``second["npos"]``, exact).
    """
    bins = {}
    for gi, key in enumerate(p.keys):
        npos = second["npos"][gi]
        n = int(npos.sum())
        if n == 0:
            continue
        ends = equal_mass_ends(n, n_bins)
        bins[key] = np.unique(np.searchsorted(np.cumsum(npos), np.concatenate(
            [ends - 1, ends, [0, n - 1]]), side="right"))
    return Plan(p.view, p.score_bins, list(p.keys), bins, p.weighted, p.w_max)


def debiased_ece(state: StatsState, second: dict[str, Any], p: Plan, *, n_bins: int = 15
                 ) -> np.ndarray:
    """Debiased ECE (equal-mass bins of Kumar, Liang & Ma 2019) of every group, exact.

    As ``df.calib.summary()``'s ``debiased_ece`` (:mod:`calreport.metrics.debiased`):
    the edges are the midpoints of the scores at the part boundaries of the rows
    (unweighted), of the units (frequency weights) or of the rows of positive weight
    (importance weights: ``second`` and ``p`` from the third pass planned by
    :func:`plan_positive`); bins are right-closed; the per-bin sums are exact.

    Examples
    --------
    >>> from calreport.metrics import debiased
    >>> s = np.array([0.1, 0.8, 0.6, 0.3, 0.9, 0.35])
    >>> y = np.array([0, 1, 1, 0, 1, 1])
    >>> st = StatsState.from_profile(ConfidenceProfile.from_arrays(y, s))
    >>> pl = plan(st, view="positive", n_bins=2)
    >>> second = collect(ConfidenceProfile.from_arrays(y, s), np.zeros(6, np.intp), [()],
    ...                  pl)
    >>> got = float(debiased_ece(st, second, pl, n_bins=2)[0])
    >>> bool(abs(got - debiased.debiased_ece(s, y, n_bins=2)) < 1e-15)
    True
    """
    out = np.full(len(p.keys), np.nan)
    importance = p.weighted and state.config.weights == "importance"
    b = p.score_bins
    for gi, key in enumerate(p.keys):
        counts, ysum = _fine_counts(state, p.view, gi)
        units = second["npos"][gi].astype(np.float64) if importance else counts
        n = round(float(units.sum()))
        if n == 0 or key not in second["rows"]:
            continue
        rows = second["rows"][key]
        order = np.argsort(rows[0], kind="stable")
        s, y = rows[0][order], rows[1][order]
        w = rows[2][order] if p.weighted else np.ones(s.size)
        u = (w > 0).astype(np.float64) if importance else w  # units of every kept row
        fine = np.minimum((s * b).astype(np.intp), b - 1)
        cs = np.cumsum(u)
        run = np.searchsorted(fine, fine, side="left")  # first kept row of its fine bin
        cum_end = (np.cumsum(units) - units)[fine] + cs - (cs[run] - u[run])
        ends = equal_mass_ends(n, n_bins)
        at = np.searchsorted(cum_end, np.concatenate([ends - 1, ends]), side="right")
        upper = upper_from(s[at[:ends.size]], s[at[ends.size:]])
        ssum = second["sums"][gi].to_float()
        if importance:
            fine_sums = [counts, second["npos"][gi].astype(np.float64),
                         second["sq"][gi].to_float(), ssum, ysum]
            row_sums = [w, u, w * w, w * s, w * y]
        else:
            fine_sums, row_sums = [counts, ssum, ysum], [w, w * s, w * y]
        got = _bin_sums(upper[:-1], fine, s, fine_sums, row_sums)
        weight, score, outcome = got[0], got[-2], got[-1]
        count, weight_sq = (got[1], got[2]) if importance else (weight, weight)
        out[gi] = math.sqrt(max(squared_from_bins(weight, count, weight_sq, score, outcome),
                                0.0))
    return out


#: Why an exact debiased ECE out of core has no interval.
_NO_INTERVAL = ("exact by a second pass over the rows: no Poisson replicate holds its "
                "equal-mass bins; run the pandas accessor with ci on the rows")


def apply_debiased(table: Any, state: StatsState, second: dict[str, Any], p: Plan,
                   collect_plan: Any, *, n_bins: int = 15) -> None:
    """Replace the sampled debiased ECE of a MetricTable by the exact one.

    ``collect_plan(plan)`` runs a pass over the rows and returns its merged
    :func:`collect` state: with importance weights, the third pass of
    :func:`plan_positive`.
    """
    if p.weighted and state.config.weights == "importance":
        p = plan_positive(state, second, p, n_bins=n_bins)
        second = collect_plan(p)
    val = debiased_ece(state, second, p, n_bins=n_bins)
    table.values["debiased_ece"] = val
    table.kinds["debiased_ece"] = "exact"
    table.sampling_error.pop("debiased_ece", None)
    table.reasons["debiased_ece"] = [None if np.isfinite(v) else "no rows of positive weight"
                                     for v in val]
    notes = table.settings.get("intervals")
    if notes is not None and "debiased_ece" in notes:
        table.settings = {**table.settings, "intervals": {**notes,
                                                          "debiased_ece": _NO_INTERVAL}}
