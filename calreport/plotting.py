"""Figures: reliability diagram, calibration curve, ROC vs cwROC, selective and risk plots.

Every function takes the data (a :class:`~calreport.profile.ConfidenceProfile`, or a
mapping ``group -> profile`` to overlay one series per group), draws on ``ax`` (a new
:class:`matplotlib.figure.Figure` when ``ax`` is None) and returns the Axes.  The
numbers drawn are the ones the metric functions compute: nothing is recomputed
here.  Figures are built with the object API only (no ``pyplot`` state) and styles
are passed explicitly, so plotting never changes ``matplotlib.rcParams``.

:class:`CalibPlots` bundles the functions for the pandas accessor
(``df.calib.plot.reliability_diagram()``, ``df.groupby(key).calib.plot...``).
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Callable, Hashable, Mapping
from typing import Any

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from calreport import _validate as v
from calreport.profile import ConfidenceProfile

__all__ = [
    "BAND_COLORS",
    "PALETTE",
    "CalibPlots",
    "calibration_curve_plot",
    "confidence_histogram",
    "cumulative_csr_share",
    "default_taus",
    "figure_to_data_uri",
    "group_name",
    "reliability_diagram",
    "risk_drivers_plot",
    "risk_plot",
    "roc_plot",
    "selective_plot",
]

#: Colour-blind-safe series colours (Okabe & Ito), one per group.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
           "#F0E442")
#: Colours of the risk bands (000_efda01fc1c8d5c44.txt, 1-sigma / 3-sigma columns).
BAND_COLORS = {"none": "#1a7f37", "evidence": "#b35900", "risky": "#b91c1c",
               "undetermined": "#6b7280"}
_BAND_FILL = {"none": "#e6f4ea", "evidence": "#fdf0dc", "risky": "#fde2e2"}
_DIAGONAL = dict(color="#6b7280", linestyle="--", linewidth=1.0)
_GRID = dict(color="#d1d5db", linewidth=0.6)
#: Curves with more vertices than this are thinned to curve points ~1/1000 apart.
_MAX_CURVE_POINTS = 2000
#: Figures holding more data points than this are embedded as PNG, not SVG.
DENSE_POINTS = 20000

ProfileData = ConfidenceProfile | Mapping[Hashable, ConfidenceProfile]


# ---------------------------------------------------------------------------- helpers
def group_name(key: Any) -> str:
    """Display name of a group key (tuples of several keys are joined by ``" / "``).

    Examples
    --------
    >>> group_name(("model_a", 3))
    'model_a / 3'
    """
    if isinstance(key, tuple):
        return " / ".join(str(k) for k in key)
    return str(key)


def _tex_safe(text: str) -> str:
    """A label drawn literally: no mathtext, not hidden by a leading underscore."""
    text = str(text).replace("$", r"\$")
    return " " + text if text.startswith("_") else text


def _groups(data: Any, name: str = "profile") -> dict[str, ConfidenceProfile]:
    """``{label: profile}``; a single profile gets the empty label (no legend)."""
    if isinstance(data, ConfidenceProfile):
        return {"": data}
    if isinstance(data, Mapping):
        if not data:
            raise ValueError(f"`{name}` is an empty mapping: pass at least one profile.")
        out: dict[str, ConfidenceProfile] = {}
        for key, prof in data.items():
            if not isinstance(prof, ConfidenceProfile):
                raise TypeError(
                    f"`{name}[{key!r}]` is a {type(prof).__name__}, not a ConfidenceProfile. "
                    "Build one with ConfidenceProfile.from_arrays(...) or df.calib.profile()."
                )
            out[_tex_safe(group_name(key))] = prof
        return out
    raise TypeError(
        f"`{name}` must be a ConfidenceProfile or a mapping of group -> ConfidenceProfile, "
        f"got {type(data).__name__}."
    )


def _single(data: Any, name: str = "profile") -> tuple[str, ConfidenceProfile]:
    groups = _groups(data, name)
    if len(groups) > 1:
        raise ValueError(
            f"This figure shows one profile but `{name}` holds {len(groups)} groups "
            f"({', '.join(list(groups)[:5])}). Pass one of them, e.g. profiles[key]."
        )
    return next(iter(groups.items()))


def _axes(ax: Axes | None, figsize: tuple[float, float] = (6.4, 4.4)) -> Axes:
    if ax is not None:
        if not isinstance(ax, Axes):
            raise TypeError(f"`ax` must be a matplotlib Axes, got {type(ax).__name__}.")
        return ax
    fig = Figure(figsize=figsize, layout="constrained")
    return fig.add_subplot()


def _color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _style(ax: Axes) -> None:
    ax.grid(True, **_GRID)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def _legend(ax: Axes, **kw: Any) -> None:
    handles, _labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(fontsize="small", frameon=False, **kw)


def _view_labels(prof: ConfidenceProfile, view: str) -> tuple[str, str]:
    if view == "positive":
        pos = _tex_safe(prof.classes[1]) if prof.classes is not None else "the positive class"
        return (f"Predicted probability of {pos}", f"Observed frequency of {pos}")
    return ("Confidence in the predicted class", "Accuracy")


def _thin_curve(x: np.ndarray, y: np.ndarray, n: int = _MAX_CURVE_POINTS) -> tuple[
        np.ndarray, np.ndarray]:
    """Keep a subset of the points of a monotone curve, at most ~1/1000 apart on both axes.

    The kept points are points of the curve (nothing is interpolated), so a figure read
    back agrees with the computed curve.
    """
    if x.shape[0] <= n:
        return x, y
    grid = np.linspace(0.0, 1.0, n // 2 + 1)
    sx = (x - x[0]) / max(x[-1] - x[0], 1e-300)
    sy = (y - y.min()) / max(y.max() - y.min(), 1e-300)
    keep = np.unique(np.concatenate([
        np.minimum(np.searchsorted(sx, grid), x.shape[0] - 1),
        np.minimum(np.searchsorted(np.maximum.accumulate(sy), grid), x.shape[0] - 1),
        [0, x.shape[0] - 1],
    ]))
    return x[keep], y[keep]


def _need_labels(prof: ConfidenceProfile, what: str) -> None:
    if prof.y_true is None or prof.proba is None:
        raise ValueError(
            f"{what} needs true labels and class probabilities; this profile has only "
            "confidence and correctness. Build it with y_true and proba."
        )


# ----------------------------------------------------------------- reliability diagram
def reliability_diagram(
    profile: ProfileData,
    *,
    view: str | None = None,
    n_bins: int = 15,
    strategy: str = "uniform",
    ax: Axes | None = None,
) -> Axes:
    """Reliability diagram: per-bin observed frequency against mean score, with counts.

    Each non-empty bin is a point at (mean score, observed frequency) with its Wilson
    interval; the dashed diagonal is perfect calibration.  Underneath, a bar chart
    shows how many rows fall in each bin (the occupancy 002_848142561181ac46.txt,
    section 6.5 asks to report with the diagram); it is ``ax.child_axes[0]``.

    Parameters
    ----------
    profile : ConfidenceProfile or mapping of group -> ConfidenceProfile
        One series per group.
    view : {"top_label", "positive"}, optional
        Calibration view (default: the profile's, positive class for binary input).
    n_bins : int, default 15
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width or equal-mass bins (002_848142561181ac46.txt, section 6.2).
    ax : matplotlib Axes, optional
        Where to draw; a new Figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        The main axes; the data points are ``ax.lines`` labelled with the group name.

    Notes
    -----
    The table is :func:`calreport.metrics.binned.reliability_table`
    (002_848142561181ac46.txt, sections 2-3); sample weights are used when present.

    Examples
    --------
    >>> from calreport import ConfidenceProfile
    >>> p = ConfidenceProfile.from_arrays([0, 1, 1, 0, 1], [0.1, 0.8, 0.6, 0.4, 0.9])
    >>> ax = reliability_diagram(p, n_bins=5)
    >>> ax.get_ylabel()
    'Observed frequency of 1'
    """
    from calreport.metrics import binned

    groups = _groups(profile)
    n_bins = v.check_n_bins(n_bins)
    v.check_option(strategy, "strategy", ("uniform", "quantile"))
    ax = _axes(ax, (6.4, 5.6))
    hax = ax.inset_axes((0.0, -0.42, 1.0, 0.26), sharex=ax)
    ax.plot([0, 1], [0, 1], label="perfect calibration", **_DIAGONAL)
    single = len(groups) == 1
    first = next(iter(groups.values()))
    used_view = view or first.default_view
    for i, (label, prof) in enumerate(groups.items()):
        score, outcome = prof.view(view)
        t = binned.reliability_table(score, outcome, n_bins=n_bins, strategy=strategy,
                                     sample_weight=prof.sample_weight)
        lower, upper = np.asarray(t.lower, float), np.asarray(t.upper, float)
        count = np.asarray(t.count, float)
        ok = count > 0
        x = np.asarray(t.mean_score, float)[ok]
        y = np.asarray(t.mean_outcome, float)[ok]
        lo = np.asarray(t.ci_low, float)[ok]
        hi = np.asarray(t.ci_high, float)[ok]
        color = _color(i)
        # points only: a line through sparse bins suggests a trend the data lack
        # clip float noise: the Wilson interval contains the bin's mean
        yerr = np.clip(np.vstack([y - lo, hi - y]), 0.0, None)
        ax.errorbar(x, y, yerr=yerr, fmt="o", color=color,
                    markersize=5, elinewidth=1.0, capsize=2.5, alpha=0.9,
                    label=label or "observed frequency (95 % Wilson interval)")
        width = upper - lower
        if single:
            hax.bar(lower, count, width=width, align="edge", color=color, alpha=0.55,
                    edgecolor="white", linewidth=0.5)
        else:
            hax.bar(lower, count, width=width, align="edge", fill=False, edgecolor=color,
                    linewidth=1.2)
    xlabel, ylabel = _view_labels(first, used_view)
    # a small margin keeps markers at 0 and 1 whole
    ax.set(xlim=(-0.02, 1.02), ylim=(-0.03, 1.03), ylabel=ylabel, aspect="auto")
    ax.set_title(f"Reliability diagram ({n_bins} {strategy} bins, "
                 f"{used_view.replace('_', '-')} view)", fontsize="medium")
    ax.tick_params(labelbottom=False)
    hax.set_xlabel(xlabel)
    hax.set_ylabel("rows per bin", fontsize="small")
    hax.tick_params(labelsize="small")
    _style(ax)
    _style(hax)
    _legend(ax, loc="upper left")
    return ax


# ------------------------------------------------------------------ calibration curve
def calibration_curve_plot(
    profile: ProfileData,
    *,
    view: str | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Smooth calibration curve (LOWESS) with its Local Calibration Score in the legend.

    Parameters
    ----------
    profile : ConfidenceProfile or mapping of group -> ConfidenceProfile
    view : {"top_label", "positive"}, optional
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        One line per group (``ax.lines`` after the diagonal), its label ending with
        ``LCS = ...``.

    Notes
    -----
    Curve and score from :func:`calreport.metrics.local.lowess_curve` and
    :func:`calreport.metrics.local.lcs` (003_0bfdaf07cce6c3a5.txt).  The smoother is
    unweighted: sample weights are not used here.

    Examples
    --------
    >>> import numpy as np
    >>> from calreport import ConfidenceProfile
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=300)
    >>> p = ConfidenceProfile.from_arrays((rng.uniform(size=300) < s).astype(int), s)
    >>> calibration_curve_plot(p).get_legend_handles_labels()[1][1].startswith("LCS")
    True
    """
    from calreport.metrics import local

    groups = _groups(profile)
    ax = _axes(ax, (6.4, 4.8))
    ax.plot([0, 1], [0, 1], label="perfect calibration", **_DIAGONAL)
    first = next(iter(groups.values()))
    used_view = view or first.default_view
    for i, (label, prof) in enumerate(groups.items()):
        score, outcome = prof.view(view)
        curve = local.lowess_curve(score, outcome)
        score_lcs = float(local.lcs(score, outcome))
        text = f"LCS = {score_lcs:.4f}" if math.isfinite(score_lcs) else "LCS undefined"
        text = f"{label} ({text})" if label else text
        ax.plot(np.asarray(curve.x), np.asarray(curve.y), color=_color(i), linewidth=1.8,
                label=text)
    xlabel, ylabel = _view_labels(first, used_view)
    ax.set(xlim=(0.0, 1.0), ylim=(0.0, 1.0), xlabel=xlabel, ylabel=ylabel)
    ax.set_title(f"Calibration curve (LOWESS, {used_view.replace('_', '-')} view)",
                 fontsize="medium")
    _style(ax)
    _legend(ax, loc="upper left")
    return ax


# ---------------------------------------------------------------- confidence histogram
def confidence_histogram(
    profile: ProfileData,
    *,
    bins: int = 20,
    ax: Axes | None = None,
) -> Axes:
    """Histogram of top-label confidence, stacked: correct below, errors on top.

    Vertical lines mark the accuracy and the mean confidence; a mean confidence right
    of the accuracy is overconfidence on average.

    Parameters
    ----------
    profile : ConfidenceProfile (or a mapping holding exactly one)
    bins : int, default 20
        Equal-width bins on [0, 1].
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.containers[0]`` are the bars of the correct predictions,
        ``ax.containers[1]`` those of the errors (heights = weighted counts).

    Examples
    --------
    >>> from calreport import ConfidenceProfile
    >>> p = ConfidenceProfile.from_arrays(conf=[0.6, 0.9, 0.95], correct=[1, 1, 0])
    >>> ax = confidence_histogram(p, bins=10)
    >>> float(ax.containers[1][-1].get_height())
    1.0
    """
    label, prof = _single(profile)
    bins = v.check_n_bins(bins)
    ax = _axes(ax, (6.4, 3.6))
    edges = np.linspace(0.0, 1.0, bins + 1)
    w = prof.sample_weight if prof.sample_weight is not None else np.ones(prof.n)
    ok = prof.correct
    h_ok, _ = np.histogram(prof.conf[ok], bins=edges, weights=w[ok])
    h_bad, _ = np.histogram(prof.conf[~ok], bins=edges, weights=w[~ok])
    width = np.diff(edges)
    ax.bar(edges[:-1], h_ok, width=width, align="edge", color=PALETTE[0], alpha=0.8,
           edgecolor="white", linewidth=0.5, label="correct")
    ax.bar(edges[:-1], h_bad, width=width, bottom=h_ok, align="edge", color=PALETTE[1],
           alpha=0.9, edgecolor="white", linewidth=0.5, label="error")
    acc = float(np.sum(w[ok]) / np.sum(w))
    mean_conf = float(np.sum(w * prof.conf) / np.sum(w))
    ax.axvline(acc, color="#111827", linestyle="-", linewidth=1.2,
               label=f"accuracy = {acc:.3f}")
    ax.axvline(mean_conf, color="#111827", linestyle=":", linewidth=1.5,
               label=f"mean confidence = {mean_conf:.3f}")
    lo = max(0.0, math.floor(float(prof.conf.min()) * bins) / bins)
    ax.set(xlim=(lo, 1.0), xlabel="Confidence in the predicted class",
           ylabel="rows" if prof.sample_weight is None else "weighted rows")
    ax.set_title("Confidence histogram" + (f": {label}" if label else ""), fontsize="medium")
    _style(ax)
    _legend(ax, loc="upper left")
    return ax


# ------------------------------------------------------------------------ ROC / cwROC
def _roc_class(prof: ConfidenceProfile, cls: Any) -> tuple[int, Any]:
    classes = prof.classes
    if cls is None:
        if prof.n_classes == 2:
            return 1, classes[1]
        raise ValueError(
            f"roc_plot: the problem has {prof.n_classes} classes; pass cls= one of "
            f"{list(classes.tolist())[:10]} (one-vs-rest curve of that class)."
        )
    keys = [v._key(c) for c in classes.tolist()]
    if v._key(cls) not in keys:
        raise ValueError(f"`cls` {cls!r} is not among the classes {list(classes.tolist())}.")
    k = keys.index(v._key(cls))
    return k, classes[k]


def roc_plot(
    profile: ProfileData,
    *,
    cls: Any = None,
    ax: Axes | None = None,
) -> Axes:
    """ROC curve and confidence-weighted ROC curve of one class (one-vs-rest).

    Parameters
    ----------
    profile : ConfidenceProfile or mapping of group -> ConfidenceProfile
        Needs true labels and class probabilities.
    cls : class label, optional
        The class whose one-vs-rest curves are drawn (default: the positive class of a
        binary problem; required for multiclass).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        Per group a solid ROC line (label ``... AUC = ...``) and a dashed cwROC line
        (label ``... cwAUC = ...``).

    Notes
    -----
    cwROC weights every row by its top-label confidence, so its area is cwAUC, the
    pair-weighted AUC of 000_efda01fc1c8d5c44.txt, Proposition 15; curves from
    :func:`calreport.metrics.ranking.roc_curve` and
    :func:`calreport.metrics.ranking.cw_roc_curve`, areas from
    :func:`calreport.metrics.ranking.auc_cwauc`.  Long curves are drawn through a
    subset of their points about 1/1000 apart.

    Examples
    --------
    >>> from calreport import ConfidenceProfile
    >>> p = ConfidenceProfile.from_arrays([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.7])
    >>> [t.split(" = ")[0] for t in roc_plot(p).get_legend_handles_labels()[1][1:]]
    ['ROC, AUC', 'cwROC, cwAUC']
    """
    from calreport.metrics import ranking

    groups = _groups(profile)
    ax = _axes(ax, (5.6, 4.8))
    ax.plot([0, 1], [0, 1], label="chance", **_DIAGONAL)
    shown = None
    for i, (label, prof) in enumerate(groups.items()):
        _need_labels(prof, "roc_plot")
        k, shown = _roc_class(prof, cls)
        y_bin = prof.y_true == k
        score = prof.proba[:, k]
        if y_bin.all() or not y_bin.any():
            continue
        fpr, tpr, _ = ranking.roc_curve(y_bin, score, weight=prof.sample_weight)
        cfpr, ctpr, _ = ranking.cw_roc_curve(y_bin, score, prof.conf,
                                             sample_weight=prof.sample_weight)
        per_auc, per_cw = ranking.auc_cwauc(prof.y_true, prof.proba, prof.conf,
                                            sample_weight=prof.sample_weight)
        auc, cwauc = float(per_auc[k]), float(per_cw[k])
        prefix = f"{label}: " if label else ""
        ax.plot(*_thin_curve(fpr, tpr), color=_color(i), linewidth=1.6,
                label=f"{prefix}ROC, AUC = {auc:.4f}")
        ax.plot(*_thin_curve(cfpr, ctpr), color=_color(i), linewidth=1.6, linestyle="--",
                label=f"{prefix}cwROC, cwAUC = {cwauc:.4f}")
    ax.set(xlim=(0.0, 1.0), ylim=(0.0, 1.0), xlabel="False positive rate",
           ylabel="True positive rate")
    ax.set_title(f"ROC and confidence-weighted ROC (class {_tex_safe(shown)})",
                 fontsize="medium")
    _style(ax)
    _legend(ax, loc="lower right")
    return ax


# ---------------------------------------------------------------------------- selective
_SELECTIVE_SERIES = (
    ("coverage", "coverage", "-"),
    ("selective_accuracy", "selective accuracy", "--"),
    ("cwsa", "CWSA", "-."),
    ("cwsa_plus", "CWSA+", ":"),
)


def selective_plot(
    profile: ProfileData,
    *,
    taus: Any = None,
    ax: Axes | None = None,
) -> Axes:
    """Coverage, selective accuracy, CWSA and CWSA+ against the threshold tau.

    Parameters
    ----------
    profile : ConfidenceProfile or mapping of group -> ConfidenceProfile
        Groups share a colour per group and a line style per quantity.
    taus : array-like, optional
        Thresholds in [0, 1).  Default: 50 values from 0.5 (or below the smallest
        confidence, in steps of 0.05) to 0.99.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        Four lines per group, labelled ``coverage``, ``selective accuracy``, ``CWSA``,
        ``CWSA+`` (prefixed by ``"<group>: "`` when several; the legends then show the
        group colours and the quantity line styles separately).

    Notes
    -----
    Sweep from :func:`calreport.metrics.selective.selective_sweep`
    (001_d2625f96c7f90dfa.txt, sections 3.2-3.3): ``S_tau = {c >= tau}``,
    ``phi(c) = (c - tau) / (1 - tau)``, CWSA = mean over S_tau of
    ``phi * (2 correct - 1)``, CWSA+ = mean of ``phi * correct``.

    Examples
    --------
    >>> from calreport import ConfidenceProfile
    >>> p = ConfidenceProfile.from_arrays(conf=[0.6, 0.9, 0.95], correct=[1, 1, 0])
    >>> [line.get_label() for line in selective_plot(p).lines][:4]
    ['coverage', 'selective accuracy', 'CWSA', 'CWSA+']
    """
    from calreport.metrics import selective

    groups = _groups(profile)
    ax = _axes(ax, (6.4, 4.4))
    if taus is None:
        low = min(float(p.conf.min()) for p in groups.values())
        taus = default_taus(low)
    several = len(groups) > 1
    lowest = 0.0
    for i, (label, prof) in enumerate(groups.items()):
        sweep = selective.selective_sweep(prof.conf, prof.correct, taus=taus,
                                          sample_weight=prof.sample_weight)
        tau = np.asarray(sweep["tau"], float)
        for j, (key, name, style) in enumerate(_SELECTIVE_SERIES):
            y = np.asarray(sweep[key], float)
            lowest = min(lowest, float(np.nanmin(y)) if np.isfinite(y).any() else 0.0)
            ax.plot(tau, y, color=_color(i if several else j), linestyle=style,
                    linewidth=1.5, label=f"{label}: {name}" if several else name)
    ax.set(xlim=(float(np.min(taus)), 1.0), xlabel="Confidence threshold τ", ylabel="value")
    ax.set_title("Selective prediction over τ", fontsize="medium")
    if lowest < 0:
        ax.axhline(0.0, color="#9ca3af", linewidth=0.8)
    _style(ax)
    if several:
        # one legend for the groups (colour), one for the quantities (line style)
        from matplotlib.lines import Line2D

        grp = [Line2D([], [], color=_color(i), linewidth=1.5) for i in range(len(groups))]
        first = ax.legend(grp, list(groups), fontsize="small", frameon=False,
                          loc="lower left")
        ax.add_artist(first)
        sty = [Line2D([], [], color="#374151", linestyle=st, linewidth=1.5)
               for _, _, st in _SELECTIVE_SERIES]
        ax.legend(sty, [n for _, n, _ in _SELECTIVE_SERIES], fontsize="small",
                  frameon=False, loc="lower center")
    else:
        _legend(ax, loc="lower left")
    return ax


def default_taus(min_conf: float = 0.5, n: int = 50) -> np.ndarray:
    """Threshold grid of :func:`selective_plot`: ``n`` values from 0.5 (or lower) to 0.99.

    Examples
    --------
    >>> default_taus(0.3, 3).tolist()
    [0.3, 0.645, 0.99]
    """
    low = min(0.5, math.floor(max(min_conf, 0.0) * 20.0) / 20.0)
    return np.linspace(low, 0.99, n)


# --------------------------------------------------------------------------------- risk
def _band_key(z: float) -> str:
    if math.isnan(z):
        return "undetermined"
    if z <= 1.0:
        return "none"
    return "evidence" if z <= 3.0 else "risky"


def _risks(data: Any) -> dict[str, Any]:
    from calreport.metrics import risk

    if isinstance(data, ConfidenceProfile):
        data = {"": data}
    if not isinstance(data, Mapping) or not data:
        raise TypeError("`risks` must be a non-empty mapping of group -> RiskResult "
                        "(or -> ConfidenceProfile).")
    out = {}
    for key, val in data.items():
        if isinstance(val, ConfidenceProfile):
            val = risk.risk_summary(val.conf, val.correct, sample_weight=val.sample_weight)
        out[_tex_safe(group_name(key))] = val
    return out


def risk_plot(
    risks: Mapping[Hashable, Any],
    *,
    ax: Axes | None = None,
) -> Axes:
    """Overconfidence z-score of each group against the 1-sigma and 3-sigma bands.

    Parameters
    ----------
    risks : mapping of group -> RiskResult (or -> ConfidenceProfile)
        Results of :func:`calreport.metrics.risk.risk_summary`; profiles are
        summarised with its defaults.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        One marker per group in ``ax.collections[0]``: x = z, y = group position
        (worst group on top); the y tick labels are the group names.

    Notes
    -----
    ``z = (CSR - 1) / sigma_CSR`` (000_efda01fc1c8d5c44.txt, section 2.1 and
    appendix A.2).  Bands: z <= 1 no evidence of overconfidence, 1 < z <= 3 evidence
    of overconfidence, z > 3 risky.

    Examples
    --------
    >>> from calreport import ConfidenceProfile
    >>> p = ConfidenceProfile.from_arrays(conf=[0.6, 0.9, 0.95], correct=[1, 1, 0])
    >>> risk_plot({"a": p}).get_yticklabels()[0].get_text()
    'a'
    """
    res = _risks(risks)
    order = sorted(res, key=lambda k: -_finite(res[k].z))
    ax = _axes(ax, (6.4, 1.6 + 0.5 * len(order)))
    zs = np.array([float(res[k].z) for k in order], float)
    finite = zs[np.isfinite(zs)]
    hi = max(4.0, float(finite.max()) * 1.12 if finite.size else 4.0)
    lo = min(-3.0, float(finite.min()) * 1.12 if finite.size else -3.0)
    ax.axvspan(lo, 1.0, color=_BAND_FILL["none"], zorder=0)
    ax.axvspan(1.0, 3.0, color=_BAND_FILL["evidence"], zorder=0)
    ax.axvspan(3.0, hi, color=_BAND_FILL["risky"], zorder=0)
    for x, text in ((1.0, "1σ"), (3.0, "3σ")):
        ax.axvline(x, color="#6b7280", linewidth=0.9, linestyle="--")
        ax.text(x, 1.0, f" {text}", transform=ax.get_xaxis_transform(), va="bottom",
                ha="center", fontsize="small", color="#374151")
    ypos = np.arange(len(order))[::-1].astype(float)
    colors = [BAND_COLORS[_band_key(z)] for z in zs]
    ax.scatter(np.where(np.isfinite(zs), zs, np.nan), ypos, c=colors, s=46, zorder=3,
               edgecolors="white", linewidths=0.8)
    for x, y, k in zip(zs, ypos, order, strict=True):
        if np.isfinite(x):
            ax.annotate(f"CSR {float(res[k].csr):.3f}", (x, y), xytext=(7, 0),
                        textcoords="offset points", va="center", fontsize="x-small",
                        color="#374151")
    ax.set_yticks(ypos, labels=[k or "all" for k in order])
    ax.set(xlim=(lo, hi), ylim=(-0.7, len(order) - 0.3),
           xlabel="z = (CSR − 1) / σ_CSR   (> 0: overconfident)")
    ax.set_title("Overconfidence risk by group", fontsize="medium", pad=14)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return ax


def _finite(z: float) -> float:
    z = float(z)
    return z if math.isfinite(z) else (-math.inf if math.isnan(z) else z)


def risk_drivers_plot(
    profile: ProfileData,
    *,
    ax: Axes | None = None,
) -> Axes:
    """Cumulative share of CSR carried by the most overconfident errors.

    Errors are sorted by their contribution ``1 / (1 - c)`` to CSR, largest first;
    the curve shows which share of the group's CSR its top-k errors carry.  A curve
    that rises steeply means a few confident errors drive the risk.

    Parameters
    ----------
    profile : ConfidenceProfile or mapping of group -> ConfidenceProfile
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        One line per group: x = number of errors (1..n_errors), y = cumulative share.

    Notes
    -----
    ``CSR = (1/N) sum_{i wrong} 1 / (1 - c_i)`` (000_efda01fc1c8d5c44.txt, section 2.1,
    Definition 2); contributions from :func:`calreport.metrics.risk.csr_contributions`.

    Examples
    --------
    >>> from calreport import ConfidenceProfile
    >>> p = ConfidenceProfile.from_arrays(conf=[0.6, 0.9, 0.5], correct=[0, 0, 1])
    >>> risk_drivers_plot(p).lines[0].get_ydata().round(3).tolist()
    [0.8, 1.0]
    """
    groups = _groups(profile)
    ax = _axes(ax, (6.4, 3.8))
    for i, (label, prof) in enumerate(groups.items()):
        share = cumulative_csr_share(prof)
        if share.size == 0:
            continue
        x = np.arange(1, share.size + 1, dtype=float)
        ax.plot(*_thin_curve(x, share), color=_color(i), linewidth=1.6,
                label=label or None, drawstyle="steps-post" if share.size < 60 else "default")
    ax.set(ylim=(0.0, 1.02), xlabel="errors, most overconfident first",
           ylabel="cumulative share of CSR")
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
    ax.set_title("What drives the risk: share of CSR from the top errors", fontsize="medium")
    _style(ax)
    _legend(ax, loc="lower right")
    return ax


def cumulative_csr_share(prof: ConfidenceProfile) -> np.ndarray:
    """Cumulative share of CSR of the errors sorted by decreasing contribution."""
    from calreport.metrics import risk

    contrib = np.asarray(risk.csr_contributions(prof.conf, prof.correct,
                                                sample_weight=prof.sample_weight), float)
    contrib = np.sort(contrib[contrib > 0])[::-1]
    total = contrib.sum()
    return np.cumsum(contrib) / total if total > 0 else contrib


# ------------------------------------------------------------------------ embedding
def _count_points(fig: Figure) -> int:
    n = 0
    for ax in fig.get_axes():
        n += sum(len(line.get_xdata()) for line in ax.lines)
        n += sum(len(c.get_offsets()) for c in ax.collections)
    return n


def figure_to_data_uri(fig: Figure, *, fmt: str = "auto", dpi: int = 200) -> str:
    """Encode a figure as a ``data:`` URI: SVG for line plots, PNG for dense scatters.

    The output is byte-identical for identical figures (fixed SVG hash salt, no
    date or software metadata), so reports are reproducible.

    Parameters
    ----------
    fig : matplotlib Figure
    fmt : {"auto", "svg", "png"}
        ``"auto"``: PNG when the figure holds more than :data:`DENSE_POINTS` data
        points, else SVG.
    dpi : int
        Resolution of PNG output.

    Returns
    -------
    str

    Examples
    --------
    >>> fig = Figure()
    >>> _ = fig.add_subplot().plot([0, 1], [0, 1])
    >>> figure_to_data_uri(fig)[:26]
    'data:image/svg+xml;base64,'
    """
    v.check_option(fmt, "fmt", ("auto", "svg", "png"))
    if fmt == "auto":
        fmt = "png" if _count_points(fig) > DENSE_POINTS else "svg"
    buf = io.BytesIO()
    # svg.hashsalt makes the SVG element ids deterministic; rc_context restores it.
    with matplotlib.rc_context({"svg.hashsalt": "calreport", "svg.fonttype": "path"}):
        if fmt == "svg":
            fig.savefig(buf, format="svg",
                        metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
            mime = "image/svg+xml"
        else:
            fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
            mime = "image/png"
    return f"data:{mime};base64,{base64.b64encode(buf.getvalue()).decode('ascii')}"


# ----------------------------------------------------------------------- the accessor
class CalibPlots:
    """The figures of one profile or of the groups of a GroupBy, as methods.

    ``df.calib.plot.reliability_diagram()`` and
    ``df.groupby(key).calib.plot.reliability_diagram()`` are this class.

    Parameters
    ----------
    profiles : callable returning a mapping, or a mapping of group -> ConfidenceProfile
        Called lazily, once per figure (the accessor holds no state).

    Examples
    --------
    >>> from calreport import ConfidenceProfile
    >>> p = ConfidenceProfile.from_arrays(conf=[0.6, 0.9, 0.95], correct=[1, 1, 0])
    >>> CalibPlots({"all": p}).confidence_histogram().get_title()
    'Confidence histogram'
    """

    def __init__(
        self,
        profiles: Callable[[], Mapping[Hashable, ConfidenceProfile]]
        | Mapping[Hashable, ConfidenceProfile],
    ) -> None:
        if not callable(profiles) and not isinstance(profiles, Mapping):
            raise TypeError("CalibPlots needs a mapping of group -> ConfidenceProfile or a "
                            "callable returning one.")
        self._source = profiles

    def _data(self, group: Hashable | None = None) -> ProfileData:
        profs = dict(self._source() if callable(self._source) else self._source)
        if group is not None:
            if group not in profs:
                raise KeyError(f"No group {group!r}; groups: {list(profs)[:20]}.")
            return profs[group]
        if len(profs) == 1 and next(iter(profs)) == "all":
            return next(iter(profs.values()))
        return profs

    def reliability_diagram(self, *, group: Hashable | None = None, **kwargs: Any) -> Axes:
        """:func:`reliability_diagram` of every group (or of ``group``)."""
        return reliability_diagram(self._data(group), **kwargs)

    def calibration_curve_plot(self, *, group: Hashable | None = None,
                               **kwargs: Any) -> Axes:
        """:func:`calibration_curve_plot` of every group (or of ``group``)."""
        return calibration_curve_plot(self._data(group), **kwargs)

    def confidence_histogram(self, *, group: Hashable | None = None, **kwargs: Any) -> Axes:
        """:func:`confidence_histogram` of ``group`` (needed when there are several)."""
        return confidence_histogram(self._data(group), **kwargs)

    def roc_plot(self, *, group: Hashable | None = None, **kwargs: Any) -> Axes:
        """:func:`roc_plot` of every group (or of ``group``)."""
        return roc_plot(self._data(group), **kwargs)

    def selective_plot(self, *, group: Hashable | None = None, **kwargs: Any) -> Axes:
        """:func:`selective_plot` of every group (or of ``group``)."""
        return selective_plot(self._data(group), **kwargs)

    def risk_plot(self, **kwargs: Any) -> Axes:
        """:func:`risk_plot` of every group."""
        data = self._data()
        return risk_plot({"all": data} if isinstance(data, ConfidenceProfile) else data,
                         **kwargs)

    def risk_drivers_plot(self, *, group: Hashable | None = None, **kwargs: Any) -> Axes:
        """:func:`risk_drivers_plot` of every group (or of ``group``)."""
        return risk_drivers_plot(self._data(group), **kwargs)
