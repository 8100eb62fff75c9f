"""Brier and log-loss sums of the CORP decomposition (:mod:`calreport.metrics.corp`).

The mean score of the forecasts, of the blocks of an isotonic fit (each block's
events and weight at its pooled forecast) and of the constant base-rate forecast,
for the two scoring rules of :func:`calreport.metrics.corp.corp_decomposition`,
summed a chunk of rows at a time.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import special

from calreport.metrics._chunks import row_slices

#: Probabilities are clipped to ``[_LOG_EPS, 1 - _LOG_EPS]`` in the log loss, as in
#: :func:`calreport.metrics.scoring.log_loss` (float64 machine epsilon).
_LOG_EPS = float(np.finfo(np.float64).eps)


def _chunked_sum(part: Callable[[slice], float], n: int) -> float:
    """``sum`` of ``part`` over the rows in chunks (no N-row temporaries)."""
    return sum(part(sl) for sl in row_slices(n))


def _group_score(events: np.ndarray, weight: np.ndarray | None, p: np.ndarray,
                 rule: str) -> float:
    """``sum_j E_j S(p_j, 1) + (W_j - E_j) S(p_j, 0)`` (``weight`` None: ``W_j = 1``)."""
    misses = 1.0 - events if weight is None else weight - events
    if rule == "brier":
        return float(np.sum(events * (1.0 - p) ** 2 + misses * p ** 2))
    q = np.clip(p, _LOG_EPS, 1.0 - _LOG_EPS)
    return -float(np.sum(special.xlogy(events, q) + special.xlogy(misses, 1.0 - q)))


def _mean_score(p: np.ndarray, y: np.ndarray, w: np.ndarray | None, rule: str) -> float:
    def part(sl: slice) -> float:
        pc, yc = p[sl], y[sl]
        if rule == "brier":
            loss = (pc - yc) ** 2
        else:
            q = np.clip(pc, _LOG_EPS, 1.0 - _LOG_EPS)
            loss = -(special.xlogy(yc, q) + special.xlogy(1.0 - yc, 1.0 - q))
        return float(loss.sum() if w is None else np.dot(w[sl], loss))

    total = _chunked_sum(part, p.size)
    return total / (p.size if w is None else float(w.sum()))


def _base_rate_score(rate: float, rule: str) -> float:
    """Mean score of the constant forecast ``rate`` when a fraction ``rate`` are events."""
    if rule == "brier":
        return rate * (1.0 - rate)
    q = min(max(rate, _LOG_EPS), 1.0 - _LOG_EPS)
    return -float(special.xlogy(rate, q) + special.xlogy(1.0 - rate, 1.0 - q))
