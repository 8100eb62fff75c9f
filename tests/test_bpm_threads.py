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
    original = bpm._newton_fit

    def spy(*args, **kwargs):
        seen.append(_blas_threads())
        return original(*args, **kwargs)

    monkeypatch.setattr(bpm, "_newton_fit", spy)
    before = _blas_threads()
    bpm.tce_bpm(*_data())
    assert seen, "the fit did not run the Newton solver"
    assert seen[0] and all(t == 1 for t in seen[0])
    assert _blas_threads() == before  # the limit is lifted afterwards


def test_blas_is_single_threaded_in_the_fallback(monkeypatch):
    seen: list[list[int]] = []
    original = optimize.minimize

    def spy(*args, **kwargs):
        seen.append(_blas_threads())
        return original(*args, **kwargs)

    monkeypatch.setattr(bpm, "_newton_fit", lambda *a, **k: None)  # force L-BFGS-B
    monkeypatch.setattr(optimize, "minimize", spy)
    before = _blas_threads()
    bpm.tce_bpm(*_data())
    assert seen and all(t == 1 for t in seen[0])
    assert _blas_threads() == before


@pytest.mark.parametrize("seed", range(5))
def test_newton_equals_lbfgsb(monkeypatch, seed):
    """The Newton optimum is the L-BFGS-B optimum (and the bounds bind alike)."""
    rng = np.random.default_rng(seed)
    n = [200, 1000, 4000, 20000, 600][seed]
    s = rng.beta(4, 1, n)
    hit = rng.random(n) < [s ** 2, s, 0.6 + 0 * s, 1 - s, np.sqrt(s)][seed]
    newton = bpm.fit_bpm_curve(s, hit)
    monkeypatch.setattr(bpm, "_newton_fit", lambda *a, **k: None)
    quasi = bpm.fit_bpm_curve(s, hit)
    np.testing.assert_allclose(newton.coef, quasi.coef, atol=2e-6)
    assert newton.log_likelihood >= quasi.log_likelihood - 1e-9 * abs(quasi.log_likelihood)
    assert newton.converged and quasi.converged
    assert (np.array(newton.coef[:2]) == 0) .tolist() == (np.array(quasi.coef[:2]) == 0).tolist()


def test_separable_bins_agree_with_lbfgsb(monkeypatch):
    # every row a hit: no finite optimum; both solvers stop where the gradient vanishes
    # to rounding, with a curve at 1
    s = np.random.default_rng(7).beta(4, 1, 600)
    hit = np.ones(600, bool)
    newton = bpm.fit_bpm_curve(s, hit)
    monkeypatch.setattr(bpm, "_newton_fit", lambda *a, **k: None)
    quasi = bpm.fit_bpm_curve(s, hit)
    assert newton.converged and quasi.converged
    for fit in (newton, quasi):
        assert fit.predict(0.3) > 0.999
    assert bpm.tce_bpm(s, hit) == pytest.approx(float(np.mean(1 - s)), abs=0.05)


def test_newton_leaves_binding_bounds_and_singular_designs_to_lbfgsb():
    design = np.column_stack([np.zeros(4), np.zeros(4), np.ones(4)])  # a, b unidentified
    assert bpm._newton_fit(design, np.full(4, 10.0), np.array([2.0, 3, 5, 7])) is None
    rng = np.random.default_rng(3)  # hits more frequent at low confidence: a = b = 0
    s = rng.random(500)
    y = rng.random(500) < 1 - s
    means, hits, sizes = bpm._bin_statistics(np.sort(s), y[np.argsort(s)].astype(float),
                                             bpm.bpm_bin_counts(500))
    assert bpm._newton_fit(bpm._design(means), sizes, hits) is None
    fit = bpm.fit_bpm_curve(s, y)
    assert fit.a == 0.0 and fit.b == 0.0 and fit.converged


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

    monkeypatch.setattr(bpm, "_newton_fit", boom)
    with pytest.raises(RuntimeError, match="optimiser failed"):
        bpm.fit_bpm_curve(*_data(n=500))
    assert _blas_threads() == before
