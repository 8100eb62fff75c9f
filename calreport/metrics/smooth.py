"""Smooth ECE: kernel-smoothed calibration error and the smoothed reliability curve.

The smooth ECE of Błasiok & Nakkiran (2024) replaces the bins of the binned ECE by
a Gaussian kernel reflected at 0 and 1, and picks the kernel width ``sigma`` as the
fixed point ``smECE_sigma = sigma``.  It is a consistent calibration measure with
no binning choice left to the user, and its smoothed curve is the reliability
diagram the authors recommend.

Computation
-----------
The sums over rows are spread linearly onto a fine node grid (one pass, ``O(N)``),
convolved with the sampled kernel by FFT (``O(G log G)``) and read on a mesh.  The
discretisation (grid size, mesh size, kernel truncated at ``+-1/2``, the density
floor ``1e-4``) follows the authors' reference package ``relplot`` 1.0.3, so the
values agree with ``relplot.smECE`` to about ``1e-12`` (unit weights).

Boundary convention
-------------------
``boundary="relplot"`` (default) reflects the node grid about its end nodes
without repeating them, as ``relplot`` does: a row whose score is exactly 0 or 1
keeps only half of its kernel mass on ``[0, 1]``.  On deep-network confidences,
where many rows sit at 1.0, the two conventions differ (by more than 0.001 at
``sigma = 0.05`` when a tenth of the rows are at 1.0).  ``boundary="reflect"`` reflects the
end nodes too, so every row keeps its full mass (the paper's kernel
``phi(t - s) + phi(t + s) + phi(t - (2 - s))``); the two agree whenever no score
lies within one grid cell (at most 0.001) of 0 or 1.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy import fft

from calreport import _labels as lab
from calreport import _validate as v
from calreport.metrics._chunks import row_slices
from calreport.metrics._fftconv import fft_convolve

__all__ = [
    "BOUNDARIES",
    "SmoothReliabilityCurve",
    "smece",
    "smece_bandwidth",
    "smooth_reliability_curve",
]

#: Keys of :mod:`calreport.references` behind this module.
REFERENCE_KEYS = ("Blasiok2024",)

#: Accepted values of ``boundary``.
BOUNDARIES = ("relplot", "reflect")

Boundary = Literal["relplot", "reflect"]

#: Bandwidth search: ``sigma`` below this counts as "too small" (relplot's ``eps``).
SIGMA_FLOOR = 1e-3
#: Number of bisection steps of the bandwidth search (resolution 2**-10).
SEARCH_STEPS = 10
#: Smallest and largest bandwidth accepted from the caller.
SIGMA_RANGE = (1e-4, 1.0)
# Discretisation of relplot 1.0.3: node grid, evaluation mesh and density floor.
_MIN_NODES = 2000
_MIN_MESH = 200
_DENSITY_FLOOR = 1e-4


# ----------------------------------------------------------------------------- core
def _n_nodes(sigma: float) -> int:
    """Size of the node grid: at least 1001 nodes, and at least 10 per ``sigma``."""
    return max(_MIN_NODES, round(20.0 / sigma)) // 2 + 1


def _n_mesh(sigma: float) -> int:
    """Size of the evaluation mesh: at least 200 points, and at least 10 per ``sigma``."""
    return max(round(10.0 / sigma), _MIN_MESH)


class _Smoother:
    """Node-grid sums of one data set, reused across bandwidths.

    Each row's value is split between the two grid nodes around its score in
    proportion to the distance (linear binning), so smoothing the node masses is
    smoothing the rows with the kernel sampled at node spacing.
    """

    def __init__(self, s: np.ndarray, w: np.ndarray, values: tuple[np.ndarray, ...]):
        self._s = s
        self._w = w
        self._values = values
        self._cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._spectra: dict[tuple[int, str], tuple[np.ndarray, int]] = {}

    def masses(self, n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
        """Node masses of the weights (row 0) and of each weighted value (rows 1..).

        The rows are read ``_chunks.ROWS`` at a time.  Each chunk's sums start from
        the running sums (passed to ``np.bincount`` ahead of the chunk's rows), so
        every node's sum adds the rows in the same order as one pass over all rows:
        the masses are those of the unchunked pass, bit for bit.
        """
        if n_nodes not in self._cache:
            rows = (self._w, *self._values)
            lower = np.zeros((len(rows), n_nodes))
            upper = np.zeros((len(rows), n_nodes - 1))
            node_lo, node_up = np.arange(n_nodes), np.arange(n_nodes - 1)
            for sl in row_slices(self._s.shape[0]):
                pos = self._s[sl] * (n_nodes - 1)
                left = np.clip(pos.astype(np.int64), 0, n_nodes - 2)
                frac = pos - left
                at_lo = np.concatenate((node_lo, left))
                at_up = np.concatenate((node_up, left))
                for row, val in enumerate(rows):
                    part = val[sl]
                    up = part * frac
                    lower[row] = np.bincount(at_lo, weights=np.concatenate(
                        (lower[row], part - up)), minlength=n_nodes)
                    upper[row] = np.bincount(at_up, weights=np.concatenate(
                        (upper[row], up)), minlength=n_nodes - 1)[: n_nodes - 1]
            lower[:, 1:] += upper
            self._cache = {n_nodes: (lower[0], lower[1:])}
            self._spectra = {}
        return self._cache[n_nodes]

    def spectrum(self, n_nodes: int, boundary: str) -> tuple[np.ndarray, int]:
        """Real FFT of the reflected masses of the weights and the first value, and
        its length (at least ``2 n_nodes - 1``: the overlap-save length)."""
        weight, values = self.masses(n_nodes)
        key = (n_nodes, boundary)
        if key not in self._spectra:
            ext = _extend(np.vstack([weight, values[0]]), boundary)
            length = fft.next_fast_len(ext.shape[-1], real=True)
            self._spectra[key] = (fft.rfft(ext, length), length)
        return self._spectra[key]


def _convolve(masses: np.ndarray, sigma: float, boundary: str) -> np.ndarray:
    """Reflected-Gaussian smoothing of node masses (rows), evaluated at the nodes.

    The kernel is the Gaussian density sampled at the node spacing on
    ``[-1/2, 1/2]`` (``n_nodes`` taps); the masses are extended by reflection about
    the end nodes so that the kernel mass falling outside ``[0, 1]`` folds back.
    """
    n_nodes = masses.shape[-1]
    taps = np.linspace(0.0, 1.0, n_nodes) - 0.5
    kernel = np.exp(-taps * taps / (2.0 * sigma * sigma)) / (np.sqrt(2.0 * np.pi) * sigma)
    ext = _extend(masses, boundary)
    return fft_convolve(ext, kernel, "valid")


def _extend(masses: np.ndarray, boundary: str) -> np.ndarray:
    """Node masses (rows) extended by reflection for a ``valid`` convolution."""
    n_nodes = masses.shape[-1]
    left = (n_nodes - 1) - n_nodes // 2  # taps on the left of the output node
    right = n_nodes - 1 - left
    ext = np.pad(masses, [(0, 0)] * (masses.ndim - 1) + [(left, right)], mode="reflect")
    if boundary == "reflect":
        # the mirror image of an end node is the node itself: count it twice
        ext[..., left] += masses[..., 0]
        ext[..., left + n_nodes - 1] += masses[..., -1]
    return ext


def _on_mesh(node_values: np.ndarray, mesh: np.ndarray) -> np.ndarray:
    """Linear interpolation of node values (rows) at the mesh points."""
    nodes = np.linspace(0.0, 1.0, node_values.shape[-1])
    return np.vstack([np.interp(mesh, nodes, row) for row in np.atleast_2d(node_values)])


def _smece_at(smoother: _Smoother, sigma: float, boundary: str) -> float:
    """``smECE_sigma``: integral of |smoothed residual sum| over the smoothed weight."""
    return float(_smece_batch(smoother, [sigma], boundary)[0])


@functools.lru_cache(maxsize=1024)
def _sampled_kernel(sigma: float, n_nodes: int) -> np.ndarray:
    """The Gaussian kernel of :func:`_convolve` at ``n_nodes`` taps centred on the
    middle one (node spacing ``1 / (n_nodes - 1)``)."""
    taps = np.linspace(0.0, 1.0, n_nodes) - 0.5
    return np.exp(-taps * taps / (2.0 * sigma * sigma)) / (np.sqrt(2.0 * np.pi) * sigma)


def _kernel_spectrum(sigma: float, n_nodes: int, length: int) -> np.ndarray:
    """Real FFT (length ``length``) of the sampled kernel of :func:`_convolve`."""
    return fft.rfft(_sampled_kernel(sigma, n_nodes), length)


@functools.lru_cache(maxsize=128)
def _kernel_spectra(sigmas: tuple[float, ...], n_nodes: int, length: int) -> np.ndarray:
    """:func:`_kernel_spectrum` of several widths, stacked (the search asks for the
    same few tuples of dyadic widths again and again)."""
    return np.stack([_kernel_spectrum(sig, n_nodes, length) for sig in sigmas])


@functools.lru_cache(maxsize=64)
def _mesh_weights(n_mesh: int, n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Left node and weight of the right node of each mesh point (linear interpolation)."""
    pos = np.linspace(0.0, 1.0, n_mesh) * (n_nodes - 1)
    left = np.minimum(pos.astype(np.int64), n_nodes - 2)
    return left, pos - left


def _abs_mesh_sums(node_values: np.ndarray, n_mesh: int) -> np.ndarray:
    """Sum over the mesh of ``|linear interpolation of the node values|``, per row
    (the rows of ``node_values`` are grids of nodes, as :func:`_on_mesh` reads them)."""
    left, right_w = _mesh_weights(n_mesh, node_values.shape[-1])
    on_mesh = node_values[:, left] * (1.0 - right_w)
    on_mesh += node_values[:, left + 1] * right_w
    return np.abs(on_mesh, out=on_mesh).sum(axis=1)


@functools.lru_cache(maxsize=64)
def _mesh_sum_spectrum(n_mesh: int, n_nodes: int, length: int) -> np.ndarray:
    """``c`` with ``Re(c . rfft(x)) = sum over the mesh of the interpolated x[n-1:2n-1]``.

    Summing the linear interpolation of the valid outputs over the mesh is a fixed
    linear functional ``sum_t b_t x_t`` of the circular convolution ``x``; by
    Parseval it is read from the spectrum without an inverse transform (real FFT of
    odd or even length: the non-zero, non-Nyquist frequencies count twice).
    """
    left, right_w = _mesh_weights(n_mesh, n_nodes)
    b = np.zeros(length)
    np.add.at(b, n_nodes - 1 + left, 1.0 - right_w)
    np.add.at(b, n_nodes + left, right_w)
    twice = np.full(length // 2 + 1, 2.0)
    twice[0] = 1.0
    if length % 2 == 0:
        twice[-1] = 1.0
    return np.conj(fft.rfft(b)) * twice / length


def _smece_batch(smoother: _Smoother, sigmas: list[float], boundary: str) -> np.ndarray:
    """``smECE_sigma`` for several ``sigma`` sharing one node grid, in one FFT batch.

    The reflected node masses of the weights and residuals are transformed once per
    search and multiplied by each sampled kernel's (cached) spectrum; the circular
    convolution of length ``>= 2 n_nodes - 1`` equals :func:`_convolve`'s linear one
    on the ``n_nodes`` outputs (overlap-save), so only rounding differs (~1e-16).
    The smoothed residuals are read on the mesh by linear interpolation, as
    :func:`_on_mesh` does; the mesh sum of the smoothed weight, a linear functional,
    is read from its spectrum (:func:`_mesh_sum_spectrum`), so only the residuals
    are transformed back.
    """
    n_nodes = _n_nodes(sigmas[0])
    spectrum, length = smoother.spectrum(n_nodes, boundary)
    kernels = _kernel_spectra(tuple(sigmas), n_nodes, length)
    resid = fft.irfft(spectrum[1] * kernels, length)[:, n_nodes - 1: 2 * n_nodes - 1]
    weight_spectra = spectrum[0] * kernels
    out = np.empty(len(sigmas))
    n_mesh = [_n_mesh(sig) for sig in sigmas]
    for size in set(n_mesh):
        rows = [i for i, m in enumerate(n_mesh) if m == size]
        part = resid if len(rows) == len(sigmas) else resid[rows]
        dens = (weight_spectra[rows] @ _mesh_sum_spectrum(size, n_nodes, length)).real
        out[rows] = _abs_mesh_sums(part, size) / (dens + size * _DENSITY_FLOOR)
    return out


#: Bisection steps resolved per batch of the search (2^2 - 1 = 3 candidate widths, of
#: which two are used: fewer transforms than one batch of 31, fewer calls than 11).
_BATCH_BITS = 2


def _search(smoother: _Smoother, boundary: str) -> tuple[float, float]:
    """Fixed point ``sigma* = smECE_sigma*`` by bisection; returns (sigma*, smECE).

    The bisection runs on the dyadic grid ``j / 2^10``. Before each pair of steps the
    three grid points the next two midpoints can reach are evaluated in one batch
    (:func:`_smece_batch`) when they use the common node grid (``sigma >= 0.01``); the
    steps then read those values, so the result is that of the plain bisection, from
    five batched transforms (16 widths) instead of eleven single ones. Widths with a
    finer node grid are evaluated one by one, as the steps reach them.
    """
    values: dict[float, float] = {}
    common = _n_nodes(1.0)

    def prefetch(lo: float, hi: float, bits: int) -> None:
        cand = [lo + (hi - lo) * i / 2 ** bits for i in range(1, 2 ** bits + 1)]
        todo = [c for c in cand if c not in values and c >= SIGMA_FLOOR
                and _n_nodes(c) == common]
        if todo:
            values.update(zip(todo, _smece_batch(smoother, todo, boundary).tolist(), strict=True))

    def at(sigma: float) -> float:
        if sigma not in values:
            values[sigma] = _smece_at(smoother, sigma, boundary)
        return values[sigma]

    def too_small(sigma: float) -> bool:
        return sigma < SIGMA_FLOOR or sigma < at(sigma)

    prefetch(0.0, 1.0, min(_BATCH_BITS, SEARCH_STEPS))
    if too_small(1.0):
        return 1.0, at(1.0)
    hi, lo = 1.0, 0.0
    for step in range(SEARCH_STEPS):
        if step and step % _BATCH_BITS == 0:
            prefetch(lo, hi, min(_BATCH_BITS, SEARCH_STEPS - step))
        mid = (hi + lo) / 2.0
        if too_small(mid):
            lo = mid
        else:
            hi = mid
    return hi, at(hi)


def _prepare(
    score: Any, outcome: Any, sample_weight: Any, boundary: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    v.check_option(boundary, "boundary", BOUNDARIES)
    s = v.check_probability(score, "score")
    y = lab.check_binary_indicator(outcome, "outcome")
    v.check_consistent_length(score=s.shape[0], outcome=y.shape[0])
    w = v.check_sample_weight(sample_weight, s.shape[0])
    if w is None:
        # unit weights as one broadcast value and the outcome as validated (the sums
        # convert it): no N-row copies
        return s, y, np.broadcast_to(np.float64(1.0), s.shape)
    # relative weights, rescaled to mean 1 over the rows that count: unit weights
    # reproduce the unweighted sums exactly and the density floor keeps its scale
    keep = w > 0
    return s[keep], y[keep].astype(np.float64), w[keep] * (keep.sum() / w.sum())


def _residual_smoother(score: Any, outcome: Any, sample_weight: Any, boundary: str
                       ) -> _Smoother:
    """The smoother of the weights and the weighted residuals ``w (s - y)``, with one
    N-row array beside the scores when unweighted (``1 * (s - y)`` is ``s - y``)."""
    s, y, w = _prepare(score, outcome, sample_weight, boundary)
    resid = np.subtract(s, y, dtype=np.float64)
    if sample_weight is not None:
        resid *= w  # w * (s - y), the same products
    return _Smoother(s, w, (resid,))


def _check_sigma(sigma: Any) -> float:
    lo, hi = SIGMA_RANGE
    try:
        val = float(sigma)
    except (TypeError, ValueError):
        raise TypeError(f"`sigma` must be a number in [{lo:g}, {hi:g}] or None, "
                        f"got {sigma!r}.") from None
    if not (lo <= val <= hi):
        raise ValueError(
            f"`sigma` must be in [{lo:g}, {hi:g}], got {sigma!r}. Pass sigma=None for the "
            "automatic bandwidth, or a kernel width on the probability scale (e.g. 0.05)."
        )
    return val


# ----------------------------------------------------------------------- public API
def smece(
    score: Any,
    outcome: Any,
    *,
    sigma: float | None = None,
    sample_weight: Any = None,
    boundary: Boundary = "relplot",
) -> float:
    """Smooth ECE: calibration error under a reflected-Gaussian kernel.

    Parameters
    ----------
    score : array-like of float, shape (N,)
        Scores in [0, 1]: top-label confidence, or positive-class probability.
    outcome : array-like of {0, 1} or bool, shape (N,)
        Correctness, or ``1[y == positive class]``.
    sigma : float, optional
        Kernel width in [1e-4, 1].  Default: the automatic bandwidth
        :func:`smece_bandwidth`, the fixed point ``smECE_sigma = sigma``.
    sample_weight : array-like of float, shape (N,), optional
        Non-negative relative weights: the value is unchanged when all weights are
        multiplied by a constant, and rows of zero weight are ignored.
    boundary : {"relplot", "reflect"}, default "relplot"
        Treatment of scores at exactly 0 or 1 (see the module notes): as the
        reference package ``relplot``, or with the full reflection of the paper.

    Returns
    -------
    float
        ``smECE`` in [0, 1]; lower is better.  At the automatic bandwidth the
        value is at most ``sigma*`` (when ``sigma* < 1``).

    Raises
    ------
    ValueError, TypeError
        On invalid scores, outcomes, weights, ``sigma`` or ``boundary``.

    Notes
    -----
    With residuals ``r_i = s_i - y_i`` and weights ``w_i`` (mean 1),

    ``smECE_sigma = int_0^1 |sum_i w_i K_sigma(t, s_i) r_i| dt / Z``,
    ``Z = int_0^1 sum_i w_i K_sigma(t, s_i) dt``,

    where ``K_sigma(t, s) = phi_sigma(t - s) + phi_sigma(t + s) + phi_sigma(t - (2 - s))``
    is the Gaussian kernel reflected at 0 and 1 (Błasiok & Nakkiran 2024,
    section 4, Definition 8 and section 5).  The default bandwidth is the
    ``sigma*`` with ``smECE_sigma* = sigma*``, found by 10 bisection steps on
    ``(0, 1]``; the returned value is ``smECE_sigma*``, which equals ``sigma*``
    up to the search resolution ``2^-10``.  Integrals are sums over a mesh of
    ``max(200, round(10 / sigma))`` points; the kernel is applied on a grid of
    ``max(2000, round(20 / sigma)) // 2 + 1`` nodes by FFT, truncated at
    ``+-1/2``; ``1e-4`` is added to the smoothed weight at every mesh point.
    These are the choices of the authors' package ``relplot`` 1.0.3, whose
    ``smECE`` and ``smECE_sigma`` this function reproduces (unit weights).  The
    smooth ECE is a consistent calibration measure: within constant factors of
    the distance to the nearest perfectly calibrated predictor (section 3).

    References
    ----------
    Błasiok, J., Nakkiran, P. (2024). Smooth ECE: Principled Reliability Diagrams
    via Kernel Smoothing. International Conference on Learning Representations
    (ICLR). arXiv:2309.12236, sections 3-5.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=2000)
    >>> y = rng.uniform(size=2000) < s ** 2
    >>> round(smece(s, y), 3)
    0.168
    """
    smoother = _residual_smoother(score, outcome, sample_weight, boundary)
    if sigma is None:
        return _search(smoother, boundary)[1]
    return _smece_at(smoother, _check_sigma(sigma), boundary)


def smece_bandwidth(
    score: Any,
    outcome: Any,
    *,
    sample_weight: Any = None,
    boundary: Boundary = "relplot",
) -> float:
    """Automatic kernel width ``sigma*`` of the smooth ECE (``smECE_sigma* = sigma*``).

    Parameters
    ----------
    score : array-like of float, shape (N,)
        Scores in [0, 1].
    outcome : array-like of {0, 1} or bool, shape (N,)
        Correctness, or ``1[y == positive class]``.
    sample_weight : array-like of float, shape (N,), optional
        Non-negative relative weights.
    boundary : {"relplot", "reflect"}, default "relplot"
        See :func:`smece`.

    Returns
    -------
    float
        ``sigma*``, a multiple of ``2^-10`` in (0, 1].

    Raises
    ------
    ValueError, TypeError
        On invalid inputs.

    Notes
    -----
    ``smECE_sigma`` decreases in ``sigma`` (Błasiok & Nakkiran 2024, section 5),
    so the fixed point is found by bisection: ``sigma`` is "too small" when
    ``sigma < 0.001`` or ``sigma < smECE_sigma``; ``sigma = 1`` is returned when
    it is already too small, otherwise the smallest of 10 bisection midpoints
    that is not (``relplot.smECE(..., return_width=True)``).

    References
    ----------
    Błasiok, J., Nakkiran, P. (2024). Smooth ECE: Principled Reliability Diagrams
    via Kernel Smoothing. ICLR. arXiv:2309.12236, section 5.

    Examples
    --------
    >>> smece_bandwidth([0.1, 0.4, 0.6, 0.9], [0, 0, 1, 1])
    0.1494140625
    """
    return _search(_residual_smoother(score, outcome, sample_weight, boundary), boundary)[0]


@dataclass(frozen=True, eq=False)
class SmoothReliabilityCurve:
    """Kernel-smoothed reliability curve on a regular grid of scores.

    Arrays are read-only and have one entry per grid point.

    Attributes
    ----------
    grid : ndarray of float64
        Scores ``t`` from 0 to 1.
    mean_outcome : ndarray of float64
        Nadaraya-Watson estimate of ``E[outcome | score = t]`` (the curve to plot
        against the diagonal; below it = overconfident in the top-label view).
    density : ndarray of float64
        Kernel density of the scores at ``t`` (integrates to 1 on the grid by the
        trapezoid rule); use it to fade regions without data.
    sigma : float
        Kernel width used.
    smece : float
        ``smECE_sigma`` at that width.
    boundary : str
        ``"relplot"`` or ``"reflect"``.
    """

    grid: np.ndarray
    mean_outcome: np.ndarray
    density: np.ndarray
    sigma: float
    smece: float
    boundary: str

    def __post_init__(self) -> None:
        for name in ("grid", "mean_outcome", "density"):
            getattr(self, name).flags.writeable = False


def smooth_reliability_curve(
    score: Any,
    outcome: Any,
    *,
    sigma: float | None = None,
    sample_weight: Any = None,
    n_points: int = 200,
    boundary: Boundary = "relplot",
) -> SmoothReliabilityCurve:
    """Smoothed reliability curve of the smooth ECE, for plotting.

    Parameters
    ----------
    score : array-like of float, shape (N,)
        Scores in [0, 1].
    outcome : array-like of {0, 1} or bool, shape (N,)
        Correctness, or ``1[y == positive class]``.
    sigma : float, optional
        Kernel width in [1e-4, 1]; default the automatic bandwidth of
        :func:`smece_bandwidth`, as the authors recommend for the diagram.
    sample_weight : array-like of float, shape (N,), optional
        Non-negative relative weights.
    n_points : int, default 200
        Number of grid points on [0, 1].
    boundary : {"relplot", "reflect"}, default "relplot"
        See :func:`smece`.

    Returns
    -------
    SmoothReliabilityCurve
        Grid, smoothed mean outcome, score density, ``sigma`` and ``smECE``.

    Raises
    ------
    ValueError, TypeError
        On invalid inputs.

    Notes
    -----
    ``mean_outcome(t) = sum_i w_i K_sigma(t, s_i) y_i / (sum_i w_i K_sigma(t, s_i) + 1e-4)``
    with the reflected Gaussian kernel of :func:`smece` (Błasiok & Nakkiran 2024,
    section 6: the diagram plots this curve with the density of the scores); it is
    the unbagged curve ``relplot``'s ``KernelSmoother`` draws.  The bootstrap band
    is not computed here.

    References
    ----------
    Błasiok, J., Nakkiran, P. (2024). Smooth ECE: Principled Reliability Diagrams
    via Kernel Smoothing. ICLR. arXiv:2309.12236, section 6.

    Examples
    --------
    >>> c = smooth_reliability_curve([0.1, 0.4, 0.6, 0.9], [0, 0, 1, 1], n_points=5)
    >>> c.grid
    array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    >>> bool(c.mean_outcome[0] < 0.5 < c.mean_outcome[-1])
    True
    """
    s, y, w = _prepare(score, outcome, sample_weight, boundary)
    n_points = v.check_positive_int(n_points, "n_points", minimum=2)
    smoother = _Smoother(s, w, (w * (s - y), w * y))
    if sigma is None:
        width, value = _search(smoother, boundary)
    else:
        width = _check_sigma(sigma)
        value = _smece_at(smoother, width, boundary)
    weight, (_, outcome_mass) = smoother.masses(_n_nodes(width))
    grid = np.linspace(0.0, 1.0, n_points)
    dens, hits = _on_mesh(_convolve(np.vstack([weight, outcome_mass]), width, boundary), grid)
    mean_outcome = hits / (dens + _DENSITY_FLOOR)
    area = float(np.sum((dens[1:] + dens[:-1]) / 2.0) * (grid[1] - grid[0]))
    return SmoothReliabilityCurve(
        grid=grid,
        mean_outcome=mean_outcome,
        density=dens / area if area > 0 else dens,
        sigma=width,
        smece=value,
        boundary=boundary,
    )
