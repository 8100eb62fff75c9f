"""calreport: can this classifier's confidence be trusted, and where is it dangerous?

Calibration, overconfidence-risk and confidence-weighted metrics for the prediction
columns of a pandas DataFrame (``df.calib``), per model, dataset or subgroup
(``df.groupby(key).calib``), with bootstrap confidence intervals and model-card
audit reports.

Importing the package registers the ``calib`` accessors.
"""

from calreport import datasets, metrics
from calreport._version import __version__
from calreport.accessor import CalibAccessor, GroupByCalibAccessor, UndefinedMetricWarning
from calreport.profile import ConfidenceProfile
from calreport.summary import METRICS, SummarySettings, summarize, summary

__all__ = [
    "METRICS",
    "CalibAccessor",
    "ConfidenceProfile",
    "GroupByCalibAccessor",
    "SummarySettings",
    "UndefinedMetricWarning",
    "__version__",
    "datasets",
    "metrics",
    "summarize",
    "summary",
]
