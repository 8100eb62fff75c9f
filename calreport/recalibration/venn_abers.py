"""Inductive Venn-Abers calibration (Vovk & Petej 2014), in linear time after a sort."""

from __future__ import annotations

from typing import Any

import numpy as np

from calreport.recalibration._base import BinaryReductionCalibrator
from calreport.recalibration.isotonic import Pooled, pool_ties

__all__ = ["VennAbersCalibrator", "venn_abers_pair"]


def _upper_fits(weight: np.ndarray, label_sum: np.ndarray, test_weight: float) -> np.ndarray:
    """Isotonic value of a test point labelled 1 in each gap ``0 .. k`` of the sorted
    distinct scores (gap ``g`` lies above the ``g`` lowest scores).

    The value is the slope of the greatest convex minorant of the cumulative sum
    diagram at the test point's segment.  Moving the test point one gap up swaps its
    segment with the next score's; one pass keeps the minorant on a stack (Vovk,
    Petej & Fedorova 2015, Algorithms 1-2).
    """
    k = weight.shape[0]
    xs = [-test_weight, 0.0, *np.cumsum(weight).tolist()]  # P_-1, P_0 .. P_k
    ys = [-test_weight, 0.0, *np.cumsum(label_sum).tolist()]

    # a non-left turn a -> b -> c: (b - a) x (c - b) <= 0, written out (hot loops)
    hull: list[tuple[float, float]] = []
    for px, py in zip(xs, ys, strict=True):
        while len(hull) > 1:
            (ax, ay), (bx, by) = hull[-2], hull[-1]
            if (bx - ax) * (py - by) - (by - ay) * (px - bx) > 0:
                break
            hull.pop()
        hull.append((px, py))
    stack = hull[::-1]  # the leftmost point on top
    out = np.empty(k + 1)
    for i in range(1, k + 1):
        (tx, ty), (nx, ny) = stack[-1], stack[-2]
        slope = (ny - ty) / (nx - tx)
        out[i - 1] = slope
        # the point after score i now comes before the test segment (index shift 1)
        px = xs[i - 1] + xs[i + 1] - xs[i]
        py = ys[i - 1] + ys[i + 1] - ys[i]
        xs[i], ys[i] = px, py
        if py >= ty + slope * (px - tx):
            continue
        stack.pop()
        while len(stack) > 1:
            (bx, by), (cx, cy) = stack[-1], stack[-2]
            if (bx - px) * (cy - by) - (by - py) * (cx - bx) > 0:
                break
            stack.pop()
        stack.append((px, py))
    out[k] = 1.0  # above every score a positive test point is a block of its own
    return out


def venn_abers_pair(pooled: Pooled, test_weight: float = 1.0
                    ) -> tuple[np.ndarray, np.ndarray]:
    """``(p0, p1)`` of every gap ``0 .. k`` between the ``k`` distinct calibration scores.

    ``p1[g]`` (``p0[g]``) is the isotonic fit, at a test point in gap ``g``, of the
    calibration rows plus the test point labelled 1 (0) with weight ``test_weight``.

    Examples
    --------
    >>> pooled = pool_ties(np.array([0.2, 0.4, 0.6]), np.array([0.0, 1.0, 0.0]),
    ...                    np.ones(3))
    >>> p0, p1 = venn_abers_pair(pooled)
    >>> np.round(p0, 4).tolist(), np.round(p1, 4).tolist()
    ([0.0, 0.0, 0.3333, 0.3333], [0.5, 0.6667, 0.6667, 1.0])
    """
    p1 = _upper_fits(pooled.weight, pooled.label_sum, test_weight)
    # labels 0 below are labels 1 above on the reflected scores: p0 = 1 - p1(reflected)
    mirrored = _upper_fits(pooled.weight[::-1], (pooled.weight - pooled.label_sum)[::-1],
                           test_weight)
    p0 = 1.0 - mirrored[::-1]
    return p0, p1


class VennAbersCalibrator(BinaryReductionCalibrator):
    """Inductive Venn-Abers predictor, merged into one probability.

    For a test score ``s``, ``p0`` and ``p1`` are the isotonic fits at ``s`` of the
    calibration rows plus ``(s, 0)`` and plus ``(s, 1)``; the prediction is
    ``p = p1 / (1 - p0 + p1)``, the log-loss minimax merge of the interval ``[p0, p1]``.

    Parameters
    ----------
    multiclass : {"ovr", "top_label"}, default "ovr"
        Reduction of a multiclass problem (one-vs-rest pairs merged per class, then
        each row divided by its sum; or the top-label confidence).

    Attributes
    ----------
    maps_ : list
        Per calibrated probability, the distinct scores and ``(p0, p1)`` of each gap.

    Notes
    -----
    The test point carries weight 1 with the calibration weights scaled to mean one
    (unweighted data: one row).  A test score equal to a calibration score takes
    ``p1`` just above the tied scores and ``p0`` just below them (the wider of the
    possible intervals), as Vovk, Petej & Fedorova's algorithm reads them.  ``p`` is
    never 0 or 1 unless every calibration label is the same.

    References
    ----------
    Vovk, V. & Petej, I. (2014). Venn-Abers Predictors. UAI 2014. arXiv:1211.0025.
    Section 4 (inductive version), equation (11).

    Vovk, V., Petej, I. & Fedorova, V. (2015). Large-scale probabilistic predictors
    with and without guarantees of validity. NeurIPS 28. arXiv:1511.00213. Section 3.

    Examples
    --------
    >>> s = np.array([0.2, 0.4, 0.6])
    >>> va = VennAbersCalibrator().fit(s, [0, 1, 0])
    >>> [round(v, 4) for v in va.predict_proba([0.3, 0.5])[:, 1].tolist()]
    [0.4, 0.5]
    """

    def __init__(self, multiclass: str = "ovr") -> None:
        self.multiclass = multiclass

    def _fit_binary(self, s: np.ndarray, y: np.ndarray, w: np.ndarray) -> Any:
        pooled = pool_ties(s, y, w)
        p0, p1 = venn_abers_pair(pooled)
        return pooled.x, p0, p1

    def _apply_binary(self, state: Any, s: np.ndarray) -> np.ndarray:
        x, p0, p1 = state
        lo = p0[np.searchsorted(x, s, side="left")]
        hi = p1[np.searchsorted(x, s, side="right")]
        return hi / (1.0 - lo + hi)

    def predict_interval(self, scores: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(p0, p1)`` of a binary calibrator: the Venn-Abers interval of each score."""
        self._fitted()
        if self.n_classes_ != 2:
            raise ValueError("predict_interval() is defined for binary calibrators; this "
                             f"one was fitted on {self.n_classes_} classes.")
        s = np.asarray(scores, dtype=np.float64)
        s = s[:, -1] if s.ndim == 2 else s
        x, p0, p1 = self.maps_[0]
        return p0[np.searchsorted(x, s, side="left")], p1[np.searchsorted(x, s, side="right")]
