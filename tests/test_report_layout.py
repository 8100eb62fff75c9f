"""The page layout of the demo report: a reviewer reads it in at most 12 pages.

The demo (``calreport demo``, the README's first command) is rendered once; the
checks read its PDF, its laid-out pages and its figures.
"""

from __future__ import annotations

import base64
import io
import re

import numpy as np
import pandas as pd
import pytest

from calreport import _cli_commands, cli
from calreport.report import context as report_context
from calreport.report.figures import FULL_WIDTH, HALF_WIDTH, MIN_TEXT_PT

MAX_PAGES = 12


#: figure id -> (matplotlib Figure, its print PNG) of the demo report, as built
DRAWN: dict = {}


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The report ``calreport demo`` writes (captured instead of written); its
    laid-out figures are kept in :data:`DRAWN`."""
    held = []
    build = report_context.build_figures

    def keep(*args, **kwargs):
        out = build(*args, **kwargs)
        DRAWN.update(kwargs["drawn"])
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_cli_commands, "_write_outputs", lambda rep, outputs, fmt: held.append(rep))
        mp.setattr(report_context, "build_figures", keep)
        out = tmp_path_factory.mktemp("demo") / "calreport-demo.pdf"
        cli.main(["demo", "-o", str(out)])
    (rep,) = held
    return rep


def test_demo_pdf_has_at_most_12_pages(demo):
    pytest.importorskip("weasyprint")
    pypdf = pytest.importorskip("pypdf")
    reader = pypdf.PdfReader(io.BytesIO(demo.to_pdf()))
    assert len(reader.pages) <= MAX_PAGES
    last = reader.pages[-1].extract_text()
    assert "Review and sign-off" in last and "Signature" in last


def _lowest_text(page) -> tuple[str, str]:
    """The tag of the block holding the lowest line of text on a page, and the text."""
    best = (-1.0, "", "")
    stack = [(page._page_box, "")]
    while stack:
        box, tag = stack.pop()
        if type(box).__name__ == "MarginBox":
            continue  # running header and footer
        if type(box).__name__ not in ("TextBox", "LineBox", "InlineBox"):
            tag = getattr(box, "element_tag", tag) or tag
        stack.extend((child, tag) for child in getattr(box, "children", ()))
        text = getattr(box, "text", None)
        if text and text.strip():
            bottom = box.position_y + box.height
            if bottom > best[0]:
                best = (bottom, tag, text)
    return best[1], best[2]


def test_no_heading_ends_a_page(demo):
    pytest.importorskip("weasyprint")
    from calreport.report.pdf import layout

    doc = layout(demo._print_html())
    assert len(doc.pages) <= MAX_PAGES
    for number, page in enumerate(doc.pages, 1):
        tag, text = _lowest_text(page)
        assert tag not in ("h1", "h2", "h3"), f"page {number} ends with the heading {text!r}"


def test_figures_print_at_their_drawn_size_with_legible_text(demo):
    html = demo.to_html()
    figures = re.findall(r'<figure class="([^"]*)" id="fig-([^"]+)">\s*<h3>[^<]*</h3>\s*'
                         r'<img src="data:image/svg\+xml;base64,([^"]+)"[^>]*'
                         r'style="width: ([0-9.]+)in"', html)
    assert len(figures) == len(demo.context["figures"])
    for classes, fig_id, data, width in figures:
        svg = base64.b64decode(data).decode("utf-8")
        drawn = float(re.search(r'width="([0-9.]+)pt"', svg).group(1)) / 72
        # printed at the drawn width, so a point of the figure is a point on paper
        assert float(width) == pytest.approx(drawn, abs=0.01), fig_id
        assert drawn == pytest.approx(HALF_WIDTH if "half" in classes.split() else
                                      FULL_WIDTH, abs=0.01), fig_id
        sizes = [float(s) for s in re.findall(r"font-size: ([0-9.]+)px", svg)]
        assert sizes and min(sizes) >= MIN_TEXT_PT, fig_id


def test_half_width_figures_are_laid_two_a_row(demo):
    html = demo.to_html()
    rows = re.findall(r'<div class="figure-row">(.*?)</div>', html, flags=re.S)
    halves = [f for f in demo.context["figures"] if f["half"]]
    assert len(rows) == (len(halves) + 1) // 2
    assert all(r.count("<figure ") == 2 for r in rows[:len(halves) // 2])


def _svg_texts(svg: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", t) for t in re.findall(r"<text[^>]*>(.*?)</text>", svg,
                                                          flags=re.S)]


def test_a_y_label_taller_than_its_axes_gets_two_lines(demo):
    """The Murphy diagram is wide and low: its y-axis label is broken in two lines
    (measured on the laid-out figure); a label that fits stays on one line."""
    figs = {fig_id: base64.b64decode(data).decode("utf-8") for fig_id, data in re.findall(
        r'id="fig-([^"]+)">\s*<h3>[^<]*</h3>\s*<img src="data:image/svg\+xml;base64,([^"]+)"',
        demo.to_html())}
    murphy = _svg_texts(figs["murphy"])
    assert "mean elementary score" in murphy and "(lower is better)" in murphy
    assert not any("mean elementary score (lower" in t for t in murphy)
    corp = _svg_texts(figs["corp"])
    assert "Observed frequency of benign" in corp


def _labels_inside(drawn) -> None:
    """Axis labels, titles and legend entries of every figure lie inside it as drawn
    for print."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from calreport.report.figures import PRINT_DPI

    for fig_id, (fig, _) in drawn.items():
        texts = [t for ax in fig.axes if ax.get_visible()
                 for t in (ax.xaxis.label, ax.yaxis.label, ax.title)]
        texts += [t for leg in [*fig.legends, *(ax.get_legend() for ax in fig.axes)]
                  if leg is not None for t in leg.get_texts()]
        texts += fig.texts  # supxlabel
        texts = [t for t in texts if t.get_visible() and t.get_text().strip()]
        dpi = fig.get_dpi()
        fig.set_dpi(PRINT_DPI)
        try:
            canvas = FigureCanvasAgg(fig)
            canvas.draw()
            width, height = fig.bbox.width, fig.bbox.height
            boxes = [(t.get_text(), t.get_window_extent(canvas.get_renderer()))
                     for t in texts]
        finally:
            fig.set_dpi(dpi)  # the report draws its SVG at the figure's own dpi
        for text, box in boxes:
            assert box.x0 >= -1 and box.y0 >= -1, (fig_id, text)
            assert box.x1 <= width + 1 and box.y1 <= height + 1, (fig_id, text)


