"""Selective prediction: coverage, selective accuracy, CWSA, CWSA+, risk-coverage, AURC.

A selective classifier answers only when its top-label confidence reaches a
threshold: ``S_tau = {i : c_i >= tau}``.  CWSA and CWSA+ (Shahnazari et al. (2025,
arXiv:2505.18622), section 3) weight each retained prediction by
``phi(c) = (c - tau) / (1 - tau)``; AURC and E-AURC (Geifman et al. (2019,
arXiv:1805.08206)) summarise the whole risk-coverage curve.  Every function takes the
top-label confidence ``conf`` and the 0/1 correctness ``correct``.  The risk-coverage
curve, AURC and E-AURC live in :mod:`calreport.metrics.risk_coverage` and are
re-exported here.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from calreport import _validate as v
from calreport.metrics._auc_kernels import (  # noqa: F401  (re-exported for tests)
    aurc_unweighted as _aurc_unweighted,
)
from calreport.metrics._chunks import row_slices
from calreport.metrics.risk_coverage import (  # noqa: F401  (_aurc re-exported for tests)
    _aurc,
    _prepare,
    aurc,
    e_aurc,
    risk_coverage_curve,
)

__all__ = [
    "DEFAULT_TAUS",
    "aurc",
    "coverage",
    "cwsa",
    "cwsa_plus",
    "e_aurc",
    "risk_coverage_curve",
    "selective_accuracy",
    "selective_risk",
    "selective_sweep",
]

#: Default threshold grid of :func:`selective_sweep`, the grid of the CWSA authors'
#: sweeps (Shahnazari et al. (2025, arXiv:2505.18622), section 5: tau from 0.5 to 0.99).
DEFAULT_TAUS: np.ndarray = np.linspace(0.5, 0.99, 20)
DEFAULT_TAUS.flags.writeable = False

_NORMALIZE = ("selected", "all")


# ----------------------------------------------------------------------------- core
def _check_taus(taus: Any) -> np.ndarray:
    t = v.as_float_array(taus, "taus")
    bad = (t < 0.0) | (t >= 1.0)
    if bad.any():
        v.check_tau(float(t[bad][0]))  # raises, naming the first bad threshold
    return t


def _selected_sums(c: np.ndarray, ok: np.ndarray, w: np.ndarray | None,
                   tau: float) -> dict[str, float]:
    """Weighted sums over S_tau = {c >= tau} at one threshold."""
    # sums, not np.dot (BLAS threads stall on a busy machine)
    if w is None:
        # phi * 1[c >= tau] = max(c - tau, 0) / (1 - tau): no compress of the rows;
        # blocks of rows, so no temporary holds N rows
        selected = correct = 0
        phi = phi_correct = 0.0
        for sl in row_slices(c.shape[0]):
            cb, okb = c[sl], ok[sl]
            sel = cb >= tau
            selected += int(np.count_nonzero(sel))
            correct += int(np.count_nonzero(np.logical_and(sel, okb)))
            gap = cb - tau
            np.maximum(gap, 0.0, out=gap)
            phi += float(gap.sum())
            phi_correct += float((gap * okb).sum())
        scale = 1.0 - tau
        return {"total": float(c.shape[0]), "selected": float(selected),
                "correct": float(correct), "phi": phi / scale,
                "phi_correct": phi_correct / scale}
    sel = c >= tau
    phi = (c[sel] - tau) / (1.0 - tau)
    ok_sel = ok[sel]
    ws = w[sel]
    w_phi = ws * phi
    return {"total": float(w.sum()), "selected": float(ws.sum()),
            "correct": float((ws * ok_sel).sum()), "phi": float(w_phi.sum()),
            "phi_correct": float((w_phi * ok_sel).sum())}


def _ratio(num: float, den: float) -> float:
    return num / den if den > 0 else float("nan")


def _cwsa_ratio(num: float, s: dict[str, float], normalize: str) -> float:
    """CWSA-type sum divided by |S_tau| or N; an empty S_tau gives NaN or 0 (``"all"``)."""
    if s["selected"] <= 0:
        return 0.0 if normalize == "all" else float("nan")
    return num / (s["selected"] if normalize == "selected" else s["total"])




# --------------------------------------------------------------------- at one tau
def coverage(conf: Any, *, tau: float = 0.5, sample_weight: Any = None) -> float:
    """Fraction of predictions retained at threshold ``tau``.

    Parameters
    ----------
    conf : array-like of float, shape (N,)
        Top-label confidence in [0, 1].
    tau : float, default 0.5
        Threshold in [0, 1); a prediction is retained when ``conf >= tau``.
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights.

    Returns
    -------
    float
        ``|S_tau| / N`` (weighted: retained weight over total weight).

    Raises
    ------
    ValueError, TypeError
        On invalid confidences, weights or ``tau``.

    Notes
    -----
    Shahnazari et al. (2025, arXiv:2505.18622), section 3.1:
    ``S_tau = {i : c_i >= tau}``, coverage ``|S_tau| / n``.

    References
    ----------
    .. [1] Shahnazari, K., Ayyoubzadeh, S. M., Keshtparvar, M. & Ghaffari, P. (2025).
       Trust, or Don't Predict: Introducing the CWSA Family for Confidence-Aware
       Model Evaluation. arXiv preprint. arXiv:2505.18622. Section 3.1.

    Examples
    --------
    >>> coverage([0.4, 0.6, 0.9, 0.5])
    0.75
    """
    t = v.check_tau(tau)
    c = v.check_probability(conf, "conf")
    w = v.check_sample_weight(sample_weight, c.shape[0])
    sel = c >= t
    if w is None:
        return float(sel.mean())
    return float(w[sel].sum() / w.sum())


def selective_accuracy(
    conf: Any, correct: Any, *, tau: float = 0.5, sample_weight: Any = None
) -> float:
    """Accuracy over the retained predictions ``S_tau``.

    Parameters
    ----------
    conf : array-like of float, shape (N,)
        Top-label confidence in [0, 1].
    correct : array-like of bool or 0/1, shape (N,)
        Whether each prediction is correct.
    tau : float, default 0.5
        Threshold in [0, 1).
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights.

    Returns
    -------
    float
        NaN when ``S_tau`` is empty (or has no weight).

    Raises
    ------
    ValueError, TypeError
        On invalid input.

    Notes
    -----
    Shahnazari et al. (2025, arXiv:2505.18622), section 3.1: the classification
    accuracy computed over the selected instances only.

    References
    ----------
    .. [1] Shahnazari, K., Ayyoubzadeh, S. M., Keshtparvar, M. & Ghaffari, P. (2025).
       Trust, or Don't Predict: Introducing the CWSA Family for Confidence-Aware
       Model Evaluation. arXiv preprint. arXiv:2505.18622. Section 3.1.

    Examples
    --------
    >>> selective_accuracy([0.4, 0.6, 0.9, 0.5], [0, 1, 1, 0])
    0.6666666666666666
    """
    t = v.check_tau(tau)
    s = _selected_sums(*_prepare(conf, correct, sample_weight, flags=True), t)
    return _ratio(s["correct"], s["selected"])


def selective_risk(
    conf: Any, correct: Any, *, tau: float = 0.5, sample_weight: Any = None
) -> float:
    """Error rate over the retained predictions: ``1 - selective_accuracy``.

    Parameters
    ----------
    conf : array-like of float, shape (N,)
        Top-label confidence in [0, 1].
    correct : array-like of bool or 0/1, shape (N,)
        Whether each prediction is correct.
    tau : float, default 0.5
        Threshold in [0, 1).
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights.

    Returns
    -------
    float
        NaN when ``S_tau`` is empty.

    Raises
    ------
    ValueError, TypeError
        On invalid input.

    Notes
    -----
    Selective risk of Geifman & El-Yaniv (2017, arXiv:1705.08500), as used by
    Shahnazari et al. (2025, arXiv:2505.18622), section 2.2 (risk-coverage curves).

    References
    ----------
    .. [1] Geifman, Y. & El-Yaniv, R. (2017). Selective Classification for Deep Neural
       Networks. Advances in Neural Information Processing Systems 30 (NeurIPS).
       arXiv:1705.08500.
    .. [2] Shahnazari, K., Ayyoubzadeh, S. M., Keshtparvar, M. & Ghaffari, P. (2025).
       Trust, or Don't Predict: Introducing the CWSA Family for Confidence-Aware
       Model Evaluation. arXiv preprint. arXiv:2505.18622. Section 2.2.

    Examples
    --------
    >>> selective_risk([0.4, 0.6, 0.9, 0.5], [0, 1, 1, 0])
    0.33333333333333337
    """
    return 1.0 - selective_accuracy(conf, correct, tau=tau, sample_weight=sample_weight)


def cwsa(
    conf: Any, correct: Any, *, tau: float = 0.5, sample_weight: Any = None,
    normalize: Literal["selected", "all"] = "selected",
) -> float:
    """Confidence-Weighted Selective Accuracy (CWSA), in [-1, 1].

    Parameters
    ----------
    conf : array-like of float, shape (N,)
        Top-label confidence in [0, 1].
    correct : array-like of bool or 0/1, shape (N,)
        Whether each prediction is correct.
    tau : float, default 0.5
        Threshold in [0, 1) (Martin-Maroto et al. (2026, arXiv:2605.01796), appendix
        Table 7, reports CWSA at 0.5).
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights (``|S_tau|`` becomes the retained weight).
    normalize : {"selected", "all"}, default "selected"
        Divide by the retained count ``|S_tau|`` (the paper's formula) or by all ``N``
        rows (the authors' published code, see Notes).

    Returns
    -------
    float
        NaN when ``S_tau`` is empty and ``normalize="selected"``; 0.0 when it is empty
        and ``normalize="all"`` (as the published code).

    Raises
    ------
    ValueError, TypeError
        On invalid input, ``tau`` outside [0, 1) or an unknown ``normalize``.

    Notes
    -----
    Shahnazari et al. (2025, arXiv:2505.18622), section 3.2:

    ``CWSA(tau) = (1 / |S_tau|) sum_{i in S_tau} phi(c_i) (2 * 1[correct_i] - 1)``,
    ``phi(c) = (c - tau) / (1 - tau)``, ``S_tau = {i : c_i >= tau}``.

    Correct predictions earn ``phi``, errors lose ``phi``: a confident error costs
    most.  The authors' published code (github.com/jay-gatz/CWSA, ``Metrics/cwsa.py``)
    averages the per-row scores over all N rows, rejected rows scoring 0, so its
    number is ``coverage * CWSA``; its CWSA+ divides by ``|S_tau|`` as the paper.  On
    the authors' MNIST predictions at tau = 0.5 (coverage 0.9945) the repository
    reports CWSA = 0.9394011224 (``Results/mnist_metrics.csv``) while the paper's
    formula gives 0.9445964026 on the same predictions
    (``Results/Real World Predictions/mnist_predictions.csv``, repository commit
    c55d6fb).  ``normalize="all"`` reproduces the published numbers.

    References
    ----------
    .. [1] Shahnazari, K., Ayyoubzadeh, S. M., Keshtparvar, M. & Ghaffari, P. (2025).
       Trust, or Don't Predict: Introducing the CWSA Family for Confidence-Aware
       Model Evaluation. arXiv preprint. arXiv:2505.18622. Section 3.2.
    .. [2] Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond
       ECE: Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics.
       arXiv preprint. arXiv:2605.01796. Appendix Table 7.

    Examples
    --------
    >>> round(cwsa([0.4, 0.6, 0.9, 0.7], [0, 1, 1, 0]), 12)  # (0.2 + 0.8 - 0.4) / 3
    0.2
    """
    t = v.check_tau(tau)
    v.check_option(normalize, "normalize", _NORMALIZE)
    s = _selected_sums(*_prepare(conf, correct, sample_weight, flags=True), t)
    return _cwsa_ratio(2.0 * s["phi_correct"] - s["phi"], s, normalize)


def cwsa_plus(
    conf: Any, correct: Any, *, tau: float = 0.5, sample_weight: Any = None,
    normalize: Literal["selected", "all"] = "selected",
) -> float:
    """Normalised CWSA (CWSA+): confidence-weighted reward of correct predictions, in [0, 1].

    Parameters
    ----------
    conf : array-like of float, shape (N,)
        Top-label confidence in [0, 1].
    correct : array-like of bool or 0/1, shape (N,)
        Whether each prediction is correct.
    tau : float, default 0.5
        Threshold in [0, 1).
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights.
    normalize : {"selected", "all"}, default "selected"
        Divide by ``|S_tau|`` (the paper, and the published code for CWSA+) or by N.

    Returns
    -------
    float
        NaN when ``S_tau`` is empty and ``normalize="selected"``; 0.0 with ``"all"``.

    Raises
    ------
    ValueError, TypeError
        On invalid input.

    Notes
    -----
    Shahnazari et al. (2025, arXiv:2505.18622), section 3.3:
    ``CWSA+(tau) = (1 / |S_tau|) sum_{i in S_tau} phi(c_i) 1[correct_i]``.  It is
    related to CWSA by ``CWSA = 2 CWSA+ - mean_{S_tau} phi``.

    References
    ----------
    .. [1] Shahnazari, K., Ayyoubzadeh, S. M., Keshtparvar, M. & Ghaffari, P. (2025).
       Trust, or Don't Predict: Introducing the CWSA Family for Confidence-Aware
       Model Evaluation. arXiv preprint. arXiv:2505.18622. Section 3.3.

    Examples
    --------
    >>> round(cwsa_plus([0.4, 0.6, 0.9, 0.7], [0, 1, 1, 0]), 12)  # (0.2 + 0.8) / 3
    0.333333333333
    """
    t = v.check_tau(tau)
    v.check_option(normalize, "normalize", _NORMALIZE)
    s = _selected_sums(*_prepare(conf, correct, sample_weight, flags=True), t)
    return _cwsa_ratio(s["phi_correct"], s, normalize)


# ---------------------------------------------------------------------- tau sweep
def selective_sweep(
    conf: Any, correct: Any, *, taus: Any = None, sample_weight: Any = None,
    normalize: Literal["selected", "all"] = "selected",
) -> dict[str, np.ndarray]:
    """Coverage, selective accuracy and risk, CWSA and CWSA+ over a grid of thresholds.

    Parameters
    ----------
    conf : array-like of float, shape (N,)
        Top-label confidence in [0, 1].
    correct : array-like of bool or 0/1, shape (N,)
        Whether each prediction is correct.
    taus : array-like of float, optional
        Thresholds in [0, 1), in any order.  Default: :data:`DEFAULT_TAUS`,
        ``linspace(0.5, 0.99, 20)``, the grid of the CWSA authors' sweeps.
    sample_weight : array-like of float, shape (N,), optional
        Non-negative row weights.
    normalize : {"selected", "all"}, default "selected"
        Denominator of CWSA and CWSA+, as in :func:`cwsa`.

    Returns
    -------
    dict of str to ndarray, each of shape (T,)
        ``tau``, ``coverage``, ``selective_accuracy``, ``selective_risk``, ``cwsa``,
        ``cwsa_plus`` (float64; NaN where ``S_tau`` is empty) and ``n_selected`` (int64,
        the unweighted number of retained rows), in the order of ``taus``.

    Raises
    ------
    ValueError, TypeError
        On invalid input or a threshold outside [0, 1).

    Notes
    -----
    Shahnazari et al. (2025, arXiv:2505.18622), sections 3.1-3.3 (formulas as
    :func:`cwsa` and
    :func:`cwsa_plus`).  All thresholds at once, without a pass over the rows per
    threshold: each row is assigned by ``searchsorted`` to the number of sorted
    thresholds it reaches, weighted counts per slot come from ``bincount``, and the
    sums over every ``S_tau`` are their reverse cumulative sums.  Because
    ``phi`` is linear in ``c``, ``sum_S phi = (sum_S c - tau |S|) / (1 - tau)``.
    The authors' published tables divide CWSA by N and CWSA+ by ``|S_tau|``: read
    ``cwsa`` from a ``normalize="all"`` sweep and ``cwsa_plus`` from the default one
    to reproduce them.

    References
    ----------
    .. [1] Shahnazari, K., Ayyoubzadeh, S. M., Keshtparvar, M. & Ghaffari, P. (2025).
       Trust, or Don't Predict: Introducing the CWSA Family for Confidence-Aware
       Model Evaluation. arXiv preprint. arXiv:2505.18622. Sections 3.1-3.3 and 5.

    Examples
    --------
    >>> out = selective_sweep([0.4, 0.6, 0.9, 0.5], [0, 1, 1, 0], taus=[0.5, 0.8])
    >>> out["coverage"].tolist(), out["n_selected"].tolist()
    ([0.75, 0.25], [3, 1])
    """
    v.check_option(normalize, "normalize", _NORMALIZE)
    t = DEFAULT_TAUS.copy() if taus is None else _check_taus(taus)
    c, ok, w = _prepare(conf, correct, sample_weight)
    w = np.ones(c.shape[0]) if w is None else w
    n_taus = t.shape[0]
    order = np.argsort(t, kind="stable")
    ts = t[order]
    # slot b = number of sorted thresholds <= c: a row is in S_tau_j iff slot > j
    slot = np.searchsorted(ts, c, side="right")

    def suffix(weights: np.ndarray | None) -> np.ndarray:
        per_slot = np.bincount(slot, weights=weights, minlength=n_taus + 1)
        return np.cumsum(per_slot[::-1])[::-1][1:]

    wc = w * c
    n_sel = suffix(None).astype(np.int64)
    w_sel, w_ok = suffix(w), suffix(w * ok)
    c_sel, c_ok = suffix(wc), suffix(wc * ok)
    phi_sum = (c_sel - ts * w_sel) / (1.0 - ts)
    phi_ok = (c_ok - ts * w_ok) / (1.0 - ts)
    den = w_sel if normalize == "selected" else np.full(n_taus, w.sum())
    with np.errstate(divide="ignore", invalid="ignore"):
        acc = np.where(w_sel > 0, w_ok / w_sel, np.nan)
        cw = np.where(w_sel > 0, (2.0 * phi_ok - phi_sum) / den, np.nan)
        cwp = np.where(w_sel > 0, phi_ok / den, np.nan)
    if normalize == "all":
        cw[w_sel <= 0] = 0.0
        cwp[w_sel <= 0] = 0.0
    sorted_out = {
        "tau": ts,
        "coverage": w_sel / w.sum(),
        "selective_accuracy": acc,
        "selective_risk": 1.0 - acc,
        "cwsa": cw,
        "cwsa_plus": cwp,
        "n_selected": n_sel,
    }
    back = np.empty_like(order)
    back[order] = np.arange(n_taus)
    return {k: val[back] for k, val in sorted_out.items()}
