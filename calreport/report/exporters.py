"""The :class:`Report` object and its outputs: HTML, notebook, Markdown, JSON, PDF.

HTML and Markdown render the context with the Jinja2 templates (autoescaped, CSS
inlined, figures embedded as ``data:`` URIs, nothing fetched).  JSON is built from
the typed result's :meth:`~calreport.result.CalibrationResult.to_dict` plus the
report's verdict facts: numbers stay numbers (NaN as ``null``), never formatted text.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from calreport.report.figures import Drawings
from calreport.report.formatting import environment, to_jsonable
from calreport.report.pdf import render_pdf

__all__ = ["SCHEMA_VERSION", "Report"]

#: Version of the JSON layout of :meth:`Report.to_json`.
SCHEMA_VERSION = "2.0"

#: Context entries that are display text only (the JSON carries their numbers).
_DISPLAY_ONLY = ("settings", "bootstrap", "band_colors", "metric_tables", "group_table",
                 "cards", "figures", "methods", "reason_lines")


class Report:
    """A rendered-on-demand model-card audit report.

    Build one with ``df.calib.report()`` / ``df.groupby(key).calib.report()`` or
    :func:`calreport.report.build_report`.

    Attributes
    ----------
    context : dict
        The plain data the templates render (strings, numbers, lists, dicts).
    result : CalibrationResult
        The numbers the report was built from.
    """

    def __init__(self, context: dict[str, Any], result: Any, timestamp: _dt.datetime,
                 *, template_dir: str | Path | None = None,
                 figures: Mapping[str, Any] | None = None) -> None:
        self.context = context
        self.result = result
        self._timestamp = timestamp
        self._template_dir = template_dir
        # figure id -> (laid-out matplotlib figure, its print PNG); the SVG of a figure
        # is drawn by the first HTML output
        self._drawings = Drawings(figures)
        # fail early on a missing template folder, not at the first render
        environment(False, template_dir)

    @property
    def summary(self) -> Any:
        """The pandas summary of the result (``result.summary()``)."""
        return self.result.summary()

    def __repr__(self) -> str:
        groups = ", ".join(g["name"] for g in self.context["groups"][:5])
        return (f"<Report {self.context['title']!r}: {len(self.context['groups'])} group(s) "
                f"[{groups}]>")

    # ------------------------------------------------------------------ renderers
    def _render(self, name: str, *, markdown: bool = False, **extra: Any) -> str:
        env = environment(markdown, self._template_dir)
        return env.get_template(name).render({**self.context, **extra})

    def _html(self, *, standalone: bool, vector: bool) -> str:
        figures = self._drawings.uris(self.context["figures"], vector=vector)
        return self._render("report.html.j2", standalone=standalone, figures=figures)

    def _print_html(self) -> str:
        """The HTML the PDF is made from: every figure as a PNG (see ``Drawings``)."""
        return self._html(standalone=True, vector=False)

    def to_html(self) -> str:
        """Self-contained HTML document: inline CSS, embedded figures, no external link."""
        return self._html(standalone=True, vector=True)

    def _repr_html_(self) -> str:
        """Notebook display: the report body with its CSS scoped to the report."""
        return self._html(standalone=False, vector=True)

    def to_markdown(self) -> str:
        """Markdown version (same numbers; figures are in the HTML and PDF versions).

        CommonMark ends a line at ``\\n``, ``\\r\\n`` and a bare ``\\r``; a ``\\r`` in a
        user string (a group name, a title) would split a heading or a table row,
        so every ``\\r`` left after rendering becomes a space.
        """
        text = self._render("report.md.j2", markdown=True)
        return text.replace("\r\n", "\n").replace("\r", " ")

    def to_dict(self) -> dict[str, Any]:
        """The JSON content: the result's numbers plus the report's verdict facts."""
        data = {k: val for k, val in self.context.items() if k not in _DISPLAY_ONLY}
        data["result"] = self.result.to_dict()
        data["references"] = [{"number": r["number"], "key": r["key"], "citation": r["text"]}
                              for r in self.context["methods"]["references"]]
        data["figures"] = [{k: f[k] for k in ("id", "title", "caption", "format")}
                           for f in self.context["figures"]]
        return to_jsonable(data)

    def to_json(self, *, indent: int | None = 2) -> str:
        """JSON of the report (numbers as numbers, NaN as ``null``), with ``schema_version``."""
        return json.dumps(self.to_dict(), allow_nan=False, indent=indent, ensure_ascii=False)

    def to_pdf(self, path: str | Path | None = None) -> bytes:
        """Render to PDF with WeasyPrint (``pip install calreport[pdf]``).

        Nothing is fetched: the renderer may read only ``data:`` URIs and the DejaVu
        fonts bundled with matplotlib.  Pages are numbered, headings are PDF
        bookmarks, and the report's JSON is attached.  Byte-identical output for a
        fixed ``timestamp``.  The figures are embedded as 200 dpi PNG images (the
        HTML has its line plots as SVG): WeasyPrint draws SVG node by node in Python, which
        took most of the time of a 200-group report.

        Parameters
        ----------
        path : str or Path, optional
            Also write the PDF there.

        Returns
        -------
        bytes

        Raises
        ------
        ImportError
            When WeasyPrint is not installed.
        """
        data = render_pdf(self._print_html(), self.to_json().encode("utf-8"), self._timestamp)
        if path is not None:
            Path(path).write_bytes(data)
        return data

    def save(self, path: str | Path) -> Path:
        """Write the report; the format follows the suffix (.html, .pdf, .json, .md)."""
        p = Path(path)
        suffix = p.suffix.lower()
        if suffix == ".pdf":
            self.to_pdf(p)
        elif suffix in (".html", ".htm"):
            p.write_text(self.to_html(), encoding="utf-8")
        elif suffix == ".json":
            p.write_text(self.to_json(), encoding="utf-8")
        elif suffix in (".md", ".markdown"):
            p.write_text(self.to_markdown(), encoding="utf-8")
        else:
            raise ValueError(
                f"Cannot save a report as {suffix or 'a file without suffix'!r} ({p.name}): "
                "use .html, .pdf, .json or .md."
            )
        return p
