"""Sorting kernels of the pair-weighted AUCs of :mod:`calreport.metrics.ranking`.

The complex sort key carrying each row's label and weight, the packed score-and-label
sort used without sample weights, the pair sums over tie groups, and the bucketed
path for a class with few positives.  See :mod:`calreport.metrics.ranking` for the
definitions (Martin-Maroto et al. 2026, arXiv:2605.01796, section 2.2 and appendix).
The unweighted AURC of :mod:`calreport.metrics.selective` shares the packed-key sort.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np

from calreport.metrics import _chunks
from calreport.metrics._chunks import row_slices


def sort_in_place(key: np.ndarray) -> None:
    """Sort a 1-D key array in place, choosing the algorithm by its order.

    Keys of rows already near their order -- long ascending or descending runs, as
    the confidences of a binary profile sorted by score (a descending run below the
    threshold, an ascending one above) -- are merged run by run (NumPy's
    ``kind="stable"``, a timsort, is then about linear: 5 ms against 58 ms for 1e6
    such keys, 12 ms against 29 ms with ties); other keys, whose direction changes
    at most rows (2 in 3 for random keys), take the default SIMD quicksort.  The
    sorted array is the same either way.
    """
    down = key[1:] < key[:-1]
    if key.shape[0] > 2 and 2 * np.count_nonzero(down[1:] != down[:-1]) <= key.shape[0]:
        key.sort(kind="stable")
    else:
        key.sort()


def _power_of_two_scale(w: np.ndarray) -> np.ndarray:
    """``w`` over the power of two just below its maximum: exact (no mantissa
    changes), so every AUC is bitwise unchanged and no pair-weight sum overflows."""
    _, exponent = np.frexp(np.max(w))
    return np.ldexp(w, -int(exponent))


def _keyed(scores: np.ndarray, pos: np.ndarray, payload: np.ndarray | None) -> np.ndarray:
    """Sorted complex keys: score in ``real``, the payload (weight or row index, or
    1) in ``imag`` with its sign bit set on negatives (``-0.0`` keeps it).  One sort
    carries labels and payloads: no argsort, no random gathers."""
    key = np.empty(scores.shape[0], dtype=np.complex128)
    key.real = scores
    # written in place (no temporaries of size N): the payload, negated on negatives
    if payload is None:
        key.imag = 1.0
    else:
        key.imag = payload
    np.negative(key.imag, out=key.imag, where=~pos)
    key.sort()
    return key


def _packed_sort(scores: np.ndarray, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Sorted scores and negative mask from one plain ``uint64`` sort; None for a
    negative or NaN score.  The bits of a non-negative float order as its value and
    the sign bit is 0, so shifted left they leave the low bit for the label (ties
    stay ties); 0.6x the cost of the complex sort.  ``-0.0`` becomes ``+0.0``."""
    key = np.add(scores, 0.0)  # a new array, and -0.0 + 0.0 is +0.0
    if key.size == 0 or not float(key.min()) >= 0.0:
        return None
    bits = key.view(np.uint64)
    bits <<= np.uint64(1)
    bits |= pos
    sort_in_place(bits)
    low = bits.view(np.uint8)[::8] if np.little_endian else bits  # no N-row temporary
    negative = (low & low.dtype.type(1)) == 0
    bits >>= np.uint64(1)
    return key, negative


def _conf_threshold(scores: np.ndarray, conf: np.ndarray | None, threshold: float
                    ) -> float | None:
    """``threshold`` when ``conf`` is bit for bit ``where(scores >= threshold, scores,
    1 - scores)`` (a binary profile's confidence: recomputed from sorted scores)."""
    if conf is None or conf.shape != scores.shape:
        return None
    for sl in row_slices(scores.shape[0]):  # chunks: no N-row temporaries
        if not np.array_equal(top_label(scores[sl], threshold), conf[sl]):
            return None
    return threshold


def top_label(scores: np.ndarray, threshold: float) -> np.ndarray:
    """A binary score's top-label confidence, ``where(s >= threshold, s, 1 - s)``."""
    out = np.subtract(1.0, scores)
    np.copyto(out, scores, where=scores >= threshold)
    return out


