"""Every group at once: segmented sums over group codes instead of a loop over groups.

The registry's ``finish`` functions turn weighted sums into metric values; the
bootstrap feeds them one row of sums per replicate, and :class:`GroupSums` feeds
them one row per group (``np.bincount`` over group codes, per-bin sums over
(group, bin) codes, AUC and AURC from one sort by (group, score)).  The formulas
are therefore the same as the point computation's, which the grouped-equals-
per-subset tests check.  :func:`all_groups` gathers them for a split, with P_risk's
Monte Carlo null for every group, in a :class:`SegmentedValues`:
the values, and apart from them why a group's value is NaN.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calreport._calibration_tests import grouped_test
from calreport._finishers import row_columns
from calreport._grouping import Split
from calreport._validate import divide_weights
from calreport.metrics import _risk_batch, binned
from calreport.metrics._grouped_binned import grouped_classwise_ece, grouped_debiased_ece
from calreport.metrics._grouped_corp import grouped_corp
from calreport.metrics._grouped_local import grouped_lcs_eci
from calreport.metrics._grouped_smooth import grouped_smece
from calreport.metrics._order import sort_within
from calreport.metrics.weighted import sample_sizes as sizes
from calreport.profile import ConfidenceProfile
from calreport.registry import REGISTRY
from calreport.settings import Settings

__all__ = ["GroupSums", "SegmentedValues", "all_groups", "segmentable", "segmented_values"]

#: Mean rows per group up to which the refitted metrics are computed for all groups at
#: once: their batched kernels pay off over many groups; a few large groups keep the
#: single-group code.
ROWS_PER_GROUP = 5000


@dataclass(frozen=True)
class SegmentedValues:
    """Every group's counts and metric values, and why a group's value is NaN.

    Attributes
    ----------
    values : dict of str to sequence
        One entry a group for each count (``n``, ``n_clipped``, ``n_eff``) and each
        metric computed; nothing else.
    reasons : dict of str to sequence of str
        For the metrics whose grouped computation says why a group's value is NaN,
        one reason a group (``""`` where it says nothing).
    p_risk_method : sequence of str or None
        The method of each group's P_risk when it was computed group by group
        (:func:`grouped_p_risk`); None: any P_risk among ``values`` is the segmented
        normal approximation.
    """

    values: dict[str, Any]
    reasons: dict[str, Any] = field(default_factory=dict)
    p_risk_method: Any = None

    def reason(self, name: str, i: int) -> str:
        """Why group ``i``'s ``name`` is NaN, as its grouped computation says, or ``""``."""
        why = self.reasons.get(name)
        return "" if why is None else why[i]

    def p_risk_method_of(self, i: int, default: str) -> str:
        """The method of group ``i``'s P_risk (``default`` when no P_risk was computed)."""
        if "p_risk" not in self.values:
            return default
        return "normal" if self.p_risk_method is None else str(self.p_risk_method[i])

    def as_lists(self) -> SegmentedValues:
        """The same with plain lists: one conversion, not a NumPy scalar a group."""
        return SegmentedValues({k: v.tolist() for k, v in self.values.items()},
                               {k: v.tolist() for k, v in self.reasons.items()},
                               None if self.p_risk_method is None
                               else self.p_risk_method.tolist())


def segmentable(name: str, s: Settings, refits: bool = True) -> bool:
    """Whether a metric can be computed for all groups at once with these settings
    (``refits``: including the refitted metrics' grouped kernels)."""
    if name in _REFITS:
        return refits
    spec = REGISTRY[name]
    if spec.interval.kind != "bootstrap" or spec.interval.finish is None:
        return False
    if "strategy" in spec.settings and s.strategy != "uniform":
        return False  # a binned metric: equal-mass edges differ per group
    return "p_risk_method" not in spec.settings or s.p_risk_method == "normal"


