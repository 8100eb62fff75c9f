"""A LOWESS calibration curve with its uncertainty band.

The curve is fitted by the LOWESS engine (:mod:`calreport.metrics._lowess`).  The
band of :func:`lowess_band` is a bootstrap (Poisson row counts, neighbourhoods fixed,
all replicates one batched fit) or, for large samples, a normal band from the
linearised variance of the local-linear fit; grid points with too few scores nearby
are marked ``sparse`` so figures can fade or cut them.

References
----------
Cleveland, W. S. (1979). Robust Locally Weighted Regression and Smoothing
Scatterplots. Journal of the American Statistical Association 74(368), 829-836.
doi:10.1080/01621459.1979.10481038.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from calreport import _validate as v
from calreport.metrics._lowess import (  # noqa: F401  (the engine, read as local_band.*)
    _linearised_se,
    _local_linear,
    _lowess_direct,
    _lowess_windows,
)
from calreport.metrics.local import _default_grid, _prepare, _smooth

__all__ = ["BAND_INTERVALS", "CalibrationBand", "lowess_band"]

#: Band constructions of :func:`lowess_band`.
BAND_INTERVALS = ("auto", "bootstrap", "normal")


@dataclass(frozen=True, eq=False)
class CalibrationBand:
    """LOWESS calibration curve with a pointwise bootstrap band and local row counts.

    Attributes
    ----------
    x : ndarray
        Grid of scores (ascending).
    y : ndarray
        Fitted curve at ``x`` (as :func:`lowess_curve`), clipped to [0, 1].
    low, high : ndarray
        Pointwise percentile band of the resampled curves, clipped to [0, 1].
    count : ndarray of int
        Rows whose score lies within ``frac / 2`` of each grid point (a uniform design
        would put ``floor(frac * n)`` rows there).
    sparse : ndarray of bool
        ``count < min_count``: the curve there rests on few scores and on rows far
        away; figures should fade or cut it.
    radius : ndarray
        Half-width of each local fit (distance to the farthest of its neighbours).
    level : float
        Pointwise coverage of the band.
    n_boot : int
        Number of bootstrap replicates (0 for the normal band).
    interval : str
        ``"bootstrap"`` or ``"normal"``: how the band was built.
    frac : float
        Fraction of the rows in each local fit.
    n_neighbors : int
        Rows in each local fit.
    n : int
        Number of rows.
    """

    x: np.ndarray
    y: np.ndarray
    low: np.ndarray
    high: np.ndarray
    count: np.ndarray
    sparse: np.ndarray
    radius: np.ndarray
    level: float
    n_boot: int
    interval: str
    frac: float
    n_neighbors: int
    n: int


#: Gathered (replicate x grid point x neighbour) values per tile of the band bootstrap.
_BAND_TILE_VALUES = 4_000_000
#: ``interval="auto"`` resamples while ``n_boot * J * k`` stays below this, else "normal".
_BAND_BOOTSTRAP_MAX = 20_000_000
def lowess_band(
    score: Any,
    outcome: Any,
    *,
    frac: float | str = "auto",
    level: float = 0.95,
    n_boot: int = 200,
    interval: str = "auto",
    grid: Any = None,
    n_grid: int = 100,
    min_count: int = 10,
    seed: int | np.random.SeedSequence | np.random.Generator | None = None,
) -> CalibrationBand:
    """LOWESS calibration curve with a bootstrap band and a flag for sparse regions.

    Parameters
    ----------
    score : array-like of shape (n,)
        Predicted probability of the positive class (or top-label confidence), in [0, 1].
    outcome : array-like of shape (n,)
        Observed 0/1 outcome (or correctness).
    frac : float in (0, 1] or "auto", default "auto"
        Fraction of the rows in each local fit; "auto" is :func:`adaptive_frac`.
    level : float in (0, 1), default 0.95
        Pointwise coverage of the percentile band.
    n_boot : int, default 200
        Bootstrap replicates.
    interval : {"auto", "bootstrap", "normal"}, default "auto"
        "bootstrap": percentile band of resampled curves; "normal": the curve
        ``+- z`` times the first-order (linearised) bootstrap standard error; "auto":
        the bootstrap unless ``n_boot * J * k`` exceeds 2e7 (about n > 6,000 with the
        default grid and span), where the normal band is as accurate and far cheaper.
    grid : array-like, optional
        Scores at which to evaluate (values in [0, 1]). Default: as :func:`lowess_curve`.
    n_grid : int, default 100
        Size of the default grid before its restriction to the score range.
    min_count : int, default 10
        Grid points with fewer rows within ``frac / 2`` are flagged ``sparse``.
    seed : int, SeedSequence or Generator, optional
        Randomness (``numpy.random.default_rng(seed)``); never the global state.

    Returns
    -------
    CalibrationBand
        Grid, curve, band, local row counts, sparse flags and the settings.

    Raises
    ------
    ValueError
        As :func:`lowess_curve`, or invalid ``level``, ``n_boot``, ``min_count``.
    TypeError
        Non-numeric input.

    Notes
    -----
    The curve ``y`` is :func:`lowess_curve` with the same ``frac``. The band is a
    Poisson bootstrap (Hanley & MacGibbon 2006): each replicate gives every row an
    independent ``Poisson(1)`` count ``c_i`` and refits the local line at each grid
    point with weights ``c_i K_ij``, where ``K_ij`` are the tricube weights of the
    original fit (its ``floor(frac * n)`` nearest rows and radius, as statsmodels
    computes them). Holding the neighbourhoods fixed is what makes the replicates a
    batched matrix product -- replicates x grid points x neighbours, in tiles -- and
    changes the band only at second order. With all counts 1 the batched fit equals
    statsmodels' LOWESS. The band is the ``(1 - level)/2`` and ``(1 + level)/2``
    quantiles of the replicate curves at each grid point (a replicate whose counts
    are all zero in a window is skipped there). Cost O(B J k) for B replicates, J grid
    points and k rows per fit: at n = 1000 a few milliseconds per replicate.

    The normal band linearises the same resampling: the fit at a grid point is
    ``sum_i l_i y_i`` (``l_i`` the local line's projection weights); the derivative
    with respect to row i's count is ``l_i r_i``, ``r_i`` the residual from the local
    line, so the bootstrap variance is ``sum_i (l_i r_i)^2`` to first order (the
    infinitesimal jackknife of Efron & Tibshirani 1993). Cost O(J k), no
    replicates; with thousands of rows per fit it matches the bootstrap band.

    A nearest-neighbour fit always uses ``k`` rows, so where scores are scarce it
    reaches far away and the band can look narrow although the curve there says
    little about that score: ``count`` (rows within ``frac / 2``, what a uniform
    design would put in one fit) and ``sparse`` (``count < min_count``) mark those
    grid points.

    References
    ----------
    Cleveland, W. S. (1979). Robust Locally Weighted Regression and Smoothing
    Scatterplots. Journal of the American Statistical Association 74(368), 829-836.
    doi:10.1080/01621459.1979.10481038.

    Hanley, J. A. & MacGibbon, B. (2006). Creating Non-Parametric Bootstrap Samples
    Using Poisson Frequencies. Computer Methods and Programs in Biomedicine 83(1),
    57-62. doi:10.1016/j.cmpb.2006.04.006.

    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman &
    Hall, New York. doi:10.1201/9780429246593.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(0, 1, 400)
    >>> y = rng.random(400) < s ** 2
    >>> band = lowess_band(s, y, seed=1)
    >>> bool(np.all((band.low <= band.y + 1e-12) & (band.y <= band.high + 1e-12)))
    True
    >>> round(band.frac, 4), band.n_neighbors
    (0.3017, 120)
    """
    s, y, frac, k = _prepare(score, outcome, "lowess", frac)
    level = v.check_fraction(level, "level", include_one=False)
    n_boot = v.check_positive_int(n_boot, "n_boot")
    v.check_option(interval, "interval", BAND_INTERVALS)
    min_count = v.check_positive_int(min_count, "min_count", minimum=0)
    rng = np.random.default_rng(seed)
    if grid is None:
        x = _default_grid(s, v.check_positive_int(n_grid, "n_grid"))
    else:
        x = v.check_probability(grid, "grid").copy()
    order = np.argsort(x, kind="stable")
    xs = x[order]
    fitted = np.clip(_smooth(s, y, xs, method="lowess", frac=frac, k=k), 0.0, 1.0)
    curve_y = np.empty_like(x)
    curve_y[order] = fitted
    left, radius = _lowess_windows(s, xs, k)
    idx = left[:, None] + np.arange(k)  # (J, k) rows of each local fit
    d = s[idx] - xs[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        u = np.abs(d) / radius[:, None]
    kern = np.where(radius[:, None] > 0, (1.0 - np.minimum(u, 1.0) ** 3) ** 3, 1.0)
    yy = y[idx]
    alpha = (1.0 - level) / 2.0
    if interval == "auto":
        interval = "bootstrap" if n_boot * idx.size <= _BAND_BOOTSTRAP_MAX else "normal"
    if interval == "normal":
        half_width = special.ndtri(1.0 - alpha) * _linearised_se(d, kern, yy)
        low_s, high_s = fitted - half_width, fitted + half_width
        n_boot = 0
    else:
        feats = np.stack((kern, kern * d, kern * d * d, kern * yy, kern * d * yy), axis=-1)
        rows, pos = np.unique(idx, return_inverse=True)
        pos = pos.reshape(idx.shape)
        tile = max(1, min(n_boot, _BAND_TILE_VALUES // max(idx.size, 1)))
        reps = np.empty((n_boot, xs.size))
        for b0 in range(0, n_boot, tile):  # tiles of replicates: one batched product each
            bt = min(tile, n_boot - b0)
            counts = rng.poisson(1.0, size=(bt, rows.size)).astype(np.float64)
            gathered = np.moveaxis(counts[:, pos], 0, 1)  # (J, bt, k)
            reps[b0:b0 + bt] = _local_linear(gathered @ feats).T
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns stay NaN
            low_s, high_s = np.nanquantile(reps, [alpha, 1.0 - alpha], axis=0)
    half = frac / 2.0
    count_s = (np.searchsorted(s, xs + half, side="right")
               - np.searchsorted(s, xs - half, side="left"))
    low, high = np.empty_like(x), np.empty_like(x)
    count, rad = np.empty(x.size, dtype=np.int64), np.empty_like(x)
    low[order], high[order], count[order], rad[order] = low_s, high_s, count_s, radius
    return CalibrationBand(
        x=x, y=curve_y, low=np.clip(low, 0.0, 1.0), high=np.clip(high, 0.0, 1.0),
        count=count, sparse=count < min_count, radius=rad, level=level, n_boot=n_boot,
        interval=interval, frac=frac, n_neighbors=k, n=s.size,
    )
