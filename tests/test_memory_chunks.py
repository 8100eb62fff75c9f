"""Row-chunked point estimates equal the one-pass computation, bit for bit.

Each chunk size is a module constant; set small here so a few thousand rows cross
many chunk boundaries (and end in a partial chunk).
"""

from __future__ import annotations

import numpy as np
import pytest

from calreport.metrics import calibration_index, smooth


def _data(n: int = 5_003, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    s = rng.beta(2, 3, n)
    s[::7] = 0.25  # ties
    return s, rng.random(n) < s ** 1.3


@pytest.mark.parametrize("weighted", [False, True])
def test_smece_chunked_masses_equal_one_pass(monkeypatch, weighted):
    s, y = _data()
    w = np.random.default_rng(1).uniform(0.1, 2.0, s.size) if weighted else None
    whole = (smooth.smece(s, y, sample_weight=w), smooth.smece(s, y, sigma=0.07,
                                                               sample_weight=w))
    monkeypatch.setattr(smooth, "MASS_CHUNK_ROWS", 97)
    assert (smooth.smece(s, y, sample_weight=w),
            smooth.smece(s, y, sigma=0.07, sample_weight=w)) == whole


def test_smece_unweighted_equals_unit_weights():
    s, y = _data()
    assert smooth.smece(s, y) == smooth.smece(s, y, sample_weight=np.ones(s.size))


def test_eci_chunked_gap_equals_one_pass(monkeypatch):
    s, y = _data()
    whole = calibration_index.eci(s, y)
    summary = calibration_index.calibration_error_summary(s, y)
    monkeypatch.setattr(calibration_index, "GAP_CHUNK_ROWS", 61)
    assert calibration_index.eci(s, y) == whole
    assert calibration_index.calibration_error_summary(s, y) == summary
    # the rows' gaps are the curve at the distinct scores, repeated
    order = np.argsort(s, kind="stable")
    gap, exact = calibration_index._gap_at_rows(s[order], y[order].astype(float),
                                                method="lowess", frac=0.75, k=1000,
                                                n_nodes=50)
    assert not exact and gap.shape == s.shape
