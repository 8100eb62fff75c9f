"""Parametric calibrators: Platt scaling, beta calibration and temperature scaling.

Each is a logistic (or softmax) regression on a fixed transformation of the scores,
fitted by weighted maximum likelihood with :func:`scipy.optimize.minimize`
(``trust-exact``: Newton steps with the exact Hessian, which converges to the
optimum of these convex losses in a few iterations).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import optimize, special

from calreport.recalibration._base import (
    SCORE_EPS,
    BinaryReductionCalibrator,
    Calibrator,
    expit,
    logit,
)

__all__ = ["BetaCalibrator", "PlattCalibrator", "TemperatureScaling", "fit_logistic"]


@dataclass(frozen=True)
class _Constant:
    """The fit of a one-class sample: a smoothed rate, never exactly 0 or 1."""

    value: float


def _constant(y: np.ndarray, w: np.ndarray) -> _Constant | None:
    """Labels of a single value have no finite maximum-likelihood fit: their
    Jeffreys-smoothed rate ``(sum w y + 1/2) / (sum w + 1)`` stands in."""
    rate = float(np.dot(w, y) / w.sum())
    if 0.0 < rate < 1.0:
        return None
    return _Constant((float(np.dot(w, y)) + 0.5) / (float(w.sum()) + 1.0))


def fit_logistic(X: np.ndarray, y: np.ndarray, w: np.ndarray, *,
                 C: float | None = None) -> np.ndarray:
    """Weighted logistic regression with an intercept: ``[coef..., intercept]``.

    Minimises ``sum_i w_i [log(1 + exp(eta_i)) - y_i eta_i] + |coef|^2 / (2 C)``,
    ``eta = X coef + intercept`` (the intercept is not penalised; ``C=None``: no
    penalty), scikit-learn's ``LogisticRegression`` objective.

    Parameters
    ----------
    X : ndarray, shape (N, d)
    y : ndarray of 0/1, shape (N,)
    w : ndarray, shape (N,)
    C : float, optional
        Inverse penalty strength.

    Returns
    -------
    ndarray, shape (d + 1,)
    """
    n, d = X.shape
    Z = np.column_stack([X, np.ones(n)])
    ridge = np.zeros(d + 1)
    if C is not None:
        ridge[:d] = 1.0 / C

    def fun(theta: np.ndarray) -> tuple[float, np.ndarray]:
        eta = Z @ theta
        loss = float(np.dot(w, np.logaddexp(0.0, eta) - y * eta))
        grad = Z.T @ (w * (expit(eta) - y))
        return loss + 0.5 * float(np.dot(ridge * theta, theta)), grad + ridge * theta

    def hess(theta: np.ndarray) -> np.ndarray:
        p = expit(Z @ theta)
        return (Z * (w * p * (1.0 - p))[:, None]).T @ Z + np.diag(ridge)

    rate = np.clip(np.dot(w, y) / w.sum(), 1e-6, 1 - 1e-6)
    start = np.zeros(d + 1)
    start[d] = np.log(rate / (1 - rate))
    res = optimize.minimize(fun, start, jac=True, hess=hess, method="trust-exact",
                            options={"gtol": 1e-10, "maxiter": 200})
    return np.asarray(res.x, dtype=np.float64)


class PlattCalibrator(BinaryReductionCalibrator):
    """Platt scaling: logistic regression on the logit of the score.

    ``p = 1 / (1 + exp(-(a logit(s) + b)))``, fitted by weighted maximum likelihood.

    Parameters
    ----------
    multiclass : {"ovr", "top_label"}, default "ovr"
        Reduction of a multiclass problem (see
        :class:`~calreport.recalibration.BinaryReductionCalibrator`).
    C : float, optional
        Inverse ridge penalty on the slope (scikit-learn's ``C``; weights count as
        rows); None: plain maximum likelihood.

    Attributes
    ----------
    classes_ : ndarray
    maps_ : list
        Per calibrated probability, ``(a, b)`` (or a constant for a one-class fit).

    Notes
    -----
    Platt's targets ``(N+ + 1)/(N+ + 2)`` are not used: the fit is the plain maximum
    likelihood of the logistic model on ``logit(s)`` (scores clipped to
    ``[1e-12, 1 - 1e-12]``).

    References
    ----------
    Platt, J. C. (1999). Probabilistic Outputs for Support Vector Machines and
    Comparisons to Regularized Likelihood Methods. Advances in Large Margin
    Classifiers, MIT Press, 61-74.

    Examples
    --------
    >>> import numpy as np
    >>> s = np.array([0.1, 0.3, 0.35, 0.6, 0.8, 0.9])
    >>> y = np.array([0, 0, 1, 0, 1, 1])
    >>> p = PlattCalibrator().fit(s, y).predict_proba(s)[:, 1]
    >>> bool(np.all(np.diff(p) > 0))
    True
    """

    def __init__(self, multiclass: str = "ovr", C: float | None = None) -> None:
        self.multiclass = multiclass
        self.C = C

    def _fit_binary(self, s: np.ndarray, y: np.ndarray, w: np.ndarray) -> Any:
        const = _constant(y, w)
        if const is not None:
            return const
        return tuple(fit_logistic(logit(s)[:, None], y, w, C=self.C))

    def _apply_binary(self, state: Any, s: np.ndarray) -> np.ndarray:
        if isinstance(state, _Constant):
            return np.full(s.shape, state.value)
        a, b = state
        return expit(a * logit(s) + b)


class BetaCalibrator(BinaryReductionCalibrator):
    """Beta calibration: logistic regression on ``[ln s, -ln(1 - s)]``.

    ``p = 1 / (1 + exp(-(a ln s - b ln(1 - s) + c)))`` with ``a, b >= 0``: the
    three-parameter family of Kull, Silva Filho & Flach (2017), which contains the
    identity (``a = b = 1, c = 0``) and Platt's sigmoid on the logit (``a = b``).

    Parameters
    ----------
    multiclass : {"ovr", "top_label"}, default "ovr"
        Reduction of a multiclass problem.
    C : float, optional
        Inverse ridge penalty on ``a`` and ``b``; None: plain maximum likelihood.

    Attributes
    ----------
    maps_ : list
        Per calibrated probability, ``(a, b, c)``.

    Notes
    -----
    As in the paper's procedure, the unconstrained fit is taken when ``a, b >= 0``;
    when ``a < 0`` the model is refitted without ``ln s`` (``a = 0``), else when
    ``b < 0`` without ``-ln(1 - s)`` (``b = 0``), so the map stays monotone.

    References
    ----------
    Kull, M., Silva Filho, T. & Flach, P. (2017). Beta Calibration: A Well-Founded and
    Easily Implemented Improvement on Logistic Calibration for Binary Classifiers.
    AISTATS, PMLR 54, 623-631. Section 3.

    Examples
    --------
    >>> import numpy as np
    >>> s = np.array([0.1, 0.3, 0.35, 0.6, 0.8, 0.9])
    >>> y = np.array([0, 0, 1, 0, 1, 1])
    >>> BetaCalibrator().fit(s, y).predict_proba(s).shape
    (6, 2)
    """

    def __init__(self, multiclass: str = "ovr", C: float | None = None) -> None:
        self.multiclass = multiclass
        self.C = C

    def _fit_binary(self, s: np.ndarray, y: np.ndarray, w: np.ndarray) -> Any:
        const = _constant(y, w)
        if const is not None:
            return const
        X = _beta_features(s)
        a, b, c = fit_logistic(X, y, w, C=self.C)
        if a < 0:
            b, c = fit_logistic(X[:, 1:], y, w, C=self.C)
            a = 0.0
        elif b < 0:
            a, c = fit_logistic(X[:, :1], y, w, C=self.C)
            b = 0.0
        return (float(a), float(b), float(c))

    def _apply_binary(self, state: Any, s: np.ndarray) -> np.ndarray:
        if isinstance(state, _Constant):
            return np.full(s.shape, state.value)
        a, b, c = state
        X = _beta_features(s)
        return expit(a * X[:, 0] + b * X[:, 1] + c)


def _beta_features(s: np.ndarray) -> np.ndarray:
    q = np.clip(s, SCORE_EPS, 1.0 - SCORE_EPS)
    return np.column_stack([np.log(q), -np.log1p(-q)])


class TemperatureScaling(Calibrator):
    """Temperature scaling: the softmax of the log-probabilities divided by ``T``.

    ``p_k = exp(log q_k / T) / sum_j exp(log q_j / T)``, one parameter for the whole
    probability vector (a binary problem: ``p = expit(logit(s) / T)``, Platt's map
    without an intercept).  The argmax, hence accuracy, is unchanged.

    Attributes
    ----------
    temperature_ : float
        The fitted ``T`` (``1 / T`` may be negative only if the scores rank backwards).

    Notes
    -----
    The weighted negative log-likelihood is convex in ``beta = 1 / T``; its gradient is
    ``sum w (E_beta[z] - z_y)`` and its Hessian ``sum w Var_beta[z]`` with
    ``z = log q`` (probabilities clipped to ``[1e-12, 1]``).

    References
    ----------
    Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On Calibration of Modern
    Neural Networks. ICML, PMLR 70, 1321-1330. arXiv:1706.04599. Section 4.2.

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[0.9, 0.05, 0.05], [0.2, 0.7, 0.1], [0.6, 0.3, 0.1], [0.1, 0.1, 0.8]])
    >>> ts = TemperatureScaling().fit(P, [0, 1, 1, 2])
    >>> bool(ts.temperature_ > 0)
    True
    """

    def __init__(self) -> None:
        pass

    def _fit_matrix(self, P: np.ndarray, codes: np.ndarray, w: np.ndarray) -> None:
        z = np.log(np.clip(P, SCORE_EPS, 1.0))
        if z.shape[1] == 2:
            # two classes: softmax(beta z) is expit(beta (z1 - z0)), a logistic model
            # through the origin (one pass over N instead of N x K)
            d = z[:, 1] - z[:, 0]
            y = (codes == 1).astype(np.float64)

            def moments(beta: float) -> tuple[float, float, float]:
                eta = beta * d
                p = expit(eta)
                loss = float(np.dot(w, np.logaddexp(0.0, eta) - y * eta))
                return loss, float(np.dot(w, (p - y) * d)), float(np.dot(w, p * (1 - p) * d * d))
        else:
            zy = z[np.arange(z.shape[0]), codes]

            def moments(beta: float) -> tuple[float, float, float]:
                bz = beta * z
                top = bz.max(axis=1)
                e = np.exp(bz - top[:, None])
                total = e.sum(axis=1)
                q = e / total[:, None]
                mean = (q * z).sum(axis=1)
                var = np.maximum((q * z * z).sum(axis=1) - mean**2, 0.0)
                loss = float(np.dot(w, top + np.log(total) - beta * zy))
                return loss, float(np.dot(w, mean - zy)), float(np.dot(w, var))

        last: dict[float, tuple[float, float, float]] = {}

        def cached(theta: np.ndarray) -> tuple[float, float, float]:
            beta = float(theta[0])
            if beta not in last:
                last.clear()
                last[beta] = moments(beta)
            return last[beta]

        res = optimize.minimize(lambda t: cached(t)[:2], np.array([1.0]), jac=True,
                                hess=lambda t: np.array([[cached(t)[2]]]),
                                method="trust-exact",
                                options={"gtol": 1e-12, "maxiter": 200})
        self.inverse_temperature_ = float(res.x[0])
        self.temperature_ = (1.0 / self.inverse_temperature_
                             if self.inverse_temperature_ != 0 else float("inf"))

    def _predict_matrix(self, P: np.ndarray) -> np.ndarray:
        bz = self.inverse_temperature_ * np.log(np.clip(P, SCORE_EPS, 1.0))
        return np.exp(bz - special.logsumexp(bz, axis=1)[:, None])
