"""Row orders and row subsets of a profile, as the bootstrap reads them.

* :func:`canonical_order` -- the order the resampling counts are drawn in: rows
  sorted by every value of a row, so the intervals do not depend on the input's
  row order;
* :func:`_subset` -- a chunk of rows that keeps the weight scale of the sample.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calreport.bootstrap._tiles import _tie_starts_of
from calreport.profile import ConfidenceProfile

_PROBA_CELLS = 1 << 16  # probabilities per chunk of rows (a few MiB of temporaries)


def _index_dtype(n: int) -> Any:
    """Smallest integer type of row positions (half the memory of ``intp`` below 2**31)."""
    return np.int32 if n < 2**31 else np.intp


def _proba_rows(p: ConfidenceProfile) -> int:
    """Rows per chunk when row quantities are formed from an (N, K) probability
    matrix: temporaries of shape (rows, K) stay a few MiB whatever K."""
    width = max(1, p.proba_width)
    return max(64, _PROBA_CELLS // width)


def canonical_order(p: ConfidenceProfile) -> np.ndarray:
    """Row order sorted by every value of a row (ties: rows equal on all keys).

    Resampling counts are drawn in a sort order of the rows; sorting them
    canonically first makes the intervals independent of the input's row order.
    The order is that of a stable lexicographic sort by (confidence, correctness,
    labels, score, weight, ...): one sort of the confidences, then the other keys
    sort only the runs of tied confidences (all keys when most rows are tied).
    """
    n = p.n
    index = _index_dtype(n)
    order = np.argsort(p.conf)  # not stable: tied rows are put in order below
    starts = _tie_starts_of(p.conf, order)
    if starts is None:
        return order.astype(index, copy=False)
    lengths = np.diff(np.r_[starts, n])
    runs = lengths > 1
    tied = np.flatnonzero(np.repeat(runs, lengths))
    if tied.size > n // 4:
        return np.lexsort(_canonical_keys(p, None)[::-1]).astype(index, copy=False)
    rows = order[tied]
    run = np.repeat(np.arange(int(runs.sum())), lengths[runs])
    # by run, then the other keys, then the row itself: what a stable sort keeps
    keys = _canonical_keys(p, rows)[1:]
    order[tied] = rows[np.lexsort([rows, *keys[::-1], run])]
    return order.astype(index, copy=False)


def _canonical_keys(p: ConfidenceProfile, rows: np.ndarray | None) -> list[np.ndarray]:
    """The sort keys of :func:`canonical_order`, of all rows or of ``rows``."""

    def at(a: np.ndarray) -> np.ndarray:
        return a if rows is None else a[rows]

    keys: list[np.ndarray] = [at(p.conf), at(p.correct)]
    for a in (p.y_true, p.y_pred, p.score, p.sample_weight):
        if a is not None:
            keys.append(at(a))
    if p.has_proba and p.score is None:
        which = np.arange(p.n) if rows is None else rows
        # row sums of squares in chunks of rows: no (N, K) temporary (same values)
        sq = np.empty(which.size)
        step = _proba_rows(p)
        for a in range(0, which.size, step):
            sq[a:a + step] = np.square(p.proba[which[a:a + step]]).sum(axis=1)
        keys.append(sq)
        if p.y_true is not None:
            keys.append(p.proba[which, p.y_true[which]])
    return keys


def _subset(p: ConfidenceProfile, rows: np.ndarray, weight_scale: float | None
            ) -> ConfidenceProfile:
    """The profile's ``rows``, weights divided by ``weight_scale`` (the whole sample's).

    Unlike :meth:`ConfidenceProfile.take`, a chunk's weights are not put on the
    chunk's own scale: every chunk of the rows keeps the scale of the whole sample.
    """
    def sub(a: np.ndarray | None) -> np.ndarray | None:
        return None if a is None else a[rows]

    w = sub(p.sample_weight)
    if w is not None and weight_scale is not None:
        with np.errstate(under="ignore"):
            w = w / weight_scale
    return ConfidenceProfile(
        conf=p.conf[rows], correct=p.correct[rows], y_true=sub(p.y_true),
        y_pred=sub(p.y_pred), proba=None if p.proba_from_score else sub(p.proba),
        classes=p.classes, score=sub(p.score),
        sample_weight=w, threshold=p.threshold, weights=p.weights, notes=p.notes)


def _weight_scale(p: ConfidenceProfile) -> float | None:
    """The divisor :meth:`ConfidenceProfile.take` applies to the whole sample's weights."""
    w = p.sample_weight
    if w is None or p.weights != "importance" or not w.size:
        return None
    top = float(w.max())
    return top if top > 0 and top != 1.0 else None
