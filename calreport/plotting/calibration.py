"""Calibration figures: reliability diagram, LOWESS calibration curve, confidence histogram."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from matplotlib.axes import Axes

from calreport import _validate as v
from calreport.metrics import binned, local, local_band
from calreport.plotting._base import (
    _DIAGONAL,
    PALETTE,
    ProfileData,
    _axes,
    _finish,
    _groups,
    _legend,
    _series_styles,
    _single,
    _style,
    _view_labels,
)

__all__ = ["confidence_histogram", "lowess_curve_plot",
           "reliability_caption", "reliability_diagram"]

# ----------------------------------------------------------------- reliability diagram
def reliability_diagram(
    profile: ProfileData,
    *,
    view: str | None = None,
    n_bins: int = 15,
    strategy: str = "uniform",
    grey: Any = (),
    ax: Axes | None = None,
) -> Axes:
    """Reliability diagram: per-bin observed frequency against mean score, with counts.

    Each non-empty bin is a point at (mean score, observed frequency) with its Wilson
    interval, its area proportional to the rows in the bin; the dashed diagonal is
    perfect calibration.  Underneath, a bar chart shows how many rows fall in each
    bin; it is ``ax.child_axes[0]``.  See :func:`reliability_caption` for how to
    read it in each view.

    Parameters
    ----------
    profile : ConfidenceProfile or mapping of group -> ConfidenceProfile
        One series per group.
    view : {"top_label", "positive"}, optional
        Calibration view (default: the profile's, positive class for binary input).
    n_bins : int, default 15
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width or equal-mass bins.
    grey : sequence of group keys, optional
        Groups drawn as grey context (e.g. "all other groups"), without intervals.
    ax : matplotlib Axes, optional
        Where to draw; a new Figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        The main axes; the points of each series are ``ax.collections`` labelled
        with the group name (offsets = (mean score, observed frequency), sizes
        proportional to the bin counts).

    Notes
    -----
    The table is :func:`calreport.metrics.binned.reliability_table`; sample weights
    are used when present.

    References
    ----------
    Naeini, M. P., Cooper, G. F. & Hauskrecht, M. (2015). Obtaining Well Calibrated
    Probabilities Using Bayesian Binning. AAAI 29. doi:10.1609/aaai.v29i1.9602.
    Wilson, E. B. (1927). Probable Inference, the Law of Succession, and Statistical
    Inference. JASA 22(158), 209-212. doi:10.1080/01621459.1927.10502953.

    Examples
    --------
    >>> from calreport import ConfidenceProfile
    >>> p = ConfidenceProfile.from_arrays([0, 1, 1, 0, 1], [0.1, 0.8, 0.6, 0.4, 0.9])
    >>> ax = reliability_diagram(p, n_bins=5)
    >>> ax.get_ylabel()
    'Observed frequency of 1'
    """
    groups = _groups(profile)
    n_bins = v.check_n_bins(n_bins)
    v.check_option(strategy, "strategy", ("uniform", "quantile"))
    ax = _axes(ax, (6.4, 5.6))
    hax = ax.inset_axes((0.0, -0.42, 1.0, 0.26), sharex=ax)
    ax.plot([0, 1], [0, 1], label="perfect calibration", **_DIAGONAL)
    single = len(groups) == 1
    first = next(iter(groups.values()))
    used_view = view or first.default_view
    styles = _series_styles(groups, grey)
    tables = {}
    for label, prof in groups.items():
        score, outcome = prof.view(view)
        tables[label] = binned.reliability_table(score, outcome, n_bins=n_bins,
                                                 strategy=strategy,
                                                 sample_weight=prof.sample_weight)
    biggest = max(float(np.max(np.asarray(t.count, float), initial=0.0))
                  for t in tables.values()) or 1.0
    for label, t in tables.items():
        st = styles[label]
        context = st["zorder"] == 1
        lower, upper = np.asarray(t.lower, float), np.asarray(t.upper, float)
        count = np.asarray(t.count, float)
        ok = count > 0
        x = np.asarray(t.mean_score, float)[ok]
        y = np.asarray(t.mean_outcome, float)[ok]
        lo = np.asarray(t.ci_low, float)[ok]
        hi = np.asarray(t.ci_high, float)[ok]
        # marker area proportional to the rows of the bin: near-empty bins stay small
        sizes = 8.0 + 110.0 * count[ok] / biggest
        if not context:
            # clip float noise: the Wilson interval contains the bin's mean
            yerr = np.clip(np.vstack([y - lo, hi - y]), 0.0, None)
            ax.errorbar(x, y, yerr=yerr, fmt="none", ecolor=st["color"], elinewidth=1.0,
                        capsize=2.0, alpha=0.8, zorder=st["zorder"],
                        label=f"_{label or 'observed'} intervals")
        # points only: a line through sparse bins suggests a trend the data lack
        ax.scatter(x, y, s=sizes, color=st["color"], alpha=0.85 if not context else 0.6,
                   edgecolors="white", linewidths=0.5, zorder=st["zorder"] + 1,
                   label=label or "observed frequency (95 % Wilson interval)")
        width = upper - lower
        if single:
            hax.bar(lower, count, width=width, align="edge", color=st["color"], alpha=0.55,
                    edgecolor="white", linewidth=0.5)
        else:
            hax.bar(lower, count, width=width, align="edge", fill=False,
                    edgecolor=st["color"], linewidth=1.2 if not context else 0.8)
    xlabel, ylabel = _view_labels(first, used_view)
    # a small margin keeps markers at 0 and 1 whole
    ax.set(xlim=(-0.02, 1.02), ylim=(-0.03, 1.03), ylabel=ylabel, aspect="auto")
    ax.tick_params(labelbottom=False)
    hax.set_xlabel(xlabel)
    hax.set_ylabel("rows per bin", fontsize="small")
    hax.tick_params(labelsize="small")
    _style(hax)
    _finish(ax, f"Reliability diagram ({n_bins} {strategy} bins, "
            f"{used_view.replace('_', '-')} view)", single)
    return ax


def reliability_caption(view: str, n_bins: int, strategy: str) -> str:
    """How to read the reliability diagram in a view (the report's caption).

    In the top-label view a point below the diagonal is overconfidence.  In the
    positive-class view it is not that simple: below the diagonal the positive class
    occurs less often than predicted, which is overconfidence for scores above 0.5
    (the predicted class is the positive one) but underconfidence for scores below
    0.5, where points *above* the diagonal are overconfident.

    Examples
    --------
    >>> "above 0.5" in reliability_caption("positive", 10, "uniform")
    True
    """
    head = (f"Observed frequency against mean score in {n_bins} {strategy} bins with 95 % "
            "Wilson intervals; a point's area is proportional to the rows in its bin, and "
            "the bars underneath count them. ")
    if view == "positive":
        return head + (
            "Positive-class view: below the diagonal the positive class occurs less often "
            "than predicted. For scores above 0.5 (positive predictions) that is "
            "overconfidence; for scores below 0.5 (negative predictions) points above the "
            "diagonal are overconfident, points below it underconfident.")
    return head + ("Top-label view: points below the diagonal are overconfident (accuracy "
                   "below confidence), points above it underconfident.")


# ------------------------------------------------------------------ calibration curve
def lowess_curve_plot(
    profile: ProfileData,
    *,
    view: str | None = None,
    grey: Any = (),
    band: bool | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Smooth calibration curve (LOWESS) with its Local Calibration Score in the legend.

    A LOWESS smoother (scikit-learn's ``calibration_curve`` is the binned curve:
    :func:`reliability_diagram`).

    Parameters
    ----------
    profile : ConfidenceProfile or mapping of group -> ConfidenceProfile
    view : {"top_label", "positive"}, optional
    grey : sequence of group keys, optional
        Groups drawn as thin grey context lines.
    band : bool, optional
        Draw the 95 % bootstrap band of the curve (span adapted to n, see
        :func:`calreport.metrics.local_band.lowess_band`); grid regions with fewer
        than 10 scores nearby are left out of the band.  Default: when one coloured
        series is drawn.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        One line per group (``ax.lines`` after the diagonal), its label ending with
        ``LCS = ...``.

    Notes
    -----
    Curve and score from :func:`calreport.metrics.local.lowess_curve` and
    :func:`calreport.metrics.local.lcs`.  The smoother is unweighted: sample weights
    are not used here.

    References
    ----------
    Fernandes Machado, A., Charpentier, A., Flachaire, E., Gallic, E. & Hu, F. (2024).
    From Uncertainty to Precision: Enhancing Binary Classifier Performance through
    Calibration. arXiv:2402.07790. Local Calibration Score.

    Examples
    --------
    >>> import numpy as np
    >>> from calreport import ConfidenceProfile
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=300)
    >>> p = ConfidenceProfile.from_arrays((rng.uniform(size=300) < s).astype(int), s)
    >>> lowess_curve_plot(p).get_legend_handles_labels()[1][1].startswith("LCS")
    True
    """
    groups = _groups(profile)
    ax = _axes(ax, (6.4, 4.8))
    ax.plot([0, 1], [0, 1], label="perfect calibration", **_DIAGONAL)
    first = next(iter(groups.values()))
    used_view = view or first.default_view
    styles = _series_styles(groups, grey)
    for label, prof in groups.items():
        score, outcome = prof.view(view)
        # the drawn curve uses the span adapted to n (the band's); LCS is the metric
        curve = local.lowess_curve(score, outcome, frac="auto")
        score_lcs = float(local.lcs(score, outcome))
        text = f"LCS = {score_lcs:.4f}" if math.isfinite(score_lcs) else "LCS undefined"
        text = f"{label} ({text})" if label else text
        st = styles[label]
        ax.plot(np.asarray(curve.x), np.asarray(curve.y), label=text, **st)
    coloured = [g for g, st in styles.items() if st["alpha"] == 1.0]
    if (len(coloured) == 1 if band is None else band) and coloured:
        score, outcome = groups[coloured[0]].view(view)
        b = local_band.lowess_band(score, outcome, seed=0)
        low = np.where(np.asarray(b.sparse), np.nan, np.asarray(b.low))
        high = np.where(np.asarray(b.sparse), np.nan, np.asarray(b.high))
        ax.fill_between(np.asarray(b.x), low, high, color=styles[coloured[0]]["color"],
                        alpha=0.18, linewidth=0,
                        label=f"95 % band (span {b.frac:.2f}; cut where < 10 scores)",
                        zorder=0)
    xlabel, ylabel = _view_labels(first, used_view)
    ax.set(xlim=(0.0, 1.0), ylim=(0.0, 1.0), xlabel=xlabel, ylabel=ylabel)
    _finish(ax, f"Calibration curve (LOWESS, {used_view.replace('_', '-')} view)",
            len(groups) == 1)
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
