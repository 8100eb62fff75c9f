"""PDF output with WeasyPrint: no external fetch, embedded fonts, attachment, bookmarks.

Page numbers and running headers come from the stylesheet's ``@page`` rules; the
headings become PDF bookmarks; the report's JSON is attached to the file.
"""

from __future__ import annotations

import datetime as _dt
import gc
import hashlib
import logging
import os
import threading
from pathlib import Path
from typing import Any

__all__ = ["layout", "render_pdf"]

#: SOURCE_DATE_EPOCH is process-wide: one PDF is rendered at a time.
_LOCK = threading.Lock()

# ---------------------------------------------------------------------------- PDF
_FONT_FILES = {("normal", "normal"): "DejaVuSans.ttf", ("bold", "normal"): "DejaVuSans-Bold.ttf",
               ("normal", "italic"): "DejaVuSans-Oblique.ttf",
               ("bold", "italic"): "DejaVuSans-BoldOblique.ttf"}
_MONO_FILES = {("normal", "normal"): "DejaVuSansMono.ttf",
               ("bold", "normal"): "DejaVuSansMono-Bold.ttf"}


def _font_faces() -> tuple[str, set[str]]:
    """@font-face rules for matplotlib's bundled DejaVu fonts, and their file URLs."""
    import matplotlib

    folder = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    rules, urls = [], set()
    for family, files in (("DejaVu Sans", _FONT_FILES), ("DejaVu Sans Mono", _MONO_FILES)):
        for (weight, style), name in files.items():
            path = folder / name
            if path.is_file():
                url = path.resolve().as_uri()
                urls.add(url)
                rules.append(f'@font-face {{ font-family: "{family}"; src: url("{url}"); '
                             f"font-weight: {weight}; font-style: {style}; }}")
    return "\n".join(rules), urls


def _url_fetcher(weasyprint: Any, allowed: set[str]) -> Any:
    """A fetcher that refuses everything but ``data:`` URIs and the font files."""

    def refuse(url: str) -> None:
        if not (url.startswith("data:") or url in allowed):
            raise ValueError(f"calreport reports fetch no external resource (refused {url!r})")

    base = getattr(weasyprint, "URLFetcher", None)
    if base is not None:  # WeasyPrint >= 68: fetchers are URLFetcher subclasses

        class _Fetcher(base):  # type: ignore[misc, valid-type]
            def fetch(self, url: str, headers: Any = None) -> Any:
                refuse(url)
                return super().fetch(url, headers)

        return _Fetcher()

    def fetch(url: str) -> Any:
        refuse(url)
        return weasyprint.default_url_fetcher(url)

    return fetch


def _weasyprint() -> Any:
    try:
        import weasyprint
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "PDF reports need WeasyPrint: pip install calreport[pdf] (or pip install "
            f"weasyprint). The HTML report needs nothing more: report.to_html(). ({exc})"
        ) from None
    return weasyprint


def _setup(weasyprint: Any) -> tuple[Any, Any, Any]:
    """The stylesheet of the bundled fonts, its font configuration and the fetcher."""
    from weasyprint.text.fonts import FontConfiguration

    faces, allowed = _font_faces()
    fetcher = _url_fetcher(weasyprint, allowed)
    fonts = FontConfiguration()
    css = weasyprint.CSS(string=faces, font_config=fonts, url_fetcher=fetcher)
    return css, fonts, fetcher


def layout(html: str) -> Any:
    """The laid-out pages of an HTML report as the PDF has them (a WeasyPrint
    ``Document``: its ``pages`` hold the boxes), for checks of the page layout."""
    weasyprint = _weasyprint()
    css, fonts, fetcher = _setup(weasyprint)
    return weasyprint.HTML(string=html, url_fetcher=fetcher).render(stylesheets=[css],
                                                                    font_config=fonts)


def render_pdf(html: str, attachment: bytes, timestamp: _dt.datetime) -> bytes:
    """The PDF bytes of an HTML report, deterministic for a fixed ``timestamp``."""
    weasyprint = _weasyprint()
    import inspect

    css, fonts, fetcher = _setup(weasyprint)
    naive = timestamp.astimezone(_dt.timezone.utc).replace(tzinfo=None)
    att_kw = {"string": attachment, "name": "calreport-report.json",
              "description": "Numbers of this report (calreport JSON)",
              "created": naive, "modified": naive, "url_fetcher": fetcher}
    accepted = inspect.signature(weasyprint.Attachment).parameters
    att = weasyprint.Attachment(**{k: val for k, val in att_kw.items() if k in accepted})
    logger = logging.getLogger("weasyprint")
    # the font subsetter stamps each embedded font with the current time unless
    # SOURCE_DATE_EPOCH is set (reproducible-builds convention): use the report's time
    with _LOCK:
        return _write(weasyprint, html, css, fonts, fetcher, att, timestamp, logger)


def _write(weasyprint: Any, html: str, css: Any, fonts: Any, fetcher: Any, att: Any,
           timestamp: _dt.datetime, logger: Any) -> bytes:
    level = logger.level
    logger.setLevel(max(level, logging.ERROR))  # refused fetches are expected, not news
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = str(int(timestamp.timestamp()))
    # WeasyPrint allocates millions of objects that live until the PDF is written;
    # the cyclic collector, triggered again and again by them, walked the whole heap
    # of the calling process each time (about 1.5 s of a 200-group report).  Paused
    # for the render only; whatever cycles it leaves are collected afterwards.
    collecting = gc.isenabled()
    gc.disable()
    try:
        doc = weasyprint.HTML(string=html, url_fetcher=fetcher).render(
            stylesheets=[css], font_config=fonts)
        return doc.write_pdf(attachments=[att], pdf_identifier=_digest(html))
    finally:
        if collecting:
            gc.enable()
        logger.setLevel(level)
        if epoch is None:
            os.environ.pop("SOURCE_DATE_EPOCH", None)
        else:
            os.environ["SOURCE_DATE_EPOCH"] = epoch


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32].encode("ascii")
