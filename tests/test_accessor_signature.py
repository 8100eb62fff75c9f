"""help() and tab completion show every report() parameter, and each reaches the report."""

from __future__ import annotations

import inspect
import pydoc

import pandas as pd
import pytest

import calreport
import calreport.report
from calreport.report import report_from_accessor


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"y": [0, 1, 1, 0] * 30, "p": [0.2, 0.7, 0.9, 0.4] * 30,
                         "g": ["a", "b"] * 60})


@pytest.fixture(params=["frame", "groupby"])
def accessor(request):
    df = _frame()
    return df.calib if request.param == "frame" else df.groupby("g").calib


def test_report_signature_is_the_implementations(accessor):
    shown = inspect.signature(accessor.report).parameters
    wanted = {k: p for k, p in inspect.signature(report_from_accessor).parameters.items()
              if k != "accessor"}
    assert "kwargs" not in shown
    assert list(shown) == list(wanted)
    for name, param in wanted.items():
        assert shown[name].default == param.default, name
        assert shown[name].kind is inspect.Parameter.KEYWORD_ONLY


def test_help_lists_and_documents_every_parameter(accessor):
    text = pydoc.render_doc(accessor.report, renderer=pydoc.plaintext)
    assert "**kwargs" not in text
    signature_line = text.splitlines()[2]
    assert signature_line.startswith("report(*, title: ")
    for name in ("title", "ci", "n_boot", "model_version", "row_label", "seed"):
        assert f" {name}: " in signature_line
    doc = inspect.getdoc(accessor.report)
    documented = doc.split("Parameters\n----------")[1].split("Returns\n-------")[0]
    for name in inspect.signature(accessor.report).parameters:
        assert name in documented, name


def test_every_parameter_reaches_the_implementation(accessor, monkeypatch):
    seen = {}

    def record(acc, **kwargs):
        seen.update(kwargs, accessor=acc)
        return "report"

    monkeypatch.setattr(calreport.report, "report_from_accessor", record)
    names = list(inspect.signature(accessor.report).parameters)
    given = {name: object() for name in names}  # a distinct value per parameter
    assert accessor.report(**given) == "report"
    assert {k: v for k, v in seen.items() if k != "accessor"} == given
    assert type(seen["accessor"]) is type(accessor)
