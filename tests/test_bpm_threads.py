"""TCE_bpm's likelihood fit runs with the BLAS on one thread.

A fit multiplies a few hundred bins by three columns: a multithreaded BLAS gains
nothing there and, with every core busy, each product waits for its threads to be
scheduled.  These tests check the limit is in force during the optimisation, that it
is lifted afterwards and that it does not change any result.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize
from threadpoolctl import threadpool_info, threadpool_limits

from calreport.metrics import bpm


def _blas_threads() -> list[int]:
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def _data(n: int = 4000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    s = rng.beta(4, 1, n)
    return s, rng.random(n) < s**2


def test_blas_is_single_threaded_inside_the_fit(monkeypatch):
    seen: list[list[int]] = []
    original = optimize.minimize

    def spy(*args, **kwargs):
        seen.append(_blas_threads())
        return original(*args, **kwargs)

    monkeypatch.setattr(optimize, "minimize", spy)
    before = _blas_threads()
    bpm.tce_bpm(*_data())
    assert seen, "the fit did not call scipy.optimize.minimize"
    assert seen[0] and all(t == 1 for t in seen[0])
    assert _blas_threads() == before  # the limit is lifted afterwards


def test_thread_limit_does_not_change_the_result():
    s, hit = _data(seed=3)
    with threadpool_limits(limits=1, user_api="blas"):
        one = bpm.tce_bpm(s, hit, return_fit=True)
    free = bpm.tce_bpm(s, hit, return_fit=True)
    assert free.fit.coef == one.fit.coef
    assert free.tce == one.tce


def test_limit_is_lifted_when_the_fit_raises(monkeypatch):
    before = _blas_threads()

    def boom(*args, **kwargs):
        raise RuntimeError("optimiser failed")

    monkeypatch.setattr(optimize, "minimize", boom)
    with pytest.raises(RuntimeError, match="optimiser failed"):
        bpm.fit_bpm_curve(*_data(n=500))
    assert _blas_threads() == before
