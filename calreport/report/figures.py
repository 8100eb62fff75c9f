"""The report's figures, legible for any number of groups.

With many groups a figure overlaying one series per group is unreadable, so every
overlay shows the riskiest groups in colour (at most :data:`HIGHLIGHT`) and all
other groups pooled into one grey series (or, where pooling has no meaning, as
thin grey lines); the risk plot gives the riskiest groups a row each and the rest a
strip; legends sit outside the data.
"""

from __future__ import annotations

import base64
import math
import threading
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from calreport import plotting
from calreport.plotting import _base
from calreport.profile import ConfidenceProfile

__all__ = ["FULL_WIDTH", "HALF_WIDTH", "HIGHLIGHT", "MIN_TEXT_PT", "PRINT_DPI", "Drawings",
           "build_figures"]

#: Groups highlighted in colour in the overlays (the riskiest first).
HIGHLIGHT = 5
#: Groups with a labelled row in the risk plot.
RISK_ROWS = 25
#: Resolution of the figures embedded in the PDF.
PRINT_DPI = 200
#: Width in inches of a report figure that spans the text column of an A4 page
#: (210 mm less 2 x 16 mm of margin), and of one of two figures side by side.  The
#: report prints every figure at its drawn size, so its text keeps its point size.
FULL_WIDTH = 6.9
HALF_WIDTH = 3.4
#: Smallest text in a report figure, in points at print size.
MIN_TEXT_PT = 7.0


