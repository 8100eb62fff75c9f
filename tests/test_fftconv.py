"""The FFT convolution of the smoothers equals scipy's and numpy's, and a summary
does not import scipy.stats (a second of every cold process)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from scipy import signal

from calreport.metrics._fftconv import fft_convolve


@pytest.mark.parametrize(("n", "m"), [(7, 3), (10, 10), (100, 31), (3073, 2049)])
@pytest.mark.parametrize("mode", ["same", "valid"])
def test_equals_scipy_and_numpy(n, m, mode):
    rng = np.random.default_rng(n * m)
    a, k = rng.random((3, n)), rng.random(m)
    got = fft_convolve(a, k, mode)
    ref = signal.fftconvolve(a, k[None, :], mode=mode, axes=-1)
    assert got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got[1], np.convolve(a[1], k, mode=mode), rtol=0, atol=1e-9)


def test_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="mode must be 'same' or 'valid'"):
        fft_convolve(np.ones(4), np.ones(2), "full")


def test_summary_does_not_import_scipy_stats():
    code = ("import sys, numpy as np, pandas as pd, calreport\n"
            "p = np.linspace(0.01, 0.99, 200)\n"
            "df = pd.DataFrame({'y': (np.arange(200) % 3 == 0).astype(int), 'p': p})\n"
            "df.calib(y='y', proba='p').summary()\n"
            "print('scipy.stats' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
