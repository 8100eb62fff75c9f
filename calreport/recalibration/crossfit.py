"""Cross-fitting: out-of-fold recalibrated scores, seeded, stratified, order-free."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from calreport.recalibration._base import Calibrator, IdentityCalibrator
from calreport.recalibration.isotonic import IsotonicCalibrator, RiskAwareIsotonicCalibrator
from calreport.recalibration.parametric import (
    BetaCalibrator,
    PlattCalibrator,
    TemperatureScaling,
)
from calreport.recalibration.venn_abers import VennAbersCalibrator

__all__ = ["METHODS", "Method", "canonical_order", "cross_fit", "make_calibrator",
           "stratified_folds"]


class Method(NamedTuple):
    """A recalibration method: its label, its calibrator and how many parameters it fits."""

    label: str
    #: a new, unfitted calibrator given the multiclass reduction
    factory: Callable[[str], Calibrator]
    #: parameters fitted per calibrated column (one in all for temperature scaling;
    #: ``inf``: a step function whose steps grow with the rows); the advisor prefers
    #: the simplest of the methods it cannot tell apart
    parameters: float


#: Method name -> :class:`Method`.
METHODS: dict[str, Method] = {
    "none": Method("no recalibration", lambda mc: IdentityCalibrator(), 0),
    "platt": Method("Platt scaling", lambda mc: PlattCalibrator(multiclass=mc), 2),
    "temperature": Method("temperature scaling", lambda mc: TemperatureScaling(), 1),
    "beta": Method("beta calibration", lambda mc: BetaCalibrator(multiclass=mc), 3),
    "isotonic": Method("isotonic regression",
                       lambda mc: IsotonicCalibrator(multiclass=mc), math.inf),
    "venn_abers": Method("inductive Venn-Abers",
                         lambda mc: VennAbersCalibrator(multiclass=mc), math.inf),
    "risk_aware_isotonic": Method("risk-aware isotonic (Jeffreys one-sigma plateaus)",
                                  lambda mc: RiskAwareIsotonicCalibrator(multiclass=mc),
                                  math.inf),
}


def make_calibrator(method: str, multiclass: str = "ovr") -> Calibrator:
    """A new, unfitted calibrator of ``method`` (a key of :data:`METHODS`).

    Examples
    --------
    >>> make_calibrator("platt")
    PlattCalibrator(multiclass='ovr', C=None, targets='platt')
    """
    if method not in METHODS:
        raise ValueError(f"Unknown recalibration method {method!r}; choose from "
                         f"{list(METHODS)}.")
    return METHODS[method].factory(multiclass)


def canonical_order(P: np.ndarray, codes: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """A row order that depends on the rows' values only, not on their input order.

    Rows equal in every value are interchangeable, so anything computed in this order
    (folds, resampling counts) is the same for any permutation of the input.
    """
    keys: list[np.ndarray] = [] if w is None else [w]
    keys += [P[:, k] for k in range(P.shape[1] - 1, -1, -1)]
    keys.append(codes)
    return np.lexsort(keys)


def stratified_folds(codes: np.ndarray, n_splits: int, seed: Any,
                     order: np.ndarray) -> np.ndarray:
    """Fold of each row: within each class, a seeded shuffle dealt round-robin.

    Parameters
    ----------
    codes : ndarray of int, shape (N,)
        Class codes (strata).
    n_splits : int
        Number of folds, at least 2.
    seed : int, SeedSequence or Generator
    order : ndarray of int
        Canonical row order (:func:`canonical_order`): the shuffle is applied to it, so
        a row's fold does not depend on the input order.

    Returns
    -------
    ndarray of int, shape (N,)

    Examples
    --------
    >>> codes = np.array([0, 0, 0, 1, 1, 1])
    >>> f = stratified_folds(codes, 3, 0, np.arange(6))
    >>> sorted(np.bincount(f[codes == 0]).tolist()), sorted(np.bincount(f[codes == 1]).tolist())
    ([1, 1, 1], [1, 1, 1])
    """
    rng = np.random.default_rng(seed)
    folds = np.empty(codes.shape[0], dtype=np.intp)
    dealt = 0
    for k in np.unique(codes):
        members = order[codes[order] == k]
        members = members[rng.permutation(members.shape[0])]
        # continue the deal where the previous class stopped: folds stay balanced
        folds[members] = (dealt + np.arange(members.shape[0])) % n_splits
        dealt += members.shape[0]
    return folds


def cross_fit(method: str, P: np.ndarray, codes: np.ndarray, w: np.ndarray | None,
              folds: np.ndarray, *, multiclass: str = "ovr",
              order: np.ndarray | None = None) -> np.ndarray:
    """Out-of-fold recalibrated probabilities: row ``i`` is scored by a calibrator
    fitted on the other folds only.

    Parameters
    ----------
    method : str
        A key of :data:`METHODS`.
    P : ndarray, shape (N, K)
        Class probabilities.
    codes : ndarray of int, shape (N,)
        True class codes ``0 .. K-1``.
    w : ndarray, shape (N,), optional
        Row weights.
    folds : ndarray of int, shape (N,)
        Fold of each row.
    multiclass : {"ovr", "top_label"}
    order : ndarray of int, optional
        Canonical row order (:func:`canonical_order`): each calibrator sees its
        training rows in this order, so its fit (to the last bit) does not depend on
        the input order.

    Returns
    -------
    ndarray, shape (N, K)
    """
    out = np.empty_like(P)
    classes = np.arange(P.shape[1])
    order = np.arange(P.shape[0]) if order is None else order
    for f in np.unique(folds):
        test = folds == f
        train = order[~test[order]]
        if w is not None and not np.any(w[train] > 0):
            raise ValueError(f"fold {int(f)}: every row outside it has weight zero; use "
                             "fewer folds (n_splits) or more rows with positive weight.")
        cal = make_calibrator(method, multiclass)
        cal.fit(P[train], codes[train], None if w is None else w[train], classes=classes)
        out[test] = cal.predict_proba(P[test])
    return out
