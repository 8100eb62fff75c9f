"""Risk-coverage curve, AURC and E-AURC of a selective classifier.

The selective risk as the confidence threshold sweeps every distinct confidence, its
area (AURC) and the area in excess of a perfect ranking (E-AURC), from Geifman et al.
(2019, arXiv:1805.08206), with ties grouped and optional row weights.  Also the input
validation shared with :mod:`calreport.metrics.selective`, which re-exports the three
public functions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import special

from calreport import _labels as lab
from calreport import _validate as v
from calreport.metrics._auc_kernels import aurc_unweighted as _aurc_unweighted

__all__ = ["aurc", "e_aurc", "risk_coverage_curve"]


# ----------------------------------------------------------------------------- inputs
def _prepare(
    conf: Any, correct: Any, sample_weight: Any, *, flags: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Validated confidence, correctness (float 0/1; ``flags``: bool, not copied) and
    weights (None when absent)."""
    c = v.check_probability(conf, "conf")
    ok = lab.binary_flags(correct, "correct") if flags else lab.binary_outcome(correct,
                                                                              "correct")
    v.check_consistent_length(conf=c.shape[0], correct=ok.shape[0])
    w = v.check_sample_weight(sample_weight, c.shape[0])
    return c, ok, w


def _aurc(c: np.ndarray, ok: np.ndarray, w: np.ndarray | None) -> float:
    if w is None:
        return _aurc_unweighted(c, ok)
    cum_w, cum_err, _, total = _risk_coverage(c, ok, w)
    group_w = np.diff(cum_w, prepend=0.0)
    return float(np.dot(group_w, cum_err / cum_w) / total)


