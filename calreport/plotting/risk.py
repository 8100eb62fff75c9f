"""Risk figures: overconfidence z by group, share of CSR carried by the top errors."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.ticker import FuncFormatter
from scipy import special

from calreport._engine import Collector
from calreport._grouping import group_name
from calreport.metrics import risk
from calreport.plotting._base import (
    BAND_COLORS,
    BAND_FILLS,
    GREY,
    ProfileData,
    _axes,
    _finish,
    _groups,
    _series_styles,
    _tex_safe,
    _thin_curve,
    band_key,
    z_band,
)
from calreport.profile import ConfidenceProfile

__all__ = ["cumulative_csr_share", "risk_drivers_plot", "risk_plot"]

# --------------------------------------------------------------------------------- risk
def _risks(data: Any) -> dict[str, Any]:
    if isinstance(data, ConfidenceProfile):
        data = {"": data}
    if not isinstance(data, Mapping) or not data:
        raise TypeError("`risks` must be a non-empty mapping of group -> RiskResult "
                        "(or -> ConfidenceProfile).")
    # the groups' warnings (clipped confidences) once, with the groups named
    collector = Collector()
    out = {}
    for key, val in data.items():
        if isinstance(val, ConfidenceProfile):
            # seed 0, as the accessors' default: the same figure on every call
            val = collector.run(group_name(key), lambda p=val: risk.risk_summary(
                p.conf, p.correct, sample_weight=p.sample_weight, seed=0))
        out[_tex_safe(group_name(key))] = val
    collector.flush(len(data))
    return out


def risk_plot(
    risks: Mapping[Hashable, Any],
    *,
    top: int = 25,
    ax: Axes | None = None,
) -> Axes:
    """Each group's P_risk on the z scale against the 1-sigma and 3-sigma bands.

    A group sits at ``Phi^{-1}(P_risk)`` — its z under the normal reading, and the
    z-equivalent of a simulated P_risk otherwise — so the bands drawn are the rule
    that decides the verdict (:data:`calreport.metrics.risk.BAND_RULE`); a verdict
    adjusted for the number of groups sits at its adjusted P_risk.  The ``top`` groups
    with the highest P_risk get a labelled row each (worst on top,
    marker in the colour of the group's band); the others share one last row as a
    strip of small markers, so the figure stays legible for hundreds of groups.  The
    height grows with the number of rows.

    Parameters
    ----------
    risks : mapping of group -> RiskResult (or -> ConfidenceProfile)
        Results of :func:`calreport.metrics.risk.risk_summary`; profiles are
        summarised with its defaults.  A result's own ``band`` (which also judges
        certainty claims) colours its marker.
    top : int, default 25
        Groups drawn on their own row.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        The labelled groups' markers in ``ax.collections[0]``: x = Phi^{-1}(P_risk),
        y = row (worst group on top); the y tick labels are the group names.  The other groups, when
        any, are ``ax.collections[1]``.

    Notes
    -----
    ``z = (CSR - 1) / sigma_CSR`` and ``P_risk = Phi(z)`` under the normal reading;
    P_risk > Phi(1) is evidence of overconfidence, > Phi(3) risky.  P_risk is clipped
    to [1e-9, 1 - 1e-9] (x within +-6) so that a certain verdict stays on the axis.

    References
    ----------
    Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond
    ECE: Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics.
    arXiv:2605.01796. Section 2.1 and appendix A.2.

    Examples
    --------
    >>> from calreport import ConfidenceProfile
    >>> p = ConfidenceProfile.from_arrays(conf=[0.6, 0.9, 0.95], correct=[1, 1, 0])
    >>> risk_plot({"a": p}).get_yticklabels()[0].get_text()
    'a'
    """
    if not isinstance(top, (int, np.integer)) or top < 1:
        raise ValueError(f"`top` must be a positive integer, got {top!r}.")
    res = _risks(risks)
    order = sorted(res, key=lambda k: -_finite(_z(res[k])))
    shown, rest = order[:top], order[top:]
    n_rows = len(shown) + (1 if rest else 0)
    ax = _axes(ax, (6.4, 1.5 + 0.24 * n_rows))
    zs = np.array([_z(res[k]) for k in order], float)
    finite = zs[np.isfinite(zs)]
    hi = max(4.0, float(finite.max()) * 1.12 if finite.size else 4.0)
    lo = min(-3.0, float(finite.min()) * 1.12 if finite.size else -3.0)
    ax.axvspan(lo, 1.0, color=BAND_FILLS["no_evidence"], zorder=0)
    ax.axvspan(1.0, 3.0, color=BAND_FILLS["evidence"], zorder=0)
    ax.axvspan(3.0, hi, color=BAND_FILLS["risky"], zorder=0)
    for x, text in ((1.0, "1σ"), (3.0, "3σ")):
        ax.axvline(x, color="#6b7280", linewidth=0.9, linestyle="--")
        ax.text(x, 1.0, f" {text}", transform=ax.get_xaxis_transform(), va="bottom",
                ha="center", fontsize="small", color="#374151")
    ypos = np.arange(n_rows)[::-1].astype(float)
    z_shown = zs[:len(shown)]
    colors = [BAND_COLORS.get(_band(res[k]), GREY) for k in shown]
    ax.scatter(np.where(np.isfinite(z_shown), z_shown, np.nan), ypos[:len(shown)], c=colors,
               s=40, zorder=3, edgecolors="white", linewidths=0.8)
    for x, y, k in zip(z_shown, ypos, shown, strict=False):
        if np.isfinite(x):
            ax.annotate(f"CSR {float(res[k].csr):.3f}", (x, y), xytext=(7, 0),
                        textcoords="offset points", va="center", fontsize="x-small",
                        color="#374151")
    labels = [k or "all" for k in shown]
    if rest:
        z_rest = zs[len(shown):]
        # a deterministic jitter spreads the strip vertically within its row
        jitter = (np.arange(z_rest.size) % 7 - 3) * 0.07
        ax.scatter(np.where(np.isfinite(z_rest), z_rest, np.nan), ypos[-1] + jitter,
                   c=[BAND_COLORS.get(_band(res[k]), GREY) for k in rest], s=9, alpha=0.6,
                   zorder=2, linewidths=0)
        labels.append(f"other {len(rest)} groups")
    ax.set_yticks(ypos, labels=labels)
    ax.tick_params(axis="y", labelsize="small" if n_rows > 12 else "medium")
    adjusted = any(getattr(res[k], "adjust", "") for k in order)
    what = "adjusted P_risk" if adjusted else "P_risk"
    ax.set(xlim=(lo, hi), ylim=(-0.7, n_rows - 0.3),
           xlabel=f"{what} on the z scale, Φ⁻¹({what})   (= z under the normal reading)")
    ax.set_title("Overconfidence risk by group", fontsize="medium", pad=14)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return ax


#: P_risk is clipped to this distance from 0 and 1 before Phi^{-1} (x within +-6).
_P_CLIP = 1e-9


def _z(r: Any) -> float:
    """Phi^{-1} of the P_risk that decides the band (adjusted when adjusted)."""
    p = (getattr(r, "p_risk_adjusted", math.nan) if getattr(r, "adjust", "")
         else getattr(r, "p_risk", math.nan))
    p = float(p)
    if math.isnan(p):
        return math.nan
    return float(special.ndtri(min(max(p, _P_CLIP), 1.0 - _P_CLIP)))


def _band(r: Any) -> str:
    band = getattr(r, "band_adjusted", "") or getattr(r, "band", None)
    return band_key(band) if band else z_band(_z(r))


def _finite(z: float) -> float:
    z = float(z)
    return z if math.isfinite(z) else (-math.inf if math.isnan(z) else z)


def risk_drivers_plot(
    profile: ProfileData,
    *,
    grey: Any = (),
    ax: Axes | None = None,
) -> Axes:
    """Cumulative share of CSR carried by the most overconfident errors.

    Errors are sorted by their contribution ``1 / (1 - c)`` to CSR, largest first;
    the curve shows which share of the group's CSR its top-k errors carry.  A curve
    that rises steeply means a few confident errors drive the risk.

    Parameters
    ----------
    profile : ConfidenceProfile or mapping of group -> ConfidenceProfile
    grey : sequence of group keys, optional
        Groups drawn as thin grey context lines (not in the legend).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        One line per group: x = number of errors (1..n_errors), y = cumulative share.

    Notes
    -----
    ``CSR = (1/N) sum_{i wrong} 1 / (1 - c_i)``; contributions from
    :func:`calreport.metrics.risk.csr_contributions`.

    References
    ----------
    Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond
    ECE: Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics.
    arXiv:2605.01796. Section 2.1, Definition 2.

    Examples
    --------
    >>> from calreport import ConfidenceProfile
    >>> p = ConfidenceProfile.from_arrays(conf=[0.6, 0.9, 0.5], correct=[0, 0, 1])
    >>> risk_drivers_plot(p).lines[0].get_ydata().round(3).tolist()
    [0.8, 1.0]
    """
    groups = _groups(profile)
    ax = _axes(ax, (6.4, 3.8))
    styles = _series_styles(groups, grey)
    context = []  # grey curves: one collection, not one artist per group
    for label, prof in groups.items():
        share = cumulative_csr_share(prof)
        if share.size == 0:
            continue
        x = np.arange(1, share.size + 1, dtype=float)
        st = styles[label]
        steps = share.size < 60
        if st["zorder"] <= 1:
            x, y = _thin_curve(x, share)
            if steps:  # the steps-post path of the line drawn for a highlighted group
                x, y = np.repeat(x, 2)[1:], np.repeat(y, 2)[:-1]
            context.append(np.column_stack([x, y]))
            continue
        ax.plot(*_thin_curve(x, share), label=label or None,
                drawstyle="steps-post" if steps else "default", **st)
    if context:
        grey_style = styles[next(k for k in groups if styles[k]["zorder"] <= 1)]
        ax.add_collection(LineCollection(context, colors=grey_style["color"],
                                         linewidths=grey_style["linewidth"],
                                         alpha=grey_style["alpha"], zorder=1))
        ax.autoscale_view()
    ax.set(ylim=(0.0, 1.02), xlabel="errors, most overconfident first",
           ylabel="cumulative share of CSR")
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
    _finish(ax, "What drives the risk: share of CSR from the top errors",
            len(groups) - len(list(grey)) <= 1, loc="lower right")
    return ax


def cumulative_csr_share(prof: ConfidenceProfile) -> np.ndarray:
    """Cumulative share of CSR of the errors sorted by decreasing contribution."""
    contrib = np.asarray(risk.csr_contributions(prof.conf, prof.correct,
                                                sample_weight=prof.sample_weight), float)
    contrib = np.sort(contrib[contrib > 0])[::-1]
    total = contrib.sum()
    return np.cumsum(contrib) / total if total > 0 else contrib
