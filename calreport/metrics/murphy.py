"""Murphy diagrams: mean elementary scores of probability forecasts over cost ratios.

Every proper scoring rule for a binary event is a mixture of elementary scores
``S_theta`` (Ehm, Gneiting, Jordan & Krüger 2016), one per threshold ``theta`` in
(0, 1). ``S_theta`` is the regret of a user who acts when the forecast exceeds
``theta``: a false alarm costs ``theta``, a miss ``1 - theta``. A Murphy diagram plots
the mean elementary score against ``theta``; a model whose curve is nowhere above
another's is preferred by every such user, whatever their cost ratio.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from calreport import _labels as lab
from calreport import _validate as v

__all__ = ["DEFAULT_N_THETA", "MurphyDiagram", "murphy_diagram"]

#: Default number of thresholds: ``linspace(0, 1, DEFAULT_N_THETA + 2)`` without 0 and 1.
DEFAULT_N_THETA = 199


@dataclass(frozen=True, eq=False)
class MurphyDiagram:
    """Mean elementary scores of binary probability forecasts over thresholds.

    Attributes
    ----------
    theta : ndarray of shape (g,)
        Thresholds (cost ratios) in [0, 1], in the order given.
    score : ndarray of shape (g,)
        Mean elementary score at each threshold (lower is better).
    n : int
        Number of rows.
    """

    theta: np.ndarray
    score: np.ndarray
    n: int


def murphy_diagram(
    score: Any,
    outcome: Any,
    *,
    theta: Any = None,
    n_theta: int = DEFAULT_N_THETA,
    sample_weight: Any = None,
) -> MurphyDiagram:
    """Murphy diagram: mean elementary (extremal) score at each threshold ``theta``.

    Parameters
    ----------
    score : array-like of shape (n,)
        Predicted probability of the positive class (or top-label confidence), in [0, 1].
    outcome : array-like of shape (n,)
        Observed 0/1 outcome (or correctness).
    theta : array-like, optional
        Thresholds in [0, 1]. Default: ``n_theta`` equally spaced points inside (0, 1),
        ``linspace(0, 1, n_theta + 2)[1:-1]`` (step 0.005 by default).
    n_theta : int, default 199
        Size of the default grid.
    sample_weight : array-like of shape (n,), optional
        Non-negative row weights; the mean is weighted.

    Returns
    -------
    MurphyDiagram
        ``theta`` and the mean elementary score ``score``.

    Raises
    ------
    ValueError
        Scores or thresholds outside [0, 1], non-binary outcomes, different lengths,
        invalid weights.
    TypeError
        Non-numeric input.

    Notes
    -----
    Elementary score of a probability ``p`` for the outcome ``y`` at threshold
    ``theta``:

    .. math::

        S_\\theta(p, y) = \\theta \\, 1\\{y = 0,\\ p > \\theta\\}
                         + (1 - \\theta) \\, 1\\{y = 1,\\ p \\le \\theta\\}.

    **Normalisation.** This is twice the elementary score of Ehm et al. (2016),
    section 3, for the expectile at level 1/2 (the mean),
    ``|1{y < x} - 1/2| [(y - theta)_+ - (x - theta)_+ - (y - x) 1{theta < x}]``,
    restricted to ``y`` in {0, 1} (same tie convention at ``p = theta``). With this
    scaling it is the cost-loss regret (false alarm ``theta``, miss ``1 - theta``) and

    .. math:: \\int_0^1 S_\\theta(p, y) \\, d\\theta = (p - y)^2 / 2,

    so the area under the Murphy diagram is half the Brier score. It is also the
    ``ElementaryScore(eta=theta, functional="mean")`` of the model-diagnostics package
    away from ``theta = p`` (that package counts ``p = theta`` as an action).

    Computation: one sort of the scores and weighted cumulative sums of the events
    and non-events; each threshold then costs two binary searches. O((N + G) log N).

    References
    ----------
    Ehm, W., Gneiting, T., Jordan, A. & Krüger, F. (2016). Of Quantiles and
    Expectiles: Consistent Scoring Functions, Choquet Representations and Forecast
    Rankings. Journal of the Royal Statistical Society, Series B 78(3), 505-562.
    doi:10.1111/rssb.12154. Section 3 (elementary scores, Murphy diagrams).

    Examples
    --------
    >>> d = murphy_diagram([0.2, 0.7, 0.9], [0, 1, 0], theta=[0.1, 0.5, 0.8])
    >>> d.score.round(6).tolist()   # (0.1 + 0 + 0.1) / 3, 0.5 / 3, (0.2 + 0.8) / 3
    [0.066667, 0.166667, 0.333333]
    """
    s = v.check_probability(score, "score")
    y = lab.check_binary_indicator(outcome, "outcome")
    v.check_consistent_length(score=s.size, outcome=y.size)
    w = v.check_sample_weight(sample_weight, s.size)
    if theta is None:
        n_theta = v.check_positive_int(n_theta, "n_theta")
        th = np.linspace(0.0, 1.0, n_theta + 2)[1:-1]
    else:
        th = v.check_probability(theta, "theta")
    order = np.argsort(s, kind="stable")
    s_sorted = s[order]
    ws = np.ones(s.size) if w is None else w[order]
    y_sorted = y[order]
    # weighted events / non-events among the rows with p <= theta
    cum_events = np.r_[0.0, np.cumsum(ws * y_sorted)]
    cum_non_events = np.r_[0.0, np.cumsum(ws * ~y_sorted)]
    at_or_below = np.searchsorted(s_sorted, th, side="right")
    misses = cum_events[at_or_below]
    false_alarms = cum_non_events[-1] - cum_non_events[at_or_below]
    total = cum_events[-1] + cum_non_events[-1]
    mean = (th * false_alarms + (1.0 - th) * misses) / total
    return MurphyDiagram(theta=th.copy(), score=mean, n=s.size)