# ------------------------------------------------------------ risk-coverage, AURC
def _risk_coverage(
    c: np.ndarray, ok: np.ndarray, w: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Cumulative weight, cumulative error weight, thresholds, total (ties grouped)."""
    keep = w > 0
    if not keep.all():
        c, ok, w = c[keep], ok[keep], w[keep]
    order = np.argsort(c)[::-1]  # ties are grouped below: stability is irrelevant
    cd = c[order]
    ends = np.flatnonzero(np.r_[cd[1:] != cd[:-1], True])
    wd = w[order]
    cum_w = np.cumsum(wd)[ends]
    cum_err = np.cumsum(wd * (1.0 - ok[order]))[ends]
    return cum_w, cum_err, cd[ends], np.asarray(cum_w[-1])


def risk_coverage_curve(
    conf: Any, correct: Any, *, sample_weight: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Selective risk against coverage when the least confident predictions are rejected first.

    Parameters
    ----------
    conf : array-like of float, shape (N,)
        Top-label confidence in [0, 1].
    correct : array-like of bool or 0/1, shape (N,)
        Whether each prediction is correct.
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights; rows of weight 0 are ignored.

    Returns
    -------
    coverage : ndarray of float64
        Increasing, ending at 1.
    selective_risk : ndarray of float64
        Error rate among the rows with ``conf >= threshold``.
    thresholds : ndarray of float64
        The distinct confidences, decreasing: one point per threshold.

    Raises
    ------
    ValueError, TypeError
        On invalid input.

    Notes
    -----
    Risk-coverage curve of Geifman & El-Yaniv (2017, arXiv:1705.08500);
    compared with CWSA by Shahnazari et al. (2025, arXiv:2505.18622), sections 2.2
    and 2.4.  Rows tied in confidence are accepted together (one point per
    distinct confidence), so the curve does not depend on the order of the rows.

    References
    ----------
    .. [1] Geifman, Y. & El-Yaniv, R. (2017). Selective Classification for Deep Neural
       Networks. Advances in Neural Information Processing Systems 30 (NeurIPS).
       arXiv:1705.08500.
    .. [2] Shahnazari, K., Ayyoubzadeh, S. M., Keshtparvar, M. & Ghaffari, P. (2025).
       Trust, or Don't Predict: Introducing the CWSA Family for Confidence-Aware
       Model Evaluation. arXiv preprint. arXiv:2505.18622. Sections 2.2 and 2.4.

    Examples
    --------
    >>> cov, risk, thr = risk_coverage_curve([0.9, 0.8, 0.8, 0.6], [1, 1, 0, 0])
    >>> cov.tolist(), risk.tolist(), thr.tolist()
    ([0.25, 0.75, 1.0], [0.0, 0.3333333333333333, 0.5], [0.9, 0.8, 0.6])
    """
    c, ok, w = _prepare(conf, correct, sample_weight)
    cum_w, cum_err, thr, total = _risk_coverage(c, ok, np.ones(c.shape[0]) if w is None else w)
    return cum_w / total, cum_err / cum_w, thr


def aurc(conf: Any, correct: Any, *, sample_weight: Any = None) -> float:
    """Area under the risk-coverage curve (lower is better).

    Parameters
    ----------
    conf : array-like of float, shape (N,)
        Top-label confidence in [0, 1].
    correct : array-like of bool or 0/1, shape (N,)
        Whether each prediction is correct.
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights.

    Returns
    -------
    float
        In [0, 1].

    Raises
    ------
    ValueError, TypeError
        On invalid input.

    Notes
    -----
    Geifman, Uziel & El-Yaniv (2019, arXiv:1805.08206); compared with CWSA by
    Shahnazari et al. (2025, arXiv:2505.18622), sections 2.4 and 5.  Reject the
    least confident rows first; AURC is the mean over the N coverage levels of the
    selective risk,

    ``AURC = (1/N) sum_i risk({j : c_j >= c_i})``,

    i.e. every row is charged the error rate of the rows at least as confident as
    itself.  Without ties this is ``(1/N) sum_{m=1}^{N} risk(top m)``; rows tied in
    confidence share the risk at the coverage where their whole tie group is
    accepted, so the value does not depend on row order.  Equivalently the
    right-endpoint sum ``sum_g (coverage_g - coverage_{g-1}) risk_g`` over the points
    of :func:`risk_coverage_curve`.  Weighted: rows count ``w_i``.

    References
    ----------
    .. [1] Geifman, Y., Uziel, G. & El-Yaniv, R. (2019). Bias-Reduced Uncertainty
       Estimation for Deep Neural Classifiers. International Conference on Learning
       Representations (ICLR). arXiv:1805.08206.
    .. [2] Shahnazari, K., Ayyoubzadeh, S. M., Keshtparvar, M. & Ghaffari, P. (2025).
       Trust, or Don't Predict: Introducing the CWSA Family for Confidence-Aware
       Model Evaluation. arXiv preprint. arXiv:2505.18622. Sections 2.4 and 5.

    Examples
    --------
    >>> round(aurc([0.9, 0.8, 0.8, 0.6], [1, 1, 0, 0]), 6)  # (0 + 2 * 1/3 + 1/2) / 4
    0.291667
    """
    # unweighted: the flags as bool (the packed-key kernel), not as a float copy
    return _aurc(*_prepare(conf, correct, sample_weight, flags=sample_weight is None))


def _optimal_aurc(ok: np.ndarray, w: np.ndarray | None) -> float:
    """AURC of the perfect ranking: every correct row first, errors one at a time.

    ``(1/N) sum_{j=1}^{N_err} j / (N_correct + j)`` =
    ``(N_err - N_correct (psi(N + 1) - psi(N_correct + 1))) / N``, with ``psi`` the
    digamma function (harmonic numbers); weights enter as frequencies.
    """
    if w is None:
        total, w_ok = float(ok.shape[0]), float(np.count_nonzero(ok))
    else:
        total, w_ok = float(w.sum()), float((w * ok).sum())
    w_err = total - w_ok
    if w_err <= 0:
        return 0.0
    harmonic = float(special.digamma(total + 1.0) - special.digamma(w_ok + 1.0))
    return (w_err - w_ok * harmonic) / total


def e_aurc(conf: Any, correct: Any, *, sample_weight: Any = None) -> float:
    """Excess AURC: AURC minus the AURC of a perfect confidence ranking.

    Parameters
    ----------
    conf : array-like of float, shape (N,)
        Top-label confidence in [0, 1].
    correct : array-like of bool or 0/1, shape (N,)
        Whether each prediction is correct.
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights, treated as frequencies (see Notes).

    Returns
    -------
    float
        0 for a ranking that puts every correct prediction above every error.

    Raises
    ------
    ValueError, TypeError
        On invalid input.

    Notes
    -----
    Geifman, Uziel & El-Yaniv (2019, arXiv:1805.08206); Shahnazari et al. (2025,
    arXiv:2505.18622), section 2.2.
    ``E-AURC = AURC - AURC*``, where AURC* is the AURC of the same predictions ranked
    perfectly (all correct ones first, then the errors one by one), computed exactly
    for the finite sample:

    ``AURC* = (1/N) sum_{j=1}^{N_err} j / (N_correct + j)``
    ``      = (N_err - N_correct (psi(N + 1) - psi(N_correct + 1))) / N``.

    Its large-N limit is the often-quoted ``r + (1 - r) ln(1 - r)`` with ``r`` the
    error rate.  With sample weights, ``N``, ``N_err`` and ``N_correct`` are weight
    sums: integer weights give exactly the value of the data with repeated rows, and
    non-integer weights use the digamma continuation of the sum.

    References
    ----------
    .. [1] Geifman, Y., Uziel, G. & El-Yaniv, R. (2019). Bias-Reduced Uncertainty
       Estimation for Deep Neural Classifiers. International Conference on Learning
       Representations (ICLR). arXiv:1805.08206.
    .. [2] Shahnazari, K., Ayyoubzadeh, S. M., Keshtparvar, M. & Ghaffari, P. (2025).
       Trust, or Don't Predict: Introducing the CWSA Family for Confidence-Aware
       Model Evaluation. arXiv preprint. arXiv:2505.18622. Section 2.2.

    Examples
    --------
    An error ranked first: AURC = (1/1 + 1/2 + 1/3 + 2/4) / 4 = 7/12 and
    AURC* = (1/3 + 2/4) / 4 = 5/24, so E-AURC = 3/8.

    >>> round(e_aurc([0.9, 0.8, 0.7, 0.6], [0, 1, 1, 0]), 6)
    0.375
    """
    c, ok, w = _prepare(conf, correct, sample_weight)
    return _aurc(c, ok, w) - _optimal_aurc(ok, w)
