"""``Recalibrator``: one estimator whose recalibration method is a parameter."""

from __future__ import annotations

import numpy as np

from calreport.recalibration._base import Calibrator
from calreport.recalibration.crossfit import make_calibrator

__all__ = ["Recalibrator"]


class Recalibrator(Calibrator):
    """A calibrator of any method, chosen by name (so a grid search can tune it).

    Parameters
    ----------
    method : str, default "platt"
        A key of :data:`calreport.recalibration.METHODS` ("none", "platt",
        "temperature", "beta", "isotonic", "venn_abers", "risk_aware_isotonic"), e.g.
        the ``recommended`` method of ``df.calib.recalibrate()``.
    multiclass : {"ovr", "top_label"}, default "ovr"
        Multiclass reduction of the one-probability methods.

    Attributes
    ----------
    calibrator_ : Calibrator
        The fitted calibrator of ``method``.
    classes_ : ndarray

    Examples
    --------
    >>> import numpy as np
    >>> s = np.array([0.1, 0.3, 0.35, 0.6, 0.8, 0.9])
    >>> rc = Recalibrator("venn_abers").fit(s, [0, 0, 1, 0, 1, 1])
    >>> type(rc.calibrator_).__name__, rc.predict_proba(s).shape
    ('VennAbersCalibrator', (6, 2))
    """

    def __init__(self, method: str = "platt", multiclass: str = "ovr") -> None:
        self.method = method
        self.multiclass = multiclass

    def _fit_matrix(self, P: np.ndarray, codes: np.ndarray, w: np.ndarray) -> None:
        self.calibrator_ = make_calibrator(self.method, self.multiclass)
        self.calibrator_.fit(P, codes, w, classes=np.arange(P.shape[1]))

    def _predict_matrix(self, P: np.ndarray) -> np.ndarray:
        return self.calibrator_.predict_proba(P)
