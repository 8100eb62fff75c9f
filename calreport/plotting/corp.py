"""CORP reliability diagram and Murphy diagram.

The CORP diagram (Dimitriadis, Gneiting & Jordan 2021) is the isotonic (PAV)
recalibration of the scores: no bin count or width to choose, with a consistency
band that shows how far a calibrated model's curve strays at this sample size.
The Murphy diagram (Ehm, Gneiting, Jordan & Krüger 2016) compares models at every
cost ratio at once: the mean elementary score over decision thresholds θ.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes

from calreport.metrics import corp, murphy
from calreport.plotting._base import (
    _DIAGONAL,
    GREY,
    ProfileData,
    _axes,
    _finish,
    _groups,
    _series_styles,
    _view_labels,
)

__all__ = ["corp_caption", "corp_diagram", "murphy_diagram_plot"]

#: The consistency band is drawn for at most this many coloured series (else clutter).
BAND_SERIES = 1


def corp_diagram(
    profile: ProfileData,
    *,
    view: str | None = None,
    band: bool | None = None,
    level: float = 0.9,
    n_boot: int = 200,
    seed: int = 0,
    grey: Any = (),
    ax: Axes | None = None,
) -> Axes:
    """CORP reliability diagram: the PAV recalibration curve of each series.

    Parameters
    ----------
    profile : ConfidenceProfile or mapping of group -> ConfidenceProfile
    view : {"top_label", "positive"}, optional
    band : bool, optional
        Draw the consistency band (outcomes resampled under calibration, y* ~
        Bernoulli(score)); default: when one coloured series is drawn.
    level, n_boot, seed
        Level, replicates and seed of the consistency band.
    grey : sequence of group keys, optional
        Groups drawn as thin grey context lines.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        One step line per series; the legend gives its CORP miscalibration (MCB) and
        discrimination (DSC) terms of the Brier score.

    References
    ----------
    Dimitriadis, T., Gneiting, T. & Jordan, A. I. (2021). Stable Reliability Diagrams
    for Probabilistic Classifiers. PNAS 118(8), e2016191118.
    doi:10.1073/pnas.2016191118.

    Examples
    --------
    >>> import numpy as np
    >>> from calreport import ConfidenceProfile
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=300)
    >>> p = ConfidenceProfile.from_arrays((rng.uniform(size=300) < s).astype(int), s)
    >>> "MCB" in corp_diagram(p, n_boot=20).get_legend_handles_labels()[1][-1]
    True
    """
    groups = _groups(profile)
    ax = _axes(ax, (6.4, 4.8))
    first = next(iter(groups.values()))
    used_view = view or first.default_view
    styles = _series_styles(groups, grey)
    coloured = [g for g, st in styles.items() if st["color"] != GREY]
    draw_band = (len(coloured) <= BAND_SERIES) if band is None else band
    if draw_band and coloured:
        prof = groups[coloured[0]]
        score, _ = prof.view(view)
        cb = corp.consistency_band(score, sample_weight=prof.sample_weight, level=level,
                                   n_boot=n_boot, seed=seed)
        ax.fill_between(np.asarray(cb.x), np.asarray(cb.low), np.asarray(cb.high),
                        color="#9ca3af", alpha=0.35, linewidth=0, step="post",
                        label=f"{100 * level:g} % consistency band (calibrated model)")
    ax.plot([0, 1], [0, 1], label="perfect calibration", **_DIAGONAL)
    for label, prof in groups.items():
        score, outcome = prof.view(view)
        curve = corp.corp_curve(score, outcome, sample_weight=prof.sample_weight)
        dec = corp.corp_decomposition(score, outcome, sample_weight=prof.sample_weight)
        text = f"MCB {dec.mcb:.4f}, DSC {dec.dsc:.4f}"
        text = f"{label} ({text})" if label else text
        ax.step(np.asarray(curve.x), np.asarray(curve.y), where="post", label=text,
                **styles[label])
    xlabel, ylabel = _view_labels(first, used_view)
    ax.set(xlim=(0.0, 1.0), ylim=(0.0, 1.0), xlabel=xlabel, ylabel=ylabel)
    _finish(ax, f"CORP reliability diagram ({used_view.replace('_', '-')} view)",
            len(groups) == 1)
    return ax


def corp_caption(view: str, level: float = 0.9, band: bool = True) -> str:
    """The caption of the CORP diagram, right for both views."""
    what = ("positive-class probability against the observed frequency of the positive "
            "class" if view == "positive" else
            "confidence in the predicted class against the observed accuracy")
    side = ("Below the diagonal the model gives the positive class more probability than "
            "it has (too high), above it too little" if view == "positive" else
            "Below the diagonal the model is overconfident, above it underconfident")
    text = (f"Isotonic (PAV) recalibration of the {what}: no binning choice. {side}. "
            "The legend gives the CORP terms of the Brier score, S = MCB − DSC + UNC "
            "(miscalibration, discrimination, uncertainty).")
    if band:
        text += (f" Grey: where a calibrated model's curve falls {100 * level:g} % of "
                 "the time at this sample size; a curve leaving the band is a finding.")
    return text


def murphy_diagram_plot(
    profile: ProfileData,
    *,
    view: str | None = None,
    n_theta: int = 199,
    grey: Any = (),
    ax: Axes | None = None,
) -> Axes:
    """Murphy diagram: the mean elementary score of each series over thresholds θ.

    A lower curve is better at that cost ratio; a series lower everywhere dominates
    the other for every decision maker.  The area under a curve is half the Brier
    score.

    Parameters
    ----------
    profile : ConfidenceProfile or mapping of group -> ConfidenceProfile
    view : {"top_label", "positive"}, optional
    n_theta : int, default 199
        Thresholds on (0, 1).
    grey : sequence of group keys, optional
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    References
    ----------
    Ehm, W., Gneiting, T., Jordan, A. & Krüger, F. (2016). Of Quantiles and Expectiles:
    Consistent Scoring Functions, Choquet Representations and Forecast Rankings.
    JRSS-B 78(3), 505-562. doi:10.1111/rssb.12154.

    Examples
    --------
    >>> import numpy as np
    >>> from calreport import ConfidenceProfile
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=300)
    >>> p = ConfidenceProfile.from_arrays((rng.uniform(size=300) < s).astype(int), s)
    >>> len(murphy_diagram_plot(p).lines)
    1
    """
    groups = _groups(profile)
    ax = _axes(ax, (6.4, 4.4))
    first = next(iter(groups.values()))
    used_view = view or first.default_view
    styles = _series_styles(groups, grey)
    for label, prof in groups.items():
        score, outcome = prof.view(view)
        md = murphy.murphy_diagram(score, outcome, n_theta=n_theta,
                                   sample_weight=prof.sample_weight)
        ax.plot(np.asarray(md.theta), np.asarray(md.score), label=label or None,
                **styles[label])
    ax.set(xlim=(0.0, 1.0), xlabel="threshold θ (cost of a false alarm relative to a miss)",
           ylabel="mean elementary score (lower is better)")
    ax.set_ylim(bottom=0.0)
    _finish(ax, f"Murphy diagram ({used_view.replace('_', '-')} view)", len(groups) == 1,
            loc=None)
    return ax
