"""What every calibrator shares: parameters, input checks, the multiclass reductions.

A calibrator maps a classifier's scores to recalibrated class probabilities.  Its
input is either a 1-D array of positive-class probabilities (a binary problem) or
an ``N x K`` matrix of class probabilities (columns in the order of ``classes_``);
its output (:meth:`Calibrator.predict_proba`) is always ``N x K``.  The estimators
follow scikit-learn's conventions (``fit`` returns ``self``, fitted attributes end in
an underscore, ``get_params``/``set_params`` read and write the constructor
arguments) without depending on scikit-learn.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

__all__ = ["BinaryReductionCalibrator", "Calibrator", "IdentityCalibrator", "NotFittedError",
           "check_scores"]

#: Scores are clipped to ``[SCORE_EPS, 1 - SCORE_EPS]`` before a logarithm is taken.
SCORE_EPS = 1e-12


class NotFittedError(ValueError, AttributeError):
    """A calibrator was used before :meth:`Calibrator.fit`."""


def check_scores(scores: Any, name: str = "scores") -> np.ndarray:
    """``scores`` as a finite float64 array in [0, 1], 1-D or 2-D.

    Raises
    ------
    ValueError
        On another shape, a non-finite value or a value outside [0, 1]; the message
        names the argument and the first offending value.
    """
    try:
        arr = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be numeric probabilities (a 1-D array of "
                        "positive-class probabilities or an N x K matrix); got "
                        f"{type(scores).__name__}.") from None
    if arr.ndim not in (1, 2):
        raise ValueError(f"`{name}` must be 1-D (positive-class probability) or 2-D "
                         f"(one column per class); got shape {arr.shape}.")
    bad = ~np.isfinite(arr) | (arr < 0.0) | (arr > 1.0)
    if bad.any():
        first = arr.ravel()[np.flatnonzero(bad.ravel())[0]]
        raise ValueError(f"`{name}` must hold probabilities in [0, 1]: {int(bad.sum())} "
                         f"values are not (first: {first!r}). Pass predict_proba output, "
                         "not decision-function scores or logits.")
    return arr


def _as_matrix(arr: np.ndarray, n_classes: int | None, name: str = "scores") -> np.ndarray:
    """An ``N x K`` probability matrix from 1-D (binary) or 2-D scores."""
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim == 1:
        if n_classes not in (None, 2):
            raise ValueError(f"`{name}` is 1-D but the calibrator was fitted on "
                             f"{n_classes} classes: pass the N x {n_classes} matrix.")
        return np.column_stack([1.0 - arr, arr])
    if n_classes is not None and arr.shape[1] != n_classes:
        raise ValueError(f"`{name}` has {arr.shape[1]} columns but the calibrator was "
                         f"fitted on {n_classes} classes.")
    if arr.shape[1] < 2:
        raise ValueError(f"`{name}` needs at least two class columns; got {arr.shape[1]}.")
    return arr


def _check_weight(sample_weight: Any, n: int) -> np.ndarray:
    """Non-negative finite weights divided by their mean (all ones when None)."""
    if sample_weight is None:
        return np.ones(n)
    w = np.asarray(sample_weight, dtype=np.float64).ravel()
    if w.shape[0] != n:
        raise ValueError(f"`sample_weight` has {w.shape[0]} values for {n} rows; pass one "
                         "weight per row.")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("`sample_weight` must be finite and non-negative; "
                         f"{int(np.sum(~np.isfinite(w) | (w < 0)))} values are not.")
    total = w.sum()
    if not total > 0:
        raise ValueError("`sample_weight` sums to zero: at least one row needs a positive "
                         "weight to fit a calibrator.")
    # mean one: the prior strengths and penalties below are in rows whatever the scale
    return w * (n / total)


def _codes(y: Any, n_columns: int, classes: Any) -> tuple[np.ndarray, np.ndarray]:
    """(codes of ``y`` into the classes, the classes) for ``n_columns`` score columns."""
    y = np.asarray(y).ravel()
    if classes is not None:
        classes = np.asarray(classes)
    else:
        found = np.unique(y)
        if found.shape[0] == n_columns:
            classes = found
        elif np.issubdtype(y.dtype, np.integer) and found.min() >= 0 \
                and found.max() < n_columns:
            classes = np.arange(n_columns)
        elif n_columns == 2 and found.shape[0] == 1 and found[0] in (0, 1, True, False):
            classes = np.array([0, 1])
        else:
            raise ValueError(f"`y` has {found.shape[0]} distinct labels but the scores "
                             f"have {n_columns} class columns; pass classes=[...] to fit(), "
                             "one label per score column.")
    if classes.shape[0] != n_columns:
        raise ValueError(f"`classes` names {classes.shape[0]} classes for {n_columns} "
                         "score columns; give one label per column.")
    order = np.argsort(classes, kind="stable")
    pos = np.searchsorted(classes[order], y)
    pos = np.clip(pos, 0, classes.shape[0] - 1)
    codes = order[pos]
    unknown = classes[codes] != y
    if unknown.any():
        raise ValueError(f"`y` holds labels that are not in `classes` "
                         f"{classes.tolist()} (first: {y[unknown][0]!r}); pass classes=[...] "
                         "with every label.")
    return codes.astype(np.intp), classes


class Calibrator:
    """Base class: scikit-learn-style parameters, fitting and prediction.

    Subclasses implement ``_fit_matrix(P, codes, w)`` and ``_predict_matrix(P)`` on
    validated ``N x K`` probability matrices, integer class codes and mean-one weights.
    """

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Constructor arguments by name (scikit-learn's convention)."""
        names = [p for p in inspect.signature(type(self).__init__).parameters
                 if p != "self"]
        return {name: getattr(self, name) for name in names}

    def set_params(self, **params: Any) -> Calibrator:
        """Set constructor arguments; returns ``self``."""
        valid = self.get_params()
        for key, value in params.items():
            if key not in valid:
                raise ValueError(f"Invalid parameter {key!r} for {type(self).__name__}; "
                                 f"valid parameters: {sorted(valid)}.")
            setattr(self, key, value)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def __sklearn_tags__(self) -> Any:
        """scikit-learn's estimator tags (read only by scikit-learn, so imported here):
        a probabilistic classifier of scores that can also transform them."""
        from sklearn.utils import ClassifierTags, Tags, TargetTags, TransformerTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    transformer_tags=TransformerTags(),
                    classifier_tags=ClassifierTags(multi_class=True))

    def fit(self, scores: Any, y: Any, sample_weight: Any = None, *,
            classes: Any = None) -> Calibrator:
        """Fit the calibrator on scores and true labels.

        Parameters
        ----------
        scores : array-like, shape (N,) or (N, K)
            Positive-class probability of a binary problem, or class probabilities.
        y : array-like, shape (N,)
            True labels.
        sample_weight : array-like, shape (N,), optional
            Non-negative row weights (only their ratios matter).
        classes : array-like, optional
            Label of each score column (default: the sorted labels of ``y`` when there
            are ``K`` of them, else ``0..K-1``).

        Returns
        -------
        self
        """
        arr = check_scores(scores)
        P = _as_matrix(arr, None)
        n = P.shape[0]
        if n == 0:
            raise ValueError("`scores` is empty: a calibrator needs rows to fit on.")
        if np.asarray(y).ravel().shape[0] != n:
            raise ValueError(f"`y` has {np.asarray(y).ravel().shape[0]} labels for {n} "
                             "score rows; pass one label per row.")
        codes, self.classes_ = _codes(y, P.shape[1], classes)
        self.n_classes_ = P.shape[1]
        self._fit_matrix(P, codes, _check_weight(sample_weight, n))
        return self

    def _fitted(self) -> None:
        if not hasattr(self, "classes_"):
            raise NotFittedError(f"This {type(self).__name__} is not fitted yet; call "
                                 "fit(scores, y) first.")

    def predict_proba(self, scores: Any) -> np.ndarray:
        """Recalibrated class probabilities, shape (N, K) (binary: ``[1 - p, p]``)."""
        self._fitted()
        P = _as_matrix(check_scores(scores), self.n_classes_)
        out = self._predict_matrix(P)
        return out

    def transform(self, scores: Any) -> np.ndarray:
        """Same as :meth:`predict_proba` (so a calibrator can feed a next step)."""
        return self.predict_proba(scores)

    def fit_transform(self, scores: Any, y: Any, sample_weight: Any = None,
                      **fit_params: Any) -> np.ndarray:
        """``fit(...)`` then ``transform(scores)``."""
        return self.fit(scores, y, sample_weight, **fit_params).transform(scores)

    def predict(self, scores: Any) -> np.ndarray:
        """The class of highest recalibrated probability."""
        return self.classes_[np.argmax(self.predict_proba(scores), axis=1)]

    # subclasses -----------------------------------------------------------------
    def _fit_matrix(self, P: np.ndarray, codes: np.ndarray, w: np.ndarray) -> None:
        raise NotImplementedError  # pragma: no cover

    def _predict_matrix(self, P: np.ndarray) -> np.ndarray:
        raise NotImplementedError  # pragma: no cover


