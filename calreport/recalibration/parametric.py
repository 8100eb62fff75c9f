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

__all__ = ["BetaCalibrator", "PlattCalibrator", "TemperatureScaling", "fit_logistic",
           "platt_targets"]


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
    penalty), scikit-learn's ``LogisticRegression`` objective.  With targets in
    ``(0, 1)`` (soft labels, e.g. Platt's) it is the cross-entropy against them, whose
    optimum is finite even when ``X`` separates the classes.

    Parameters
    ----------
    X : ndarray, shape (N, d)
    y : ndarray, shape (N,)
        0/1 labels or targets in [0, 1].
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


_PLATT_TARGETS = ("platt", "labels")


def platt_targets(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Platt's smoothed targets: ``(N+ + 1) / (N+ + 2)`` for a positive row,
    ``1 / (N- + 2)`` for a negative one.

    Parameters
    ----------
    y : ndarray of 0/1, shape (N,)
    w : ndarray, shape (N,)
        Row weights; ``N+`` and ``N-`` are the sums of the positive and of the
        negative rows' weights (the calibrators pass weights scaled to mean one, so
        unweighted rows give Platt's counts).

    Returns
    -------
    ndarray, shape (N,)

    Examples
    --------
    >>> platt_targets(np.array([1.0, 1.0, 0.0]), np.ones(3)).round(4).tolist()
    [0.75, 0.75, 0.3333]
    """
    n_pos = float(np.dot(w, y))
    n_neg = float(w.sum()) - n_pos
    return np.where(y > 0, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))


class PlattCalibrator(BinaryReductionCalibrator):
    """Platt scaling: logistic regression on the logit of the score.

    ``p = 1 / (1 + exp(-(a logit(s) + b)))``, fitted by weighted maximum likelihood
    against Platt's smoothed targets (default) or the labels themselves.

    Parameters
    ----------
    multiclass : {"ovr", "top_label"}, default "ovr"
        Reduction of a multiclass problem (see
        :class:`~calreport.recalibration.BinaryReductionCalibrator`).
    C : float, optional
        Inverse ridge penalty on the slope (scikit-learn's ``C``; weights count as
        rows); None: no penalty.
    targets : {"platt", "labels"}, default "platt"
        ``"platt"``: the fit of Platt (1999) and of scikit-learn's
        ``CalibratedClassifierCV(method="sigmoid")``, against the targets
        ``(N+ + 1) / (N+ + 2)`` for the positive rows and ``1 / (N- + 2)`` for the
        negative ones (:func:`platt_targets`).  ``"labels"``: plain maximum
        likelihood against the 0/1 labels (scikit-learn's ``LogisticRegression`` on
        ``logit(s)``).

    Attributes
    ----------
    classes_ : ndarray
    maps_ : list
        Per calibrated probability, ``(a, b)`` (or a constant for a one-class fit).

    Notes
    -----
    Scores are clipped to ``[1e-12, 1 - 1e-12]`` before the logit.

    Why Platt's targets.  Against the 0/1 labels, the log-likelihood of scores that
    separate the classes (every positive row scored above every negative one, common
    in a one-vs-rest fold of a few dozen rows) increases without bound as the slope
    grows: there is no finite maximum-likelihood slope, and the fit outputs
    probabilities of 0 or 1 -- a wrong one costs ``1 / eps`` in CSR.  Platt's targets,
    which lie strictly inside (0, 1), make the loss grow without bound in every
    direction of ``(a, b)`` instead, so the slope is finite on any sample with both
    classes and two distinct scores.  Platt derives them from a uniform prior on the
    probability of the label (Laplace's rule of succession), an out-of-sample
    correction that vanishes as ``N+`` and ``N-`` grow.  A sample of one class is
    fitted by the constant target of that class (the optimum, slope 0, where
    scikit-learn's fit starts and stays); with ``targets="labels"`` by its
    Jeffreys-smoothed rate ``(k + 1/2) / (n + 1)``.

    Weights.  ``N+`` and ``N-`` are the sums of the weights of the positive and of the
    negative rows, the weights scaled to mean one as every calibrator receives them
    (so ``N+ + N- = N``, the number of rows; unweighted: Platt's counts).
    scikit-learn sums the weights as given; the two fits are the same for weights of
    mean one.  The sums of the weights, not the counts of the rows, so that a row of
    weight zero adds nothing; scaled to mean one, so that only the ratios of the
    weights matter, as for the other calibrators (whose priors and ``C`` also count
    rows): summed as given, the strength of the smoothing would follow the arbitrary
    scale of importance weights.  Integer frequency weights therefore count as rows,
    not units: the likelihood term equals the repeated rows' one, but the targets use
    the number of distinct rows, a smoothing as strong as ``N`` rows rather than
    ``sum w`` (the repeated rows' fit differs by ``O(1 / N)`` in the targets;
    ``targets="labels"`` equals it exactly).

    References
    ----------
    Platt, J. C. (1999). Probabilistic Outputs for Support Vector Machines and
    Comparisons to Regularized Likelihood Methods. Advances in Large Margin
    Classifiers, MIT Press, 61-74. Section 2.2 (the targets).

    Examples
    --------
    >>> import numpy as np
    >>> s = np.array([0.1, 0.3, 0.35, 0.6, 0.8, 0.9])
    >>> y = np.array([0, 0, 1, 0, 1, 1])
    >>> p = PlattCalibrator().fit(s, y).predict_proba(s)[:, 1]
    >>> bool(np.all(np.diff(p) > 0))
    True

    Scores that separate the classes keep a finite slope:

    >>> a, b = PlattCalibrator().fit(s, [0, 0, 0, 1, 1, 1]).maps_[0]
    >>> bool(np.isfinite(a))
    True
    """

    def __init__(self, multiclass: str = "ovr", C: float | None = None,
                 targets: str = "platt") -> None:
        self.multiclass = multiclass
        self.C = C
        self.targets = targets

    def _fit_matrix(self, P: np.ndarray, codes: np.ndarray, w: np.ndarray) -> None:
        if self.targets not in _PLATT_TARGETS:
            raise ValueError(f"`targets` must be one of {_PLATT_TARGETS}; got "
                             f"{self.targets!r}.")
        super()._fit_matrix(P, codes, w)

    def _fit_binary(self, s: np.ndarray, y: np.ndarray, w: np.ndarray) -> Any:
        const = _constant(y, w)
        if self.targets == "labels":
            if const is not None:
                return const
            return tuple(fit_logistic(logit(s)[:, None], y, w, C=self.C))
        t = platt_targets(y, w)
        if const is not None:
            return _Constant(float(t[np.argmax(w)]))
        return tuple(fit_logistic(logit(s)[:, None], t, w, C=self.C))

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
