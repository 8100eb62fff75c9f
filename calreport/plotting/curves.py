"""Ranking and selective figures: ROC vs confidence-weighted ROC, selective prediction."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D

from calreport import _labels as lab
from calreport.metrics import ranking, selective
from calreport.plotting._base import (
    _DIAGONAL,
    ProfileData,
    _axes,
    _color,
    _figure,
    _finish,
    _groups,
    _legend,
    _need_labels,
    _series_styles,
    _style,
    _tex_safe,
    _thin_curve,
)
from calreport.profile import ConfidenceProfile

__all__ = ["default_taus", "roc_plot", "selective_plot"]

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
    keys = [lab._key(c) for c in classes.tolist()]
    if lab._key(cls) not in keys:
        raise ValueError(f"`cls` {cls!r} is not among the classes {list(classes.tolist())}.")
    k = keys.index(lab._key(cls))
    return k, classes[k]


def roc_plot(
    profile: ProfileData,
    *,
    cls: Any = None,
    grey: Any = (),
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
    grey : sequence of group keys, optional
        Groups drawn as thin grey context lines.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        Per group a solid ROC line (label ``... AUC = ...``) and a dashed cwROC line
        (label ``... cwAUC = ...``).

    Notes
    -----
    cwROC weights every row by its top-label confidence, so its area is cwAUC, the
    pair-weighted AUC (Martin-Maroto et al. 2026, Proposition 15); curves from
    :func:`calreport.metrics.ranking.roc_curve` and
    :func:`calreport.metrics.ranking.cw_roc_curve`, areas from
    :func:`calreport.metrics.ranking.auc_cwauc`.  Long curves are drawn through a
    subset of their points about 1/1000 apart.

    References
    ----------
    Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond
    ECE: Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics.
    arXiv:2605.01796. Appendix A.3, Proposition 15.

    Examples
    --------
    >>> from calreport import ConfidenceProfile
    >>> p = ConfidenceProfile.from_arrays([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.7])
    >>> [t.split(" = ")[0] for t in roc_plot(p).get_legend_handles_labels()[1][1:]]
    ['ROC, AUC', 'cwROC, cwAUC']
    """
    groups = _groups(profile)
    ax = _axes(ax, (5.6, 4.8))
    ax.plot([0, 1], [0, 1], label="chance", **_DIAGONAL)
    shown = None
    styles = _series_styles(groups, grey)
    for label, prof in groups.items():
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
        st = styles[label]
        ax.plot(*_thin_curve(fpr, tpr), label=f"{prefix}ROC, AUC = {auc:.4f}", **st)
        ax.plot(*_thin_curve(cfpr, ctpr), linestyle="--",
                label=f"{prefix}cwROC, cwAUC = {cwauc:.4f}", **st)
    ax.set(xlim=(0.0, 1.0), ylim=(0.0, 1.0), xlabel="False positive rate",
           ylabel="True positive rate")
    _finish(ax, f"ROC and confidence-weighted ROC (class {_tex_safe(shown)})",
            len(groups) == 1, loc="lower right")
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
    grey: Any = (),
    ax: Axes | None = None,
) -> Axes:
    """Coverage, selective accuracy, CWSA and CWSA+ against the threshold tau.

    One profile: the four quantities on one axes.  Several groups: small multiples,
    one panel per quantity with one line per group (colour = group), so the figure
    stays legible for any number of groups.

    Parameters
    ----------
    profile : ConfidenceProfile or mapping of group -> ConfidenceProfile
    taus : array-like, optional
        Thresholds in [0, 1).  Default: 50 values from 0.5 (or below the smallest
        confidence, in steps of 0.05) to 0.99.
    grey : sequence of group keys, optional
        Groups drawn as thin grey context lines.
    ax : matplotlib Axes, optional
        Where to draw (for several groups, the panels replace it in its figure).

    Returns
    -------
    matplotlib.axes.Axes
        Lines labelled ``coverage``, ``selective accuracy``, ``CWSA``, ``CWSA+``
        (``"<group>: <quantity>"`` when several; then this is the first of the four
        panels and ``ax.figure.axes`` holds them all).

    Notes
    -----
    Sweep from :func:`calreport.metrics.selective.selective_sweep`:
    ``S_tau = {c >= tau}``, ``phi(c) = (c - tau) / (1 - tau)``, CWSA = mean over S_tau
    of ``phi * (2 correct - 1)``, CWSA+ = mean of ``phi * correct``.

    References
    ----------
    Shahnazari, K., Ayyoubzadeh, S. M., Keshtparvar, M. & Ghaffari, P. (2025). Trust,
    or Don't Predict: Introducing the CWSA Family for Confidence-Aware Model
    Evaluation. arXiv:2505.18622. Sections 3.2-3.3.

    Examples
    --------
    >>> from calreport import ConfidenceProfile
    >>> p = ConfidenceProfile.from_arrays(conf=[0.6, 0.9, 0.95], correct=[1, 1, 0])
    >>> [line.get_label() for line in selective_plot(p).lines][:4]
    ['coverage', 'selective accuracy', 'CWSA', 'CWSA+']
    """
    groups = _groups(profile)
    if taus is None:
        low = min(float(p.conf.min()) for p in groups.values())
        taus = default_taus(low)
    several = len(groups) > 1
    sweeps = {label: selective.selective_sweep(prof.conf, prof.correct, taus=taus,
                                               sample_weight=prof.sample_weight)
              for label, prof in groups.items()}
    if not several:
        ax = _axes(ax, (6.4, 4.4))
        (label, sweep), = sweeps.items()
        lowest = 0.0
        for j, (key, name, style) in enumerate(_SELECTIVE_SERIES):
            y = np.asarray(sweep[key], float)
            lowest = min(lowest, float(np.nanmin(y)) if np.isfinite(y).any() else 0.0)
            ax.plot(np.asarray(sweep["tau"], float), y, color=_color(j), linestyle=style,
                    linewidth=1.5, label=name)
        _selective_axes(ax, taus, lowest, "Selective prediction over τ")
        _legend(ax, loc="lower left")
        return ax
    if ax is None:
        fig = _figure((7.6, 5.4))
        grid = fig.add_gridspec(2, 2)
    else:
        fig = ax.figure
        grid = ax.get_subplotspec().subgridspec(2, 2)
        ax.remove()
    panels = [fig.add_subplot(grid[k // 2, k % 2]) for k in range(4)]
    styles = _series_styles(groups, grey)
    for panel, (key, name, _) in zip(panels, _SELECTIVE_SERIES, strict=True):
        lowest = 0.0
        for label, sweep in sweeps.items():
            y = np.asarray(sweep[key], float)
            lowest = min(lowest, float(np.nanmin(y)) if np.isfinite(y).any() else 0.0)
            panel.plot(np.asarray(sweep["tau"], float), y, label=f"{label}: {name}",
                       **styles[label])
        _selective_axes(panel, taus, lowest, name)
        panel.set_xlabel("τ", fontsize="small")
        panel.tick_params(labelsize="small")
    handles = [Line2D([], [], **styles[label]) for label in groups]
    fig.legend(handles, list(groups), fontsize="small", frameon=False, loc="outside right upper")
    return panels[0]


def _selective_axes(ax: Axes, taus: Any, lowest: float, title: str) -> None:
    ax.set(xlim=(float(np.min(taus)), 1.0), xlabel="Confidence threshold τ")
    ax.set_title(title, fontsize="medium")
    if lowest < 0:
        ax.axhline(0.0, color="#9ca3af", linewidth=0.8)
    _style(ax)


def default_taus(min_conf: float = 0.5, n: int = 50) -> np.ndarray:
    """Threshold grid of :func:`selective_plot`: ``n`` values from 0.5 (or lower) to 0.99.

    Examples
    --------
    >>> default_taus(0.3, 3).tolist()
    [0.3, 0.645, 0.99]
    """
    low = min(0.5, math.floor(max(min_conf, 0.0) * 20.0) / 20.0)
    return np.linspace(low, 0.99, n)
