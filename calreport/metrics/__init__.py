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
