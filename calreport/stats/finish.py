"""Metrics finished from a merged :class:`~calreport.stats.state.StatsState`.

Every metric records how it relates to the full-data computation of
:mod:`calreport.metrics`:

* ``"exact"`` -- a function of exact sums, equal to the core up to the float64
  rounding of the final arithmetic;
* ``"bounded"`` -- read off fine fixed score bins; the true value lies within the
  reported ``bound`` (computed from the same bins, so the bound itself is exact);
* ``"sampled"`` -- estimated from a sample (none of the metrics here; their sampling
  error is :attr:`MetricTable.sampling_error`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from dataclasses import fields as _fields
from statistics import NormalDist
from typing import Any

import numpy as np

from calreport.metrics.classwise import errors_from_cell_sums
from calreport.metrics.weighted import sample_sizes as sizes
from calreport.registry import REGISTRY, Metric
from calreport.stats.config import CLASSWISE_SUMS, SCALARS, VIEWS, column_sums
from calreport.stats.poisson import intervals
from calreport.stats.state import StatsState
from calreport.stats.sums import EXTRAS, SUM_FORM, StateSums, div, finish_sums, missing_needs

__all__ = ["KINDS", "SUMMARY_METRICS", "MetricTable", "confusion", "reliability", "resolve_view",
           "selective", "summary"]

#: Metrics finished from the state's fine bins and per-bin sums, with their kind.
_FROM_BINS = {"auc": "bounded", "cwauc": "bounded", "delta_auc": "bounded", "aurc": "bounded",
              "corp_unc": "exact", "classwise_ece": "exact"}
#: Summary metrics in output order, with how each is obtained from the state: the
#: counts, the registry's metrics finished from the sums (in registry order) and the
#: state's extra descriptive columns.
KINDS: dict[str, str] = {
    "n": "exact", "n_clipped": "exact", "n_eff": "exact",
    **{m: "exact" if m in SUM_FORM else _FROM_BINS[m] for m in REGISTRY
       if m in SUM_FORM or m in _FROM_BINS},
    "top_label_brier": "exact", "sharpness": "exact", "coverage": "exact",
    "selective_accuracy": "exact",
}
SUMMARY_METRICS = tuple(KINDS)
_S = {name: i for i, name in enumerate(SCALARS)}


@dataclass
class MetricTable:
    """Finished metrics of every group of a state.

    Attributes
    ----------
    keys : list
        Group keys (``[()]`` when ungrouped).
    values : dict of str -> ndarray, shape (G,)
    kinds : dict of str -> str
        ``"exact"``, ``"bounded"`` or ``"sampled"`` per metric.
    bounds : dict of str -> ndarray, shape (G,)
        Maximum absolute error of each bounded metric.
    reasons : dict of str -> list of (str or None)
        Why a value is NaN, per group.
    intervals : dict of str -> (ndarray, ndarray)
        Bootstrap interval (low, high) per metric by its registry method, when
        requested.
    view : str
        Calibration view of the binned metrics.
    settings : dict
    verdicts : list of RiskResult, or None
        The risk verdict of every group (:func:`calreport.stats.verdict.risk_verdicts`)
        once :func:`calreport.stats.sampled.full_table` has taken P_risk from it.
    interval_se : dict of str -> (ndarray, ndarray, ndarray)
        Per metric with an interval: the Monte Carlo standard errors of its low and
        high bounds and the replicates behind it, per group.
    sampling_error : dict of str -> ndarray, shape (G,)
        Per sampled metric: the half-width of its 95 % sampling error (the value on
        all rows lies within it at that rate; 0 when the sample is the whole group;
        :func:`calreport.stats.sampled.sampling_errors`).
    """

    keys: list[Any]
    values: dict[str, np.ndarray]
    kinds: dict[str, str]
    bounds: dict[str, np.ndarray] = field(default_factory=dict)
    reasons: dict[str, list[str | None]] = field(default_factory=dict)
    intervals: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    view: str = "top_label"
    settings: dict[str, Any] = field(default_factory=dict)
    verdicts: list[Any] | None = None
    interval_se: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(
        default_factory=dict)
    sampling_error: dict[str, np.ndarray] = field(default_factory=dict)


def resolve_view(state: StatsState, view: str | None) -> str:
    """The calibration view of a state's binned metrics: ``view``, checked, or the
    default (the positive class for binary input, else the top label)."""
    if view is None:
        return "positive" if state.schema.binary else "top_label"
    if view not in VIEWS:
        raise ValueError(f"`view` must be one of {VIEWS}, got {view!r}.")
    if view == "positive" and not state.schema.binary:
        raise ValueError(
            "view='positive' needs a binary problem with a positive-class probability; "
            "use view='top_label'."
        )
    return view


def summary(state: StatsState, *, view: str | None = None,
            ci: float | None = None) -> MetricTable:
    """Every summary metric of every group, finished from the merged sums.

    Parameters
    ----------
    state : StatsState
    view : {"top_label", "positive"}, optional
        View of ECE, MCE and signed ECE (default: positive class for binary input).
    ci : float, optional
        Level of percentile intervals from the Poisson replicates the state holds
        (needs ``StatsConfig(n_boot=...)``).  The replicates hold the default view's
        bins, so another ``view`` leaves the view's metrics without one; AUC, cwAUC and
        AURC get none here (:mod:`calreport.stats.intervals`).

    Returns
    -------
    MetricTable

    Notes
    -----
    With ``W = sum w``: accuracy ``sum w ok / W``; cwA ``sum w c ok / sum w c``; gain
    ``(cwA - Acc) / (1 - min(cwA, Acc))``; ``CSR = sum w (1 - ok)/(1 - c) / W``;
    ``sigma_CSR = sqrt(sum w^2 c/(1-c)) / W`` for importance weights (``sum w c/(1-c)``
    for frequency weights; identical without weights); ``z = (CSR - 1)/sigma_CSR``,
    and P_risk that of the risk verdict (``Phi(z)`` where the normal reading is valid,
    else the Monte Carlo null; Martin-Maroto et al. 2026, section 2.1, appendix A.2).
    ECE ``sum_m |sum_{B_m} w y - sum_{B_m} w s| / W`` on uniform bins
    (Guo et al. 2017; Naeini et al. 2015).  AUC and cwAUC count pairs in different fine
    bins exactly and pairs in one bin as ties (1/2), so the error is at most
    ``(1/2) sum_b P_b N_b / (P N)``.  AURC treats a fine bin as one tie group; the bound
    is the largest change any ordering inside the bins could make.

    Examples
    --------
    >>> from calreport.profile import ConfidenceProfile
    >>> from calreport.stats import StatsState
    >>> p = ConfidenceProfile.from_arrays([0, 1, 1, 0], [0.2, 0.9, 0.4, 0.3])
    >>> t = summary(StatsState.from_profile(p))
    >>> float(t.values["accuracy"][0]), t.kinds["auc"]
    (0.75, 'bounded')
    """
    cfg, schema = state.config, state.schema
    view = resolve_view(state, view)
    g = len(state.keys)
    sc = state.sums["scalar"].to_float()
    # exact sums of the sharpness only: a Fraction per group and sum
    fr = state.sums["scalar"][:, [_S["one"], _S["c"], _S["c2"]]].to_fraction()
    col = lambda name: sc[:, _S[name]]  # noqa: E731
    w = col("one")
    v: dict[str, np.ndarray] = {}
    reasons: dict[str, list[str | None]] = {}
    bounds: dict[str, np.ndarray] = {}
    v["n"], v["n_eff"] = sizes(w, col("w2"), state.counts["n_positive_weight"].astype(
        np.float64), cfg.weights if state.schema.weighted else None)
    v["n_clipped"] = state.counts["n_clipped"].astype(np.float64)
    rel = reliability(state, view=view)
    has_proba = schema.layout == "proba"
    k = StateSums(column_sums(col),
                  {"one": rel["weight_sum"], "bin_diff": rel["sum_outcome"] - rel["sum_score"]},
                  rel["n_eff"])
    v.update(finish_sums(k, cfg, SUM_FORM))
    v.update(finish_sums(k, cfg, tuple(EXTRAS)))
    v["sharpness"] = np.asarray([float(w_c2 / w_ - (w_c / w_) ** 2) if w_ > 0 else math.nan
                                 for w_, w_c, w_c2 in fr])

    if has_proba:
        auc, auc_b, cw, cw_b = _auc(state)
        v["auc"], v["cwauc"], v["delta_auc"] = auc, cw, cw - auc
        bounds.update(auc=auc_b, cwauc=cw_b, delta_auc=auc_b + cw_b)
    v["aurc"], bounds["aurc"] = _aurc(state)
    v["classwise_ece"] = _classwise_ece(state, w)
    for name, why in missing_needs(state, KINDS).items():  # what these data cannot define
        v[name] = np.full(g, np.nan)
        reasons[name] = [why] * g
    # CORP's uncertainty term is the base rate's Brier score o (1 - o) on the view
    base = div(rel["sum_outcome"].sum(axis=1), rel["weight_sum"].sum(axis=1))
    v["corp_unc"] = base * (1.0 - base)

    for name, arr in v.items():
        if name not in reasons and np.isnan(arr).any():
            reasons[name] = [_nan_reason(name) if math.isnan(x) else None for x in arr]
    iv, se = {}, {}
    if ci is not None:
        read = intervals(state, ci, v)
        if view != resolve_view(state, None):
            # the replicates hold the default view's bins: not intervals of this view

            read = {m: b for m, b in read.items()
                    if m not in REGISTRY or "view" not in REGISTRY[m].settings}
        iv = {m: (b.low, b.high) for m, b in read.items()}
        se = {m: (b.se_low, b.se_high, b.replicates) for m, b in read.items()}
    return MetricTable(list(state.keys), {k: v[k] for k in KINDS}, dict(KINDS), bounds,
                       reasons, iv, view, cfg.to_dict(), interval_se=se)


def _field_default(cls: type, name: str) -> Any:
    """Default of the dataclass field ``name`` of ``cls``."""
    return next(f.default for f in _fields(cls) if f.name == name)


def _nan_reason(name: str) -> str:
    """The registry's reason a metric is NaN; a generic reason means no weight."""
    spec = REGISTRY.get(name)
    why = "" if spec is None else spec.nan_reason
    generic = _field_default(Metric, "nan_reason")
    return why if why and why != generic else "no rows with positive weight"


