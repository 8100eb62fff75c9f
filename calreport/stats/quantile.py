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
from typing import Any

import numpy as np

from calreport.profile import ConfidenceProfile
from calreport.stats._exact import exact_bincount
from calreport.stats.state import StatsState

__all__ = ["Plan", "collect", "ece_quantile", "hosmer_lemeshow", "merge", "plan"]

_HL_EPS = 1e-7


@dataclass(frozen=True)
class Plan:
    """What the second pass collects: the view and, per group, the fine bins."""

    view: str
    score_bins: int
    keys: list[Any]
    bins: dict[Any, np.ndarray]  # group key -> fine bins whose rows are kept


def _fine_counts(state: StatsState, view: str) -> tuple[np.ndarray, np.ndarray]:
    """Rows and outcome sums per fine score bin, shape (G, B) each."""
    if state.schema.weighted:
        raise ValueError("Equal-mass bins out of core need unweighted rows; drop `weight` "
                         "or use strategy='uniform'.")
    if view == "positive":
        s = state.sums["auc_w"].to_float()[:, 0]  # (G, B, 2): positives, negatives
        return s[..., 0] + s[..., 1], s[..., 0]
    s = state.sums["aurc_w"].to_float()  # (G, B, 2): rows, errors
    return s[..., 0], s[..., 0] - s[..., 1]


def _ranks(n: int, n_bins: int, n_groups: int) -> np.ndarray:
    """Order statistics (0-based) the ECE bins and the HL groups need."""
    steps = np.arange(n_bins + 1, dtype=np.float64)
    i = np.floor(steps * (n - 1) / n_bins).astype(np.int64)
    h = (n - 1) * np.linspace(0.0, 1.0, n_groups + 1)
    lo = np.floor(h).astype(np.int64)
    return np.unique(np.minimum(np.concatenate([i, i + 1, lo, lo + 1]), n - 1))


def plan(state: StatsState, *, view: str, n_bins: int = 15, n_groups: int = 10) -> Plan:
    """The fine bins holding the order statistics of every group."""
    counts, _ = _fine_counts(state, view)
    bins = {}
    for gi, key in enumerate(state.keys):
        n = round(float(counts[gi].sum()))
        if n == 0:
            continue
        cum = np.cumsum(counts[gi])
        bins[key] = np.unique(np.searchsorted(cum, _ranks(n, n_bins, n_groups), side="right"))
    return Plan(view, state.config.score_bins, list(state.keys), bins)


def collect(profile: ConfidenceProfile, codes: np.ndarray, keys: list[Any], p: Plan
            ) -> dict[str, Any]:
    """Second-pass state of one profile: rows of the planned fine bins, fine score sums."""
    s, y = profile.view(p.view)
    b = p.score_bins
    fine = np.minimum((s * b).astype(np.intp), b - 1)
    index = {k: i for i, k in enumerate(p.keys)}
    gidx = np.asarray([index.get(k, 0) for k in keys], dtype=np.intp)[codes]
    sums = exact_bincount(gidx * b + fine, s, len(p.keys) * b).reshape((len(p.keys), b))
    rows = {}
    for gi, key in enumerate(keys):
        want = p.bins.get(key)
        if want is None:
            continue
        sel = (codes == gi) & np.isin(fine, want)
        rows[key] = (s[sel].copy(), y[sel].astype(np.float64))
    return {"sums": sums, "rows": rows}


def merge(a: dict[str, Any] | None, b: dict[str, Any] | None) -> dict[str, Any] | None:
    """Sum of two second-pass states."""
    if a is None:
        return b
    if b is None:
        return a
    rows = dict(a["rows"])
    for k, (s, y) in b["rows"].items():
        if k in rows:
            rows[k] = (np.concatenate([rows[k][0], s]), np.concatenate([rows[k][1], y]))
        else:
            rows[k] = (s, y)
    return {"sums": a["sums"] + b["sums"], "rows": rows}


def _group_bins(state: StatsState, second: dict[str, Any], p: Plan, gi: int,
                edges_of: Any) -> tuple[np.ndarray, ...] | None:
    """Count, score sum and outcome sum per quantile bin of group ``gi``."""
    key = p.keys[gi]
    counts, ysum = _fine_counts(state, p.view)
    counts, ysum = counts[gi], ysum[gi]
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
    inner = edges[1:-1]
    m = len(edges) - 1
    held = np.unique(fine_rows)
    ssum = second["sums"][gi].to_float()
    mid = (np.arange(b) + 0.5) / b
    whole = np.ones(b, bool)
    whole[held] = False
    fb = np.searchsorted(inner, mid[whole], side="left")
    cnt = np.bincount(fb, weights=counts[whole], minlength=m)
    sv = np.bincount(fb, weights=ssum[whole], minlength=m)
    yv = np.bincount(fb, weights=ysum[whole], minlength=m)
    rb = np.searchsorted(inner, s_rows, side="left")
    cnt += np.bincount(rb, minlength=m)
    sv += np.bincount(rb, weights=s_rows, minlength=m)
    yv += np.bincount(rb, weights=y_rows, minlength=m)
    return edges, cnt, sv, yv


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
        got = _group_bins(state, second, p, gi, _ece_edges(n_bins))
        if got is None:
            continue
        _, cnt, sv, yv = got
        n = cnt.sum()
        out["ece"][gi] = float(np.abs(yv - sv).sum() / n)
        out["signed_ece"][gi] = float((sv - yv).sum() / n)
        ok = (cnt > 0) & (cnt >= min_count)
        if ok.any():
            out["mce"][gi] = float((np.abs(yv - sv)[ok] / cnt[ok]).max())
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

    g = len(p.keys)
    out = {k: np.full(g, np.nan) for k in ("hl_statistic", "hl_df", "hl_pvalue")}
    for gi in range(g):
        got = _group_bins(state, second, p, gi, edges_of)
        if got is None:
            continue
        _, count, expected, observed = got
        keep = count > 0
        count, observed, expected = count[keep], observed[keep], expected[keep]
        rate = np.clip(observed / count, _HL_EPS, 1.0 - _HL_EPS)
        mean_score = np.clip(expected / count, _HL_EPS, 1.0 - _HL_EPS)
        o, e = rate * count, mean_score * count
        statistic = float(np.sum((o - e) ** 2 / (e * (1.0 - mean_score))))
        dof = int(keep.sum()) - 2
        out["hl_statistic"][gi] = statistic
        out["hl_df"][gi] = float(dof)
        out["hl_pvalue"][gi] = float(stats.chi2.sf(statistic, dof)) if dof >= 1 else math.nan
    return out


