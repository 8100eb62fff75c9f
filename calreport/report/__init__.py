"""The model-card audit report: one result rendered to HTML, PDF, JSON and Markdown.

Layers: :mod:`~calreport.report.context` builds a plain data context from one
:class:`~calreport.result.CalibrationResult` (verdict facts in
:mod:`~calreport.report.verdict`, figures in :mod:`~calreport.report.figures`);
:mod:`~calreport.report.exporters` renders it (:class:`Report`) with the templates
found by :mod:`~calreport.report.formatting`; :mod:`~calreport.report.pdf` makes
the PDF.  ``df.calib.report()`` is :func:`report_from_accessor`.
"""

from calreport.report.accessor import report_from_accessor
from calreport.report.context import build_report
from calreport.report.exporters import SCHEMA_VERSION, Report
from calreport.report.formatting import template_dir, to_jsonable

__all__ = [
    "SCHEMA_VERSION",
    "Report",
    "build_report",
    "report_from_accessor",
    "template_dir",
    "to_jsonable",
]
