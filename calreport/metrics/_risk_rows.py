"""Rows of a risk assessment: clipping, weights and the moments of the CSR null.

Shared by :mod:`calreport.metrics.risk` (the statistics and the verdict) and
:mod:`calreport.metrics._risk_null` (validity of the normal approximation, the Monte
Carlo null and power).  Definitions: Martin-Maroto, Abderrahaman-Elena & de Polavieja
(2026), "Beyond ECE", arXiv:2605.01796, section 2.1 and appendix A.2.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from scipy import special

from calreport import _labels as lab
from calreport import _validate as v
from calreport._warnings import user_stacklevel
from calreport.metrics._chunks import row_slices

#: Default clipping of confidences away from 0 and 1.
EPS = 1e-8
#: Default number of Monte Carlo draws of the null (standard error of P_risk <= 0.0036).
N_SIM = 20000
#: Normal approximation of the CSR null is valid when no single row carries more than
#: this share of the null variance (Lindeberg-type ratio) ...
LINDEBERG_MAX = 0.05
#: ... and the absolute skewness of the null is at most this ...
SKEWNESS_MAX = 0.25
#: ... and, where z > TAIL_Z (P_risk could near the 3-sigma "risky" level), the
#: absolute skewness is at most TAIL_SKEWNESS_MAX: the normal tail's relative error at
#: z is about |skew| (z^2 - 1) phi(z) / (6 (1 - Phi(z))), 4.4 |skew| at z = 3, so a
#: skewness of 0.25 doubles the 3-sigma tail (each group's false "risky" rate was
#: 0.22-0.28 % against the nominal 0.135 % at 2,000 mild rows) and 0.05 keeps it
#: within 22 % ...
TAIL_Z = 2.0
TAIL_SKEWNESS_MAX = 0.05
#: ... and no group of tied rows carrying >= 10 % of the variance has an error size
#: above this fraction of the null standard deviation (lattice nulls; see
#: ``normal_validity``).
LATTICE_MAX = 0.1
#: Power is computed against errors RHO times as frequent as the confidences claim.
POWER_RHO = 2.0
#: Below this power a "no evidence" verdict becomes "undetermined".
POWER_MIN = 0.5
#: One-sided level of the Clopper-Pearson bound on the error rate of certainty claims.
CERTAIN_LEVEL = 0.95
#: ``method="auto"`` simulates every row below this many rows; above, only the rows
#: that break the normal approximation when that leaves a near-normal rest (which
#: enters through the Edgeworth law of its exact cumulants), else every row.
FULL_MONTE_CARLO_ROWS = 200
#: The rows left out of a conditional Monte Carlo carry at most this share of their
#: variance each ...
LIGHT_SHARE_MAX = 0.01
#: ... and their null skewness is at most this (the Edgeworth law then errs by
#: ``O(skew^2)``, far below the Monte Carlo standard error: benchmarks/p_risk_auto.py).
LIGHT_SKEW_MAX = 0.1
#: Elements of one simulation tile (bounds memory at about 32 MiB of float64).
_TILE = 1 << 22
_METHODS = ("auto", "normal", "monte_carlo")
_WEIGHTS = ("importance", "frequency")
#: P_risk thresholds of the bands: the normal probabilities of 1 and 3 sigma.
P_EVIDENCE = float(special.ndtr(1.0))
P_RISKY = float(special.ndtr(3.0))


class ClippedConfidenceWarning(UserWarning):
    """Confidences of exactly 1 were clipped to ``1 - eps`` for CSR.

    Built by :meth:`of_count`, the one wording of this condition; ``count`` holds the
    number of confidences (so warnings of several groups add up).
    """

    def __init__(self, message: str, count: int = 0, eps: float = EPS) -> None:
        super().__init__(message)
        self.count = int(count)
        self.eps = float(eps)

    def __reduce__(self) -> Any:  # keep count and eps when sent to another process
        return (type(self), (str(self), self.count, self.eps))

    @classmethod
    def of_count(cls, count: int, eps: float) -> ClippedConfidenceWarning:
        """The warning for ``count`` confidences of exactly 1 clipped to ``1 - eps``.

        Examples
        --------
        >>> w = ClippedConfidenceWarning.of_count(3, 1e-8)
        >>> w.count, str(w).split(":")[0]
        (3, '3 confidence(s) of exactly 1 clipped to 1 - 1e-08 for CSR')
        """
        return cls(f"{count} confidence(s) of exactly 1 clipped to 1 - {eps:g} for CSR: "
                   "an error there weighs 1/eps (unclipped, CSR would be infinite); they "
                   "are judged as certainty claims, see risk().", count, eps)




def clip_confidence(conf: Any, *, eps: float = EPS, warn: bool = True
                    ) -> tuple[np.ndarray, int]:
    """Clip confidences to ``[eps, 1 - eps]`` and count how many were changed.

    Parameters
    ----------
    conf : array-like of float, shape (N,)
        Top-label confidences in [0, 1].
    eps : float, default 1e-8
        Clipping margin, in (0, 0.5).
    warn : bool, default True
        Emit one :class:`ClippedConfidenceWarning` with the count when confidences of
        exactly 1 were clipped (without clipping, an error at confidence 1 makes CSR
        infinite).

    Returns
    -------
    clipped : ndarray of float64
    n_clipped : int

    Raises
    ------
    ValueError
        When ``eps`` is not in (0, 0.5) or a confidence is outside [0, 1].

    Notes
    -----
    Clipping ``c -> 1 - max(1 - c, delta)`` with ``N delta << 1`` leaves P_risk
    essentially unaltered (Martin-Maroto et al. 2026, section 4).  The verdict of
    :func:`risk_summary` does not depend on ``eps``: clipped rows are certainty claims
    and are judged on their own.

    References
    ----------
    Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond ECE:
    Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics. arXiv
    preprint. arXiv:2605.01796. Section 4.

    Examples
    --------
    >>> c, n = clip_confidence([0.5, 0.999999999], warn=False)
    >>> n, float(c[1])
    (1, 0.99999999)
    """
    c = v.check_probability(conf, "conf")
    eps = _check_eps(eps)
    clipped = np.clip(c, eps, 1.0 - eps)
    n_one = int(np.count_nonzero(c == 1.0))
    if warn and n_one:
        warnings.warn(ClippedConfidenceWarning.of_count(n_one, eps),
                      stacklevel=user_stacklevel())
    return clipped, int(np.count_nonzero(clipped != c))


def _check_eps(eps: Any) -> float:
    eps = v.check_positive_number(eps, "eps")
    if eps >= 0.5:
        raise ValueError(f"`eps` must be below 0.5, got {eps!r}.")
    return eps


def _check_weights(sample_weight: Any, n: int, kind: str) -> np.ndarray:
    """Weights as float64 (ones when absent); frequency weights must be integers."""
    v.check_option(kind, "weights", _WEIGHTS)
    w = v.check_sample_weight(sample_weight, n)
    if w is None:
        return _ones(n)
    if kind == "frequency":
        bad = w != np.floor(w)
        if bad.any():
            pos = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"`sample_weight` has {int(bad.sum())} non-integer value(s) (first "
                f"{w[pos]!r} at row {pos}) but weights='frequency' means repeat counts. "
                "Pass integer counts, or weights='importance' for relative weights.")
        if w.max() > 2.0 ** 62:
            raise ValueError("`sample_weight` holds frequency counts above 2**62; pass "
                             "weights='importance' for relative weights.")
    return w


@dataclass(frozen=True)
class Rows:
    """Rows with positive weight, in the sum form ``S = sum_i a_i Y_i``.

    ``Y_i`` is the number of errors among the ``k_i`` copies of row i (``k_i = 1`` for
    importance weights, the count for frequency weights), ``a_i`` its size in CSR
    numerator units and ``denom`` the CSR denominator, so ``CSR = S / denom`` and,
    under calibration, ``E[S] = denom``.  Importance weights are divided by their
    maximum first, so no sum overflows or underflows.
    """

    c: np.ndarray
    raw: np.ndarray
    wrong: np.ndarray
    atom: np.ndarray
    k: np.ndarray
    w: np.ndarray
    denom: float
    kind: str

    @cached_property
    def p(self) -> np.ndarray:
        return 1.0 - self.c

    def subset(self, mask: np.ndarray) -> Rows:
        w = self.w[mask]
        return Rows(self.c[mask], self.raw[mask], self.wrong[mask], self.atom[mask],
                     self.k[mask], w, float(w.sum()), self.kind)

    @cached_property
    def s_obs(self) -> float:
        return float(self.ka[self.wrong].sum())

    @property
    def count(self) -> float:
        return float(self.k.sum())

    @cached_property
    def ka(self) -> np.ndarray:
        """``k_i a_i``: the error size of all copies of a row (``a_i`` when ``k = 1``)."""
        return self.atom if self.kind != "frequency" else self.k * self.atom

    @cached_property
    def unit_var(self) -> np.ndarray:
        """Null variance of one copy of each row, ``a_i^2 p_i (1 - p_i)``."""
        return self.atom ** 2 * self.p * self.c

    def chunks(self) -> list[slice]:
        """The rows in slices of ``_chunks.ROWS`` (one slice for a small profile)."""
        return row_slices(self.c.size)

    def unit_var_of(self, sl: slice) -> np.ndarray:
        """:attr:`unit_var` of the rows ``sl``, the same numbers, computed there."""
        if "unit_var" in self.__dict__:
            return self.unit_var[sl]
        c = self.c[sl]
        return self.atom[sl] ** 2 * (1.0 - c) * c

    @cached_property
    def moments(self) -> tuple[float, float, float]:
        """Variance, third central moment and largest single-unit share of the null.

        Summed over chunks of rows: a large profile keeps no row array beyond its own.
        """
        var = k3 = 0.0
        top = -math.inf
        for sl in self.chunks():
            uv = self.unit_var_of(sl)
            if not uv.size:
                continue
            var += float(uv.sum() if self.kind != "frequency" else _dot(self.k[sl], uv))
            k3 += _dot(self.ka[sl], uv * (1.0 - 2.0 * (1.0 - self.c[sl])))
            top = max(top, float(uv.max()))
        share = float(top / var) if var > 0 and self.c.size else math.nan
        return var, k3, share

    @property
    def sq_weight_sum(self) -> float:
        """``sum_i w_i^2`` (Kish's effective count), without squaring unit weights."""
        w = self.w
        if w.ndim == 1 and w.size and w.strides[0] == 0:  # broadcast unit weights
            return float(w.size) * float(w[0]) ** 2
        return float((w ** 2).sum())

    def ksum_where(self, mask: np.ndarray) -> float:
        """``sum_i k_i 1[mask_i]``: rows (copies, for frequency weights) where ``mask``."""
        if self.kind != "frequency":
            return float(np.count_nonzero(mask))
        return float(self.k[mask].sum())

    @cached_property
    def _sorted(self) -> tuple[np.ndarray, np.ndarray]:
        return _tie_sort(self.atom, self.c, self._atom_follows_c)

    @cached_property
    def ties(self) -> tuple[np.ndarray, np.ndarray]:
        """Index of the distinct (error size, confidence) pairs and the inverse map.

        One sort: of the confidences when the error size is a function of them (no
        weights, equal weights, frequency weights), else of the pairs.
        """
        order, new = self._sorted
        inv = np.empty(order.size, np.int64)
        inv[order] = np.cumsum(new) - 1
        return order[new], inv

    @cached_property
    def canonical(self) -> np.ndarray:
        """Rows in increasing (confidence, error size): an order free of the input's."""
        return self._sorted[0]

    @cached_property
    def lattice(self) -> float:
        """:func:`_lattice_ratio` of all rows."""
        return _lattice_ratio(self, self.moments[0])

    @cached_property
    def _atom_follows_c(self) -> bool:
        w = self.w
        return self.kind == "frequency" or not w.size or bool(w.min() == w.max())


def _rows(conf: Any, correct: Any, sample_weight: Any, eps: float, kind: str,
          warn: bool = True) -> tuple[Rows, int]:
    raw = v.check_probability(conf, "conf")
    c, n_clipped = clip_confidence(raw, eps=eps, warn=warn)
    ok = lab.check_binary_indicator(correct, "correct")
    v.check_consistent_length(conf=len(c), correct=len(ok))
    w = _check_weights(sample_weight, len(c), kind)
    if sample_weight is None and kind != "frequency":
        w = None  # unit importance weights: no N-row array of ones (the same sums)
    return _trusted_rows(raw, c, ok, w, kind), n_clipped


def _trusted_rows(raw: np.ndarray, c: np.ndarray, ok: np.ndarray, w: np.ndarray | None,
                  kind: str) -> Rows:
    """The rows of validated arrays: confidences, clipped ones, bool hits, weights."""
    if w is None:
        k = _ones(len(c))
        return Rows(c, raw, ~ok, _reciprocal_error(c), k, k, float(len(c)), kind)
    keep = w > 0
    if not keep.all():
        c, raw, ok, w = c[keep], raw[keep], ok[keep], w[keep]
    if kind == "frequency":
        k = w
        atom = _reciprocal_error(c)
    else:
        w = w / w.max()
        k = _ones(len(c))
        atom = np.subtract(1.0, c)
        np.divide(w, atom, out=atom)
    return Rows(c, raw, ~ok, atom, k, w, float(w.sum()), kind)


def _reciprocal_error(c: np.ndarray) -> np.ndarray:
    """``1 / (1 - c)`` in one array (no second temporary of N rows)."""
    atom = np.subtract(1.0, c)
    return np.divide(1.0, atom, out=atom)


def _ones(n: int) -> np.ndarray:
    """``n`` unit counts as a read-only broadcast of one value (no N-row array)."""
    return np.broadcast_to(np.float64(1.0), (n,))


def _dot(x: np.ndarray, y: np.ndarray) -> float:
    """``sum_i x_i y_i`` without BLAS: a multithreaded BLAS dot stalls for its threads
    when the cores are busy (17 ms instead of 1 ms at 1e6 rows, measured)."""
    return float(np.einsum("i,i->", x, y))


def _null_moments(r: Rows) -> tuple[float, float, float]:
    """Variance, third central moment and largest single-unit share of ``S``'s null."""
    return r.moments


def _tie_groups(atom: np.ndarray, c: np.ndarray, by_c: bool = False
                ) -> tuple[np.ndarray, np.ndarray]:
    """Index of the distinct (error size, confidence) pairs and the inverse map.

    ``by_c``: the error size is a function of the confidence, so the confidences
    alone decide the groups (one float sort instead of a sort of pairs).
    """
    order, new = _tie_sort(atom, c, by_c)
    inv = np.empty(c.size, np.int64)
    inv[order] = np.cumsum(new) - 1
    return order[new], inv


def _tie_sort(atom: np.ndarray, c: np.ndarray, by_c: bool) -> tuple[np.ndarray, np.ndarray]:
    """Rows sorted by (confidence, error size) and where each new pair starts."""
    if not c.size:
        return np.zeros(0, np.int64), np.zeros(0, bool)
    new = np.empty(c.size, bool)
    new[0] = True
    if by_c:
        order = np.argsort(c, kind="stable")
        sc = c[order]
        np.not_equal(sc[1:], sc[:-1], out=new[1:])
    else:
        order = np.lexsort((atom, c))
        sc, sa = c[order], atom[order]
        # error sizes equal but for their last bits are one tie group: importance
        # weights scaled by 10 and normalised again differ there, and the groups decide
        # the Monte Carlo's draws (P_risk must not depend on the weights' scale)
        new[1:] = (sc[1:] != sc[:-1]) | (np.abs(sa[1:] - sa[:-1]) > _TIE_REL * sa[1:])
    return order, new


#: Relative difference below which two error sizes of one confidence are one tie group.
_TIE_REL = 1e-13


#: Buckets of the hash screen of :func:`_lattice_ratio`.
_HASH_BUCKETS = 1 << 16


def _lattice_ratio(r: Rows, var: float, mask: np.ndarray | None = None) -> float:
    """Largest error size / null sd among tie groups with >= 10 % of the variance.

    ``mask`` restricts the rows (the rest of a heavy split).  No sort is needed when
    no tie group can carry 10 % of the variance: the rows are first summed into hash
    buckets of their (error size, confidence) bits, each tie group falling into one
    bucket, so a bucket below 10 % clears every group in it; only the rows of the few
    heavier buckets are grouped exactly.
    """
    if not var > 0:
        return math.nan
    def tv_of(sl: slice) -> np.ndarray:
        tv = r.unit_var_of(sl)
        if r.kind == "frequency":
            tv = r.k[sl] * tv
        return tv if mask is None else np.where(mask[sl], tv, 0.0)

    limit = 0.1 * var
    if r.c.size <= _HASH_BUCKETS // 16:  # small: group exactly (the sort is cached)
        first, inv = r.ties
        group_var = np.bincount(inv, weights=tv_of(slice(None)))
        big = group_var >= limit
        return float(r.atom[first][big].max() / math.sqrt(var)) if big.any() else 0.0

    def bucket_of(sl: slice) -> np.ndarray:
        key = r.c[sl].view(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        if not r._atom_follows_c:
            key ^= r.atom[sl].view(np.uint64) * np.uint64(0xC2B2AE3D27D4EB4F)
        return (key >> np.uint64(48)).astype(np.intp)

    # chunk by chunk, twice (bucket sums, then the rows of heavy buckets): no N-row
    # keys or variances are held
    bucket_var = np.zeros(_HASH_BUCKETS)
    for sl in r.chunks():
        bucket_var += np.bincount(bucket_of(sl), weights=tv_of(sl), minlength=_HASH_BUCKETS)
    heavy = bucket_var >= limit
    if not heavy.any():
        return 0.0
    cand = np.concatenate([sl.start + np.flatnonzero(heavy[bucket_of(sl)] & (tv_of(sl) > 0))
                           for sl in r.chunks()])
    if not cand.size:
        return 0.0
    first, inv = _tie_groups(r.atom[cand], r.c[cand], by_c=r._atom_follows_c)
    c = r.c[cand]
    tv_cand = r.atom[cand] ** 2 * (1.0 - c) * c  # the rows' unit variances, as above
    if r.kind == "frequency":
        tv_cand = r.k[cand] * tv_cand
    if mask is not None:
        tv_cand = np.where(mask[cand], tv_cand, 0.0)
    group_var = np.bincount(inv, weights=tv_cand)
    big = group_var >= limit
    return float(r.atom[cand][first][big].max() / math.sqrt(var)) if big.any() else 0.0


def _z(r: Rows) -> float:
    var = _null_moments(r)[0]
    return (r.s_obs - r.denom) / math.sqrt(var) if var > 0 else math.nan


def p_normal(csr_value: float, z: float) -> float:
    """The paper's P_risk by the normal approximation: ``Phi(z)`` (also when CSR <= 1).

    ``csr_value`` is kept for the callers' signature; the value does not depend on it.
    """
    if math.isnan(z):
        return math.nan
    return float(special.ndtr(z))


