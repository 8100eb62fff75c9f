"""calreport: can this classifier's confidence be trusted, and where is it dangerous?

Calibration, overconfidence-risk and confidence-weighted metrics for the prediction
columns of a pandas DataFrame (``df.calib``), per model, dataset or subgroup
(``df.groupby(key).calib``), with bootstrap confidence intervals and model-card
audit reports.

Importing the package registers the ``calib`` accessors.  It is cheap: the names
below are imported on first use (PEP 562), and ``df.calib`` loads the metric stack
the first time it is called.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from calreport import _lazy
from calreport._version import __version__

_lazy.install()  # df.calib now or once pandas is imported; ddf.calib and pl_df.calib too

#: Public name -> the module that defines it, imported on first access.
_EXPORTS = {
    "REGISTRY": "calreport.registry",
    "Accumulator": "calreport.accumulator",
    "BetaCalibrator": "calreport.recalibration",
    "CalibAccessor": "calreport.accessor",
    "CalibrationResult": "calreport.result",
    "Comparison": "calreport.compare",
    "ConfidenceProfile": "calreport.profile",
    "GroupByCalibAccessor": "calreport.accessor",
    "IsotonicCalibrator": "calreport.recalibration",
    "PlattCalibrator": "calreport.recalibration",
    "RecalibrationResult": "calreport.recalibration",
    "Recalibrator": "calreport.recalibration",
    "RiskAwareIsotonicCalibrator": "calreport.recalibration",
    "Settings": "calreport.settings",
    "TemperatureScaling": "calreport.recalibration",
    "UndefinedGateError": "calreport.result",
    "UndefinedMetricWarning": "calreport.accessor",
    "VennAbersCalibrator": "calreport.recalibration",
    "check": "calreport.result",
    "summarize": "calreport.summary",
    "summary": "calreport.functional",
}
#: Subpackages reachable as attributes (``calreport.metrics.ece``).
_SUBPACKAGES = ("datasets", "metrics", "recalibration")

__all__ = [  # literal, for static tools; equal to the names above (a test checks)
    "REGISTRY", "Accumulator", "BetaCalibrator", "CalibAccessor", "CalibrationResult",
    "Comparison", "ConfidenceProfile", "GroupByCalibAccessor", "IsotonicCalibrator",
    "PlattCalibrator", "RecalibrationResult", "Recalibrator", "RiskAwareIsotonicCalibrator",
    "Settings", "TemperatureScaling", "UndefinedGateError", "UndefinedMetricWarning",
    "VennAbersCalibrator", "__version__", "check", "datasets", "metrics", "recalibration",
    "summarize", "summary",
]


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        return importlib.import_module(f"calreport.{name}")
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'calreport' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _Package(types.ModuleType):
    """The package module: ``calreport.summary`` names the function
    (:func:`calreport.functional.summary`) even after the submodule of the same name
    is imported, whose import would otherwise bind the name to the module."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "summary" and isinstance(value, types.ModuleType):
            return  # the submodule stays reachable as sys.modules["calreport.summary"]
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


if TYPE_CHECKING:  # the names above, for type checkers and IDEs
    from calreport import datasets, metrics, recalibration
    from calreport.accessor import CalibAccessor, GroupByCalibAccessor, UndefinedMetricWarning
    from calreport.accumulator import Accumulator
    from calreport.compare import Comparison
    from calreport.functional import summary
    from calreport.profile import ConfidenceProfile
    from calreport.recalibration import (
        BetaCalibrator,
        IsotonicCalibrator,
        PlattCalibrator,
        RecalibrationResult,
        Recalibrator,
        RiskAwareIsotonicCalibrator,
        TemperatureScaling,
        VennAbersCalibrator,
    )
    from calreport.registry import REGISTRY
    from calreport.result import CalibrationResult, UndefinedGateError, check
    from calreport.settings import Settings
    from calreport.summary import summarize
