"""Shared pieces of the figures: colours (one place), styles, helpers, embedding.

Colours of the risk bands live here only (:data:`BAND_COLORS`, :data:`BAND_FILLS`);
the report passes them to its stylesheet, so badge, card and plot agree.
"""

from __future__ import annotations

import base64
import io
import re
import threading
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import replace
from typing import Any

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from calreport import _validate as v
from calreport._grouping import group_name
from calreport._warnings import caller_outside_package
from calreport.metrics import risk
from calreport.profile import ConfidenceProfile

#: Colour-blind-safe series colours (Okabe & Ito), one per highlighted group.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
           "#F0E442")
#: Colour of the groups drawn as context ("all other groups").
GREY = "#9ca3af"
#: Colours of the risk bands (badges, card borders, risk plot markers).
BAND_COLORS = {"risky": "#b91c1c", "evidence": "#b35900", "undetermined": "#6b7280",
               "no_evidence": "#1a7f37"}
#: Light fills of the risk bands (backgrounds, risk plot bands).
BAND_FILLS = {"risky": "#fde2e2", "evidence": "#fdf0dc", "undetermined": "#f3f4f6",
              "no_evidence": "#e6f4ea"}
_DIAGONAL = dict(color="#6b7280", linestyle="--", linewidth=1.0)
_GRID = dict(color="#d1d5db", linewidth=0.6)
#: Curves with more vertices than this are thinned to curve points ~1/1000 apart.
_MAX_CURVE_POINTS = 2000
#: Figures holding more data points than this are embedded as PNG, not SVG.
DENSE_POINTS = 20000

ProfileData = ConfidenceProfile | Mapping[Hashable, ConfidenceProfile]


def band_key(band: Any) -> str:
    """The band vocabulary's key of a band code (older spellings mapped).

    Examples
    --------
    >>> band_key("none"), band_key("undefined"), band_key("risky")
    ('no_evidence', 'undetermined', 'risky')
    """
    text = str(band)
    return {"none": "no_evidence", "undefined": "undetermined"}.get(text, text)


def z_band(z: float) -> str:
    """Band of a z-score alone (no certainty-claim rule), for figures of bare profiles."""
    return band_key(risk.risk_band(float(z))[0])

# ---------------------------------------------------------------------------- helpers
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
    """``ax``, or the axes of a new figure (see :func:`_figure`)."""
    if ax is not None:
        if not isinstance(ax, Axes):
            raise TypeError(f"`ax` must be a matplotlib Axes, got {type(ax).__name__}.")
        return ax
    return _figure(figsize).add_subplot()


def _figure(figsize: tuple[float, float]) -> Figure:
    """A new figure.

    A figure the caller's code asks for is created by ``pyplot`` (as scikit-learn's
    displays and seaborn do), so a notebook shows it inline and ``plt.show()`` finds
    it; one drawn for the library's own output (the report, also from its worker
    threads) is a bare :class:`~matplotlib.figure.Figure`, never registered with
    ``pyplot``.  Neither sets anything in ``rcParams``; a figure passed as ``ax``
    is drawn on and nothing else is created.
    """
    if caller_outside_package(exclude="plotting"):
        import matplotlib.pyplot as plt

        return plt.figure(figsize=figsize, layout="constrained")
    return Figure(figsize=figsize, layout="constrained")


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
    if prof.y_true is None or not prof.has_proba:
        raise ValueError(
            f"{what} needs true labels and class probabilities; this profile has only "
            "confidence and correctness. Build it with y_true and proba."
        )


def _series_styles(labels: Iterable[str], grey: Iterable[Hashable] = ()) -> dict[str, dict]:
    """Colour, width and z-order per series: highlighted in the palette, context in grey."""
    grey_labels = {_tex_safe(group_name(g)) for g in grey}
    out, i = {}, 0
    for label in labels:
        if label in grey_labels:
            out[label] = {"color": GREY, "linewidth": 0.8, "alpha": 0.6, "zorder": 1}
        else:
            out[label] = {"color": _color(i), "linewidth": 1.6, "alpha": 1.0, "zorder": 3}
            i += 1
    return out


def _legend_outside(ax: Axes, **kw: Any) -> None:
    """Legend to the right of the axes, outside the data."""
    handles, _labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(fontsize="small", frameon=False, loc="upper left",
                  bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **kw)


def _finish(ax: Axes, title: str, one_series: bool, loc: str | None = "upper left") -> None:
    """Title, grid and legend of a plot: inside at ``loc`` for one series (none when
    ``loc`` is None), to the right of the axes for several."""
    ax.set_title(title, fontsize="medium")
    _style(ax)
    if not one_series:
        _legend_outside(ax)
    elif loc is not None:
        _legend(ax, loc=loc)


def pool_profiles(profiles: Iterable[ConfidenceProfile]) -> ConfidenceProfile:
    """All rows of several profiles (same classes) as one profile.

    Examples
    --------
    >>> a = ConfidenceProfile.from_arrays(conf=[0.6, 0.9], correct=[1, 0])
    >>> pool_profiles([a, a]).n
    4
    """
    profs = list(profiles)
    if not profs:
        raise ValueError("`profiles` is empty: pass at least one profile to pool.")
    first = profs[0]
    if len(profs) == 1:
        return first
    arrays = {}
    for name in ("conf", "correct", "y_true", "y_pred", "proba", "score", "sample_weight"):
        parts = [getattr(p, name) for p in profs]
        arrays[name] = None if any(x is None for x in parts) else np.concatenate(parts)
    return replace(first, **arrays)


# ------------------------------------------------------------------------ embedding
def _count_points(fig: Figure) -> int:
    n = 0
    for ax in fig.get_axes():
        n += sum(len(line.get_xdata()) for line in ax.lines)
        n += sum(len(c.get_offsets()) for c in ax.collections)
    return n