def _group_end(new: np.ndarray, hi: int) -> int:
    """The first tie-group start at or after row ``hi`` (or the row count)."""
    n = new.shape[0]
    while hi < n and not new[hi]:
        seg = np.flatnonzero(new[hi:hi + _chunks.ROWS])
        hi = hi + int(seg[0]) if seg.size else hi + _chunks.ROWS
    return min(hi, n)


def _pair_sums(
    sorted_scores: np.ndarray, negative: np.ndarray, weights: list[Any]
) -> list[tuple[float, float, float]]:
    """``(wins, P, N)`` per weight vector of rows sorted by score (None: unit weights;
    an array of the sorted rows; or a function of a slice of the rows returning their
    weights, made chunk by chunk).  A tie
    group with positive weight ``p_g`` and negative ``n_g`` wins ``p_g (N_<g +
    n_g / 2)``; whole groups are summed, so the order inside a tie is irrelevant.

    The rows are taken in chunks of about ``_chunks.ROWS`` that end where a tie group
    ends, so no temporary holds N rows: the cumulated negative weight is carried
    from chunk to chunk as the first term of the next chunk's cumulative sum (the
    same additions in the same order as one cumulative sum over all rows).
    """
    n = sorted_scores.shape[0]
    if n == 0:
        return [(0.0, 0.0, 0.0) for _ in weights]
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(sorted_scores[1:], sorted_scores[:-1], out=new[1:])
    tied = not new.all()
    bounds = [0]
    while bounds[-1] < n:
        bounds.append(_group_end(new, bounds[-1] + _chunks.ROWS) if tied
                      else min(bounds[-1] + _chunks.ROWS, n))
    out = []
    for w in weights:
        wins = tot_p = carry = 0.0
        for lo, hi in pairwise(bounds):
            sl = slice(lo, hi)
            neg = negative[sl]
            if w is None:
                wn = neg.astype(np.float64)
                wp = 1.0 - wn
            else:
                wc = w(sl) if callable(w) else w[sl]
                wp = np.where(neg, 0.0, wc)
                wn = wc - wp  # exact: w - 0 or w - w
            if tied:
                starts = np.flatnonzero(new[sl])
                wp = np.add.reduceat(wp, starts)
                # rounding may leave -1e-17 in a mixed group; an all-positive one gives 0
                wn = np.maximum(np.add.reduceat(wn, starts), 0.0)
            cum_n = np.empty(wn.size + 1)
            cum_n[0] = carry
            cum_n[1:] = wn
            np.cumsum(cum_n, out=cum_n)
            carry = float(cum_n[-1])
            cum_n = cum_n[1:]
            tot_p += float(wp.sum())
            # wp * (cum_n - wn / 2) in place; multiply and sum, not np.dot: BLAS
            # threads stall on a busy machine
            wn *= 0.5
            cum_n -= wn
            cum_n *= wp
            wins += float(np.sum(cum_n))
            del wp, wn, cum_n  # free them before the next chunk's are made
        out.append((wins, tot_p, carry))
    return out


def _ratio(wins: float, tot_p: float, tot_n: float) -> float:
    """``wins / (P N)`` clipped to [0, 1] (rounding); NaN when a side has no weight."""
    ok = tot_p > 0.0 and tot_n > 0.0
    return min(max(wins / (tot_p * tot_n), 0.0), 1.0) if ok else float("nan")


def _pair_auc(sorted_scores: np.ndarray, negative: np.ndarray,
              weights: list[Any]) -> list[float]:
    """Pair-weighted AUC for each weight vector (:func:`_pair_sums`)."""
    return [_ratio(*t) for t in _pair_sums(sorted_scores, negative, weights)]


