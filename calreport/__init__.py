"""calreport: can this classifier's confidence be trusted, and where is it dangerous?

Calibration, overconfidence-risk and confidence-weighted metrics for the prediction
columns of a pandas DataFrame (``df.calib``), per model, dataset or subgroup
(``df.groupby(key).calib``), with bootstrap confidence intervals and model-card
audit reports.
"""

from calreport._version import __version__
from calreport.profile import ConfidenceProfile

__all__ = ["ConfidenceProfile", "__version__"]