def build_figures(profiles: Mapping[str, ConfidenceProfile], risks: Mapping[str, Any],
                  order: list[str], *, view: str | None, n_bins: int, strategy: str,
                  drawn: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The figure entries of the report context (id, title, caption, format).

    Parameters
    ----------
    profiles : mapping of group name -> ConfidenceProfile
    risks : mapping of group name -> risk verdict (``z``, ``csr``, ``band``)
    order : list of str
        Group names, riskiest first.
    view, n_bins, strategy
        Settings of the calibration figures.
    drawn : dict, optional
        Receives figure id -> (matplotlib Figure, laid out; its PNG at
        :data:`PRINT_DPI`), for :class:`Drawings`.
    """
    from matplotlib.figure import Figure

    names = [g for g in order if g in profiles]
    out: list[dict[str, Any]] = []
    if not names:
        return out
    single = len(names) == 1
    first = profiles[names[0]]
    used_view = view or first.default_view
    shown = names if len(names) <= HIGHLIGHT + 1 else names[:HIGHLIGHT]
    rest = [g for g in names if g not in shown]
    others = f"all other {len(rest)} groups" if rest else None
    overlay: Any
    if single:
        overlay = profiles[names[0]]
    else:
        overlay = {g: profiles[g] for g in shown}
        if rest:
            overlay[others] = plotting.pool_profiles(profiles[g] for g in rest)
    grey = [others] if others else []
    note = (f" In colour the {len(shown)} riskiest groups; grey: the other {len(rest)} "
            "groups pooled." if rest else "")

    def add(fig_id: str, title: str, caption: str, draw: Callable[[], Any],
            size: tuple[float, float | None] = (FULL_WIDTH, None)) -> None:
        """Draw a figure at its print size: ``size`` is (width, height) in inches, a
        height of ``None`` keeps the height the plotting function chose.  A figure of
        :data:`HALF_WIDTH` is laid beside another one (``half``)."""
        half = size[0] <= HALF_WIDTH

        def figure() -> Any:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ax = draw()
            if len(ax.figure.axes) == 1:
                ax.set_title("")  # the report's heading names the figure
            _print_size(ax.figure, size[0], size[1], legend_above=half)
            return ax.figure

        try:
            fig = figure()
        except (ValueError, np.linalg.LinAlgError) as exc:
            out.append({"id": fig_id, "title": title, "caption": caption, "format": None,
                        "error": str(exc), "tall": False, "half": False, "width_in": None})
            return
        # the layout runs in the draw of the print PNG and is kept for the SVG that an
        # HTML output asks for later (Drawings): both have the same geometry
        png = _lay_out(fig)
        if png is None:  # a y label needs two lines: a fresh figure, laid out with them
            labels = [a.yaxis.label.get_text() for a in fig.axes]
            fig = figure()
            for a, label in zip(fig.axes, labels, strict=True):
                a.yaxis.label.set_text(label)
            png = _lay_out(fig, wrap=False)
        if drawn is not None:
            drawn[fig_id] = (fig, png)
        width, height = fig.get_size_inches()
        out.append({"id": fig_id, "title": title, "caption": caption,
                    "format": _base.data_uri_format(fig), "error": None,
                    "tall": height > 6.0, "half": half, "width_in": round(float(width), 3)})

    if not single:
        n_rows = min(len(names), RISK_ROWS)
        more = (f" The {n_rows} groups with the highest P_risk have a row each; the other "
                f"{len(names) - n_rows} share the last row." if len(names) > n_rows else "")
        add("risk", "Overconfidence risk by group",
            "Each group's P_risk (adjusted for the number of groups when the verdicts "
            "are) on the z scale, Φ⁻¹(P_risk), against the 1σ and 3σ levels of the band "
            "rule, coloured by the group's verdict; under the normal reading this is "
            "z = (CSR − 1) / σ_CSR. The worst group is on top." + more,
            lambda: plotting.risk_plot({g: risks[g] for g in names}, top=RISK_ROWS))
    add("corp", "CORP reliability diagram",
        plotting.corp_caption(used_view, band=single or len(shown) == 1) + note,
        lambda: plotting.corp_diagram(overlay, view=view, grey=grey), (HALF_WIDTH, 4.2))
    add("reliability", "Reliability diagram (binned)",
        plotting.reliability_caption(used_view, n_bins, strategy) + note,
        lambda: plotting.reliability_diagram(overlay, view=view, n_bins=n_bins,
                                             strategy=strategy, grey=grey),
        (HALF_WIDTH, 4.2))
    if single or not rest:  # with many groups the CORP and binned diagrams suffice
        add("lowess_curve", "Calibration curve (LOWESS)",
            "LOWESS estimate of the observed frequency given the score (span "
            "min(1, n^(-1/5)), adapted to the rows), with the Local Calibration Score of "
            "each series in the legend."
            + (" Shaded: its 95 % bootstrap band, cut where fewer than 10 scores lie nearby "
               "(the curve there rests on a handful of rows)."
               if single or len(shown) == 1 else
               " Where few scores lie, the curve rests on a handful of rows: read it with "
               "the reliability diagram's counts.") + note,
            lambda: plotting.lowess_curve_plot(overlay, view=view, grey=grey),
            (HALF_WIDTH, 3.9))
    hist = names[:6]
    add("confidence_histogram", "Confidence histograms",
        "Top-label confidence of correct predictions and errors; solid line: accuracy, "
        "dotted line: mean confidence (right of the accuracy = overconfident on average)."
        + (f" The {len(hist)} riskiest of {len(names)} groups are shown."
           if len(names) > len(hist) else ""),
        lambda: _histograms(Figure, profiles, hist),
        (HALF_WIDTH, 2.9) if len(hist) == 1 else (FULL_WIDTH, None))
    if first.is_binary and all(profiles[g].y_true is not None for g in names):
        add("roc", "ROC and confidence-weighted ROC",
            "Solid: ROC; dashed: cwROC, where every row counts with its confidence, so its "
            "area is cwAUC. cwAUC above AUC: confidence helps ranking." + note,
            lambda: plotting.roc_plot(overlay, grey=grey),
            # two legend lines a series: beside another figure for at most three
            (HALF_WIDTH, 3.9) if single or len(overlay) <= 3 else (FULL_WIDTH, 3.6))
    add("selective", "Selective prediction",
        "Coverage, selective accuracy, CWSA and CWSA+ when predictions with confidence "
        "below τ are withheld" + ("; one panel per quantity." if not single else ".") + note,
        lambda: plotting.selective_plot(overlay, grey=grey),
        (HALF_WIDTH, 3.2) if single else (FULL_WIDTH, 3.5))
    if not single and first.is_binary and all(profiles[g].y_true is not None
                                              for g in names):
        add("murphy", "Murphy diagram",
            "Mean elementary score at every decision threshold θ (a false alarm costs θ, a "
            "miss 1 − θ): a lower curve is better at that cost ratio, and a group lower "
            "everywhere is better for every decision maker. The area under a curve is half "
            "its Brier score." + note,
            lambda: plotting.murphy_diagram_plot(overlay, view=view, grey=grey),
            (FULL_WIDTH, 2.5))
    drivers: Any = profiles[names[0]] if single else {g: profiles[g] for g in names}
    add("risk_drivers", "Share of CSR from the top errors",
        "Cumulative share of CSR carried by the errors, most overconfident first (log "
        "scale): a steep rise means a few confident errors make the risk."
        + (" Grey: each of the other groups." if rest else ""),
        lambda: plotting.risk_drivers_plot(drivers, grey=rest), (FULL_WIDTH, 2.4))
    _pair(out)
    return out


def _pair(figures: list[dict[str, Any]]) -> None:
    """Lay the half-width figures two a row, in order: the first of a row names the
    second (``partner``), which is laid there (``follows``) rather than in its place."""
    for f in figures:
        f["partner"], f["follows"] = None, False
    halves = [f for f in figures if f["half"]]
    for first, second in zip(halves[::2], halves[1::2], strict=False):
        first["partner"], second["follows"] = second["id"], True


def _histograms(figure: Any, profiles: Mapping[str, ConfidenceProfile], shown: list[str]
                ) -> Any:
    """Small multiples of the confidence histogram, one legend outside the panels."""
    ncols = min(3, len(shown))  # up to three panels a row across the text column
    nrows = math.ceil(len(shown) / ncols)
    fig = figure(figsize=(6.4 if ncols == 1 else FULL_WIDTH,
                          3.4 * nrows if ncols == 1 else 1.9 * nrows + 0.5),
                 layout="constrained")
    # one confidence axis for all panels: tick labels on the bottom row, one label
    axes = fig.subplots(nrows, ncols, squeeze=False, sharex=True).ravel()
    for i, (ax, g) in enumerate(zip(axes, shown, strict=False)):
        plotting.confidence_histogram(profiles[g], ax=ax)
        if len(shown) > 1:
            ax.set_title(g, fontsize="small")
            ax.get_legend().remove()
            ax.tick_params(labelsize="small")
            ax.yaxis.label.set_size("small")
            # a panel below shows the axis
            ax.tick_params(labelbottom=i + ncols >= len(shown))
    for ax in axes[len(shown):]:
        ax.set_visible(False)
    if len(shown) > 1:
        # one label under the panels: a label per panel ran past the figure's edge
        fig.supxlabel(axes[0].get_xlabel(), fontsize="small")
        for ax in axes:
            ax.set_xlabel("")
        handles, labels = axes[0].get_legend_handles_labels()
        # accuracy and mean confidence differ per panel: keep their line styles only
        labels = [lab.split(" = ")[0] for lab in labels]
        fig.legend(handles, labels, fontsize="small", frameon=False, loc="outside upper center",
                   ncols=4)
    return axes[0]


def _print_size(fig: Any, width: float, height: float | None, *, legend_above: bool) -> None:
    """Give a report figure its print size and text of at least :data:`MIN_TEXT_PT`.

    A figure beside another has no room for a legend right of its axes, and one
    inside them covers half the data at this size: the legend moves above them
    (below them lies the bin counts' panel of the reliability diagram), in two
    columns when its labels are short.
    """
    from matplotlib.text import Text

    fig.set_size_inches(width, fig.get_size_inches()[1] if height is None else height)
    if legend_above:
        for ax in fig.axes:
            legend = ax.get_legend()
            if legend is None:
                continue
            handles, labels = ax.get_legend_handles_labels()
            legend.remove()
            ncols = 2 if max(len(lab) for lab in labels) <= 20 else 1
            fig.legend(handles, labels, fontsize="small", frameon=False, ncols=ncols,
                       loc="outside upper center")
    if any(ax.child_axes for ax in fig.axes):
        # the constrained layout leaves no room for an inset panel below the axes
        # (the reliability diagram's bin counts): the lower part of the figure is
        # kept for it, its tick labels and its axis label.  One layout pass only: the
        # next would see the panel where the first put it and shrink the axes again
        fig.get_layout_engine().set(rect=(0.0, 0.2, 1.0, 0.8))
    for text in fig.findobj(Text):
        if text.get_fontsize() < MIN_TEXT_PT:
            text.set_fontsize(MIN_TEXT_PT)


def _lay_out(fig: Any, *, wrap: bool = True) -> bytes | None:
    """Lay the figure out once, at print resolution, and keep that layout; return its
    PNG at :data:`PRINT_DPI`, or None when ``wrap`` broke a y label in two lines
    (:func:`_wrap_long_ylabels`; the caller lays out a fresh figure with them).

    The layout engine runs inside the draw of the PNG, so the PNG the PDF embeds
    costs no extra draw; the SVG drawn later for the HTML keeps this layout, and both
    have the same geometry whatever output comes first.  One pass only: a second
    pass of the constrained layout starts from the first one's result and moves the
    axes again (the reliability diagram's bin-count panel, placed relative to its
    axes, would shrink them at each pass).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    dpi = fig.get_dpi()
    canvas = FigureCanvasAgg(fig)
    fig.set_dpi(PRINT_DPI)
    try:
        canvas.draw()
        if wrap and _wrap_long_ylabels(fig):
            return None
        # WeasyPrint decodes and re-encodes every PNG it embeds: compress ours lightly
        png = _base.png_bytes(np.asarray(canvas.buffer_rgba()), PRINT_DPI,
                              compress_level=1)
    finally:
        fig.set_dpi(dpi)  # the SVG is drawn at the figure's own resolution, as before
    fig.set_layout_engine("none")  # the layout is kept (no global setting is touched)
    return png


#: A y label up to this much longer than its axes are high keeps one line: it
#: overhangs each end of the axes by at most 2.5 % of their height (and text
#: measures differ by about 1 % between resolutions).
_WRAP_SLACK = 1.05


def _wrap_long_ylabels(fig: Any) -> bool:
    """Give two lines to a y-axis label longer than its axes are high (the Murphy
    diagram's, on a wide and low figure), which would be cut at the figure's edges.

    Measured on the figure as last drawn (laid out).  True when a label changed.
    """
    changed = False
    for ax in fig.axes:
        label = ax.yaxis.label
        words = label.get_text().split(" ")
        if len(words) > 1 and \
                label.get_window_extent().height > _WRAP_SLACK * ax.bbox.height:
            middle = len(label.get_text()) / 2
            cut = min(range(1, len(words)),
                      key=lambda i: abs(len(" ".join(words[:i])) - middle))
            label.set_text(" ".join(words[:cut]) + "\n" + " ".join(words[cut:]))
            changed = True
    return changed


#: Held while a report's SVG figures are drawn (matplotlib figures are not
#: thread-safe).
_DRAW_LOCK = threading.Lock()


class Drawings:
    """The report's figures as each output embeds them: PNG in the PDF, SVG in the HTML.

    The PDF embeds every figure as the PNG at :data:`PRINT_DPI` drawn when the
    figure was laid out (:func:`build_figures`): WeasyPrint draws an SVG node by
    node in Python, which took seconds for the figures of a 200-group report, where
    an embedded PNG takes milliseconds, and at 200 dpi line art stays sharp on
    paper.  The HTML embeds the SVG of a figure, drawn at its first request with the
    same layout (the print PNG where the figure holds more than
    :data:`~calreport.plotting.DENSE_POINTS` points, as
    :func:`~calreport.plotting.figure_to_data_uri` decides), so a PDF alone never
    draws an SVG.  A figure is released once its SVG is drawn; pickling draws the
    SVGs not drawn yet and keeps only the encodings.  One thread draws at a time
    (matplotlib figures are not thread-safe).
    """

    def __init__(self, figures: Mapping[str, tuple[Any, bytes]] | None = None) -> None:
        self._figures = dict(figures or {})
        self._svg: dict[str, str] = {}

    def __getstate__(self) -> dict[str, Any]:
        with _DRAW_LOCK:
            for fig_id in list(self._figures):
                self._draw_svg(fig_id)
        return {"_figures": self._figures, "_svg": self._svg}

    def uris(self, entries: list[dict[str, Any]], *, vector: bool) -> list[dict[str, Any]]:
        """``entries`` (the context's figures) with their ``uri``: SVG where the format
        says so and ``vector`` is true, else PNG; None for a figure that failed."""
        with _DRAW_LOCK:
            return [dict(f, uri=self._uri(f, vector)) for f in entries]

    def _uri(self, entry: dict[str, Any], vector: bool) -> str | None:
        if entry["id"] not in self._figures:
            return None
        png = self._figures[entry["id"]][1]
        if not (vector and entry["format"] == "image/svg+xml"):
            return "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        self._draw_svg(entry["id"])
        return self._svg[entry["id"]]

    def _draw_svg(self, fig_id: str) -> None:
        """Draw the SVG of a figure (once) and release the figure; the caller holds
        the lock.  A figure embedded as PNG everywhere is released without one."""
        fig, png = self._figures[fig_id]
        if fig is None:
            return
        if _base.data_uri_format(fig) == "image/svg+xml":
            self._svg[fig_id] = _base.svg_data_uri(fig, laid_out=True)
        self._figures[fig_id] = (None, png)
