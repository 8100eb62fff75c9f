"""Memory of the bootstrap: bounded by tiles and blocks, not by rows x replicates.

The peaks are traced with ``tracemalloc`` (NumPy reports its buffers to it) on
200,000 binary rows with every batched metric.  Before the per-row columns were
formed tile by tile and the canonical order was read through instead of copied,
the same call peaked at about 310 bytes a row.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import calreport.bootstrap.kernels as bs
from calreport import ConfidenceProfile
from calreport.registry import REGISTRY
from calreport.settings import Settings

BATCHED = [m for m, spec in REGISTRY.items() if spec.interval.kind == "bootstrap"]
N = 200_000


@pytest.fixture(scope="module")
def profile() -> ConfidenceProfile:
    rng = np.random.default_rng(0)
    p = rng.beta(2, 2, N)
    y = (rng.random(N) < p).astype(int)
    return ConfidenceProfile.from_arrays(y, p)


def _peak(prof: ConfidenceProfile, n_boot: int) -> int:
    tracemalloc.start()
    try:
        bs.bootstrap_replicates(prof, metrics=BATCHED, n_boot=n_boot, seed=0,
                                settings=Settings(p_risk_method="normal"))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_peak_per_row_is_bounded_and_independent_of_n_boot(monkeypatch, profile):
    monkeypatch.setattr(bs, "_MATRIX_BYTES", 0)  # the large-N path: columns per tile
    few, many = _peak(profile, 32), _peak(profile, 128)  # one tile, four tiles
    # 32 bytes a row of uint8 counts (a block of two streams of 16 replicates), the
    # sort orders in 4-byte positions, a flag and a confidence per AUC row, plus
    # tile buffers (32 replicates x 8192 rows) that do not grow with N: measured at
    # 5e4 and 2e5 rows, about 40 bytes a row plus 12 MB
    assert few / N < 120, few / N
    assert many <= 1.1 * few, (few, many)


def test_held_matrix_costs_its_columns_only(monkeypatch, profile):
    """Below ``_MATRIX_BYTES`` the columns are one (C, N) matrix, nothing per class."""
    k = bs.Kernels(profile, Settings(p_risk_method="normal"), BATCHED)
    assert k.sums.matrix is not None
    assert "pos1" not in k.col and "cpos1" not in k.col
    assert _peak(profile, 16) / N < 120 + 8 * len(k.col_names)


def test_multiclass_rare_positives_cost_two_bytes_per_row_and_class(monkeypatch):
    """Many classes: the sparse AUC keeps a 2-byte segment label per row and class
    and works through chunks of rows and rounds of classes, so the peak is about
    ``2 N K`` bytes plus fixed buffers, about 26 MB with tiles of 32 replicates
    (the sorted dense path held 13 bytes per row and class plus its (N, K)
    temporaries: 89 MB here)."""
    n, k = 20_000, 200
    rng = np.random.default_rng(1)
    z = rng.normal(size=(n, k)) * 2.0
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    y = (p.cumsum(axis=1) > rng.random((n, 1))).argmax(axis=1)
    prof = ConfidenceProfile.from_arrays(y, p)
    few, many = _peak(prof, 32), _peak(prof, 128)  # one tile, four tiles
    assert few < 2 * n * k + 28e6, few / (n * k)  # the (N, K) input alone is 32 MB
    assert many <= 1.1 * few, (few, many)


def test_large_n_mode_grows_by_about_25_bytes_a_row(monkeypatch):
    """Columns and AUC class vectors formed per tile: the peak grows by the 16 bytes
    of uint8 counts, 4 + 4 bytes of source rows and AURC positions and the AURC error
    flag per row (measured 25.4); tile buffers are the same at every N.  Before the
    class vectors went per tile and the AURC order stopped sorting, the slope was
    about 64 bytes a row."""
    monkeypatch.setattr(bs, "_MATRIX_BYTES", 0)
    peaks = []
    sizes = (150_000, 450_000)
    for n in sizes:
        rng = np.random.default_rng(1)
        p = rng.beta(2, 2, n)
        y = (rng.random(n) < p).astype(int)
        peaks.append(_peak(ConfidenceProfile.from_arrays(y, p), 16))
    slope = (peaks[1] - peaks[0]) / (sizes[1] - sizes[0])
    assert 16 <= slope < 30, slope
