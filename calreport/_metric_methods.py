"""The per-metric methods shared by ``df.calib`` and ``df.groupby(...).calib``.

One method per registry metric, generated from :data:`calreport.registry.REGISTRY`
when this module is imported: its keyword-only signature holds the settings that
change the metric (with the defaults of :class:`calreport.settings.Settings`), and
its docstring the registry's label, formula and references, with each setting
described once in :data:`calreport.settings.SETTING_DOCS`; so ``help()``,
``inspect.signature`` and tab completion show them, and nothing restates the
registry.  Each method returns a float on a DataFrame and a Series indexed by the
group keys on a GroupBy; a NaN comes with an ``UndefinedMetricWarning`` saying why.

Static type checkers do not see the generated methods (they are set on the class at
import); the calibration tests' p-values are written out in
:class:`calreport._calibration_tests.CalibrationTestMethods`.
"""

from __future__ import annotations

import dataclasses
import inspect
import textwrap
from collections.abc import Callable
from typing import Any

from calreport._calibration_tests import CalibrationTestMethods
from calreport.registry import REGISTRY, Metric
from calreport.settings import SETTING_DOCS, Settings

__all__ = ["MetricMethods"]

#: Width of the generated docstrings' lines (the Parameters descriptions are indented
#: by four spaces within it).
_WIDTH = 84
_PARAM_WIDTH = 80

#: Each setting's default and annotation (as written in :class:`Settings`).
_FIELDS = {f.name: f for f in dataclasses.fields(Settings)}


def _fill(text: str, width: int, indent: str = "") -> str:
    return textwrap.fill(text, width, initial_indent=indent, subsequent_indent=indent,
                         break_on_hyphens=False)


def _docstring(spec: Metric) -> str:
    """Label, Parameters (the metric's settings), Notes (formula), References."""
    parts = [f"{spec.label}."]
    if spec.settings:
        lines = ["Parameters", "----------"]
        for name in spec.settings:
            kind, text = SETTING_DOCS[name]
            lines += [f"{name} : {kind}", _fill(text, _PARAM_WIDTH, "    ")]
        parts.append("\n".join(lines))
    parts.append("Notes\n-----\n" + _fill(spec.formula, _WIDTH))
    parts.append("References\n----------\n"
                 + "\n".join(_fill(ref.text(), _WIDTH) for ref in spec.references))
    return "\n\n".join(parts) + "\n"


def _signature(spec: Metric) -> inspect.Signature:
    """``(self, *, <settings with their defaults>) -> Any``."""
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    params += [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                                 default=_FIELDS[name].default,
                                 annotation=_FIELDS[name].type)
               for name in spec.settings]
    return inspect.Signature(params, return_annotation="Any")


def _method(spec: Metric) -> Callable[..., Any]:
    """The method of one metric: ``self._metric(name, **settings)``."""
    name = spec.name
    defaults = {s: _FIELDS[s].default for s in spec.settings}

    def method(self: Any, **settings: Any) -> Any:
        unknown = settings.keys() - defaults.keys()
        if unknown:
            raise TypeError(f"MetricMethods.{name}() got an unexpected keyword argument "
                            f"{sorted(unknown)[0]!r}")
        return self._metric(name, **{**defaults, **settings})

    method.__name__ = name
    method.__qualname__ = f"MetricMethods.{name}"
    method.__module__ = __name__
    method.__doc__ = _docstring(spec)
    method.__signature__ = _signature(spec)  # type: ignore[attr-defined]
    return method


class MetricMethods(CalibrationTestMethods):
    """Mixin: one method per summary metric; subclasses implement ``_metric`` (the
    calibration tests' p-values come from :class:`CalibrationTestMethods`).

    The metric methods are generated from the registry at import (see the module
    docstring)."""

    def _metric(self, name: str, **settings: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError


# Generated methods: one per registry metric not written out in CalibrationTestMethods.
for _spec in REGISTRY.values():
    if not hasattr(CalibrationTestMethods, _spec.name):
        setattr(MetricMethods, _spec.name, _method(_spec))
del _spec
