"""CORP reliability diagram: isotonic (PAV) recalibration, consistency bands, decomposition.

The CORP approach of Dimitriadis, Gneiting & Jordan (2021) estimates the conditional
event probability ``P(Y = 1 | score = p)`` by isotonic regression of the outcome on
the score, computed with the pool-adjacent-violators algorithm (PAV; Ayer et al.
1955). It is **C**\\ onsistent, **O**\\ ptimally binned, **R**\\ eproducible and
**P**\\ AV-based: no bin count or bandwidth to choose. This module gives

* :func:`corp_curve` -- the recalibrated step curve and each row's recalibrated
  probability;
* :func:`consistency_band` -- where the curve may lie for a calibrated forecast with
  these scores (outcomes resampled from ``Bernoulli(score)``);
* :func:`corp_decomposition` -- ``S = MCB - DSC + UNC`` for the Brier score and the
  log loss.

Ties are pooled before the fit (the curve is a function of the score, as in
scikit-learn's ``IsotonicRegression``), sample weights are supported everywhere, and a
fit costs one sort plus a linear-time PAV: O(N log N).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from calreport import _labels as lab
from calreport import _validate as v
from calreport.metrics._auc_kernels import sort_in_place
from calreport.metrics._chunks import row_slices
from calreport.metrics._corp_scores import (
    _base_rate_score,
    _chunked_sum,
    _group_score,
    _mean_score,
)

try:  # SciPy >= 1.12: compiled PAVA
    from scipy.optimize import isotonic_regression as _scipy_isotonic
except ImportError:  # pragma: no cover - exercised by forcing the fallback in the tests
    _scipy_isotonic = None

__all__ = [
    "RULES",
    "ConsistencyBand",
    "CorpCurve",
    "CorpDecomposition",
    "consistency_band",
    "corp_curve",
    "corp_decomposition",
]

#: Scoring rules of :func:`corp_decomposition`.
RULES = ("brier", "log")

#: Replicate values per tile of the consistency-band resampling (memory ~ 40 bytes each).
_TILE_VALUES = 4_000_000


@dataclass(frozen=True, eq=False)
class CorpCurve:
    """Isotonic (PAV) recalibration of binary scores: the CORP reliability curve.

    Attributes
    ----------
    x : ndarray of shape (m,)
        Distinct scores with positive total weight, ascending.
    y : ndarray of shape (m,)
        Recalibrated probability (conditional event probability) at each ``x``;
        non-decreasing. Plotting ``(x, y)`` joined by straight lines draws the CORP
        diagram: flat within a PAV block, linear between blocks.
    weight : ndarray of shape (m,)
        Total sample weight (row count without weights) at each ``x``.
    recalibrated : ndarray of shape (n,)
        Recalibrated probability of every input row, in input order.
    n_blocks : int
        Number of PAV blocks (distinct recalibrated values).
    n : int
        Number of rows.
    """

    x: np.ndarray
    y: np.ndarray
    weight: np.ndarray
    recalibrated: np.ndarray
    n_blocks: int
    n: int


@dataclass(frozen=True, eq=False)
class ConsistencyBand:
    """Pointwise band of the CORP curve under the hypothesis of calibration.

    Attributes
    ----------
    x : ndarray of shape (g,)
        Scores at which the band is evaluated, ascending.
    low, high : ndarray of shape (g,)
        Lower and upper quantiles (``(1 - level) / 2`` and ``(1 + level) / 2``) of the
        resampled CORP curves at ``x``.
    level : float
        Pointwise coverage probability of the band.
    n_boot : int
        Number of resampled outcome vectors.
    """

    x: np.ndarray
    low: np.ndarray
    high: np.ndarray
    level: float
    n_boot: int


@dataclass(frozen=True)
class CorpDecomposition:
    """CORP decomposition ``score = mcb - dsc + unc`` of a mean proper score.

    Attributes
    ----------
    score : float
        Mean score of the forecasts.
    mcb : float
        Miscalibration: ``score`` minus the score of the PAV-recalibrated forecasts
        (>= 0; 0 when the forecasts equal their recalibration).
    dsc : float
        Discrimination: score of the constant forecast ``mean(y)`` minus the score of
        the recalibrated forecasts (>= 0).
    unc : float
        Uncertainty: score of the constant forecast ``mean(y)``.
    rule : str
        ``"brier"`` or ``"log"``.
    """

    score: float
    mcb: float
    dsc: float
    unc: float
    rule: str

    @property
    def terms(self) -> tuple[float, float, float]:
        """``(mcb, dsc, unc)``."""
        return self.mcb, self.dsc, self.unc


# ----------------------------------------------------------------------------- PAV


def _pav_pooled(values: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """Weighted isotonic (non-decreasing) regression of ``values`` (positive weights).

    SciPy's compiled PAVA when available. The fallback pools adjacent violators in
    parallel rounds: every maximal run of decreasing block means is pooled at once
    (pooling adjacent violators in any order gives the same solution), each round
    vectorised; it needs as many rounds as the longest cascade of pools.
    """
    if _scipy_isotonic is not None:
        return np.asarray(_scipy_isotonic(values, weights=weights).x)
    return _pav_parallel(values, np.ones(values.size) if weights is None else weights)


def _pav_blocks(events: np.ndarray, weight: np.ndarray | None
                ) -> tuple[np.ndarray, np.ndarray]:
    """The blocks of the weighted isotonic fit of ``events / weight`` (``weight`` None:
    unit weights), as the sums ``(E_b, W_b)`` of their events and weights, in order.

    A chunk of rows at a time: the fit of each chunk, then the fit of all chunks'
    blocks as weighted points.  Pooling adjacent violators in any order gives the
    same solution, so each block of a chunk's fit lies inside one block of the whole
    fit: temporaries of a chunk's size and of the blocks' count, not of N rows.  The
    block sums are of the data themselves (exact counts when unweighted), not of
    pooled means.
    """
    def blocks(e: np.ndarray, w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        fit = _pav_pooled(e if w is None else e / w, w)
        # a block ends where the fitted value changes (two blocks of equal value by
        # rounding are summed as one: their rows have the same fitted value)
        starts = np.flatnonzero(np.r_[True, fit[1:] != fit[:-1]])
        sizes = np.diff(np.append(starts, e.size)).astype(np.float64) if w is None \
            else np.add.reduceat(w, starts)
        return np.add.reduceat(e, starts), sizes

    parts = [blocks(events[sl], None if weight is None else weight[sl])
             for sl in row_slices(events.size)]
    e_all, w_all = (np.concatenate(x) for x in zip(*parts, strict=True))
    return (e_all, w_all) if len(parts) == 1 else blocks(e_all, w_all)


def _pav_parallel(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Pool-adjacent-violators by vectorised rounds (the fallback of :func:`_pav_pooled`)."""
    sum_wy = values * weights
    sum_w = weights.astype(np.float64, copy=True)
    start = np.arange(values.size)  # first element of each block
    while True:
        means = sum_wy / sum_w
        violated = means[:-1] > means[1:]
        if not violated.any():
            break
        keep = np.r_[True, ~violated]  # a block starts where no violation precedes it
        heads = np.flatnonzero(keep)
        sum_wy = np.add.reduceat(sum_wy, heads)
        sum_w = np.add.reduceat(sum_w, heads)
        start = start[heads]
    lengths = np.diff(np.r_[start, values.size])
    return np.repeat(sum_wy / sum_w, lengths)