#: matplotlib reads the SVG text mode from rcParams only: saves that set it hold this
#: lock, so concurrent calls never see each other's temporary setting.
_SVG_LOCK = threading.Lock()


def data_uri_format(fig: Figure) -> str:
    """The MIME type ``figure_to_data_uri(fig)`` encodes to: ``"image/png"`` when the
    figure holds more than :data:`DENSE_POINTS` data points, else ``"image/svg+xml"``."""
    return "image/png" if _count_points(fig) > DENSE_POINTS else "image/svg+xml"


def figure_to_data_uri(fig: Figure, *, fmt: str = "auto", dpi: int = 200) -> str:
    """Encode a figure as a ``data:`` URI: SVG for line plots, PNG for dense scatters.

    The output is byte-identical for identical figures, also when several threads
    encode figures at once: no date or software metadata is written, and the SVG
    element ids (random or salted hashes in matplotlib) are renamed in order of
    appearance after each save.  Text is written as SVG text (``svg.fonttype`` "none",
    set only for the duration of the save and under a lock), not as glyph outlines.

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
        fmt = "png" if data_uri_format(fig) == "image/png" else "svg"
    if fmt == "svg":
        return svg_data_uri(fig)
    return f"data:image/png;base64,{base64.b64encode(_png(fig, dpi)).decode('ascii')}"


def svg_data_uri(fig: Figure, *, laid_out: bool = False) -> str:
    """The SVG ``data:`` URI of :func:`figure_to_data_uri`.  ``laid_out``: the
    figure's layout is computed and kept (its layout engine is "none"), so one draw
    writes it; ``savefig`` draws twice (a dry run for the layout first)."""
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    buf = io.BytesIO()
    meta = {"Date": None, "Creator": None, "Format": None, "Type": None}
    # text as SVG text, not glyph outlines: about 30 % less drawing time, smaller files
    with _SVG_LOCK, matplotlib.rc_context({"svg.fonttype": "none"}):
        if laid_out:
            dpi = fig.dpi
            try:
                FigureCanvasSVG(fig).print_svg(buf, metadata=meta)
            finally:
                fig.dpi = dpi  # print_svg draws at 72 dpi and leaves it so
        else:
            fig.savefig(buf, format="svg", metadata=meta)
    data = stable_svg_ids(buf.getvalue().decode("utf-8")).encode("utf-8")
    return f"data:image/svg+xml;base64,{base64.b64encode(data).decode('ascii')}"


def _png(fig: Figure, dpi: int) -> bytes:
    """PNG bytes of a figure, RGB when every pixel is opaque (see :func:`png_bytes`)."""
    raw = io.BytesIO()
    fig.savefig(raw, format="rgba", dpi=dpi)
    pixels = np.frombuffer(raw.getbuffer(), dtype=np.uint8)
    # the Agg canvas truncates inches * dpi to whole pixels (FigureCanvasBase.
    # get_width_height, with a 1e-8 tolerance in recent matplotlib)
    width, height = (int(x * dpi + 1e-8) for x in fig.get_size_inches())
    if width * height * 4 != pixels.size:  # pragma: no cover - other canvas geometry
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
        return buf.getvalue()
    return png_bytes(pixels.reshape(height, width, 4), dpi)


def png_bytes(rgba: np.ndarray, dpi: float, *, compress_level: int = 6) -> bytes:
    """Encode an RGBA pixel array as PNG: RGB when every pixel is opaque, else RGBA.

    An opaque image loses nothing without its alpha channel, and a PDF renderer
    embeds an RGB image directly, where RGBA must be split into colour and mask.
    No date or software metadata is written (byte-identical output).
    ``compress_level`` (zlib, 0-9): 1 where the PNG is decoded again at once (the
    PDF renderer re-encodes every image itself).
    """
    from PIL import Image

    opaque = bool((rgba[..., 3] == 255).all())
    image = Image.fromarray(np.ascontiguousarray(rgba[..., :3]) if opaque
                            else np.ascontiguousarray(rgba), mode="RGB" if opaque else "RGBA")
    out = io.BytesIO()
    image.save(out, format="PNG", dpi=(dpi, dpi), compress_level=compress_level)
    return out.getvalue()


_SVG_ID = re.compile(r'\bid="([A-Za-z_][\w.-]*)"')


def stable_svg_ids(svg: str) -> str:
    """Rename the hashed element ids of a matplotlib SVG to ``cr<n>`` in document order.

    matplotlib derives marker, clip-path and hatch ids from a hash salted with
    ``rcParams["svg.hashsalt"]`` (random when unset).  Renaming them after the save
    makes the file deterministic without touching that process-wide setting.
    Glyph ids (``DejaVuSans-41``) are already stable and kept.

    Examples
    --------
    >>> stable_svg_ids('<path id="m1a2b3c4d5e"/><use xlink:href="#m1a2b3c4d5e"/>')
    '<path id="cr0"/><use xlink:href="#cr0"/>'
    """
    # markers "m<hash>", clip paths "p<hash>", collection paths "C<k>_<i>_<hash>"
    hashed = [i for i in dict.fromkeys(_SVG_ID.findall(svg))
              if re.fullmatch(r"[A-Za-z]?(?:\d+_\d+_)?[0-9a-f]{10}", i)]
    if not hashed:
        return svg
    names = {old: f"cr{k}" for k, old in enumerate(hashed)}
    pattern = re.compile(r'(?<=["#])(' + "|".join(map(re.escape, hashed)) + r')(?=[")])')
    return pattern.sub(lambda m: names[m.group(1)], svg)
