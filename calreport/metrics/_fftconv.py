"""Linear convolution along the last axis by real FFTs.

``scipy.signal.fftconvolve`` computes the same thing, but importing ``scipy.signal``
imports ``scipy.stats`` (about a second of a cold process); the smoothers need only
this.
"""

from __future__ import annotations

import numpy as np
from scipy import fft


def fft_convolve(a: np.ndarray, kernel: np.ndarray, mode: str) -> np.ndarray:
    """Convolve each row of ``a`` (last axis) with the 1-D ``kernel``.

    ``mode`` is ``"same"`` (centred, the length of ``a``) or ``"valid"`` (length
    ``len(a) - len(kernel) + 1``), as in ``numpy.convolve`` / ``scipy.signal``.

    Examples
    --------
    >>> np.round(fft_convolve(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]),
    ...                       "same"), 12).tolist()
    [1.0, 2.5, 4.0]
    """
    n, m = a.shape[-1], kernel.shape[-1]
    full = n + m - 1
    nfft = fft.next_fast_len(full, real=True)
    out = fft.irfft(fft.rfft(a, nfft, axis=-1) * fft.rfft(kernel, nfft), nfft, axis=-1)
    if mode == "same":
        start = (m - 1) // 2
        return out[..., start:start + n]
    if mode == "valid":
        return out[..., m - 1:n]
    raise ValueError(f"mode must be 'same' or 'valid', got {mode!r}")