class GroupSums:
    """Weighted sums of the per-row columns, one row per group (see module notes)."""

    def __init__(self, p: ConfidenceProfile, codes: np.ndarray, n_groups: int,
                 s: Settings, names: list[str]) -> None:
        if p.sample_weight is not None and p.weights == "importance":
            # importance weights on each group's own scale (frequency weights count rows)
            p = p.replace(sample_weight=_per_group_scale(p.sample_weight, codes, n_groups))
        self.p, self.codes, self.g, self.s = p, codes, n_groups, s
        keep = {c for m in names for c in REGISTRY[m].interval.columns}
        self.w = (np.ones(p.n) if p.sample_weight is None
                  else p.sample_weight.astype(np.float64))
        self.weighted = p.sample_weight is not None
        self.cols = row_columns(p, s, keep)
        self._sums: dict[str, np.ndarray] = {}
        self._bins: dict[str, np.ndarray] = {}
        self._bin_codes: np.ndarray | None = None
        self._auc: tuple[np.ndarray, np.ndarray] | None = None
        #: work shared with the refitted metrics of the same call (the row order)
        self.shared: dict[str, Any] = {}

    def sum(self, col: str) -> np.ndarray:
        """Weighted sum of a column per group."""
        if col not in self._sums:
            self._sums[col] = np.bincount(self.codes, weights=self.w * self.cols[col],
                                          minlength=self.g)
        return self._sums[col]

    def ratio(self, num: str, den: str = "one") -> np.ndarray:
        """Ratio of two weighted sums per group."""
        return self.sum(num) / self.sum(den)

    def _bin_key(self) -> np.ndarray:
        if self._bin_codes is None:
            score, outcome = self.p.view(self.s.view)
            edges = binned.bin_edges(score, n_bins=self.s.n_bins, strategy="uniform")
            bins = binned.assign_bins(score, edges)
            self._bin_codes = self.codes * self.s.n_bins + bins
            self.cols["bin_diff"] = outcome - score
            if self.weighted:
                self.cols["base"] = self.w
        return self._bin_codes

    def per_bin(self, col: str) -> np.ndarray:
        """Weighted sums per (group, bin), shape (groups, bins)."""
        if col not in self._bins:
            key = self._bin_key()
            self._bins[col] = np.bincount(key, weights=self.w * self.cols[col],
                                          minlength=self.g * self.s.n_bins
                                          ).reshape(self.g, self.s.n_bins)
        return self._bins[col]

    def bin_occupancy(self) -> np.ndarray:
        """Rows per (group, bin), or with sample weights Kish's (Σw)² / Σw²."""
        cnt = self.per_bin("one")
        if not self.weighted:
            return cnt
        return cnt**2 / self.per_bin("base")

    def auc(self) -> tuple[np.ndarray, np.ndarray]:
        """Macro AUC and cwAUC per group over the classes with both outcomes there."""
        if self._auc is None:
            p = self.p
            order = None
            if p.score is not None:
                classes = [(1, p.score)]
                if (self.s.view or p.default_view) == "positive":
                    # the refits' order by (group, score, outcome) sorts by (group,
                    # score): one sort for both (tie blocks are taken whole)
                    order = _group_order(p, self.codes, self.g, self.s, self.shared)
            else:
                classes = [(k, p.proba[:, k]) for k in range(p.proba.shape[1])]
            aucs, cws = [], []
            for k, score in classes:
                a, c = _segmented_auc(score, p.y_true == k, p.conf, self.w, self.codes,
                                      self.g, order)
                aucs.append(a)
                cws.append(c)
            self._auc = (_nanmean_columns(np.column_stack(aucs)),
                         _nanmean_columns(np.column_stack(cws)))
        return self._auc

    def aurc(self) -> np.ndarray:
        """AURC per group: each row charged the risk of the rows at least as confident."""
        p = self.p
        order = sort_within(self.codes, self.g, -p.conf)
        g, c = self.codes[order], p.conf[order]
        w = self.w[order]
        err = w * ~p.correct[order]
        block_end = np.r_[(g[1:] != g[:-1]) | (c[1:] != c[:-1]), True]
        cw, ce = _cumsum_within(w, g), _cumsum_within(err, g)
        # charge every row the risk at the end of its tie block
        last = np.flatnonzero(block_end)
        block_of = np.searchsorted(last, np.arange(w.size))
        # rows of weight 0 are no rows (as for the group alone): a block of only such
        # rows has no risk (0 / 0) and charges nothing
        live = w > 0
        risk_at = np.zeros(w.size)
        np.divide(ce[last][block_of], cw[last][block_of], out=risk_at, where=live)
        num = np.bincount(g, weights=w * risk_at, minlength=self.g)
        return num / self.sum("one")


