"""Shared test set-up."""

from __future__ import annotations

import sys

import pytest


@pytest.fixture(autouse=True)
def _close_pyplot_figures():
    """Close the figures a test created through pyplot (user-facing plots register
    there, and pyplot keeps them until closed)."""
    yield
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close("all")


@pytest.fixture(autouse=True, scope="session")
def _one_openmp_thread():
    """scikit-learn's gradient boosting fits with OpenMP threads that spin while they
    wait: on a machine whose cores are busy with other work, fitting the examples'
    models took 90 s instead of 0.7 s.  The tests fit them with one thread."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # without scikit-learn, nothing uses OpenMP
        yield
        return
    with threadpool_limits(limits=1, user_api="openmp"):
        yield


@pytest.fixture(scope="module")
def client():
    """A two-worker in-process Dask cluster for one test module (skipped without
    ``distributed``)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c