def _prepare(score: Any, outcome: Any | None, sample_weight: Any
             ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    s = v.check_probability(score, "score")
    y = None
    if outcome is not None:
        y = lab.check_binary_indicator(outcome, "outcome").astype(np.float64)
        v.check_consistent_length(score=s.size, outcome=y.size)
    w = v.check_sample_weight(sample_weight, s.size)
    return s, y, w


def _distinct(s: np.ndarray, w: np.ndarray | None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sort order, distinct scores, group id of each sorted row, weight per group."""
    order = np.argsort(s, kind="stable")
    s_sorted = s[order]
    new = np.r_[True, s_sorted[1:] != s_sorted[:-1]]
    group = np.cumsum(new) - 1
    x = s_sorted[new]
    ws = np.ones(s.size) if w is None else w[order]
    weight = np.bincount(group, weights=ws, minlength=x.size)
    return order, x, group, weight


def corp_curve(score: Any, outcome: Any, *, sample_weight: Any = None) -> CorpCurve:
    """CORP reliability curve: isotonic (PAV) regression of the outcome on the score.

    Parameters
    ----------
    score : array-like of shape (n,)
        Predicted probability of the positive class (or top-label confidence), in [0, 1].
    outcome : array-like of shape (n,)
        Observed 0/1 outcome (or correctness for the top-label view).
    sample_weight : array-like of shape (n,), optional
        Non-negative row weights; integer weights equal repeated rows. Rows of zero
        weight do not enter the fit; their recalibrated value is read off the curve.

    Returns
    -------
    CorpCurve
        Distinct scores ``x``, recalibrated values ``y``, weight per score, every
        row's recalibrated probability and the number of PAV blocks.

    Raises
    ------
    ValueError
        Scores outside [0, 1], non-binary outcomes, different lengths, invalid weights.
    TypeError
        Non-numeric input.

    Notes
    -----
    Dimitriadis, Gneiting & Jordan (2021), section "The CORP approach": with the
    distinct scores ``x_1 < ... < x_m``, tie-group weights ``W_j`` and weighted event
    rates ``ybar_j``, the recalibrated values solve

    .. math:: \\min_{\\hat y_1 \\le \\dots \\le \\hat y_m} \\sum_j W_j (\\bar y_j - \\hat y_j)^2,

    the isotonic regression computed by the pool-adjacent-violators algorithm (Ayer
    et al. 1955). Pooling ties first makes the curve a function of the score; this is
    what scikit-learn's ``IsotonicRegression`` does. Cost: one sort, O(N log N), plus
    a linear-time PAV (SciPy's ``optimize.isotonic_regression``; with SciPy < 1.12 a
    vectorised parallel pooling is used instead).

    References
    ----------
    Dimitriadis, T., Gneiting, T. & Jordan, A. I. (2021). Stable Reliability Diagrams
    for Probabilistic Classifiers. Proceedings of the National Academy of Sciences
    118(8), e2016191118. doi:10.1073/pnas.2016191118.

    Ayer, M., Brunk, H. D., Ewing, G. M., Reid, W. T. & Silverman, E. (1955). An
    Empirical Distribution Function for Sampling with Incomplete Information. Annals
    of Mathematical Statistics 26(4), 641-647. doi:10.1214/aoms/1177728423.

    Examples
    --------
    >>> curve = corp_curve([0.1, 0.3, 0.3, 0.6, 0.8], [0, 1, 0, 0, 1])
    >>> curve.x.tolist(), curve.y.tolist()
    ([0.1, 0.3, 0.6, 0.8], [0.0, 0.3333333333333333, 0.3333333333333333, 1.0])
    >>> curve.recalibrated.round(4).tolist()
    [0.0, 0.3333, 0.3333, 0.3333, 1.0]
    """
    s, y, w = _prepare(score, outcome, sample_weight)
    assert y is not None
    order, x, group, weight = _distinct(s, w)
    ws = np.ones(s.size) if w is None else w[order]
    events = np.bincount(group, weights=ws * y[order], minlength=x.size)
    fitted = weight > 0
    xs, ws_g = x[fitted], weight[fitted]
    ys = _pav_pooled(events[fitted] / ws_g, ws_g)
    # zero-weight scores sit on the curve (flat within a block, linear between blocks);
    # _interp_rows: np.interp's slope overflows between subnormal scores
    at_distinct = ys if fitted.all() else _interp_rows(x, xs, ys[np.newaxis, :])[0]
    recalibrated = np.empty(s.size)
    recalibrated[order] = at_distinct[group]
    n_blocks = int(np.count_nonzero(np.diff(ys))) + 1
    return CorpCurve(x=xs, y=ys, weight=ws_g, recalibrated=recalibrated,
                     n_blocks=n_blocks, n=s.size)


# ------------------------------------------------------------------ consistency band


def consistency_band(
    score: Any,
    *,
    sample_weight: Any = None,
    level: float = 0.9,
    n_boot: int = 200,
    grid: Any = None,
    n_grid: int = 1000,
    seed: int | np.random.SeedSequence | np.random.Generator | None = None,
) -> ConsistencyBand:
    """Consistency band of the CORP curve: resampled outcomes under calibration.

    Parameters
    ----------
    score : array-like of shape (n,)
        Predicted probability of the positive class (or top-label confidence), in [0, 1].
    sample_weight : array-like of shape (n,), optional
        Non-negative row weights (as in :func:`corp_curve`).
    level : float in (0, 1), default 0.9
        Pointwise coverage of the band (the original uses 90 % bands).
    n_boot : int, default 200
        Number of resampled outcome vectors.
    grid : array-like, optional
        Scores at which to evaluate the band. Default: every distinct score when there
        are at most ``n_grid`` of them, else ``n_grid`` equally spaced order statistics
        of the distinct scores (always including the smallest and largest).
    n_grid : int, default 1000
        Size of the default grid for many distinct scores.
    seed : int, SeedSequence or Generator, optional
        Randomness (``numpy.random.default_rng(seed)``); never the global state.

    Returns
    -------
    ConsistencyBand
        Grid ``x`` and the band ``low``, ``high``.

    Raises
    ------
    ValueError
        Invalid scores, weights, ``level``, ``n_boot`` or ``grid``.
    TypeError
        Non-numeric input.

    Notes
    -----
    Dimitriadis, Gneiting & Jordan (2021), section "Uncertainty quantification":
    outcomes ``y*_i ~ Bernoulli(score_i)`` are drawn independently (the forecast is
    calibrated by construction), the CORP curve of ``(score, y*)`` is refitted, and
    the band at ``x`` spans the ``(1 - level)/2`` and ``(1 + level)/2`` quantiles of
    the refitted curves there. Where the observed CORP curve leaves the band, the
    deviation from the diagonal is larger than calibrated forecasts with these scores
    produce by chance (a pointwise statement).

    Without weights the tie group of a score ``x_j`` with ``n_j`` rows gets
    ``Binomial(n_j, x_j)`` events (a Bernoulli draw when ``n_j = 1``); with weights
    every row is drawn. Replicates are
    processed in tiles: the tile's replicates are concatenated, each shifted by
    ``2 b`` so that the PAV cannot pool across replicates (all values of replicate
    ``b`` lie below those of ``b + 1``), and fitted in one call. Cost O(B (N + m)).

    References
    ----------
    Dimitriadis, T., Gneiting, T. & Jordan, A. I. (2021). Stable Reliability Diagrams
    for Probabilistic Classifiers. Proceedings of the National Academy of Sciences
    118(8), e2016191118. doi:10.1073/pnas.2016191118.

    Examples
    --------
    >>> import numpy as np
    >>> s = np.linspace(0.05, 0.95, 200)
    >>> band = consistency_band(s, n_boot=100, seed=0)
    >>> bool(np.all(band.low <= band.high)), band.x.size
    (True, 200)
    >>> bool(np.mean((band.low <= band.x) & (band.x <= band.high)) > 0.8)
    True
    """
    s, _, w = _prepare(score, None, sample_weight)
    level = v.check_fraction(level, "level", include_one=False)
    n_boot = v.check_positive_int(n_boot, "n_boot")
    n_grid = v.check_positive_int(n_grid, "n_grid", minimum=2)
    rng = np.random.default_rng(seed)
    order, x, group, weight = _distinct(s, w)
    fitted = weight > 0
    xs, ws_g = x[fitted], weight[fitted]
    m = xs.size
    if grid is None:
        pick = (np.arange(m) if m <= n_grid
                else np.unique(np.round(np.linspace(0, m - 1, n_grid)).astype(np.int64)))
        gx = xs[pick]
    else:
        gx = np.sort(v.check_probability(grid, "grid"))
        pick = None
    counts = np.bincount(group, minlength=x.size)[fitted]
    tied = np.flatnonzero(counts > 1)
    unit = w is None and not tied.size
    if w is not None:
        # per-row draws: row weights and probabilities of the fitted groups only
        ws_rows = w[order]
        keep_rows = fitted[group]
        row_w, row_p = ws_rows[keep_rows], s[order][keep_rows]
        row_group = np.cumsum(np.r_[True, np.diff(group[keep_rows]) != 0]) - 1
    tile = max(1, min(n_boot, _TILE_VALUES // max(m, s.size if w is not None else m)))
    curves = np.empty((n_boot, gx.size))
    for b0 in range(0, n_boot, tile):
        bt = min(tile, n_boot - b0)
        if w is None:
            # a Bernoulli draw per untied score; Binomial(n_j, x_j) only for tie groups
            rate = (rng.random((bt, m)) < xs).astype(np.float64)
            if tied.size:
                rate[:, tied] = rng.binomial(counts[tied], xs[tied], size=(bt, tied.size)) / (
                    counts[tied])
        else:
            hits = rng.random((bt, row_p.size)) < row_p
            offsets = (np.arange(bt) * m)[:, None]
            rate = (np.bincount((offsets + row_group).ravel(),
                                weights=(hits * row_w).ravel(), minlength=bt * m)
                    .reshape(bt, m) / ws_g)
        shift = 2.0 * np.arange(bt)[:, None]
        fit = (_pav_pooled((rate + shift).ravel(), None if unit else np.tile(ws_g, bt))
               .reshape(bt, m) - shift)
        curves[b0:b0 + bt] = fit[:, pick] if pick is not None else _interp_rows(gx, xs, fit)
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(curves, [alpha, 1.0 - alpha], axis=0)
    return ConsistencyBand(x=gx, low=np.clip(low, 0.0, 1.0), high=np.clip(high, 0.0, 1.0),
                           level=level, n_boot=n_boot)


def _interp_rows(x_new: np.ndarray, xp: np.ndarray, fp: np.ndarray) -> np.ndarray:
    """``np.interp(x_new, xp, row)`` for every row of ``fp`` at once (flat outside)."""
    if xp.size == 1:
        return np.repeat(fp, x_new.size, axis=1)
    right = np.clip(np.searchsorted(xp, x_new, side="right"), 1, xp.size - 1)
    left = right - 1
    # the fraction of the gap, not a slope (which overflows between subnormal knots);
    # lo + (hi - lo) t is exact where the curve is flat and at the left knot, and kept
    # within [lo, hi] and exact at the right knot, so a monotone curve stays monotone
    t = np.clip((x_new - xp[left]) / (xp[right] - xp[left]), 0.0, 1.0)
    lo, hi = fp[:, left], fp[:, right]
    out = np.clip(lo + (hi - lo) * t, np.minimum(lo, hi), np.maximum(lo, hi))
    return np.where(t >= 1.0, hi, out)


# ---------------------------------------------------------------------- decomposition
# (the score sums of each rule: calreport.metrics._corp_scores)
def corp_decomposition(
    score: Any, outcome: Any, *, rule: str = "brier", sample_weight: Any = None
) -> CorpDecomposition:
    """CORP decomposition of the Brier score or log loss: ``S = MCB - DSC + UNC``.

    Parameters
    ----------
    score : array-like of shape (n,)
        Predicted probability of the positive class (or top-label confidence), in [0, 1].
    outcome : array-like of shape (n,)
        Observed 0/1 outcome (or correctness).
    rule : {"brier", "log"}, default "brier"
        Scoring rule: ``(p - y)^2`` or ``-y log p - (1 - y) log(1 - p)``.
    sample_weight : array-like of shape (n,), optional
        Non-negative row weights; every mean below is weighted.

    Returns
    -------
    CorpDecomposition
        ``score``, ``mcb``, ``dsc``, ``unc`` (and ``terms = (mcb, dsc, unc)``).

    Raises
    ------
    ValueError
        As :func:`corp_curve`, or an unknown ``rule``.
    TypeError
        Non-numeric input.

    Notes
    -----
    Dimitriadis, Gneiting & Jordan (2021), section "Score decomposition", with
    ``p`` the scores, ``p_hat`` their PAV recalibration (:func:`corp_curve`) and
    ``r = mean(y)`` (weighted):

    .. math::

        \\mathrm{MCB} = \\bar S(p) - \\bar S(\\hat p), \\quad
        \\mathrm{DSC} = \\bar S(r) - \\bar S(\\hat p), \\quad
        \\mathrm{UNC} = \\bar S(r),

    so ``S(p) = MCB - DSC + UNC`` holds exactly. PAV recalibration minimises every
    proper score among non-decreasing recalibrations, and the constant ``r`` is one,
    so ``MCB >= 0`` and ``DSC >= 0``. For the log loss the probabilities are clipped
    to ``[eps, 1 - eps]`` (eps = float64 machine epsilon), as in
    :func:`calreport.metrics.scoring.log_loss`; a recalibrated value of exactly 0 or 1
    only occurs on a block whose outcomes all agree with it, where the loss is 0.

    References
    ----------
    Dimitriadis, T., Gneiting, T. & Jordan, A. I. (2021). Stable Reliability Diagrams
    for Probabilistic Classifiers. Proceedings of the National Academy of Sciences
    118(8), e2016191118. doi:10.1073/pnas.2016191118.

    Examples
    --------
    >>> d = corp_decomposition([0.1, 0.3, 0.3, 0.6, 0.8], [0, 1, 0, 0, 1])
    >>> round(d.score, 6), round(d.mcb, 6), round(d.dsc, 6), round(d.unc, 6)
    (0.198, 0.064667, 0.106667, 0.24)
    >>> round(d.mcb - d.dsc + d.unc, 12) == round(d.score, 12)
    True
    """
    v.check_option(rule, "rule", RULES)
    s, y, w = _prepare(score, outcome, sample_weight)
    assert y is not None
    if w is None:
        key = s.view(np.uint64) << np.uint64(1)  # scores in [0, 1]: bit order = order
        key |= y.astype(np.uint64)
        sort_in_place(key)
        return _decomposition_sorted((key >> np.uint64(1)).view(np.float64),
                                     (key & np.uint64(1)).astype(np.float64), None, rule)
    order = np.argsort(s, kind="stable")
    return _decomposition_sorted(s[order], y[order], w[order], rule)


def _decomposition_sorted(s: np.ndarray, y: np.ndarray, w: np.ndarray | None,
                          rule: str) -> CorpDecomposition:
    """:func:`corp_decomposition` of rows sorted by score (validated, 0/1 outcomes).

    The recalibrated forecasts are constant on each block of the isotonic fit (tie
    groups pooled), so their mean score is a sum over the blocks:
    ``sum_b E_b S(p_b, 1) + (W_b - E_b) S(p_b, 0)`` with the block's weight ``W_b``,
    weighted events ``E_b`` and forecast ``p_b = E_b / W_b`` (:func:`_pav_blocks`).
    """
    new = s[1:] != s[:-1]
    if w is None and bool(new.all()):
        # no tied scores: every row is its own group of weight 1 (no index arrays or
        # unit weights of N rows); the fit is that of the 0/1 outcomes themselves
        del new
        events, weight = _pav_blocks(y.astype(np.float64, copy=False), None)
    else:
        first = np.concatenate(([0], np.flatnonzero(new) + 1))
        del new
        if w is None:
            weight = np.diff(np.append(first, s.size)).astype(np.float64)
            events = np.add.reduceat(y, first)
        else:
            weight = np.add.reduceat(w, first)
            events = np.add.reduceat(w * y, first)
        fitted = weight > 0
        events, weight = _pav_blocks(events[fitted], weight[fitted])
    # the recalibrated forecast is constant on each block of the fit: E_b / W_b
    total = float(weight.sum())
    rate = float(events.sum()) / total
    s_recal = _chunked_sum(lambda sl: _group_score(
        events[sl], weight[sl], events[sl] / weight[sl], rule), events.size) / total
    s_forecast = _mean_score(s, y, w, rule)
    s_ref = _base_rate_score(rate, rule)
    return CorpDecomposition(score=s_forecast, mcb=s_forecast - s_recal,
                             dsc=s_ref - s_recal, unc=s_ref, rule=rule)