def _by_rows(state: StatsState, name: str, fn: Any) -> tuple[np.ndarray, ...]:
    """``fn`` of the occupied fine bins of every grid row of the sparse sums ``name``
    (:meth:`~calreport.stats.sparse.SparseSums.padded`: the rows' bins in order, empty
    bins left out), as arrays of shape ``(G, R)`` (``R`` = 1 for a one-axis grid)."""
    sparse = state.sums[name]
    per_group = sparse.cells[0] if len(sparse.cells) > 1 else 1
    out: list[np.ndarray] = []
    for rows, block in sparse.padded():
        parts = fn(block)
        if not out:
            out = [np.empty(sparse.n_groups * per_group) for _ in parts]
        for whole, part in zip(out, parts, strict=True):
            whole[rows] = part
    if not out:  # no groups
        out = [np.asarray(a) for a in fn(np.zeros((0, 1, *sparse.tail)))]
    return tuple(a.reshape(sparse.n_groups, per_group) for a in out)


def _auc(state: StatsState) -> tuple[np.ndarray, ...]:
    """Macro AUC and cwAUC over classes with positives and negatives, with bounds."""
    out: list[np.ndarray] = []
    for name in ("auc_w", "auc_wc"):
        out += _macro(*_by_rows(state, name, _auc_of))
    return tuple(out)


