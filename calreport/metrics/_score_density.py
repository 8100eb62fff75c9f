"""The density weights of the Local Calibration Score: a KDE of the reflected scores.

LCS weighs the squared gap of the calibration curve at each grid point by the density
of the scores there (Fernandes Machado et al. 2024, Eq. 6).  As in the authors' R
code, the density is a Gaussian KDE of the reflected sample ``{-s, s, 2 - s}`` (so
that it does not fall off at the ends of [0, 1]) with R's ``bw.nrd0`` bandwidth of
the ``3n`` reflected points.  :func:`reflected_kde` computes it without building
the reflected sample when it is large; :mod:`calreport.metrics.local` (LCS) and the
weighted and grouped LCS read it.

References
----------
Fernandes Machado, A., Charpentier, A., Flachaire, E., Gallic, E. & Hu, F. (2024).
From Uncertainty to Precision: Enhancing Binary Classifier Performance through
Calibration. arXiv:2402.07790.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from calreport.metrics._chunks import row_slices
from calreport.metrics._fftconv import fft_convolve

__all__ = ["bw_nrd0", "reflected_bw", "reflected_kde"]

# Reflected-KDE discretisation: grid nodes per bandwidth and kernel cut-off (in
# bandwidths). Linear binning then errs by at most (1/1000)^2 / 8 relative.
_KDE_NODES_PER_BW = 1000
_KDE_CUTOFF = 9.0
# Up to this many (grid point, reflected row) pairs the KDE is the exact sum.
_KDE_DIRECT_PAIRS = 60_000


def bw_nrd0(r_sorted: np.ndarray) -> Any:
    """R's ``bw.nrd0``: 0.9 min(sd, IQR / 1.34) n^(-1/5) (IQR from type-7 quantiles).

    A float for one sorted sample; for the rows of a 2-D array (samples of one size,
    each sorted), an array of their bandwidths.
    """
    n = r_sorted.shape[-1]
    sd = r_sorted.std(axis=-1, ddof=1) if n > 1 else np.zeros(r_sorted.shape[:-1])
    h = (n - 1) * np.array([0.25, 0.75])
    lo = np.floor(h).astype(np.int64)
    hi = np.minimum(lo + 1, n - 1)
    q = r_sorted[..., lo] + (h - lo) * (r_sorted[..., hi] - r_sorted[..., lo])
    scale = np.minimum(sd, (q[..., 1] - q[..., 0]) / 1.34)
    scale = np.where(scale > 0, scale, np.where(sd > 0, sd, 1.0))
    bw = 0.9 * scale * n ** (-0.2)
    return float(bw) if r_sorted.ndim == 1 else bw


def reflected_bw(s_sorted: np.ndarray, units: np.ndarray | None = None) -> float:
    """:func:`bw_nrd0` of the reflected sample ``{-s, s, 2 - s}`` without building it.

    The sums of the 3n points and of their squares come from those of ``s``; the
    sorted reflected sample is ``(-s[::-1], s, 2 - s[::-1])``, so its quartiles are
    read from ``s`` by index.  ``units``: cumulative frequency weights of the rows
    (the bandwidth of the repeated rows, :mod:`calreport.metrics._units`).
    """
    s = s_sorted
    c = 1.0 if units is None else np.diff(np.concatenate(([0], units))).astype(np.float64)
    n = s.size if units is None else int(units[-1])
    m = 3 * n
    total = float(np.sum(c * s))
    sum_r = 2.0 * n - total  # -sum s + sum s + sum (2 - s)
    mean = sum_r / m
    # sum (r - mean)^2 over the three images, each centred at mean
    dev = (np.sum(c * (s - mean) ** 2) + np.sum(c * (s + mean) ** 2)
           + np.sum(c * (2.0 - s - mean) ** 2))
    sd = math.sqrt(float(dev) / (m - 1)) if m > 1 else 0.0

    def at(i: np.ndarray) -> np.ndarray:
        img = i // n
        j = i - img * n
        lo, mid = (n - 1 - j, j) if units is None else (
            np.searchsorted(units, n - 1 - j, side="right"),
            np.searchsorted(units, j, side="right"))
        return np.where(img == 0, -s[lo], np.where(img == 1, s[mid], 2.0 - s[lo]))

    h = (m - 1) * np.array([0.25, 0.75])
    lo = np.floor(h).astype(np.int64)
    hi = np.minimum(lo + 1, m - 1)
    q = at(lo) + (h - lo) * (at(hi) - at(lo))
    scale = min(sd, float(q[1] - q[0]) / 1.34)
    if not scale > 0:
        scale = sd if sd > 0 else 1.0
    return 0.9 * scale * m ** (-0.2)


def reflected_kde(s_sorted: np.ndarray, x: np.ndarray, units: np.ndarray | None = None
                  ) -> tuple[np.ndarray, float]:
    """Gaussian KDE of the reflected sample ``{-s, s, 2 - s}`` at ``x`` in [0, 1].

    Bandwidth: ``bw.nrd0`` of the 3n reflected points. The scores are linearly
    binned on nodes ``m / M`` of [0, 1] (``M >= 1000 / bw``); the reflections land on
    the mirrored nodes, so one convolution of the extended node counts with the
    sampled Gaussian gives the density at every node, and linear interpolation gives
    it at ``x``. Relative error below ~1e-7 against the exact sum over 3n points,
    which is computed instead when ``3n * len(x) <= 60,000`` (it is cheaper there).
    Returns the density (integrating to 1 over [-1, 2]) and the bandwidth.
    ``units``: cumulative frequency weights of the rows (the repeated rows' density).
    """
    s = s_sorted
    c = None if units is None else np.diff(np.concatenate(([0], units))).astype(np.float64)
    n = s.size if units is None else int(units[-1])
    if 3 * n * x.size <= _KDE_DIRECT_PAIRS:
        # few rows: the exact sum over the 3n reflected points is cheaper than the grid;
        # the three images occupy [-1, 0], [0, 1], [1, 2]: their concatenation is sorted
        r = np.concatenate((-s[::-1], s, 2.0 - s[::-1]))
        bw = bw_nrd0(r) if units is None else reflected_bw(s, units)
        t = (x[:, None] - r[None, :]) / bw
        t = np.exp(-0.5 * t * t)
        if c is not None:
            t *= np.concatenate((c[::-1], c, c[::-1]))
        dens = t.sum(axis=1) / (3.0 * n * math.sqrt(2.0 * math.pi) * bw)
        return dens, bw
    bw = reflected_bw(s, units)
    m = max(1024, math.ceil(_KDE_NODES_PER_BW / bw))
    counts = np.zeros(m + 1)
    for sl in row_slices(s.size):  # linear binning by chunks: no N-row temporaries
        pos = s[sl] * m
        i0 = np.minimum(pos.astype(np.int64), m - 1)
        frac_up = pos - i0
        down = 1.0 - frac_up
        if c is not None:
            down *= c[sl]
            frac_up *= c[sl]
        counts += (np.bincount(i0, weights=down, minlength=m + 1)
                   + np.bincount(i0 + 1, weights=frac_up, minlength=m + 1))
    # extended node t = (i - m) / m, i = 0..3m: images -s, s and 2 - s
    ext = np.zeros(3 * m + 1)
    ext[: m + 1] += counts[::-1]
    ext[m: 2 * m + 1] += counts
    ext[2 * m:] += counts[::-1]
    half = min(math.ceil(_KDE_CUTOFF * bw * m), 3 * m)
    t = np.arange(-half, half + 1) / (m * bw)
    kernel = np.exp(-0.5 * t * t) / (math.sqrt(2.0 * math.pi) * bw)
    dens = fft_convolve(ext, kernel, "same")[m: 2 * m + 1] / (3.0 * n)
    dens = np.maximum(dens, 0.0)  # FFT round-off in the far tails
    return np.interp(x, np.linspace(0.0, 1.0, m + 1), dens), bw