_MULTICLASS = ("ovr", "top_label")


class BinaryReductionCalibrator(Calibrator):
    """A calibrator of one probability, applied to multiclass scores by a reduction.

    Binary problems calibrate the positive-class probability.  With ``K > 2``
    classes, ``multiclass="ovr"`` calibrates each class's probability against
    "this class or not" and divides each row by its sum (a row whose calibrated
    values are all 0 becomes uniform, as scikit-learn's ``CalibratedClassifierCV``);
    ``multiclass="top_label"`` calibrates the confidence in the predicted class
    against its correctness and rescales the other classes' probabilities so the row
    sums to one (their ratios kept; where one would exceed the new confidence they are
    mixed toward an even share, so the predicted class stays on top whenever the new
    confidence is at least ``1 / K``).

    Subclasses implement ``_fit_binary(s, y01, w) -> state`` and
    ``_apply_binary(state, s) -> p``.
    """

    multiclass: str

    def _check_multiclass(self) -> None:
        if self.multiclass not in _MULTICLASS:
            raise ValueError(f"`multiclass` must be one of {_MULTICLASS}; got "
                             f"{self.multiclass!r}.")

    def _fit_matrix(self, P: np.ndarray, codes: np.ndarray, w: np.ndarray) -> None:
        self._check_multiclass()
        K = P.shape[1]
        if K == 2:
            self.maps_ = [self._fit_binary(P[:, 1], (codes == 1).astype(np.float64), w)]
        elif self.multiclass == "ovr":
            self.maps_ = [self._fit_binary(P[:, k], (codes == k).astype(np.float64), w)
                          for k in range(K)]
        else:
            top = np.argmax(P, axis=1)
            conf = P[np.arange(P.shape[0]), top]
            self.maps_ = [self._fit_binary(conf, (top == codes).astype(np.float64), w)]

    def _predict_matrix(self, P: np.ndarray) -> np.ndarray:
        K = P.shape[1]
        if K == 2:
            p = self._apply_binary(self.maps_[0], P[:, 1])
            return np.column_stack([1.0 - p, p])
        if len(self.maps_) == K:
            Q = np.column_stack([self._apply_binary(m, P[:, k])
                                 for k, m in enumerate(self.maps_)])
            total = Q.sum(axis=1, keepdims=True)
            zero = total[:, 0] <= 0
            Q[zero] = 1.0 / K
            total[zero] = 1.0
            return Q / total
        rows = np.arange(P.shape[0])
        top = np.argmax(P, axis=1)
        conf = P[rows, top]
        new = self._apply_binary(self.maps_[0], conf)
        rest = 1.0 - conf
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = np.where(rest > 0, (1.0 - new) / rest, 0.0)
        Q = P * scale[:, None]
        # a row that gave its predicted class everything shares the rest equally
        flat = rest <= 0
        even = (1.0 - new) / (K - 1)
        Q[flat] = even[flat, None]
        Q[rows, top] = 0.0
        # keep the predicted class on top: mix the others toward an even share until
        # none exceeds the new confidence (impossible only below 1 / K)
        high = Q.max(axis=1)
        over = high > new
        lam = np.ones_like(new)
        lam[over] = np.clip((new[over] - even[over]) / (high[over] - even[over]), 0.0, 1.0)
        Q = lam[:, None] * Q + ((1.0 - lam) * even)[:, None]
        # rounding may leave an equal value, which argmax would read first
        np.minimum(Q, np.where(new * K >= 1.0, np.nextafter(new, 0.0), 1.0)[:, None], out=Q)
        Q[rows, top] = new
        return Q

    def _fit_binary(self, s: np.ndarray, y: np.ndarray, w: np.ndarray) -> Any:
        raise NotImplementedError  # pragma: no cover

    def _apply_binary(self, state: Any, s: np.ndarray) -> np.ndarray:
        raise NotImplementedError  # pragma: no cover


def logit(p: np.ndarray) -> np.ndarray:
    """``log(p / (1 - p))`` of probabilities clipped to ``[SCORE_EPS, 1 - SCORE_EPS]``."""
    q = np.clip(p, SCORE_EPS, 1.0 - SCORE_EPS)
    return np.log(q) - np.log1p(-q)


def expit(x: np.ndarray) -> np.ndarray:
    """The logistic function ``1 / (1 + exp(-x))``, without overflow."""
    from scipy.special import expit as _expit

    return _expit(x)


class IdentityCalibrator(Calibrator):
    """No recalibration: returns the scores as class probabilities.

    The baseline ("none") of :func:`calreport.recalibration.recalibrate`, and what a
    user ships when no method improved the scores.

    Examples
    --------
    >>> IdentityCalibrator().fit([0.2, 0.7], [0, 1]).predict_proba([0.4])[:, 1].tolist()
    [0.4]
    """

    def __init__(self) -> None:
        pass

    def _fit_matrix(self, P: np.ndarray, codes: np.ndarray, w: np.ndarray) -> None:
        pass

    def _predict_matrix(self, P: np.ndarray) -> np.ndarray:
        return P.copy()