def _per_group_scale(w: np.ndarray, codes: np.ndarray, n_groups: int) -> np.ndarray:
    """Weights divided by their group's maximum (values are scale-invariant per group;
    this keeps every group's sums finite and away from underflow)."""
    top = np.zeros(n_groups)
    np.maximum.at(top, codes, w)
    return divide_weights(w, top[codes])  # a positive weight stays positive


def _cumsum_within(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Running sums that restart at every group (``g`` sorted).

    One running sum over all rows minus each group's offset, except where that
    difference cancels: a group whose partial sums are small beside the groups
    before it (weights of 1e-300 after a group summing to 1: 1 + 1e-300 - 1 = 0)
    is summed on its own, so every group gets the sums it gets alone.
    """
    total = np.cumsum(x)
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    offset = np.r_[0.0, total[starts[1:] - 1]]
    sizes = np.diff(np.r_[starts, x.size])
    run = np.repeat(offset, sizes)
    out = total - run
    lost = np.abs(out) < 2.0**-26 * np.abs(run)  # fewer than 26 bits left
    if lost.any():
        # a 0 is exact while the group's values so far are all 0 (counted exactly)
        nonzero = np.cumsum(x != 0)
        nonzero -= np.repeat(np.r_[0, nonzero[starts[1:] - 1]], sizes)
        lost &= nonzero > 0
    if lost.any():
        group_of = np.repeat(np.arange(starts.size), sizes)
        for k in np.unique(group_of[lost]):
            lo = starts[k]
            out[lo:lo + sizes[k]] = np.cumsum(x[lo:lo + sizes[k]])
    return out


def _segmented_auc(score: np.ndarray, pos: np.ndarray, conf: np.ndarray, w: np.ndarray,
                   codes: np.ndarray, n_groups: int, order: np.ndarray | None = None
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Binary AUC and cwAUC of every group from one sort by (group, score); ties ½
    (``order``: such a sort already made)."""
    if order is None:
        order = sort_within(codes, n_groups, score)
    g, sc, ps = codes[order], score[order], pos[order]
    wo, co = w[order], conf[order]
    out = []
    for weight in (wo, wo * co):
        neg = weight * ~ps
        posw = weight * ps
        block_start = np.r_[True, (g[1:] != g[:-1]) | (sc[1:] != sc[:-1])]
        starts = np.flatnonzero(block_start)
        block_of = np.cumsum(block_start) - 1
        cum_neg = _cumsum_within(neg, g)
        before = (cum_neg - neg)[starts][block_of]  # negatives below the tie block
        in_block = np.add.reduceat(neg, starts)[block_of]
        num = np.bincount(g, weights=posw * (before + 0.5 * in_block), minlength=n_groups)
        den = (np.bincount(g, weights=posw, minlength=n_groups)
               * np.bincount(g, weights=neg, minlength=n_groups))
        with np.errstate(divide="ignore", invalid="ignore"):
            out.append(np.where(den > 0, num / den, np.nan))
    return out[0], out[1]


def _nanmean_columns(x: np.ndarray) -> np.ndarray:
    ok = ~np.isnan(x)
    cnt = ok.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(cnt > 0, np.where(ok, x, 0.0).sum(axis=1) / cnt, np.nan)


def segmented_values(p: ConfidenceProfile, codes: np.ndarray, n_groups: int,
                     s: Settings, names: list[str]) -> SegmentedValues:
    """Counts and the given (segmentable) metrics of every group, as arrays."""
    sums = GroupSums(p, codes, n_groups, s, names)
    # every metric, refitted ones included, on each group's own weight scale (as for
    # the group alone: weights of 1e300 would overflow their squares, 1e-300 underflow)
    p = sums.p
    # rows count when their weight on their group's scale is positive (as for the group
    # computed alone)
    w = sums.p.sample_weight
    nonzero = np.ones(p.n) if w is None else w > 0
    positive = np.bincount(codes, weights=nonzero.astype(np.float64), minlength=n_groups)
    out: dict[str, np.ndarray] = {}
    out["n"], out["n_eff"] = (
        sizes(None, None, positive, None) if w is None else
        sizes(np.bincount(codes, weights=w, minlength=n_groups),
              np.bincount(codes, weights=w * w, minlength=n_groups), positive, p.weights))
    clipped = (p.conf < s.eps) | (p.conf > 1 - s.eps)
    out["n_clipped"] = np.bincount(codes, weights=clipped.astype(np.float64),
                                   minlength=n_groups)
    cache = sums.shared  # work shared by several metrics of this call
    reasons: dict[str, np.ndarray] = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for name in names:
            if REGISTRY[name].missing_need(p) is not None:
                out[name] = np.full(n_groups, np.nan)
            elif name in _REFITS:
                _refit(name, p, codes, n_groups, s, out, reasons, cache)
            else:
                out[name] = np.asarray(REGISTRY[name].interval.finish(sums, s),
                                       dtype=np.float64)
    return SegmentedValues(out, reasons)


def all_groups(split: Split, names: list[str], s: Settings, with_risk: bool = False
               ) -> SegmentedValues:
    """Every group's segmentable metrics at once (no loop over groups), and P_risk,
    when it is not segmentable, group by group from the frame's validated arrays.

    P_risk once ran on a thread beside the other metrics: on 2,000 groups x 50 rows,
    every metric, it bought nothing (0.97x, medians of 4 alternated), so it is gone."""
    p = split.profile
    n_groups = len(split.groups)
    codes = np.full(p.n, n_groups, dtype=np.int64)  # rows in no group (a dropped key)
    for i, g in enumerate(split.groups):
        codes[g.rows] = i
    many = p.n <= ROWS_PER_GROUP * max(1, n_groups)
    fast = [m for m in names if segmentable(m, s, refits=many)]
    got = segmented_values(p, codes, n_groups + 1, s, fast)
    values = {k: v[:n_groups] for k, v in got.values.items()}
    reasons = {k: v[:n_groups] for k, v in got.reasons.items()}
    method = None
    if "p_risk" in names and "p_risk" not in fast and not with_risk and (
            p.sample_weight is None or p.weights == "importance"):
        values["p_risk"], method, reasons["p_risk"] = grouped_p_risk(split, s)
    return SegmentedValues(values, reasons, method)


def grouped_p_risk(split: Split, s: Settings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P_risk of every group from the frame's validated arrays (no profile per group).

    Each group's value is that of ``risk.p_risk`` on its rows with the summary's seed,
    so it does not depend on the other groups or their order; groups of one seed share
    the blocks of uniforms of the Monte Carlo null (drawn once, not once per group).
    Returns the values, the method of each and the reason of each undefined one
    (``""`` where there is none).
    """
    p = split.profile
    n = len(split.groups)
    values = np.full(n, math.nan)
    methods = np.full(n, s.p_risk_method, dtype=object)
    reasons = np.full(n, "", dtype=object)
    w_all = p.sample_weight
    todo = [i for i, g in enumerate(split.groups) if g.size and (
        w_all is None or np.any(w_all[g.rows] > 0))]
    got = _risk_batch.p_risk_many(
        [(p.conf[g.rows], p.correct[g.rows], None if w_all is None else w_all[g.rows])
         for g in (split.groups[i] for i in todo)],
        eps=s.eps, method=s.p_risk_method, seed=s.mc_seed)
    for i, res in zip(todo, got, strict=True):
        if isinstance(res, str):
            reasons[i] = res
        else:
            values[i], methods[i] = res
    return values, methods, reasons


# ------------------------------------------------------------- refitted metrics
# Metrics whose interval refits a curve per replicate have no sums to finish; their
# grouped kernels (calreport.metrics._grouped_*) fit every group at once over the
# group codes, each group's value equal to the metric on its rows alone.
def _group_order(p: ConfidenceProfile, codes: np.ndarray, n_groups: int, s: Settings,
                 cache: dict[str, Any]) -> np.ndarray:
    """Rows by (group, score, outcome): one sort shared by debiased ECE, LCS, ECI, CORP."""
    if "order" not in cache:
        score, outcome = p.view(s.view)
        cache["order"] = sort_within(codes, n_groups, outcome, score)
    return cache["order"]


def _smece(p: ConfidenceProfile, codes: np.ndarray, n_groups: int, s: Settings,
           cache: dict[str, Any]) -> np.ndarray:
    score, outcome = p.view(s.view)
    return grouped_smece(score, outcome, p.sample_weight, codes, n_groups)


def _classwise_ece(p: ConfidenceProfile, codes: np.ndarray, n_groups: int, s: Settings,
                   cache: dict[str, Any]) -> np.ndarray:
    return grouped_classwise_ece(p.y_true, p.proba, p.sample_weight, codes, n_groups,
                                 s.n_bins)


def _debiased_ece(p: ConfidenceProfile, codes: np.ndarray, n_groups: int, s: Settings,
                  cache: dict[str, Any]) -> np.ndarray | None:
    if p.sample_weight is not None:
        return None  # weighted equal-mass edges: computed per group
    return grouped_debiased_ece(*p.view(s.view), codes, n_groups, s.n_bins,
                                order=_group_order(p, codes, n_groups, s, cache))


def _local(which: int) -> Callable[..., Any]:
    def compute(p: ConfidenceProfile, codes: np.ndarray, n_groups: int, s: Settings,
                cache: dict[str, Any]) -> tuple[np.ndarray, dict[int, str]] | None:
        if p.sample_weight is not None:
            return None  # frequency weights: computed per group
        if "local" not in cache:  # LCS and ECI share the sort and the fits
            cache["local"] = grouped_lcs_eci(*p.view(s.view), codes, n_groups,
                                             order=_group_order(p, codes, n_groups, s, cache))
        lcs, eci, reasons = cache["local"]
        return (lcs, eci)[which], reasons
    return compute

def _corp(which: int) -> Callable[..., Any]:
    def compute(p: ConfidenceProfile, codes: np.ndarray, n_groups: int, s: Settings,
                cache: dict[str, Any]) -> np.ndarray:
        if "corp" not in cache:  # the three terms share one PAV fit per group
            cache["corp"] = grouped_corp(*p.view(s.view), p.sample_weight, codes, n_groups,
                                         order=_group_order(p, codes, n_groups, s, cache))
        return cache["corp"][which]
    return compute


#: Grouped kernel of each refitted metric; it returns None where these data need the
#: per-group computation.  A kernel stays only while it beats the per-group loop by
#: more than 2x on a grouped call users make (the other metrics whose interval
#: refits, TCE_bpm among them, go through the loop).
_REFITS: dict[str, Callable[..., Any]] = {
    # kept: 5.78x on 500 groups x 200 rows (benchmarks/bench_grouped_engines.py)
    "smece": _smece,
    # kept: 5.28x on 500 groups x 200 rows (benchmarks/bench_grouped_engines.py)
    "classwise_ece": _classwise_ece, "debiased_ece": _debiased_ece,
    # kept: 3.50x on 500 groups x 200 rows (benchmarks/bench_grouped_engines.py)
    "lcs": _local(0), "eci": _local(1),
    # kept: 3.13x on 500 groups x 200 rows (benchmarks/bench_grouped_engines.py)
    "corp_mcb": _corp(0), "corp_dsc": _corp(1), "corp_unc": _corp(2),
    # the calibration tests: each group's test on its own rows
    "ecce_ks_p": grouped_test("ecce_ks_p"), "ecce_kuiper_p": grouped_test("ecce_kuiper_p"),
    "tcal_p": grouped_test("tcal_p"),
}


def _refit(name: str, p: ConfidenceProfile, codes: np.ndarray, n_groups: int, s: Settings,
           out: dict[str, np.ndarray], reasons: dict[str, np.ndarray],
           cache: dict[str, Any]) -> None:
    """One refitted metric of every group into ``out``; a ValueError (the same for
    every group: the rows were validated once) becomes NaN with its message as the
    reason in ``reasons``."""
    try:
        got = _REFITS[name](p, codes, n_groups, s, cache)
        if isinstance(got, tuple):  # values and the reason of each undefined group
            got, why = got
            if why:
                reasons[name] = np.full(n_groups, "", dtype=object)
                for g, text in why.items():
                    reasons[name][g] = text
        if got is not None:
            out[name] = np.asarray(got, dtype=np.float64)
    except ValueError as exc:
        out[name] = np.full(n_groups, np.nan)
        reasons[name] = np.full(n_groups, str(exc), dtype=object)