def _no_blank_band(drawn) -> None:
    """No figure ends in a blank band over 15 % of its height.  The reliability
    diagram keeps about 12 % under its bin-count panel (the room kept for the
    panel's labels); about 21 % when a second layout pass shrank its axes."""
    import io

    from PIL import Image

    for fig_id, (_, png) in drawn.items():
        ink = (np.asarray(Image.open(io.BytesIO(png)).convert("L")) < 250).any(axis=1)
        blank = ink.size - 1 - np.flatnonzero(ink).max()
        assert blank <= 0.15 * ink.size, (fig_id, blank, ink.size)


def test_no_label_title_or_legend_runs_past_a_figures_edge(demo):
    """Also no blank band: the reliability diagram's y label takes two lines here,
    and its figure is laid out with them in one pass."""
    assert {f["id"] for f in demo.context["figures"]} == set(DRAWN)
    assert DRAWN["reliability"][0].axes[0].get_ylabel() == "Observed frequency\nof benign"
    _labels_inside(DRAWN)
    _no_blank_band(DRAWN)


def test_a_y_label_broken_in_two_lines_is_laid_out_with_them(monkeypatch):
    """20 groups: the Murphy diagram's y label takes two lines and its figure is laid
    out with them, in one pass on a fresh figure (a second pass on the first figure
    moved the axes again: the reliability diagram shrank above a blank band); the
    reliability diagram's label, about as long as its axes are high, keeps one line
    (it took two on a 1 % margin at print resolution)."""
    rng = np.random.default_rng(1)
    p = rng.beta(2.0, 2.0, 20_000)
    df = pd.DataFrame({"y": (rng.random(20_000) < p ** 1.2).astype(int), "p": p,
                       "g": np.repeat(np.arange(20), 1000)})
    drawn: dict = {}
    build = report_context.build_figures

    def keep(*args, **kwargs):
        out = build(*args, **kwargs)
        drawn.update(kwargs["drawn"])
        return out

    monkeypatch.setattr(report_context, "build_figures", keep)
    df.groupby("g").calib(y="y", proba="p").report(ci=None, metrics=["accuracy", "ece"],
                                                   progress=False)
    assert drawn["murphy"][0].axes[0].get_ylabel() == "mean elementary score\n(lower is better)"
    assert drawn["reliability"][0].axes[0].get_ylabel() == "Observed frequency of 1"
    _labels_inside(drawn)
    _no_blank_band(drawn)
