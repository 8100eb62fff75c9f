"""calreport: can this classifier's confidence be trusted, and where is it dangerous?

Calibration, overconfidence-risk and confidence-weighted metrics for the prediction
columns of a pandas DataFrame (``df.calib``), per model, dataset or subgroup
(``df.groupby(key).calib``), with bootstrap confidence intervals and model-card
audit reports.

Importing the package registers the ``calib`` accessors.
"""

from calreport import _lazy, datasets, metrics, recalibration
from calreport._version import __version__
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

_lazy.install()  # ddf.calib and pl_df.calib, once Dask or Polars is imported

__all__ = [
    "REGISTRY",
    "Accumulator",
    "BetaCalibrator",
    "CalibAccessor",
    "CalibrationResult",
    "Comparison",
    "ConfidenceProfile",
    "GroupByCalibAccessor",
    "IsotonicCalibrator",
    "PlattCalibrator",
    "RecalibrationResult",
    "Recalibrator",
    "RiskAwareIsotonicCalibrator",
    "Settings",
    "TemperatureScaling",
    "UndefinedGateError",
    "UndefinedMetricWarning",
    "VennAbersCalibrator",
    "__version__",
    "check",
    "datasets",
    "metrics",
    "recalibration",
    "summarize",
    "summary",
]