def _bucket_class_auc(
    scores: np.ndarray, pos: np.ndarray, conf: np.ndarray | None, want_auc: bool
) -> tuple[float, float] | None:
    """Unweighted AUC and cwAUC of a class with few positives; None where it does
    not pay or a score is negative.

    Scores fall into ordered buckets of their high bits (spanning the positives;
    the rows below or above all of them share an end bucket).  A negative in a
    bucket without positives is below a positive exactly when its bucket is, so
    its pairs are counted per bucket; only the rows of buckets holding a positive
    are sorted (:func:`_pair_sums`).  Same pair sums as the full sort.
    """
    n = scores.shape[0]
    s = np.add(scores, 0.0)  # a new array, and -0.0 + 0.0 is +0.0
    if not (float(s.min()) >= 0.0 and float(s.max()) < np.inf):
        return None
    bits = s.view(np.uint64)
    pos_bits = bits[pos]
    blo, bhi = int(pos_bits.min()), int(pos_bits.max())
    shift = max(0, (bhi - blo).bit_length() - (2 * n).bit_length())
    while (bhi >> shift) - (blo >> shift) + 3 > 2 * n:  # at most 2 N buckets
        shift += 1
    size = (bhi >> shift) - (blo >> shift) + 3
    bucket = (bits >> np.uint64(shift)).astype(np.intp)
    bucket -= (blo >> shift) - 1
    np.clip(bucket, 0, size - 1, out=bucket)
    del bits, s, pos_bits
    held = np.zeros(size, dtype=bool)
    held[bucket[pos]] = True
    near = held[bucket]  # every positive, and the negatives that share its bucket
    rows = np.flatnonzero(near)
    if 4 * rows.shape[0] > n:
        return None  # most rows are near a positive: the full sort is as cheap
    far, pos_bucket = ~near, bucket[pos]  # far rows are negatives
    key = _keyed(scores[rows], pos[rows], None if conf is None else conf[rows])
    weights: list[np.ndarray | None] = [None] if want_auc else []
    if conf is not None:
        weights.append(np.abs(key.imag))
    out = []
    for w, (wins, tot_p, tot_n) in zip(
            weights, _pair_sums(key.real, np.signbit(key.imag), weights), strict=True):
        per = np.bincount(bucket, weights=far if w is None else np.where(far, conf, 0.0),
                          minlength=size)  # far negative weight per bucket
        below = np.cumsum(per)
        below -= per  # strictly below each bucket
        won = below[pos_bucket] if w is None else below[pos_bucket] * conf[pos]
        out.append(_ratio(wins + float(won.sum()), tot_p, tot_n + float(below[-1] + per[-1])))
    nan = float("nan")
    return (out[0] if want_auc else nan), (out[-1] if conf is not None else nan)


def aurc_unweighted(c: np.ndarray, ok: np.ndarray) -> float:
    """AURC from one sort of packed keys (no argsort, no gathers).

    The bits of a float in [0, 1] order like the number; shifted left by one (the
    sign bit falls off: -0.0 becomes 0.0) they leave the lowest bit for the error
    flag, so one ``uint64`` sort orders the confidences and carries the errors.  A
    tie group starting at ascending position ``s`` is accepted with the ``N - s``
    rows at least as confident, ``E - E_<s`` of them errors (exact integer counts).
    The sorted keys are then read in chunks that end where a tie group ends, the
    errors before each chunk carried as one count.
    """
    n = c.shape[0]
    if n == 0:
        return float("nan")
    key = c.view(np.uint64) << np.uint64(1)
    key |= ~ok.astype(bool, copy=False)
    sort_in_place(key)
    one = np.uint64(1)
    total_err = sum(int(np.count_nonzero(key[sl] & one)) for sl in row_slices(n))
    acc, before, lo = 0.0, 0, 0
    while lo < n:
        hi = min(lo + _chunks.ROWS, n)
        if hi < n:  # extend to the end of the tie group of row hi - 1
            nxt = np.uint64(((int(key[hi - 1]) >> 1) + 1) << 1)
            hi = int(np.searchsorted(key, nxt, side="left"))
        k = key[lo:hi]
        err = (k & one).astype(np.int64)
        score = k >> one
        new = np.empty(hi - lo, dtype=bool)
        new[0] = True
        np.not_equal(score[1:], score[:-1], out=new[1:])
        starts = np.flatnonzero(new)
        err_before = np.cumsum(err)
        err_before -= err  # errors strictly before each row
        err_before += before
        group_w = np.diff(starts, append=hi - lo)
        cum_err = total_err - err_before[starts]
        acc += float((group_w * (cum_err / (n - lo - starts))).sum())
        before += int(err.sum())
        lo = hi
    return acc / n