def _classwise_ece(state: StatsState, total: np.ndarray) -> np.ndarray:
    """Class-wise ECE of every group from its exact (class, uniform bin) sums, by the
    finisher of the row computation (NaN without class probabilities)."""
    if "classwise" not in state.sums:
        return np.full(len(state.keys), np.nan)
    s = state.sums["classwise"].to_float()  # (G, K, n_bins, 2)
    p, y = (s[..., CLASSWISE_SUMS.index(name)] for name in ("w_p", "w_y"))
    return errors_from_cell_sums(p, y, total).mean(axis=-1)


def _auc_of(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """AUC of each row of fine bins (k, B, 2) in score order, and its bound (empty
    bins add nothing: a row's occupied bins give its dense numbers)."""
    pos, neg = s[..., 0], s[..., 1]
    below = np.cumsum(neg, axis=-1) - neg
    num = (pos * (below + 0.5 * neg)).sum(axis=-1)
    den = pos.sum(axis=-1) * neg.sum(axis=-1)
    return div(num, den), div(0.5 * (pos * neg).sum(axis=-1), den)


def _macro(per: np.ndarray, per_bound: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean AUC and bound (G,) over the class rows (G, R) that have one."""
    with np.errstate(invalid="ignore"):
        have = ~np.isnan(per)
        cnt = have.sum(axis=1)
        val = div(np.where(have, per, 0.0).sum(axis=1), cnt)
        bound = div(np.where(have, per_bound, 0.0).sum(axis=1), cnt)
    return val, bound


def _aurc(state: StatsState) -> tuple[np.ndarray, ...]:
    """AURC with each fine confidence bin as one tie group, and its exact error bound."""
    return tuple(a[:, 0] for a in _by_rows(state, "aurc_w", _aurc_of))


def _aurc_of(dense: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """AURC of each row of fine bins (k, B, 2) in confidence order, and its bound
    (empty bins add nothing)."""
    s = dense[:, ::-1, :]  # most confident bin first
    m, e = s[..., 0], s[..., 1]
    a = np.cumsum(m, axis=1) - m
    ee = np.cumsum(e, axis=1) - e
    with np.errstate(divide="ignore", invalid="ignore"):
        est = np.where(m > 0, m * (ee + e) / (a + m), 0.0)
        r_max = np.where(a + e > 0, (ee + e) / (a + e), 0.0)
        r_min = np.where(a + m - e > 0, ee / (a + m - e), 1.0)
    total = m.sum(axis=1)
    value = est.sum(axis=1)
    low = np.where(m > 0, m * r_min, 0.0).sum(axis=1)
    high = np.where(m > 0, m * r_max, 0.0).sum(axis=1)
    bound = np.maximum(value - low, high - value)
    return div(value, total), div(np.maximum(bound, 0.0), total)


def reliability(state: StatsState, *, view: str | None = None,
                alpha: float = 0.05) -> dict[str, Any]:
    """Uniform-bin reliability table of every group (arrays of shape (G, n_bins)).

    Returns
    -------
    dict
        ``lower``, ``upper`` (bin edges, shape (n_bins,)), ``count``, ``weight_sum``,
        ``n_eff`` (Kish), ``mean_score``, ``mean_outcome``, ``gap`` (outcome - score),
        ``ci_low``, ``ci_high`` (Wilson, level ``1 - alpha``), ``sum_score``,
        ``sum_outcome``, and ``view``.

    Examples
    --------
    >>> from calreport.profile import ConfidenceProfile
    >>> from calreport.stats import StatsState, StatsConfig
    >>> p = ConfidenceProfile.from_arrays(conf=[0.1, 0.3, 0.8], correct=[0, 1, 1])
    >>> r = reliability(StatsState.from_profile(p, config=StatsConfig(n_bins=2)))
    >>> r["count"].tolist()
    [[2, 1]]
    """
    vi = VIEWS.index(resolve_view(state, view))
    nb = state.config.n_bins
    s = state.sums["bins"].to_float()[:, vi]  # (G, nb, 4)
    wsum, w2, ws, wy = s[..., 0], s[..., 1], s[..., 2], s[..., 3]
    conf = div(ws, wsum)
    acc = div(wy, wsum)
    n_eff = np.where(w2 > 0, wsum**2 / np.where(w2 > 0, w2, 1.0), 0.0)
    z = NormalDist().inv_cdf(1.0 - alpha / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        centre = (acc + z * z / (2 * n_eff)) / (1 + z * z / n_eff)
        half = z * np.sqrt(acc * (1 - acc) / n_eff + z * z / (4 * n_eff**2)) / (1 + z * z / n_eff)
    edges = np.arange(nb + 1, dtype=np.float64) / nb
    return {
        "lower": edges[:-1], "upper": edges[1:], "count": state.counts["bin_count"][:, vi],
        "weight_sum": wsum, "n_eff": n_eff, "mean_score": conf, "mean_outcome": acc,
        "gap": acc - conf, "ci_low": centre - half, "ci_high": centre + half,
        "sum_score": ws, "sum_outcome": wy, "view": VIEWS[vi],
    }


def selective(state: StatsState) -> dict[str, np.ndarray]:
    """Coverage, selective accuracy, CWSA and CWSA+ on the threshold grid (shape (G, T)).

    ``S_tau = {c >= tau}``, ``phi = (c - tau)/(1 - tau)``; ``CWSA = sum_S w phi (2 ok - 1)
    / sum_S w``, ``CWSA+ = sum_S w phi ok / sum_S w`` (Shahnazari et al. 2025, section 3).

    Examples
    --------
    >>> from calreport.profile import ConfidenceProfile
    >>> from calreport.stats import StatsState
    >>> p = ConfidenceProfile.from_arrays(conf=[0.4, 0.6, 0.9, 0.7], correct=[0, 1, 1, 0])
    >>> round(float(selective(StatsState.from_profile(p))["cwsa"][0, 10]), 12)
    0.2
    """
    taus = np.asarray(state.config.taus)
    s = state.sums["tau"].to_float()[:, ::-1].cumsum(axis=1)[:, ::-1]  # sums over c >= tau_j
    sw, sok, sc, scok = s[..., 0], s[..., 1], s[..., 2], s[..., 3]
    total = state.sums["scalar"].to_float()[:, _S["one"]][:, np.newaxis]
    cwsa_num = (2 * scok - sc - taus * (2 * sok - sw)) / (1 - taus)
    plus_num = (scok - taus * sok) / (1 - taus)
    out = {"tau": taus, "selected_weight": sw, "coverage": div(sw, total),
           "selective_accuracy": div(sok, sw),
           "cwsa": div(cwsa_num, sw), "cwsa_plus": div(plus_num, sw)}
    return out


def confusion(state: StatsState) -> dict[str, np.ndarray]:
    """Confusion and confidence-weighted confusion matrices (G, K, K), rows = true class.

    Martin-Maroto et al. (2026), Definition 5: the cw matrix weights each row by its
    top-label confidence.
    """
    if "confusion" not in state.sums:
        raise ValueError("Confusion matrices need true and predicted labels.")
    s = state.sums["confusion"].to_float()
    return {"confusion": s[..., 0], "cw_confusion": s[..., 1]}
