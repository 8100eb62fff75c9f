"""TCE_bpm as the authors' published code computes it: a reference for comparison only.

Dong, Jiang, Pan & Yu (2025), "Combining Priors with Experience: Confidence
Calibration Based on Binomial Process Modeling", AAAI, arXiv:2412.10658.  Their code
fits the curve by a Gaussian similarity, not a likelihood, and skips the last bin of
every binning; :func:`calreport.metrics.bpm.tce_bpm` is the maximum-likelihood
estimator.  This module re-implements the published objective so the two can be
compared in the tests and benchmarks.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from scipy import optimize, special

from calreport import _validate as v
from calreport.metrics.bpm import _design, _moment_beta, _sorted_inputs, tce_integral


class _PublishedObjectiveResult(NamedTuple):
    tce: float
    a: float
    b: float
    c: float
    objective: float
    alpha: float
    beta: float


def _published_objective_tce(conf: Any, correct: Any) -> _PublishedObjectiveResult:
    """TCE_bpm as computed by the authors' published code, for comparison only.

    Re-implemented from the authors' published code (vectorised float64):
    equal-mass binnings ``k in range(n//100, n//20 + 1, (n//20 - n//100) // 10)`` of
    ``m = n // k`` rows each, the last bin and the remainder skipped; the curve
    maximises ``sum_j exp(-(g(s_j) - acc_j)^2)`` by Nelder-Mead from
    ``(5, 5, 10 ln 0.5)`` (``fatol=1e-10``, SciPy defaults otherwise) with ``a, b``
    unconstrained; ``TCE_1`` under the method-of-moments Beta density.  Needs
    ``n >= 240``.  ``objective`` is the minimised ``-L``.
    """
    s, hit = _sorted_inputs(conf, correct)
    n = s.shape[0]
    v.check_min_rows(n, 240, "conf", why="the published TCE_bpm objective")
    k_min, k_max = n // 100, n // 20
    step = (k_max - k_min) // 10
    means, accs = [], []
    for k in range(k_min, k_max + 1, step):
        m = n // k
        used = (k - 1) * m  # bins 0..k-2 of m rows
        means.append(s[:used].reshape(k - 1, m).mean(axis=1))
        accs.append(hit[:used].reshape(k - 1, m).mean(axis=1))
    design = _design(np.concatenate(means))
    acc = np.concatenate(accs)

    def neg_similarity(theta: np.ndarray) -> float:
        g = special.expit(design @ theta)
        return -float(np.sum(np.exp(-((g - acc) ** 2))))

    x0 = np.array([5.0, 5.0, 10.0 * np.log(0.5)])
    res = optimize.minimize(neg_similarity, x0, method="Nelder-Mead",
                            options={"fatol": 1e-10})
    a, b, c = (float(t) for t in res.x)
    al, be = _moment_beta(s)
    tce = tce_integral((a, b, c), (al, be), p=1.0)
    return _PublishedObjectiveResult(tce, a, b, c, float(res.fun), al, be)
