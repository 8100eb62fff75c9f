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
