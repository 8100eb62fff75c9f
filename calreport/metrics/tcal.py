"""T-Cal: the adaptive test of calibration on the debiased plug-in ℓ2-ECE.

For ``m`` equal-width bins of the score (bin ``floor(m s)``, a score of exactly 1 in
a bin of its own, as the authors' code), the debiased plug-in estimator (DPE) of the
squared ℓ2-ECE is

    DPE_m = Σ_b (n_b / n) · Σ_{i ≠ j in b} e_i e_j / (n_b (n_b − 1)),  e = y − s,

the within-bin U-statistic of the squared mean gap: its expectation is 0 under
calibration whatever the number of rows per bin (the plug-in ECE² is biased upward
by the binomial noise). Adaptive T-Cal tests every ``m = 2, 4, ..., 2^L`` with
``L = floor(2 log2(n / sqrt(ln n)))`` (Lee et al. 2023, section 3.3; partitions that
repeat a coarser one are tested once) and combines the levels.

The null distribution is simulated exactly: under calibration ``y_i ~ Bernoulli(s_i)``
given the scores, so every replicate redraws the outcomes with the scores fixed
(the authors' code also resamples the scores, Bröcker & Smith's consistency
resampling; conditioning on them makes the test exact at any sample size). The
observed data and the ``n_draws`` replicates are exchangeable under the null, so the
Monte Carlo p-value ``#{replicates at least as extreme, the data included} /
(n_draws + 1)`` satisfies ``P(p <= α) <= α`` exactly, for every n, weighted or not
(measured at α = 5 % by ``benchmarks/calibration_tests_size.py``: 4.1-5.3 % over
1,000 runs a cell, binary and 10-class top label, n = 100 to 10,000, with and
without weights).

Cost: ``n_draws x n`` outcome draws and a pass over every level's bins, a tenth of
that when the first 99 replicates already give a p-value above 0.2 (``stop_above``). Above
``max_rows`` rows (default 10,000) the test runs on a seeded uniform subsample of
``max_rows`` rows: still exact (the null holds on any subset chosen without looking
at the outcomes) but less powerful than the full data would allow; the result says
how many rows it used. The Kolmogorov-Smirnov and Kuiper tests of
:mod:`calreport.metrics.cumulative` use every row.

Combination over levels: ``"max_z"`` (default) standardises each level's DPE by the
mean and standard deviation of the data and replicates together, and compares the
data's largest standardised DPE with those of the replicates (a Monte
Carlo-calibrated max test: the standardisation is symmetric in the data and the
replicates, so it is exact by the same exchangeability, and it has no ties);
``"bonferroni"`` multiplies the smallest per-level p-value by the number of levels
(the paper's rule: conservative, and never below ``L / (n_draws + 1)``, so it needs
thousands of replicates). A Monte Carlo min-p combination was tried first and
dropped: with a few hundred replicates most levels of a clearly miscalibrated model
tie at the smallest attainable p-value, and the ties cap its power.

Weights: a row adds ``w e`` to its bin's sum. Importance weights use the pairs
``Σ_{i≠j} w_i w_j e_i e_j / Σ_{i≠j} w_i w_j`` and bin mass ``W_b / W``; frequency
weights count copies (``w_i`` copies of row i, drawn as ``Binomial(w_i, s_i)`` under
the null), the same test as repeating the rows.

Multiclass models are tested through their top-label view (confidence of the
predicted class against correctness): top-label calibration only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from calreport import _validate as v
from calreport.metrics.cumulative import _inputs

__all__ = ["TCalResult", "dpe", "tcal_levels", "tcal_test"]

#: Keys of :mod:`calreport.references` behind this module.
REFERENCE_KEYS = ("Lee2023", "Besag1991")
#: Combinations of the per-level tests.
COMBINES = ("max_z", "bonferroni")
#: Replicates drawn first; the test stops there when its p-value exceeds ``stop_above``.
FIRST_DRAWS = 99
# outcome draws held at once (rows x replicates): 0.5 MB a working array, so a test
# adds little to a summary's peak memory
_CHUNK = 65_536


@dataclass(frozen=True)
class TCalResult:
    """Result of :func:`tcal_test`.

    Attributes
    ----------
    pvalue : float
        Monte Carlo p-value of the combined test.
    statistic : float
        DPE (squared ℓ2-ECE estimate) at the level that decides the test (largest
        standardised DPE for ``"max_z"``, smallest p-value for ``"bonferroni"``).
    n_bins : int
        Number of bins of that level.
    levels : tuple of int
        The bin counts tested (distinct partitions only).
    level_pvalues : tuple of float
        Monte Carlo p-value of each level.
    n_draws : int
        Null replicates drawn (fewer than asked when the test stopped early).
    n_rows : int
        Rows tested (a subsample above ``max_rows``).
    combine : str
        ``"max_z"`` or ``"bonferroni"``.
    """

    pvalue: float
    statistic: float
    n_bins: int
    levels: tuple[int, ...]
    level_pvalues: tuple[float, ...]
    n_draws: int
    n_rows: int
    combine: str


def tcal_levels(n: int) -> list[int]:
    """Bin counts of adaptive T-Cal: ``2, 4, ..., 2^L``, ``L = floor(2 log2(n / sqrt(ln n)))``.

    Examples
    --------
    >>> tcal_levels(100)[-1]  # L = floor(2 log2(100 / sqrt(ln 100))) = 11
    2048
    """
    if n < 3:
        return [2]
    top = max(1, int(2.0 * math.log2(n / math.sqrt(math.log(n)))))
    return [2 ** b for b in range(1, top + 1)]


@dataclass(frozen=True)
class _Design:
    """Rows sorted by score and, per distinct partition, a 0/1 matrix summing its bins.

    The ``direct`` level (the finest whose bins with a pair hold half of the rows) sums
    every bin from the rows; each coarser level adds up the bins of the next finer one
    (the partitions are nested); each finer level sums, from the rows, only its bins
    with a pair. Sparse products add in a fixed order, each bin over its own rows
    only, so equal outcomes in a bin give bit-identical terms: ties between the data
    and a replicate are exact, never decided by rounding (as differences of running
    sums over all rows would decide them).
    """

    s: np.ndarray
    w: np.ndarray
    frequency: bool
    levels: tuple[int, ...]
    direct: int
    sums: tuple[Any, ...]  # per level: bins x rows, or bins x finer bins (coarser levels)
    coef: tuple[np.ndarray, ...]  # per summed bin: (W_b / W) / Σ_{i≠j} w_i w_j, or 0


def _summing(first: np.ndarray, last: np.ndarray, n_cols: int) -> Any:
    """0/1 matrix whose row i adds columns ``first[i] .. last[i] - 1``."""
    from scipy import sparse

    lengths = last - first
    indptr = np.concatenate(([0], np.cumsum(lengths)))
    cols = np.repeat(first - indptr[:-1], lengths) + np.arange(int(indptr[-1]))
    return sparse.csr_matrix((np.ones(cols.size), cols.astype(np.int32),
                              indptr.astype(np.int32)), shape=(first.size, n_cols))


def _design(s: np.ndarray, w: np.ndarray, frequency: bool,
            bins: list[int] | None = None) -> _Design:
    """The levels' bins of rows sorted by score (the caller sorts by score, weight and
    outcome, so that the draws, tied to sorted positions, ignore the input order)."""
    n_rows = s.size
    cw = np.concatenate(([0.0], np.cumsum(w)))
    cw2 = np.concatenate(([0.0], np.cumsum(w * w)))
    distinct = 1 + int(np.count_nonzero(s[1:] != s[:-1]))
    if bins is None:
        bins = tcal_levels(int(w.sum()) if frequency else n_rows)
    parts = []
    previous = -1
    for m in bins:
        ids = np.floor(s * m)
        first = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
        if first.size == previous:  # nested partitions: same count, same partition
            continue
        previous = first.size
        last = np.r_[first[1:], n_rows]
        wb = cw[last] - cw[first]
        # a lone row adds no pair unless it stands for several copies (counting rows:
        # its pair count is 0 only up to rounding)
        keep = (last - first >= 2) | (frequency & (wb > 1.0))
        pairs = wb * wb - (wb if frequency else cw2[last] - cw2[first])
        coef = np.zeros(first.size)
        coef[keep] = wb[keep] / cw[-1] / pairs[keep]
        parts.append((m, first, last, keep, coef))
        if first.size == distinct:  # every distinct score alone: finer bins repeat it
            break
    held = [int((last - first)[keep].sum()) for _, first, last, keep, _ in parts]
    direct = max((j for j, h in enumerate(held) if 2 * h >= n_rows), default=len(parts) - 1)
    sums, coefs = [], []
    for j, (_, first, last, keep, coef) in enumerate(parts):
        if j == direct:
            sums.append(_summing(first, last, n_rows))
            coefs.append(coef)
        elif j < direct:  # the finer level's bins first[i] .. last[i] - 1 of this one
            finer = parts[j + 1][1]
            sums.append(_summing(np.searchsorted(finer, first), np.searchsorted(finer, last),
                                 finer.size))
            coefs.append(coef)
        else:
            sums.append(_summing(first[keep], last[keep], n_rows))
            coefs.append(coef[keep])
    return _Design(s, w, frequency, tuple(p[0] for p in parts), direct, tuple(sums),
                   tuple(coefs))


def _statistics(d: _Design, k: np.ndarray) -> np.ndarray:
    """DPE of every level for outcome counts ``k`` (rows x replicates): replicates x levels.

    ``k`` is the 0/1 outcome, or the number of events among a row's ``w`` copies
    (frequency weights).
    """
    s, w = d.s[:, None], d.w[:, None]
    if d.frequency:
        e = k - w * s
        e2 = k * (1.0 - s) ** 2 + (w - k) * s * s
    else:
        e = w * (k - s)
        e2 = e * e
    out = np.zeros((k.shape[1], len(d.levels)))
    sb, qb = d.sums[d.direct] @ e, d.sums[d.direct] @ e2
    out[:, d.direct] = d.coef[d.direct] @ (sb * sb - qb)
    for j in range(d.direct - 1, -1, -1):  # coarser: sums of the finer level's bins
        sb, qb = d.sums[j] @ sb, d.sums[j] @ qb
        out[:, j] = d.coef[j] @ (sb * sb - qb)
    for j in range(d.direct + 1, len(d.levels)):  # finer: the bins with a pair
        if d.coef[j].size:
            sf = d.sums[j] @ e
            out[:, j] = d.coef[j] @ (sf * sf - d.sums[j] @ e2)
    return out


def dpe(score: Any, outcome: Any, *, n_bins: int, sample_weight: Any = None,
        weights: str = "frequency") -> float:
    """Debiased plug-in estimate of the squared ℓ2-ECE over ``n_bins`` equal-width bins.

    Parameters
    ----------
    score : array-like of shape (n,)
        Predicted probability of the event, in [0, 1].
    outcome : array-like of shape (n,)
        Observed 0/1 outcome.
    n_bins : int
        Number of equal-width bins (bin ``floor(n_bins * s)``).
    sample_weight : array-like of shape (n,), optional
        Row weights; zero weights drop rows.
    weights : {"frequency", "importance"}, default "frequency"
        Meaning of ``sample_weight``.

    Returns
    -------
    float
        ``Σ_b (n_b / n) Σ_{i≠j in b} e_i e_j / (n_b (n_b - 1))``; can be negative.

    References
    ----------
    .. [1] Lee, D., Huang, X., Hassani, H. & Dobriban, E. (2023). T-Cal: an optimal
       test for the calibration of predictive models. Journal of Machine Learning
       Research 24(335), 1-72. arXiv:2203.01850. Section 3.1.

    Examples
    --------
    One bin holding scores 0.2, 0.4 and outcomes 1, 0: the pair gives
    2 * 0.8 * (-0.4) / (2 * 1) = -0.32:

    >>> round(dpe([0.2, 0.4], [1, 0], n_bins=1), 6)
    -0.32
    """
    n_bins = v.check_positive_int(n_bins, "n_bins")
    s, y, w, frequency = _prepared(score, outcome, sample_weight, weights)
    order = np.argsort(s, kind="stable")
    s, y, w = s[order], y[order], w[order]
    d = _design(s, w, frequency, [n_bins])
    k = w * y if frequency else y
    return float(_statistics(d, k[:, None])[0, 0])


def _prepared(score: Any, outcome: Any, sample_weight: Any, weights: str
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    s, y, w = _inputs(score, outcome, sample_weight, weights)
    if w is None:
        return s, y, np.ones_like(s), False
    keep = w > 0
    return s[keep], y[keep], w[keep], weights == "frequency"


def _draws(rng: np.random.Generator, d: _Design, size: int) -> np.ndarray:
    """``size`` null replicates, rows x replicates; each replicate takes the next ``n``
    variates of the stream, so the p-value does not depend on the chunk size."""
    if d.frequency:
        k = rng.binomial(d.w.astype(np.int64), d.s, size=(size, d.s.size))
    else:
        k = rng.random((size, d.s.size)) < d.s
    return np.ascontiguousarray(k.T, dtype=np.float64)


#: Values closer than this (in standard deviations of their level, over the data and
#: the replicates) count as ties: equal outcomes give equal statistics only up to
#: rounding, which differs between linear-algebra kernels (a replicate computed in a
#: batch, the data alone) and with the scale of importance weights. Counting near
#: ties as ties can only raise the p-value, so the test stays valid.
_TIE = 1e-9


def _upper_counts(column: np.ndarray, tol: float) -> np.ndarray:
    """For each entry, how many entries of the column are >= it - tol (itself included)."""
    ranked = np.sort(column)
    return column.size - np.searchsorted(ranked, column - tol, side="left")


def tcal_test(score: Any, outcome: Any, *, n_draws: int = 1000, combine: str = "max_z",
              max_rows: int | None = 10_000, stop_above: float | None = 0.2,
              seed: int | np.random.Generator | None = 0, sample_weight: Any = None,
              weights: str = "frequency") -> TCalResult:
    """Adaptive T-Cal test of calibration, p-value by Monte Carlo under the null.

    Parameters
    ----------
    score : array-like of shape (n,)
        Predicted probability of the event, in [0, 1] (a top-label confidence for a
        multiclass model: the test is then of top-label calibration only).
    outcome : array-like of shape (n,)
        Observed 0/1 outcome.
    n_draws : int, default 1000
        Null replicates (outcomes redrawn as ``Bernoulli(score)``); the p-value is
        at least ``1 / (n_draws + 1)``. The work is ``n_draws x n`` draws.
    stop_above : float or None, default 0.2
        Draw :data:`FIRST_DRAWS` (99) replicates first and stop there when their
        p-value exceeds this (a calibrated model: p about 0.5 with 99 replicates, at
        a tenth of the work); otherwise draw all ``n_draws``, as with None.  The test
        stays exact (Notes).
    combine : {"max_z", "bonferroni"}, default "max_z"
        Combination of the levels (see the module docstring).
    max_rows : int or None, default 10000
        Above this many rows (of positive weight) the test uses a seeded uniform
        subsample of this size (exact, less powerful); None: every row.
    seed : int, Generator or None, default 0
        Seed of the null replicates (the same seed, the same p-value).
    sample_weight : array-like of shape (n,), optional
        Row weights; zero weights drop rows.
    weights : {"frequency", "importance"}, default "frequency"
        Meaning of ``sample_weight``: integer counts (equal to repeating rows) or
        relative importance weights.

    Returns
    -------
    TCalResult
        p-value, the DPE and bin count of the most significant level, every level's
        bins and p-value.

    Raises
    ------
    ValueError
        Invalid scores, outcomes or weights, ``n_draws < 1``, an unknown ``combine``.

    Notes
    -----
    Per level ``m`` the statistic is the DPE of the module docstring; the per-level
    p-value is ``p_m = #{r : T_m^(r) >= T_m} / (R + 1)`` over the data and the ``R``
    replicates. ``"max_z"`` returns ``#{r : Z^(r) >= Z} / (R + 1)`` with
    ``Z = max_m (T_m - mean_m) / sd_m``, the mean and standard deviation of level
    ``m`` taken over the data and the replicates (levels without spread skipped);
    ``"bonferroni"`` returns ``min(1, L · min_m p_m)``. Both are valid at every n
    because the data and the replicates are exchangeable given the scores. Values
    within 1e-9 standard deviations of the data's count as ties (rounding must not
    decide a tie; counting them can only raise the p-value).

    Stopping early keeps the test exact.  Let ``p_1`` be the p-value of the first
    replicates and ``p`` that of all of them (both valid: ``P(p_1 <= α) <= α``,
    ``P(p <= α) <= α``), and report ``p_1`` when ``p_1 > c`` (``c = stop_above``),
    else ``p``.  For ``α < c`` the report is at most ``α`` only if ``p <= α``; for
    ``α >= c`` only if ``p_1 <= α``.  Either way ``P(report <= α) <= α``: the idea of
    Besag & Clifford's sequential Monte Carlo p-values [2]_, with one look.
    ``n_draws`` of the result is the number of replicates drawn.

    References
    ----------
    .. [1] Lee, D., Huang, X., Hassani, H. & Dobriban, E. (2023). T-Cal: an optimal
       test for the calibration of predictive models. Journal of Machine Learning
       Research 24(335), 1-72. arXiv:2203.01850. Sections 3.1-3.3.
    .. [2] Besag, J. & Clifford, P. (1991). Sequential Monte Carlo p-values.
       Biometrika 78(2), 301-304. doi:10.1093/biomet/78.2.301.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=500)
    >>> y = rng.uniform(size=500) < s ** 3  # badly miscalibrated
    >>> tcal_test(s, y, n_draws=200).pvalue < 0.01
    True
    """
    n_draws = v.check_positive_int(n_draws, "n_draws")
    if stop_above is not None and not 0.0 <= stop_above < 1.0:
        raise ValueError(f"`stop_above` must be None or in [0, 1), got {stop_above!r}")
    v.check_option(combine, "combine", COMBINES)
    s, y, w, frequency = _prepared(score, outcome, sample_weight, weights)
    rng = np.random.default_rng(seed)
    # sorted by (score, weight, outcome): the rows' order in the input changes nothing,
    # the subsample included
    order = np.lexsort((y, w, s))
    s, y, w = s[order], y[order], w[order]
    if max_rows is not None and s.size > v.check_positive_int(max_rows, "max_rows",
                                                              minimum=2):
        rows = np.sort(rng.choice(s.size, size=max_rows, replace=False))
        s, y, w = s[rows], y[rows], w[rows]
    d = _design(s, w, frequency)
    k_obs = w * y if frequency else y
    chunk = max(1, min(n_draws, _CHUNK // max(s.size, 1)))
    stats = [_statistics(d, k_obs[:, None])]
    done = 0
    target = n_draws if stop_above is None else min(n_draws, FIRST_DRAWS)
    while True:
        while done < target:
            size = min(chunk, target - done)
            stats.append(_statistics(d, _draws(rng, d, size)))
            done += size
        t = np.concatenate(stats)  # row 0: the data
        pvalue, best, level_p = _combined(t, combine)
        if done == n_draws or pvalue > stop_above:
            return TCalResult(pvalue, float(t[0, best]), int(d.levels[best]), d.levels,
                              tuple(float(p) for p in level_p), done, s.size, combine)
        target = n_draws


def _combined(t: np.ndarray, combine: str) -> tuple[float, int, np.ndarray]:
    """p-value, deciding level and per-level p-values of the data (row 0 of ``t``,
    replicates x levels) against the replicates."""
    total = t.shape[0]
    sd = t.std(axis=0)
    counts = np.column_stack([_upper_counts(t[:, j], _TIE * sd[j])
                              for j in range(t.shape[1])])
    level_p = counts[0] / total
    if combine == "bonferroni":
        best = int(np.argmin(level_p))
        return min(1.0, t.shape[1] * float(level_p[best])), best, level_p
    spread = sd > 0
    if not spread.any():  # every level degenerate (e.g. all scores 0 or 1)
        return 1.0, 0, level_p
    z = np.full_like(t, -np.inf)
    z[:, spread] = (t[:, spread] - t[:, spread].mean(axis=0)) / sd[spread]
    z_max = z.max(axis=1)
    return float(np.count_nonzero(z_max >= z_max[0] - _TIE) / total), int(np.argmax(z[0])), level_p
