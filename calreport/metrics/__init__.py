"""NumPy/SciPy metric core (no pandas): one module per family.

* :mod:`~calreport.metrics.risk` -- Calibrated Size Ratio, sigma, z, P_risk
* :mod:`~calreport.metrics.weighted` -- accuracy, cwA, confusion metrics (classical and cw)
* :mod:`~calreport.metrics.ranking` -- AUC, cwAUC, ROC and cwROC curves
* :mod:`~calreport.metrics.selective` -- coverage, CWSA, CWSA+, AURC
* :mod:`~calreport.metrics.binned` -- reliability table, ECE, MCE
* :mod:`~calreport.metrics.scoring` -- Brier score, log loss, Murphy decomposition
* :mod:`~calreport.metrics.local` -- LOWESS calibration curve, LCS, ICI
* :mod:`~calreport.metrics.bpm` -- TCE_bpm
* :mod:`~calreport.metrics.clinical` -- Hosmer-Lemeshow, Spiegelhalter, Cox
"""

import importlib
import pkgutil
from typing import Any

#: The public family modules, imported on first access (``calreport.metrics.risk``).
_MODULES = tuple(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_MODULES})
