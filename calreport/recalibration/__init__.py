"""Recalibration: calibrators users can ship, and an advisor that compares them.

* :mod:`~calreport.recalibration.parametric` -- Platt scaling, beta calibration,
  temperature scaling;
* :mod:`~calreport.recalibration.isotonic` -- isotonic regression and its risk-aware
  variant (plateaus as Jeffreys posterior means, never 0 or 1);
* :mod:`~calreport.recalibration.venn_abers` -- inductive Venn-Abers;
* :mod:`~calreport.recalibration.recalibrator` -- :class:`Recalibrator`, any method
  by name;
* :mod:`~calreport.recalibration.crossfit` -- seeded, stratified cross-fitting;
* :mod:`~calreport.recalibration.advisor` -- :func:`recalibrate`, the out-of-fold
  table, paired-bootstrap differences and the recommendation
  (:class:`RecalibrationResult`).

Every calibrator follows scikit-learn's conventions (``fit(scores, y,
sample_weight=None)``, ``predict_proba``, ``transform``, ``get_params``,
``set_params``), is picklable, and can be the last step of a scikit-learn
``Pipeline`` after a step that outputs a fitted model's probabilities.
"""

from calreport.recalibration._base import (
    BinaryReductionCalibrator,
    Calibrator,
    IdentityCalibrator,
    NotFittedError,
)
from calreport.recalibration.advisor import DEFAULT_METHODS, recalibrate
from calreport.recalibration.crossfit import METHODS, make_calibrator
from calreport.recalibration.isotonic import IsotonicCalibrator, RiskAwareIsotonicCalibrator
from calreport.recalibration.parametric import (
    BetaCalibrator,
    PlattCalibrator,
    TemperatureScaling,
)
from calreport.recalibration.recalibrator import Recalibrator
from calreport.recalibration.result import RecalibrationResult
from calreport.recalibration.venn_abers import VennAbersCalibrator

__all__ = [
    "DEFAULT_METHODS",
    "METHODS",
    "BetaCalibrator",
    "BinaryReductionCalibrator",
    "Calibrator",
    "IdentityCalibrator",
    "IsotonicCalibrator",
    "NotFittedError",
    "PlattCalibrator",
    "RecalibrationResult",
    "Recalibrator",
    "RiskAwareIsotonicCalibrator",
    "TemperatureScaling",
    "VennAbersCalibrator",
    "make_calibrator",
    "recalibrate",
]
